/* test_xnn_partition.c - each op the XNNPACK fast path takes, run as a one-node XNNPACK
 * partition and through its CPU reference kernel on the same random data; the two must
 * agree within 1e-4 relative (|got - want| <= 1e-4 * max(1, |want|)). Covers the
 * geometry where the mapping can go wrong: asymmetric SAME padding, stride, dilation,
 * depth multiplier, both transposed convolutions, broadcasting, pooling padding, every
 * resize flag, pad, softmax; plus a three-node partition whose middle tensor is read
 * outside it (external output) and a refused op. 8-bit cases (uint8 per tensor, int8
 * with per-channel weights) must agree within 1 LSB, and the mappings that would not be
 * exact (rescaling reshape/max pool, out-of-range scale ratios, mixed types, TANH) must
 * be refused; on ARM also the 8-bit convs and fully connected layers with per-tensor
 * weights (XNNPACK rounds their ties upward there).
 * Ops whose reference kernel is not written yet are skipped (exit 77 if any were). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../delegates/cpu/cpu_util.h"
#include "../../delegates/cpu/xnn_partition.h"
#include "../op_runner.h"

#define TOL 1e-4f
#define SLACK 64 /* XNNPACK reads up to XNN_EXTRA_BYTES past its inputs */

static int failures, skipped, checked;
static uint32_t rng = 12345u;

static float frand(void)
{
  rng = rng * 1664525u + 1013904223u;
  return (float)((rng >> 8) & 0xffffff) / 8388608.0f - 1.0f; /* [-1, 1) */
}

static const float *rand_buf(size_t n, float lo, float hi)
{
  static float buf[1 << 14];
  if (n > sizeof buf / sizeof buf[0]) abort();
  for (size_t i = 0; i < n; i++) buf[i] = lo + (frand() + 1.0f) * 0.5f * (hi - lo);
  return buf;
}

static size_t count(int ndim, const int32_t *dims)
{
  size_t c = 1;
  for (int d = 0; d < ndim; d++) c *= (size_t)dims[d];
  return c;
}

/* A float tensor of random values in [lo, hi]. */
static int ftensor(op_runner *r, int ndim, const int32_t *dims, bool is_const, float lo, float hi)
{
  return op_runner_tensor(r, TFL_TYPE_FLOAT32, ndim, dims, rand_buf(count(ndim, dims), lo, hi), is_const);
}

static int itensor(op_runner *r, int ndim, const int32_t *dims, const int32_t *vals)
{
  return op_runner_tensor(r, TFL_TYPE_INT32, ndim, dims, vals, true);
}

static int near(const char *what, const float *got, const float *want, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    float tol = TOL * fmaxf(1.0f, fabsf(want[i]));
    if (!(fabsf(got[i] - want[i]) <= tol)) {
      fprintf(stderr, "FAIL %s: element %zu is %.7g, reference %.7g\n", what, i, got[i], want[i]);
      return 0;
    }
  }
  return 1;
}

/* 8-bit outputs: within 1 LSB (XNNPACK rounds its fp32 requantization to nearest even,
 * our kernels with doubles, TFLite with fixed-point multipliers). */
static int near_q(const char *what, const tfl_tensor *y, const void *got, const void *want)
{
  size_t n = tfl_tensor_count(y);
  for (size_t i = 0; i < n; i++) {
    int a = y->type == TFL_TYPE_UINT8 ? ((const uint8_t *)got)[i] : ((const int8_t *)got)[i];
    int b = y->type == TFL_TYPE_UINT8 ? ((const uint8_t *)want)[i] : ((const int8_t *)want)[i];
    if (abs(a - b) > 1) {
      fprintf(stderr, "FAIL %s: element %zu is %d, reference %d\n", what, i, a, b);
      return 0;
    }
  }
  return 1;
}

/* Gives every activation tensor XNNPACK's read slack, as the interpreter's arena does. */
static void add_slack(tfl_graph *g)
{
  for (int i = 0; i < g->n_tensors; i++) {
    tfl_tensor *t = &g->tensors[i];
    if (t->is_const) continue;
    void *d = calloc(1, t->bytes + SLACK);
    if (!d) abort();
    memcpy(d, t->data, t->bytes);
    free(t->data);
    t->data = d;
  }
}

/* An 8-bit conv or fully connected layer with per-tensor weights: on ARM, XNNPACK rounds
 * those ties upward, not to even as TFLite's CPU path, so the fast path must refuse them
 * there (tests/test_q8_rounding.c checks the rounding itself). */
static bool refused_on_this_cpu(const op_runner *r)
{
#if defined(__aarch64__) || defined(__arm__)
  const tfl_node *n = &r->node;
  if (n->op != TFL_OP_CONV_2D && n->op != TFL_OP_DEPTHWISE_CONV_2D && n->op != TFL_OP_FULLY_CONNECTED) return false;
  const tfl_tensor *w = &r->graph.tensors[n->in[1]];
  return w->q.n > 0 && !(w->type == TFL_TYPE_INT8 && w->q.n > 1);
#else
  (void)r;
  return false;
#endif
}

/* Runs node 0 of r through the reference kernel and through XNNPACK (1 and 2 threads). */
static void check(const char *name, op_runner *r, int out)
{
  int32_t outs[1] = {out};
  r->graph.outputs = outs;
  r->graph.n_outputs = 1;
  add_slack(&r->graph);
  const cpu_kernel *k = cpu_reference_kernel(r->node.op);
  if (!k || !k->prepare || !k->eval) {
    printf("SKIP %s: no reference kernel for %s yet\n", name, tfl_op_name(r->node.op));
    skipped++;
    goto out;
  }
  if (refused_on_this_cpu(r)) {
    if (xnn_partition_supports(&r->graph, 0)) {
      fprintf(stderr, "FAIL %s: taken on ARM, where XNNPACK rounds its ties upward\n", name);
      failures++;
    } else {
      checked++;
    }
    goto out;
  }
  if (!xnn_partition_supports(&r->graph, 0)) {
    fprintf(stderr, "FAIL %s: XNNPACK refuses it\n", name);
    failures++;
    goto out;
  }
  tfl_tensor *y = &r->graph.tensors[out];
  size_t n = tfl_tensor_count(y);
  if (op_runner_run(r, 1) != TFL_OK) {
    fprintf(stderr, "FAIL %s: reference: %s\n", name, r->diag.error);
    failures++;
    goto out;
  }
  float *want = malloc(y->bytes);
  memcpy(want, y->data, y->bytes);
  for (int threads = 1; threads <= 2; threads++) {
    cpu_ctx *ctx = cpu_ctx_create(threads);
    memset(y->data, 0, y->bytes);
    xnn_partition *p = NULL;
    int32_t node = 0;
    if (xnn_partition_create(&r->graph, &node, 1, cpu_ctx_pool(ctx), &p, &r->diag) != TFL_OK ||
        xnn_partition_run(p, &r->diag) != TFL_OK) {
      fprintf(stderr, "FAIL %s: %s\n", name, r->diag.error);
      failures++;
    } else {
      char what[160];
      snprintf(what, sizeof what, "%s (%d thread%s)", name, threads, threads > 1 ? "s" : "");
      int ok = y->type == TFL_TYPE_FLOAT32 ? near(what, y->data, want, n) : near_q(what, y, y->data, want);
      if (!ok) failures++;
      else checked++;
    }
    xnn_partition_free(p);
    cpu_ctx_free(ctx);
  }
  free(want);
out:
  op_runner_free(r);
}

