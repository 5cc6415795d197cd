/* eltwise_unary.c - the one-input element-wise ops of TFLite: ABS, NEG, SQRT, RSQRT, SQUARE,
 * LOG, SIN, COS, FLOOR, CEIL, ROUND, SIGN, ELU, LEAKY_RELU, RELU_N1_TO_1, RELU_0_TO_1,
 * GELU, LOGICAL_NOT, FAKE_QUANT.
 *
 * Types, as TFLite's kernels take them (their Prepare):
 *   float32: all but LOGICAL_NOT (bool only);
 *   int8 per-tensor quantized: ABS, SQRT, RSQRT, LOG, ELU, LEAKY_RELU, RELU_N1_TO_1,
 *     RELU_0_TO_1, GELU; uint8 quantized: LEAKY_RELU, RELU_N1_TO_1, RELU_0_TO_1, GELU;
 *   int16 symmetric quantized (zero point 0): ABS, SQRT, RSQRT, LOG, GELU, LEAKY_RELU;
 *     int16 unquantized: ABS;
 *   int8, int16, int32, int64 as plain integers: NEG (TFLite negates the stored value and
 *     ignores any quantization; -min wraps to min); int32: ABS, SIGN.
 *
 * A quantized input has only 256 (65536 for int16) codes, so prepare computes the output
 * code of each once and eval is a table lookup. Each code's output follows TFLite's own
 * arithmetic: integer for ABS, LEAKY_RELU, RELU_N1_TO_1, RELU_0_TO_1 (Q31 multipliers;
 * 8-bit LEAKY_RELU as XNNPACK, which TFLite hands it to when the scale ratios fit:
 * multipliers with an 8-bit fraction); float32 for SQRT (truncating, as TFLite) and for
 * LOG, ELU, GELU (as TFLite fills its float lookup tables, rounded half away from zero).
 * int8 RSQRT runs TFLite's fixed-point inverse square root (inv_sqrt_q) and two Q31
 * multiplies. int16 LOG, RSQRT and GELU follow TFLite's interpolated 513-entry table
 * (lut16_fill). Every quantized case of the goldens matches bit for bit.
 * SQRT and RSQRT fail at eval on a quantized input below the zero point (a negative real),
 * as TFLite does.
 */
#include "eltwise_common.h"

#include <math.h>

enum { INPUT = 0 };
enum { OUTPUT = 0 };

typedef struct {
  tfl_op op;
  tfl_type type;
  size_t count;
  bool quantized;           /* 8/16-bit: output by table */
  float alpha;              /* LEAKY_RELU */
  bool approximate;         /* GELU: tanh form */
  float fq_min, fq_max, fq_scale, fq_inv; /* FAKE_QUANT: nudged range, scale, 1/scale */
  uint8_t flip;             /* q8: byte -> table index */
  uint8_t lut[256];         /* q8: output byte of each code */
  int16_t *lut16;           /* int16: output of code q at q + 32768 */
  bool check_min;           /* SQRT/RSQRT quantized: codes below min_code are an error */
  int32_t min_code;
} un_state;

static void release(void *state)
{
  un_state *st = state;
  if (st) free(st->lut16);
  free(st);
}

/* ---- float ---- */

/* TFLite's GELU: exact (erf) or its tanh approximation. */
static float gelu_f(float x, bool approximate)
{
  if (approximate) {
    const float k = 0.7978845608028654f; /* sqrt(2 / pi) */
    return 0.5f * x * (1.0f + tanhf(k * (x + 0.044715f * x * x * x)));
  }
  return 0.5f * x * (1.0f + erff(x * 0.7071067811865476f));
}

