/* test_dwconv_q8.c - the fast path's 8-bit DEPTHWISE_CONV_2D against the reference
 * DEPTHWISE_CONV_2D kernel: uint8 (per-tensor weights, zero points near 128 and far from
 * it: the shifted-weights path) and int8 (per-channel scales), 3x3 / 5x5 / 1x1 / 3x5 / 2x2
 * filters, strides 1-3, SAME and VALID, batch 2, channel counts from 1 to 384 (every block
 * width: 64-channel blocks, partial ones, narrow 32-channel ones alone and after full
 * blocks), wide rows (several ring tiles), every clamp activation, random zero points;
 * each on every path this machine has (AVX-512 VNNI, AVX-512 without VNNI, portable C)
 * and 1-3 threads. Worst element: 0 LSB. Also which nodes the fast path gives it. */
#include "conv_test_util.h"

#include "../../delegates/cpu/cpu_features.h"
#include "../../delegates/cpu/kernels/dwconv_q8.h"

typedef struct {
  int n, h, w, c, kh, kw, stride, same, is_u8, per_channel, far_zp, bias;
} dq_case;

static int failures, runs;

/* The node of case c: random data, scales and zero points. */
static void build(op_runner *r, const dq_case *c, tfl_activation act, int *yt)
{
  const int oh = test_out_size(c->same, c->h, c->kh, c->stride, 1);
  const int ow = test_out_size(c->same, c->w, c->kw, c->stride, 1);
  const size_t nx = (size_t)c->n * c->h * c->w * c->c, nw = (size_t)c->kh * c->kw * c->c;
  const tfl_type type = c->is_u8 ? TFL_TYPE_UINT8 : TFL_TYPE_INT8;
  void *x = malloc(nx), *w = malloc(nw);
  int32_t *b = malloc(sizeof(int32_t) * (size_t)c->c);
  test_fill_bytes(x, nx, c->is_u8);
  test_fill_bytes(w, nw, c->is_u8);
  for (int i = 0; i < c->c; i++) b[i] = test_rand_int(-20000, 20000);
  op_runner_init(r, TFL_OP_DEPTHWISE_CONV_2D);
  int xt = op_runner_tensor(r, type, 4, (int32_t[]){c->n, c->h, c->w, c->c}, x, false);
  int wt = op_runner_tensor(r, type, 4, (int32_t[]){1, c->kh, c->kw, c->c}, w, true);
  int bt = c->bias ? op_runner_tensor(r, TFL_TYPE_INT32, 1, (int32_t[]){c->c}, b, true) : -1;
  *yt = op_runner_tensor(r, type, 4, (int32_t[]){c->n, oh, ow, c->c}, NULL, false);
  const int32_t tlo = c->is_u8 ? 0 : -128, thi = c->is_u8 ? 255 : 127;
  const float xs = test_uniform(0.01f, 0.05f), ys = test_uniform(0.05f, 0.3f);
  const int32_t xz = test_rand_int(tlo, thi), yz = test_rand_int(tlo + 40, thi - 40);
  op_runner_quant(r, xt, 1, &xs, &xz, 0);
  op_runner_quant(r, *yt, 1, &ys, &yz, 0);
  test_q8_weights_io(r, xt, wt, bt, *yt, c->per_channel ? c->c : 1, 3, c->is_u8, c->far_zp, xs, 1.0f);
  r->node.p.conv = (tfl_conv_params){c->same ? TFL_PAD_SAME : TFL_PAD_VALID, c->stride, c->stride, 1, 1, 1, act};
  free(x), free(w), free(b);
}

static void run_case(const dq_case *c, tfl_activation act, const cpu_features *paths, const char *const *names,
                     int n_paths)
{
  op_runner r;
  int yt;
  build(&r, c, act, &yt);
  char what[160];
  snprintf(what, sizeof what, "%s %dx%dx%dx%d k%dx%d s%d %s %s%s%s act %d", c->is_u8 ? "u8" : "i8", c->n, c->h, c->w,
           c->c, c->kh, c->kw, c->stride, c->same ? "same" : "valid", c->per_channel ? "per-channel" : "per-tensor",
           c->far_zp ? " far-zp" : "", c->bias ? "" : " no-bias", act);
  uint8_t *want = test_reference_output(&r, yt, cpu_dwconv_q8_fits(&r.graph, &r.node), what);
  if (!want) {
    failures++;
    op_runner_free(&r);
    return;
  }
  const test_fast_kernel f = {&cpu_k_dwconv_q8, cpu_dwconv_q8_use_isa, NULL, NULL};
  failures += test_fast_paths(&f, &r.graph, &r.node, yt, want, paths, names, n_paths, what, &runs);
  free(want);
  op_runner_free(&r);
}