static void conv_case(const char *name, tfl_op op, const int32_t in[4], const int32_t w[4], int oc_or_mult,
                      tfl_padding pad, int stride, int dil, tfl_activation act, bool bias)
{
  op_runner r;
  op_runner_init(&r, op);
  r.node.p.conv = (tfl_conv_params){.padding = pad, .stride_h = stride, .stride_w = stride,
                                    .dilation_h = dil, .dilation_w = dil, .act = act,
                                    .depth_multiplier = op == TFL_OP_DEPTHWISE_CONV_2D ? oc_or_mult : 0};
  int x = ftensor(&r, 4, in, false, -1, 1);
  int f = ftensor(&r, 4, w, true, -1, 1);
  int32_t oc = op == TFL_OP_DEPTHWISE_CONV_2D ? w[3] : w[0];
  int b = bias ? ftensor(&r, 1, &oc, true, -1, 1) : -1;
  int oh = tfl_conv_out_size(pad, in[1], w[1], stride, dil), ow = tfl_conv_out_size(pad, in[2], w[2], stride, dil);
  int y = ftensor(&r, 4, (int32_t[]){in[0], oh, ow, oc}, false, 0, 0);
  op_runner_io(&r, (int[]){x, f, b}, 3, (int[]){y}, 1);
  check(name, &r, y);
}

static void transpose_conv_case(const char *name, const int32_t in[4], const int32_t w[4], int stride,
                                tfl_padding pad, int oh, int ow)
{
  op_runner r;
  op_runner_init(&r, TFL_OP_TRANSPOSE_CONV);
  r.node.p.conv = (tfl_conv_params){.padding = pad, .stride_h = stride, .stride_w = stride, .dilation_h = 1,
                                    .dilation_w = 1};
  int32_t shape[4] = {in[0], oh, ow, w[0]};
  int os = itensor(&r, 1, (int32_t[]){4}, shape);
  int f = ftensor(&r, 4, w, true, -1, 1);
  int x = ftensor(&r, 4, in, false, -1, 1);
  int b = ftensor(&r, 1, &w[0], true, -1, 1);
  int y = ftensor(&r, 4, shape, false, 0, 0);
  op_runner_io(&r, (int[]){os, f, x, b}, 4, (int[]){y}, 1);
  check(name, &r, y);
}

/* MediaPipe's op, sized as the real TFLite runs it: SAME gives stride * in. */
static void transpose_bias_case(const char *name, const int32_t in[4], const int32_t w[4], int stride,
                                tfl_padding pad)
{
  op_runner r;
  op_runner_init(&r, TFL_OP_CONV2D_TRANSPOSE_BIAS);
  r.node.p.conv = (tfl_conv_params){.padding = pad, .stride_h = stride, .stride_w = stride, .dilation_h = 1,
                                    .dilation_w = 1};
  bool same = pad == TFL_PAD_SAME;
  int32_t shape[4] = {in[0], same ? stride * in[1] : stride * (in[1] - 1) + w[1],
                      same ? stride * in[2] : stride * (in[2] - 1) + w[2], w[0]};
  int x = ftensor(&r, 4, in, false, -1, 1);
  int f = ftensor(&r, 4, w, true, -1, 1);
  int b = ftensor(&r, 1, &w[0], true, -1, 1);
  int y = ftensor(&r, 4, shape, false, 0, 0);
  op_runner_io(&r, (int[]){x, f, b}, 3, (int[]){y}, 1);
  check(name, &r, y);
}

static void fc_case(const char *name, int in_nd, const int32_t *in, int32_t oc, int out_nd, const int32_t *out,
                    bool keep)
{
  op_runner r;
  op_runner_init(&r, TFL_OP_FULLY_CONNECTED);
  r.node.p.fc = (tfl_fc_params){.act = TFL_ACT_RELU, .keep_num_dims = keep};
  int32_t ic = in[in_nd - 1];
  if (!keep && out_nd == 2 && in_nd != 2) ic = (int32_t)(count(in_nd, in) / (size_t)out[0]);
  int x = ftensor(&r, in_nd, in, false, -1, 1);
  int f = ftensor(&r, 2, (int32_t[]){oc, ic}, true, -1, 1);
  int b = ftensor(&r, 1, &oc, true, -1, 1);
  int y = ftensor(&r, out_nd, out, false, 0, 0);
  op_runner_io(&r, (int[]){x, f, b}, 3, (int[]){y}, 1);
  check(name, &r, y);
}

static void binary_case(const char *name, tfl_op op, int na, const int32_t *a, int nb, const int32_t *bd,
                        int ny, const int32_t *yd, tfl_activation act, bool b_const)
{
  op_runner r;
  op_runner_init(&r, op);
  r.node.p.eltwise.act = act;
  bool div = op == TFL_OP_DIV;
  int x0 = ftensor(&r, na, a, false, -2, 2);
  int x1 = ftensor(&r, nb, bd, b_const, div ? 0.5f : -2.0f, 2);
  int y = ftensor(&r, ny, yd, false, 0, 0);
  op_runner_io(&r, (int[]){x0, x1}, 2, (int[]){y}, 1);
  check(name, &r, y);
}

static void pool_case(const char *name, tfl_op op, const int32_t in[4], int k, int stride, tfl_padding pad)
{
  op_runner r;
  op_runner_init(&r, op);
  r.node.p.pool = (tfl_pool_params){.padding = pad, .stride_h = stride, .stride_w = stride, .filter_h = k,
                                    .filter_w = k, .act = TFL_ACT_NONE};
  int x = ftensor(&r, 4, in, false, -1, 1);
  int oh = tfl_conv_out_size(pad, in[1], k, stride, 1), ow = tfl_conv_out_size(pad, in[2], k, stride, 1);
  int y = ftensor(&r, 4, (int32_t[]){in[0], oh, ow, in[3]}, false, 0, 0);
  op_runner_io(&r, (int[]){x}, 1, (int[]){y}, 1);
  check(name, &r, y);
}

