/* shapes_layout.c - output shapes of the layout ops (tfl_shapes_priv.h).
 *
 * Each rule follows TensorFlow Lite's Prepare: the shape comes from the data input's
 * shape and the op's constant index inputs (perm, begin/size, axis, multiples, block
 * shape, paddings ...). Where such an input is computed at run time the declared shape
 * is kept (TFL_INF_KEEP); the kernel checks it against the values then.
 */
#include "tfl_shapes_priv.h"

#define NODE_ERR TFL_SHAPE_ERR

/* The int32/int64 values of input i, or false (kept shape) when it is not constant. */
static bool const_in(const tfl_graph *g, const tfl_node *n, int i, int64_t *v, int max, int *cnt)
{
  return tfl_shape_const_ints(tfl_shape_in(g, n, i), v, max, cnt);
}

static tfl_status set_dim(const tfl_graph *g, const tfl_node *n, int ni, tfl_shape *out, int d, int64_t v,
                          tfl_diag *diag)
{
  (void)g;
  if (v < 0 || v > INT32_MAX) return NODE_ERR(TFL_ERR_SHAPE, "output dim %d would be %lld", d, (long long)v);
  out->d[d] = (int32_t)v;
  return TFL_OK;
}

/* axis in [-rank, rank) made non-negative; false when out of range */
static bool norm_axis(int64_t axis, int rank, int *out)
{
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return false;
  *out = (int)axis;
  return true;
}

static tfl_status transpose_shape(const tfl_graph *g, const tfl_node *n, int ni, const tfl_tensor *x,
                                  tfl_shape *out, tfl_inf_kind *kind, tfl_diag *diag)
{
  int64_t perm[TFL_MAX_DIMS + 1];
  int cnt = 0;
  if (!const_in(g, n, 1, perm, TFL_MAX_DIMS + 1, &cnt)) {
    *kind = TFL_INF_KEEP;
    return TFL_OK;
  }
  if (cnt != x->ndim) return NODE_ERR(TFL_ERR_SHAPE, "perm has %d values, input has %d dims", cnt, x->ndim);
  bool seen[TFL_MAX_DIMS] = {false};
  out->ndim = x->ndim;
  for (int i = 0; i < cnt; i++) {
    int a;
    if (!norm_axis(perm[i], x->ndim, &a) || seen[a])
      return NODE_ERR(TFL_ERR_SHAPE, "perm[%d] is %lld: not a permutation of %d dims", i, (long long)perm[i],
                      x->ndim);
    seen[a] = true;
    out->d[i] = x->dims[a];
  }
  return TFL_OK;
}

static tfl_status slice_shape(const tfl_graph *g, const tfl_node *n, int ni, const tfl_tensor *x, tfl_shape *out,
                              tfl_inf_kind *kind, tfl_diag *diag)
{
  int64_t b[TFL_MAX_DIMS + 1], s[TFL_MAX_DIMS + 1];
  int nb = 0, ns = 0;
  if (!const_in(g, n, 1, b, TFL_MAX_DIMS + 1, &nb) || !const_in(g, n, 2, s, TFL_MAX_DIMS + 1, &ns)) {
    *kind = TFL_INF_KEEP;
    return TFL_OK;
  }
  if (nb != x->ndim || ns != x->ndim)
    return NODE_ERR(TFL_ERR_SHAPE, "begin has %d values and size %d, input has %d dims", nb, ns, x->ndim);
  out->ndim = x->ndim;
  for (int d = 0; d < x->ndim; d++) {
    int64_t dim = x->dims[d], sz = s[d] == -1 ? dim - b[d] : s[d];
    if (b[d] >= 0 && b[d] <= dim && sz > dim - b[d]) sz = dim - b[d]; /* TFLite clamps the size */
    if (b[d] < 0 || b[d] > dim || sz < 0)
      return NODE_ERR(TFL_ERR_SHAPE, "dim %d: begin %lld, size %lld outside its %lld values", d, (long long)b[d],
                      (long long)s[d], (long long)dim);
    out->d[d] = (int32_t)sz;
  }
  return TFL_OK;
}

