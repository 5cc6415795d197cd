/* test_conv_q8_stem.c - the fast path's 8-bit CONV_2D for few input channels against the
 * reference CONV_2D kernel: uint8 (per-tensor weights, zero points near 128 and far from
 * it: the shifted-weights path) and int8 (per-channel scales, and weight zero points),
 * 1-4 input channels (1x1: up to 64), 3x3 / 5x5 / 1x1 / 2x2 / 3x5 filters (windows of 3
 * to 64 bytes),
 * strides 1-3, dilation 2, SAME and VALID, batch 2, 1 to 128 output channels (whole and
 * partial 16-channel blocks), rows wider than a tile, every clamp activation, random zero
 * points; each on every path this machine has (AVX-512 VNNI, portable C) and 1-3 threads.
 * Also a PAD fused in front (cpu_conv_q8_stem_fuse_pad: the PAD's input read, padded with
 * the zero point). Worst element: 0 LSB. Also which nodes the fast path gives it. */
#include "conv_test_util.h"

#include "../../delegates/cpu/cpu_features.h"
#include "../../delegates/cpu/kernels/conv_q8_stem.h"

typedef struct {
  int n, h, w, ic, oc, kh, kw, stride, dil, same, is_u8, per_channel, far_zp, bias;
  int pad_t, pad_l, pad_b, pad_r; /* a fused PAD in front: the conv's input is h x w padded */
} st_case;

static int failures, runs;

/* The conv of case c on the padded input (the reference's), random data, scales and zero
 * points; *small: the unpadded input tensor (the PAD's), *pads: its paddings. */
static void build(op_runner *r, const st_case *c, tfl_activation act, int *yt, int *small, int *pads)
{
  const int H = c->h + c->pad_t + c->pad_b, W = c->w + c->pad_l + c->pad_r;
  const int oh = test_out_size(c->same, H, c->kh, c->stride, c->dil);
  const int ow = test_out_size(c->same, W, c->kw, c->stride, c->dil);
  const size_t ns = (size_t)c->n * c->h * c->w * c->ic, nx = (size_t)c->n * H * W * c->ic;
  const size_t nw = (size_t)c->oc * c->kh * c->kw * c->ic;
  const tfl_type type = c->is_u8 ? TFL_TYPE_UINT8 : TFL_TYPE_INT8;
  const int32_t tlo = c->is_u8 ? 0 : -128, thi = c->is_u8 ? 255 : 127;
  const int32_t xz = test_rand_int(tlo, thi), yz = test_rand_int(tlo + 40, thi - 40);
  uint8_t *xs = malloc(ns), *x = malloc(nx), *w = malloc(nw);
  int32_t *b = malloc(sizeof(int32_t) * (size_t)c->oc);
  test_fill_bytes(xs, ns, c->is_u8);
  test_fill_bytes(w, nw, c->is_u8);
  for (int i = 0; i < c->oc; i++) b[i] = test_rand_int(-20000, 20000);
  for (int bi = 0; bi < c->n; bi++) /* the PAD's output: the zero point around xs */
    for (int y = 0; y < H; y++)
      for (int xx = 0; xx < W; xx++)
        for (int k = 0; k < c->ic; k++) {
          const int sy = y - c->pad_t, sx = xx - c->pad_l;
          const bool in = sy >= 0 && sy < c->h && sx >= 0 && sx < c->w;
          x[(((size_t)bi * H + y) * W + xx) * c->ic + k] =
              in ? xs[(((size_t)bi * c->h + sy) * c->w + sx) * c->ic + k] : (uint8_t)xz;
        }
  op_runner_init(r, TFL_OP_CONV_2D);
  int xt = op_runner_tensor(r, type, 4, (int32_t[]){c->n, H, W, c->ic}, x, false);
  int wt = op_runner_tensor(r, type, 4, (int32_t[]){c->oc, c->kh, c->kw, c->ic}, w, true);
  int bt = c->bias ? op_runner_tensor(r, TFL_TYPE_INT32, 1, (int32_t[]){c->oc}, b, true) : -1;
  *yt = op_runner_tensor(r, type, 4, (int32_t[]){c->n, oh, ow, c->oc}, NULL, false);
  *small = op_runner_tensor(r, type, 4, (int32_t[]){c->n, c->h, c->w, c->ic}, xs, false);
  *pads = op_runner_tensor(r, TFL_TYPE_INT32, 2, (int32_t[]){4, 2},
                           (int32_t[]){0, 0, c->pad_t, c->pad_b, c->pad_l, c->pad_r, 0, 0}, true);
  const float xscale = test_uniform(0.01f, 0.05f), ys = test_uniform(0.05f, 0.3f);
  op_runner_quant(r, xt, 1, &xscale, &xz, 0);
  op_runner_quant(r, *small, 1, &xscale, &xz, 0);
  op_runner_quant(r, *yt, 1, &ys, &yz, 0);
  test_q8_weights_io(r, xt, wt, bt, *yt, c->per_channel ? c->oc : 1, 0, c->is_u8, c->far_zp, xscale,
                     (float)(c->kh * c->kw * c->ic));
  r->node.p.conv = (tfl_conv_params){c->same ? TFL_PAD_SAME : TFL_PAD_VALID, c->stride, c->stride, c->dil, c->dil,
                                     1, act};
  free(xs), free(x), free(w), free(b);
}

