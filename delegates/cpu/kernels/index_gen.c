/* index_gen.c - the generator and conversion ops as TFLite computes them: SHAPE, RANK,
 * FILL, ZEROS_LIKE, RANGE, ONE_HOT, CAST, BROADCAST_ARGS and SPARSE_TO_DENSE.
 *
 * Output shapes that come from values (FILL dims, RANGE, ONE_HOT depth, SPARSE_TO_DENSE
 * output_shape) are computed at load when those values are constant (shapes_index.c);
 * otherwise the declared shape was kept and eval checks the values against it, failing
 * cleanly where TFLite would have resized the output. CAST ignores quantization (stored
 * codes convert as plain numbers), as TFLite's cast.cc does.
 */
#include "index_common.h"

#include <math.h>

enum { INPUT = 0 };                         /* SHAPE, RANK, ZEROS_LIKE, CAST */
enum { DIMS = 0, VALUE = 1 };               /* FILL */
enum { START = 0, LIMIT = 1, DELTA = 2 };   /* RANGE */
enum { SHAPE0 = 0, SHAPE1 = 1 };            /* BROADCAST_ARGS */
enum { OUTPUT = 0 };

typedef struct {
  size_t count;            /* output elements */
  size_t es;               /* output element bytes */
  size_t outer, depth, inner; /* ONE_HOT */
} gen_state;

static void release(void *state)
{
  free(state);
}

static tfl_status new_state(const tfl_tensor *y, void **state, tfl_diag *diag, gen_state **out)
{
  gen_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "index op state");
  st->count = tfl_tensor_count(y);
  st->es = tfl_type_size(y->type);
  *state = st;
  if (out) *out = st;
  return TFL_OK;
}

/* Checks that a non-constant shape vector `sh` (values) matches y's planned dims. */
static tfl_status check_dims_values(const tfl_graph *g, const tfl_node *n, const tfl_tensor *sh, const tfl_tensor *y,
                                    const char *what, tfl_diag *diag)
{
  size_t c = tfl_tensor_count(sh);
  bool ok = c == (size_t)y->ndim;
  for (size_t i = 0; ok && i < c; i++) ok = idx_get(sh, i) == y->dims[i];
  if (ok) return TFL_OK;
  return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n,
                      "%s values differ from the output's planned shape (%zu values, %d dims): "
                      "a shape set at run time is not supported", what, c, y->ndim);
}

/* ---- SHAPE, RANK -------------------------------------------------------------------- */

static tfl_status shape_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "input", -1, diag)) || (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  bool rank = n->op == TFL_OP_RANK;
  if (rank ? y->type != TFL_TYPE_INT32 : !idx_type_ok(y->type, false))
    return idx_unsupported_type(g, n, "output", y->type, diag);
  if (!rank && y->type != n->p.shape.out_type)
    return CPU_NODE_ERR(diag, TFL_ERR_FORMAT, g, n, "output is %s, out_type says %s", tfl_type_name(y->type),
                        tfl_type_name(n->p.shape.out_type));
  int64_t d[1] = {x->ndim};
  if ((s = idx_check_shape(g, n, y, "output", d, rank ? 0 : 1, diag))) return s;
  return new_state(y, state, diag, NULL);
}

static tfl_status shape_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  (void)state, (void)ctx, (void)diag;
  if (n->op == TFL_OP_RANK) {
    *(int32_t *)y->data = x->ndim;
    return TFL_OK;
  }
  for (int i = 0; i < x->ndim; i++) {
    if (y->type == TFL_TYPE_INT64) ((int64_t *)y->data)[i] = x->dims[i];
    else ((int32_t *)y->data)[i] = x->dims[i];
  }
  return TFL_OK;
}

/* ---- FILL, ZEROS_LIKE ------------------------------------------------------------------ */

