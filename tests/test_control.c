/* test_control.c - WHILE on the CPU delegate with subgraphs built in code (the op models in
 * tests/opmodels cover the converted and file-built cases against TensorFlow Lite).
 *
 * - two WHILE nodes running the same cond and body subgraphs share one interpreter of
 *   them: results worked out by hand, over two invokes with other flags;
 * - a body whose output has another shape than its input is refused at create, naming
 *   the node, the shapes and why (memory is planned once);
 * - a body that runs its own subgraph again (recursion the loader refuses in files) is
 *   refused at create, not recursed into;
 * - CALL_ONCE runs its init subgraph at the first invoke only, once for two nodes naming it;
 * - the models of DIR (tests/data/control, make_control_models.py --bad) fail to load, each
 *   with the message DIR/expected.txt gives it (bad subgraph index, the main graph as a
 *   subgraph, types, counts, recursion, CALL_ONCE with inputs).
 *
 *   test_control DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "graph_build.h"

#include "delegates/cpu/cpu_delegate.h"
#include "runtime/tfl_interpreter.h"
#include "runtime/tfl_loader.h"




/* A model of `n` subgraphs: the main graph, with subgraphs 1..n-1 empty for the caller. */
static tfl_graph *model(int n)
{
  tfl_graph *g = calloc(1, sizeof *g);
  g->batch = 1;
  g->n_subgraphs = n;
  g->subgraphs = calloc((size_t)n, sizeof *g->subgraphs);
  for (int k = 1; k < n; k++) {
    tfl_graph *s = calloc(1, sizeof *s);
    s->batch = 1;
    s->root = g;
    s->index = k;
    g->subgraphs[k] = s;
  }
  return g;
}

static const int32_t VEC2[] = {2};

/* cond: (flag, x) -> flag. */
static void make_cond(tfl_graph *c)
{
  int f = gb_tensor(c, TFL_TYPE_BOOL, 0, NULL), x = gb_tensor(c, TFL_TYPE_FLOAT32, 1, VEC2);
  gb_set_io(c, 2, (int32_t[]){f, x}, 1, (int32_t[]){f});
}

/* body: (flag, x) -> (flag AND false, x + x), or with `grow` x ++ x (another shape). */
static void make_body(tfl_graph *b, bool grow)
{
  tfl_params none = {0};
  int f = gb_tensor(b, TFL_TYPE_BOOL, 0, NULL), x = gb_tensor(b, TFL_TYPE_FLOAT32, 1, VEC2);
  int no = gb_tensor(b, TFL_TYPE_BOOL, 0, NULL);
  b->tensors[no].data = tfl_graph_alloc(b, 1); /* zeroed: false */
  b->tensors[no].is_const = true;
  int f2 = gb_tensor(b, TFL_TYPE_BOOL, 0, NULL);
  tfl_graph_add_node(b, TFL_OP_LOGICAL_AND, (int32_t[]){f, no}, 2, (int32_t[]){f2}, 1, &none);
  int x2 = gb_tensor(b, TFL_TYPE_FLOAT32, 1, grow ? (int32_t[]){4} : VEC2);
  if (grow) {
    tfl_params pc = {.concat = {0, TFL_ACT_NONE}};
    tfl_graph_add_node(b, TFL_OP_CONCATENATION, (int32_t[]){x, x}, 2, (int32_t[]){x2}, 1, &pc);
  } else {
    tfl_graph_add_node(b, TFL_OP_ADD, (int32_t[]){x, x}, 2, (int32_t[]){x2}, 1, &none);
  }
  gb_set_io(b, 2, (int32_t[]){f, x}, 2, (int32_t[]){f2, x2});
}

/* A WHILE node in g on (flag, x) with cond 1 and body 2; returns the x output tensor. */
static int add_while(tfl_graph *g, int f, int x)
{
  tfl_params pw = {.subgraph = {1, 2}};
  int of = gb_tensor(g, TFL_TYPE_BOOL, 0, NULL), ox = gb_tensor(g, TFL_TYPE_FLOAT32, 1, VEC2);
  tfl_graph_add_node(g, TFL_OP_WHILE, (int32_t[]){f, x}, 2, (int32_t[]){of, ox}, 2, &pw);
  return ox;
}

typedef struct {
  tfl_diag diag;
  tfl_delegate *cpu;
  tfl_interpreter *it;
  tfl_status st;
} run;

