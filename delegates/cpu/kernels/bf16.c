/* bf16.c - see bf16.h. */
#include "bf16.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) static void convert_native(const float *x,
                                                                                  uint16_t *y,
                                                                                  size_t n)
{
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512bh v = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(x + i + 16), _mm512_loadu_ps(x + i));
    _mm512_storeu_si512((void *)(y + i), (__m512i)v);
  }
  for (; i < n; i += 16) {
    const __mmask16 m = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1);
    const __m256bh v = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(m, x + i));
    _mm256_mask_storeu_epi16(y + i, m, (__m256i)v);
  }
}
#define HAVE_NATIVE 1
#else
#define HAVE_NATIVE 0
#endif

void cpu_bf16_convert(const float *x, uint16_t *y, size_t n, bool native)
{
#if HAVE_NATIVE
  if (native) {
    convert_native(x, y, n);
    return;
  }
#endif
  (void)native;
  for (size_t i = 0; i < n; i++) y[i] = cpu_bf16_from_f32(x[i]);
}
