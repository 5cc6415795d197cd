/* tfl_interpreter.c - create = fold -> shapes -> partition -> plan -> arena -> prepare;
 * invoke runs the partitions in order.
 *
 * Partitioning: with an accelerator delegate, every live node is offered to it; runs
 * of consecutive claimed nodes become its partitions and the runs between them go to
 * the fallback delegate the caller hands in (the CPU delegate; the runtime does not
 * include it). Each op the accelerator refuses is
 * logged once, in TensorFlow Lite's words, and so is the partition count, because every
 * boundary costs a copy and a sync.
 */
#include "tfl_interpreter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfl_fused_act.h"
#include "tfl_passes.h"
#include "tfl_planner.h"
#include "tfl_validate.h"

typedef struct {
  tfl_delegate *d;
  tfl_partition part;
  int32_t *nodes, *ins, *outs; /* owned arrays behind part */
  void *state;
  bool prepared;
} interp_part;

struct tfl_interpreter {
  tfl_graph *g;
  tfl_diag *diag;              /* the caller's, or &own_diag */
  tfl_diag own_diag;
  tfl_delegate *fallback;      /* borrowed: runs every node the accelerator does not claim */
  int n_parts;
  interp_part *parts;
  int *node_part;              /* per node: partition index, -1 for dead nodes */
  void *arena;
  size_t arena_bytes;
};

tfl_interp_options tfl_interp_defaults(void)
{
  return (tfl_interp_options){.delegate = NULL, .fallback = NULL, .diag = NULL};
}

/* ---- partitions --------------------------------------------------------------- */

/* Adds partition [nodes of run] for delegate d. */
static tfl_status add_part(tfl_interpreter *it, tfl_delegate *d, const int32_t *nodes, int n)
{
  interp_part *p = &it->parts[it->n_parts];
  memset(p, 0, sizeof *p);
  p->d = d;
  p->nodes = malloc(sizeof(int32_t) * (size_t)n);
  if (!p->nodes) return tfl_fail(it->diag, TFL_ERR_NOMEM, "partition of %d nodes", n);
  memcpy(p->nodes, nodes, sizeof(int32_t) * (size_t)n);
  p->part.n_nodes = n;
  p->part.nodes = p->nodes;
  p->part.diag = it->diag;
  for (int k = 0; k < n; k++) it->node_part[nodes[k]] = it->n_parts;
  it->n_parts++;
  return TFL_OK;
}

/* Boundary tensors of partition pi: inputs are non-constant tensors its nodes read but
 * do not produce; outputs are tensors it produces that another partition reads or that
 * are graph outputs. Each listed once, in first-seen order. */
static tfl_status boundaries(tfl_interpreter *it, int pi, uint8_t *mark)
{
  tfl_graph *g = it->g;
  interp_part *p = &it->parts[pi];
  int cap_in = 0, cap_out = 0;
  for (int k = 0; k < p->part.n_nodes; k++) {
    cap_in += g->nodes[p->nodes[k]].n_in;
    cap_out += g->nodes[p->nodes[k]].n_out;
  }
  p->ins = malloc(sizeof(int32_t) * (size_t)(cap_in ? cap_in : 1));
  p->outs = malloc(sizeof(int32_t) * (size_t)(cap_out ? cap_out : 1));
  if (!p->ins || !p->outs) return tfl_fail(it->diag, TFL_ERR_NOMEM, "partition %d boundaries", pi);
  /* mark: 1 produced inside, 2 listed as input, 4 listed as output */
  memset(mark, 0, (size_t)g->n_tensors);
  for (int k = 0; k < p->part.n_nodes; k++) {
    const tfl_node *n = &g->nodes[p->nodes[k]];
    for (int j = 0; j < n->n_in; j++) {
      int t = n->in[j];
      if (t < 0 || g->tensors[t].is_const || (mark[t] & 3)) continue;
      mark[t] |= 2;
      p->ins[p->part.n_inputs++] = t;
    }
    for (int j = 0; j < n->n_out; j++)
      if (n->out[j] >= 0) mark[n->out[j]] |= 1;
  }
  for (int k = 0; k < p->part.n_nodes; k++) {
    const tfl_node *n = &g->nodes[p->nodes[k]];
    for (int j = 0; j < n->n_out; j++) {
      int t = n->out[j];
      if (t < 0 || (mark[t] & 4)) continue;
      bool outside = false;
      for (int i = 0; i < g->n_outputs && !outside; i++) outside = g->outputs[i] == t;
      for (int ni = 0; ni < g->n_nodes && !outside; ni++) {
        const tfl_node *m = &g->nodes[ni];
        if (m->dead || it->node_part[ni] == pi) continue;
        for (int q = 0; q < m->n_in && !outside; q++) outside = m->in[q] == t;
      }
      if (!outside) continue;
      mark[t] |= 4;
      p->outs[p->part.n_outputs++] = t;
    }
  }
  p->part.inputs = p->ins;
  p->part.outputs = p->outs;
  return TFL_OK;
}

