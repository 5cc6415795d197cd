/* fc_hybrid.h - the fast path's hybrid FULLY_CONNECTED (float32 input and output,
 * constant int8 weights with per-tensor or per-channel scales): each input row quantized
 * as the reference kernel does (hybrid.h: symmetric, or asymmetric per
 * asymmetric_quantize_inputs or where LiteRT's XNNPACK runs the node), the int8 product on
 * gemm_q8.h, and the reference's float output stage and activation: its output bit for
 * bit (finite inputs). Fast mode only. */
#ifndef CPU_FC_HYBRID_H
#define CPU_FC_HYBRID_H

#include <stdbool.h>

#include "../cpu_features.h"
#include "../cpu_kernel.h"

bool cpu_fc_hybrid_fits(const tfl_graph *g, const tfl_node *n);
bool cpu_fc_hybrid_applies(const tfl_graph *g, const tfl_node *n, const cpu_features *isa);
/* Which path a prepared state runs (tests force the portable one). */
void cpu_fc_hybrid_use_isa(void *state, const cpu_features *isa);

extern const cpu_kernel cpu_k_fc_hybrid;

#endif
