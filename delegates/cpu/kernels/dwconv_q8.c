/* dwconv_q8.c - 8-bit depthwise convolution with fused exact requantization (see
 * dwconv_q8.h).
 *
 * The sum. With x_u the input byte read as unsigned (int8: x + 128) and zx_u its zero
 * point the same way, and the weight differences split as w - zw = s + k (s fits int8):
 *   bias + sum over taps (x_u - zx_u)(w - zw)
 *     = [bias - zx_u * sum(w - zw)] + sum x_u * s + k * sum x_u
 * where taps outside the input read zx_u (their term is zero, as in the reference). s = w - zw,
 * k = 0 when every difference fits int8; else (uint8 weights far from their zero point)
 * s = w_u - 128, k = 128 - zw_u, and sum x_u comes from a second dot product with ones.
 * Everything is int32 arithmetic modulo 2^32, as the reference's wrapping accumulator.
 *
 * The layout. vpdpbusd multiplies 4 unsigned bytes by 4 signed bytes per int32 lane and
 * adds them up: one lane per channel, its 4 bytes the 4 taps kx = 4g..4g+3 of one filter
 * row (g: tap group; a 3x3 filter has one group, its 4th byte 0). For an input row iy, a
 * "tap row" holds, per output column ox and group g, those 4 input bytes of every channel
 * (prepare packs the weights the same way); an output row is then KH * G multiply-adds
 * per vector of channels. A tap row serves KH / stride_h output rows: each task keeps the
 * last KH in a ring on its stack (24 KiB), for a tile of output columns and a block of
 * channels, and sweeps its output rows down the tile. Blocks are 64 channels in 512-bit
 * vectors; a last block of at most 32 channels (24-channel layers, 96 = 64 + 32,
 * 144 = 2 * 64 + 16) takes 256-bit ones, half the cost on Zen 4 (dwconv_q8_simd.h).
 * The requantization is requant_rows.c's arithmetic, in registers; the block's bytes
 * leave in one store.
 * Output rows are split over the threads.
 */
#include "dwconv_q8.h"

#include <string.h>

#include "conv_common.h"
#include "kernels.h"

enum { INPUT = 0, FILTER = 1, BIAS = 2 };
enum { OUTPUT = 0 };

#define DW_BLOCK 64            /* channels per block (4 vectors of 16 int32) */
#define DW_NARROW 32           /* a last block of at most 32 (4 vectors of 8) */
#define DW_RING_WORDS 6144     /* int32 per task's ring: 24 KiB of stack */
#define DW_MAX_ROW_GROUPS 12   /* KH * G: a tile keeps at least 8 columns */

typedef struct {
  void *ref;            /* the reference kernel's prepared state (geometry, requantization) */
  int groups;           /* G = ceil(KW / 4) */
  int cpad;             /* channels rounded up to whole blocks */
  bool shifted;         /* k != 0 somewhere: the sum of x_u is needed */
  /* per channel, in lane order (dw_slot): */
  int8_t *w4;           /* [KH][G][cpad][4]: s of taps 4g..4g+3 (0 past KW) */
  int32_t *bias;        /* [cpad]: bias - zx_u * sum(w - zw) */
  int32_t *k;           /* [cpad] */
  float *scale;         /* [cpad]: the reference's multipliers */
  uint32_t *ones;       /* [G]: 1 in each byte of a real tap */
  uint8_t zx_u;         /* input zero point as unsigned byte */
  uint8_t zx_stored;    /* and as stored */
  cpu_features isa;
} dw_state;

/* Channels in the block that starts at c0 (a multiple of 64): 64, but 32 for a last block
 * of at most 32 channels (256-bit vectors: no lanes paid for nothing on narrow layers). */
static int block_width(int C, int c0)
{
  return C - c0 <= DW_NARROW ? DW_NARROW : DW_BLOCK;
}

/* Where channel c of C lives in its block of B channels (B / 16 lane groups of 128 bits in
 * each of 4 vectors): vector j = (c % 16) / 4, lane group c % B / 16, element c % 4 there:
 * the order two rounds of unpacking put 4 taps' bytes in (build_row), and two rounds of
 * packing undo. */
static size_t dw_slot(int c, int C)
{
  const int c0 = c & ~(DW_BLOCK - 1), cc = c - c0, r = cc & 15, quarter = block_width(C, c0) / 4;
  return (size_t)c0 + (size_t)((r >> 2) * quarter + (cc >> 4) * 4 + (r & 3));
}

