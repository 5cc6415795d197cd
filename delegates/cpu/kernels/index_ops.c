/* index_ops.c - GATHER, GATHER_ND, SCATTER_ND and EMBEDDING_LOOKUP as TFLite computes
 * them. Data moves as raw elements of any of float32, int8, uint8, int16, int32, int64 and
 * bool (quantized tensors keep their codes, as in TFLite, whatever the output's scale);
 * EMBEDDING_LOOKUP also takes 8-bit values with a float32 output (TFLite's hybrid path).
 *
 * Index values come from the tensor at eval (constant or not); an index outside its range
 * is a clean TFL_ERR_ARG naming the position and value, as TFLite's kernels fail the
 * invoke. GATHER checks each index against the axis, GATHER_ND and SCATTER_ND each
 * component of an index tuple against its dim (as LiteRT 2.3.0 does).
 */
#include "index_common.h"

enum { PARAMS = 0, INDICES = 1 };           /* GATHER, GATHER_ND */
enum { LOOKUP = 0, VALUE = 1 };             /* EMBEDDING_LOOKUP */
enum { OUTPUT = 0 };

typedef struct {
  size_t es;                     /* bytes per element */
  size_t batch, outer, inner, coords, axis_size; /* GATHER */
  int depth;                     /* GATHER_ND / SCATTER_ND: index tuple length */
  size_t slices, slice;          /* tuples, elements per slice */
  int64_t stride[TFL_MAX_DIMS];  /* elements per step of each indexed dim */
  int64_t dim[TFL_MAX_DIMS];     /* size of each indexed dim */
  bool hybrid;                   /* EMBEDDING_LOOKUP: 8-bit rows to float32 */
  size_t rows;
} gather_state;

static void release(void *state)
{
  free(state);
}

static tfl_status alloc_state(gather_state **st, void **state, tfl_diag *diag)
{
  *st = calloc(1, sizeof **st);
  if (!*st) return tfl_fail(diag, TFL_ERR_NOMEM, "gather state");
  *state = *st;
  return TFL_OK;
}

static size_t prod(const int32_t *d, int from, int to)
{
  size_t p = 1;
  for (int i = from; i < to; i++) p *= (size_t)d[i];
  return p;
}

/* ---- GATHER ------------------------------------------------------------------------ */

static tfl_status gather_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, PARAMS), *idx = cpu_in(g, n, INDICES), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "params", -1, diag)) || (s = cpu_check_tensor(g, n, idx, "indices", -1, diag)) ||
      (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  if (!idx_copy_type(x->type)) return idx_unsupported_type(g, n, "params", x->type, diag);
  if (!idx_type_ok(idx->type, true)) return idx_unsupported_type(g, n, "indices", idx->type, diag);
  if ((s = idx_same_storage(g, n, x, "params", y, "output", diag))) return s;
  int axis = n->p.gather.axis, bd = n->p.gather.batch_dims;
  if (axis < 0) axis += x->ndim;
  if (bd < 0) bd += idx->ndim;
  if (axis < 0 || axis >= x->ndim)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "axis %d outside params of %d dims", n->p.gather.axis, x->ndim);
  if (bd < 0 || bd > axis || bd > idx->ndim)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "batch_dims %d (axis %d, indices of %d dims)",
                        n->p.gather.batch_dims, axis, idx->ndim);
  int64_t d[2 * TFL_MAX_DIMS];
  int nd = 0;
  for (int i = 0; i < bd; i++)
    if (x->dims[i] != idx->dims[i])
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "batch dim %d: params %d, indices %d", i, x->dims[i],
                          idx->dims[i]);
  for (int i = 0; i < axis; i++) d[nd++] = x->dims[i];
  for (int i = bd; i < idx->ndim; i++) d[nd++] = idx->dims[i];
  for (int i = axis + 1; i < x->ndim; i++) d[nd++] = x->dims[i];
  if ((s = idx_check_shape(g, n, y, "output", d, nd, diag))) return s;
  gather_state *st;
  if ((s = alloc_state(&st, state, diag))) return s;
  st->es = tfl_type_size(x->type);
  st->batch = prod(x->dims, 0, bd);
  st->outer = prod(x->dims, bd, axis);
  st->axis_size = (size_t)x->dims[axis];
  st->inner = prod(x->dims, axis + 1, x->ndim);
  st->coords = prod(idx->dims, bd, idx->ndim);
  return TFL_OK;
}