/* Logs "N partitions: gl 1 (70 nodes), cpu 2 (3 nodes)" and the split warning. */
static void log_partitions(const tfl_interpreter *it)
{
  char line[512];
  size_t k = (size_t)snprintf(line, sizeof line, "%d partition%s:", it->n_parts, it->n_parts == 1 ? "" : "s");
  const tfl_delegate *seen[2] = {NULL, NULL};
  int n_seen = 0;
  for (int i = 0; i < it->n_parts; i++) {
    const tfl_delegate *d = it->parts[i].d;
    bool dup = false;
    for (int s = 0; s < n_seen; s++) dup = dup || seen[s] == d;
    if (dup || n_seen == 2) continue;
    seen[n_seen++] = d;
    int parts = 0, nodes = 0;
    for (int j = 0; j < it->n_parts; j++)
      if (it->parts[j].d == d) {
        parts++;
        nodes += it->parts[j].part.n_nodes;
      }
    if (k < sizeof line)
      k += (size_t)snprintf(line + k, sizeof line - k, "%s %s %d (%d node%s)", n_seen > 1 ? "," : "", d->name,
                            parts, nodes, nodes == 1 ? "" : "s");
  }
  tfl_logf(it->diag, TFL_LOG_INFO, "%s", line);
  if (it->n_parts > 1)
    tfl_logf(it->diag, TFL_LOG_WARNING, "the graph is split into %d partitions; every boundary copies tensors and "
            "waits, so split graphs run slowly", it->n_parts);
}

static tfl_status partition(tfl_interpreter *it, tfl_delegate *accel)
{
  tfl_graph *g = it->g;
  int nn = g->n_nodes;
  it->node_part = malloc(sizeof(int) * (size_t)(nn ? nn : 1));
  it->parts = calloc((size_t)(nn ? nn : 1), sizeof *it->parts);
  int32_t *run = malloc(sizeof(int32_t) * (size_t)(nn ? nn : 1));
  bool *claimed = calloc((size_t)(nn ? nn : 1), sizeof *claimed);
  bool *warned = calloc(TFL_OP_COUNT, sizeof *warned);
  uint8_t *mark = malloc((size_t)(g->n_tensors ? g->n_tensors : 1));
  tfl_status st = TFL_OK;
  if (!it->node_part || !it->parts || !run || !claimed || !warned || !mark) {
    st = tfl_fail(it->diag, TFL_ERR_NOMEM, "partitioning %d nodes", nn);
    goto done;
  }
  for (int i = 0; i < nn; i++) {
    it->node_part[i] = -1;
    if (g->nodes[i].dead || !accel) continue;
    claimed[i] = accel->supports(accel->ctx, g, i);
    tfl_op op = g->nodes[i].op;
    if (!claimed[i] && !warned[op]) {
      warned[op] = true;
      tfl_logf(it->diag, TFL_LOG_WARNING, "op code #%d (%s) cannot be handled by this delegate",
              (int)g->nodes[i].builtin_code, tfl_op_name(op));
    }
  }
  int n_run = 0;
  bool run_claimed = false;
  for (int i = 0; i <= nn && st == TFL_OK; i++) {
    bool end = i == nn;
    if (!end && g->nodes[i].dead) continue;
    if (n_run && (end || claimed[i] != run_claimed)) {
      st = add_part(it, run_claimed ? accel : it->fallback, run, n_run);
      n_run = 0;
    }
    if (end) break;
    if (!claimed[i] && !it->fallback->supports(it->fallback->ctx, g, i)) {
      st = tfl_fail(it->diag, TFL_ERR_UNSUPPORTED, "node %d (%s): the fallback delegate (%s) cannot run this op", i,
                    tfl_op_name(g->nodes[i].op), it->fallback->name);
      break;
    }
    run_claimed = claimed[i];
    run[n_run++] = i;
  }
  for (int p = 0; p < it->n_parts && st == TFL_OK; p++) st = boundaries(it, p, mark);
  if (st == TFL_OK) log_partitions(it);
done:
  free(run);
  free(claimed);
  free(warned);
  free(mark);
  return st;
}

