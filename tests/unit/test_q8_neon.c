/* test_q8_neon.c - the arm64 fast path's NEON 8-bit CONV_2D and DEPTHWISE_CONV_2D
 * (conv_q8_neon.c, dwconv_q8_neon.c) against the reference kernels (portable C, which
 * the model tests hold to TensorFlow Lite's goldens): uint8 and int8, per-tensor and
 * per-channel weights, zero points near and far, 1x1 / 3x3 / 5x5 / 3x5 filters, strides
 * 1-3, dilation 2, SAME and VALID, batch 2, channel counts that leave partial 8-channel
 * blocks and rows that leave partial 4-pixel groups, windows up to 1800 values, every
 * clamp activation, 1-3 threads; the conv on both its paths (the dot products where the CPU
 * has them: qemu's cortex-a76 does; the int16 one). Worst element: 0 LSB. Also which nodes the fast path
 * gives them: on aarch64 those with per-tensor weights (XNNPACK takes per-channel int8
 * there), elsewhere none (off aarch64 only that is checked). */
#include "conv_test_util.h"

#include "../../delegates/cpu/cpu_features.h"
#include "../../delegates/cpu/kernels/conv_q8_neon.h"
#include "../../delegates/cpu/kernels/dwconv_q8_neon.h"

typedef struct {
  int dw; /* depthwise (ic = oc) */
  int n, h, w, ic, oc, kh, kw, stride, dil, same, is_u8, per_channel, far_zp, bias;
} nq_case;

static int failures, runs, compared;

static void build(op_runner *r, const nq_case *c, tfl_activation act, int *yt)
{
  const int oc = c->dw ? c->ic : c->oc;
  const int oh = test_out_size(c->same, c->h, c->kh, c->stride, c->dil);
  const int ow = test_out_size(c->same, c->w, c->kw, c->stride, c->dil);
  const size_t nx = (size_t)c->n * c->h * c->w * c->ic;
  const size_t nw = (size_t)c->kh * c->kw * (c->dw ? (size_t)c->ic : (size_t)oc * c->ic);
  const tfl_type type = c->is_u8 ? TFL_TYPE_UINT8 : TFL_TYPE_INT8;
  void *x = malloc(nx), *w = malloc(nw);
  int32_t *b = malloc(sizeof(int32_t) * (size_t)oc);
  test_fill_bytes(x, nx, c->is_u8);
  test_fill_bytes(w, nw, c->is_u8);
  for (int i = 0; i < oc; i++) b[i] = test_rand_int(-20000, 20000);
  op_runner_init(r, c->dw ? TFL_OP_DEPTHWISE_CONV_2D : TFL_OP_CONV_2D);
  const int32_t wd_dw[4] = {1, c->kh, c->kw, c->ic}, wd_conv[4] = {oc, c->kh, c->kw, c->ic};
  int xt = op_runner_tensor(r, type, 4, (int32_t[]){c->n, c->h, c->w, c->ic}, x, false);
  int wt = op_runner_tensor(r, type, 4, c->dw ? wd_dw : wd_conv, w, true);
  int bt = c->bias ? op_runner_tensor(r, TFL_TYPE_INT32, 1, (int32_t[]){oc}, b, true) : -1;
  *yt = op_runner_tensor(r, type, 4, (int32_t[]){c->n, oh, ow, oc}, NULL, false);
  const int32_t tlo = c->is_u8 ? 0 : -128, thi = c->is_u8 ? 255 : 127;
  const float xs = test_uniform(0.01f, 0.05f), ys = test_uniform(0.05f, 0.3f);
  const int32_t xz = test_rand_int(tlo, thi), yz = test_rand_int(tlo + 40, thi - 40);
  op_runner_quant(r, xt, 1, &xs, &xz, 0);
  op_runner_quant(r, *yt, 1, &ys, &yz, 0);
  /* weight scales shrink with the window so the outputs spread over the range */
  test_q8_weights_io(r, xt, wt, bt, *yt, c->per_channel ? oc : 1, c->dw ? 3 : 0, c->is_u8, c->far_zp, xs,
                     c->dw ? 1.0f : (float)(c->kh * c->kw * c->ic) / 8.0f);
  r->node.p.conv = (tfl_conv_params){c->same ? TFL_PAD_SAME : TFL_PAD_VALID, c->stride, c->stride, c->dil, c->dil,
                                     1, act};
  free(x), free(w), free(b);
}

