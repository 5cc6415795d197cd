/* reduce_ops.c - the reducers SUM, REDUCE_PROD, REDUCE_MAX, REDUCE_MIN, REDUCE_ANY and
 * REDUCE_ALL over the axes of an int32/int64 tensor (reduce_common.h: negative axes,
 * repeats, none, all), keep_dims or not, as TensorFlow Lite computes them:
 * - float32 combines in float in input order; int32, int64 and unquantized
 *   int8/uint8/int16 combine widened to int64 and are stored back with the wrap-around of
 *   their own type (what TFLite's sums and products in that type give);
 * - quantized SUM (uint8, int8, int16 with zero points 0) adds the codes in int32 and
 *   requantizes in float32 as TFLite does, zo + round(sum * s + (-zi) * s * count) with
 *   s = in_scale / out_scale, clamped to the type. Equal quantizations take the same path
 *   (zo + sum of (q - zi), clamped): what LiteRT returns (checked against it: TFLite's
 *   generic reducer would add the raw codes and wrap);
 * - quantized MAX/MIN need equal input and output quantization and compare codes (LiteRT
 *   accepts other scales and returns the raw code: refused here rather than mislabelled);
 * - quantized int8/int16 REDUCE_PROD: TFLite's rescaled product: each step multiplies by
 *   (q - zi) and by in_scale / out_scale^(1/count) in 64-bit fixed point;
 * - REDUCE_ANY/ALL take bool only.
 * An empty input gives the reducer's neutral value (lowest for MAX, highest for MIN).
 */
#include "reduce_common.h"

#include <float.h>

enum { INPUT = 0, AXES = 1 };
enum { OUTPUT = 0 };

typedef enum { R_SUM, R_PROD, R_MAX, R_MIN, R_ANY, R_ALL } red_op;
typedef enum { MODE_PLAIN, MODE_QSUM, MODE_QPROD } red_mode;

typedef struct {
  red_op op;
  red_mode mode;
  tfl_type type;
  bool planned;
  cpu_reduce_plan plan;
  int64_t *acc;                         /* per output: integer reducers, quantized SUM / PROD */
  uint8_t *seen;                        /* QPROD: output has its first value */
  float qs;                             /* QSUM: in_scale / out_scale in float32 */
  double in_scale, out_scale;           /* QPROD: the multiplier depends on the count ... */
  int32_t prod_q31;                     /* ... precomputed when the axes are constant */
  int prod_shift;
  int32_t zi, zo, lo, hi;
} red_state;

static red_op op_of(tfl_op op)
{
  switch (op) {
  case TFL_OP_REDUCE_PROD: return R_PROD;
  case TFL_OP_REDUCE_MAX: return R_MAX;
  case TFL_OP_REDUCE_MIN: return R_MIN;
  case TFL_OP_REDUCE_ANY: return R_ANY;
  case TFL_OP_REDUCE_ALL: return R_ALL;
  default: return R_SUM;
  }
}

static void release(void *state)
{
  red_state *st = state;
  if (!st) return;
  free(st->acc);
  free(st->seen);
  free(st);
}

/* The raw scale / zero point TFLite compares (0 when unquantized). */
static float raw_scale(const tfl_tensor *t)
{
  return t->q.n ? t->q.scale[0] : 0.0f;
}
static int32_t raw_zp(const tfl_tensor *t)
{
  return t->q.n ? t->q.zero_point[0] : 0;
}

static tfl_status check_type(const tfl_graph *g, const tfl_node *n, red_op op, tfl_type t, tfl_diag *diag)
{
  bool ok;
  switch (t) {
  case TFL_TYPE_BOOL: ok = op == R_ANY || op == R_ALL; break;
  case TFL_TYPE_FLOAT32:
  case TFL_TYPE_INT32:
  case TFL_TYPE_INT64:
  case TFL_TYPE_UINT8:
  case TFL_TYPE_INT8:
  case TFL_TYPE_INT16: ok = op != R_ANY && op != R_ALL; break;
  default: ok = false; break;
  }
  if (!ok)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input type %s is not supported (TFLite: %s)",
                        tfl_type_name(t),
                        op == R_ANY || op == R_ALL ? "BOOL" : "FLOAT32, INT32, INT64, UINT8, INT8, INT16");
  return TFL_OK;
}