/* SPLIT (axis input 0, data input 1) and SPLIT_V (data 0, size_splits 1, axis 2) */
static tfl_status split_shape(const tfl_graph *g, const tfl_node *n, int ni, int o, tfl_shape *out,
                              tfl_inf_kind *kind, tfl_diag *diag)
{
  const bool v = n->op == TFL_OP_SPLIT_V;
  const tfl_tensor *x = tfl_shape_in(g, n, v ? 0 : 1);
  if (!x) return NODE_ERR(TFL_ERR_SHAPE, "data input %d is missing", v ? 0 : 1);
  int64_t av[1];
  int cnt = 0, axis;
  if (!const_in(g, n, v ? 2 : 0, av, 1, &cnt) || cnt != 1) {
    *kind = TFL_INF_KEEP;
    return TFL_OK;
  }
  if (!norm_axis(av[0], x->ndim, &axis))
    return NODE_ERR(TFL_ERR_SHAPE, "axis %lld out of range for %d dims", (long long)av[0], x->ndim);
  if (n->n_out != n->p.split.num_splits)
    return NODE_ERR(TFL_ERR_SHAPE, "%d outputs, num_splits is %d", n->n_out, n->p.split.num_splits);
  *out = tfl_shape_of(x);
  const int64_t dim = x->dims[axis];
  if (!v) {
    if (dim % n->p.split.num_splits)
      return NODE_ERR(TFL_ERR_SHAPE, "dim %d (%lld) does not split evenly into %d", axis, (long long)dim,
                      n->p.split.num_splits);
    out->d[axis] = (int32_t)(dim / n->p.split.num_splits);
    return TFL_OK;
  }
  const tfl_tensor *st = tfl_shape_in(g, n, 1);
  if (!st || !st->is_const) {
    *kind = TFL_INF_KEEP;
    return TFL_OK;
  }
  size_t ns = tfl_tensor_count(st);
  if (st->ndim != 1 || ns != (size_t)n->n_out)
    return NODE_ERR(TFL_ERR_SHAPE, "size_splits has %zu values (%d dims), node has %d outputs", ns, st->ndim,
                    n->n_out);
  if (st->type != TFL_TYPE_INT64 && st->type != TFL_TYPE_INT32)
    return NODE_ERR(TFL_ERR_UNSUPPORTED, "size_splits is %s, expected int32 or int64", tfl_type_name(st->type));
  int64_t sum = 0, mine = 0;
  int wild = -1;
  for (size_t i = 0; i < ns; i++) {
    int64_t s = st->type == TFL_TYPE_INT64 ? ((const int64_t *)st->data)[i] : ((const int32_t *)st->data)[i];
    if (s == -1) {
      if (wild >= 0) return NODE_ERR(TFL_ERR_SHAPE, "size_splits has two -1 entries (%d and %zu)", wild, i);
      wild = (int)i;
    } else if (s < 0 || s > dim) {
      return NODE_ERR(TFL_ERR_SHAPE, "size_splits[%zu] is %lld", i, (long long)s);
    } else {
      sum += s;
    }
    if ((int)i == o) mine = s;
  }
  if (wild >= 0 ? sum > dim : sum != dim)
    return NODE_ERR(TFL_ERR_SHAPE, "size_splits sum to %lld, dim %d has %lld", (long long)sum, axis, (long long)dim);
  out->d[axis] = (int32_t)(o == wild ? dim - sum : mine);
  return TFL_OK;
}

static tfl_status tile_shape(const tfl_graph *g, const tfl_node *n, int ni, const tfl_tensor *x, tfl_shape *out,
                             tfl_inf_kind *kind, tfl_diag *diag)
{
  int64_t m[TFL_MAX_DIMS + 1];
  int cnt = 0;
  if (!const_in(g, n, 1, m, TFL_MAX_DIMS + 1, &cnt)) {
    *kind = TFL_INF_KEEP;
    return TFL_OK;
  }
  if (cnt != x->ndim) return NODE_ERR(TFL_ERR_SHAPE, "multiples has %d values, input has %d dims", cnt, x->ndim);
  out->ndim = x->ndim;
  tfl_status s;
  for (int d = 0; d < x->ndim; d++) {
    if (m[d] < 0) return NODE_ERR(TFL_ERR_SHAPE, "multiples[%d] is %lld", d, (long long)m[d]);
    if (m[d] > INT32_MAX) return NODE_ERR(TFL_ERR_SHAPE, "multiples[%d] is %lld", d, (long long)m[d]);
    if ((s = set_dim(g, n, ni, out, d, (int64_t)x->dims[d] * m[d], diag))) return s;
  }
  return TFL_OK;
}

