/* test_fold_ints.c - shape arithmetic folded at prepare (runtime/tfl_fold_ints.c).
 *
 * A graph built in code as PyTorch exports compute RESHAPE targets: SHAPE -> STRIDED_SLICE /
 * GATHER / SLICE -> MUL -> PACK -> RESHAPE of a constant vector -> RESHAPE, and a second
 * target through CAST to int64, CONCATENATION with -1 and CAST back. After
 * tfl_graph_prepare every integer node is dead, the targets are constants with the values
 * worked out by hand, and the RESHAPEs' outputs have their shapes. Keras' Dense on a batch of
 * unknown size (convnext_tiny in tests/zoo): SHAPE -> GATHER -> REDUCE_PROD -> PACK ->
 * RESHAPE whose output the file declares [1, 1] with shape_signature [-1, -1]; the target
 * folds during shape inference and the real shape replaces the guess (and without the
 * signature the guess is an error). Then what must not fold:
 * a non-constant integer input, an out-of-range GATHER index (left to the kernel), an int32
 * overflow, a graph output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "graph_build.h"

#include "runtime/tfl_passes.h"


#define DIMS GB_DIMS
#define NDIMS(...) ((int)(sizeof((int32_t[]){__VA_ARGS__}) / sizeof(int32_t)))

static tfl_graph *new_graph(void)
{
  tfl_graph *g = calloc(1, sizeof *g);
  g->batch = 1;
  return g;
}






static int const_i32(tfl_graph *g, int n, const int32_t *v)
{
  return gb_const(g, TFL_TYPE_INT32, 1, GB_DIMS(n), v);
}

static int const_i64(tfl_graph *g, int n, const int64_t *v)
{
  return gb_const(g, TFL_TYPE_INT64, 1, GB_DIMS(n), v);
}

static bool values_are(const tfl_tensor *t, int n, const int64_t *want)
{
  if (!t->is_const || !t->data || (int)tfl_tensor_count(t) != n) return false;
  for (int i = 0; i < n; i++) {
    int64_t v = t->type == TFL_TYPE_INT64 ? ((const int64_t *)t->data)[i] : ((const int32_t *)t->data)[i];
    if (v != want[i]) return false;
  }
  return true;
}

static bool shape_is(const tfl_tensor *t, int ndim, const int32_t *d)
{
  return t->ndim == ndim && !memcmp(t->dims, d, sizeof(int32_t) * (size_t)ndim);
}

static void test_pytorch_chain(void)
{
  tfl_graph *g = new_graph();
  tfl_params none = {0};
  int x = gb_tensor(g, TFL_TYPE_FLOAT32, 3, DIMS(2, 3, 4));
  int shp = gb_tensor(g, TFL_TYPE_INT32, 1, DIMS(3));
  tfl_params ps = {.shape = {TFL_TYPE_INT32}};
  gb_node(g, TFL_OP_SHAPE, (int32_t[]){x}, 1, shp, ps);
  int zero = const_i32(g, 1, (int32_t[]){0}), one = const_i32(g, 1, (int32_t[]){1});
  int b = gb_tensor(g, TFL_TYPE_INT32, 1, DIMS(1));
  gb_node(g, TFL_OP_STRIDED_SLICE, (int32_t[]){shp, zero, one, one}, 4, b, none);          /* {2} */
  int hw2 = gb_tensor(g, TFL_TYPE_INT32, 1, DIMS(2));
  gb_node(g, TFL_OP_GATHER, (int32_t[]){shp, const_i32(g, 2, (int32_t[]){1, 2})}, 2, hw2, none); /* {3, 4} */
  int h = gb_tensor(g, TFL_TYPE_INT32, 1, DIMS(1)), w = gb_tensor(g, TFL_TYPE_INT32, 1, DIMS(1));
  gb_node(g, TFL_OP_SLICE, (int32_t[]){hw2, zero, one}, 3, h, none);                          /* {3} */
  gb_node(g, TFL_OP_SLICE, (int32_t[]){hw2, one, one}, 3, w, none);                           /* {4} */
  int hw = gb_tensor(g, TFL_TYPE_INT32, 1, DIMS(1));
  gb_node(g, TFL_OP_MUL, (int32_t[]){h, w}, 2, hw, none);                                     /* {12} */
  int pk = gb_tensor(g, TFL_TYPE_INT32, 2, DIMS(2, 1));
  tfl_params pp = {.pack = {2, 0}};
  gb_node(g, TFL_OP_PACK, (int32_t[]){b, hw}, 2, pk, pp);                                     /* {{2}, {12}} */
  int tgt = gb_tensor(g, TFL_TYPE_INT32, 1, DIMS(2));
  tfl_params pr = {.reshape = {.n = -1}};
  gb_node(g, TFL_OP_RESHAPE, (int32_t[]){pk, const_i32(g, 1, (int32_t[]){2})}, 2, tgt, pr);   /* {2, 12} */
  int y = gb_tensor(g, TFL_TYPE_FLOAT32, 2, DIMS(2, 12));
  int n_y = gb_node(g, TFL_OP_RESHAPE, (int32_t[]){x, tgt}, 2, y, pr);
  /* second target: int64 through CAST, CONCATENATION with -1, CAST back */
  int tgt64 = gb_tensor(g, TFL_TYPE_INT64, 1, DIMS(2));
  tfl_params pc = {.cast = {-1, -1}};
  gb_node(g, TFL_OP_CAST, (int32_t[]){tgt}, 1, tgt64, pc);
  int last = gb_tensor(g, TFL_TYPE_INT64, 1, DIMS(1));
  gb_node(g, TFL_OP_SLICE, (int32_t[]){tgt64, one, one}, 3, last, none);                      /* {12} */
  int cat = gb_tensor(g, TFL_TYPE_INT64, 1, DIMS(2));
  tfl_params pcat = {.concat = {0, TFL_ACT_NONE}};
  gb_node(g, TFL_OP_CONCATENATION, (int32_t[]){const_i64(g, 1, (int64_t[]){-1}), last}, 2, cat, pcat); /* {-1, 12} */
  int cat32 = gb_tensor(g, TFL_TYPE_INT32, 1, DIMS(2));
  gb_node(g, TFL_OP_CAST, (int32_t[]){cat}, 1, cat32, pc);
  int z = gb_tensor(g, TFL_TYPE_FLOAT32, 2, DIMS(2, 12));
  int n_z = gb_node(g, TFL_OP_RESHAPE, (int32_t[]){x, cat32}, 2, z, pr);
  gb_set_io(g, 1, (int32_t[]){x}, 2, (int32_t[]){y, z});

  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_status st = tfl_graph_prepare(g, &diag);
  CHECK(st == TFL_OK, "prepare: %s", diag.error);
  for (int i = 0; i < g->n_nodes; i++)
    CHECK(g->nodes[i].dead == (i != n_y && i != n_z), "node %d (%s): dead %d", i, tfl_op_name(g->nodes[i].op),
          g->nodes[i].dead);
  CHECK(values_are(&g->tensors[tgt], 2, (int64_t[]){2, 12}), "first target not folded to {2, 12}");
  CHECK(values_are(&g->tensors[cat32], 2, (int64_t[]){-1, 12}), "second target not folded to {-1, 12}");
  CHECK(values_are(&g->tensors[tgt64], 2, (int64_t[]){2, 12}), "int64 cast not folded");
  CHECK(shape_is(&g->tensors[y], 2, DIMS(2, 12)) && shape_is(&g->tensors[z], 2, DIMS(2, 12)), "reshape outputs");
  /* again: nothing changes */
  st = tfl_graph_prepare(g, &diag);
  CHECK(st == TFL_OK && !g->nodes[n_y].dead, "second prepare: %s", diag.error);
  tfl_graph_free(g);
}

