/* gl_gen_slice.c - STRIDED_SLICE (no ellipsis or new axes). Each output lane takes
 * its linear index apart over the sliced (un-shrunk) shape and reads input element
 * begin + index * stride in every dim. */
#include "gl_gen.h"

#include <stdlib.h>

typedef struct { int begin[4], stride[4], count[4]; } slice4;

static int64_t at(const tfl_tensor *t, int i)
{
  return t->type == TFL_TYPE_INT64 ? ((const int64_t *)t->data)[i] : ((const int32_t *)t->data)[i];
}

static int clampi(int v, int lo, int hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

/* Begin/stride/count per BHWC dim, as TFLite's strided slice resolves masks. */
static tfl_status resolve(const tfl_graph *g, int node, slice4 *r, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  if (n->n_in < 4 || n->n_out < 1) return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "needs 4 inputs");
  for (int k = 0; k < 4; k++)
    if (n->in[k] < 0) return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "input %d missing", k);
  const tfl_tensor *x = &g->tensors[n->in[0]], *bt = &g->tensors[n->in[1]], *et = &g->tensors[n->in[2]],
                   *st = &g->tensors[n->in[3]];
  const tfl_strided_slice_params *p = &n->p.slice;
  if (x->ndim > 4 || g->tensors[n->out[0]].ndim > 4) return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "more than 4 dims");
  const tfl_tensor *cs[3] = {bt, et, st};
  for (int k = 0; k < 3; k++)
    if (!cs[k]->is_const || !cs[k]->data || (cs[k]->type != TFL_TYPE_INT32 && cs[k]->type != TFL_TYPE_INT64) ||
        tfl_tensor_count(cs[k]) != (size_t)x->ndim)
      return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "begin/end/strides must be constant ints, one per dim");
  if (p->ellipsis_mask || p->new_axis_mask)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "ellipsis mask %d, new axis mask %d", p->ellipsis_mask, p->new_axis_mask);
  for (int a = 0; a < 4; a++) {
    r->begin[a] = 0;
    r->stride[a] = 1;
    r->count[a] = 1;
  }
  size_t total = 1;
  for (int d = 0; d < x->ndim; d++) {
    int dim = x->dims[d], s = (int)at(st, d), b = (int)at(bt, d), e = (int)at(et, d);
    if (s == 0) return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "stride 0 in dim %d", d);
    if (p->begin_mask & (1 << d)) b = s > 0 ? 0 : dim - 1;
    else {
      if (b < 0) b += dim;
      b = s > 0 ? clampi(b, 0, dim) : clampi(b, -1, dim - 1);
    }
    if (p->offset) e = b + (int)at(et, d);
    if (p->end_mask & (1 << d)) e = s > 0 ? dim : -1;
    else if (!p->offset) {
      if (e < 0) e += dim;
      e = s > 0 ? clampi(e, 0, dim) : clampi(e, -1, dim - 1);
    }
    if (p->shrink_axis_mask & (1 << d)) {
      e = b + 1;
      s = 1;
    }
    int cnt = s > 0 ? (e - b + s - 1) / s : (b - e - s - 1) / -s;
    if (cnt < 0) cnt = 0;
    int a = gl_axis_4d(x->ndim, d);
    r->begin[a] = b;
    r->stride[a] = s;
    r->count[a] = cnt;
    total *= (size_t)cnt;
  }
  if (total != tfl_tensor_count(&g->tensors[n->out[0]]))
    return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "slice has %zu elements, output %zu", total,
                         tfl_tensor_count(&g->tensors[n->out[0]]));
  return TFL_OK;
}

tfl_status gl_check_strided_slice(const tfl_graph *g, int node, tfl_diag *diag)
{
  slice4 r;
  return resolve(g, node, &r, diag);
}

tfl_status gl_gen_strided_slice(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  slice4 r;
  tfl_status st = resolve(in->g, in->node, &r, diag);
  if (st) return st;
  gl_gen_per_vec4(in, o);
  gl_str_addf(&o->main,
              "  FLT4 v = FLT4(0.0);\n"
              "  for (int k = 0; k < 4; k++) {\n"
              "    int c = s * 4 + k;\n"
              "    if (c >= O_C) break;\n"
              "    int l = ((b * O_H + y) * O_W + x) * O_C + c;\n"
              "    int vc = l %% %d; l /= %d;\n"
              "    int vx = l %% %d; l /= %d;\n"
              "    int vy = l %% %d; int vb = l / %d;\n"
              "    v[k] = I0_AT(%d + vb * %d, %d + vy * %d, %d + vx * %d, %d + vc * %d);\n"
              "  }\n"
              "  store_out(b, y, x, s, v);\n",
              r.count[3], r.count[3], r.count[2], r.count[2], r.count[1], r.count[1], r.begin[0], r.stride[0],
              r.begin[1], r.stride[1], r.begin[2], r.stride[2], r.begin[3], r.stride[3]);
  return TFL_OK;
}
