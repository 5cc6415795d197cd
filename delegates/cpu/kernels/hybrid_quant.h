/* hybrid_quant.h - the fast path's quantization of hybrid nodes' float inputs (hybrid.h's
 * arithmetic, the same bytes): min/max of a range and its quantized values stored as
 * unsigned bytes q + 128, the input operand of gemm_q8.h. AVX-512 and portable paths
 * (a NaN input may pick another range on the AVX-512 path; finite inputs give the same
 * bytes). Private to delegates/cpu/kernels/. */
#ifndef CPU_HYBRID_QUANT_H
#define CPU_HYBRID_QUANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../cpu_kernel.h"
#include "hybrid.h"

/* Smallest and largest of n >= 1 floats. */
void cpu_hq_min_max(const float *x, size_t n, float *lo, float *hi, bool avx512);

/* u[i] = q(x[i]) + 128 for i in [0, n) with p (on false: every q is 0, the all-zero
 * range of cpu_hybrid_params). */
void cpu_hq_quant_u8(const cpu_hybrid_qparams *p, bool on, const float *x, size_t n, uint8_t *u, bool avx512);

/* out[r][c] = clamp((float)(acc[r][c] - zx_u * wsum[c]) * (w_scale[c] * x_scale) + bias[c], lo, hi)
 * for `rows` rows of n (contiguous) sharing the quantization: the hybrid reference kernels'
 * output (hybrid.h's cpu_conv_hybrid_out), from gemm sums acc of inputs q + 128 (zx_u =
 * zero point + 128) read in place (acc and out may be the same memory). bias NULL: 0;
 * wsum NULL: no correction. */
void cpu_hq_dequant(const void *acc, const int32_t *wsum, int32_t zx_u, const float *w_scale, float x_scale,
                    const float *bias, float lo, float hi, int n, size_t rows, void *out, bool avx512);

/* Per-image quantization of `images` images of `img` floats each at x into xq (q + 128),
 * their scales and zero points into x_scale and x_zp: min/max over chunks (tasks), then
 * the parameters, then the values (tasks). part, qp and on are scratch of
 * cpu_hq_images_scratch(img, images) floats and `images` entries. */
typedef struct {
  const float *x;
  size_t img;
  int images;
  bool asym, avx512;
  float *part;
  cpu_hybrid_qparams *qp;
  bool *on;
  uint8_t *xq;
  float *x_scale;
  int32_t *x_zp;
} cpu_hq_images;

size_t cpu_hq_images_scratch(size_t img, int images);
void cpu_hq_images_run(const cpu_hq_images *job, cpu_ctx *ctx);

#endif
