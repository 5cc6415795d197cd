/* eltwise_binary.c - two-input element-wise ops of TFLite with NumPy broadcasting (up to 6
 * dims, eltwise_common.h): POW, SQUARED_DIFFERENCE, FLOOR_DIV, FLOOR_MOD, ATAN2,
 * BITWISE_XOR, RIGHT_SHIFT, LOGICAL_OR and the comparisons LESS, LESS_EQUAL, GREATER,
 * GREATER_EQUAL, EQUAL, NOT_EQUAL (bool output); and ADD_N (N inputs of one shape).
 *
 * Types, as TFLite's kernels take them (their Prepare/Eval):
 *   POW: float32, int32 (a negative exponent fails at eval);
 *   SQUARED_DIFFERENCE: float32, int32, int8 per-tensor quantized;
 *   FLOOR_DIV: float32, int8, int16, int32 (a zero divisor fails at eval, floats included);
 *   FLOOR_MOD: float32, int8, int16, int32, int64 (an integer zero divisor fails at eval);
 *   (int8/int16 as plain integers, quantization ignored, as TFLite does)
 *   ATAN2: float32, both inputs of one shape (TFLite does not broadcast it); BITWISE_XOR, RIGHT_SHIFT: int8, uint8, int16, int32 (plain integers);
 *   LOGICAL_OR: bool; ADD_N: float32, int32;
 *   comparisons: float32, int32, int64, int16 (plain), uint8/int8 quantized (compared after
 *     TFLite's fixed-point rescaling: each input shifted left 8 and scaled by its Q31 scale),
 *     bool for EQUAL/NOT_EQUAL (TFLite's string EQUAL/NOT_EQUAL: refused, not implemented).
 * Integer arithmetic wraps as two's complement hardware does (through unsigned types).
 * Quantized SQUARED_DIFFERENCE follows TFLite bit for bit: inputs shifted left 7 and
 * rescaled to twice the larger scale, the difference squared, one output multiplier.
 */
#include "eltwise_common.h"

#include <math.h>
#include <stdio.h>

enum { INPUT_A = 0, INPUT_B = 1 };
enum { OUTPUT = 0 };

typedef struct {
  tfl_op op;
  tfl_type type;            /* input type */
  bool compare;             /* bool output */
  bool quantized;           /* q8 comparison or SQUARED_DIFFERENCE */
  cpu_bcast bc;
  int bits;                 /* RIGHT_SHIFT: width of the type */
  uint8_t fa, fb;           /* q8: byte -> table index */
  int32_t ta[256], tb[256]; /* q8: each code rescaled (TFLite's integer pipeline) */
  int32_t mo, zo, lo, hi;   /* SQUARED_DIFFERENCE q8: output multiplier, zero point, range */
  int so;
  size_t count;             /* ADD_N: elements */
} bin_state;

static void release(void *state)
{
  free(state);
}

static bool is_compare(tfl_op op)
{
  return op == TFL_OP_LESS || op == TFL_OP_LESS_EQUAL || op == TFL_OP_GREATER || op == TFL_OP_GREATER_EQUAL ||
         op == TFL_OP_EQUAL || op == TFL_OP_NOT_EQUAL;
}

/* Which input types TFLite's kernel of `op` takes. */
static bool takes(tfl_op op, tfl_type t)
{
  if (is_compare(op)) {
    if (t == TFL_TYPE_BOOL) return op == TFL_OP_EQUAL || op == TFL_OP_NOT_EQUAL;
    return t == TFL_TYPE_FLOAT32 || t == TFL_TYPE_INT32 || t == TFL_TYPE_INT64 || t == TFL_TYPE_INT16 ||
           cpu_is_q8(t);
  }
  switch (op) {
  case TFL_OP_POW: return t == TFL_TYPE_FLOAT32 || t == TFL_TYPE_INT32;
  case TFL_OP_SQUARED_DIFFERENCE: return t == TFL_TYPE_FLOAT32 || t == TFL_TYPE_INT32 || t == TFL_TYPE_INT8;
  case TFL_OP_FLOOR_DIV: return t == TFL_TYPE_FLOAT32 || t == TFL_TYPE_INT8 || t == TFL_TYPE_INT16 || t == TFL_TYPE_INT32;
  case TFL_OP_FLOOR_MOD:
    return t == TFL_TYPE_FLOAT32 || t == TFL_TYPE_INT8 || t == TFL_TYPE_INT16 || t == TFL_TYPE_INT32 ||
           t == TFL_TYPE_INT64;
  case TFL_OP_ATAN2: return t == TFL_TYPE_FLOAT32;
  case TFL_OP_BITWISE_XOR:
  case TFL_OP_RIGHT_SHIFT:
    return t == TFL_TYPE_INT8 || t == TFL_TYPE_UINT8 || t == TFL_TYPE_INT16 || t == TFL_TYPE_INT32;
  case TFL_OP_LOGICAL_OR: return t == TFL_TYPE_BOOL;
  default: return false;
  }
}

