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
#define CPU_NODE_ERR(status, g, n, fmt, ...)                                                     \
  tfl_error(status, "node %d (%s): " fmt, cpu_node_index(g, n), tfl_op_name((n)->op), __VA_ARGS__)

/* Checks that tensor `t` (role `what`) exists and has `ndim` dims (ndim < 0: any). */
static inline tfl_status cpu_check_tensor(const tfl_graph *g, const tfl_node *n, const tfl_tensor *t,
                                          const char *what, int ndim)
{
  if (!t) return CPU_NODE_ERR(TFL_ERR_SHAPE, g, n, "missing %s tensor", what);
  if (ndim >= 0 && t->ndim != ndim)
    return CPU_NODE_ERR(TFL_ERR_SHAPE, g, n, "%s has %d dims, expected %d", what, t->ndim, ndim);
  if (t->is_const && !t->data && t->bytes)
    return CPU_NODE_ERR(TFL_ERR_ARG, g, n, "constant %s has no data", what);
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
                                             tfl_activation act)
{
  rq->on = true;
  rq->is_u8 = x->type == TFL_TYPE_UINT8;
  if (w->type != x->type || y->type != x->type)
    return CPU_NODE_ERR(TFL_ERR_UNSUPPORTED, g, n, "input %s, weights %s, output %s: types differ",
                        tfl_type_name(x->type), tfl_type_name(w->type), tfl_type_name(y->type));
  if (x->q.n != 1 || y->q.n != 1)
    return CPU_NODE_ERR(TFL_ERR_UNSUPPORTED, g, n, "%s needs per-tensor quantized input/output",
                        tfl_type_name(x->type));
  if (w->q.n != 1 && (w->q.n != channels || w->q.axis != w_axis))
    return CPU_NODE_ERR(TFL_ERR_UNSUPPORTED, g, n,
                        "weights have %d scales on axis %d, expected 1 or %d on axis %d", w->q.n,
                        w->q.axis, channels, w_axis);
  rq->in_zp = cpu_zero_point(x, 0);
  rq->out_zp = cpu_zero_point(y, 0);
  rq->w_zp = malloc(sizeof(int32_t) * (size_t)channels);
  rq->scale = malloc(sizeof(float) * (size_t)channels);
  if (!rq->w_zp || !rq->scale) return tfl_error(TFL_ERR_NOMEM, "requant tables");
  int32_t tlo, thi;
  cpu_type_limits(x->type, &tlo, &thi);
  for (int c = 0; c < channels; c++) {
    rq->w_zp[c] = cpu_zero_point(w, c);
    int32_t zps[3] = {rq->in_zp, rq->out_zp, rq->w_zp[c]};
    for (int k = 0; k < 3; k++) /* the int16 dot products rely on this */
      if (zps[k] < tlo || zps[k] > thi)
        return CPU_NODE_ERR(TFL_ERR_FORMAT, g, n, "zero point %d outside %s range", zps[k],
                            tfl_type_name(x->type));
    rq->scale[c] = cpu_requant_scale(cpu_scale(x, 0), cpu_scale(w, c), cpu_scale(y, 0));
    if (!(rq->scale[c] > 0.0f && rq->scale[c] < 1e6f)) /* zero, negative, NaN or absurd */
      return CPU_NODE_ERR(TFL_ERR_FORMAT, g, n, "channel %d: scales give multiplier %g", c,
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
                                        bool quant, int channels)
{
  if (!b) return TFL_OK;
  tfl_type want = quant ? TFL_TYPE_INT32 : TFL_TYPE_FLOAT32;
  if (b->type != want)
    return CPU_NODE_ERR(TFL_ERR_UNSUPPORTED, g, n, "bias is %s, expected %s",
                        tfl_type_name(b->type), tfl_type_name(want));
  if (tfl_tensor_count(b) != (size_t)channels)
    return CPU_NODE_ERR(TFL_ERR_SHAPE, g, n, "bias has %zu values, expected %d",
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
 * are written as int16 x int16 -> int32, which -O2 turns into multiply-add pairs. */
static inline int32_t cpu_dot_u8(const uint8_t *restrict x, const uint8_t *restrict w, int n,
                                 int32_t zx, int32_t zw)
{
  int32_t acc = 0;
  int i = 0;
  for (; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; j++)
      acc += (int16_t)(x[i + j] - zx) * (int16_t)(w[i + j] - zw);
  for (; i < n; i++) acc += ((int32_t)x[i] - zx) * ((int32_t)w[i] - zw);
  return acc;
}
static inline int32_t cpu_dot_i8(const int8_t *restrict x, const int8_t *restrict w, int n,
                                 int32_t zx, int32_t zw)
{
  int32_t acc = 0;
  int i = 0;
  for (; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; j++)
      acc += (int16_t)(x[i + j] - zx) * (int16_t)(w[i + j] - zw);
  for (; i < n; i++) acc += ((int32_t)x[i] - zx) * ((int32_t)w[i] - zw);
  return acc;
}

/* Stores integer v (already in range) as uint8 or int8 at element i of `data`. */
static inline void cpu_store_q(void *data, bool is_u8, size_t i, int32_t v)
{
  if (is_u8)
    ((uint8_t *)data)[i] = (uint8_t)v;
  else
    ((int8_t *)data)[i] = (int8_t)v;
}

#endif
