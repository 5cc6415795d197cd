/* xnn_partition.c - maps a run of float32 or 8-bit quantized nodes onto one XNNPACK subgraph.
 *
 * Written against Debian's XNNPACK snapshot (0.0~git20220216, /usr/include/xnnpack.h):
 * no concatenate, slice, transpose, mean over arbitrary axes, tanh or exp there, so those
 * ops break a float graph into several partitions and run on our own kernels.
 *
 * 8-bit nodes (chosen by the output's type) map TFLite's uint8 asymmetric per-tensor
 * quantization to quint8, int8 to qint8 (per-channel int8 weights to qcint8), int32
 * biases to qint32 with scale in_scale * w_scale. This snapshot has 8-bit conv, depthwise,
 * fully connected, add, subtract, multiply, max pool, global average pool, clamp,
 * sigmoid, pad and reshape; no 8-bit softmax or windowed average pool.
 *
 * Values: a tensor read from outside the run, or read after it (later nodes, graph
 * outputs), is an external value bound to tensor->data; constants are static values;
 * everything else is internal and lives in XNNPACK's own workspace. The runtime is set
 * up once at create time, so a run is one xnn_invoke_runtime call.
 */
#include "xnn_partition.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <xnnpack.h>

#include "cpu_util.h"
#include "kernels/conv_sparse1x1.h"

struct xnn_partition {
  xnn_runtime_t rt;
  int n_blocks;
  void **blocks;          /* our copies of constants XNNPACK reads at run time */
};

/* Tensor roles inside one run. */
enum { ROLE_NONE = 0, ROLE_INTERNAL, ROLE_EXT_IN, ROLE_EXT_OUT };

typedef struct {
  tfl_graph *g;
  xnn_subgraph_t sg;
  xnn_partition *p;
  uint8_t *role;          /* per graph tensor */
  uint32_t *ids;          /* per graph tensor: XNNPACK value id or XNN_INVALID_VALUE_ID */
  uint32_t *ext_ids;      /* per graph tensor: the external id reserved for it */
  int node;               /* node being defined, for error messages */
  tfl_diag *diag;         /* where failures are reported */
} builder;

/* ---- one-time library init ------------------------------------------------ */

/* The one piece of process-wide state in the delegates, and it is XNNPACK's own:
 * xnn_initialize fills the library's global hardware configuration and must have run
 * before any subgraph is created. pthread_once makes the first call from any thread
 * do it exactly once; init_status is written only inside that call and only read after
 * pthread_once returns, so it needs no lock. */
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static enum xnn_status init_status = xnn_status_uninitialized;

static void init_xnnpack(void)
{
  init_status = xnn_initialize(NULL);
}

/* ---- small predicates ----------------------------------------------------- */

static const tfl_tensor *tensor_at(const tfl_graph *g, const tfl_node *n, int i, bool output)
{
  int cnt = output ? n->n_out : n->n_in;
  const int32_t *idx = output ? n->out : n->in;
  if (i >= cnt || idx[i] < 0 || idx[i] >= g->n_tensors) return NULL;
  return &g->tensors[idx[i]];
}

static bool is_f32(const tfl_tensor *t)
{
  return t && t->type == TFL_TYPE_FLOAT32 && t->q.n == 0 && t->ndim <= XNN_MAX_TENSOR_DIMS &&
         t->sparsity == NULL;
}

static bool is_const_f32(const tfl_tensor *t)
{
  return is_f32(t) && t->is_const && t->data;
}

/* A constant int32/int64 tensor (shapes, axes, paddings). */
static bool is_const_int(const tfl_tensor *t)
{
  return t && t->is_const && t->data && (t->type == TFL_TYPE_INT32 || t->type == TFL_TYPE_INT64);
}

static int64_t int_at(const tfl_tensor *t, size_t i)
{
  return t->type == TFL_TYPE_INT64 ? ((const int64_t *)t->data)[i] : ((const int32_t *)t->data)[i];
}

/* PAD/PADV2's paddings: a constant [rank, 2] table of non-negative amounts that grows x to y. */
static bool pad_shape_ok(const tfl_graph *g, const tfl_node *n, const tfl_tensor *x, const tfl_tensor *y)
{
  const tfl_tensor *pd = tensor_at(g, n, 1, false);
  if (!is_const_int(pd) || x->ndim < 1 || pd->ndim != 2 || pd->dims[0] != x->ndim || pd->dims[1] != 2 ||
      y->ndim != x->ndim)
    return false;
  for (int d = 0; d < x->ndim; d++) {
    int64_t lo = int_at(pd, 2 * (size_t)d), hi = int_at(pd, 2 * (size_t)d + 1);
    if (lo < 0 || hi < 0 || x->dims[d] + lo + hi != y->dims[d]) return false;
  }
  return true;
}

/* FULLY_CONNECTED's shapes: w [OC, IC]; y keeps x's leading dims (keep_num_dims) or is
 * [count / IC, OC]. */
static bool fc_shape_ok(const tfl_tensor *x, const tfl_tensor *w, const tfl_tensor *y)
{
  size_t cnt = tfl_tensor_count(x);
  if (w->dims[1] <= 0 || cnt % (size_t)w->dims[1] != 0) return false;
  if (y->dims[y->ndim - 1] != w->dims[0]) return false;
  if (y->ndim == x->ndim && x->dims[x->ndim - 1] == w->dims[1]) {
    for (int d = 0; d + 1 < x->ndim; d++)
      if (x->dims[d] != y->dims[d]) return false;
    return true;
  }
  return y->ndim == 2 && (size_t)y->dims[0] == cnt / (size_t)w->dims[1];
}

/* Clamp range of a fused activation; false for activations XNNPACK cannot fuse. */
static bool act_range(tfl_activation act, float *lo, float *hi)
{
  *lo = -INFINITY;
  *hi = INFINITY;
  switch (act) {
  case TFL_ACT_NONE: *lo = -INFINITY; *hi = INFINITY; return true;
  case TFL_ACT_RELU: *lo = 0.0f; *hi = INFINITY; return true;
  case TFL_ACT_RELU_N1_TO_1: *lo = -1.0f; *hi = 1.0f; return true;
  case TFL_ACT_RELU6: *lo = 0.0f; *hi = 6.0f; return true;
  case TFL_ACT_TANH:
  case TFL_ACT_SIGN_BIT:
  case TFL_ACT_SIGMOID: return false;
  }
  return false;
}

static bool act_ok(tfl_activation act)
{
  float lo, hi;
  return act_range(act, &lo, &hi);
}

/* Every non-optional input and every output is float32 (index mask of inputs to check). */
static bool all_f32(const tfl_graph *g, const tfl_node *n, unsigned in_mask)
{
  for (int i = 0; i < n->n_in && i < 32; i++)
    if ((in_mask >> i) & 1u) {
      const tfl_tensor *t = tensor_at(g, n, i, false);
      if (!is_f32(t)) return false;
    }
  if (n->n_out != 1) return false;
  return is_f32(tensor_at(g, n, 0, true));
}

static bool same_dims(const tfl_tensor *a, const tfl_tensor *b)
{
  if (a->ndim != b->ndim) return false;
  for (int d = 0; d < a->ndim; d++)
    if (a->dims[d] != b->dims[d]) return false;
  return true;
}

static bool bias_ok(const tfl_graph *g, const tfl_node *n, int i, int32_t channels)
{
  const tfl_tensor *b = tensor_at(g, n, i, false);
  if (!b) return true;
  return is_const_f32(b) && tfl_tensor_count(b) == (size_t)channels;
}

/* TFLite SAME/VALID padding of one spatial axis as explicit before/after amounts. */
static void conv_padding(tfl_padding pad, int in, int k, int stride, int dil, int out, uint32_t *before,
                         uint32_t *after)
{
  *before = (uint32_t)tfl_conv_pad_before(pad, in, k, stride, dil, out);
  *after = (uint32_t)tfl_conv_pad_after(pad, in, k, stride, dil, out);
}

/* Leading padding of a transposed convolution's output, per op.
 * TRANSPOSE_CONV: TFLite's padding of the forward conv from the output size.
 * Convolution2DTransposeBias: MediaPipe's rule from the input size. */
static int deconv_pad_before(const tfl_node *n, int in, int k, int stride, int out)
{
  if (n->p.conv.padding == TFL_PAD_VALID) return 0;
  int total;
  if (n->op == TFL_OP_TRANSPOSE_CONV) {
    int fwd = (out + stride - 1) / stride;
    total = (fwd - 1) * stride + k - out;
  } else { /* Convolution2DTransposeBias: half the overlap, as the reference kernel */
    total = (in - 1) * stride + k - out;
  }
  return total > 0 ? total / 2 : 0;
}

