/* conv_common.h - what the convolution-family kernels (conv, depthwise, transpose conv,
 * fully connected, pooling) share: checks with messages naming the node, the quantized
 * requantization setup, and small vectorizable inner loops.
 *
 * Quantized convention (TFLite's): real = scale * (q - zero_point); a conv accumulates
 * sum((x - x_zp) * (w - w_zp)) + bias in int32 (bias scale = x_scale * w_scale[c], zero
 * point 0), then out = out_zp + round(acc * x_scale * w_scale[c] / out_scale), clamped to
 * the fused activation's quantized range. TensorFlow Lite runs these ops through XNNPACK,
 * so the requantization is XNNPACK's fp32 scheme, bit for bit (cpu_requant_fp32).
 * Private to delegates/cpu/kernels/.
 */
#ifndef CPU_CONV_COMMON_H
#define CPU_CONV_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "../cpu_kernel.h"
#include "../cpu_util.h"

static inline int cpu_node_index(const tfl_graph *g, const tfl_node *n)
{
  return (int)(n - g->nodes);
}

/* Error "node 7 (CONV_2D): <message>". */
#define CPU_NODE_ERR(diag, status, g, n, fmt, ...)                                                   \
  tfl_fail(diag, status, "node %d (%s): " fmt, cpu_node_index(g, n), tfl_op_name((n)->op), __VA_ARGS__)

/* Checks that tensor `t` (role `what`) exists and has `ndim` dims (ndim < 0: any). */
static inline tfl_status cpu_check_tensor(const tfl_graph *g, const tfl_node *n, const tfl_tensor *t,
                                          const char *what, int ndim, tfl_diag *diag)
{
  if (!t) return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "missing %s tensor", what);
  if (ndim >= 0 && t->ndim != ndim)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%s has %d dims, expected %d", what, t->ndim, ndim);
  if (t->is_const && !t->data && t->bytes)
    return CPU_NODE_ERR(diag, TFL_ERR_ARG, g, n, "constant %s has no data", what);
  return TFL_OK;
}

/* Requantization of a conv-like op with `channels` output channels. */
typedef struct {
  bool on;          /* quantized (uint8/int8) rather than float */
  bool is_u8;       /* uint8 storage (else int8) */
  int32_t in_zp, out_zp;
  int32_t lo, hi;   /* fused activation range, quantized */
  int32_t *w_zp;    /* per output channel */
  float *scale;     /* per output channel: in_scale * w_scale[c] / out_scale, in float32 */
} cpu_requant;

/* Fills rq for input x, weights w (per-tensor, or per-channel along w_axis with
 * `channels` entries), output y and activation act. Checks types match. */
static inline tfl_status cpu_requant_prepare(const tfl_graph *g, const tfl_node *n, cpu_requant *rq,
                                             const tfl_tensor *x, const tfl_tensor *w,
                                             const tfl_tensor *y, int channels, int w_axis,
                                             tfl_activation act, tfl_diag *diag)
{
  rq->on = true;
  rq->is_u8 = x->type == TFL_TYPE_UINT8;
  if (w->type != x->type || y->type != x->type)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input %s, weights %s, output %s: types differ",
                        tfl_type_name(x->type), tfl_type_name(w->type), tfl_type_name(y->type));
  if (x->q.n != 1 || y->q.n != 1)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s needs per-tensor quantized input/output",
                        tfl_type_name(x->type));
  if (w->q.n != 1 && (w->q.n != channels || w->q.axis != w_axis))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n,
                        "weights have %d scales on axis %d, expected 1 or %d on axis %d", w->q.n,
                        w->q.axis, channels, w_axis);
  rq->in_zp = cpu_zero_point(x, 0);
  rq->out_zp = cpu_zero_point(y, 0);
  rq->w_zp = malloc(sizeof(int32_t) * (size_t)channels);
  rq->scale = malloc(sizeof(float) * (size_t)channels);
  if (!rq->w_zp || !rq->scale) return tfl_fail(diag, TFL_ERR_NOMEM, "requant tables");
  int32_t tlo, thi;
  cpu_type_limits(x->type, &tlo, &thi);
  for (int c = 0; c < channels; c++) {
    rq->w_zp[c] = cpu_zero_point(w, c);
    int32_t zps[3] = {rq->in_zp, rq->out_zp, rq->w_zp[c]};
    for (int k = 0; k < 3; k++) /* the int16 dot products rely on this */
      if (zps[k] < tlo || zps[k] > thi)
        return CPU_NODE_ERR(diag, TFL_ERR_FORMAT, g, n, "zero point %d outside %s range", zps[k],
                            tfl_type_name(x->type));
    rq->scale[c] = cpu_requant_scale(cpu_scale(x, 0), cpu_scale(w, c), cpu_scale(y, 0));
    if (!(rq->scale[c] > 0.0f && rq->scale[c] < 1e6f)) /* zero, negative, NaN or absurd */
      return CPU_NODE_ERR(diag, TFL_ERR_FORMAT, g, n, "channel %d: scales give multiplier %g", c,
                          (double)rq->scale[c]);
  }
  cpu_activation_range_q(act, cpu_scale(y, 0), rq->out_zp, y->type, &rq->lo, &rq->hi);
  return TFL_OK;
}

