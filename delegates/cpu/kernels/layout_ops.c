/* layout_ops.c - the layout ops that are one strided copy (TRANSPOSE, SLICE, TILE,
 * BROADCAST_TO, REVERSE_V2, EXPAND_DIMS) or copies of contiguous parts along one axis
 * (SPLIT, SPLIT_V, PACK, UNPACK), with TensorFlow Lite's semantics and type tables.
 *
 * Copy ops: a plan function turns the op's index inputs (perm, begin/size, multiples,
 * shape, axes) into a lay_copy box (layout_common.h) and a source offset. With constant
 * index inputs the plan is made once in prepare; otherwise eval makes it (on the stack)
 * from the values of the moment and checks them against the output's shape.
 * Part ops: the big tensor is seen as [outer, axis, inner]; part p covers s_p slices of
 * the axis (its own dim for SPLIT/SPLIT_V, 1 for PACK/UNPACK) and is outer runs of
 * s_p * inner elements.
 * Quantized values are moved as they are; TRANSPOSE, PACK and UNPACK refuse tensors of
 * different scale or zero point, as TFLite does.
 */
#include "kernels.h"

#include "layout_common.h"

#include <stdlib.h>
#include <string.h>

enum { INPUT = 0, PARAM = 1 };
enum { OUTPUT = 0 };

/* TFLite's type tables (checked against LiteRT 2.3 for each type) */
#define TYPES_SPLIT (LAY_T(TFL_TYPE_FLOAT32) | LAY_T(TFL_TYPE_INT8) | LAY_T(TFL_TYPE_UINT8) | \
                                    LAY_T(TFL_TYPE_INT16) | LAY_T(TFL_TYPE_INT32) | LAY_T(TFL_TYPE_INT64))
#define TYPES_UNPACK (LAY_T(TFL_TYPE_FLOAT32) | LAY_T(TFL_TYPE_INT8) | LAY_T(TFL_TYPE_UINT8) | \
                                     LAY_T(TFL_TYPE_INT16) | LAY_T(TFL_TYPE_INT32) | LAY_T(TFL_TYPE_BOOL))

static void release(void *state)
{
  free(state);
}

/* ---- copy ops --------------------------------------------------------------------- */

typedef tfl_status (*plan_fn)(const tfl_graph *g, const tfl_node *n, lay_copy *c, int64_t *src_off, tfl_diag *diag);

typedef struct {
  lay_copy c;
  int64_t src_off;   /* bytes */
  bool planned;      /* made in prepare (constant index inputs) */
} copy_state;

/* The output's contiguous byte strides into c->ds, its dims into c->count. */
static void out_box(const tfl_tensor *y, lay_copy *c)
{
  int64_t st[TFL_MAX_DIMS];
  lay_strides(y->dims, y->ndim, st);
  c->es = tfl_type_size(y->type);
  c->nd = y->ndim;
  for (int d = 0; d < y->ndim; d++) {
    c->count[d] = y->dims[d];
    c->ds[d] = st[d] * (int64_t)c->es;
  }
}

static tfl_status copy_prepare(const tfl_graph *g, const tfl_node *n, void **state, bool constant, plan_fn plan,
                               tfl_diag *diag)
{
  copy_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "%s state", tfl_op_name(n->op));
  *state = st;
  if (!constant) return TFL_OK;
  tfl_status s = plan(g, n, &st->c, &st->src_off, diag);
  if (s) return s;
  lay_copy_plan(&st->c);
  st->planned = true;
  return TFL_OK;
}

static tfl_status copy_eval(const tfl_graph *g, const tfl_node *n, const copy_state *st, plan_fn plan,
                            cpu_ctx *ctx, tfl_diag *diag)
{
  lay_copy local;
  int64_t off = st->src_off;
  const lay_copy *c = &st->c;
  if (!st->planned) {
    tfl_status s = plan(g, n, &local, &off, diag);
    if (s) return s;
    lay_copy_plan(&local);
    c = &local;
  }
  lay_copy_run(c, cpu_out(g, n, OUTPUT)->data, (const uint8_t *)cpu_in(g, n, INPUT)->data + off, ctx);
  return TFL_OK;
}

static bool is_const(const tfl_tensor *t)
{
  return t && t->is_const && t->data;
}

/* ---- TRANSPOSE ---- */

