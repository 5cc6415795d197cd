/* conv_test_util.h - helpers for the convolution-family kernel tests: deterministic
 * random values, quantization of float test data, TFLite's padding arithmetic
 * (written out independently of the kernels) and 1-LSB comparisons. */
#ifndef CONV_TEST_UTIL_H
#define CONV_TEST_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../delegates/cpu/cpu_kernel.h"
#include "../op_runner.h"

static uint32_t test_rng = 12345u;

/* uniform in [lo, hi) from a fixed LCG, so every run sees the same data */
static inline float test_uniform(float lo, float hi)
{
  test_rng = test_rng * 1664525u + 1013904223u;
  return lo + (hi - lo) * (float)((test_rng >> 8) / 16777216.0);
}

static inline void test_fill(float *v, size_t n, float lo, float hi)
{
  for (size_t i = 0; i < n; i++) v[i] = test_uniform(lo, hi);
}

/* SAME: ceil(in / stride); VALID: ceil((in - eff + 1) / stride) */
static inline int test_out_size(int same, int in, int k, int stride, int dil)
{
  int eff = (k - 1) * dil + 1;
  return same ? (in + stride - 1) / stride : (in - eff) / stride + 1;
}
static inline int test_pad(int same, int in, int k, int stride, int dil, int out)
{
  if (!same) return 0;
  int total = (out - 1) * stride + (k - 1) * dil + 1 - in;
  return total > 0 ? total / 2 : 0;
}

static inline float test_act(tfl_activation act, float v)
{
  switch (act) {
  case TFL_ACT_RELU: return v < 0 ? 0 : v;
  case TFL_ACT_RELU6: return v < 0 ? 0 : (v > 6 ? 6 : v);
  case TFL_ACT_RELU_N1_TO_1: return v < -1 ? -1 : (v > 1 ? 1 : v);
  case TFL_ACT_NONE:
  case TFL_ACT_TANH:
  case TFL_ACT_SIGN_BIT:
  case TFL_ACT_SIGMOID: break;
  }
  return v;
}

/* q = clamp(round(v / scale) + zp) for uint8 (is_u8) or int8 */
static inline int32_t test_quantize(float v, float scale, int32_t zp, int is_u8)
{
  long q = lroundf(v / scale) + zp;
  long lo = is_u8 ? 0 : -128, hi = is_u8 ? 255 : 127;
  return (int32_t)(q < lo ? lo : (q > hi ? hi : q));
}

/* Quantizes n floats into raw storage (uint8 or int8); scale/zp per channel `ch_of(i)`. */
static inline void test_quantize_array(const float *v, void *raw, size_t n, const float *scale,
                                       const int32_t *zp, size_t inner, size_t channels, int is_u8)
{
  for (size_t i = 0; i < n; i++) {
    size_t c = channels > 1 ? (i / inner) % channels : 0;
    int32_t q = test_quantize(v[i], scale[c], zp[c], is_u8);
    if (is_u8)
      ((uint8_t *)raw)[i] = (uint8_t)q;
    else
      ((int8_t *)raw)[i] = (int8_t)q;
  }
}
/* Back to float (the values the kernel really sees). */
static inline void test_dequantize_array(const void *raw, float *v, size_t n, const float *scale,
                                         const int32_t *zp, size_t inner, size_t channels, int is_u8)
{
  for (size_t i = 0; i < n; i++) {
    size_t c = channels > 1 ? (i / inner) % channels : 0;
    int32_t q = is_u8 ? ((const uint8_t *)raw)[i] : ((const int8_t *)raw)[i];
    v[i] = scale[c] * (float)(q - zp[c]);
  }
}

/* Compares quantized output `got` with the quantized expected real values: |dq| <= 1. */
static inline int test_expect_q(const char *what, const void *got, const float *want_real, size_t n,
                                float scale, int32_t zp, int32_t lo, int32_t hi, int is_u8)
{
  for (size_t i = 0; i < n; i++) {
    int32_t w = test_quantize(want_real[i], scale, zp, is_u8);
    w = w < lo ? lo : (w > hi ? hi : w);
    int32_t g = is_u8 ? ((const uint8_t *)got)[i] : ((const int8_t *)got)[i];
    if (abs(g - w) > 1) {
      fprintf(stderr, "%s: element %zu is %d, expected %d (real %.6g, 1 LSB)\n", what, i, g, w,
              want_real[i]);
      return 0;
    }
  }
  return 1;
}

/* Quantized activation range (independent of the kernels' helper). */
static inline void test_act_range_q(tfl_activation act, float scale, int32_t zp, int is_u8,
                                    int32_t *lo, int32_t *hi)
{
  *lo = is_u8 ? 0 : -128;
  *hi = is_u8 ? 255 : 127;
  float flo = -INFINITY, fhi = INFINITY;
  if (act == TFL_ACT_RELU || act == TFL_ACT_RELU6) flo = 0;
  if (act == TFL_ACT_RELU6) fhi = 6;
  if (act == TFL_ACT_RELU_N1_TO_1) { flo = -1; fhi = 1; }
  if (isfinite(flo) && zp + lroundf(flo / scale) > *lo) *lo = zp + (int32_t)lroundf(flo / scale);
  if (isfinite(fhi) && zp + lroundf(fhi / scale) < *hi) *hi = zp + (int32_t)lroundf(fhi / scale);
}

#define TEST_CHECK(cond)                                                                         \
  do {                                                                                           \
    if (!(cond)) {                                                                               \
      fprintf(stderr, "%s:%d: check failed: %s (%s)\n", __FILE__, __LINE__, #cond,              \
              tfl_last_error());                                                                 \
      return 0;                                                                                  \
    }                                                                                            \
  } while (0)

#endif
