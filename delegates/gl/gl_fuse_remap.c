/* gl_fuse_remap.c - reshapes and concatenations folded into the producers' writes.
 *
 * A detector's heads reshape each convolution output to [1, N, K] and concatenate
 * them: a dispatch per reshape and per concatenation that only moves data. Here each
 * producer writes its elements straight to where they end up: a reshape keeps the
 * row-major (dense) index, a concatenation along an axis maps dense index L of input k
 * to (L / A) * B + ADD + L % A (A, B: the input's and the output's extent of the axis
 * times everything inside it; ADD: the offset of input k along the axis, times the
 * inside). The producer's store_out scatters its four lanes through those steps
 * (gl_emit.c), so the destination must hold 32-bit lanes (any arena but halves).
 * A reshape or concatenation goes only when every producer chain into it is folded. */
#include <stdlib.h>
#include <string.h>

#include "gl_plan_int.h"

typedef struct {
  int dest;                   /* root tensor written at the end, -1: no chain */
  int n_steps;
  long a[GL_REMAP_STEPS], b[GL_REMAP_STEPS], add[GL_REMAP_STEPS];
  int passed[GL_REMAP_STEPS]; /* reshape and concatenation groups on the way */
  int n_passed;
} chain;

static int group_of_node(const planner *p, int node)
{
  for (int gi = 0; gi < p->n_groups; gi++)
    if (p->groups[gi].node == node) return gi;
  return -1;
}

/* Readers of tensor t or its aliases in the partition; *node: the last one seen. */
static int readers(const planner *p, int t, int *node)
{
  const tfl_graph *g = p->g;
  int n = 0;
  for (int u = 0; u < g->n_tensors; u++) {
    if (gl_plan_root(p, u) != t) continue;
    for (int k = 0; k < p->part->n_nodes; k++) {
      const tfl_node *c = &g->nodes[p->part->nodes[k]];
      for (int j = 0; j < c->n_in; j++)
        if (c->in[j] == u) *node = p->part->nodes[k], n++;
    }
  }
  return n;
}

static bool leaves(const planner *p, int t)
{
  for (int u = 0; u < p->g->n_tensors; u++)
    if (gl_plan_root(p, u) == t && p->is_out[u]) return true;
  return false;
}

static bool layout_op(const planner *p, int gi)
{
  const group *G = &p->groups[gi];
  tfl_op op = p->g->nodes[G->node].op;
  return gl_group_dispatched(G) && !G->n_epi && !G->n_chain &&
         (op == TFL_OP_RESHAPE || op == TFL_OP_SQUEEZE || op == TFL_OP_CONCATENATION); /* its fused activation is
                                                                                 ignored, as TFLite does */
}

/* Follows the producer group's output through reshapes and concatenations. */
static chain follow(const planner *p, int gi)
{
  const tfl_graph *g = p->g;
  chain c = {.dest = -1};
  int cur = gl_plan_root(p, p->groups[gi].out);
  for (;;) {
    int r = -1;
    if (leaves(p, cur) || readers(p, cur, &r) != 1) break;
    int rg = group_of_node(p, r);
    if (rg < 0 || !layout_op(p, rg) || c.n_passed == GL_REMAP_STEPS) break;
    const tfl_node *n = &g->nodes[r];
    if (n->op == TFL_OP_CONCATENATION) {
      const tfl_tensor *y = &g->tensors[n->out[0]];
      int axis = n->p.concat.axis < 0 ? n->p.concat.axis + y->ndim : n->p.concat.axis;
      long inner = 1, before = 0;
      for (int d = axis + 1; d < y->ndim; d++) inner *= y->dims[d];
      int k = 0, hits = 0;
      for (int j = 0; j < n->n_in; j++)
        if (gl_plan_root(p, n->in[j]) == cur) k = j, hits++;
      if (hits != 1) break;
      for (int j = 0; j < k; j++) before += g->tensors[n->in[j]].dims[axis];
      c.a[c.n_steps] = g->tensors[n->in[k]].dims[axis] * inner;
      c.b[c.n_steps] = y->dims[axis] * inner;
      c.add[c.n_steps++] = before * inner;
    }
    c.passed[c.n_passed++] = rg;
    cur = gl_plan_root(p, n->out[0]);
  }
  if (c.n_passed) c.dest = cur;
  return c;
}

