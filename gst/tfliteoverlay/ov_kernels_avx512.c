/* ov_kernels_avx512.c - the row kernels with AVX-512 F/BW/VL (see ov_kernels.h).
 *
 * Built with -mavx512f -mavx512bw -mavx512vl -ffp-contract=off; only called where cpuid
 * says the CPU runs them. Each kernel does the portable kernel's operations in the same
 * order, 16 or 32 lanes at a time, and leaves the row's tail to the portable kernel. */
#include <immintrin.h>

#include "ov_kernels.h"

/* Weights of the pixels in 32 bytes of a row, one per byte lane (ch = 1), per byte pair
 * (ch = 2) or on the first three bytes of each 4 (ch = 4). */
static inline __m512i lane_weights(const uint16_t *w, int ch)
{
  if (ch == 1) return _mm512_loadu_si512(w);
  if (ch == 2) {
    const __m512i idx = _mm512_set_epi16(15, 15, 14, 14, 13, 13, 12, 12, 11, 11, 10, 10, 9, 9, 8, 8,
                                         7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0);
    return _mm512_permutexvar_epi16(idx, _mm512_castsi256_si512(_mm256_loadu_si256((const void *)w)));
  }
  const __m512i idx = _mm512_set_epi16(7, 7, 7, 7, 6, 6, 6, 6, 5, 5, 5, 5, 4, 4, 4, 4,
                                       3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0);
  return _mm512_maskz_permutexvar_epi16(0x77777777u, idx, _mm512_castsi128_si512(_mm_loadu_si128((const void *)w)));
}

/* 32 bytes of dst blended with 32 colour bytes (16-bit lanes) by lane weights wl */
static inline void blend32(uint8_t *dst, __m512i c, __m512i wl)
{
  __m512i f = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const void *)dst));
  __m512i r = _mm512_add_epi16(f, _mm512_mulhrs_epi16(_mm512_sub_epi16(c, f), wl));
  _mm256_storeu_si256((void *)dst, _mm512_cvtepi16_epi8(r));
}

static void blend_row(uint8_t *dst, const uint8_t *color, const uint16_t *w, int n, int ch)
{
  const int step = 32 / ch; /* pixels per 32 bytes */
  int i = 0;
  for (; i + step <= n; i += step) {
    __m512i wl = lane_weights(w + i, ch);
    if (!_mm512_test_epi16_mask(wl, wl)) continue; /* nothing drawn here: leave the bytes alone */
    blend32(dst + i * ch, _mm512_cvtepu8_epi16(_mm256_loadu_si256((const void *)(color + i * ch))), wl);
  }
  ov_blend_row_c(dst + i * ch, color + i * ch, w + i, n - i, ch);
}

static void blend_const(uint8_t *dst, const uint8_t color[4], const uint16_t *w, int n, int ch)
{
  const int step = 32 / ch;
  __m512i c = ch == 1   ? _mm512_set1_epi16(color[0])
              : ch == 2 ? _mm512_set1_epi32((int)(color[0] | (uint32_t)color[1] << 16))
                        : _mm512_set1_epi64((long long)(color[0] | (uint64_t)color[1] << 16 |
                                                        (uint64_t)color[2] << 32 | (uint64_t)color[3] << 48));
  int i = 0;
  for (; i + step <= n; i += step) {
    __m512i wl = lane_weights(w + i, ch);
    if (!_mm512_test_epi16_mask(wl, wl)) continue;
    blend32(dst + i * ch, c, wl);
  }
  ov_blend_const_c(dst + i * ch, color, w + i, n - i, ch);
}

static inline __m512 clamp01(__m512 v)
{
  return _mm512_min_ps(_mm512_max_ps(v, _mm512_setzero_ps()), _mm512_set1_ps(1.0f));
}