static void resize_case(const char *name, const int32_t in[4], int oh, int ow, bool align, bool half)
{
  op_runner r;
  op_runner_init(&r, TFL_OP_RESIZE_BILINEAR);
  r.node.p.resize = (tfl_resize_params){.align_corners = align, .half_pixel_centers = half};
  int x = ftensor(&r, 4, in, false, -1, 1);
  int sz = itensor(&r, 1, (int32_t[]){2}, (int32_t[]){oh, ow});
  int y = ftensor(&r, 4, (int32_t[]){in[0], oh, ow, in[3]}, false, 0, 0);
  op_runner_io(&r, (int[]){x, sz}, 2, (int[]){y}, 1);
  check(name, &r, y);
}

static void unary_case(const char *name, tfl_op op, int nd, const int32_t *dims)
{
  op_runner r;
  op_runner_init(&r, op);
  if (op == TFL_OP_SOFTMAX) r.node.p.softmax.beta = 1.0f;
  int x = ftensor(&r, nd, dims, false, -8, 8);
  int y = ftensor(&r, nd, dims, false, 0, 0);
  op_runner_io(&r, (int[]){x}, 1, (int[]){y}, 1);
  check(name, &r, y);
}

static void pad_case(const char *name, tfl_op op, const int32_t in[4], const int32_t pads[8], float value)
{
  op_runner r;
  op_runner_init(&r, op);
  int x = ftensor(&r, 4, in, false, -1, 1);
  int pd = itensor(&r, 2, (int32_t[]){4, 2}, pads);
  int32_t out[4];
  for (int d = 0; d < 4; d++) out[d] = in[d] + pads[2 * d] + pads[2 * d + 1];
  int v = op == TFL_OP_PADV2 ? op_runner_tensor(&r, TFL_TYPE_FLOAT32, 0, NULL, &value, true) : -1;
  int y = ftensor(&r, 4, out, false, 0, 0);
  op_runner_io(&r, (int[]){x, pd, v}, op == TFL_OP_PADV2 ? 3 : 2, (int[]){y}, 1);
  check(name, &r, y);
}

/* ---- quantized (uint8 asymmetric per tensor; int8 with per-channel weights) ---- */

/* A quantized tensor of random values over the whole type range (uniform bytes). */
static int qtensor(op_runner *r, tfl_type type, int ndim, const int32_t *dims, bool is_const, float scale,
                   int32_t zp)
{
  static uint8_t buf[1 << 14];
  size_t n = count(ndim, dims);
  if (n > sizeof buf) abort();
  for (size_t i = 0; i < n; i++) {
    rng = rng * 1664525u + 1013904223u;
    buf[i] = (uint8_t)(rng >> 24);
  }
  int t = op_runner_tensor(r, type, ndim, dims, buf, is_const);
  op_runner_quant(r, t, 1, &scale, &zp, 0);
  return t;
}

static int bias_tensor(op_runner *r, int32_t n, int32_t range)
{
  int32_t *v = malloc(sizeof(int32_t) * (size_t)n);
  for (int32_t i = 0; i < n; i++) {
    rng = rng * 1664525u + 1013904223u;
    v[i] = (int32_t)((rng >> 8) % (uint32_t)(2 * range + 1)) - range;
  }
  int t = itensor(r, 1, &n, v);
  free(v);
  return t;
}

/* uint8 conv / depthwise: x (0.02, 128), w (0.01, 120) or int8 per channel, y (0.05, 100). */
static void qconv_case(const char *name, tfl_op op, bool s8, const int32_t in[4], const int32_t w[4], int mult,
                       tfl_padding pad, int stride, tfl_activation act, bool bias)
{
  op_runner r;
  op_runner_init(&r, op);
  bool dw = op == TFL_OP_DEPTHWISE_CONV_2D;
  r.node.p.conv = (tfl_conv_params){.padding = pad, .stride_h = stride, .stride_w = stride, .dilation_h = 1,
                                    .dilation_w = 1, .act = act, .depth_multiplier = dw ? mult : 0};
  tfl_type t = s8 ? TFL_TYPE_INT8 : TFL_TYPE_UINT8;
  int x = qtensor(&r, t, 4, in, false, 0.02f, s8 ? 3 : 128);
  int f;
  int32_t oc = dw ? w[3] : w[0];
  if (s8) { /* per channel, zero points 0, along 0 (conv) or 3 (depthwise) */
    f = qtensor(&r, t, 4, w, true, 1.0f, 0);
    float sc[64];
    int32_t zp[64] = {0};
    for (int c = 0; c < oc; c++) sc[c] = 0.004f + 0.001f * (float)c;
    op_runner_quant(&r, f, oc, sc, zp, dw ? 3 : 0);
  } else {
    f = qtensor(&r, t, 4, w, true, 0.01f, 120);
  }
  int b = bias ? bias_tensor(&r, oc, 2000) : -1;
  int oh = tfl_conv_out_size(pad, in[1], w[1], stride, 1), ow = tfl_conv_out_size(pad, in[2], w[2], stride, 1);
  int y = qtensor(&r, t, 4, (int32_t[]){in[0], oh, ow, oc}, false, 0.05f, s8 ? -20 : 100);
  op_runner_io(&r, (int[]){x, f, b}, 3, (int[]){y}, 1);
  check(name, &r, y);
}

static void qfc_case(const char *name, int in_nd, const int32_t *in, int32_t oc, int32_t ic, int out_nd,
                     const int32_t *out)
{
  op_runner r;
  op_runner_init(&r, TFL_OP_FULLY_CONNECTED);
  r.node.p.fc = (tfl_fc_params){.act = TFL_ACT_RELU};
  int x = qtensor(&r, TFL_TYPE_UINT8, in_nd, in, false, 0.02f, 128);
  int f = qtensor(&r, TFL_TYPE_UINT8, 2, (int32_t[]){oc, ic}, true, 0.01f, 131);
  int b = bias_tensor(&r, oc, 3000);
  int y = qtensor(&r, TFL_TYPE_UINT8, out_nd, out, false, 0.04f, 60);
  op_runner_io(&r, (int[]){x, f, b}, 3, (int[]){y}, 1);
  check(name, &r, y);
}

