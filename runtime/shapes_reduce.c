/* shapes_reduce.c - output shapes of the reduce ops (tfl_shapes_priv.h): the reducers (MEAN,
 * SUM, REDUCE_PROD/MAX/MIN/ANY/ALL) over a constant axes list (tfl_reduce_axes.h), ARG_MIN
 * over one axis, the shape-keeping normalizations and L2_POOL_2D's window rule.
 */
#include "tfl_reduce_axes.h"
#include "tfl_shapes_priv.h"

static tfl_status reducer_shape(const tfl_graph *g, const tfl_node *n, int ni, tfl_shape *out, tfl_inf_kind *kind,
                                tfl_diag *diag)
{
  const tfl_tensor *x = tfl_shape_in(g, n, 0), *ax = tfl_shape_in(g, n, 1);
  if (!x || !ax) return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "input %d is missing (%d inputs)", x ? 1 : 0, n->n_in);
  if (ax->type != TFL_TYPE_INT32 && ax->type != TFL_TYPE_INT64)
    return TFL_SHAPE_ERR(TFL_ERR_UNSUPPORTED, "axes are %s, expected INT32 or INT64", tfl_type_name(ax->type));
  if (!ax->is_const || !ax->data) { /* axes computed at run: the declared shape stands */
    *kind = TFL_INF_KEEP;
    return TFL_OK;
  }
  bool red[TFL_MAX_DIMS];
  int64_t bad = 0;
  if (!tfl_reduce_axes_mask(ax, x->ndim, red, &bad))
    return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "axis %lld out of range for %d dims", (long long)bad, x->ndim);
  out->ndim = tfl_reduce_out_dims(x->dims, x->ndim, red, n->p.reducer.keep_dims, out->d);
  return TFL_OK;
}

static tfl_status arg_min_shape(const tfl_graph *g, const tfl_node *n, int ni, tfl_shape *out, tfl_inf_kind *kind,
                                tfl_diag *diag)
{
  const tfl_tensor *x = tfl_shape_in(g, n, 0);
  int64_t v[1];
  int cnt = 0;
  if (!x || !tfl_shape_in(g, n, 1)) return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "input or axis is missing");
  if (!tfl_shape_const_ints(tfl_shape_in(g, n, 1), v, 1, &cnt) || cnt != 1) {
    *kind = TFL_INF_KEEP;
    return TFL_OK;
  }
  int64_t axis = v[0] < 0 ? v[0] + x->ndim : v[0];
  if (axis < 0 || axis >= x->ndim)
    return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "axis %lld out of range for %d dims", (long long)v[0], x->ndim);
  for (int d = 0; d < x->ndim; d++)
    if (d != axis) out->d[out->ndim++] = x->dims[d];
  return TFL_OK;
}

tfl_status tfl_shape_reduce(const tfl_graph *g, const tfl_node *n, int ni, int o, tfl_shape *out,
                            tfl_inf_kind *kind, tfl_diag *diag)
{
  const tfl_tensor *x = tfl_shape_in(g, n, 0);
  (void)o;
  switch (n->op) {
  case TFL_OP_MEAN:
  case TFL_OP_SUM:
  case TFL_OP_REDUCE_PROD:
  case TFL_OP_REDUCE_MAX:
  case TFL_OP_REDUCE_MIN:
  case TFL_OP_REDUCE_ANY:
  case TFL_OP_REDUCE_ALL: return reducer_shape(g, n, ni, out, kind, diag);
  case TFL_OP_ARG_MIN: return arg_min_shape(g, n, ni, out, kind, diag);
  default: break;
  }
  if (!x) return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "input 0 is missing (%d inputs)", n->n_in);
  switch (n->op) {
  case TFL_OP_LOG_SOFTMAX:
    if (x->ndim < 1) return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "input has %d dims, expected at least 1", x->ndim);
    *out = tfl_shape_of(x);
    return TFL_OK;
  case TFL_OP_L2_NORMALIZATION: /* TFLite: at most 4 dims, normalized over the last */
    if (x->ndim < 1 || x->ndim > 4) return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "input has %d dims, expected 1..4", x->ndim);
    *out = tfl_shape_of(x);
    return TFL_OK;
  case TFL_OP_LOCAL_RESPONSE_NORMALIZATION:
    if (x->ndim != 4) return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "input has %d dims, expected 4", x->ndim);
    *out = tfl_shape_of(x);
    return TFL_OK;
  case TFL_OP_L2_POOL_2D: {
    const tfl_pool_params *p = &n->p.pool;
    if (x->ndim != 4) return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "input has %d dims, expected 4", x->ndim);
    if (p->stride_w < 1 || p->stride_h < 1 || p->filter_w < 1 || p->filter_h < 1)
      return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "stride %dx%d, filter %dx%d: must be >= 1", p->stride_w, p->stride_h,
                           p->filter_w, p->filter_h);
    *out = tfl_shape_of(x);
    out->d[1] = tfl_conv_out_size(p->padding, x->dims[1], p->filter_h, p->stride_h, 1);
    out->d[2] = tfl_conv_out_size(p->padding, x->dims[2], p->filter_w, p->stride_w, 1);
    return TFL_OK;
  }
  default: break;
  }
  return TFL_SHAPE_ERR(TFL_ERR_UNSUPPORTED, "no shape rule in the reduce group");
}
