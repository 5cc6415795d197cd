/* test_fc_tconv_q8.c - the fast path's 8-bit FULLY_CONNECTED (fc_q8.c) and TRANSPOSE_CONV
 * (tconv_q8.c) against the reference kernels, stored bytes equal (0 LSB): uint8 with
 * per-tensor weights (zero points near 128), int8 with per-channel scales; unit counts
 * around the 16-column blocks (1, 15, 16, 17, 1000), input sizes not a multiple of 4,
 * batches 1-5 (the VNNI path's groups of 4 rows), every clamp activation, with and without
 * bias; transposed convs 2x2 / 3x3 / 4x4 stride 1-2 SAME and VALID, batch 2; weight zero
 * points far from the product's offset (uint8 far from 128, int8 not 0). Each on every
 * path this machine has (AVX-512 VNNI, portable C) and 1-3 threads. A float node is left
 * to the others. */
#include "conv_test_util.h"

#include "../../delegates/cpu/cpu_features.h"
#include "../../delegates/cpu/kernels/fc_q8.h"
#include "../../delegates/cpu/kernels/tconv_q8.h"

static int failures, runs;

typedef struct {
  int batches, k, units, is_u8, per_channel, bias;
} fc_case;

static void build_fc(op_runner *r, const fc_case *c, tfl_activation act, bool far_zp, int *yt)
{
  const size_t nx = (size_t)c->batches * c->k, nw = (size_t)c->units * c->k;
  const tfl_type type = c->is_u8 ? TFL_TYPE_UINT8 : TFL_TYPE_INT8;
  void *x = malloc(nx), *w = malloc(nw);
  int32_t *b = malloc(sizeof(int32_t) * (size_t)c->units);
  test_fill_bytes(x, nx, c->is_u8);
  test_fill_bytes(w, nw, c->is_u8);
  for (int i = 0; i < c->units; i++) b[i] = test_rand_int(-30000, 30000);
  op_runner_init(r, TFL_OP_FULLY_CONNECTED);
  int xt = op_runner_tensor(r, type, 2, (int32_t[]){c->batches, c->k}, x, false);
  int wt = op_runner_tensor(r, type, 2, (int32_t[]){c->units, c->k}, w, true);
  int bt = c->bias ? op_runner_tensor(r, TFL_TYPE_INT32, 1, (int32_t[]){c->units}, b, true) : -1;
  *yt = op_runner_tensor(r, type, 2, (int32_t[]){c->batches, c->units}, NULL, false);
  const int32_t tlo = c->is_u8 ? 0 : -128, thi = c->is_u8 ? 255 : 127;
  const float xs = test_uniform(0.01f, 0.05f), ys = test_uniform(0.05f, 0.5f);
  const int32_t xz = test_rand_int(tlo, thi), yz = test_rand_int(tlo + 40, thi - 40);
  op_runner_quant(r, xt, 1, &xs, &xz, 0);
  op_runner_quant(r, *yt, 1, &ys, &yz, 0);
  test_q8_weights_io(r, xt, wt, bt, *yt, c->per_channel ? c->units : 1, 0, c->is_u8, far_zp, xs, 1.0f);
  r->node.p.fc = (tfl_fc_params){act, false, false};
  free(x), free(w), free(b);
}

typedef struct {
  int n, h, w, ic, oc, k, stride, same, is_u8, per_channel, bias;
} tc_case;

