/* test_eltwise_ops.c - what the single-op goldens cannot show for the eltwise group: the
 * clean errors where TFLite fails too (a zero divisor, a negative int32 exponent, a negative
 * quantized SQRT/RSQRT input, ATAN2 of two shapes, types TFLite refuses, ADD_N of
 * different shapes, FAKE_QUANT's narrow_range), each naming the op; and literal cases at
 * the edges (ROUND's ties to even, FLOOR_DIV/FLOOR_MOD signs, RIGHT_SHIFT's clamped shift,
 * int wrap-around), run on 1 and 3 threads; and the group's shape rules (broadcasting,
 * ATAN2's one shape, ADD_N's one shape) through tfl_infer_shapes. */
#include "eltwise_test_util.h"

#include <stdlib.h>

#include "../../runtime/tfl_passes.h"

/* Runs a one-node graph that must fail with `want`, the message naming the op. */
static void expect_fail(op_runner *r, tfl_status want, const char *what, const char *needle)
{
  tfl_status s = op_runner_run(r, 1);
  CHECK(s == want, "%s: got %s (%s), expected %s", what, tfl_status_name(s), r->diag.error, tfl_status_name(want));
  CHECK(strstr(r->diag.error, tfl_op_name(r->node.op)) != NULL, "%s: message '%s' does not name the op", what,
        r->diag.error);
  if (needle) CHECK(strstr(r->diag.error, needle) != NULL, "%s: message '%s' lacks '%s'", what, r->diag.error, needle);
  op_runner_free(r);
}

/* A two-input node of one type, both inputs [n] (b constant), output [n] of `out`. */
static void binary(op_runner *r, tfl_op op, tfl_type t, tfl_type out, int n, const void *a, const void *b)
{
  op_runner_init(r, op);
  int x = op_runner_tensor(r, t, 1, (int32_t[]){ n }, a, false);
  int y = op_runner_tensor(r, t, 1, (int32_t[]){ n }, b, true);
  int o = op_runner_tensor(r, out, 1, (int32_t[]){ n }, NULL, false);
  op_runner_io(r, (int[]){ x, y }, 2, (int[]){ o }, 1);
}

static void test_eval_errors(void)
{
  op_runner r;
  binary(&r, TFL_OP_FLOOR_DIV, TFL_TYPE_INT32, TFL_TYPE_INT32, 3, (int32_t[]){ 1, 2, 3 }, (int32_t[]){ 2, 0, 1 });
  expect_fail(&r, TFL_ERR_ARG, "FLOOR_DIV int32 by 0", "element 1");
  binary(&r, TFL_OP_FLOOR_DIV, TFL_TYPE_FLOAT32, TFL_TYPE_FLOAT32, 2, (float[]){ 1, 2 }, (float[]){ 0.0f, 1 });
  expect_fail(&r, TFL_ERR_ARG, "FLOOR_DIV float by 0 (TFLite checks floats too)", "division by zero");
  binary(&r, TFL_OP_FLOOR_MOD, TFL_TYPE_INT64, TFL_TYPE_INT64, 2, (int64_t[]){ 1, 2 }, (int64_t[]){ 3, 0 });
  expect_fail(&r, TFL_ERR_ARG, "FLOOR_MOD int64 by 0", "division by zero");
  binary(&r, TFL_OP_POW, TFL_TYPE_INT32, TFL_TYPE_INT32, 2, (int32_t[]){ 2, 2 }, (int32_t[]){ 3, -1 });
  expect_fail(&r, TFL_ERR_ARG, "POW int32 negative exponent", "negative");

  /* quantized SQRT/RSQRT: a code below the zero point is a negative real */
  const tfl_op roots[] = { TFL_OP_SQRT, TFL_OP_RSQRT };
  for (int i = 0; i < 2; i++) {
    op_runner_init(&r, roots[i]);
    int x = op_runner_tensor(&r, TFL_TYPE_INT8, 1, (int32_t[]){ 3 }, (int8_t[]){ 5, 10, 4 }, false);
    int y = op_runner_tensor(&r, TFL_TYPE_INT8, 1, (int32_t[]){ 3 }, NULL, false);
    set_quant(&r, x, 0.1f, 5);
    set_quant(&r, y, 0.1f, -128);
    op_runner_io(&r, (int[]){ x }, 1, (int[]){ y }, 1);
    expect_fail(&r, TFL_ERR_ARG, tfl_op_name(roots[i]), "element 2");
  }
}