/* ---- memory ------------------------------------------------------------------- */

/* Zero state, or the zero point for quantized state, as TFLite resets variables. */
static void reset_variable(tfl_tensor *t)
{
  int zp = t->q.n ? t->q.zero_point[0] : 0;
  if ((t->type == TFL_TYPE_INT8 || t->type == TFL_TYPE_UINT8) && zp) memset(t->data, zp, t->bytes);
  else memset(t->data, 0, t->bytes);
}

/* The delegates' fused reads and writes (tfl_delegate.extra_uses), all partitions. */
static tfl_status collect_extra_uses(tfl_interpreter *it, tfl_extra_use **out, int *n_out)
{
  *out = NULL;
  *n_out = 0;
  int n = 0, cap = 0;
  tfl_extra_use *all = NULL;
  for (int i = 0; i < it->n_parts; i++) {
    interp_part *p = &it->parts[i];
    if (!p->d->extra_uses) continue;
    for (;;) {
      const int got = p->d->extra_uses(p->d->ctx, it->g, &p->part, all ? all + n : NULL, cap - n);
      if (got <= cap - n) {
        n += got;
        break;
      }
      tfl_extra_use *more = realloc(all, sizeof *all * (size_t)(n + got));
      if (!more) {
        free(all);
        return tfl_fail(it->diag, TFL_ERR_NOMEM, "%d fused tensor uses", n + got);
      }
      all = more;
      cap = n + got;
    }
  }
  *out = all;
  *n_out = n;
  return TFL_OK;
}

static tfl_status allocate(tfl_interpreter *it)
{
  tfl_graph *g = it->g;
  bool *planned = calloc((size_t)(g->n_tensors ? g->n_tensors : 1), sizeof *planned);
  if (!planned) return tfl_fail(it->diag, TFL_ERR_NOMEM, "planning %d tensors", g->n_tensors);
  tfl_extra_use *extra = NULL;
  int n_extra = 0;
  tfl_status st = collect_extra_uses(it, &extra, &n_extra);
  if (st == TFL_OK) st = tfl_plan_graph(g, extra, n_extra, planned, &it->arena_bytes, it->diag);
  free(extra);
  if (st == TFL_OK && it->arena_bytes) {
    if (posix_memalign(&it->arena, TFL_ARENA_ALIGN, it->arena_bytes + TFL_ARENA_TAIL)) {
      it->arena = NULL;
      st = tfl_fail(it->diag, TFL_ERR_NOMEM, "arena of %zu bytes", it->arena_bytes);
    } else {
      memset(it->arena, 0, it->arena_bytes + TFL_ARENA_TAIL);
    }
  }
  if (st == TFL_OK)
    for (int t = 0; t < g->n_tensors; t++) {
      if (!planned[t]) continue;
      tfl_tensor *x = &g->tensors[t];
      x->data = (uint8_t *)it->arena + x->arena_offset;
      if (x->is_variable) reset_variable(x);
    }
  free(planned);
  if (st == TFL_OK)
    tfl_logf(it->diag, TFL_LOG_INFO, "arena: %zu bytes for %d tensors", it->arena_bytes, g->n_tensors);
  return st;
}

