/* test_onednn_conv.c - the fast path's oneDNN convolutions (delegates/cpu/onednn_conv.c)
 * against the reference CONV_2D / DEPTHWISE_CONV_2D kernels, on one-node graphs:
 *   - 8-bit (uint8 weights with a zero point, also far from 128 so that oneDNN gets them
 *     shifted and the sums are corrected (dense convs; such depthwise ones are refused);
 *     int8 per-channel weights; input zero points 0, -128 and others; every clamp
 *     activation): bit for bit, 0 LSB;
 *   - float32: |d| <= 1e-5 * max(1, |want|) (the sums run in another order);
 *   - bfloat16 (inputs and weights rounded to bf16, fp32 sums): worst element within the
 *     bound of those roundings, 2^-8 * sum |x * w| per output (each product carries two
 *     roundings of at most 2^-9 relative), plus 2^-9 * (|bias| + |y|) (oneDNN's bf16
 *     depthwise may round the bias and, with a post-op, the output too) and the fp32 slack
 *     above; the test also fails if the error is not there at all (then it ran in fp32).
 * Shapes: 1x1, 3x3, 5x5, strides 1 and 2, dilation, SAME and VALID, odd channel counts,
 * batch 2, depth multiplier 2; 1, 2 and 3 threads (the row chunks and their paddings; 8-bit
 * 1x1 convs as one-pixel rows), with
 * this CPU's instruction sets and with the portable paths (cpu_features_none: requant and
 * bf16 conversion in plain C). Exit 77 (skip) where oneDNN has no JIT convolution at all;
 * bf16 cases are left out where oneDNN has no bf16 JIT code (no AVX-512 BF16).
 */
#include "conv_test_util.h"

#include <string.h>

#include "onednn_test_util.h"

typedef struct {
  const char *name;
  int dw;                       /* depthwise (oc = ic * mult) */
  int n, h, w, ic, oc, k, s, d, same;
} shape;

static const shape shapes[] = {
  {"1x1", 0, 1, 9, 7, 19, 33, 1, 1, 1, 1},
  {"3x3 s1 same", 0, 1, 13, 11, 5, 17, 3, 1, 1, 1},
  {"3x3 s2 same", 0, 1, 17, 16, 3, 24, 3, 2, 1, 1},
  {"3x3 s2 valid", 0, 2, 12, 12, 8, 9, 3, 2, 1, 0}, /* a column and a row past the last window */
  {"5x5 s1 dil2 same", 0, 1, 15, 14, 6, 7, 5, 1, 2, 1},
  {"dw 3x3 s1 same", 1, 1, 19, 18, 37, 37, 3, 1, 1, 1},
  {"dw 5x5 s2 same", 1, 2, 21, 20, 16, 16, 5, 2, 1, 1},
  {"dw 3x3 m2 valid", 1, 1, 10, 9, 5, 10, 3, 1, 1, 0},
  {"dw 3x3 dil2 same", 1, 1, 14, 14, 24, 24, 3, 1, 2, 1},
  /* 8-bit 1x1, rows that split unevenly (7): run as one-pixel rows in equal chunks, each
   * thread its own run of them (2 and 3 threads; batch 2: 2 threads only) */
  {"1x1 7 rows", 0, 1, 7, 112, 40, 192, 1, 1, 1, 1},
  {"1x1 7 rows batch 2", 0, 2, 7, 80, 24, 40, 1, 1, 1, 1},
};

enum { F32, BF16, U8, I8, U8W };
static const char *const kind_names[] = {"f32", "bf16", "u8", "i8", "u8 wide weights"};
static int failures, checked, skipped;

static int out_size(const shape *s, int in)
{
  return test_out_size(s->same, in, s->k, s->s, s->d);
}

/* Random int in [lo, hi]. */
static int32_t rnd(int32_t lo, int32_t hi)
{
  return lo + (int32_t)test_uniform(0, (float)(hi - lo + 1) - 0.001f);
}

