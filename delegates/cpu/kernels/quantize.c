/* quantize.c - QUANTIZE and DEQUANTIZE.
 * QUANTIZE: float32 -> uint8/int8/int16, per tensor or per channel; or a requantize
 *   uint8/int8 -> uint8/int8 through a 256-entry table. float -> int: round(x / scale) half
 *   away from zero, as TFLite's builtin (XNNPACK, which TFLite uses for per-tensor 8-bit
 *   outputs, computes x * (1 / scale) rounded to even: they differ only at ties). The
 *   requantize follows TFLite bit for bit (prepare_quantize).
 * DEQUANTIZE: uint8/int8/int16/int32 (per tensor or per channel) and float16 -> float32,
 *   x = scale * (q - zero_point).
 * Per-channel loops run outer x channel x inner so the scale is hoisted out of the inner loop.
 */
#include "eltwise_common.h"

#include <math.h>

enum { INPUT = 0 };
enum { OUTPUT = 0 };

typedef struct {
  size_t outer, channels, inner;  /* quantization axis split; channels = 1 per tensor */
  float *scale;                   /* per channel */
  int32_t *zp;
  int32_t lo, hi;                 /* output type limits (QUANTIZE) */
  uint8_t flip;                   /* requantize: input byte -> table index */
  uint8_t lut[256];               /* requantize table */
} quant_state;

static void release(void *state)
{
  quant_state *st = state;
  if (!st) return;
  free(st->scale);
  free(st->zp);
  free(st);
}

/* Fills the channel split and per-channel parameters from quantized tensor q. */
static tfl_status setup_channels(const tfl_graph *g, const tfl_node *n, quant_state *st,
                                 const tfl_tensor *q, const char *what, tfl_diag *diag)
{
  if (q->q.n < 1)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%s %s is not quantized", tfl_type_name(q->type), what);
  size_t count = tfl_tensor_count(q);
  st->outer = 1;
  st->channels = 1;
  st->inner = count;
  if (q->q.n > 1) {
    if (q->q.axis < 0 || q->q.axis >= q->ndim || q->dims[q->q.axis] != q->q.n)
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%s has %d scales on axis %d of %d dims", what,
                          q->q.n, q->q.axis, q->ndim);
    st->channels = (size_t)q->q.n;
    st->inner = 1;
    for (int d = q->q.axis + 1; d < q->ndim; d++) st->inner *= (size_t)q->dims[d];
    size_t per = st->channels * st->inner;
    st->outer = per ? count / per : 0;
  }
  st->scale = malloc(st->channels * sizeof(float));
  st->zp = malloc(st->channels * sizeof(int32_t));
  if (!st->scale || !st->zp) return tfl_fail(diag, TFL_ERR_NOMEM, "quantize tables");
  for (size_t c = 0; c < st->channels; c++) {
    st->scale[c] = cpu_scale(q, (int)c);
    st->zp[c] = cpu_zero_point(q, (int)c);
    if (!(st->scale[c] > 0.0f) && n->op == TFL_OP_QUANTIZE)
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%s scale %zu is %g", what, c, (double)st->scale[c]);
  }
  return TFL_OK;
}

static tfl_status check_pair(const tfl_graph *g, const tfl_node *n, const tfl_tensor **x,
                             const tfl_tensor **y, tfl_diag *diag)
{
  *x = cpu_in(g, n, INPUT);
  *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, *x, "input", -1, diag)) || (s = cpu_check_tensor(g, n, *y, "output", -1, diag)))
    return s;
  if (tfl_tensor_count(*x) != tfl_tensor_count(*y))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input has %zu elements, output %zu",
                        tfl_tensor_count(*x), tfl_tensor_count(*y));
  return TFL_OK;
}

static tfl_status prepare_quantize(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x, *y;
  tfl_status s = check_pair(g, n, &x, &y, diag);
  if (s) return s;
  bool from_float = x->type == TFL_TYPE_FLOAT32;
  bool requant = cpu_is_q8(x->type) && cpu_is_q8(y->type);
  if (!(from_float && (cpu_is_q8(y->type) || y->type == TFL_TYPE_INT16)) && !requant)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s to %s", tfl_type_name(x->type),
                        tfl_type_name(y->type));
  quant_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "quantize state");
  *state = st;
  cpu_type_limits(y->type, &st->lo, &st->hi);
  if (from_float) return setup_channels(g, n, st, y, "output", diag);
  if ((s = cpu_check_per_tensor(g, n, x, "input", diag)) || (s = cpu_check_per_tensor(g, n, y, "output", diag)))
    return s;
  /* 8-bit requantization, as TensorFlow Lite does it: same type and an input/output scale
   * ratio in [2^-8, 2^7] runs in XNNPACK (8-bit fixed-point multiplier, rounding bias,
   * arithmetic shift); otherwise TFLite's builtin (Q31 multiplier of the ratio). */
  st->flip = cpu_q8_flip(x->type);
  int32_t zx = cpu_zero_point(x, 0), zy = cpu_zero_point(y, 0);
  float ratio = cpu_scale(x, 0) / cpu_scale(y, 0);
  bool xnn = x->type == y->type && ratio >= 0x1.0p-8f && ratio <= 0x1.0p7f;
  int32_t m = (int32_t)lrintf(256.0f * ratio), q31;
  int shift;
  cpu_quantize_multiplier((double)cpu_scale(x, 0) / (double)cpu_scale(y, 0), &q31, &shift);
  for (int i = 0; i < 256; i++) {
    int32_t q = cpu_q8_value(x->type, i), v;
    if (xnn)
      v = (int32_t)(((uint32_t)zy << 8) - (uint32_t)(m * zx) + 0x80u + (uint32_t)(q * m)) >> 8;
    else
      v = cpu_mul_by_quantized_multiplier(q - zx, q31, shift) + zy;
    st->lut[i] = (uint8_t)cpu_clamp_i32(v, st->lo, st->hi);
  }
  return TFL_OK;
}