static void qbinary_case(const char *name, tfl_op op, const int32_t a[4], const int32_t bd[4], float sa, int32_t za,
                         float sb, int32_t zb, float sy, int32_t zy, tfl_activation act)
{
  op_runner r;
  op_runner_init(&r, op);
  r.node.p.eltwise.act = act;
  int x0 = qtensor(&r, TFL_TYPE_UINT8, 4, a, false, sa, za);
  int x1 = qtensor(&r, TFL_TYPE_UINT8, 4, bd, false, sb, zb);
  int32_t yd[4];
  for (int d = 0; d < 4; d++) yd[d] = a[d] > bd[d] ? a[d] : bd[d];
  int y = qtensor(&r, TFL_TYPE_UINT8, 4, yd, false, sy, zy);
  op_runner_io(&r, (int[]){x0, x1}, 2, (int[]){y}, 1);
  check(name, &r, y);
}

static void quant_cases(void)
{
  qconv_case("q8 conv SAME stride 2 asym relu6", TFL_OP_CONV_2D, false, (int32_t[]){1, 7, 8, 3},
             (int32_t[]){4, 3, 3, 3}, 0, TFL_PAD_SAME, 2, TFL_ACT_RELU6, true);
  qconv_case("q8 conv 1x1 no bias", TFL_OP_CONV_2D, false, (int32_t[]){1, 4, 5, 16}, (int32_t[]){8, 1, 1, 16},
             0, TFL_PAD_SAME, 1, TFL_ACT_NONE, false);
  qconv_case("q8 conv VALID stride 1 relu", TFL_OP_CONV_2D, false, (int32_t[]){2, 6, 6, 5},
             (int32_t[]){6, 3, 3, 5}, 0, TFL_PAD_VALID, 1, TFL_ACT_RELU, true);
  qconv_case("q8 depthwise SAME stride 2 relu6", TFL_OP_DEPTHWISE_CONV_2D, false, (int32_t[]){1, 8, 7, 4},
             (int32_t[]){1, 3, 3, 4}, 1, TFL_PAD_SAME, 2, TFL_ACT_RELU6, true);
  qconv_case("q8 depthwise multiplier 2", TFL_OP_DEPTHWISE_CONV_2D, false, (int32_t[]){1, 6, 5, 3},
             (int32_t[]){1, 3, 3, 6}, 2, TFL_PAD_SAME, 1, TFL_ACT_NONE, true);
  qconv_case("s8 conv per-channel relu6", TFL_OP_CONV_2D, true, (int32_t[]){1, 7, 6, 3}, (int32_t[]){5, 3, 3, 3},
             0, TFL_PAD_SAME, 2, TFL_ACT_RELU6, true);
  qconv_case("s8 depthwise per-channel", TFL_OP_DEPTHWISE_CONV_2D, true, (int32_t[]){1, 6, 6, 4},
             (int32_t[]){1, 3, 3, 4}, 1, TFL_PAD_SAME, 1, TFL_ACT_NONE, true);

  qfc_case("q8 fully connected", 2, (int32_t[]){3, 20}, 7, 20, 2, (int32_t[]){3, 7});
  qfc_case("q8 fully connected 4D flattened", 4, (int32_t[]){1, 2, 2, 5}, 6, 20, 2, (int32_t[]){1, 6});

  qbinary_case("q8 add different scales relu", TFL_OP_ADD, (int32_t[]){1, 4, 5, 3}, (int32_t[]){1, 4, 5, 3},
               0.02f, 128, 0.05f, 90, 0.06f, 110, TFL_ACT_RELU);
  qbinary_case("q8 add broadcast", TFL_OP_ADD, (int32_t[]){1, 4, 5, 3}, (int32_t[]){1, 1, 1, 3}, 0.03f, 120,
               0.01f, 10, 0.04f, 128, TFL_ACT_NONE);
  qbinary_case("q8 mul", TFL_OP_MUL, (int32_t[]){1, 3, 4, 6}, (int32_t[]){1, 3, 4, 6}, 0.02f, 128, 0.02f, 100,
               0.03f, 128, TFL_ACT_NONE);

  qbinary_case("q8 sub relu6", TFL_OP_SUB, (int32_t[]){1, 3, 4, 6}, (int32_t[]){1, 3, 4, 6}, 0.02f, 128, 0.03f,
               140, 0.03f, 20, TFL_ACT_RELU6);

  op_runner r;
  int x, y;
  op_runner_init(&r, TFL_OP_RELU6);
  x = qtensor(&r, TFL_TYPE_UINT8, 2, (int32_t[]){4, 30}, false, 0.05f, 100);
  y = qtensor(&r, TFL_TYPE_UINT8, 2, (int32_t[]){4, 30}, false, 0.05f, 100);
  op_runner_io(&r, (int[]){x}, 1, (int[]){y}, 1);
  check("q8 relu6 (same quantization: a clamp)", &r, y);

  /* max pool, global average pool (mobilenet's head), logistic, reshape, pad */
  op_runner_init(&r, TFL_OP_MAX_POOL_2D);
  r.node.p.pool = (tfl_pool_params){.padding = TFL_PAD_SAME, .stride_h = 2, .stride_w = 2, .filter_h = 3,
                                    .filter_w = 3};
  x = qtensor(&r, TFL_TYPE_UINT8, 4, (int32_t[]){1, 7, 8, 3}, false, 0.1f, 10);
  y = qtensor(&r, TFL_TYPE_UINT8, 4, (int32_t[]){1, 4, 4, 3}, false, 0.1f, 10);
  op_runner_io(&r, (int[]){x}, 1, (int[]){y}, 1);
  check("q8 max pool SAME 3x3 stride 2", &r, y);

  op_runner_init(&r, TFL_OP_AVERAGE_POOL_2D);
  r.node.p.pool = (tfl_pool_params){.padding = TFL_PAD_VALID, .stride_h = 2, .stride_w = 2, .filter_h = 7,
                                    .filter_w = 7};
  x = qtensor(&r, TFL_TYPE_UINT8, 4, (int32_t[]){1, 7, 7, 40}, false, 0.02f, 0);
  y = qtensor(&r, TFL_TYPE_UINT8, 4, (int32_t[]){1, 1, 1, 40}, false, 0.02f, 0);
  op_runner_io(&r, (int[]){x}, 1, (int[]){y}, 1);
  check("q8 average pool over the whole input (global)", &r, y);

  op_runner_init(&r, TFL_OP_LOGISTIC);
  x = qtensor(&r, TFL_TYPE_UINT8, 2, (int32_t[]){4, 64}, false, 0.05f, 140);
  y = qtensor(&r, TFL_TYPE_UINT8, 2, (int32_t[]){4, 64}, false, 1.0f / 256.0f, 0);
  op_runner_io(&r, (int[]){x}, 1, (int[]){y}, 1);
  check("q8 logistic", &r, y);

  op_runner_init(&r, TFL_OP_RESHAPE);
  r.node.p.reshape.n = -1;
  x = qtensor(&r, TFL_TYPE_UINT8, 4, (int32_t[]){1, 2, 3, 4}, false, 0.1f, 7);
  int sh = itensor(&r, 1, (int32_t[]){2}, (int32_t[]){6, 4});
  y = qtensor(&r, TFL_TYPE_UINT8, 2, (int32_t[]){6, 4}, false, 0.1f, 7);
  op_runner_io(&r, (int[]){x, sh}, 2, (int[]){y}, 1);
  check("q8 reshape", &r, y);

  op_runner_init(&r, TFL_OP_PAD);
  x = qtensor(&r, TFL_TYPE_UINT8, 4, (int32_t[]){1, 3, 3, 2}, false, 0.1f, 77);
  int pd = itensor(&r, 2, (int32_t[]){4, 2}, (int32_t[]){0, 0, 1, 2, 2, 1, 0, 1});
  y = qtensor(&r, TFL_TYPE_UINT8, 4, (int32_t[]){1, 6, 6, 3}, false, 0.1f, 77);
  op_runner_io(&r, (int[]){x, pd}, 2, (int[]){y}, 1);
  check("q8 pad (zero point)", &r, y);

  /* refused: what XNNPACK cannot do exactly */
  struct {
    const char *what;
    int kind;
  } refuse[] = {
      {"q8 reshape with a different output quantization", 0},
      {"q8 softmax (float-only here)", 1},
      {"q8 average pool 2x2 (only global pooling is quantized here)", 2},
      {"q8 conv with requantization scale >= 256", 3},
      {"q8 add with input/output scale ratio >= 256", 4},
      {"q8 conv with uint8 input but int8 weights", 5},
      {"q8 conv with a fused TANH", 6},
      {"q8 max pool rescaling", 7},
  };
  for (size_t i = 0; i < sizeof refuse / sizeof refuse[0]; i++) {
    int k = refuse[i].kind;
    tfl_op ops[] = {TFL_OP_RESHAPE, TFL_OP_SOFTMAX, TFL_OP_AVERAGE_POOL_2D, TFL_OP_CONV_2D, TFL_OP_ADD,
                    TFL_OP_CONV_2D, TFL_OP_CONV_2D, TFL_OP_MAX_POOL_2D};
    op_runner_init(&r, ops[k]);
    const int32_t d4[4] = {1, 4, 4, 2};
    x = qtensor(&r, TFL_TYPE_UINT8, 4, d4, false, 0.1f, 7);
    if (k == 3 || k == 5 || k == 6) {
      r.node.p.conv = (tfl_conv_params){.padding = TFL_PAD_SAME, .stride_h = 1, .stride_w = 1, .dilation_h = 1,
                                        .dilation_w = 1, .act = k == 6 ? TFL_ACT_TANH : TFL_ACT_NONE};
      int f = qtensor(&r, k == 5 ? TFL_TYPE_INT8 : TFL_TYPE_UINT8, 4, (int32_t[]){2, 1, 1, 2}, true,
                      k == 3 ? 100.0f : 0.01f, 0);
      y = qtensor(&r, TFL_TYPE_UINT8, 4, d4, false, k == 3 ? 0.001f : 0.1f, 7);
      op_runner_io(&r, (int[]){x, f}, 2, (int[]){y}, 1);
    } else if (k == 4) {
      int x1 = qtensor(&r, TFL_TYPE_UINT8, 4, d4, false, 0.1f, 7);
      y = qtensor(&r, TFL_TYPE_UINT8, 4, d4, false, 0.0001f, 7);
      op_runner_io(&r, (int[]){x, x1}, 2, (int[]){y}, 1);
    } else if (k == 2 || k == 7) {
      r.node.p.pool = (tfl_pool_params){.padding = TFL_PAD_VALID, .stride_h = 2, .stride_w = 2, .filter_h = 2,
                                        .filter_w = 2};
      y = qtensor(&r, TFL_TYPE_UINT8, 4, (int32_t[]){1, 2, 2, 2}, false, k == 7 ? 0.2f : 0.1f, 7);
      op_runner_io(&r, (int[]){x}, 1, (int[]){y}, 1);
    } else {
      r.node.p.softmax.beta = 1.0f;
      r.node.p.reshape.n = -1;
      y = qtensor(&r, TFL_TYPE_UINT8, 4, d4, false, k == 1 ? 1.0f / 256.0f : 0.2f, k == 1 ? 0 : 7);
      op_runner_io(&r, (int[]){x}, 1, (int[]){y}, 1);
    }
    if (xnn_partition_supports(&r.graph, 0)) {
      fprintf(stderr, "FAIL %s should be refused\n", refuse[i].what);
      failures++;
    } else {
      checked++;
    }
    op_runner_free(&r);
  }
}