static float unary_f(const un_state *st, float x)
{
  switch (st->op) {
  case TFL_OP_ABS: return fabsf(x);
  case TFL_OP_NEG: return -x;
  case TFL_OP_SQRT: return sqrtf(x);
  case TFL_OP_RSQRT: return 1.0f / sqrtf(x);
  case TFL_OP_SQUARE: return x * x;
  case TFL_OP_LOG: return logf(x);
  case TFL_OP_SIN: return sinf(x);
  case TFL_OP_COS: return cosf(x);
  case TFL_OP_FLOOR: return floorf(x);
  case TFL_OP_CEIL: return ceilf(x);
  case TFL_OP_ROUND: return rintf(x); /* default rounding mode: half to even, as TFLite's ROUND */
  case TFL_OP_SIGN: return (float)((x > 0.0f) - (x < 0.0f));
  case TFL_OP_ELU: return x < 0.0f ? expm1f(x) : x;
  case TFL_OP_LEAKY_RELU: return x > 0.0f ? x : x * st->alpha;
  case TFL_OP_RELU_N1_TO_1: return x < -1.0f ? -1.0f : (x > 1.0f ? 1.0f : x);
  case TFL_OP_RELU_0_TO_1: return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x);
  case TFL_OP_GELU: return gelu_f(x, st->approximate);
  case TFL_OP_FAKE_QUANT: {
    /* clamp to the nudged range, snap to the grid (half away from zero) */
    float c = x < st->fq_min ? st->fq_min : (x > st->fq_max ? st->fq_max : x);
    return roundf((c - st->fq_min) * st->fq_inv) * st->fq_scale + st->fq_min;
  }
  default: return x; /* only this file's ops reach here (kernel table) */
  }
}

/* TensorFlow's NudgeQuantizationRange for FAKE_QUANT (quant range 0 .. 2^bits - 1): the
 * range moved so that 0 is exactly representable. */
static void fake_quant_nudge(un_state *st, float rmin, float rmax, int bits)
{
  const float qmin = 0.0f, qmax = (float)((1 << bits) - 1);
  const float scale = (rmax - rmin) / (qmax - qmin);
  const float zp_from_min = qmin - rmin / scale;
  float zp;
  if (zp_from_min < qmin) zp = qmin;
  else if (zp_from_min > qmax) zp = qmax;
  else zp = roundf(zp_from_min);
  st->fq_scale = scale;
  st->fq_inv = 1.0f / scale;
  st->fq_min = (qmin - zp) * scale;
  st->fq_max = (qmax - zp) * scale;
}

/* ---- quantized: the output code of input code q ---- */

typedef struct {
  float si, so;             /* input and output scales */
  int32_t zi, zo;           /* zero points */
  int32_t lo, hi;           /* output type range */
  int32_t m1, m2;           /* Q31 multipliers (ABS, RELU_X, RSQRT: m1; LEAKY_RELU: m1 identity, m2 alpha) */
  int s1, s2;
  bool rescale;             /* ABS: scales differ */
  int32_t act_lo, act_hi;   /* RELU_N1_TO_1 / RELU_0_TO_1: clamp codes */
  bool xnn;                 /* LEAKY_RELU 8-bit: XNNPACK's scheme (8-bit fraction multipliers) */
  int32_t xpos, xneg;       /* its multipliers, 256 x the scale ratios */
} q_params;

/* gemmlowp's SaturatingRoundingMultiplyByPOT for exponent e > 0: x * 2^e saturated. */
static int32_t sat_mul_pot(int32_t x, int e)
{
  const int32_t threshold = (int32_t)((UINT32_C(1) << (31 - e)) - 1);
  if (x > threshold) return INT32_MAX;
  if (x < -threshold) return INT32_MIN;
  return (int32_t)((uint32_t)x << e);
}

/* TFLite's GetInvSqrtQuantizedMultiplierExp (left-shift convention): 1 / sqrt(v) for an
 * integer v >= 1 as a Q31 multiplier and a shift. v is normalized by pairs of bits into
 * [2^27, 2^29), read as Q3.28 (halved), and five Newton-Raphson steps x = 1.5 x - v/2 x^3
 * from x = 1 run in Q3.28; the result is scaled by sqrt(2) / 2 into Q0.31. */
static void inv_sqrt_q(int32_t v, int32_t *inv, int *shift)
{
  if (v <= 1) {
    *inv = INT32_MAX;
    *shift = 0;
    return;
  }
  int sh = 11;
  while (v >= (1 << 29)) {
    v /= 4;
    sh++;
  }
  const int pairs = (__builtin_clz((uint32_t)v) - 1) / 2 - 1;
  sh -= pairs;
  v <<= 2 * pairs;
  const int32_t half_input = cpu_rounding_div_pot(v >> 1, 1);
  const int32_t half_three = (1 << 28) + (1 << 27);
  int32_t x = 1 << 28;
  for (int i = 0; i < 5; i++) {
    const int32_t x3 = sat_mul_pot(cpu_srdhm(cpu_srdhm(x, x), x), 6);
    const int32_t d = (int32_t)((uint32_t)cpu_srdhm(half_three, x) - (uint32_t)cpu_srdhm(half_input, x3));
    x = sat_mul_pot(d, 3);
  }
  x = cpu_srdhm(x, 1518500250); /* sqrt(2) / 2 in Q0.31 */
  if (sh < 0) {
    x = (int32_t)((uint32_t)x << -sh);
    sh = 0;
  }
  *inv = x;
  *shift = -sh;
}

