/* test_interpreter.c - partitioning, boundary tensors, refusal warnings and results,
 * on a graph built by hand with a fake accelerator that claims only RELU.
 *
 *   node 0: a = ADD(x, c)     cpu        x = [-2, -1, 0.5, 3], c = [1, 1, 1, 2] (constant)
 *   node 1: b = RELU(a)       fake       a = [-1, 0, 1.5, 5]
 *   node 2: d = RELU(b)       fake       d = [0, 0, 1.5, 5]
 *   node 3: e = MUL(d, c)     cpu        e = [0, 0, 1.5, 10]
 *   node 4: y = ADD(e, x)     cpu        y = [-2, -1, 2, 13]   (graph output "y")
 * Expected: 3 partitions (cpu [0], fake [1,2], cpu [3,4]); fake's boundary: in {a}, out {d};
 * one warning each for ADD (#0) and MUL (#18), none for RELU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/cpu/cpu_delegate.h"
#include "runtime/tfl_interpreter.h"

static int failures;
#define CHECK(c, ...)                                                                               \
  do {                                                                                              \
    if (!(c)) {                                                                                     \
      failures++;                                                                                   \
      printf("FAIL line %d: ", __LINE__);                                                           \
      printf(__VA_ARGS__);                                                                          \
      printf("\n");                                                                                 \
    }                                                                                               \
  } while (0)

enum { T_X, T_C, T_A, T_B, T_D, T_E, T_Y, N_T };

/* ---- the fake delegate: runs RELU itself, records what it was given ---------- */

typedef struct {
  int prepares, invokes;
  int n_nodes, n_in, n_out;
  int32_t nodes[8], in[8], out[8];
  bool data_ready;   /* boundary tensors had data pointers at prepare */
  bool fail;         /* invoke fails, saying so in the partition's context */
  tfl_diag *diag;    /* the partition's context, from prepare */
} fake_ctx;

static bool fake_supports(void *ctx, const tfl_graph *g, int node)
{
  (void)ctx;
  return g->nodes[node].op == TFL_OP_RELU;
}

static tfl_status fake_prepare(void *vctx, tfl_graph *g, const tfl_partition *p, void **state)
{
  fake_ctx *c = vctx;
  c->prepares++;
  c->n_nodes = p->n_nodes;
  c->n_in = p->n_inputs;
  c->n_out = p->n_outputs;
  memcpy(c->nodes, p->nodes, sizeof(int32_t) * (size_t)p->n_nodes);
  memcpy(c->in, p->inputs, sizeof(int32_t) * (size_t)p->n_inputs);
  memcpy(c->out, p->outputs, sizeof(int32_t) * (size_t)p->n_outputs);
  c->diag = p->diag;
  c->data_ready = true;
  for (int i = 0; i < p->n_inputs; i++) c->data_ready = c->data_ready && g->tensors[p->inputs[i]].data;
  for (int i = 0; i < p->n_outputs; i++) c->data_ready = c->data_ready && g->tensors[p->outputs[i]].data;
  *state = g;
  return TFL_OK;
}

static tfl_status fake_invoke(void *vctx, void *state)
{
  fake_ctx *c = vctx;
  tfl_graph *g = state;
  c->invokes++;
  if (c->fail) return tfl_fail(c->diag, TFL_ERR_BACKEND, "fake failure %d", c->invokes);
  for (int k = 0; k < c->n_nodes; k++) {
    const tfl_node *n = &g->nodes[c->nodes[k]];
    const tfl_tensor *x = &g->tensors[n->in[0]];
    tfl_tensor *y = &g->tensors[n->out[0]];
    for (size_t i = 0; i < tfl_tensor_count(x); i++) {
      float v = ((const float *)x->data)[i];
      ((float *)y->data)[i] = v > 0 ? v : 0;
    }
  }
  return TFL_OK;
}

static void fake_release(void *ctx, void *state)
{
  (void)ctx;
  (void)state;
}

/* ---- log capture --------------------------------------------------------------- */

static char logbuf[4096];
static int n_warnings;

static void sink(tfl_log_level level, const char *msg, void *user)
{
  (void)user;
  if (level == TFL_LOG_WARNING) n_warnings++;
  size_t k = strlen(logbuf);
  snprintf(logbuf + k, sizeof logbuf - k, "%d:%s\n", (int)level, msg);
}