static tfl_status fill_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *dims = cpu_in(g, n, DIMS), *v = cpu_in(g, n, VALUE), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, dims, "dims", 1, diag)) || (s = cpu_check_tensor(g, n, v, "value", 0, diag)) ||
      (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  if (!idx_type_ok(dims->type, false)) return idx_unsupported_type(g, n, "dims", dims->type, diag);
  tfl_type t = v->type;
  if (!idx_copy_type(t)) return idx_unsupported_type(g, n, "value", t, diag);
  if ((s = idx_same_storage(g, n, v, "value", y, "output", diag))) return s;
  if (dims->is_const && (s = check_dims_values(g, n, dims, y, "dims", diag))) return s;
  return new_state(y, state, diag, NULL);
}

static tfl_status fill_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const gen_state *st = state;
  const tfl_tensor *dims = cpu_in(g, n, DIMS), *v = cpu_in(g, n, VALUE), *y = cpu_out(g, n, OUTPUT);
  (void)ctx;
  tfl_status s;
  if (!dims->is_const && (s = check_dims_values(g, n, dims, y, "dims", diag))) return s;
  for (size_t i = 0; i < st->count; i++) memcpy((uint8_t *)y->data + i * st->es, v->data, st->es);
  return TFL_OK;
}

static tfl_status zeros_like_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "input", -1, diag)) || (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  if (x->type != TFL_TYPE_FLOAT32 && x->type != TFL_TYPE_INT32 && x->type != TFL_TYPE_INT64)
    return idx_unsupported_type(g, n, "input", x->type, diag);
  if ((s = idx_same_storage(g, n, x, "input", y, "output", diag))) return s;
  if (tfl_tensor_count(x) != tfl_tensor_count(y))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input has %zu elements, output %zu", tfl_tensor_count(x),
                        tfl_tensor_count(y));
  return new_state(y, state, diag, NULL);
}

static tfl_status zeros_like_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  tfl_tensor *y = cpu_out(g, n, OUTPUT);
  (void)state, (void)ctx, (void)diag;
  memset(y->data, 0, y->bytes); /* all-zero bytes: 0 and 0.0f alike */
  return TFL_OK;
}

/* ---- RANGE ------------------------------------------------------------------------------ */

static tfl_status range_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *y = cpu_out(g, n, OUTPUT);
  const char *names[3] = {"start", "limit", "delta"};
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, y, "output", 1, diag))) return s;
  for (int i = 0; i < 3; i++) {
    const tfl_tensor *t = cpu_in(g, n, START + i);
    if ((s = cpu_check_tensor(g, n, t, names[i], -1, diag))) return s;
    if (tfl_tensor_count(t) != 1)
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%s has %zu elements, expected a scalar", names[i],
                          tfl_tensor_count(t));
    if (t->type != TFL_TYPE_INT32 && t->type != TFL_TYPE_INT64 && t->type != TFL_TYPE_FLOAT32)
      return idx_unsupported_type(g, n, names[i], t->type, diag);
    if (t->type != y->type)
      return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s is %s, output %s: types differ", names[i],
                          tfl_type_name(t->type), tfl_type_name(y->type));
  }
  return new_state(y, state, diag, NULL);
}

static tfl_status range_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const tfl_tensor *ts = cpu_in(g, n, START), *tl = cpu_in(g, n, LIMIT), *td = cpu_in(g, n, DELTA),
                   *y = cpu_out(g, n, OUTPUT);
  (void)state, (void)ctx;
  int64_t count;
  size_t have = (size_t)y->dims[0];
  if (y->type == TFL_TYPE_FLOAT32) {
    float s0 = *(const float *)ts->data, l = *(const float *)tl->data, d = *(const float *)td->data;
    if (d == 0 || (s0 > l && d > 0) || (s0 < l && d < 0) || !isfinite(s0) || !isfinite(l))
      return CPU_NODE_ERR(diag, TFL_ERR_ARG, g, n, "start %g, limit %g, delta %g give no valid range", (double)s0,
                          (double)l, (double)d);
    volatile float q = (l - s0) / d; /* float math, as TFLite sizes it */
    float c = ceilf(fabsf(q));
    count = c > (float)INT32_MAX ? -1 : (int64_t)c;
    if ((size_t)count != have) goto bad_count;
    float v = s0, *o = y->data;
    for (size_t i = 0; i < have; i++, v += d) o[i] = v; /* running sum, as TFLite */
    return TFL_OK;
  }
  int64_t s0 = idx_get(ts, 0), l = idx_get(tl, 0), d = idx_get(td, 0);
  if (d == 0 || (s0 > l && d > 0) || (s0 < l && d < 0))
    return CPU_NODE_ERR(diag, TFL_ERR_ARG, g, n, "start %lld, limit %lld, delta %lld give no valid range",
                        (long long)s0, (long long)l, (long long)d);
  uint64_t span = l > s0 ? (uint64_t)l - (uint64_t)s0 : (uint64_t)s0 - (uint64_t)l;
  uint64_t ad = d < 0 ? 0 - (uint64_t)d : (uint64_t)d;
  count = (int64_t)(span / ad + (span % ad != 0));
  if ((size_t)count != have) goto bad_count;
  for (size_t i = 0; i < have; i++) {
    int64_t v = (int64_t)((uint64_t)s0 + (uint64_t)d * i);
    if (y->type == TFL_TYPE_INT64) ((int64_t *)y->data)[i] = v;
    else ((int32_t *)y->data)[i] = (int32_t)v;
  }
  return TFL_OK;