/* ---- public API --------------------------------------------------------------- */

/* Fold, prune, infer shapes, fold shape arithmetic, validate one graph; with `done` (the
 * main graph of a model with control flow) also, depth first before the graph's own shapes,
 * every subgraph a live node of it runs, so a rule that reads a subgraph's outputs (IF)
 * sees them inferred. */
static tfl_status prepare_graph(tfl_graph *g, uint8_t *done, tfl_diag *diag)
{
  tfl_status st = tfl_pass_fold_constants(g, diag);
  if (st != TFL_OK) return st;
  int lists = tfl_pass_list_update(g, diag);
  if (lists)
    tfl_logf(diag, TFL_LOG_INFO, "%d tensor-list write%s (CONCATENATION of SLICEs at a run-time index) run as "
             "DYNAMIC_UPDATE_SLICE", lists, lists == 1 ? "" : "s");
  int pruned = tfl_pass_prune(g);
  if (pruned)
    tfl_logf(diag, TFL_LOG_INFO, "%d node%s skipped: nothing reads %s outputs", pruned, pruned == 1 ? "" : "s",
             pruned == 1 ? "its" : "their");
  for (int ni = 0; done && ni < g->n_nodes; ni++) {
    const tfl_node *n = &g->nodes[ni];
    if (n->dead || (n->op != TFL_OP_WHILE && n->op != TFL_OP_IF && n->op != TFL_OP_CALL_ONCE)) continue;
    int refs[2] = {n->p.subgraph.a, n->op == TFL_OP_CALL_ONCE ? -1 : n->p.subgraph.b};
    for (int k = 0; k < 2; k++) {
      tfl_graph *sub = tfl_graph_subgraph(g, refs[k]);
      if (!sub || done[refs[k]]) continue; /* a bad index is the loader's error, reported there */
      done[refs[k]] = 1;
      if ((st = prepare_graph(sub, done, diag)) != TFL_OK) return tfl_fail_prefix(diag, st, "subgraph %d", refs[k]);
    }
  }
  /* shape arithmetic needs the inferred shapes, so it is folded node by node as they are
   * inferred; what it folds may leave nodes unread and gives RESHAPEs constant targets,
   * which shape inference then checks */
  int folded = 0;
  if ((st = tfl_infer_shapes_folding(g, diag, &folded)) != TFL_OK) return st;
  if (folded) {
    tfl_logf(diag, TFL_LOG_INFO, "%d node%s of shape arithmetic folded", folded, folded == 1 ? "" : "s");
    tfl_pass_prune(g);
    if ((st = tfl_infer_shapes(g, diag)) != TFL_OK) return st;
  }
  /* before any delegate sees a node: fused activations TFLite ignores read NONE (graphs
   * built in code skip the loader), then the ranges kernels and XNNPACK rely on */
  tfl_fused_act_normalize(g);
  return tfl_validate(g, TFL_VALIDATE_PREPARE, diag);
}

tfl_status tfl_graph_prepare(tfl_graph *g, tfl_diag *diag)
{
  if (g->root || g->n_subgraphs <= 1) return prepare_graph(g, NULL, diag);
  uint8_t *done = calloc((size_t)g->n_subgraphs, 1);
  if (!done) return tfl_fail(diag, TFL_ERR_NOMEM, "%d subgraphs", g->n_subgraphs);
  tfl_status st = prepare_graph(g, done, diag);
  free(done);
  return st;
}

