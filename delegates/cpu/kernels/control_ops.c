/* control_ops.c - WHILE, IF and CALL_ONCE: nodes that run other subgraphs of the model
 * (tfl_graph.subgraphs), as TensorFlow Lite's while.cc, if.cc and call_once.cc do.
 *
 * prepare gives each subgraph the node runs an interpreter of its own on a CPU delegate of
 * its own (reference kernels, one thread), so a subgraph with control flow of its own
 * prepares its nodes' subgraphs in turn; every tensor lives in that interpreter's arena,
 * where a subgraph's inputs keep their bytes for the whole run (tfl_planner.c): eval_while
 * writes the body's inputs while later body outputs are still to be read.
 * eval only copies bytes between the node's tensors and the subgraphs' inputs and outputs
 * and invokes them: no allocation. The loader has checked the subgraphs' input and output
 * counts and types against the node (tfl_loader.c); prepare checks the shapes, which must
 * match exactly: memory is planned statically, so a body that changes a loop tensor's shape
 * (TFLite's dynamic case) is refused. Every type the runtime holds passes (bytes are
 * copied, quantization is not touched), as in TFLite.
 *
 * WHILE: cond(state) false: done; else state = body(state), in TFLite's order of copies
 * (eval_while), so even a body whose outputs are its own inputs swapped gives TFLite's
 * result. A loop that never ends is the model's, as in TFLite.
 * IF: input 0 (bool, one element) picks the then or else subgraph, which gets the other
 * inputs; its outputs are copied out. CALL_ONCE: the init subgraph runs at the first eval
 * only, for the life of the interpreter, however many CALL_ONCE nodes name it (TFLite keys
 * this by the subgraph).
 *
 * Nodes that run the same subgraph share its interpreter (tfl_graph.runner): nodes run one
 * at a time, and the shapes, which prepare checks against each node, are the subgraph's.
 */
#include "kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cpu_delegate.h"
#include "../../../runtime/tfl_interpreter.h"
#include "conv_common.h"

/* What runs one subgraph: an interpreter on a CPU delegate of its own. Kept in the
 * subgraph (tfl_graph.runner) and shared by the nodes that run it. */
typedef struct {
  tfl_delegate *cpu;
  tfl_interpreter *it;
  bool init_done;        /* CALL_ONCE: it ran as an init subgraph (once per interpreter, as
                            TFLite keys it by the subgraph, whichever node asks) */
} runner;

typedef struct {
  tfl_graph *g;          /* the subgraph, whose runner this holds (one of runner_users) */
  tfl_interpreter *it;
} sub_run;

typedef struct {
  sub_run a, b;          /* WHILE: cond, body; IF: then, else; CALL_ONCE: init */
} control_state;

static void runner_free(runner *r)
{
  if (!r) return;
  tfl_interpreter_free(r->it);
  if (r->cpu) r->cpu->destroy(r->cpu);
  free(r);
}

static void sub_close(sub_run *r)
{
  if (r->g && --r->g->runner_users == 0) {
    runner_free(r->g->runner);
    r->g->runner = NULL;
  }
  memset(r, 0, sizeof *r);
}

static void release(void *state)
{
  control_state *s = state;
  if (!s) return;
  sub_close(&s->a);
  sub_close(&s->b);
  free(s);
}

static void shape_text(const tfl_tensor *t, char *buf, size_t size)
{
  size_t k = (size_t)snprintf(buf, size, "[");
  for (int d = 0; d < t->ndim && k < size; d++)
    k += (size_t)snprintf(buf + k, size - k, "%s%d", d ? "," : "", t->dims[d]);
  if (k < size) snprintf(buf + k, size - k, "]");
}

static bool same_shape(const tfl_tensor *x, const tfl_tensor *y)
{
  return x->ndim == y->ndim && !memcmp(x->dims, y->dims, sizeof(int32_t) * (size_t)x->ndim) && x->bytes == y->bytes;
}

/* Subgraph `index` (its `role` in the node) with its runner: the one another node made, or
 * a new interpreter on a CPU delegate of its own (reference kernels, one thread), whose
 * prepare prepares the subgraph's own control nodes in turn. */