/* TFLite's comparison rescaling of the 256 codes of quantized t: (q - zp) << 8 times the
 * scale as a Q31 multiplier with a right shift. */
static tfl_status compare_table(const tfl_graph *g, const tfl_node *n, const tfl_tensor *t, const char *what,
                                int32_t table[256], tfl_diag *diag)
{
  const float scale = cpu_scale(t, 0);
  if (t->q.n != 1)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s %s has %d scales, expected 1 (per tensor)",
                        tfl_type_name(t->type), what, t->q.n);
  if (!(scale > 0.0f && scale < 1.0f)) /* TFLite's multiplier must be below one */
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s scale is %g, expected 0 < scale < 1", what,
                        (double)scale);
  int32_t m;
  int shift;
  cpu_quantize_multiplier(scale, &m, &shift);
  const int32_t zp = cpu_zero_point(t, 0);
  for (int i = 0; i < 256; i++)
    table[i] = cpu_mul_by_quantized_multiplier((cpu_q8_value(t->type, i) - zp) * 256, m, shift);
  return TFL_OK;
}

static tfl_status prepare_sqdiff_q8(const tfl_graph *g, const tfl_node *n, bin_state *st, const tfl_tensor *a,
                                    const tfl_tensor *b, const tfl_tensor *y, tfl_diag *diag)
{
  tfl_status s = cpu_check_binary_per_tensor(g, n, a, b, y, diag);
  if (s) return s;
  const float fa = cpu_scale(a, 0), fb = cpu_scale(b, 0), fy = cpu_scale(y, 0);
  const double twice_max = 2.0 * (double)(fa > fb ? fa : fb);
  int32_t ma, mb;
  int sa, sb;
  cpu_quantize_multiplier(fa / twice_max, &ma, &sa);
  cpu_quantize_multiplier(fb / twice_max, &mb, &sb);
  cpu_quantize_multiplier(twice_max * twice_max / ((double)(1 << 14) * fy), &st->mo, &st->so);
  const int32_t za = cpu_zero_point(a, 0), zb = cpu_zero_point(b, 0);
  for (int i = 0; i < 256; i++) {
    int32_t q = cpu_q8_value(TFL_TYPE_INT8, i);
    st->ta[i] = cpu_mul_by_quantized_multiplier((q - za) * 128, ma, sa);
    st->tb[i] = cpu_mul_by_quantized_multiplier((q - zb) * 128, mb, sb);
  }
  st->zo = cpu_zero_point(y, 0);
  cpu_type_limits(TFL_TYPE_INT8, &st->lo, &st->hi);
  return TFL_OK;
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *a = cpu_in(g, n, INPUT_A), *b = cpu_in(g, n, INPUT_B), *y = cpu_out(g, n, OUTPUT);
  tfl_status s = cpu_check_binary_tensors(g, n, a, b, y, diag);
  if (s) return s;
  const bool cmp = is_compare(n->op);
  if (a->type != b->type || (!cmp && y->type != a->type) || (cmp && y->type != TFL_TYPE_BOOL))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "types %s, %s -> %s: expected equal input types and "
                        "%s output", tfl_type_name(a->type), tfl_type_name(b->type), tfl_type_name(y->type),
                        cmp ? "a bool" : "the same");
  if (a->type == TFL_TYPE_STRING && (n->op == TFL_OP_EQUAL || n->op == TFL_OP_NOT_EQUAL))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s inputs: string comparison is not implemented here",
                        tfl_type_name(a->type));
  if (!takes(n->op, a->type))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input type %s is not supported (as in TFLite)",
                        tfl_type_name(a->type));
  if (n->op == TFL_OP_ATAN2) {
    bool same = a->ndim == b->ndim;
    for (int i = 0; same && i < a->ndim; i++) same = a->dims[i] == b->dims[i];
    if (!same)
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "inputs have %d and %d dims of different sizes: "
                          "ATAN2 takes one shape (no broadcasting, as in TFLite)", a->ndim, b->ndim);
  }
  bin_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "%s state", tfl_op_name(n->op));
  *state = st;
  st->op = n->op;
  st->type = a->type;
  st->compare = cmp;
  if ((s = cpu_bcast_prepare(g, n, a, b, y, &st->bc, diag))) return s;
  switch (a->type) {
  case TFL_TYPE_INT8: st->bits = 8; break;
  case TFL_TYPE_UINT8: st->bits = 8; break;
  case TFL_TYPE_INT16: st->bits = 16; break;
  case TFL_TYPE_INT64: st->bits = 64; break;
  default: st->bits = 32; break;
  }
  if (cmp && cpu_is_q8(a->type)) {
    st->quantized = true;
    st->fa = cpu_q8_flip(a->type);
    st->fb = cpu_q8_flip(b->type);
    if ((s = compare_table(g, n, a, "input 0", st->ta, diag)) || (s = compare_table(g, n, b, "input 1", st->tb, diag)))
      return s;
  } else if (n->op == TFL_OP_SQUARED_DIFFERENCE && a->type == TFL_TYPE_INT8) {
    st->quantized = true;
    st->fa = st->fb = 0x80;
    return prepare_sqdiff_q8(g, n, st, a, b, y, diag);
  }
  return TFL_OK;
}

