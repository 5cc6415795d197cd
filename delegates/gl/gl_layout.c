/* gl_layout.c - BHWC <-> PHWC4 and half-float conversion on the CPU. */
#include "gl_layout.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "runtime/tfl_half.h"
/* not with clang: clang 14 (the fuzz build) does not know __builtin_cpu_supports("f16c"),
 * and cpuid instead costs tens of microseconds in a VM; the plain loops convert the same */
#if (defined(__x86_64__) || defined(__i386__)) && !defined(__clang__)
#include <immintrin.h>
#define GL_HAVE_F16C 1
#endif

gl_shape gl_shape_make(int b, int h, int w, int c)
{
  return (gl_shape){b, h, w, c, (c + 3) / 4};
}

bool gl_shape_of(const tfl_tensor *t, gl_shape *out)
{
  const int32_t *d = t->dims;
  switch (t->ndim) {
  case 0: *out = gl_shape_make(1, 1, 1, 1); return true;
  case 1: *out = gl_shape_make(1, 1, 1, d[0]); return true;
  case 2: *out = gl_shape_make(d[0], 1, 1, d[1]); return true;
  case 3: *out = gl_shape_make(d[0], 1, d[1], d[2]); return true;
  case 4: *out = gl_shape_make(d[0], d[1], d[2], d[3]); return true;
  }
  return false;
}

int gl_axis_4d(int rank, int axis)
{
  static const int map[5][4] = {{-1, -1, -1, -1}, {3, -1, -1, -1}, {0, 3, -1, -1}, {0, 2, 3, -1}, {0, 1, 2, 3}};
  if (axis < 0) axis += rank;
  if (rank < 0 || rank > 4 || axis < 0 || axis >= rank) return -1;
  return map[rank][axis];
}

uint16_t gl_f32_to_f16(float f)
{
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, e = (x >> 23) & 0xffu, m = x & 0x7fffffu;
  if (e == 0xff) return (uint16_t)(sign | 0x7c00u | (m ? 0x200u : 0)); /* inf / nan */
  int ex = (int)e - 127 + 15;
  if (ex >= 31) return (uint16_t)(sign | 0x7c00u);                     /* overflow: inf */
  if (ex <= 0) {                                                        /* subnormal or 0 */
    if (ex < -10) return (uint16_t)sign;
    m |= 0x800000u;
    int shift = 14 - ex;
    uint32_t h = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) h++;
    return (uint16_t)(sign | h);
  }
  uint32_t h = ((uint32_t)ex << 10) | (m >> 13), rem = m & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) h++; /* may carry into the exponent: fine */
  return (uint16_t)(sign | h);
}

#ifdef GL_HAVE_F16C
/* The hardware conversions (round to nearest even, as ours): boundary tensors of a
 * segmentation model are megabytes per frame. */
__attribute__((target("f16c"))) static void f16c_store(const float *src, size_t n, uint16_t *h)
{
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128((__m128i *)(h + i), _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
  for (; i < n; i++) h[i] = gl_f32_to_f16(src[i]);
}

__attribute__((target("f16c"))) static void f16c_load(const uint16_t *h, size_t n, float *dst)
{
  size_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(h + i))));
  for (; i < n; i++) dst[i] = tfl_half_to_float(h[i]);
}

/* Asked on every call, not cached in a static: __builtin_cpu_supports reads the
 * feature words libgcc fills once before main, so it is cheap and race-free. */
static bool have_f16c(void)
{
  return __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
}
#endif

void gl_store_floats(const float *src, size_t n, bool fp16, void *dst)
{
  if (!fp16) {
    memcpy(dst, src, n * sizeof(float));
    return;
  }
  uint16_t *h = dst;
#ifdef GL_HAVE_F16C
  if (have_f16c()) {
    f16c_store(src, n, h);
    return;
  }
#endif
  for (size_t i = 0; i < n; i++) h[i] = gl_f32_to_f16(src[i]);
}

void gl_load_floats(const void *src, size_t n, bool fp16, float *dst)
{
  if (!fp16) {
    memcpy(dst, src, n * sizeof(float));
    return;
  }
  const uint16_t *h = src;
#ifdef GL_HAVE_F16C
  if (have_f16c()) {
    f16c_load(h, n, dst);
    return;
  }
#endif
  for (size_t i = 0; i < n; i++) dst[i] = tfl_half_to_float(h[i]);
}

