/* shapes_index.c - output shapes of the index, generator and selection ops
 * (tfl_shapes_priv.h).
 *
 * Shapes that come from values (RANGE, FILL dims, ONE_HOT depth, SCATTER_ND and
 * SPARSE_TO_DENSE shapes, TOPK k, NMS max_output_size, segment ids, WHERE's condition) are
 * computed when those values are known before any run: constants, and the outputs of SHAPE
 * and RANK (the dims of their input). Otherwise the declared shape is kept (KEEP) and the
 * kernel checks the values against it at eval. WHERE on a computed condition and UNIQUE's
 * values get their largest shape: their kernels set the true first dim each run.
 */
#include "tfl_shapes_priv.h"

#include <math.h>

/* Values of a tensor written by SHAPE or RANK: known here, before any run, from the dims
 * of that node's input (final: nodes are visited in order). False for any other tensor. */
static bool shape_op_values(const tfl_graph *g, const tfl_tensor *t, int64_t *v, int max, int *count)
{
  if (!t || t->producer < 0 || t->producer >= g->n_nodes) return false;
  const tfl_node *p = &g->nodes[t->producer];
  const tfl_tensor *src = p->dead ? NULL : tfl_shape_in(g, p, 0);
  if (!src || (p->op != TFL_OP_SHAPE && p->op != TFL_OP_RANK)) return false;
  if (p->op == TFL_OP_RANK) {
    if (max < 1) return false;
    v[0] = src->ndim;
    *count = 1;
    return true;
  }
  if (src->ndim > max) return false;
  for (int i = 0; i < src->ndim; i++) v[i] = src->dims[i];
  *count = src->ndim;
  return true;
}

/* A scalar of any numeric type as double: a constant, or RANK's (SHAPE's) known value;
 * false otherwise. */
static bool const_scalar(const tfl_graph *g, const tfl_tensor *t, double *v)
{
  int64_t iv[TFL_MAX_DIMS];
  int c;
  if (t && tfl_tensor_count(t) == 1 && shape_op_values(g, t, iv, TFL_MAX_DIMS, &c) && c == 1) {
    *v = (double)iv[0];
    return true;
  }
  if (!t || !t->is_const || !t->data || tfl_tensor_count(t) != 1) return false;
  switch (t->type) {
  case TFL_TYPE_FLOAT32: *v = ((const float *)t->data)[0]; return true;
  case TFL_TYPE_INT32: *v = ((const int32_t *)t->data)[0]; return true;
  case TFL_TYPE_INT64: *v = (double)((const int64_t *)t->data)[0]; return true;
  default: return false;
  }
}

/* Number of RANGE elements, as TFLite's range.cc computes it; -1 on invalid values. */
static int64_t range_count(const tfl_tensor *ts, double start, double limit, double delta)
{
  if (delta == 0 || (start > limit && delta > 0) || (start < limit && delta < 0)) return -1;
  if (ts->type == TFL_TYPE_FLOAT32) {
    volatile float q = ((float)limit - (float)start) / (float)delta; /* float math, as TFLite */
    float c = ceilf(fabsf(q));
    return !(c <= (float)INT32_MAX) ? -1 : (int64_t)c; /* NaN too */
  }
  /* integer values, held in doubles: beyond 2^62 (or not numbers) no count fits a tensor,
   * and the differences below must not overflow */
  const double big = 4611686018427387904.0;
  if (!(fabs(start) <= big && fabs(limit) <= big && fabs(delta) <= big)) return -1;
  int64_t s = (int64_t)start, l = (int64_t)limit, d = (int64_t)delta;
  int64_t span = l > s ? l - s : s - l, ad = d < 0 ? -d : d;
  return (span + ad - 1) / ad;
}

/* A shape vector's values: a constant, or SHAPE's output. An empty one (a scalar shape) has no data to be
 * constant with, but its (absent) values are known all the same. */
static bool const_dims(const tfl_graph *g, const tfl_tensor *t, int64_t *v, int *count)
{
  if (shape_op_values(g, t, v, TFL_MAX_DIMS, count)) return true;
  if (t && tfl_tensor_count(t) == 0) {
    *count = 0;
    return true;
  }
  return tfl_shape_const_ints(t, v, TFL_MAX_DIMS, count);
}

