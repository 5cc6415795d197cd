/* tfl_fold_ints.c - shape arithmetic folded at prepare time (tfl_passes.h).
 *
 * Exported graphs (PyTorch through ai-edge-torch, TensorFlow with an unknown batch) compute
 * a RESHAPE's target at run time: SHAPE -> STRIDED_SLICE / GATHER -> PACK / CONCATENATION
 * -> RESHAPE. Our shapes are fixed once inferred, so those values are constants: this pass
 * evaluates them with a tiny integer evaluator (int32 / int64 vectors of at most MAX_VALUES
 * elements) and turns each result into a graph-owned constant, the node dead, as
 * tfl_fold.c does. The RESHAPE then sees a constant shape and shape inference checks it.
 *
 * Folded: SHAPE (any input whose shape is known), and, with constant integer inputs,
 * STRIDED_SLICE and SLICE of a vector, GATHER from a vector, PACK of scalars or vectors,
 * CONCATENATION of vectors, ADD / SUB / MUL (no fused activation; equal shapes or one
 * single value), SUM / REDUCE_PROD / REDUCE_MAX / REDUCE_MIN of a scalar or vector (Keras'
 * Flatten/Dense on a batch of unknown size multiplies the kept dims: SHAPE -> GATHER ->
 * REDUCE_PROD -> PACK -> RESHAPE), CAST between int32 and int64, SQUEEZE, EXPAND_DIMS and RESHAPE. Anything
 * else, or anything out of range (an index, a value that does not fit int32), is left to
 * the op's kernel, which reports it; a graph output is never folded (its bytes are the
 * caller's to read from the arena). Semantics: TFLite's kernels (strided_slice_logic.h's
 * clamping of begin and end).
 */
#include "tfl_passes.h"

#include <string.h>

#define MAX_VALUES 256

typedef struct {
  int ndim;
  int32_t dims[TFL_MAX_DIMS];
  int count;
  int64_t v[MAX_VALUES];
} ints;

/* A constant int32/int64 tensor's values; false for anything else. */
static bool const_ints(const tfl_graph *g, int ti, ints *out)
{
  if (ti < 0 || ti >= g->n_tensors) return false;
  const tfl_tensor *t = &g->tensors[ti];
  if (!t->is_const || !t->data || t->sparsity || t->q.n) return false;
  if (t->type != TFL_TYPE_INT32 && t->type != TFL_TYPE_INT64) return false;
  size_t n = tfl_tensor_count(t);
  if (n > MAX_VALUES) return false;
  out->ndim = t->ndim;
  memcpy(out->dims, t->dims, sizeof(int32_t) * (size_t)t->ndim);
  out->count = (int)n;
  for (size_t i = 0; i < n; i++)
    out->v[i] = t->type == TFL_TYPE_INT64 ? ((const int64_t *)t->data)[i] : ((const int32_t *)t->data)[i];
  return true;
}

/* One value of a constant int tensor with exactly one element. */
static bool const_scalar(const tfl_graph *g, const tfl_node *n, int k, int64_t *v)
{
  ints a;
  if (k >= n->n_in || !const_ints(g, n->in[k], &a) || a.count != 1) return false;
  *v = a.v[0];
  return true;
}

static bool is_graph_output(const tfl_graph *g, int ti)
{
  for (int i = 0; i < g->n_outputs; i++)
    if (g->outputs[i] == ti) return true;
  return false;
}

/* 1-D STRIDED_SLICE as TFLite clamps it: begin and end wrap once when negative, then are
 * clamped to [0, n] (stride > 0) or [-1, n-1] (stride < 0); masks take the whole range. */