static void build_tc(op_runner *r, const tc_case *c, tfl_activation act, bool far_zp, int *yt)
{
  const int oh = c->same ? c->h * c->stride : (c->h - 1) * c->stride + c->k;
  const int ow = c->same ? c->w * c->stride : (c->w - 1) * c->stride + c->k;
  const size_t nx = (size_t)c->n * c->h * c->w * c->ic, nw = (size_t)c->oc * c->k * c->k * c->ic;
  const tfl_type type = c->is_u8 ? TFL_TYPE_UINT8 : TFL_TYPE_INT8;
  void *x = malloc(nx), *w = malloc(nw);
  int32_t *b = malloc(sizeof(int32_t) * (size_t)c->oc);
  test_fill_bytes(x, nx, c->is_u8);
  test_fill_bytes(w, nw, c->is_u8);
  for (int i = 0; i < c->oc; i++) b[i] = test_rand_int(-20000, 20000);
  op_runner_init(r, TFL_OP_TRANSPOSE_CONV);
  const int32_t shape[4] = {c->n, oh, ow, c->oc};
  int st = op_runner_tensor(r, TFL_TYPE_INT32, 1, (int32_t[]){4}, shape, true);
  int wt = op_runner_tensor(r, type, 4, (int32_t[]){c->oc, c->k, c->k, c->ic}, w, true);
  int xt = op_runner_tensor(r, type, 4, (int32_t[]){c->n, c->h, c->w, c->ic}, x, false);
  int bt = c->bias ? op_runner_tensor(r, TFL_TYPE_INT32, 1, (int32_t[]){c->oc}, b, true) : -1;
  *yt = op_runner_tensor(r, type, 4, shape, NULL, false);
  const int32_t tlo = c->is_u8 ? 0 : -128, thi = c->is_u8 ? 255 : 127;
  const float xs = test_uniform(0.01f, 0.05f), ys = test_uniform(0.05f, 0.3f);
  const int32_t xz = test_rand_int(tlo, thi), yz = test_rand_int(tlo + 40, thi - 40);
  op_runner_quant(r, xt, 1, &xs, &xz, 0);
  op_runner_quant(r, *yt, 1, &ys, &yz, 0);
  test_q8_weights_io(r, xt, wt, bt, *yt, c->per_channel ? c->oc : 1, 0, c->is_u8, far_zp, xs, 1.0f);
  /* TRANSPOSE_CONV's inputs: output_shape, weights, input[, bias] */
  if (bt >= 0)
    op_runner_io(r, (int[]){st, wt, xt, bt}, 4, (int[]){*yt}, 1);
  else
    op_runner_io(r, (int[]){st, wt, xt}, 3, (int[]){*yt}, 1);
  r->node.p.conv = (tfl_conv_params){c->same ? TFL_PAD_SAME : TFL_PAD_VALID, c->stride, c->stride, 1, 1, 1, act};
  free(x), free(w), free(b);
}

static void compare(op_runner *r, int yt, bool taken, const cpu_kernel *k,
                    void (*use_isa)(void *, const cpu_features *), const cpu_features *paths,
                    const char *const *names, int n_paths, const char *what)
{
  uint8_t *want = test_reference_output(r, yt, taken, what);
  if (!want) {
    failures++;
    return;
  }
  const test_fast_kernel f = {k, use_isa, NULL, NULL};
  failures += test_fast_paths(&f, &r->graph, &r->node, yt, want, paths, names, n_paths, what, &runs);
  free(want);
}