static void no_paths(void *state, const cpu_features *isa)
{
  (void)state, (void)isa; /* one path: NEON */
}

static void run_case(const nq_case *c, tfl_activation act)
{
  op_runner r;
  int yt;
  build(&r, c, act, &yt);
  char what[192];
  snprintf(what, sizeof what, "%s %s %dx%dx%dx%d->%d k%dx%d s%d d%d %s %s%s%s act %d", c->dw ? "dw" : "conv",
           c->is_u8 ? "u8" : "i8", c->n, c->h, c->w, c->ic, c->dw ? c->ic : c->oc, c->kh, c->kw, c->stride, c->dil,
           c->same ? "same" : "valid", c->per_channel ? "per-channel" : "per-tensor", c->far_zp ? " far-zp" : "",
           c->bias ? "" : " no-bias", act);
  const bool fits = c->dw ? cpu_dwconv_q8_neon_fits(&r.graph, &r.node) : cpu_conv_q8_neon_fits(&r.graph, &r.node);
  const bool applies =
      c->dw ? cpu_dwconv_q8_neon_applies(&r.graph, &r.node) : cpu_conv_q8_neon_applies(&r.graph, &r.node);
#if defined(__aarch64__)
  const bool want_applies = !c->per_channel;
#else
  const bool want_applies = false;
#endif
  if (applies != want_applies) {
    fprintf(stderr, "FAIL %s: the fast path %s it\n", what, applies ? "takes" : "does not take");
    failures++;
  }
#if defined(__aarch64__)
  uint8_t *want = test_reference_output(&r, yt, fits, what);
  if (!want) {
    failures++;
    op_runner_free(&r);
    return;
  }
  const test_fast_kernel f = {c->dw ? &cpu_k_dwconv_q8_neon : &cpu_k_conv_q8_neon,
                              c->dw ? no_paths : cpu_conv_q8_neon_use_isa, NULL, NULL};
  const cpu_features cpu = cpu_features_detect();
  cpu_features paths[2];
  const char *names[2];
  int n_paths = 0;
  if (cpu.dotprod && !c->dw) paths[n_paths] = cpu, names[n_paths++] = "dotprod";
  paths[n_paths] = cpu_features_none(), names[n_paths++] = "neon";
  failures += test_fast_paths(&f, &r.graph, &r.node, yt, want, paths, names, n_paths, what, &runs);
  compared++;
  free(want);
#else
  (void)fits, (void)no_paths;
#endif
  op_runner_free(&r);
}

/* A node the kernels must leave to the others. */
static void check_left(const char *why, const nq_case *c, int groups)
{
  op_runner r;
  int yt;
  build(&r, c, TFL_ACT_NONE, &yt);
  if (groups > 1) r.graph.tensors[r.node.in[1]].dims[3] = c->ic / groups; /* a grouped CONV_2D */
  const bool taken = c->dw ? cpu_dwconv_q8_neon_fits(&r.graph, &r.node) || cpu_dwconv_q8_neon_applies(&r.graph, &r.node)
                          : cpu_conv_q8_neon_fits(&r.graph, &r.node) || cpu_conv_q8_neon_applies(&r.graph, &r.node);
  if (taken) {
    fprintf(stderr, "FAIL refusal (%s): the kernel takes it\n", why);
    failures++;
  }
  op_runner_free(&r);
}