/* test_fast_kernel.after_prepare: fuse the PAD, node 1 of the graph. */
static tfl_status fuse_pad(void *state, const tfl_graph *g, const void *arg, tfl_diag *diag)
{
  (void)arg;
  return cpu_conv_q8_stem_fuse_pad(state, g, 1, diag);
}

static void run_case(const st_case *c, tfl_activation act, const cpu_features *paths, const char *const *names,
                     int n_paths)
{
  op_runner r;
  int yt, small, pads;
  build(&r, c, act, &yt, &small, &pads);
  const bool fused = c->pad_t || c->pad_l || c->pad_b || c->pad_r;
  char what[200];
  snprintf(what, sizeof what, "%s %dx%dx%dx%d -> %d k%dx%d s%d d%d %s %s%s%s act %d pad %d,%d,%d,%d",
           c->is_u8 ? "u8" : "i8", c->n, c->h, c->w, c->ic, c->oc, c->kh, c->kw, c->stride, c->dil,
           c->same ? "same" : "valid", c->per_channel ? "per-channel" : "per-tensor", c->far_zp ? " far-zp" : "",
           c->bias ? "" : " no-bias", act, c->pad_t, c->pad_l, c->pad_b, c->pad_r);
  uint8_t *want = test_reference_output(&r, yt, cpu_conv_q8_stem_fits(&r.graph, &r.node), what);
  if (!want) {
    failures++;
    op_runner_free(&r);
    return;
  }
  /* with a PAD: a two-node graph, the PAD (small -> the conv's input) and the conv */
  tfl_node nodes[2] = {r.node, {0}};
  nodes[1].op = TFL_OP_PAD;
  nodes[1].n_in = 2;
  nodes[1].n_out = 1;
  nodes[1].in = (int32_t[]){small, pads};
  nodes[1].out = (int32_t[]){r.node.in[0]};
  tfl_graph g2 = r.graph;
  g2.nodes = nodes;
  g2.n_nodes = 2;
  tfl_graph *g = fused ? &g2 : &r.graph;
  if (fused) memset(r.graph.tensors[r.node.in[0]].data, 0x33, r.graph.tensors[r.node.in[0]].bytes);
  const test_fast_kernel f = {&cpu_k_conv_q8_stem, cpu_conv_q8_stem_use_isa, fused ? fuse_pad : NULL, NULL};
  failures += test_fast_paths(&f, g, &nodes[0], yt, want, paths, names, n_paths, what, &runs);
  free(want);
  op_runner_free(&r);
}

/* A node the kernel must leave to the others. */
static void check_left(const char *why, const st_case *c)
{
  op_runner r;
  int yt, small, pads;
  build(&r, c, TFL_ACT_NONE, &yt, &small, &pads);
  if (cpu_conv_q8_stem_fits(&r.graph, &r.node)) {
    fprintf(stderr, "FAIL refusal (%s): the kernel takes it\n", why);
    failures++;
  }
  op_runner_free(&r);
}