bad_count:
  return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "the range has %lld elements, the planned output %zu: a size set at "
                      "run time is not supported", (long long)count, have);
}

/* ---- ONE_HOT ------------------------------------------------------------------------------ */

enum { OH_INDICES = 0, OH_DEPTH = 1, OH_ON = 2, OH_OFF = 3 };

static tfl_status one_hot_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, OH_INDICES), *dp = cpu_in(g, n, OH_DEPTH), *on = cpu_in(g, n, OH_ON);
  const tfl_tensor *off = cpu_in(g, n, OH_OFF), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "indices", -1, diag)) || (s = cpu_check_tensor(g, n, dp, "depth", 0, diag)) ||
      (s = cpu_check_tensor(g, n, on, "on_value", 0, diag)) ||
      (s = cpu_check_tensor(g, n, off, "off_value", 0, diag)) ||
      (s = cpu_check_tensor(g, n, y, "output", x->ndim + 1, diag)))
    return s;
  if (!idx_type_ok(x->type, false)) return idx_unsupported_type(g, n, "indices", x->type, diag);
  if (dp->type != TFL_TYPE_INT32) return idx_unsupported_type(g, n, "depth", dp->type, diag);
  if (!idx_copy_type(y->type) || y->type == TFL_TYPE_INT16) /* TFLite's one_hot: no int16 */
    return idx_unsupported_type(g, n, "output", y->type, diag);
  if ((s = idx_same_storage(g, n, on, "on_value", y, "output", diag)) ||
      (s = idx_same_storage(g, n, off, "off_value", y, "output", diag)))
    return s;
  int axis = n->p.one_hot.axis == -1 ? x->ndim : n->p.one_hot.axis;
  if (axis < 0 || axis > x->ndim)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "axis %d for indices of %d dims", n->p.one_hot.axis, x->ndim);
  for (int i = 0; i <= x->ndim; i++)
    if (i != axis && y->dims[i] != x->dims[i < axis ? i : i - 1])
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output dim %d is %d, indices give %d", i, y->dims[i],
                          x->dims[i < axis ? i : i - 1]);
  gen_state *st = NULL;
  if ((s = new_state(y, state, diag, &st))) return s;
  st->outer = 1;
  for (int i = 0; i < axis; i++) st->outer *= (size_t)x->dims[i];
  st->depth = (size_t)y->dims[axis];
  st->inner = 1;
  for (int i = axis; i < x->ndim; i++) st->inner *= (size_t)x->dims[i];
  return TFL_OK;
}

