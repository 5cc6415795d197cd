/* conv_hybrid.c - see conv_hybrid.h.
 *
 * Per image (not per pixel): min/max over chunks of the image (tasks), the scale and zero
 * point (hybrid.h's cpu_hybrid_params), the quantized image as unsigned bytes q + 128
 * (tasks). Then tasks over tiles of output pixels: im2col rows of the tile (a padded tap
 * takes the zero point, which contributes 0 after the correction; 1x1 stride-1 convs
 * with channels a multiple of 4 read the image's rows in place), the product
 * sum_k (q + 128) w into the output buffer as int32, then in place
 * (float)(sum - (zp + 128) * sum_k w) * (w_scale * x_scale) + bias, clamped: the
 * reference's wrapping int32 sum_k (q - zp) w and its float arithmetic. Per pixel: each
 * tile quantizes its own pixels straight into its rows.
 */
#include "conv_hybrid.h"

#include <string.h>

#include "conv_common.h"
#include "gemm_q8.h"
#include "hybrid_quant.h"
#include "kernels.h"

enum { INPUT = 0, FILTER = 1, BIAS = 2 };
enum { OUTPUT = 0 };
enum { TILE = 32 };          /* output pixels per gemm call: 4-row groups, rows stay in L1 */
enum { SLOTS = 64 };         /* most tile tasks (each with its own im2col rows) */
#define MAX_COL_BYTES ((size_t)64 << 20)

typedef struct {
  cpu_conv_state *ref;       /* the reference kernel's state: geometry, scales, buffers */
  cpu_q8_gemm gemm;          /* out_c rows of KH * KW * IC */
  size_t kp;                 /* bytes per im2col row: gemm.kq * 4 */
  size_t img;                /* floats per image */
  size_t pixels;             /* output pixels, all images */
  bool direct;               /* 1x1, stride 1, no padding, IC % 4 == 0: the image's rows */
  int tasks;                 /* tile tasks */
  uint8_t *col;              /* [tasks][TILE][kp], zero past K */
  float *part;               /* cpu_hq_images scratch */
  cpu_hybrid_qparams *qp;    /* [batches] */
  bool *q_on;                /* [batches]: false for an all-zero range */
  /* implicit im2col (IC % 4 == 0, VNNI): the quantized images with a border of zero-point
   * bytes, [batches][hp][wp][IC], read at tap offsets instead of copied into rows */
  bool implicit;
  int hp, wp;
  uint8_t *xpad;
  size_t *tap_off;           /* [KH * KW]: bytes from an output pixel's window corner */
  cpu_features isa;
} ch_state;

static const void *filter_row(const void *user, int j)
{
  const tfl_tensor *w = user;
  const size_t k = (size_t)w->dims[1] * w->dims[2] * w->dims[3];
  return (const int8_t *)w->data + (size_t)j * k;
}

bool cpu_conv_hybrid_fits(const tfl_graph *g, const tfl_node *n)
{
  if (n->op != TFL_OP_CONV_2D) return false;
  const tfl_tensor *x = cpu_in(g, n, INPUT), *w = cpu_in(g, n, FILTER), *y = cpu_out(g, n, OUTPUT);
  if (!x || !w || !y || x->type != TFL_TYPE_FLOAT32 || w->type != TFL_TYPE_INT8 || y->type != TFL_TYPE_FLOAT32)
    return false;
  if (!w->is_const || !w->data || w->ndim != 4 || x->ndim != 4 || w->dims[3] != x->dims[3]) return false;
  if (w->dims[0] < 1 || w->dims[1] < 1 || w->dims[2] < 1 || w->dims[3] < 1) return false;
  /* the im2col rows of the tile tasks */
  const size_t k = (size_t)w->dims[1] * w->dims[2] * w->dims[3];
  return k <= (size_t)1 << 24 && (k + 3) / 4 * 4 * TILE * SLOTS <= MAX_COL_BYTES;
}