/* Builds the one-node graph of shape s and kind k; *yt is the output tensor. */
static void build(op_runner *r, const shape *s, int kind, int32_t x_zp, tfl_activation act, int *yt)
{
  const int oh = out_size(s, s->h), ow = out_size(s, s->w);
  const int cin_w = s->dw ? s->oc : s->ic; /* last weight dim */
  const int32_t wdims[4] = {s->dw ? 1 : s->oc, s->k, s->k, cin_w};
  const size_t nx = (size_t)s->n * s->h * s->w * s->ic, nw = (size_t)wdims[0] * s->k * s->k * cin_w;
  op_runner_init(r, s->dw ? TFL_OP_DEPTHWISE_CONV_2D : TFL_OP_CONV_2D);
  int xt, wt, bt;
  if (kind == F32 || kind == BF16) {
    float *x = malloc(nx * 4), *w = malloc(nw * 4), *b = malloc((size_t)s->oc * 4);
    test_fill(x, nx, -1, 1);
    test_fill(w, nw, -0.5f, 0.5f);
    test_fill(b, (size_t)s->oc, -0.5f, 0.5f);
    xt = op_runner_tensor(r, TFL_TYPE_FLOAT32, 4, (int32_t[]){s->n, s->h, s->w, s->ic}, x, false);
    wt = op_runner_tensor(r, TFL_TYPE_FLOAT32, 4, wdims, w, true);
    bt = op_runner_tensor(r, TFL_TYPE_FLOAT32, 1, (int32_t[]){s->oc}, b, true);
    *yt = op_runner_tensor(r, TFL_TYPE_FLOAT32, 4, (int32_t[]){s->n, oh, ow, s->oc}, NULL, false);
    free(x), free(w), free(b);
  } else {
    const bool u8 = kind == U8 || kind == U8W;
    const tfl_type t = u8 ? TFL_TYPE_UINT8 : TFL_TYPE_INT8;
    uint8_t *x = malloc(nx), *w = malloc(nw);
    int32_t *b = malloc((size_t)s->oc * 4);
    /* uint8 weights: one zero point, values within 127 of it (oneDNN takes int8 only), or
     * (U8W) anything around a zero point of 40 (weights shifted by 128, then corrected);
     * int8: per-channel scales, zero point 0 */
    const int32_t w_zp = kind == U8W ? 40 : (u8 ? 113 : 0);
    for (size_t i = 0; i < nx; i++) x[i] = (uint8_t)(u8 ? rnd(0, 255) : (int8_t)rnd(-128, 127));
    for (size_t i = 0; i < nw; i++)
      w[i] = (uint8_t)(kind == U8W ? rnd(0, 255) : u8 ? rnd(0, w_zp + 127) : (int8_t)rnd(-127, 127));
    for (int i = 0; i < s->oc; i++) b[i] = rnd(-20000, 20000);
    const float xs = 0.02f, taps = (float)s->k * s->k * (s->dw ? 1 : s->ic);
    float ws[192]; /* oc <= 192 */
    int32_t wz[192];
    for (int i = 0; i < s->oc; i++) {
      ws[i] = u8 ? 0.004f : 0.002f + 0.0001f * (float)i;
      wz[i] = w_zp;
    }
    /* output scale: typical sums land some 50 steps from the zero point */
    const float ys = xs * ws[0] * sqrtf(taps) * 74 * 74 / 50;
    const int32_t yz = u8 ? 120 : -7;
    xt = op_runner_tensor(r, t, 4, (int32_t[]){s->n, s->h, s->w, s->ic}, x, false);
    op_runner_quant(r, xt, 1, &xs, &x_zp, 0);
    wt = op_runner_tensor(r, t, 4, wdims, w, true);
    op_runner_quant(r, wt, u8 ? 1 : s->oc, ws, wz, s->dw ? 3 : 0);
    bt = op_runner_tensor(r, TFL_TYPE_INT32, 1, (int32_t[]){s->oc}, b, true);
    *yt = op_runner_tensor(r, t, 4, (int32_t[]){s->n, oh, ow, s->oc}, NULL, false);
    op_runner_quant(r, *yt, 1, &ys, &yz, 0);
    free(x), free(w), free(b);
  }
  op_runner_io(r, (int[]){xt, wt, bt}, 3, (int[]){*yt}, 1);
  r->node.p.conv = (tfl_conv_params){s->same ? TFL_PAD_SAME : TFL_PAD_VALID, s->s, s->s, s->d, s->d,
                                     s->dw ? s->oc / s->ic : 1, act};
  r->graph.outputs = yt;
  r->graph.n_outputs = 1;
}

