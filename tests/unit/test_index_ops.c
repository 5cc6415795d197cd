/* test_index_ops.c - the clean errors of the index ops' reference kernels, which the
 * single-op models (tests/opmodels, goldens from TFLite) cannot show: an index out of
 * range fails the eval with TFL_ERR_ARG naming the op and the value (TFLite fails the
 * invoke), a WHERE on a non-constant condition is refused at prepare, types TFLite
 * refuses are refused. One in-range run beside each error shows the error is the
 * index's, not the set-up's. */
#include "eltwise_test_util.h"

/* Runs r, expecting status `want` and a message holding `op` and `word`. */
static void expect_error(op_runner *r, tfl_status want, const char *op, const char *word, const char *what)
{
  tfl_status s = op_runner_run(r, 1);
  CHECK(s == want, "%s: status %d, expected %d (%s)", what, (int)s, (int)want, r->diag.error);
  CHECK(strstr(r->diag.error, op) && strstr(r->diag.error, word), "%s: message '%s' lacks '%s' / '%s'", what,
        r->diag.error, op, word);
}

/* GATHER of a [3,2] float table with index vector `idx` (2 entries, int32). */
static void gather_case(const int32_t *idx, bool const_idx, tfl_status want, const char *word, const char *what)
{
  op_runner r;
  op_runner_init(&r, TFL_OP_GATHER);
  int x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){3, 2}, (float[]){0, 1, 2, 3, 4, 5}, false);
  int i = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){2}, idx, const_idx);
  int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){2, 2}, NULL, false);
  op_runner_io(&r, (int[]){x, i}, 2, (int[]){y}, 1);
  if (want == TFL_OK) {
    if (run_ok(&r, 1, what)) {
      const float *o = r.tensors[y].data;
      CHECK(o[0] == 2 * idx[0] && o[1] == 2 * idx[0] + 1 && o[2] == 2 * idx[1], "%s: got %g %g %g", what, o[0], o[1],
            o[2]);
    }
  } else {
    expect_error(&r, want, "GATHER", word, what);
  }
  op_runner_free(&r);
}

static void test_gather(void)
{
  gather_case((int32_t[]){2, 0}, true, TFL_OK, "", "gather in range");
  gather_case((int32_t[]){1, 3}, true, TFL_ERR_ARG, "index 3", "gather index 3 of 3 rows");
  gather_case((int32_t[]){-1, 0}, false, TFL_ERR_ARG, "index -1", "gather negative index");

  /* float16 params: TFLite's gather refuses them too */
  op_runner r;
  op_runner_init(&r, TFL_OP_GATHER);
  int x = op_runner_tensor(&r, TFL_TYPE_FLOAT16, 1, (int32_t[]){4}, NULL, false);
  int i = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){1}, NULL, true);
  int y = op_runner_tensor(&r, TFL_TYPE_FLOAT16, 1, (int32_t[]){1}, NULL, false);
  op_runner_io(&r, (int[]){x, i}, 2, (int[]){y}, 1);
  expect_error(&r, TFL_ERR_UNSUPPORTED, "GATHER", "FLOAT16", "gather float16");
  op_runner_free(&r);
}