/* A node the kernel must leave to the others. */
static void check_left(const char *why, const dq_case *c, int dilation, bool mult2)
{
  op_runner r;
  int yt;
  build(&r, c, TFL_ACT_NONE, &yt);
  r.node.p.conv.dilation_h = r.node.p.conv.dilation_w = dilation;
  if (mult2) r.graph.tensors[r.node.in[1]].dims[3] = 2 * c->c; /* depth multiplier 2 */
  if (cpu_dwconv_q8_fits(&r.graph, &r.node)) {
    fprintf(stderr, "FAIL refusal (%s): the kernel takes it\n", why);
    failures++;
  }
  op_runner_free(&r);
}

int main(void)
{
  static const dq_case cases[] = {
    /* n, h, w, c, kh, kw, stride, same, u8, per-channel, far zp, bias */
    {1, 23, 31, 384, 3, 3, 1, 1, 1, 0, 0, 1},  /* posenet's deep layers */
    {1, 40, 57, 24, 3, 3, 1, 1, 1, 0, 0, 1},   /* 24 channels: a partial block */
    {1, 41, 60, 48, 3, 3, 2, 1, 1, 0, 0, 1},   /* stride 2, odd size */
    {1, 30, 33, 96, 3, 3, 2, 1, 1, 0, 1, 1},   /* shifted weights (mobilenet_v2_quant) */
    {2, 17, 19, 200, 3, 3, 1, 0, 0, 1, 0, 1},  /* int8 per-channel, VALID, batch 2, 200 channels */
    {1, 12, 13, 5, 5, 5, 1, 1, 0, 1, 0, 0},    /* 5x5 (two tap groups), 5 channels, no bias */
    {1, 16, 300, 16, 3, 3, 1, 1, 1, 1, 1, 1},  /* wide rows: several tiles; u8 per-channel shifted */
    {1, 9, 11, 70, 3, 5, 3, 0, 0, 1, 1, 1},    /* 3x5 stride 3 VALID; int8 weight zero points */
    {1, 8, 8, 1, 1, 1, 1, 1, 1, 0, 0, 1},      /* 1 channel, 1x1 */
    {1, 7, 10, 64, 2, 2, 2, 1, 0, 0, 0, 1},    /* even filter, SAME: padding at the end only */
    /* block widths: 64 channels in 512-bit vectors, a last block of <= 32 in 256-bit ones */
    {1, 13, 17, 8, 3, 3, 1, 1, 0, 1, 0, 1},    /* 8 channels: one narrow block, int8 per-channel */
    {1, 11, 150, 32, 3, 3, 1, 1, 1, 0, 1, 1},  /* 32: a full narrow block, shifted, 3 tiles */
    {1, 15, 14, 40, 5, 5, 2, 1, 1, 0, 0, 1},   /* 40: a partial wide block, 5x5 stride 2 */
    {1, 12, 12, 144, 3, 3, 1, 1, 1, 0, 1, 1},  /* 144 = 2 x 64 + 16 (mobilenet_v2_quant) */
    {2, 10, 9, 88, 3, 3, 2, 0, 0, 1, 1, 1},    /* 88 = 64 + 24: a narrow tail after a full block */
    {1, 9, 21, 120, 3, 5, 1, 1, 1, 1, 0, 1},   /* 120 = 64 + 56: a wide partial tail, 3x5 */
  };
  const tfl_activation acts[] = {TFL_ACT_NONE, TFL_ACT_RELU, TFL_ACT_RELU_N1_TO_1, TFL_ACT_RELU6};
  const cpu_features cpu = cpu_features_detect();
  cpu_features paths[3];
  const char *names[3];
  int n_paths = 0;
  if (cpu.avx512_vnni) paths[n_paths] = cpu, names[n_paths++] = "avx512-vnni";
  if (cpu.avx512) {
    paths[n_paths] = cpu;
    paths[n_paths].avx512_vnni = false;
    names[n_paths++] = "avx512";
  }
  paths[n_paths] = cpu_features_none(), names[n_paths++] = "portable";
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (size_t a = 0; a < 4; a++) run_case(&cases[i], acts[a], paths, names, n_paths);
  check_left("dilation 2", &(dq_case){1, 20, 20, 32, 3, 3, 1, 1, 1, 0, 0, 1}, 2, false);
  check_left("depth multiplier 2", &(dq_case){1, 20, 20, 32, 3, 3, 1, 1, 1, 0, 0, 1}, 1, true);
  check_left("7x7 (14 rows of tap groups)", &(dq_case){1, 20, 20, 32, 7, 7, 1, 1, 1, 0, 0, 1}, 1, false);
  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("OK: %d runs (%zu shapes x 4 activations x %d paths x 1-3 threads), worst 0 LSB; 3 refusals\n", runs,
         sizeof cases / sizeof cases[0], n_paths);
  return 0;
}
