/* cpu_util.h - small helpers shared by CPU kernels: activation clamps, quantization
 * math and shape queries. Requantization uses double-precision real multipliers,
 * which lands within 1 LSB of TFLite's fixed-point multipliers. */
#ifndef CPU_UTIL_H
#define CPU_UTIL_H

#include <math.h>
#include <stdint.h>

#include "../../runtime/tfl_graph.h"

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
/* Integer limits of a quantized storage type. */
void cpu_type_limits(tfl_type type, int32_t *lo, int32_t *hi);

/* Reads element i of an integer or float tensor as float, dequantizing if quantized. */
float cpu_get_real(const tfl_tensor *t, size_t i);
/* Quantizes/stores a real value at element i (clamped to the type), or stores float. */
void cpu_set_real(tfl_tensor *t, size_t i, float v);

/* SAME/VALID padding: output size and the leading pad, as TFLite computes them. */
int cpu_conv_out_size(tfl_padding pad, int in, int filter, int stride, int dilation);
int cpu_conv_pad(tfl_padding pad, int in, int filter, int stride, int dilation, int out);

#endif
