/* elementwise.c - binary element-wise ops with NumPy broadcasting (up to 6 dims):
 * ADD, SUB, MUL, DIV (fused clamp activation), MAXIMUM, MINIMUM, LOGICAL_AND.
 * Types: float32; int32; int64 (ADD, SUB, MUL, MAXIMUM, MINIMUM; wrapping, fused clamp);
 * uint8/int8 per-tensor quantized (inputs and output may have different scales); int16
 * symmetric quantized ADD, SUB, MUL, DIV (TFLite's general fixed point; ADD/SUB with all three
 * scales powers of two take TFLite's other, shift-only path: refused); int16 MAXIMUM,
 * MINIMUM on the stored values (as TFLite compares them); bool for LOGICAL_AND.
 *
 * Quantized math follows TensorFlow Lite bit for bit. ADD/SUB/MUL run through XNNPACK
 * there when the scale ratios are in its range: ADD/SUB as integer multipliers (20-bit,
 * shared shift) plus a rounding bias and an arithmetic shift, MUL in the fp32 scheme
 * (cpu_requant_fp32). Out of XNNPACK's range TFLite's builtin fixed-point kernels run
 * (inputs scaled by 2^20 - 2^15 for int16 - and Q31 multipliers; MUL one Q31 multiplier).
 * Quantized DIV (8-bit and int16) follows TFLite's integer division (tfl_div_q) bit for
 * bit; quantized MAXIMUM/MINIMUM compare and copy the stored values, as TFLite does (the
 * quantization is not looked at). The other ops
 * dequantize each input's 256 codes into a table once, run in double and round half
 * away from zero.
 * eval splits the flat output range over threads; rows of the innermost (merged) dim
 * run as contiguous loops with the repeated operand hoisted.
 */
#include "eltwise_common.h"

#include <float.h>
#include <math.h>

enum { INPUT_A = 0, INPUT_B = 1 };
enum { OUTPUT = 0 };

typedef enum { BIN_ADD, BIN_SUB, BIN_MUL, BIN_DIV, BIN_MAX, BIN_MIN, BIN_AND } bin_op;

typedef struct {
  bin_op op;
  tfl_type type;
  cpu_bcast bc;
  bool clamp;            /* float: a fused activation clamps */
  float lo, hi;
  int32_t ilo, ihi;      /* int32 and quantized: output range */
  uint8_t fa, fb;        /* quantized: byte -> table index flips */
  int32_t zo;
  double ta[256], tb[256]; /* quantized: real value of each code, times 1/out_scale where linear */
  enum { QM_TABLE, QM_XNN_ADD, QM_XNN_MUL, QM_TFL_ADD, QM_TFL_MUL, QM_TFL_DIV, QM_RAW } qmode;
  int32_t za, zb;        /* quantized integer modes: input zero points */
  int32_t ma, mb, bias;  /* QM_XNN_ADD: multipliers, bias (rounding less zero points) */
  int shift;             /* QM_XNN_ADD: right shift */
  float scale;           /* QM_XNN_MUL: a_scale * b_scale / out_scale */
  int32_t qa, qb, qo;    /* QM_TFL_*: Q31 multipliers of a, b (ADD) and the output (DIV too) */
  int sa, sb, so;        /* QM_TFL_*: their exponents */
  int lshift;            /* QM_TFL_ADD: inputs scaled by 2^lshift (20; int16: 15) */
  int64_t llo, lhi;      /* int64: output range of the fused activation */
} bin_state;

static bin_op op_of(tfl_op op)
{
  /* only this file's ops reach here (kernel table) */
  if (op == TFL_OP_SUB) return BIN_SUB;
  if (op == TFL_OP_MUL) return BIN_MUL;
  if (op == TFL_OP_DIV) return BIN_DIV;
  if (op == TFL_OP_MAXIMUM) return BIN_MAX;
  if (op == TFL_OP_MINIMUM) return BIN_MIN;
  if (op == TFL_OP_LOGICAL_AND) return BIN_AND;
  return BIN_ADD;
}

static bool has_activation(bin_op op)
{
  return op == BIN_ADD || op == BIN_SUB || op == BIN_MUL || op == BIN_DIV;
}

static void release(void *state)
{
  free(state);
}

