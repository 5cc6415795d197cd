/* conv_test_util.h - helpers for the convolution-family kernel tests: deterministic
 * random values, quantization of float test data, TFLite's padding arithmetic
 * (written out independently of the kernels) and 1-LSB comparisons. */
#ifndef CONV_TEST_UTIL_H
#define CONV_TEST_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../delegates/cpu/cpu_features.h"
#include "../../delegates/cpu/cpu_kernel.h"
#include "../op_runner.h"

static uint32_t test_rng = 12345u;

/* uniform in [lo, hi) from a fixed LCG, so every run sees the same data */
static inline float test_uniform(float lo, float hi)
{
  test_rng = test_rng * 1664525u + 1013904223u;
  return lo + (hi - lo) * (float)((test_rng >> 8) / 16777216.0);
}

static inline void test_fill(float *v, size_t n, float lo, float hi)
{
  for (size_t i = 0; i < n; i++) v[i] = test_uniform(lo, hi);
}

/* SAME: ceil(in / stride); VALID: ceil((in - eff + 1) / stride) */
static inline int test_out_size(int same, int in, int k, int stride, int dil)
{
  int eff = (k - 1) * dil + 1;
  return same ? (in + stride - 1) / stride : (in - eff) / stride + 1;
}
static inline int test_pad(int same, int in, int k, int stride, int dil, int out)
{
  if (!same) return 0;
  int total = (out - 1) * stride + (k - 1) * dil + 1 - in;
  return total > 0 ? total / 2 : 0;
}

static inline float test_act(tfl_activation act, float v)
{
  switch (act) {
  case TFL_ACT_RELU: return v < 0 ? 0 : v;
  case TFL_ACT_RELU6: return v < 0 ? 0 : (v > 6 ? 6 : v);
  case TFL_ACT_RELU_N1_TO_1: return v < -1 ? -1 : (v > 1 ? 1 : v);
  case TFL_ACT_NONE:
  case TFL_ACT_TANH:
  case TFL_ACT_SIGN_BIT:
  case TFL_ACT_SIGMOID: break;
  }
  return v;
}

/* q = clamp(round(v / scale) + zp) for uint8 (is_u8) or int8 */
static inline int32_t test_quantize(float v, float scale, int32_t zp, int is_u8)
{
  long q = lroundf(v / scale) + zp;
  long lo = is_u8 ? 0 : -128, hi = is_u8 ? 255 : 127;
  return (int32_t)(q < lo ? lo : (q > hi ? hi : q));
}

/* Quantizes n floats into raw storage (uint8 or int8); scale/zp per channel `ch_of(i)`. */
static inline void test_quantize_array(const float *v, void *raw, size_t n, const float *scale,
                                       const int32_t *zp, size_t inner, size_t channels, int is_u8)
{
  for (size_t i = 0; i < n; i++) {
    size_t c = channels > 1 ? (i / inner) % channels : 0;
    int32_t q = test_quantize(v[i], scale[c], zp[c], is_u8);
    if (is_u8)
      ((uint8_t *)raw)[i] = (uint8_t)q;
    else
      ((int8_t *)raw)[i] = (int8_t)q;
  }
}
/* Back to float (the values the kernel really sees). */
static inline void test_dequantize_array(const void *raw, float *v, size_t n, const float *scale,
                                         const int32_t *zp, size_t inner, size_t channels, int is_u8)
{
  for (size_t i = 0; i < n; i++) {
    size_t c = channels > 1 ? (i / inner) % channels : 0;
    int32_t q = is_u8 ? ((const uint8_t *)raw)[i] : ((const int8_t *)raw)[i];
    v[i] = scale[c] * (float)(q - zp[c]);
  }
}

/* Compares quantized output `got` with the quantized expected real values: |dq| <= 1. */
static inline int test_expect_q(const char *what, const void *got, const float *want_real, size_t n,
                                float scale, int32_t zp, int32_t lo, int32_t hi, int is_u8)
{
  for (size_t i = 0; i < n; i++) {
    int32_t w = test_quantize(want_real[i], scale, zp, is_u8);
    w = w < lo ? lo : (w > hi ? hi : w);
    int32_t g = is_u8 ? ((const uint8_t *)got)[i] : ((const int8_t *)got)[i];
    if (abs(g - w) > 1) {
      fprintf(stderr, "%s: element %zu is %d, expected %d (real %.6g, 1 LSB)\n", what, i, g, w,
              want_real[i]);
      return 0;
    }
  }
  return 1;
}