/* A float function's output quantized as TFLite's float lookup tables are filled. */
static int32_t q_from_float(const q_params *p, float v)
{
  float r = roundf(v * (1.0f / p->so));
  if (r != r) r = 0.0f;
  if (r > 1e6f) r = 1e6f;
  if (r < -1e6f) r = -1e6f;
  return cpu_clamp_i32((int32_t)r + p->zo, p->lo, p->hi);
}

static int32_t unary_q(const un_state *st, const q_params *p, int32_t q)
{
  const int32_t v = q - p->zi;
  const float x = p->si * (float)v; /* float32, as TFLite dequantizes */
  switch (st->op) {
  case TFL_OP_ABS: {
    int32_t a = v < 0 ? -v : v;
    if (p->rescale) a = cpu_mul_by_quantized_multiplier(a, p->m1, p->s1);
    return cpu_clamp_i32(a + p->zo, p->lo, p->hi);
  }
  case TFL_OP_SQRT: {
    if (v < 0) return p->zo; /* eval refuses these codes */
    float r = sqrtf(x) / p->so;
    if (r > 1e6f) r = 1e6f; /* far past the type: keeps the conversion defined */
    return cpu_clamp_i32((int32_t)r + p->zo, p->lo, p->hi); /* truncates, as TFLite */
  }
  case TFL_OP_RSQRT: {
    if (v <= 0) return p->hi; /* 0: the largest output (below 0: eval refuses) */
    int32_t inv;
    int shift;
    inv_sqrt_q(v, &inv, &shift);
    /* 2^20 / sqrt(v), then times 1 / (sqrt(in_scale) out_scale) less the 2^20 */
    const int32_t data = cpu_mul_by_quantized_multiplier(1, inv, shift + 20);
    return cpu_clamp_i32(cpu_mul_by_quantized_multiplier(data, p->m1, p->s1 - 20) + p->zo, p->lo, p->hi);
  }
  case TFL_OP_LOG:
    if (x <= 0.0f) return p->lo; /* TFLite maps log(<= 0) to the smallest output */
    return q_from_float(p, logf(x));
  case TFL_OP_ELU: return q_from_float(p, x < 0.0f ? expm1f(x) : x);
  case TFL_OP_GELU: return q_from_float(p, gelu_f(x, st->approximate));
  case TFL_OP_LEAKY_RELU: {
    if (p->xnn) /* (v * m + 128) >> 8: rounds half up */
      return cpu_clamp_i32((p->zo * 256 + 0x80 + v * (v >= 0 ? p->xpos : p->xneg)) >> 8, p->lo, p->hi);
    int32_t r = v >= 0 ? cpu_mul_by_quantized_multiplier(v, p->m1, p->s1)
                       : cpu_mul_by_quantized_multiplier(v, p->m2, p->s2);
    return cpu_clamp_i32(r + p->zo, p->lo, p->hi);
  }
  case TFL_OP_RELU_N1_TO_1:
  case TFL_OP_RELU_0_TO_1:
    return cpu_clamp_i32(p->zo + cpu_mul_by_quantized_multiplier(v, p->m1, p->s1), p->act_lo, p->act_hi);
  default: return q;
  }
}

/* The real function that TFLite's int16 LOG, RSQRT and GELU tabulate (its domain edges
 * mapped to the output's extreme as TFLite does). */
static float lut16_fn(const un_state *st, const q_params *p, float x)
{
  switch (st->op) {
  case TFL_OP_LOG: return x <= 0.0f ? (float)(p->lo - p->zo) * p->so : logf(x);
  case TFL_OP_RSQRT: return x <= 0.0f ? (float)p->hi * p->so : 1.0f / sqrtf(x);
  default: return gelu_f(x, st->approximate);
  }
}

/* TFLite's int16 lookup: 513 samples of the function over the input range (512 steps,
 * each sample biased by half the midpoint's interpolation error), then each code
 * interpolated linearly between its two samples (7 fraction bits, rounded). The output
 * zero point is 0 for int16. All float32, as TFLite computes it. */
