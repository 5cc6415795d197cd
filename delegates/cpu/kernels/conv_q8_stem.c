/* conv_q8_stem.c - 8-bit conv with few input channels from per-pixel patches (see
 * conv_q8_stem.h).
 *
 * The sum, as in dwconv_q8.c: with x_u the input byte read as unsigned (int8: x + 128),
 * zx_u its zero point the same way, and w - zw = s + k (s fits int8):
 *   bias + sum over the window (x_u - zx_u)(w - zw)
 *     = [bias - zx_u * sum(w - zw)] + sum x_u * s + k * sum x_u
 * Window bytes outside the input read zx_u (their term is zero, as in the reference);
 * k = 0 unless some weight is too far from its zero point (then s = w_u - 128, k = 128 - zw_u
 * and requant_rows adds k * sum x_u, the patch's byte sum). int32 arithmetic modulo 2^32.
 *
 * The layout. A patch is one output pixel's window, bytes in the filter's order (ky, kx,
 * ic), padded with zeros to KP = whole 4-byte groups; the packed weights hold, per group
 * and output channel, the same 4 bytes. One vpdpbusd adds a group of one patch (broadcast)
 * times 16 output channels; per tile of STEM_TILE output pixels of a row, patches, int32
 * sums, then requant_rows.c's exact requantization into the output. Output rows are
 * split over the threads.
 */
#include "conv_q8_stem.h"

#include <string.h>

#include "conv_common.h"
#include "kernels.h"
#include "requant_rows.h"

enum { INPUT = 0, FILTER = 1, BIAS = 2 };
enum { OUTPUT = 0 };

#define STEM_MAX_IC 4          /* k x k convs: more input channels fill vpdpbusd's groups */
#define STEM_MAX_KP 64         /* patch bytes: one 512-bit load */
#define STEM_MAX_OC 128
#define STEM_TILE 32           /* output pixels per tile: 16 KiB of sums at 128 channels */

typedef struct {
  void *ref;            /* the reference kernel's prepared state (geometry, requantization) */
  int kp;               /* patch bytes: KH * KW * IC rounded up to 4 */
  int ocp;              /* output channels rounded up to 16 */
  bool shifted;         /* k != 0 somewhere: the patch sums are needed */
  int8_t *w4;           /* [KP / 4][ocp][4]: s */
  int32_t *bias;        /* [ocp]: bias - zx_u * sum(w - zw) */
  int32_t *k;           /* [ocp] */
  float *scale;         /* [ocp]: the reference's multipliers */
  bool *ins;            /* [OW]: output column's window inside the input's columns, dilation 1 */
  int pad_input;        /* a fused PAD's input tensor (read instead of the conv's), else -1 */
  uint8_t zx_u;         /* input zero point as unsigned byte */
  uint8_t flip;         /* stored byte -> unsigned: 0 (uint8) or 0x80 (int8) */
  cpu_features isa;
} stem_state;

static const cpu_conv_state *geo(const stem_state *st)
{
  return st->ref;
}

bool cpu_conv_q8_stem_fits(const tfl_graph *g, const tfl_node *n)
{
  if (!cpu_conv_q8_tensors_fit(g, n)) return false;
  const tfl_tensor *w = cpu_in(g, n, FILTER);
  const tfl_conv_params *p = &n->p.conv;
  const int oc = w->dims[0], ic = w->dims[3];
  const bool pointwise = w->dims[1] == 1 && w->dims[2] == 1; /* 1x1: the window is the pixel */
  if ((ic > STEM_MAX_IC && !pointwise) || oc > STEM_MAX_OC) return false;
  if (p->stride_h < 1 || p->stride_w < 1 || p->dilation_h < 1 || p->dilation_w < 1) return false;
  const long k = (long)w->dims[1] * w->dims[2] * ic;
  return k <= STEM_MAX_KP;
}

bool cpu_conv_q8_stem_applies(const tfl_graph *g, const tfl_node *n, const cpu_features *isa)
{
  return isa->avx512_vnni && cpu_conv_q8_stem_fits(g, n);
}

void cpu_conv_q8_stem_use_isa(void *state, const cpu_features *isa)
{
  stem_state *st = state;
  if (st) st->isa = *isa;
}