/* The destination takes scattered lanes: no reader in the partition may see its
 * padding lanes (never written), and it must not be an input. */
static bool dest_ok(const planner *p, int t)
{
  gl_shape s;
  gl_shape_of(&p->g->tensors[t], &s);
  int r = -1;
  for (int i = 0; i < p->part->n_inputs; i++)
    if (gl_plan_root(p, p->part->inputs[i]) == t) return false;
  return s.c % 4 == 0 || readers(p, t, &r) == 0;
}

/* How many producer chains would pass layout group q if all were folded: one per input,
 * or per chain into the layout op producing that input. */
static int leaves_into(const planner *p, int q, int depth)
{
  const tfl_node *n = &p->g->nodes[p->groups[q].node];
  int k_in = n->op == TFL_OP_CONCATENATION ? n->n_in : 1, total = 0;
  for (int k = 0; k < k_in; k++) {
    int r = gl_plan_root(p, n->in[k]), pg = p->group_of[r];
    total += pg >= 0 && depth < GL_REMAP_STEPS && layout_op(p, pg) && p->groups[pg].out == r ? leaves_into(p, pg, depth + 1) : 1;
  }
  return total;
}

void gl_fuse_remap(planner *p, gl_plan *plan)
{
  if (p->o.fp16 && p->o.tune.half_activations) return; /* scattered lanes need 32-bit storage */
  int n = p->n_groups;
  chain *cs = calloc((size_t)n + 1, sizeof *cs);
  int *cover = calloc((size_t)n + 1, sizeof(int));
  if (!cs || !cover) { /* an optimization: without memory, none */
    free(cs);
    free(cover);
    return;
  }
  for (int gi = 0; gi < n; gi++) {
    const group *G = &p->groups[gi];
    const tfl_node *nd = &p->g->nodes[G->node];
    cs[gi].dest = -1;
    if (!gl_group_dispatched(G) || layout_op(p, gi) || G->n_chain || nd->n_out != 1 ||
        gl_op_info_of(nd->op)->kind != GL_KIND_GEN)
      continue;
    cs[gi] = follow(p, gi);
    if (cs[gi].dest >= 0 && !dest_ok(p, cs[gi].dest)) cs[gi].dest = -1;
  }
  /* a concatenation goes only if all its inputs arrive by folded chains: drop chains
   * through partly covered ones until none is left */
  for (bool changed = true; changed;) {
    changed = false;
    memset(cover, 0, sizeof(int) * (size_t)n);
    for (int gi = 0; gi < n; gi++)
      for (int k = 0; cs[gi].dest >= 0 && k < cs[gi].n_passed; k++) cover[cs[gi].passed[k]]++;
    for (int gi = 0; gi < n; gi++)
      for (int k = 0; cs[gi].dest >= 0 && k < cs[gi].n_passed; k++) {
        int q = cs[gi].passed[k];
        if (cover[q] != leaves_into(p, q, 0)) {
          cs[gi].dest = -1;
          changed = true;
        }
      }
  }
  for (int gi = 0; gi < n; gi++) {
    if (cs[gi].dest < 0) continue;
    group *G = &p->groups[gi];
    G->dest = cs[gi].dest;
    G->n_steps = cs[gi].n_steps;
    memcpy(G->step_a, cs[gi].a, sizeof cs[gi].a);
    memcpy(G->step_b, cs[gi].b, sizeof cs[gi].b);
    memcpy(G->step_add, cs[gi].add, sizeof cs[gi].add);
    for (int k = 0; k < cs[gi].n_passed; k++)
      if (!p->groups[cs[gi].passed[k]].absorbed) {
        p->groups[cs[gi].passed[k]].absorbed = true;
        plan->n_remapped++;
      }
  }
  free(cs);
  free(cover);
}
