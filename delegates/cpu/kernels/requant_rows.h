/* requant_rows.h - int32 accumulators to uint8/int8 outputs, per output channel, with
 * exactly the reference kernels' arithmetic (cpu_requant_fp32: the accumulator plus the
 * int32 bias, as float32, times a float32 scale, clamped, rounded to nearest even, plus
 * the zero point): a fast kernel that gets int32 sums elsewhere (oneDNN's VNNI
 * convolutions) stores bit for bit what the reference kernel would.
 * AVX-512 where the CPU has it (the caller says, cpu_features), portable C otherwise. */
#ifndef CPU_REQUANT_ROWS_H
#define CPU_REQUANT_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  int channels;
  const int32_t *bias;   /* [channels], NULL: none */
  /* [channels], NULL: none: acc += corr_k[c] * corr[pixel] (window_sums.h) */
  const int32_t *corr_k;
  const float *scale;    /* [channels]: in_scale * w_scale[c] / out_scale (cpu_requant_scale) */
  int32_t zero_point;    /* output's */
  int32_t lo, hi;        /* the fused activation's range, quantized */
  bool is_u8;            /* uint8 storage, else int8 */
} cpu_requant_rows;

/* out[p][c] = requant(acc[p][c] (+ corr_k[c] * corr[p]) + bias[c]) for
 * `pixels` rows of `channels` values (acc and out rows are dense); corr is ignored without
 * corr_k. avx512: use the AVX-512 path (only if the CPU has it). */
void cpu_requant_rows_run(const cpu_requant_rows *r, const int32_t *acc, const int32_t *corr, void *out,
                          size_t pixels, bool avx512);

#endif
