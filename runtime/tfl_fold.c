/* tfl_fold.c - constant folding: DEQUANTIZE and DENSIFY of constants run once here.
 *
 * Models ship weights as float16, int8 or sparse and convert them with these ops at
 * the top of the graph; computing them at load leaves plain float32 (or dense)
 * constants that every delegate can pack as weights. Results live in graph-owned
 * blocks; the node is marked dead. Nodes are visited in order, so a DENSIFY feeding
 * a DEQUANTIZE folds both.
 */
#include "tfl_passes.h"

#include <string.h>

#include "tfl_densify.h"
#include "tfl_half.h"

/* The output takes the input's shape when the file declared none; else counts must agree. */
static tfl_status fit_output(const tfl_graph *g, int ni, const tfl_tensor *x, tfl_tensor *y, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[ni];
  if (y->ndim == 0 && x->ndim > 0) {
    y->ndim = x->ndim;
    memcpy(y->dims, x->dims, sizeof(int32_t) * (size_t)x->ndim);
    tfl_tensor_update_bytes(y);
  }
  if (tfl_tensor_count(x) != tfl_tensor_count(y))
    return tfl_fail(diag, TFL_ERR_SHAPE, "node %d (%s): input %s has %zu elements, output %s %zu", ni,
                     tfl_op_name(n->op), x->name ? x->name : "", tfl_tensor_count(x),
                     y->name ? y->name : "", tfl_tensor_count(y));
  return TFL_OK;
}

static tfl_status fold_dequantize(tfl_graph *g, int ni, const tfl_tensor *x, tfl_tensor *y, tfl_diag *diag)
{
  tfl_status s = fit_output(g, ni, x, y, diag);
  if (s != TFL_OK) return s;
  size_t count = tfl_tensor_count(x);
  float *out = tfl_graph_alloc(g, count * sizeof(float));
  if (!out) return tfl_fail(diag, TFL_ERR_NOMEM, "node %d (DEQUANTIZE): %zu floats", ni, count);
  if (x->type == TFL_TYPE_FLOAT16) {
    const uint16_t *h = x->data;
    for (size_t i = 0; i < count; i++) out[i] = tfl_half_to_float(h[i]);
  } else {
    /* per channel: channel of element i is (i / inner) % dims[axis] */
    size_t inner = 1;
    int nch = 1;
    if (x->q.n > 1) {
      if (x->q.axis < 0 || x->q.axis >= x->ndim || x->dims[x->q.axis] != x->q.n)
        return tfl_fail(diag, TFL_ERR_SHAPE, "node %d (DEQUANTIZE): %d scales along axis %d of %s", ni, x->q.n,
                         x->q.axis, x->name ? x->name : "");
      for (int d = x->q.axis + 1; d < x->ndim; d++) inner *= (size_t)x->dims[d];
      nch = x->q.n;
    }
    for (size_t i = 0; i < count; i++) {
      int c = nch > 1 ? (int)((i / inner) % (size_t)nch) : 0;
      float scale = x->q.n ? x->q.scale[c] : 1.0f;
      int32_t zp = x->q.n ? x->q.zero_point[c] : 0;
      int32_t q = x->type == TFL_TYPE_INT8 ? ((const int8_t *)x->data)[i] : ((const uint8_t *)x->data)[i];
      out[i] = scale * (float)(q - zp);
    }
  }
  y->data = out;
  return TFL_OK;
}

static tfl_status fold_densify(tfl_graph *g, int ni, const tfl_tensor *x, tfl_tensor *y, tfl_diag *diag)
{
  tfl_status s = fit_output(g, ni, x, y, diag);
  if (s != TFL_OK) return s;
  if (y->type != x->type)
    return tfl_fail(diag, TFL_ERR_SHAPE, "node %d (DENSIFY): input %s, output %s", ni, tfl_type_name(x->type),
                     tfl_type_name(y->type));
  int64_t stored = tfl_sparse_value_count(x, diag);
  if (stored < 0) return tfl_fail_prefix(diag, TFL_ERR_FORMAT, "node %d (DENSIFY)", ni);
  void *out = tfl_graph_alloc(g, y->bytes);
  if (!out) return tfl_fail(diag, TFL_ERR_NOMEM, "node %d (DENSIFY): %zu bytes", ni, y->bytes);
  s = tfl_densify(x, (size_t)stored, out, diag);
  if (s != TFL_OK) return tfl_fail_prefix(diag, s, "node %d (DENSIFY)", ni);
  y->data = out;
  return TFL_OK;
}

tfl_status tfl_pass_fold_constants(tfl_graph *g, tfl_diag *diag)
{
  for (int ni = 0; ni < g->n_nodes; ni++) {
    tfl_node *n = &g->nodes[ni];
    if (n->dead || (n->op != TFL_OP_DEQUANTIZE && n->op != TFL_OP_DENSIFY)) continue;
    if (n->n_in < 1 || n->n_out != 1 || n->in[0] < 0 || n->out[0] < 0) continue;
    const tfl_tensor *x = &g->tensors[n->in[0]];
    tfl_tensor *y = &g->tensors[n->out[0]];
    if (!x->is_const || !x->data) continue;
    tfl_status s;
    if (n->op == TFL_OP_DENSIFY) {
      if (!x->sparsity) continue;
      s = fold_densify(g, ni, x, y, diag);
    } else {
      if (x->sparsity) continue; /* densified first */
      bool ok = x->type == TFL_TYPE_FLOAT16 || x->type == TFL_TYPE_INT8 || x->type == TFL_TYPE_UINT8;
      if (!ok || y->type != TFL_TYPE_FLOAT32) continue;
      s = fold_dequantize(g, ni, x, y, diag);
    }
    if (s != TFL_OK) return s;
    y->is_const = true;
    y->producer = -1;
    n->dead = true;
  }
  return TFL_OK;
}
