/* activations.c - unary activations RELU, RELU6, LOGISTIC, TANH, EXP, HARD_SWISH and the
 * binary PRELU (alpha broadcast against the input, NumPy style).
 * Types: float32; uint8/int8 per-tensor quantized.
 *
 * Quantized unary ops have only 256 possible inputs, so prepare evaluates the real function
 * on each code and stores the output byte (rounded half away from zero, clamped to the
 * type): eval is one table lookup per element, within 1 LSB of TFLite's fixed point.
 * HARD_SWISH's table follows TFLite's 16-bit fixed-point arithmetic exactly instead
 * (hswish_q_eval below): exact rounding lands 1 LSB off it at near-ties, and those add up
 * through MobileNetV3's blocks to 2 LSB at the output.
 * Quantized PRELU dequantizes through per-input tables and requantizes each element.
 */
#include "eltwise_common.h"

#include <math.h>

enum { INPUT = 0, ALPHA = 1 };
enum { OUTPUT = 0 };

typedef struct {
  tfl_op op;
  tfl_type type;
  size_t count;
  uint8_t flip;          /* q8: byte -> table index */
  uint8_t lut[256];      /* q8 unary: output byte of each input code */
  /* PRELU */
  cpu_bcast bc;
  uint8_t fa;
  int32_t zo, lo, hi;
  double tx[256], talpha[256]; /* q8: x / out_scale and alpha, by code */
} act_state;

static void release(void *state)
{
  free(state);
}

static float relu_f(float x) { return x < 0.0f ? 0.0f : x; }
static float relu6_f(float x) { return x < 0.0f ? 0.0f : (x > 6.0f ? 6.0f : x); }
static float logistic_f(float x) { return 1.0f / (1.0f + expf(-x)); }
static float hard_swish_f(float x) { return x * relu6_f(x + 3.0f) * (1.0f / 6.0f); }

/* The real function of unary op `op`; only this file's unary ops reach here. */
static double unary_real(tfl_op op, double x)
{
  if (op == TFL_OP_RELU) return x < 0 ? 0 : x;
  if (op == TFL_OP_RELU6) return x < 0 ? 0 : (x > 6 ? 6 : x);
  if (op == TFL_OP_LOGISTIC) return 1.0 / (1.0 + exp(-x));
  if (op == TFL_OP_TANH) return tanh(x);
  if (op == TFL_OP_EXP) return exp(x);
  /* HARD_SWISH */
  double r = x + 3;
  return x * (r < 0 ? 0 : (r > 6 ? 6 : r)) / 6;
}

/* ---- quantized HARD_SWISH as TensorFlow Lite's builtin kernel computes it (LiteRT's output
 * matches it code for code: tests/opmodels hard_swish_*_codes): the input on a "high-resolution" scale (input scale / 128) in int16,
 * its product with an int16 multiplier towards the output scale, a "relu-ish" factor in
 * [0, 1] (the input rescaled so that 3.0 is 32768, saturated, then moved from [-1, 1] to
 * [0, 1]), a truncating doubling high multiply of the two and a rounding shift. The
 * multipliers are formed in float32 and rounded from Q31 to Q15. */

static int16_t sat16(int64_t v)
{
  return (int16_t)(v < INT16_MIN ? INT16_MIN : (v > INT16_MAX ? INT16_MAX : v));
}

/* gemmlowp's SaturatingRoundingDoublingHighMul on int16. */
static int16_t srdhm16(int16_t a, int16_t b)
{
  if (a == INT16_MIN && b == INT16_MIN) return INT16_MAX;
  int32_t ab = (int32_t)a * b;
  int32_t nudge = ab >= 0 ? (1 << 14) : 1 - (1 << 14);
  return (int16_t)((ab + nudge) / (1 << 15)); /* C division truncates toward 0 */
}

/* The same without the rounding nudge (TFLite's SaturatingDoublingHighMul). */
static int16_t sdhm16(int16_t a, int16_t b)
{
  if (a == INT16_MIN && b == INT16_MIN) return INT16_MAX;
  return (int16_t)(((int32_t)a * b) / (1 << 15));
}