/* XNNPACK deconvolution geometry for one axis: padding before/after and adjustment so
 * that the output is exactly `out` long; false when it cannot be expressed. */
static bool deconv_axis(const tfl_node *n, int in, int k, int stride, int out, uint32_t *before,
                        uint32_t *after, uint32_t *adj)
{
  int b = deconv_pad_before(n, in, k, stride, out);
  int full = (in - 1) * stride + k;
  int a = full - b - out;
  int extra = 0;
  if (a < 0) {
    extra = -a;
    a = 0;
  }
  if (extra >= stride) return false;
  *before = (uint32_t)b;
  *after = (uint32_t)a;
  *adj = (uint32_t)extra;
  return true;
}

/* MEAN over H and W of a 4D tensor (the only reduction XNNPACK has: global average pooling). */
static bool mean_is_global_pool(const tfl_graph *g, const tfl_node *n)
{
  const tfl_tensor *x = tensor_at(g, n, 0, false), *ax = tensor_at(g, n, 1, false);
  const tfl_tensor *y = tensor_at(g, n, 0, true);
  if (!is_f32(x) || !is_f32(y) || x->ndim != 4 || !is_const_int(ax)) return false;
  size_t na = tfl_tensor_count(ax);
  bool h = false, w = false;
  for (size_t i = 0; i < na; i++) {
    int64_t a = int_at(ax, i);
    if (a < 0) a += 4;
    if (a == 1) h = true;
    else if (a == 2) w = true;
    else return false;
  }
  if (!h || !w) return false;
  /* output: [N,1,1,C] (keep_dims) or [N,C] */
  return tfl_tensor_count(y) == (size_t)x->dims[0] * (size_t)x->dims[3] &&
         y->dims[y->ndim - 1] == x->dims[3];
}

/* ---- supports ------------------------------------------------------------- */

static bool supports_node(const tfl_graph *g, const tfl_node *n)
{
  const tfl_tensor *x = tensor_at(g, n, 0, false), *y = tensor_at(g, n, 0, true);
  switch (n->op) {
  case TFL_OP_CONV_2D: {
    const tfl_tensor *w = tensor_at(g, n, 1, false);
    if (!all_f32(g, n, 1u) || !is_const_f32(w) || w->ndim != 4 || x->ndim != 4 || y->ndim != 4)
      return false;
    if (w->dims[3] <= 0 || x->dims[3] % w->dims[3] != 0) return false;
    int groups = x->dims[3] / w->dims[3];
    if (w->dims[0] % groups != 0 || y->dims[3] != w->dims[0]) return false;
    return bias_ok(g, n, 2, w->dims[0]) && act_ok(n->p.conv.act) && n->p.conv.stride_h > 0 &&
           n->p.conv.stride_w > 0 && n->p.conv.dilation_h > 0 && n->p.conv.dilation_w > 0;
  }
  case TFL_OP_DEPTHWISE_CONV_2D: {
    const tfl_tensor *w = tensor_at(g, n, 1, false);
    if (!all_f32(g, n, 1u) || !is_const_f32(w) || w->ndim != 4 || x->ndim != 4 || y->ndim != 4)
      return false;
    if (w->dims[0] != 1 || x->dims[3] <= 0 || w->dims[3] % x->dims[3] != 0 || y->dims[3] != w->dims[3])
      return false;
    return bias_ok(g, n, 2, w->dims[3]) && act_ok(n->p.conv.act) && n->p.conv.stride_h > 0 &&
           n->p.conv.stride_w > 0 && n->p.conv.dilation_h > 0 && n->p.conv.dilation_w > 0;
  }
  case TFL_OP_TRANSPOSE_CONV:
  case TFL_OP_CONV2D_TRANSPOSE_BIAS: {
    bool tc = n->op == TFL_OP_TRANSPOSE_CONV;
    const tfl_tensor *w = tensor_at(g, n, 1, false);
    const tfl_tensor *in = tensor_at(g, n, tc ? 2 : 0, false);
    if (!is_f32(in) || !is_const_f32(w) || n->n_out != 1 || !is_f32(y)) return false;
    if (w->ndim != 4 || in->ndim != 4 || y->ndim != 4 || in->dims[3] != w->dims[3] ||
        y->dims[3] != w->dims[0] || y->dims[0] != in->dims[0])
      return false;
    if (!bias_ok(g, n, tc ? 3 : 2, w->dims[0])) return false;
    if (!tc && !tensor_at(g, n, 2, false)) return false;
    if (n->p.conv.stride_h <= 0 || n->p.conv.stride_w <= 0) return false;
    if (tc && !act_ok(n->p.conv.act)) return false;
    uint32_t b, a, adj;
    return deconv_axis(n, in->dims[1], w->dims[1], n->p.conv.stride_h, y->dims[1], &b, &a, &adj) &&
           deconv_axis(n, in->dims[2], w->dims[2], n->p.conv.stride_w, y->dims[2], &b, &a, &adj);
  }
  case TFL_OP_FULLY_CONNECTED: {
    const tfl_tensor *w = tensor_at(g, n, 1, false);
    if (!all_f32(g, n, 1u) || !is_const_f32(w) || w->ndim != 2 || x->ndim < 1) return false;
    if (!bias_ok(g, n, 2, w->dims[0]) || !act_ok(n->p.fc.act)) return false;
    return fc_shape_ok(x, w, y);
  }
  case TFL_OP_ADD:
  case TFL_OP_SUB:
  case TFL_OP_MUL:
  case TFL_OP_DIV:
    if (!all_f32(g, n, 3u) || n->n_in != 2) return false;
    return act_ok(n->p.eltwise.act);
  case TFL_OP_MAXIMUM:
  case TFL_OP_MINIMUM:
    return n->n_in == 2 && all_f32(g, n, 3u);
  case TFL_OP_AVERAGE_POOL_2D:
  case TFL_OP_MAX_POOL_2D: {
    const tfl_pool_params *pp = &n->p.pool;
    if (!all_f32(g, n, 1u) || x->ndim != 4 || y->ndim != 4 || !act_ok(pp->act)) return false;
    if (pp->stride_h <= 0 || pp->stride_w <= 0 || pp->filter_h <= 0 || pp->filter_w <= 0) return false;
    /* XNNPACK rejects a 1x1 window; with stride 1 it is a plain clamp. */
    if (pp->filter_h * pp->filter_w == 1) return pp->stride_h == 1 && pp->stride_w == 1;
    return true;
  }
  case TFL_OP_RELU:
  case TFL_OP_RELU6:
  case TFL_OP_LOGISTIC:
  case TFL_OP_HARD_SWISH:
    return all_f32(g, n, 1u) && same_dims(x, y);
  case TFL_OP_PRELU: {
    const tfl_tensor *a = tensor_at(g, n, 1, false);
    if (!all_f32(g, n, 1u) || !is_const_f32(a) || x->ndim != 4 || !same_dims(x, y)) return false;
    /* XNNPACK takes one slope per channel: alpha must be [.., 1, C]. */
    if (tfl_tensor_count(a) != (size_t)x->dims[3] || a->ndim < 1 || a->dims[a->ndim - 1] != x->dims[3])
      return false;
    return true;
  }
  case TFL_OP_RESIZE_BILINEAR:
    if (!is_f32(x) || n->n_out != 1 || !is_f32(y) || x->ndim != 4 || y->ndim != 4) return false;
    if (y->dims[0] != x->dims[0] || y->dims[3] != x->dims[3]) return false;
    /* XNNPACK has half-pixel (no flag), align-corners, or TF1 legacy, never both flags */
    return !(n->p.resize.align_corners && n->p.resize.half_pixel_centers);
  case TFL_OP_SOFTMAX:
    return all_f32(g, n, 1u) && same_dims(x, y) && x->ndim >= 1 && n->p.softmax.beta == 1.0f;
  case TFL_OP_RESHAPE:
  case TFL_OP_SQUEEZE:
    return is_f32(x) && n->n_out == 1 && is_f32(y) && tfl_tensor_count(x) == tfl_tensor_count(y);
  case TFL_OP_PAD:
  case TFL_OP_PADV2: {
    if (!is_f32(x) || n->n_out != 1 || !is_f32(y) || !pad_shape_ok(g, n, x, y)) return false;
    if (n->op == TFL_OP_PADV2) {
      const tfl_tensor *v = tensor_at(g, n, 2, false);
      if (v && !(is_const_f32(v) && tfl_tensor_count(v) == 1)) return false;
    }
    return true;
  }
  case TFL_OP_DEPTH_TO_SPACE: {
    int bs = n->p.d2s.block_size;
    if (!all_f32(g, n, 1u) || x->ndim != 4 || y->ndim != 4 || bs < 2) return false;
    return y->dims[1] == x->dims[1] * bs && y->dims[2] == x->dims[2] * bs &&
           x->dims[3] == y->dims[3] * bs * bs;
  }
  case TFL_OP_MEAN:
    return mean_is_global_pool(g, n);
  default:   /* not in this XNNPACK snapshot, or not float */
    return false;
  }
  return false;
}