static void test_gather_nd_scatter_nd(void)
{
  op_runner r;
  /* tuple (2, 0) of a [2,3] table: past its end */
  op_runner_init(&r, TFL_OP_GATHER_ND);
  int x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){2, 3}, NULL, false);
  int i = op_runner_tensor(&r, TFL_TYPE_INT32, 2, (int32_t[]){1, 2}, (int32_t[]){2, 0}, true);
  int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){1}, NULL, false);
  op_runner_io(&r, (int[]){x, i}, 2, (int[]){y}, 1);
  expect_error(&r, TFL_ERR_ARG, "GATHER_ND", "(2,0)", "gather_nd past the end");
  /* (0, 3): its flat offset 3 fits, but 3 is past dim 1 (LiteRT checks each component) */
  ((int32_t *)r.tensors[i].data)[0] = 0, ((int32_t *)r.tensors[i].data)[1] = 3;
  expect_error(&r, TFL_ERR_ARG, "GATHER_ND", "(0,3)", "gather_nd component past its dim");
  ((int32_t *)r.tensors[i].data)[0] = 1, ((int32_t *)r.tensors[i].data)[1] = 2;
  ((float *)r.tensors[x].data)[5] = 7.0f;
  if (run_ok(&r, 1, "gather_nd (1,2)"))
    CHECK(((float *)r.tensors[y].data)[0] == 7.0f, "gather_nd (1,2) of a [2,3] table");
  op_runner_free(&r);

  op_runner_init(&r, TFL_OP_SCATTER_ND);
  i = op_runner_tensor(&r, TFL_TYPE_INT32, 2, (int32_t[]){2, 1}, (int32_t[]){1, 4}, true);
  int u = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){2}, (float[]){1, 2}, false);
  int s = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){1}, (int32_t[]){4}, true);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){4}, NULL, false);
  op_runner_io(&r, (int[]){i, u, s}, 3, (int[]){y}, 1);
  expect_error(&r, TFL_ERR_ARG, "SCATTER_ND", "(4)", "scatter_nd index 4 of 4");
  ((int32_t *)r.tensors[i].data)[1] = -1;
  expect_error(&r, TFL_ERR_ARG, "SCATTER_ND", "(-1)", "scatter_nd index -1");
  op_runner_free(&r);

  /* duplicates add up */
  op_runner_init(&r, TFL_OP_SCATTER_ND);
  i = op_runner_tensor(&r, TFL_TYPE_INT32, 2, (int32_t[]){3, 1}, (int32_t[]){1, 3, 1}, true);
  u = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){3}, (float[]){1, 2, 4}, false);
  s = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){1}, (int32_t[]){4}, true);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){4}, NULL, false);
  op_runner_io(&r, (int[]){i, u, s}, 3, (int[]){y}, 1);
  if (run_ok(&r, 1, "scatter_nd duplicates"))
    expect_near("scatter_nd duplicates", r.tensors[y].data, (float[]){0, 5, 0, 2}, 4, 0.0f);
  op_runner_free(&r);
}

static void test_lookups(void)
{
  op_runner r;
  op_runner_init(&r, TFL_OP_EMBEDDING_LOOKUP);
  int l = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){2}, (int32_t[]){0, 5}, true);
  int v = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){5, 2}, NULL, false);
  int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){2, 2}, NULL, false);
  op_runner_io(&r, (int[]){l, v}, 2, (int[]){y}, 1);
  expect_error(&r, TFL_ERR_ARG, "EMBEDDING_LOOKUP", "lookup 5", "embedding row 5 of 5");
  op_runner_free(&r);

  op_runner_init(&r, TFL_OP_SPARSE_TO_DENSE);
  int i = op_runner_tensor(&r, TFL_TYPE_INT32, 2, (int32_t[]){1, 2}, (int32_t[]){1, 3}, true);
  int s = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){2}, (int32_t[]){2, 3}, true);
  v = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){1}, (float[]){1}, false);
  int d = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 0, NULL, (float[]){0}, true);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){2, 3}, NULL, false);
  op_runner_io(&r, (int[]){i, s, v, d}, 4, (int[]){y}, 1);
  expect_error(&r, TFL_ERR_ARG, "SPARSE_TO_DENSE", "value 3", "sparse_to_dense column 3 of 3");
  op_runner_free(&r);

  /* segment ids must start at 0 and grow by 0 or 1 (TFLite's check) */
  op_runner_init(&r, TFL_OP_SEGMENT_SUM);
  int x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){3}, NULL, false);
  int ids = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){3}, (int32_t[]){0, 2, 2}, false);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){3}, NULL, false);
  op_runner_io(&r, (int[]){x, ids}, 2, (int[]){y}, 1);
  expect_error(&r, TFL_ERR_ARG, "SEGMENT_SUM", "segment id 2", "segment_sum ids 0, 2");
  op_runner_free(&r);

  op_runner_init(&r, TFL_OP_UNSORTED_SEGMENT_SUM);
  x = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){3}, (int32_t[]){1, 2, 3}, false);
  ids = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){3}, (int32_t[]){0, 1, 2}, false);
  int ns = op_runner_tensor(&r, TFL_TYPE_INT32, 0, NULL, (int32_t[]){2}, true);
  y = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){2}, NULL, false);
  op_runner_io(&r, (int[]){x, ids, ns}, 3, (int[]){y}, 1);
  expect_error(&r, TFL_ERR_ARG, "UNSORTED_SEGMENT_SUM", "segment id 2", "unsorted segment id 2 of 2");
  op_runner_free(&r);
}