/* Quantized activation range (independent of the kernels' helper). */
static inline void test_act_range_q(tfl_activation act, float scale, int32_t zp, int is_u8,
                                    int32_t *lo, int32_t *hi)
{
  *lo = is_u8 ? 0 : -128;
  *hi = is_u8 ? 255 : 127;
  float flo = -INFINITY, fhi = INFINITY;
  if (act == TFL_ACT_RELU || act == TFL_ACT_RELU6) flo = 0;
  if (act == TFL_ACT_RELU6) fhi = 6;
  if (act == TFL_ACT_RELU_N1_TO_1) { flo = -1; fhi = 1; }
  if (isfinite(flo) && zp + lroundf(flo / scale) > *lo) *lo = zp + (int32_t)lroundf(flo / scale);
  if (isfinite(fhi) && zp + lroundf(fhi / scale) < *hi) *hi = zp + (int32_t)lroundf(fhi / scale);
}

/* Fast kernel against the reference: |got - want| <= rel * max(1, |want|) on every element
 * (the sums run in another order). Prints the first miss as "FAIL what tT: ..." and
 * returns 0 then. */
static inline int test_expect_rel(const char *what, int threads, const float *got, const float *want, size_t n,
                                  float rel)
{
  for (size_t i = 0; i < n; i++) {
    const float d = fabsf(got[i] - want[i]), m = fabsf(want[i]) > 1 ? fabsf(want[i]) : 1;
    if (!(d <= rel * m)) {
      fprintf(stderr, "FAIL %s t%d: [%zu] = %.8g, reference %.8g\n", what, threads, i, (double)got[i],
              (double)want[i]);
      return 0;
    }
  }
  return 1;
}

/* A CONV_2D or DEPTHWISE_CONV_2D case: sizes, strides, dilations, SAME or VALID. */
typedef struct {
  int n, h, w, ic, oc, kh, kw, sh, sw, dh, dw, same, bias;
  tfl_activation act;
} conv_case;

/* Compares output `got` with want: float within tol absolute, or (quant) within 1 LSB of
 * want quantized with (ys, yz) and clamped to act's range. */
static inline int test_expect_out(const char *what, const void *got, const float *want, size_t n,
                                  int quant, float tol, tfl_activation act, float ys, int32_t yz,
                                  int is_u8)
{
  if (!quant) return op_runner_expect_near(what, got, want, n, tol);
  int32_t lo, hi;
  test_act_range_q(act, ys, yz, is_u8, &lo, &hi);
  return test_expect_q(what, got, want, n, ys, yz, lo, hi, is_u8);
}

/* One conv-family case's data: float input x, weights w and bias b (random, filled in that
 * order), the expected output; for quantized types their quantized copies and parameters.
 * A test computes want (and, quantized, pre: before the activation) with its own naive op. */
enum { TEST_F32, TEST_U8, TEST_I8PC };
typedef struct {
  int type, is_u8, nch;   /* TEST_*; nch: weight scales (output channels if per-channel) */
  size_t nx, nw, ny;
  int nb;                 /* bias values = output channels */
  float *x, *w, *b, *want, *pre;
  float xs, ws[128], ys;
  int32_t xz, wz[128], yz;
  void *xq, *wq;
  int32_t *bq;
} test_data;

static inline void test_data_init(test_data *d, int type, size_t nx, size_t nw, int nb, size_t ny)
{
  *d = (test_data){.type = type, .is_u8 = type == TEST_U8, .nch = type == TEST_I8PC ? nb : 1,
                   .nx = nx, .nw = nw, .ny = ny, .nb = nb, .xs = 2.0f / 255, .ys = 1};
  d->xz = d->is_u8 ? 128 : 0;
  d->x = malloc(nx * 4), d->w = malloc(nw * 4), d->b = malloc(nb * 4);
  d->want = malloc(ny * 4), d->pre = malloc(ny * 4);
  test_fill(d->x, nx, -1, 1);
  test_fill(d->w, nw, -0.5f, 0.5f);
  test_fill(d->b, nb, -0.5f, 0.5f);
}

