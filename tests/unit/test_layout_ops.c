/* test_layout_ops.c - the layout kernels' paths the single-op models (tests/opmodels,
 * constant index inputs only) do not reach: index inputs computed at run time (perm,
 * begin/size, multiples, paddings, axis, size_splits, seq_lengths, start indices), checked
 * at each eval; and the clean refusals of what TensorFlow Lite refuses (types, quantization,
 * non-contiguous REVERSE_V2 axes, bad index values). Expected outputs by hand (NumPy
 * notation beside each case); exact compares. */
#include "eltwise_test_util.h"

static float iota_f[128];

static void check_floats(const char *what, op_runner *r, int y, const float *want, size_t n, int threads)
{
  if (run_ok(r, threads, what)) expect_near(what, r->tensors[y].data, want, n, 0.0f);
}

static void expect_refused(const char *what, op_runner *r, tfl_status want)
{
  tfl_status s = op_runner_run(r, 1);
  CHECK(s == want, "%s: status %d, expected %d (%s)", what, (int)s, (int)want, r->diag.error);
  CHECK(s == TFL_OK || strstr(r->diag.error, tfl_op_name(r->node.op)), "%s: message names no op: %s", what,
        r->diag.error);
}

/* ---- TRANSPOSE ---- */
static void test_transpose(void)
{
  op_runner r;
  /* x = arange(24).reshape(2,3,4); perm computed at run time: x.transpose(2,0,1) */
  for (int threads = 1; threads <= 2; threads++) {
    op_runner_init(&r, TFL_OP_TRANSPOSE);
    int x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 3, (int32_t[]){2, 3, 4}, iota_f, false);
    int p = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){3}, (int32_t[]){2, 0, 1}, false);
    int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 3, (int32_t[]){4, 2, 3}, NULL, false);
    op_runner_io(&r, (int[]){x, p}, 2, (int[]){y}, 1);
    check_floats("transpose computed perm", &r, y,
                 (float[]){0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21, 2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23}, 24,
                 threads);
    op_runner_free(&r);
  }

  /* a repeated perm entry is no permutation */
  op_runner_init(&r, TFL_OP_TRANSPOSE);
  int x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){2, 2}, iota_f, false);
  int p = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){2}, (int32_t[]){1, -1}, false);
  int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){2, 2}, NULL, false);
  op_runner_io(&r, (int[]){x, p}, 2, (int[]){y}, 1);
  expect_refused("transpose perm [1, -1]", &r, TFL_ERR_SHAPE);
  op_runner_free(&r);

  /* int8 with another output scale: TFLite does not requantize a transpose */
  op_runner_init(&r, TFL_OP_TRANSPOSE);
  x = op_runner_tensor(&r, TFL_TYPE_INT8, 2, (int32_t[]){2, 3}, NULL, false);
  p = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){2}, (int32_t[]){1, 0}, true);
  y = op_runner_tensor(&r, TFL_TYPE_INT8, 2, (int32_t[]){3, 2}, NULL, false);
  set_quant(&r, x, 0.1f, 0), set_quant(&r, y, 0.2f, 0);
  op_runner_io(&r, (int[]){x, p}, 2, (int[]){y}, 1);
  expect_refused("transpose int8 scales differ", &r, TFL_ERR_UNSUPPORTED);
  op_runner_free(&r);
}