/* TFLite's general quantized ADD/SUB: each input (less its zero point) shifted left by
 * `lshift` and scaled to twice the larger input scale, summed (SUB: subtracted), one output
 * multiplier. */
static void prepare_tfl_add(bin_state *st, float fa, float fb, float fy, int lshift)
{
  st->qmode = QM_TFL_ADD;
  st->lshift = lshift;
  double twice_max = 2.0 * (fa > fb ? fa : fb);
  cpu_quantize_multiplier(fa / twice_max, &st->qa, &st->sa);
  cpu_quantize_multiplier(fb / twice_max, &st->qb, &st->sb);
  cpu_quantize_multiplier(twice_max / ((double)(1 << lshift) * fy), &st->qo, &st->so);
}

/* TFLite's quantized DIV: one multiplier in_a / (in_b * out), formed in float32 as TFLite
 * does. */
static void prepare_tfl_div(bin_state *st, float fa, float fb, float fy)
{
  st->qmode = QM_TFL_DIV;
  volatile float den = fb * fy; /* float32 intermediate, as TFLite */
  cpu_quantize_multiplier((double)(fa / den), &st->qo, &st->so);
}

/* TFLite's CheckedLog2: a scale within 1e-3 (in log2) of a power of two. */
static bool is_pot_scale(float scale)
{
  float l = logf(scale) * (1.0f / logf(2.0f));
  return fabsf(l - roundf(l)) < 1e-3f;
}

/* TFLite's builtin MUL: one fixed-point multiplier for fa * fb / fy. */
static void prepare_tfl_mul(bin_state *st, float fa, float fb, float fy)
{
  st->qmode = QM_TFL_MUL;
  cpu_quantize_multiplier((double)fa * fb / fy, &st->qo, &st->so);
}

/* int16 (symmetric) ADD, SUB, MUL: TFLite's builtin fixed point (no XNNPACK path). */
static tfl_status prepare_q16(const tfl_graph *g, const tfl_node *n, bin_state *st, const tfl_tensor *a,
                              const tfl_tensor *b, const tfl_tensor *y, tfl_activation act, tfl_diag *diag)
{
  tfl_status s = cpu_check_binary_per_tensor(g, n, a, b, y, diag);
  if (s) return s;
  if (cpu_zero_point(a, 0) || cpu_zero_point(b, 0) || cpu_zero_point(y, 0))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "int16 zero points %d, %d, %d: expected 0",
                        (int)cpu_zero_point(a, 0), (int)cpu_zero_point(b, 0), (int)cpu_zero_point(y, 0));
  float fa = cpu_scale(a, 0), fb = cpu_scale(b, 0), fy = cpu_scale(y, 0);
  st->za = st->zb = st->zo = 0;
  cpu_activation_range_q(act, fy, 0, TFL_TYPE_INT16, &st->ilo, &st->ihi);
  if (st->op == BIN_MUL) {
    prepare_tfl_mul(st, fa, fb, fy);
    return TFL_OK;
  }
  if (st->op == BIN_DIV) {
    prepare_tfl_div(st, fa, fb, fy);
    return TFL_OK;
  }
  if (is_pot_scale(fa) && is_pot_scale(fb) && is_pot_scale(fy))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "int16 scales %g, %g, %g are all powers of two: "
                        "TFLite's shift-only int16 path is not implemented", (double)fa, (double)fb, (double)fy);
  prepare_tfl_add(st, fa, fb, fy, 15);
  return TFL_OK;
}

