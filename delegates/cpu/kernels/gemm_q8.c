/* gemm_q8.c - see gemm_q8.h. */
#include "gemm_q8.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

static int32_t stored(const void *row, bool u8, int k)
{
  return u8 ? ((const uint8_t *)row)[k] : ((const int8_t *)row)[k];
}

bool cpu_q8_gemm_pack(cpu_q8_gemm *p, int rows, int k, bool w_u8, cpu_q8_row_fn row, const void *user)
{
  memset(p, 0, sizeof *p);
  p->rows = rows;
  p->k = k;
  p->kq = (k + 3) / 4;
  p->blocks = (rows + CPU_Q8_ROWS - 1) / CPU_Q8_ROWS;
  size_t bytes = (size_t)p->blocks * (size_t)p->kq * CPU_Q8_ROWS * 4;
  p->w = aligned_alloc(64, (bytes + 63) / 64 * 64);
  p->sum = calloc((size_t)rows, sizeof(int32_t));
  if (!p->w || !p->sum) {
    cpu_q8_gemm_free(p);
    return false;
  }
  memset(p->w, 0, bytes);
  const int32_t offset = cpu_q8_gemm_offset(w_u8);
  for (int j = 0; j < rows; j++) {
    const void *r = row(user, j);
    int8_t *blk = p->w + (size_t)(j / CPU_Q8_ROWS) * p->kq * CPU_Q8_ROWS * 4 + (size_t)(j % CPU_Q8_ROWS) * 4;
    int32_t sum = 0;
    for (int i = 0; i < k; i++) {
      int32_t s = stored(r, w_u8, i) - offset;
      blk[(size_t)(i / 4) * CPU_Q8_ROWS * 4 + i % 4] = (int8_t)s;
      sum += s;
    }
    p->sum[j] = sum;
  }
  return true;
}

void cpu_q8_gemm_free(cpu_q8_gemm *p)
{
  free(p->w);
  free(p->sum);
  p->w = NULL;
  p->sum = NULL;
}

/* Columns of block b that exist. */
static int block_cols(const cpu_q8_gemm *p, int b)
{
  int c = p->rows - b * CPU_Q8_ROWS;
  return c < CPU_Q8_ROWS ? c : CPU_Q8_ROWS;
}

static void run_portable(const cpu_q8_gemm *p, const uint8_t *x_u, size_t x_stride, int n, int b0, int b1,
                         int32_t *out, size_t out_stride)
{
  for (int i = 0; i < n; i++) {
    const uint8_t *x = x_u + (size_t)i * x_stride;
    for (int b = b0; b < b1; b++) {
      const int8_t *w = p->w + (size_t)b * p->kq * CPU_Q8_ROWS * 4;
      uint32_t acc[CPU_Q8_ROWS] = {0};   /* unsigned: wraps like the reference's int32 */
      for (int q = 0; q < p->kq; q++, w += CPU_Q8_ROWS * 4) {
        const uint8_t *xq = x + 4 * q;
        for (int l = 0; l < CPU_Q8_ROWS; l++)
          acc[l] += (uint32_t)(xq[0] * w[4 * l] + xq[1] * w[4 * l + 1] + xq[2] * w[4 * l + 2] + xq[3] * w[4 * l + 3]);
      }
      int32_t *o = out + (size_t)i * out_stride + (size_t)b * CPU_Q8_ROWS;
      for (int l = 0, c = block_cols(p, b); l < c; l++) o[l] = (int32_t)acc[l];
    }
  }
}

#if defined(__x86_64__)
/* One input row (a matrix-vector product, bound by the weight stream): four blocks at a
 * time share each broadcast input group. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni"))) static void
run_vnni_row(const cpu_q8_gemm *p, const uint8_t *x, int b0, int b1, int32_t *out)
{
  const size_t bstride = (size_t)p->kq * CPU_Q8_ROWS * 4;
  int b = b0;
  for (; b + 4 <= b1; b += 4) {
    const int8_t *w = p->w + (size_t)b * bstride;
    __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
    for (int q = 0; q < p->kq; q++) {
      int32_t v;
      memcpy(&v, x + 4 * q, 4);
      const __m512i xb = _mm512_set1_epi32(v);
      const int8_t *wq = w + (size_t)q * CPU_Q8_ROWS * 4;
      a0 = _mm512_dpbusd_epi32(a0, xb, _mm512_load_si512((const void *)wq));
      a1 = _mm512_dpbusd_epi32(a1, xb, _mm512_load_si512((const void *)(wq + bstride)));
      a2 = _mm512_dpbusd_epi32(a2, xb, _mm512_load_si512((const void *)(wq + 2 * bstride)));
      a3 = _mm512_dpbusd_epi32(a3, xb, _mm512_load_si512((const void *)(wq + 3 * bstride)));
    }
    __m512i acc[4] = {a0, a1, a2, a3};
    for (int i = 0; i < 4; i++) {
      const __mmask16 m = (__mmask16)((1u << block_cols(p, b + i)) - 1u);
      _mm512_mask_storeu_epi32(out + (size_t)(b + i) * CPU_Q8_ROWS, m, acc[i]);
    }
  }
  for (; b < b1; b++) {
    const int8_t *w = p->w + (size_t)b * bstride;
    __m512i a0 = _mm512_setzero_si512();
    for (int q = 0; q < p->kq; q++) {
      int32_t v;
      memcpy(&v, x + 4 * q, 4);
      a0 = _mm512_dpbusd_epi32(a0, _mm512_set1_epi32(v), _mm512_load_si512((const void *)(w + (size_t)q * CPU_Q8_ROWS * 4)));
    }
    _mm512_mask_storeu_epi32(out + (size_t)b * CPU_Q8_ROWS, (__mmask16)((1u << block_cols(p, b)) - 1u), a0);
  }
}

/* Eight input rows at a time share each weight vector: eight independent sums hide the
 * dot product's latency (four left the unit idle half the time on a 64x64 3x3 conv). */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni"))) static int
