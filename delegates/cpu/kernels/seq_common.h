/* seq_common.h - what the recurrent kernels share (lstm_cell.c, sequence_*.c, lstm.c).
 *
 * Hybrid ops (float activations, int8 weights with one scale) follow TFLite's scheme:
 * (TFLite reads only the weights' scale, never their zero point, and takes uint8 weights
 * as the int8 bytes of legacy hybrid models: so do these kernels)
 * each batch row of an activation (input, state) is quantized on its own, symmetric
 * (scale max|v| / 127, zero point 0) or, with asymmetric_quantize_inputs, onto -128..127
 * with a nudged zero point; the int8 dot product is exact and scaled back by
 * row scale * weight scale (float).
 */
#ifndef SEQ_COMMON_H
#define SEQ_COMMON_H

#include "conv_common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* TFLite's BatchQuantizeFloats for one row of n values: q, *sf (scale), *zp. */
static inline void seq_quantize_row(const float *v, int n, bool asym, int8_t *q, float *sf, int32_t *zp)
{
  float lo = n ? v[0] : 0.0f, hi = lo;
  for (int i = 1; i < n; i++) {
    if (v[i] < lo) lo = v[i];
    if (v[i] > hi) hi = v[i];
  }
  *zp = 0;
  *sf = 1.0f;
  if (!asym) {
    float range = fmaxf(fabsf(lo), fabsf(hi));
    if (range == 0.0f) {
      memset(q, 0, (size_t)n);
      return;
    }
    *sf = range / 127.0f;
    float inv = 127.0f / range;
    for (int i = 0; i < n; i++) {
      float r = roundf(v[i] * inv);
      /* NaN clamps low, as the quantize kernel does (a NaN cast to int is undefined) */
      q[i] = (int8_t)(!(r >= -127.0f) ? -127 : (r > 127.0f ? 127 : (int)r));
    }
    return;
  }
  double rmin = lo < 0.0f ? lo : 0.0, rmax = hi > 0.0f ? hi : 0.0;
  if (rmin == rmax) {
    memset(q, 0, (size_t)n);
    return;
  }
  double scale = (rmax - rmin) / 255.0;
  /* the zero point from whichever end loses less to rounding, nudged into -128..127 */
  double z_lo = -128.0 - rmin / scale, z_hi = 127.0 - rmax / scale;
  double e_lo = 128.0 + fabs(rmin / scale), e_hi = 127.0 + fabs(rmax / scale);
  double zd = e_lo < e_hi ? z_lo : z_hi;
  int32_t z = !(zd > -128.0) ? -128 : (zd >= 127.0 ? 127 : (int32_t)round(zd));
  *sf = (float)scale;
  *zp = z;
  float inv = 1.0f / *sf;
  for (int i = 0; i < n; i++) {
    float r = roundf((float)z + v[i] * inv);
    q[i] = (int8_t)(!(r >= -128.0f) ? -128 : (r > 127.0f ? 127 : (int)r));
  }
}

/* sum(w[i] * (q[i] - zp)) as TFLite's int32 accumulator (row sum times zero point). */
static inline int32_t seq_dot_i8(const int8_t *restrict w, const int8_t *restrict q, int n, int32_t zp)
{
  int32_t acc = 0, sum = 0;
  for (int i = 0; i < n; i++) {
    acc += (int32_t)w[i] * q[i];
    sum += w[i];
  }
  return (int32_t)((uint32_t)acc - (uint32_t)sum * (uint32_t)zp);
}

/* y[r] += W[r,:] . x for a float [rows, cols] matrix. */
static inline void seq_matvec_f32(float *y, const float *w, const float *x, int rows, int cols)
{
  for (int r = 0; r < rows; r++) y[r] += cpu_dot_f32(w + (size_t)r * cols, x, cols);
}

/* y[r] += (W[r,:] . (q - zp)) * (sf * w_scale) for an int8 [rows, cols] matrix. */
static inline void seq_matvec_i8(float *y, const int8_t *w, const int8_t *q, int rows, int cols, float sf,
                                 int32_t zp, float w_scale)
{
  float s = sf * w_scale;
  for (int r = 0; r < rows; r++) y[r] += (float)seq_dot_i8(w + (size_t)r * cols, q, cols, zp) * s;
}

/* a * b * c, false when it overflows size_t (dims of a hostile model). */
static inline bool seq_mul3(size_t a, size_t b, size_t c, size_t *out)
{
  size_t ab;
  return !__builtin_mul_overflow(a, b, &ab) && !__builtin_mul_overflow(ab, c, out);
}

/* Weight types of a hybrid op (uint8: int8 bytes, as TFLite reads them). */
static inline bool seq_hybrid_type(tfl_type t)
{
  return t == TFL_TYPE_INT8 || t == TFL_TYPE_UINT8;
}

/* Checks a hybrid weight tensor: int8 or uint8 with one scale (TFLite reads params.scale
 * only, not the zero point). Returns the scale through *scale. */
tfl_status seq_check_hybrid_weight(const tfl_graph *g, const tfl_node *n, int i, float *scale, tfl_diag *diag);

/* The activations TFLite's recurrent kernels apply (ApplyActivationToVector). */
bool seq_act_ok(tfl_activation act);

#endif