int main(void)
{
  static const st_case cases[] = {
    /* n, h, w, ic, oc, kh, kw, stride, dil, same, u8, per-channel, far zp, bias, pads t l b r */
    {1, 29, 41, 3, 24, 3, 3, 2, 1, 0, 0, 0, 0, 1, 0, 0, 1, 1}, /* posenet's stem: int8, a PAD, VALID */
    {1, 30, 30, 3, 32, 3, 3, 2, 1, 1, 1, 0, 1, 1, 0, 0, 0, 0}, /* mobilenet_v2_quant's: shifted uint8 */
    {1, 31, 27, 3, 24, 3, 3, 2, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0}, /* coco_ssd's, odd size */
    {2, 17, 19, 1, 8, 3, 3, 1, 1, 1, 0, 1, 0, 1, 0, 0, 0, 0}, /* 1 channel, batch 2, int8 per-channel */
    {1, 9, 70, 4, 128, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0}, /* 4 channels, 128 outputs, 3 tiles */
    {1, 12, 13, 2, 5, 5, 5, 1, 1, 1, 0, 1, 1, 0, 0, 0, 0, 0}, /* 5x5x2 (50 bytes), int8 weight zps, no bias */
    {1, 14, 15, 4, 17, 4, 4, 3, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0}, /* 4x4x4: the 64-byte window, stride 3 */
    {1, 8, 8, 3, 16, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0},   /* 1x1: a 3-byte window */
    {1, 7, 10, 3, 40, 2, 2, 2, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0},  /* even filter, SAME: padding at the end */
    {1, 16, 18, 3, 30, 3, 5, 1, 2, 1, 1, 1, 1, 1, 0, 0, 0, 0}, /* 3x5 dilation 2, shifted per-channel, 16 + 14 */
    {1, 20, 100, 3, 33, 3, 3, 2, 1, 1, 1, 0, 0, 1, 2, 1, 0, 3}, /* a PAD on every side, then SAME */
    /* 1x1 convs with up to 64 input channels (posenet's 24 -> 48, mobilenet_v2's 16 -> 96) */
    {1, 19, 45, 24, 48, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0},
    {1, 12, 37, 16, 96, 1, 1, 1, 1, 1, 1, 0, 1, 1, 0, 0, 0, 0}, /* shifted uint8 */
    {2, 9, 13, 64, 128, 1, 1, 2, 1, 0, 1, 1, 1, 1, 0, 0, 0, 0}, /* 64 bytes, stride 2 */
    {1, 7, 33, 37, 40, 1, 1, 1, 1, 1, 0, 1, 1, 0, 0, 0, 0, 0}, /* 37: a partial group */
  };
  const tfl_activation acts[] = {TFL_ACT_NONE, TFL_ACT_RELU, TFL_ACT_RELU_N1_TO_1, TFL_ACT_RELU6};
  const cpu_features cpu = cpu_features_detect();
  cpu_features paths[2];
  const char *names[2];
  int n_paths = 0;
  if (cpu.avx512_vnni) paths[n_paths] = cpu, names[n_paths++] = "avx512-vnni";
  paths[n_paths] = cpu_features_none(), names[n_paths++] = "portable";
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (size_t a = 0; a < 4; a++) run_case(&cases[i], acts[a], paths, names, n_paths);
  check_left("5 input channels, 3x3", &(st_case){1, 10, 10, 5, 16, 3, 3, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0});
  check_left("1x1, 65 input channels", &(st_case){1, 10, 10, 65, 16, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0});
  check_left("a 75-byte window", &(st_case){1, 10, 10, 3, 16, 5, 5, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0});
  check_left("129 outputs", &(st_case){1, 10, 10, 3, 129, 3, 3, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0});
  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("OK: %d runs (%zu shapes x 4 activations x %d paths x 1-3 threads), worst 0 LSB; 4 refusals\n", runs,
         sizeof cases / sizeof cases[0], n_paths);
  return 0;
}