static tfl_status one_hot_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const gen_state *st = state;
  const tfl_tensor *x = cpu_in(g, n, OH_INDICES), *dp = cpu_in(g, n, OH_DEPTH), *on = cpu_in(g, n, OH_ON);
  const tfl_tensor *off = cpu_in(g, n, OH_OFF), *y = cpu_out(g, n, OUTPUT);
  (void)ctx;
  int32_t depth = *(const int32_t *)dp->data;
  if (depth < 0 || (size_t)depth != st->depth)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "depth %d, the planned output has %zu: a depth set at run time is "
                        "not supported", depth, st->depth);
  uint8_t *o = y->data;
  /* output [outer, depth, inner]: 'on' where the index equals the depth position; an
   * index outside 0..depth-1 gives a row of 'off' */
  for (size_t a = 0; a < st->outer; a++)
    for (size_t d = 0; d < st->depth; d++)
      for (size_t b = 0; b < st->inner; b++, o += st->es) {
        int64_t k = idx_get(x, a * st->inner + b);
        memcpy(o, k == (int64_t)d ? on->data : off->data, st->es);
      }
  return TFL_OK;
}

/* ---- CAST ---------------------------------------------------------------------------------- */

static bool cast_type(tfl_type t)
{
  return idx_copy_type(t);
}

static tfl_status cast_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "input", -1, diag)) || (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  if (!cast_type(x->type)) return idx_unsupported_type(g, n, "input", x->type, diag);
  if (!cast_type(y->type)) return idx_unsupported_type(g, n, "output", y->type, diag);
  if (tfl_tensor_count(x) != tfl_tensor_count(y))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input has %zu elements, output %zu", tfl_tensor_count(x),
                        tfl_tensor_count(y));
  return new_state(y, state, diag, NULL);
}

/* float -> integer conversions as LiteRT 2.3.0 does them on x86 (checked by the
 * cast_f32_*_out_of_range cases): int32, int16, uint8 and int8 saturate; int64 truncates,
 * the hardware's INT64_MIN outside its range. NaN: 0 for the clamped narrow types. */
static int64_t float_to_int(float f, tfl_type t)
{
  switch (t) {
  case TFL_TYPE_INT32:
    if (!(f <= 2147483520.0f)) return INT32_MAX; /* nextafterf(2^31, 0); NaN too */
    return (int32_t)(f < -2147483648.0f ? -2147483648.0f : f);
  case TFL_TYPE_INT16:
    if (f != f) return 0;
    return (int16_t)(f > 32767.0f ? 32767.0f : (f < -32768.0f ? -32768.0f : f));
  case TFL_TYPE_UINT8:
    if (f != f) return 0;
    return (uint8_t)(f > 255.0f ? 255.0f : (f < 0.0f ? 0.0f : f));
  case TFL_TYPE_INT8:
    if (f != f) return 0;
    return (int8_t)(f > 127.0f ? 127.0f : (f < -128.0f ? -128.0f : f));
  default:
    if (!(f >= -9223372036854775808.0f && f < 9223372036854775808.0f)) return INT64_MIN;
    return (int64_t)f;
  }
}

/* integer v converted as C++'s static_cast does (modulo the width; bool: != 0) */
static void cast_store_int(tfl_tensor *y, size_t i, int64_t v)
{
  uint64_t u = (uint64_t)v;
  switch (y->type) {
  case TFL_TYPE_FLOAT32: ((float *)y->data)[i] = (float)v; break;
  case TFL_TYPE_BOOL: ((bool *)y->data)[i] = v != 0; break;
  case TFL_TYPE_INT8: ((int8_t *)y->data)[i] = (int8_t)(uint8_t)u; break;
  case TFL_TYPE_UINT8: ((uint8_t *)y->data)[i] = (uint8_t)u; break;
  case TFL_TYPE_INT16: ((int16_t *)y->data)[i] = (int16_t)(uint16_t)u; break;
  case TFL_TYPE_INT32: ((int32_t *)y->data)[i] = (int32_t)(uint32_t)u; break;
  default: ((int64_t *)y->data)[i] = v; break;
  }
}

static void cast_store_float(tfl_tensor *y, size_t i, float f)
{
  switch (y->type) {
  case TFL_TYPE_FLOAT32: ((float *)y->data)[i] = f; break;
  case TFL_TYPE_BOOL: ((bool *)y->data)[i] = f != 0.0f; break;
  default: cast_store_int(y, i, float_to_int(f, y->type)); break; /* already in the type's range */
  }
}

