/* tconv_q8.h - the fast path's 8-bit TRANSPOSE_CONV: uint8 or int8 (per-channel weights
 * along axis 0), every input pixel times every tap as one 8-bit matrix product
 * (gemm_q8.h), then each output gathers its taps' sums; the reference kernel's geometry
 * and requantization, so the output is the reference's bit for bit. Fast mode only. */
#ifndef CPU_TCONV_Q8_H
#define CPU_TCONV_Q8_H

#include <stdbool.h>

#include "../cpu_features.h"
#include "../cpu_kernel.h"

/* True when node n is an 8-bit TRANSPOSE_CONV this kernel runs: one 8-bit type, constant
 * weights (any zero points), per-tensor input/output quantization, and per-tap sums of
 * at most 64 MiB. */
bool cpu_tconv_q8_fits(const tfl_graph *g, const tfl_node *n);
bool cpu_tconv_q8_applies(const tfl_graph *g, const tfl_node *n, const cpu_features *isa);
void cpu_tconv_q8_use_isa(void *state, const cpu_features *isa);

extern const cpu_kernel cpu_k_tconv_q8;

#endif
