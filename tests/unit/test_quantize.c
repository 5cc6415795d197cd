/* test_quantize.c - QUANTIZE (float -> uint8/int8 per tensor, int8 per channel, int16;
 * requantize uint8 <-> int8) and DEQUANTIZE (uint8, int8 per channel, int16, float16),
 * with expected codes worked out by hand: q = x * (1 / scale) rounded to even + zp for
 * 8-bit outputs per tensor (LiteRT's default interpreter), round_half_away(x / scale) + zp
 * per channel and int16 (TFLite's reference), clamped. */
#include "eltwise_test_util.h"

static void test_quantize(void)
{
  op_runner r;
  /* scale 0.5, zp 10: -10 -> -20 -> 0 (clamp); 0 -> 10; 1.25 -> 2.5 -> 2 -> 12 (even);
   * 100 -> 210; 0.75 -> 1.5 -> 2 -> 12; -0.25 -> -0.5 -> 0 -> 10 (even) */
  op_runner_init(&r, TFL_OP_QUANTIZE);
  int x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){ 6 }, (float[]){ -10, 0, 1.25f, 100, 0.75f, -0.25f }, false);
  int y = op_runner_tensor(&r, TFL_TYPE_UINT8, 1, (int32_t[]){ 6 }, NULL, false);
  set_quant(&r, y, 0.5f, 10);
  op_runner_io(&r, (int[]){ x }, 1, (int[]){ y }, 1);
  if (run_ok(&r, 1, "quantize uint8")) {
    const uint8_t want[] = { 0, 10, 12, 210, 12, 10 }, *o = r.tensors[y].data;
    CHECK(memcmp(o, want, 6) == 0, "quantize uint8 got %d %d %d %d %d %d", o[0], o[1], o[2], o[3], o[4], o[5]);
  }
  op_runner_free(&r);

  /* int8 per channel on axis 1 of [2,2]: scales (0.1, 1), zps (0, -5)
   * x = [[1, 3.5], [-20, 200]] -> [[10, -1 (3.5 -> 4 - 5)], [-128 (clamp), 127 (clamp)]] */
  op_runner_init(&r, TFL_OP_QUANTIZE);
  x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 2, 2 }, (float[]){ 1, 3.5f, -20, 200 }, false);
  y = op_runner_tensor(&r, TFL_TYPE_INT8, 2, (int32_t[]){ 2, 2 }, NULL, false);
  op_runner_quant(&r, y, 2, (float[]){ 0.1f, 1 }, (int32_t[]){ 0, -5 }, 1);
  op_runner_io(&r, (int[]){ x }, 1, (int[]){ y }, 1);
  if (run_ok(&r, 1, "quantize int8 per channel")) {
    const int8_t *o = r.tensors[y].data;
    CHECK(o[0] == 10 && o[1] == -1 && o[2] == -128 && o[3] == 127, "per-channel got %d %d %d %d", o[0], o[1],
          o[2], o[3]);
  }
  op_runner_free(&r);

  /* int16, scale 1/1000: 1.5 -> 1500, -40 -> -32768 */
  op_runner_init(&r, TFL_OP_QUANTIZE);
  x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){ 2 }, (float[]){ 1.5f, -40 }, false);
  y = op_runner_tensor(&r, TFL_TYPE_INT16, 1, (int32_t[]){ 2 }, NULL, false);
  set_quant(&r, y, 0.001f, 0);
  op_runner_io(&r, (int[]){ x }, 1, (int[]){ y }, 1);
  if (run_ok(&r, 1, "quantize int16")) {
    const int16_t *o = r.tensors[y].data;
    CHECK(o[0] == 1500 && o[1] == -32768, "int16 got %d %d", o[0], o[1]);
  }
  op_runner_free(&r);

  /* requantize uint8 (s 0.5, zp 128) -> int8 (s 0.5, zp 0): q - 128 exactly */
  op_runner_init(&r, TFL_OP_QUANTIZE);
  x = op_runner_tensor(&r, TFL_TYPE_UINT8, 1, (int32_t[]){ 4 }, (uint8_t[]){ 0, 127, 128, 255 }, false);
  y = op_runner_tensor(&r, TFL_TYPE_INT8, 1, (int32_t[]){ 4 }, NULL, false);
  set_quant(&r, x, 0.5f, 128), set_quant(&r, y, 0.5f, 0);
  op_runner_io(&r, (int[]){ x }, 1, (int[]){ y }, 1);
  if (run_ok(&r, 1, "requantize u8->i8")) {
    const int8_t *o = r.tensors[y].data;
    CHECK(o[0] == -128 && o[1] == -1 && o[2] == 0 && o[3] == 127, "requant got %d %d %d %d", o[0], o[1], o[2], o[3]);
  }
  op_runner_free(&r);

  /* requantize int8 (s 0.1, zp 0) -> uint8 (s 0.3, zp 10): 30 -> 3/0.3 + 10 = 20;
   * -100 -> -10/0.3 = -33.3 -> -33 + 10 = -23 -> 0; 14 -> 1.4/0.3 = 4.67 -> 5 + 10 = 15 */
  op_runner_init(&r, TFL_OP_QUANTIZE);
  x = op_runner_tensor(&r, TFL_TYPE_INT8, 1, (int32_t[]){ 3 }, (int8_t[]){ 30, -100, 14 }, false);
  y = op_runner_tensor(&r, TFL_TYPE_UINT8, 1, (int32_t[]){ 3 }, NULL, false);
  set_quant(&r, x, 0.1f, 0), set_quant(&r, y, 0.3f, 10);
  op_runner_io(&r, (int[]){ x }, 1, (int[]){ y }, 1);
  if (run_ok(&r, 1, "requantize i8->u8")) {
    const uint8_t *o = r.tensors[y].data;
    CHECK(o[0] == 20 && o[1] == 0 && o[2] == 15, "requant got %d %d %d", o[0], o[1], o[2]);
  }
  op_runner_free(&r);
}