/* ---- quantized nodes ------------------------------------------------------ */

/* XNNPACK's 8-bit activation types: TFLite's uint8 (asymmetric, one scale and zero point
 * per tensor) is quint8, int8 per tensor is qint8. */
typedef enum { QK_NONE = 0, QK_U8, QK_S8 } qkind;

static bool scale_ok(float s)
{
  return s > 0.0f && isnormal(s);
}

static qkind q_kind(const tfl_tensor *t)
{
  if (!t || t->q.n != 1 || !t->q.scale || !t->q.zero_point || t->ndim > XNN_MAX_TENSOR_DIMS || t->sparsity ||
      !scale_ok(t->q.scale[0]))
    return QK_NONE;
  int32_t zp = t->q.zero_point[0];
  if (t->type == TFL_TYPE_UINT8 && zp >= 0 && zp <= 255) return QK_U8;
  if (t->type == TFL_TYPE_INT8 && zp >= -128 && zp <= 127) return QK_S8;
  return QK_NONE;
}

static float qscale(const tfl_tensor *t)
{
  return t->q.scale[0];
}

static int32_t qzp(const tfl_tensor *t)
{
  return t->q.zero_point[0];
}

static bool same_quant(const tfl_tensor *a, const tfl_tensor *b)
{
  return qscale(a) == qscale(b) && qzp(a) == qzp(b);
}

/* Every input in in_mask and the single output are activations of kind k. */
static bool all_q(const tfl_graph *g, const tfl_node *n, unsigned in_mask, qkind k)
{
  for (int i = 0; i < n->n_in && i < 32; i++)
    if ((in_mask >> i) & 1u)
      if (q_kind(tensor_at(g, n, i, false)) != k) return false;
  return n->n_out == 1 && q_kind(tensor_at(g, n, 0, true)) == k;
}

/* XNNPACK turns a fused activation's float bounds into lrintf(v / scale + zp) clamped to
 * the type (ties to even); TFLite rounds v / scale half away from zero. Take the node only
 * where both give the same integer range. */
static bool q_act_ok(tfl_activation act, const tfl_tensor *y)
{
  float lo, hi;
  if (!act_range(act, &lo, &hi)) return false;
  float tmin = y->type == TFL_TYPE_UINT8 ? 0.0f : -128.0f, tmax = y->type == TFL_TYPE_UINT8 ? 255.0f : 127.0f;
  int32_t xlo = (int32_t)lrintf(fminf(fmaxf(lo / qscale(y) + (float)qzp(y), tmin), tmax));
  int32_t xhi = (int32_t)lrintf(fminf(fmaxf(hi / qscale(y) + (float)qzp(y), tmin), tmax));
  int32_t tlo, thi;
  cpu_activation_range_q(act, qscale(y), qzp(y), y->type, &tlo, &thi);
  return xlo == tlo && xhi == thi && xlo < xhi;
}

/* Filter of a quantized conv/fc: uint8 per tensor for quint8 activations; for qint8 ones
 * int8 with zero point 0, per tensor (qint8) or, if allowed, per channel along `axis`
 * (qcint8). `channels` is the output channel count. */
static bool q_filter_ok(const tfl_tensor *w, qkind k, int axis, int channels, bool channelwise)
{
  if (!w || !w->is_const || !w->data || w->sparsity || w->q.n < 1 || !w->q.scale || !w->q.zero_point ||
      w->ndim > XNN_MAX_TENSOR_DIMS)
    return false;
  if (k == QK_U8)
    return w->type == TFL_TYPE_UINT8 && w->q.n == 1 && scale_ok(w->q.scale[0]) && w->q.zero_point[0] >= 0 &&
           w->q.zero_point[0] <= 255;
  if (k != QK_S8 || w->type != TFL_TYPE_INT8) return false;
  if (w->q.n > 1 && (!channelwise || w->q.n != channels || w->q.axis != axis)) return false;
  for (int c = 0; c < w->q.n; c++)
    if (!scale_ok(w->q.scale[c]) || w->q.zero_point[c] != 0) return false;
  return true;
}

/* Does XNNPACK requantize a conv or fully connected layer with filter w as TFLite's CPU path
 * does (float product, ties to even)? On ARM, Debian's snapshot requantizes convs with
 * per-tensor weights (quint8, qint8) in fixed point with ties upward: 1 LSB off on ties,
 * which later layers widen (tests/test_q8_rounding.c); its fully connected layers, per
 * tensor only, are kept off alike. Its per-channel (qcint8) convs round as on x86. */
static bool q_rounds_like_tflite(const tfl_tensor *w)
{
#if defined(__aarch64__) || defined(__arm__)
  return w->type == TFL_TYPE_INT8 && w->q.n > 1;
#else
  (void)w;
  return true;
#endif
}

/* XNNPACK refuses requantization scales in * w / out of 256 and more, and asserts (an abort
 * in Debian's build) on those below 2^-32: both stay on our kernels. */
static bool q_requant_ok(const tfl_tensor *x, const tfl_tensor *w, const tfl_tensor *y)
{
  for (int c = 0; c < w->q.n; c++) {
    float r = qscale(x) * w->q.scale[c] / qscale(y);
    if (!(r < 256.0f && r >= 0x1.0p-32f) || !scale_ok(r)) return false;
  }
  return true;
}

/* int32 bias with one value per output channel, or none. */
static bool q_bias_ok(const tfl_graph *g, const tfl_node *n, int i, int32_t channels)
{
  const tfl_tensor *b = tensor_at(g, n, i, false);
  if (!b) return true;
  return b->type == TFL_TYPE_INT32 && b->is_const && b->data && !b->sparsity &&
         tfl_tensor_count(b) == (size_t)channels;
}

/* XNNPACK's add/subtract take input-to-output scale ratios in [2^-10, 2^8). */
static bool q_add_ratio_ok(const tfl_tensor *a, const tfl_tensor *y)
{
  float r = qscale(a) / qscale(y);
  return r >= 0x1.0p-10f && r < 0x1.0p+8f;
}

