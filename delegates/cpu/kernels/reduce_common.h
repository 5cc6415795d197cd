/* reduce_common.h - the walk plan of the reducing kernels (MEAN, SUM, REDUCE_*): the axes
 * (tfl_reduce_axes.h, shared with the shape rules) turned into merged input dims. Adjacent
 * dims that are both reduced or both kept merge and size-1 dims vanish, so [N,H,W,C] over
 * (1,2) becomes [H*W reduced, C kept]; a kernel walks the input in order in rows of the
 * innermost merged dim and combines each row into its outputs (cpu_reduce_row_out).
 * Private to delegates/cpu/kernels/.
 */
#ifndef CPU_REDUCE_COMMON_H
#define CPU_REDUCE_COMMON_H

#include "../../../runtime/tfl_reduce_axes.h"
#include "eltwise_common.h"

#include <string.h>

typedef struct {
  int nd;                               /* merged dims, >= 1 */
  size_t dims[TFL_MAX_DIMS];
  bool reduced[TFL_MAX_DIMS];
  size_t ostride[TFL_MAX_DIMS];         /* output element stride, 0 for reduced dims */
  size_t out_count, per_out;            /* outputs; inputs combined into each */
  size_t rows;                          /* input rows of the innermost merged dim */
} cpu_reduce_plan;

/* Plans the reduction of x over the axes tensor ax (data present) into y; checks y's size. */
static inline tfl_status cpu_reduce_plan_make(const tfl_graph *g, const tfl_node *n, const tfl_tensor *x,
                                              const tfl_tensor *ax, const tfl_tensor *y, cpu_reduce_plan *p,
                                              tfl_diag *diag)
{
  bool red[TFL_MAX_DIMS];
  int64_t bad = 0;
  if (ax->type != TFL_TYPE_INT32 && ax->type != TFL_TYPE_INT64)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "axes are %s, expected INT32 or INT64",
                        tfl_type_name(ax->type));
  if (!tfl_reduce_axes_mask(ax, x->ndim, red, &bad))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "axis %lld out of range for %d dims", (long long)bad, x->ndim);
  memset(p, 0, sizeof *p);
  p->out_count = 1;
  p->per_out = 1;
  for (int d = 0; d < x->ndim; d++) {
    size_t sz = (size_t)x->dims[d]; /* the tensor's byte size was checked at load: no overflow */
    if (red[d])
      p->per_out *= sz;
    else
      p->out_count *= sz;
    if (sz == 1) continue;
    if (p->nd > 0 && p->reduced[p->nd - 1] == red[d]) {
      p->dims[p->nd - 1] *= sz;
    } else {
      p->dims[p->nd] = sz;
      p->reduced[p->nd] = red[d];
      p->nd++;
    }
  }
  if (p->nd == 0) { /* a single element */
    p->dims[0] = 1;
    p->nd = 1;
  }
  size_t s = 1;
  for (int d = p->nd - 1; d >= 0; d--) {
    p->ostride[d] = p->reduced[d] ? 0 : s;
    if (!p->reduced[d]) s *= p->dims[d];
  }
  p->rows = 1;
  for (int d = 0; d < p->nd - 1; d++) p->rows *= p->dims[d];
  if (tfl_tensor_count(y) != p->out_count)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output has %zu elements, the reduction gives %zu",
                        tfl_tensor_count(y), p->out_count);
  return TFL_OK;
}

/* The first output element that input row r (of the innermost merged dim) feeds. */
static inline size_t cpu_reduce_row_out(const cpu_reduce_plan *p, size_t r)
{
  size_t o = 0;
  for (int d = p->nd - 2; d >= 0; d--) {
    o += (r % p->dims[d]) * p->ostride[d];
    r /= p->dims[d];
  }
  return o;
}

/* Prepare's part of a reducer: the plan when the axes are constant (*planned true), else
 * left to eval. */
static inline tfl_status cpu_reduce_prepare_plan(const tfl_graph *g, const tfl_node *n, cpu_reduce_plan *p,
                                                 bool *planned, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, 0), *ax = cpu_in(g, n, 1), *y = cpu_out(g, n, 0);
  *planned = false;
  if (ax->type != TFL_TYPE_INT32 && ax->type != TFL_TYPE_INT64)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "axes are %s, expected INT32 or INT64",
                        tfl_type_name(ax->type));
  if (!ax->is_const || !ax->data) return TFL_OK;
  tfl_status s = cpu_reduce_plan_make(g, n, x, ax, y, p, diag);
  *planned = s == TFL_OK;
  return s;
}

#endif
