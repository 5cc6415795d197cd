/* tconv_hybrid.h - the fast path's hybrid TRANSPOSE_CONV (float32 input and output,
 * constant int8 weights, one scale per output channel): the reference kernel's per-image
 * asymmetric quantization (hybrid.h), every input pixel's products with every (tap,
 * output channel) weight row on gemm_q8.h, then each output pixel's taps gathered as the
 * reference does and its float output stage: its output bit for bit (finite inputs).
 * Fast mode only. */
#ifndef CPU_TCONV_HYBRID_H
#define CPU_TCONV_HYBRID_H

#include <stdbool.h>

#include "../cpu_features.h"
#include "../cpu_kernel.h"

bool cpu_tconv_hybrid_fits(const tfl_graph *g, const tfl_node *n);
bool cpu_tconv_hybrid_applies(const tfl_graph *g, const tfl_node *n, const cpu_features *isa);
/* Which path a prepared state runs (tests force the portable one). */
void cpu_tconv_hybrid_use_isa(void *state, const cpu_features *isa);

extern const cpu_kernel cpu_k_tconv_hybrid;

#endif
