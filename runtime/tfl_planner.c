/* tfl_planner.c - see tfl_planner.h */
#include "tfl_planner.h"

#include <stdint.h>
#include <stdlib.h>

/* A sort key carries what the comparison needs, so qsort needs no shared pointer
 * (interpreters are planned concurrently on several threads). */
typedef struct {
  size_t size;
  int first;
  int index;
} plan_key;

/* Largest first; ties by earlier start, then index, so plans are reproducible. */
static int by_size_desc(const void *a, const void *b)
{
  const plan_key *x = a, *y = b;
  if (x->size != y->size) return x->size > y->size ? -1 : 1;
  if (x->first != y->first) return x->first < y->first ? -1 : 1;
  return x->index < y->index ? -1 : (x->index > y->index);
}

static size_t align_up(size_t v, size_t a)
{
  return (v + a - 1) & ~(a - 1);
}

size_t tfl_plan_offsets(const tfl_plan_item *items, int n, size_t align, size_t *offsets, tfl_diag *diag)
{
  if (n <= 0) return 0;
  if (align == 0 || (align & (align - 1))) align = TFL_ARENA_ALIGN;
  plan_key *keys = malloc(sizeof *keys * (size_t)n);
  int *order = malloc(sizeof(int) * (size_t)n);
  int *placed = malloc(sizeof(int) * (size_t)n); /* item indices sorted by offset */
  if (!keys || !order || !placed) {
    free(keys);
    free(order);
    free(placed);
    tfl_fail(diag, TFL_ERR_NOMEM, "planner: %d tensors", n);
    return SIZE_MAX;
  }
  int n_order = 0;
  for (int i = 0; i < n; i++) {
    offsets[i] = 0;
    if (items[i].size) keys[n_order++] = (plan_key){items[i].size, items[i].first, i};
  }
  qsort(keys, (size_t)n_order, sizeof *keys, by_size_desc);
  for (int k = 0; k < n_order; k++) order[k] = keys[k].index;
  free(keys);

  size_t arena = 0;
  int n_placed = 0;
  for (int k = 0; k < n_order; k++) {
    const tfl_plan_item *it = &items[order[k]];
    size_t size = align_up(it->size, align), at = 0;
    int pos = n_placed; /* insertion point in `placed` */
    for (int j = 0; j < n_placed; j++) {
      const tfl_plan_item *p = &items[placed[j]];
      size_t po = offsets[placed[j]];
      if (po >= at + size) {
        /* a gap before p: but keep scanning only while live neighbours might collide */
        if (p->first <= it->last && it->first <= p->last) break;
        continue;
      }
      if (p->last < it->first || it->last < p->first) continue; /* never alive together */
      size_t end = align_up(po + p->size, align);
      if (end > at) at = end;
    }
    offsets[order[k]] = at;
    for (int j = 0; j < n_placed; j++)
      if (offsets[placed[j]] > at) {
        pos = j;
        break;
      }
    for (int j = n_placed; j > pos; j--) placed[j] = placed[j - 1];
    placed[pos] = order[k];
    n_placed++;
    if (at + it->size > arena) arena = at + it->size;
  }
  free(order);
  free(placed);
  return align_up(arena, align);
}

/* RESHAPE/SQUEEZE output that may share its input's bytes: the input is a planned
 * activation of the same byte size and neither is a graph input or variable (those
 * are written from outside at times the lifetimes do not show). */
static int alias_source(const tfl_graph *g, const tfl_node *n, const bool *planned, const bool *pinned)
{
  if (n->op != TFL_OP_RESHAPE && n->op != TFL_OP_SQUEEZE) return -1;
  if (n->n_in < 1 || n->n_out != 1 || n->in[0] < 0 || n->out[0] < 0) return -1;
  int x = n->in[0], y = n->out[0];
  if (!planned[x] || !planned[y] || pinned[x] || pinned[y]) return -1;
  if (g->tensors[x].bytes != g->tensors[y].bytes) return -1;
  return x;
}