static void test_prepare_errors(void)
{
  op_runner r;
  /* ATAN2 does not broadcast in TFLite */
  op_runner_init(&r, TFL_OP_ATAN2);
  int a = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 2, 3 }, NULL, false);
  int b = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){ 3 }, NULL, false);
  int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 2, 3 }, NULL, false);
  op_runner_io(&r, (int[]){ a, b }, 2, (int[]){ y }, 1);
  expect_fail(&r, TFL_ERR_SHAPE, "ATAN2 broadcast", "broadcasting");

  /* types TFLite refuses */
  binary(&r, TFL_OP_POW, TFL_TYPE_INT64, TFL_TYPE_INT64, 2, NULL, NULL);
  expect_fail(&r, TFL_ERR_UNSUPPORTED, "POW int64", "INT64");
  binary(&r, TFL_OP_LESS, TFL_TYPE_BOOL, TFL_TYPE_BOOL, 2, NULL, NULL);
  expect_fail(&r, TFL_ERR_UNSUPPORTED, "LESS bool", "BOOL");
  binary(&r, TFL_OP_LESS, TFL_TYPE_UINT8, TFL_TYPE_BOOL, 2, NULL, NULL); /* not quantized */
  expect_fail(&r, TFL_ERR_UNSUPPORTED, "LESS uint8 without quantization", "scales");
  binary(&r, TFL_OP_EQUAL, TFL_TYPE_FLOAT32, TFL_TYPE_FLOAT32, 2, NULL, NULL); /* output must be bool */
  expect_fail(&r, TFL_ERR_UNSUPPORTED, "EQUAL float output", "bool");
  const struct { tfl_op op; tfl_type t; } refused[] = {
    { TFL_OP_ABS, TFL_TYPE_UINT8 }, { TFL_OP_SQUARE, TFL_TYPE_INT32 }, { TFL_OP_ELU, TFL_TYPE_UINT8 },
    { TFL_OP_SIGN, TFL_TYPE_INT64 }, { TFL_OP_LOGICAL_NOT, TFL_TYPE_FLOAT32 }, { TFL_OP_FLOOR, TFL_TYPE_INT8 },
  };
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    op_runner_init(&r, refused[i].op);
    int x = op_runner_tensor(&r, refused[i].t, 1, (int32_t[]){ 4 }, NULL, false);
    int o = op_runner_tensor(&r, refused[i].t, 1, (int32_t[]){ 4 }, NULL, false);
    op_runner_io(&r, (int[]){ x }, 1, (int[]){ o }, 1);
    expect_fail(&r, TFL_ERR_UNSUPPORTED, tfl_op_name(refused[i].op), tfl_type_name(refused[i].t));
  }

  /* ADD_N: one shape for all inputs */
  op_runner_init(&r, TFL_OP_ADD_N);
  a = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){ 3 }, NULL, false);
  b = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){ 1 }, NULL, false);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){ 3 }, NULL, false);
  op_runner_io(&r, (int[]){ a, b }, 2, (int[]){ y }, 1);
  expect_fail(&r, TFL_ERR_SHAPE, "ADD_N shapes", "input 1");

  /* FAKE_QUANT: an empty range */
  op_runner_init(&r, TFL_OP_FAKE_QUANT);
  a = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){ 3 }, NULL, false);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){ 3 }, NULL, false);
  op_runner_io(&r, (int[]){ a }, 1, (int[]){ y }, 1);
  r.node.p.fake_quant = (tfl_fake_quant_params){ .min = 2.0f, .max = 0.5f, .num_bits = 8 };
  expect_fail(&r, TFL_ERR_ARG, "FAKE_QUANT range", "range");
  op_runner_init(&r, TFL_OP_FAKE_QUANT);
  a = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){ 3 }, NULL, false);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){ 3 }, NULL, false);
  op_runner_io(&r, (int[]){ a }, 1, (int[]){ y }, 1);
  r.node.p.fake_quant = (tfl_fake_quant_params){ .min = -1.0f, .max = 1.0f, .num_bits = 8, .narrow_range = true };
  expect_fail(&r, TFL_ERR_UNSUPPORTED, "FAKE_QUANT narrow_range (TFLite refuses it at runtime)", "narrow_range");
}