static tfl_status sub_open(tfl_graph *g, const tfl_node *n, int index, const char *role, sub_run *r, tfl_diag *diag)
{
  tfl_graph *sub = tfl_graph_subgraph(g, index);
  if (!sub)
    return CPU_NODE_ERR(diag, TFL_ERR_FORMAT, g, n, "%s subgraph %d is not in the model", role, index);
  if (!sub->runner) {
    if (sub->runner_users)
      /* its runner is being made further up this chain of prepares: the loader refuses
       * such recursion, a graph built in code may still have it */
      return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s subgraph %d runs itself (recursive control flow)",
                          role, index);
    runner *run = calloc(1, sizeof *run);
    if (!run) return CPU_NODE_ERR(diag, TFL_ERR_NOMEM, g, n, "runner of %s subgraph %d", role, index);
    cpu_delegate_options co = cpu_delegate_defaults();
    co.reference = true;
    co.threads = 1;
    co.diag = diag;
    run->cpu = cpu_delegate_create(&co);
    if (!run->cpu) {
      free(run);
      return CPU_NODE_ERR(diag, TFL_ERR_NOMEM, g, n, "CPU delegate for %s subgraph %d", role, index);
    }
    tfl_interp_options o = tfl_interp_defaults();
    o.fallback = run->cpu;
    o.diag = diag;
    sub->runner_users = 1; /* marks the prepare under way (see above) */
    tfl_status st = tfl_interpreter_create(sub, &o, &run->it);
    sub->runner_users = 0;
    if (st != TFL_OK) {
      runner_free(run);
      return tfl_fail_prefix(diag, st, "node %d (%s): %s subgraph %d", cpu_node_index(g, n), tfl_op_name(n->op),
                             role, index);
    }
    sub->runner = run;
  }
  sub->runner_users++;
  r->g = sub;
  r->it = ((runner *)sub->runner)->it;
  return TFL_OK;
}

/* Tensor x of the node and tensor y of subgraph r (`what` i) hold the same bytes. */
static tfl_status check_pair(const tfl_graph *g, const tfl_node *n, const tfl_tensor *x, const char *node_what,
                             const sub_run *r, const char *role, const tfl_tensor *y, const char *sub_what, int i,
                             tfl_diag *diag)
{
  char a[96], b[96];
  if (!x || !y) return CPU_NODE_ERR(diag, TFL_ERR_FORMAT, g, n, "%s %d has no tensor", node_what, i);
  if (x->type != y->type)
    return CPU_NODE_ERR(diag, TFL_ERR_FORMAT, g, n, "%s %d is %s, %s subgraph %d's %s %d is %s", node_what, i,
                        tfl_type_name(x->type), role, r->g->index, sub_what, i, tfl_type_name(y->type));
  if (tfl_type_size(x->type) == 0)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s %d: type %s", node_what, i, tfl_type_name(x->type));
  if (!same_shape(x, y)) {
    shape_text(x, a, sizeof a);
    shape_text(y, b, sizeof b);
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s %d has shape %s, %s subgraph %d's %s %d %s (shapes that "
                        "change at run time are not supported: memory is planned once)", node_what, i, a, role,
                        r->g->index, sub_what, i, b);
  }
  if ((!x->data && x->bytes) || (!y->data && y->bytes))
    return CPU_NODE_ERR(diag, TFL_ERR_ARG, g, n, "%s %d: no memory", node_what, i);
  return TFL_OK;
}

static tfl_tensor *sub_in(const sub_run *r, int i)
{
  return &r->g->tensors[r->g->inputs[i]];
}

static tfl_tensor *sub_out(const sub_run *r, int i)
{
  return &r->g->tensors[r->g->outputs[i]];
}

static void copy_bytes(const tfl_tensor *dst, const tfl_tensor *src)
{
  if (dst->data != src->data && dst->bytes) memmove(dst->data, src->data, dst->bytes);
}