static tfl_status broadcast_to_shape(const tfl_graph *g, const tfl_node *n, int ni, const tfl_tensor *x,
                                     tfl_shape *out, tfl_inf_kind *kind, tfl_diag *diag)
{
  int64_t v[TFL_MAX_DIMS + 1];
  int cnt = 0;
  if (!const_in(g, n, 1, v, TFL_MAX_DIMS + 1, &cnt)) {
    *kind = TFL_INF_KEEP;
    return TFL_OK;
  }
  if (cnt > TFL_MAX_DIMS) return NODE_ERR(TFL_ERR_UNSUPPORTED, "shape has %d dims, at most %d", cnt, TFL_MAX_DIMS);
  if (cnt < x->ndim) return NODE_ERR(TFL_ERR_SHAPE, "shape has %d dims, fewer than the input's %d", cnt, x->ndim);
  out->ndim = cnt;
  tfl_status s;
  for (int d = 0; d < cnt; d++) {
    if ((s = set_dim(g, n, ni, out, d, v[d], diag))) return s;
    int xd = d - (cnt - x->ndim);
    if (xd >= 0 && x->dims[xd] != 1 && x->dims[xd] != v[d])
      return NODE_ERR(TFL_ERR_SHAPE, "input dim %d (%d) does not broadcast to %lld", xd, x->dims[xd],
                      (long long)v[d]);
  }
  return TFL_OK;
}

static tfl_status mirror_pad_shape(const tfl_graph *g, const tfl_node *n, int ni, const tfl_tensor *x,
                                   tfl_shape *out, tfl_inf_kind *kind, tfl_diag *diag)
{
  int64_t v[2 * TFL_MAX_DIMS];
  int cnt = 0;
  if (!const_in(g, n, 1, v, 2 * TFL_MAX_DIMS, &cnt)) {
    *kind = TFL_INF_KEEP;
    return TFL_OK;
  }
  if (cnt != 2 * x->ndim)
    return NODE_ERR(TFL_ERR_SHAPE, "paddings has %d values, input has %d dims (need %d)", cnt, x->ndim, 2 * x->ndim);
  /* REFLECT leaves the edge out, so it can mirror at most dim-1 values */
  const int64_t off = n->p.mirror_pad.mode == 0 ? 1 : 0;
  *out = tfl_shape_of(x);
  tfl_status s;
  for (int d = 0; d < x->ndim; d++) {
    int64_t lo = v[2 * d], hi = v[2 * d + 1], lim = x->dims[d] - off;
    if (lo < 0 || hi < 0 || lo > lim || hi > lim)
      return NODE_ERR(TFL_ERR_SHAPE, "dim %d of size %d: paddings (%lld, %lld) outside 0..%lld for %s", d,
                      x->dims[d], (long long)lo, (long long)hi, (long long)lim, off ? "REFLECT" : "SYMMETRIC");
    if ((s = set_dim(g, n, ni, out, d, x->dims[d] + lo + hi, diag))) return s;
  }
  return TFL_OK;
}

/* SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND: input [batch, spatial (M dims), rest...],
 * block_shape [M], paddings or crops [M, 2]. */