/* A Q31 multiplier rounded to its top 16 bits (TFLite's DownScaleInt32ToInt16Multiplier). */
static int16_t q31_to_q15(int32_t q31)
{
  if (q31 >= INT32_MAX - (1 << 15)) return INT16_MAX;
  return (int16_t)((q31 + (1 << 15)) >> 16);
}

typedef struct {
  int32_t zi, zo, lo, hi;
  int16_t out_mult, relu_mult;
  int out_exp, relu_exp;
} hswish_q;

/* false: the output multiplier is >= 1 (output scale < input scale / 128), which TFLite's
 * kernel refuses; the caller then rounds the real function instead. */
static bool hswish_q_prepare(const tfl_tensor *x, const tfl_tensor *y, hswish_q *q)
{
  const float hires_scale = cpu_scale(x, 0) * (1.0f / 128.0f);
  volatile float out_m = hires_scale / cpu_scale(y, 0); /* float32, as TFLite forms them */
  volatile float relu_m = hires_scale / (3.0f / 32768.0f);
  int32_t q31;
  cpu_quantize_multiplier(out_m, &q31, &q->out_exp);
  if (q->out_exp > 0) return false;
  q->out_mult = q31_to_q15(q31);
  cpu_quantize_multiplier(relu_m, &q31, &q->relu_exp);
  q->relu_mult = q31_to_q15(q31);
  q->zi = cpu_zero_point(x, 0);
  q->zo = cpu_zero_point(y, 0);
  cpu_type_limits(y->type, &q->lo, &q->hi);
  return true;
}

static int32_t hswish_q_eval(const hswish_q *q, int32_t code)
{
  const int16_t hires = (int16_t)((code - q->zi) * 128); /* |code - zi| <= 255 */
  const int16_t pre_out = srdhm16(hires, q->out_mult);
  int16_t relu = hires;
  /* a left shift saturates one bit early, so that saturation shows only in the last bit */
  if (q->relu_exp > 0) relu = sat16((int64_t)relu * (INT64_C(1) << (q->relu_exp - 1)));
  relu = srdhm16(relu, q->relu_mult);
  if (q->relu_exp > 0) relu = sat16((int64_t)relu * 2);
  if (q->relu_exp < 0) relu = (int16_t)cpu_rounding_div_pot(relu, -q->relu_exp);
  relu = (int16_t)((relu + (1 << 15)) >> 1); /* [-1, 1] -> [0, 1] */
  const int16_t prod = sdhm16(relu, pre_out);
  return cpu_clamp_i32(cpu_rounding_div_pot(prod, -q->out_exp) + q->zo, q->lo, q->hi);
}

static tfl_status check_io(const tfl_graph *g, const tfl_node *n, const tfl_tensor *x,
                           const tfl_tensor *y, tfl_diag *diag)
{
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "input", -1, diag)) || (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  if (x->type != y->type)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input %s, output %s: types differ",
                        tfl_type_name(x->type), tfl_type_name(y->type));
  if (x->type != TFL_TYPE_FLOAT32 && !cpu_is_q8(x->type))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "type %s", tfl_type_name(x->type));
  if (cpu_is_q8(x->type) &&
      ((s = cpu_check_per_tensor(g, n, x, "input", diag)) || (s = cpu_check_per_tensor(g, n, y, "output", diag))))
    return s;
  return TFL_OK;
}

