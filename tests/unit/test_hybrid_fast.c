/* test_hybrid_fast.c - the fast path's hybrid (float input and output, int8 weights)
 * kernels against the reference kernels, output bytes equal: CONV_2D (conv_hybrid.c: 3x3
 * SAME/VALID, strides, dilation, im2col rows or (VNNI) the zero-point-padded image read at
 * tap offsets, 1x1 stride 1 read in place or copied, LiteRT's per-pixel
 * quantization, symmetric input quantization where the bias is not constant),
 * FULLY_CONNECTED (fc_hybrid.c: asymmetric_quantize_inputs on and off, per-tensor and
 * per-channel scales, a non-clamp activation), DEPTHWISE_CONV_2D (dw_hybrid.c),
 * TRANSPOSE_CONV (tconv_hybrid.c: the direct 2x2 stride-2 case and gathered taps, channel
 * counts not a multiple of 4) and BATCH_MATMUL (bmm_hybrid.c: adj_x / adj_y, batched and
 * broadcast rhs, per-column scales). Odd sizes throughout; inputs of mixed sign, all positive
 * (zero point -128), all zero (the empty range) and exact halves (rounding ties). Each on every path this machine has
 * (AVX-512 VNNI, portable C) and 1-3 threads, evaluated twice. */
#include "conv_test_util.h"

#include "../../delegates/cpu/kernels/bmm_hybrid.h"
#include "../../delegates/cpu/kernels/conv_hybrid.h"
#include "../../delegates/cpu/kernels/dw_hybrid.h"
#include "../../delegates/cpu/kernels/fc_hybrid.h"
#include "../../delegates/cpu/kernels/tconv_hybrid.h"

static int failures, runs;

typedef enum { MIXED, POSITIVE, ZERO, TIES } input_kind;

/* TIES: halves in [-128, 127] with both ends present, so that the scale is 1 (zero point
 * 0) and every value lies halfway between two steps: rounding half away from zero. */
static void fill_input(float *x, size_t n, input_kind kind)
{
  for (size_t i = 0; i < n; i++)
    x[i] = kind == ZERO       ? 0.0f
           : kind == POSITIVE ? test_uniform(0.0f, 4.0f)
           : kind == TIES     ? (float)test_rand_int(-128, 126) + 0.5f
                              : test_uniform(-3.0f, 2.0f);
  if (kind == TIES && n >= 2) x[0] = -128.0f, x[1] = 127.0f;
}

/* Int8 weights in [-127, 127] (the converter's range) with nq scales along axis. */
static void add_weights(op_runner *r, int wt, size_t nw, int nq, int axis)
{
  int8_t *w = r->graph.tensors[wt].data;
  for (size_t i = 0; i < nw; i++) w[i] = (int8_t)test_rand_int(-127, 127);
  float *s = malloc(sizeof(float) * (size_t)nq);
  int32_t *z = calloc((size_t)nq, sizeof(int32_t));
  for (int i = 0; i < nq; i++) s[i] = test_uniform(0.002f, 0.02f);
  op_runner_quant(r, wt, nq, s, z, axis);
  free(s), free(z);
}

static int add_bias(op_runner *r, int n, bool is_const)
{
  float *b = malloc(sizeof(float) * (size_t)n);
  test_fill(b, (size_t)n, -1.0f, 1.0f);
  int t = op_runner_tensor(r, TFL_TYPE_FLOAT32, 1, (int32_t[]){n}, b, is_const);
  free(b);
  return t;
}

/* The reference's output of node r, then the fast kernel k on every path and 1-3
 * threads: every output byte equal. */
