/* conv_hybrid.h - the fast path's hybrid CONV_2D (float32 input and output, constant int8
 * filter with per-tensor or per-channel scales, one group): the reference kernel's
 * quantization of the input (hybrid.h: per image, or per pixel where LiteRT's XNNPACK runs
 * a 1x1 stride-1 conv), then the int8 product on gemm_q8.h over im2col rows instead of
 * per-tap dot products, and the reference's float output stage: the same integers, so the
 * output equals the reference's bit for bit (finite inputs). Fast mode only. */
#ifndef CPU_CONV_HYBRID_H
#define CPU_CONV_HYBRID_H

#include <stdbool.h>

#include "../cpu_features.h"
#include "../cpu_kernel.h"

bool cpu_conv_hybrid_fits(const tfl_graph *g, const tfl_node *n);
bool cpu_conv_hybrid_applies(const tfl_graph *g, const tfl_node *n, const cpu_features *isa);
/* Which path a prepared state runs (tests force the portable one). */
void cpu_conv_hybrid_use_isa(void *state, const cpu_features *isa);

extern const cpu_kernel cpu_k_conv_hybrid;

#endif
