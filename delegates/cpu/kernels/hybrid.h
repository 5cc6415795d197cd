/* hybrid.h - dynamic-range ("hybrid") quantization shared by CONV_2D, DEPTHWISE_CONV_2D,
 * FULLY_CONNECTED, BATCH_MATMUL and TRANSPOSE_CONV: float32 activations, int8 constant weights with
 * per-tensor or per-channel scales (zero point 0), float32 output.
 *
 * TensorFlow Lite quantizes each batch (conv: a whole image; FC and batch matmul: one row
 * of the input) on the fly to int8, symmetric (scale = max|x| / 127, zero point 0) or
 * asymmetric (min/max including 0 over [-128, 127], nudged zero point), accumulates
 * int8 x int8 in int32, subtracts the zero point times the weight row sums, and scales
 * back: out = (float)acc * (input_scale * weight_scale) + bias. The functions below do
 * that arithmetic the way TFLite's tensor_utils do (float and double in the same places),
 * so the same integers come out and the floats agree to the last bits.
 * Which quantization LiteRT applies depends on who runs the node: its XNNPACK delegate
 * takes constant-weight nodes with a clamp activation and always quantizes
 * asymmetrically (per row; per image for conv, per pixel for a 1x1 stride-1 conv), its
 * own kernels follow the op and asymmetric_quantize_inputs (cpu_hybrid_xnnpack_takes and
 * the kernels say which; each choice is checked by a LiteRT golden).
 * "int8 weights" means [-127, 127]: TFLite's SIMD dot products mishandle -128, which the
 * converter never writes. Private to delegates/cpu/kernels/.
 */
#ifndef CPU_HYBRID_H
#define CPU_HYBRID_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conv_common.h"

/* The smallest and largest of n >= 1 floats. */
static inline void cpu_hybrid_min_max(const float *x, size_t n, float *lo, float *hi)
{
  float mn = x[0], mx = x[0];
  for (size_t i = 1; i < n; i++) {
    mn = x[i] < mn ? x[i] : mn;
    mx = x[i] > mx ? x[i] : mx;
  }
  *lo = mn;
  *hi = mx;
}

/* How a group of floats with smallest mn and largest mx is quantized: q = clamp(round(off +
 * x * inv), qmin, 127) with round half away from zero, scale the value of one step. Symmetric
 * (asym false): scale = max|x| / 127, off 0, qmin -127. Asymmetric: min/max including 0
 * over [-128, 127], scale and zero point (off) worked out in double, as TFLite does.
 * Returns false when every q is 0 (an all-zero range): scale 1, zero point 0. */
typedef struct {
  float scale, inv, off, qmin;
  int32_t zp;
} cpu_hybrid_qparams;

static inline bool cpu_hybrid_params(float mn, float mx, bool asym, cpu_hybrid_qparams *p)
{
  *p = (cpu_hybrid_qparams){1.0f, 0.0f, 0.0f, asym ? -128.0f : -127.0f, 0};
  if (!asym) {
    float range = fabsf(mn) > fabsf(mx) ? fabsf(mn) : fabsf(mx);
    if (range == 0.0f) return false;
    p->inv = 127.0f / range;
    p->scale = range / 127.0f;
    return true;
  }
  double rmin = fmin(0.0, (double)mn), rmax = fmax(0.0, (double)mx);
  if (rmin == rmax) return false;
  double scale = (rmax - rmin) / 255.0;
  double zp_from_min = -128.0 - rmin / scale, zp_from_max = 127.0 - rmax / scale;
  double err_min = 128.0 + fabs(rmin / scale), err_max = 127.0 + fabs(rmax / scale);
  double zpd = err_min < err_max ? zp_from_min : zp_from_max;
  p->zp = zpd > -128.0 && zpd < 127.0 ? (int32_t)round(zpd) : (zpd >= 127.0 ? 127 : -128); /* NaN: -128 */
  p->scale = (float)scale;
  p->inv = (float)(1.0 / (double)p->scale);
  p->off = (float)p->zp;
  return true;
}