static void lut16_fill(const un_state *st, const q_params *p, int16_t *out)
{
  int16_t samples[513];
  const float in_min = p->si * (float)(-32768 - p->zi), in_max = p->si * (float)(32767 - p->zi);
  const float out_min = p->so * (float)(-32768 - p->zo), out_max = p->so * (float)(32767 - p->zo);
  const float step = (in_max - in_min) / 512.0f, half = step / 2.0f;
  const float inv = 65536.0f / (out_max - out_min);
  for (int i = 0; i < 512; i++) {
    const float v = lut16_fn(st, p, in_min + (float)i * step);
    const float vmid = lut16_fn(st, p, in_min + (float)i * step + half);
    const float vnext = lut16_fn(st, p, in_min + (float)(i + 1) * step);
    const float sample = roundf(v * inv);
    const float interp = roundf((vnext * inv + roundf(v * inv)) / 2.0f);
    const float bias = roundf((interp - roundf(vmid * inv)) / 2.0f);
    const float r = sample - bias;
    samples[i] = (int16_t)(r < -32768.0f ? -32768.0f : (r > 32767.0f ? 32767.0f : r));
  }
  const float last = roundf(lut16_fn(st, p, in_max) * inv);
  samples[512] = (int16_t)(last < -32768.0f ? -32768.0f : (last > 32767.0f ? 32767.0f : last));
  for (int32_t q = -32768; q <= 32767; q++) {
    const int idx = 256 + (q >> 7), frac = q & 0x7f; /* arithmetic shift: q >= -32768 */
    const int32_t base = samples[idx], slope = samples[idx + 1] - samples[idx];
    out[q + 32768] = (int16_t)(base + ((slope * frac + 64) >> 7));
  }
}

/* ---- prepare ---- */

/* Which types TFLite's kernel of `op` takes. */
static bool takes_q8(tfl_op op, tfl_type t)
{
  switch (op) {
  case TFL_OP_NEG: return t == TFL_TYPE_INT8;
  case TFL_OP_ABS:
  case TFL_OP_SQRT:
  case TFL_OP_RSQRT:
  case TFL_OP_LOG:
  case TFL_OP_ELU: return t == TFL_TYPE_INT8;
  case TFL_OP_LEAKY_RELU:
  case TFL_OP_RELU_N1_TO_1:
  case TFL_OP_RELU_0_TO_1:
  case TFL_OP_GELU: return true;
  default: return false;
  }
}
static bool takes_int16(tfl_op op)
{
  return op == TFL_OP_ABS || op == TFL_OP_NEG || op == TFL_OP_SQRT || op == TFL_OP_RSQRT || op == TFL_OP_LOG ||
         op == TFL_OP_GELU || op == TFL_OP_LEAKY_RELU;
}
static bool takes_int(tfl_op op, tfl_type t)
{
  if (t == TFL_TYPE_INT32) return op == TFL_OP_ABS || op == TFL_OP_NEG || op == TFL_OP_SIGN;
  if (t == TFL_TYPE_INT64) return op == TFL_OP_NEG;
  return false;
}

static tfl_status check_types(const tfl_graph *g, const tfl_node *n, const tfl_tensor *x,
                              const tfl_tensor *y, tfl_diag *diag)
{
  if (x->type != y->type)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input %s, output %s: types differ",
                        tfl_type_name(x->type), tfl_type_name(y->type));
  bool ok;
  switch (x->type) {
  case TFL_TYPE_FLOAT32: ok = n->op != TFL_OP_LOGICAL_NOT; break;
  case TFL_TYPE_BOOL: ok = n->op == TFL_OP_LOGICAL_NOT; break;
  case TFL_TYPE_UINT8:
  case TFL_TYPE_INT8: ok = takes_q8(n->op, x->type); break;
  case TFL_TYPE_INT16: ok = takes_int16(n->op); break;
  case TFL_TYPE_INT32:
  case TFL_TYPE_INT64: ok = takes_int(n->op, x->type); break;
  default: ok = false; break;
  }
  if (!ok)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input type %s is not supported (as in TFLite)",
                        tfl_type_name(x->type));
  return TFL_OK;
}

