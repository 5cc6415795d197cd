/* quantize_lut.h - the fast path's 8-bit -> 8-bit QUANTIZE (a requantization, as on
 * posenet's uint8 input turned int8): the reference kernel's 256-entry table, looked up
 * 64 bytes at a time (AVX-512 VBMI: two vpermi2b, a blend on the top bit), threaded. The
 * reference kernel's scalar loop took 0.22 ms for posenet's 509 K input bytes. Output bit
 * for bit the reference's (its own table). Paths chosen at prepare from cpu_features: AVX-512
 * VBMI, portable C. Fast mode only (cpu_quantize_lut_applies). */
#ifndef CPU_QUANTIZE_LUT_H
#define CPU_QUANTIZE_LUT_H

#include <stdbool.h>

#include "../cpu_features.h"
#include "../cpu_kernel.h"

/* True when node n is a QUANTIZE from uint8/int8 to uint8/int8; with isa: and the CPU has
 * AVX-512 VBMI (the fast path takes it only then). */
bool cpu_quantize_lut_fits(const tfl_graph *g, const tfl_node *n);
bool cpu_quantize_lut_applies(const tfl_graph *g, const tfl_node *n, const cpu_features *isa);

/* Which path a prepared state runs (tests force the portable one): the CPU's by default. */
void cpu_quantize_lut_use_isa(void *state, const cpu_features *isa);

extern const cpu_kernel cpu_k_quantize_lut;

#endif