static tfl_status prepare_quant(const tfl_graph *g, const tfl_node *n, bin_state *st,
                                const tfl_tensor *a, const tfl_tensor *b, const tfl_tensor *y,
                                tfl_activation act, tfl_diag *diag)
{
  tfl_status s = cpu_check_binary_per_tensor(g, n, a, b, y, diag);
  if (s) return s;
  double inv = 1.0 / cpu_scale(y, 0);
  st->fa = cpu_q8_flip(a->type);
  st->fb = cpu_q8_flip(b->type);
  st->zo = cpu_zero_point(y, 0);
  cpu_activation_range_q(act, cpu_scale(y, 0), st->zo, y->type, &st->ilo, &st->ihi);
  st->za = cpu_zero_point(a, 0);
  st->zb = cpu_zero_point(b, 0);
  float fa = cpu_scale(a, 0), fb = cpu_scale(b, 0), fy = cpu_scale(y, 0);
  if (st->op == BIN_ADD || st->op == BIN_SUB) {
    float ra = fa / fy, rb = fb / fy; /* XNNPACK takes 2^-10 <= ratio < 2^8 */
    if (ra >= 0x1.0p-10f && ra < 0x1.0p8f && rb >= 0x1.0p-10f && rb < 0x1.0p8f) {
      st->qmode = QM_XNN_ADD;
      int e;
      frexpf(ra > rb ? ra : rb, &e); /* max ratio in [2^(e-1), 2^e) */
      st->shift = 20 - (e - 1);      /* the larger multiplier gets 21 bits */
      st->ma = (int32_t)lrintf(ldexpf(ra, st->shift));
      st->mb = (int32_t)lrintf(ldexpf(rb, st->shift));
      if (st->op == BIN_SUB) st->mb = -st->mb;
      st->bias = (INT32_C(1) << (st->shift - 1)) - st->ma * st->za - st->mb * st->zb;
    } else {
      prepare_tfl_add(st, fa, fb, fy, 20);
    }
    return TFL_OK;
  }
  if (st->op == BIN_MUL) {
    float r = fa * fb / fy;
    if (r >= 0x1.0p-16f && r < 0x1.0p8f) {
      st->qmode = QM_XNN_MUL;
      st->scale = cpu_requant_scale(fa, fb, fy);
    } else {
      prepare_tfl_mul(st, fa, fb, fy);
    }
    return TFL_OK;
  }
  if (st->op == BIN_DIV) {
    prepare_tfl_div(st, fa, fb, fy);
    return TFL_OK;
  }
  st->qmode = QM_TABLE;
  cpu_q8_dequant_table(a, st->ta);
  cpu_q8_dequant_table(b, st->tb);
  /* fold 1/out_scale: into a alone for MUL/DIV, into both for the linear/monotonic ops */
  bool both = st->op != BIN_MUL && st->op != BIN_DIV;
  for (int i = 0; i < 256; i++) {
    st->ta[i] *= inv;
    if (both) st->tb[i] *= inv;
  }
  return TFL_OK;
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *a = cpu_in(g, n, INPUT_A), *b = cpu_in(g, n, INPUT_B), *y = cpu_out(g, n, OUTPUT);
  tfl_status s = cpu_check_binary_tensors(g, n, a, b, y, diag);
  if (s) return s;
  bin_op op = op_of(n->op);
  tfl_activation act = has_activation(op) ? n->p.eltwise.act : TFL_ACT_NONE;
  bool q8 = cpu_is_q8(a->type) && cpu_is_q8(b->type) && cpu_is_q8(y->type) && a->type == y->type &&
            b->type == y->type;
  if (!q8 && (a->type != y->type || b->type != y->type))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "inputs %s and %s, output %s: types differ",
                        tfl_type_name(a->type), tfl_type_name(b->type), tfl_type_name(y->type));
  bool ok;
  if (op == BIN_AND)
    ok = y->type == TFL_TYPE_BOOL;
  else if (y->type == TFL_TYPE_INT64)
    ok = op != BIN_DIV; /* TFLite's DIV: float32, int32, quantized 8-bit and int16 */
  else if (y->type == TFL_TYPE_INT16)
    ok = true;
  else
    ok = y->type == TFL_TYPE_FLOAT32 || y->type == TFL_TYPE_INT32 || q8;
  if (!ok) return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "type %s", tfl_type_name(y->type));

  bin_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "element-wise state");
  *state = st;
  st->op = op;
  st->type = y->type;
  if ((s = cpu_bcast_prepare(g, n, a, b, y, &st->bc, diag))) return s;
  if (q8 && (op == BIN_MAX || op == BIN_MIN)) { /* stored values, whatever the quantization */
    st->qmode = QM_RAW;
    cpu_type_limits(y->type, &st->ilo, &st->ihi);
    return TFL_OK;
  }
  if (q8) return prepare_quant(g, n, st, a, b, y, act, diag);
  if (y->type == TFL_TYPE_INT16 && op != BIN_MAX && op != BIN_MIN) return prepare_q16(g, n, st, a, b, y, act, diag);
  if (y->type == TFL_TYPE_INT64) { /* TFLite's CalculateActivationRange for integers */
    st->llo = INT64_MIN;
    st->lhi = INT64_MAX;
    if (act == TFL_ACT_RELU || act == TFL_ACT_RELU6) st->llo = 0;
    if (act == TFL_ACT_RELU6) st->lhi = 6;
    if (act == TFL_ACT_RELU_N1_TO_1) {
      st->llo = -1;
      st->lhi = 1;
    }
  }
  cpu_activation_range_f(act, &st->lo, &st->hi);
  /* TFLite's float add/sub/mul/div clamp with the range even for NONE ([lowest, max]): an
   * overflow saturates at +-FLT_MAX (its builtin kernels, ai-edge-litert without XNNPACK) */
  st->clamp = has_activation(op) || st->lo > -FLT_MAX || st->hi < FLT_MAX;
  cpu_activation_range_q(act, 1.0f, 0, TFL_TYPE_INT32, &st->ilo, &st->ihi);
  return TFL_OK;
}