/* ---- SLICE, TILE, MIRROR_PAD with computed index inputs ---- */
static void test_dynamic_copies(void)
{
  op_runner r;
  /* x = arange(12).reshape(3,4); x[1:3, 1:] via begin [1,1], size [-1,-1] (int64) */
  op_runner_init(&r, TFL_OP_SLICE);
  int x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){3, 4}, iota_f, false);
  int b = op_runner_tensor(&r, TFL_TYPE_INT64, 1, (int32_t[]){2}, (int64_t[]){1, 1}, false);
  int s = op_runner_tensor(&r, TFL_TYPE_INT64, 1, (int32_t[]){2}, (int64_t[]){-1, -1}, false);
  int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){2, 3}, NULL, false);
  op_runner_io(&r, (int[]){x, b, s}, 3, (int[]){y}, 1);
  check_floats("slice computed begin/size", &r, y, (float[]){5, 6, 7, 9, 10, 11}, 6, 1);
  op_runner_free(&r);

  /* a negative begin is out of range */
  op_runner_init(&r, TFL_OP_SLICE);
  x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){3, 4}, iota_f, false);
  b = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){2}, (int32_t[]){-1, 0}, false);
  s = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){2}, (int32_t[]){1, 4}, false);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){1, 4}, NULL, false);
  op_runner_io(&r, (int[]){x, b, s}, 3, (int[]){y}, 1);
  expect_refused("slice begin -1", &r, TFL_ERR_SHAPE);
  op_runner_free(&r);

  /* np.tile([[0,1],[2,3]], (1,2)) with computed multiples */
  op_runner_init(&r, TFL_OP_TILE);
  x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){2, 2}, iota_f, false);
  int m = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){2}, (int32_t[]){1, 2}, false);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){2, 4}, NULL, false);
  op_runner_io(&r, (int[]){x, m}, 2, (int[]){y}, 1);
  check_floats("tile computed multiples", &r, y, (float[]){0, 1, 0, 1, 2, 3, 2, 3}, 8, 1);
  op_runner_free(&r);

  /* np.pad(arange(4), (2, 1), 'reflect') with computed paddings */
  op_runner_init(&r, TFL_OP_MIRROR_PAD);
  x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){4}, iota_f, false);
  int pd = op_runner_tensor(&r, TFL_TYPE_INT32, 2, (int32_t[]){1, 2}, (int32_t[]){2, 1}, false);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){7}, NULL, false);
  op_runner_io(&r, (int[]){x, pd}, 2, (int[]){y}, 1);
  r.node.p.mirror_pad.mode = 0;
  check_floats("mirror_pad reflect computed", &r, y, (float[]){2, 1, 0, 1, 2, 3, 2}, 7, 1);
  op_runner_free(&r);

  /* REFLECT cannot mirror as many values as the dim has */
  op_runner_init(&r, TFL_OP_MIRROR_PAD);
  x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){4}, iota_f, false);
  pd = op_runner_tensor(&r, TFL_TYPE_INT32, 2, (int32_t[]){1, 2}, (int32_t[]){4, 0}, true);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){8}, NULL, false);
  op_runner_io(&r, (int[]){x, pd}, 2, (int[]){y}, 1);
  r.node.p.mirror_pad.mode = 0;
  expect_refused("mirror_pad reflect 4 of 4", &r, TFL_ERR_SHAPE);
  op_runner_free(&r);

  /* REVERSE_V2 on axes 0 and 2 (not adjacent): TFLite refuses them */
  op_runner_init(&r, TFL_OP_REVERSE_V2);
  x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 3, (int32_t[]){2, 2, 2}, iota_f, true);
  int ax = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){2}, (int32_t[]){0, 2}, true);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 3, (int32_t[]){2, 2, 2}, NULL, false);
  op_runner_io(&r, (int[]){x, ax}, 2, (int[]){y}, 1);
  expect_refused("reverse_v2 axes [0, 2]", &r, TFL_ERR_UNSUPPORTED);
  op_runner_free(&r);
}

/* ---- SPLIT, SPLIT_V, UNPACK ---- */
static void test_parts(void)
{
  op_runner r;
  /* np.split(arange(12).reshape(2,6), 3, axis=-1), the axis computed at run time */
  op_runner_init(&r, TFL_OP_SPLIT);
  int a = op_runner_tensor(&r, TFL_TYPE_INT32, 0, NULL, (int32_t[]){-1}, false);
  int x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){2, 6}, iota_f, false);
  int y0 = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){2, 2}, NULL, false);
  int y1 = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){2, 2}, NULL, false);
  int y2 = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){2, 2}, NULL, false);
  op_runner_io(&r, (int[]){a, x}, 2, (int[]){y0, y1, y2}, 3);
  r.node.p.split.num_splits = 3;
  if (run_ok(&r, 1, "split computed axis")) {
    expect_near("split part 0", r.tensors[y0].data, (float[]){0, 1, 6, 7}, 4, 0);
    expect_near("split part 2", r.tensors[y2].data, (float[]){4, 5, 10, 11}, 4, 0);
  }
  op_runner_free(&r);

  /* SPLIT_V with computed size_splits [1, -1] must match the outputs' dims */
  for (int ok = 1; ok >= 0; ok--) {
    op_runner_init(&r, TFL_OP_SPLIT_V);
    x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){3, 2}, iota_f, false);
    int sz = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){2}, (int32_t[]){ok ? 1 : 2, -1}, false);
    a = op_runner_tensor(&r, TFL_TYPE_INT32, 0, NULL, (int32_t[]){0}, true);
    y0 = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){1, 2}, NULL, false);
    y1 = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){2, 2}, NULL, false);
    op_runner_io(&r, (int[]){x, sz, a}, 3, (int[]){y0, y1}, 2);
    r.node.p.split.num_splits = 2;
    if (!ok) expect_refused("split_v sizes [2, -1] into [1,2] + [2,2]", &r, TFL_ERR_SHAPE);
    else if (run_ok(&r, 1, "split_v computed sizes"))
      expect_near("split_v part 1", r.tensors[y1].data, (float[]){2, 3, 4, 5}, 4, 0);
    op_runner_free(&r);
  }

  /* UNPACK of int64 is not in TFLite's table */
  op_runner_init(&r, TFL_OP_UNPACK);
  x = op_runner_tensor(&r, TFL_TYPE_INT64, 2, (int32_t[]){2, 3}, NULL, false);
  y0 = op_runner_tensor(&r, TFL_TYPE_INT64, 1, (int32_t[]){3}, NULL, false);
  y1 = op_runner_tensor(&r, TFL_TYPE_INT64, 1, (int32_t[]){3}, NULL, false);
  op_runner_io(&r, (int[]){x}, 1, (int[]){y0, y1}, 2);
  r.node.p.pack.count = 2;
  expect_refused("unpack int64", &r, TFL_ERR_UNSUPPORTED);
  op_runner_free(&r);
}