/* Quantizes x, w and b (weight k belongs to channel (k / inner) % nch; uint8 weights get
 * zero point w_zp_u8), then replaces the floats by the values the kernel sees. */
static inline void test_data_quantize(test_data *d, size_t inner, int32_t w_zp_u8)
{
  float m[128];
  for (int o = 0; o < d->nch; o++) m[o] = 1e-6f;
  for (size_t k = 0; k < d->nw; k++) {
    size_t o = d->nch > 1 ? (k / inner) % (size_t)d->nch : 0;
    m[o] = fmaxf(m[o], fabsf(d->w[k]));
  }
  for (int o = 0; o < d->nch; o++) {
    d->ws[o] = d->is_u8 ? 1.0f / 255 : m[o] / 127;
    d->wz[o] = d->is_u8 ? w_zp_u8 : 0;
  }
  d->xq = malloc(d->nx), d->wq = malloc(d->nw), d->bq = malloc(d->nb * 4);
  test_quantize_array(d->x, d->xq, d->nx, &d->xs, &d->xz, 1, 1, d->is_u8);
  test_quantize_array(d->w, d->wq, d->nw, d->ws, d->wz, inner, d->nch, d->is_u8);
  test_dequantize_array(d->xq, d->x, d->nx, &d->xs, &d->xz, 1, 1, d->is_u8);
  test_dequantize_array(d->wq, d->w, d->nw, d->ws, d->wz, inner, d->nch, d->is_u8);
  for (int o = 0; o < d->nb; o++) {
    double bs = (double)d->xs * d->ws[d->nch > 1 ? o : 0];
    d->bq[o] = (int32_t)lround(d->b[o] / bs);
    d->b[o] = (float)(d->bq[o] * bs);
  }
}

/* Output scale and zero point covering the pre-activation reference d->pre. */
static inline void test_data_out_quant(test_data *d)
{
  float mn = 0, mx = 0;
  for (size_t k = 0; k < d->ny; k++) { mn = fminf(mn, d->pre[k]); mx = fmaxf(mx, d->pre[k]); }
  d->ys = (mx - mn) / 255 + 1e-6f;
  d->yz = (int32_t)lroundf(-mn / d->ys) - (d->is_u8 ? 0 : 128);
}

/* Adds tensors x [xn dims xd], w (const; per-channel scales along w_axis), bias (const, only
 * when `bias`) and output [yn dims yd] to r, float or quantized: t = {x, w, bias or -1, y}. */
static inline void test_data_tensors(op_runner *r, const test_data *d, int xn, const int32_t *xd,
                                     int wn, const int32_t *wd, int w_axis, int bias, int yn,
                                     const int32_t *yd, int t[4])
{
  int32_t bd[1] = {d->nb};
  t[2] = -1;
  if (d->type == TEST_F32) {
    t[0] = op_runner_tensor(r, TFL_TYPE_FLOAT32, xn, xd, d->x, false);
    t[1] = op_runner_tensor(r, TFL_TYPE_FLOAT32, wn, wd, d->w, true);
    if (bias) t[2] = op_runner_tensor(r, TFL_TYPE_FLOAT32, 1, bd, d->b, true);
    t[3] = op_runner_tensor(r, TFL_TYPE_FLOAT32, yn, yd, NULL, false);
    return;
  }
  tfl_type qt = d->is_u8 ? TFL_TYPE_UINT8 : TFL_TYPE_INT8;
  t[0] = op_runner_tensor(r, qt, xn, xd, d->xq, false);
  op_runner_quant(r, t[0], 1, &d->xs, &d->xz, 0);
  t[1] = op_runner_tensor(r, qt, wn, wd, d->wq, true);
  op_runner_quant(r, t[1], d->nch, d->ws, d->wz, w_axis);
  if (bias) {
    t[2] = op_runner_tensor(r, TFL_TYPE_INT32, 1, bd, d->bq, true);
    float bs[128];
    int32_t bz[128] = {0};
    for (int o = 0; o < d->nch; o++) bs[o] = d->xs * d->ws[o];
    op_runner_quant(r, t[2], d->nch, bs, bz, 0);
  }
  t[3] = op_runner_tensor(r, qt, yn, yd, NULL, false);
  op_runner_quant(r, t[3], 1, &d->ys, &d->yz, 0);
}

