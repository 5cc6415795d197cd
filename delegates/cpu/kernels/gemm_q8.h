/* gemm_q8.h - an 8-bit matrix product for the fast path's FULLY_CONNECTED and
 * TRANSPOSE_CONV kernels (fc_q8.c, tconv_q8.c): out[i][j] = sum_k x_u[i][k] * s[j][k],
 * x_u unsigned input bytes, s = w - w_zp signed weight differences, int32 sums wrapping
 * modulo 2^32 like the reference kernels' accumulators.
 *
 * Weights are packed once (prepare) as [blocks of 16 rows][k / 4][16][4]: one 64-byte
 * vector per 16 rows and 4 k, the operand layout of AVX-512 VNNI's vpdpbusd (4 unsigned
 * x 4 signed bytes summed into each int32 lane). The caller turns that into the reference's sum with
 * the per-row sums: with zx_u the input zero point read as unsigned, zw the weight zero
 * point and Sx[i] = sum_k x_u[i][k],
 *   sum_k (x_u - zx_u) (w - zw) = out - zx_u * sum[j] + (offset - zw) * (Sx[i] - k * zx_u). Paths: AVX-512 VNNI,
 * portable C (the same packed layout). Private to delegates/cpu/kernels/. */
#ifndef CPU_GEMM_Q8_H
#define CPU_GEMM_Q8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../../runtime/tfl_status.h"

#define CPU_Q8_ROWS 16   /* weight rows per packed block */

typedef struct {
  int rows, k;        /* weight rows (output columns) and the dot product's length */
  int kq;             /* k rounded up to whole groups of 4, in groups */
  int blocks;         /* rows rounded up to whole blocks of 16, in blocks */
  int8_t *w;          /* [blocks][kq][16][4], zero past rows and k */
  int32_t *sum;       /* [rows]: sum over k of s[j][k] */
} cpu_q8_gemm;

/* Weight row j (k stored bytes), for cpu_q8_gemm_pack. */
typedef const void *(*cpu_q8_row_fn)(const void *user, int j);

/* The offset subtracted from stored weights: 128 for uint8, 0 for int8. */
static inline int32_t cpu_q8_gemm_offset(bool w_u8)
{
  return w_u8 ? 128 : 0;
}

/* Packs the rows; false on out of memory. */
bool cpu_q8_gemm_pack(cpu_q8_gemm *p, int rows, int k, bool w_u8, cpu_q8_row_fn row, const void *user);
void cpu_q8_gemm_free(cpu_q8_gemm *p);

/* out[i][j] for rows i in [0, n) of x_u (each kq * 4 bytes, zero past k, stride x_stride
 * bytes) and weight blocks [b0, b1): columns 16 * b0 .. min(16 * b1, rows) - 1 of out
 * rows (stride out_stride int32). vnni: the AVX-512 VNNI path (only if the CPU has it). */
void cpu_q8_gemm_run(const cpu_q8_gemm *p, const uint8_t *x_u, size_t x_stride, int n, int b0, int b1,
                     int32_t *out, size_t out_stride, bool vnni);

#endif