static void compare(op_runner *r, int yt, bool taken, const cpu_kernel *k,
                    void (*use_isa)(void *, const cpu_features *), const char *what)
{
  if (!taken) {
    fprintf(stderr, "FAIL %s: the fast path does not take it\n", what);
    failures++;
    return;
  }
  if (op_runner_run(r, 1) != TFL_OK) {
    fprintf(stderr, "FAIL %s: reference: %s\n", what, r->diag.error);
    failures++;
    return;
  }
  tfl_tensor *y = &r->graph.tensors[yt];
  float *want = malloc(y->bytes);
  memcpy(want, y->data, y->bytes);
  const cpu_features cpu = cpu_features_detect();
  cpu_features paths[2];
  const char *names[2];
  int n_paths = 0;
  if (cpu.avx512_vnni) paths[n_paths] = cpu, names[n_paths++] = "avx512-vnni";
  paths[n_paths] = cpu_features_none(), names[n_paths++] = "portable";
  for (int p = 0; p < n_paths; p++)
    for (int threads = 1; threads <= 3; threads++) {
      tfl_diag diag;
      tfl_diag_init(&diag);
      memset(y->data, 0x55, y->bytes);
      cpu_ctx *ctx = cpu_ctx_create(threads);
      void *st = NULL;
      tfl_status s = k->prepare(&r->graph, &r->node, &st, &diag);
      if (s == TFL_OK) use_isa(st, &paths[p]);
      for (int rep = 0; rep < 2 && s == TFL_OK; rep++) s = k->eval(&r->graph, &r->node, st, ctx, &diag);
      k->release(st);
      cpu_ctx_free(ctx);
      runs++;
      if (s != TFL_OK) {
        fprintf(stderr, "FAIL %s %s t%d: %s\n", what, names[p], threads, diag.error);
        failures++;
        continue;
      }
      const float *got = y->data;
      for (size_t i = 0; i < y->bytes / sizeof(float); i++)
        if (memcmp(&got[i], &want[i], sizeof(float)) != 0) {
          fprintf(stderr, "FAIL %s %s t%d: element %zu is %.9g, the reference's %.9g\n", what, names[p], threads, i,
                  (double)got[i], (double)want[i]);
          failures++;
          break;
        }
    }
  free(want);
}

typedef struct {
  int n, h, w, ic, oc, k, stride, dil, same, per_channel, bias_const;
  input_kind in;
} hconv_case;

/* CONV_2D (dw false) or DEPTHWISE_CONV_2D (dw true, oc == ic). */
static void run_conv(const hconv_case *c, tfl_activation act, bool dw)
{
  op_runner r;
  op_runner_init(&r, dw ? TFL_OP_DEPTHWISE_CONV_2D : TFL_OP_CONV_2D);
  const size_t nx = (size_t)c->n * c->h * c->w * c->ic;
  float *x = malloc(sizeof(float) * nx);
  fill_input(x, nx, c->in);
  int xt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){c->n, c->h, c->w, c->ic}, x, false);
  const int32_t wd[4] = {dw ? 1 : c->oc, c->k, c->k, dw ? c->oc : c->ic};
  int wt = op_runner_tensor(&r, TFL_TYPE_INT8, 4, wd, NULL, true);
  add_weights(&r, wt, (size_t)wd[0] * wd[1] * wd[2] * wd[3], c->per_channel ? c->oc : 1, dw ? 3 : 0);
  int bt = add_bias(&r, c->oc, c->bias_const);
  const int oh = test_out_size(c->same, c->h, c->k, c->stride, c->dil);
  const int ow = test_out_size(c->same, c->w, c->k, c->stride, c->dil);
  int yt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){c->n, oh, ow, c->oc}, NULL, false);
  op_runner_io(&r, (int[]){xt, wt, bt}, 3, (int[]){yt}, 1);
  r.node.p.conv = (tfl_conv_params){c->same ? TFL_PAD_SAME : TFL_PAD_VALID, c->stride, c->stride, c->dil, c->dil,
                                    1, act};
  char what[160];
  snprintf(what, sizeof what, "%s %dx%dx%dx%d -> %d k%d s%d d%d %s %s%s input %d act %d", dw ? "dw" : "conv", c->n,
           c->h, c->w, c->ic, c->oc, c->k, c->stride, c->dil, c->same ? "same" : "valid",
           c->per_channel ? "per-channel" : "per-tensor", c->bias_const ? "" : " variable-bias", c->in, act);
  if (dw)
    compare(&r, yt, cpu_dw_hybrid_fits(&r.graph, &r.node), &cpu_k_dw_hybrid, cpu_dw_hybrid_use_isa, what);
  else
    compare(&r, yt, cpu_conv_hybrid_fits(&r.graph, &r.node), &cpu_k_conv_hybrid, cpu_conv_hybrid_use_isa, what);
  op_runner_free(&r);
  free(x);
}