tfl_status tfl_interpreter_create(tfl_graph *g, const tfl_interp_options *opt, tfl_interpreter **out)
{
  *out = NULL;
  tfl_interp_options o = opt ? *opt : tfl_interp_defaults();
  if (!g) return tfl_fail(o.diag, TFL_ERR_ARG, "interpreter: no graph");
  if (!o.fallback) return tfl_fail(o.diag, TFL_ERR_ARG, "interpreter: no fallback delegate (create one with cpu_delegate_create)");
  tfl_interpreter *it = calloc(1, sizeof *it);
  if (!it) return tfl_fail(o.diag, TFL_ERR_NOMEM, "interpreter");
  it->g = g;
  it->fallback = o.fallback;
  tfl_diag_init(&it->own_diag);
  it->diag = o.diag ? o.diag : &it->own_diag;
  tfl_status st = TFL_OK;
  for (int i = 0; i < g->n_inputs && st == TFL_OK; i++)
    if (g->inputs[i] < 0 || g->inputs[i] >= g->n_tensors)
      st = tfl_fail(it->diag, TFL_ERR_FORMAT, "graph input %d is tensor %d (graph has %d)", i, g->inputs[i],
                    g->n_tensors);
  for (int i = 0; i < g->n_outputs && st == TFL_OK; i++)
    if (g->outputs[i] < 0 || g->outputs[i] >= g->n_tensors)
      st = tfl_fail(it->diag, TFL_ERR_FORMAT, "graph output %d is tensor %d (graph has %d)", i, g->outputs[i],
                    g->n_tensors);
  if (st != TFL_OK) goto fail;
  if ((st = tfl_graph_prepare(g, it->diag)) != TFL_OK) goto fail;

  if ((st = partition(it, o.delegate)) != TFL_OK) goto fail;
  if ((st = allocate(it)) != TFL_OK) goto fail;
  for (int i = 0; i < it->n_parts; i++) {
    interp_part *p = &it->parts[i];
    st = p->d->prepare(p->d->ctx, g, &p->part, &p->state);
    if (st != TFL_OK) {
      tfl_fail_prefix(it->diag, st, "%s delegate, partition %d (nodes %d..%d)", p->d->name, i, p->nodes[0],
                       p->nodes[p->part.n_nodes - 1]);
      goto fail;
    }
    p->prepared = true;
  }
  *out = it;
  return TFL_OK;
fail:
  /* an owned context dies with the interpreter: say why before it does */
  if (it->diag == &it->own_diag) tfl_logf(it->diag, TFL_LOG_ERROR, "%s", it->diag->error);
  tfl_interpreter_free(it);
  return st;
}

tfl_status tfl_interpreter_invoke(tfl_interpreter *it)
{
  if (!it) return TFL_ERR_ARG;
  for (int i = 0; i < it->n_parts; i++) {
    interp_part *p = &it->parts[i];
    tfl_status st = p->d->invoke(p->d->ctx, p->state);
    if (st != TFL_OK) return tfl_fail_prefix(it->diag, st, "%s delegate, partition %d", p->d->name, i);
  }
  return TFL_OK;
}

void tfl_interpreter_free(tfl_interpreter *it)
{
  if (!it) return;
  for (int i = 0; i < it->n_parts; i++) {
    interp_part *p = &it->parts[i];
    if (p->prepared) p->d->release(p->d->ctx, p->state);
    free(p->nodes);
    free(p->ins);
    free(p->outs);
  }
  free(it->parts);
  free(it->node_part);
  /* activation pointers would dangle into the freed arena */
  if (it->arena)
    for (int t = 0; t < it->g->n_tensors; t++) {
      tfl_tensor *x = &it->g->tensors[t];
      uint8_t *d = x->data, *a = it->arena;
      if (d >= a && d < a + it->arena_bytes) x->data = NULL;
    }
  free(it->arena);
  free(it);
}

const char *tfl_interpreter_last_error(const tfl_interpreter *it)
{
  return it ? it->diag->error : "";
}

int tfl_interpreter_input_count(const tfl_interpreter *it)
{
  return it ? it->g->n_inputs : 0;
}

int tfl_interpreter_output_count(const tfl_interpreter *it)
{
  return it ? it->g->n_outputs : 0;
}

tfl_tensor *tfl_interpreter_input(tfl_interpreter *it, int i)
{
  if (!it || i < 0 || i >= it->g->n_inputs) return NULL;
  return &it->g->tensors[it->g->inputs[i]];
}

