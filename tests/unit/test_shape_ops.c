/* test_shape_ops.c - CONCATENATION, RESHAPE, SQUEEZE, PAD/PADV2, STRIDED_SLICE,
 * DEPTH_TO_SPACE: literal inputs with expected outputs worked out by hand (NumPy slicing
 * for the strided slices, written beside each case). Exact compares except quantized
 * concatenation (1 output LSB after dequantizing). */
#include "eltwise_test_util.h"

static float iota_f[64];

static void check_floats(const char *what, op_runner *r, int y, const float *want, size_t n)
{
  if (run_ok(r, 1, what)) expect_near(what, r->tensors[y].data, want, n, 0.0f);
}

/* ---- concatenation ---- */
static void test_concat(void)
{
  op_runner r;
  /* [2,1,2] ++ [2,2,2] on axis 1 */
  op_runner_init(&r, TFL_OP_CONCATENATION);
  int a = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 3, (int32_t[]){ 2, 1, 2 }, (float[]){ 1, 2, 3, 4 }, false);
  int b = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 3, (int32_t[]){ 2, 2, 2 }, (float[]){ 5, 6, 7, 8, 9, 10, 11, 12 }, false);
  int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 3, (int32_t[]){ 2, 3, 2 }, NULL, false);
  op_runner_io(&r, (int[]){ a, b }, 2, (int[]){ y }, 1);
  r.node.p.concat.axis = 1;
  check_floats("concat axis 1", &r, y, (float[]){ 1, 2, 5, 6, 7, 8, 3, 4, 9, 10, 11, 12 }, 12);
  op_runner_free(&r);

  /* three inputs on axis -1; the fused RELU is left unapplied, as the real TFLite does */
  op_runner_init(&r, TFL_OP_CONCATENATION);
  a = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 2, 1 }, (float[]){ -1, 2 }, false);
  b = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 2, 2 }, (float[]){ 3, -4, 5, 6 }, false);
  int c = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 2, 1 }, (float[]){ 7, -8 }, true);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 2, 4 }, NULL, false);
  op_runner_io(&r, (int[]){ a, b, c }, 3, (int[]){ y }, 1);
  r.node.p.concat.axis = -1;
  r.node.p.concat.act = TFL_ACT_RELU;
  check_floats("concat axis -1 relu", &r, y, (float[]){ -1, 3, -4, 7, 2, 5, 6, -8 }, 8);
  op_runner_free(&r);

  /* quantized uint8 with differing scales, axis 0 */
  const float fa[] = { 0.1f, 0.5f, 1.2f, -0.3f }, fb[] = { 2.0f, -1.0f, 4.4f, 0.0f };
  uint8_t qa[4], qb[4];
  float want[8], got[8];
  quantize_u8(fa, qa, 4, 0.1f, 10), quantize_u8(fb, qb, 4, 0.2f, 50);
  dequantize_u8(qa, want, 4, 0.1f, 10), dequantize_u8(qb, want + 4, 4, 0.2f, 50);
  op_runner_init(&r, TFL_OP_CONCATENATION);
  a = op_runner_tensor(&r, TFL_TYPE_UINT8, 2, (int32_t[]){ 1, 4 }, qa, false);
  b = op_runner_tensor(&r, TFL_TYPE_UINT8, 2, (int32_t[]){ 1, 4 }, qb, false);
  y = op_runner_tensor(&r, TFL_TYPE_UINT8, 2, (int32_t[]){ 2, 4 }, NULL, false);
  set_quant(&r, a, 0.1f, 10), set_quant(&r, b, 0.2f, 50), set_quant(&r, y, 0.15f, 20);
  op_runner_io(&r, (int[]){ a, b }, 2, (int[]){ y }, 1);
  if (run_ok(&r, 1, "quantized concat")) {
    dequantize_u8(r.tensors[y].data, got, 8, 0.15f, 20);
    expect_near("quantized concat", got, want, 8, 0.15f * 1.0001f);
  }
  op_runner_free(&r);

  /* mismatched dims are refused */
  op_runner_init(&r, TFL_OP_CONCATENATION);
  a = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 2, 1 }, NULL, false);
  b = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 3, 1 }, NULL, false);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 2, 2 }, NULL, false);
  op_runner_io(&r, (int[]){ a, b }, 2, (int[]){ y }, 1);
  r.node.p.concat.axis = 1;
  CHECK(op_runner_run(&r, 1) == TFL_ERR_SHAPE, "concat of 2x1 and 3x1 on axis 1 accepted");
  op_runner_free(&r);
}

