/* requant_rows.c - see requant_rows.h. */
#include "requant_rows.h"

#include "../cpu_util.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* 16 channels at a time, the tail under a mask. The float conversions, the product and
 * the rounding conversion use the default rounding mode (nearest even), as the
 * reference's casts and lrintf do. */
__attribute__((target("avx512f,avx512bw"))) static void run_avx512(const cpu_requant_rows *r,
                                                                   const int32_t *acc, const int32_t *corr,
                                                                   void *out, size_t pixels)
{
  const int C = r->channels;
  const __m512 flo = _mm512_set1_ps((float)(r->lo - r->zero_point));
  const __m512 fhi = _mm512_set1_ps((float)(r->hi - r->zero_point));
  const __m512i zp = _mm512_set1_epi32(r->zero_point);
  for (size_t p = 0; p < pixels; p++) {
    const int32_t *a = acc + p * (size_t)C;
    for (int c = 0; c < C; c += 16) {
      const __mmask16 m = C - c >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (C - c)) - 1);
      __m512i v = _mm512_maskz_loadu_epi32(m, a + c);
      if (r->corr_k) {
        const __m512i k = _mm512_maskz_loadu_epi32(m, r->corr_k + c);
        v = _mm512_add_epi32(v, _mm512_mullo_epi32(k, _mm512_set1_epi32(corr[p])));
      }
      if (r->bias) v = _mm512_add_epi32(v, _mm512_maskz_loadu_epi32(m, r->bias + c));
      __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(v), _mm512_maskz_loadu_ps(m, r->scale + c));
      f = _mm512_min_ps(_mm512_max_ps(f, flo), fhi);
      const __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(f), zp);
      if (r->is_u8)
        _mm512_mask_cvtusepi32_storeu_epi8((uint8_t *)out + p * (size_t)C + c, m, q);
      else
        _mm512_mask_cvtsepi32_storeu_epi8((int8_t *)out + p * (size_t)C + c, m, q);
    }
  }
}
#define HAVE_AVX512_PATH 1
#else
#define HAVE_AVX512_PATH 0
#endif

static void run_portable(const cpu_requant_rows *r, const int32_t *acc, const int32_t *corr, void *out,
                         size_t pixels)
{
  const int C = r->channels;
  for (size_t p = 0; p < pixels; p++)
    for (int c = 0; c < C; c++) {
      const size_t i = p * (size_t)C + (size_t)c;
      /* wraps like the int32 lanes of the vector path (no overflow in real models) */
      uint32_t a = (uint32_t)acc[i] + (uint32_t)(r->bias ? r->bias[c] : 0);
      if (r->corr_k)
        a += (uint32_t)r->corr_k[c] * (uint32_t)corr[p];
      const int32_t q = cpu_requant_fp32((int32_t)a, r->scale[c], r->zero_point, r->lo, r->hi);
      if (r->is_u8)
        ((uint8_t *)out)[i] = (uint8_t)q;
      else
        ((int8_t *)out)[i] = (int8_t)q;
    }
}

void cpu_requant_rows_run(const cpu_requant_rows *r, const int32_t *acc, const int32_t *corr, void *out,
                          size_t pixels, bool avx512)
{
#if HAVE_AVX512_PATH
  if (avx512) {
    run_avx512(r, acc, corr, out, pixels);
    return;
  }
#endif
  (void)avx512;
  run_portable(r, acc, corr, out, pixels);
}