/* Runs r on `threads` threads and compares output tensor yt with d->want (float: 1e-5). */
static inline int test_data_run(op_runner *r, int threads, const test_data *d, int yt,
                                tfl_activation act, const char *what)
{
  int ok = op_runner_run(r, threads) == TFL_OK;
  if (!ok) fprintf(stderr, "run failed: %s\n", r->diag.error);
  return ok && test_expect_out(what, r->graph.tensors[yt].data, d->want, d->ny,
                               d->type != TEST_F32, 1e-5f, act, d->ys, d->yz, d->is_u8);
}

static inline void test_data_free(test_data *d)
{
  free(d->x), free(d->w), free(d->b), free(d->want), free(d->pre);
  free(d->xq), free(d->wq), free(d->bq);
}

#define TEST_CHECK(cond)                                                                         \
  do {                                                                                           \
    if (!(cond)) {                                                                               \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                  \
      return 0;                                                                                  \
    }                                                                                            \
  } while (0)

/* A float node `op` (no bias, VALID, stride 1) with these 4-D shapes is refused with
 * TFL_ERR_SHAPE and a message naming `op_name` and containing `word`. */
static inline int test_conv_refused(tfl_op op, const int32_t xd[4], const int32_t wd[4],
                                    const int32_t yd[4], const char *op_name, const char *word)
{
  op_runner r;
  op_runner_init(&r, op);
  int xt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, xd, NULL, false);
  int wt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, wd, NULL, true);
  int yt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, yd, NULL, false);
  op_runner_io(&r, (int[]){xt, wt, -1}, 3, (int[]){yt}, 1);
  r.node.p.conv = (tfl_conv_params){TFL_PAD_VALID, 1, 1, 1, 1, 1, TFL_ACT_NONE};
  tfl_status s = op_runner_run(&r, 1);
  op_runner_free(&r);
  TEST_CHECK(s == TFL_ERR_SHAPE);
  TEST_CHECK(strstr(r.diag.error, op_name) && strstr(r.diag.error, word));
  return 1;
}

/* The reference kernel's output for a fast kernel's case, copied (the caller frees it),
 * or NULL after printing why not: the fast path does not take the node (taken false),
 * or the reference failed. */
static inline void *test_reference_output(op_runner *r, int yt, int taken, const char *what)
{
  if (!taken) {
    fprintf(stderr, "FAIL %s: the fast path does not give it to the kernel\n", what);
    return NULL;
  }
  if (op_runner_run(r, 1) != TFL_OK) {
    fprintf(stderr, "FAIL %s: reference: %s\n", what, r->diag.error);
    return NULL;
  }
  const tfl_tensor *y = &r->graph.tensors[yt];
  void *want = malloc(y->bytes);
  if (want) memcpy(want, y->data, y->bytes);
  return want;
}

/* A uniform integer in [lo, hi]. */
static inline int32_t test_rand_int(int32_t lo, int32_t hi)
{
  return lo + (int32_t)(test_uniform(0, 1) * (float)(hi - lo + 1)) % (hi - lo + 1);
}

/* n random stored 8-bit values. */
static inline void test_fill_bytes(void *p, size_t n, bool is_u8)
{
  for (size_t i = 0; i < n; i++) {
    if (is_u8)
      ((uint8_t *)p)[i] = (uint8_t)test_rand_int(0, 255);
    else
      ((int8_t *)p)[i] = (int8_t)test_rand_int(-128, 127);
  }
}

/* Random 8-bit weight quantization for weights tensor wt (nq scales along axis, each
 * 0.002-0.02 / w_div) and the bias bt (>= 0: scale x_scale * w_scale, zero point 0), and
 * the node's inputs (xt, wt, bt if any) and output yt. Zero points: int8 weights symmetric
 * as TFLite writes them (far_zp: random); uint8 near 128 (w - zw fits int8 for most) or
 * far from it (the shifted-weights paths). */
