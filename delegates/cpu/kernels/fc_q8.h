/* fc_q8.h - the fast path's 8-bit FULLY_CONNECTED: uint8 or int8, per-tensor or
 * per-channel weights (the per-channel int8 classifier heads XNNPACK's 2022 snapshot
 * cannot take), int32 sums from gemm_q8.h and the reference kernel's requantization,
 * so the output is the reference's bit for bit. Fast mode only. */
#ifndef CPU_FC_Q8_H
#define CPU_FC_Q8_H

#include <stdbool.h>

#include "../cpu_features.h"
#include "../cpu_kernel.h"

/* True when node n is an 8-bit FULLY_CONNECTED this kernel runs: input, weights and
 * output of one 8-bit type, constant 2-D weights (any zero points), per-tensor
 * input/output quantization. */
bool cpu_fc_q8_fits(const tfl_graph *g, const tfl_node *n);
bool cpu_fc_q8_applies(const tfl_graph *g, const tfl_node *n, const cpu_features *isa);
/* Which path a prepared state runs (tests force the portable one). */
void cpu_fc_q8_use_isa(void *state, const cpu_features *isa);

extern const cpu_kernel cpu_k_fc_q8;

#endif