typedef struct {
  const bin_state *st;
  const void *a, *b;
  void *y;
} bin_args;

/* Runs `expr` (of a_ and b_) over one row, hoisting whichever operand repeats. */
#define ROW_LOOP(T, expr)                                                                       \
  do {                                                                                          \
    if (ia && ib) {                                                                             \
      for (size_t k = 0; k < len; k++) {                                                        \
        T a_ = a[k], b_ = b[k];                                                                 \
        y[k] = (expr);                                                                          \
      }                                                                                         \
    } else if (ib) {                                                                            \
      const T a_ = a[0];                                                                        \
      for (size_t k = 0; k < len; k++) {                                                        \
        T b_ = b[k];                                                                            \
        y[k] = (expr);                                                                          \
      }                                                                                         \
    } else {                                                                                    \
      const T b_ = b[0];                                                                        \
      for (size_t k = 0; k < len; k++) {                                                        \
        T a_ = a[k * ia];                                                                       \
        y[k] = (expr);                                                                          \
      }                                                                                         \
    }                                                                                           \
  } while (0)

static void row_f32(void *arg, size_t ao, size_t ia, size_t bo, size_t ib, size_t yo, size_t len)
{
  const bin_args *x = arg;
  const bin_state *st = x->st;
  const float *a = (const float *)x->a + ao, *b = (const float *)x->b + bo;
  float *y = (float *)x->y + yo;
  switch (st->op) {
  case BIN_ADD: ROW_LOOP(float, a_ + b_); break;
  case BIN_SUB: ROW_LOOP(float, a_ - b_); break;
  case BIN_MUL: ROW_LOOP(float, a_ * b_); break;
  case BIN_DIV: ROW_LOOP(float, a_ / b_); break;
  case BIN_MAX: ROW_LOOP(float, a_ > b_ ? a_ : b_); break;
  case BIN_MIN: ROW_LOOP(float, a_ < b_ ? a_ : b_); break;
  case BIN_AND: break;
  }
  if (st->clamp) {
    const float lo = st->lo, hi = st->hi;
    for (size_t k = 0; k < len; k++) y[k] = y[k] < lo ? lo : (y[k] > hi ? hi : y[k]);
  }
}

static int32_t div_i32(int32_t a, int32_t b)
{
  if (b == 0) return 0;
  if (a == INT32_MIN && b == -1) return INT32_MAX;
  return a / b;
}

static void row_i32(void *arg, size_t ao, size_t ia, size_t bo, size_t ib, size_t yo, size_t len)
{
  const bin_args *x = arg;
  const bin_state *st = x->st;
  const int32_t *a = (const int32_t *)x->a + ao, *b = (const int32_t *)x->b + bo;
  int32_t *y = (int32_t *)x->y + yo;
  /* wrap-around add/sub/mul through uint32 (TFLite's int32 arithmetic overflows the same) */
  switch (st->op) {
  case BIN_ADD: ROW_LOOP(int32_t, (int32_t)((uint32_t)a_ + (uint32_t)b_)); break;
  case BIN_SUB: ROW_LOOP(int32_t, (int32_t)((uint32_t)a_ - (uint32_t)b_)); break;
  case BIN_MUL: ROW_LOOP(int32_t, (int32_t)((uint32_t)a_ * (uint32_t)b_)); break;
  case BIN_DIV: ROW_LOOP(int32_t, div_i32(a_, b_)); break;
  case BIN_MAX: ROW_LOOP(int32_t, a_ > b_ ? a_ : b_); break;
  case BIN_MIN: ROW_LOOP(int32_t, a_ < b_ ? a_ : b_); break;
  case BIN_AND: break;
  }
  for (size_t k = 0; k < len; k++) y[k] = cpu_clamp_i32(y[k], st->ilo, st->ihi);
}