static void test_literals(void)
{
  for (int threads = 1; threads <= 3; threads += 2) {
    op_runner r;
    op_runner_init(&r, TFL_OP_ROUND);
    const float xr[] = { -2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 2.4f, -3.6f };
    const float wr[] = { -2, -2, -0.0f, 0, 2, 2, 2, -4 };
    int x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){ 8 }, xr, false);
    int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){ 8 }, NULL, false);
    op_runner_io(&r, (int[]){ x }, 1, (int[]){ y }, 1);
    if (run_ok(&r, threads, "ROUND")) expect_near("ROUND halves to even", r.graph.tensors[y].data, wr, 8, 0);
    op_runner_free(&r);

    const int32_t a[] = { 7, -7, 7, -7, INT32_MIN, 5 };
    const int32_t b[] = { 2, 2, -2, -2, -1, 3 };
    const int32_t div[] = { 3, -4, -4, 3, INT32_MIN, 1 }, mod[] = { 1, 1, -1, -1, 0, 2 };
    const tfl_op ops[] = { TFL_OP_FLOOR_DIV, TFL_OP_FLOOR_MOD };
    for (int k = 0; k < 2; k++) {
      binary(&r, ops[k], TFL_TYPE_INT32, TFL_TYPE_INT32, 6, a, b);
      if (run_ok(&r, threads, tfl_op_name(ops[k]))) {
        const int32_t *got = r.graph.tensors[r.out[0]].data, *want = k ? mod : div;
        for (int i = 0; i < 6; i++)
          CHECK(got[i] == want[i], "%s(%d, %d) = %d, expected %d", tfl_op_name(ops[k]), (int)a[i], (int)b[i],
                (int)got[i], (int)want[i]);
      }
      op_runner_free(&r);
    }

    const int8_t v[] = { -128, -128, 127, -1, 64, -3 }, sh[] = { 3, 100, -5, 7, 8, 1 };
    const int8_t want_rs[] = { -16, -1, 127, -1, 0, -2 };
    binary(&r, TFL_OP_RIGHT_SHIFT, TFL_TYPE_INT8, TFL_TYPE_INT8, 6, v, sh);
    if (run_ok(&r, threads, "RIGHT_SHIFT")) {
      const int8_t *got = r.graph.tensors[r.out[0]].data;
      for (int i = 0; i < 6; i++)
        CHECK(got[i] == want_rs[i], "RIGHT_SHIFT(%d, %d) = %d, expected %d", v[i], sh[i], got[i], want_rs[i]);
    }
    op_runner_free(&r);

    /* int32 wrap-around: NEG of INT32_MIN, POW overflow, ADD_N overflow */
    op_runner_init(&r, TFL_OP_NEG);
    x = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){ 2 }, (int32_t[]){ INT32_MIN, 5 }, false);
    y = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){ 2 }, NULL, false);
    op_runner_io(&r, (int[]){ x }, 1, (int[]){ y }, 1);
    if (run_ok(&r, threads, "NEG")) {
      const int32_t *got = r.graph.tensors[y].data;
      CHECK(got[0] == INT32_MIN && got[1] == -5, "NEG gave %d %d", (int)got[0], (int)got[1]);
    }
    op_runner_free(&r);
    binary(&r, TFL_OP_POW, TFL_TYPE_INT32, TFL_TYPE_INT32, 2, (int32_t[]){ 3, -2 }, (int32_t[]){ 21, 31 });
    if (run_ok(&r, threads, "POW")) {
      const int32_t *got = r.graph.tensors[r.out[0]].data;
      CHECK(got[0] == (int32_t)(uint32_t)10460353203ull && got[1] == INT32_MIN, "POW gave %d %d", (int)got[0],
            (int)got[1]);
    }
    op_runner_free(&r);
  }
}


/* A one-node graph: float inputs of the given shapes, an output declared empty (filled in
 * by tfl_infer_shapes). */