/* Sum of |x * w| over the window of every output element, plus |bias| / 2 (bf16 rounds
 * the bias once, the products twice), for the bf16 bound: computed here directly from
 * the tensors. */
static void abs_sums(const op_runner *r, const shape *s, double *out)
{
  const float *x = r->graph.tensors[r->node.in[0]].data, *w = r->graph.tensors[r->node.in[1]].data;
  const float *bias = r->graph.tensors[r->node.in[2]].data;
  const int oh = out_size(s, s->h), ow = out_size(s, s->w), mult = s->dw ? s->oc / s->ic : 1;
  const int ph = test_pad(s->same, s->h, s->k, s->s, s->d, oh), pw = test_pad(s->same, s->w, s->k, s->s, s->d, ow);
  for (int b = 0; b < s->n; b++)
    for (int oy = 0; oy < oh; oy++)
      for (int ox = 0; ox < ow; ox++)
        for (int oc = 0; oc < s->oc; oc++) {
          double sum = 0;
          for (int ky = 0; ky < s->k; ky++)
            for (int kx = 0; kx < s->k; kx++) {
              const int iy = oy * s->s - ph + ky * s->d, ix = ox * s->s - pw + kx * s->d;
              if (iy < 0 || iy >= s->h || ix < 0 || ix >= s->w) continue;
              const float *xp = x + (((size_t)b * s->h + iy) * s->w + ix) * s->ic;
              if (s->dw) {
                sum += fabs((double)xp[oc / mult] * w[((size_t)ky * s->k + kx) * s->oc + oc]);
              } else {
                for (int ic = 0; ic < s->ic; ic++)
                  sum += fabs((double)xp[ic] * w[(((size_t)oc * s->k + ky) * s->k + kx) * s->ic + ic]);
              }
            }
          out[(((size_t)b * oh + oy) * ow + ox) * s->oc + oc] = sum + 0.5 * fabs((double)bias[oc]);
        }
}