static void release(void *state)
{
  stem_state *st = state;
  if (!st) return;
  cpu_k_conv_2d.release(st->ref);
  free(st->w4);
  free(st->bias);
  free(st->k);
  free(st->scale);
  free(st->ins);
  free(st);
}

/* Packs the weights (s, k) and the folded bias; the reference's prepare has checked them. */
static void pack(stem_state *st, const tfl_tensor *w, const tfl_tensor *b)
{
  const cpu_conv_state *gs = geo(st);
  const cpu_requant *rq = &gs->rq;
  const int OC = gs->out_c, K = gs->k_h * gs->k_w * gs->in_c;
  const uint8_t *wb = w->data;
  st->shifted = false;
  for (int c = 0; c < OC; c++)
    for (int i = 0; i < K; i++) {
      const int32_t d = (uint8_t)(wb[(size_t)c * K + i] ^ st->flip) - (rq->w_zp[c] + st->flip);
      if (d < -128 || d > 127) st->shifted = true;
    }
  for (int c = 0; c < OC; c++) {
    const int32_t zw_u = rq->w_zp[c] + st->flip;
    uint32_t sum = 0; /* sum over the window of (w - zw) */
    for (int i = 0; i < K; i++) {
      const int32_t w_u = (uint8_t)(wb[(size_t)c * K + i] ^ st->flip);
      sum += (uint32_t)(w_u - zw_u);
      st->w4[((size_t)(i / 4) * st->ocp + c) * 4 + i % 4] = (int8_t)(st->shifted ? w_u - 128 : w_u - zw_u);
    }
    st->k[c] = st->shifted ? 128 - zw_u : 0;
    st->scale[c] = rq->scale[c];
    const uint32_t bias = b ? (uint32_t)((const int32_t *)b->data)[c] : 0u;
    st->bias[c] = (int32_t)(bias - (uint32_t)st->zx_u * sum);
  }
}

/* Fills ins from the geometry (again after a PAD is fused). */
static void find_inside_columns(stem_state *st)
{
  const cpu_conv_state *gs = geo(st);
  for (int ox = 0; ox < gs->out_w; ox++) {
    const int ix0 = ox * gs->stride_w - gs->pad_w, ix_last = ix0 + (gs->k_w - 1) * gs->dil_w;
    st->ins[ox] = gs->dil_w == 1 && ix0 >= 0 && ix_last < gs->in_w;
  }
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  *state = NULL;
  if (!cpu_conv_q8_stem_fits(g, n))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s",
                        "not an 8-bit conv with at most 4 input channels (or 1x1), a 64-byte window and 128 "
                        "outputs");
  stem_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "conv stem state");
  *state = st;
  tfl_status s = cpu_k_conv_2d.prepare(g, n, &st->ref, diag);
  if (s != TFL_OK) return s;
  const cpu_conv_state *gs = geo(st);
  st->flip = gs->rq.is_u8 ? 0 : 0x80;
  st->zx_u = (uint8_t)(gs->rq.in_zp + st->flip);
  st->kp = (gs->k_h * gs->k_w * gs->in_c + 3) & ~3;
  st->ocp = (gs->out_c + 15) & ~15;
  st->isa = cpu_features_detect();
  st->pad_input = -1;
  st->w4 = calloc((size_t)st->kp * st->ocp, 1);
  st->bias = calloc((size_t)st->ocp, sizeof *st->bias);
  st->k = calloc((size_t)st->ocp, sizeof *st->k);
  st->scale = calloc((size_t)st->ocp, sizeof *st->scale);
  st->ins = calloc((size_t)gs->out_w, sizeof *st->ins);
  if (!st->w4 || !st->bias || !st->k || !st->scale || !st->ins)
    return tfl_fail(diag, TFL_ERR_NOMEM, "conv stem: packed weights of %d channels", gs->out_c);
  pack(st, cpu_in(g, n, FILTER), cpu_in(g, n, BIAS));
  find_inside_columns(st);
  return TFL_OK;
}

/* Integer element i of a PAD's paddings (int32 or int64). */
static int64_t pad_at(const tfl_tensor *t, int i)
{
  return t->type == TFL_TYPE_INT64 ? ((const int64_t *)t->data)[i] : ((const int32_t *)t->data)[i];
}