static bool strided_slice_1d(const tfl_graph *g, const tfl_node *n, const ints *x, ints *r)
{
  const tfl_strided_slice_params *p = &n->p.slice;
  int64_t b, e, s;
  if (x->ndim != 1 || p->ellipsis_mask || p->new_axis_mask || ((p->begin_mask | p->end_mask | p->shrink_axis_mask) & ~1))
    return false;
  if (!const_scalar(g, n, 1, &b) || !const_scalar(g, n, 2, &e) || !const_scalar(g, n, 3, &s) || s == 0)
    return false;
  const int64_t len = x->count;
  if (p->shrink_axis_mask & 1) {
    /* one element, the dimension dropped */
    if (b < 0) b += len;
    if (b < 0 || b >= len) return false;
    r->ndim = 0;
    r->count = 1;
    r->v[0] = x->v[b];
    return true;
  }
  if (p->offset) e += b;
  const int64_t lo = s > 0 ? 0 : -1, hi = s > 0 ? len : len - 1;
  if (p->begin_mask & 1) {
    b = s > 0 ? 0 : len - 1;
  } else {
    if (b < 0) b += len;
    b = b < lo ? lo : b > hi ? hi : b;
  }
  if (p->end_mask & 1) {
    e = s > 0 ? len : -1;
  } else {
    if (e < 0) e += len;
    e = e < lo ? lo : e > hi ? hi : e;
  }
  r->count = 0;
  for (int64_t i = b; s > 0 ? i < e : i > e; i += s) r->v[r->count++] = x->v[i];
  r->ndim = 1;
  r->dims[0] = r->count;
  return true;
}

static bool slice_1d(const tfl_graph *g, const tfl_node *n, const ints *x, ints *r)
{
  int64_t b, size;
  if (x->ndim != 1 || !const_scalar(g, n, 1, &b) || !const_scalar(g, n, 2, &size)) return false;
  if (size == -1) size = x->count - b;
  if (b < 0 || size < 0 || b > x->count || size > x->count - b) return false;
  r->ndim = 1;
  r->dims[0] = r->count = (int)size;
  for (int64_t i = 0; i < size; i++) r->v[i] = x->v[b + i];
  return true;
}

static bool gather_1d(const tfl_graph *g, const tfl_node *n, const ints *x, ints *r)
{
  const tfl_gather_params *p = &n->p.gather;
  if (x->ndim != 1 || (p->axis != 0 && p->axis != -1) || p->batch_dims != 0) return false;
  if (n->n_in < 2 || !const_ints(g, n->in[1], r)) return false;
  for (int i = 0; i < r->count; i++) {
    if (r->v[i] < 0 || r->v[i] >= x->count) return false; /* the kernel names the bad index */
    r->v[i] = x->v[r->v[i]];
  }
  return true; /* the indices' shape */
}

/* PACK of N scalars or N vectors of k along axis 0 or 1. */
static bool pack(const tfl_graph *g, const tfl_node *n, ints *r)
{
  ints a;
  int N = n->n_in, k = -1, rank = -1;
  if (N < 1 || N > MAX_VALUES) return false;
  int axis = n->p.pack.axis;
  for (int i = 0; i < N; i++) {
    if (!const_ints(g, n->in[i], &a) || a.ndim > 1) return false;
    if (i == 0) {
      rank = a.ndim;
      k = a.count;
      if (axis < 0) axis += rank + 1;
      if (axis < 0 || axis > rank || (int64_t)N * k > MAX_VALUES) return false;
    } else if (a.ndim != rank || a.count != k) {
      return false;
    }
    for (int j = 0; j < k; j++) r->v[axis == 0 ? i * k + j : j * N + i] = a.v[j];
  }
  r->ndim = rank + 1;
  r->dims[0] = axis == 0 ? N : k;
  if (rank == 1) r->dims[1] = axis == 0 ? k : N;
  r->count = N * k;
  return true;
}

static bool concat_1d(const tfl_graph *g, const tfl_node *n, ints *r)
{
  if ((n->p.concat.axis != 0 && n->p.concat.axis != -1) || n->p.concat.act != TFL_ACT_NONE) return false;
  ints a;
  r->count = 0;
  for (int i = 0; i < n->n_in; i++) {
    if (!const_ints(g, n->in[i], &a) || a.ndim != 1 || r->count + a.count > MAX_VALUES) return false;
    memcpy(r->v + r->count, a.v, sizeof(int64_t) * (size_t)a.count);
    r->count += a.count;
  }
  r->ndim = 1;
  r->dims[0] = r->count;
  return n->n_in > 0;
}