static tfl_status gather_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const gather_state *st = state;
  const tfl_tensor *x = cpu_in(g, n, PARAMS), *idx = cpu_in(g, n, INDICES), *y = cpu_out(g, n, OUTPUT);
  (void)ctx;
  const uint8_t *src = x->data;
  uint8_t *dst = y->data;
  size_t row = st->inner * st->es;
  for (size_t b = 0; b < st->batch; b++)
    for (size_t o = 0; o < st->outer; o++)
      for (size_t c = 0; c < st->coords; c++) {
        int64_t k = idx_get(idx, b * st->coords + c);
        if (k < 0 || (uint64_t)k >= st->axis_size)
          return CPU_NODE_ERR(diag, TFL_ERR_ARG, g, n, "index %lld at position %zu outside 0..%zu", (long long)k,
                              b * st->coords + c, st->axis_size - 1);
        memcpy(dst + ((b * st->outer + o) * st->coords + c) * row,
               src + ((b * st->outer + o) * st->axis_size + (size_t)k) * row, row);
      }
  return TFL_OK;
}

/* ---- GATHER_ND / SCATTER_ND ----------------------------------------------------------- */

/* Slices of `t` addressed by index tuples of length `depth`: strides of its first dims. */
static void nd_plan(gather_state *st, const tfl_tensor *t, const tfl_tensor *idx)
{
  st->depth = idx->dims[idx->ndim - 1];
  st->slices = prod(idx->dims, 0, idx->ndim - 1);
  st->slice = prod(t->dims, st->depth, t->ndim);
  for (int j = 0; j < st->depth; j++) {
    st->stride[j] = (int64_t)prod(t->dims, j + 1, t->ndim);
    st->dim[j] = t->dims[j];
  }
}

/* Flat element offset of tuple i, or -1 when a component falls outside its dim (LiteRT
 * checks each component: [0, 5] of a [3, 4] tensor fails though its flat offset fits). */
static int64_t nd_offset(const gather_state *st, const tfl_tensor *idx, size_t i)
{
  int64_t off = 0;
  for (int j = 0; j < st->depth; j++) {
    int64_t v = idx_get(idx, i * (size_t)st->depth + (size_t)j);
    if (v < 0 || v >= st->dim[j]) return -1;
    off += v * st->stride[j];
  }
  return off;
}

static tfl_status nd_index_error(const tfl_graph *g, const tfl_node *n, const gather_state *st, const tfl_tensor *idx,
                                 size_t i, tfl_diag *diag)
{
  char buf[160] = "";
  for (int j = 0; j < st->depth && strlen(buf) < 120; j++)
    snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%lld", j ? "," : "",
             (long long)idx_get(idx, i * (size_t)st->depth + (size_t)j));
  return CPU_NODE_ERR(diag, TFL_ERR_ARG, g, n, "index tuple %zu (%s) is out of bounds", i, buf);
}

static tfl_status gather_nd_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, PARAMS), *idx = cpu_in(g, n, INDICES), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "params", -1, diag)) || (s = cpu_check_tensor(g, n, idx, "indices", -1, diag)) ||
      (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  if (!idx_copy_type(x->type)) return idx_unsupported_type(g, n, "params", x->type, diag);
  if (!idx_type_ok(idx->type, true)) return idx_unsupported_type(g, n, "indices", idx->type, diag);
  if ((s = idx_same_storage(g, n, x, "params", y, "output", diag))) return s;
  if (x->ndim < 1 || idx->ndim < 1)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "params of %d dims, indices of %d: both need at least 1", x->ndim,
                        idx->ndim);
  int k = idx->dims[idx->ndim - 1];
  if (k > x->ndim) return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "index depth %d exceeds params rank %d", k, x->ndim);
  int64_t d[2 * TFL_MAX_DIMS];
  int nd = 0;
  for (int i = 0; i < idx->ndim - 1; i++) d[nd++] = idx->dims[i];
  for (int i = k; i < x->ndim; i++) d[nd++] = x->dims[i];
  if ((s = idx_check_shape(g, n, y, "output", d, nd, diag))) return s;
  gather_state *st;
  if ((s = alloc_state(&st, state, diag))) return s;
  st->es = tfl_type_size(x->type);
  nd_plan(st, x, idx);
  return TFL_OK;
}

static tfl_status gather_nd_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const gather_state *st = state;
  const tfl_tensor *x = cpu_in(g, n, PARAMS), *idx = cpu_in(g, n, INDICES), *y = cpu_out(g, n, OUTPUT);
  (void)ctx;
  size_t row = st->slice * st->es;
  for (size_t i = 0; i < st->slices; i++) {
    int64_t off = nd_offset(st, idx, i);
    if (off < 0) return nd_index_error(g, n, st, idx, i, diag);
    memcpy((uint8_t *)y->data + i * row, (const uint8_t *)x->data + (size_t)off * st->es, row);
  }
  return TFL_OK;
}

enum { SC_INDICES = 0, SC_UPDATES = 1, SC_SHAPE = 2 };