static void misc_cases(void)
{
  op_runner r;

  op_runner_init(&r, TFL_OP_PRELU);
  int x = ftensor(&r, 4, (int32_t[]){1, 3, 4, 5}, false, -1, 1);
  int a = ftensor(&r, 3, (int32_t[]){1, 1, 5}, true, 0, 0.5f);
  int y = ftensor(&r, 4, (int32_t[]){1, 3, 4, 5}, false, 0, 0);
  op_runner_io(&r, (int[]){x, a}, 2, (int[]){y}, 1);
  check("prelu per channel", &r, y);

  op_runner_init(&r, TFL_OP_DEPTH_TO_SPACE);
  r.node.p.d2s.block_size = 2;
  x = ftensor(&r, 4, (int32_t[]){1, 3, 2, 12}, false, -1, 1);
  y = ftensor(&r, 4, (int32_t[]){1, 6, 4, 3}, false, 0, 0);
  op_runner_io(&r, (int[]){x}, 1, (int[]){y}, 1);
  check("depth to space 2", &r, y);

  op_runner_init(&r, TFL_OP_MEAN);
  r.node.p.reducer.keep_dims = false;
  x = ftensor(&r, 4, (int32_t[]){1, 5, 6, 7}, false, -1, 1);
  int ax = itensor(&r, 1, (int32_t[]){2}, (int32_t[]){1, 2});
  y = ftensor(&r, 2, (int32_t[]){1, 7}, false, 0, 0);
  op_runner_io(&r, (int[]){x, ax}, 2, (int[]){y}, 1);
  check("mean over H,W (global pool + reshape)", &r, y);

  op_runner_init(&r, TFL_OP_MEAN);
  r.node.p.reducer.keep_dims = true;
  x = ftensor(&r, 4, (int32_t[]){2, 4, 3, 5}, false, -1, 1);
  ax = itensor(&r, 1, (int32_t[]){2}, (int32_t[]){2, -3});
  y = ftensor(&r, 4, (int32_t[]){2, 1, 1, 5}, false, 0, 0);
  op_runner_io(&r, (int[]){x, ax}, 2, (int[]){y}, 1);
  check("mean keep_dims", &r, y);

  op_runner_init(&r, TFL_OP_RESHAPE);
  r.node.p.reshape.n = -1;
  x = ftensor(&r, 4, (int32_t[]){1, 2, 3, 4}, false, -1, 1);
  int sh = itensor(&r, 1, (int32_t[]){2}, (int32_t[]){6, 4});
  y = ftensor(&r, 2, (int32_t[]){6, 4}, false, 0, 0);
  op_runner_io(&r, (int[]){x, sh}, 2, (int[]){y}, 1);
  check("reshape", &r, y);

  /* refused: softmax with beta != 1, mean over channels */
  op_runner_init(&r, TFL_OP_SOFTMAX);
  r.node.p.softmax.beta = 0.5f;
  x = ftensor(&r, 2, (int32_t[]){2, 3}, false, -1, 1);
  y = ftensor(&r, 2, (int32_t[]){2, 3}, false, 0, 0);
  op_runner_io(&r, (int[]){x}, 1, (int[]){y}, 1);
  if (xnn_partition_supports(&r.graph, 0)) {
    fprintf(stderr, "FAIL softmax beta 0.5 should be refused\n");
    failures++;
  }
  op_runner_free(&r);
}

