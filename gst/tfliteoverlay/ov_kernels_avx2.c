/* ov_kernels_avx2.c - the row kernels with AVX2 (see ov_kernels.h).
 *
 * Built with -mavx2 -ffp-contract=off; only called where cpuid says the CPU runs AVX2.
 * Each kernel does the portable kernel's operations in the same order, 8 or 16 lanes at a
 * time, and leaves the row's tail to the portable kernel. */
#include <immintrin.h>
#include <stddef.h>
#include <string.h>

#include "ov_kernels.h"

/* Weights of the pixels in 16 bytes of a row, as 16-bit lanes (see ov_kernels_avx512.c). */
static inline __m256i lane_weights(const uint16_t *w, int ch)
{
  if (ch == 1) return _mm256_loadu_si256((const void *)w);
  if (ch == 2) {
    __m128i v = _mm_loadu_si128((const void *)w);
    return _mm256_set_m128i(_mm_unpackhi_epi16(v, v), _mm_unpacklo_epi16(v, v));
  }
  /* four weights, each on three lanes then a zero lane (byte 3 is kept) */
  const __m256i idx = _mm256_setr_epi8(0, 1, 0, 1, 0, 1, -1, -1, 2, 3, 2, 3, 2, 3, -1, -1,
                                       4, 5, 4, 5, 4, 5, -1, -1, 6, 7, 6, 7, 6, 7, -1, -1);
  return _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(_mm_loadl_epi64((const void *)w)), idx);
}

/* 16 bytes of dst blended with 16 colour bytes (16-bit lanes) by lane weights wl; the same
 * bytes of the next row (stride on) are fetched meanwhile (see ov_kernels_avx512.c). */
static inline void blend16(uint8_t *dst, __m256i c, __m256i wl, int stride)
{
  _mm_prefetch((const char *)dst + stride, _MM_HINT_T0);
  __m256i f = _mm256_cvtepu8_epi16(_mm_loadu_si128((const void *)dst));
  __m256i r = _mm256_add_epi16(f, _mm256_mulhrs_epi16(_mm256_sub_epi16(c, f), wl));
  _mm_storeu_si128((void *)dst, _mm_packus_epi16(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1)));
}

/* The row's last pixels (fewer than a vector) through a 16-byte buffer. */
static inline void blend_tail(uint8_t *dst, __m256i c, const uint16_t *w, int n, int ch)
{
  uint8_t buf[16] = { 0 };
  uint16_t wb[16] = { 0 };
  memcpy(buf, dst, (size_t)(n * ch));
  memcpy(wb, w, (size_t)n * sizeof *w);
  __m256i wl = lane_weights(wb, ch);
  if (_mm256_testz_si256(wl, wl)) return;
  blend16(buf, c, wl, 0);
  memcpy(dst, buf, (size_t)(n * ch));
}

static void blend_row(uint8_t *dst, int stride, int rows, const uint8_t *color, const uint16_t *w,
                      int n, int ch)
{
  const int step = 16 / ch;
  int i = 0;
  for (; i + step <= n; i += step) {
    __m256i wl = lane_weights(w + i, ch);
    if (_mm256_testz_si256(wl, wl)) continue;
    __m256i c = _mm256_cvtepu8_epi16(_mm_loadu_si128((const void *)(color + i * ch)));
    for (int r = 0; r < rows; r++) blend16(dst + (ptrdiff_t)r * stride + i * ch, c, wl, stride);
  }
  if (i < n) {
    uint8_t cb[16] = { 0 };
    memcpy(cb, color + i * ch, (size_t)((n - i) * ch));
    __m256i c = _mm256_cvtepu8_epi16(_mm_loadu_si128((const void *)cb));
    for (int r = 0; r < rows; r++) blend_tail(dst + (ptrdiff_t)r * stride + i * ch, c, w + i, n - i, ch);
  }
}