static tfl_status scatter_nd_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *idx = cpu_in(g, n, SC_INDICES), *up = cpu_in(g, n, SC_UPDATES), *sh = cpu_in(g, n, SC_SHAPE);
  const tfl_tensor *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, idx, "indices", -1, diag)) || (s = cpu_check_tensor(g, n, up, "updates", -1, diag)) ||
      (s = cpu_check_tensor(g, n, sh, "shape", 1, diag)) || (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  /* TFLite: int32 indices and shape, one of these update types */
  if (idx->type != TFL_TYPE_INT32) return idx_unsupported_type(g, n, "indices", idx->type, diag);
  if (sh->type != idx->type) return idx_unsupported_type(g, n, "shape", sh->type, diag);
  tfl_type t = up->type;
  if (t != TFL_TYPE_FLOAT32 && t != TFL_TYPE_UINT8 && t != TFL_TYPE_INT8 && t != TFL_TYPE_INT32 &&
      t != TFL_TYPE_INT64 && t != TFL_TYPE_BOOL)
    return idx_unsupported_type(g, n, "updates", t, diag);
  if ((s = idx_same_storage(g, n, up, "updates", y, "output", diag))) return s;
  if (idx->ndim < 1) return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "indices of %d dims, need at least 1", idx->ndim);
  if (sh->dims[0] != y->ndim)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "shape has %d values, output %d dims", sh->dims[0], y->ndim);
  if (sh->is_const) {
    int64_t d[TFL_MAX_DIMS];
    for (int i = 0; i < y->ndim; i++) d[i] = idx_get(sh, (size_t)i);
    if ((s = idx_check_shape(g, n, y, "output", d, y->ndim, diag))) return s;
  }
  int k = idx->dims[idx->ndim - 1];
  if (k > y->ndim) return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "index depth %d exceeds output rank %d", k, y->ndim);
  /* updates: indices' outer dims, then the output's dims past the index depth */
  int64_t d[2 * TFL_MAX_DIMS];
  int nd = 0;
  for (int i = 0; i < idx->ndim - 1; i++) d[nd++] = idx->dims[i];
  for (int i = k; i < y->ndim; i++) d[nd++] = y->dims[i];
  if ((s = idx_check_shape(g, n, up, "updates", d, nd, diag))) return s;
  gather_state *st;
  if ((s = alloc_state(&st, state, diag))) return s;
  st->es = tfl_type_size(t);
  nd_plan(st, y, idx);
  return TFL_OK;
}

/* dst[j] += src[j] for n elements of type t; integers wrap, bool ors */
static void scatter_add(tfl_type t, void *dst, const void *src, size_t n)
{
  switch (t) {
  case TFL_TYPE_FLOAT32:
    for (size_t j = 0; j < n; j++) ((float *)dst)[j] += ((const float *)src)[j];
    break;
  case TFL_TYPE_INT8:
    for (size_t j = 0; j < n; j++)
      ((int8_t *)dst)[j] = (int8_t)(uint8_t)((uint8_t)((int8_t *)dst)[j] + (uint8_t)((const int8_t *)src)[j]);
    break;
  case TFL_TYPE_UINT8:
    for (size_t j = 0; j < n; j++) ((uint8_t *)dst)[j] = (uint8_t)(((uint8_t *)dst)[j] + ((const uint8_t *)src)[j]);
    break;
  case TFL_TYPE_INT32:
    for (size_t j = 0; j < n; j++) ((int32_t *)dst)[j] = cpu_wrap_add(((int32_t *)dst)[j], ((const int32_t *)src)[j]);
    break;
  case TFL_TYPE_INT64:
    for (size_t j = 0; j < n; j++)
      ((int64_t *)dst)[j] = (int64_t)((uint64_t)((int64_t *)dst)[j] + (uint64_t)((const int64_t *)src)[j]);
    break;
  default:
    for (size_t j = 0; j < n; j++) ((bool *)dst)[j] = ((bool *)dst)[j] || ((const bool *)src)[j];
    break;
  }
}

static tfl_status scatter_nd_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const gather_state *st = state;
  const tfl_tensor *idx = cpu_in(g, n, SC_INDICES), *up = cpu_in(g, n, SC_UPDATES), *sh = cpu_in(g, n, SC_SHAPE);
  tfl_tensor *y = cpu_out(g, n, OUTPUT);
  (void)ctx;
  if (!sh->is_const)
    for (int i = 0; i < y->ndim; i++)
      if (idx_get(sh, (size_t)i) != y->dims[i])
        return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "shape value %d is %lld, the planned output has %d", i,
                            (long long)idx_get(sh, (size_t)i), y->dims[i]);
  memset(y->data, 0, y->bytes);
  /* duplicate indices add up, as in TFLite (bool: or) */
  for (size_t i = 0; i < st->slices; i++) {
    int64_t off = nd_offset(st, idx, i);
    if (off < 0) return nd_index_error(g, n, st, idx, i, diag);
    scatter_add(y->type, (uint8_t *)y->data + (size_t)off * st->es, (const uint8_t *)up->data + i * st->slice * st->es,
                st->slice);
  }
  return TFL_OK;
}