typedef struct {
  int batches, k, units, per_channel, asym, bias;
  tfl_activation act;
  input_kind in;
} fc_case;

static void run_fc(const fc_case *c)
{
  op_runner r;
  op_runner_init(&r, TFL_OP_FULLY_CONNECTED);
  const size_t nx = (size_t)c->batches * c->k;
  float *x = malloc(sizeof(float) * nx);
  fill_input(x, nx, c->in);
  int xt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){c->batches, c->k}, x, false);
  int wt = op_runner_tensor(&r, TFL_TYPE_INT8, 2, (int32_t[]){c->units, c->k}, NULL, true);
  add_weights(&r, wt, (size_t)c->units * c->k, c->per_channel ? c->units : 1, 0);
  int yt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){c->batches, c->units}, NULL, false);
  if (c->bias)
    op_runner_io(&r, (int[]){xt, wt, add_bias(&r, c->units, true)}, 3, (int[]){yt}, 1);
  else
    op_runner_io(&r, (int[]){xt, wt}, 2, (int[]){yt}, 1);
  r.node.p.fc = (tfl_fc_params){c->act, false, c->asym != 0};
  char what[160];
  snprintf(what, sizeof what, "fc %dx%d -> %d %s %s%s input %d act %d", c->batches, c->k, c->units,
           c->per_channel ? "per-channel" : "per-tensor", c->asym ? "asym" : "sym-unless-clamp",
           c->bias ? "" : " no-bias", c->in, c->act);
  compare(&r, yt, cpu_fc_hybrid_fits(&r.graph, &r.node), &cpu_k_fc_hybrid, cpu_fc_hybrid_use_isa, what);
  op_runner_free(&r);
  free(x);
}

static void run_tconv(const hconv_case *c, tfl_activation act)
{
  op_runner r;
  op_runner_init(&r, TFL_OP_TRANSPOSE_CONV);
  const int oh = c->same ? c->h * c->stride : (c->h - 1) * c->stride + c->k;
  const int ow = c->same ? c->w * c->stride : (c->w - 1) * c->stride + c->k;
  const size_t nx = (size_t)c->n * c->h * c->w * c->ic;
  float *x = malloc(sizeof(float) * nx);
  fill_input(x, nx, c->in);
  const int32_t shape[4] = {c->n, oh, ow, c->oc};
  int st = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){4}, shape, true);
  int wt = op_runner_tensor(&r, TFL_TYPE_INT8, 4, (int32_t[]){c->oc, c->k, c->k, c->ic}, NULL, true);
  add_weights(&r, wt, (size_t)c->oc * c->k * c->k * c->ic, c->per_channel ? c->oc : 1, 0);
  int xt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){c->n, c->h, c->w, c->ic}, x, false);
  int bt = add_bias(&r, c->oc, true);
  int yt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, shape, NULL, false);
  /* TRANSPOSE_CONV's inputs: output_shape, weights, input, bias */
  op_runner_io(&r, (int[]){st, wt, xt, bt}, 4, (int[]){yt}, 1);
  r.node.p.conv = (tfl_conv_params){c->same ? TFL_PAD_SAME : TFL_PAD_VALID, c->stride, c->stride, 1, 1, 1, act};
  char what[160];
  snprintf(what, sizeof what, "tconv %dx%dx%dx%d -> %d k%d s%d %s %s input %d act %d", c->n, c->h, c->w, c->ic,
           c->oc, c->k, c->stride, c->same ? "same" : "valid", c->per_channel ? "per-channel" : "per-tensor", c->in,
           act);
  compare(&r, yt, cpu_tconv_hybrid_fits(&r.graph, &r.node), &cpu_k_tconv_hybrid, cpu_tconv_hybrid_use_isa, what);
  op_runner_free(&r);
  free(x);
}

typedef struct {
  int lb, rb, m, k, n, adj_x, adj_y, per_channel;   /* lhs / rhs batches (rhs 0: rank 2) */
  input_kind in;
} bmm_case;