tfl_tensor *tfl_interpreter_output(tfl_interpreter *it, int i)
{
  if (!it || i < 0 || i >= it->g->n_outputs) return NULL;
  return &it->g->tensors[it->g->outputs[i]];
}

static int find_name(const tfl_graph *g, const int32_t *list, int n, const char *name)
{
  if (!name) return -1;
  for (int i = 0; i < n; i++) {
    const char *tn = g->tensors[list[i]].name;
    if (tn && !strcmp(tn, name)) return i;
  }
  return -1;
}

int tfl_interpreter_input_by_name(const tfl_interpreter *it, const char *name)
{
  return it ? find_name(it->g, it->g->inputs, it->g->n_inputs, name) : -1;
}

int tfl_interpreter_output_by_name(const tfl_interpreter *it, const char *name)
{
  return it ? find_name(it->g, it->g->outputs, it->g->n_outputs, name) : -1;
}

const tfl_graph *tfl_interpreter_graph(const tfl_interpreter *it)
{
  return it ? it->g : NULL;
}

size_t tfl_interpreter_arena_bytes(const tfl_interpreter *it)
{
  return it ? it->arena_bytes : 0;
}

int tfl_interpreter_partition_count(const tfl_interpreter *it)
{
  return it ? it->n_parts : 0;
}

const char *tfl_interpreter_node_delegate(const tfl_interpreter *it, int node)
{
  if (!it || node < 0 || node >= it->g->n_nodes || it->node_part[node] < 0) return NULL;
  return it->parts[it->node_part[node]].d->name;
}

/* ---- device tensors ----------------------------------------------------------------- */

/* The partition listing tensor t among its inputs (in) or outputs (!in), -1 if none. */
static int part_with(const tfl_interpreter *it, int t, bool in)
{
  for (int pi = 0; pi < it->n_parts; pi++) {
    const tfl_partition *p = &it->parts[pi].part;
    int n = in ? p->n_inputs : p->n_outputs;
    const int32_t *list = in ? p->inputs : p->outputs;
    for (int k = 0; k < n; k++)
      if (list[k] == t) return pi;
  }
  return -1;
}

tfl_status tfl_interpreter_bind_input(tfl_interpreter *it, int i, const tfl_buffer *image)
{
  if (!it || i < 0 || i >= it->g->n_inputs) return tfl_fail(it ? it->diag : NULL, TFL_ERR_ARG, "bind: no input %d", i);
  int t = it->g->inputs[i], bound = 0;
  const char *name = it->g->tensors[t].name ? it->g->tensors[t].name : "";
  if (image && tfl_buffer_get_kind(image) != TFL_BUFFER_IMAGE)
    return tfl_fail(it->diag, TFL_ERR_ARG, "input %d (%s) binds image buffers, not a buffer of kind %d", i, name,
                    (int)tfl_buffer_get_kind(image));
  if (image && !tfl_buffer_image(image))
    return tfl_fail(it->diag, TFL_ERR_ARG, "input %d (%s): its image buffer has imported no picture", i, name);
  /* every partition reading the input gets it from the device */
  for (int pi = 0; pi < it->n_parts; pi++) {
    interp_part *p = &it->parts[pi];
    bool reads = false;
    for (int k = 0; k < p->part.n_inputs && !reads; k++) reads = p->part.inputs[k] == t;
    if (!reads) continue;
    if (!p->d->bind_input)
      return tfl_fail(it->diag, TFL_ERR_UNSUPPORTED, "input %d (%s) is read by the %s delegate, which takes host memory "
                      "only", i, name, p->d->name);
    if (image && tfl_buffer_owner(image) != p->d)
      return tfl_fail(it->diag, TFL_ERR_ARG, "input %d (%s) is read by the %s delegate; the image buffer is the %s "
                      "delegate's", i, name, p->d->name, tfl_buffer_owner(image)->name);
    tfl_status st = p->d->bind_input(p->d->ctx, p->state, t, image);
    if (st != TFL_OK) return st;
    bound++;
  }
  if (!bound) return tfl_fail(it->diag, TFL_ERR_ARG, "bind: input %d is read by no partition", i);
  return TFL_OK;
}