static inline void cpu_requant_free(cpu_requant *rq)
{
  free(rq->w_zp);
  free(rq->scale);
}

/* acc (int32, zero points removed, bias added) -> stored integer of channel c. */
static inline int32_t cpu_requant_apply(const cpu_requant *rq, int32_t acc, int c)
{
  return cpu_requant_fp32(acc, rq->scale[c], rq->out_zp, rq->lo, rq->hi);
}

/* Checks an optional bias: float for float ops, int32 for quantized ones, `channels` long. */
static inline tfl_status cpu_check_bias(const tfl_graph *g, const tfl_node *n, const tfl_tensor *b,
                                        bool quant, int channels, tfl_diag *diag)
{
  if (!b) return TFL_OK;
  tfl_type want = quant ? TFL_TYPE_INT32 : TFL_TYPE_FLOAT32;
  if (b->type != want)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "bias is %s, expected %s",
                        tfl_type_name(b->type), tfl_type_name(want));
  if (tfl_tensor_count(b) != (size_t)channels)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "bias has %zu values, expected %d",
                        tfl_tensor_count(b), channels);
  return TFL_OK;
}

/* y[i] += v * w[i]. Blocks of 8 with a fixed inner trip count so -O2 vectorizes it. */
static inline void cpu_axpy(float *restrict y, const float *restrict w, float v, int n)
{
  int i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; j++) y[i + j] += v * w[i + j];
  for (; i < n; i++) y[i] += v * w[i];
}

/* sum(x[i] * w[i]) with 8 partial sums, so -O2 vectorizes it (order differs from a
 * sequential sum by float rounding only). */
static inline float cpu_dot_f32(const float *restrict x, const float *restrict w, int n)
{
  float part[8] = {0};
  int i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; j++) part[j] += x[i + j] * w[i + j];
  float acc = 0.0f;
  for (int j = 0; j < 8; j++) acc += part[j];
  for (; i < n; i++) acc += x[i] * w[i];
  return acc;
}

/* sum((x[i] - zx) * (w[i] - zw)) over n values, for uint8 and int8 storage. Each
 * difference fits int16 (zero points lie in the storage type's range), so the products
 * are written as int16 x int16 -> int32, which -O2 turns into multiply-add pairs. The sum
 * wraps like the hardware's (and TFLite's) int32 accumulators: a hostile model's huge
 * windows or biases give garbage, never undefined behaviour. */
static inline int32_t cpu_dot_u8(const uint8_t *restrict x, const uint8_t *restrict w, int n,
                                 int32_t zx, int32_t zw)
{
  uint32_t acc = 0;
  int i = 0;
  for (; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; j++)
      acc += (uint32_t)((int16_t)(x[i + j] - zx) * (int16_t)(w[i + j] - zw));
  for (; i < n; i++) acc += (uint32_t)(((int32_t)x[i] - zx) * ((int32_t)w[i] - zw));
  return (int32_t)acc;
}
static inline int32_t cpu_dot_i8(const int8_t *restrict x, const int8_t *restrict w, int n,
                                 int32_t zx, int32_t zw)
{
  uint32_t acc = 0;
  int i = 0;
  for (; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; j++)
      acc += (uint32_t)((int16_t)(x[i + j] - zx) * (int16_t)(w[i + j] - zw));
  for (; i < n; i++) acc += (uint32_t)(((int32_t)x[i] - zx) * ((int32_t)w[i] - zw));
  return (int32_t)acc;
}