static bool supports_quant(const tfl_graph *g, const tfl_node *n, qkind k)
{
  const tfl_tensor *x = tensor_at(g, n, 0, false), *y = tensor_at(g, n, 0, true);
  switch (n->op) {
  case TFL_OP_CONV_2D: {
    const tfl_tensor *w = tensor_at(g, n, 1, false);
    if (!all_q(g, n, 1u, k) || !w || w->ndim != 4 || x->ndim != 4 || y->ndim != 4) return false;
    if (w->dims[3] <= 0 || x->dims[3] % w->dims[3] != 0) return false;
    int groups = x->dims[3] / w->dims[3];
    if (w->dims[0] % groups != 0 || y->dims[3] != w->dims[0]) return false;
    /* XNNPACK's qcint8 convolution filter is channelwise along dim 0, as TFLite's */
    return q_filter_ok(w, k, 0, w->dims[0], true) && q_rounds_like_tflite(w) && q_requant_ok(x, w, y) &&
           q_bias_ok(g, n, 2, w->dims[0]) &&
           q_act_ok(n->p.conv.act, y) && n->p.conv.stride_h > 0 && n->p.conv.stride_w > 0 &&
           n->p.conv.dilation_h > 0 && n->p.conv.dilation_w > 0;
  }
  case TFL_OP_DEPTHWISE_CONV_2D: {
    const tfl_tensor *w = tensor_at(g, n, 1, false);
    if (!all_q(g, n, 1u, k) || !w || w->ndim != 4 || x->ndim != 4 || y->ndim != 4) return false;
    if (w->dims[0] != 1 || x->dims[3] <= 0 || w->dims[3] % x->dims[3] != 0 || y->dims[3] != w->dims[3])
      return false;
    /* depthwise: channelwise along the last dim (3), in TFLite and XNNPACK alike */
    return q_filter_ok(w, k, 3, w->dims[3], true) && q_rounds_like_tflite(w) && q_requant_ok(x, w, y) &&
           q_bias_ok(g, n, 2, w->dims[3]) &&
           q_act_ok(n->p.conv.act, y) && n->p.conv.stride_h > 0 && n->p.conv.stride_w > 0 &&
           n->p.conv.dilation_h > 0 && n->p.conv.dilation_w > 0;
  }
  case TFL_OP_FULLY_CONNECTED: {
    const tfl_tensor *w = tensor_at(g, n, 1, false);
    if (!all_q(g, n, 1u, k) || !w || w->ndim != 2 || x->ndim < 1) return false;
    /* this snapshot's fully connected has no qcint8 filter */
    if (!q_filter_ok(w, k, 0, w->dims[0], false) || !q_rounds_like_tflite(w) || !q_requant_ok(x, w, y))
      return false;
    if (!q_bias_ok(g, n, 2, w->dims[0]) || !q_act_ok(n->p.fc.act, y)) return false;
    return fc_shape_ok(x, w, y);
  }
  case TFL_OP_ADD:
  case TFL_OP_SUB:
    if (n->n_in != 2 || !all_q(g, n, 3u, k) || !q_act_ok(n->p.eltwise.act, y)) return false;
    return q_add_ratio_ok(x, y) && q_add_ratio_ok(tensor_at(g, n, 1, false), y);
  case TFL_OP_MUL: {
    if (n->n_in != 2 || !all_q(g, n, 3u, k) || !q_act_ok(n->p.eltwise.act, y)) return false;
    float r = qscale(x) * qscale(tensor_at(g, n, 1, false)) / qscale(y);
    return r >= 0x1.0p-16f && r < 0x1.0p+8f;
  }
  case TFL_OP_MAX_POOL_2D: {
    const tfl_pool_params *pp = &n->p.pool;
    /* XNNPACK wants the same quantization in and out (TFLite's max pool never rescales) */
    if (!all_q(g, n, 1u, k) || !same_quant(x, y) || x->ndim != 4 || y->ndim != 4 || !q_act_ok(pp->act, y))
      return false;
    if (pp->stride_h <= 0 || pp->stride_w <= 0 || pp->filter_h <= 0 || pp->filter_w <= 0) return false;
    if (pp->filter_h * pp->filter_w == 1) return pp->stride_h == 1 && pp->stride_w == 1;
    return true;
  }
  case TFL_OP_AVERAGE_POOL_2D: {
    /* Quantized average pooling exists here only as global average pooling: a window
     * covering the whole input, one output pixel. */
    const tfl_pool_params *pp = &n->p.pool;
    if (!all_q(g, n, 1u, k) || !same_quant(x, y) || x->ndim != 4 || y->ndim != 4 || !q_act_ok(pp->act, y))
      return false;
    return pp->filter_h == x->dims[1] && pp->filter_w == x->dims[2] && y->dims[1] == 1 && y->dims[2] == 1 &&
           y->dims[0] == x->dims[0] && y->dims[3] == x->dims[3] && pp->stride_h > 0 && pp->stride_w > 0;
  }
  case TFL_OP_RELU:
  case TFL_OP_RELU6:
    /* a clamp; TFLite's quantized RELU may also rescale, XNNPACK's clamp cannot */
    return all_q(g, n, 1u, k) && same_dims(x, y) && same_quant(x, y) &&
           q_act_ok(n->op == TFL_OP_RELU ? TFL_ACT_RELU : TFL_ACT_RELU6, y);
  case TFL_OP_LOGISTIC:
    return all_q(g, n, 1u, k) && same_dims(x, y);
  case TFL_OP_RESHAPE:
  case TFL_OP_SQUEEZE:
    /* TFLite copies the bytes: only exact when both sides read them alike */
    return all_q(g, n, 1u, k) && same_quant(x, y) && tfl_tensor_count(x) == tfl_tensor_count(y);
  case TFL_OP_PAD:
  case TFL_OP_PADV2: {
    if (!all_q(g, n, 1u, k) || !same_quant(x, y) || !pad_shape_ok(g, n, x, y)) return false;
    if (n->op == TFL_OP_PADV2) {
      const tfl_tensor *v = tensor_at(g, n, 2, false);
      if (v && !(v->is_const && v->data && v->type == y->type && tfl_tensor_count(v) == 1)) return false;
    }
    return true;
  }
  default:   /* float-only here (transpose conv, DIV, softmax, ...), or not in this snapshot */
    return false;
  }
  return false;
}

/* The node's data type decides: float32 nodes, or 8-bit quantized ones (by output). */
static bool node_is_quant(const tfl_graph *g, const tfl_node *n, qkind *k)
{
  *k = n->n_out == 1 ? q_kind(tensor_at(g, n, 0, true)) : QK_NONE;
  return *k != QK_NONE;
}

bool xnn_partition_supports(const tfl_graph *g, int node)
{
  if (!g || node < 0 || node >= g->n_nodes) return false;
  const tfl_node *n = &g->nodes[node];
  if (n->dead) return false;
  qkind k;
  if (node_is_quant(g, n, &k)) return supports_quant(g, n, k);
  /* left to our sparse kernel, which beats XNNPACK's dense GEMM on these (no x86 sparse path) */
  if (cpu_conv_sparse1x1_applies(g, n)) return false;
  return supports_node(g, n);
}

/* ---- subgraph building ---------------------------------------------------- */

static tfl_status xs(const builder *b, enum xnn_status s, const char *what)
{
  if (s == xnn_status_success) return TFL_OK;
  const tfl_node *n = &b->g->nodes[b->node];
  return tfl_fail(b->diag, TFL_ERR_BACKEND, "node %d (%s): XNNPACK %s failed with status %d", b->node,
                   tfl_op_name(n->op), what, (int)s);
}

/* Keeps a block for the partition's lifetime. */
static void *own_block(builder *b, size_t bytes)
{
  void **nb = realloc(b->p->blocks, sizeof(void *) * (size_t)(b->p->n_blocks + 1));
  if (!nb) return NULL;
  b->p->blocks = nb;
  void *blk = calloc(1, bytes + XNN_EXTRA_BYTES);
  if (!blk) return NULL;
  nb[b->p->n_blocks++] = blk;
  return blk;
}

static void tensor_dims(const tfl_tensor *t, size_t *nd, size_t *dims)
{
  if (t->ndim == 0) {
    *nd = 1;
    dims[0] = 1;
    return;
  }
  *nd = (size_t)t->ndim;
  for (int d = 0; d < t->ndim; d++) dims[d] = (size_t)t->dims[d];
}

/* A static fp32 value with the given shape (data must outlive the partition). */
static tfl_status define_static(builder *b, const void *data, size_t nd, const size_t *dims, uint32_t *id)
{
  return xs(b, xnn_define_tensor_value(b->sg, xnn_datatype_fp32, nd, dims, data, XNN_INVALID_VALUE_ID, 0, id),
            "define static value");
}

/* An internal value of the given shape (intermediate of a two-node mapping). */
static tfl_status define_temp(builder *b, size_t nd, const size_t *dims, uint32_t *id)
{
  return xs(b, xnn_define_tensor_value(b->sg, xnn_datatype_fp32, nd, dims, NULL, XNN_INVALID_VALUE_ID, 0, id),
            "define internal value");
}

/* A value for graph tensor t in its own type: fp32, quint8/qint8 (per tensor) or qcint8
 * (per channel along t->q.axis; XNNPACK reads the scales while creating the runtime). */
static tfl_status define_typed(builder *b, const tfl_tensor *t, const void *data, uint32_t ext, uint32_t flags,
                               uint32_t *id)
{
  size_t nd, dims[XNN_MAX_TENSOR_DIMS];
  tensor_dims(t, &nd, dims);
  enum xnn_status st;
  if (t->type == TFL_TYPE_FLOAT32)
    st = xnn_define_tensor_value(b->sg, xnn_datatype_fp32, nd, dims, data, ext, flags, id);
  else if (t->q.n > 1)
    st = xnn_define_channelwise_quantized_tensor_value(b->sg, xnn_datatype_qcint8, t->q.scale, nd,
                                                       (size_t)t->q.axis, dims, data, ext, flags, id);
  else
    st = xnn_define_quantized_tensor_value(b->sg,
                                           t->type == TFL_TYPE_UINT8 ? xnn_datatype_quint8 : xnn_datatype_qint8,
                                           qzp(t), qscale(t), nd, dims, data, ext, flags, id);
  return xs(b, st, data ? "define static value" : "define value");
}

