/* dwconv_q8.h - a fast uint8 / int8 DEPTHWISE_CONV_2D (depth multiplier 1) with the
 * reference kernel's exact requantization fused: output bit for bit the reference's.
 * XNNPACK's and oneDNN's 8-bit depthwise kernels ran posenet's 3x3 layers at 30-40 GOP/s
 * (widening every byte, or int32 sums out and a second pass); this one multiplies four
 * taps per instruction (AVX-512 VNNI vpdpbusd) from input rows rearranged once per row.
 * Paths chosen at prepare from cpu_features: AVX-512 VNNI, AVX-512 BW (the same with the
 * dot product emulated), portable C. Fast mode only; the CPU delegate picks it
 * (cpu_dwconv_q8_applies) where the CPU has VNNI. */
#ifndef CPU_DWCONV_Q8_H
#define CPU_DWCONV_Q8_H

#include <stdbool.h>

#include "../cpu_features.h"
#include "../cpu_kernel.h"

/* True when node n is an 8-bit DEPTHWISE_CONV_2D this kernel runs: uint8 or int8 with
 * per-tensor or per-channel (axis 3) constant weights, depth multiplier 1, any strides,
 * dilation 1, a clamp (or no) activation, filters up to 12 rows of 4-tap groups (3x3,
 * 5x5: yes; 7x7: no). Without isa: whatever the CPU; with isa: also only where the fast
 * path should take it (AVX-512 VNNI). */
bool cpu_dwconv_q8_fits(const tfl_graph *g, const tfl_node *n);
/* The tensor checks of cpu_dwconv_q8_fits alone (types, constant weights, depth multiplier
 * 1, quantization, bias), which the arm64 kernel (dwconv_q8_neon.c) shares. */
bool cpu_dwconv_q8_tensors_fit(const tfl_graph *g, const tfl_node *n);
bool cpu_dwconv_q8_applies(const tfl_graph *g, const tfl_node *n, const cpu_features *isa);

/* Which path a prepared state runs (tests force the slower ones): the CPU's by default. */
void cpu_dwconv_q8_use_isa(void *state, const cpu_features *isa);

extern const cpu_kernel cpu_k_dwconv_q8;

#endif
