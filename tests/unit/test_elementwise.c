/* test_elementwise.c - ADD SUB MUL DIV MAXIMUM MINIMUM LOGICAL_AND: literal cases, then
 * broadcast shapes checked against a naive per-element reference (index decomposition on
 * the 6-dim broadcast shape), fused activations, quantized variants with differing scales
 * (compared after dequantizing, within 1 output LSB) and a threaded run. Float tolerance
 * 1e-6 (the same single float operation). */
#include "eltwise_test_util.h"

#include <stdlib.h>

static float ref_op(tfl_op op, float a, float b)
{
  switch (op) {
  case TFL_OP_ADD: return a + b;
  case TFL_OP_SUB: return a - b;
  case TFL_OP_MUL: return a * b;
  case TFL_OP_DIV: return a / b;
  case TFL_OP_MAXIMUM: return a > b ? a : b;
  case TFL_OP_MINIMUM: return a < b ? a : b;
  default: return 0;
  }
}

/* Naive broadcast: out index -> a and b indices, right-aligned, dims of 1 repeat. */
static void ref_broadcast(tfl_op op, int na, const int32_t *da, const float *a, int nb,
                          const int32_t *db, const float *b, int ny, const int32_t *dy, float *y)
{
  size_t count = 1;
  for (int i = 0; i < ny; i++) count *= (size_t)dy[i];
  for (size_t o = 0; o < count; o++) {
    int idx[6];
    size_t rem = o;
    for (int d = ny - 1; d >= 0; d--) {
      idx[d] = (int)(rem % (size_t)dy[d]);
      rem /= (size_t)dy[d];
    }
    size_t ia = 0, ib = 0;
    for (int d = 0; d < ny; d++) {
      int ka = d - (ny - na), kb = d - (ny - nb);
      if (ka >= 0) ia = ia * (size_t)da[ka] + (size_t)(da[ka] == 1 ? 0 : idx[d]);
      if (kb >= 0) ib = ib * (size_t)db[kb] + (size_t)(db[kb] == 1 ? 0 : idx[d]);
    }
    y[o] = ref_op(op, a[ia], b[ib]);
  }
}

static size_t count_of(int n, const int32_t *d)
{
  size_t c = 1;
  for (int i = 0; i < n; i++) c *= (size_t)d[i];
  return c;
}

static void fill(float *x, size_t n, int seed)
{
  for (size_t i = 0; i < n; i++) x[i] = (float)((int)((i * 7 + (size_t)seed * 13) % 23) - 11) * 0.25f;
}

static void test_literal_add_relu(void)
{
  op_runner r;
  op_runner_init(&r, TFL_OP_ADD);
  int a = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){ 1, 1, 2, 2 }, (float[]){ 1, 2, -3, 4 }, false);
  int b = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){ 1, 1, 2, 2 }, (float[]){ 0.5f, -3, 1, 1 }, false);
  int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){ 1, 1, 2, 2 }, NULL, false);
  op_runner_io(&r, (int[]){ a, b }, 2, (int[]){ y }, 1);
  r.node.p.eltwise.act = TFL_ACT_RELU;
  if (run_ok(&r, 1, "add relu"))
    expect_near("add relu", r.tensors[y].data, (float[]){ 1.5f, 0, 0, 5 }, 4, 1e-6f);
  op_runner_free(&r);
}