/* TFLite's per-step multiplier of the quantized product of `count` values:
 * in_scale / out_scale^(1/count), so the running product stays in range. */
static void prod_multiplier(double in_scale, double out_scale, size_t count, int32_t *q31, int *shift)
{
  cpu_quantize_multiplier(in_scale / pow(out_scale, 1.0 / (double)(count ? count : 1)), q31, shift);
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *ax = cpu_in(g, n, AXES), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "input", -1, diag)) || (s = cpu_check_tensor(g, n, ax, "axes", -1, diag)) ||
      (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  red_op op = op_of(n->op);
  if ((s = check_type(g, n, op, x->type, diag))) return s;
  if (x->type != y->type)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input %s, output %s: types differ",
                        tfl_type_name(x->type), tfl_type_name(y->type));
  red_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "%s state", tfl_op_name(n->op));
  *state = st;
  st->op = op;
  st->type = x->type;
  st->mode = MODE_PLAIN;
  if ((s = cpu_reduce_prepare_plan(g, n, &st->plan, &st->planned, diag))) return s;
  if (x->type == TFL_TYPE_FLOAT32) return TFL_OK; /* combines in the output itself */
  size_t out = tfl_tensor_count(y);
  st->acc = calloc(out ? out : 1, sizeof(int64_t));
  if (!st->acc) return tfl_fail(diag, TFL_ERR_NOMEM, "%s accumulator", tfl_op_name(n->op));
  bool small_int = x->type == TFL_TYPE_UINT8 || x->type == TFL_TYPE_INT8 || x->type == TFL_TYPE_INT16;
  if (!small_int) return TFL_OK;
  bool same = raw_scale(x) == raw_scale(y) && raw_zp(x) == raw_zp(y);
  if (x->type == TFL_TYPE_INT16 && (raw_zp(x) != 0 || raw_zp(y) != 0))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "INT16 zero points %d (input), %d (output): TFLite "
                        "needs 0", raw_zp(x), raw_zp(y));
  if (op == R_SUM && x->q.n > 0) {
    if ((s = cpu_check_per_tensor(g, n, x, "input", diag)) || (s = cpu_check_per_tensor(g, n, y, "output", diag)))
      return s;
    st->mode = MODE_QSUM;
    st->qs = x->q.scale[0] / y->q.scale[0];
  } else if (op == R_PROD && x->q.n > 0) {
    if (x->type == TFL_TYPE_UINT8)
      return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "quantized %s input: TFLite's REDUCE_PROD takes "
                          "quantized INT8 and INT16 only", tfl_type_name(x->type));
    if ((s = cpu_check_per_tensor(g, n, x, "input", diag)) || (s = cpu_check_per_tensor(g, n, y, "output", diag)))
      return s;
    st->mode = MODE_QPROD;
    st->in_scale = x->q.scale[0];
    st->out_scale = y->q.scale[0];
    if (st->planned)
      prod_multiplier(st->in_scale, st->out_scale, st->plan.per_out, &st->prod_q31, &st->prod_shift);
  } else if (!same) {
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s input scale %g zero point %d, output scale %g zero "
                        "point %d: TFLite needs them equal", tfl_type_name(x->type), (double)raw_scale(x), raw_zp(x),
                        (double)raw_scale(y), raw_zp(y));
  }
  st->zi = raw_zp(x);
  st->zo = raw_zp(y);
  cpu_type_limits(y->type, &st->lo, &st->hi);
  st->seen = st->mode == MODE_QPROD ? calloc(out ? out : 1, 1) : NULL;
  if (st->mode == MODE_QPROD && !st->seen)
    return tfl_fail(diag, TFL_ERR_NOMEM, "%s accumulator", tfl_op_name(n->op));
  return TFL_OK;
}