/* Stores integer v (already in range) as uint8 or int8 at element i of `data`. */
static inline void cpu_store_q(void *data, bool is_u8, size_t i, int32_t v)
{
  if (is_u8)
    ((uint8_t *)data)[i] = (uint8_t)v;
  else
    ((int8_t *)data)[i] = (int8_t)v;
}

/* ---- prepare/eval steps shared by conv, depthwise conv and transpose conv ---- */

/* Hybrid conv and depthwise (float input and output, int8 filter: hybrid.h): each image
 * (or each pixel: per_pixel) quantized on the fly, symmetric or asymmetric. */
typedef struct {
  bool on, asym, per_pixel;
  float *w_scale;          /* per output channel */
  int8_t *xq;              /* the quantized input */
  float *x_scale;          /* per image or pixel */
  int32_t *x_zp;           /* per image or pixel (asymmetric) */
} cpu_conv_hybrid;

/* The state of those three kernels: geometry, output stage and packed filter. */
typedef struct {
  int x_idx, w_idx, b_idx; /* input positions of this op */
  int batches, in_h, in_w, in_c, out_h, out_w, out_c, k_h, k_w, mult;
  int groups;              /* conv: in_c / the filter's channels (a grouped CONV_2D); 0 or
                              1 for one group */
  int stride_h, stride_w, dil_h, dil_w, pad_h, pad_w;
  float act_lo, act_hi;    /* float */
  float *packed;           /* float filter as [KH][KW][IC][OC]: conv and transpose conv */
  cpu_requant rq;          /* quantized only */
  cpu_conv_hybrid hy;      /* hybrid only */
} cpu_conv_state;

static inline void cpu_conv_release(void *state)
{
  cpu_conv_state *st = state;
  if (!st) return;
  free(st->packed);
  cpu_requant_free(&st->rq);
  free(st->hy.w_scale);
  free(st->hy.xq);
  free(st->hy.x_scale);
  free(st->hy.x_zp);
  free(st);
}

/* Allocates *state (named `what` in the out-of-memory message) with its input positions. */
static inline tfl_status cpu_conv_state_new(void **state, const char *what, int x_idx, int w_idx,
                                            int b_idx, cpu_conv_state **out, tfl_diag *diag)
{
  cpu_conv_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "%s", what);
  *state = *out = st;
  st->x_idx = x_idx;
  st->w_idx = w_idx;
  st->b_idx = b_idx;
  return TFL_OK;
}

/* Input [N,H,W,IC] and filter [.,KH,KW,.] sizes, output channels from filter dim
 * `oc_axis`, strides and dilations. */
static inline void cpu_conv_read_dims(cpu_conv_state *st, const tfl_tensor *x, const tfl_tensor *w,
                                      const tfl_conv_params *p, int oc_axis)
{
  st->batches = x->dims[0];
  st->in_h = x->dims[1];
  st->in_w = x->dims[2];
  st->in_c = x->dims[3];
  st->out_c = w->dims[oc_axis];
  st->k_h = w->dims[1];
  st->k_w = w->dims[2];
  st->stride_h = p->stride_h;
  st->stride_w = p->stride_w;
  st->dil_h = p->dilation_h;
  st->dil_w = p->dilation_w;
}

/* Output size and leading pad along one axis of a forward window (conv, pooling). */
static inline void cpu_window_axis(tfl_padding pad, int in, int k, int stride, int dil, int *out,
                                   int *lead)
{
  *out = tfl_conv_out_size(pad, in, k, stride, dil);
  *lead = tfl_conv_pad_before(pad, in, k, stride, dil, *out);
}

/* Input, weights (`w_name`) and output exist and have 4 dims. */
static inline tfl_status cpu_check_conv_tensors(const tfl_graph *g, const tfl_node *n,
                                                const tfl_tensor *x, const tfl_tensor *w,
                                                const tfl_tensor *y, const char *w_name, tfl_diag *diag)
{
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "input", 4, diag)) || (s = cpu_check_tensor(g, n, w, w_name, 4, diag)) ||
      (s = cpu_check_tensor(g, n, y, "output", 4, diag)))
    return s;
  return TFL_OK;
}