static tfl_status transpose_plan(const tfl_graph *g, const tfl_node *n, lay_copy *c, int64_t *off, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *p = cpu_in(g, n, PARAM), *y = cpu_out(g, n, OUTPUT);
  const int nd = x->ndim;
  if (p->ndim != 1 || (int)tfl_tensor_count(p) != nd)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "perm has %zu values, input has %d dims", tfl_tensor_count(p), nd);
  int64_t xs[TFL_MAX_DIMS];
  bool seen[TFL_MAX_DIMS] = {false};
  lay_strides(x->dims, nd, xs);
  if (y->ndim != nd) return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output has %d dims, input %d", y->ndim, nd);
  out_box(y, c);
  for (int i = 0; i < nd; i++) {
    int64_t a = ((const int32_t *)p->data)[i];
    if (a < 0) a += nd; /* TFLite takes perm values in [-rank, rank) */
    if (a < 0 || a >= nd || seen[a])
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "perm[%d] is %d: not a permutation of %d dims", i,
                          (int)((const int32_t *)p->data)[i], nd);
    seen[a] = true;
    if (y->dims[i] != x->dims[a])
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output dim %d is %d, input dim %d is %d", i, y->dims[i], (int)a,
                          x->dims[a]);
    c->ss[i] = xs[a] * (int64_t)c->es;
  }
  *off = 0;
  return TFL_OK;
}

static tfl_status transpose_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *p = cpu_in(g, n, PARAM), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = lay_check_types(g, n, x, y, LAY_ALL_TYPES, diag))) return s;
  if ((s = cpu_check_tensor(g, n, p, "perm", 1, diag))) return s;
  if (p->type != TFL_TYPE_INT32)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "perm is %s, expected int32", tfl_type_name(p->type));
  if (x->ndim > TFL_MAX_DIMS)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input has %d dims, at most %d", x->ndim, TFL_MAX_DIMS);
  if ((x->type == TFL_TYPE_INT8 || x->type == TFL_TYPE_UINT8 || x->type == TFL_TYPE_INT16) &&
      (s = lay_check_same_quant(g, n, x, y, "input", diag)))
    return s;
  return copy_prepare(g, n, state, is_const(p), transpose_plan, diag);
}

static tfl_status transpose_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  return copy_eval(g, n, state, transpose_plan, ctx, diag);
}

/* ---- SLICE ---- */

static tfl_status slice_plan(const tfl_graph *g, const tfl_node *n, lay_copy *c, int64_t *off, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *b = cpu_in(g, n, 1), *sz = cpu_in(g, n, 2), *y = cpu_out(g, n, OUTPUT);
  const int nd = x->ndim;
  if ((int)tfl_tensor_count(b) != nd || (int)tfl_tensor_count(sz) != nd || y->ndim != nd)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "begin has %zu values, size %zu, output %d dims; input has %d dims",
                        tfl_tensor_count(b), tfl_tensor_count(sz), y->ndim, nd);
  int64_t xs[TFL_MAX_DIMS];
  lay_strides(x->dims, nd, xs);
  out_box(y, c);
  *off = 0;
  for (int d = 0; d < nd; d++) {
    int64_t b0 = lay_index(b, (size_t)d), s0 = lay_index(sz, (size_t)d), dim = x->dims[d];
    if (s0 == -1) s0 = dim - b0; /* -1: to the end */
    if (b0 >= 0 && b0 <= dim && s0 > dim - b0) s0 = dim - b0; /* TFLite clamps a size past the end */
    if (b0 < 0 || b0 > dim || s0 < 0)
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "dim %d: begin %lld, size %lld outside its %lld values", d,
                          (long long)b0, (long long)lay_index(sz, (size_t)d), (long long)dim);
    if (s0 != y->dims[d])
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "dim %d: slice of %lld, output has %d", d, (long long)s0,
                          y->dims[d]);
    c->ss[d] = xs[d] * (int64_t)c->es;
    *off += b0 * c->ss[d];
  }
  return TFL_OK;
}

static tfl_status slice_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = lay_check_types(g, n, x, y, LAY_ALL_TYPES, diag)) ||
      (s = lay_check_index(g, n, cpu_in(g, n, 1), "begin", TFL_MAX_DIMS, diag)) ||
      (s = lay_check_index(g, n, cpu_in(g, n, 2), "size", TFL_MAX_DIMS, diag)))
    return s;
  return copy_prepare(g, n, state, is_const(cpu_in(g, n, 1)) && is_const(cpu_in(g, n, 2)), slice_plan, diag);
}

