/* test_planner.c - the greedy arena planner on hand-made lifetimes.
 * Checks: tensors alive at the same time never share bytes; offsets are 64-byte
 * aligned; the arena is at most the sum of (aligned) sizes; a chain reuses memory
 * (arena = the two largest neighbours); graph planning aliases a RESHAPE output; a
 * subgraph's inputs are never reused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/tfl_planner.h"

static int failures;
#define CHECK(c, ...)                                                                               \
  do {                                                                                              \
    if (!(c)) {                                                                                     \
      failures++;                                                                                   \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                   \
      printf(__VA_ARGS__);                                                                          \
      printf("\n");                                                                                 \
    }                                                                                               \
  } while (0)

static size_t up64(size_t v)
{
  return (v + 63) / 64 * 64;
}

/* No two items alive together overlap; all fit in the arena; aligned. */
static void check_plan(const char *what, const tfl_plan_item *it, int n, const size_t *off, size_t arena)
{
  size_t sum = 0;
  for (int i = 0; i < n; i++) {
    sum += up64(it[i].size);
    if (!it[i].size) continue;
    CHECK(off[i] % 64 == 0, "%s: item %d offset %zu not aligned", what, i, off[i]);
    CHECK(off[i] + it[i].size <= arena, "%s: item %d [%zu,+%zu) beyond arena %zu", what, i, off[i], it[i].size, arena);
    for (int j = 0; j < i; j++) {
      if (!it[j].size) continue;
      bool live = it[i].first <= it[j].last && it[j].first <= it[i].last;
      bool mem = off[i] < off[j] + it[j].size && off[j] < off[i] + it[i].size;
      CHECK(!(live && mem), "%s: items %d and %d alive together share bytes", what, i, j);
    }
  }
  CHECK(arena <= sum, "%s: arena %zu > sum of sizes %zu", what, arena, sum);
}

static void test_chain(void)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  /* t0 -> op1 -> t1 -> op2 -> t2 ...: each tensor alive [i, i+1] */
  enum { N = 8 };
  tfl_plan_item it[N];
  size_t off[N];
  for (int i = 0; i < N; i++) it[i] = (tfl_plan_item){.size = 1000, .first = i, .last = i + 1};
  size_t arena = tfl_plan_offsets(it, N, 64, off, &diag);
  check_plan("chain", it, N, off, arena);
  CHECK(arena == 2 * 1024, "chain: arena %zu, expected %d (two live buffers)", arena, 2 * 1024);
}

static void test_handmade(void)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  /* a branch: t0 feeds t1 and t2, joined into t3; t4 lives the whole run (graph output) */
  tfl_plan_item it[] = {
    {.size = 4096, .first = 0, .last = 2},
    {.size = 100, .first = 1, .last = 3},
    {.size = 3000, .first = 2, .last = 3},
    {.size = 5000, .first = 3, .last = 4},
    {.size = 64, .first = 0, .last = 5},
    {.size = 0, .first = 0, .last = 5},   /* unplanned */
    {.size = 777, .first = 4, .last = 5},
  };
  int n = (int)(sizeof it / sizeof it[0]);
  size_t off[7];
  size_t arena = tfl_plan_offsets(it, n, 64, off, &diag);
  check_plan("handmade", it, n, off, arena);
  /* at step 2, t0+t1+t2+t4 are alive: 4096+128+3008+64 */
  CHECK(arena >= 4096 + 128 + 3008 + 64, "handmade: arena %zu smaller than the live peak", arena);
  CHECK(arena < 4096 + 128 + 3008 + 5056 + 64 + 832, "handmade: arena %zu, no reuse at all", arena);
}

static void test_random(void)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  enum { N = 200 };
  tfl_plan_item it[N];
  size_t off[N];
  srand(7);
  for (int r = 0; r < 20; r++) {
    for (int i = 0; i < N; i++) {
      int a = rand() % 100, b = a + rand() % 10;
      it[i] = (tfl_plan_item){.size = (size_t)(rand() % 5000), .first = a, .last = b};
    }
    size_t arena = tfl_plan_offsets(it, N, 64, off, &diag);
    check_plan("random", it, N, off, arena);
  }
}