static bool arith(const tfl_graph *g, const tfl_node *n, ints *r)
{
  ints a, b;
  if (n->p.eltwise.act != TFL_ACT_NONE || n->n_in != 2) return false;
  if (!const_ints(g, n->in[0], &a) || !const_ints(g, n->in[1], &b)) return false;
  const ints *big = a.count >= b.count ? &a : &b;
  bool same = a.ndim == b.ndim && !memcmp(a.dims, b.dims, sizeof(int32_t) * (size_t)a.ndim);
  if (!same && a.count != 1 && b.count != 1) return false;
  r->ndim = big->ndim;
  memcpy(r->dims, big->dims, sizeof r->dims);
  r->count = big->count;
  for (int i = 0; i < r->count; i++) {
    /* operands within +-2^31 keep every result exact in int64 (a product stays under
     * 2^62); shape values never come near, larger ones are left to the kernel */
    int64_t x = a.v[a.count == 1 ? 0 : i], y = b.v[b.count == 1 ? 0 : i];
    const int64_t lim = INT64_C(1) << 31;
    if (x > lim || x < -lim || y > lim || y < -lim) return false;
    r->v[i] = n->op == TFL_OP_ADD ? x + y : n->op == TFL_OP_SUB ? x - y : x * y;
  }
  return true;
}

/* SUM / REDUCE_PROD / REDUCE_MAX / REDUCE_MIN of a rank-0 or rank-1 constant over constant
 * axes (tfl_reduce_axes.h: a rank-0 input ignores them). The kernels accumulate in the
 * tensor's own type, so a result that fits int32 is the same whatever the wrap-around on
 * the way; operands and partial results beyond +-2^31 are left to the kernel. */
static bool reduce_1d(const tfl_graph *g, const tfl_node *n, ints *r)
{
  ints x, axes;
  if (n->n_in != 2 || !const_ints(g, n->in[0], &x) || x.ndim > 1 || !const_ints(g, n->in[1], &axes)) return false;
  bool red = false;
  if (x.ndim == 1)
    for (int i = 0; i < axes.count; i++) {
      if (axes.v[i] != 0 && axes.v[i] != -1) return false; /* the kernel names the bad axis */
      red = true;
    }
  if (!red) { /* nothing reduced: the values, same shape */
    *r = x;
    return true;
  }
  const bool is_max = n->op == TFL_OP_REDUCE_MAX, is_min = n->op == TFL_OP_REDUCE_MIN;
  if ((is_max || is_min) && x.count == 0) return false; /* the kernel's lowest/highest value */
  const int64_t lim = INT64_C(1) << 31;
  int64_t acc = n->op == TFL_OP_REDUCE_PROD ? 1 : n->op == TFL_OP_SUM ? 0 : x.v[0];
  for (int i = 0; i < x.count; i++) {
    const int64_t v = x.v[i];
    if (v > lim || v < -lim || acc > lim || acc < -lim) return false;
    if (n->op == TFL_OP_REDUCE_PROD) acc *= v;
    else if (n->op == TFL_OP_SUM) acc += v;
    else if (is_max) acc = v > acc ? v : acc;
    else acc = v < acc ? v : acc;
  }
  r->count = 1;
  r->v[0] = acc;
  r->ndim = n->p.reducer.keep_dims ? 1 : 0;
  r->dims[0] = 1;
  return true;
}

/* The values node n computes, when this pass can; their shape in r (ndim -1: take the
 * output's inferred shape, the op only moves values). */
