/* test_activations.c - RELU RELU6 LOGISTIC TANH EXP HARD_SWISH (float against libm in
 * double, tol 1e-6 relative-ish; quantized uint8/int8 against f(dequantized input),
 * within 1 output LSB) and PRELU (float with per-channel and full alpha; quantized). */
#include "eltwise_test_util.h"

static double ref_unary(tfl_op op, double x)
{
  switch (op) {
  case TFL_OP_RELU: return x < 0 ? 0 : x;
  case TFL_OP_RELU6: return x < 0 ? 0 : (x > 6 ? 6 : x);
  case TFL_OP_LOGISTIC: return 1 / (1 + exp(-x));
  case TFL_OP_TANH: return tanh(x);
  case TFL_OP_EXP: return exp(x);
  case TFL_OP_HARD_SWISH: return x * fmin(fmax(x + 3, 0), 6) / 6;
  default: return 0;
  }
}

static const float xs[] = { -8, -6.5f, -3, -2.9f, -1, -0.5f, -0.01f, 0, 0.3f, 1, 2.5f, 3, 5.9f, 6, 6.2f, 9 };
#define NX (sizeof xs / sizeof xs[0])

static void float_case(tfl_op op)
{
  float want[NX];
  for (size_t i = 0; i < NX; i++) want[i] = (float)ref_unary(op, xs[i]);
  op_runner r;
  op_runner_init(&r, op);
  int x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 2, NX / 2 }, xs, false);
  int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 2, NX / 2 }, NULL, false);
  op_runner_io(&r, (int[]){ x }, 1, (int[]){ y }, 1);
  if (run_ok(&r, 1, tfl_op_name(op))) {
    const float *got = r.tensors[y].data;
    for (size_t i = 0; i < NX; i++)
      CHECK(fabsf(got[i] - want[i]) <= 1e-6f * fmaxf(1.0f, fabsf(want[i])), "%s(%g) = %g, want %g",
            tfl_op_name(op), xs[i], got[i], want[i]);
  }
  op_runner_free(&r);
}

static void quant_case(tfl_op op, tfl_type type, float si, int32_t zi, float so, int32_t zo)
{
  bool u8 = type == TFL_TYPE_UINT8;
  uint8_t q[NX];
  float rx[NX], want[NX], got[NX];
  if (u8) quantize_u8(xs, q, NX, si, zi), dequantize_u8(q, rx, NX, si, zi);
  else quantize_i8(xs, (int8_t *)q, NX, si, zi), dequantize_i8((int8_t *)q, rx, NX, si, zi);
  float lo = so * ((u8 ? 0 : -128) - zo), hi = so * ((u8 ? 255 : 127) - zo);
  for (size_t i = 0; i < NX; i++) {
    double v = ref_unary(op, rx[i]);
    want[i] = (float)(v < lo ? lo : (v > hi ? hi : v));
  }
  op_runner r;
  op_runner_init(&r, op);
  int x = op_runner_tensor(&r, type, 1, (int32_t[]){ NX }, q, false);
  int y = op_runner_tensor(&r, type, 1, (int32_t[]){ NX }, NULL, false);
  set_quant(&r, x, si, zi);
  set_quant(&r, y, so, zo);
  op_runner_io(&r, (int[]){ x }, 1, (int[]){ y }, 1);
  char what[64];
  snprintf(what, sizeof what, "quantized %s %s", tfl_type_name(type), tfl_op_name(op));
  if (run_ok(&r, 2, what)) {
    if (u8) dequantize_u8(r.tensors[y].data, got, NX, so, zo);
    else dequantize_i8(r.tensors[y].data, got, NX, so, zo);
    expect_near(what, got, want, NX, so * 1.0001f);
  }
  op_runner_free(&r);
}