static inline tfl_status cpu_check_conv_strides(const tfl_graph *g, const tfl_node *n,
                                                const tfl_conv_params *p, tfl_diag *diag)
{
  if (p->stride_w < 1 || p->stride_h < 1 || p->dilation_w < 1 || p->dilation_h < 1)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "stride %dx%d / dilation %dx%d must be >= 1",
                        p->stride_w, p->stride_h, p->dilation_w, p->dilation_h);
  return TFL_OK;
}

/* Checks an [N,H,W,C] output against the expected sizes. */
static inline tfl_status cpu_check_output_nhwc(const tfl_graph *g, const tfl_node *n,
                                               const tfl_tensor *y, int b, int h, int w, int c, tfl_diag *diag)
{
  if (y->dims[0] != b || y->dims[1] != h || y->dims[2] != w || y->dims[3] != c)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output is %dx%dx%dx%d, expected %dx%dx%dx%d",
                        y->dims[0], y->dims[1], y->dims[2], y->dims[3], b, h, w, c);
  return TFL_OK;
}

/* What cpu_conv_prepare_types needs to know about a conv-like node (FC included). */
typedef struct {
  const tfl_tensor *x, *w, *b, *y;
  const char *w_name;    /* "filter" or "weights", for messages */
  int channels, w_axis;  /* output channels; axis of per-channel weight scales */
  tfl_activation act;
  bool allow_quant;      /* uint8/int8 supported */
} cpu_conv_types;

/* Float32 (float weights/output/bias, clamp range into *lo, *hi) or uint8/int8
 * (requantization into rq, int32 bias); any other input type is refused. TFLite applies
 * only the clamp activations; others leave the float range open. */
static inline tfl_status cpu_conv_prepare_types(const tfl_graph *g, const tfl_node *n,
                                                const cpu_conv_types *t, float *lo, float *hi,
                                                cpu_requant *rq, tfl_diag *diag)
{
  tfl_status s;
  switch (t->x->type) {
  case TFL_TYPE_FLOAT32:
    if (t->w->type != TFL_TYPE_FLOAT32 || t->y->type != TFL_TYPE_FLOAT32)
      return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "float input with %s %s, %s output",
                          tfl_type_name(t->w->type), t->w_name, tfl_type_name(t->y->type));
    cpu_activation_range_f(t->act, lo, hi);
    return cpu_check_bias(g, n, t->b, false, t->channels, diag);
  case TFL_TYPE_UINT8:
  case TFL_TYPE_INT8:
    if (!t->allow_quant) break;
    if ((s = cpu_requant_prepare(g, n, rq, t->x, t->w, t->y, t->channels, t->w_axis, t->act, diag)))
      return s;
    return cpu_check_bias(g, n, t->b, true, t->channels, diag);
  case TFL_TYPE_FLOAT16:
  case TFL_TYPE_INT32:
  case TFL_TYPE_INT64:
  case TFL_TYPE_STRING:
  case TFL_TYPE_COMPLEX64:
  case TFL_TYPE_BOOL:
  case TFL_TYPE_INT16:
  case TFL_TYPE_COUNT: break;
  }
  return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input type %s", tfl_type_name(t->x->type));
}

/* cpu_conv_prepare_types for a cpu_conv_state whose sizes and positions are set. */
static inline tfl_status cpu_conv_state_types(const tfl_graph *g, const tfl_node *n,
                                              cpu_conv_state *st, const char *w_name, int w_axis,
                                              bool allow_quant, tfl_diag *diag)
{
  cpu_conv_types t = {cpu_in(g, n, st->x_idx), cpu_in(g, n, st->w_idx), cpu_in(g, n, st->b_idx),
                      cpu_out(g, n, 0), w_name, st->out_c, w_axis, n->p.conv.act, allow_quant};
  return cpu_conv_prepare_types(g, n, &t, &st->act_lo, &st->act_hi, &st->rq, diag);
}

/* Input channels one filter reads: in_c over the groups. */
static inline int cpu_conv_group_c(const cpu_conv_state *st)
{
  return st->groups > 1 ? st->in_c / st->groups : st->in_c;
}

