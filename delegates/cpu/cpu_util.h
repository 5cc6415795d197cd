/* cpu_util.h - small helpers shared by CPU kernels: activation clamps, quantization
 * math and shape queries. Requantization follows, bit for bit, what TensorFlow Lite
 * computes: XNNPACK's schemes for the ops its delegate takes, TFLite's fixed point for
 * the builtin kernels; each kernel says which it uses. */
#ifndef CPU_UTIL_H
#define CPU_UTIL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../runtime/tfl_graph.h"
#include "../../runtime/tfl_fused_act.h" /* tfl_act_is_clamp */
#include "../../runtime/tfl_padding.h" /* tfl_conv_out_size, tfl_conv_pad_before */

/* Float clamp range of a fused activation (NONE: -inf..inf). TANH/SIGN_BIT/SIGMOID are not
 * clamps: kernels apply them with cpu_apply_activation. */
void cpu_activation_range_f(tfl_activation act, float *lo, float *hi);
/* Applies any fused activation to one float value. */
float cpu_apply_activation(tfl_activation act, float v);

/* Quantized clamp range of a fused activation on an output with (scale, zero_point) and
 * integer type `type` (UINT8, INT8, INT32). */
void cpu_activation_range_q(tfl_activation act, float scale, int32_t zero_point, tfl_type type,
                            int32_t *lo, int32_t *hi);

/* Per-tensor (index 0) or per-channel scale / zero point; 1 and 0 when unquantized. */
static inline float cpu_scale(const tfl_tensor *t, int ch)
{
  return t->q.n == 0 ? 1.0f : t->q.scale[t->q.n > 1 ? ch : 0];
}
static inline int32_t cpu_zero_point(const tfl_tensor *t, int ch)
{
  return t->q.n == 0 ? 0 : t->q.zero_point[t->q.n > 1 ? ch : 0];
}

/* round-half-away-from-zero, as TFLite's quantize uses */
static inline int32_t cpu_round(double v)
{
  return (int32_t)(v >= 0 ? floor(v + 0.5) : ceil(v - 0.5));
}
static inline int32_t cpu_clamp_i32(int32_t v, int32_t lo, int32_t hi)
{
  return v < lo ? lo : (v > hi ? hi : v);
}
/* a + b with the int32 accumulator's wrap-around (defined, unlike signed overflow): what
 * hardware accumulators do with a hostile model's sums. */
static inline int32_t cpu_wrap_add(int32_t a, int32_t b)
{
  return (int32_t)((uint32_t)a + (uint32_t)b);
}
/* XNNPACK's "fp32" requantization (conv, depthwise, fully connected, pooling): the int32
 * accumulator converted to float, times a float32 scale, clamped to [lo, hi] less the
 * zero point, rounded to nearest with ties to even, plus the zero point. The scale is
 * computed in float32 too: cpu_requant_scale. */
static inline int32_t cpu_requant_fp32(int32_t acc, float scale, int32_t zp, int32_t lo, int32_t hi)
{
  float f = (float)acc * scale;
  float flo = (float)(lo - zp), fhi = (float)(hi - zp);
  f = f < flo ? flo : (f > fhi ? fhi : f);
  return (int32_t)lrintf(f) + zp; /* default rounding mode: nearest, ties to even */
}
/* (a * b) / c evaluated in float32, left to right, as XNNPACK forms requantization scales. */
static inline float cpu_requant_scale(float a, float b, float c)
{
  volatile float ab = a * b; /* keeps the intermediate in float precision */
  return ab / c;
}

/* TFLite's fixed-point requantization (gemmlowp style, for its builtin kernels): a real
 * multiplier as a Q31 value and a power-of-two exponent (QuantizeMultiplier) ... */
void cpu_quantize_multiplier(double m, int32_t *q31, int *shift);
/* ... and x * m applied as a rounding doubling high multiply by q31 followed by a
 * rounding (half away from zero) right shift (MultiplyByQuantizedMultiplier). */
int32_t cpu_mul_by_quantized_multiplier(int32_t x, int32_t q31, int shift);
/* gemmlowp's SaturatingRoundingDoublingHighMul and RoundingDivideByPOT. */
int32_t cpu_srdhm(int32_t a, int32_t b);
int32_t cpu_rounding_div_pot(int32_t x, int exponent);

/* Integer limits of a quantized storage type. */
void cpu_type_limits(tfl_type type, int32_t *lo, int32_t *hi);

/* Reads element i of an integer or float tensor as float, dequantizing if quantized. */
float cpu_get_real(const tfl_tensor *t, size_t i);
/* Quantizes/stores a real value at element i (clamped to the type), or stores float. */
void cpu_set_real(tfl_tensor *t, size_t i, float v);


#endif