static void run_bmm(const bmm_case *c)
{
  op_runner r;
  op_runner_init(&r, TFL_OP_BATCH_MATMUL);
  const size_t nx = (size_t)c->lb * c->m * c->k;
  float *x = malloc(sizeof(float) * nx);
  fill_input(x, nx, c->in);
  const int32_t ld[3] = {c->lb, c->adj_x ? c->k : c->m, c->adj_x ? c->m : c->k};
  int lt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 3, ld, x, false);
  const int32_t rd3[3] = {c->rb, c->adj_y ? c->n : c->k, c->adj_y ? c->k : c->n};
  const int rank = c->rb ? 3 : 2;
  int rt = op_runner_tensor(&r, TFL_TYPE_INT8, rank, c->rb ? rd3 : rd3 + 1, NULL, true);
  add_weights(&r, rt, (size_t)(c->rb ? c->rb : 1) * c->k * c->n, c->per_channel ? c->n : 1,
              rank - (c->adj_y ? 2 : 1));
  const int ob = c->lb > c->rb ? c->lb : c->rb;
  int yt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 3, (int32_t[]){ob, c->m, c->n}, NULL, false);
  op_runner_io(&r, (int[]){lt, rt}, 2, (int[]){yt}, 1);
  r.node.p.bmm = (tfl_batch_matmul_params){c->adj_x != 0, c->adj_y != 0, false};
  char what[160];
  snprintf(what, sizeof what, "bmm lhs %dx%dx%d rhs %dx%dx%d%s%s %s input %d", c->lb, c->m, c->k, c->rb, c->k, c->n,
           c->adj_x ? " adj_x" : "", c->adj_y ? " adj_y" : "", c->per_channel ? "per-column" : "per-tensor", c->in);
  compare(&r, yt, cpu_bmm_hybrid_fits(&r.graph, &r.node), &cpu_k_bmm_hybrid, cpu_bmm_hybrid_use_isa, what);
  op_runner_free(&r);
  free(x);
}