static void test_prelu(void)
{
  /* x [1,2,2,3], alpha per channel [3] */
  const float x[] = { -1, 2, -3, 4, -5, 6, -7, 8, 9, 0, -2, -4 };
  const float al[] = { 0.1f, 0.5f, 2 };
  const float want[] = { -0.1f, 2, -6, 4, -2.5f, 6, -0.7f, 8, 9, 0, -1, -8 };
  op_runner r;
  op_runner_init(&r, TFL_OP_PRELU);
  int tx = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){ 1, 2, 2, 3 }, x, false);
  int ta = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 3, (int32_t[]){ 1, 1, 3 }, al, true);
  int ty = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){ 1, 2, 2, 3 }, NULL, false);
  op_runner_io(&r, (int[]){ tx, ta }, 2, (int[]){ ty }, 1);
  if (run_ok(&r, 1, "prelu")) expect_near("prelu", r.tensors[ty].data, want, 12, 1e-6f);
  op_runner_free(&r);

  /* alpha with the full shape */
  float al2[12], want2[12];
  for (int i = 0; i < 12; i++) al2[i] = 0.25f * (float)(i + 1), want2[i] = x[i] >= 0 ? x[i] : x[i] * al2[i];
  op_runner_init(&r, TFL_OP_PRELU);
  tx = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){ 1, 2, 2, 3 }, x, false);
  ta = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){ 1, 2, 2, 3 }, al2, true);
  ty = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){ 1, 2, 2, 3 }, NULL, false);
  op_runner_io(&r, (int[]){ tx, ta }, 2, (int[]){ ty }, 1);
  if (run_ok(&r, 1, "prelu full alpha")) expect_near("prelu full alpha", r.tensors[ty].data, want2, 12, 1e-6f);
  op_runner_free(&r);

  /* quantized uint8 */
  uint8_t qx[12], qa[3];
  float rx[12], ra[3], wq[12], got[12];
  const float sx = 0.05f, sa = 0.01f, so = 0.06f;
  const int32_t zx = 128, za = 0, zo = 140;
  quantize_u8(x, qx, 12, sx, zx), dequantize_u8(qx, rx, 12, sx, zx);
  quantize_u8(al, qa, 3, sa, za), dequantize_u8(qa, ra, 3, sa, za);
  for (int i = 0; i < 12; i++) {
    float v = rx[i] >= 0 ? rx[i] : rx[i] * ra[i % 3];
    float lo = so * (0 - zo), hi = so * (255 - zo);
    wq[i] = v < lo ? lo : (v > hi ? hi : v);
  }
  op_runner_init(&r, TFL_OP_PRELU);
  tx = op_runner_tensor(&r, TFL_TYPE_UINT8, 4, (int32_t[]){ 1, 2, 2, 3 }, qx, false);
  ta = op_runner_tensor(&r, TFL_TYPE_UINT8, 1, (int32_t[]){ 3 }, qa, true);
  ty = op_runner_tensor(&r, TFL_TYPE_UINT8, 4, (int32_t[]){ 1, 2, 2, 3 }, NULL, false);
  set_quant(&r, tx, sx, zx), set_quant(&r, ta, sa, za), set_quant(&r, ty, so, zo);
  op_runner_io(&r, (int[]){ tx, ta }, 2, (int[]){ ty }, 1);
  if (run_ok(&r, 1, "quantized prelu")) {
    dequantize_u8(r.tensors[ty].data, got, 12, so, zo);
    expect_near("quantized prelu", got, wq, 12, so * 1.0001f);
  }
  op_runner_free(&r);
}

static void test_threaded_large(void)
{
  enum { N = 100000 };
  static float x[N], want[N];
  for (int i = 0; i < N; i++) x[i] = (float)(i % 200 - 100) * 0.07f, want[i] = (float)ref_unary(TFL_OP_LOGISTIC, x[i]);
  op_runner r;
  op_runner_init(&r, TFL_OP_LOGISTIC);
  int tx = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){ N }, x, false);
  int ty = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){ N }, NULL, false);
  op_runner_io(&r, (int[]){ tx }, 1, (int[]){ ty }, 1);
  if (run_ok(&r, 2, "threaded logistic")) expect_near("threaded logistic", r.tensors[ty].data, want, N, 1e-6f);
  op_runner_free(&r);
}

int main(void)
{
  const tfl_op ops[] = { TFL_OP_RELU, TFL_OP_RELU6, TFL_OP_LOGISTIC, TFL_OP_TANH, TFL_OP_EXP, TFL_OP_HARD_SWISH };
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) float_case(ops[i]);
  quant_case(TFL_OP_RELU, TFL_TYPE_UINT8, 0.1f, 128, 0.05f, 0);
  quant_case(TFL_OP_RELU6, TFL_TYPE_INT8, 0.1f, 0, 6.0f / 255, -128);
  quant_case(TFL_OP_LOGISTIC, TFL_TYPE_UINT8, 0.08f, 120, 1.0f / 256, 0);
  quant_case(TFL_OP_LOGISTIC, TFL_TYPE_INT8, 0.08f, -3, 1.0f / 256, -128);
  quant_case(TFL_OP_TANH, TFL_TYPE_INT8, 0.05f, 0, 1.0f / 128, 0);
  quant_case(TFL_OP_HARD_SWISH, TFL_TYPE_UINT8, 0.07f, 128, 0.04f, 20);
  quant_case(TFL_OP_HARD_SWISH, TFL_TYPE_INT8, 0.07f, 0, 0.04f, -100);
  test_prelu();
  test_threaded_large();
  return finish("test_activations");
}