bool cpu_conv_hybrid_applies(const tfl_graph *g, const tfl_node *n, const cpu_features *isa)
{
  (void)isa;   /* the portable path still beats the reference's per-tap dot products */
  return cpu_conv_hybrid_fits(g, n);
}

void cpu_conv_hybrid_use_isa(void *state, const cpu_features *isa)
{
  ch_state *st = state;
  if (st) st->isa = *isa;
}

static void release(void *state)
{
  ch_state *st = state;
  if (!st) return;
  cpu_k_conv_2d.release(st->ref);
  cpu_q8_gemm_free(&st->gemm);
  free(st->col);
  free(st->part);
  free(st->qp);
  free(st->q_on);
  free(st->xpad);
  free(st->tap_off);
  free(st);
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  if (!cpu_conv_hybrid_fits(g, n))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "not a hybrid conv the fast kernel takes%s", "");
  ch_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "conv_hybrid state");
  *state = st;
  st->isa = cpu_features_detect();
  void *ref = NULL;
  tfl_status s = cpu_k_conv_2d.prepare(g, n, &ref, diag);
  st->ref = ref;
  if (s) return s;
  const cpu_conv_state *r = st->ref;
  if (!r->hy.on)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "not a hybrid conv the fast kernel takes%s", "");
  const tfl_tensor *w = cpu_in(g, n, FILTER);
  const int k = r->k_h * r->k_w * r->in_c;
  if (!cpu_q8_gemm_pack(&st->gemm, r->out_c, k, false, filter_row, w))
    return tfl_fail(diag, TFL_ERR_NOMEM, "conv_hybrid filter");
  st->kp = (size_t)st->gemm.kq * 4;
  st->img = (size_t)r->in_h * r->in_w * r->in_c;
  st->pixels = (size_t)r->batches * r->out_h * r->out_w;
  st->direct = !r->hy.per_pixel && r->k_h == 1 && r->k_w == 1 && r->stride_h == 1 && r->stride_w == 1 &&
               r->pad_h == 0 && r->pad_w == 0 && r->out_h == r->in_h && r->out_w == r->in_w && r->in_c % 4 == 0;
  const size_t tiles = (st->pixels + TILE - 1) / TILE;
  st->tasks = tiles < SLOTS ? (int)tiles : SLOTS;
  const size_t images = r->batches > 0 ? (size_t)r->batches : 1;
  st->col = st->direct ? NULL : calloc((size_t)(st->tasks > 0 ? st->tasks : 1) * TILE, st->kp);
  st->part = malloc(sizeof(float) * cpu_hq_images_scratch(st->img, r->batches));
  st->qp = calloc(images, sizeof *st->qp);
  st->q_on = calloc(images, sizeof *st->q_on);
  if ((!st->direct && !st->col) || !st->part || !st->qp || !st->q_on)
    return tfl_fail(diag, TFL_ERR_NOMEM, "conv_hybrid buffers");
  st->implicit = !st->direct && !r->hy.per_pixel && r->in_c % 4 == 0 && r->batches > 0 && r->out_h > 0 &&
                 r->out_w > 0;
  if (st->implicit) {
    /* rows -pad .. the last window's last row, and the whole image */
    const int64_t need_h = (int64_t)(r->out_h - 1) * r->stride_h + (int64_t)(r->k_h - 1) * r->dil_h + 1;
    const int64_t need_w = (int64_t)(r->out_w - 1) * r->stride_w + (int64_t)(r->k_w - 1) * r->dil_w + 1;
    const int64_t hp = need_h > (int64_t)r->pad_h + r->in_h ? need_h : (int64_t)r->pad_h + r->in_h;
    const int64_t wp = need_w > (int64_t)r->pad_w + r->in_w ? need_w : (int64_t)r->pad_w + r->in_w;
    if (hp > INT32_MAX / 2 || wp > INT32_MAX / 2) {   /* absurd strides: copied rows instead */
      st->implicit = false;
      return TFL_OK;
    }
    st->hp = (int)hp;
    st->wp = (int)wp;
    st->xpad = calloc((size_t)r->batches * (size_t)st->hp, (size_t)st->wp * (size_t)r->in_c);
    st->tap_off = malloc(sizeof(size_t) * (size_t)r->k_h * r->k_w);
    if (!st->xpad || !st->tap_off) return tfl_fail(diag, TFL_ERR_NOMEM, "conv_hybrid padded image");
    for (int ky = 0; ky < r->k_h; ky++)
      for (int kx = 0; kx < r->k_w; kx++)
        st->tap_off[ky * r->k_w + kx] = ((size_t)ky * r->dil_h * st->wp + (size_t)kx * r->dil_w) * r->in_c;
  }
  return TFL_OK;
}