/* conv -> relu -> add(conv, relu): the conv output is read by a node outside the run
 * (a fourth node, not in the partition), so it must be written to its tensor too. */
static void multi_node_case(void)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_tensor t[6];
  tfl_node nodes[4];
  int32_t io[4][3];
  int32_t outs[2] = {3, 5};
  memset(t, 0, sizeof t);
  memset(nodes, 0, sizeof nodes);
  int32_t xd[4] = {1, 5, 5, 2}, wd[4] = {2, 3, 3, 2}, bd[1] = {2};
  const int32_t *dims[6] = {xd, wd, bd, xd, xd, xd};
  int nds[6] = {4, 4, 1, 4, 4, 4};
  for (int i = 0; i < 6; i++) {
    t[i].type = TFL_TYPE_FLOAT32;
    t[i].ndim = nds[i];
    memcpy(t[i].dims, dims[i], sizeof(int32_t) * (size_t)nds[i]);
    tfl_tensor_update_bytes(&t[i]);
    t[i].data = calloc(1, t[i].bytes + SLACK);
    t[i].is_const = i == 1 || i == 2;
    t[i].producer = -1;
    memcpy(t[i].data, rand_buf(tfl_tensor_count(&t[i]), -1, 1), t[i].bytes);
  }
  /* tensors: 0 x, 1 w, 2 b, 3 conv out (graph output), 4 relu out, 5 add out */
  const tfl_op ops[4] = {TFL_OP_CONV_2D, TFL_OP_RELU, TFL_OP_ADD, TFL_OP_RELU};
  const int32_t ins[4][3] = {{0, 1, 2}, {3}, {3, 4}, {4}};
  const int n_in[4] = {3, 1, 2, 1};
  const int32_t node_out[4] = {3, 4, 5, 5};
  for (int i = 0; i < 4; i++) {
    nodes[i].op = ops[i];
    nodes[i].version = 1;
    nodes[i].n_in = n_in[i];
    nodes[i].in = io[i];
    memcpy(io[i], ins[i], sizeof(int32_t) * (size_t)n_in[i]);
    nodes[i].n_out = 1;
    nodes[i].out = (int32_t *)&node_out[i];
  }
  nodes[0].p.conv = (tfl_conv_params){.padding = TFL_PAD_SAME, .stride_h = 1, .stride_w = 1, .dilation_h = 1,
                                      .dilation_w = 1, .act = TFL_ACT_NONE};
  /* node 3 writes tensor 5 again only to make tensor 4 "read outside the run" */
  nodes[3].dead = false;
  tfl_graph g = {.n_tensors = 6, .tensors = t, .n_nodes = 4, .nodes = nodes, .n_outputs = 2, .outputs = outs};

  float want3[50], want4[50], want5[50];
  bool have_ref = true;
  for (int i = 0; i < 3 && have_ref; i++) {
    const cpu_kernel *k = cpu_reference_kernel(nodes[i].op);
    if (!k || !k->prepare || !k->eval) {
      have_ref = false;
      break;
    }
    void *st = NULL;
    if (k->prepare(&g, &nodes[i], &st, &diag) != TFL_OK || k->eval(&g, &nodes[i], st, NULL, &diag) != TFL_OK) {
      fprintf(stderr, "FAIL multi-node: reference node %d: %s\n", i, diag.error);
      failures++;
      have_ref = false;
    }
    if (k->release) k->release(st);
  }
  if (!have_ref) {
    printf("SKIP multi-node partition: reference kernels missing\n");
    skipped++;
  } else {
    memcpy(want3, t[3].data, t[3].bytes);
    memcpy(want4, t[4].data, t[4].bytes);
    memcpy(want5, t[5].data, t[5].bytes);
    for (int i = 3; i < 6; i++) memset(t[i].data, 0, t[i].bytes);
    xnn_partition *p = NULL;
    int32_t run[3] = {0, 1, 2};
    if (xnn_partition_create(&g, run, 3, NULL, &p, &diag) != TFL_OK || xnn_partition_run(p, &diag) != TFL_OK) {
      fprintf(stderr, "FAIL multi-node: %s\n", diag.error);
      failures++;
    } else if (!near("multi-node: conv out (graph output)", t[3].data, want3, 50) ||
               !near("multi-node: relu out (read outside)", t[4].data, want4, 50) ||
               !near("multi-node: add out", t[5].data, want5, 50)) {
      failures++;
    } else {
      checked++;
    }
    xnn_partition_free(p);
  }
  for (int i = 0; i < 6; i++) free(t[i].data);
}