run_vnni8(const cpu_q8_gemm *p, const uint8_t *x_u, size_t x_stride, int n, int b0, int b1, int32_t *out,
          size_t out_stride)
{
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    const uint8_t *x = x_u + (size_t)i * x_stride;
    for (int b = b0; b < b1; b++) {
      const int8_t *w = p->w + (size_t)b * p->kq * CPU_Q8_ROWS * 4;
      __m512i a[8];
      for (int r = 0; r < 8; r++) a[r] = _mm512_setzero_si512();
      for (int q = 0; q < p->kq; q++) {
        const __m512i wv = _mm512_load_si512((const void *)(w + (size_t)q * CPU_Q8_ROWS * 4));
        for (int r = 0; r < 8; r++) {
          int32_t v;
          memcpy(&v, x + (size_t)r * x_stride + 4 * (size_t)q, 4);
          a[r] = _mm512_dpbusd_epi32(a[r], _mm512_set1_epi32(v), wv);
        }
      }
      const __mmask16 m = (__mmask16)((1u << block_cols(p, b)) - 1u);
      int32_t *o = out + (size_t)i * out_stride + (size_t)b * CPU_Q8_ROWS;
      for (int r = 0; r < 8; r++) _mm512_mask_storeu_epi32(o + (size_t)r * out_stride, m, a[r]);
    }
  }
  return i;
}

/* Four input rows at a time share each weight vector (the rows run_vnni8 leaves). */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni"))) static void
run_vnni(const cpu_q8_gemm *p, const uint8_t *x_u, size_t x_stride, int n, int b0, int b1, int32_t *out,
         size_t out_stride)
{
  const int done = run_vnni8(p, x_u, x_stride, n, b0, b1, out, out_stride);
  x_u += (size_t)done * x_stride;
  out += (size_t)done * out_stride;
  n -= done;
  for (int i = 0; i < n; i += 4) {
    const int rows = n - i < 4 ? n - i : 4;
    const uint8_t *x0 = x_u + (size_t)i * x_stride;
    const uint8_t *x1 = rows > 1 ? x0 + x_stride : x0, *x2 = rows > 2 ? x0 + 2 * x_stride : x0;
    const uint8_t *x3 = rows > 3 ? x0 + 3 * x_stride : x0;
    for (int b = b0; b < b1; b++) {
      const int8_t *w = p->w + (size_t)b * p->kq * CPU_Q8_ROWS * 4;
      __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
      for (int q = 0; q < p->kq; q++) {
        __m512i wv = _mm512_load_si512((const void *)(w + (size_t)q * CPU_Q8_ROWS * 4));
        int32_t v0, v1, v2, v3;
        memcpy(&v0, x0 + 4 * q, 4);
        memcpy(&v1, x1 + 4 * q, 4);
        memcpy(&v2, x2 + 4 * q, 4);
        memcpy(&v3, x3 + 4 * q, 4);
        a0 = _mm512_dpbusd_epi32(a0, _mm512_set1_epi32(v0), wv);
        a1 = _mm512_dpbusd_epi32(a1, _mm512_set1_epi32(v1), wv);
        a2 = _mm512_dpbusd_epi32(a2, _mm512_set1_epi32(v2), wv);
        a3 = _mm512_dpbusd_epi32(a3, _mm512_set1_epi32(v3), wv);
      }
      const __mmask16 m = (__mmask16)((1u << block_cols(p, b)) - 1u);
      int32_t *o = out + (size_t)i * out_stride + (size_t)b * CPU_Q8_ROWS;
      _mm512_mask_storeu_epi32(o, m, a0);
      if (rows > 1) _mm512_mask_storeu_epi32(o + out_stride, m, a1);
      if (rows > 2) _mm512_mask_storeu_epi32(o + 2 * out_stride, m, a2);
      if (rows > 3) _mm512_mask_storeu_epi32(o + 3 * out_stride, m, a3);
    }
  }
}
#endif

void cpu_q8_gemm_run(const cpu_q8_gemm *p, const uint8_t *x_u, size_t x_stride, int n, int b0, int b1,
                     int32_t *out, size_t out_stride, bool vnni)
{
#if defined(__x86_64__)
  if (vnni) {
    if (n == 1)
      run_vnni_row(p, x_u, b0, b1, out);
    else
      run_vnni(p, x_u, x_stride, n, b0, b1, out, out_stride);
    return;
  }
#else
  (void)vnni;
#endif
  run_portable(p, x_u, x_stride, n, b0, b1, out, out_stride);
}