static tfl_status space_batch_shape(const tfl_graph *g, const tfl_node *n, int ni, const tfl_tensor *x,
                                    tfl_shape *out, tfl_inf_kind *kind, tfl_diag *diag)
{
  const bool to_batch = n->op == TFL_OP_SPACE_TO_BATCH_ND;
  int64_t bs[TFL_MAX_DIMS], pd[2 * TFL_MAX_DIMS];
  int nb = 0, np = 0;
  if (!const_in(g, n, 1, bs, TFL_MAX_DIMS, &nb) || !const_in(g, n, 2, pd, 2 * TFL_MAX_DIMS, &np)) {
    *kind = TFL_INF_KEEP;
    return TFL_OK;
  }
  if (x->ndim < 2 || nb < 1 || nb > x->ndim - 1 || np != 2 * nb)
    return NODE_ERR(TFL_ERR_SHAPE, "input has %d dims, block_shape %d values, %s %d (need 1..rank-1 and twice "
                    "as many)", x->ndim, nb, to_batch ? "paddings" : "crops", np);
  *out = tfl_shape_of(x);
  int64_t prod = 1;
  tfl_status s;
  for (int i = 0; i < nb; i++) {
    if (bs[i] < 1 || bs[i] > INT32_MAX)
      return NODE_ERR(TFL_ERR_SHAPE, "block_shape[%d] is %lld", i, (long long)bs[i]);
    if (pd[2 * i] < 0 || pd[2 * i + 1] < 0 || pd[2 * i] > INT32_MAX || pd[2 * i + 1] > INT32_MAX)
      return NODE_ERR(TFL_ERR_SHAPE, "%s of dim %d are (%lld, %lld)", to_batch ? "paddings" : "crops", i + 1,
                      (long long)pd[2 * i], (long long)pd[2 * i + 1]);
    prod *= bs[i];
    if (prod > INT32_MAX) return NODE_ERR(TFL_ERR_SHAPE, "block_shape's product is too large");
    int64_t dim = x->dims[1 + i];
    if (to_batch) {
      int64_t padded = dim + pd[2 * i] + pd[2 * i + 1];
      if (padded % bs[i])
        return NODE_ERR(TFL_ERR_SHAPE, "padded dim %d (%lld) is not a multiple of block_shape[%d] = %lld", i + 1,
                        (long long)padded, i, (long long)bs[i]);
      out->d[1 + i] = (int32_t)(padded / bs[i]);
    } else {
      int64_t full = dim * bs[i], cut = full - pd[2 * i] - pd[2 * i + 1];
      if (cut < 0)
        return NODE_ERR(TFL_ERR_SHAPE, "crops (%lld, %lld) exceed dim %d's %lld values", (long long)pd[2 * i],
                        (long long)pd[2 * i + 1], i + 1, (long long)full);
      if ((s = set_dim(g, n, ni, out, 1 + i, cut, diag))) return s;
    }
  }
  if (to_batch) {
    if ((s = set_dim(g, n, ni, out, 0, x->dims[0] * prod, diag))) return s;
  } else {
    if (x->dims[0] % prod)
      return NODE_ERR(TFL_ERR_SHAPE, "batch %d is not a multiple of the block size %lld", x->dims[0], (long long)prod);
    out->d[0] = (int32_t)(x->dims[0] / prod);
  }
  return TFL_OK;
}

