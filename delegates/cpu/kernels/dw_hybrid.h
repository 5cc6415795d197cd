/* dw_hybrid.h - the fast path's hybrid DEPTHWISE_CONV_2D (float32 input and output,
 * constant int8 filter with one scale per channel, depth multiplier 1): the reference
 * kernel's per-image asymmetric quantization (hybrid.h), int32 sums over 16 channels at a
 * time instead of one channel's taps at a time, and the reference's float output stage:
 * its output bit for bit (finite inputs). Fast mode only. */
#ifndef CPU_DW_HYBRID_H
#define CPU_DW_HYBRID_H

#include <stdbool.h>

#include "../cpu_features.h"
#include "../cpu_kernel.h"

bool cpu_dw_hybrid_fits(const tfl_graph *g, const tfl_node *n);
bool cpu_dw_hybrid_applies(const tfl_graph *g, const tfl_node *n, const cpu_features *isa);
/* Which path a prepared state runs (tests force the portable one). */
void cpu_dw_hybrid_use_isa(void *state, const cpu_features *isa);

extern const cpu_kernel cpu_k_dw_hybrid;

#endif