static tfl_status slice_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  return copy_eval(g, n, state, slice_plan, ctx, diag);
}

/* ---- TILE: output dim d seen as [multiple, input dim]; the multiple has source stride 0 ---- */

static tfl_status tile_plan(const tfl_graph *g, const tfl_node *n, lay_copy *c, int64_t *off, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *m = cpu_in(g, n, PARAM), *y = cpu_out(g, n, OUTPUT);
  const int nd = x->ndim;
  if ((int)tfl_tensor_count(m) != nd || y->ndim != nd)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "multiples has %zu values, output %d dims; input has %d dims",
                        tfl_tensor_count(m), y->ndim, nd);
  int64_t xs[TFL_MAX_DIMS], ys[TFL_MAX_DIMS];
  lay_strides(x->dims, nd, xs);
  lay_strides(y->dims, nd, ys);
  const int64_t es = (int64_t)tfl_type_size(x->type);
  c->es = (size_t)es;
  c->nd = 2 * nd;
  for (int d = 0; d < nd; d++) {
    int64_t k = lay_index(m, (size_t)d);
    if (k < 0 || k > INT32_MAX || k * x->dims[d] != y->dims[d])
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "multiples[%d] is %lld: input dim %d, output dim %d", d,
                          (long long)k, x->dims[d], y->dims[d]);
    c->count[2 * d] = k;
    c->ss[2 * d] = 0;
    c->ds[2 * d] = (int64_t)x->dims[d] * ys[d] * es;
    c->count[2 * d + 1] = x->dims[d];
    c->ss[2 * d + 1] = xs[d] * es;
    c->ds[2 * d + 1] = ys[d] * es;
  }
  *off = 0;
  return TFL_OK;
}

static tfl_status tile_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = lay_check_types(g, n, x, y, LAY_ALL_TYPES, diag)) ||
      (s = lay_check_index(g, n, cpu_in(g, n, PARAM), "multiples", TFL_MAX_DIMS, diag)))
    return s;
  return copy_prepare(g, n, state, is_const(cpu_in(g, n, PARAM)), tile_plan, diag);
}

static tfl_status tile_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  return copy_eval(g, n, state, tile_plan, ctx, diag);
}

/* ---- BROADCAST_TO: broadcast dims have source stride 0 ---- */

static tfl_status broadcast_plan(const tfl_graph *g, const tfl_node *n, lay_copy *c, int64_t *off, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *sh = cpu_in(g, n, PARAM), *y = cpu_out(g, n, OUTPUT);
  const int nd = y->ndim, lead = nd - x->ndim;
  if ((int)tfl_tensor_count(sh) != nd || lead < 0)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "shape has %zu values, output %d dims, input %d dims",
                        tfl_tensor_count(sh), nd, x->ndim);
  int64_t xs[TFL_MAX_DIMS];
  lay_strides(x->dims, x->ndim, xs);
  out_box(y, c);
  for (int d = 0; d < nd; d++) {
    int64_t want = lay_index(sh, (size_t)d);
    int xd = d - lead;
    int32_t in = xd >= 0 ? x->dims[xd] : 1;
    if (want != y->dims[d] || (in != 1 && in != want))
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "shape[%d] is %lld: input dim %d, output dim %d", d,
                          (long long)want, (int)in, y->dims[d]);
    c->ss[d] = (in == 1 ? 0 : xs[xd]) * (int64_t)c->es;
  }
  *off = 0;
  return TFL_OK;
}

static tfl_status broadcast_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = lay_check_types(g, n, x, y, LAY_ALL_TYPES, diag)) ||
      (s = lay_check_index(g, n, cpu_in(g, n, PARAM), "shape", TFL_MAX_DIMS, diag)))
    return s;
  return copy_prepare(g, n, state, is_const(cpu_in(g, n, PARAM)), broadcast_plan, diag);
}

static tfl_status broadcast_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  return copy_eval(g, n, state, broadcast_plan, ctx, diag);
}

/* ---- REVERSE_V2: reversed dims start at their last element with a negative stride ---- */