/* The value of graph tensor t. Weights (packed by XNNPACK at create) are read in place;
 * other constants are copied into a block with XNN_EXTRA_BYTES of slack, since
 * element-wise kernels read past the end of their operands. */
static tfl_status value_of(builder *b, int t, bool weight, uint32_t *id)
{
  if (b->ids[t] != XNN_INVALID_VALUE_ID) {
    *id = b->ids[t];
    return TFL_OK;
  }
  tfl_tensor *tt = &b->g->tensors[t];
  tfl_status s;
  if (tt->is_const) {
    const void *data = tt->data;
    if (!weight) {
      void *copy = own_block(b, tt->bytes);
      if (!copy) return tfl_fail(b->diag, TFL_ERR_NOMEM, "tensor %d: no memory for a constant copy", t);
      memcpy(copy, tt->data, tt->bytes);
      data = copy;
    }
    s = define_typed(b, tt, data, XNN_INVALID_VALUE_ID, 0, id);
  } else {
    uint32_t ext = XNN_INVALID_VALUE_ID, flags = 0;
    if (b->role[t] == ROLE_EXT_IN) flags = XNN_VALUE_FLAG_EXTERNAL_INPUT;
    if (b->role[t] == ROLE_EXT_OUT) flags = XNN_VALUE_FLAG_EXTERNAL_OUTPUT;
    if (flags) ext = b->ext_ids[t];
    s = define_typed(b, tt, NULL, ext, flags, id);
  }
  if (s == TFL_OK) b->ids[t] = *id;
  return s;
}

/* Input i / output i of node n as a value. */
static tfl_status in_val(builder *b, const tfl_node *n, int i, bool weight, uint32_t *id)
{
  if (i >= n->n_in || n->in[i] < 0) {
    *id = XNN_INVALID_VALUE_ID;
    return TFL_OK;
  }
  return value_of(b, n->in[i], weight, id);
}

static tfl_status out_val(builder *b, const tfl_node *n, uint32_t *id)
{
  return value_of(b, n->out[0], false, id);
}

/* A bias value, or a zero bias (this snapshot's convolution wants one). */
static tfl_status bias_val(builder *b, const tfl_node *n, int i, size_t channels, uint32_t *id)
{
  const tfl_tensor *x = tensor_at(b->g, n, 0, false), *w = tensor_at(b->g, n, 1, false);
  if (x->type != TFL_TYPE_FLOAT32) {
    /* int32 in units of in_scale * w_scale (TFLite's convention; the bias's own scale is
     * not read by TFLite either); a fresh value per node since the scale is the node's */
    const tfl_tensor *bt = tensor_at(b->g, n, i, false);
    const void *data = bt ? bt->data : own_block(b, channels * sizeof(int32_t));
    if (!data) return tfl_fail(b->diag, TFL_ERR_NOMEM, "node %d: no memory for a zero bias", b->node);
    if (w->q.n > 1) {
      float *sc = own_block(b, channels * sizeof(float));
      if (!sc) return tfl_fail(b->diag, TFL_ERR_NOMEM, "node %d: no memory for bias scales", b->node);
      for (size_t c = 0; c < channels; c++) sc[c] = qscale(x) * w->q.scale[c];
      return xs(b,
                xnn_define_channelwise_quantized_tensor_value(b->sg, xnn_datatype_qcint32, sc, 1, 0, &channels,
                                                              data, XNN_INVALID_VALUE_ID, 0, id),
                "define bias");
    }
    return xs(b,
              xnn_define_quantized_tensor_value(b->sg, xnn_datatype_qint32, 0, qscale(x) * qscale(w), 1,
                                                &channels, data, XNN_INVALID_VALUE_ID, 0, id),
              "define bias");
  }
  if (i < n->n_in && n->in[i] >= 0) return value_of(b, n->in[i], true, id);
  float *zero = own_block(b, channels * sizeof(float));
  if (!zero) return tfl_fail(b->diag, TFL_ERR_NOMEM, "node %d: no memory for a zero bias", b->node);
  return define_static(b, zero, 1, &channels, id);
}

static tfl_status define_conv(builder *b, const tfl_node *n)
{
  const tfl_tensor *x = tensor_at(b->g, n, 0, false), *w = tensor_at(b->g, n, 1, false);
  const tfl_tensor *y = tensor_at(b->g, n, 0, true);
  const tfl_conv_params *cp = &n->p.conv;
  bool dw = n->op == TFL_OP_DEPTHWISE_CONV_2D;
  int kh = w->dims[1], kw = w->dims[2];
  uint32_t top, bottom, left, right;
  conv_padding(cp->padding, x->dims[1], kh, cp->stride_h, cp->dilation_h, y->dims[1], &top, &bottom);
  conv_padding(cp->padding, x->dims[2], kw, cp->stride_w, cp->dilation_w, y->dims[2], &left, &right);
  float lo, hi;
  act_range(cp->act, &lo, &hi);
  uint32_t xi, wi, bi, yi;
  tfl_status s;
  if ((s = in_val(b, n, 0, false, &xi)) || (s = in_val(b, n, 1, true, &wi)) ||
      (s = bias_val(b, n, 2, (size_t)(dw ? w->dims[3] : w->dims[0]), &bi)) || (s = out_val(b, n, &yi)))
    return s;
  if (dw)
    return xs(b,
              xnn_define_depthwise_convolution_2d(b->sg, top, right, bottom, left, (uint32_t)kh, (uint32_t)kw,
                                                  (uint32_t)cp->stride_h, (uint32_t)cp->stride_w,
                                                  (uint32_t)cp->dilation_h, (uint32_t)cp->dilation_w,
                                                  (uint32_t)(w->dims[3] / x->dims[3]), (size_t)x->dims[3],
                                                  lo, hi, xi, wi, bi, yi, 0),
              "define depthwise convolution");
  uint32_t groups = (uint32_t)(x->dims[3] / w->dims[3]);
  return xs(b,
            xnn_define_convolution_2d(b->sg, top, right, bottom, left, (uint32_t)kh, (uint32_t)kw,
                                      (uint32_t)cp->stride_h, (uint32_t)cp->stride_w, (uint32_t)cp->dilation_h,
                                      (uint32_t)cp->dilation_w, groups, (size_t)w->dims[3],
                                      (size_t)w->dims[0] / groups, lo, hi, xi, wi, bi, yi, 0),
            "define convolution");
}

static tfl_status define_deconv(builder *b, const tfl_node *n)
{
  bool tc = n->op == TFL_OP_TRANSPOSE_CONV;
  int in_i = tc ? 2 : 0, bias_i = tc ? 3 : 2;
  const tfl_tensor *x = tensor_at(b->g, n, in_i, false), *w = tensor_at(b->g, n, 1, false);
  const tfl_tensor *y = tensor_at(b->g, n, 0, true);
  const tfl_conv_params *cp = &n->p.conv;
  uint32_t top = 0, bottom = 0, adj_h = 0, left = 0, right = 0, adj_w = 0;
  deconv_axis(n, x->dims[1], w->dims[1], cp->stride_h, y->dims[1], &top, &bottom, &adj_h);
  deconv_axis(n, x->dims[2], w->dims[2], cp->stride_w, y->dims[2], &left, &right, &adj_w);
  float lo = -INFINITY, hi = INFINITY;
  if (tc) act_range(cp->act, &lo, &hi);
  uint32_t xi, wi, bi, yi;
  tfl_status s;
  if ((s = in_val(b, n, in_i, false, &xi)) || (s = in_val(b, n, 1, true, &wi)) ||
      (s = in_val(b, n, bias_i, true, &bi)) || (s = out_val(b, n, &yi)))
    return s;
  return xs(b,
            xnn_define_deconvolution_2d(b->sg, top, right, bottom, left, adj_h, adj_w, (uint32_t)w->dims[1],
                                        (uint32_t)w->dims[2], (uint32_t)cp->stride_h, (uint32_t)cp->stride_w, 1,
                                        1, 1, (size_t)w->dims[3], (size_t)w->dims[0], lo, hi, xi, wi, bi, yi,
                                        0),
            "define deconvolution");
}