static tfl_status prepare_unary(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  tfl_status s = check_io(g, n, x, y, diag);
  if (s) return s;
  if (tfl_tensor_count(x) != tfl_tensor_count(y))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input has %zu elements, output %zu",
                        tfl_tensor_count(x), tfl_tensor_count(y));
  act_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "activation state");
  *state = st;
  st->op = n->op;
  st->type = x->type;
  st->count = tfl_tensor_count(x);
  if (cpu_is_q8(x->type)) {
    double in[256];
    int32_t lo, hi;
    cpu_q8_dequant_table(x, in);
    cpu_type_limits(y->type, &lo, &hi);
    double inv = 1.0 / cpu_scale(y, 0);
    int32_t zo = cpu_zero_point(y, 0);
    st->flip = cpu_q8_flip(x->type);
    hswish_q hq;
    if (n->op == TFL_OP_HARD_SWISH && hswish_q_prepare(x, y, &hq)) {
      for (int i = 0; i < 256; i++) st->lut[i] = (uint8_t)hswish_q_eval(&hq, cpu_q8_value(x->type, i));
      return TFL_OK;
    }
    for (int i = 0; i < 256; i++)
      st->lut[i] = (uint8_t)cpu_q8_quantize(unary_real(n->op, in[i]), inv, zo, lo, hi);
  }
  return TFL_OK;
}

typedef struct {
  const act_state *st;
  const void *x, *alpha;
  void *y;
  size_t tasks;
} act_job;

/* Float loops, one per op, chosen in prepare. */
typedef void (*unary_loop)(const float *restrict x, float *restrict y, size_t len);
static void loop_relu(const float *restrict x, float *restrict y, size_t len)
{
  for (size_t k = 0; k < len; k++) y[k] = relu_f(x[k]);
}
static void loop_relu6(const float *restrict x, float *restrict y, size_t len)
{
  for (size_t k = 0; k < len; k++) y[k] = relu6_f(x[k]);
}
static void loop_logistic(const float *restrict x, float *restrict y, size_t len)
{
  for (size_t k = 0; k < len; k++) y[k] = logistic_f(x[k]);
}
static void loop_tanh(const float *restrict x, float *restrict y, size_t len)
{
  for (size_t k = 0; k < len; k++) y[k] = tanhf(x[k]);
}
static void loop_exp(const float *restrict x, float *restrict y, size_t len)
{
  for (size_t k = 0; k < len; k++) y[k] = expf(x[k]);
}
static void loop_hard_swish(const float *restrict x, float *restrict y, size_t len)
{
  for (size_t k = 0; k < len; k++) y[k] = hard_swish_f(x[k]);
}
static unary_loop loop_of(tfl_op op)
{
  if (op == TFL_OP_RELU) return loop_relu;
  if (op == TFL_OP_RELU6) return loop_relu6;
  if (op == TFL_OP_LOGISTIC) return loop_logistic;
  if (op == TFL_OP_TANH) return loop_tanh;
  if (op == TFL_OP_EXP) return loop_exp;
  return loop_hard_swish;
}

static void unary_task(void *arg, size_t i)
{
  const act_job *j = arg;
  const act_state *st = j->st;
  size_t begin, end;
  cpu_task_range(i, j->tasks, st->count, &begin, &end);
  if (st->type == TFL_TYPE_FLOAT32) {
    loop_of(st->op)((const float *)j->x + begin, (float *)j->y + begin, end - begin);
    return;
  }
  const uint8_t *x = (const uint8_t *)j->x;
  uint8_t *y = (uint8_t *)j->y;
  const uint8_t flip = st->flip;
  for (size_t k = begin; k < end; k++) y[k] = st->lut[x[k] ^ flip];
}

static tfl_status eval_unary(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const act_state *st = state;
  act_job j = { st, cpu_in(g, n, INPUT)->data, NULL, cpu_out(g, n, OUTPUT)->data, 0 };
  j.tasks = cpu_task_count(ctx, st->count, 16384);
  cpu_parallel(ctx, unary_task, &j, j.tasks);
  return TFL_OK;
}

/* ---- PRELU ---- */

