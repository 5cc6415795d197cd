/* tfl_shapes_priv.h - what the shape rules share (tfl_shapes.c and one shapes_<group>.c per
 * op group). Internal to the runtime. */
#ifndef TFL_SHAPES_PRIV_H
#define TFL_SHAPES_PRIV_H

#include "tfl_graph.h"
#include "tfl_padding.h"
#include "tfl_passes.h"

#include <stdio.h>
#include <string.h>

typedef struct {
  int ndim;
  int32_t d[TFL_MAX_DIMS];
} tfl_shape;

/* Result of one output's inference: OK (shape set), KEEP (use the declared shape). */
typedef enum { TFL_INF_OK, TFL_INF_KEEP } tfl_inf_kind;

/* For rules with `g`, `n`, `ni` and `diag` in scope. */
#define TFL_SHAPE_ERR(st, fmt, ...)                                                                 \
  tfl_fail(diag, st, "node %d (%s): " fmt, ni, tfl_op_name(n->op), ##__VA_ARGS__)

/* Input i of n, NULL when omitted or out of range. */
static inline const tfl_tensor *tfl_shape_in(const tfl_graph *g, const tfl_node *n, int i)
{
  if (i >= n->n_in || n->in[i] < 0 || n->in[i] >= g->n_tensors) return NULL;
  return &g->tensors[n->in[i]];
}

static inline tfl_shape tfl_shape_of(const tfl_tensor *t)
{
  tfl_shape s = {.ndim = t->ndim};
  memcpy(s.d, t->dims, sizeof(int32_t) * (size_t)t->ndim);
  return s;
}

/* A constant integer tensor's values (int32 or int64); false when not constant or longer
 * than max. */
static inline bool tfl_shape_const_ints(const tfl_tensor *t, int64_t *v, int max, int *count)
{
  if (!t || !t->is_const || !t->data) return false;
  if (t->type != TFL_TYPE_INT32 && t->type != TFL_TYPE_INT64) return false;
  size_t n = tfl_tensor_count(t);
  if (n > (size_t)max) return false;
  for (size_t i = 0; i < n; i++)
    v[i] = t->type == TFL_TYPE_INT64 ? ((const int64_t *)t->data)[i] : ((const int32_t *)t->data)[i];
  *count = (int)n;
  return true;
}

/* Numpy broadcasting of two shapes; false when they do not broadcast. */
static inline bool tfl_shape_broadcast(const tfl_shape *a, const tfl_shape *b, tfl_shape *out)
{
  int nd = a->ndim > b->ndim ? a->ndim : b->ndim;
  out->ndim = nd;
  for (int i = 0; i < nd; i++) {
    int ia = a->ndim - nd + i, ib = b->ndim - nd + i;
    int32_t da = ia >= 0 ? a->d[ia] : 1, db = ib >= 0 ? b->d[ib] : 1;
    if (da != db && da != 1 && db != 1) return false;
    out->d[i] = da == 1 ? db : da;
  }
  return true;
}

/* One rule per op group: the shape of output o of node ni (inputs have final shapes). */
tfl_status tfl_shape_layout(const tfl_graph *g, const tfl_node *n, int ni, int o, tfl_shape *out,
                            tfl_inf_kind *kind, tfl_diag *diag);
tfl_status tfl_shape_index(const tfl_graph *g, const tfl_node *n, int ni, int o, tfl_shape *out,
                           tfl_inf_kind *kind, tfl_diag *diag);
tfl_status tfl_shape_eltwise(const tfl_graph *g, const tfl_node *n, int ni, int o, tfl_shape *out,
                             tfl_inf_kind *kind, tfl_diag *diag);
tfl_status tfl_shape_reduce(const tfl_graph *g, const tfl_node *n, int ni, int o, tfl_shape *out,
                            tfl_inf_kind *kind, tfl_diag *diag);
tfl_status tfl_shape_compute(const tfl_graph *g, const tfl_node *n, int ni, int o, tfl_shape *out,
                             tfl_inf_kind *kind, tfl_diag *diag);
tfl_status tfl_shape_spectral(const tfl_graph *g, const tfl_node *n, int ni, int o, tfl_shape *out,
                              tfl_inf_kind *kind, tfl_diag *diag);
tfl_status tfl_shape_sequence(const tfl_graph *g, const tfl_node *n, int ni, int o, tfl_shape *out,
                              tfl_inf_kind *kind, tfl_diag *diag);
tfl_status tfl_shape_control(const tfl_graph *g, const tfl_node *n, int ni, int o, tfl_shape *out,
                             tfl_inf_kind *kind, tfl_diag *diag);

#endif