static void run_case(const shape *s, int kind, int32_t x_zp, tfl_activation act, bool portable)
{
  op_runner r;
  int yt;
  build(&r, s, kind, x_zp, act, &yt);
  char what[160];
  snprintf(what, sizeof what, "%s %s x_zp %d act %d%s", s->name, kind_names[kind], (int)x_zp, act,
           portable ? " (portable paths)" : "");
  onednn_conv_options o = {1, kind == BF16, portable ? cpu_features_none() : cpu_features_detect(), -1, false, false, -1, -1};
  if (!onednn_conv_applies(&r.graph, 0, &o)) {
    if (kind == BF16 && !cpu_features_detect().avx512_bf16) { /* oneDNN's bf16 wants the ISA */
      skipped++;
      op_runner_free(&r);
      return;
    }
    fprintf(stderr, "FAIL %s: onednn_conv_applies refuses it\n", what);
    failures++;
    op_runner_free(&r);
    return;
  }
  if (op_runner_run(&r, 1) != TFL_OK) {
    fprintf(stderr, "FAIL %s: reference: %s\n", what, r.diag.error);
    failures++;
    op_runner_free(&r);
    return;
  }
  tfl_tensor *y = &r.graph.tensors[yt];
  const size_t n = tfl_tensor_count(y);
  void *want = malloc(y->bytes);
  double *bound = kind == BF16 ? malloc(n * sizeof *bound) : NULL;
  memcpy(want, y->data, y->bytes);
  if (bound) abs_sums(&r, s, bound);
  for (int threads = 1; threads <= 3; threads++) {
    memset(y->data, 0x55, y->bytes);
    o.threads = threads;
    tfl_diag diag;
    const tfl_status st = onednn_test_run(&r.graph, 0, &o, &diag);
    checked++;
    if (st != TFL_OK) {
      fprintf(stderr, "FAIL %s t%d: %s\n", what, threads, diag.error);
      failures++;
      continue;
    }
    if (kind == U8 || kind == I8 || kind == U8W) {
      const bool u8 = kind != I8;
      for (size_t i = 0; i < n; i++) {
        const int g = u8 ? ((uint8_t *)y->data)[i] : ((int8_t *)y->data)[i];
        const int e = u8 ? ((uint8_t *)want)[i] : ((int8_t *)want)[i];
        if (g != e) {
          fprintf(stderr, "FAIL %s t%d: [%zu] = %d, reference %d (must be exact)\n", what, threads, i, g, e);
          failures++;
          break;
        }
      }
      continue;
    }
    const float *got = y->data, *ref = want;
    double worst = 0, worst_ratio = 0;
    for (size_t i = 0; i < n; i++) {
      const double d = fabs((double)got[i] - ref[i]), m = fabs(ref[i]) > 1 ? fabs(ref[i]) : 1;
      const double tol = kind == BF16 ? bound[i] / 256 + fabs(ref[i]) / 512 + 1e-5 * m : 1e-5 * m;
      if (!(d <= tol)) {
        fprintf(stderr, "FAIL %s t%d: [%zu] = %.8g, reference %.8g (|d| %.3g > %.3g)\n", what, threads, i,
                (double)got[i], (double)ref[i], d, tol);
        failures++;
        break;
      }
      if (d > worst) worst = d;
      if (bound && bound[i] > 0 && d / bound[i] > worst_ratio) worst_ratio = d / bound[i];
    }
    if (kind == BF16 && worst < 1e-6) {
      fprintf(stderr, "FAIL %s t%d: no bf16 rounding error at all (worst %.3g): ran in fp32?\n", what, threads,
              worst);
      failures++;
    }
    if (kind == BF16 && threads == 1 && !portable && act == TFL_ACT_NONE)
      printf("  %s: bf16 worst |d| %.3g (%.2f%% of the rounding bound)\n", what, worst, 100 * 256 * worst_ratio);
  }
  free(want);
  free(bound);
  op_runner_free(&r);
}

/* A conv the module must leave alone. */
static void check_refused(const shape *s, int kind, const char *why)
{
  op_runner r;
  int yt;
  build(&r, s, kind, 128, TFL_ACT_NONE, &yt);
  onednn_conv_options o = {1, false, cpu_features_detect(), -1, false, false, -1, -1};
  if (onednn_conv_applies(&r.graph, 0, &o)) {
    fprintf(stderr, "FAIL %s %s: oneDNN takes it (%s)\n", s->name, kind_names[kind], why);
    failures++;
  }
  checked++;
  op_runner_free(&r);
}