static void test_dequantize(void)
{
  op_runner r;
  op_runner_init(&r, TFL_OP_DEQUANTIZE);
  int x = op_runner_tensor(&r, TFL_TYPE_UINT8, 1, (int32_t[]){ 3 }, (uint8_t[]){ 0, 128, 255 }, true);
  int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){ 3 }, NULL, false);
  set_quant(&r, x, 0.5f, 128);
  op_runner_io(&r, (int[]){ x }, 1, (int[]){ y }, 1);
  if (run_ok(&r, 1, "dequantize uint8"))
    expect_near("dequantize uint8", r.tensors[y].data, (float[]){ -64, 0, 63.5f }, 3, 0);
  op_runner_free(&r);

  /* int8 per channel on axis 0 of [2,2]: scales (2, 0.25), zps (1, 0) */
  op_runner_init(&r, TFL_OP_DEQUANTIZE);
  x = op_runner_tensor(&r, TFL_TYPE_INT8, 2, (int32_t[]){ 2, 2 }, (int8_t[]){ 3, -1, 8, -128 }, true);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 2, 2 }, NULL, false);
  op_runner_quant(&r, x, 2, (float[]){ 2, 0.25f }, (int32_t[]){ 1, 0 }, 0);
  op_runner_io(&r, (int[]){ x }, 1, (int[]){ y }, 1);
  if (run_ok(&r, 1, "dequantize int8 per channel"))
    expect_near("dequantize int8 per channel", r.tensors[y].data, (float[]){ 4, -4, 2, -32 }, 4, 0);
  op_runner_free(&r);

  op_runner_init(&r, TFL_OP_DEQUANTIZE);
  x = op_runner_tensor(&r, TFL_TYPE_INT16, 1, (int32_t[]){ 2 }, (int16_t[]){ -32768, 1000 }, false);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){ 2 }, NULL, false);
  set_quant(&r, x, 0.001f, 0);
  op_runner_io(&r, (int[]){ x }, 1, (int[]){ y }, 1);
  if (run_ok(&r, 1, "dequantize int16"))
    expect_near("dequantize int16", r.tensors[y].data, (float[]){ -32.768f, 1 }, 2, 1e-6f);
  op_runner_free(&r);

  /* float16: 0x3C00 = 1, 0xC000 = -2, 0x3555 = 0.333251953125,
   * 0x0001 = 2^-24 and 0x8001 its negative, 0x03FF = 1023 * 2^-24 (the largest subnormal),
   * 0x0400 = 2^-14 (the smallest normal), 0x7BFF = 65504 (the largest), 0x8000 = -0 */
  op_runner_init(&r, TFL_OP_DEQUANTIZE);
  x = op_runner_tensor(&r, TFL_TYPE_FLOAT16, 1, (int32_t[]){ 9 },
                       (uint16_t[]){ 0x3C00, 0xC000, 0x3555, 0x0001, 0x8001, 0x03FF, 0x0400, 0x7BFF, 0x8000 }, true);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){ 9 }, NULL, false);
  op_runner_io(&r, (int[]){ x }, 1, (int[]){ y }, 1);
  if (run_ok(&r, 1, "dequantize float16"))
    expect_near("dequantize float16", r.tensors[y].data,
                (float[]){ 1, -2, 0.333251953125f, 0x1p-24f, -0x1p-24f, 1023 * 0x1p-24f, 0x1p-14f, 65504, 0 }, 9, 0);
  op_runner_free(&r);
}

int main(void)
{
  test_quantize();
  test_dequantize();
  return finish("test_quantize");
}