static void broadcast_case(tfl_op op, tfl_activation act, int na, const int32_t *da, int nb,
                           const int32_t *db, int ny, const int32_t *dy, int threads)
{
  size_t ca = count_of(na, da), cb = count_of(nb, db), cy = count_of(ny, dy);
  float *a = malloc(ca * 4), *b = malloc(cb * 4), *want = malloc(cy * 4);
  fill(a, ca, 1);
  fill(b, cb, 2);
  if (op == TFL_OP_DIV)
    for (size_t i = 0; i < cb; i++) b[i] = b[i] == 0 ? 0.5f : b[i];
  ref_broadcast(op, na, da, a, nb, db, b, ny, dy, want);
  float lo = -INFINITY, hi = INFINITY;
  if (act == TFL_ACT_RELU) lo = 0;
  if (act == TFL_ACT_RELU6) lo = 0, hi = 6;
  if (act == TFL_ACT_RELU_N1_TO_1) lo = -1, hi = 1;
  for (size_t i = 0; i < cy; i++) want[i] = want[i] < lo ? lo : (want[i] > hi ? hi : want[i]);
  op_runner r;
  op_runner_init(&r, op);
  int ta = op_runner_tensor(&r, TFL_TYPE_FLOAT32, na, da, a, false);
  int tb = op_runner_tensor(&r, TFL_TYPE_FLOAT32, nb, db, b, true);
  int ty = op_runner_tensor(&r, TFL_TYPE_FLOAT32, ny, dy, NULL, false);
  op_runner_io(&r, (int[]){ ta, tb }, 2, (int[]){ ty }, 1);
  r.node.p.eltwise.act = act;
  char what[64];
  snprintf(what, sizeof what, "%s broadcast (%d dims x %d dims)", tfl_op_name(op), na, nb);
  if (run_ok(&r, threads, what)) expect_near(what, r.tensors[ty].data, want, cy, 1e-6f);
  op_runner_free(&r);
  free(a);
  free(b);
  free(want);
}

static void test_broadcasts(void)
{
  /* same shape */
  broadcast_case(TFL_OP_ADD, TFL_ACT_NONE, 4, (int32_t[]){ 1, 2, 3, 4 }, 4, (int32_t[]){ 1, 2, 3, 4 }, 4,
                 (int32_t[]){ 1, 2, 3, 4 }, 1);
  /* scalar on either side */
  broadcast_case(TFL_OP_SUB, TFL_ACT_NONE, 4, (int32_t[]){ 1, 2, 3, 4 }, 1, (int32_t[]){ 1 }, 4,
                 (int32_t[]){ 1, 2, 3, 4 }, 1);
  broadcast_case(TFL_OP_SUB, TFL_ACT_NONE, 0, (int32_t[]){ 0 }, 3, (int32_t[]){ 2, 3, 4 }, 3,
                 (int32_t[]){ 2, 3, 4 }, 1);
  /* channel broadcast, with activations */
  broadcast_case(TFL_OP_MUL, TFL_ACT_RELU6, 4, (int32_t[]){ 1, 3, 3, 5 }, 1, (int32_t[]){ 5 }, 4,
                 (int32_t[]){ 1, 3, 3, 5 }, 1);
  broadcast_case(TFL_OP_ADD, TFL_ACT_RELU_N1_TO_1, 1, (int32_t[]){ 5 }, 4, (int32_t[]){ 1, 3, 3, 5 }, 4,
                 (int32_t[]){ 1, 3, 3, 5 }, 1);
  /* both sides broadcast */
  broadcast_case(TFL_OP_DIV, TFL_ACT_NONE, 4, (int32_t[]){ 2, 1, 1, 4 }, 3, (int32_t[]){ 3, 5, 1 }, 4,
                 (int32_t[]){ 2, 3, 5, 4 }, 1);
  broadcast_case(TFL_OP_MAXIMUM, TFL_ACT_NONE, 4, (int32_t[]){ 2, 3, 1, 4 }, 4, (int32_t[]){ 1, 3, 5, 1 },
                 4, (int32_t[]){ 2, 3, 5, 4 }, 1);
  broadcast_case(TFL_OP_MINIMUM, TFL_ACT_NONE, 2, (int32_t[]){ 3, 1 }, 2, (int32_t[]){ 1, 4 }, 2,
                 (int32_t[]){ 3, 4 }, 1);
  /* 6 dims */
  broadcast_case(TFL_OP_ADD, TFL_ACT_RELU, 6, (int32_t[]){ 2, 1, 3, 1, 2, 3 }, 5,
                 (int32_t[]){ 2, 1, 4, 2, 1 }, 6, (int32_t[]){ 2, 2, 3, 4, 2, 3 }, 1);
  /* threaded: large enough to split, and rows split mid-way */
  broadcast_case(TFL_OP_ADD, TFL_ACT_NONE, 4, (int32_t[]){ 1, 64, 64, 9 }, 1, (int32_t[]){ 9 }, 4,
                 (int32_t[]){ 1, 64, 64, 9 }, 3);
  broadcast_case(TFL_OP_MUL, TFL_ACT_NONE, 4, (int32_t[]){ 1, 70000, 1, 1 }, 1, (int32_t[]){ 1 }, 4,
                 (int32_t[]){ 1, 70000, 1, 1 }, 2);
  broadcast_case(TFL_OP_SUB, TFL_ACT_NONE, 3, (int32_t[]){ 50, 1, 700 }, 3, (int32_t[]){ 1, 3, 700 }, 3,
                 (int32_t[]){ 50, 3, 700 }, 2);
}

