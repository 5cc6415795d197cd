/* index_common.h - what the index op kernels share (index_*.c): reading integer index
 * tensors of any width, checking an output's shape against the one the kernel works out,
 * and types of plain (not quantized) element copies. Private to delegates/cpu/kernels/. */
#ifndef CPU_INDEX_COMMON_H
#define CPU_INDEX_COMMON_H

#include "eltwise_common.h"

#include <stdio.h>
#include <string.h>

/* Element i of an int16, int32 or int64 tensor (the only index types the ops take). */
static inline int64_t idx_get(const tfl_tensor *t, size_t i)
{
  switch (t->type) {
  case TFL_TYPE_INT16: return ((const int16_t *)t->data)[i];
  case TFL_TYPE_INT32: return ((const int32_t *)t->data)[i];
  default: return ((const int64_t *)t->data)[i];
  }
}

/* Element i of any integer or bool tensor, widened. */
static inline int64_t idx_get_any(const tfl_tensor *t, size_t i)
{
  switch (t->type) {
  case TFL_TYPE_INT8: return ((const int8_t *)t->data)[i];
  case TFL_TYPE_UINT8: return ((const uint8_t *)t->data)[i];
  case TFL_TYPE_BOOL: return ((const bool *)t->data)[i] ? 1 : 0;
  default: return idx_get(t, i);
  }
}

static inline bool idx_type_ok(tfl_type t, bool int16_too)
{
  return t == TFL_TYPE_INT32 || t == TFL_TYPE_INT64 || (int16_too && t == TFL_TYPE_INT16);
}

/* Fails unless y's dims are exactly d[0..nd). */
static inline tfl_status idx_check_shape(const tfl_graph *g, const tfl_node *n, const tfl_tensor *y, const char *what,
                                         const int64_t *d, int nd, tfl_diag *diag)
{
  bool same = y->ndim == nd;
  for (int i = 0; same && i < nd; i++) same = y->dims[i] == d[i];
  if (same) return TFL_OK;
  char a[128] = "[", b[128] = "[";
  for (int i = 0; i < nd; i++) snprintf(a + strlen(a), sizeof a - strlen(a), "%s%lld", i ? "," : "", (long long)d[i]);
  for (int i = 0; i < y->ndim; i++) snprintf(b + strlen(b), sizeof b - strlen(b), "%s%d", i ? "," : "", y->dims[i]);
  return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%s has shape %s], the op gives %s]", what, b, a);
}

/* An output whose size depends on the data (WHERE on a computed condition, UNIQUE's
 * values): planned at its largest size, its first dim set to the real count by each eval,
 * as TFLite's dynamic tensors. Nodes after it were prepared for the planned size, so it may
 * only be an output of the main graph that no node reads; fails naming the reader. */
static inline tfl_status idx_check_dynamic_output(const tfl_graph *g, const tfl_node *n, int out_pos, tfl_diag *diag)
{
  int ti = n->out[out_pos];
  if (g->root)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "output %d (tensor %d) has a data-dependent size, which a "
                        "subgraph (%d) cannot pass on", out_pos, ti, g->index);
  for (int k = 0; k < g->n_nodes; k++) {
    const tfl_node *m = &g->nodes[k];
    if (m->dead) continue;
    for (int i = 0; i < m->n_in; i++)
      if (m->in[i] == ti)
        return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "output %d (tensor %d) has a data-dependent size and "
                            "node %d (%s) reads it: such an output is supported only as a graph output no node reads",
                            out_pos, ti, k, tfl_op_name(m->op));
  }
  return TFL_OK;
}

/* The data types the plain-copy ops (gather, select, ...) move unchanged. */
static inline bool idx_copy_type(tfl_type t)
{
  return t == TFL_TYPE_FLOAT32 || t == TFL_TYPE_INT8 || t == TFL_TYPE_UINT8 || t == TFL_TYPE_INT16 ||
         t == TFL_TYPE_INT32 || t == TFL_TYPE_INT64 || t == TFL_TYPE_BOOL;
}

/* x and y have the same type. Quantization is not compared: like TFLite's kernels, the
 * copy ops move stored codes unchanged whatever the tensors' scales say. */
static inline tfl_status idx_same_storage(const tfl_graph *g, const tfl_node *n, const tfl_tensor *x, const char *xn,
                                          const tfl_tensor *y, const char *yn, tfl_diag *diag)
{
  if (x->type != y->type)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s is %s, %s is %s: types differ", xn,
                        tfl_type_name(x->type), yn, tfl_type_name(y->type));
  return TFL_OK;
}

static inline tfl_status idx_unsupported_type(const tfl_graph *g, const tfl_node *n, const char *what, tfl_type t,
                                              tfl_diag *diag)
{
  return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s of type %s is not supported (as in TFLite)", what,
                      tfl_type_name(t));
}

#endif