static void create(tfl_graph *g, run *r)
{
  tfl_diag_init(&r->diag);
  cpu_delegate_options co = cpu_delegate_defaults();
  co.diag = &r->diag;
  r->cpu = cpu_delegate_create(&co);
  tfl_interp_options o = tfl_interp_defaults();
  o.fallback = r->cpu;
  o.diag = &r->diag;
  r->it = NULL;
  r->st = tfl_interpreter_create(g, &o, &r->it);
}

static void destroy(run *r)
{
  tfl_interpreter_free(r->it);
  r->cpu->destroy(r->cpu);
}

static void test_shared_subgraphs(void)
{
  tfl_graph *g = model(3);
  make_cond(g->subgraphs[1]);
  make_body(g->subgraphs[2], false);
  int f1 = gb_tensor(g, TFL_TYPE_BOOL, 0, NULL), x1 = gb_tensor(g, TFL_TYPE_FLOAT32, 1, VEC2);
  int f2 = gb_tensor(g, TFL_TYPE_BOOL, 0, NULL), x2 = gb_tensor(g, TFL_TYPE_FLOAT32, 1, VEC2);
  int y1 = add_while(g, f1, x1), y2 = add_while(g, f2, x2);
  gb_set_io(g, 4, (int32_t[]){f1, x1, f2, x2}, 2, (int32_t[]){y1, y2});
  run r;
  create(g, &r);
  CHECK(r.st == TFL_OK, "create: %s", r.diag.error);
  CHECK(g->subgraphs[1]->runner_users == 2 && g->subgraphs[2]->runner_users == 2,
        "cond and body held by %d and %d nodes, expected 2", g->subgraphs[1]->runner_users,
        g->subgraphs[2]->runner_users);
  for (int round = 0; round < 2 && r.st == TFL_OK; round++) {
    /* round 0: the first loop runs once, the second never; round 1 the other way */
    *(bool *)g->tensors[f1].data = round == 0;
    *(bool *)g->tensors[f2].data = round == 1;
    float *a = g->tensors[x1].data, *b = g->tensors[x2].data;
    a[0] = 1, a[1] = 2, b[0] = 3, b[1] = -4;
    tfl_status st = tfl_interpreter_invoke(r.it);
    CHECK(st == TFL_OK, "invoke: %s", r.diag.error);
    const float *o1 = g->tensors[y1].data, *o2 = g->tensors[y2].data;
    float w1[2] = {round == 0 ? 2.0f : 1.0f, round == 0 ? 4.0f : 2.0f};
    float w2[2] = {round == 1 ? 6.0f : 3.0f, round == 1 ? -8.0f : -4.0f};
    CHECK(o1[0] == w1[0] && o1[1] == w1[1] && o2[0] == w2[0] && o2[1] == w2[1],
          "round %d: got [%g %g] [%g %g], want [%g %g] [%g %g]", round, o1[0], o1[1], o2[0], o2[1], w1[0], w1[1],
          w2[0], w2[1]);
  }
  destroy(&r);
  CHECK(!g->subgraphs[1]->runner && !g->subgraphs[2]->runner && !g->subgraphs[2]->runner_users,
        "the subgraphs' runner outlived the interpreter");
  tfl_graph_free(g);
}

static void test_body_changes_shape(void)
{
  tfl_graph *g = model(3);
  make_cond(g->subgraphs[1]);
  make_body(g->subgraphs[2], true);
  int f = gb_tensor(g, TFL_TYPE_BOOL, 0, NULL), x = gb_tensor(g, TFL_TYPE_FLOAT32, 1, VEC2);
  int y = add_while(g, f, x);
  gb_set_io(g, 2, (int32_t[]){f, x}, 1, (int32_t[]){y});
  run r;
  create(g, &r);
  CHECK(r.st == TFL_ERR_UNSUPPORTED, "create gave %d, expected unsupported: %s", r.st, r.diag.error);
  CHECK(strstr(r.diag.error, "node 0 (WHILE)") && strstr(r.diag.error, "[2]") && strstr(r.diag.error, "[4]") &&
            strstr(r.diag.error, "planned once"),
        "error does not name the node, both shapes and why: %s", r.diag.error);
  CHECK(!g->subgraphs[1]->runner_users && !g->subgraphs[2]->runner_users, "a failed create left a runner held");
  destroy(&r);
  tfl_graph_free(g);
}