/* One step of the reducer on integers widened to int64: sums and products wrap (in
 * uint64, so the stored low bits are those of the narrow type's own wrapping); ANY and ALL
 * are MAX and MIN over the bool bytes. */
static inline int64_t combine_i(red_op op, int64_t a, int64_t b)
{
  switch (op) {
  case R_SUM: return (int64_t)((uint64_t)a + (uint64_t)b);
  case R_PROD: return (int64_t)((uint64_t)a * (uint64_t)b);
  case R_MAX:
  case R_ANY: return a > b ? a : b;
  case R_MIN:
  case R_ALL: return a < b ? a : b;
  }
  return a;
}

/* TFLite's float reducers, current value first (its MaxOp / MinOp compare current to in). */
static inline float combine_f(red_op op, float a, float b)
{
  switch (op) {
  case R_SUM: return a + b;
  case R_PROD: return a * b;
  case R_MAX: return a > b ? a : b;
  case R_MIN: return a < b ? a : b;
  default: return a;
  }
}

/* Combines every input row (innermost merged dim) into its outputs, in input order: one
 * output when that dim is reduced (step 0), one per column when it is kept (step 1). */
#define COMBINE_ROWS_FN(NAME, T)                                                                     \
  static void NAME(red_op op, const cpu_reduce_plan *p, const void *xv, int64_t *acc)                \
  {                                                                                                  \
    const T *x = xv;                                                                                 \
    size_t inner = p->dims[p->nd - 1], step = p->reduced[p->nd - 1] ? 0 : 1;                         \
    for (size_t r = 0; r < p->rows; r++) {                                                           \
      const T *xr = x + r * inner;                                                                   \
      int64_t *ar = acc + cpu_reduce_row_out(p, r);                                                  \
      for (size_t k = 0; k < inner; k++) ar[k * step] = combine_i(op, ar[k * step], (int64_t)xr[k]); \
    }                                                                                                \
  }

COMBINE_ROWS_FN(combine_rows_u8, uint8_t)
COMBINE_ROWS_FN(combine_rows_i8, int8_t)
COMBINE_ROWS_FN(combine_rows_i16, int16_t)
COMBINE_ROWS_FN(combine_rows_i32, int32_t)
COMBINE_ROWS_FN(combine_rows_i64, int64_t)

static void combine_rows_int(red_op op, tfl_type t, const cpu_reduce_plan *p, const void *x, int64_t *acc)
{
  switch (t) {
  case TFL_TYPE_BOOL:
  case TFL_TYPE_UINT8: combine_rows_u8(op, p, x, acc); break;
  case TFL_TYPE_INT8: combine_rows_i8(op, p, x, acc); break;
  case TFL_TYPE_INT16: combine_rows_i16(op, p, x, acc); break;
  case TFL_TYPE_INT32: combine_rows_i32(op, p, x, acc); break;
  default: combine_rows_i64(op, p, x, acc); break;
  }
}

static void plain_float(red_op op, const cpu_reduce_plan *p, const float *x, float *y)
{
  size_t inner = p->dims[p->nd - 1], step = p->reduced[p->nd - 1] ? 0 : 1;
  float init = op == R_SUM ? 0.0f : op == R_PROD ? 1.0f : op == R_MAX ? -FLT_MAX : FLT_MAX;
  for (size_t o = 0; o < p->out_count; o++) y[o] = init;
  for (size_t r = 0; r < p->rows; r++) {
    const float *xr = x + r * inner;
    float *yr = y + cpu_reduce_row_out(p, r);
    for (size_t k = 0; k < inner; k++) yr[k * step] = combine_f(op, yr[k * step], xr[k]);
  }
}

