/* test_list_update.c - tensor-list writes run as DYNAMIC_UPDATE_SLICE (runtime/tfl_list_update.c).
 *
 * A graph built in code as the converter lowers TensorListSetItem (Keras' LSTM with
 * return_sequences, while_keras_lstm): y = CONCATENATION(SLICE(L, 0, [i, -1]), U,
 * SLICE(L, [i + 1, 0], -1)) with i a graph input (a value known at run time only). After
 * tfl_interpreter_create the concatenation is a DYNAMIC_UPDATE_SLICE, the slices are dead, and
 * every i in [0, 4) gives L with row i replaced by U, worked out here. Then what must not
 * match: B's begin with i + 2, and a slice read by another node. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "graph_build.h"

#include "delegates/cpu/cpu_delegate.h"
#include "runtime/tfl_interpreter.h"
#include "runtime/tfl_passes.h"


#define DIMS GB_DIMS

enum { ROWS = 4, COLS = 3 };





/* an int32 constant of n values, rank ndim (0: a scalar) */
static int const_i32(tfl_graph *g, int ndim, int n, const int32_t *v)
{
  return gb_const(g, TFL_TYPE_INT32, ndim, GB_DIMS(n), v);
}

typedef struct {
  int concat, slice_a, slice_b, extra; /* nodes; extra -1 unless asked */
} pattern;

/* (i, L [ROWS, COLS], U [1, COLS]) -> y, the converter's lowering; `step` is what B's begin
 * adds to i (1 matches), `extra_reader` adds a node reading slice A as a second output. */
static tfl_graph *list_graph(int step, bool extra_reader, pattern *p)
{
  tfl_graph *g = calloc(1, sizeof *g);
  g->batch = 1;
  tfl_params none = {0}, pr = {.reshape = {.n = -1}}, pc = {.concat = {0, TFL_ACT_NONE}};
  int i = gb_tensor(g, TFL_TYPE_INT32, 0, NULL);
  int L = gb_tensor(g, TFL_TYPE_FLOAT32, 2, DIMS(ROWS, COLS)), U = gb_tensor(g, TFL_TYPE_FLOAT32, 2, DIMS(1, COLS));
  int one = const_i32(g, 1, 1, (int32_t[]){1});
  int i1 = gb_tensor(g, TFL_TYPE_INT32, 0, NULL);
  gb_node(g, TFL_OP_ADD, (int32_t[]){i, const_i32(g, 0, 1, (int32_t[]){step})}, 2, i1, none);
  int iv = gb_tensor(g, TFL_TYPE_INT32, 1, DIMS(1)), i1v = gb_tensor(g, TFL_TYPE_INT32, 1, DIMS(1));
  gb_node(g, TFL_OP_RESHAPE, (int32_t[]){i, one}, 2, iv, pr);
  int a_size = gb_tensor(g, TFL_TYPE_INT32, 1, DIMS(2));
  gb_node(g, TFL_OP_CONCATENATION, (int32_t[]){iv, const_i32(g, 1, 1, (int32_t[]){-1})}, 2, a_size, pc);
  /* the file's placeholder shapes for the run-time slices: [1, 1] */
  int a = gb_tensor(g, TFL_TYPE_FLOAT32, 2, DIMS(1, 1)), b = gb_tensor(g, TFL_TYPE_FLOAT32, 2, DIMS(1, 1));
  p->slice_a = gb_node(g, TFL_OP_SLICE, (int32_t[]){L, const_i32(g, 1, 2, (int32_t[]){0, 0}), a_size}, 3, a, none);
  gb_node(g, TFL_OP_RESHAPE, (int32_t[]){i1, one}, 2, i1v, pr);
  int b_begin = gb_tensor(g, TFL_TYPE_INT32, 1, DIMS(2));
  gb_node(g, TFL_OP_CONCATENATION, (int32_t[]){i1v, const_i32(g, 1, 1, (int32_t[]){0})}, 2, b_begin, pc);
  p->slice_b = gb_node(g, TFL_OP_SLICE, (int32_t[]){L, b_begin, const_i32(g, 1, 2, (int32_t[]){-1, -1})}, 3, b, none);
  int y = gb_tensor(g, TFL_TYPE_FLOAT32, 2, DIMS(ROWS, COLS));
  p->concat = gb_node(g, TFL_OP_CONCATENATION, (int32_t[]){a, U, b}, 3, y, pc);
  p->extra = -1;
  if (extra_reader) {
    int z = gb_tensor(g, TFL_TYPE_FLOAT32, 2, DIMS(1, 1));
    p->extra = gb_node(g, TFL_OP_RELU, (int32_t[]){a}, 1, z, none);
    gb_set_io(g, 3, (int32_t[]){i, L, U}, 2, (int32_t[]){y, z});
  } else {
    gb_set_io(g, 3, (int32_t[]){i, L, U}, 1, (int32_t[]){y});
  }
  return g;
}

