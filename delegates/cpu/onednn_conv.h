/* onednn_conv.h - CONV_2D and DEPTHWISE_CONV_2D on oneDNN's JIT convolutions (the fast
 * path's choice where they beat XNNPACK: AVX-512 brgemm kernels in fp32, AVX-512 BF16
 * dot products in bf16, AVX-512 VNNI for 8-bit).
 *
 *   if (onednn_conv_applies(g, node, &o)) ...
 *   onednn_conv *c;  onednn_conv_create(g, node, &o, &c, diag);  // primitives JIT-compiled,
 *   onednn_conv_run(c, ctx, diag);                                //   weights reordered
 *   onednn_conv_free(c);
 *
 * Float32 graphs run in fp32, or with o.bf16 as bfloat16 inputs and weights with fp32
 * sums and outputs. 8-bit convolutions (int8 weights with zero point 0, or uint8 weights
 * whose values minus their zero point fit int8) get int32 sums from oneDNN and are
 * requantized by requant_rows.c exactly as the reference kernels do (0 LSB).
 *
 * Threads: the output rows are cut into chunks, each a oneDNN primitive run on one of our
 * pool's threads with oneDNN's own OpenMP threading held at 1 (one thread pool, no
 * spinning OpenMP team beside it). Tensor data pointers are read at each run; the graph
 * must outlive c. onednn_conv_run is not re-entrant for one c (scratch per thread slot).
 */
#ifndef ONEDNN_CONV_H
#define ONEDNN_CONV_H

#include <stdbool.h>

#include "cpu_features.h"
#include "cpu_kernel.h"

typedef struct {
  int threads;        /* the pool's thread count, >= 1 */
  bool bf16;          /* float convolutions in bfloat16 */
  cpu_features isa;   /* what the kernels around oneDNN may use (cpu_features_detect) */
  int pad_node;       /* -1, or onednn_conv_fusable_pad's answer: the conv reads that PAD's
                         input (kept alive until the conv runs: tfl_delegate.extra_uses)
                         with the PAD's padding added to its own; the PAD does not run */
  /* bf16 only, for tensors passed between oneDNN convs and read by nothing else: the
   * input tensor holds bf16 values (its producer wrote them), and the output is written
   * as bf16 (into the first half of its float32 bytes) for such readers */
  bool src_bf16, dst_bf16;
  int add_node;       /* -1, or onednn_conv_fusable_add's answer: the conv adds that ADD's other
                         input (a binary post-op) and writes the ADD's output, at its own
                         turn (tfl_delegate.extra_uses); the ADD does not run. Float only. */
  int act_node;       /* -1, or onednn_conv_fusable_act's answer for the conv's (or its fused
                         ADD's) output: applied as a post-op, its output written instead */
  bool z_bf16;        /* bf16 only: the fused ADD's addend (onednn_conv_addend) holds bf16 */
  bool pool_addend;   /* the addend's channel PAD reads onednn_conv_addend_pool's MAX_POOL:
                         the conv reads that pool's fp32 input instead (extra_uses) and takes
                         the maximum while filling in the addend; the MAX_POOL does not run */
} onednn_conv_options;

typedef struct onednn_conv onednn_conv;

/* The PAD node (PAD, or PADV2 with a zero value) whose output only this conv reads and
 * whose padding is spatial, so oneDNN can pad instead; -1 when there is none. */
int onednn_conv_fusable_pad(const tfl_graph *g, int node);
/* The ADD node that is the only reader of this float conv's output, adding a same-shape
 * tensor that exists before the conv runs, or is a channel PAD's output whose input does
 * (with a clamp or no activation); -1 when none. */
int onednn_conv_fusable_add(const tfl_graph *g, int node);
/* The PAD (PAD, or PADV2 with a zero value) that writes float tensor t, padding only
 * after the last channel, t read by one node: a fused ADD whose other addend is t reads
 * the PAD's input instead (the channels past it add nothing) and the PAD does not run;
 * -1 when there is none. */
int onednn_conv_channel_pad(const tfl_graph *g, int t);
/* The MAX_POOL_2D (2x2, stride 2, whole windows, no activation) whose output only channel
 * PAD pad_node reads, else -1: a conv can take the maximum while it fills in the addend
 * (onednn_conv_options.pool_node), and the MAX_POOL does not run. */
int onednn_conv_addend_pool(const tfl_graph *g, int pad_node);
/* The tensor a conv fused with ADD add_node reads as the other addend: the ADD's other
 * input, or through a channel PAD the PAD's input (then *channels is its channel count,
 * else 0). */
int onednn_conv_addend(const tfl_graph *g, int node, int add_node, int *channels);
/* The activation node (RELU, RELU6, HARD_SWISH, LOGISTIC) that is the only
 * reader of float tensor t, same shape; -1 when none. */
int onednn_conv_fusable_act(const tfl_graph *g, int t);

/* Would onednn_conv_create take node `node`: a CONV_2D or DEPTHWISE_CONV_2D with constant
 * weights, float32 or 8-bit as above, a clamp activation (or none), for which oneDNN has a
 * JIT implementation on this CPU (not its slow reference code)? */
bool onednn_conv_applies(const tfl_graph *g, int node, const onednn_conv_options *o);
/* Should the fast path use it rather than XNNPACK: it applies, and it is bf16 or 8-bit, or
 * a float32 conv of a kind oneDNN was measured faster on (depthwise; kxk, not 1x1). */
bool onednn_conv_preferred(const tfl_graph *g, int node, const onednn_conv_options *o);
/* Errors go to diag (may be NULL). */
tfl_status onednn_conv_create(const tfl_graph *g, int node, const onednn_conv_options *o,
                              onednn_conv **out, tfl_diag *diag);
tfl_status onednn_conv_run(onednn_conv *c, cpu_ctx *ctx, tfl_diag *diag);
void onednn_conv_free(onednn_conv *c);

#endif