int main(void)
{
  static const hconv_case convs[] = {
    /* n, h, w, ic, oc, k, stride, dil, same, per-channel, bias const, input */
    {1, 9, 7, 5, 13, 3, 1, 1, 1, 1, 1, MIXED},     /* 3x3 SAME, K = 45 (not a multiple of 4) */
    {2, 8, 11, 8, 17, 3, 2, 1, 0, 0, 1, POSITIVE}, /* stride 2 VALID, batch 2, zero point -128 */
    {1, 10, 9, 3, 33, 3, 1, 2, 1, 1, 1, MIXED},    /* dilation 2 (taps one at a time) */
    {1, 7, 6, 16, 40, 1, 1, 1, 1, 1, 1, MIXED},    /* 1x1 stride 1: LiteRT's per-pixel quantization */
    {2, 5, 7, 16, 19, 1, 1, 1, 0, 0, 0, MIXED},    /* 1x1, variable bias: symmetric, image rows in place */
    {1, 6, 5, 7, 9, 1, 1, 1, 0, 1, 0, MIXED},      /* 1x1, 7 channels: symmetric, copied rows */
    {1, 9, 8, 6, 21, 3, 2, 1, 1, 0, 0, POSITIVE},  /* symmetric 3x3 stride 2 */
    {1, 5, 5, 4, 8, 3, 1, 1, 1, 1, 1, ZERO},       /* an all-zero image */
    {1, 23, 19, 24, 70, 3, 1, 1, 1, 1, 1, MIXED},  /* more than one tile task and gemm block */
    {1, 6, 7, 5, 11, 3, 1, 1, 1, 1, 1, TIES},      /* rounding ties */
    {2, 9, 10, 8, 12, 3, 2, 2, 1, 0, 1, MIXED},    /* the padded image read at dilated, strided taps */
  };
  static const hconv_case dws[] = {
    {1, 9, 7, 21, 21, 3, 1, 1, 1, 1, 1, MIXED},
    {2, 10, 9, 37, 37, 3, 2, 1, 0, 1, 1, POSITIVE},
    {1, 8, 8, 16, 16, 5, 1, 2, 1, 1, 1, MIXED},
    {1, 4, 5, 7, 7, 3, 1, 1, 1, 1, 1, ZERO},
    {1, 6, 6, 19, 19, 3, 1, 1, 1, 1, 1, TIES},
    {1, 5, 6, 150, 150, 3, 2, 1, 1, 1, 1, MIXED},  /* more than 64 channels (three groups of 64) */
    {1, 10, 10, 5, 5, 9, 1, 1, 1, 1, 1, MIXED},    /* 81 taps: the portable loop on any CPU */
  };
  static const hconv_case tcs[] = {
    /* n, h, w, ic, oc, k, stride, (dil), same, per-channel, (bias), input */
    {1, 8, 9, 16, 8, 2, 2, 1, 1, 1, 1, MIXED},     /* a UNet's 2x2 stride-2 upsampling (direct) */
    {2, 5, 7, 13, 20, 3, 2, 1, 1, 1, 1, POSITIVE}, /* 3x3 stride 2 SAME, 13 channels, batch 2 */
    {1, 6, 5, 9, 17, 4, 2, 1, 0, 0, 1, MIXED},     /* 4x4 VALID, per-tensor */
    {1, 4, 4, 32, 35, 3, 1, 1, 1, 1, 1, ZERO},
  };
  static const fc_case fcs[] = {
    /* batches, k, units, per-channel, asym, bias, act, input */
    {1, 1280, 1000, 1, 0, 1, TFL_ACT_NONE, MIXED},  /* a classifier head (LiteRT: asymmetric) */
    {3, 37, 17, 1, 1, 1, TFL_ACT_RELU, MIXED},
    {5, 16, 16, 0, 0, 0, TFL_ACT_TANH, MIXED},      /* symmetric (not a clamp), no bias */
    {4, 3, 15, 0, 1, 1, TFL_ACT_RELU6, POSITIVE},
    {2, 130, 1, 1, 0, 1, TFL_ACT_TANH, POSITIVE},   /* symmetric, one unit */
    {16, 64, 96, 1, 1, 1, TFL_ACT_NONE, MIXED},     /* a transformer's token rows */
    {2, 40, 33, 0, 0, 1, TFL_ACT_SIGMOID, ZERO},
    {3, 50, 20, 1, 1, 1, TFL_ACT_NONE, TIES},
  };
  static const bmm_case bmms[] = {
    /* lhs batches, rhs batches (0: a 2-D rhs), m, k, n, adj_x, adj_y, per-column, input */
    {2, 0, 5, 37, 19, 0, 0, 1, MIXED},    /* a 2-D rhs broadcast over the lhs batches */
    {3, 3, 40, 16, 33, 0, 1, 1, MIXED},   /* batched rhs, adj_y, two row tiles */
    {2, 1, 7, 13, 17, 1, 0, 0, POSITIVE}, /* adj_x (strided lhs rows), rhs batch 1 broadcast */
    {1, 2, 4, 9, 8, 1, 1, 1, TIES},       /* lhs batch 1 broadcast over two rhs batches */
    {2, 0, 3, 20, 5, 0, 0, 0, ZERO},
  };
  const tfl_activation acts[] = {TFL_ACT_NONE, TFL_ACT_RELU, TFL_ACT_RELU6};
  for (size_t i = 0; i < sizeof convs / sizeof convs[0]; i++)
    for (size_t a = 0; a < 3; a++) run_conv(&convs[i], acts[a], false);
  for (size_t i = 0; i < sizeof dws / sizeof dws[0]; i++)
    for (size_t a = 0; a < 3; a++) run_conv(&dws[i], acts[a], true);
  for (size_t i = 0; i < sizeof tcs / sizeof tcs[0]; i++)
    for (size_t a = 0; a < 3; a++) run_tconv(&tcs[i], acts[a]);
  for (size_t i = 0; i < sizeof fcs / sizeof fcs[0]; i++) run_fc(&fcs[i]);
  for (size_t i = 0; i < sizeof bmms / sizeof bmms[0]; i++) run_bmm(&bmms[i]);
  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("OK: %d runs (%zu conv, %zu depthwise, %zu transposed-conv shapes x 3 activations, %zu FC and %zu batch "
         "matmul cases; every path x 1-3 threads), every output byte equal to the reference's\n",
         runs, sizeof convs / sizeof convs[0], sizeof dws / sizeof dws[0], sizeof tcs / sizeof tcs[0],
         sizeof fcs / sizeof fcs[0], sizeof bmms / sizeof bmms[0]);
  return 0;
}