static tfl_status reverse_plan(const tfl_graph *g, const tfl_node *n, lay_copy *c, int64_t *off, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *ax = cpu_in(g, n, PARAM), *y = cpu_out(g, n, OUTPUT);
  const int nd = x->ndim;
  if (y->ndim != nd || memcmp(x->dims, y->dims, sizeof(int32_t) * (size_t)nd))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output shape differs from the input's (%d dims)", nd);
  int64_t xs[TFL_MAX_DIMS];
  bool rev[TFL_MAX_DIMS] = {false};
  lay_strides(x->dims, nd, xs);
  out_box(y, c);
  size_t na = tfl_tensor_count(ax);
  for (size_t i = 0; i < na; i++) {
    int64_t a = lay_index(ax, i), r = a < 0 ? a + nd : a;
    if (r < 0 || r >= nd || rev[r])
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "axis[%zu] is %lld: out of range or repeated for %d dims", i,
                          (long long)a, nd);
    rev[r] = true;
  }
  /* TFLite reverses one run of adjacent axes only */
  int first = -1, last = -1;
  for (int d = 0; d < nd; d++)
    if (rev[d]) {
      if (first < 0) first = d;
      last = d;
    }
  for (int d = first; first >= 0 && d <= last; d++)
    if (!rev[d])
      return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "axes %d..%d skip dim %d: TFLite takes contiguous axes only",
                          first, last, d);
  *off = 0;
  for (int d = 0; d < nd; d++) {
    c->ss[d] = xs[d] * (int64_t)c->es;
    if (rev[d]) {
      *off += (int64_t)(x->dims[d] - 1) * c->ss[d];
      c->ss[d] = -c->ss[d];
    }
  }
  return TFL_OK;
}

static tfl_status reverse_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT), *ax = cpu_in(g, n, PARAM);
  tfl_status s;
  if ((s = lay_check_types(g, n, x, y, LAY_ALL_TYPES, diag)) ||
      (s = lay_check_index(g, n, ax, "axis", TFL_MAX_DIMS, diag)))
    return s;
  if (ax->ndim != 1) return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "axis has %d dims, expected 1", ax->ndim);
  return copy_prepare(g, n, state, is_const(ax), reverse_plan, diag);
}

static tfl_status reverse_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  return copy_eval(g, n, state, reverse_plan, ctx, diag);
}

/* ---- EXPAND_DIMS: the bytes do not change ---- */

static tfl_status expand_dims_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT), *ax = cpu_in(g, n, PARAM);
  tfl_status s;
  (void)state;
  if ((s = lay_check_types(g, n, x, y, LAY_ALL_TYPES, diag)) || (s = lay_check_index(g, n, ax, "axis", 1, diag)))
    return s;
  if (tfl_tensor_count(ax) != 1)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "axis has %zu values, expected 1", tfl_tensor_count(ax));
  if (y->ndim != x->ndim + 1 || tfl_tensor_count(x) != tfl_tensor_count(y))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output has %d dims and %zu elements, input %d and %zu", y->ndim,
                        tfl_tensor_count(y), x->ndim, tfl_tensor_count(x));
  if (is_const(ax)) {
    int64_t a = lay_index(ax, 0), r = a < 0 ? a + x->ndim + 1 : a;
    if (r < 0 || r > x->ndim || y->dims[r] != 1)
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "axis %lld: out of range for %d dims or output dim not 1",
                          (long long)a, x->ndim);
  }
  return TFL_OK;
}

static tfl_status expand_dims_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  (void)state;
  (void)ctx;
  (void)diag;
  if (x->data != y->data) memmove(y->data, x->data, y->bytes);
  return TFL_OK;
}

/* ---- part ops: SPLIT, SPLIT_V, UNPACK (one input, n outputs) and PACK (n inputs, one output) ---- */

typedef struct {
  bool pack;           /* parts are inputs, the big tensor the output */
  int big_pos;         /* big tensor's input (or output) position */
  int first_part, n_parts;
  int axis;            /* -1: checked at eval (SPLIT, SPLIT_V with a computed axis or size_splits) */
  int axis_input;      /* SPLIT, SPLIT_V: the axis tensor's input position, else -1 */
  size_t es;
} parts_state;

static const tfl_tensor *part_tensor(const tfl_graph *g, const tfl_node *n, const parts_state *st, int p)
{
  return st->pack ? cpu_in(g, n, st->first_part + p) : cpu_out(g, n, st->first_part + p);
}

static const tfl_tensor *big_tensor(const tfl_graph *g, const tfl_node *n, const parts_state *st)
{
  return st->pack ? cpu_out(g, n, st->big_pos) : cpu_in(g, n, st->big_pos);
}