static void test_rewritten_and_run(void)
{
  pattern p;
  tfl_graph *g = list_graph(1, false, &p);
  tfl_diag diag;
  tfl_diag_init(&diag);
  cpu_delegate_options co = cpu_delegate_defaults();
  co.reference = true;
  co.diag = &diag;
  tfl_delegate *cpu = cpu_delegate_create(&co);
  tfl_interp_options o = tfl_interp_defaults();
  o.fallback = cpu;
  o.diag = &diag;
  tfl_interpreter *it = NULL;
  tfl_status st = tfl_interpreter_create(g, &o, &it);
  CHECK(st == TFL_OK, "create: %s", diag.error);
  if (st == TFL_OK) {
    CHECK(g->nodes[p.concat].op == TFL_OP_DYNAMIC_UPDATE_SLICE, "node %d is %s, expected DYNAMIC_UPDATE_SLICE",
          p.concat, tfl_op_name(g->nodes[p.concat].op));
    CHECK(g->nodes[p.slice_a].dead && g->nodes[p.slice_b].dead, "the slices (nodes %d, %d) still run", p.slice_a,
          p.slice_b);
    int32_t *iv = tfl_interpreter_input(it, 0)->data;
    float *L = tfl_interpreter_input(it, 1)->data, *U = tfl_interpreter_input(it, 2)->data;
    const float *y = tfl_interpreter_output(it, 0)->data;
    for (int k = 0; k < ROWS * COLS; k++) L[k] = (float)k;
    for (int c = 0; c < COLS; c++) U[c] = -1.0f - (float)c;
    for (int row = 0; row < ROWS; row++) {
      *iv = row;
      st = tfl_interpreter_invoke(it);
      CHECK(st == TFL_OK, "invoke, i = %d: %s", row, diag.error);
      for (int k = 0; k < ROWS * COLS && st == TFL_OK; k++) {
        float want = k / COLS == row ? U[k % COLS] : L[k];
        CHECK(y[k] == want, "i = %d: y[%d] is %g, expected %g", row, k, (double)y[k], (double)want);
      }
    }
  }
  tfl_interpreter_free(it);
  cpu->destroy(cpu);
  tfl_graph_free(g);
}

/* B starting at i + 2, or slice A read by another node: left as they are. */
static void test_not_matched(void)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  for (int k = 0; k < 2; k++) {
    pattern p;
    tfl_graph *g = list_graph(k == 0 ? 2 : 1, k == 1, &p);
    CHECK(tfl_pass_list_update(g, &diag) == 0, "case %d: rewritten", k);
    CHECK(g->nodes[p.concat].op == TFL_OP_CONCATENATION, "case %d: node %d is %s", k, p.concat,
          tfl_op_name(g->nodes[p.concat].op));
    tfl_graph_free(g);
  }
}

int main(void)
{
  test_rewritten_and_run();
  test_not_matched();
  if (failures) printf("%d failures\n", failures);
  else printf("list_update: all checks passed\n");
  return failures != 0;
}