static tfl_status define_fc(builder *b, const tfl_node *n)
{
  const tfl_tensor *x = tensor_at(b->g, n, 0, false), *y = tensor_at(b->g, n, 0, true);
  float lo, hi;
  act_range(n->p.fc.act, &lo, &hi);
  uint32_t flags = 0;
  if (!(y->ndim == x->ndim && y->ndim >= 1 &&
        x->dims[x->ndim - 1] == tensor_at(b->g, n, 1, false)->dims[1]))
    flags = XNN_FLAG_TENSORFLOW_RESHAPE_2D;
  else
    for (int d = 0; d + 1 < x->ndim; d++)
      if (x->dims[d] != y->dims[d]) flags = XNN_FLAG_TENSORFLOW_RESHAPE_2D;
  uint32_t xi, wi, bi, yi;
  tfl_status s;
  bool quant = x->type != TFL_TYPE_FLOAT32;
  size_t units = (size_t)tensor_at(b->g, n, 1, false)->dims[0];
  if ((s = in_val(b, n, 0, false, &xi)) || (s = in_val(b, n, 1, true, &wi)) ||
      (s = quant ? bias_val(b, n, 2, units, &bi) : in_val(b, n, 2, true, &bi)) || (s = out_val(b, n, &yi)))
    return s;
  return xs(b, xnn_define_fully_connected(b->sg, lo, hi, xi, wi, bi, yi, flags), "define fully connected");
}

static tfl_status define_binary(builder *b, const tfl_node *n)
{
  uint32_t ai, bi, yi;
  tfl_status s;
  if ((s = in_val(b, n, 0, false, &ai)) || (s = in_val(b, n, 1, false, &bi)) || (s = out_val(b, n, &yi)))
    return s;
  float lo = -INFINITY, hi = INFINITY;
  if (n->op != TFL_OP_MAXIMUM && n->op != TFL_OP_MINIMUM) act_range(n->p.eltwise.act, &lo, &hi);
  if (n->op == TFL_OP_ADD) return xs(b, xnn_define_add2(b->sg, lo, hi, ai, bi, yi, 0), "define add");
  if (n->op == TFL_OP_SUB) return xs(b, xnn_define_subtract(b->sg, lo, hi, ai, bi, yi, 0), "define subtract");
  if (n->op == TFL_OP_MUL) return xs(b, xnn_define_multiply2(b->sg, lo, hi, ai, bi, yi, 0), "define multiply");
  if (n->op == TFL_OP_DIV) return xs(b, xnn_define_divide(b->sg, lo, hi, ai, bi, yi, 0), "define divide");
  if (n->op == TFL_OP_MAXIMUM) return xs(b, xnn_define_maximum2(b->sg, ai, bi, yi, 0), "define maximum");
  return xs(b, xnn_define_minimum2(b->sg, ai, bi, yi, 0), "define minimum");
}

static tfl_status define_pool(builder *b, const tfl_node *n)
{
  const tfl_tensor *x = tensor_at(b->g, n, 0, false), *y = tensor_at(b->g, n, 0, true);
  const tfl_pool_params *pp = &n->p.pool;
  float lo, hi;
  act_range(pp->act, &lo, &hi);
  uint32_t xi, yi;
  tfl_status s;
  if ((s = in_val(b, n, 0, false, &xi)) || (s = out_val(b, n, &yi))) return s;
  if (n->op == TFL_OP_AVERAGE_POOL_2D && x->type != TFL_TYPE_FLOAT32) /* whole-input window */
    return xs(b, xnn_define_global_average_pooling_2d(b->sg, lo, hi, xi, yi, 0), "define global average pooling");
  if (pp->filter_h * pp->filter_w == 1) /* 1x1, stride 1: only the activation remains */
    return xs(b, xnn_define_clamp(b->sg, lo, hi, xi, yi, 0), "define clamp");
  uint32_t top, bottom, left, right;
  conv_padding(pp->padding, x->dims[1], pp->filter_h, pp->stride_h, 1, y->dims[1], &top, &bottom);
  conv_padding(pp->padding, x->dims[2], pp->filter_w, pp->stride_w, 1, y->dims[2], &left, &right);
  if (n->op == TFL_OP_AVERAGE_POOL_2D)
    return xs(b,
              xnn_define_average_pooling_2d(b->sg, top, right, bottom, left, (uint32_t)pp->filter_h,
                                            (uint32_t)pp->filter_w, (uint32_t)pp->stride_h,
                                            (uint32_t)pp->stride_w, lo, hi, xi, yi, 0),
              "define average pooling");
  return xs(b,
            xnn_define_max_pooling_2d(b->sg, top, right, bottom, left, (uint32_t)pp->filter_h,
                                      (uint32_t)pp->filter_w, (uint32_t)pp->stride_h, (uint32_t)pp->stride_w, 1,
                                      1, lo, hi, xi, yi, 0),
            "define max pooling");
}

static tfl_status define_unary(builder *b, const tfl_node *n)
{
  uint32_t xi, yi;
  tfl_status s;
  if ((s = in_val(b, n, 0, false, &xi)) || (s = out_val(b, n, &yi))) return s;
  if (n->op == TFL_OP_RELU) return xs(b, xnn_define_clamp(b->sg, 0.0f, INFINITY, xi, yi, 0), "define clamp");
  if (n->op == TFL_OP_RELU6) return xs(b, xnn_define_clamp(b->sg, 0.0f, 6.0f, xi, yi, 0), "define clamp");
  if (n->op == TFL_OP_LOGISTIC) return xs(b, xnn_define_sigmoid(b->sg, xi, yi, 0), "define sigmoid");
  if (n->op == TFL_OP_HARD_SWISH) return xs(b, xnn_define_hardswish(b->sg, xi, yi, 0), "define hardswish");
  if (n->op == TFL_OP_SOFTMAX) return xs(b, xnn_define_softmax(b->sg, xi, yi, 0), "define softmax");
  if (n->op == TFL_OP_DEPTH_TO_SPACE)
    return xs(b, xnn_define_depth_to_space(b->sg, xi, yi, (uint32_t)n->p.d2s.block_size, 0),
              "define depth to space");
  if (n->op == TFL_OP_RESIZE_BILINEAR) {
    const tfl_tensor *y = tensor_at(b->g, n, 0, true);
    /* TFLite v1 (neither flag) samples at dst * scale: XNNPACK's TF1 legacy mode */
    uint32_t flags = 0;
    if (n->p.resize.align_corners) flags = XNN_FLAG_ALIGN_CORNERS;
    else if (!n->p.resize.half_pixel_centers) flags = XNN_FLAG_TENSORFLOW_LEGACY_MODE;
    return xs(b,
              xnn_define_static_resize_bilinear_2d(b->sg, (size_t)y->dims[1], (size_t)y->dims[2], xi, yi,
                                                   flags),
              "define resize bilinear");
  }
  /* RESHAPE, SQUEEZE */
  size_t nd, dims[XNN_MAX_TENSOR_DIMS];
  tensor_dims(tensor_at(b->g, n, 0, true), &nd, dims);
  return xs(b, xnn_define_static_reshape(b->sg, nd, dims, xi, yi, 0), "define reshape");
}

static tfl_status define_prelu(builder *b, const tfl_node *n)
{
  const tfl_tensor *a = tensor_at(b->g, n, 1, false);
  size_t ch = (size_t)a->dims[a->ndim - 1];
  uint32_t xi, ai, yi;
  tfl_status s;
  if ((s = in_val(b, n, 0, false, &xi)) || (s = define_static(b, a->data, 1, &ch, &ai)) ||
      (s = out_val(b, n, &yi)))
    return s;
  return xs(b, xnn_define_prelu(b->sg, xi, ai, yi, 0), "define prelu");
}

static tfl_status define_pad(builder *b, const tfl_node *n)
{
  const tfl_tensor *x = tensor_at(b->g, n, 0, false), *pd = tensor_at(b->g, n, 1, false);
  size_t pre[XNN_MAX_TENSOR_DIMS], post[XNN_MAX_TENSOR_DIMS];
  for (int d = 0; d < x->ndim; d++) {
    pre[d] = (size_t)int_at(pd, 2 * (size_t)d);
    post[d] = (size_t)int_at(pd, 2 * (size_t)d + 1);
  }
  float value = 0.0f;
  const tfl_tensor *v = n->op == TFL_OP_PADV2 ? tensor_at(b->g, n, 2, false) : NULL;
  if (v && v->type == TFL_TYPE_FLOAT32) value = *(const float *)v->data;
  else if (v) /* XNNPACK requantizes the real value into the output's type */
    value = ((v->type == TFL_TYPE_UINT8 ? (float)*(const uint8_t *)v->data : (float)*(const int8_t *)v->data) -
             (float)qzp(x)) * qscale(x);
  uint32_t xi, yi;
  tfl_status s;
  if ((s = in_val(b, n, 0, false, &xi)) || (s = out_val(b, n, &yi))) return s;
  return xs(b, xnn_define_static_constant_pad(b->sg, pre, post, value, xi, yi, 0), "define constant pad");
}