/* The axis and the check that the parts tile the big tensor along it. */
static tfl_status parts_axis(const tfl_graph *g, const tfl_node *n, const parts_state *st, int *axis_out,
                             tfl_diag *diag)
{
  const tfl_tensor *big = big_tensor(g, n, st);
  const bool split = st->axis_input >= 0;
  int64_t a = st->axis;
  if (st->axis < 0) {
    const tfl_tensor *at = cpu_in(g, n, st->axis_input);
    if (tfl_tensor_count(at) != 1)
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "axis has %zu values, expected 1", tfl_tensor_count(at));
    a = ((const int32_t *)at->data)[0];
    if (a < 0) a += big->ndim;
    if (a < 0 || a >= big->ndim)
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "axis %d out of range for %d dims",
                          (int)((const int32_t *)at->data)[0], big->ndim);
  }
  int64_t sum = 0;
  for (int p = 0; p < st->n_parts; p++) {
    const tfl_tensor *t = part_tensor(g, n, st, p);
    bool ok = t && t->ndim == big->ndim - (split ? 0 : 1);
    for (int d = 0, k = 0; ok && d < big->ndim; d++) {
      if (d == a && !split) continue;
      if (d != a && t->dims[k] != big->dims[d]) ok = false;
      k++;
    }
    if (!ok)
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%s %d's shape does not fit %s along axis %d",
                          st->pack ? "input" : "output", st->first_part + p, st->pack ? "the output" : "the input",
                          (int)a);
    /* SPLIT_V: each output takes its size_splits entry (the one -1 takes the rest) */
    const tfl_tensor *sz = n->op == TFL_OP_SPLIT_V ? cpu_in(g, n, 1) : NULL;
    if (sz && lay_index(sz, (size_t)p) != -1 && lay_index(sz, (size_t)p) != t->dims[a])
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "size_splits[%d] is %lld, output %d has %d along axis %d", p,
                          (long long)lay_index(sz, (size_t)p), p, t->dims[a], (int)a);
    sum += split ? t->dims[a] : 1;
  }
  if (sum != big->dims[a])
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "parts cover %lld of the %d values along axis %d", (long long)sum,
                        big->dims[a], (int)a);
  *axis_out = (int)a;
  return TFL_OK;
}

static tfl_status parts_prepare(const tfl_graph *g, const tfl_node *n, void **state, parts_state *init,
                                tfl_diag *diag)
{
  const tfl_tensor *big = big_tensor(g, n, init);
  tfl_status s;
  for (int p = 0; p < init->n_parts; p++) {
    const tfl_tensor *t = part_tensor(g, n, init, p);
    const tfl_tensor *x = init->pack ? t : big, *y = init->pack ? big : t;
    if ((s = cpu_check_tensor(g, n, t, init->pack ? "input" : "output", -1, diag))) return s;
    if (x->type != y->type)
      return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s %d is %s, %s is %s: types differ",
                          init->pack ? "input" : "output", init->first_part + p, tfl_type_name(t->type),
                          init->pack ? "the output" : "the input", tfl_type_name(big->type));
    if ((n->op == TFL_OP_PACK || n->op == TFL_OP_UNPACK) &&
        (s = lay_check_same_quant(g, n, x, y, init->pack ? "an input" : "the input", diag)))
      return s;
  }
  init->es = tfl_type_size(big->type);
  const bool sizes_const = n->op != TFL_OP_SPLIT_V || is_const(cpu_in(g, n, 1));
  if (init->axis >= 0 || (init->axis_input >= 0 && is_const(cpu_in(g, n, init->axis_input)) && sizes_const)) {
    int a;
    if ((s = parts_axis(g, n, init, &a, diag))) return s;
    init->axis = a;
  }
  parts_state *st = malloc(sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "%s state", tfl_op_name(n->op));
  *st = *init;
  *state = st;
  return TFL_OK;
}

