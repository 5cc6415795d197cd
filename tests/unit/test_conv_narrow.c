/* test_conv_narrow.c - the fast path's CONV_2D for 1-2 output channels against the
 * reference CONV_2D kernel: 8 input channels (the AVX-512 interior path where the CPU has
 * it, the generic path at the edges), other channel counts (generic only), 3x3 and 5x3
 * filters, dilation, SAME and VALID, batch 2, every clamp activation, 1-3 threads;
 * |d| <= 1e-5 * max(1, |want|) (the sums run in another order). Also which convs the
 * fast path gives it (stride 1, <= 2 outputs, >= 1 M multiply-adds) and which it leaves. */
#include "conv_test_util.h"

#include "../../delegates/cpu/kernels/conv_narrow.h"

typedef struct {
  int n, h, w, c, oc, kh, kw, d, same, stride;
} nc_case;

static int failures, runs;

static void build(op_runner *r, const nc_case *c, tfl_activation act, int *yt)
{
  const int oh = test_out_size(c->same, c->h, c->kh, c->stride, c->d);
  const int ow = test_out_size(c->same, c->w, c->kw, c->stride, c->d);
  const size_t nx = (size_t)c->n * c->h * c->w * c->c, nw = (size_t)c->oc * c->kh * c->kw * c->c;
  float *x = malloc(nx * 4), *w = malloc(nw * 4), b[4]; /* up to 3 outputs (a refusal case) */
  test_fill(x, nx, -1, 1);
  test_fill(w, nw, -0.5f, 0.5f);
  test_fill(b, 4, -0.5f, 0.5f);
  op_runner_init(r, TFL_OP_CONV_2D);
  int xt = op_runner_tensor(r, TFL_TYPE_FLOAT32, 4, (int32_t[]){c->n, c->h, c->w, c->c}, x, false);
  int wt = op_runner_tensor(r, TFL_TYPE_FLOAT32, 4, (int32_t[]){c->oc, c->kh, c->kw, c->c}, w, true);
  int bt = op_runner_tensor(r, TFL_TYPE_FLOAT32, 1, (int32_t[]){c->oc}, b, true);
  *yt = op_runner_tensor(r, TFL_TYPE_FLOAT32, 4, (int32_t[]){c->n, oh, ow, c->oc}, NULL, false);
  op_runner_io(r, (int[]){xt, wt, bt}, 3, (int[]){*yt}, 1);
  r->node.p.conv = (tfl_conv_params){c->same ? TFL_PAD_SAME : TFL_PAD_VALID, c->stride, c->stride, c->d, c->d, 1, act};
  free(x), free(w);
}

static void run_case(const nc_case *c, tfl_activation act)
{
  op_runner r;
  int yt;
  build(&r, c, act, &yt);
  char what[128];
  snprintf(what, sizeof what, "%dx%dx%dx%d -> %d, %dx%d dil %d %s, act %d", c->n, c->h, c->w, c->c, c->oc, c->kh,
           c->kw, c->d, c->same ? "same" : "valid", act);
  float *want = test_reference_output(&r, yt, cpu_conv_narrow_applies(&r.graph, &r.node), what);
  if (!want) {
    failures++;
    op_runner_free(&r);
    return;
  }
  tfl_tensor *y = &r.graph.tensors[yt];
  const size_t n = tfl_tensor_count(y);
  for (int threads = 1; threads <= 3; threads++) {
    memset(y->data, 0x55, y->bytes);
    cpu_ctx *ctx = cpu_ctx_create(threads);
    void *st = NULL;
    tfl_status s = cpu_k_conv_narrow.prepare(&r.graph, &r.node, &st, &r.diag);
    for (int rep = 0; rep < 2 && s == TFL_OK; rep++) s = cpu_k_conv_narrow.eval(&r.graph, &r.node, st, ctx, &r.diag);
    cpu_k_conv_narrow.release(st);
    cpu_ctx_free(ctx);
    runs++;
    if (s != TFL_OK) {
      fprintf(stderr, "FAIL %s t%d: %s\n", what, threads, r.diag.error);
      failures++;
      continue;
    }
    if (!test_expect_rel(what, threads, y->data, want, n, 1e-5f)) failures++;
  }
  free(want);
  op_runner_free(&r);
}

static void check_left(const char *why, const nc_case *c)
{
  op_runner r;
  int yt;
  build(&r, c, TFL_ACT_NONE, &yt);
  if (cpu_conv_narrow_applies(&r.graph, &r.node)) {
    fprintf(stderr, "FAIL refusal (%s): the fast path gives it to the narrow kernel\n", why);
    failures++;
  }
  op_runner_free(&r);
}

int main(void)
{
  static const nc_case cases[] = {
    {1, 128, 128, 8, 1, 3, 3, 1, 1, 1},  /* pose landmarks' head, smaller */
    {1, 97, 81, 8, 2, 3, 3, 1, 1, 1},    /* odd width: interior tail pixels; 2 outputs */
    {2, 80, 64, 8, 1, 5, 3, 2, 0, 1},    /* batch 2, 5x3 dilation 2 VALID */
    {1, 160, 150, 5, 1, 3, 3, 1, 1, 1},  /* 5 channels: generic path */
    {1, 70, 70, 24, 1, 3, 3, 1, 1, 1},   /* 24 channels: generic path */
    {1, 500, 260, 8, 1, 1, 1, 1, 1, 1},  /* 1x1 */
  };
  const tfl_activation acts[] = {TFL_ACT_NONE, TFL_ACT_RELU, TFL_ACT_RELU_N1_TO_1, TFL_ACT_RELU6};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (size_t a = 0; a < 4; a++) run_case(&cases[i], acts[a]);
  check_left("3 outputs", &(nc_case){1, 128, 100, 8, 3, 3, 3, 1, 1, 1});
  check_left("stride 2", &(nc_case){1, 256, 200, 8, 1, 3, 3, 1, 1, 2});
  check_left("0.5 M multiply-adds", &(nc_case){1, 64, 100, 8, 1, 3, 3, 1, 1, 1});
  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("OK: %d runs (%zu shapes x 4 activations x 1-3 threads), 3 refusals\n", runs,
         sizeof cases / sizeof cases[0]);
  return 0;
}
