/* test_softmax.c - SOFTMAX over the last axis: float rows with beta 1 and 0.5 against a
 * double reference (tol 1e-6), and uint8/int8 inputs with TFLite's fixed output
 * quantization (scale 1/256; zero point 0 / -128), compared after dequantizing within
 * 1 LSB of the reference on the dequantized input. */
#include "eltwise_test_util.h"

static void ref_softmax(const float *x, float *y, int rows, int depth, float beta)
{
  for (int r = 0; r < rows; r++) {
    const float *a = x + r * depth;
    double mx = a[0], sum = 0;
    for (int k = 1; k < depth; k++) mx = a[k] > mx ? a[k] : mx;
    for (int k = 0; k < depth; k++) sum += exp(beta * (a[k] - mx));
    for (int k = 0; k < depth; k++) y[r * depth + k] = (float)(exp(beta * (a[k] - mx)) / sum);
  }
}

static const float xs[] = { 1, 2, 3, 4, -1, 0.5f, 10, -3, 0, 0, 0, 0 };

static void float_case(float beta, int threads)
{
  float want[12];
  ref_softmax(xs, want, 3, 4, beta);
  op_runner r;
  op_runner_init(&r, TFL_OP_SOFTMAX);
  int x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 3, 4 }, xs, false);
  int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 3, 4 }, NULL, false);
  op_runner_io(&r, (int[]){ x }, 1, (int[]){ y }, 1);
  r.node.p.softmax.beta = beta;
  if (run_ok(&r, threads, "softmax float")) expect_near("softmax float", r.tensors[y].data, want, 12, 1e-6f);
  op_runner_free(&r);
}

static void quant_case(tfl_type type, float beta)
{
  const float si = 0.1f, so = 1.0f / 256;
  const int32_t zi = type == TFL_TYPE_UINT8 ? 30 : -20, zo = type == TFL_TYPE_UINT8 ? 0 : -128;
  uint8_t q[12];
  float rx[12], want[12], got[12];
  if (type == TFL_TYPE_UINT8) quantize_u8(xs, q, 12, si, zi), dequantize_u8(q, rx, 12, si, zi);
  else quantize_i8(xs, (int8_t *)q, 12, si, zi), dequantize_i8((int8_t *)q, rx, 12, si, zi);
  ref_softmax(rx, want, 3, 4, beta);
  for (int i = 0; i < 12; i++) want[i] = fminf(want[i], so * (255 - 0)); /* 1.0 saturates at 255/256 */
  op_runner r;
  op_runner_init(&r, TFL_OP_SOFTMAX);
  int x = op_runner_tensor(&r, type, 2, (int32_t[]){ 3, 4 }, q, false);
  int y = op_runner_tensor(&r, type, 2, (int32_t[]){ 3, 4 }, NULL, false);
  set_quant(&r, x, si, zi), set_quant(&r, y, so, zo);
  op_runner_io(&r, (int[]){ x }, 1, (int[]){ y }, 1);
  r.node.p.softmax.beta = beta;
  const char *what = type == TFL_TYPE_UINT8 ? "softmax uint8" : "softmax int8";
  if (run_ok(&r, 1, what)) {
    if (type == TFL_TYPE_UINT8) dequantize_u8(r.tensors[y].data, got, 12, so, zo);
    else dequantize_i8(r.tensors[y].data, got, 12, so, zo);
    expect_near(what, got, want, 12, so * 1.0001f);
  }
  op_runner_free(&r);
}

int main(void)
{
  float_case(1.0f, 1);
  float_case(0.5f, 2);
  quant_case(TFL_TYPE_UINT8, 1.0f);
  quant_case(TFL_TYPE_INT8, 1.0f);
  quant_case(TFL_TYPE_UINT8, 2.0f);
  return finish("test_softmax");
}