typedef struct {
  const ch_state *st;
  const float *x, *bias;
  float *y;
} ch_args;

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* the rounding argument must be a constant expression (clang checks it) */
#define HY_RN (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define CH_X86 1

/* n bytes copied / set with 64-byte (masked) vector moves: no library call for the short
 * runs of an im2col row. */
__attribute__((target("avx512f,avx512bw"))) static inline void copy_avx512(uint8_t *d, const uint8_t *s, size_t n)
{
  for (; n >= 64; n -= 64, d += 64, s += 64) _mm512_storeu_si512((void *)d, _mm512_loadu_si512((const void *)s));
  if (n) {
    const __mmask64 m = (__mmask64)((1ull << n) - 1ull);
    _mm512_mask_storeu_epi8(d, m, _mm512_maskz_loadu_epi8(m, s));
  }
}

__attribute__((target("avx512f,avx512bw"))) static inline void fill_avx512(uint8_t *d, uint8_t v, size_t n)
{
  const __m512i f = _mm512_set1_epi8((char)v);
  for (; n >= 64; n -= 64, d += 64) _mm512_storeu_si512((void *)d, f);
  if (n) _mm512_mask_storeu_epi8(d, (__mmask64)((1ull << n) - 1ull), f);
}
#endif

/* The im2col rows of output pixels [p0, p1) into col (KH * KW taps of IC bytes each).
 * Without dilation the taps of one filter row that fall inside the image are one run of
 * input bytes. avx: vector moves (inlined into the AVX-512 copy below). */
#ifdef CH_X86
#define COPY(d, s, n) (avx ? copy_avx512(d, s, n) : (void)memcpy(d, s, n))
#define FILL(d, v, n) (avx ? fill_avx512(d, v, n) : (void)memset(d, v, n))
#else
#define COPY(d, s, n) ((void)avx, (void)memcpy(d, s, n))
#define FILL(d, v, n) ((void)avx, (void)memset(d, v, n))
#endif
static inline __attribute__((always_inline)) void im2col_body(const ch_state *st, size_t p0, size_t p1, uint8_t *col,
                                                              bool avx)
{
  const cpu_conv_state *r = st->ref;
  const size_t ic = (size_t)r->in_c, line = (size_t)r->k_w * ic;
  /* the pixel's place, stepped along rather than divided out per pixel */
  int ox = (int)(p0 % (size_t)r->out_w), oy = (int)(p0 / (size_t)r->out_w % (size_t)r->out_h);
  size_t b = p0 / ((size_t)r->out_w * r->out_h);
  for (size_t p = p0; p < p1; p++) {
    uint8_t *row = col + (p - p0) * st->kp;
    const uint8_t *x = (const uint8_t *)r->hy.xq + b * st->img;
    const uint8_t pad = (uint8_t)(r->hy.x_zp[b] + 128);
    const int ix0 = ox * r->stride_w - r->pad_w;
    const int cur_oy = oy;
    if (++ox == r->out_w) {
      ox = 0;
      if (++oy == r->out_h) oy = 0, b++;
    }
    for (int ky = 0; ky < r->k_h; ky++, row += line) {
      const int iy = cur_oy * r->stride_h - r->pad_h + ky * r->dil_h;
      if (iy < 0 || iy >= r->in_h) {
        FILL(row, pad, line);
        continue;
      }
      const uint8_t *src = x + (size_t)iy * r->in_w * ic;
      if (r->dil_w == 1) {
        const int lo = ix0 < 0 ? -ix0 : 0, hi = r->in_w - ix0 < r->k_w ? r->in_w - ix0 : r->k_w;
        if (hi <= lo) {
          FILL(row, pad, line);
          continue;
        }
        if (lo) FILL(row, pad, (size_t)lo * ic);
        COPY(row + (size_t)lo * ic, src + (size_t)(ix0 + lo) * ic, (size_t)(hi - lo) * ic);
        if (hi < r->k_w) FILL(row + (size_t)hi * ic, pad, (size_t)(r->k_w - hi) * ic);
        continue;
      }
      for (int kx = 0; kx < r->k_w; kx++) {
        const int ix = ix0 + kx * r->dil_w;
        if (ix < 0 || ix >= r->in_w)
          FILL(row + (size_t)kx * ic, pad, ic);
        else
          COPY(row + (size_t)kx * ic, src + (size_t)ix * ic, ic);
      }
    }
  }
}
#undef COPY
#undef FILL