static tfl_status prepare_while(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  control_state *s = calloc(1, sizeof *s);
  if (!s) return CPU_NODE_ERR(diag, TFL_ERR_NOMEM, g, n, "%zu-byte state", sizeof *s);
  *state = s;
  tfl_status st;
  if ((st = sub_open(g, n, n->p.subgraph.a, "cond", &s->a, diag)) ||
      (st = sub_open(g, n, n->p.subgraph.b, "body", &s->b, diag)))
    return st;
  const tfl_graph *c = s->a.g, *b = s->b.g;
  if (n->n_out != n->n_in || c->n_inputs != n->n_in || b->n_inputs != n->n_in || b->n_outputs != n->n_in ||
      c->n_outputs != 1)
    return CPU_NODE_ERR(diag, TFL_ERR_FORMAT, g, n, "%d inputs, %d outputs; cond %d -> %d, body %d -> %d", n->n_in,
                        n->n_out, c->n_inputs, c->n_outputs, b->n_inputs, b->n_outputs);
  for (int i = 0; i < n->n_in; i++) {
    const tfl_tensor *x = cpu_in(g, n, i), *y = cpu_out(g, n, i);
    if ((st = check_pair(g, n, x, "input", &s->a, "cond", sub_in(&s->a, i), "input", i, diag)) ||
        (st = check_pair(g, n, x, "input", &s->b, "body", sub_in(&s->b, i), "input", i, diag)) ||
        (st = check_pair(g, n, y, "output", &s->b, "body", sub_out(&s->b, i), "output", i, diag)) ||
        (st = check_pair(g, n, y, "output", &s->b, "body", sub_in(&s->b, i), "input", i, diag)))
      return st;
  }
  /* TFLite's rule: a BOOL scalar or [1] */
  const tfl_tensor *flag = sub_out(&s->a, 0);
  if (flag->type != TFL_TYPE_BOOL || flag->ndim > 1 || (flag->ndim == 1 && flag->dims[0] != 1) || !flag->data) {
    char f[96];
    shape_text(flag, f, sizeof f);
    return CPU_NODE_ERR(diag, TFL_ERR_FORMAT, g, n, "cond subgraph %d's output is %s %s, expected BOOL [] or [1]",
                        c->index, tfl_type_name(flag->type), f);
  }
  return TFL_OK;
}

static tfl_status eval_while(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  control_state *s = state;
  (void)ctx;
  const sub_run *c = &s->a, *b = &s->b;
  const bool *flag = sub_out(c, 0)->data;
  bool body_ran = false;
  /* TFLite's static order, step for step: the state lives in the body's inputs between
   * iterations, and its outputs are copied onto them in input order. Where a body output IS
   * one of its inputs (a value passed through, or two swapped), an earlier copy overwrites
   * what a later one reads, exactly as in TFLite. */
  for (int i = 0; i < n->n_in; i++) copy_bytes(sub_in(c, i), cpu_in(g, n, i));
  for (;;) {
    tfl_status st = tfl_interpreter_invoke(c->it);
    if (st != TFL_OK)
      return tfl_fail_prefix(diag, st, "node %d (WHILE): cond subgraph %d", cpu_node_index(g, n), c->g->index);
    if (!*flag) break;
    for (int i = 0; i < n->n_in; i++) copy_bytes(sub_in(b, i), body_ran ? sub_out(b, i) : cpu_in(g, n, i));
    st = tfl_interpreter_invoke(b->it);
    if (st != TFL_OK)
      return tfl_fail_prefix(diag, st, "node %d (WHILE): body subgraph %d", cpu_node_index(g, n), b->g->index);
    body_ran = true;
    for (int i = 0; i < n->n_in; i++) copy_bytes(sub_in(c, i), sub_out(b, i));
  }
  for (int i = 0; i < n->n_in; i++) copy_bytes(cpu_out(g, n, i), body_ran ? sub_out(b, i) : cpu_in(g, n, i));
  return TFL_OK;
}