static bool evaluate(const tfl_graph *g, const tfl_node *n, ints *r)
{
  ints x;
  switch (n->op) {
  case TFL_OP_SHAPE: {
    const tfl_tensor *t = n->n_in >= 1 && n->in[0] >= 0 ? &g->tensors[n->in[0]] : NULL;
    if (!t) return false;
    r->ndim = 1;
    r->dims[0] = r->count = t->ndim;
    for (int d = 0; d < t->ndim; d++) r->v[d] = t->dims[d];
    return true;
  }
  case TFL_OP_STRIDED_SLICE: return n->n_in == 4 && const_ints(g, n->in[0], &x) && strided_slice_1d(g, n, &x, r);
  case TFL_OP_SLICE: return n->n_in == 3 && const_ints(g, n->in[0], &x) && slice_1d(g, n, &x, r);
  case TFL_OP_GATHER: return n->n_in >= 1 && const_ints(g, n->in[0], &x) && gather_1d(g, n, &x, r);
  case TFL_OP_PACK: return pack(g, n, r);
  case TFL_OP_CONCATENATION: return concat_1d(g, n, r);
  case TFL_OP_ADD:
  case TFL_OP_SUB:
  case TFL_OP_MUL: return arith(g, n, r);
  case TFL_OP_SUM:
  case TFL_OP_REDUCE_PROD:
  case TFL_OP_REDUCE_MAX:
  case TFL_OP_REDUCE_MIN: return reduce_1d(g, n, r);
  case TFL_OP_CAST:
  case TFL_OP_SQUEEZE:
  case TFL_OP_EXPAND_DIMS:
  case TFL_OP_RESHAPE:
    if (n->n_in < 1 || !const_ints(g, n->in[0], r)) return false;
    r->ndim = -1;
    return true;
  default: return false;
  }
}

bool tfl_fold_shape_int_node(tfl_graph *g, int ni, tfl_diag *diag)
{
  ints r;
  if (ni < 0 || ni >= g->n_nodes) return false;
  tfl_node *n = &g->nodes[ni];
  if (n->dead || n->n_out != 1 || n->out[0] < 0 || n->out[0] >= g->n_tensors) return false;
  tfl_tensor *y = &g->tensors[n->out[0]];
  if ((y->type != TFL_TYPE_INT32 && y->type != TFL_TYPE_INT64) || y->q.n || y->is_variable ||
      is_graph_output(g, n->out[0]))
    return false;
  if (n->op == TFL_OP_SHAPE && n->p.shape.out_type != y->type) return false;
  if (!evaluate(g, n, &r)) return false;
  if (r.ndim < 0) {
    /* a move of values: the output's inferred shape, same count */
    if (tfl_tensor_count(y) != (size_t)r.count) return false;
  } else if (y->ndim == 0 && r.ndim > 0) {
    y->ndim = r.ndim; /* no shape in the file */
    memcpy(y->dims, r.dims, sizeof(int32_t) * (size_t)r.ndim);
    tfl_tensor_update_bytes(y);
  } else if (y->ndim != r.ndim || memcmp(y->dims, r.dims, sizeof(int32_t) * (size_t)r.ndim)) {
    return false; /* shape inference or the kernel names the mismatch */
  }
  bool fits = true;
  for (int i = 0; i < r.count && fits; i++) fits = y->type == TFL_TYPE_INT64 || (r.v[i] >= INT32_MIN && r.v[i] <= INT32_MAX);
  if (!fits) return false;
  void *data = tfl_graph_alloc(g, y->bytes);
  if (!data) {
    tfl_logf(diag, TFL_LOG_WARNING, "node %d (%s): no memory to fold its %zu bytes; it runs instead", ni,
             tfl_op_name(n->op), y->bytes);
    return false;
  }
  for (int i = 0; i < r.count; i++) {
    if (y->type == TFL_TYPE_INT64) ((int64_t *)data)[i] = r.v[i];
    else ((int32_t *)data)[i] = (int32_t)r.v[i];
  }
  y->data = data;
  y->is_const = true;
  y->producer = -1;
  n->dead = true;
  return true;
}

int tfl_pass_fold_shape_ints(tfl_graph *g, tfl_diag *diag)
{
  int folded = 0;
  for (int ni = 0; ni < g->n_nodes; ni++) folded += tfl_fold_shape_int_node(g, ni, diag);
  return folded;
}