static void im2col_portable(const ch_state *st, size_t p0, size_t p1, uint8_t *col)
{
  im2col_body(st, p0, p1, col, false);
}

#ifdef CH_X86
__attribute__((target("avx512f,avx512bw"))) static void im2col_avx512(const ch_state *st, size_t p0, size_t p1,
                                                                     uint8_t *col)
{
  im2col_body(st, p0, p1, col, true);
}
#else
#define im2col_avx512 im2col_portable
#endif

#ifdef CH_X86
/* Rows [0, n) rounded down to 8 of the tile's product (output pixels from p0) with the
 * output stage in registers: the same arithmetic as cpu_hq_dequant (an explicit rounding
 * mode keeps products and sums unfused) without sending the sums through memory, where
 * reading back a vector store just made waits. Inputs: rows x (stride xs), or (implicit)
 * each pixel's window in the padded image at the taps' offsets. Returns the rows done. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni"))) static size_t
fused_vnni(const ch_state *st, const ch_args *a, const uint8_t *x, size_t xs, size_t p0, size_t n, bool implicit)
{
  const cpu_conv_state *r = st->ref;
  const cpu_q8_gemm *g = &st->gemm;
  const size_t oc = (size_t)r->out_c, per_image = (size_t)r->out_h * r->out_w, ic = (size_t)r->in_c;
  const __m512 vlo = _mm512_set1_ps(r->act_lo), vhi = _mm512_set1_ps(r->act_hi);
  /* the K loop: taps x (IC / 4) groups at tap offsets, or one run of kq groups */
  const size_t whole = 0;
  const size_t *off = implicit ? st->tap_off : &whole;
  const int taps = implicit ? r->k_h * r->k_w : 1, seg = implicit ? (int)(ic / 4) : g->kq;
  int ox = 0, oy = 0;
  size_t bi = 0;
  if (implicit) ox = (int)(p0 % (size_t)r->out_w), oy = (int)(p0 / (size_t)r->out_w % (size_t)r->out_h),
                bi = p0 / per_image;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m512i zx[8];
    __m512 xsc[8];
    const uint8_t *base[8];
    for (int k = 0; k < 8; k++) {
      const size_t p = p0 + i + (size_t)k, qg = r->hy.per_pixel ? p : p / per_image;
      zx[k] = _mm512_set1_epi32(r->hy.x_zp[qg] + 128);
      xsc[k] = _mm512_set1_ps(r->hy.x_scale[qg]);
      if (!implicit) {
        base[k] = x + (i + (size_t)k) * xs;
        continue;
      }
      base[k] = st->xpad + ((bi * st->hp + (size_t)oy * r->stride_h) * st->wp + (size_t)ox * r->stride_w) * ic;
      if (++ox == r->out_w) {
        ox = 0;
        if (++oy == r->out_h) oy = 0, bi++;
      }
    }
    for (int b = 0; b < g->blocks; b++) {
      const int8_t *w = g->w + (size_t)b * g->kq * CPU_Q8_ROWS * 4;
      __m512i acc[8];
      for (int k = 0; k < 8; k++) acc[k] = _mm512_setzero_si512();
      for (int t = 0; t < taps; t++)
        for (int q = 0; q < seg; q++, w += CPU_Q8_ROWS * 4) {
          const __m512i wv = _mm512_load_si512((const void *)w);
          for (int k = 0; k < 8; k++) {
            int32_t v;
            memcpy(&v, base[k] + off[t] + 4 * (size_t)q, 4);
            acc[k] = _mm512_dpbusd_epi32(acc[k], _mm512_set1_epi32(v), wv);
          }
        }
      const int c0 = b * CPU_Q8_ROWS, cols = r->out_c - c0 < CPU_Q8_ROWS ? r->out_c - c0 : CPU_Q8_ROWS;
      const __mmask16 m = (__mmask16)((1u << cols) - 1u);
      const __m512i ws = _mm512_maskz_loadu_epi32(m, g->sum + c0);
      const __m512 wsc = _mm512_maskz_loadu_ps(m, r->hy.w_scale + c0);
      const __m512 bias = a->bias ? _mm512_maskz_loadu_ps(m, a->bias + c0) : _mm512_setzero_ps();
      for (int k = 0; k < 8; k++) {
        const __m512i v = _mm512_sub_epi32(acc[k], _mm512_mullo_epi32(zx[k], ws));
        const __m512 sc = _mm512_mul_round_ps(wsc, xsc[k], HY_RN);
        __m512 f = _mm512_add_round_ps(_mm512_mul_round_ps(_mm512_cvtepi32_ps(v), sc, HY_RN), bias, HY_RN);
        f = _mm512_min_ps(vhi, _mm512_max_ps(vlo, f));
        _mm512_mask_storeu_ps(a->y + (p0 + i + (size_t)k) * oc + (size_t)c0, m, f);
      }
    }
  }
  return i;
}
#endif

