/* conv_q8_stem.h - a fast uint8 / int8 CONV_2D for convs with few input channels (a
 * network's first conv on RGB pixels), the reference kernel's exact requantization after
 * it: output bit for bit the reference's. oneDNN's VNNI conv ran posenet's 3-channel 3x3
 * stem at about 95 GOP/s: a dot product over 3 input channels fills 3 of vpdpbusd's 4
 * bytes. This one gathers each output pixel's whole window (KH * KW * IC bytes, 27 for
 * 3x3x3) into a "patch" padded to whole 4-byte groups and multiplies it by 16 output
 * channels per instruction. 1x1 convs with up to 64 input channels too (the window is
 * the pixel): oneDNN wrote them as int32 sums for a second requantization pass, 4 bytes
 * per output where this stores 1 (posenet's 177x241x24 -> 48: 0.73 -> 0.65 ms).
 * Paths chosen at prepare from cpu_features: AVX-512 VNNI, portable C. Fast mode only;
 * the CPU delegate picks it (cpu_conv_q8_stem_applies) where the CPU has VNNI. */
#ifndef CPU_CONV_Q8_STEM_H
#define CPU_CONV_Q8_STEM_H

#include <stdbool.h>

#include "../cpu_features.h"
#include "../cpu_kernel.h"

/* True when node n is an 8-bit CONV_2D this kernel runs: uint8 or int8, per-tensor or
 * per-channel (axis 0) constant weights, at most 4 input channels (1x1: any), a window
 * of at most 64 bytes (KH * KW * IC), at most 128 output channels, a clamp (or no)
 * activation.
 * Without isa: whatever the CPU; with isa: also only where the fast path should take it
 * (AVX-512 VNNI). */
bool cpu_conv_q8_stem_fits(const tfl_graph *g, const tfl_node *n);
bool cpu_conv_q8_stem_applies(const tfl_graph *g, const tfl_node *n, const cpu_features *isa);

/* Which path a prepared state runs (tests force the portable one): the CPU's by default. */
void cpu_conv_q8_stem_use_isa(void *state, const cpu_features *isa);

/* After prepare: read PAD node pad_node's input instead of the conv's (the PAD's input
 * padded as the PAD would, with the input's zero point, which the caller has checked:
 * onednn_conv_fusable_pad), so that the PAD need not run. */
tfl_status cpu_conv_q8_stem_fuse_pad(void *state, const tfl_graph *g, int pad_node, tfl_diag *diag);

extern const cpu_kernel cpu_k_conv_q8_stem;

#endif