static const cpu_conv_state *geo(const dw_state *st)
{
  return st->ref;
}

static bool is_q8(tfl_type t)
{
  return t == TFL_TYPE_UINT8 || t == TFL_TYPE_INT8;
}

bool cpu_dwconv_q8_tensors_fit(const tfl_graph *g, const tfl_node *n)
{
  if (n->op != TFL_OP_DEPTHWISE_CONV_2D || n->dead) return false;
  const tfl_tensor *x = cpu_in(g, n, INPUT), *w = cpu_in(g, n, FILTER), *y = cpu_out(g, n, OUTPUT);
  const tfl_tensor *b = cpu_in(g, n, BIAS);
  if (!x || !w || !y || !is_q8(x->type) || w->type != x->type || y->type != x->type) return false;
  if (!w->is_const || !w->data || w->sparsity || x->ndim != 4 || w->ndim != 4 || y->ndim != 4) return false;
  if (w->dims[0] != 1 || x->dims[3] < 1 || w->dims[3] != x->dims[3] || y->dims[3] != x->dims[3]) return false;
  if (x->q.n != 1 || y->q.n != 1 || (w->q.n != 1 && (w->q.n != w->dims[3] || w->q.axis != 3))) return false;
  if (b && (b->type != TFL_TYPE_INT32 || !b->is_const || !b->data || tfl_tensor_count(b) != (size_t)w->dims[3]))
    return false;
  return true;
}

bool cpu_dwconv_q8_fits(const tfl_graph *g, const tfl_node *n)
{
  if (!cpu_dwconv_q8_tensors_fit(g, n)) return false;
  const tfl_tensor *w = cpu_in(g, n, FILTER);
  const tfl_conv_params *p = &n->p.conv;
  if (p->stride_h < 1 || p->stride_w < 1 || p->dilation_h != 1 || p->dilation_w != 1 || !tfl_act_is_clamp(p->act))
    return false;
  const int kh = w->dims[1], kw = w->dims[2];
  return kh >= 1 && kw >= 1 && kh * ((kw + 3) / 4) <= DW_MAX_ROW_GROUPS;
}

bool cpu_dwconv_q8_applies(const tfl_graph *g, const tfl_node *n, const cpu_features *isa)
{
  return isa->avx512_vnni && cpu_dwconv_q8_fits(g, n);
}

void cpu_dwconv_q8_use_isa(void *state, const cpu_features *isa)
{
  dw_state *st = state;
  if (st) st->isa = *isa;
}

static void release(void *state)
{
  dw_state *st = state;
  if (!st) return;
  cpu_k_depthwise_conv_2d.release(st->ref);
  free(st->w4);
  free(st->bias);
  free(st->k);
  free(st->scale);
  free(st->ones);
  free(st);
}

/* Stored 8-bit value at element i as unsigned (int8: + 128). */
static int32_t unsigned_at(const void *data, bool is_u8, size_t i)
{
  return is_u8 ? ((const uint8_t *)data)[i] : ((const int8_t *)data)[i] + 128;
}