/* MEAN over H, W: global average pooling into [N,1,1,C], reshaped when keep_dims is off. */
static tfl_status define_mean(builder *b, const tfl_node *n)
{
  const tfl_tensor *x = tensor_at(b->g, n, 0, false), *y = tensor_at(b->g, n, 0, true);
  uint32_t xi, yi;
  tfl_status s;
  if ((s = in_val(b, n, 0, false, &xi)) || (s = out_val(b, n, &yi))) return s;
  if (y->ndim == 4)
    return xs(b, xnn_define_global_average_pooling_2d(b->sg, -INFINITY, INFINITY, xi, yi, 0),
              "define global average pooling");
  size_t d4[4] = {(size_t)x->dims[0], 1, 1, (size_t)x->dims[3]};
  uint32_t ti;
  if ((s = define_temp(b, 4, d4, &ti))) return s;
  s = xs(b, xnn_define_global_average_pooling_2d(b->sg, -INFINITY, INFINITY, xi, ti, 0),
         "define global average pooling");
  if (s) return s;
  size_t nd, dims[XNN_MAX_TENSOR_DIMS];
  tensor_dims(y, &nd, dims);
  return xs(b, xnn_define_static_reshape(b->sg, nd, dims, ti, yi, 0), "define reshape");
}

static tfl_status define_node(builder *b, const tfl_node *n)
{
  switch (n->op) {
  case TFL_OP_CONV_2D:
  case TFL_OP_DEPTHWISE_CONV_2D: return define_conv(b, n);
  case TFL_OP_TRANSPOSE_CONV:
  case TFL_OP_CONV2D_TRANSPOSE_BIAS: return define_deconv(b, n);
  case TFL_OP_FULLY_CONNECTED: return define_fc(b, n);
  case TFL_OP_ADD:
  case TFL_OP_SUB:
  case TFL_OP_MUL:
  case TFL_OP_DIV:
  case TFL_OP_MAXIMUM:
  case TFL_OP_MINIMUM: return define_binary(b, n);
  case TFL_OP_AVERAGE_POOL_2D:
  case TFL_OP_MAX_POOL_2D: return define_pool(b, n);
  case TFL_OP_RELU:
  case TFL_OP_RELU6:
  case TFL_OP_LOGISTIC:
  case TFL_OP_HARD_SWISH:
  case TFL_OP_SOFTMAX:
  case TFL_OP_RESHAPE:
  case TFL_OP_SQUEEZE:
  case TFL_OP_DEPTH_TO_SPACE:
  case TFL_OP_RESIZE_BILINEAR: return define_unary(b, n);
  case TFL_OP_PRELU: return define_prelu(b, n);
  case TFL_OP_PAD:
  case TFL_OP_PADV2: return define_pad(b, n);
  case TFL_OP_MEAN: return define_mean(b, n);
  default: break;   /* xnn_partition_supports refused it */
  }
  return tfl_fail(b->diag, TFL_ERR_UNSUPPORTED, "node %d (%s): not an XNNPACK op", b->node, tfl_op_name(n->op));
}

/* XNNPACK's clamp (RELU, RELU6, a 1x1 stride-1 pool) fuses into the node producing its
 * input, and a PAD into the convolution reading it, when the tensor between them is
 * internal and has that one reader. */
static bool is_clamp(const tfl_node *n)
{
  if (n->op == TFL_OP_RELU || n->op == TFL_OP_RELU6) return true;
  return (n->op == TFL_OP_AVERAGE_POOL_2D || n->op == TFL_OP_MAX_POOL_2D) && n->p.pool.filter_h == 1 &&
         n->p.pool.filter_w == 1 && n->p.pool.stride_h == 1 && n->p.pool.stride_w == 1;
}

static int readers(const tfl_graph *g, int t)
{
  int count = 0;
  for (int i = 0; i < g->n_nodes; i++)
    for (int j = 0; !g->nodes[i].dead && j < g->nodes[i].n_in; j++) count += g->nodes[i].in[j] == t;
  return count;
}

/* Producer of internal tensor t if it has one reader, else -1. */
static int fused_producer(const builder *b, int t)
{
  if (t < 0 || b->role[t] != ROLE_INTERNAL || readers(b->g, t) != 1) return -1;
  return b->g->tensors[t].producer;
}

static bool bytes_overlap(const tfl_tensor *a, const tfl_tensor *c)
{
  return a != c && a->data && c->data && a->bytes && c->bytes && (const char *)a->data < (const char *)c->data + c->bytes &&
         (const char *)c->data < (const char *)a->data + a->bytes;
}

int xnn_partition_extra_uses(const tfl_graph *g, const int32_t *nodes, int n_nodes, tfl_extra_use *uses, int max)
{
  int n = 0;
  for (int k = 0; k < n_nodes; k++) {
    const tfl_node *e = &g->nodes[nodes[k]];
    if (e->n_in < 1 || e->in[0] < 0 || e->n_out < 1 || e->out[0] < 0) continue;
    const int t = e->in[0], p = g->tensors[t].producer;
    bool in_run = false;
    for (int j = 0; j < k && !in_run; j++) in_run = nodes[j] == p;
    if (!in_run || readers(g, t) != 1) continue;
    const tfl_node *pn = &g->nodes[p];
    if (is_clamp(e)) { /* written when its producer runs */
      if (n < max) uses[n] = (tfl_extra_use){p, e->out[0]};
      n++;
    }
    if ((e->op == TFL_OP_CONV_2D || e->op == TFL_OP_DEPTHWISE_CONV_2D) &&
        (pn->op == TFL_OP_PAD || pn->op == TFL_OP_PADV2) && pn->n_in > 0 && pn->in[0] >= 0) {
      if (n < max) uses[n] = (tfl_extra_use){nodes[k], pn->in[0]}; /* read when the conv runs */
      n++;
    }
  }
  return n;
}

/* A fused operator runs its group (PAD, conv, clamp) at one time: it reads the PAD's input
 * at the conv's turn and writes the clamp's output at the conv's turn. The arena planner
 * plans node by node, so it may have given a tensor written by a node of the group the
 * bytes of one read by an earlier node of the group (an input whose last reader comes
 * first, the output of a later node): run together, the write clobbers the read (seen:
 * dw conv -> 1x1 conv + RELU subgraph, its output given its input's bytes). For each group
 * where some tensor read by a node in its node range overlaps one written there, the
 * tensors between the group's nodes are made external outputs, so XNNPACK does not fuse
 * them and runs the nodes in the planner's order. (The CPU delegate declares these fused
 * uses to the planner, xnn_partition_extra_uses, so this is the safety net for a caller
 * that did not.) */
static void break_fused_overlaps(builder *b, const int32_t *nodes, int n_nodes)
{
  tfl_graph *g = b->g;
  for (int k = 0; k < n_nodes; k++) {
    const tfl_node *e = &g->nodes[nodes[k]];
    int mid[2], n_mid = 0, first = nodes[k];
    const tfl_node *top = e;
    if (is_clamp(e) && e->n_in > 0) {
      const int p = fused_producer(b, e->in[0]);
      if (p >= 0) {
        mid[n_mid++] = e->in[0];
        top = &g->nodes[p];
        first = p;
      }
    }
    if ((top->op == TFL_OP_CONV_2D || top->op == TFL_OP_DEPTHWISE_CONV_2D) && top->n_in > 0) {
      const int p = fused_producer(b, top->in[0]);
      if (p >= 0 && (g->nodes[p].op == TFL_OP_PAD || g->nodes[p].op == TFL_OP_PADV2)) {
        mid[n_mid++] = top->in[0];
        first = p;
      }
    }
    if (!n_mid) continue;
    bool clash = false;
    for (int r = 0; r < n_nodes && !clash; r++) { /* nodes of the run from `first` to e */
      if (nodes[r] < first || nodes[r] > nodes[k]) continue;
      const tfl_node *rn = &g->nodes[nodes[r]];
      for (int j = 0; j < rn->n_in && !clash; j++) {
        const int t = rn->in[j];
        if (t < 0 || b->role[t] == ROLE_INTERNAL || g->tensors[t].is_const) continue;
        for (int w = 0; w < n_nodes && !clash; w++) {
          if (nodes[w] < first || nodes[w] > nodes[k]) continue;
          const tfl_node *wn = &g->nodes[nodes[w]];
          for (int o = 0; o < wn->n_out && !clash; o++)
            clash = wn->out[o] >= 0 && b->role[wn->out[o]] == ROLE_EXT_OUT &&
                    bytes_overlap(&g->tensors[t], &g->tensors[wn->out[o]]);
        }
      }
    }
    for (int m = 0; clash && m < n_mid; m++) b->role[mid[m]] = ROLE_EXT_OUT;
  }
}