/* The partition making graph output i into *out, or the error. */
static tfl_status output_part(tfl_interpreter *it, int i, const char *what, interp_part **out)
{
  if (!it || i < 0 || i >= it->g->n_outputs) return tfl_fail(it ? it->diag : NULL, TFL_ERR_ARG, "%s: no output %d", what, i);
  int t = it->g->outputs[i], pi = part_with(it, t, false);
  if (pi < 0) return tfl_fail(it->diag, TFL_ERR_ARG, "%s: output %d is made by no partition", what, i);
  interp_part *p = &it->parts[pi];
  if (!p->d->export_output || !p->d->output_bytes)
    return tfl_fail(it->diag, TFL_ERR_UNSUPPORTED, "%s: output %d (%s) is made by the %s delegate, which exports "
                    "nothing", what, i, it->g->tensors[t].name ? it->g->tensors[t].name : "", p->d->name);
  *out = p;
  return TFL_OK;
}

/* A device buffer is its delegate's alone: the output must be made by that delegate. */
static tfl_status same_owner(tfl_interpreter *it, int i, const interp_part *p, const tfl_delegate *owner)
{
  if (!owner || owner == p->d) return TFL_OK;
  int t = it->g->outputs[i];
  return tfl_fail(it->diag, TFL_ERR_UNSUPPORTED, "export: output %d (%s) is made by the %s delegate, the buffer is the "
                  "%s delegate's", i, it->g->tensors[t].name ? it->g->tensors[t].name : "", p->d->name, owner->name);
}

tfl_status tfl_interpreter_output_bytes(tfl_interpreter *it, int i, const tfl_export *e, const tfl_delegate *owner,
                                        size_t *need)
{
  interp_part *p = NULL;
  tfl_status st = output_part(it, i, "output bytes", &p);
  if (st != TFL_OK || (st = same_owner(it, i, p, owner)) != TFL_OK) return st;
  return p->d->output_bytes(p->d->ctx, p->state, it->g->outputs[i], e, need);
}

tfl_status tfl_interpreter_export_output(tfl_interpreter *it, int i, const tfl_export *e, tfl_buffer *dst)
{
  interp_part *p = NULL;
  tfl_status st = output_part(it, i, "export", &p);
  if (st != TFL_OK) return st;
  if (!e || !dst) return tfl_fail(it->diag, TFL_ERR_ARG, "export: output %d with no %s", i, e ? "buffer" : "export");
  if ((st = same_owner(it, i, p, tfl_buffer_owner(dst))) != TFL_OK) return st;
  return p->d->export_output(p->d->ctx, p->state, it->g->outputs[i], e, dst);
}

tfl_status tfl_interpreter_set_output_host(tfl_interpreter *it, int i, bool host)
{
  if (!it || i < 0 || i >= it->g->n_outputs)
    return tfl_fail(it ? it->diag : NULL, TFL_ERR_ARG, "output %d: no such output", i);
  int t = it->g->outputs[i], pi = part_with(it, t, false);
  if (pi < 0) return tfl_fail(it->diag, TFL_ERR_ARG, "output %d is made by no partition", i);
  interp_part *p = &it->parts[pi];
  if (!p->d->set_output_host) {
    if (host) return TFL_OK; /* host memory is all it has */
    return tfl_fail(it->diag, TFL_ERR_UNSUPPORTED, "output %d is made by the %s delegate, which keeps outputs in host "
                    "memory", i, p->d->name);
  }
  return p->d->set_output_host(p->d->ctx, p->state, t, host);
}

void tfl_interpreter_set_outputs_host(tfl_interpreter *it, bool host)
{
  for (int i = 0; it && i < it->g->n_outputs; i++) {
    int pi = part_with(it, it->g->outputs[i], false);
    if (pi < 0 || !it->parts[pi].d->set_output_host) continue;
    /* an output another partition reads must come back: refused, and that is fine */
    interp_part *p = &it->parts[pi];
    (void)p->d->set_output_host(p->d->ctx, p->state, it->g->outputs[i], host);
  }
}