static inline void test_q8_weights_io(op_runner *r, int xt, int wt, int bt, int yt, int nq, int axis, bool is_u8,
                                      bool far_zp, float x_scale, float w_div)
{
  float *ws = malloc(sizeof(float) * (size_t)nq), *bs = malloc(sizeof(float) * (size_t)nq);
  int32_t *wz = malloc(sizeof(int32_t) * (size_t)nq), *bz = calloc((size_t)nq, sizeof(int32_t));
  for (int i = 0; i < nq; i++) {
    ws[i] = test_uniform(0.002f, 0.02f) / w_div;
    wz[i] = !is_u8 ? (far_zp ? test_rand_int(-100, 100) : 0) : far_zp ? test_rand_int(0, 60) : test_rand_int(120, 136);
    bs[i] = x_scale * ws[i];
  }
  op_runner_quant(r, wt, nq, ws, wz, axis);
  if (bt >= 0) {
    op_runner_quant(r, bt, nq, bs, bz, 0);
    op_runner_io(r, (int[]){xt, wt, bt}, 3, (int[]){yt}, 1);
  } else {
    op_runner_io(r, (int[]){xt, wt}, 2, (int[]){yt}, 1);
  }
  free(ws), free(bs), free(wz), free(bz);
}

/* A fast kernel under test: k, its path switch, and an optional step after prepare
 * (NULL: none; arg is passed on). */
typedef struct {
  const cpu_kernel *k;
  void (*use_isa)(void *state, const cpu_features *isa);
  tfl_status (*after_prepare)(void *state, const tfl_graph *g, const void *arg, tfl_diag *diag);
  const void *arg;
} test_fast_kernel;

/* Runs f on node n of g (output tensor yt, 8-bit) on each of n_paths paths (names for
 * messages) with 1-3 threads, eval twice each, and compares the output's stored bytes
 * with want: worst element 0 LSB. Prints each failure; returns their count; *runs
 * counts the runs. */
static inline int test_fast_paths(const test_fast_kernel *f, tfl_graph *g, const tfl_node *n, int yt,
                                  const void *want, const cpu_features *paths, const char *const *names,
                                  int n_paths, const char *what, int *runs)
{
  tfl_tensor *y = &g->tensors[yt];
  const bool is_u8 = y->type == TFL_TYPE_UINT8;
  int failures = 0;
  for (int p = 0; p < n_paths; p++)
    for (int threads = 1; threads <= 3; threads++) {
      tfl_diag diag;
      tfl_diag_init(&diag);
      memset(y->data, 0x55, y->bytes);
      cpu_ctx *ctx = cpu_ctx_create(threads);
      void *st = NULL;
      tfl_status s = f->k->prepare(g, n, &st, &diag);
      if (s == TFL_OK) f->use_isa(st, &paths[p]);
      if (s == TFL_OK && f->after_prepare) s = f->after_prepare(st, g, f->arg, &diag);
      for (int rep = 0; rep < 2 && s == TFL_OK; rep++) s = f->k->eval(g, n, st, ctx, &diag);
      f->k->release(st);
      cpu_ctx_free(ctx);
      (*runs)++;
      if (s != TFL_OK) {
        fprintf(stderr, "FAIL %s %s t%d: %s\n", what, names[p], threads, diag.error);
        failures++;
        continue;
      }
      int worst = 0;
      size_t at = 0;
      for (size_t i = 0; i < y->bytes; i++) {
        const int gv = is_u8 ? ((const uint8_t *)y->data)[i] : ((const int8_t *)y->data)[i];
        const int wv = is_u8 ? ((const uint8_t *)want)[i] : ((const int8_t *)want)[i];
        if (abs(gv - wv) > worst) worst = abs(gv - wv), at = i;
      }
      if (worst != 0) {
        fprintf(stderr, "FAIL %s %s t%d: worst element %zu off by %d LSB\n", what, names[p], threads, at, worst);
        failures++;
      }
    }
  return failures;
}

#endif