static void row_bool(void *arg, size_t ao, size_t ia, size_t bo, size_t ib, size_t yo, size_t len)
{
  const bin_args *x = arg;
  const uint8_t *a = (const uint8_t *)x->a + ao, *b = (const uint8_t *)x->b + bo;
  uint8_t *y = (uint8_t *)x->y + yo;
  ROW_LOOP(uint8_t, (uint8_t)(a_ && b_));
}

/* Quantized: tables give reals (scaled), the op runs in double, then round and clamp. */
static void row_q8(void *arg, size_t ao, size_t ia, size_t bo, size_t ib, size_t yo, size_t len)
{
  const bin_args *x = arg;
  const bin_state *st = x->st;
  const uint8_t *pa = (const uint8_t *)x->a + ao, *pb = (const uint8_t *)x->b + bo;
  uint8_t *y = (uint8_t *)x->y + yo;
  const uint8_t fa = st->fa, fb = st->fb;
  for (size_t k = 0; k < len; k++) {
    double a = st->ta[pa[k * ia] ^ fa], b = st->tb[pb[k * ib] ^ fb], v = 0.0;
    switch (st->op) {
    case BIN_ADD: v = a + b; break;
    case BIN_SUB: v = a - b; break;
    case BIN_MUL: v = a * b; break;
    case BIN_DIV: v = b != 0.0 ? a / b : 0.0; break;
    case BIN_MAX: v = a > b ? a : b; break;
    case BIN_MIN: v = a < b ? a : b; break;
    case BIN_AND: break;
    }
    y[k] = (uint8_t)cpu_q8_quantize(v, 1.0, st->zo, st->ilo, st->ihi);
  }
}

/* gemmlowp's RoundingDivideByPOT as TFLite's x86 build runs it, also for an exponent of 32
 * or more that its division reaches (input -1: 31 bits of headroom): the mask is then all
 * ones and the shift count wraps modulo 32, as the shift instruction does. */
static int32_t rdpot_x86(int32_t x, int exponent)
{
  if (exponent <= 0) return x;
  int32_t mask = (int32_t)(uint32_t)((UINT64_C(1) << (exponent < 63 ? exponent : 63)) - 1);
  int32_t rem = x & mask;
  int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> (exponent & 31)) + (rem > threshold ? 1 : 0);
}

/* gemmlowp's SaturatingRoundingMultiplyByPOT for exponent e > 0: x * 2^e saturated. */
static int32_t sat_mul_pot(int32_t x, int e)
{
  const int32_t threshold = (int32_t)((UINT32_C(1) << (31 - e)) - 1);
  if (x > threshold) return INT32_MAX;
  if (x < -threshold) return INT32_MIN;
  return (int32_t)((uint32_t)x << e);
}

/* 1 / (1 + x) for x in [0, 1) in Q0.31 (gemmlowp's one_over_one_plus_x_for_x_in_0_1): three
 * Newton-Raphson steps on half the denominator, in Q2.29 from 48/17 - 32/17 d. */