/* One quantized value (p from cpu_hybrid_params). */
static inline int8_t cpu_hybrid_quant_one(const cpu_hybrid_qparams *p, float x)
{
  float r = roundf(p->off + x * p->inv);
  int32_t v = r >= 127.0f ? 127 : (r >= p->qmin ? (int32_t)r : (int32_t)p->qmin); /* NaN: qmin, no UB */
  return (int8_t)v;
}

/* Quantization of n floats into q, symmetric (values in [-127, 127], zero point 0) or
 * asymmetric (values in [-128, 127], zero point *zp); returns the scale. */
static inline float cpu_hybrid_quant(const float *x, size_t n, bool asym, int8_t *q, int32_t *zp)
{
  cpu_hybrid_qparams p;
  float mn = 0.0f, mx = 0.0f;
  if (n) cpu_hybrid_min_max(x, n, &mn, &mx);
  *zp = 0;
  if (!cpu_hybrid_params(mn, mx, asym, &p)) {
    memset(q, 0, n);
    return 1.0f;
  }
  for (size_t i = 0; i < n; i++) q[i] = cpu_hybrid_quant_one(&p, x[i]);
  *zp = p.zp;
  return p.scale;
}

/* Symmetric quantization of n floats into q (values in [-127, 127]); returns the scale
 * (1 for an all-zero input, whose q are all 0). */
static inline float cpu_hybrid_quant_sym(const float *x, size_t n, int8_t *q)
{
  int32_t zp;
  return cpu_hybrid_quant(x, n, false, q, &zp);
}

/* Asymmetric quantization of n floats into q (values in [-128, 127]) with zero point
 * *zp; returns the scale (1, zero point 0 when min and max (with 0) coincide). The scale
 * and zero point are worked out in double, the values with float, as TFLite does. */
static inline float cpu_hybrid_quant_asym(const float *x, size_t n, int8_t *q, int32_t *zp)
{
  return cpu_hybrid_quant(x, n, true, q, zp);
}

/* sum(x[i] * w[i]) of int8 vectors in int32 (wrapping like the hardware's accumulators). */
static inline int32_t cpu_hybrid_dot(const int8_t *restrict x, const int8_t *restrict w, int n)
{
  uint32_t acc = 0;
  int i = 0;
  for (; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; j++) acc += (uint32_t)((int16_t)x[i + j] * (int16_t)w[i + j]);
  for (; i < n; i++) acc += (uint32_t)((int32_t)x[i] * (int32_t)w[i]);
  return (int32_t)acc;
}

/* The weights of a hybrid node: `channels` scales (per-tensor: the one scale repeated). */
typedef struct {
  float *w_scale;    /* [channels] */
  int channels;
  bool per_channel;  /* the model gives one scale per channel */
} cpu_hybrid_weights;

/* Checks hybrid weights w (int8, zero point 0, 1 scale or `channels` along `axis`, each
 * finite and > 0) and fills hw. `what` names the weights in messages. */
static inline tfl_status cpu_hybrid_weights_prepare(const tfl_graph *g, const tfl_node *n,
                                                    const tfl_tensor *w, const char *what, int channels,
                                                    int axis, cpu_hybrid_weights *hw, tfl_diag *diag)
{
  if (w->type != TFL_TYPE_INT8)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "float input with %s %s: hybrid needs INT8 %s",
                        tfl_type_name(w->type), what, what);
  if (w->q.n != 1 && (w->q.n != channels || w->q.axis != axis))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n,
                        "hybrid %s have %d scales on axis %d, expected 1 or %d on axis %d", what, w->q.n,
                        w->q.axis, channels, axis);
  hw->channels = channels;
  hw->per_channel = w->q.n > 1;
  hw->w_scale = malloc(sizeof(float) * (size_t)(channels > 0 ? channels : 1));
  if (!hw->w_scale) return tfl_fail(diag, TFL_ERR_NOMEM, "hybrid weight scales");
  for (int c = 0; c < channels; c++) {
    float s = cpu_scale(w, c);
    if (!(s > 0.0f && s < INFINITY))
      return CPU_NODE_ERR(diag, TFL_ERR_FORMAT, g, n, "hybrid %s channel %d: scale %g", what, c, (double)s);
    if (cpu_zero_point(w, c) != 0)
      return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "hybrid %s channel %d: zero point %d, expected 0",
                          what, c, (int)cpu_zero_point(w, c));
    hw->w_scale[c] = s;
  }
  return TFL_OK;
}