static tfl_status cast_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const gen_state *st = state;
  const tfl_tensor *x = cpu_in(g, n, INPUT);
  tfl_tensor *y = cpu_out(g, n, OUTPUT);
  (void)ctx, (void)diag;
  for (size_t i = 0; i < st->count; i++) {
    if (x->type == TFL_TYPE_FLOAT32) cast_store_float(y, i, ((const float *)x->data)[i]);
    else cast_store_int(y, i, idx_get_any(x, i));
  }
  return TFL_OK;
}

/* ---- BROADCAST_ARGS ------------------------------------------------------------------------- */

static tfl_status bargs_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *a = cpu_in(g, n, SHAPE0), *b = cpu_in(g, n, SHAPE1), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, a, "s0", 1, diag)) || (s = cpu_check_tensor(g, n, b, "s1", 1, diag)) ||
      (s = cpu_check_tensor(g, n, y, "output", 1, diag)))
    return s;
  if (!idx_type_ok(a->type, false)) return idx_unsupported_type(g, n, "s0", a->type, diag);
  if (b->type != a->type || y->type != a->type)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "s0 %s, s1 %s, output %s: types differ",
                        tfl_type_name(a->type), tfl_type_name(b->type), tfl_type_name(y->type));
  int64_t d[1] = {a->dims[0] > b->dims[0] ? a->dims[0] : b->dims[0]};
  if ((s = idx_check_shape(g, n, y, "output", d, 1, diag))) return s;
  return new_state(y, state, diag, NULL);
}

static tfl_status bargs_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const tfl_tensor *a = cpu_in(g, n, SHAPE0), *b = cpu_in(g, n, SHAPE1), *y = cpu_out(g, n, OUTPUT);
  (void)state, (void)ctx;
  int na = a->dims[0], nb = b->dims[0], ny = y->dims[0];
  for (int i = 0; i < ny; i++) { /* right-aligned */
    int ia = i - (ny - na), ib = i - (ny - nb);
    int64_t da = ia >= 0 ? idx_get(a, (size_t)ia) : 1, db = ib >= 0 ? idx_get(b, (size_t)ib) : 1;
    if (da != db && da != 1 && db != 1)
      return CPU_NODE_ERR(diag, TFL_ERR_ARG, g, n, "dim %d: %lld and %lld do not broadcast", i, (long long)da,
                          (long long)db);
    int64_t v = da == 1 ? db : da;
    if (y->type == TFL_TYPE_INT64) ((int64_t *)y->data)[i] = v;
    else ((int32_t *)y->data)[i] = (int32_t)v;
  }
  return TFL_OK;
}

/* ---- SPARSE_TO_DENSE ------------------------------------------------------------------------- */

enum { SD_INDICES = 0, SD_SHAPE = 1, SD_VALUES = 2, SD_DEFAULT = 3 };

static tfl_status s2d_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *idx = cpu_in(g, n, SD_INDICES), *sh = cpu_in(g, n, SD_SHAPE), *val = cpu_in(g, n, SD_VALUES);
  const tfl_tensor *def = cpu_in(g, n, SD_DEFAULT), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, idx, "indices", -1, diag)) ||
      (s = cpu_check_tensor(g, n, sh, "output_shape", 1, diag)) ||
      (s = cpu_check_tensor(g, n, val, "values", -1, diag)) || (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  if (def && (s = cpu_check_tensor(g, n, def, "default_value", 0, diag))) return s;
  if (!idx_type_ok(idx->type, false)) return idx_unsupported_type(g, n, "indices", idx->type, diag);
  if (!idx_type_ok(sh->type, false)) return idx_unsupported_type(g, n, "output_shape", sh->type, diag);
  tfl_type t = val->type;
  if (t != TFL_TYPE_FLOAT32 && t != TFL_TYPE_INT32 && t != TFL_TYPE_INT64 && t != TFL_TYPE_INT8 && t != TFL_TYPE_UINT8)
    return idx_unsupported_type(g, n, "values", t, diag);
  if ((s = idx_same_storage(g, n, val, "values", y, "output", diag))) return s;
  if (def && (s = idx_same_storage(g, n, def, "default_value", y, "output", diag))) return s;
  if (idx->ndim > 2 || val->ndim > 1)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "indices of %d dims (at most 2), values of %d (at most 1)",
                        idx->ndim, val->ndim);
  size_t nidx = idx->ndim == 0 ? 1 : (size_t)idx->dims[0];
  int depth = idx->ndim == 2 ? idx->dims[1] : 1;
  if (val->ndim == 1 && (size_t)val->dims[0] != nidx)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%d values for %zu indices", val->dims[0], nidx);
  if (sh->dims[0] != y->ndim || depth != y->ndim)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output_shape has %d values, indices %d per entry, output %d dims",
                        sh->dims[0], depth, y->ndim);
  if (sh->is_const && (s = check_dims_values(g, n, sh, y, "output_shape", diag))) return s;
  return new_state(y, state, diag, NULL);
}