/* x -> CONV 3x3 -> c -> RELU -> y with y given x's bytes, as the planner may (x's last
 * reader is the conv, y is born at the RELU): XNNPACK would fuse the RELU into the conv,
 * which then writes y while reading x. The run must not fuse then (xnn_partition.c:
 * break_fused_overlaps), and xnn_partition_extra_uses must report the move (y written
 * when the conv runs) so the planner keeps them apart in the first place. */
static void fused_overlap_case(void)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_tensor t[5];
  tfl_node nodes[2];
  memset(t, 0, sizeof t);
  memset(nodes, 0, sizeof nodes);
  int32_t xd[4] = {1, 6, 6, 8}, wd[4] = {8, 3, 3, 8}, bd[1] = {8};
  const int32_t *dims[5] = {xd, wd, bd, xd, xd};
  const int nds[5] = {4, 4, 1, 4, 4};
  for (int i = 0; i < 5; i++) {
    t[i].type = TFL_TYPE_FLOAT32;
    t[i].ndim = nds[i];
    memcpy(t[i].dims, dims[i], sizeof(int32_t) * (size_t)nds[i]);
    tfl_tensor_update_bytes(&t[i]);
    t[i].is_const = i == 1 || i == 2;
    t[i].producer = i == 3 ? 0 : (i == 4 ? 1 : -1);
    if (i != 4) t[i].data = calloc(1, t[i].bytes + SLACK);
    if (i < 3) memcpy(t[i].data, rand_buf(tfl_tensor_count(&t[i]), -1, 1), t[i].bytes);
  }
  int32_t conv_in[3] = {0, 1, 2}, conv_out[1] = {3}, relu_in[1] = {3}, relu_out[1] = {4}, outs[1] = {4};
  nodes[0] = (tfl_node){.op = TFL_OP_CONV_2D, .version = 1, .n_in = 3, .n_out = 1, .in = conv_in, .out = conv_out};
  nodes[0].p.conv = (tfl_conv_params){.padding = TFL_PAD_SAME, .stride_h = 1, .stride_w = 1, .dilation_h = 1,
                                      .dilation_w = 1, .act = TFL_ACT_NONE};
  nodes[1] = (tfl_node){.op = TFL_OP_RELU, .version = 1, .n_in = 1, .n_out = 1, .in = relu_in, .out = relu_out};
  tfl_graph g = {.n_tensors = 5, .tensors = t, .n_nodes = 2, .nodes = nodes, .n_outputs = 1, .outputs = outs};
  /* the reference, with y in a buffer of its own */
  float want[288];
  t[4].data = want;
  for (int i = 0; i < 2; i++) {
    const cpu_kernel *k = cpu_reference_kernel(nodes[i].op);
    void *st = NULL;
    if (k->prepare(&g, &nodes[i], &st, &diag) != TFL_OK || k->eval(&g, &nodes[i], st, NULL, &diag) != TFL_OK) {
      fprintf(stderr, "FAIL fused overlap: reference node %d: %s\n", i, diag.error);
      failures++;
    }
    if (k->release) k->release(st);
  }
  tfl_extra_use uses[4];
  const int32_t run[2] = {0, 1};
  const int n_uses = xnn_partition_extra_uses(&g, run, 2, uses, 4);
  if (n_uses != 1 || uses[0].node != 0 || uses[0].tensor != 4) {
    fprintf(stderr, "FAIL fused overlap: extra uses: %d, first (%d, %d); expected 1, (0, 4)\n", n_uses,
            n_uses ? uses[0].node : -1, n_uses ? uses[0].tensor : -1);
    failures++;
  }
  t[4].data = t[0].data; /* y on x's bytes */
  xnn_partition *p = NULL;
  if (xnn_partition_create(&g, run, 2, NULL, &p, &diag) != TFL_OK || xnn_partition_run(p, &diag) != TFL_OK) {
    fprintf(stderr, "FAIL fused overlap: %s\n", diag.error);
    failures++;
  } else if (!near("fused overlap: y on x's bytes", t[4].data, want, 288)) {
    failures++;
  } else {
    checked++;
  }
  xnn_partition_free(p);
  for (int i = 0; i < 4; i++) free(t[i].data);
}