/* TensorFlow Lite hands a hybrid CONV_2D / FULLY_CONNECTED to its XNNPACK delegate when
 * the weights and bias are constant and the fused activation is a clamp; XNNPACK then
 * quantizes the input asymmetrically whatever asymmetric_quantize_inputs says (checked
 * against LiteRT: the same integers as TFLite's asymmetric quantization). */
static inline bool cpu_hybrid_xnnpack_takes(const tfl_tensor *w, const tfl_tensor *b, tfl_activation act)
{
  return w->is_const && w->data && (!b || (b->is_const && b->data)) && tfl_act_is_clamp(act);
}

/* sums[r] = sum of row r of an int8 [rows][cols] matrix (the zero-point correction),
 * wrapping like the accumulators it corrects. */
static inline void cpu_hybrid_row_sums(const int8_t *w, int rows, int cols, int32_t *sums)
{
  for (int r = 0; r < rows; r++) {
    uint32_t s = 0;
    for (int c = 0; c < cols; c++) s += (uint32_t)(int32_t)w[(size_t)r * cols + c];
    sums[r] = (int32_t)s;
  }
}

/* Hybrid CONV_2D (asym_always false) or DEPTHWISE_CONV_2D (true) whose geometry is in
 * st: checks the output and bias are float32 and the filter int8 with scales along
 * w_axis, picks the input quantization and allocates its buffers. CONV_2D quantizes
 * symmetrically with the first scale unless the per-channel scales differ (then
 * asymmetrically, per channel), as TFLite's EvalHybrid / EvalHybridPerChannel; depthwise
 * always takes the per-channel asymmetric path. Only clamp activations apply. */
static inline tfl_status cpu_conv_hybrid_prepare(const tfl_graph *g, const tfl_node *n, cpu_conv_state *st,
                                                 int w_axis, bool asym_always, tfl_diag *diag)
{
  const tfl_tensor *w = cpu_in(g, n, st->w_idx), *b = cpu_in(g, n, st->b_idx), *y = cpu_out(g, n, 0);
  tfl_status s;
  if (y->type != TFL_TYPE_FLOAT32)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "float input with %s filter, %s output",
                        tfl_type_name(w->type), tfl_type_name(y->type));
  /* TFLite's hybrid depthwise reads one scale per output channel (with one scale it reads
   * past the array): a per-tensor filter is refused rather than guessed */
  if (asym_always && w->type == TFL_TYPE_INT8 && w->q.n != st->out_c)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n,
                        "hybrid filter has %d scales, expected one per output channel (%d)", w->q.n, st->out_c);
  cpu_hybrid_weights hw = {0};
  s = cpu_hybrid_weights_prepare(g, n, w, "filter", st->out_c, w_axis, &hw, diag);
  st->hy.w_scale = hw.w_scale;
  if (s || (s = cpu_check_bias(g, n, b, false, st->out_c, diag))) return s;
  st->hy.on = true;
  st->hy.asym = asym_always || cpu_hybrid_xnnpack_takes(w, b, n->p.conv.act);
  for (int c = 1; c < st->out_c && hw.per_channel; c++)
    if (hw.w_scale[c] != hw.w_scale[0]) st->hy.asym = true;
  for (int c = 1; c < st->out_c && !st->hy.asym; c++) hw.w_scale[c] = hw.w_scale[0];
  cpu_activation_range_f(n->p.conv.act, &st->act_lo, &st->act_hi);
  /* XNNPACK runs a 1x1, stride-1 conv as a fully connected layer over the pixels: one
   * quantization per pixel (checked against LiteRT) */
  st->hy.per_pixel = !asym_always && cpu_hybrid_xnnpack_takes(w, b, n->p.conv.act) && st->k_h == 1 &&
                     st->k_w == 1 && st->stride_h == 1 && st->stride_w == 1;
  size_t groups = st->batches > 0 ? (size_t)st->batches : 1;
  if (st->hy.per_pixel) groups *= (size_t)st->in_h * st->in_w;
  st->hy.xq = malloc((size_t)st->batches * st->in_h * st->in_w * st->in_c + 1);
  st->hy.x_scale = malloc(sizeof(float) * (groups ? groups : 1));
  st->hy.x_zp = calloc(groups ? groups : 1, sizeof(int32_t));
  if (!st->hy.xq || !st->hy.x_scale || !st->hy.x_zp) return tfl_fail(diag, TFL_ERR_NOMEM, "hybrid conv buffers");
  return TFL_OK;
}

