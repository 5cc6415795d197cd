/* gl_plan_int.h - the planner's working state, shared by gl_plan.c (group, generate,
 * emit) and gl_sched.c (order, barriers, arena placement). Not an API. */
#ifndef GL_PLAN_INT_H
#define GL_PLAN_INT_H

#include "gl_emit.h"
#include "gl_gen.h"
#include "gl_plan.h"

#define MAX_EPI 8     /* element-wise nodes fused into one dispatch */
#define MAX_OBJS (GL_GEN_MAX_IN + MAX_EPI + GL_GEN_MAX_CONSTS)

typedef struct {
  int node;             /* primary node */
  int epi[MAX_EPI];     /* fused element-wise nodes, in order */
  int epi_main[MAX_EPI];/* which of their inputs is the fused value (0 or 1) */
  int n_epi;
  int out;              /* tensor written */
} group;

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
  int n_objs;
  gl_str epi;
  size_t const_n;            /* vec4s of constants */
} group_build;

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