/* ---- element functions ---- */

static bool compare_f(tfl_op op, double a, double b)
{
  switch (op) {
  case TFL_OP_LESS: return a < b;
  case TFL_OP_LESS_EQUAL: return a <= b;
  case TFL_OP_GREATER: return a > b;
  case TFL_OP_GREATER_EQUAL: return a >= b;
  case TFL_OP_EQUAL: return a == b;
  default: return a != b; /* NOT_EQUAL */
  }
}
static bool compare_i(tfl_op op, int64_t a, int64_t b)
{
  switch (op) {
  case TFL_OP_LESS: return a < b;
  case TFL_OP_LESS_EQUAL: return a <= b;
  case TFL_OP_GREATER: return a > b;
  case TFL_OP_GREATER_EQUAL: return a >= b;
  case TFL_OP_EQUAL: return a == b;
  default: return a != b;
  }
}

static float binary_f(tfl_op op, float a, float b)
{
  switch (op) {
  case TFL_OP_POW: return powf(a, b);
  case TFL_OP_SQUARED_DIFFERENCE: return (a - b) * (a - b);
  case TFL_OP_FLOOR_DIV: return (float)floor((double)a / (double)b);
  case TFL_OP_FLOOR_MOD: {
    float m = fmodf(a, b);
    return (m != 0.0f && ((b < 0.0f) != (m < 0.0f))) ? m + b : m;
  }
  case TFL_OP_ATAN2: return atan2f(a, b);
  default: return 0.0f;
  }
}

/* int32 by repeated squaring, wrapping (the exponent is >= 0: eval checked). */
static int32_t pow_i32(int32_t base, int32_t e)
{
  uint32_t r = 1, x = (uint32_t)base;
  for (uint32_t k = (uint32_t)e; k; k >>= 1) {
    if (k & 1) r *= x;
    x *= x;
  }
  return (int32_t)r;
}