static tfl_status set_dims(const tfl_graph *g, const tfl_node *n, int ni, const int64_t *v, int count,
                           tfl_shape *out, tfl_diag *diag)
{
  if (count > TFL_MAX_DIMS)
    return TFL_SHAPE_ERR(TFL_ERR_UNSUPPORTED, "output of %d dims, at most %d", count, TFL_MAX_DIMS);
  out->ndim = count;
  for (int i = 0; i < count; i++) {
    if (v[i] < 0 || v[i] > INT32_MAX)
      return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "output dim %d is %lld", i, (long long)v[i]);
    out->d[i] = (int32_t)v[i];
  }
  (void)g;
  return TFL_OK;
}

tfl_status tfl_shape_index(const tfl_graph *g, const tfl_node *n, int ni, int o, tfl_shape *out,
                           tfl_inf_kind *kind, tfl_diag *diag)
{
  const tfl_tensor *x = tfl_shape_in(g, n, 0);
  *kind = TFL_INF_OK;
  for (int i = 0; i < n->n_in; i++) /* SPARSE_TO_DENSE's default value may be omitted */
    if (!tfl_shape_in(g, n, i) && !(n->op == TFL_OP_SPARSE_TO_DENSE && i == 3))
      return TFL_SHAPE_ERR(TFL_ERR_FORMAT, "input %d is missing (%d inputs)", i, n->n_in);
  if (!x) return TFL_SHAPE_ERR(TFL_ERR_FORMAT, "input 0 is missing (%d inputs)", n->n_in);
  int64_t v[TFL_MAX_DIMS];
  int cnt = 0;
  switch (n->op) {
  case TFL_OP_GATHER: {
    const tfl_tensor *idx = tfl_shape_in(g, n, 1);
    int axis = n->p.gather.axis, bd = n->p.gather.batch_dims;
    if (axis < 0) axis += x->ndim;
    if (bd < 0) bd += idx->ndim;
    if (axis < 0 || axis >= x->ndim)
      return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "axis %d outside params of %d dims", n->p.gather.axis, x->ndim);
    if (bd < 0 || bd > axis || bd > idx->ndim)
      return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "batch_dims %d (axis %d, indices of %d dims)", n->p.gather.batch_dims,
                           axis, idx->ndim);
    for (int i = 0; i < bd; i++)
      if (x->dims[i] != idx->dims[i])
        return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "batch dim %d: params %d, indices %d", i, x->dims[i], idx->dims[i]);
    int nd = x->ndim - 1 + idx->ndim - bd;
    if (nd > TFL_MAX_DIMS) return TFL_SHAPE_ERR(TFL_ERR_UNSUPPORTED, "output of %d dims, at most %d", nd, TFL_MAX_DIMS);
    out->ndim = 0;
    for (int i = 0; i < axis; i++) out->d[out->ndim++] = x->dims[i];
    for (int i = bd; i < idx->ndim; i++) out->d[out->ndim++] = idx->dims[i];
    for (int i = axis + 1; i < x->ndim; i++) out->d[out->ndim++] = x->dims[i];
    return TFL_OK;
  }
  case TFL_OP_GATHER_ND: {
    const tfl_tensor *idx = tfl_shape_in(g, n, 1);
    if (idx->ndim < 1) return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "indices have %d dims, need at least 1", idx->ndim);
    int k = idx->dims[idx->ndim - 1];
    if (k > x->ndim)
      return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "index depth %d exceeds params rank %d", k, x->ndim);
    int nd = idx->ndim - 1 + x->ndim - k;
    if (nd > TFL_MAX_DIMS) return TFL_SHAPE_ERR(TFL_ERR_UNSUPPORTED, "output of %d dims, at most %d", nd, TFL_MAX_DIMS);
    out->ndim = 0;
    for (int i = 0; i < idx->ndim - 1; i++) out->d[out->ndim++] = idx->dims[i];
    for (int i = k; i < x->ndim; i++) out->d[out->ndim++] = x->dims[i];
    return TFL_OK;
  }
  case TFL_OP_SCATTER_ND:
    if (!const_dims(g, tfl_shape_in(g, n, 2), v, &cnt)) break;
    return set_dims(g, n, ni, v, cnt, out, diag);
  case TFL_OP_SPARSE_TO_DENSE:
    if (!const_dims(g, tfl_shape_in(g, n, 1), v, &cnt)) break;
    return set_dims(g, n, ni, v, cnt, out, diag);
  case TFL_OP_FILL:
    if (!const_dims(g, x, v, &cnt)) break;
    return set_dims(g, n, ni, v, cnt, out, diag);
  case TFL_OP_SHAPE:
    out->ndim = 1;
    out->d[0] = x->ndim;
    return TFL_OK;
  case TFL_OP_RANK:
    out->ndim = 0;
    return TFL_OK;
  case TFL_OP_ZEROS_LIKE:
  case TFL_OP_CAST:
  case TFL_OP_CUMSUM:
    *out = tfl_shape_of(x);
    return TFL_OK;
  case TFL_OP_RANGE: {
    double s, l, d;
    if (!const_scalar(g, x, &s) || !const_scalar(g, tfl_shape_in(g, n, 1), &l) ||
        !const_scalar(g, tfl_shape_in(g, n, 2), &d))
      break;
    int64_t c = range_count(x, s, l, d);
    if (c < 0) return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "start %g, limit %g, delta %g give no valid range", s, l, d);
    out->ndim = 1;
    out->d[0] = (int32_t)c;
    return TFL_OK;
  }
  case TFL_OP_ONE_HOT: {
    double depth;
    if (!const_scalar(g, tfl_shape_in(g, n, 1), &depth)) break;
    int axis = n->p.one_hot.axis;
    if (axis == -1) axis = x->ndim;
    if (axis < 0 || axis > x->ndim)
      return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "axis %d for indices of %d dims", n->p.one_hot.axis, x->ndim);
    if (depth < 0 || depth > INT32_MAX) return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "depth %g", depth);
    if (x->ndim + 1 > TFL_MAX_DIMS)
      return TFL_SHAPE_ERR(TFL_ERR_UNSUPPORTED, "output of %d dims, at most %d", x->ndim + 1, TFL_MAX_DIMS);
    out->ndim = 0;
    for (int i = 0; i <= x->ndim; i++)
      out->d[out->ndim++] = i == axis ? (int32_t)depth : x->dims[i < axis ? i : i - 1];
    return TFL_OK;
  }
  case TFL_OP_SELECT:
    /* x and y agree; the condition matches them or is a scalar / rank-1 over dim 0 */
    *out = tfl_shape_of(tfl_shape_in(g, n, 1));
    return TFL_OK;
  case TFL_OP_SELECT_V2: {
    tfl_shape a = tfl_shape_of(x), b = tfl_shape_of(tfl_shape_in(g, n, 1)), c = tfl_shape_of(tfl_shape_in(g, n, 2)), ab;
    if (!tfl_shape_broadcast(&a, &b, &ab) || !tfl_shape_broadcast(&ab, &c, out))
      return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "condition, x and y of %d, %d and %d dims do not broadcast", a.ndim, b.ndim,
                           c.ndim);
    return TFL_OK;
  }
  case TFL_OP_WHERE: {
    if (!x->is_const || !x->data) {
      /* computed at run time: planned at its largest, every element true; the kernel sets
       * the true row count each run (a dynamic output, as TFLite's) */
      out->ndim = 2;
      out->d[0] = (int32_t)tfl_tensor_count(x);
      out->d[1] = x->ndim;
      return TFL_OK;
    }
    size_t count = tfl_tensor_count(x), es = tfl_type_size(x->type), nz = 0;
    if (!es) return TFL_SHAPE_ERR(TFL_ERR_UNSUPPORTED, "condition of type %s", tfl_type_name(x->type));
    for (size_t i = 0; i < count; i++) {
      const uint8_t *p = (const uint8_t *)x->data + i * es;
      bool on = false;
      if (x->type == TFL_TYPE_FLOAT32) on = *(const float *)p != 0.0f;
      else
        for (size_t k = 0; k < es; k++) on = on || p[k];
      nz += on;
    }
    out->ndim = 2;
    out->d[0] = (int32_t)nz;
    out->d[1] = x->ndim;
    return TFL_OK;
  }
  case TFL_OP_UNIQUE:
    /* values (output 0): at most one per element, the true count set each run; indices: one
     * per element */
    if (x->ndim != 1) return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "input has %d dims, expected 1", x->ndim);
    *out = tfl_shape_of(x);
    return TFL_OK;
  case TFL_OP_TOPK_V2: {
    double k;
    if (!const_scalar(g, tfl_shape_in(g, n, 1), &k)) break;
    if (x->ndim < 1) return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "input is a scalar%s", "");
    if (k < 0 || k > x->dims[x->ndim - 1])
      return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "k %g outside 0..%d (the last dim)", k, x->dims[x->ndim - 1]);
    *out = tfl_shape_of(x);
    out->d[out->ndim - 1] = (int32_t)k;
    return TFL_OK;
  }
  case TFL_OP_NON_MAX_SUPPRESSION_V4:
  case TFL_OP_NON_MAX_SUPPRESSION_V5: {
    if (o == n->n_out - 1) { /* the valid count: a scalar */
      out->ndim = 0;
      return TFL_OK;
    }
    double m;
    if (!const_scalar(g, tfl_shape_in(g, n, 2), &m)) break;
    if (m < 0 || m > INT32_MAX) return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "max_output_size %g", m);
    out->ndim = 1;
    out->d[0] = (int32_t)m;
    return TFL_OK;
  }
  case TFL_OP_EMBEDDING_LOOKUP: {
    const tfl_tensor *val = tfl_shape_in(g, n, 1);
    if (x->ndim != 1 || val->ndim < 1)
      return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "lookup of %d dims (need 1), value of %d dims", x->ndim, val->ndim);
    *out = tfl_shape_of(val);
    out->d[0] = x->dims[0];
    return TFL_OK;
  }
  case TFL_OP_SEGMENT_SUM: {
    const tfl_tensor *ids = tfl_shape_in(g, n, 1);
    if (x->ndim < 1) return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "data is a scalar%s", "");
    if (!ids->is_const || !ids->data || ids->type != TFL_TYPE_INT32) break;
    size_t c = tfl_tensor_count(ids);
    const int32_t *id = ids->data;
    int32_t mx = -1;
    for (size_t i = 0; i < c; i++) { /* TFLite: from 0, each id the previous or one more */
      if (i == 0 ? id[i] != 0 : id[i] - id[i - 1] != 0 && id[i] - id[i - 1] != 1)
        return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "segment id %d at %zu: ids must start at 0 and grow by 0 or 1", id[i], i);
      mx = id[i];
    }
    *out = tfl_shape_of(x);
    out->d[0] = mx + 1;
    return TFL_OK;
  }
  case TFL_OP_UNSORTED_SEGMENT_SUM:
  case TFL_OP_UNSORTED_SEGMENT_PROD:
  case TFL_OP_UNSORTED_SEGMENT_MAX:
  case TFL_OP_UNSORTED_SEGMENT_MIN: {
    const tfl_tensor *ids = tfl_shape_in(g, n, 1);
    double ns;
    if (!const_scalar(g, tfl_shape_in(g, n, 2), &ns)) break;
    if (ids->ndim > x->ndim)
      return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "segment ids of %d dims, data of %d", ids->ndim, x->ndim);
    if (ns < 0 || ns > INT32_MAX) return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "num_segments %g", ns);
    out->ndim = 1 + x->ndim - ids->ndim;
    out->d[0] = (int32_t)ns;
    for (int i = ids->ndim; i < x->ndim; i++) out->d[1 + i - ids->ndim] = x->dims[i];
    return TFL_OK;
  }
  case TFL_OP_BROADCAST_ARGS: {
    const tfl_tensor *y = tfl_shape_in(g, n, 1);
    if (x->ndim != 1 || y->ndim != 1)
      return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "shapes of %d and %d dims, need 1", x->ndim, y->ndim);
    out->ndim = 1;
    out->d[0] = x->dims[0] > y->dims[0] ? x->dims[0] : y->dims[0];
    return TFL_OK;
  }
  default:
    return TFL_SHAPE_ERR(TFL_ERR_UNSUPPORTED, "not an index op (%d)", (int)n->op);
  }
  *kind = TFL_INF_KEEP;
  return TFL_OK;
}