static void test_recursion_refused(void)
{
  tfl_graph *g = model(3);
  make_cond(g->subgraphs[1]);
  tfl_graph *b = g->subgraphs[2];
  int bf = gb_tensor(b, TFL_TYPE_BOOL, 0, NULL), bx = gb_tensor(b, TFL_TYPE_FLOAT32, 1, VEC2);
  int by = add_while(b, bf, bx); /* the body runs WHILE(cond 1, body 2): itself */
  gb_set_io(b, 2, (int32_t[]){bf, bx}, 2, (int32_t[]){b->nodes[0].out[0], by});
  int f = gb_tensor(g, TFL_TYPE_BOOL, 0, NULL), x = gb_tensor(g, TFL_TYPE_FLOAT32, 1, VEC2);
  int y = add_while(g, f, x);
  gb_set_io(g, 2, (int32_t[]){f, x}, 1, (int32_t[]){y});
  run r;
  create(g, &r);
  CHECK(r.st == TFL_ERR_UNSUPPORTED && strstr(r.diag.error, "runs itself"), "create gave %d: %s", r.st,
        r.diag.error);
  destroy(&r);
  tfl_graph_free(g);
}

/* CALL_ONCE's init subgraph runs at the first invoke only, once however many CALL_ONCE
 * nodes name it (TFLite keys it by the subgraph): its node adds 1 to a state tensor in
 * place, so the state counts the runs. */
static void test_call_once(void)
{
  tfl_graph *g = model(2);
  tfl_graph *init = g->subgraphs[1];
  tfl_params none = {0};
  int v = gb_tensor(init, TFL_TYPE_FLOAT32, 1, VEC2);
  init->tensors[v].is_variable = true;
  int one = gb_tensor(init, TFL_TYPE_FLOAT32, 1, VEC2);
  float *k = tfl_graph_alloc(init, 8);
  k[0] = 1, k[1] = 1;
  init->tensors[one].data = k;
  init->tensors[one].is_const = true;
  tfl_graph_add_node(init, TFL_OP_ADD, (int32_t[]){v, one}, 2, (int32_t[]){v}, 1, &none);
  gb_set_io(init, 0, NULL, 0, NULL);
  tfl_params pc = {.subgraph = {1, -1}};
  tfl_graph_add_node(g, TFL_OP_CALL_ONCE, NULL, 0, NULL, 0, &pc);
  tfl_graph_add_node(g, TFL_OP_CALL_ONCE, NULL, 0, NULL, 0, &pc);
  int x = gb_tensor(g, TFL_TYPE_FLOAT32, 1, VEC2), y = gb_tensor(g, TFL_TYPE_FLOAT32, 1, VEC2);
  tfl_graph_add_node(g, TFL_OP_ADD, (int32_t[]){x, x}, 2, (int32_t[]){y}, 1, &none);
  gb_set_io(g, 1, (int32_t[]){x}, 1, (int32_t[]){y});
  run r;
  create(g, &r);
  CHECK(r.st == TFL_OK && !g->nodes[0].dead && !g->nodes[1].dead, "create: %s (CALL_ONCE dead %d %d)", r.diag.error,
        g->nodes[0].dead, g->nodes[1].dead);
  for (int i = 0; i < 3 && r.st == TFL_OK; i++) {
    const float *state = init->tensors[v].data;
    CHECK(tfl_interpreter_invoke(r.it) == TFL_OK && state[0] == 1.0f && state[1] == 1.0f,
          "invoke %d: the init subgraph ran %g times, expected once (%s)", i, state[0], r.diag.error);
  }
  destroy(&r);
  tfl_graph_free(g);
}

static void test_bad_models(const char *dir)
{
  char path[4096], line[512];
  snprintf(path, sizeof path, "%s/expected.txt", dir);
  FILE *f = fopen(path, "r");
  CHECK(f != NULL, "%s: cannot open", path);
  if (!f) return;
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    char *msg = strchr(line, ' ');
    if (!msg) continue;
    *msg++ = 0;
    snprintf(path, sizeof path, "%s/%s", dir, line);
    tfl_diag diag;
    tfl_diag_init(&diag);
    tfl_graph *g = NULL;
    tfl_status st = tfl_load_file(path, &g, &diag);
    CHECK(st != TFL_OK && !g && strstr(diag.error, msg), "%s: status %d, error '%s', expected '%s'", line, st,
          diag.error, msg);
    tfl_graph_free(g);
    n++;
  }
  fclose(f);
  CHECK(n >= 7, "%d bad models, expected at least 7", n);
}

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: test_control DIR (tests/data/control)\n");
    return 2;
  }
  test_shared_subgraphs();
  test_body_changes_shape();
  test_recursion_refused();
  test_call_once();
  test_bad_models(argv[1]);
  if (failures) {
    printf("control: %d failures\n", failures);
    return 1;
  }
  printf("control: all checks passed\n");
  return 0;
}