/* ---- reshape, squeeze ---- */
static void test_reshape(void)
{
  op_runner r;
  op_runner_init(&r, TFL_OP_RESHAPE);
  int x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 2, 3 }, iota_f, false);
  int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 3, 2 }, NULL, false);
  op_runner_io(&r, (int[]){ x }, 1, (int[]){ y }, 1);
  check_floats("reshape copy", &r, y, iota_f, 6);
  op_runner_free(&r);

  /* aliased: output storage is the input's */
  op_runner_init(&r, TFL_OP_RESHAPE);
  x = op_runner_tensor(&r, TFL_TYPE_INT8, 1, (int32_t[]){ 4 }, (int8_t[]){ 1, -2, 3, -4 }, false);
  y = op_runner_tensor(&r, TFL_TYPE_INT8, 2, (int32_t[]){ 2, 2 }, NULL, false);
  op_runner_io(&r, (int[]){ x }, 1, (int[]){ y }, 1);
  void *own = r.tensors[y].data;
  r.tensors[y].data = r.tensors[x].data;
  if (run_ok(&r, 1, "reshape alias")) {
    const int8_t *o = r.tensors[y].data;
    CHECK(o[0] == 1 && o[1] == -2 && o[2] == 3 && o[3] == -4, "aliased reshape changed data");
  }
  r.tensors[y].data = own;
  op_runner_free(&r);

  op_runner_init(&r, TFL_OP_SQUEEZE);
  x = op_runner_tensor(&r, TFL_TYPE_INT32, 4, (int32_t[]){ 1, 3, 1, 1 }, (int32_t[]){ 7, 8, 9 }, false);
  y = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){ 3 }, NULL, false);
  op_runner_io(&r, (int[]){ x }, 1, (int[]){ y }, 1);
  if (run_ok(&r, 1, "squeeze")) {
    const int32_t *o = r.tensors[y].data;
    CHECK(o[0] == 7 && o[1] == 8 && o[2] == 9, "squeeze got %d %d %d", o[0], o[1], o[2]);
  }
  op_runner_free(&r);

  op_runner_init(&r, TFL_OP_RESHAPE);
  x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){ 4 }, NULL, false);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){ 5 }, NULL, false);
  op_runner_io(&r, (int[]){ x }, 1, (int[]){ y }, 1);
  CHECK(op_runner_run(&r, 1) == TFL_ERR_SHAPE, "reshape 4 -> 5 accepted");
  op_runner_free(&r);
}

/* ---- pad ---- */
static void test_pad(void)
{
  op_runner r;
  /* [1,2,2,1] padded H (1,0), W (0,2):
   *   0 0 0 0
   *   1 2 0 0
   *   3 4 0 0 */
  op_runner_init(&r, TFL_OP_PAD);
  int x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){ 1, 2, 2, 1 }, (float[]){ 1, 2, 3, 4 }, false);
  int p = op_runner_tensor(&r, TFL_TYPE_INT32, 2, (int32_t[]){ 4, 2 }, (int32_t[]){ 0, 0, 1, 0, 0, 2, 0, 0 }, true);
  int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){ 1, 3, 4, 1 }, NULL, false);
  op_runner_io(&r, (int[]){ x, p }, 2, (int[]){ y }, 1);
  check_floats("pad float", &r, y, (float[]){ 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0 }, 12);
  op_runner_free(&r);

  /* PADV2 with value -1, int64 paddings, channel padding (0,1) and W (1,0) */
  op_runner_init(&r, TFL_OP_PADV2);
  x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 3, (int32_t[]){ 1, 2, 1 }, (float[]){ 5, 6 }, false);
  p = op_runner_tensor(&r, TFL_TYPE_INT64, 2, (int32_t[]){ 3, 2 }, (int64_t[]){ 0, 0, 1, 0, 0, 1 }, false);
  int v = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 0, (int32_t[]){ 0 }, (float[]){ -1 }, true);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 3, (int32_t[]){ 1, 3, 2 }, NULL, false);
  op_runner_io(&r, (int[]){ x, p, v }, 3, (int[]){ y }, 1);
  check_floats("padv2 -1", &r, y, (float[]){ -1, -1, 5, -1, 6, -1 }, 6);
  op_runner_free(&r);

  /* quantized PAD fills with the zero point */
  op_runner_init(&r, TFL_OP_PAD);
  x = op_runner_tensor(&r, TFL_TYPE_UINT8, 2, (int32_t[]){ 1, 2 }, (uint8_t[]){ 200, 100 }, false);
  p = op_runner_tensor(&r, TFL_TYPE_INT32, 2, (int32_t[]){ 2, 2 }, (int32_t[]){ 1, 1, 1, 0 }, true);
  y = op_runner_tensor(&r, TFL_TYPE_UINT8, 2, (int32_t[]){ 3, 3 }, NULL, false);
  set_quant(&r, x, 0.5f, 7), set_quant(&r, y, 0.5f, 7);
  op_runner_io(&r, (int[]){ x, p }, 2, (int[]){ y }, 1);
  if (run_ok(&r, 2, "quantized pad")) {
    const uint8_t want[] = { 7, 7, 7, 7, 200, 100, 7, 7, 7 }, *o = r.tensors[y].data;
    CHECK(memcmp(o, want, 9) == 0, "quantized pad got %d %d %d / %d %d %d / %d %d %d", o[0], o[1], o[2],
          o[3], o[4], o[5], o[6], o[7], o[8]);
  }
  op_runner_free(&r);

  /* paddings that do not give the output shape are refused */
  op_runner_init(&r, TFL_OP_PAD);
  x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){ 2 }, NULL, false);
  p = op_runner_tensor(&r, TFL_TYPE_INT32, 2, (int32_t[]){ 1, 2 }, (int32_t[]){ 1, 1 }, true);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){ 3 }, NULL, false);
  op_runner_io(&r, (int[]){ x, p }, 2, (int[]){ y }, 1);
  CHECK(op_runner_run(&r, 1) == TFL_ERR_SHAPE, "pad 2 + (1,1) -> 3 accepted");
  op_runner_free(&r);
}