/* Output pixels [p0, p1) (at most TILE) with rows `col`. */
static void tile(const ch_args *a, size_t p0, size_t p1, uint8_t *col)
{
  const ch_state *st = a->st;
  cpu_conv_state *r = st->ref;
  const size_t oc = (size_t)r->out_c, ic = (size_t)r->in_c;
#ifdef CH_X86
  const bool vnni = st->isa.avx512_vnni && st->isa.avx512;
  if (vnni && st->implicit) {   /* groups of 8 from the padded image; the rest through rows */
    p0 += fused_vnni(st, a, NULL, 0, p0, p1 - p0, true);
    if (p0 == p1) return;
  }
#endif
  const uint8_t *rows = col;
  size_t stride = st->kp;
  if (st->direct) {
    rows = (const uint8_t *)r->hy.xq + p0 * ic;
    stride = ic;
  } else if (r->hy.per_pixel) {
    /* 1x1 stride 1: output pixel p reads input pixel p, its own quantization group */
    for (size_t p = p0; p < p1; p++) {
      const float *x = a->x + p * ic;
      float lo, hi;
      cpu_hybrid_qparams q;
      cpu_hq_min_max(x, ic, &lo, &hi, st->isa.avx512);
      const bool on = cpu_hybrid_params(lo, hi, r->hy.asym, &q);
      cpu_hq_quant_u8(&q, on, x, ic, col + (p - p0) * st->kp, st->isa.avx512);
      r->hy.x_scale[p] = q.scale;
      r->hy.x_zp[p] = q.zp;
    }
  } else {
    if (st->isa.avx512)
      im2col_avx512(st, p0, p1, col);
    else
      im2col_portable(st, p0, p1, col);
  }
#ifdef CH_X86
  if (vnni) {
    const size_t done = fused_vnni(st, a, rows, stride, p0, p1 - p0, false);
    rows += done * stride;
    p0 += done;
    if (p0 == p1) return;
  }
#endif
  int32_t *acc = (int32_t *)a->y + p0 * oc;   /* the output, as int32 until dequantized */
  cpu_q8_gemm_run(&st->gemm, rows, stride, (int)(p1 - p0), 0, st->gemm.blocks, acc, oc, st->isa.avx512_vnni);
  const size_t per_image = (size_t)r->out_h * r->out_w;
  for (size_t p = p0; p < p1;) {
    /* one call per run of pixels with one quantization: a pixel, or the tile's part of an image */
    const size_t qg = r->hy.per_pixel ? p : p / per_image;
    const size_t end = r->hy.per_pixel ? p + 1 : ((qg + 1) * per_image < p1 ? (qg + 1) * per_image : p1);
    cpu_hq_dequant(acc + (p - p0) * oc, st->gemm.sum, r->hy.x_zp[qg] + 128, r->hy.w_scale, r->hy.x_scale[qg],
                   a->bias, r->act_lo, r->act_hi, r->out_c, end - p, (float *)a->y + p * oc, st->isa.avx512);
    p = end;
  }
}