int main(void)
{
  static const fc_case fcs[] = {
    /* batches, k, units, u8, per-channel, bias */
    {1, 1280, 1000, 0, 1, 1},   /* MobileNetV2's int8 classifier head */
    {1, 1024, 1001, 1, 0, 1},   /* uint8 head (mobilenet_v1 quant) */
    {3, 37, 17, 0, 1, 1},       /* k % 4 = 1, a block and one column */
    {5, 16, 16, 1, 0, 0},       /* 5 rows: a group of 4 and one; no bias */
    {4, 3, 15, 0, 0, 1},        /* tiny k */
    {2, 130, 1, 0, 1, 1},       /* one unit */
  };
  static const tc_case tcs[] = {
    /* n, h, w, ic, oc, k, stride, same, u8, per-channel, bias */
    {1, 8, 9, 16, 8, 2, 2, 1, 0, 1, 1},   /* a UNet's 2x upsampling, int8 */
    {2, 5, 7, 13, 20, 3, 2, 1, 1, 0, 1},  /* 3x3 stride 2 SAME, uint8, batch 2 */
    {1, 6, 5, 9, 17, 4, 2, 0, 0, 1, 0},   /* 4x4 VALID, no bias */
    {1, 4, 4, 32, 300, 3, 1, 1, 0, 1, 1}, /* stride 1, more than 256 output channels */
  };
  const tfl_activation acts[] = {TFL_ACT_NONE, TFL_ACT_RELU, TFL_ACT_RELU_N1_TO_1, TFL_ACT_RELU6};
  const cpu_features cpu = cpu_features_detect();
  cpu_features paths[2];
  const char *names[2];
  int n_paths = 0;
  if (cpu.avx512_vnni) paths[n_paths] = cpu, names[n_paths++] = "avx512-vnni";
  paths[n_paths] = cpu_features_none(), names[n_paths++] = "portable";
  char what[160];
  for (size_t i = 0; i < sizeof fcs / sizeof fcs[0]; i++)
    for (size_t a = 0; a < 4; a++) {
      const fc_case *c = &fcs[i];
      op_runner r;
      int yt;
      build_fc(&r, c, acts[a], false, &yt);
      snprintf(what, sizeof what, "fc %s %dx%d -> %d %s%s act %d", c->is_u8 ? "u8" : "i8", c->batches, c->k, c->units,
               c->per_channel ? "per-channel" : "per-tensor", c->bias ? "" : " no-bias", acts[a]);
      compare(&r, yt, cpu_fc_q8_fits(&r.graph, &r.node), &cpu_k_fc_q8, cpu_fc_q8_use_isa, paths, names, n_paths, what);
      op_runner_free(&r);
    }
  for (size_t i = 0; i < sizeof tcs / sizeof tcs[0]; i++)
    for (size_t a = 0; a < 4; a++) {
      const tc_case *c = &tcs[i];
      op_runner r;
      int yt;
      build_tc(&r, c, acts[a], false, &yt);
      snprintf(what, sizeof what, "tconv %s %dx%dx%dx%d -> %d k%d s%d %s %s act %d", c->is_u8 ? "u8" : "i8", c->n,
               c->h, c->w, c->ic, c->oc, c->k, c->stride, c->same ? "same" : "valid",
               c->per_channel ? "per-channel" : "per-tensor", acts[a]);
      compare(&r, yt, cpu_tconv_q8_fits(&r.graph, &r.node), &cpu_k_tconv_q8, cpu_tconv_q8_use_isa, paths, names,
              n_paths, what);
      op_runner_free(&r);
    }
  /* weight zero points far from the gemm's offset (uint8 far from 128, int8 not 0): the
   * correction term carries them */
  op_runner r;
  int yt;
  build_fc(&r, &(fc_case){3, 64, 40, 1, 0, 1}, TFL_ACT_RELU, true, &yt);
  compare(&r, yt, cpu_fc_q8_fits(&r.graph, &r.node), &cpu_k_fc_q8, cpu_fc_q8_use_isa, paths, names, n_paths,
          "fc u8 far zero point");
  op_runner_free(&r);
  build_fc(&r, &(fc_case){2, 50, 33, 0, 1, 1}, TFL_ACT_NONE, true, &yt);
  compare(&r, yt, cpu_fc_q8_fits(&r.graph, &r.node), &cpu_k_fc_q8, cpu_fc_q8_use_isa, paths, names, n_paths,
          "fc i8 weight zero points");
  op_runner_free(&r);
  build_tc(&r, &(tc_case){1, 5, 6, 8, 12, 2, 2, 1, 1, 0, 1}, TFL_ACT_NONE, true, &yt);
  compare(&r, yt, cpu_tconv_q8_fits(&r.graph, &r.node), &cpu_k_tconv_q8, cpu_tconv_q8_use_isa, paths, names, n_paths,
          "tconv u8 far zero point");
  op_runner_free(&r);
  /* a float FULLY_CONNECTED is not this kernel's */
  op_runner_init(&r, TFL_OP_FULLY_CONNECTED);
  float xf[8] = {0}, wf[16] = {0};
  int xt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){1, 8}, xf, false);
  int wt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){2, 8}, wf, true);
  yt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){1, 2}, NULL, false);
  op_runner_io(&r, (int[]){xt, wt}, 2, (int[]){yt}, 1);
  if (cpu_fc_q8_fits(&r.graph, &r.node)) fprintf(stderr, "FAIL fc: takes a float node\n"), failures++;
  op_runner_free(&r);
  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("OK: %d runs (%zu FC + %zu transposed-conv shapes x 4 activations x %d paths x 1-3 threads), worst 0 LSB; "
         "3 zero-point cases, 1 refusal\n", runs, sizeof fcs / sizeof fcs[0], sizeof tcs / sizeof tcs[0], n_paths);
  return 0;
}
