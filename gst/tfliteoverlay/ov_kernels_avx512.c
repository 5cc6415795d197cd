/* ov_kernels_avx512.c - the row kernels with AVX-512 F/BW/VL (see ov_kernels.h).
 *
 * Built with -mavx512f -mavx512bw -mavx512vl -ffp-contract=off; only called where cpuid
 * says the CPU runs them. Each kernel does the portable kernel's operations in the same
 * order, 16 or 32 lanes at a time; row tails are masked, or, for weights, written into the
 * row's spare lanes. */
#include <immintrin.h>
#include <stddef.h>

#include "ov_kernels.h"

/* Weights of the first n (<= 32 / ch) pixels in 32 bytes of a row, one per byte lane
 * (ch = 1), per byte pair (ch = 2) or on the first three bytes of each 4 (ch = 4); the
 * lanes of pixels past n are 0. */
static inline __m512i lane_weights(const uint16_t *w, int ch, int n)
{
  if (ch == 1) return _mm512_maskz_loadu_epi16((__mmask32)(0xffffffffu >> (32 - n)), w);
  if (ch == 2) {
    const __m512i idx = _mm512_set_epi16(15, 15, 14, 14, 13, 13, 12, 12, 11, 11, 10, 10, 9, 9, 8, 8,
                                         7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0);
    __m256i v = _mm256_maskz_loadu_epi16((__mmask16)(0xffffu >> (16 - n)), w);
    return _mm512_permutexvar_epi16(idx, _mm512_castsi256_si512(v));
  }
  const __m512i idx = _mm512_set_epi16(7, 7, 7, 7, 6, 6, 6, 6, 5, 5, 5, 5, 4, 4, 4, 4,
                                       3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0);
  __m128i v = _mm_maskz_loadu_epi16((__mmask8)(0xffu >> (8 - n)), w);
  return _mm512_maskz_permutexvar_epi16(0x77777777u, idx, _mm512_castsi128_si512(v));
}

/* The first `bytes` (<= 32) of dst blended with colour lanes c by lane weights wl. */
static inline void blend32(uint8_t *dst, __m512i c, __m512i wl, int bytes)
{
  if (bytes == 32) {
    __m512i f = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const void *)dst));
    __m512i r = _mm512_add_epi16(f, _mm512_mulhrs_epi16(_mm512_sub_epi16(c, f), wl));
    _mm256_storeu_si256((void *)dst, _mm512_cvtepi16_epi8(r));
    return;
  }
  __mmask32 k = (__mmask32)(0xffffffffu >> (32 - bytes));
  __m512i f = _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(k, dst));
  __m512i r = _mm512_add_epi16(f, _mm512_mulhrs_epi16(_mm512_sub_epi16(c, f), wl));
  _mm256_mask_storeu_epi8(dst, k, _mm512_cvtepi16_epi8(r));
}

static void blend_row(uint8_t *dst, int stride, int rows, const uint8_t *color, const uint16_t *w,
                      int n, int ch)
{
  const int step = 32 / ch; /* pixels per 32 bytes */
  for (int i = 0; i < n; i += step) {
    int m = n - i < step ? n - i : step;
    __m512i wl = lane_weights(w + i, ch, m);
    if (!_mm512_test_epi16_mask(wl, wl)) continue; /* nothing drawn here: leave the bytes alone */
    __mmask32 k = (__mmask32)(0xffffffffu >> (32 - m * ch));
    __m512i c = _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(k, color + i * ch));
    for (int r = 0; r < rows; r++) blend32(dst + (ptrdiff_t)r * stride + i * ch, c, wl, m * ch);
  }
}

static void blend_const(uint8_t *dst, int stride, int rows, const uint8_t color[4], const uint16_t *w,
                        int w_stride, int n, int ch)
{
  const int step = 32 / ch;
  __m512i c = ch == 1   ? _mm512_set1_epi16(color[0])
              : ch == 2 ? _mm512_set1_epi32((int)(color[0] | (uint32_t)color[1] << 16))
                        : _mm512_set1_epi64((long long)(color[0] | (uint64_t)color[1] << 16 |
                                                        (uint64_t)color[2] << 32 | (uint64_t)color[3] << 48));
  for (int r = 0; r < rows; r++, dst += stride, w += w_stride)
    for (int i = 0; i < n; i += step) {
      int m = n - i < step ? n - i : step;
      __m512i wl = lane_weights(w + i, ch, m);
      if (!_mm512_test_epi16_mask(wl, wl)) continue;
      blend32(dst + i * ch, c, wl, m * ch);
    }
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
  for (int i = 0; i < n; i += 16) { /* the last vector may fill spare lanes past n */
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

/* Upsampling, 16 neighbouring outputs read at most 16 neighbouring texels: one load and
 * two in-register permutes replace two gathers (slow on some CPUs). */
static void lerp_gather(float *out, const float *row, const int32_t *i0, const int32_t *i1,
                        const float *t, int n)
{
  const __m512 one = _mm512_set1_ps(1.0f);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512i j0 = _mm512_loadu_si512(i0 + i), j1 = _mm512_loadu_si512(i1 + i);
    int base = i0[i], last = i1[i + 15]; /* indices grow along the row */
    __m512 a, b;
    if (last - base < 16) {
      /* the window's texels past the row's last used one are never selected: load only up to it */
      __m512 win = _mm512_maskz_loadu_ps((__mmask16)(0xffffu >> (15 - (last - base))), row + base);
      __m512i vb = _mm512_set1_epi32(base);
      a = _mm512_permutexvar_ps(_mm512_sub_epi32(j0, vb), win);
      b = _mm512_permutexvar_ps(_mm512_sub_epi32(j1, vb), win);
    } else {
      a = _mm512_i32gather_ps(j0, row, 4);
      b = _mm512_i32gather_ps(j1, row, 4);
    }
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
