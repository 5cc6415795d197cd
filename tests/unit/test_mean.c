/* test_mean.c - MEAN: x[1,2,2,3] = 0..11 over axes (1,2) keep_dims, (-1), (0,3), repeated
 * axes, all axes; quantized uint8/int8 with differing scales (1 LSB after dequantizing);
 * a large threaded case against a naive double sum (tol 1e-4). */
#include "eltwise_test_util.h"

#include <stdlib.h>

static float xs[12];

static void float_case(const char *what, const int32_t *axes, int n_axes, bool keep, int ny,
                       const int32_t *dy, const float *want, int n_want)
{
  op_runner r;
  op_runner_init(&r, TFL_OP_MEAN);
  int x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){ 1, 2, 2, 3 }, xs, false);
  int a = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){ n_axes }, axes, true);
  int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, ny, dy, NULL, false);
  op_runner_io(&r, (int[]){ x, a }, 2, (int[]){ y }, 1);
  r.node.p.reducer.keep_dims = keep;
  if (run_ok(&r, 1, what)) expect_near(what, r.tensors[y].data, want, (size_t)n_want, 1e-6f);
  op_runner_free(&r);
}

static void quant_case(tfl_type type)
{
  const float si = 0.5f, so = 0.25f;
  const int32_t zi = type == TFL_TYPE_UINT8 ? 3 : -7, zo = type == TFL_TYPE_UINT8 ? 1 : -3;
  float fx[12], rx[12], want[3] = { 0, 0, 0 }, got[3];
  uint8_t q[12];
  for (int i = 0; i < 12; i++) fx[i] = (float)(i * 7 % 12) * 0.6f - 2;
  if (type == TFL_TYPE_UINT8) quantize_u8(fx, q, 12, si, zi), dequantize_u8(q, rx, 12, si, zi);
  else quantize_i8(fx, (int8_t *)q, 12, si, zi), dequantize_i8((int8_t *)q, rx, 12, si, zi);
  for (int i = 0; i < 12; i++) want[i % 3] += rx[i] / 4;
  op_runner r;
  op_runner_init(&r, TFL_OP_MEAN);
  int x = op_runner_tensor(&r, type, 4, (int32_t[]){ 1, 2, 2, 3 }, q, false);
  int a = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){ 2 }, (int32_t[]){ 1, 2 }, true);
  int y = op_runner_tensor(&r, type, 4, (int32_t[]){ 1, 1, 1, 3 }, NULL, false);
  set_quant(&r, x, si, zi), set_quant(&r, y, so, zo);
  op_runner_io(&r, (int[]){ x, a }, 2, (int[]){ y }, 1);
  r.node.p.reducer.keep_dims = true;
  const char *what = type == TFL_TYPE_UINT8 ? "mean uint8" : "mean int8";
  if (run_ok(&r, 1, what)) {
    if (type == TFL_TYPE_UINT8) dequantize_u8(r.tensors[y].data, got, 3, so, zo);
    else dequantize_i8(r.tensors[y].data, got, 3, so, zo);
    expect_near(what, got, want, 3, so * 1.0001f);
  }
  op_runner_free(&r);
}

static void threaded_case(void)
{
  enum { H = 16, W = 16, C = 256 };
  float *x = malloc(sizeof(float) * H * W * C), want[C];
  for (int i = 0; i < H * W * C; i++) x[i] = (float)((i * 37) % 101) * 0.01f - 0.5f;
  for (int c = 0; c < C; c++) {
    double s = 0;
    for (int p = 0; p < H * W; p++) s += x[p * C + c];
    want[c] = (float)(s / (H * W));
  }
  op_runner r;
  op_runner_init(&r, TFL_OP_MEAN);
  int tx = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){ 1, H, W, C }, x, false);
  int a = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){ 2 }, (int32_t[]){ 1, 2 }, true);
  int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 1, C }, NULL, false);
  op_runner_io(&r, (int[]){ tx, a }, 2, (int[]){ y }, 1);
  if (run_ok(&r, 2, "mean threaded")) expect_near("mean threaded", r.tensors[y].data, want, C, 1e-4f);
  op_runner_free(&r);
  free(x);
}

int main(void)
{
  for (int i = 0; i < 12; i++) xs[i] = (float)i;
  /* x[0,h,w,c] = (2h + w) * 3 + c */
  float_case("mean (1,2) keep", (int32_t[]){ 1, 2 }, 2, true, 4, (int32_t[]){ 1, 1, 1, 3 },
             (float[]){ 4.5f, 5.5f, 6.5f }, 3);
  float_case("mean (-1)", (int32_t[]){ -1 }, 1, false, 3, (int32_t[]){ 1, 2, 2 }, (float[]){ 1, 4, 7, 10 }, 4);
  float_case("mean (0,3)", (int32_t[]){ 0, 3 }, 2, false, 2, (int32_t[]){ 2, 2 }, (float[]){ 1, 4, 7, 10 }, 4);
  float_case("mean (2,1,2)", (int32_t[]){ 2, 1, 2 }, 3, false, 2, (int32_t[]){ 1, 3 }, (float[]){ 4.5f, 5.5f, 6.5f }, 3);
  float_case("mean (1)", (int32_t[]){ 1 }, 1, false, 3, (int32_t[]){ 1, 2, 3 },
             (float[]){ 3, 4, 5, 6, 7, 8 }, 6);
  float_case("mean all", (int32_t[]){ 0, 1, 2, 3 }, 4, false, 0, (int32_t[]){ 0 }, (float[]){ 5.5f }, 1);
  quant_case(TFL_TYPE_UINT8);
  quant_case(TFL_TYPE_INT8);
  threaded_case();
  return finish("test_mean");
}
