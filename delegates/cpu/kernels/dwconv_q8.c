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
 * per 16 channels. A tap row serves KH / stride_h output rows: each task keeps the last KH
 * in a ring on its stack (24 KiB), for a tile of output columns and a block of up to 64
 * channels, and sweeps its output rows down the tile.
 * The requantization is requant_rows.c's arithmetic, in registers; the 64 channels' bytes
 * leave in one store.
 * Output rows are split over the threads.
 */
#include "dwconv_q8.h"

#include <string.h>

#include "conv_common.h"
#include "kernels.h"

enum { INPUT = 0, FILTER = 1, BIAS = 2 };
enum { OUTPUT = 0 };

#define DW_BLOCK 64            /* channels per block (4 vectors of 16) */
#define DW_RING_WORDS 6144     /* int32 per task's ring: 24 KiB of stack */
#define DW_MAX_ROW_GROUPS 12   /* KH * G: a tile keeps at least 8 columns */

typedef struct {
  void *ref;            /* the reference kernel's prepared state (geometry, requantization) */
  int groups;           /* G = ceil(KW / 4) */
  int cpad;             /* channels rounded up to 64 */
  int tile_w;           /* output columns per ring tile */
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

/* Where channel c lives in a block of 64: vector j = (c % 16) / 4 of the 4, lane group
 * c / 16 % 4 of its 4 (128 bits each), element c % 4 there: the order two rounds of
 * unpacking put 4 taps' bytes in (build_row), and two rounds of packing undo. */
static size_t dw_slot(int c)
{
  const int cc = c & 63, r = cc & 15;
  return (size_t)(c - cc) + (size_t)((r >> 2) * 16 + (cc >> 4) * 4 + (r & 3));
}

static const cpu_conv_state *geo(const dw_state *st)
{
  return st->ref;
}

static bool is_q8(tfl_type t)
{
  return t == TFL_TYPE_UINT8 || t == TFL_TYPE_INT8;
}

bool cpu_dwconv_q8_fits(const tfl_graph *g, const tfl_node *n)
{
  if (n->op != TFL_OP_DEPTHWISE_CONV_2D || n->dead) return false;
  const tfl_tensor *x = cpu_in(g, n, INPUT), *w = cpu_in(g, n, FILTER), *y = cpu_out(g, n, OUTPUT);
  const tfl_tensor *b = cpu_in(g, n, BIAS);
  const tfl_conv_params *p = &n->p.conv;
  if (!x || !w || !y || !is_q8(x->type) || w->type != x->type || y->type != x->type) return false;
  if (!w->is_const || !w->data || w->sparsity || x->ndim != 4 || w->ndim != 4 || y->ndim != 4) return false;
  if (w->dims[0] != 1 || x->dims[3] < 1 || w->dims[3] != x->dims[3] || y->dims[3] != x->dims[3]) return false;
  if (x->q.n != 1 || y->q.n != 1 || (w->q.n != 1 && (w->q.n != w->dims[3] || w->q.axis != 3))) return false;
  if (b && (b->type != TFL_TYPE_INT32 || !b->is_const || !b->data || tfl_tensor_count(b) != (size_t)w->dims[3]))
    return false;
  if (p->stride_h < 1 || p->stride_w < 1 || p->dilation_h != 1 || p->dilation_w != 1 || !cpu_act_is_clamp(p->act))
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
    const size_t at = dw_slot(c);
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
  st->cpad = (gs->out_c + DW_BLOCK - 1) / DW_BLOCK * DW_BLOCK;
  st->tile_w = DW_RING_WORDS / (gs->k_h * st->groups * DW_BLOCK);
  if (st->tile_w > gs->out_w) st->tile_w = gs->out_w;
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
        for (int c = 0; c < nc; c++) acc[c] = (uint32_t)st->bias[dw_slot(c0 + c)], sx[c] = 0;
        for (int ky = 0; ky < gs->k_h; ky++) {
          const int iy = oy * gs->stride_h - gs->pad_h + ky;
          for (int kx = 0; kx < gs->k_w; kx++) {
            const int ix = ox * gs->stride_w - gs->pad_w + kx;
            const bool in = iy >= 0 && iy < gs->in_h && ix >= 0 && ix < gs->in_w;
            const uint8_t *xi = in ? xb + ((size_t)iy * gs->in_w + ix) * C + c0 : NULL;
            const int8_t *s = st->w4 + ((size_t)ky * G + kx / 4) * st->cpad * 4 + kx % 4;
            for (int c = 0; c < nc; c++) {
              const uint32_t xu = in ? (uint8_t)(xi[c] ^ flip) : st->zx_u;
              acc[c] += xu * (uint32_t)(int32_t)s[4 * dw_slot(c0 + c)];
              sx[c] += xu;
            }
          }
        }
        const size_t o = (((size_t)r * gs->out_w + ox) * C) + c0;
        for (int c = 0; c < nc; c++) {
          const size_t at = dw_slot(c0 + c);
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

/* acc + per int32 lane: the 4 unsigned bytes of u times the 4 signed bytes of s. VNNI:
 * vpdpbusd (written in assembly so this body also builds into the plain AVX-512 path);
 * else the byte pairs as int16 products (at most 2 * 255 * 128: exact). */
INLINE_AVX512 __m512i dot4(__m512i acc, __m512i u, __m512i s, bool vnni)
{
  if (vnni) {
    __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(u), "v"(s));
    return acc;
  }
  const __m512i lo8 = _mm512_set1_epi16(0x00ff);
  const __m512i u_even = _mm512_and_si512(u, lo8), u_odd = _mm512_srli_epi16(u, 8);
  const __m512i s_even = _mm512_srai_epi16(_mm512_slli_epi16(s, 8), 8), s_odd = _mm512_srai_epi16(s, 8);
  acc = _mm512_add_epi32(acc, _mm512_madd_epi16(u_even, s_even));
  return _mm512_add_epi32(acc, _mm512_madd_epi16(u_odd, s_odd));
}

typedef struct {
  int c0, nc;            /* first channel of the block, channels in it (<= 64) */
  int ox0, ox1;          /* output columns of the tile */
  int stride;            /* int32 per tile column in a ring slot: G * 64 */
} dw_tile;

/* 64 channels of one input pixel (nc real, the rest 0), made unsigned. */
INLINE_AVX512 __m512i load64(const uint8_t *p, int nc, __m512i flip)
{
  const __m512i v = nc == 64 ? _mm512_loadu_si512(p) : _mm512_maskz_loadu_epi8(((__mmask64)1 << nc) - 1, p);
  return _mm512_xor_si512(v, flip);
}

/* Tap row of input row iy (outside: padding) into slot: per tile column and group, the 4
 * taps' bytes of 64 channels interleaved by two rounds of byte / word unpacking, in the
 * block's lane order (dw_slot). */
INLINE_AVX512 void build_row(const dw_state *st, const uint8_t *xb, int iy, const dw_tile *t, int32_t *slot)
{
  const cpu_conv_state *gs = geo(st);
  const int C = gs->out_c, W = gs->in_w, KW = gs->k_w, nc = t->nc, sw = gs->stride_w;
  const bool row_in = iy >= 0 && iy < gs->in_h;
  const uint8_t *xr = xb + (size_t)(row_in ? iy : 0) * W * C + t->c0;
  const __m512i flip = _mm512_set1_epi8((char)(st->zx_u ^ st->zx_stored));
  const __m512i pad = _mm512_set1_epi8((char)st->zx_u), zero = _mm512_setzero_si512();
  for (int ox = t->ox0; ox < t->ox1; ox++) {
    int32_t *col = slot + (size_t)(ox - t->ox0) * t->stride;
    for (int g = 0; g < st->groups; g++) {
      const int kx0 = 4 * g, ix = ox * sw - gs->pad_w + kx0, ntap = KW - kx0 < 4 ? KW - kx0 : 4;
      __m512i tap[4];
      if (row_in && ix >= 0 && ix + ntap <= W) {
        const uint8_t *p = xr + (size_t)ix * C;
        tap[0] = load64(p, nc, flip);
        tap[1] = ntap > 1 ? load64(p + C, nc, flip) : zero;
        tap[2] = ntap > 2 ? load64(p + 2 * (size_t)C, nc, flip) : zero;
        tap[3] = ntap > 3 ? load64(p + 3 * (size_t)C, nc, flip) : zero;
      } else {
        for (int k = 0; k < 4; k++) {
          const int ixk = ix + k;
          tap[k] = kx0 + k >= KW ? zero
                   : row_in && ixk >= 0 && ixk < W ? load64(xr + (size_t)ixk * C, nc, flip)
                                                  : pad;
        }
      }
      const __m512i ab_lo = _mm512_unpacklo_epi8(tap[0], tap[1]), ab_hi = _mm512_unpackhi_epi8(tap[0], tap[1]);
      const __m512i cd_lo = _mm512_unpacklo_epi8(tap[2], tap[3]), cd_hi = _mm512_unpackhi_epi8(tap[2], tap[3]);
      int32_t *o = col + (size_t)g * 64;
      _mm512_storeu_si512(o, _mm512_unpacklo_epi16(ab_lo, cd_lo));
      _mm512_storeu_si512(o + 16, _mm512_unpackhi_epi16(ab_lo, cd_lo));
      _mm512_storeu_si512(o + 32, _mm512_unpacklo_epi16(ab_hi, cd_hi));
      _mm512_storeu_si512(o + 48, _mm512_unpackhi_epi16(ab_hi, cd_hi));
    }
  }
}

/* Output row oy of the tile from the KH tap rows in slots[]: 4 accumulators of 16 lanes
 * (the block's 64 channels in lane order). KH3: a 3x3 filter (KH = 3, G = 1), its weights
 * held in registers over the row. Packing the 4 vectors to bytes undoes the lane order. */
INLINE_AVX512 void output_row_n(const dw_state *st, int32_t *const *slots, const dw_tile *t, uint8_t *yrow,
                                const bool vnni, const bool shifted, const bool KH3)
{
  const cpu_conv_state *gs = geo(st);
  const cpu_requant *rq = &gs->rq;
  const int C = gs->out_c, G = KH3 ? 1 : st->groups, KH = KH3 ? 3 : gs->k_h;
  const size_t cpad4 = (size_t)st->cpad * 4;
  const int c0 = t->c0, nc = t->nc;
  const __mmask64 m = nc == 64 ? ~(__mmask64)0 : ((__mmask64)1 << nc) - 1;
  const bool u8 = rq->is_u8;
  const __m512 flo = _mm512_set1_ps((float)(rq->lo - rq->out_zp));
  const __m512 fhi = _mm512_set1_ps((float)(rq->hi - rq->out_zp));
  const __m512i zp = _mm512_set1_epi32(rq->out_zp);
  const int8_t *w4 = st->w4 + (size_t)c0 * 4;
  const int32_t *bias = st->bias + c0, *kk = st->k + c0;
  const float *scale = st->scale + c0;
  __m512i w3[3][4]; /* KH3: the 3 rows' weights */
  if (KH3)
    for (int ky = 0; ky < 3; ky++)
      for (int v = 0; v < 4; v++) w3[ky][v] = _mm512_loadu_si512(w4 + ky * cpad4 + 64 * v);
  const int ncols = t->ox1 - t->ox0;
  uint8_t *out = yrow + (size_t)t->ox0 * C + c0;
  for (int i = 0; i < ncols; i++, out += C) {
    __m512i acc[4], sx[4], q[4];
    for (int v = 0; v < 4; v++) acc[v] = _mm512_loadu_si512(bias + 16 * v), sx[v] = _mm512_setzero_si512();
    for (int ky = 0; ky < KH; ky++)
      for (int g = 0; g < G; g++) {
        const int32_t *u = slots[ky] + (size_t)i * t->stride + (size_t)g * 64;
        const __m512i ones = _mm512_set1_epi32((int)st->ones[g]);
        for (int v = 0; v < 4; v++) {
          const __m512i xu = _mm512_loadu_si512(u + 16 * v);
          const __m512i w = KH3 ? w3[ky][v] : _mm512_loadu_si512(w4 + (ky * G + g) * cpad4 + 64 * v);
          acc[v] = dot4(acc[v], xu, w, vnni);
          if (shifted) sx[v] = dot4(sx[v], xu, ones, vnni);
        }
      }
    for (int v = 0; v < 4; v++) {
      if (shifted) acc[v] = _mm512_add_epi32(acc[v], _mm512_mullo_epi32(sx[v], _mm512_loadu_si512(kk + 16 * v)));
      __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(acc[v]), _mm512_loadu_ps(scale + 16 * v));
      f = _mm512_min_ps(_mm512_max_ps(f, flo), fhi);
      q[v] = _mm512_add_epi32(_mm512_cvtps_epi32(f), zp); /* in the type's range: packs do not saturate */
    }
    const __m512i lo = _mm512_packs_epi32(q[0], q[1]), hi = _mm512_packs_epi32(q[2], q[3]);
    const __m512i bytes = u8 ? _mm512_packus_epi16(lo, hi) : _mm512_packs_epi16(lo, hi);
    if (nc == 64)
      _mm512_storeu_si512(out, bytes);
    else
      _mm512_mask_storeu_epi8(out, m, bytes);
  }
}

INLINE_AVX512 void output_row(const dw_state *st, int32_t *const *slots, const dw_tile *t, uint8_t *yrow, bool vnni)
{
  const bool kh3 = geo(st)->k_h == 3 && st->groups == 1;
  if (st->shifted) {
    if (kh3)
      output_row_n(st, slots, t, yrow, vnni, true, true);
    else
      output_row_n(st, slots, t, yrow, vnni, true, false);
  } else {
    if (kh3)
      output_row_n(st, slots, t, yrow, vnni, false, true);
    else
      output_row_n(st, slots, t, yrow, vnni, false, false);
  }
}

/* Output rows [r0, r1): per batch, tile and channel block, a sweep down the rows that
 * builds each tap row once. */
INLINE_AVX512 void rows_avx512(const dw_state *st, const uint8_t *x, uint8_t *y, int r0, int r1, bool vnni)
{
  const cpu_conv_state *gs = geo(st);
  const int C = gs->out_c, KH = gs->k_h, OH = gs->out_h;
  int32_t ring[DW_RING_WORDS];
  int32_t *slots[DW_MAX_ROW_GROUPS];
  while (r0 < r1) {
    const int bi = r0 / OH, oy0 = r0 % OH;
    const int oy1 = (r1 - bi * OH) < OH ? r1 - bi * OH : OH;
    const uint8_t *xb = x + (size_t)bi * gs->in_h * gs->in_w * C;
    for (int c0 = 0; c0 < C; c0 += DW_BLOCK)
      for (int ox0 = 0; ox0 < gs->out_w; ox0 += st->tile_w) {
        const dw_tile t = {c0, C - c0 < DW_BLOCK ? C - c0 : DW_BLOCK, ox0,
                           ox0 + st->tile_w < gs->out_w ? ox0 + st->tile_w : gs->out_w, st->groups * DW_BLOCK};
        const size_t slot_words = (size_t)st->tile_w * t.stride;
        int built = -(1 << 30); /* highest input row in the ring */
        for (int oy = oy0; oy < oy1; oy++) {
          const int iy0 = oy * gs->stride_h - gs->pad_h;
          for (int iy = built >= iy0 ? built + 1 : iy0; iy < iy0 + KH; iy++)
            build_row(st, xb, iy, &t, ring + (size_t)((iy + gs->pad_h) % KH) * slot_words);
          built = iy0 + KH - 1;
          for (int ky = 0; ky < KH; ky++) slots[ky] = ring + (size_t)((iy0 + ky + gs->pad_h) % KH) * slot_words;
          output_row(st, slots, &t, y + ((size_t)bi * OH + oy) * gs->out_w * C, vnni);
        }
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
