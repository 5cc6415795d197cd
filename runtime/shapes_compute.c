/* shapes_compute.c - output shapes of the compute ops (tfl_shapes_priv.h): BATCH_MATMUL,
 * CONV_3D and CONV_3D_TRANSPOSE, as TFLite's Prepare computes them.
 */
#include "tfl_shapes_priv.h"

/* BATCH_MATMUL: the batch dims (all but the last two, right-aligned) broadcast, then
 * [rows of lhs, columns of rhs] after adj_x / adj_y. */
static tfl_status shape_bmm(const tfl_graph *g, const tfl_node *n, int ni, tfl_shape *out, tfl_diag *diag)
{
  const tfl_tensor *l = tfl_shape_in(g, n, 0), *r = tfl_shape_in(g, n, 1);
  if (!l || !r) return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "needs 2 inputs, has %d", n->n_in);
  if (l->ndim < 2 || l->ndim > 5 || r->ndim < 2 || r->ndim > 5)
    return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "lhs has %d dims and rhs %d, each must be 2..5", l->ndim, r->ndim);
  bool adj_x = n->p.bmm.adj_x, adj_y = n->p.bmm.adj_y;
  int lr = l->ndim, rr = r->ndim;
  int32_t lk = adj_x ? l->dims[lr - 2] : l->dims[lr - 1], rk = adj_y ? r->dims[rr - 1] : r->dims[rr - 2];
  if (lk != rk)
    return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "lhs depth %d (adj_x %d) and rhs depth %d (adj_y %d) differ", lk, adj_x,
                         rk, adj_y);
  tfl_shape lb = {.ndim = lr - 2}, rb = {.ndim = rr - 2};
  memcpy(lb.d, l->dims, sizeof(int32_t) * (size_t)lb.ndim);
  memcpy(rb.d, r->dims, sizeof(int32_t) * (size_t)rb.ndim);
  if (!tfl_shape_broadcast(&lb, &rb, out))
    return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "batch dims of lhs (%d dims) and rhs (%d dims) do not broadcast", lr, rr);
  out->d[out->ndim++] = adj_x ? l->dims[lr - 1] : l->dims[lr - 2];
  out->d[out->ndim++] = adj_y ? r->dims[rr - 2] : r->dims[rr - 1];
  return TFL_OK;
}

/* CONV_3D: input [N,D,H,W,C], filter [KD,KH,KW,C,OC] -> [N,OD,OH,OW,OC]. */
static tfl_status shape_conv3d(const tfl_graph *g, const tfl_node *n, int ni, tfl_shape *out, tfl_diag *diag)
{
  const tfl_tensor *x = tfl_shape_in(g, n, 0), *w = tfl_shape_in(g, n, 1);
  const tfl_conv3d_params *p = &n->p.conv3d;
  if (!x || !w) return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "needs input and filter, has %d inputs", n->n_in);
  if (x->ndim != 5 || w->ndim != 5)
    return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "input has %d dims and filter %d, expected 5 and 5", x->ndim, w->ndim);
  if (p->stride_d < 1 || p->stride_h < 1 || p->stride_w < 1 || p->dilation_d < 1 || p->dilation_h < 1 ||
      p->dilation_w < 1)
    return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "stride %dx%dx%d, dilation %dx%dx%d: must be >= 1", p->stride_d,
                         p->stride_h, p->stride_w, p->dilation_d, p->dilation_h, p->dilation_w);
  if (x->dims[4] != w->dims[3])
    return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "input has %d channels, filter dim 3 is %d", x->dims[4], w->dims[3]);
  out->ndim = 5;
  out->d[0] = x->dims[0];
  out->d[1] = tfl_conv_out_size(p->padding, x->dims[1], w->dims[0], p->stride_d, p->dilation_d);
  out->d[2] = tfl_conv_out_size(p->padding, x->dims[2], w->dims[1], p->stride_h, p->dilation_h);
  out->d[3] = tfl_conv_out_size(p->padding, x->dims[3], w->dims[2], p->stride_w, p->dilation_w);
  out->d[4] = w->dims[4];
  return TFL_OK;
}

/* CONV_3D_TRANSPOSE: the constant output_shape input (5 values); else the declared one. */
static tfl_status shape_conv3d_transpose(const tfl_graph *g, const tfl_node *n, int ni, tfl_shape *out,
                                         tfl_inf_kind *kind, tfl_diag *diag)
{
  int64_t v[5];
  int cnt = 0;
  const tfl_tensor *os = tfl_shape_in(g, n, 0);
  if (!os) return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "output_shape input is missing");
  if (!tfl_shape_const_ints(os, v, 5, &cnt)) {
    if (os->is_const && os->data)
      return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "output_shape has %zu values, expected 5", tfl_tensor_count(os));
    *kind = TFL_INF_KEEP;
    return TFL_OK;
  }
  if (cnt != 5) return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "output_shape has %d values, expected 5", cnt);
  out->ndim = 5;
  for (int i = 0; i < 5; i++) {
    if (v[i] < 0 || v[i] > INT32_MAX)
      return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "output_shape[%d] is %lld", i, (long long)v[i]);
    out->d[i] = (int32_t)v[i];
  }
  return TFL_OK;
}

tfl_status tfl_shape_compute(const tfl_graph *g, const tfl_node *n, int ni, int o, tfl_shape *out,
                             tfl_inf_kind *kind, tfl_diag *diag)
{
  *kind = TFL_INF_OK;
  if (o != 0) return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "has no output %d", o);
  switch (n->op) {
  case TFL_OP_BATCH_MATMUL: return shape_bmm(g, n, ni, out, diag);
  case TFL_OP_CONV_3D: return shape_conv3d(g, n, ni, out, diag);
  case TFL_OP_CONV_3D_TRANSPOSE: return shape_conv3d_transpose(g, n, ni, out, kind, diag);
  default: break;
  }
  *kind = TFL_INF_KEEP;
  return TFL_OK;
}
