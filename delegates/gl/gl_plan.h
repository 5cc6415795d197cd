/* gl_plan.h - compiles a partition into a list of dispatches, without GL.
 *
 * Passes, in order (gl_plan.c):
 *   1. group:  each node becomes a dispatch (two: a generator with a first body,
 *              gl_gen_out.pre, and arena scratch of its own), an alias (reshape that keeps the PHWC4
 *              layout, float-domain quantize) or an epilogue fused into the dispatch
 *              producing its input (element-wise ops whose input has one consumer);
 *   2. generate: each dispatch's generator gives body, grid and packed constants;
 *   3. schedule (gl_sched.c): dispatches ordered by dependency level, activations get
 *              arena offsets by lifetime (greedy by size, as the CPU planner), barriers
 *              only where arena ranges conflict; constants get one range per dispatch;
 *   4. emit:   full `#version 310 es` sources with sizes and offsets as #defines.
 * The delegate (gl_delegate.c) then compiles the sources and owns the GL objects.
 * Tuning: gl_tune.c's table (workgroups, tiles, fusion and split thresholds), read here
 * and by the fusion passes; generators get its choices as plain values (gl_gen_tile).
 * Debugging: gl_tuning (gl_delegate.h) switches fusion, reordering, barriers, tiles
 * and, in fp16 mode, 32-bit constants or residual sums (neither is needed for the
 * models' tolerances since accumulators are highp, see gl_gen.h; they are for
 * bisecting precision problems).
 */
#ifndef GL_PLAN_H
#define GL_PLAN_H

#include "gl_delegate.h"
#include "gl_gen.h"
#include "gl_layout.h"
#include "gl_limits.h"
#include "runtime/tfl_delegate.h"

typedef struct {
  bool fp16;                 /* storage as packed halves (uvec2 per vec4) */
  int const_align_bytes;     /* SSBO offset alignment of the constant ranges */
  gl_device_tuning dev;      /* the device as measured (gl_device.h); zero: defaults */
  gl_tuning tune;            /* the delegate's switches (gl_delegate.h); fp16 mode keeps
                                activations 32-bit unless tune.half_activations
                                (gl_precision.c) */
  gl_limits lim;             /* the context's limits (gl_limits.h): every dispatch is
                                checked against them and split where its workgroup count is
                                over; zero: nothing checked */
  bool *limits_hit;          /* may be NULL: set when the build failed on a limit */
} gl_plan_options;

typedef struct {
  char *src;                 /* complete shader source */
  int groups[3];             /* workgroups to dispatch */
  int wg[3];                 /* its workgroup size */
  bool split;                /* groups over the limit in some dimension: dispatched in parts,
                                each part's first invocation in uniform location 0 (ivec4) */
  size_t const_off, const_units; /* its constants: unit range in the constant blob (a
                                unit is one element of the buffer, gl_consts.h) */
  int node;                  /* the node it was generated for (the first of a fused chain) */
  int n_fused;               /* element-wise nodes fused into it */
  double flops;              /* arithmetic of its primary node (2 per multiply-add), for GFLOP/s */
  bool barrier;              /* a shader-storage barrier must precede it: it reads arena
                                memory written, or writes memory read or written, by a
                                dispatch since the last barrier (else the two may overlap) */
} gl_plan_dispatch;

typedef struct {
  int tensor;                /* graph tensor */
  size_t off;                /* arena offset in vec4s (slots of the fp16 arena) */
  gl_shape sh;
  bool wide;                 /* fp16 mode: held as 32-bit floats, two slots per vec4 */
  bool feeds;                /* an output some node of another partition reads (not just
                                a graph output): it goes on in full precision */
} gl_plan_io;

typedef struct {
  gl_plan_dispatch *d;
  int n_d;
  void *consts;              /* constant blob in storage format (gl_consts.h), const_bytes
                                long */
  size_t const_bytes;
  size_t arena_n;            /* arena vec4s */
  gl_plan_io *in, *out;      /* partition boundary tensors, in part->inputs/outputs order;
                                out ends with write-backs (basic LSTM state into its inputs) */
  int n_in, n_out;
  int n_nodes, n_fused, n_alias, n_wide, n_barriers;
  int n_inlined;             /* groups computed inside their consumer's shader (gl_fuse.c) */
  int n_se;                  /* squeeze-excite chains in one dispatch each (gl_gen_se.c) */
  int n_remapped;            /* reshapes and concatenations folded into producers' writes */
  int n_paired;              /* convolutions computed alongside a sibling (same input) */
  int n_dwpw;                /* depthwise + 1x1 convolution pairs in one dispatch each */
  int n_irb;                 /* of those, with their 1x1 expansion in the dispatch too */
  int wg_count[3];           /* workgroups a dispatch may have per dimension (split ones are
                                dispatched in parts of at most this) */
} gl_plan;

/* Can the delegate run node `node`? (The op table row plus its check.) When not, `why`
 * (may be NULL) says why. */
bool gl_plan_supports(const tfl_graph *g, int node, tfl_diag *why);
tfl_status gl_plan_build(const tfl_graph *g, const tfl_partition *part, const gl_plan_options *o, gl_plan *out, tfl_diag *diag);
void gl_plan_free(gl_plan *p);

#endif
