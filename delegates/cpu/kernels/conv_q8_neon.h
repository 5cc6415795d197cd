/* conv_q8_neon.h - an arm64 NEON uint8 / int8 CONV_2D with the reference kernel's exact
 * requantization: output bit for bit the reference's (and TensorFlow Lite's). On ARM the
 * fast path keeps XNNPACK off 8-bit convs with per-tensor weights (its ARM kernels round
 * ties differently: xnn_partition.c, tests/test_q8_rounding.c), which left them on the
 * scalar reference loop; this kernel takes them there. Each output pixel's window is
 * gathered once as int16 (input less its zero point), then 4 pixels times 8 output
 * channels accumulate per multiply-add by lane (smlal), the weights packed per 8 channels.
 * With the dot-product instructions (HWCAP ASIMDDP: Cortex-A76 and later; not A53/A72) the
 * window stays bytes and udot does 4 multiply-adds per lane; without them, the int16 path.
 * Fast mode only, aarch64 only (NEON is baseline there). */
#ifndef CPU_CONV_Q8_NEON_H
#define CPU_CONV_Q8_NEON_H

#include <stdbool.h>

#include "../cpu_features.h"
#include "../cpu_kernel.h"

/* True when node n is an 8-bit CONV_2D this kernel runs: uint8 or int8, per-tensor or
 * per-channel (axis 0) constant weights, one group, any strides and dilations, a clamp
 * (or no) activation, a window (KH * KW * IC) of at most 4096 values. Any CPU (the tests
 * ask it on x86 too). */
bool cpu_conv_q8_neon_fits(const tfl_graph *g, const tfl_node *n);
/* ... and the fast path should take it: on aarch64, per-tensor weights (per-channel int8
 * ones go to XNNPACK, which rounds as TFLite does for those). */
bool cpu_conv_q8_neon_applies(const tfl_graph *g, const tfl_node *n);

/* Which path a prepared state runs (tests force the int16 one): isa->dotprod picks the
 * dot products where prepare found them (cpu_features_detect). */
void cpu_conv_q8_neon_use_isa(void *state, const cpu_features *isa);

extern const cpu_kernel cpu_k_conv_q8_neon;

#endif