/* [1,4,4,3] -> RESHAPE to {prod(dims 0..2), prod(dim 3)} = {16, 3}, then ADD of a [3]
 * constant; the file's guesses [1, 1] and [1, 3], dims marked -1 in shape_signature when
 * `signature`. */
static void test_keras_dense_chain(bool signature)
{
  tfl_graph *g = new_graph();
  tfl_params none = {0};
  int x = gb_tensor(g, TFL_TYPE_FLOAT32, 4, DIMS(1, 4, 4, 3));
  int shp = gb_tensor(g, TFL_TYPE_INT32, 1, DIMS(4));
  tfl_params ps = {.shape = {TFL_TYPE_INT32}};
  gb_node(g, TFL_OP_SHAPE, (int32_t[]){x}, 1, shp, ps);
  int lead = gb_tensor(g, TFL_TYPE_INT32, 1, DIMS(3)), tail = gb_tensor(g, TFL_TYPE_INT32, 1, DIMS(1));
  gb_node(g, TFL_OP_GATHER, (int32_t[]){shp, const_i32(g, 3, (int32_t[]){0, 1, 2})}, 2, lead, none); /* {1, 4, 4} */
  gb_node(g, TFL_OP_GATHER, (int32_t[]){shp, const_i32(g, 1, (int32_t[]){3})}, 2, tail, none);       /* {3} */
  int axis0 = const_i32(g, 1, (int32_t[]){0});
  int rows = gb_tensor(g, TFL_TYPE_INT32, 0, NULL), cols = gb_tensor(g, TFL_TYPE_INT32, 0, NULL);
  tfl_params pr = {.reducer = {false}};
  gb_node(g, TFL_OP_REDUCE_PROD, (int32_t[]){lead, axis0}, 2, rows, pr);                            /* 16 */
  gb_node(g, TFL_OP_REDUCE_PROD, (int32_t[]){tail, axis0}, 2, cols, pr);                            /* 3 */
  int tgt = gb_tensor(g, TFL_TYPE_INT32, 1, DIMS(2));
  tfl_params pp = {.pack = {2, 0}};
  gb_node(g, TFL_OP_PACK, (int32_t[]){rows, cols}, 2, tgt, pp);                                      /* {16, 3} */
  int y = gb_tensor(g, TFL_TYPE_FLOAT32, 2, DIMS(1, 1));
  tfl_params prs = {.reshape = {.n = -1}};
  int n_y = gb_node(g, TFL_OP_RESHAPE, (int32_t[]){x, tgt}, 2, y, prs);
  int z = gb_tensor(g, TFL_TYPE_FLOAT32, 2, DIMS(1, 3));
  float bias[3] = {1, 2, 3};
  int b = gb_tensor(g, TFL_TYPE_FLOAT32, 1, DIMS(3));
  g->tensors[b].data = bias;
  g->tensors[b].is_const = true;
  int n_z = gb_node(g, TFL_OP_ADD, (int32_t[]){y, b}, 2, z, none);
  if (signature) {
    g->tensors[y].dyn_dims = 3;   /* [-1, -1] */
    g->tensors[z].dyn_dims = 1;   /* [-1, 3] */
  }
  gb_set_io(g, 1, (int32_t[]){x}, 1, (int32_t[]){z});

  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_status st = tfl_graph_prepare(g, &diag);
  if (!signature) {
    CHECK(st == TFL_ERR_SHAPE && strstr(diag.error, "the file declares [1,1]"),
          "a declared [1, 1] without shape_signature: status %d, %s", (int)st, diag.error);
  } else {
    CHECK(st == TFL_OK, "prepare: %s", diag.error);
    for (int i = 0; i < g->n_nodes; i++)
      CHECK(g->nodes[i].dead == (i != n_y && i != n_z), "node %d (%s): dead %d", i, tfl_op_name(g->nodes[i].op),
            g->nodes[i].dead);
    CHECK(values_are(&g->tensors[tgt], 2, (int64_t[]){16, 3}), "target not folded to {16, 3}");
    CHECK(values_are(&g->tensors[rows], 1, (int64_t[]){16}) && g->tensors[rows].ndim == 0, "REDUCE_PROD scalar");
    CHECK(shape_is(&g->tensors[y], 2, DIMS(16, 3)) && shape_is(&g->tensors[z], 2, DIMS(16, 3)),
          "shapes [%d,%d] and [%d,%d], expected [16,3]", g->tensors[y].dims[0], g->tensors[y].dims[1],
          g->tensors[z].dims[0], g->tensors[z].dims[1]);
  }
  g->tensors[b].data = NULL;
  tfl_graph_free(g);
}

