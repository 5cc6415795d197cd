/* test_resize.c - RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR on a 2x2 image
 * [[1,2],[3,4]] with every flag combination; expected values worked out by hand from the
 * sampling rules (written beside each case). Float tol 1e-6; quantized cases start from
 * floats and compare after dequantizing within 1 LSB. */
#include "eltwise_test_util.h"

static const float img[] = { 1, 2, 3, 4 };

static void run_case(const char *what, tfl_op op, bool ac, bool hp, int oh, int ow, const float *want,
                     int threads)
{
  op_runner r;
  op_runner_init(&r, op);
  int x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){ 1, 2, 2, 1 }, img, false);
  int s = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){ 2 }, (int32_t[]){ oh, ow }, true);
  int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){ 1, oh, ow, 1 }, NULL, false);
  op_runner_io(&r, (int[]){ x, s }, 2, (int[]){ y }, 1);
  r.node.p.resize.align_corners = ac;
  r.node.p.resize.half_pixel_centers = hp;
  if (run_ok(&r, threads, what)) expect_near(what, r.tensors[y].data, want, (size_t)(oh * ow), 1e-6f);
  op_runner_free(&r);
}

static void test_bilinear(void)
{
  /* no flags, 2 -> 4: scale 0.5, samples 0, .5, 1, 1.5 (1.5 has both neighbours at 1) */
  run_case("bilinear 2->4", TFL_OP_RESIZE_BILINEAR, false, false, 4, 4,
           (float[]){ 1, 1.5f, 2, 2, 2, 2.5f, 3, 3, 3, 3.5f, 4, 4, 3, 3.5f, 4, 4 }, 1);
  /* align_corners, 2 -> 3: scale 0.5, samples 0, .5, 1 */
  run_case("bilinear align_corners 2->3", TFL_OP_RESIZE_BILINEAR, true, false, 3, 3,
           (float[]){ 1, 1.5f, 2, 2, 2.5f, 3, 3, 3.5f, 4 }, 1);
  /* half_pixel_centers, 2 -> 4: samples -.25 (clamps to 0), .25, .75, 1.25 (clamps to 1) */
  run_case("bilinear half_pixel 2->4", TFL_OP_RESIZE_BILINEAR, false, true, 4, 4,
           (float[]){ 1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f, 2.5f, 2.75f, 3.25f, 3.5f, 3, 3.25f, 3.75f, 4 }, 2);
  /* downscale 2 -> 1 without flags samples 0 */
  run_case("bilinear 2->1", TFL_OP_RESIZE_BILINEAR, false, false, 1, 1, (float[]){ 1 }, 1);
}

static void test_nearest(void)
{
  /* floor(o * 0.5): 0 0 1 1 */
  run_case("nearest 2->4", TFL_OP_RESIZE_NEAREST_NEIGHBOR, false, false, 4, 4,
           (float[]){ 1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4 }, 1);
  /* align_corners 2 -> 3: round(o * 0.5) = 0, 1 (0.5 rounds away), 1 */
  run_case("nearest align_corners 2->3", TFL_OP_RESIZE_NEAREST_NEIGHBOR, true, false, 3, 3,
           (float[]){ 1, 2, 2, 3, 4, 4, 3, 4, 4 }, 1);
  /* half_pixel 2 -> 3: floor((o + .5) * 2/3) = 0, 1, 1 */
  run_case("nearest half_pixel 2->3", TFL_OP_RESIZE_NEAREST_NEIGHBOR, false, true, 3, 3,
           (float[]){ 1, 2, 2, 3, 4, 4, 3, 4, 4 }, 1);
  /* no flags 2 -> 3: floor(o * 2/3) = 0, 0, 1 */
  run_case("nearest 2->3", TFL_OP_RESIZE_NEAREST_NEIGHBOR, false, false, 3, 3,
           (float[]){ 1, 1, 2, 1, 1, 2, 3, 3, 4 }, 1);
}

static void test_quantized(void)
{
  /* half_pixel 2 -> 4 on reals [[1,2],[3,4]] with 2 channels (second = first * -1) */
  const float want1[] = { 1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f, 2.5f, 2.75f, 3.25f, 3.5f, 3, 3.25f, 3.75f, 4 };
  const float fx[] = { 1, -1, 2, -2, 3, -3, 4, -4 };
  float want[32], got[32];
  for (int i = 0; i < 16; i++) want[2 * i] = want1[i], want[2 * i + 1] = -want1[i];
  for (int t = 0; t < 2; t++) {
    tfl_type type = t ? TFL_TYPE_INT8 : TFL_TYPE_UINT8;
    const float s = 0.05f;
    const int32_t z = t ? 0 : 100;
    uint8_t q[8];
    if (t) quantize_i8(fx, (int8_t *)q, 8, s, z);
    else quantize_u8(fx, q, 8, s, z);
    op_runner r;
    op_runner_init(&r, TFL_OP_RESIZE_BILINEAR);
    int x = op_runner_tensor(&r, type, 4, (int32_t[]){ 1, 2, 2, 2 }, q, false);
    int sz = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){ 2 }, (int32_t[]){ 4, 4 }, true);
    int y = op_runner_tensor(&r, type, 4, (int32_t[]){ 1, 4, 4, 2 }, NULL, false);
    set_quant(&r, x, s, z), set_quant(&r, y, s, z);
    op_runner_io(&r, (int[]){ x, sz }, 2, (int[]){ y }, 1);
    r.node.p.resize.half_pixel_centers = true;
    const char *what = t ? "int8 bilinear" : "uint8 bilinear";
    if (run_ok(&r, 1, what)) {
      if (t) dequantize_i8(r.tensors[y].data, got, 32, s, z);
      else dequantize_u8(r.tensors[y].data, got, 32, s, z);
      expect_near(what, got, want, 32, s * 1.0001f);
    }
    op_runner_free(&r);
  }
}

int main(void)
{
  test_bilinear();
  test_nearest();
  test_quantized();
  return finish("test_resize");
}