static tfl_graph *shape_graph(tfl_op op, int n_in, const int *ndims, const int32_t (*dims)[TFL_MAX_DIMS])
{
  tfl_graph *g = calloc(1, sizeof *g);
  g->n_tensors = n_in + 1;
  g->tensors = calloc((size_t)g->n_tensors, sizeof(tfl_tensor));
  for (int i = 0; i <= n_in; i++) {
    tfl_tensor *t = &g->tensors[i];
    t->name = i < n_in ? "x" : "y";
    t->type = TFL_TYPE_FLOAT32;
    t->producer = i < n_in ? -1 : 0;
    if (i < n_in) {
      t->ndim = ndims[i];
      memcpy(t->dims, dims[i], sizeof(int32_t) * (size_t)ndims[i]);
    }
    tfl_tensor_update_bytes(t);
  }
  g->n_nodes = 1;
  g->nodes = calloc(1, sizeof(tfl_node));
  tfl_node *n = &g->nodes[0];
  n->op = op;
  n->n_in = n_in;
  n->n_out = 1;
  n->in = tfl_graph_alloc(g, sizeof(int32_t) * (size_t)n_in);
  n->out = tfl_graph_alloc(g, sizeof(int32_t));
  for (int i = 0; i < n_in; i++) n->in[i] = i;
  n->out[0] = n_in;
  return g;
}

/* want_ndim < 0: inference must fail, the message naming the op and containing `needle`. */
static void expect_shape(tfl_op op, int n_in, const int *ndims, const int32_t (*dims)[TFL_MAX_DIMS], int want_ndim,
                         const int32_t *want, const char *needle)
{
  tfl_graph *g = shape_graph(op, n_in, ndims, dims);
  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_status s = tfl_infer_shapes(g, &diag);
  const tfl_tensor *y = &g->tensors[n_in];
  if (want_ndim < 0) {
    CHECK(s == TFL_ERR_SHAPE, "%s: shape inference gave %s, expected a shape error", tfl_op_name(op),
          tfl_status_name(s));
    CHECK(strstr(diag.error, tfl_op_name(op)) && strstr(diag.error, needle), "%s: message '%s' lacks the op or '%s'",
          tfl_op_name(op), diag.error, needle);
  } else {
    CHECK(s == TFL_OK, "%s: %s", tfl_op_name(op), diag.error);
    bool same = y->ndim == want_ndim;
    for (int i = 0; same && i < want_ndim; i++) same = y->dims[i] == want[i];
    CHECK(same, "%s: output has %d dims [%d,...], expected %d", tfl_op_name(op), y->ndim, y->ndim ? y->dims[0] : 0,
          want_ndim);
  }
  tfl_graph_free(g);
}

static void test_shapes(void)
{
  expect_shape(TFL_OP_LESS, 2, (int[]){ 3, 2 }, (const int32_t[][TFL_MAX_DIMS]){ { 2, 1, 3 }, { 4, 1 } }, 3,
               (int32_t[]){ 2, 4, 3 }, NULL);
  expect_shape(TFL_OP_SQUARED_DIFFERENCE, 2, (int[]){ 6, 1 },
               (const int32_t[][TFL_MAX_DIMS]){ { 2, 1, 3, 1, 2, 2 }, { 2 } }, 6, (int32_t[]){ 2, 1, 3, 1, 2, 2 }, NULL);
  expect_shape(TFL_OP_FLOOR_MOD, 2, (int[]){ 1, 1 }, (const int32_t[][TFL_MAX_DIMS]){ { 5 }, { 4 } }, -1, NULL,
               "do not broadcast");
  expect_shape(TFL_OP_ATAN2, 2, (int[]){ 2, 1 }, (const int32_t[][TFL_MAX_DIMS]){ { 2, 3 }, { 3 } }, -1, NULL,
               "ATAN2 does not broadcast");
  expect_shape(TFL_OP_ATAN2, 2, (int[]){ 2, 2 }, (const int32_t[][TFL_MAX_DIMS]){ { 2, 3 }, { 2, 3 } }, 2,
               (int32_t[]){ 2, 3 }, NULL);
  expect_shape(TFL_OP_ADD_N, 3, (int[]){ 2, 2, 2 }, (const int32_t[][TFL_MAX_DIMS]){ { 2, 3 }, { 2, 3 }, { 2, 3 } },
               2, (int32_t[]){ 2, 3 }, NULL);
  expect_shape(TFL_OP_ADD_N, 2, (int[]){ 2, 1 }, (const int32_t[][TFL_MAX_DIMS]){ { 2, 3 }, { 3 } }, -1, NULL,
               "input 1");
  expect_shape(TFL_OP_GELU, 1, (int[]){ 3 }, (const int32_t[][TFL_MAX_DIMS]){ { 1, 5, 7 } }, 3, (int32_t[]){ 1, 5, 7 },
               NULL);
}

int main(void)
{
  test_shapes();
  test_eval_errors();
  test_prepare_errors();
  test_literals();
  return finish("test_eltwise_ops");
}