static tfl_status s2d_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const gen_state *st = state;
  const tfl_tensor *idx = cpu_in(g, n, SD_INDICES), *sh = cpu_in(g, n, SD_SHAPE), *val = cpu_in(g, n, SD_VALUES);
  const tfl_tensor *def = cpu_in(g, n, SD_DEFAULT), *y = cpu_out(g, n, OUTPUT);
  (void)ctx;
  tfl_status s;
  if (!sh->is_const && (s = check_dims_values(g, n, sh, y, "output_shape", diag))) return s;
  uint8_t *o = y->data;
  for (size_t i = 0; i < st->count; i++) {
    if (def) memcpy(o + i * st->es, def->data, st->es);
    else memset(o + i * st->es, 0, st->es);
  }
  size_t nidx = idx->ndim == 0 ? 1 : (size_t)idx->dims[0];
  int depth = y->ndim;
  bool scalar = val->ndim == 0;
  for (size_t i = 0; i < nidx; i++) { /* later entries overwrite earlier ones at the same place */
    size_t off = 0;
    for (int j = 0; j < depth; j++) {
      int64_t v = idx_get(idx, i * (size_t)depth + (size_t)j);
      if (v < 0 || v >= y->dims[j])
        return CPU_NODE_ERR(diag, TFL_ERR_ARG, g, n, "index %zu: value %lld outside dim %d of size %d", i, (long long)v,
                            j, y->dims[j]);
      off = off * (size_t)y->dims[j] + (size_t)v;
    }
    memcpy(o + off * st->es, (const uint8_t *)val->data + (scalar ? 0 : i) * st->es, st->es);
  }
  return TFL_OK;
}

const cpu_kernel cpu_k_shape = {shape_prepare, shape_eval, release, CPU_ALL_TYPES, 0};
const cpu_kernel cpu_k_rank = {shape_prepare, shape_eval, release, CPU_ALL_TYPES, 0};
const cpu_kernel cpu_k_fill = {fill_prepare, fill_eval, release, CPU_F32 | CPU_Q8 | CPU_I16 | CPU_I32 | CPU_I64 | CPU_BOOL, 1};
const cpu_kernel cpu_k_zeros_like = {zeros_like_prepare, zeros_like_eval, release, CPU_F32 | CPU_I32 | CPU_I64, 0};
const cpu_kernel cpu_k_range = {range_prepare, range_eval, release, CPU_F32 | CPU_I32 | CPU_I64, 0};
const cpu_kernel cpu_k_one_hot = {one_hot_prepare, one_hot_eval, release, CPU_I32 | CPU_I64, 0};
const cpu_kernel cpu_k_cast = {cast_prepare, cast_eval, release, CPU_F32 | CPU_Q8 | CPU_I16 | CPU_I32 | CPU_I64 | CPU_BOOL, 0};
const cpu_kernel cpu_k_broadcast_args = {bargs_prepare, bargs_eval, release, CPU_I32 | CPU_I64, 0};
const cpu_kernel cpu_k_sparse_to_dense = {s2d_prepare, s2d_eval, release, CPU_F32 | CPU_Q8 | CPU_I32 | CPU_I64, 2};
