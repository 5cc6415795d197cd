/* bmm_hybrid.h - the fast path's hybrid BATCH_MATMUL (float32 lhs and output, constant int8
 * rhs with per-tensor or per-column scales): the reference kernel's per-row asymmetric
 * quantization of the lhs (hybrid.h), the int8 product on gemm_q8.h (one packed matrix per
 * rhs batch) and the reference's float output: its output bit for bit (finite inputs).
 * Fast mode only. */
#ifndef CPU_BMM_HYBRID_H
#define CPU_BMM_HYBRID_H

#include <stdbool.h>

#include "../cpu_features.h"
#include "../cpu_kernel.h"

bool cpu_bmm_hybrid_fits(const tfl_graph *g, const tfl_node *n);
bool cpu_bmm_hybrid_applies(const tfl_graph *g, const tfl_node *n, const cpu_features *isa);
/* Which path a prepared state runs (tests force the portable one). */
void cpu_bmm_hybrid_use_isa(void *state, const cpu_features *isa);

extern const cpu_kernel cpu_k_bmm_hybrid;

#endif