/* 16 float weights (already rounded up by 0.5) to 16 uint16 */
static inline void store_weights(uint16_t *w, __m512 v)
{
  _mm256_storeu_si256((void *)w, _mm512_cvtepi32_epi16(_mm512_cvttps_epi32(v)));
}

static void shape_weights(uint16_t *w, int x0, int n, float yc, const OvKernelShape *s)
{
  const __m512i iota = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512 half = _mm512_set1_ps(0.5f), cx = _mm512_set1_ps(s->cx), dx = _mm512_set1_ps(s->dx),
               dy = _mm512_set1_ps(s->dy), weight = _mm512_set1_ps(s->weight);
  const __m512 hx = _mm512_set1_ps(s->hx + 0.5f), hy = _mm512_set1_ps(s->hy + 0.5f);
  const __m512 ly = _mm512_set1_ps(yc - s->cy);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 xf = _mm512_cvtepi32_ps(_mm512_add_epi32(_mm512_set1_epi32(x0 + i), iota));
    __m512 lx = _mm512_sub_ps(_mm512_add_ps(xf, half), cx), a;
    if (s->disk) {
      __m512 d = _mm512_sqrt_ps(_mm512_add_ps(_mm512_mul_ps(lx, lx), _mm512_mul_ps(ly, ly)));
      a = clamp01(_mm512_sub_ps(hx, d));
    } else {
      __m512 along = _mm512_add_ps(_mm512_mul_ps(lx, dx), _mm512_mul_ps(ly, dy));
      __m512 across = _mm512_sub_ps(_mm512_mul_ps(ly, dx), _mm512_mul_ps(lx, dy));
      a = _mm512_mul_ps(clamp01(_mm512_sub_ps(hx, _mm512_abs_ps(along))),
                        clamp01(_mm512_sub_ps(hy, _mm512_abs_ps(across))));
    }
    store_weights(w + i, _mm512_add_ps(_mm512_mul_ps(a, weight), half));
  }
  ov_shape_weights_c(w + i, x0 + i, n - i, yc, s);
}

static void prob_weights(uint16_t *w, const float *h0, const float *h1, float t, float scale, int n)
{
  const __m512 vt = _mm512_set1_ps(t), vu = _mm512_set1_ps(1.0f - t), one = _mm512_set1_ps(1.0f),
               vs = _mm512_set1_ps(scale), half = _mm512_set1_ps(0.5f);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 p = _mm512_add_ps(_mm512_mul_ps(_mm512_loadu_ps(h0 + i), vu), _mm512_mul_ps(_mm512_loadu_ps(h1 + i), vt));
    __mmask16 on = _mm512_cmp_ps_mask(p, _mm512_setzero_ps(), _CMP_GT_OQ); /* NaN: off */
    __m512 v = _mm512_add_ps(_mm512_mul_ps(_mm512_min_ps(p, one), vs), half);
    store_weights(w + i, _mm512_maskz_mov_ps(on, v));
  }
  ov_prob_weights_c(w + i, h0 + i, h1 + i, t, scale, n - i);
}

static void lerp_gather(float *out, const float *row, const int32_t *i0, const int32_t *i1,
                        const float *t, int n)
{
  const __m512 one = _mm512_set1_ps(1.0f);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 a = _mm512_i32gather_ps(_mm512_loadu_si512(i0 + i), row, 4);
    __m512 b = _mm512_i32gather_ps(_mm512_loadu_si512(i1 + i), row, 4);
    __m512 vt = _mm512_loadu_ps(t + i);
    _mm512_storeu_ps(out + i, _mm512_add_ps(_mm512_mul_ps(a, _mm512_sub_ps(one, vt)), _mm512_mul_ps(b, vt)));
  }
  ov_lerp_gather_c(out + i, row, i0 + i, i1 + i, t + i, n - i);
}

static const OvKernels kernels = {
  "avx512", blend_row, blend_const, shape_weights, prob_weights, lerp_gather,
};

const OvKernels *ov_kernels_avx512(void)
{
  return &kernels;
}