/* Integer graphs the pass must leave to the kernels. */
static void test_not_folded(void)
{
  tfl_graph *g = new_graph();
  tfl_params none = {0};
  int v = gb_tensor(g, TFL_TYPE_INT32, 1, DIMS(3)); /* a graph input: not constant */
  int a = gb_tensor(g, TFL_TYPE_INT32, 1, DIMS(3));
  int n_a = gb_node(g, TFL_OP_ADD, (int32_t[]){v, const_i32(g, 3, (int32_t[]){1, 2, 3})}, 2, a, none);
  int c = const_i32(g, 3, (int32_t[]){5, 6, 7});
  int gi = gb_tensor(g, TFL_TYPE_INT32, 1, DIMS(1));
  int n_g = gb_node(g, TFL_OP_GATHER, (int32_t[]){c, const_i32(g, 1, (int32_t[]){3})}, 2, gi, none); /* index 3 of 3 */
  int m = gb_tensor(g, TFL_TYPE_INT32, 1, DIMS(1));
  int big = const_i32(g, 1, (int32_t[]){1 << 20});
  int n_m = gb_node(g, TFL_OP_MUL, (int32_t[]){big, big}, 2, m, none);                 /* 2^40: not int32 */
  int o = gb_tensor(g, TFL_TYPE_INT32, 1, DIMS(3));
  int n_o = gb_node(g, TFL_OP_SUB, (int32_t[]){c, c}, 2, o, none);                     /* a graph output */
  /* a, gi and m are read by a node, not graph outputs: only their own values keep them */
  int all = gb_tensor(g, TFL_TYPE_INT32, 1, DIMS(5));
  tfl_params pcat = {.concat = {0, TFL_ACT_NONE}};
  gb_node(g, TFL_OP_CONCATENATION, (int32_t[]){a, gi, m}, 3, all, pcat);
  gb_set_io(g, 1, (int32_t[]){v}, 2, (int32_t[]){all, o});
  tfl_diag diag;
  tfl_diag_init(&diag);
  int folded = tfl_pass_fold_shape_ints(g, &diag);
  CHECK(folded == 0, "%d nodes folded, expected none", folded);
  CHECK(!g->nodes[n_a].dead && !g->nodes[n_g].dead && !g->nodes[n_m].dead && !g->nodes[n_o].dead,
        "a node was folded");
  tfl_graph_free(g);
}

int main(void)
{
  test_pytorch_chain();
  test_keras_dense_chain(true);
  test_keras_dense_chain(false);
  test_not_folded();
  if (failures) {
    printf("fold_ints: %d failures\n", failures);
    return 1;
  }
  printf("fold_ints: all checks passed\n");
  return 0;
}
