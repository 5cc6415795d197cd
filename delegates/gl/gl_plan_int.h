/* gl_plan_int.h - the planner's working state, shared by gl_plan.c (group, generate,
 * emit) and gl_sched.c (order, barriers, arena placement). Not an API. */
#ifndef GL_PLAN_INT_H
#define GL_PLAN_INT_H

#include "gl_emit.h"
#include "gl_gen.h"
#include "gl_plan.h"
#include "gl_tune.h"

#define MAX_EPI 8     /* element-wise nodes fused into one dispatch */
#define GL_REMAP_STEPS 8 /* reshapes and concatenations folded into one producer's writes */
#define MAX_OBJS 64    /* own objects, plus the arena objects of inlined producers */

typedef struct {
  int node;             /* primary node */
  int epi[MAX_EPI];     /* fused element-wise nodes, in order */
  int epi_main[MAX_EPI];/* which of their inputs is the fused value (0 or 1) */
  int keep[MAX_EPI];    /* a tensor read elsewhere too, stored (object "Ke") before fused
                           op e runs; -1: none */
  int n_epi;
  int out;              /* tensor written */
  bool inlined;         /* computed inside its one consumer's shader (gl_fuse.c), no dispatch */
  bool absorbed;        /* part of another group's chain (squeeze-excite), no dispatch */
  int chain[MAX_EPI + 2]; /* squeeze-excite (gl_gen_se.c): pool [, first layer, its
                             element-wise ops]; `node` is the last layer */
  int n_chain;
  int dest;             /* gl_fuse_remap.c: root tensor the group writes, through reshapes and
                           concatenations (steps), instead of its own output; -1: none */
  int n_steps;
  long step_a[GL_REMAP_STEPS], step_b[GL_REMAP_STEPS], step_add[GL_REMAP_STEPS];
  int sib;              /* gl_fuse.c: a convolution group computed alongside (absorbed):
                           same input, same geometry; -1: none */
  int pre;              /* gl_fuse.c: the depthwise convolution whose output this 1x1
                           convolution reads, computed first into shared memory in the
                           same dispatch (gl_gen_dwpw.c); -1: none */
  int expand;           /* gl_fuse.c: with pre, the 1x1 convolution whose output the
                           depthwise reads, computed per tile in the same dispatch
                           (gl_gen_irb.c); -1: none */
} group;

/* Groups that get a dispatch of their own. */
static inline bool gl_group_dispatched(const group *G)
{
  return !G->inlined && !G->absorbed;
}

typedef struct {
  const tfl_graph *g;
  const tfl_partition *part;
  gl_plan_options o;
  int *alias;           /* per tensor: root tensor whose memory it shares (itself if none) */
  bool *wide;           /* per root tensor: stored as 32-bit floats in an fp16 arena */
  int *group_of;        /* per tensor: group writing it, -1 */
  int *consumers;       /* per tensor: readers in the graph + graph outputs */
  bool *is_out;         /* per tensor: partition output */
  group *groups;
  int n_groups;
  /* write-backs (basic LSTM): after the run, tensor wb_src's arena data is downloaded
   * into input tensor wb_dst, as the CPU kernel writes its new state into its inputs */
  int *wb_src, *wb_dst;
  int n_wb;
  tfl_diag *diag;       /* the partition's: failures say why here */
} planner;

static inline int gl_plan_root(const planner *p, int t)
{
  while (p->alias[t] != t) t = p->alias[t];
  return t;
}

/* Per group: objects, generator output, constants. */
typedef struct {
  gl_gen_out gen;
  gl_emit_obj objs[MAX_OBJS];
  int obj_tensor[MAX_OBJS];  /* graph tensor of a tensor object in the arena, -1 otherwise */
  float *obj_const[MAX_OBJS];/* packed data of constant tensor objects */
  bool obj_write[MAX_OBJS];  /* an extra output (Ok, k >= 1) the dispatch writes */
  int obj_sub[MAX_OBJS];     /* a virtual object: root tensor of the inlined group making
                                it (p->group_of finds the group), -1 otherwise */
  int n_objs;
  gl_str epi;
  size_t const_units;        /* their units in the constant buffer (gl_consts.h) */
  size_t scratch_off;        /* arena slot of gen.scratch (after every tensor's) */
  int remap_obj;             /* the destination object "D" of a group with dest */
  int sib_obj;               /* the paired convolution's output or destination object */
} group_build;

/* gl_fuse.c (after grouping): squeeze-excite chains into one group, then producers
 * to inline into their consumer */
void gl_fuse_remap(planner *p, gl_plan *plan);
void gl_fuse_se(planner *p, gl_plan *plan);
void gl_fuse_siblings(planner *p, gl_plan *plan);
void gl_fuse_dwpw(planner *p, gl_plan *plan);
void gl_fuse_irb(planner *p, gl_plan *plan);
/* Loads per output element of node if inlined; 0: it cannot be. */
int gl_fuse_cost(const tfl_graph *g, int node);
void gl_fuse_inline(planner *p, gl_plan *plan);

/* gl_plan_tree.c: a dispatch with the producers inlined into it */
int gl_tree_sub(const planner *p, const group_build *b, int k); /* group of virtual object k, -1 */
/* Appends to each dispatch's objects (hidden) the arena objects its inlined producers read. */
tfl_status gl_tree_hide(const planner *p, group_build *builds);
/* Assigns the constant objects of dispatch gi's tree their units; returns the total. */
size_t gl_tree_units(const planner *p, group_build *builds, int gi, bool half_buf);
void gl_tree_encode(const planner *p, const group_build *builds, int gi, bool half_buf, size_t unit, void *dst);
/* The emitter's input for group gi (top gives the precision and constant fields), with
 * a function input per virtual object; NULL on OOM. Free with gl_tree_free_emit. */
gl_emit_in *gl_tree_emit(const planner *p, group_build *builds, int gi, const gl_emit_in *top, const size_t *off_of);
void gl_tree_free_emit(gl_emit_in *e);

/* gl_precision.c: sets p->wide (per root tensor) in fp16 mode */
void gl_precision_mark(planner *p, gl_plan *plan);

/* gl_sched.c */
/* Reorders groups (and their builds) by dependency level, stable within a level. */
tfl_status gl_sched_order(planner *p, group_build *builds);
/* Arena offsets (vec4 slots, per root tensor in off_of) by lifetime over the group order. */
tfl_status gl_sched_place(planner *p, group_build *builds, size_t *arena_n, size_t *off_of);

typedef struct {
  size_t lo, hi;   /* arena slots [lo, hi) */
  bool write;
} gl_span;
typedef struct {
  gl_span *s;
  int n, cap;
} gl_span_set;
/* Sets d->barrier from the dispatch's objects and output range against `pending` (the
 * ranges touched since the last barrier), then records its own. false on OOM. */
bool gl_sched_barrier(gl_span_set *pending, gl_plan_dispatch *d, const group_build *b, size_t out_off, size_t out_n);

#endif