/* Packs the weights (s, k) and the folded bias; the reference's prepare has checked them. */
static void pack(dw_state *st, const tfl_tensor *w, const tfl_tensor *b, bool is_u8)
{
  const cpu_conv_state *gs = geo(st);
  const cpu_requant *rq = &gs->rq;
  const int C = gs->out_c, G = st->groups, taps = gs->k_h * gs->k_w;
  st->shifted = false;
  for (int i = 0; i < taps * C; i++) {
    const int32_t d = unsigned_at(w->data, is_u8, (size_t)i) - (rq->w_zp[i % C] + (is_u8 ? 0 : 128));
    if (d < -128 || d > 127) st->shifted = true;
  }
  for (int c = 0; c < C; c++) {
    const int32_t zw_u = rq->w_zp[c] + (is_u8 ? 0 : 128);
    const size_t at = dw_slot(c, C);
    uint32_t sum = 0; /* sum over taps of (w - zw) */
    for (int ky = 0; ky < gs->k_h; ky++)
      for (int kx = 0; kx < gs->k_w; kx++) {
        const int32_t w_u = unsigned_at(w->data, is_u8, ((size_t)ky * gs->k_w + kx) * C + c);
        sum += (uint32_t)(w_u - zw_u);
        const int32_t s = st->shifted ? w_u - 128 : w_u - zw_u;
        st->w4[(((size_t)ky * G + kx / 4) * st->cpad + at) * 4 + kx % 4] = (int8_t)s;
      }
    st->k[at] = st->shifted ? 128 - zw_u : 0;
    const uint32_t bias = b ? (uint32_t)((const int32_t *)b->data)[c] : 0u;
    st->bias[at] = (int32_t)(bias - (uint32_t)st->zx_u * sum);
    st->scale[at] = rq->scale[c];
  }
  for (int g = 0; g < G; g++)
    for (int t = 0; t < 4; t++)
      if (4 * g + t < gs->k_w) st->ones[g] |= 1u << (8 * t);
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  *state = NULL;
  if (!cpu_dwconv_q8_fits(g, n))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s",
                        "not an 8-bit depthwise conv with multiplier 1, dilation 1 and constant weights");
  dw_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "depthwise q8 state");
  *state = st;
  tfl_status s = cpu_k_depthwise_conv_2d.prepare(g, n, &st->ref, diag);
  if (s != TFL_OK) return s;
  const cpu_conv_state *gs = geo(st);
  const tfl_tensor *x = cpu_in(g, n, INPUT);
  const bool is_u8 = gs->rq.is_u8;
  st->groups = (gs->k_w + 3) / 4;
  const int last = (gs->out_c - 1) & ~(DW_BLOCK - 1);
  st->cpad = last + block_width(gs->out_c, last);
  st->zx_stored = (uint8_t)cpu_zero_point(x, 0);
  st->zx_u = (uint8_t)(cpu_zero_point(x, 0) + (is_u8 ? 0 : 128));
  st->isa = cpu_features_detect();
  const size_t cp = (size_t)st->cpad, G = (size_t)st->groups;
  st->w4 = calloc((size_t)gs->k_h * G * cp * 4, 1);
  st->bias = calloc(cp, sizeof *st->bias);
  st->k = calloc(cp, sizeof *st->k);
  st->scale = calloc(cp, sizeof *st->scale);
  st->ones = calloc(G, sizeof *st->ones);
  if (!st->w4 || !st->bias || !st->k || !st->scale || !st->ones)
    return tfl_fail(diag, TFL_ERR_NOMEM, "depthwise q8: packed weights of %d channels", gs->out_c);
  pack(st, cpu_in(g, n, FILTER), cpu_in(g, n, BIAS), is_u8);
  return TFL_OK;
}

typedef struct {
  const dw_state *st;
  const uint8_t *x;
  uint8_t *y;
  int rows, n_tasks;     /* output rows (batches * OH), split into n_tasks ranges */
} dw_args;

/* ---- portable C: the same sums straight from the input ---- */

static void rows_portable(const dw_state *st, const uint8_t *x, uint8_t *y, int r0, int r1)
{
  const cpu_conv_state *gs = geo(st);
  const cpu_requant *rq = &gs->rq;
  const int C = gs->out_c, G = st->groups;
  const uint8_t flip = rq->is_u8 ? 0 : 0x80;
  for (int r = r0; r < r1; r++) {
    const int bi = r / gs->out_h, oy = r % gs->out_h;
    const uint8_t *xb = x + (size_t)bi * gs->in_h * gs->in_w * C;
    for (int ox = 0; ox < gs->out_w; ox++)
      for (int c0 = 0; c0 < C; c0 += DW_BLOCK) {
        const int nc = C - c0 < DW_BLOCK ? C - c0 : DW_BLOCK;
        uint32_t acc[DW_BLOCK], sx[DW_BLOCK];
        for (int c = 0; c < nc; c++) acc[c] = (uint32_t)st->bias[dw_slot(c0 + c, C)], sx[c] = 0;
        for (int ky = 0; ky < gs->k_h; ky++) {
          const int iy = oy * gs->stride_h - gs->pad_h + ky;
          for (int kx = 0; kx < gs->k_w; kx++) {
            const int ix = ox * gs->stride_w - gs->pad_w + kx;
            const bool in = iy >= 0 && iy < gs->in_h && ix >= 0 && ix < gs->in_w;
            const uint8_t *xi = in ? xb + ((size_t)iy * gs->in_w + ix) * C + c0 : NULL;
            const int8_t *s = st->w4 + ((size_t)ky * G + kx / 4) * st->cpad * 4 + kx % 4;
            for (int c = 0; c < nc; c++) {
              const uint32_t xu = in ? (uint8_t)(xi[c] ^ flip) : st->zx_u;
              acc[c] += xu * (uint32_t)(int32_t)s[4 * dw_slot(c0 + c, C)];
              sx[c] += xu;
            }
          }
        }
        const size_t o = (((size_t)r * gs->out_w + ox) * C) + c0;
        for (int c = 0; c < nc; c++) {
          const size_t at = dw_slot(c0 + c, C);
          const int32_t a = (int32_t)(acc[c] + (uint32_t)st->k[at] * sx[c]);
          cpu_store_q(y, rq->is_u8, o + c, cpu_requant_fp32(a, st->scale[at], rq->out_zp, rq->lo, rq->hi));
        }
      }
  }
}

