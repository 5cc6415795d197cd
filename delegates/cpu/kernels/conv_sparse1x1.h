/* conv_sparse1x1.h - a fast float32 CONV_2D for 1x1, stride 1 convolutions whose
 * constant weights are mostly zeros (pruned models such as pose_detection): only the
 * non-zero weights are multiplied. Fast mode only; the CPU delegate picks it, and the
 * XNNPACK partitions leave such convs to it (xnn_partition_supports). */
#ifndef CPU_CONV_SPARSE1X1_H
#define CPU_CONV_SPARSE1X1_H

#include <stdbool.h>

#include "../cpu_kernel.h"

/* Share of zero weights from which the sparse kernel is used. At 75% zeros it ran 1.1-1.9x
 * XNNPACK's dense conv (pose_detection's shapes); at 50% it does half the dense work with
 * costlier loads and transposes, about even. (hand_landmark_full has convs with 44-52%
 * zeros, whole dead channels: left to XNNPACK.) */
#define CPU_SPARSE1X1_MIN_ZEROS (2.0 / 3.0)
/* Fewer input channels leave so few non-zeros per output channel that the transposes
 * dominate: XNNPACK's dense GEMM was faster there (16 or 24 in, 0.66-0.93x). */
#define CPU_SPARSE1X1_MIN_IN_C 32
/* Each conv taken out of XNNPACK splits its subgraph (another runtime invoke and thread
 * dispatch, a PAD after it no longer fused: ~10-20 us); the kernel saves ~30-50% of the
 * dense conv, so it pays from a dense conv of ~50 us: pixels * in_c * out_c
 * multiply-adds at ~70 GMAC/s. Measured: face_detection_full_range_sparse (convs of
 * 1.2-2.6 M) got slower with all of them sparse, pose_detection (3.7-43 M) faster. */
#define CPU_SPARSE1X1_MIN_MACS 3.5e6

/* True when the kernel can run node n: a float32 CONV_2D with a 1x1 filter, stride 1,
 * constant weights with >= CPU_SPARSE1X1_MIN_ZEROS zeros, a clamp (or no) activation,
 * on a CPU with AVX-512. */
bool cpu_conv_sparse1x1_fits(const tfl_graph *g, const tfl_node *n);
/* True when the fast path should run node n on this kernel rather than in XNNPACK: it
 * fits, with >= CPU_SPARSE1X1_MIN_IN_C input channels and >= CPU_SPARSE1X1_MIN_MACS dense
 * multiply-adds. */
bool cpu_conv_sparse1x1_applies(const tfl_graph *g, const tfl_node *n);

extern const cpu_kernel cpu_k_conv_sparse1x1;

#endif