/* ---- SPACE_TO_BATCH_ND, REVERSE_SEQUENCE, MATRIX_DIAG, DYNAMIC_UPDATE_SLICE ---- */
static void test_misc(void)
{
  op_runner r;
  /* uint8 [1,2,2,1] (1,2,3,4), block [2,2], paddings [[0,0],[0,2]]: the padding is the
   * zero point 128; batch k = dy*2+dx takes pixel (dy, 2*w+dx) */
  op_runner_init(&r, TFL_OP_SPACE_TO_BATCH_ND);
  int x = op_runner_tensor(&r, TFL_TYPE_UINT8, 4, (int32_t[]){1, 2, 2, 1}, (uint8_t[]){1, 2, 3, 4}, false);
  int bs = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){2}, (int32_t[]){2, 2}, false);
  int pd = op_runner_tensor(&r, TFL_TYPE_INT32, 2, (int32_t[]){2, 2}, (int32_t[]){0, 0, 0, 2}, false);
  int y = op_runner_tensor(&r, TFL_TYPE_UINT8, 4, (int32_t[]){4, 1, 2, 1}, NULL, false);
  set_quant(&r, x, 0.5f, 128), set_quant(&r, y, 0.5f, 128);
  op_runner_io(&r, (int[]){x, bs, pd}, 3, (int[]){y}, 1);
  if (run_ok(&r, 1, "space_to_batch_nd uint8 padded")) {
    const uint8_t want[8] = {1, 128, 2, 128, 3, 128, 4, 128};
    CHECK(!memcmp(r.tensors[y].data, want, 8), "space_to_batch_nd uint8: got %d %d %d %d ...",
          ((uint8_t *)r.tensors[y].data)[0], ((uint8_t *)r.tensors[y].data)[1], ((uint8_t *)r.tensors[y].data)[2],
          ((uint8_t *)r.tensors[y].data)[3]);
  }
  op_runner_free(&r);

  /* seq_lengths computed at run time; 4 > the seq dim's 3 values */
  for (int ok = 1; ok >= 0; ok--) {
    op_runner_init(&r, TFL_OP_REVERSE_SEQUENCE);
    x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){2, 3}, iota_f, false);
    int len = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){2}, (int32_t[]){2, ok ? 3 : 4}, false);
    y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){2, 3}, NULL, false);
    op_runner_io(&r, (int[]){x, len}, 2, (int[]){y}, 1);
    r.node.p.reverse_seq.seq_dim = 1;
    r.node.p.reverse_seq.batch_dim = 0;
    if (ok) check_floats("reverse_sequence", &r, y, (float[]){1, 0, 2, 5, 4, 3}, 6, 1);
    else expect_refused("reverse_sequence length 4 of 3", &r, TFL_ERR_SHAPE);
    op_runner_free(&r);
  }

  /* MATRIX_DIAG of bool: TFLite writes it as float32, out of bounds; refused */
  op_runner_init(&r, TFL_OP_MATRIX_DIAG);
  x = op_runner_tensor(&r, TFL_TYPE_BOOL, 1, (int32_t[]){3}, NULL, false);
  y = op_runner_tensor(&r, TFL_TYPE_BOOL, 2, (int32_t[]){3, 3}, NULL, false);
  op_runner_io(&r, (int[]){x}, 1, (int[]){y}, 1);
  expect_refused("matrix_diag bool", &r, TFL_ERR_UNSUPPORTED);
  op_runner_free(&r);

  /* operand zeros(3,3), update [[1,2],[3,4]] at computed start (5, -1): clamped to (1, 0) */
  op_runner_init(&r, TFL_OP_DYNAMIC_UPDATE_SLICE);
  x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){3, 3}, NULL, false);
  int u = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){2, 2}, (float[]){1, 2, 3, 4}, false);
  int st = op_runner_tensor(&r, TFL_TYPE_INT64, 1, (int32_t[]){2}, (int64_t[]){5, -1}, false);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){3, 3}, NULL, false);
  op_runner_io(&r, (int[]){x, u, st}, 3, (int[]){y}, 1);
  check_floats("dynamic_update_slice clamped", &r, y, (float[]){0, 0, 0, 1, 2, 0, 3, 4, 0}, 9, 2);
  op_runner_free(&r);
}

int main(void)
{
  for (size_t i = 0; i < 128; i++) iota_f[i] = (float)i;
  test_transpose();
  test_dynamic_copies();
  test_parts();
  test_misc();
  return finish("test_layout_ops");
}