/* x -> RELU -> a -> RESHAPE -> b -> RELU -> y (tensors 0..3, nodes 0..2) */
static tfl_graph *alias_graph(void)
{
  tfl_graph *g = calloc(1, sizeof *g);
  g->n_tensors = 4;
  g->tensors = calloc(4, sizeof(tfl_tensor));
  for (int t = 0; t < 4; t++) {
    tfl_tensor *x = &g->tensors[t];
    x->type = TFL_TYPE_FLOAT32;
    x->ndim = 2;
    x->dims[0] = t == 2 ? 16 : 4;
    x->dims[1] = t == 2 ? 4 : 16;
    x->producer = t - 1;
    tfl_tensor_update_bytes(x);
  }
  g->n_nodes = 3;
  g->nodes = calloc(3, sizeof(tfl_node));
  tfl_op ops[3] = {TFL_OP_RELU, TFL_OP_RESHAPE, TFL_OP_RELU};
  for (int i = 0; i < 3; i++) {
    tfl_node *n = &g->nodes[i];
    n->op = ops[i];
    n->n_in = n->n_out = 1;
    n->in = tfl_graph_alloc(g, sizeof(int32_t));
    n->out = tfl_graph_alloc(g, sizeof(int32_t));
    n->in[0] = i;
    n->out[0] = i + 1;
  }
  g->n_inputs = g->n_outputs = 1;
  g->inputs = malloc(sizeof(int32_t));
  g->outputs = malloc(sizeof(int32_t));
  g->inputs[0] = 0;
  g->outputs[0] = 3;
  return g;
}

/* b shares a's bytes, and a lives until b dies. */
static void test_graph_alias(void)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_graph *g = alias_graph();
  bool planned[4];
  size_t arena = 0;
  CHECK(tfl_plan_graph(g, NULL, 0, planned, &arena, &diag) == TFL_OK, "plan_graph: %s", diag.error);
  for (int t = 0; t < 4; t++) CHECK(planned[t], "tensor %d not planned", t);
  size_t o[4];
  for (int t = 0; t < 4; t++) o[t] = g->tensors[t].arena_offset;
  CHECK(o[1] == o[2], "reshape output not aliased: offsets %zu and %zu", o[1], o[2]);
  CHECK(o[0] != o[1] && o[3] != o[2], "alias overlaps a live neighbour: %zu %zu %zu %zu", o[0], o[1], o[2], o[3]);
  /* x dies at node 0, so y may reuse x's bytes: two buffers of 256 */
  CHECK(arena == 512, "alias graph: arena %zu, expected 512", arena);
  tfl_graph_free(g);
}

/* A delegate's fused read (tfl_delegate.extra_uses): "x is still read while node 2
 * runs" keeps y off x's bytes; extra uses of tensors no node touches are ignored. */
static void test_extra_uses(void)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_graph *g = alias_graph();
  bool planned[4];
  size_t arena = 0;
  const tfl_extra_use extra[] = {{2, 0}, {1, 99}, {7, 1}};
  CHECK(tfl_plan_graph(g, extra, 3, planned, &arena, &diag) == TFL_OK, "plan_graph: %s", diag.error);
  const tfl_tensor *x = &g->tensors[0], *y = &g->tensors[3];
  CHECK(x->arena_offset + x->bytes <= y->arena_offset || y->arena_offset + y->bytes <= x->arena_offset,
        "extra use: x [%zu, +%zu) and y [%zu, +%zu) overlap", x->arena_offset, x->bytes, y->arena_offset, y->bytes);
  CHECK(arena == 768, "extra use: arena %zu, expected 768 (three buffers of 256)", arena);
  tfl_graph_free(g);
}

/* A subgraph's inputs (g->root set: WHILE, IF and CALL_ONCE run it) live the whole run:
 * WHILE writes a body's inputs from its outputs after the body ran, so an output on the
 * bytes of an input that died early would be overwritten (while_tf_counter). The main
 * graph's x dies at node 0; the subgraph's keeps y off its bytes. */
static void test_subgraph_inputs(void)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_graph *g = alias_graph();
  tfl_graph main_graph = {0};
  g->root = &main_graph;
  bool planned[4];
  size_t arena = 0;
  CHECK(tfl_plan_graph(g, NULL, 0, planned, &arena, &diag) == TFL_OK, "plan_graph: %s", diag.error);
  const tfl_tensor *x = &g->tensors[0];
  for (int t = 1; t < 4; t++) {
    const tfl_tensor *y = &g->tensors[t];
    CHECK(x->arena_offset + x->bytes <= y->arena_offset || y->arena_offset + y->bytes <= x->arena_offset,
          "subgraph input x [%zu, +%zu) and tensor %d [%zu, +%zu) overlap", x->arena_offset, x->bytes, t,
          y->arena_offset, y->bytes);
  }
  CHECK(arena == 768, "subgraph: arena %zu, expected 768 (x kept, a and b aliased, y)", arena);
  g->root = NULL;
  tfl_graph_free(g);
}

int main(void)
{
  test_chain();
  test_handmade();
  test_random();
  test_graph_alias();
  test_extra_uses();
  test_subgraph_inputs();
  if (failures) printf("%d failures\n", failures);
  else printf("planner: all checks passed\n");
  return failures != 0;
}