static int32_t one_over_one_plus_x(int32_t x)
{
  const int64_t sum = (int64_t)x + INT32_MAX;
  const int32_t half_den = (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
  int32_t r = (int32_t)((uint32_t)1515870810 + (uint32_t)cpu_srdhm(half_den, -1010580540));
  for (int i = 0; i < 3; i++) {
    const int32_t one_minus = (int32_t)((1u << 29) - (uint32_t)cpu_srdhm(half_den, r));
    r = (int32_t)((uint32_t)r + (uint32_t)sat_mul_pot(cpu_srdhm(r, one_minus), 2));
  }
  return sat_mul_pot(r, 1);
}

/* TFLite's quantized division of a = qa - za by b = qb - zb (b's sign moved to a): b's
 * reciprocal in Q0.31 with its exponent, a normalized by its headroom, one output
 * multiplier, the output zero point added. b == 0 (TFLite leaves it undefined): the
 * output's extreme of a's sign. */
static int32_t tfl_div_q(const bin_state *st, int32_t a, int32_t b)
{
  if (b == 0) return a >= 0 ? st->ihi : st->ilo;
  if (b < 0) {
    a = -a;
    b = -b;
  }
  const int lz = __builtin_clz((uint32_t)b);
  const int recip_shift = 31 - lz;
  const int32_t inv = one_over_one_plus_x((int32_t)(((uint32_t)b << lz) - UINT32_C(0x80000000)));
  const int headroom = a ? __builtin_clrsb(a) : 31;
  const int32_t quotient = cpu_srdhm((int32_t)((uint32_t)a << headroom), inv);
  const int total_shift = st->so - recip_shift - headroom;
  return rdpot_x86(cpu_srdhm(quotient, st->qo), -total_shift) + st->zo;
}

/* Integer modes: TFLite's arithmetic on raw values qa, qb -> stored integer. */
static inline int32_t q8_int_op(const bin_state *st, int32_t qa, int32_t qb)
{
  int32_t v = 0;
  switch (st->qmode) {
  case QM_XNN_ADD: /* arithmetic shift: rounds half up, as XNNPACK */
    v = ((st->bias + qa * st->ma + qb * st->mb) >> st->shift) + st->zo;
    break;
  case QM_XNN_MUL:
    return cpu_requant_fp32((qa - st->za) * (qb - st->zb), st->scale, st->zo, st->ilo, st->ihi);
  case QM_TFL_ADD: {
    int32_t sa = cpu_mul_by_quantized_multiplier((qa - st->za) * (1 << st->lshift), st->qa, st->sa);
    int32_t sb = cpu_mul_by_quantized_multiplier((qb - st->zb) * (1 << st->lshift), st->qb, st->sb);
    v = cpu_mul_by_quantized_multiplier(st->op == BIN_SUB ? sa - sb : sa + sb, st->qo, st->so) + st->zo;
    break;
  }
  case QM_TFL_MUL:
    v = cpu_mul_by_quantized_multiplier((qa - st->za) * (qb - st->zb), st->qo, st->so) + st->zo;
    break;
  case QM_TFL_DIV: v = tfl_div_q(st, qa - st->za, qb - st->zb); break;
  case QM_RAW: v = st->op == BIN_MAX ? (qa > qb ? qa : qb) : (qa < qb ? qa : qb); break;
  case QM_TABLE: break;
  }
  return cpu_clamp_i32(v, st->ilo, st->ihi);
}

static void row_q8_int(void *arg, size_t ao, size_t ia, size_t bo, size_t ib, size_t yo, size_t len)
{
  const bin_args *x = arg;
  const bin_state *st = x->st;
  uint8_t *y = (uint8_t *)x->y + yo;
  if (st->type == TFL_TYPE_UINT8) {
    const uint8_t *pa = (const uint8_t *)x->a + ao, *pb = (const uint8_t *)x->b + bo;
    for (size_t k = 0; k < len; k++) y[k] = (uint8_t)q8_int_op(st, pa[k * ia], pb[k * ib]);
  } else {
    const int8_t *pa = (const int8_t *)x->a + ao, *pb = (const int8_t *)x->b + bo;
    for (size_t k = 0; k < len; k++) y[k] = (uint8_t)q8_int_op(st, pa[k * ia], pb[k * ib]);
  }
}

/* int16: quantized ADD/SUB/MUL (TFLite's fixed point) or MAXIMUM/MINIMUM of stored values */
static void row_i16(void *arg, size_t ao, size_t ia, size_t bo, size_t ib, size_t yo, size_t len)
{
  const bin_args *x = arg;
  const bin_state *st = x->st;
  const int16_t *a = (const int16_t *)x->a + ao, *b = (const int16_t *)x->b + bo;
  int16_t *y = (int16_t *)x->y + yo;
  switch (st->op) {
  case BIN_MAX: ROW_LOOP(int16_t, a_ > b_ ? a_ : b_); break;
  case BIN_MIN: ROW_LOOP(int16_t, a_ < b_ ? a_ : b_); break;
  default:
    for (size_t k = 0; k < len; k++) y[k] = (int16_t)q8_int_op(st, a[k * ia], b[k * ib]);
    break;
  }
}

/* int64: wrap-around through uint64, then the fused activation's clamp */
static void row_i64(void *arg, size_t ao, size_t ia, size_t bo, size_t ib, size_t yo, size_t len)
{
  const bin_args *x = arg;
  const bin_state *st = x->st;
  const int64_t *a = (const int64_t *)x->a + ao, *b = (const int64_t *)x->b + bo;
  int64_t *y = (int64_t *)x->y + yo;
  switch (st->op) {
  case BIN_ADD: ROW_LOOP(int64_t, (int64_t)((uint64_t)a_ + (uint64_t)b_)); break;
  case BIN_SUB: ROW_LOOP(int64_t, (int64_t)((uint64_t)a_ - (uint64_t)b_)); break;
  case BIN_MUL: ROW_LOOP(int64_t, (int64_t)((uint64_t)a_ * (uint64_t)b_)); break;
  case BIN_MAX: ROW_LOOP(int64_t, a_ > b_ ? a_ : b_); break;
  case BIN_MIN: ROW_LOOP(int64_t, a_ < b_ ? a_ : b_); break;
  case BIN_DIV:
  case BIN_AND: break;
  }
  for (size_t k = 0; k < len; k++) y[k] = y[k] < st->llo ? st->llo : (y[k] > st->lhi ? st->lhi : y[k]);
}

typedef struct {
  bin_args args;
  cpu_bcast_row row;
  size_t tasks;
} bin_job;

static void task(void *arg, size_t i)
{
  bin_job *j = arg;
  size_t begin, end;
  cpu_task_range(i, j->tasks, j->args.st->bc.count, &begin, &end);
  cpu_bcast_walk(&j->args.st->bc, begin, end, j->row, &j->args);
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const bin_state *st = state;
  bin_job j = { { st, cpu_in(g, n, INPUT_A)->data, cpu_in(g, n, INPUT_B)->data,
                  cpu_out(g, n, OUTPUT)->data },
                NULL, 0 };
  switch (st->type) {
  case TFL_TYPE_FLOAT32: j.row = row_f32; break;
  case TFL_TYPE_INT32: j.row = row_i32; break;
  case TFL_TYPE_BOOL: j.row = row_bool; break;
  case TFL_TYPE_UINT8:
  case TFL_TYPE_INT8: j.row = st->qmode == QM_TABLE ? row_q8 : row_q8_int; break;
  case TFL_TYPE_INT64: j.row = row_i64; break;
  case TFL_TYPE_INT16: j.row = row_i16; break;
  case TFL_TYPE_FLOAT16:
  case TFL_TYPE_STRING:
  case TFL_TYPE_COMPLEX64:
  case TFL_TYPE_COUNT: return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "type %s", tfl_type_name(st->type));
  }
  j.tasks = cpu_task_count(ctx, st->bc.count, 16384);
  cpu_parallel(ctx, task, &j, j.tasks);
  return TFL_OK;
}

const cpu_kernel cpu_k_add = {prepare, eval, release, CPU_F32 | CPU_Q8 | CPU_I16 | CPU_I32 | CPU_I64, 0};
const cpu_kernel cpu_k_sub = {prepare, eval, release, CPU_F32 | CPU_Q8 | CPU_I16 | CPU_I32 | CPU_I64, 0};
const cpu_kernel cpu_k_mul = {prepare, eval, release, CPU_F32 | CPU_Q8 | CPU_I16 | CPU_I32 | CPU_I64, 0};
const cpu_kernel cpu_k_div = {prepare, eval, release, CPU_F32 | CPU_Q8 | CPU_I16 | CPU_I32, 0};
const cpu_kernel cpu_k_maximum = {prepare, eval, release, CPU_F32 | CPU_Q8 | CPU_I16 | CPU_I32 | CPU_I64, 0};
const cpu_kernel cpu_k_minimum = {prepare, eval, release, CPU_F32 | CPU_Q8 | CPU_I16 | CPU_I32 | CPU_I64, 0};
const cpu_kernel cpu_k_logical_and = {prepare, eval, release, CPU_BOOL, 0};