/* Multipliers and ranges of the quantized ops; checks the quantization TFLite requires. */
static tfl_status prepare_q(const tfl_graph *g, const tfl_node *n, const un_state *st,
                            const tfl_tensor *x, const tfl_tensor *y, q_params *p, tfl_diag *diag)
{
  tfl_status s;
  if ((s = cpu_check_per_tensor(g, n, x, "input", diag)) || (s = cpu_check_per_tensor(g, n, y, "output", diag)))
    return s;
  p->si = cpu_scale(x, 0);
  p->so = cpu_scale(y, 0);
  p->zi = cpu_zero_point(x, 0);
  p->zo = cpu_zero_point(y, 0);
  cpu_type_limits(y->type, &p->lo, &p->hi);
  if (x->type == TFL_TYPE_INT16 && (p->zi != 0 || p->zo != 0))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "int16 zero points are %d and %d, expected 0",
                        (int)p->zi, (int)p->zo);
  switch (st->op) {
  case TFL_OP_ABS:
    p->rescale = p->si != p->so;
    if (p->rescale) cpu_quantize_multiplier((double)(p->si / p->so), &p->m1, &p->s1);
    break;
  case TFL_OP_RSQRT: { /* 1 / (sqrt(in_scale) out_scale): the product in float32, as TFLite */
    volatile float den = sqrtf(p->si) * p->so;
    cpu_quantize_multiplier(1.0 / (double)den, &p->m1, &p->s1);
    break;
  }
  case TFL_OP_LEAKY_RELU: {
    cpu_quantize_multiplier((double)(p->si / p->so), &p->m1, &p->s1);
    cpu_quantize_multiplier((double)(p->si * st->alpha / p->so), &p->m2, &p->s2);
    /* 8-bit: TFLite hands the op to XNNPACK when its scale ratios fit XNNPACK's range */
    const float pos = p->si / p->so, neg = pos * st->alpha;
    p->xnn = x->type != TFL_TYPE_INT16 && pos >= 0x1.0p-8f && pos <= 0x1.0p+7f && neg <= 0x1.0p+7f &&
             neg >= -0x1.FFFC00p+6f && fabsf(neg) >= 0x1.0p-8f;
    p->xpos = (int32_t)lrintf(256.0f * pos);
    p->xneg = (int32_t)lrintf(256.0f * neg);
    break;
  }
  case TFL_OP_RELU_N1_TO_1:
  case TFL_OP_RELU_0_TO_1: {
    cpu_quantize_multiplier((double)p->si / (double)p->so, &p->m1, &p->s1);
    const float amin = st->op == TFL_OP_RELU_N1_TO_1 ? -1.0f : 0.0f;
    int32_t a = p->zo + (int32_t)lroundf(amin / p->so), b = p->zo + (int32_t)lroundf(1.0f / p->so);
    p->act_lo = a > p->lo ? a : p->lo;
    p->act_hi = b < p->hi ? b : p->hi;
    break;
  }
  default: break;
  }
  return TFL_OK;
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "input", -1, diag)) || (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  if ((s = check_types(g, n, x, y, diag))) return s;
  if (x->ndim != y->ndim || tfl_tensor_count(x) != tfl_tensor_count(y))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input has %d dims and %zu elements, output %d and %zu",
                        x->ndim, tfl_tensor_count(x), y->ndim, tfl_tensor_count(y));
  for (int i = 0; i < x->ndim; i++)
    if (x->dims[i] != y->dims[i])
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output dim %d is %d, input's %d", i, y->dims[i],
                          x->dims[i]);
  un_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "%s state", tfl_op_name(n->op));
  *state = st;
  st->op = n->op;
  st->type = x->type;
  st->count = tfl_tensor_count(x);
  if (n->op == TFL_OP_LEAKY_RELU) st->alpha = n->p.leaky_relu.alpha;
  if (n->op == TFL_OP_GELU) st->approximate = n->p.gelu.approximate;
  if (n->op == TFL_OP_FAKE_QUANT) {
    const tfl_fake_quant_params *fq = &n->p.fake_quant;
    if (fq->narrow_range) /* TFLite: meant for weights only, refused at runtime */
      return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "narrow_range (%d bits) is not supported (as in TFLite)",
                          fq->num_bits);
    /* a range without 0 is nudged to include it, as TFLite computes (its check is debug-only) */
    if (fq->num_bits < 2 || fq->num_bits > 16 || !(fq->min < fq->max))
      return CPU_NODE_ERR(diag, TFL_ERR_ARG, g, n, "num_bits %d, range [%g, %g]: expected 2..16 bits and "
                          "min < max", fq->num_bits, (double)fq->min, (double)fq->max);
    fake_quant_nudge(st, fq->min, fq->max, fq->num_bits);
  }
  if (n->op == TFL_OP_NEG) return TFL_OK; /* plain integers whatever the quantization */
  bool q8 = cpu_is_q8(x->type);
  bool q16 = x->type == TFL_TYPE_INT16 && (x->q.n > 0 || n->op != TFL_OP_ABS);
  if (!q8 && !q16) return TFL_OK;
  q_params p = {0};
  if ((s = prepare_q(g, n, st, x, y, &p, diag))) return s;
  st->quantized = true;
  if (n->op == TFL_OP_SQRT || n->op == TFL_OP_RSQRT) {
    st->check_min = true;
    st->min_code = p.zi;
  }
  if (q8) {
    st->flip = cpu_q8_flip(x->type);
    for (int i = 0; i < 256; i++) st->lut[i] = (uint8_t)unary_q(st, &p, cpu_q8_value(x->type, i));
    return TFL_OK;
  }
  st->lut16 = malloc(65536 * sizeof *st->lut16);
  if (!st->lut16) return tfl_fail(diag, TFL_ERR_NOMEM, "%s int16 table", tfl_op_name(n->op));
  if (n->op == TFL_OP_LOG || n->op == TFL_OP_RSQRT || n->op == TFL_OP_GELU)
    lut16_fill(st, &p, st->lut16);
  else
    for (int32_t q = -32768; q <= 32767; q++) st->lut16[q + 32768] = (int16_t)unary_q(st, &p, q);
  return TFL_OK;
}