/* Quantized: inputs quantized from floats, expected = quantize(op(dequant a, dequant b)). */
static void quant_case(tfl_op op, tfl_type type, tfl_activation act, int na, const int32_t *da, float sa,
                       int32_t za, int nb, const int32_t *db, float sb, int32_t zb, int ny,
                       const int32_t *dy, float so, int32_t zo)
{
  size_t ca = count_of(na, da), cb = count_of(nb, db), cy = count_of(ny, dy);
  float *a = malloc(ca * 4), *b = malloc(cb * 4), *ra = calloc(ca, 4), *rb = calloc(cb, 4);
  float *want = malloc(cy * 4), *got = malloc(cy * 4);
  uint8_t *qa = malloc(ca), *qb = malloc(cb);
  fill(a, ca, 3);
  fill(b, cb, 4);
  bool u8 = type == TFL_TYPE_UINT8;
  if (u8) {
    quantize_u8(a, qa, ca, sa, za);
    quantize_u8(b, qb, cb, sb, zb);
    dequantize_u8(qa, ra, ca, sa, za);
    dequantize_u8(qb, rb, cb, sb, zb);
  } else {
    quantize_i8(a, (int8_t *)qa, ca, sa, za);
    quantize_i8(b, (int8_t *)qb, cb, sb, zb);
    dequantize_i8((int8_t *)qa, ra, ca, sa, za);
    dequantize_i8((int8_t *)qb, rb, cb, sb, zb);
  }
  ref_broadcast(op, na, da, ra, nb, db, rb, ny, dy, want);
  float lo = u8 ? so * (0 - zo) : so * (-128 - zo), hi = u8 ? so * (255 - zo) : so * (127 - zo);
  if (act == TFL_ACT_RELU && lo < 0) lo = 0;
  if (act == TFL_ACT_RELU6) lo = lo < 0 ? 0 : lo, hi = hi > 6 ? 6 : hi;
  for (size_t i = 0; i < cy; i++) want[i] = want[i] < lo ? lo : (want[i] > hi ? hi : want[i]);
  op_runner r;
  op_runner_init(&r, op);
  int ta = op_runner_tensor(&r, type, na, da, qa, false);
  int tb = op_runner_tensor(&r, type, nb, db, qb, false);
  int ty = op_runner_tensor(&r, type, ny, dy, NULL, false);
  set_quant(&r, ta, sa, za);
  set_quant(&r, tb, sb, zb);
  set_quant(&r, ty, so, zo);
  op_runner_io(&r, (int[]){ ta, tb }, 2, (int[]){ ty }, 1);
  r.node.p.eltwise.act = act;
  char what[64];
  snprintf(what, sizeof what, "quantized %s %s", tfl_type_name(type), tfl_op_name(op));
  if (run_ok(&r, 1, what)) {
    if (u8)
      dequantize_u8(r.tensors[ty].data, got, cy, so, zo);
    else
      dequantize_i8(r.tensors[ty].data, got, cy, so, zo);
    expect_near(what, got, want, cy, so * 1.0001f);
  }
  op_runner_free(&r);
  free(a), free(b), free(ra), free(rb), free(want), free(got), free(qa), free(qb);
}

