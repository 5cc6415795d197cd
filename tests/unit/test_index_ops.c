/* test_index_ops.c - the clean errors of the index ops' reference kernels, which the
 * single-op models (tests/opmodels, goldens from TFLite) cannot show: an index out of
 * range fails the eval with TFL_ERR_ARG naming the op and the value (TFLite fails the
 * invoke), types TFLite refuses are refused. One in-range run beside each error shows the
 * error is the index's, not the set-up's. WHERE and UNIQUE outputs of a data-dependent
 * size: each run sets the true count; a node reading one is refused at create. */
#include "eltwise_test_util.h"
#include "../graph_build.h"
#include "../../delegates/cpu/cpu_delegate.h"
#include "../../runtime/tfl_interpreter.h"

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
  /* WHERE: a constant condition's output is [true count, rank]; a computed one's is planned
   * at [elements, rank] and the eval sets the true count */
  for (int k = 0; k < 2; k++) {
    op_runner_init(&r, TFL_OP_WHERE);
    int c = op_runner_tensor(&r, TFL_TYPE_BOOL, 2, (int32_t[]){2, 2}, (bool[]){false, true, true, false}, k == 0);
    int y = op_runner_tensor(&r, TFL_TYPE_INT64, 2, (int32_t[]){k ? 4 : 2, 2}, NULL, false);
    op_runner_io(&r, (int[]){c}, 1, (int[]){y}, 1);
    if (run_ok(&r, 1, k ? "where computed" : "where constant")) {
      const int64_t *o = r.tensors[y].data;
      CHECK(o[0] == 0 && o[1] == 1 && o[2] == 1 && o[3] == 0, "where: got %lld %lld %lld %lld", (long long)o[0],
            (long long)o[1], (long long)o[2], (long long)o[3]);
      CHECK(r.tensors[y].dims[0] == 2 && r.tensors[y].bytes == 32, "where %d: %d rows, %zu bytes after the run", k,
            r.tensors[y].dims[0], r.tensors[y].bytes);
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

/* x [2,3] -> GREATER 0 -> WHERE (computed condition) -> graph output, or read by a CAST: the
 * interpreter runs the first (the output's first dim is each run's true count) and refuses
 * the second at create, naming the reader. */
static void test_where_dynamic(void)
{
  for (int reader = 0; reader < 2; reader++) {
    tfl_graph *g = calloc(1, sizeof *g);
    g->batch = 1;
    int x = gb_tensor(g, TFL_TYPE_FLOAT32, 2, GB_DIMS(2, 3));
    int zero = gb_const(g, TFL_TYPE_FLOAT32, 0, NULL, (float[]){0.0f});
    int c = gb_tensor(g, TFL_TYPE_BOOL, 0, NULL);
    int y = gb_tensor(g, TFL_TYPE_INT64, 0, NULL);   /* no declared shape: inferred */
    gb_node(g, TFL_OP_GREATER, (int32_t[]){x, zero}, 2, c, (tfl_params){0});
    gb_node(g, TFL_OP_WHERE, (int32_t[]){c}, 1, y, (tfl_params){0});
    int out = y;
    if (reader) {
      out = gb_tensor(g, TFL_TYPE_INT32, 0, NULL);
      gb_node(g, TFL_OP_CAST, (int32_t[]){y}, 1, out, (tfl_params){.cast = {-1, -1}});
    }
    gb_set_io(g, 1, (int32_t[]){x}, 1, (int32_t[]){out});
    tfl_diag diag;
    tfl_diag_init(&diag);
    cpu_delegate_options co = cpu_delegate_defaults();
    co.diag = &diag;
    tfl_delegate *cpu = cpu_delegate_create(&co);
    tfl_interp_options o = tfl_interp_defaults();
    o.fallback = cpu;
    o.diag = &diag;
    tfl_interpreter *it = NULL;
    tfl_status st = tfl_interpreter_create(g, &o, &it);
    if (reader) {
      CHECK(st == TFL_ERR_UNSUPPORTED && strstr(diag.error, "WHERE") && strstr(diag.error, "CAST"),
            "where read by a CAST: status %d, '%s'", (int)st, diag.error);
    } else if (st != TFL_OK) {
      CHECK(false, "where dynamic: create failed: %s", diag.error);
    } else {
      /* two runs with different counts: 4 true of 6, then 1 */
      const float in[2][6] = {{1, -1, 2, 3, 0, 5}, {-1, -2, 0, 0, 7, -3}};
      const int64_t want0[8] = {0, 0, 0, 2, 1, 0, 1, 2}, want1[2] = {1, 1};
      for (int run = 0; run < 2; run++) {
        memcpy(tfl_interpreter_input(it, 0)->data, in[run], sizeof in[run]);
        st = tfl_interpreter_invoke(it);
        const tfl_tensor *t = tfl_interpreter_output(it, 0);
        int rows = run ? 1 : 4;
        CHECK(st == TFL_OK && t->ndim == 2 && t->dims[0] == rows && t->dims[1] == 2 && t->bytes == 16 * (size_t)rows &&
              !memcmp(t->data, run ? want1 : want0, 16 * (size_t)rows),
              "where run %d: status %d, %d x %d (%s)", run, (int)st, t->dims[0], t->dims[1], diag.error);
      }
    }
    tfl_interpreter_free(it);
    cpu->destroy(cpu);
    tfl_graph_free(g);
  }
}

/* UNIQUE through its kernel: values in order of first appearance (output 0's dim set to
 * their count), indices per element, -0 the same value as 0. */
static void test_unique(void)
{
  op_runner r;
  op_runner_init(&r, TFL_OP_UNIQUE);
  int x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){7}, (float[]){2, -1, 0, 2, -0.0f, 5, -1}, false);
  int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){7}, NULL, false);
  int i = op_runner_tensor(&r, TFL_TYPE_INT64, 1, (int32_t[]){7}, NULL, false);
  op_runner_io(&r, (int[]){x}, 1, (int[]){y, i}, 2);
  if (run_ok(&r, 1, "unique")) {
    const float *v = r.tensors[y].data;
    const int64_t *k = r.tensors[i].data;
    const int64_t want[7] = {0, 1, 2, 0, 2, 3, 1};
    CHECK(r.tensors[y].dims[0] == 4 && v[0] == 2 && v[1] == -1 && v[2] == 0 && v[3] == 5 &&
          !memcmp(k, want, sizeof want), "unique: %d values %g %g %g %g", r.tensors[y].dims[0], v[0], v[1], v[2], v[3]);
  }
  op_runner_free(&r);
}

int main(void)
{
  test_gather();
  test_gather_nd_scatter_nd();
  test_lookups();
  test_where_range();
  test_where_dynamic();
  test_unique();
  return finish("test_index_ops");
}