/* ---- strided slice on x = arange(24).reshape(2,3,4) unless noted ---- */
typedef struct {
  const char *what;
  int in_nd;
  int32_t in_dims[4];
  int spec;
  int32_t begin[4], end[4], strides[4];
  int bm, em, ell, nam, sam;
  bool offset, const_idx;
  int out_nd;
  int32_t out_dims[4];
  int n_want;
  float want[24];
} slice_case;

static const slice_case slices[] = {
  { "x[0:2, 1:3, 1:3]", 3, { 2, 3, 4 }, 3, { 0, 1, 1 }, { 2, 3, 3 }, { 1, 1, 1 }, 0, 0, 0, 0, 0, false, true,
    3, { 2, 2, 2 }, 8, { 5, 6, 9, 10, 17, 18, 21, 22 } },
  { "same, begin/end/strides computed", 3, { 2, 3, 4 }, 3, { 0, 1, 1 }, { 2, 3, 3 }, { 1, 1, 1 }, 0, 0, 0, 0, 0,
    false, false, 3, { 2, 2, 2 }, 8, { 5, 6, 9, 10, 17, 18, 21, 22 } },
  { "y[4:0:-2] on arange(5)", 1, { 5 }, 1, { 4 }, { 0 }, { -2 }, 0, 0, 0, 0, 0, false, true, 1, { 2 }, 2, { 4, 2 } },
  { "y[::-1] on arange(5)", 1, { 5 }, 1, { 3 }, { 3 }, { -1 }, 1, 1, 0, 0, 0, false, true, 1, { 5 }, 5,
    { 4, 3, 2, 1, 0 } },
  { "y[-10:10] on arange(5)", 1, { 5 }, 1, { -10 }, { 10 }, { 1 }, 0, 0, 0, 0, 0, false, true, 1, { 5 }, 5,
    { 0, 1, 2, 3, 4 } },
  { "y[-2:] on arange(5)", 1, { 5 }, 1, { -2 }, { 0 }, { 1 }, 0, 1, 0, 0, 0, false, true, 1, { 2 }, 2, { 3, 4 } },
  { "x[:, -1, ::2]", 3, { 2, 3, 4 }, 3, { 0, -1, 0 }, { 0, 0, 0 }, { 1, 1, 2 }, 5, 5, 0, 0, 2, false, true, 2,
    { 2, 2 }, 4, { 8, 10, 20, 22 } },
  { "x[1, newaxis, 1:3]", 3, { 2, 3, 4 }, 3, { 1, 0, 1 }, { 2, 0, 3 }, { 1, 1, 1 }, 0, 0, 0, 2, 1, false, true, 3,
    { 1, 2, 4 }, 8, { 16, 17, 18, 19, 20, 21, 22, 23 } },
  { "x[..., 1]", 3, { 2, 3, 4 }, 2, { 0, 1 }, { 0, 2 }, { 1, 1 }, 0, 0, 1, 0, 2, false, true, 2, { 2, 3 }, 6,
    { 1, 5, 9, 13, 17, 21 } },
  { "x[1:, ...]", 3, { 2, 3, 4 }, 2, { 1, 0 }, { 2, 0 }, { 1, 1 }, 0, 0, 2, 0, 0, false, true, 3, { 1, 3, 4 }, 12,
    { 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23 } },
  { "x[1:] (spec shorter than dims)", 3, { 2, 3, 4 }, 1, { 1 }, { 2 }, { 1 }, 0, 0, 0, 0, 0, false, true, 3,
    { 1, 3, 4 }, 12, { 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23 } },
  { "offset: begin (0,1,0) size (2,1,4)", 3, { 2, 3, 4 }, 3, { 0, 1, 0 }, { 2, 1, 4 }, { 1, 1, 1 }, 0, 0, 0, 0, 0,
    true, true, 3, { 2, 1, 4 }, 8, { 4, 5, 6, 7, 16, 17, 18, 19 } },
  { "x[..., newaxis, 0:4:3] (newaxis after ellipsis)", 3, { 2, 3, 4 }, 3, { 0, 0, 0 }, { 0, 0, 4 }, { 1, 1, 3 }, 0,
    0, 1, 2, 0, false, true, 4, { 2, 3, 1, 2 }, 12, { 0, 3, 4, 7, 8, 11, 12, 15, 16, 19, 20, 23 } },
};