/* A context whose log lines land in logbuf. */
static void capture(tfl_diag *d)
{
  tfl_diag_init(d);
  d->sink = sink;
  logbuf[0] = 0;
  n_warnings = 0;
}

/* The fallback every interpreter here gets. */
static tfl_delegate *make_cpu(bool reference, int threads)
{
  cpu_delegate_options co = cpu_delegate_defaults();
  co.reference = reference;
  co.threads = threads;
  return cpu_delegate_create(&co);
}

static int count_of(const char *hay, const char *needle)
{
  int n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

/* ---- the graph ------------------------------------------------------------------- */

static tfl_graph *build(void)
{
  static const char *names[N_T] = {"x", "c", "a", "b", "d", "e", "y"};
  tfl_graph *g = calloc(1, sizeof *g);
  g->n_tensors = N_T;
  g->tensors = calloc(N_T, sizeof(tfl_tensor));
  for (int t = 0; t < N_T; t++) {
    tfl_tensor *x = &g->tensors[t];
    x->name = (char *)names[t];
    x->type = TFL_TYPE_FLOAT32;
    x->ndim = 2;
    x->dims[0] = 1;
    x->dims[1] = 4;
    x->producer = -1;
    tfl_tensor_update_bytes(x);
  }
  float *c = tfl_graph_alloc(g, 16);
  memcpy(c, (float[]){1, 1, 1, 2}, 16);
  g->tensors[T_C].data = c;
  g->tensors[T_C].is_const = true;
  g->tensors[T_Y].ndim = 0; /* declared empty: shape inference fills it in */

  static const struct { tfl_op op; int code, a, b, out; } spec[] = {
    {TFL_OP_ADD, 0, T_X, T_C, T_A}, {TFL_OP_RELU, 19, T_A, -1, T_B}, {TFL_OP_RELU, 19, T_B, -1, T_D},
    {TFL_OP_MUL, 18, T_D, T_C, T_E}, {TFL_OP_ADD, 0, T_E, T_X, T_Y},
  };
  g->n_nodes = 5;
  g->nodes = calloc(5, sizeof(tfl_node));
  for (int i = 0; i < 5; i++) {
    tfl_node *n = &g->nodes[i];
    n->op = spec[i].op;
    n->builtin_code = spec[i].code;
    n->version = 1;
    n->n_in = spec[i].b >= 0 ? 2 : 1;
    n->n_out = 1;
    n->in = tfl_graph_alloc(g, 2 * sizeof(int32_t));
    n->out = tfl_graph_alloc(g, sizeof(int32_t));
    n->in[0] = spec[i].a;
    n->in[1] = spec[i].b;
    n->out[0] = spec[i].out;
    g->tensors[spec[i].out].producer = i;
  }
  g->n_inputs = g->n_outputs = 1;
  g->inputs = malloc(sizeof(int32_t));
  g->outputs = malloc(sizeof(int32_t));
  g->inputs[0] = T_X;
  g->outputs[0] = T_Y;
  return g;
}

static void run_and_check(tfl_interpreter *it, const char *what)
{
  static const float x[4] = {-2, -1, 0.5f, 3}, want[4] = {-2, -1, 2, 13};
  tfl_tensor *in = tfl_interpreter_input(it, 0);
  memcpy(in->data, x, sizeof x);
  tfl_status s = tfl_interpreter_invoke(it);
  CHECK(s == TFL_OK, "%s: invoke: %s", what, tfl_interpreter_last_error(it));
  const tfl_tensor *y = tfl_interpreter_output(it, 0);
  CHECK(y->ndim == 2 && y->dims[1] == 4, "%s: output shape not inferred (ndim %d)", what, y->ndim);
  for (int i = 0; i < 4 && s == TFL_OK; i++)
    CHECK(((const float *)y->data)[i] == want[i], "%s: y[%d] = %g, expected %g", what, i,
          (double)((const float *)y->data)[i], (double)want[i]);
}

static void test_partitioned(void)
{
  fake_ctx fc = {0};
  tfl_delegate fake = {.name = "fake", .ctx = &fc, .supports = fake_supports, .prepare = fake_prepare,
                       .invoke = fake_invoke, .release = fake_release};
  tfl_graph *g = build();
  tfl_diag diag;
  capture(&diag);
  tfl_delegate *cpu = make_cpu(false, 1);
  tfl_interp_options o = tfl_interp_defaults();
  o.delegate = &fake;
  o.fallback = cpu;
  o.diag = &diag;
  tfl_interpreter *it = NULL;
  tfl_status s = tfl_interpreter_create(g, &o, &it);
  CHECK(s == TFL_OK, "create: %s", diag.error);
  if (s != TFL_OK) {
    cpu->destroy(cpu);
    tfl_graph_free(g);
    return;
  }
  CHECK(tfl_interpreter_partition_count(it) == 3, "%d partitions, expected 3",
        tfl_interpreter_partition_count(it));
  static const char *want_del[5] = {"cpu", "fake", "fake", "cpu", "cpu"};
  for (int i = 0; i < 5; i++) {
    const char *d = tfl_interpreter_node_delegate(it, i);
    CHECK(d && !strcmp(d, want_del[i]), "node %d on %s, expected %s", i, d ? d : "(none)", want_del[i]);
  }
  CHECK(fc.prepares == 1 && fc.n_nodes == 2 && fc.nodes[0] == 1 && fc.nodes[1] == 2,
        "fake partition: %d prepares, %d nodes", fc.prepares, fc.n_nodes);
  CHECK(fc.n_in == 1 && fc.in[0] == T_A, "fake inputs: %d (first %d), expected {a}", fc.n_in, fc.in[0]);
  CHECK(fc.n_out == 1 && fc.out[0] == T_D, "fake outputs: %d (first %d), expected {d}", fc.n_out, fc.out[0]);
  CHECK(fc.data_ready, "boundary tensors had no data at prepare");

  CHECK(count_of(logbuf, "op code #0 (ADD) cannot be handled by this delegate") == 1,
        "ADD warning not logged exactly once:\n%s", logbuf);
  CHECK(count_of(logbuf, "op code #18 (MUL) cannot be handled by this delegate") == 1,
        "MUL warning not logged exactly once:\n%s", logbuf);
  CHECK(count_of(logbuf, "(RELU)") == 0, "RELU reported as refused:\n%s", logbuf);
  CHECK(count_of(logbuf, "3 partitions: cpu 2 (3 nodes), fake 1 (2 nodes)") == 1 ||
            count_of(logbuf, "3 partitions: fake 1 (2 nodes), cpu 2 (3 nodes)") == 1,
        "partition summary missing:\n%s", logbuf);
  CHECK(n_warnings == 3, "%d warnings (2 refusals + split graph expected):\n%s", n_warnings, logbuf);

  CHECK(tfl_interpreter_arena_bytes(it) > 0, "no arena");
  CHECK(tfl_interpreter_input_by_name(it, "x") == 0, "input by name");
  CHECK(tfl_interpreter_output_by_name(it, "y") == 0, "output by name");
  CHECK(tfl_interpreter_output_by_name(it, "a") == -1, "a is not an output");
  run_and_check(it, "partitioned");
  run_and_check(it, "partitioned, second run");
  CHECK(fc.invokes == 2, "fake invoked %d times, expected 2", fc.invokes);
  tfl_interpreter_free(it);
  cpu->destroy(cpu);
  tfl_graph_free(g);
}

static void test_cpu_only(bool reference, int threads)
{
  tfl_graph *g = build();
  tfl_delegate *cpu = make_cpu(reference, threads);
  tfl_interp_options o = tfl_interp_defaults();
  o.fallback = cpu;
  tfl_diag diag;
  capture(&diag);
  o.diag = &diag;
  tfl_interpreter *it = NULL;
  tfl_status s = tfl_interpreter_create(g, &o, &it);
  CHECK(s == TFL_OK, "create (cpu only): %s", diag.error);
  if (s == TFL_OK) {
    CHECK(tfl_interpreter_partition_count(it) == 1, "cpu only: %d partitions",
          tfl_interpreter_partition_count(it));
    CHECK(n_warnings == 0, "cpu only: warnings:\n%s", logbuf);
    run_and_check(it, reference ? "reference" : "fast");
    tfl_interpreter_free(it);
  }
  cpu->destroy(cpu);
  tfl_graph_free(g);
}

/* A shape the file declares wrongly is an error naming the node and tensor. */
static void test_bad_shape(void)
{
  tfl_graph *g = build();
  g->tensors[T_E].dims[1] = 5;
  tfl_tensor_update_bytes(&g->tensors[T_E]);
  tfl_interpreter *it = NULL;
  tfl_diag diag;
  capture(&diag);
  tfl_delegate *cpu = make_cpu(true, 1);
  tfl_interp_options o = tfl_interp_defaults();
  o.fallback = cpu;
  o.diag = &diag;
  tfl_status s = tfl_interpreter_create(g, &o, &it);
  CHECK(s == TFL_ERR_SHAPE, "bad declared shape: status %d", s);
  CHECK(strstr(diag.error, "node 3 (MUL)") && strstr(diag.error, "[1,5]"),
        "error does not name node and shape: %s", diag.error);
  cpu->destroy(cpu);
  tfl_graph_free(g);
}

/* Without options.diag the interpreter keeps its own context: a delegate's failure,
 * with the interpreter's prefix, is read back with tfl_interpreter_last_error. */
static void test_own_diag(void)
{
  fake_ctx fc = {0};
  tfl_delegate fake = {.name = "fake", .ctx = &fc, .supports = fake_supports, .prepare = fake_prepare,
                       .invoke = fake_invoke, .release = fake_release};
  tfl_graph *g = build();
  tfl_delegate *cpu = make_cpu(false, 1);
  tfl_interp_options o = tfl_interp_defaults();
  o.delegate = &fake;
  o.fallback = cpu;
  tfl_interpreter *it = NULL;
  tfl_status s = tfl_interpreter_create(g, &o, &it);
  CHECK(s == TFL_OK, "create (own diag): %s", it ? tfl_interpreter_last_error(it) : "?");
  if (s == TFL_OK) {
    CHECK(fc.diag != NULL, "partition has no diagnostics context");
    CHECK(tfl_interpreter_last_error(it)[0] == '\0', "error before any failure: %s", tfl_interpreter_last_error(it));
    fc.fail = true;
    s = tfl_interpreter_invoke(it);
    const char *e = tfl_interpreter_last_error(it);
    CHECK(s == TFL_ERR_BACKEND, "failing invoke: status %d", s);
    CHECK(strstr(e, "fake delegate, partition 1") && strstr(e, "fake failure 1"),
          "error does not name delegate, partition and cause: '%s'", e);
    tfl_interpreter_free(it);
  }
  cpu->destroy(cpu);
  tfl_graph_free(g);
}

/* A fallback is required, and must run every node the accelerator leaves: else the
 * error names the first node it cannot run. */
static bool add_only(void *ctx, const tfl_graph *g, int node)
{
  (void)ctx;
  return g->nodes[node].op == TFL_OP_ADD;
}

static void test_fallback_required(void)
{
  fake_ctx fc = {0};
  tfl_delegate fake = {.name = "fake", .ctx = &fc, .supports = fake_supports, .prepare = fake_prepare,
                       .invoke = fake_invoke, .release = fake_release};
  tfl_delegate adds = {.name = "adds", .supports = add_only, .prepare = fake_prepare, .invoke = fake_invoke,
                       .release = fake_release};
  tfl_graph *g = build();
  tfl_diag diag;
  capture(&diag);
  tfl_interp_options o = tfl_interp_defaults();
  o.delegate = &fake;
  o.diag = &diag;
  tfl_interpreter *it = NULL;
  tfl_status s = tfl_interpreter_create(g, &o, &it);
  CHECK(s == TFL_ERR_ARG && !it && strstr(diag.error, "no fallback delegate"), "no fallback: status %d, '%s'", s,
        diag.error);
  o.fallback = &adds;
  s = tfl_interpreter_create(g, &o, &it);
  CHECK(s == TFL_ERR_UNSUPPORTED && !it && strstr(diag.error, "node 3 (MUL)") && strstr(diag.error, "adds"),
        "fallback without MUL: status %d, '%s'", s, diag.error);
  tfl_graph_free(g);
}

int main(void)
{
  test_partitioned();
  test_cpu_only(true, 1);
  test_cpu_only(false, 2);
  test_bad_shape();
  test_own_diag();
  test_fallback_required();
  if (failures) printf("%d failures\n", failures);
  else printf("interpreter: all checks passed\n");
  return failures != 0;
}