float gl_tensor_real(const tfl_tensor *t, const void *data, size_t i)
{
  /* per-channel quantization only appears on constants; gl_const_real handles those */
  float s = t->q.n ? t->q.scale[0] : 1.0f;
  int32_t zp = t->q.n ? t->q.zero_point[0] : 0;
  switch (t->type) {
  case TFL_TYPE_FLOAT32: return ((const float *)data)[i];
  case TFL_TYPE_FLOAT16: return tfl_half_to_float(((const uint16_t *)data)[i]);
  case TFL_TYPE_UINT8: return t->q.n ? s * (float)(((const uint8_t *)data)[i] - zp) : ((const uint8_t *)data)[i];
  case TFL_TYPE_INT8: return t->q.n ? s * (float)(((const int8_t *)data)[i] - zp) : ((const int8_t *)data)[i];
  case TFL_TYPE_INT16: return t->q.n ? s * (float)(((const int16_t *)data)[i] - zp) : ((const int16_t *)data)[i];
  case TFL_TYPE_INT32: /* the difference in 64 bits: it can leave int32's range */
    return t->q.n ? s * (float)((int64_t)((const int32_t *)data)[i] - zp) : (float)((const int32_t *)data)[i];
  case TFL_TYPE_INT64: return (float)((const int64_t *)data)[i];
  case TFL_TYPE_BOOL: return ((const uint8_t *)data)[i] ? 1.0f : 0.0f;
  case TFL_TYPE_STRING:
  case TFL_TYPE_COMPLEX64:
  case TFL_TYPE_COUNT: return 0.0f;
  }
  return 0.0f;
}

static void set_real(const tfl_tensor *t, void *data, size_t i, float v)
{
  float s = t->q.n ? t->q.scale[0] : 1.0f;
  int32_t zp = t->q.n ? t->q.zero_point[0] : 0;
  double q = t->q.n ? (double)v / s + zp : v;
  double r = q >= 0 ? floor(q + 0.5) : ceil(q - 0.5);
  /* NaN clamps low, as the CPU quantize kernel does; every conversion saturates (a float
   * out of the integer's range converts to an undefined value) */
  if (isnan(r)) r = -INFINITY;
  switch (t->type) {
  case TFL_TYPE_FLOAT32: ((float *)data)[i] = v; return;
  case TFL_TYPE_FLOAT16: ((uint16_t *)data)[i] = gl_f32_to_f16(v); return;
  case TFL_TYPE_UINT8: ((uint8_t *)data)[i] = (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r); return;
  case TFL_TYPE_INT8: ((int8_t *)data)[i] = (int8_t)(r < -128 ? -128 : r > 127 ? 127 : r); return;
  case TFL_TYPE_INT16: ((int16_t *)data)[i] = (int16_t)(r < -32768 ? -32768 : r > 32767 ? 32767 : r); return;
  case TFL_TYPE_INT32: ((int32_t *)data)[i] = r < INT32_MIN ? INT32_MIN : r > INT32_MAX ? INT32_MAX : (int32_t)r; return;
  case TFL_TYPE_INT64:
    ((int64_t *)data)[i] = r < -0x1p63 ? INT64_MIN : r >= 0x1p63 ? INT64_MAX : (int64_t)r;
    return;
  case TFL_TYPE_BOOL: ((uint8_t *)data)[i] = v != 0.0f; return;
  case TFL_TYPE_STRING:
  case TFL_TYPE_COMPLEX64:
  case TFL_TYPE_COUNT: return;
  }
}

void gl_to_phwc4(const tfl_tensor *t, const void *data, gl_shape sh, float *dst)
{
  memset(dst, 0, gl_shape_vec4s(sh) * 4 * sizeof(float));
  size_t i = 0;
  for (int b = 0; b < sh.b; b++)
    for (int y = 0; y < sh.h; y++)
      for (int x = 0; x < sh.w; x++) {
        if (t->type == TFL_TYPE_FLOAT32) { /* the common case, without per-element switch */
          const float *src = (const float *)data + i;
          for (int c = 0; c < sh.c; c++)
            dst[((((size_t)b * sh.s + c / 4) * sh.h + y) * sh.w + x) * 4 + c % 4] = src[c];
          i += (size_t)sh.c;
          continue;
        }
        for (int c = 0; c < sh.c; c++, i++)
          dst[((((size_t)b * sh.s + c / 4) * sh.h + y) * sh.w + x) * 4 + c % 4] = gl_tensor_real(t, data, i);
      }
}

void gl_from_phwc4(const float *src, gl_shape sh, const tfl_tensor *t, void *data)
{
  size_t i = 0;
  if (t->type == TFL_TYPE_FLOAT32) {
    float *d = data;
    for (int b = 0; b < sh.b; b++)
      for (int y = 0; y < sh.h; y++)
        for (int x = 0; x < sh.w; x++)
          for (int c = 0; c < sh.c; c++, i++) d[i] = src[((((size_t)b * sh.s + c / 4) * sh.h + y) * sh.w + x) * 4 + c % 4];
    return;
  }
  for (int b = 0; b < sh.b; b++)
    for (int y = 0; y < sh.h; y++)
      for (int x = 0; x < sh.w; x++)
        for (int c = 0; c < sh.c; c++, i++) {
          float v = src[((((size_t)b * sh.s + c / 4) * sh.h + y) * sh.w + x) * 4 + c % 4];
          if (t->type == TFL_TYPE_FLOAT32) ((float *)data)[i] = v;
          else set_real(t, data, i, v);
        }
}