bool cpu_quantize_table(const void *state, uint8_t table[256])
{
  const quant_state *st = state;
  if (!st || st->scale) return false; /* float input: per-channel tables instead */
  for (int b = 0; b < 256; b++) table[b] = st->lut[(uint8_t)(b ^ st->flip)];
  return true;
}

static tfl_status eval_quantize(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const quant_state *st = state;
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  (void)ctx;
  if (x->type != TFL_TYPE_FLOAT32) {
    const uint8_t *src = x->data;
    uint8_t *dst = y->data;
    size_t count = tfl_tensor_count(x);
    for (size_t i = 0; i < count; i++) dst[i] = st->lut[src[i] ^ st->flip];
    return TFL_OK;
  }
  const float *src = x->data;
  size_t i = 0;
  for (size_t o = 0; o < st->outer; o++)
    for (size_t c = 0; c < st->channels; c++) {
      const float scale = st->scale[c];
      const int32_t zp = st->zp[c];
      for (size_t k = 0; k < st->inner; k++, i++) {
        float v = roundf(src[i] / scale);
        if (!(v > -1e9f)) v = -1e9f; /* NaN and -inf clamp low, as a saturating cast would */
        if (v > 1e9f) v = 1e9f;
        int32_t q = cpu_clamp_i32((int32_t)v + zp, st->lo, st->hi);
        switch (y->type) {
        case TFL_TYPE_UINT8: ((uint8_t *)y->data)[i] = (uint8_t)q; break;
        case TFL_TYPE_INT8: ((int8_t *)y->data)[i] = (int8_t)q; break;
        case TFL_TYPE_INT16: ((int16_t *)y->data)[i] = (int16_t)q; break;
        case TFL_TYPE_FLOAT32:
        case TFL_TYPE_FLOAT16:
        case TFL_TYPE_INT32:
        case TFL_TYPE_INT64:
        case TFL_TYPE_STRING:
        case TFL_TYPE_COMPLEX64:
        case TFL_TYPE_BOOL:
        case TFL_TYPE_COUNT: break;
        }
      }
    }
  return TFL_OK;
}

static tfl_status prepare_dequantize(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x, *y;
  tfl_status s = check_pair(g, n, &x, &y, diag);
  if (s) return s;
  if (y->type != TFL_TYPE_FLOAT32)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "output is %s, expected FLOAT32", tfl_type_name(y->type));
  bool ok = x->type == TFL_TYPE_FLOAT16 || cpu_is_q8(x->type) || x->type == TFL_TYPE_INT16 ||
            x->type == TFL_TYPE_INT32;
  if (!ok) return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input type %s", tfl_type_name(x->type));
  quant_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "dequantize state");
  *state = st;
  if (x->type == TFL_TYPE_FLOAT16) return TFL_OK;
  return setup_channels(g, n, st, x, "input", diag);
}

static float raw_at(const tfl_tensor *x, size_t i)
{
  switch (x->type) {
  case TFL_TYPE_UINT8: return ((const uint8_t *)x->data)[i];
  case TFL_TYPE_INT8: return ((const int8_t *)x->data)[i];
  case TFL_TYPE_INT16: return ((const int16_t *)x->data)[i];
  case TFL_TYPE_INT32: return (float)((const int32_t *)x->data)[i];
  case TFL_TYPE_FLOAT32:
  case TFL_TYPE_FLOAT16:
  case TFL_TYPE_INT64:
  case TFL_TYPE_STRING:
  case TFL_TYPE_COMPLEX64:
  case TFL_TYPE_BOOL:
  case TFL_TYPE_COUNT: break;
  }
  return 0.0f;
}

static tfl_status eval_dequantize(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const quant_state *st = state;
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  float *dst = y->data;
  (void)ctx;
  if (x->type == TFL_TYPE_FLOAT16) {
    size_t count = tfl_tensor_count(x);
    for (size_t i = 0; i < count; i++) dst[i] = cpu_get_real(x, i);
    return TFL_OK;
  }
  size_t i = 0;
  for (size_t o = 0; o < st->outer; o++)
    for (size_t c = 0; c < st->channels; c++) {
      const float scale = st->scale[c];
      const float zp = (float)st->zp[c];
      if (x->type == TFL_TYPE_UINT8) {
        const uint8_t *src = (const uint8_t *)x->data + i;
        for (size_t k = 0; k < st->inner; k++) dst[i + k] = scale * ((float)src[k] - zp);
      } else if (x->type == TFL_TYPE_INT8) {
        const int8_t *src = (const int8_t *)x->data + i;
        for (size_t k = 0; k < st->inner; k++) dst[i + k] = scale * ((float)src[k] - zp);
      } else {
        for (size_t k = 0; k < st->inner; k++) dst[i + k] = scale * (raw_at(x, i + k) - zp);
      }
      i += st->inner;
    }
  return TFL_OK;
}

const cpu_kernel cpu_k_quantize = {prepare_quantize, eval_quantize, release, CPU_F32 | CPU_Q8, 0};
const cpu_kernel cpu_k_dequantize = {prepare_dequantize, eval_dequantize, release, CPU_F16 | CPU_Q8 | CPU_I16 | CPU_I32, 0};
