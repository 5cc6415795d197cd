/* hybrid_quant.c - see hybrid_quant.h. */
#include "hybrid_quant.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HQ_X86 1
/* Products and sums rounded one at a time, as the reference's: an explicit rounding mode
 * keeps the compiler from fusing them into one multiply-add (AVX-512F has those). */
#define HQ_RN (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#endif

#ifdef HQ_X86
__attribute__((target("avx512f"))) static void min_max_avx512(const float *x, size_t n, float *lo, float *hi)
{
  __m512 mn = _mm512_set1_ps(x[0]), mx = mn;
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 v = _mm512_loadu_ps(x + i);
    mn = _mm512_min_ps(mn, v);
    mx = _mm512_max_ps(mx, v);
  }
  if (i < n) {
    const __mmask16 m = (__mmask16)((1u << (n - i)) - 1u);
    mn = _mm512_mask_min_ps(mn, m, mn, _mm512_maskz_loadu_ps(m, x + i));
    mx = _mm512_mask_max_ps(mx, m, mx, _mm512_maskz_loadu_ps(m, x + i));
  }
  *lo = _mm512_reduce_min_ps(mn);
  *hi = _mm512_reduce_max_ps(mx);
}

/* roundf (half away from zero) of off + x * inv: truncate, then step away from zero where
 * the cut fraction (exact: r - trunc(r)) is at least one half. Then the clamp to [qmin,
 * 127]; a NaN becomes qmin as in hybrid.h (max returns its second operand on NaN). Returns
 * q + 128 in each int32 lane. */
__attribute__((target("avx512f,avx512bw,avx512vl"))) static inline __m512i quant16(__m512 x, __m512 inv, __m512 off,
                                                                                 __m512 qmin)
{
  const __m512 qmax = _mm512_set1_ps(127.0f), half = _mm512_set1_ps(0.5f), one = _mm512_set1_ps(1.0f);
  const __m512i sign = _mm512_set1_epi32((int)0x80000000u);
  const __m512 r = _mm512_add_round_ps(off, _mm512_mul_round_ps(x, inv, HQ_RN), HQ_RN);
  __m512 t = _mm512_roundscale_ps(r, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  const __mmask16 up = _mm512_cmp_ps_mask(_mm512_abs_ps(_mm512_sub_ps(r, t)), half, _CMP_GE_OQ);
  const __m512 step =
      _mm512_castsi512_ps(_mm512_or_si512(_mm512_and_si512(_mm512_castps_si512(r), sign), _mm512_castps_si512(one)));
  t = _mm512_mask_add_ps(t, up, t, step);
  t = _mm512_min_ps(_mm512_max_ps(t, qmin), qmax);
  return _mm512_add_epi32(_mm512_cvttps_epi32(t), _mm512_set1_epi32(128));
}

/* 64 values a step, packed to bytes in registers and stored whole: a narrowing store
 * (vpmovdb to memory) was the loop's bottleneck on this EPYC. */
__attribute__((target("avx512f,avx512bw,avx512vl"))) static void quant_avx512(const cpu_hybrid_qparams *p, const float *x,
                                                                           size_t n, uint8_t *u)
{
  const __m512 inv = _mm512_set1_ps(p->inv), off = _mm512_set1_ps(p->off), qmin = _mm512_set1_ps(p->qmin);
  /* packs work within 128-bit lanes: this puts the four vectors' bytes back in order */
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  for (size_t i = 0; i < n; i += 64) {
    __m512i v[4];
    for (int k = 0; k < 4; k++) {
      const size_t at = i + 16 * (size_t)k, left = at < n ? n - at : 0;
      if (!left) {   /* past the end (a pixel's few channels): nothing to compute */
        v[k] = _mm512_setzero_si512();
        continue;
      }
      const __mmask16 m = left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1u);
      v[k] = quant16(_mm512_maskz_loadu_ps(m, x + at), inv, off, qmin);
    }
    const __m512i b = _mm512_packus_epi16(_mm512_packs_epi32(v[0], v[1]), _mm512_packs_epi32(v[2], v[3]));
    const __m512i o = _mm512_permutexvar_epi32(order, b);
    const size_t left = n - i;
    const __mmask64 m = left >= 64 ? ~(__mmask64)0 : (__mmask64)((1ull << left) - 1ull);
    _mm512_mask_storeu_epi8(u + i, m, o);
  }
}

/* max(lo, v) then min(hi, .): a NaN v passes (the second operand on NaN), and an equal
 * v (-0 against 0) is kept, as the reference's comparisons do. */
