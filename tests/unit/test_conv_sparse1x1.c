/* test_conv_sparse1x1.c - the sparse 1x1 CONV_2D kernel of the fast path against the
 * reference CONV_2D kernel on random weights with 72-95% zeros: odd channel counts, pixel
 * counts that leave partial tiles, every clamp activation, 1 and 2 threads; tolerance
 * 1e-5 relative (|d| <= 1e-5 * max(1, |want|): the sums run in another order). Also
 * checks which convs the fast path gives the kernel (large enough ones) and that XNNPACK
 * then leaves them to it, and which it leaves to XNNPACK.
 * On a CPU without AVX-512 (any arm64, older x86) the kernel must never be chosen: it
 * checks that XNNPACK keeps every one of those convs instead. */
#include "conv_test_util.h"

#include <string.h>

#include "../../delegates/cpu/kernels/conv_sparse1x1.h"
#include "../../delegates/cpu/xnn_partition.h"

typedef struct {
  int n, h, w, ic, oc;
  float zeros; /* share of weights set to zero */
  int bias;
} sp_case;

static int failures;

/* One-node CONV_2D graph for case c (1x1 filter, stride 1 unless kh/stride say otherwise). */
static int build(op_runner *r, const sp_case *c, int kh, int stride, tfl_activation act, int *yt)
{
  int oh = (c->h + stride - 1) / stride, ow = (c->w + stride - 1) / stride;
  size_t nx = (size_t)c->n * c->h * c->w * c->ic, nw = (size_t)c->oc * kh * kh * c->ic;
  float *x = malloc(nx * 4), *w = malloc(nw * 4), *b = malloc((size_t)c->oc * 4);
  test_fill(x, nx, -1, 1);
  for (size_t i = 0; i < nw; i++) {
    float u = test_uniform(0, 1), v = test_uniform(-0.5f, 0.5f);
    w[i] = u < c->zeros ? 0.0f : v;
  }
  test_fill(b, (size_t)c->oc, -0.5f, 0.5f);
  op_runner_init(r, TFL_OP_CONV_2D);
  int xt = op_runner_tensor(r, TFL_TYPE_FLOAT32, 4, (int32_t[]){c->n, c->h, c->w, c->ic}, x, false);
  int wt = op_runner_tensor(r, TFL_TYPE_FLOAT32, 4, (int32_t[]){c->oc, kh, kh, c->ic}, w, true);
  int bt = c->bias ? op_runner_tensor(r, TFL_TYPE_FLOAT32, 1, (int32_t[]){c->oc}, b, true) : -1;
  *yt = op_runner_tensor(r, TFL_TYPE_FLOAT32, 4, (int32_t[]){c->n, oh, ow, c->oc}, NULL, false);
  op_runner_io(r, (int[]){xt, wt, bt}, 3, (int[]){*yt}, 1);
  r->node.p.conv = (tfl_conv_params){TFL_PAD_SAME, stride, stride, 1, 1, 1, act};
  r->graph.outputs = yt;
  r->graph.n_outputs = 1;
  free(x), free(w), free(b);
  return 0;
}

static void run_case(const sp_case *c, tfl_activation act)
{
  op_runner r;
  int yt;
  build(&r, c, 1, 1, act, &yt);
  char what[128];
  snprintf(what, sizeof what, "sparse conv %dx%dx%dx%d -> %d, zeros %.2f, act %d, bias %d", c->n,
           c->h, c->w, c->ic, c->oc, (double)c->zeros, act, c->bias);
  if (!cpu_conv_sparse1x1_fits(&r.graph, &r.node)) {
    fprintf(stderr, "FAIL %s: kernel does not take it\n", what);
    failures++;
    goto out;
  }
  /* the fast path hands it over (and XNNPACK refuses it) exactly for large convs */
  bool big = (double)c->n * c->h * c->w * c->ic * c->oc >= CPU_SPARSE1X1_MIN_MACS &&
             c->ic >= CPU_SPARSE1X1_MIN_IN_C;
  if (cpu_conv_sparse1x1_applies(&r.graph, &r.node) != big ||
      xnn_partition_supports(&r.graph, 0) == big) {
    fprintf(stderr, "FAIL %s: fast path choice (sparse %d, XNNPACK %d), expected sparse %d\n",
            what, cpu_conv_sparse1x1_applies(&r.graph, &r.node),
            xnn_partition_supports(&r.graph, 0), big);
    failures++;
  }
  if (op_runner_run(&r, 1) != TFL_OK) {
    fprintf(stderr, "FAIL %s: reference: %s\n", what, r.diag.error);
    failures++;
    goto out;
  }
  tfl_tensor *y = &r.graph.tensors[yt];
  size_t n = tfl_tensor_count(y);
  float *want = malloc(y->bytes);
  memcpy(want, y->data, y->bytes);
  for (int threads = 1; threads <= 2; threads++) {
    memset(y->data, 0, y->bytes);
    cpu_ctx *ctx = cpu_ctx_create(threads);
    void *st = NULL;
    tfl_status s = cpu_k_conv_sparse1x1.prepare(&r.graph, &r.node, &st, &r.diag);
    for (int rep = 0; rep < 2 && s == TFL_OK; rep++) /* twice: scratch reuse */
      s = cpu_k_conv_sparse1x1.eval(&r.graph, &r.node, st, ctx, &r.diag);
    cpu_k_conv_sparse1x1.release(st);
    cpu_ctx_free(ctx);
    if (s != TFL_OK) {
      fprintf(stderr, "FAIL %s t%d: %s\n", what, threads, r.diag.error);
      failures++;
      continue;
    }
    if (!test_expect_rel(what, threads, y->data, want, n, 1e-5f)) failures++;
  }
  free(want);
out:
  op_runner_free(&r);
}