/* ---- eval ---- */

typedef struct {
  const un_state *st;
  const void *x;
  void *y;
  size_t tasks;
} un_job;

/* Float rows: the cheap ops get their own loop (vectorizable, no per-element dispatch). */
static void loop_f(const un_state *st, const float *restrict x, float *restrict y, size_t n)
{
  switch (st->op) {
  case TFL_OP_ABS:
    for (size_t k = 0; k < n; k++) y[k] = fabsf(x[k]);
    return;
  case TFL_OP_NEG:
    for (size_t k = 0; k < n; k++) y[k] = -x[k];
    return;
  case TFL_OP_SQRT:
    for (size_t k = 0; k < n; k++) y[k] = sqrtf(x[k]);
    return;
  case TFL_OP_RSQRT:
    for (size_t k = 0; k < n; k++) y[k] = 1.0f / sqrtf(x[k]);
    return;
  case TFL_OP_SQUARE:
    for (size_t k = 0; k < n; k++) y[k] = x[k] * x[k];
    return;
  default:
    for (size_t k = 0; k < n; k++) y[k] = unary_f(st, x[k]);
    return;
  }
}

static void task(void *arg, size_t i)
{
  const un_job *j = arg;
  const un_state *st = j->st;
  size_t b, e;
  cpu_task_range(i, j->tasks, st->count, &b, &e);
  switch (st->type) {
  case TFL_TYPE_FLOAT32:
    loop_f(st, (const float *)j->x + b, (float *)j->y + b, e - b);
    break;
  case TFL_TYPE_UINT8:
  case TFL_TYPE_INT8: {
    const uint8_t *x = j->x;
    uint8_t *y = j->y;
    if (st->quantized) {
      for (size_t k = b; k < e; k++) y[k] = st->lut[x[k] ^ st->flip];
    } else { /* NEG int8: two's complement negation of the byte */
      for (size_t k = b; k < e; k++) y[k] = (uint8_t)(0u - x[k]);
    }
    break;
  }
  case TFL_TYPE_INT16: {
    const int16_t *x = j->x;
    int16_t *y = j->y;
    if (st->quantized) {
      for (size_t k = b; k < e; k++) y[k] = st->lut16[x[k] + 32768];
    } else { /* ABS, NEG: through int32, cast back (-(-32768) wraps, as TFLite's cast) */
      const bool neg = st->op == TFL_OP_NEG;
      for (size_t k = b; k < e; k++)
        y[k] = (int16_t)(uint16_t)(neg || x[k] < 0 ? -(int32_t)x[k] : x[k]);
    }
    break;
  }
  case TFL_TYPE_INT32: {
    const int32_t *x = j->x;
    int32_t *y = j->y;
    /* negation through uint32: INT32_MIN stays INT32_MIN, as two's complement hardware does */
    for (size_t k = b; k < e; k++) {
      const int32_t v = x[k];
      const int32_t neg = (int32_t)(0u - (uint32_t)v);
      y[k] = st->op == TFL_OP_SIGN ? (v > 0) - (v < 0) : (st->op == TFL_OP_NEG || v < 0) ? neg : v;
    }
    break;
  }
  case TFL_TYPE_INT64: { /* NEG */
    const int64_t *x = j->x;
    int64_t *y = j->y;
    for (size_t k = b; k < e; k++) y[k] = (int64_t)(UINT64_C(0) - (uint64_t)x[k]);
    break;
  }
  case TFL_TYPE_BOOL: { /* LOGICAL_NOT */
    const uint8_t *x = j->x;
    uint8_t *y = j->y;
    for (size_t k = b; k < e; k++) y[k] = !x[k];
    break;
  }
  default: break;
  }
}

