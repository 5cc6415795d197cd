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

/* The first `bytes` (<= 32) of dst blended with colour lanes c by lane weights wl. The
 * same bytes of the next row (stride on) are fetched meanwhile: frames arrive cold from a
 * camera or decoder, and a drawn pixel's neighbour below is most often drawn too. */
static inline void blend32(uint8_t *dst, __m512i c, __m512i wl, int bytes, int stride)
{
  _mm_prefetch((const char *)dst + stride, _MM_HINT_T0); /* never faults, even past the frame */
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
    for (int r = 0; r < rows; r++) blend32(dst + (ptrdiff_t)r * stride + i * ch, c, wl, m * ch, stride);
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
      blend32(dst + i * ch, c, wl, m * ch, stride);
    }
}

/* ---- the float kernels (ov_kernels_float.h) on 16 lanes ---- */

typedef __m512 vf;
#define VW 16

static inline vf vf_set1(float x) { return _mm512_set1_ps(x); }
static inline vf vf_load(const float *p) { return _mm512_loadu_ps(p); }
static inline void vf_store(float *p, vf v) { _mm512_storeu_ps(p, v); }
static inline vf vf_add(vf a, vf b) { return _mm512_add_ps(a, b); }
static inline vf vf_sub(vf a, vf b) { return _mm512_sub_ps(a, b); }
static inline vf vf_mul(vf a, vf b) { return _mm512_mul_ps(a, b); }
static inline vf vf_min(vf a, vf b) { return _mm512_min_ps(a, b); }
static inline vf vf_max(vf a, vf b) { return _mm512_max_ps(a, b); }
static inline vf vf_abs(vf a) { return _mm512_abs_ps(a); }
static inline vf vf_sqrt(vf a) { return _mm512_sqrt_ps(a); }

static inline vf vf_lanes_from(int x)
{
  const __m512i iota = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  return _mm512_cvtepi32_ps(_mm512_add_epi32(_mm512_set1_epi32(x), iota));
}

static inline vf vf_where_positive(vf p, vf v)
{
  return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(p, _mm512_setzero_ps(), _CMP_GT_OQ), v);
}

/* 16 weights (already rounded up by 0.5) to uint16 */
static inline void store_weights(uint16_t *w, vf v)
{
  _mm256_storeu_si256((void *)w, _mm512_cvtepi32_epi16(_mm512_cvttps_epi32(v)));
}

/* Upsampling, 16 neighbouring outputs read at most 16 neighbouring texels: one load and
 * two in-register permutes replace two gathers (slow on some CPUs). */
static inline void fetch_pair(const float *row, const int32_t *i0, const int32_t *i1, vf *a, vf *b)
{
  __m512i j0 = _mm512_loadu_si512(i0), j1 = _mm512_loadu_si512(i1);
  int base = i0[0], last = i1[15]; /* indices grow along the row */
  if (last - base >= 16) {
    *a = _mm512_i32gather_ps(j0, row, 4);
    *b = _mm512_i32gather_ps(j1, row, 4);
    return;
  }
  /* load only up to the last texel used: the row may end there */
  vf win = _mm512_maskz_loadu_ps((__mmask16)(0xffffu >> (15 - (last - base))), row + base);
  __m512i vb = _mm512_set1_epi32(base);
  *a = _mm512_permutexvar_ps(_mm512_sub_epi32(j0, vb), win);
  *b = _mm512_permutexvar_ps(_mm512_sub_epi32(j1, vb), win);
}

#include "ov_kernels_float.h"

static const OvKernels kernels = {
  "avx512", blend_row, blend_const, shape_weights, prob_weights, lerp_gather,
};

const OvKernels *ov_kernels_avx512(void)
{
  return &kernels;
}