/* Convs the kernel must leave alone (and XNNPACK keep). */
static void check_refused(const char *what, const sp_case *c, int kh, int stride,
                          tfl_activation act)
{
  op_runner r;
  int yt;
  build(&r, c, kh, stride, act, &yt);
  if (cpu_conv_sparse1x1_applies(&r.graph, &r.node)) {
    fprintf(stderr, "FAIL refusal (%s): the fast path gives it to the sparse kernel\n", what);
    failures++;
  }
  if (act != TFL_ACT_TANH && !xnn_partition_supports(&r.graph, 0)) {
    fprintf(stderr, "FAIL refusal (%s): XNNPACK does not take it either\n", what);
    failures++;
  }
  op_runner_free(&r);
}

/* The kernel's own run-time check, seen from outside: x86 only (arm64 has no such builtin). */
static bool cpu_has_avx512f(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}

/* Without AVX-512 the fast path must leave every conv, the large sparse ones included, to
 * XNNPACK's dense GEMM. */
static void check_kept_by_xnnpack(const sp_case *c)
{
  op_runner r;
  int yt;
  build(&r, c, 1, 1, TFL_ACT_NONE, &yt);
  if (cpu_conv_sparse1x1_fits(&r.graph, &r.node) || cpu_conv_sparse1x1_applies(&r.graph, &r.node) ||
      !xnn_partition_supports(&r.graph, 0)) {
    fprintf(stderr,
            "FAIL no AVX-512, conv %dx%dx%dx%d -> %d: sparse kernel fits %d applies %d, XNNPACK %d\n",
            c->n, c->h, c->w, c->ic, c->oc, cpu_conv_sparse1x1_fits(&r.graph, &r.node),
            cpu_conv_sparse1x1_applies(&r.graph, &r.node), xnn_partition_supports(&r.graph, 0));
    failures++;
  }
  op_runner_free(&r);
}

int main(void)
{
  static const sp_case cases[] = {
    {1, 5, 7, 33, 7, 0.75f, 1},    /* 35 pixels: one partial tile */
    {1, 9, 13, 37, 1, 0.75f, 1},   /* 117 pixels, a single output channel */
    {2, 6, 11, 45, 17, 0.80f, 0},  /* batch 2, no bias */
    {1, 16, 16, 64, 48, 0.75f, 1}, /* whole 16x16 blocks only */
    {1, 7, 7, 97, 33, 0.72f, 1},   /* just above the 2/3 threshold, odd everything */
    {1, 3, 1, 40, 240, 0.75f, 1},  /* 3 pixels */
    {1, 20, 20, 32, 9, 0.95f, 1},  /* some output channels with no non-zero weight */
    {1, 14, 14, 241, 81, 0.75f, 1}, /* 3.8 M multiply-adds: the fast path's choice */
  };
  const size_t n_cases = sizeof cases / sizeof cases[0];
  if (!cpu_has_avx512f()) {
    for (size_t i = 0; i < n_cases; i++) check_kept_by_xnnpack(&cases[i]);
    if (failures) {
      fprintf(stderr, "%d failures\n", failures);
      return 1;
    }
    printf("OK: no AVX-512, XNNPACK keeps all %zu sparse convs\n", n_cases);
    return 0;
  }
  const tfl_activation acts[] = {TFL_ACT_NONE, TFL_ACT_RELU, TFL_ACT_RELU_N1_TO_1, TFL_ACT_RELU6};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (size_t a = 0; a < sizeof acts / sizeof acts[0]; a++) run_case(&cases[i], acts[a]);

  /* each large enough but for the one thing named */
  const sp_case dense = {1, 14, 14, 240, 80, 0.55f, 1}, sparse = {1, 14, 14, 240, 80, 0.75f, 1};
  const sp_case narrow = {1, 112, 112, 24, 64, 0.75f, 1}, small = {1, 14, 14, 120, 80, 0.75f, 1};
  check_refused("55% zeros", &dense, 1, 1, TFL_ACT_NONE);
  check_refused("24 input channels", &narrow, 1, 1, TFL_ACT_NONE);
  check_refused("1.9 M multiply-adds", &small, 1, 1, TFL_ACT_NONE);
  check_refused("3x3 filter", &sparse, 3, 1, TFL_ACT_NONE);
  check_refused("stride 2", &sparse, 1, 2, TFL_ACT_NONE);
  check_refused("fused TANH", &sparse, 1, 1, TFL_ACT_TANH);
  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("OK: %zu sparse convs x 4 activations x 1-2 threads, 6 refusals\n",
         sizeof cases / sizeof cases[0]);
  return 0;
}