static void test_where_range(void)
{
  op_runner r;
  /* WHERE: a constant condition runs, a computed one is refused at prepare */
  for (int k = 0; k < 2; k++) {
    op_runner_init(&r, TFL_OP_WHERE);
    int c = op_runner_tensor(&r, TFL_TYPE_BOOL, 2, (int32_t[]){2, 2}, (bool[]){false, true, true, false}, k == 0);
    int y = op_runner_tensor(&r, TFL_TYPE_INT64, 2, (int32_t[]){2, 2}, NULL, false);
    op_runner_io(&r, (int[]){c}, 1, (int[]){y}, 1);
    if (k == 1) {
      expect_error(&r, TFL_ERR_UNSUPPORTED, "WHERE", "non-constant", "where on a computed condition");
    } else if (run_ok(&r, 1, "where constant")) {
      const int64_t *o = r.tensors[y].data;
      CHECK(o[0] == 0 && o[1] == 1 && o[2] == 1 && o[3] == 0, "where: got %lld %lld %lld %lld", (long long)o[0],
            (long long)o[1], (long long)o[2], (long long)o[3]);
    }
    op_runner_free(&r);
  }

  /* RANGE with delta 0 or the wrong sign: no range (TFLite fails too) */
  const int32_t bad[2][3] = {{0, 5, 0}, {0, 5, -1}};
  for (int k = 0; k < 2; k++) {
    op_runner_init(&r, TFL_OP_RANGE);
    int s = op_runner_tensor(&r, TFL_TYPE_INT32, 0, NULL, &bad[k][0], false);
    int l = op_runner_tensor(&r, TFL_TYPE_INT32, 0, NULL, &bad[k][1], false);
    int d = op_runner_tensor(&r, TFL_TYPE_INT32, 0, NULL, &bad[k][2], false);
    int y = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){5}, NULL, false);
    op_runner_io(&r, (int[]){s, l, d}, 3, (int[]){y}, 1);
    expect_error(&r, TFL_ERR_ARG, "RANGE", "no valid range", k ? "range delta -1 upwards" : "range delta 0");
    op_runner_free(&r);
  }

  /* TOPK_V2: a computed k other than the planned output's */
  op_runner_init(&r, TFL_OP_TOPK_V2);
  int x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){5}, (float[]){1, 3, 2, 3, 0}, false);
  int k = op_runner_tensor(&r, TFL_TYPE_INT32, 0, NULL, (int32_t[]){3}, false);
  int v = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){2}, NULL, false);
  int ix = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){2}, NULL, false);
  op_runner_io(&r, (int[]){x, k}, 2, (int[]){v, ix}, 2);
  expect_error(&r, TFL_ERR_SHAPE, "TOPK_V2", "k is 3", "topk k 3 for 2 outputs");
  ((int32_t *)r.tensors[k].data)[0] = 2;
  if (run_ok(&r, 1, "topk k 2")) { /* ties: the lower index first */
    const int32_t *o = r.tensors[ix].data;
    CHECK(o[0] == 1 && o[1] == 3, "topk ties: indices %d %d", o[0], o[1]);
  }
  op_runner_free(&r);

  /* NMS: int8 boxes are not implemented here, said so */
  op_runner_init(&r, TFL_OP_NON_MAX_SUPPRESSION_V4);
  int b = op_runner_tensor(&r, TFL_TYPE_INT8, 2, (int32_t[]){2, 4}, NULL, false);
  int sc = op_runner_tensor(&r, TFL_TYPE_INT8, 1, (int32_t[]){2}, NULL, false);
  int m = op_runner_tensor(&r, TFL_TYPE_INT32, 0, NULL, (int32_t[]){1}, true);
  int io = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 0, NULL, NULL, true);
  int so = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 0, NULL, NULL, true);
  int sel = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){1}, NULL, false);
  int cnt = op_runner_tensor(&r, TFL_TYPE_INT32, 0, NULL, NULL, false);
  op_runner_io(&r, (int[]){b, sc, m, io, so}, 5, (int[]){sel, cnt}, 2);
  expect_error(&r, TFL_ERR_UNSUPPORTED, "NON_MAX_SUPPRESSION_V4", "INT8", "nms int8");
  op_runner_free(&r);
}

int main(void)
{
  test_gather();
  test_gather_nd_scatter_nd();
  test_lookups();
  test_where_range();
  return finish("test_index_ops");
}