/* Row `row` (image row / hp, padded row % hp) of the padded image: the quantized image's
 * row between borders of zero-point bytes (they stand for 0.0, as a skipped tap does). */
static void pad_task(void *arg, size_t row)
{
  const ch_args *a = arg;
  const ch_state *st = a->st;
  const cpu_conv_state *r = st->ref;
  const size_t b = row / (size_t)st->hp, ic = (size_t)r->in_c, line = (size_t)st->wp * ic;
  const int y = (int)(row % (size_t)st->hp) - r->pad_h;
  uint8_t *dst = st->xpad + row * line;
  const uint8_t zx = (uint8_t)(r->hy.x_zp[b] + 128);
  if (y < 0 || y >= r->in_h) {
    memset(dst, zx, line);
    return;
  }
  const size_t left = (size_t)r->pad_w * ic, body = (size_t)r->in_w * ic;
  memset(dst, zx, left);
  memcpy(dst + left, (const uint8_t *)r->hy.xq + b * st->img + (size_t)y * body, body);
  memset(dst + left + body, zx, line - left - body);
}

static void tile_task(void *arg, size_t t)
{
  const ch_args *a = arg;
  const ch_state *st = a->st;
  const size_t tiles = (st->pixels + TILE - 1) / TILE;
  const size_t t0 = tiles * t / (size_t)st->tasks, t1 = tiles * (t + 1) / (size_t)st->tasks;
  uint8_t *col = st->col ? st->col + t * TILE * st->kp : NULL;
  for (size_t i = t0; i < t1; i++) {
    const size_t p0 = i * TILE, p1 = p0 + TILE < st->pixels ? p0 + TILE : st->pixels;
    tile(a, p0, p1, col);
  }
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)diag;
  ch_state *st = state;
  cpu_conv_state *r = st->ref;
  const tfl_tensor *b = cpu_in(g, n, BIAS);
  ch_args a = {st, cpu_in(g, n, INPUT)->data, b ? b->data : NULL, cpu_out(g, n, OUTPUT)->data};
  if (!r->hy.per_pixel) {
    const cpu_hq_images job = {a.x, st->img, r->batches, r->hy.asym, st->isa.avx512, st->part, st->qp, st->q_on,
                               (uint8_t *)r->hy.xq, r->hy.x_scale, r->hy.x_zp};
    cpu_hq_images_run(&job, ctx);
  }
  if (st->implicit && st->isa.avx512_vnni && st->isa.avx512)
    cpu_parallel(ctx, pad_task, &a, (size_t)r->batches * (size_t)st->hp);
  cpu_parallel(ctx, tile_task, &a, (size_t)st->tasks);
  return TFL_OK;
}

const cpu_kernel cpu_k_conv_hybrid = {prepare, eval, release};