/* Integer ops on values of a `bits`-wide type held in int64; the caller truncates. */
static int64_t binary_i(const bin_state *st, int64_t a, int64_t b)
{
  switch (st->op) {
  case TFL_OP_POW: return pow_i32((int32_t)a, (int32_t)b);
  case TFL_OP_SQUARED_DIFFERENCE: {
    uint32_t d = (uint32_t)a - (uint32_t)b;
    return (int32_t)(d * d);
  }
  case TFL_OP_FLOOR_DIV: { /* TFLite: floor of the double quotient, converted to int32 */
    double q = floor((double)a / (double)b);
    return (q >= -2147483648.0 && q < 2147483648.0) ? (int64_t)q : INT32_MIN;
  }
  case TFL_OP_FLOOR_MOD: {
    if (b == -1) return 0; /* also keeps INT_MIN % -1 defined */
    int64_t m = a % b;
    return (m != 0 && ((b < 0) != (m < 0))) ? m + b : m;
  }
  case TFL_OP_BITWISE_XOR: return a ^ b;
  case TFL_OP_RIGHT_SHIFT: { /* the shift clamped to [0, bits - 1]; arithmetic for signed types */
    int64_t sh = b < 0 ? 0 : (b > st->bits - 1 ? st->bits - 1 : b);
    return a < 0 ? ~(~a >> sh) : a >> sh;
  }
  default: return 0;
  }
}

static inline int64_t load_i(const void *p, tfl_type t, size_t i)
{
  switch (t) {
  case TFL_TYPE_INT8: return ((const int8_t *)p)[i];
  case TFL_TYPE_INT16: return ((const int16_t *)p)[i];
  case TFL_TYPE_INT32: return ((const int32_t *)p)[i];
  case TFL_TYPE_INT64: return ((const int64_t *)p)[i];
  default: return ((const uint8_t *)p)[i]; /* UINT8, BOOL */
  }
}
static inline void store_i(void *p, tfl_type t, size_t i, int64_t v)
{
  switch (t) {
  case TFL_TYPE_INT8: ((int8_t *)p)[i] = (int8_t)(uint8_t)v; break;
  case TFL_TYPE_INT16: ((int16_t *)p)[i] = (int16_t)(uint16_t)v; break;
  case TFL_TYPE_INT32: ((int32_t *)p)[i] = (int32_t)(uint32_t)v; break;
  case TFL_TYPE_INT64: ((int64_t *)p)[i] = v; break;
  default: ((uint8_t *)p)[i] = (uint8_t)v; break;
  }
}

/* ---- rows ---- */

typedef struct {
  const bin_state *st;
  const void *a, *b;
  void *y;
  size_t tasks;
} bin_job;

static void row_f32(void *arg, size_t ao, size_t ia, size_t bo, size_t ib, size_t yo, size_t len)
{
  const bin_job *j = arg;
  const tfl_op op = j->st->op;
  const float *a = (const float *)j->a + ao, *b = (const float *)j->b + bo;
  if (j->st->compare) {
    uint8_t *y = (uint8_t *)j->y + yo;
    for (size_t k = 0; k < len; k++) y[k] = compare_f(op, a[k * ia], b[k * ib]);
  } else if (op == TFL_OP_SQUARED_DIFFERENCE) { /* LayerNorm's variance: its own loop */
    float *y = (float *)j->y + yo;
    for (size_t k = 0; k < len; k++) {
      const float d = a[k * ia] - b[k * ib];
      y[k] = d * d;
    }
  } else {
    float *y = (float *)j->y + yo;
    for (size_t k = 0; k < len; k++) y[k] = binary_f(op, a[k * ia], b[k * ib]);
  }
}

static void row_int(void *arg, size_t ao, size_t ia, size_t bo, size_t ib, size_t yo, size_t len)
{
  const bin_job *j = arg;
  const bin_state *st = j->st;
  const tfl_type t = st->type;
  if (st->compare) {
    uint8_t *y = (uint8_t *)j->y + yo;
    for (size_t k = 0; k < len; k++)
      y[k] = compare_i(st->op, load_i(j->a, t, ao + k * ia), load_i(j->b, t, bo + k * ib));
  } else if (st->op == TFL_OP_LOGICAL_OR) {
    const uint8_t *a = (const uint8_t *)j->a + ao, *b = (const uint8_t *)j->b + bo;
    uint8_t *y = (uint8_t *)j->y + yo;
    for (size_t k = 0; k < len; k++) y[k] = a[k * ia] || b[k * ib];
  } else {
    for (size_t k = 0; k < len; k++)
      store_i(j->y, t, yo + k, binary_i(st, load_i(j->a, t, ao + k * ia), load_i(j->b, t, bo + k * ib)));
  }
}