/* SQRT/RSQRT quantized: TFLite refuses a negative real input at invoke. */
static tfl_status check_domain(const tfl_graph *g, const tfl_node *n, const un_state *st, const void *data,
                               tfl_diag *diag)
{
  for (size_t k = 0; k < st->count; k++) {
    int32_t q = st->type == TFL_TYPE_INT16 ? ((const int16_t *)data)[k] : ((const int8_t *)data)[k];
    if (q < st->min_code)
      return CPU_NODE_ERR(diag, TFL_ERR_ARG, g, n, "input element %zu is code %d, below the zero point %d "
                          "(a negative value)", k, (int)q, (int)st->min_code);
  }
  return TFL_OK;
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const un_state *st = state;
  un_job j = { st, cpu_in(g, n, INPUT)->data, cpu_out(g, n, OUTPUT)->data, 0 };
  if (st->check_min) {
    tfl_status s = check_domain(g, n, st, j.x, diag);
    if (s) return s;
  }
  j.tasks = cpu_task_count(ctx, st->count, 16384);
  cpu_parallel(ctx, task, &j, j.tasks);
  return TFL_OK;
}

const cpu_kernel cpu_k_abs = {prepare, eval, release, CPU_F32 | CPU_TYPE(TFL_TYPE_INT8) | CPU_I16 | CPU_I32, 0};
const cpu_kernel cpu_k_neg = {prepare, eval, release, CPU_F32 | CPU_TYPE(TFL_TYPE_INT8) | CPU_I16 | CPU_I32 | CPU_I64, 0};
const cpu_kernel cpu_k_sqrt = {prepare, eval, release, CPU_F32 | CPU_TYPE(TFL_TYPE_INT8) | CPU_I16, 0};
const cpu_kernel cpu_k_rsqrt = {prepare, eval, release, CPU_F32 | CPU_TYPE(TFL_TYPE_INT8) | CPU_I16, 0};
const cpu_kernel cpu_k_square = {prepare, eval, release, CPU_F32, 0};
const cpu_kernel cpu_k_log = {prepare, eval, release, CPU_F32 | CPU_TYPE(TFL_TYPE_INT8) | CPU_I16, 0};
const cpu_kernel cpu_k_sin = {prepare, eval, release, CPU_F32, 0};
const cpu_kernel cpu_k_cos = {prepare, eval, release, CPU_F32, 0};
const cpu_kernel cpu_k_floor = {prepare, eval, release, CPU_F32, 0};
const cpu_kernel cpu_k_ceil = {prepare, eval, release, CPU_F32, 0};
const cpu_kernel cpu_k_round = {prepare, eval, release, CPU_F32, 0};
const cpu_kernel cpu_k_sign = {prepare, eval, release, CPU_F32 | CPU_I32, 0};
const cpu_kernel cpu_k_elu = {prepare, eval, release, CPU_F32 | CPU_TYPE(TFL_TYPE_INT8), 0};
const cpu_kernel cpu_k_leaky_relu = {prepare, eval, release, CPU_F32 | CPU_Q8 | CPU_I16, 0};
const cpu_kernel cpu_k_relu_n1_to_1 = {prepare, eval, release, CPU_F32 | CPU_Q8, 0};
const cpu_kernel cpu_k_relu_0_to_1 = {prepare, eval, release, CPU_F32 | CPU_Q8, 0};
const cpu_kernel cpu_k_gelu = {prepare, eval, release, CPU_F32 | CPU_Q8 | CPU_I16, 0};
const cpu_kernel cpu_k_logical_not = {prepare, eval, release, CPU_BOOL, 0};
const cpu_kernel cpu_k_fake_quant = {prepare, eval, release, CPU_F32, 0};