static tfl_status prepare_if(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  control_state *s = calloc(1, sizeof *s);
  if (!s) return CPU_NODE_ERR(diag, TFL_ERR_NOMEM, g, n, "%zu-byte state", sizeof *s);
  *state = s;
  const tfl_tensor *p = cpu_in(g, n, 0);
  tfl_status st;
  if ((st = cpu_check_tensor(g, n, p, "predicate", -1, diag))) return st;
  if (p->type != TFL_TYPE_BOOL || tfl_tensor_count(p) != 1)
    return CPU_NODE_ERR(diag, TFL_ERR_FORMAT, g, n, "predicate is %s of %zu elements, expected one BOOL",
                        tfl_type_name(p->type), tfl_tensor_count(p));
  if ((st = sub_open(g, n, n->p.subgraph.a, "then", &s->a, diag)) ||
      (st = sub_open(g, n, n->p.subgraph.b, "else", &s->b, diag)))
    return st;
  const sub_run *br[2] = {&s->a, &s->b};
  const char *role[2] = {"then", "else"};
  for (int k = 0; k < 2; k++) {
    if (br[k]->g->n_inputs != n->n_in - 1 || br[k]->g->n_outputs != n->n_out)
      return CPU_NODE_ERR(diag, TFL_ERR_FORMAT, g, n, "%d inputs, %d outputs; %s subgraph %d: %d -> %d", n->n_in,
                          n->n_out, role[k], br[k]->g->index, br[k]->g->n_inputs, br[k]->g->n_outputs);
    for (int i = 0; i + 1 < n->n_in; i++)
      if ((st = check_pair(g, n, cpu_in(g, n, i + 1), "input", br[k], role[k], sub_in(br[k], i), "input", i, diag)))
        return st;
    for (int i = 0; i < n->n_out; i++)
      if ((st = check_pair(g, n, cpu_out(g, n, i), "output", br[k], role[k], sub_out(br[k], i), "output", i, diag)))
        return st;
  }
  return TFL_OK;
}

static tfl_status eval_if(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  control_state *s = state;
  (void)ctx;
  const bool *p = cpu_in(g, n, 0)->data;
  const sub_run *r = *p ? &s->a : &s->b;
  for (int i = 0; i + 1 < n->n_in; i++) copy_bytes(sub_in(r, i), cpu_in(g, n, i + 1));
  tfl_status st = tfl_interpreter_invoke(r->it);
  if (st != TFL_OK)
    return tfl_fail_prefix(diag, st, "node %d (IF): %s subgraph %d", cpu_node_index(g, n), *p ? "then" : "else",
                           r->g->index);
  for (int i = 0; i < n->n_out; i++) copy_bytes(cpu_out(g, n, i), sub_out(r, i));
  return TFL_OK;
}

static tfl_status prepare_call_once(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  control_state *s = calloc(1, sizeof *s);
  if (!s) return CPU_NODE_ERR(diag, TFL_ERR_NOMEM, g, n, "%zu-byte state", sizeof *s);
  *state = s;
  tfl_status st = sub_open(g, n, n->p.subgraph.a, "init", &s->a, diag);
  if (st != TFL_OK) return st;
  if (s->a.g->n_inputs || s->a.g->n_outputs)
    return CPU_NODE_ERR(diag, TFL_ERR_FORMAT, g, n, "init subgraph %d has %d inputs and %d outputs, expected none",
                        s->a.g->index, s->a.g->n_inputs, s->a.g->n_outputs);
  return TFL_OK;
}

static tfl_status eval_call_once(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  control_state *s = state;
  runner *run = s->a.g->runner;
  (void)ctx;
  if (run->init_done) return TFL_OK;
  tfl_status st = tfl_interpreter_invoke(s->a.it);
  if (st != TFL_OK)
    return tfl_fail_prefix(diag, st, "node %d (CALL_ONCE): init subgraph %d", cpu_node_index(g, n), s->a.g->index);
  run->init_done = true;
  return TFL_OK;
}

const cpu_kernel cpu_k_while = {prepare_while, eval_while, release, CPU_TYPES_ANY, 0};
const cpu_kernel cpu_k_if = {prepare_if, eval_if, release, CPU_TYPES_ANY, 0};
const cpu_kernel cpu_k_call_once = {prepare_call_once, eval_call_once, release, CPU_TYPES_ANY, 0};