__attribute__((target("avx512f"))) static void dequant_avx512(const void *acc, const int32_t *wsum, int32_t zx_u,
                                                             const float *w_scale, float x_scale, const float *bias,
                                                             float lo, float hi, int n, size_t rows, void *out)
{
  const __m512i zx = _mm512_set1_epi32(zx_u);
  const __m512 xs = _mm512_set1_ps(x_scale), vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
  for (int c = 0; c < n; c += 16) {
    const __mmask16 m = n - c >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - c)) - 1u);
    const __m512i corr = wsum ? _mm512_mullo_epi32(zx, _mm512_maskz_loadu_epi32(m, wsum + c)) : _mm512_setzero_si512();
    const __m512 s = _mm512_mul_round_ps(_mm512_maskz_loadu_ps(m, w_scale + c), xs, HQ_RN);
    const __m512 b = bias ? _mm512_maskz_loadu_ps(m, bias + c) : _mm512_setzero_ps();
    for (size_t r = 0; r < rows; r++) {
      const size_t at = r * (size_t)n + (size_t)c;
      const __m512i a = _mm512_sub_epi32(_mm512_maskz_loadu_epi32(m, (const int32_t *)acc + at), corr);
      __m512 v = _mm512_add_round_ps(_mm512_mul_round_ps(_mm512_cvtepi32_ps(a), s, HQ_RN), b, HQ_RN);
      v = _mm512_min_ps(vhi, _mm512_max_ps(vlo, v));
      _mm512_mask_storeu_ps((float *)out + at, m, v);
    }
  }
}
#endif

void cpu_hq_min_max(const float *x, size_t n, float *lo, float *hi, bool avx512)
{
#ifdef HQ_X86
  if (avx512) {
    min_max_avx512(x, n, lo, hi);
    return;
  }
#else
  (void)avx512;
#endif
  cpu_hybrid_min_max(x, n, lo, hi);
}

void cpu_hq_quant_u8(const cpu_hybrid_qparams *p, bool on, const float *x, size_t n, uint8_t *u, bool avx512)
{
  if (!on) {
    memset(u, 128, n);
    return;
  }
#ifdef HQ_X86
  if (avx512) {
    quant_avx512(p, x, n, u);
    return;
  }
#else
  (void)avx512;
#endif
  for (size_t i = 0; i < n; i++) u[i] = (uint8_t)(cpu_hybrid_quant_one(p, x[i]) + 128);
}

void cpu_hq_dequant(const void *acc, const int32_t *wsum, int32_t zx_u, const float *w_scale, float x_scale,
                    const float *bias, float lo, float hi, int n, size_t rows, void *out, bool avx512)
{
#ifdef HQ_X86
  if (avx512) {
    dequant_avx512(acc, wsum, zx_u, w_scale, x_scale, bias, lo, hi, n, rows, out);
    return;
  }
#else
  (void)avx512;
#endif
  for (size_t i = 0; i < rows * (size_t)n; i++) {
    const int c = (int)(i % (size_t)n);
    int32_t a;
    memcpy(&a, (const int32_t *)acc + i, sizeof a);   /* acc and out may share memory */
    if (wsum) a = (int32_t)((uint32_t)a - (uint32_t)zx_u * (uint32_t)wsum[c]);
    float v = (float)a * (w_scale[c] * x_scale) + (bias ? bias[c] : 0.0f);
    v = v < lo ? lo : (v > hi ? hi : v);
    memcpy((float *)out + i, &v, sizeof v);
  }
}

enum { CHUNK = 16384 };   /* floats per min/max or quantization task */

static size_t chunks_of(size_t img)
{
  return img ? (img + CHUNK - 1) / CHUNK : 1;
}

size_t cpu_hq_images_scratch(size_t img, int images)
{
  return 2 * chunks_of(img) * (size_t)(images > 0 ? images : 1);
}

/* The part of its image that chunk task i covers: offset into x, length; *b the image. */
static size_t chunk_at(const cpu_hq_images *j, size_t i, size_t *b, size_t *len)
{
  const size_t chunks = chunks_of(j->img);
  *b = i / chunks;
  const size_t off = (i % chunks) * CHUNK;
  *len = j->img - off < CHUNK ? j->img - off : CHUNK;
  return *b * j->img + off;
}

static void min_max_task(void *arg, size_t i)
{
  const cpu_hq_images *j = arg;
  size_t b, len;
  const size_t off = chunk_at(j, i, &b, &len);
  cpu_hq_min_max(j->x + off, len, &j->part[2 * i], &j->part[2 * i + 1], j->avx512);
}

static void quant_task(void *arg, size_t i)
{
  const cpu_hq_images *j = arg;
  size_t b, len;
  const size_t off = chunk_at(j, i, &b, &len);
  cpu_hq_quant_u8(&j->qp[b], j->on[b], j->x + off, len, j->xq + off, j->avx512);
}

void cpu_hq_images_run(const cpu_hq_images *j, cpu_ctx *ctx)
{
  if (j->img == 0 || j->images < 1) return;
  const size_t chunks = chunks_of(j->img), parts = chunks * (size_t)j->images;
  cpu_parallel(ctx, min_max_task, (void *)j, parts);
  for (int b = 0; b < j->images; b++) {
    const float *pt = j->part + 2 * (size_t)b * chunks;
    float lo = pt[0], hi = pt[1];
    for (size_t c = 1; c < chunks; c++) {
      lo = pt[2 * c] < lo ? pt[2 * c] : lo;
      hi = pt[2 * c + 1] > hi ? pt[2 * c + 1] : hi;
    }
    j->on[b] = cpu_hybrid_params(lo, hi, j->asym, &j->qp[b]);
    j->x_scale[b] = j->qp[b].scale;
    j->x_zp[b] = j->qp[b].zp;
  }
  cpu_parallel(ctx, quant_task, (void *)j, parts);
}