static tfl_status parts_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const parts_state *st = state;
  const tfl_tensor *big = big_tensor(g, n, st);
  int axis = st->axis;
  (void)ctx;
  if (axis < 0) {
    tfl_status s = parts_axis(g, n, st, &axis, diag);
    if (s) return s;
  }
  size_t outer = 1, inner = st->es;
  for (int d = 0; d < axis; d++) outer *= (size_t)big->dims[d];
  for (int d = axis + 1; d < big->ndim; d++) inner *= (size_t)big->dims[d];
  const size_t big_row = (size_t)big->dims[axis] * inner;
  size_t at = 0; /* byte offset of the part's first slice within a big row */
  for (int p = 0; p < st->n_parts; p++) {
    const tfl_tensor *t = part_tensor(g, n, st, p);
    const size_t run = (st->axis_input >= 0 ? (size_t)t->dims[axis] : 1) * inner;
    uint8_t *pd = t->data, *bd = big->data;
    for (size_t o = 0; o < outer; o++) {
      if (st->pack) memcpy(bd + o * big_row + at, pd + o * run, run);
      else memcpy(pd + o * run, bd + o * big_row + at, run);
    }
    at += run;
  }
  return TFL_OK;
}

static tfl_status split_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const bool v = n->op == TFL_OP_SPLIT_V;
  const tfl_tensor *x = cpu_in(g, n, v ? 0 : 1), *at = cpu_in(g, n, v ? 2 : 0);
  tfl_status s;
  if ((s = lay_check_types(g, n, x, cpu_out(g, n, 0), TYPES_SPLIT, diag))) return s;
  if ((s = cpu_check_tensor(g, n, at, "axis", -1, diag))) return s;
  if (at->type != TFL_TYPE_INT32 || tfl_tensor_count(at) != 1)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "axis is %s with %zu values, expected one int32",
                        tfl_type_name(at->type), tfl_tensor_count(at));
  if (n->n_out != n->p.split.num_splits)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%d outputs, num_splits is %d", n->n_out, n->p.split.num_splits);
  if (v) {
    const tfl_tensor *sz = cpu_in(g, n, 1);
    if ((s = lay_check_index(g, n, sz, "size_splits", n->n_out, diag))) return s;
    if (sz->ndim != 1 || (int)tfl_tensor_count(sz) != n->n_out)
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "size_splits has %zu values, node has %d outputs",
                          tfl_tensor_count(sz), n->n_out);
  }
  /* the part sizes are the outputs' dims (shape inference resolved size_splits) */
  parts_state init = {false, v ? 0 : 1, 0, n->n_out, -1, v ? 2 : 0, 0};
  return parts_prepare(g, n, state, &init, diag);
}

static tfl_status pack_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  const bool pack = n->op == TFL_OP_PACK;
  const uint32_t types = pack ? TYPES_SPLIT : TYPES_UNPACK;
  tfl_status s;
  if ((s = lay_check_types(g, n, x, pack ? y : cpu_out(g, n, 0), types, diag))) return s;
  const int parts = pack ? n->n_in : n->n_out;
  if (n->p.pack.count != parts)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%s %d, node has %d %s", pack ? "values_count" : "num",
                        n->p.pack.count, parts, pack ? "inputs" : "outputs");
  const int rank = pack ? y->ndim : x->ndim;
  int axis = n->p.pack.axis < 0 ? n->p.pack.axis + rank : n->p.pack.axis;
  if (axis < 0 || axis >= rank)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "axis %d out of range for %d dims", n->p.pack.axis, rank);
  parts_state init = {pack, 0, 0, parts, axis, -1, 0};
  return parts_prepare(g, n, state, &init, diag);
}

const cpu_kernel cpu_k_transpose = {transpose_prepare, transpose_eval, release, LAY_ALL_TYPES, 0};
const cpu_kernel cpu_k_slice = {slice_prepare, slice_eval, release, LAY_ALL_TYPES, 0};
const cpu_kernel cpu_k_split = {split_prepare, parts_eval, release, TYPES_SPLIT, 1};
const cpu_kernel cpu_k_split_v = {split_prepare, parts_eval, release, TYPES_SPLIT, 0};
const cpu_kernel cpu_k_pack = {pack_prepare, parts_eval, release, TYPES_SPLIT, 0};
const cpu_kernel cpu_k_unpack = {pack_prepare, parts_eval, release, TYPES_UNPACK, 0};
const cpu_kernel cpu_k_tile = {tile_prepare, tile_eval, release, LAY_ALL_TYPES, 0};
const cpu_kernel cpu_k_broadcast_to = {broadcast_prepare, broadcast_eval, release, LAY_ALL_TYPES, 0};
const cpu_kernel cpu_k_expand_dims = {expand_dims_prepare, expand_dims_eval, NULL, LAY_ALL_TYPES, 0};
const cpu_kernel cpu_k_reverse_v2 = {reverse_prepare, reverse_eval, release, LAY_ALL_TYPES, 0};