int main(void)
{
  /* convolution: 7x8 input, SAME, stride 2: padding (1,1) rows but (0,1) columns */
  conv_case("conv SAME stride 2 asym", TFL_OP_CONV_2D, (int32_t[]){1, 7, 8, 3}, (int32_t[]){4, 3, 3, 3}, 4,
            TFL_PAD_SAME, 2, 1, TFL_ACT_RELU6, true);
  conv_case("conv SAME 4x4 stride 1 (pad 1 before, 2 after)", TFL_OP_CONV_2D, (int32_t[]){2, 6, 5, 3},
            (int32_t[]){5, 4, 4, 3}, 5, TFL_PAD_SAME, 1, 1, TFL_ACT_NONE, true);
  conv_case("conv dilation 2 no bias", TFL_OP_CONV_2D, (int32_t[]){1, 9, 9, 2}, (int32_t[]){5, 3, 3, 2}, 5,
            TFL_PAD_SAME, 1, 2, TFL_ACT_RELU, false);
  conv_case("conv VALID stride 2", TFL_OP_CONV_2D, (int32_t[]){1, 9, 8, 4}, (int32_t[]){3, 3, 3, 4}, 3,
            TFL_PAD_VALID, 2, 1, TFL_ACT_NONE, true);
  conv_case("conv 1x1", TFL_OP_CONV_2D, (int32_t[]){1, 4, 4, 16}, (int32_t[]){8, 1, 1, 16}, 8, TFL_PAD_SAME,
            1, 1, TFL_ACT_RELU_N1_TO_1, true);
  conv_case("depthwise multiplier 2", TFL_OP_DEPTHWISE_CONV_2D, (int32_t[]){1, 6, 5, 3},
            (int32_t[]){1, 3, 3, 6}, 2, TFL_PAD_SAME, 1, 1, TFL_ACT_NONE, true);
  conv_case("depthwise SAME stride 2 asym", TFL_OP_DEPTHWISE_CONV_2D, (int32_t[]){1, 8, 7, 4},
            (int32_t[]){1, 3, 3, 4}, 1, TFL_PAD_SAME, 2, 1, TFL_ACT_RELU6, true);
  conv_case("depthwise dilation 2", TFL_OP_DEPTHWISE_CONV_2D, (int32_t[]){1, 9, 9, 3}, (int32_t[]){1, 3, 3, 3},
            1, TFL_PAD_SAME, 1, 2, TFL_ACT_NONE, false);

  transpose_conv_case("transpose conv SAME stride 2", (int32_t[]){1, 4, 4, 4}, (int32_t[]){2, 3, 3, 4}, 2,
                      TFL_PAD_SAME, 8, 8);
  transpose_conv_case("transpose conv VALID stride 2", (int32_t[]){1, 4, 3, 4}, (int32_t[]){2, 3, 3, 4}, 2,
                      TFL_PAD_VALID, 9, 7);
  transpose_conv_case("transpose conv SAME 4x4 stride 2", (int32_t[]){1, 3, 5, 2}, (int32_t[]){3, 4, 4, 2}, 2,
                      TFL_PAD_SAME, 6, 10);
  transpose_conv_case("transpose conv SAME stride 1", (int32_t[]){1, 5, 5, 3}, (int32_t[]){2, 3, 3, 3}, 1,
                      TFL_PAD_SAME, 5, 5);
  transpose_bias_case("Convolution2DTransposeBias 2x2 stride 2", (int32_t[]){1, 4, 5, 3},
                      (int32_t[]){2, 2, 2, 3}, 2, TFL_PAD_SAME);
  transpose_bias_case("Convolution2DTransposeBias 4x4 stride 2 SAME", (int32_t[]){1, 4, 5, 3},
                      (int32_t[]){2, 4, 4, 3}, 2, TFL_PAD_SAME);
  transpose_bias_case("Convolution2DTransposeBias 3x3 stride 2 VALID", (int32_t[]){1, 3, 4, 2},
                      (int32_t[]){4, 3, 3, 2}, 2, TFL_PAD_VALID);

  fc_case("fully connected 2D", 2, (int32_t[]){2, 5}, 3, 2, (int32_t[]){2, 3}, false);
  fc_case("fully connected 4D flattened", 4, (int32_t[]){1, 2, 2, 3}, 4, 2, (int32_t[]){1, 4}, false);
  fc_case("fully connected keep_num_dims", 4, (int32_t[]){1, 3, 2, 5}, 4, 4, (int32_t[]){1, 3, 2, 4}, true);

  binary_case("add broadcast [3] + relu", TFL_OP_ADD, 4, (int32_t[]){1, 4, 4, 3}, 1, (int32_t[]){3}, 4,
              (int32_t[]){1, 4, 4, 3}, TFL_ACT_RELU, true);
  binary_case("mul broadcast both ways", TFL_OP_MUL, 4, (int32_t[]){1, 4, 1, 3}, 4, (int32_t[]){1, 1, 5, 1}, 4,
              (int32_t[]){1, 4, 5, 3}, TFL_ACT_NONE, false);
  binary_case("sub relu6", TFL_OP_SUB, 4, (int32_t[]){2, 3, 3, 2}, 4, (int32_t[]){2, 3, 3, 2}, 4,
              (int32_t[]){2, 3, 3, 2}, TFL_ACT_RELU6, false);
  binary_case("div scalar", TFL_OP_DIV, 3, (int32_t[]){2, 3, 4}, 0, NULL, 3, (int32_t[]){2, 3, 4},
              TFL_ACT_NONE, true);
  binary_case("maximum broadcast", TFL_OP_MAXIMUM, 2, (int32_t[]){4, 3}, 2, (int32_t[]){1, 3}, 2,
              (int32_t[]){4, 3}, TFL_ACT_NONE, true);
  binary_case("minimum", TFL_OP_MINIMUM, 1, (int32_t[]){7}, 1, (int32_t[]){7}, 1, (int32_t[]){7}, TFL_ACT_NONE,
              false);

  pool_case("average pool SAME 3x3 stride 2 (padding excluded)", TFL_OP_AVERAGE_POOL_2D,
            (int32_t[]){1, 7, 8, 3}, 3, 2, TFL_PAD_SAME);
  pool_case("average pool VALID 2x2 stride 2", TFL_OP_AVERAGE_POOL_2D, (int32_t[]){1, 6, 7, 2}, 2, 2,
            TFL_PAD_VALID);
  pool_case("max pool SAME 3x3 stride 2", TFL_OP_MAX_POOL_2D, (int32_t[]){1, 7, 8, 3}, 3, 2, TFL_PAD_SAME);
  pool_case("max pool VALID 2x2 stride 2", TFL_OP_MAX_POOL_2D, (int32_t[]){2, 6, 6, 3}, 2, 2, TFL_PAD_VALID);

  for (int up = 0; up < 2; up++) {
    const int32_t in[4] = {1, 3, 4, 2};
    int oh = up ? 7 : 2, ow = up ? 9 : 3;
    char nm[96];
    snprintf(nm, sizeof nm, "resize bilinear %s legacy (neither flag)", up ? "up" : "down");
    resize_case(nm, in, oh, ow, false, false);
    snprintf(nm, sizeof nm, "resize bilinear %s align_corners", up ? "up" : "down");
    resize_case(nm, in, oh, ow, true, false);
    snprintf(nm, sizeof nm, "resize bilinear %s half_pixel_centers", up ? "up" : "down");
    resize_case(nm, in, oh, ow, false, true);
  }
  resize_case("resize bilinear x2 half_pixel_centers", (int32_t[]){1, 4, 4, 3}, 8, 8, false, true);

  unary_case("softmax last axis", TFL_OP_SOFTMAX, 2, (int32_t[]){3, 10});
  unary_case("softmax 4D", TFL_OP_SOFTMAX, 4, (int32_t[]){1, 2, 3, 5});
  unary_case("relu", TFL_OP_RELU, 4, (int32_t[]){1, 2, 3, 5});
  unary_case("relu6", TFL_OP_RELU6, 4, (int32_t[]){1, 2, 3, 5});
  unary_case("logistic", TFL_OP_LOGISTIC, 2, (int32_t[]){4, 9});
  unary_case("hard swish", TFL_OP_HARD_SWISH, 2, (int32_t[]){4, 9});

  pad_case("pad zero", TFL_OP_PAD, (int32_t[]){1, 3, 3, 2}, (int32_t[]){0, 0, 1, 2, 2, 1, 0, 1}, 0.0f);
  pad_case("padv2 value", TFL_OP_PADV2, (int32_t[]){1, 2, 3, 2}, (int32_t[]){1, 0, 0, 2, 1, 1, 0, 0}, -3.5f);

  misc_cases();
  quant_cases();
  multi_node_case();
  fused_overlap_case();

  printf("%d checks passed, %d failures, %d skipped\n", checked, failures, skipped);
  if (failures) return 1;
  return skipped ? 77 : 0;
}