/* [OC][KH*KW*GC] -> [KH*KW*GC][OC], GC the channels of one group (cpu_conv_group_c) */
static inline void cpu_conv_pack_filter(cpu_conv_state *st, const float *w)
{
  size_t taps = (size_t)st->k_h * st->k_w * cpu_conv_group_c(st);
  for (int oc = 0; oc < st->out_c; oc++)
    for (size_t t = 0; t < taps; t++) st->packed[t * (size_t)st->out_c + oc] = w[oc * taps + t];
}

/* Float only: allocates the packed filter and packs a constant one (else at each eval). */
static inline tfl_status cpu_conv_prepare_packed(const tfl_graph *g, const tfl_node *n,
                                                 cpu_conv_state *st, const char *what, tfl_diag *diag)
{
  if (st->rq.on || st->hy.on) return TFL_OK;
  st->packed = malloc(sizeof(float) * (size_t)st->k_h * st->k_w * cpu_conv_group_c(st) * st->out_c);
  if (!st->packed) return tfl_fail(diag, TFL_ERR_NOMEM, "%s", what);
  const tfl_tensor *w = cpu_in(g, n, st->w_idx);
  if (w->is_const) cpu_conv_pack_filter(st, w->data);
  return TFL_OK;
}

/* What a row task of these kernels reads. */
typedef struct {
  const cpu_conv_state *st;
  const void *x, *w, *b;
  void *y;
} cpu_conv_args;

/* Packs a non-constant float filter, then runs row_f32 or row_q over batch * OH rows. */
static inline tfl_status cpu_conv_eval(const tfl_graph *g, const tfl_node *n, cpu_conv_state *st,
                                       cpu_ctx *ctx, cpu_task row_f32,
                                       cpu_task row_q)
{
  const tfl_tensor *b = cpu_in(g, n, st->b_idx), *w = cpu_in(g, n, st->w_idx);
  if (st->packed && !w->is_const) cpu_conv_pack_filter(st, w->data);
  cpu_conv_args a = {st, cpu_in(g, n, st->x_idx)->data, w->data, b ? b->data : NULL,
                     cpu_out(g, n, 0)->data};
  cpu_parallel(ctx, st->rq.on ? row_q : row_f32, &a, (size_t)st->batches * st->out_h);
  return TFL_OK;
}

/* Clamps n floats to [lo, hi]. */
static inline void cpu_clamp_f32(float *o, int n, float lo, float hi)
{
  for (int i = 0; i < n; i++) o[i] = o[i] < lo ? lo : (o[i] > hi ? hi : o[i]);
}

/* The tensors of an 8-bit CONV_2D the fast kernels (conv_q8_stem.c, conv_q8_neon.c)
 * take: uint8 or int8 throughout, per-tensor input and output, per-tensor or per-channel
 * (axis 0) constant dense weights [OC, KH, KW, IC], an int32 constant bias of OC, a clamp
 * (or no) activation. Sizes and strides are each kernel's own limits. */
static inline bool cpu_conv_q8_tensors_fit(const tfl_graph *g, const tfl_node *n)
{
  if (n->op != TFL_OP_CONV_2D || n->dead) return false;
  const tfl_tensor *x = cpu_in(g, n, 0), *w = cpu_in(g, n, 1), *y = cpu_out(g, n, 0), *b = cpu_in(g, n, 2);
  if (!x || !w || !y || (x->type != TFL_TYPE_UINT8 && x->type != TFL_TYPE_INT8) || w->type != x->type ||
      y->type != x->type)
    return false;
  if (!w->is_const || !w->data || w->sparsity || x->ndim != 4 || w->ndim != 4 || y->ndim != 4) return false;
  if (w->dims[3] < 1 || w->dims[3] != x->dims[3] || w->dims[0] < 1 || y->dims[3] != w->dims[0]) return false;
  if (x->q.n != 1 || y->q.n != 1 || (w->q.n != 1 && (w->q.n != w->dims[0] || w->q.axis != 0))) return false;
  if (b && (b->type != TFL_TYPE_INT32 || !b->is_const || !b->data || tfl_tensor_count(b) != (size_t)w->dims[0]))
    return false;
  return tfl_act_is_clamp(n->p.conv.act) && w->dims[1] >= 1 && w->dims[2] >= 1;
}

#endif