/* Integer and bool reducers: widened accumulators start at the neutral value of the
 * narrow type (its lowest for MAX, highest for MIN) and are stored back truncated. */
static void plain_int(const red_state *st, const cpu_reduce_plan *p, const void *x, void *y)
{
  int64_t lo, hi;
  switch (st->type) {
  case TFL_TYPE_BOOL: lo = 0; hi = 1; break;
  case TFL_TYPE_UINT8: lo = 0; hi = UINT8_MAX; break;
  case TFL_TYPE_INT8: lo = INT8_MIN; hi = INT8_MAX; break;
  case TFL_TYPE_INT16: lo = INT16_MIN; hi = INT16_MAX; break;
  case TFL_TYPE_INT32: lo = INT32_MIN; hi = INT32_MAX; break;
  default: lo = INT64_MIN; hi = INT64_MAX; break;
  }
  int64_t init = st->op == R_SUM ? 0 : st->op == R_PROD ? 1 : (st->op == R_MAX || st->op == R_ANY) ? lo : hi;
  int64_t *acc = st->acc;
  for (size_t o = 0; o < p->out_count; o++) acc[o] = init;
  combine_rows_int(st->op, st->type, p, x, acc);
  for (size_t o = 0; o < p->out_count; o++) {
    switch (st->type) {
    case TFL_TYPE_BOOL: ((uint8_t *)y)[o] = acc[o] != 0; break;
    case TFL_TYPE_UINT8:
    case TFL_TYPE_INT8: ((uint8_t *)y)[o] = (uint8_t)(uint64_t)acc[o]; break;
    case TFL_TYPE_INT16: ((uint16_t *)y)[o] = (uint16_t)(uint64_t)acc[o]; break;
    case TFL_TYPE_INT32: ((uint32_t *)y)[o] = (uint32_t)(uint64_t)acc[o]; break;
    default: ((int64_t *)y)[o] = acc[o]; break;
    }
  }
}

/* Integer code i of an 8/16-bit tensor. */
static inline int32_t code_at(tfl_type t, const void *x, size_t i)
{
  switch (t) {
  case TFL_TYPE_UINT8: return ((const uint8_t *)x)[i];
  case TFL_TYPE_INT8: return ((const int8_t *)x)[i];
  default: return ((const int16_t *)x)[i];
  }
}

static void store_code(tfl_type t, void *y, size_t i, int32_t v)
{
  if (t == TFL_TYPE_INT16)
    ((int16_t *)y)[i] = (int16_t)v;
  else
    ((uint8_t *)y)[i] = (uint8_t)v; /* the stored byte of uint8 and int8 alike */
}

/* TFLite's MultiplyByQuantizedMultiplier for a 64-bit x: the multiplier cut to 16 bits,
 * a rounding right shift of 15 - shift. */
static int32_t mbqm64(int64_t x, int32_t q31, int shift)
{
  int32_t m16 = q31 < 0x7FFF0000 ? (q31 + (1 << 15)) >> 16 : 0x7FFF;
  int total = 15 - shift;
  if (total < 1) total = 1; /* shift <= 14 for any multiplier a model can give */
  if (total > 62) return 0;
  /* |x| < 2^47 in TFLite's contract; a hostile model's product is kept defined by wrapping */
  int64_t r = (int64_t)((uint64_t)x * (uint64_t)(int64_t)m16 + ((uint64_t)1 << (total - 1)));
  r >>= total; /* arithmetic shift: floor, as TFLite's */
  if (r > INT32_MAX) r = INT32_MAX;
  if (r < INT32_MIN) r = INT32_MIN;
  return (int32_t)r;
}