tfl_status cpu_conv_q8_stem_fuse_pad(void *state, const tfl_graph *g, int pad_node, tfl_diag *diag)
{
  stem_state *st = state;
  cpu_conv_state *gs = st->ref;
  const tfl_node *pad = pad_node >= 0 && pad_node < g->n_nodes ? &g->nodes[pad_node] : NULL;
  const tfl_tensor *px = pad ? cpu_in(g, pad, 0) : NULL, *pads = pad ? cpu_in(g, pad, 1) : NULL;
  if (!px || !pads || px->ndim != 4 || !pads->is_const || !pads->data || tfl_tensor_count(pads) != 8 ||
      (pads->type != TFL_TYPE_INT32 && pads->type != TFL_TYPE_INT64))
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "conv stem: node %d is not a PAD with constant paddings", pad_node);
  const int64_t top = pad_at(pads, 2), left = pad_at(pads, 4);
  if (px->dims[0] != gs->batches || px->dims[3] != gs->in_c || top < 0 || left < 0 || pad_at(pads, 3) < 0 ||
      pad_at(pads, 5) < 0 || px->dims[1] + top + pad_at(pads, 3) != gs->in_h ||
      px->dims[2] + left + pad_at(pads, 5) != gs->in_w)
    return tfl_fail(diag, TFL_ERR_SHAPE, "conv stem: PAD node %d's paddings do not make the conv's %dx%d input",
                    pad_node, gs->in_h, gs->in_w);
  gs->in_h = px->dims[1];
  gs->in_w = px->dims[2];
  gs->pad_h += (int)top;
  gs->pad_w += (int)left;
  st->pad_input = pad->in[0];
  find_inside_columns(st);
  return TFL_OK;
}

typedef struct {
  const stem_state *st;
  const uint8_t *x;
  uint8_t *y;
  const bool *ins;       /* [OW]: the output column's window lies inside the input's columns */
  int rows, n_tasks;     /* output rows (batches * OH), split into n_tasks ranges */
} stem_args;

/* ---- patches ---- */

/* The window of output pixel (oy, ox) of image xb as unsigned bytes, KP long (zeros
 * past the window); the bytes outside the input read zx_u. Whole-row segments inside
 * the input are copied at once. */
static void build_patch(const stem_state *st, const uint8_t *xb, int oy, int ox, uint8_t *patch)
{
  const cpu_conv_state *gs = geo(st);
  const int IC = gs->in_c, seg = gs->k_w * IC;
  const int ix0 = ox * gs->stride_w - gs->pad_w, ix_last = ix0 + (gs->k_w - 1) * gs->dil_w;
  const bool cols_in = ix0 >= 0 && ix_last < gs->in_w;
  for (int ky = 0; ky < gs->k_h; ky++) {
    uint8_t *o = patch + ky * seg;
    const int iy = oy * gs->stride_h - gs->pad_h + ky * gs->dil_h;
    if (iy < 0 || iy >= gs->in_h) {
      memset(o, st->zx_u, (size_t)seg);
      continue;
    }
    const uint8_t *row = xb + (size_t)iy * gs->in_w * IC;
    if (cols_in && gs->dil_w == 1) {
      const uint8_t *s = row + (size_t)ix0 * IC;
      for (int i = 0; i < seg; i++) o[i] = s[i] ^ st->flip;
      continue;
    }
    for (int kx = 0; kx < gs->k_w; kx++) {
      const int ix = ix0 + kx * gs->dil_w;
      const bool in = ix >= 0 && ix < gs->in_w;
      for (int c = 0; c < IC; c++) o[kx * IC + c] = in ? row[(size_t)ix * IC + c] ^ st->flip : st->zx_u;
    }
  }
}

static void tile_portable(const stem_state *st, const uint8_t *patch, int n, int32_t *acc)
{
  const int OC = geo(st)->out_c;
  for (int p = 0; p < n; p++)
    for (int c = 0; c < OC; c++) {
      uint32_t a = (uint32_t)st->bias[c];
      for (int i = 0; i < st->kp; i++)
        a += (uint32_t)patch[(size_t)p * st->kp + i] * (uint32_t)(int32_t)st->w4[((size_t)(i / 4) * st->ocp + c) * 4 + i % 4];
      acc[(size_t)p * OC + c] = (int32_t)a;
    }
}