int main(void)
{
  static const nq_case cases[] = {
    /* dw, n, h, w, ic, oc, kh, kw, stride, dil, same, u8, per-channel, far zp, bias */
    {0, 1, 33, 35, 3, 32, 3, 3, 2, 1, 1, 1, 0, 0, 1},     /* mobilenet_v2_quant's stem */
    {0, 1, 20, 22, 16, 96, 1, 1, 1, 1, 1, 1, 0, 0, 1},    /* its 1x1 expansions */
    {0, 1, 9, 13, 37, 21, 1, 1, 1, 1, 1, 1, 0, 1, 1},     /* partial blocks on both sides, far zp */
    {0, 2, 12, 11, 12, 20, 3, 3, 1, 2, 0, 0, 0, 1, 1},    /* int8, dilation 2, VALID, batch 2 */
    {0, 1, 10, 10, 8, 16, 3, 3, 1, 1, 1, 0, 1, 0, 1},     /* int8 per-channel */
    {0, 1, 17, 19, 5, 9, 5, 5, 3, 1, 1, 1, 0, 0, 0},      /* 5x5 stride 3, no bias */
    {0, 1, 6, 7, 200, 24, 3, 3, 1, 1, 1, 1, 0, 0, 1},     /* a 1800-value window */
    {0, 1, 8, 9, 4, 1, 3, 5, 2, 1, 0, 0, 0, 1, 1},        /* one output channel, 3x5 */
    {1, 1, 23, 31, 96, 0, 3, 3, 1, 1, 1, 1, 0, 0, 1},     /* depthwise 3x3 */
    {1, 1, 20, 21, 144, 0, 3, 3, 2, 1, 1, 1, 0, 1, 1},    /* stride 2, far zp */
    {1, 2, 9, 10, 13, 0, 3, 3, 1, 2, 0, 0, 0, 1, 1},      /* int8, dilation 2, 13 channels */
    {1, 1, 12, 13, 5, 0, 5, 5, 1, 1, 1, 0, 1, 0, 0},      /* int8 per-channel 5x5, no bias */
    {1, 1, 8, 8, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 1},        /* 1 channel, 1x1 */
    {1, 1, 11, 15, 40, 0, 3, 5, 3, 1, 0, 1, 0, 0, 1},     /* 3x5 stride 3 VALID: 16 + 16 + 8 */
    {1, 1, 10, 9, 52, 0, 3, 3, 2, 1, 1, 0, 0, 1, 1},      /* int8, 16-channel passes and a tail of 4 */
  };
  const tfl_activation acts[] = {TFL_ACT_NONE, TFL_ACT_RELU, TFL_ACT_RELU_N1_TO_1, TFL_ACT_RELU6};
#if defined(__aarch64__)
  /* Cortex-A76 (the stage's CPU) has the dot products: a detection that missed them fails */
  if (getenv("TFL_EXPECT_DOTPROD") && !cpu_features_detect().dotprod) {
    fprintf(stderr, "FAIL TFL_EXPECT_DOTPROD is set but cpu_features_detect found no dot products\n");
    failures++;
  }
#endif
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (size_t a = 0; a < 4; a++) run_case(&cases[i], acts[a]);
  check_left("2 groups", &(nq_case){0, 1, 8, 8, 8, 8, 3, 3, 1, 1, 1, 1, 0, 0, 1}, 2);
  check_left("a 4608-value window", &(nq_case){0, 1, 4, 4, 512, 8, 3, 3, 1, 1, 1, 1, 0, 0, 1}, 1);
  check_left("a 9x9 depthwise (81 taps)", &(nq_case){1, 1, 12, 12, 8, 0, 9, 9, 1, 1, 1, 1, 0, 0, 1}, 1);
  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("OK: %zu shapes x 4 activations, fast-path choice checked; %d compared with the reference "
         "(%d runs: 1-3 threads, conv paths: %s), worst 0 LSB; 3 refusals\n",
         sizeof cases / sizeof cases[0], compared, runs, cpu_features_detect().dotprod ? "dotprod, int16" : "int16");
  return 0;
}
