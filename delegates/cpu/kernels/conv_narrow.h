/* conv_narrow.h - a fast float32 CONV_2D for convolutions with very few output channels
 * (segmentation heads: pose landmarks' 3x3, 8 -> 1 at 256x256). XNNPACK's and oneDNN's
 * kernels block output channels by 8 or 16 and run such convs at 5-7 GFLOP/s; this one
 * vectorizes over pixels and input channels instead. Fast mode only; the CPU delegate
 * picks it (cpu_conv_narrow_applies) and XNNPACK then leaves the node to it. */
#ifndef CPU_CONV_NARROW_H
#define CPU_CONV_NARROW_H

#include <stdbool.h>

#include "../cpu_kernel.h"

/* At most this many output channels (each one more pass over the input). */
#define CPU_CONV_NARROW_MAX_OC 2
/* Smaller convs are left in their XNNPACK subgraph (taking one out costs a split). */
#define CPU_CONV_NARROW_MIN_MACS 1e6

/* True when the fast path should run node n on this kernel: a float32 CONV_2D with
 * constant weights, <= CPU_CONV_NARROW_MAX_OC output channels, stride 1, a clamp (or no)
 * activation, >= CPU_CONV_NARROW_MIN_MACS multiply-adds. */
bool cpu_conv_narrow_applies(const tfl_graph *g, const tfl_node *n);

extern const cpu_kernel cpu_k_conv_narrow;

#endif