tfl_status tfl_plan_graph(tfl_graph *g, const tfl_extra_use *extra, int n_extra, bool *planned,
                          size_t *arena_bytes, tfl_diag *diag)
{
  int nt = g->n_tensors, end = g->n_nodes + 1;
  tfl_status st = TFL_OK;
  tfl_plan_item *items = calloc((size_t)(nt ? nt : 1), sizeof *items);
  size_t *off = calloc((size_t)(nt ? nt : 1), sizeof *off);
  int *root = malloc(sizeof(int) * (size_t)(nt ? nt : 1));
  bool *pinned = calloc((size_t)(nt ? nt : 1), sizeof *pinned);
  if (!items || !off || !root || !pinned) {
    st = tfl_fail(diag, TFL_ERR_NOMEM, "planner: %d tensors", nt);
    goto done;
  }
  for (int t = 0; t < nt; t++) {
    planned[t] = false;
    root[t] = t;
    items[t].first = INT32_MAX;
    items[t].last = -1;
  }
#define TOUCH(t, step)                                                                              \
  do {                                                                                              \
    tfl_tensor *T_ = &g->tensors[t];                                                                \
    if (!T_->is_const && T_->bytes > 0) {                                                           \
      planned[t] = true;                                                                            \
      if ((step) < items[t].first) items[t].first = (step);                                         \
      if ((step) > items[t].last) items[t].last = (step);                                           \
    }                                                                                               \
  } while (0)
  /* A subgraph's inputs (g->root set: WHILE, IF and CALL_ONCE run it) live the whole run, as
   * TensorFlow Lite's arena planner keeps every graph input: WHILE writes the body's inputs
   * from its outputs one by one after the body ran (control_ops.c), so an output placed on
   * the bytes of an input that died early would be overwritten before it is read. The main
   * graph's inputs are written before each invoke only and may die at their last read. */
  for (int i = 0; i < g->n_inputs; i++)
    if (g->inputs[i] >= 0 && g->inputs[i] < nt) {
      TOUCH(g->inputs[i], 0);
      if (g->root) TOUCH(g->inputs[i], end);
      pinned[g->inputs[i]] = true;
    }
  for (int ni = 0; ni < g->n_nodes; ni++) {
    const tfl_node *n = &g->nodes[ni];
    if (n->dead) continue;
    for (int j = 0; j < n->n_in; j++)
      if (n->in[j] >= 0 && n->in[j] < nt) TOUCH(n->in[j], ni + 1);
    for (int j = 0; j < n->n_out; j++)
      if (n->out[j] >= 0 && n->out[j] < nt) TOUCH(n->out[j], ni + 1);
  }
  for (int i = 0; i < g->n_outputs; i++)
    if (g->outputs[i] >= 0 && g->outputs[i] < nt) TOUCH(g->outputs[i], end);
  /* fused reads and writes: only tensors some node touches anyway */
  for (int k = 0; k < n_extra; k++) {
    const int t = extra[k].tensor, ni = extra[k].node;
    if (t >= 0 && t < nt && ni >= 0 && ni < g->n_nodes && planned[t]) TOUCH(t, ni + 1);
  }
#undef TOUCH
  for (int t = 0; t < nt; t++) {
    if (!planned[t]) continue;
    if (g->tensors[t].is_variable) {
      items[t].first = 0;
      items[t].last = end;
      pinned[t] = true;
    }
    items[t].size = g->tensors[t].bytes;
  }
  /* aliases: the output takes no space of its own; the root lives until its last alias dies */
  for (int ni = 0; ni < g->n_nodes; ni++) {
    const tfl_node *n = &g->nodes[ni];
    if (n->dead) continue;
    int x = alias_source(g, n, planned, pinned);
    if (x < 0) continue;
    int y = n->out[0], r = root[x];
    root[y] = r;
    if (items[y].last > items[r].last) items[r].last = items[y].last;
    items[y].size = 0;
  }
  size_t arena = tfl_plan_offsets(items, nt, TFL_ARENA_ALIGN, off, diag);
  if (arena == SIZE_MAX) {
    st = TFL_ERR_NOMEM;
    goto done;
  }
  for (int t = 0; t < nt; t++)
    if (planned[t]) g->tensors[t].arena_offset = off[root[t]];
  *arena_bytes = arena;
done:
  free(items);
  free(off);
  free(root);
  free(pinned);
  return st;
}