static void test_quantized(void)
{
  const int32_t d4[] = { 1, 2, 3, 4 }, c4[] = { 4 }, s1[] = { 1 };
  quant_case(TFL_OP_ADD, TFL_TYPE_UINT8, TFL_ACT_NONE, 4, d4, 0.05f, 128, 4, d4, 0.1f, 100, 4, d4, 0.08f, 120);
  quant_case(TFL_OP_ADD, TFL_TYPE_UINT8, TFL_ACT_RELU6, 4, d4, 0.05f, 128, 1, c4, 0.02f, 7, 4, d4, 0.03f, 10);
  quant_case(TFL_OP_ADD, TFL_TYPE_INT8, TFL_ACT_RELU, 4, d4, 0.05f, 3, 4, d4, 0.07f, -5, 4, d4, 0.06f, -20);
  quant_case(TFL_OP_SUB, TFL_TYPE_INT8, TFL_ACT_NONE, 4, d4, 0.05f, 3, 1, s1, 0.07f, -5, 4, d4, 0.09f, 0);
  quant_case(TFL_OP_MUL, TFL_TYPE_UINT8, TFL_ACT_NONE, 4, d4, 0.05f, 128, 1, c4, 0.1f, 120, 4, d4, 0.2f, 128);
  quant_case(TFL_OP_MUL, TFL_TYPE_INT8, TFL_ACT_NONE, 4, d4, 0.03f, 0, 4, d4, 0.04f, 1, 4, d4, 0.05f, -3);
  /* MAXIMUM/MINIMUM compare stored values as TFLite does: real results need one quantization */
  quant_case(TFL_OP_MAXIMUM, TFL_TYPE_INT8, TFL_ACT_NONE, 4, d4, 0.04f, -1, 1, c4, 0.04f, -1, 4, d4, 0.04f, -1);
  quant_case(TFL_OP_MINIMUM, TFL_TYPE_UINT8, TFL_ACT_NONE, 4, d4, 0.03f, 128, 4, d4, 0.03f, 128, 4, d4, 0.03f, 128);
}

static void test_logical_and_and_int32(void)
{
  op_runner r;
  op_runner_init(&r, TFL_OP_LOGICAL_AND);
  int a = op_runner_tensor(&r, TFL_TYPE_BOOL, 2, (int32_t[]){ 2, 2 }, (uint8_t[]){ 1, 0, 1, 1 }, false);
  int b = op_runner_tensor(&r, TFL_TYPE_BOOL, 1, (int32_t[]){ 2 }, (uint8_t[]){ 1, 0 }, false);
  int y = op_runner_tensor(&r, TFL_TYPE_BOOL, 2, (int32_t[]){ 2, 2 }, NULL, false);
  op_runner_io(&r, (int[]){ a, b }, 2, (int[]){ y }, 1);
  if (run_ok(&r, 1, "logical_and")) {
    const uint8_t *o = r.tensors[y].data;
    CHECK(o[0] == 1 && o[1] == 0 && o[2] == 1 && o[3] == 0, "logical_and got %d %d %d %d", o[0], o[1],
          o[2], o[3]);
  }
  op_runner_free(&r);

  op_runner_init(&r, TFL_OP_MUL);
  a = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){ 3 }, (int32_t[]){ 2, -3, 4 }, false);
  b = op_runner_tensor(&r, TFL_TYPE_INT32, 0, (int32_t[]){ 0 }, (int32_t[]){ 5 }, false);
  y = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){ 3 }, NULL, false);
  op_runner_io(&r, (int[]){ a, b }, 2, (int[]){ y }, 1);
  if (run_ok(&r, 1, "int32 mul")) {
    const int32_t *o = r.tensors[y].data;
    CHECK(o[0] == 10 && o[1] == -15 && o[2] == 20, "int32 mul got %d %d %d", o[0], o[1], o[2]);
  }
  op_runner_free(&r);
}

static void test_bad_shapes(void)
{
  op_runner r;
  op_runner_init(&r, TFL_OP_ADD);
  int a = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 2, 3 }, NULL, false);
  int b = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 2, 4 }, NULL, false);
  int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 2, 4 }, NULL, false);
  op_runner_io(&r, (int[]){ a, b }, 2, (int[]){ y }, 1);
  tfl_status s = op_runner_run(&r, 1);
  CHECK(s == TFL_ERR_SHAPE, "3 vs 4 broadcast gave %s", tfl_status_name(s));
  CHECK(strstr(r.diag.error, "ADD") != NULL, "message '%s' does not name the op", r.diag.error);
  op_runner_free(&r);
}

int main(void)
{
  test_literal_add_relu();
  test_broadcasts();
  test_quantized();
  test_logical_and_and_int32();
  test_bad_shapes();
  return finish("test_elementwise");
}