static void quant_sum(const red_state *st, const cpu_reduce_plan *p, const void *x, void *y)
{
  int64_t *acc = st->acc;
  for (size_t o = 0; o < p->out_count; o++) acc[o] = 0;
  combine_rows_int(R_SUM, st->type, p, x, acc);
  /* float32 steps in TFLite's order on its int32 sum: bias = (-zi) * s * count */
  float bias = (float)(-st->zi) * st->qs * (float)p->per_out;
  for (size_t o = 0; o < p->out_count; o++) {
    float v = roundf((float)(int32_t)(uint32_t)(uint64_t)acc[o] * st->qs + bias);
    int32_t q = v > 1e9f ? st->hi : v < -1e9f ? st->lo : cpu_clamp_i32((int32_t)v + st->zo, st->lo, st->hi);
    store_code(st->type, y, o, q);
  }
}

static void quant_prod(const red_state *st, const cpu_reduce_plan *p, const void *x, void *y)
{
  int64_t *acc = st->acc; /* int32 values, as TFLite's temp_prod */
  size_t inner = p->dims[p->nd - 1];
  bool red = p->reduced[p->nd - 1];
  if (p->per_out == 0 || p->out_count == 0) {
    for (size_t o = 0; o < p->out_count; o++) store_code(st->type, y, o, st->zo);
    return;
  }
  int32_t q31 = st->prod_q31;
  int shift = st->prod_shift;
  if (p != &st->plan) prod_multiplier(st->in_scale, st->out_scale, p->per_out, &q31, &shift);
  /* the first value of each output is taken as it is, every later one rescales */
  memset(st->seen, 0, p->out_count);
  for (size_t r = 0; r < p->rows; r++) {
    size_t o = cpu_reduce_row_out(p, r), base = r * inner;
    for (size_t k = 0; k < inner; k++) {
      size_t i = red ? o : o + k;
      int32_t v = code_at(st->type, x, base + k) - st->zi;
      if (!st->seen[i]) {
        acc[i] = v;
        st->seen[i] = 1;
      } else {
        acc[i] = mbqm64((int64_t)acc[i] * v, q31, shift);
      }
    }
  }
  for (size_t o = 0; o < p->out_count; o++)
    store_code(st->type, y, o, cpu_clamp_i32(mbqm64(acc[o], q31, shift) + st->zo, st->lo, st->hi));
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  red_state *st = state;
  cpu_reduce_plan plan;
  const cpu_reduce_plan *p = &st->plan;
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  (void)ctx;
  if (!st->planned) { /* axes computed at run */
    tfl_status s = cpu_reduce_plan_make(g, n, x, cpu_in(g, n, AXES), y, &plan, diag);
    if (s) return s;
    p = &plan;
  }
  switch (st->mode) {
  case MODE_QSUM: quant_sum(st, p, x->data, y->data); break;
  case MODE_QPROD: quant_prod(st, p, x->data, y->data); break;
  case MODE_PLAIN:
    if (st->type == TFL_TYPE_FLOAT32)
      plain_float(st->op, p, x->data, y->data);
    else
      plain_int(st, p, x->data, y->data);
    break;
  }
  return TFL_OK;
}

const cpu_kernel cpu_k_sum = {prepare, eval, release, CPU_F32 | CPU_Q8 | CPU_I16 | CPU_I32 | CPU_I64, 0};
const cpu_kernel cpu_k_reduce_prod = {prepare, eval, release, CPU_F32 | CPU_TYPE(TFL_TYPE_INT8) | CPU_I16 | CPU_I32 | CPU_I64, 0};
const cpu_kernel cpu_k_reduce_max = {prepare, eval, release, CPU_F32 | CPU_Q8 | CPU_I16 | CPU_I32 | CPU_I64, 0};
const cpu_kernel cpu_k_reduce_min = {prepare, eval, release, CPU_F32 | CPU_Q8 | CPU_I16 | CPU_I32 | CPU_I64, 0};
const cpu_kernel cpu_k_reduce_any = {prepare, eval, release, CPU_BOOL, 0};
const cpu_kernel cpu_k_reduce_all = {prepare, eval, release, CPU_BOOL, 0};