/* ---- EMBEDDING_LOOKUP ------------------------------------------------------------------ */

static tfl_status embedding_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *look = cpu_in(g, n, LOOKUP), *val = cpu_in(g, n, VALUE), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, look, "lookup", 1, diag)) || (s = cpu_check_tensor(g, n, val, "value", -1, diag)) ||
      (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  if (look->type != TFL_TYPE_INT32) return idx_unsupported_type(g, n, "lookup", look->type, diag);
  if (!idx_copy_type(val->type)) return idx_unsupported_type(g, n, "value", val->type, diag);
  /* 8-bit rows into a float32 output: TFLite's hybrid lookup; otherwise a plain copy */
  bool hybrid = (val->type == TFL_TYPE_INT8 || val->type == TFL_TYPE_UINT8) && y->type == TFL_TYPE_FLOAT32;
  if (!hybrid && (s = idx_same_storage(g, n, val, "value", y, "output", diag))) return s;
  if (val->ndim < 2) return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "value of %d dims, need at least 2", val->ndim);
  if (hybrid && (val->q.n < 1 || (val->q.n > 1 && (val->q.axis != 0 || val->q.n != val->dims[0]))))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n,
                        "8-bit value with %d scales (axis %d): need one, or one per row",
                        val->q.n, val->q.axis);
  if (hybrid && val->q.zero_point[0] != 0) /* TFLite's check: the hybrid path has no zero point */
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "8-bit value with zero point %d: the hybrid lookup needs 0",
                        val->q.zero_point[0]);
  int64_t d[TFL_MAX_DIMS];
  d[0] = look->dims[0];
  for (int i = 1; i < val->ndim; i++) d[i] = val->dims[i];
  if ((s = idx_check_shape(g, n, y, "output", d, val->ndim, diag))) return s;
  gather_state *st;
  if ((s = alloc_state(&st, state, diag))) return s;
  st->hybrid = hybrid;
  st->es = tfl_type_size(val->type);
  st->rows = (size_t)val->dims[0];
  st->inner = prod(val->dims, 1, val->ndim);
  st->coords = (size_t)look->dims[0];
  return TFL_OK;
}

static tfl_status embedding_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const gather_state *st = state;
  const tfl_tensor *look = cpu_in(g, n, LOOKUP), *val = cpu_in(g, n, VALUE), *y = cpu_out(g, n, OUTPUT);
  (void)ctx;
  for (size_t i = 0; i < st->coords; i++) {
    int32_t r = ((const int32_t *)look->data)[i];
    if (r < 0 || (size_t)r >= st->rows)
      return CPU_NODE_ERR(diag, TFL_ERR_ARG, g, n, "lookup %d at position %zu outside 0..%zu", r, i, st->rows - 1);
    if (!st->hybrid) {
      memcpy((uint8_t *)y->data + i * st->inner * st->es, (const uint8_t *)val->data + (size_t)r * st->inner * st->es,
             st->inner * st->es);
      continue;
    }
    /* TFLite's hybrid lookup: the stored byte read as int8 (uint8 too), times the row's
     * scale in double; no zero point */
    double scale = val->q.scale[val->q.n > 1 ? r : 0];
    const int8_t *src = (const int8_t *)val->data + (size_t)r * st->inner;
    float *dst = (float *)y->data + i * st->inner;
    for (size_t j = 0; j < st->inner; j++) dst[j] = (float)(src[j] * scale);
  }
  return TFL_OK;
}

const cpu_kernel cpu_k_gather = {gather_prepare, gather_eval, release, CPU_F32 | CPU_Q8 | CPU_I16 | CPU_I32 | CPU_I64 | CPU_BOOL, 0};
const cpu_kernel cpu_k_gather_nd = {gather_nd_prepare, gather_nd_eval, release, CPU_F32 | CPU_Q8 | CPU_I16 | CPU_I32 | CPU_I64 | CPU_BOOL, 0};
const cpu_kernel cpu_k_scatter_nd = {scatter_nd_prepare, scatter_nd_eval, release, CPU_F32 | CPU_Q8 | CPU_I32 | CPU_I64 | CPU_BOOL, 1};
const cpu_kernel cpu_k_embedding_lookup = {embedding_prepare, embedding_eval, release, CPU_F32 | CPU_Q8 | CPU_I16 | CPU_I32 | CPU_I64 | CPU_BOOL, 1};