/* ---- AVX-512: tap rows in a ring, 4 taps per multiply-add ---- */

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define DW_X86 1
#define AVX512 __attribute__((target("avx512f,avx512bw,avx512vl")))
#define INLINE_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl"), always_inline)) static inline

typedef struct {
  int c0, nc;            /* first channel of the block, channels in it (<= its width) */
  int ox0, ox1;          /* output columns of the tile */
  int stride;            /* int32 per tile column in a ring slot: G * block width */
} dw_tile;

#define DW_VBITS 512
#include "dwconv_q8_simd.h"
#undef DW_VBITS
#define DW_VBITS 256
#include "dwconv_q8_simd.h"
#undef DW_VBITS

/* Output rows [r0, r1): per image and channel block (64 channels in 512-bit vectors, a
 * last one of at most 32 in 256-bit ones), dw_sweep. */
INLINE_AVX512 void rows_avx512(const dw_state *st, const uint8_t *x, uint8_t *y, int r0, int r1, bool vnni)
{
  const cpu_conv_state *gs = geo(st);
  const int C = gs->out_c, OH = gs->out_h;
  int32_t ring[DW_RING_WORDS];
  while (r0 < r1) {
    const int bi = r0 / OH, oy0 = r0 % OH;
    const int oy1 = (r1 - bi * OH) < OH ? r1 - bi * OH : OH;
    const uint8_t *xb = x + (size_t)bi * gs->in_h * gs->in_w * C;
    uint8_t *yb = y + (size_t)bi * OH * gs->out_w * C;
    for (int c0 = 0; c0 < C; c0 += DW_BLOCK) {
      if (block_width(C, c0) == DW_BLOCK)
        dw_sweep_512(st, xb, yb, oy0, oy1, c0, ring, vnni);
      else
        dw_sweep_256(st, xb, yb, oy0, oy1, c0, ring, vnni);
    }
    r0 = bi * OH + oy1;
  }
}

AVX512 static void rows_vnni(const dw_state *st, const uint8_t *x, uint8_t *y, int r0, int r1)
{
  rows_avx512(st, x, y, r0, r1, true);
}
AVX512 static void rows_plain_avx512(const dw_state *st, const uint8_t *x, uint8_t *y, int r0, int r1)
{
  rows_avx512(st, x, y, r0, r1, false);
}
#else
#define DW_X86 0
#endif

static void run_task(void *arg, size_t task)
{
  const dw_args *a = arg;
  const int r0 = (int)((size_t)a->rows * task / (size_t)a->n_tasks);
  const int r1 = (int)((size_t)a->rows * (task + 1) / (size_t)a->n_tasks);
#if DW_X86
  if (a->st->isa.avx512_vnni) {
    rows_vnni(a->st, a->x, a->y, r0, r1);
    return;
  }
  if (a->st->isa.avx512) {
    rows_plain_avx512(a->st, a->x, a->y, r0, r1);
    return;
  }
#endif
  rows_portable(a->st, a->x, a->y, r0, r1);
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)diag;
  dw_state *st = state;
  const cpu_conv_state *gs = geo(st);
  const int rows = gs->batches * gs->out_h;
  int tasks = cpu_thread_count(ctx);
  if (tasks > rows) tasks = rows;
  if (tasks < 1) return TFL_OK;
  dw_args a = {st, cpu_in(g, n, INPUT)->data, cpu_out(g, n, OUTPUT)->data, rows, tasks};
  cpu_parallel(ctx, run_task, &a, (size_t)tasks);
  return TFL_OK;
}

const cpu_kernel cpu_k_dwconv_q8 = {prepare, eval, release};