static void row_q8(void *arg, size_t ao, size_t ia, size_t bo, size_t ib, size_t yo, size_t len)
{
  const bin_job *j = arg;
  const bin_state *st = j->st;
  const uint8_t *a = (const uint8_t *)j->a + ao, *b = (const uint8_t *)j->b + bo;
  uint8_t *y = (uint8_t *)j->y + yo;
  if (st->compare) {
    for (size_t k = 0; k < len; k++)
      y[k] = compare_i(st->op, st->ta[a[k * ia] ^ st->fa], st->tb[b[k * ib] ^ st->fb]);
    return;
  }
  for (size_t k = 0; k < len; k++) { /* SQUARED_DIFFERENCE int8 */
    const int32_t d = st->ta[a[k * ia] ^ st->fa] - st->tb[b[k * ib] ^ st->fb];
    const int32_t v = cpu_mul_by_quantized_multiplier(d * d, st->mo, st->so) + st->zo;
    y[k] = (uint8_t)cpu_clamp_i32(v, st->lo, st->hi);
  }
}

static void task(void *arg, size_t i)
{
  const bin_job *j = arg;
  const bin_state *st = j->st;
  size_t begin, end;
  cpu_task_range(i, j->tasks, st->bc.count, &begin, &end);
  cpu_bcast_row row = st->quantized ? row_q8 : st->type == TFL_TYPE_FLOAT32 ? row_f32 : row_int;
  cpu_bcast_walk(&st->bc, begin, end, row, (void *)j);
}

/* The divisor/exponent checks TFLite makes at invoke, over the whole second input. */
static tfl_status check_b(const tfl_graph *g, const tfl_node *n, const bin_state *st, const tfl_tensor *b,
                          tfl_diag *diag)
{
  const size_t count = tfl_tensor_count(b);
  const bool zero = st->op == TFL_OP_FLOOR_DIV || (st->op == TFL_OP_FLOOR_MOD && st->type != TFL_TYPE_FLOAT32);
  const bool negative = st->op == TFL_OP_POW && st->type == TFL_TYPE_INT32;
  if (!zero && !negative) return TFL_OK;
  for (size_t k = 0; k < count; k++) {
    const double v = st->type == TFL_TYPE_FLOAT32 ? ((const float *)b->data)[k] : (double)load_i(b->data, st->type, k);
    if (zero && v == 0.0)
      return CPU_NODE_ERR(diag, TFL_ERR_ARG, g, n, "division by zero: input 1 element %zu is 0", k);
    if (negative && v < 0.0)
      return CPU_NODE_ERR(diag, TFL_ERR_ARG, g, n, "int32 exponent %g (input 1 element %zu) is negative", v, k);
  }
  return TFL_OK;
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const bin_state *st = state;
  const tfl_tensor *b = cpu_in(g, n, INPUT_B);
  tfl_status s = check_b(g, n, st, b, diag);
  if (s) return s;
  bin_job j = { st, cpu_in(g, n, INPUT_A)->data, b->data, cpu_out(g, n, OUTPUT)->data, 0 };
  j.tasks = cpu_task_count(ctx, st->bc.count, 16384);
  cpu_parallel(ctx, task, &j, j.tasks);
  return TFL_OK;
}

/* ---- ADD_N ---- */

static tfl_status prepare_add_n(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, y, "output", -1, diag))) return s;
  if (y->type != TFL_TYPE_FLOAT32 && y->type != TFL_TYPE_INT32)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "type %s is not supported (as in TFLite: float32, int32)",
                        tfl_type_name(y->type));
  for (int i = 0; i < n->n_in; i++) {
    const tfl_tensor *x = cpu_in(g, n, i);
    char what[32];
    snprintf(what, sizeof what, "input %d", i);
    if ((s = cpu_check_tensor(g, n, x, what, y->ndim, diag))) return s;
    if (x->type != y->type)
      return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input %d is %s, output %s", i, tfl_type_name(x->type),
                          tfl_type_name(y->type));
    for (int d = 0; d < y->ndim; d++)
      if (x->dims[d] != y->dims[d])
        return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input %d dim %d is %d, output's %d (all shapes must match)",
                            i, d, x->dims[d], y->dims[d]);
  }
  bin_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "ADD_N state");
  *state = st;
  st->op = n->op;
  st->type = y->type;
  st->count = tfl_tensor_count(y);
  return TFL_OK;
}