/* ---- AVX-512 VNNI ---- */

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define STEM_X86 1
#define VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))

/* A tile's patches (n pixels from output column ox0 of row oy) and, for shifted weights,
 * their byte sums. Pixels whose columns lie inside the input (ins[ox]) take KH masked loads
 * of KW * IC bytes (no read past them) and whole-vector stores: the bytes past a segment
 * are overwritten by the next one, or lie past the window (zero weights) or in the
 * buffer's slack. */
VNNI static void build_tile_vnni(const stem_state *st, const uint8_t *xb, int oy, int ox0, int n,
                                 const bool *ins, uint8_t *patch, int32_t *sums)
{
  const cpu_conv_state *gs = geo(st);
  const int IC = gs->in_c, seg = gs->k_w * IC, KP = st->kp, K = gs->k_h * seg;
  const __mmask64 m = seg >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << seg) - 1);
  const __m512i flip = _mm512_set1_epi8((char)st->flip), zx = _mm512_set1_epi8((char)st->zx_u);
  const size_t row_bytes = (size_t)gs->in_w * IC;
  const uint8_t *rows_y[STEM_MAX_KP];
  for (int ky = 0; ky < gs->k_h; ky++) {
    const int iy = oy * gs->stride_h - gs->pad_h + ky * gs->dil_h;
    rows_y[ky] = iy >= 0 && iy < gs->in_h ? xb + (size_t)iy * row_bytes : NULL;
  }
  for (int i = 0; i < n; i++) {
    const int ox = ox0 + i;
    uint8_t *pp = patch + (size_t)i * KP;
    if (ins[ox] && seg <= 16) { /* 128-bit: the loads and stores rarely cross a cache line */
      const size_t col = (size_t)(ox * gs->stride_w - gs->pad_w) * IC;
      __m128i sum = _mm_setzero_si128();
      for (int ky = 0; ky < gs->k_h; ky++) {
        const __m128i v = rows_y[ky] ? _mm_xor_si128(_mm_maskz_loadu_epi8((__mmask16)m, rows_y[ky] + col),
                                                     _mm512_castsi512_si128(flip))
                                     : _mm512_castsi512_si128(zx);
        _mm_storeu_si128((void *)(pp + ky * seg), v);
        if (st->shifted) sum = _mm_add_epi64(sum, _mm_sad_epu8(_mm_maskz_mov_epi8((__mmask16)m, v), _mm_setzero_si128()));
      }
      if (st->shifted) sums[i] = (int32_t)(_mm_cvtsi128_si64(sum) + _mm_extract_epi64(sum, 1));
    } else if (ins[ox]) {
      const size_t col = (size_t)(ox * gs->stride_w - gs->pad_w) * IC;
      __m512i sum = _mm512_setzero_si512();
      for (int ky = 0; ky < gs->k_h; ky++) {
        const __m512i v = rows_y[ky] ? _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, rows_y[ky] + col), flip) : zx;
        _mm512_storeu_si512(pp + ky * seg, v);
        /* summed from the registers: a load of the patch right after its overlapping
         * stores waits for them to reach the cache (57% of this function on coco_ssd) */
        if (st->shifted)
          sum = _mm512_add_epi64(sum, _mm512_sad_epu8(_mm512_maskz_mov_epi8(m, v), _mm512_setzero_si512()));
      }
      if (st->shifted) sums[i] = (int32_t)_mm512_reduce_add_epi64(sum);
    } else {
      build_patch(st, xb, oy, ox, pp);
      if (st->shifted) {
        uint32_t sum = 0;
        for (int j = 0; j < K; j++) sum += pp[j];
        sums[i] = (int32_t)sum;
      }
    }
  }
}

#define STEM_VBITS 512
#include "conv_q8_stem_simd.h"
#undef STEM_VBITS
#define STEM_VBITS 256
#include "conv_q8_stem_simd.h"
#undef STEM_VBITS

/* 24 channels at once (16 in a 512-bit vector, up to 8 in a 256-bit one) for 4 pixels:
 * 8 independent sums per broadcast group (the multiply-add's latency hidden) and each
 * group broadcast once for both. posenet's and coco_ssd's stems have 24 outputs. */
