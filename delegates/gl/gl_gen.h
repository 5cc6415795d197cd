/* gl_gen.h - op generators: node + shapes in; GLSL body, grid and packed constants out.
 * A generator never calls GL.
 *
 * The emitter (gl_emit.c) wraps a body into a `#version 310 es` compute shader and
 * defines, for each object input k of the node ("I0", "I1", ...; activations live in
 * the arena, constant inputs become packed constant objects):
 *   Ik_B Ik_H Ik_W Ik_C Ik_S      its BHWC sizes and slice count (compile-time ints)
 *   Ik_LD(b, y, x, s)             the vec4 at those coordinates (FLT4)
 *   Ik_LDB(b, y, x, s)            the same with numpy broadcasting against the output
 * for the output: O_B O_H O_W O_C O_S and store_out(b, y, x, s, FLT4 v), which applies
 * the fused element-wise epilogue and zeroes lanes past O_C; for each constant object
 * the generator adds ("W"): W_LD(i), the i-th vec4. fp16 mode is half-precision
 * STORAGE only: all arithmetic is highp (FLT4 = vec4 = ACC4). Drivers that honour
 * mediump (Mesa's llvmpipe does) otherwise compute in halves, which on the segmentation
 * and landmark models doubled the worst element's error; NVIDIA computes mediump as
 * fp32 anyway. ACC4 (highp vec4) marks sums over many terms.
 * main() has `ivec3 gid` (the invocation, already checked against the grid).
 * Multi-output nodes (LSTM): output 0 goes through store_out; each present output
 * k >= 1 is an arena object "Ok" with the tensor macros plus Ok_ST(b, y, x, s, v),
 * a raw store (no epilogue; the generator keeps lanes past Ok_C zero). With
 * lane_stores, Ok_STL(b, y, x, c, float v) stores channel c alone, leaving the vec4's
 * other lanes to other workgroups (a batch's counts [B]: item b is channel b).
 */
#ifndef GL_GEN_H
#define GL_GEN_H

#include <stdbool.h>
#include <stddef.h>

#include "gl_delegate.h"
#include "gl_layout.h"

/* The device as measured (gl_device.h): invocations that fill it, preferred workgroup;
 * and its limits as the context reports them. Only the tuning (gl_tune.c) reads it. */
typedef struct {
  int fill;                   /* 0: gl_tune.c's table default */
  int wg;                     /* 0: gl_tune.c's table default */
  double measure_ms;          /* time the measurement took (0: read from the cache file) */
  int max_wg;                 /* GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS; 0: GLES 3.1's 128 */
  int max_shared;             /* GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, bytes; 0: GLES 3.1's 16384 */
} gl_device_tuning;

/* The tuning table's choices for one dispatch as plain values: gl_tune_dispatch
 * (gl_tune.c) fills them from the table, the device and the delegate's switches before
 * the generator runs; generators read them and never ask the planner. Fields a
 * generator does not use stay 0. */
typedef struct {
  int conv_px, conv_sl;       /* CONV_2D, FULLY_CONNECTED: output pixels along x times
                                 slices per invocation */
  bool conv_split;            /* ... or each output's reduction split over a workgroup */
  int split_wg;               /* that workgroup (a power of two) */
  bool conv_wide;             /* ... with the weights kept 32-bit (one-pixel tiles on
                                 large maps: decoding halves costs more than the bytes) */
  int wg;                     /* gl_gen_dwpw, gl_gen_irb, gl_gen_se: the workgroup; se:
                                 0 when shared memory cannot hold it */
  int tp, pxb, npb;           /* gl_gen_dwpw: tile pixels, pixels per block (also gl_gen_irb:
                                 at most), blocks (tp 0: the
                                 depthwise output of one pixel does not fit) */
  int th, tw, cs, nch, items; /* gl_gen_irb: tile rows and columns, expanded slices per
                                 chunk, chunks, projection items per lane (th 0: none
                                 fits) */
  int win_block;              /* gl_gen_irb: window pixels per lane of the expansion */
  int reduce_wg;              /* reductions over a plane in one workgroup (gl_gen_pool) */
} gl_gen_tile;