/* Marks which tensors cross the run's boundary. Returns the number of external values. */
static int classify(builder *b, const int32_t *nodes, int n_nodes, const uint8_t *in_run)
{
  tfl_graph *g = b->g;
  /* produced inside the run */
  for (int k = 0; k < n_nodes; k++) {
    const tfl_node *n = &g->nodes[nodes[k]];
    for (int o = 0; o < n->n_out; o++)
      if (n->out[o] >= 0) b->role[n->out[o]] = ROLE_INTERNAL;
  }
  /* read by live nodes outside the run, or a graph output: external output */
  for (int i = 0; i < g->n_nodes; i++) {
    const tfl_node *n = &g->nodes[i];
    if (n->dead || in_run[i]) continue;
    for (int j = 0; j < n->n_in; j++)
      if (n->in[j] >= 0 && b->role[n->in[j]] == ROLE_INTERNAL) b->role[n->in[j]] = ROLE_EXT_OUT;
  }
  for (int i = 0; i < g->n_outputs; i++) {
    int t = g->outputs[i];
    if (t >= 0 && t < g->n_tensors && b->role[t] == ROLE_INTERNAL) b->role[t] = ROLE_EXT_OUT;
  }
  /* XNNPACK deletes a value no node reads and then asserts on the node writing it: an
   * output read nowhere (tfl_pass_prune drops such nodes first) is bound to its tensor */
  for (int k = 0; k < n_nodes; k++) {
    const tfl_node *n = &g->nodes[nodes[k]];
    for (int o = 0; o < n->n_out; o++) {
      int t = n->out[o];
      if (t < 0 || b->role[t] != ROLE_INTERNAL) continue;
      bool read = false;
      for (int k2 = 0; k2 < n_nodes && !read; k2++) {
        const tfl_node *m = &g->nodes[nodes[k2]];
        for (int j = 0; j < m->n_in && !read; j++) read = m->in[j] == t;
      }
      if (!read) b->role[t] = ROLE_EXT_OUT;
    }
  }
  /* read inside the run but neither produced there nor constant: external input */
  for (int k = 0; k < n_nodes; k++) {
    const tfl_node *n = &g->nodes[nodes[k]];
    for (int j = 0; j < n->n_in; j++) {
      int t = n->in[j];
      if (t >= 0 && b->role[t] == ROLE_NONE && !g->tensors[t].is_const) b->role[t] = ROLE_EXT_IN;
    }
  }
  break_fused_overlaps(b, nodes, n_nodes);
  int n_ext = 0;
  for (int t = 0; t < g->n_tensors; t++)
    if (b->role[t] == ROLE_EXT_IN || b->role[t] == ROLE_EXT_OUT) b->ext_ids[t] = (uint32_t)n_ext++;
  return n_ext;
}

tfl_status xnn_partition_create(tfl_graph *g, const int32_t *nodes, int n_nodes, pthreadpool_t pool,
                                xnn_partition **out, tfl_diag *diag)
{
  *out = NULL;
  if (!g || !nodes || n_nodes <= 0) return tfl_fail(diag, TFL_ERR_ARG, "xnn partition: empty node list");
  pthread_once(&init_once, init_xnnpack);
  if (init_status != xnn_status_success)
    return tfl_fail(diag, TFL_ERR_BACKEND, "xnn_initialize failed with status %d", (int)init_status);
  for (int k = 0; k < n_nodes; k++)
    if (!xnn_partition_supports(g, nodes[k]))
      return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "node %d (%s): not supported by XNNPACK", nodes[k],
                       (nodes[k] >= 0 && nodes[k] < g->n_nodes) ? tfl_op_name(g->nodes[nodes[k]].op) : "?");

  builder b = {.g = g, .node = nodes[0], .diag = diag};
  tfl_status s = TFL_OK;
  struct xnn_external_value *ext = NULL;
  uint8_t *in_run = calloc((size_t)g->n_nodes, 1);
  b.role = calloc((size_t)g->n_tensors, 1);
  b.ids = malloc(sizeof(uint32_t) * (size_t)g->n_tensors);
  b.ext_ids = malloc(sizeof(uint32_t) * (size_t)g->n_tensors);
  b.p = calloc(1, sizeof *b.p);
  if (!in_run || !b.role || !b.ids || !b.ext_ids || !b.p) {
    s = tfl_fail(diag, TFL_ERR_NOMEM, "xnn partition: no memory for %d tensors", g->n_tensors);
    goto done;
  }
  for (int t = 0; t < g->n_tensors; t++) b.ids[t] = b.ext_ids[t] = XNN_INVALID_VALUE_ID;
  for (int k = 0; k < n_nodes; k++) in_run[nodes[k]] = 1;
  int n_ext = classify(&b, nodes, n_nodes, in_run);

  enum xnn_status xst = xnn_create_subgraph((uint32_t)n_ext, 0, &b.sg);
  if (xst != xnn_status_success) {
    s = tfl_fail(diag, TFL_ERR_BACKEND, "xnn_create_subgraph failed with status %d", (int)xst);
    goto done;
  }
  for (int k = 0; k < n_nodes && s == TFL_OK; k++) {
    b.node = nodes[k];
    s = define_node(&b, &g->nodes[nodes[k]]);
  }
  if (s) goto done;

  xst = xnn_create_runtime_v2(b.sg, pool, 0, &b.p->rt);
  if (xst != xnn_status_success) {
    s = tfl_fail(diag, TFL_ERR_BACKEND, "xnn_create_runtime_v2 (nodes %d..%d) failed with status %d", nodes[0],
                  nodes[n_nodes - 1], (int)xst);
    goto done;
  }
  /* Bind every external value that a node uses (defined ones) to its tensor's data. */
  ext = calloc((size_t)(n_ext ? n_ext : 1), sizeof *ext);
  if (!ext) {
    s = tfl_fail(diag, TFL_ERR_NOMEM, "xnn partition: no memory for %d external values", n_ext);
    goto done;
  }
  int n_bound = 0;
  for (int t = 0; t < g->n_tensors; t++) {
    if (b.ext_ids[t] == XNN_INVALID_VALUE_ID || b.ids[t] == XNN_INVALID_VALUE_ID) continue;
    if (!g->tensors[t].data) {
      s = tfl_fail(diag, TFL_ERR_ARG, "tensor %d (%s): no data pointer when building the XNNPACK partition", t,
                    g->tensors[t].name ? g->tensors[t].name : "");
      goto done;
    }
    ext[n_bound].id = b.ext_ids[t];
    ext[n_bound].data = g->tensors[t].data;
    n_bound++;
  }
  xst = xnn_setup_runtime(b.p->rt, (size_t)n_bound, ext);
  if (xst != xnn_status_success)
    s = tfl_fail(diag, TFL_ERR_BACKEND, "xnn_setup_runtime (nodes %d..%d) failed with status %d", nodes[0],
                  nodes[n_nodes - 1], (int)xst);

done:
  if (b.sg) xnn_delete_subgraph(b.sg);
  free(ext);
  free(in_run);
  free(b.role);
  free(b.ids);
  free(b.ext_ids);
  if (s == TFL_OK) *out = b.p;
  else xnn_partition_free(b.p);
  return s;
}

tfl_status xnn_partition_run(xnn_partition *p, tfl_diag *diag)
{
  if (!p || !p->rt) return tfl_fail(diag, TFL_ERR_ARG, "xnn partition: not created");
  enum xnn_status s = xnn_invoke_runtime(p->rt);
  if (s != xnn_status_success) return tfl_fail(diag, TFL_ERR_BACKEND, "xnn_invoke_runtime failed with status %d", (int)s);
  return TFL_OK;
}

void xnn_partition_free(xnn_partition *p)
{
  if (!p) return;
  if (p->rt) xnn_delete_runtime(p->rt);
  for (int i = 0; i < p->n_blocks; i++) free(p->blocks[i]);
  free(p->blocks);
  free(p);
}