/* Quantizes group `b` (an image, or a pixel when per_pixel) of a hybrid conv's input (a
 * cpu_task; arg: the args). */
static inline void cpu_conv_hybrid_quant_image(void *arg, size_t b)
{
  const cpu_conv_args *a = arg;
  const cpu_conv_state *st = a->st;
  size_t size = st->hy.per_pixel ? (size_t)st->in_c : (size_t)st->in_h * st->in_w * st->in_c;
  const float *x = (const float *)a->x + b * size;
  int8_t *q = st->hy.xq + b * size;
  st->hy.x_scale[b] = st->hy.asym ? cpu_hybrid_quant_asym(x, size, q, &st->hy.x_zp[b])
                                  : cpu_hybrid_quant_sym(x, size, q);
}

/* Runs a hybrid conv: quantizes every image, then `row` over batch * OH output rows. */
static inline tfl_status cpu_conv_hybrid_eval(const tfl_graph *g, const tfl_node *n, cpu_conv_state *st,
                                              cpu_ctx *ctx, cpu_task row)
{
  const tfl_tensor *b = cpu_in(g, n, st->b_idx);
  cpu_conv_args a = {st, cpu_in(g, n, st->x_idx)->data, cpu_in(g, n, st->w_idx)->data, b ? b->data : NULL,
                     cpu_out(g, n, 0)->data};
  size_t groups = (size_t)st->batches * (st->hy.per_pixel ? (size_t)st->in_h * st->in_w : 1);
  cpu_parallel(ctx, cpu_conv_hybrid_quant_image, &a, groups);
  cpu_parallel(ctx, row, &a, (size_t)st->batches * st->out_h);
  return TFL_OK;
}

/* Which quantization group output pixel (bi, oy, ox) read: its image, or (per_pixel,
 * a 1x1 stride-1 conv) the input pixel at the same place. */
static inline size_t cpu_conv_hybrid_group(const cpu_conv_state *st, int bi, int oy, int ox)
{
  return st->hy.per_pixel ? ((size_t)bi * st->in_h + oy) * st->in_w + ox : (size_t)bi;
}

/* The float output of a hybrid conv's accumulator (zero point already taken off) in
 * quantization group qg. */
static inline float cpu_conv_hybrid_out(const cpu_conv_state *st, const float *bias, int32_t acc, size_t qg, int oc)
{
  float v = (float)acc * (st->hy.w_scale[oc] * st->hy.x_scale[qg]) + (bias ? bias[oc] : 0.0f);
  return v < st->act_lo ? st->act_lo : (v > st->act_hi ? st->act_hi : v);
}

#endif