/* A growing string; any allocation failure sets oom and later appends are dropped. */
typedef struct {
  char *p;
  size_t n, cap;
  bool oom;
} gl_str;
void gl_str_addf(gl_str *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gl_str_free(gl_str *s);

#define GL_GEN_MAX_IN 8
#define GL_GEN_MAX_CONSTS 6

typedef struct {
  char name[16];
  float *data;       /* n_vec4 * 4 floats, malloc'd, owned by the gl_gen_out */
  size_t n_vec4;
  int group;         /* weights (gl_gen_add_weights): vec4s per output slice; 0: plain */
  float *step;       /* weights on an integer grid: step per slice and lane, or NULL */
  bool wide;         /* weights kept 32-bit in a buffer of halves (gl_gen_conv: where
                        decoding a 16-bit weight costs more than its bytes) */
} gl_gen_const;

typedef struct {
  const tfl_graph *g;
  int node;                   /* index in g */
  const tfl_node *n;
  int n_in;                   /* node inputs (including omitted -1 ones) */
  bool in_obj[GL_GEN_MAX_IN]; /* input k is an object "Ik" */
  gl_shape in[GL_GEN_MAX_IN]; /* shape of input k (when present) */
  gl_shape out;               /* shape of output 0 */
  bool fn;                    /* inlined into a consumer (gl_fuse.c): the body is that of
                                 FLT4 f(int b, int y, int x, int s), store_out sets the
                                 result; only gl_gen_per_vec4 generators are asked */
  gl_gen_tile tile;           /* the tuning table's choices (gl_tune.c) */
  int in_cost[GL_GEN_MAX_IN]; /* loads per element of a virtual input (computed by an
                                 inlined producer, gl_fuse.c); 0 or 1: read from memory */
  const tfl_node *sib;        /* gl_gen_conv: a second convolution computed alongside (its
                                 slices after node's in `out`); NULL: none */
  const int *chain;           /* gl_gen_se: the nodes before `node` it computes too */
  int n_chain;
  int pre;                    /* gl_gen_dwpw: the depthwise node computed before `node`
                                 (a 1x1 convolution) in the same dispatch; I0 is its
                                 input. -1 or 0 with no generator asking: none */
  int expand;                 /* gl_gen_irb: the 1x1 convolution computed before `pre` (an
                                 inverted residual block's expansion); I0 is its input.
                                 -1: none */
} gl_gen_in;

typedef struct {
  gl_str decls;               /* functions and constants before main */
  gl_str main;                /* body of main() */
  int grid[3];                /* invocations in x, y, z */
  int wg[3];                  /* workgroup size when the body needs one (shared memory,
                                 barriers); 0: the planner's tuning table picks */
  bool whole_groups;          /* grid is a multiple of wg and main() has no early return
                                 (barrier() is not allowed after one) */
  bool lane_stores;           /* the body uses Ok_STL (single channels; halves need atomics) */
  gl_str pre;                 /* a first dispatch's body (same decls, objects and constants),
                                 run before main's with a barrier between; empty: none */
  int pre_grid[3];            /* its invocations (not whole groups: the emitter adds the
                                 bounds check) */
  int pre_wg[3];              /* its workgroup size */
  size_t scratch;             /* arena slots both dispatches share, private to the node: the
                                 emitter defines vec2 SC_LD(i) and SC_ST(i, vec2 v), two
                                 32-bit floats a slot, exact in fp16 mode too; 0: none */
  gl_gen_const consts[GL_GEN_MAX_CONSTS];
  int n_consts;
} gl_gen_out;

/* Generators and checks say why they fail in diag (may be NULL). */
typedef tfl_status (*gl_gen_fn)(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
/* Checks what the generator needs (params, constant inputs, shapes). */
typedef tfl_status (*gl_check_fn)(const tfl_graph *g, int node, tfl_diag *diag);

/* How the compiler treats a node. */
typedef enum {
  GL_KIND_NONE,      /* not supported */
  GL_KIND_GEN,       /* a dispatch from its generator */
  GL_KIND_UNARY,     /* element-wise on input 0: fusable into its producer */
  GL_KIND_BINARY,    /* element-wise on inputs 0 and 1 with broadcasting: fusable */
  GL_KIND_ALIAS,     /* output is input 0 reinterpreted (reshape with the same PHWC4, quantize) */
} gl_op_kind;

typedef struct {
  gl_op_kind kind;
  unsigned raw_inputs;        /* bit k: input k is read by the generator on the CPU, not an object */
  gl_check_fn check;
  gl_gen_fn gen;
} gl_op_info;

/* The row of op (kind GL_KIND_NONE for ops we do not run). */
const gl_op_info *gl_op_info_of(tfl_op op);

/* Adds a constant object; takes ownership of data. Returns false when full. */
bool gl_gen_add_const(gl_gen_out *o, const char *name, float *data, size_t n_vec4);
/* Adds weights whose vec4 lanes are output channels, `group` vec4s per output slice
 * (gl_consts.h: 16-bit with a scale per slice and lane in fp16 mode). The body must
 * multiply each sum of NAME_LD products by NAME_SC(slice) before adding the bias.
 * step (owned, may be NULL): quantized weights' scale per slice * 4 + lane. */
bool gl_gen_add_weights(gl_gen_out *o, const char *name, float *data, size_t n_vec4, int group, float *step);
/* The step array for weights tensor w with output channel c at lane c of slice c / 4,
 * channel c quantized along q.axis == axis (NULL: w is not quantized, or OOM). */
float *gl_weight_steps(const tfl_tensor *w, int out_c, int axis);
void gl_gen_out_free(gl_gen_out *o);
/* grid = the output's (W, H, B*S); `int x, y, s, b` declared from gid (in->fn: they are
 * the function's parameters, nothing is declared). */
void gl_gen_per_vec4(const gl_gen_in *in, gl_gen_out *o);

/* Element-wise expression of an op on GLSL expressions a (input 0) and b (input 1);
 * false for ops that are not element-wise. */
bool gl_eltwise_expr(const tfl_node *n, const char *a, const char *b, gl_str *s);
/* GLSL functions (tfl_erf, tfl_pow, ...) the element-wise expressions call; every shader
 * defines them (gl_emit.c). Their text is shaders/eltwise_helpers.glsl. */
const char *gl_eltwise_helpers(void);
/* "v = act(v);" for a fused activation; false for ones we cannot run (SIGN_BIT). */
bool gl_act_stmt(tfl_activation act, const char *v, gl_str *s);
bool gl_act_ok(tfl_activation act);
/* "#define HEAD BODY" with body's newlines made spaces (statements a .glsl body uses,
 * made on the C side: one line, as a macro must be). */
void gl_define_flat(gl_str *s, const char *head, const gl_str *body);
/* "#define NAME(v) <gl_act_stmt on v>" (one line): how a body in a .glsl file applies the
 * fused activation chosen on the C side, as NAME(acc) (a statement, no semicolon). */
void gl_act_macro(tfl_activation act, const char *name, gl_str *s);
/* "#define NAME(M) M(0) M(1) ... M(n - 1)" (with_j: NAME(M, j) and M(i, j)): a tile or
 * block unrolled in a .glsl body, which names its members by those constants (GLSL's
 * preprocessor has neither loops nor token pasting). */
void gl_unroll_list(gl_str *s, const char *name, int n, bool with_j);
/* "#undef" of each space-separated name: a body inlined into a consumer (in->fn) defines
 * its parameters inside the function and drops them after it. */
void gl_undef(gl_str *s, const char *names);
/* "v = v on t's integer grid;" for a quantized t (8 or 16 bits; nothing otherwise):
 * v * (1 / scale) rounded half to even (LiteRT's default QUANTIZE) and clamped to what the
 * integers hold, as the integer model stores it, so a float chain does not drift from the
 * integer one and QUANTIZE saturates; requantizes differ from TFLite's fixed-point
 * multipliers by at most one step at ties. vec: the GLSL vector type of v (FLT4, vec4). */
void gl_quant_stmt(const tfl_tensor *t, const char *v, const char *vec, gl_str *s);
/* Workgroup sum of each invocation's highp vec4 `acc` into arr[0] (arr: shared highp
 * vec4[n], n a power of two, lane in 0..n-1), written out step by step: GLSL ES allows
 * no barrier() inside loops or after an early return (see whole_groups). */
void gl_emit_tree_sum(gl_str *m, const char *arr, const char *lane, int n);
/* Opens the two loops over a window's taps at output pixel (y, x) of object I0, with
 * stride, top/left padding and dilation, skipping taps outside the input: declares ky,
 * kx, iy, ix; the caller adds the tap's body and closes both loops ("    }\n  }\n"). */
void gl_emit_window_open(gl_str *m, int kh, int kw, int sh, int sw, int pt, int pl, int dh, int dw);
/* A float as a GLSL literal that round-trips. */
void gl_str_float(gl_str *s, float f);

/* Constants the generators need, read as reals (dequantized per tensor or per
 * channel along q.axis; float16 widened). Returns a malloc'd array or NULL (OOM). */
float *gl_const_reals(const tfl_tensor *t);
/* Error helper: "node 7 (CONV_2D): ..." */
tfl_status gl_node_error(tfl_diag *diag, tfl_status s, const tfl_graph *g, int node, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* The weights and bias of a 1x1 CONV_2D or a FULLY_CONNECTED node as constants named
 * w_name (gl_gen_add_weights, a group per output slice) and b_name. */
tfl_status gl_gen_pointwise_consts(const tfl_graph *g, int node, gl_gen_out *o, const char *w_name, const char *b_name,
                                   tfl_diag *diag);
/* The weights (a group of KH*KW vec4s per slice) and bias of a DEPTHWISE_CONV_2D node
 * with depth multiplier 1, as constants w_name and b_name. */
tfl_status gl_gen_depthwise_consts(const tfl_graph *g, int node, gl_gen_out *o, const char *w_name, const char *b_name,
                                   tfl_diag *diag);
/* A depthwise convolution and the 1x1 convolution reading it in one dispatch
 * (gl_gen_dwpw.c): in->pre is the depthwise node, in->node the 1x1 one, I0 the
 * depthwise's input; the depthwise output lives in shared memory only. */
tfl_status gl_gen_dwpw(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
/* An inverted residual block in one dispatch (gl_gen_irb.c): in->expand the 1x1
 * expansion, in->pre the depthwise convolution reading it, in->node the 1x1 projection;
 * I0 the expansion's input. */
tfl_status gl_gen_irb(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
/* A squeeze-and-excite vector in one workgroup per batch item (gl_gen_se.c): in->chain holds
 * the global pool, then (when two) the first pointwise layer and the element-wise ops
 * on its output; in->node is the last pointwise layer. Object I0 is the pooled map. */
tfl_status gl_gen_se(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
/* generators and checks, one file per op family */
tfl_status gl_check_conv(const tfl_graph *g, int node, tfl_diag *diag);
tfl_status gl_gen_conv(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
tfl_status gl_check_depthwise(const tfl_graph *g, int node, tfl_diag *diag);
tfl_status gl_gen_depthwise(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
tfl_status gl_check_transpose_conv(const tfl_graph *g, int node, tfl_diag *diag);
tfl_status gl_gen_transpose_conv(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
tfl_status gl_check_fully_connected(const tfl_graph *g, int node, tfl_diag *diag);
tfl_status gl_gen_fully_connected(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
tfl_status gl_check_pool(const tfl_graph *g, int node, tfl_diag *diag);
tfl_status gl_gen_pool(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
tfl_status gl_check_eltwise(const tfl_graph *g, int node, tfl_diag *diag);
/* QUANTIZE (and requantize) to a per-tensor 8-bit output: an element-wise identity whose
 * store rounds to the output's grid and saturates (gl_plan.c's quant_clamp). */
tfl_status gl_check_quantize(const tfl_graph *g, int node, tfl_diag *diag);
tfl_status gl_gen_eltwise(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
tfl_status gl_check_concat(const tfl_graph *g, int node, tfl_diag *diag);
tfl_status gl_gen_concat(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
tfl_status gl_check_reshape(const tfl_graph *g, int node, tfl_diag *diag);
tfl_status gl_gen_reshape(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
tfl_status gl_check_pad(const tfl_graph *g, int node, tfl_diag *diag);
tfl_status gl_gen_pad(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
tfl_status gl_check_resize(const tfl_graph *g, int node, tfl_diag *diag);
tfl_status gl_gen_resize(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
tfl_status gl_check_depth_to_space(const tfl_graph *g, int node, tfl_diag *diag);
tfl_status gl_gen_depth_to_space(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
tfl_status gl_check_strided_slice(const tfl_graph *g, int node, tfl_diag *diag);
tfl_status gl_gen_strided_slice(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
tfl_status gl_check_softmax(const tfl_graph *g, int node, tfl_diag *diag);
tfl_status gl_gen_softmax(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
tfl_status gl_check_mean(const tfl_graph *g, int node, tfl_diag *diag);
tfl_status gl_gen_mean(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
/* SUM, MEAN, REDUCE_MAX/MIN/PROD over any constant axes (gl_gen_reduce.c) */
tfl_status gl_check_reduce(const tfl_graph *g, int node, tfl_diag *diag);
tfl_status gl_gen_reduce(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
/* A MEAN over exactly height and width of a 4-D input (gl_gen_mean's parallel mean). */
bool gl_mean_is_spatial(const tfl_graph *g, int node);
/* TRANSPOSE, SLICE, PACK, UNPACK, SPLIT, SPLIT_V, TILE, BROADCAST_TO, REVERSE_V2 as gathers
 * (gl_gen_layout.c) */
tfl_status gl_check_layout(const tfl_graph *g, int node, tfl_diag *diag);
tfl_status gl_gen_layout(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
/* BATCH_MATMUL on floats, adj_x/adj_y, batch broadcasting (gl_gen_matmul.c) */
tfl_status gl_check_batch_matmul(const tfl_graph *g, int node, tfl_diag *diag);
tfl_status gl_gen_batch_matmul(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
/* L2_NORMALIZATION over the last axis, LOCAL_RESPONSE_NORMALIZATION (gl_gen_pool.c), float32 */
tfl_status gl_check_l2norm(const tfl_graph *g, int node, tfl_diag *diag);
tfl_status gl_gen_l2norm(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
tfl_status gl_check_lrn(const tfl_graph *g, int node, tfl_diag *diag);
tfl_status gl_gen_lrn(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
/* ADD_N (gl_gen_eltwise.c) */
tfl_status gl_check_add_n(const tfl_graph *g, int node, tfl_diag *diag);
tfl_status gl_gen_add_n(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
tfl_status gl_check_alias(const tfl_graph *g, int node, tfl_diag *diag);
tfl_status gl_check_cast(const tfl_graph *g, int node, tfl_diag *diag);
tfl_status gl_check_detection(const tfl_graph *g, int node, tfl_diag *diag);
tfl_status gl_gen_detection(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
tfl_status gl_check_anchor_detection(const tfl_graph *g, int node, tfl_diag *diag);
tfl_status gl_gen_anchor_detection(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
tfl_status gl_check_ssd_detection(const tfl_graph *g, int node, tfl_diag *diag); /* both SSD ops */
tfl_status gl_gen_ssd_class_nms(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
tfl_status gl_gen_ssd_detection(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
tfl_status gl_check_yolo_detection(const tfl_graph *g, int node, tfl_diag *diag);
tfl_status gl_gen_yolo_detection(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
tfl_status gl_check_landmarks(const tfl_graph *g, int node, tfl_diag *diag);
tfl_status gl_gen_landmarks(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);
tfl_status gl_check_lstm(const tfl_graph *g, int node, tfl_diag *diag);
tfl_status gl_gen_lstm(const gl_gen_in *in, gl_gen_out *out, tfl_diag *diag);

#endif