typedef struct {
  const tfl_graph *g;
  const tfl_node *n;
  const bin_state *st;
  size_t tasks;
} add_n_job;

/* Sums the inputs in order, element by element (int32 wraps). */
static void add_n_task(void *arg, size_t i)
{
  const add_n_job *j = arg;
  const tfl_node *n = j->n;
  size_t b, e;
  cpu_task_range(i, j->tasks, j->st->count, &b, &e);
  void *out = cpu_out(j->g, n, OUTPUT)->data;
  if (j->st->type == TFL_TYPE_FLOAT32) {
    float *y = out;
    const float *x0 = cpu_in(j->g, n, 0)->data;
    for (size_t k = b; k < e; k++) y[k] = x0[k];
    for (int t = 1; t < n->n_in; t++) {
      const float *x = cpu_in(j->g, n, t)->data;
      for (size_t k = b; k < e; k++) y[k] += x[k];
    }
  } else {
    int32_t *y = out;
    const int32_t *x0 = cpu_in(j->g, n, 0)->data;
    for (size_t k = b; k < e; k++) y[k] = x0[k];
    for (int t = 1; t < n->n_in; t++) {
      const int32_t *x = cpu_in(j->g, n, t)->data;
      for (size_t k = b; k < e; k++) y[k] = cpu_wrap_add(y[k], x[k]);
    }
  }
}

static tfl_status eval_add_n(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)diag;
  add_n_job j = { g, n, state, 0 };
  j.tasks = cpu_task_count(ctx, j.st->count, 16384);
  cpu_parallel(ctx, add_n_task, &j, j.tasks);
  return TFL_OK;
}

const cpu_kernel cpu_k_pow = {prepare, eval, release, CPU_F32 | CPU_I32, 0};
const cpu_kernel cpu_k_squared_difference = {prepare, eval, release, CPU_F32 | CPU_I32 | CPU_TYPE(TFL_TYPE_INT8), 0};
const cpu_kernel cpu_k_floor_div = {prepare, eval, release, CPU_F32 | CPU_TYPE(TFL_TYPE_INT8) | CPU_I16 | CPU_I32, 0};
const cpu_kernel cpu_k_floor_mod = {prepare, eval, release, CPU_F32 | CPU_TYPE(TFL_TYPE_INT8) | CPU_I16 | CPU_I32 | CPU_I64, 0};
const cpu_kernel cpu_k_less = {prepare, eval, release, CPU_F32 | CPU_Q8 | CPU_I16 | CPU_I32 | CPU_I64, 0};
const cpu_kernel cpu_k_less_equal = {prepare, eval, release, CPU_F32 | CPU_Q8 | CPU_I16 | CPU_I32 | CPU_I64, 0};
const cpu_kernel cpu_k_greater = {prepare, eval, release, CPU_F32 | CPU_Q8 | CPU_I16 | CPU_I32 | CPU_I64, 0};
const cpu_kernel cpu_k_greater_equal = {prepare, eval, release, CPU_F32 | CPU_Q8 | CPU_I16 | CPU_I32 | CPU_I64, 0};
const cpu_kernel cpu_k_equal = {prepare, eval, release, CPU_F32 | CPU_Q8 | CPU_I16 | CPU_I32 | CPU_I64 | CPU_BOOL, 0};
const cpu_kernel cpu_k_not_equal = {prepare, eval, release, CPU_F32 | CPU_Q8 | CPU_I16 | CPU_I32 | CPU_I64 | CPU_BOOL, 0};
const cpu_kernel cpu_k_logical_or = {prepare, eval, release, CPU_BOOL, 0};
const cpu_kernel cpu_k_atan2 = {prepare, eval, release, CPU_F32, 0};
const cpu_kernel cpu_k_bitwise_xor = {prepare, eval, release, CPU_Q8 | CPU_I16 | CPU_I32, 0};
const cpu_kernel cpu_k_right_shift = {prepare, eval, release, CPU_Q8 | CPU_I16 | CPU_I32, 0};
const cpu_kernel cpu_k_add_n = {prepare_add_n, eval_add_n, release, CPU_F32 | CPU_I32, 0};