int main(void)
{
  /* a probe: oneDNN without JIT code here (no AVX2 or the like) is never used */
  op_runner r;
  int yt;
  build(&r, &shapes[0], F32, 0, TFL_ACT_NONE, &yt);
  onednn_conv_options probe = {1, false, cpu_features_detect(), -1, false, false, -1, -1};
  const bool jit = onednn_conv_applies(&r.graph, 0, &probe);
  op_runner_free(&r);
  /* scripts/arm64_stage.sh runs this on qemu's SVE CPU with TFL_EXPECT_SVE=1: detection
   * must see it, or the guard below would never be tested */
  if (getenv("TFL_EXPECT_SVE") && !probe.isa.sve) {
    fprintf(stderr, "FAIL: TFL_EXPECT_SVE is set but cpu_features_detect() finds no SVE\n");
    return 1;
  }
  /* an SVE CPU: oneDNN has JIT convolutions there (the depthwise ones under qemu's 512-bit
   * SVE put the selfie models 1.0 off), unchecked, so the fast path must take none of
   * them; each shape and type is asked again as if the CPU had no SVE, to count them */
  if (probe.isa.sve) {
    int taken = 0, sve_jit = 0, asked = 0;
    onednn_conv_options unguarded = probe;
    unguarded.isa.sve = false;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
      for (int kind = F32; kind <= I8; kind++) {
        build(&r, &shapes[i], kind, kind == I8 ? -128 : kind == U8 ? 128 : 0, TFL_ACT_NONE, &yt);
        probe.bf16 = unguarded.bf16 = kind == BF16;
        taken += onednn_conv_applies(&r.graph, 0, &probe);
        sve_jit += onednn_conv_applies(&r.graph, 0, &unguarded);
        asked++;
        op_runner_free(&r);
      }
    if (taken) {
      fprintf(stderr, "FAIL: SVE CPU: the fast path gives %d of %d convs to oneDNN\n", taken, asked);
      return 1;
    }
    printf("OK: SVE CPU: oneDNN has JIT code for %d of %d convs, the fast path takes none\n", sve_jit, asked);
    return 0;
  }
  if (!jit) {
    if (cpu_features_detect().avx512) {
      fprintf(stderr, "FAIL: oneDNN takes no float conv on an AVX-512 CPU\n");
      return 1;
    }
    printf("SKIP: oneDNN has no JIT convolution on this CPU; the fast path never uses it\n");
    return 77;
  }
  const tfl_activation acts[] = {TFL_ACT_NONE, TFL_ACT_RELU, TFL_ACT_RELU6, TFL_ACT_RELU_N1_TO_1};
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    const shape *s = &shapes[i];
    for (size_t a = 0; a < 4; a++) {
      run_case(s, F32, 0, acts[a], false);
      run_case(s, U8, 128, acts[a], false);
      run_case(s, I8, -128, acts[a], false);
    }
    run_case(s, U8, 0, TFL_ACT_RELU6, false); /* no input zero point */
    if (!s->dw) { /* shifted uint8 weights: dense convs only */
      run_case(s, U8W, 128, TFL_ACT_RELU6, false);
      run_case(s, U8W, 0, TFL_ACT_NONE, false);
      run_case(s, U8W, 77, TFL_ACT_RELU, true);
    } else {
      check_refused(s, U8W, "uint8 depthwise weights outside int8 (left to XNNPACK)");
    }
    run_case(s, U8, 77, TFL_ACT_NONE, false);
    run_case(s, I8, 5, TFL_ACT_RELU, false);
    run_case(s, I8, 0, TFL_ACT_NONE, false);
    run_case(s, BF16, 0, TFL_ACT_NONE, false);
    run_case(s, BF16, 0, TFL_ACT_RELU6, false);
    /* the portable requantization and bf16 conversion around the same oneDNN code */
    run_case(s, U8, 128, TFL_ACT_RELU6, true);
    run_case(s, I8, 5, TFL_ACT_NONE, true);
    run_case(s, BF16, 0, TFL_ACT_NONE, true);
  }
  if (failures) {
    fprintf(stderr, "%d failures of %d runs\n", failures, checked);
    return 1;
  }
  printf("OK: %d runs (%zu shapes; f32, bf16, uint8, int8; 1-3 threads; native and portable paths)%s\n", checked,
         sizeof shapes / sizeof shapes[0], skipped ? "; bf16 skipped: no AVX-512 BF16 for oneDNN" : "");
  return 0;
}
