/* cpu_util.c - see cpu_util.h */
#include "cpu_util.h"

#include <float.h>

#include "runtime/tfl_half.h"

void cpu_activation_range_f(tfl_activation act, float *lo, float *hi)
{
  *lo = -FLT_MAX;
  *hi = FLT_MAX;
  switch (act) {
  case TFL_ACT_RELU: *lo = 0.0f; break;
  case TFL_ACT_RELU_N1_TO_1: *lo = -1.0f; *hi = 1.0f; break;
  case TFL_ACT_RELU6: *lo = 0.0f; *hi = 6.0f; break;
  case TFL_ACT_NONE:
  case TFL_ACT_TANH:
  case TFL_ACT_SIGN_BIT:
  case TFL_ACT_SIGMOID: break;
  }
}

float cpu_apply_activation(tfl_activation act, float v)
{
  switch (act) {
  case TFL_ACT_NONE: return v;
  case TFL_ACT_RELU: return v < 0.0f ? 0.0f : v;
  case TFL_ACT_RELU_N1_TO_1: return v < -1.0f ? -1.0f : (v > 1.0f ? 1.0f : v);
  case TFL_ACT_RELU6: return v < 0.0f ? 0.0f : (v > 6.0f ? 6.0f : v);
  case TFL_ACT_TANH: return tanhf(v);
  case TFL_ACT_SIGN_BIT: return signbit(v) ? 1.0f : 0.0f;
  case TFL_ACT_SIGMOID: return 1.0f / (1.0f + expf(-v));
  }
  return v;
}

void cpu_type_limits(tfl_type type, int32_t *lo, int32_t *hi)
{
  if (tfl_type_int_range(type, lo, hi)) return;
  *lo = INT32_MIN;
  *hi = INT32_MAX;
}

void cpu_activation_range_q(tfl_activation act, float scale, int32_t zero_point, tfl_type type,
                            int32_t *lo, int32_t *hi)
{
  int32_t tlo, thi;
  cpu_type_limits(type, &tlo, &thi);
  float flo, fhi;
  cpu_activation_range_f(act, &flo, &fhi);
  *lo = tlo;
  *hi = thi;
  if (flo > -FLT_MAX) {
    double q = zero_point + (double)cpu_round(flo / scale);
    if (q > *lo) *lo = q > thi ? thi : (int32_t)q;
  }
  if (fhi < FLT_MAX) {
    double q = zero_point + (double)cpu_round(fhi / scale);
    if (q < *hi) *hi = q < tlo ? tlo : (int32_t)q;
  }
}

float cpu_get_real(const tfl_tensor *t, size_t i)
{
  int ch = 0;
  if (t->q.n > 1) { /* per-channel: find the channel index of element i */
    size_t inner = 1;
    for (int d = t->q.axis + 1; d < t->ndim; d++) inner *= (size_t)t->dims[d];
    ch = (int)((i / inner) % (size_t)t->dims[t->q.axis]);
  }
  double raw = 0.0;
  switch (t->type) {
  case TFL_TYPE_FLOAT32: return ((const float *)t->data)[i];
  case TFL_TYPE_FLOAT16: return tfl_half_to_float(((const uint16_t *)t->data)[i]);
  case TFL_TYPE_UINT8: raw = ((const uint8_t *)t->data)[i]; break;
  case TFL_TYPE_INT8: raw = ((const int8_t *)t->data)[i]; break;
  case TFL_TYPE_INT16: raw = ((const int16_t *)t->data)[i]; break;
  case TFL_TYPE_INT32: raw = ((const int32_t *)t->data)[i]; break;
  case TFL_TYPE_INT64: raw = (double)((const int64_t *)t->data)[i]; break;
  case TFL_TYPE_BOOL: raw = ((const uint8_t *)t->data)[i] ? 1 : 0; break;
  case TFL_TYPE_STRING:
  case TFL_TYPE_COMPLEX64:
  case TFL_TYPE_COUNT: return 0.0f;
  }
  if (t->q.n == 0) return (float)raw;
  return (float)(cpu_scale(t, ch) * (raw - cpu_zero_point(t, ch)));
}

void cpu_set_real(tfl_tensor *t, size_t i, float v)
{
  if (t->type == TFL_TYPE_FLOAT32) {
    ((float *)t->data)[i] = v;
    return;
  }
  double q = t->q.n ? v / (double)cpu_scale(t, 0) + cpu_zero_point(t, 0) : v;
  int32_t lo, hi;
  cpu_type_limits(t->type, &lo, &hi);
  double r = q >= 0 ? floor(q + 0.5) : ceil(q - 0.5);
  int32_t iv = r < lo ? lo : (r > hi ? hi : (int32_t)r);
  switch (t->type) {
  case TFL_TYPE_UINT8: ((uint8_t *)t->data)[i] = (uint8_t)iv; break;
  case TFL_TYPE_INT8: ((int8_t *)t->data)[i] = (int8_t)iv; break;
  case TFL_TYPE_INT16: ((int16_t *)t->data)[i] = (int16_t)iv; break;
  case TFL_TYPE_INT32: ((int32_t *)t->data)[i] = iv; break;
  case TFL_TYPE_INT64: ((int64_t *)t->data)[i] = iv; break;
  case TFL_TYPE_BOOL: ((uint8_t *)t->data)[i] = v != 0.0f; break;
  case TFL_TYPE_FLOAT32:
  case TFL_TYPE_FLOAT16:
  case TFL_TYPE_STRING:
  case TFL_TYPE_COMPLEX64:
  case TFL_TYPE_COUNT: break;
  }
}

void cpu_quantize_multiplier(double m, int32_t *q31, int *shift)
{
  if (m == 0.0) {
    *q31 = 0;
    *shift = 0;
    return;
  }
  int e;
  double frac = frexp(m, &e); /* m = frac * 2^e, frac in [0.5, 1) */
  int64_t q = (int64_t)round(frac * 2147483648.0);
  if (q == (INT64_C(1) << 31)) { /* rounded up to 1.0 */
    q /= 2;
    e++;
  }
  if (e < -31) { /* too small to represent: zero */
    q = 0;
    e = 0;
  }
  if (e > 30) { /* too large: the largest representable */
    q = INT32_MAX;
    e = 30;
  }
  *q31 = (int32_t)q;
  *shift = e;
}

int32_t cpu_srdhm(int32_t a, int32_t b)
{
  if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
  int64_t ab = (int64_t)a * b;
  int64_t nudge = ab >= 0 ? (INT64_C(1) << 30) : 1 - (INT64_C(1) << 30);
  return (int32_t)((ab + nudge) / (INT64_C(1) << 31)); /* C division truncates toward 0 */
}

int32_t cpu_rounding_div_pot(int32_t x, int exponent)
{
  int32_t mask = (int32_t)((UINT32_C(1) << exponent) - 1);
  int32_t rem = x & mask;
  int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (rem > threshold ? 1 : 0);
}

int32_t cpu_mul_by_quantized_multiplier(int32_t x, int32_t q31, int shift)
{
  int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
  return cpu_rounding_div_pot(cpu_srdhm((int32_t)((uint32_t)x << left), q31), right);
}