tfl_status tfl_shape_layout(const tfl_graph *g, const tfl_node *n, int ni, int o, tfl_shape *out,
                            tfl_inf_kind *kind, tfl_diag *diag)
{
  /* SPLIT's data is input 1; every other op's input 0 */
  const tfl_tensor *x = tfl_shape_in(g, n, 0);
  if (!x) return NODE_ERR(TFL_ERR_SHAPE, "input 0 is missing (%d inputs)", n->n_in);
  *kind = TFL_INF_OK;
  switch (n->op) {
  case TFL_OP_TRANSPOSE: return transpose_shape(g, n, ni, x, out, kind, diag);
  case TFL_OP_SLICE: return slice_shape(g, n, ni, x, out, kind, diag);
  case TFL_OP_SPLIT:
  case TFL_OP_SPLIT_V: return split_shape(g, n, ni, o, out, kind, diag);
  case TFL_OP_PACK: {
    const int rank = x->ndim + 1;
    int axis;
    if (!norm_axis(n->p.pack.axis, rank, &axis))
      return NODE_ERR(TFL_ERR_SHAPE, "axis %d out of range for %d output dims", n->p.pack.axis, rank);
    if (rank > TFL_MAX_DIMS) return NODE_ERR(TFL_ERR_UNSUPPORTED, "output would have %d dims", rank);
    if (n->p.pack.count != n->n_in)
      return NODE_ERR(TFL_ERR_SHAPE, "values_count %d, node has %d inputs", n->p.pack.count, n->n_in);
    for (int i = 1; i < n->n_in; i++) {
      const tfl_tensor *t = tfl_shape_in(g, n, i);
      if (!t) return NODE_ERR(TFL_ERR_SHAPE, "input %d is missing", i);
      if (t->ndim != x->ndim || memcmp(t->dims, x->dims, sizeof(int32_t) * (size_t)x->ndim))
        return NODE_ERR(TFL_ERR_SHAPE, "input %d's shape differs from input 0's", i);
    }
    out->ndim = rank;
    for (int d = 0, k = 0; d < rank; d++) out->d[d] = d == axis ? n->n_in : x->dims[k++];
    return TFL_OK;
  }
  case TFL_OP_UNPACK: {
    int axis;
    if (!norm_axis(n->p.pack.axis, x->ndim, &axis))
      return NODE_ERR(TFL_ERR_SHAPE, "axis %d out of range for %d dims", n->p.pack.axis, x->ndim);
    if (x->dims[axis] != n->n_out || n->p.pack.count != n->n_out)
      return NODE_ERR(TFL_ERR_SHAPE, "dim %d has %d values, num is %d, node has %d outputs", axis, x->dims[axis],
                      n->p.pack.count, n->n_out);
    out->ndim = 0;
    for (int d = 0; d < x->ndim; d++)
      if (d != axis) out->d[out->ndim++] = x->dims[d];
    return TFL_OK;
  }
  case TFL_OP_TILE: return tile_shape(g, n, ni, x, out, kind, diag);
  case TFL_OP_BROADCAST_TO: return broadcast_to_shape(g, n, ni, x, out, kind, diag);
  case TFL_OP_EXPAND_DIMS: {
    int64_t v[1];
    int cnt = 0, axis;
    if (!const_in(g, n, 1, v, 1, &cnt) || cnt != 1) {
      *kind = TFL_INF_KEEP;
      return TFL_OK;
    }
    if (x->ndim + 1 > TFL_MAX_DIMS) return NODE_ERR(TFL_ERR_UNSUPPORTED, "output would have %d dims", x->ndim + 1);
    if (!norm_axis(v[0], x->ndim + 1, &axis))
      return NODE_ERR(TFL_ERR_SHAPE, "axis %lld out of range for %d dims", (long long)v[0], x->ndim);
    out->ndim = x->ndim + 1;
    for (int d = 0, k = 0; d < out->ndim; d++) out->d[d] = d == axis ? 1 : x->dims[k++];
    return TFL_OK;
  }
  case TFL_OP_REVERSE_V2:
  case TFL_OP_REVERSE_SEQUENCE:
  case TFL_OP_MATRIX_SET_DIAG:
  case TFL_OP_DYNAMIC_UPDATE_SLICE:
    *out = tfl_shape_of(x);
    return TFL_OK;
  case TFL_OP_MIRROR_PAD: return mirror_pad_shape(g, n, ni, x, out, kind, diag);
  case TFL_OP_SPACE_TO_DEPTH: {
    const int b = n->p.d2s.block_size;
    if (x->ndim != 4) return NODE_ERR(TFL_ERR_SHAPE, "input has %d dims, expected 4", x->ndim);
    if (b < 1 || x->dims[1] % b || x->dims[2] % b)
      return NODE_ERR(TFL_ERR_SHAPE, "height %d and width %d are not multiples of block_size %d", x->dims[1],
                      x->dims[2], b);
    *out = tfl_shape_of(x);
    out->d[1] /= b;
    out->d[2] /= b;
    return set_dim(g, n, ni, out, 3, (int64_t)x->dims[3] * b * b, diag);
  }
  case TFL_OP_SPACE_TO_BATCH_ND:
  case TFL_OP_BATCH_TO_SPACE_ND: return space_batch_shape(g, n, ni, x, out, kind, diag);
  case TFL_OP_MATRIX_DIAG:
    if (x->ndim < 1 || x->ndim + 1 > TFL_MAX_DIMS)
      return NODE_ERR(TFL_ERR_SHAPE, "diagonal has %d dims, expected 1..%d", x->ndim, TFL_MAX_DIMS - 1);
    *out = tfl_shape_of(x);
    out->d[x->ndim] = x->dims[x->ndim - 1];
    out->ndim = x->ndim + 1;
    return TFL_OK;
  default: break;
  }
  return NODE_ERR(TFL_ERR_UNSUPPORTED, "no layout shape rule");
}
