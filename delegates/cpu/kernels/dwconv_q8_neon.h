/* dwconv_q8_neon.h - an arm64 NEON uint8 / int8 DEPTHWISE_CONV_2D (depth multiplier 1)
 * with the reference kernel's exact requantization: output bit for bit the reference's
 * (and TensorFlow Lite's). On ARM the fast path keeps XNNPACK off 8-bit depthwise convs
 * with per-tensor weights (rounding: xnn_partition.c), which left them on the scalar
 * reference loop; this kernel takes them there: 8 channels per multiply-add (smlal), the
 * weights less their zero point packed as int16 per tap. Fast mode only, aarch64 only
 * (NEON is baseline there). */
#ifndef CPU_DWCONV_Q8_NEON_H
#define CPU_DWCONV_Q8_NEON_H

#include <stdbool.h>

#include "../cpu_kernel.h"

/* True when node n is an 8-bit DEPTHWISE_CONV_2D this kernel runs: uint8 or int8 with
 * per-tensor or per-channel (axis 3) constant weights, depth multiplier 1, any strides and
 * dilations, a clamp (or no) activation, at most 64 taps (8x8). Any CPU (the tests ask it on x86 too). */
bool cpu_dwconv_q8_neon_fits(const tfl_graph *g, const tfl_node *n);
/* ... and the fast path should take it: on aarch64, per-tensor weights (per-channel int8
 * ones go to XNNPACK, which rounds as TFLite does for those). */
bool cpu_dwconv_q8_neon_applies(const tfl_graph *g, const tfl_node *n);

extern const cpu_kernel cpu_k_dwconv_q8_neon;

#endif