static void test_strided_slice(void)
{
  for (size_t i = 0; i < 24; i++) iota_f[i] = (float)i;
  for (size_t c = 0; c < sizeof slices / sizeof slices[0]; c++) {
    const slice_case *s = &slices[c];
    op_runner r;
    op_runner_init(&r, TFL_OP_STRIDED_SLICE);
    int x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, s->in_nd, s->in_dims, iota_f, false);
    int b = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){ s->spec }, s->begin, s->const_idx);
    int e = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){ s->spec }, s->end, s->const_idx);
    int st = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){ s->spec }, s->strides, s->const_idx);
    int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, s->out_nd, s->out_dims, NULL, false);
    op_runner_io(&r, (int[]){ x, b, e, st }, 4, (int[]){ y }, 1);
    tfl_strided_slice_params *p = &r.node.p.slice;
    p->begin_mask = s->bm, p->end_mask = s->em, p->ellipsis_mask = s->ell;
    p->new_axis_mask = s->nam, p->shrink_axis_mask = s->sam, p->offset = s->offset;
    check_floats(s->what, &r, y, s->want, (size_t)s->n_want);
    op_runner_free(&r);
  }
  /* uint8 data, stride 3 across the inner dim */
  op_runner r;
  op_runner_init(&r, TFL_OP_STRIDED_SLICE);
  int x = op_runner_tensor(&r, TFL_TYPE_UINT8, 2, (int32_t[]){ 2, 4 }, (uint8_t[]){ 1, 2, 3, 4, 5, 6, 7, 8 }, false);
  int b = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){ 2 }, (int32_t[]){ 0, 0 }, true);
  int e = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){ 2 }, (int32_t[]){ 2, 4 }, true);
  int st = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){ 2 }, (int32_t[]){ 1, 3 }, true);
  int y = op_runner_tensor(&r, TFL_TYPE_UINT8, 2, (int32_t[]){ 2, 2 }, NULL, false);
  op_runner_io(&r, (int[]){ x, b, e, st }, 4, (int[]){ y }, 1);
  if (run_ok(&r, 1, "uint8 slice")) {
    const uint8_t *o = r.tensors[y].data;
    CHECK(o[0] == 1 && o[1] == 4 && o[2] == 5 && o[3] == 8, "uint8 slice got %d %d %d %d", o[0], o[1], o[2], o[3]);
  }
  op_runner_free(&r);
}

/* ---- depth to space ---- */
static void test_depth_to_space(void)
{
  op_runner r;
  /* [1,1,2,8], block 2 -> [1,2,4,2]: out(oy, ox, c) = in(ox / 2, ((oy % 2) * 2 + ox % 2) * 2 + c) */
  op_runner_init(&r, TFL_OP_DEPTH_TO_SPACE);
  int x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){ 1, 1, 2, 8 }, iota_f, false);
  int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){ 1, 2, 4, 2 }, NULL, false);
  op_runner_io(&r, (int[]){ x }, 1, (int[]){ y }, 1);
  r.node.p.d2s.block_size = 2;
  check_floats("depth_to_space", &r, y,
               (float[]){ 0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15 }, 16);
  op_runner_free(&r);
}

int main(void)
{
  for (size_t i = 0; i < 64; i++) iota_f[i] = (float)i;
  test_concat();
  test_reshape();
  test_pad();
  test_strided_slice();
  test_depth_to_space();
  return finish("test_shape_ops");
}