static void blend_const(uint8_t *dst, int stride, int rows, const uint8_t color[4], const uint16_t *w,
                        int w_stride, int n, int ch)
{
  const int step = 16 / ch;
  __m256i c = ch == 1   ? _mm256_set1_epi16(color[0])
              : ch == 2 ? _mm256_set1_epi32((int)(color[0] | (uint32_t)color[1] << 16))
                        : _mm256_set1_epi64x((long long)(color[0] | (uint64_t)color[1] << 16 |
                                                         (uint64_t)color[2] << 32 | (uint64_t)color[3] << 48));
  for (int r = 0; r < rows; r++, dst += stride, w += w_stride) {
    int i = 0;
    for (; i + step <= n; i += step) {
      __m256i wl = lane_weights(w + i, ch);
      if (_mm256_testz_si256(wl, wl)) continue;
      blend16(dst + i * ch, c, wl, stride);
    }
    if (i < n) blend_tail(dst + i * ch, c, w + i, n - i, ch);
  }
}

/* ---- the float kernels (ov_kernels_float.h) on 8 lanes ---- */

typedef __m256 vf;
#define VW 8

static inline vf vf_set1(float x) { return _mm256_set1_ps(x); }
static inline vf vf_load(const float *p) { return _mm256_loadu_ps(p); }
static inline void vf_store(float *p, vf v) { _mm256_storeu_ps(p, v); }
static inline vf vf_add(vf a, vf b) { return _mm256_add_ps(a, b); }
static inline vf vf_sub(vf a, vf b) { return _mm256_sub_ps(a, b); }
static inline vf vf_mul(vf a, vf b) { return _mm256_mul_ps(a, b); }
static inline vf vf_min(vf a, vf b) { return _mm256_min_ps(a, b); }
static inline vf vf_max(vf a, vf b) { return _mm256_max_ps(a, b); }
static inline vf vf_abs(vf a) { return _mm256_and_ps(a, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff))); }
static inline vf vf_sqrt(vf a) { return _mm256_sqrt_ps(a); }

static inline vf vf_lanes_from(int x)
{
  return _mm256_cvtepi32_ps(_mm256_add_epi32(_mm256_set1_epi32(x), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)));
}

static inline vf vf_where_positive(vf p, vf v)
{
  return _mm256_and_ps(_mm256_cmp_ps(p, _mm256_setzero_ps(), _CMP_GT_OQ), v);
}

/* 8 weights (already rounded up by 0.5, at most 32767.5) to uint16 */
static inline void store_weights(uint16_t *w, vf v)
{
  __m256i i = _mm256_cvttps_epi32(v);
  _mm_storeu_si128((void *)w, _mm_packus_epi32(_mm256_castsi256_si128(i), _mm256_extracti128_si256(i, 1)));
}

/* Upsampling, 8 neighbouring outputs read at most 8 neighbouring texels: one load and two
 * in-register permutes replace two gathers (slow on some CPUs). */
static inline void fetch_pair(const float *row, const int32_t *i0, const int32_t *i1, vf *a, vf *b)
{
  __m256i j0 = _mm256_loadu_si256((const void *)i0), j1 = _mm256_loadu_si256((const void *)i1);
  int base = i0[0], last = i1[7]; /* indices grow along the row */
  if (last - base >= 8) {
    *a = _mm256_i32gather_ps(row, j0, 4);
    *b = _mm256_i32gather_ps(row, j1, 4);
    return;
  }
  /* load only up to the last texel used: the row may end there */
  __m256i keep = _mm256_cmpgt_epi32(_mm256_set1_epi32(last - base + 1), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  vf win = _mm256_maskload_ps(row + base, keep);
  __m256i vb = _mm256_set1_epi32(base);
  *a = _mm256_permutevar8x32_ps(win, _mm256_sub_epi32(j0, vb));
  *b = _mm256_permutevar8x32_ps(win, _mm256_sub_epi32(j1, vb));
}

#include "ov_kernels_float.h"

static const OvKernels kernels = {
  "avx2", blend_row, blend_const, shape_weights, prob_weights, lerp_gather,
};

const OvKernels *ov_kernels_avx2(void)
{
  return &kernels;
}