static tfl_status prepare_prelu(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *a = cpu_in(g, n, ALPHA), *y = cpu_out(g, n, OUTPUT);
  tfl_status s = check_io(g, n, x, y, diag);
  if (s) return s;
  if ((s = cpu_check_tensor(g, n, a, "alpha", -1, diag))) return s;
  if (a->type != x->type)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "alpha is %s, input %s", tfl_type_name(a->type),
                        tfl_type_name(x->type));
  if (cpu_is_q8(a->type) && (s = cpu_check_per_tensor(g, n, a, "alpha", diag))) return s;
  act_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "prelu state");
  *state = st;
  st->op = n->op;
  st->type = x->type;
  if ((s = cpu_bcast_prepare(g, n, x, a, y, &st->bc, diag))) return s;
  st->count = st->bc.count;
  if (cpu_is_q8(x->type)) {
    st->flip = cpu_q8_flip(x->type);
    st->fa = cpu_q8_flip(a->type);
    st->zo = cpu_zero_point(y, 0);
    cpu_type_limits(y->type, &st->lo, &st->hi);
    cpu_q8_dequant_table(x, st->tx);
    cpu_q8_dequant_table(a, st->talpha);
    double inv = 1.0 / cpu_scale(y, 0);
    for (int i = 0; i < 256; i++) st->tx[i] *= inv;
  }
  return TFL_OK;
}

static void prelu_row_f32(void *arg, size_t xo, size_t ix, size_t ao, size_t ia, size_t yo,
                          size_t len)
{
  const act_job *j = arg;
  const float *x = (const float *)j->x + xo, *a = (const float *)j->alpha + ao;
  float *y = (float *)j->y + yo;
  if (ix && ia) {
    for (size_t k = 0; k < len; k++) y[k] = x[k] >= 0.0f ? x[k] : x[k] * a[k];
  } else if (ix) {
    const float al = a[0];
    for (size_t k = 0; k < len; k++) y[k] = x[k] >= 0.0f ? x[k] : x[k] * al;
  } else {
    for (size_t k = 0; k < len; k++) y[k] = x[0] >= 0.0f ? x[0] : x[0] * a[k * ia];
  }
}

static void prelu_row_q8(void *arg, size_t xo, size_t ix, size_t ao, size_t ia, size_t yo,
                         size_t len)
{
  const act_job *j = arg;
  const act_state *st = j->st;
  const uint8_t *x = (const uint8_t *)j->x + xo, *a = (const uint8_t *)j->alpha + ao;
  uint8_t *y = (uint8_t *)j->y + yo;
  for (size_t k = 0; k < len; k++) {
    double v = st->tx[x[k * ix] ^ st->flip];
    if (v < 0) v *= st->talpha[a[k * ia] ^ st->fa];
    y[k] = (uint8_t)cpu_q8_quantize(v, 1.0, st->zo, st->lo, st->hi);
  }
}

static void prelu_task(void *arg, size_t i)
{
  const act_job *j = arg;
  const act_state *st = j->st;
  size_t begin, end;
  cpu_task_range(i, j->tasks, st->count, &begin, &end);
  cpu_bcast_walk(&st->bc, begin, end,
                 st->type == TFL_TYPE_FLOAT32 ? prelu_row_f32 : prelu_row_q8, (void *)j);
}

static tfl_status eval_prelu(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const act_state *st = state;
  act_job j = { st, cpu_in(g, n, INPUT)->data, cpu_in(g, n, ALPHA)->data,
                cpu_out(g, n, OUTPUT)->data, 0 };
  j.tasks = cpu_task_count(ctx, st->count, 16384);
  cpu_parallel(ctx, prelu_task, &j, j.tasks);
  return TFL_OK;
}

const cpu_kernel cpu_k_relu = {prepare_unary, eval_unary, release, CPU_F32 | CPU_Q8, 0};
const cpu_kernel cpu_k_relu6 = {prepare_unary, eval_unary, release, CPU_F32 | CPU_Q8, 0};
const cpu_kernel cpu_k_logistic = {prepare_unary, eval_unary, release, CPU_F32 | CPU_Q8, 0};
const cpu_kernel cpu_k_tanh = {prepare_unary, eval_unary, release, CPU_F32 | CPU_Q8, 0};
const cpu_kernel cpu_k_exp = {prepare_unary, eval_unary, release, CPU_F32 | CPU_Q8, 0};
const cpu_kernel cpu_k_hard_swish = {prepare_unary, eval_unary, release, CPU_F32 | CPU_Q8, 0};
const cpu_kernel cpu_k_prelu = {prepare_prelu, eval_prelu, release, CPU_F32 | CPU_Q8, 0};