VNNI static void block24(const stem_state *st, const uint8_t *patch, const int32_t *sums, int n, uint8_t *out,
                         int c0)
{
  const int OC = geo(st)->out_c, G = st->kp / 4, KP = st->kp;
  const __mmask16 m8 = (__mmask16)((1u << (OC - c0 - 16)) - 1);
  const __m512i b = _mm512_loadu_si512(st->bias + c0), k = _mm512_loadu_si512(st->k + c0);
  const __m512 scale = _mm512_loadu_ps(st->scale + c0);
  const __m256i b8 = _mm256_loadu_si256((const void *)(st->bias + c0 + 16));
  const __m256i k8 = _mm256_loadu_si256((const void *)(st->k + c0 + 16));
  const __m256 scale8 = _mm256_loadu_ps(st->scale + c0 + 16);
  const int8_t *w = st->w4 + (size_t)c0 * 4;
  uint8_t *o = out + c0;
  int p = 0;
  for (; p + 4 <= n; p += 4) {
    const uint8_t *x = patch + (size_t)p * KP;
    __m512i a0 = b, a1 = b, a2 = b, a3 = b;
    __m256i e0 = b8, e1 = b8, e2 = b8, e3 = b8;
    for (int g = 0; g < G; g++) {
      const __m512i wv = _mm512_loadu_si512(w + (size_t)g * st->ocp * 4);
      const __m256i wv8 = _mm256_loadu_si256((const void *)(w + (size_t)g * st->ocp * 4 + 64));
      int32_t d0, d1, d2, d3;
      memcpy(&d0, x + 4 * g, 4);
      memcpy(&d1, x + KP + 4 * g, 4);
      memcpy(&d2, x + 2 * KP + 4 * g, 4);
      memcpy(&d3, x + 3 * KP + 4 * g, 4);
      const __m512i x0 = _mm512_set1_epi32(d0), x1 = _mm512_set1_epi32(d1);
      const __m512i x2 = _mm512_set1_epi32(d2), x3 = _mm512_set1_epi32(d3);
      a0 = _mm512_dpbusd_epi32(a0, x0, wv);
      a1 = _mm512_dpbusd_epi32(a1, x1, wv);
      a2 = _mm512_dpbusd_epi32(a2, x2, wv);
      a3 = _mm512_dpbusd_epi32(a3, x3, wv);
      e0 = _mm256_dpbusd_epi32(e0, _mm512_castsi512_si256(x0), wv8);
      e1 = _mm256_dpbusd_epi32(e1, _mm512_castsi512_si256(x1), wv8);
      e2 = _mm256_dpbusd_epi32(e2, _mm512_castsi512_si256(x2), wv8);
      e3 = _mm256_dpbusd_epi32(e3, _mm512_castsi512_si256(x3), wv8);
    }
    requant_store_512(st, a0, scale, k, sums[p], 0xffff, o + (size_t)p * OC);
    requant_store_512(st, a1, scale, k, sums[p + 1], 0xffff, o + (size_t)(p + 1) * OC);
    requant_store_512(st, a2, scale, k, sums[p + 2], 0xffff, o + (size_t)(p + 2) * OC);
    requant_store_512(st, a3, scale, k, sums[p + 3], 0xffff, o + (size_t)(p + 3) * OC);
    requant_store_256(st, e0, scale8, k8, sums[p], m8, o + (size_t)p * OC + 16);
    requant_store_256(st, e1, scale8, k8, sums[p + 1], m8, o + (size_t)(p + 1) * OC + 16);
    requant_store_256(st, e2, scale8, k8, sums[p + 2], m8, o + (size_t)(p + 2) * OC + 16);
    requant_store_256(st, e3, scale8, k8, sums[p + 3], m8, o + (size_t)(p + 3) * OC + 16);
  }
  if (p < n) { /* the last pixels: one block after the other */
    block_512(st, patch + (size_t)p * KP, sums + p, n - p, out + (size_t)p * OC, c0);
    block_256(st, patch + (size_t)p * KP, sums + p, n - p, out + (size_t)p * OC, c0 + 16);
  }
}

/* A tile's outputs: 24 channels at once where 17 to 24 are left, else blocks of 16 and a
 * last one of at most 8 in 256-bit vectors. */
VNNI static void tile_vnni(const stem_state *st, const uint8_t *patch, const int32_t *sums, int n, uint8_t *out)
{
  const int OC = geo(st)->out_c;
  for (int c0 = 0; c0 < OC;) {
    const int left = OC - c0;
    if (left > 16 && left <= 24) {
      block24(st, patch, sums, n, out, c0);
      c0 += 24;
    } else if (left <= 8) {
      block_256(st, patch, sums, n, out, c0);
      c0 += 8;
    } else {
      block_512(st, patch, sums, n, out, c0);
      c0 += 16;
    }
  }
}

#else
#define STEM_X86 0
#endif

/* A tile's patches and sums, portable C. */
static void build_tile(const stem_state *st, const uint8_t *xb, int oy, int ox0, int n, uint8_t *patch,
                       int32_t *sums)
{
  const cpu_conv_state *gs = geo(st);
  const int K = gs->k_h * gs->k_w * gs->in_c;
  for (int i = 0; i < n; i++) {
    uint8_t *pp = patch + (size_t)i * st->kp;
    build_patch(st, xb, oy, ox0 + i, pp);
    uint32_t sum = 0;
    for (int j = 0; j < K; j++) sum += pp[j];
    sums[i] = (int32_t)sum;
  }
}

/* Output rows [r0, r1), tile by tile. ins: [OW], whether the output column's window lies
 * inside the input's columns. */
static void rows(const stem_state *st, const uint8_t *x, uint8_t *y, int r0, int r1, const bool *ins, bool vnni)
{
  const cpu_conv_state *gs = geo(st);
  const cpu_requant *rq = &gs->rq;
  const int OC = gs->out_c, OW = gs->out_w;
  const cpu_requant_rows rr = {OC, NULL, st->shifted ? st->k : NULL, rq->scale, rq->out_zp, rq->lo, rq->hi,
                               rq->is_u8};
  uint8_t patch[STEM_TILE * STEM_MAX_KP + 64]; /* + the last whole-vector store's spill */
  int32_t acc[STEM_TILE * STEM_MAX_OC], sums[STEM_TILE];
  memset(patch, 0, sizeof patch); /* the bytes past the window multiply zero weights */
  for (int r = r0; r < r1; r++) {
    const int bi = r / gs->out_h, oy = r % gs->out_h;
    const uint8_t *xb = x + (size_t)bi * gs->in_h * gs->in_w * gs->in_c;
    for (int ox0 = 0; ox0 < OW; ox0 += STEM_TILE) {
      const int n = OW - ox0 < STEM_TILE ? OW - ox0 : STEM_TILE;
      uint8_t *out = y + ((size_t)r * OW + ox0) * OC;
#if STEM_X86
      if (vnni) {
        build_tile_vnni(st, xb, oy, ox0, n, ins, patch, sums);
        tile_vnni(st, patch, sums, n, out);
        continue;
      }
#endif
      (void)ins;
      build_tile(st, xb, oy, ox0, n, patch, sums);
      tile_portable(st, patch, n, acc);
      cpu_requant_rows_run(&rr, acc, sums, out, (size_t)n, false);
    }
  }
}

static void run_task(void *arg, size_t task)
{
  const stem_args *a = arg;
  const int r0 = (int)((size_t)a->rows * task / (size_t)a->n_tasks);
  const int r1 = (int)((size_t)a->rows * (task + 1) / (size_t)a->n_tasks);
  rows(a->st, a->x, a->y, r0, r1, a->ins, STEM_X86 && a->st->isa.avx512_vnni);
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)diag;
  stem_state *st = state;
  const cpu_conv_state *gs = geo(st);
  const int rows_n = gs->batches * gs->out_h;
  int tasks = cpu_thread_count(ctx);
  if (tasks > rows_n) tasks = rows_n;
  if (tasks < 1) return TFL_OK;
  const tfl_tensor *x = st->pad_input >= 0 ? &g->tensors[st->pad_input] : cpu_in(g, n, INPUT);
  stem_args a = {st, x->data, cpu_out(g, n, OUTPUT)->data, st->ins, rows_n, tasks};
  cpu_parallel(ctx, run_task, &a, (size_t)tasks);
  return TFL_OK;
}

const cpu_kernel cpu_k_conv_q8_stem = {prepare, eval, release};
