/* gl_fuse.c - passes over the groups that take dispatches away.
 *
 * Squeeze-excite: a global average pool (or mean over H, W) whose vector feeds one or
 * two pointwise layers (1x1 convolution or fully connected, element-wise ops between)
 * becomes one group computed by gl_gen_se.c.
 *
 * Depthwise + 1x1: a depthwise convolution read only by a 1x1 convolution is computed
 * by that convolution's dispatch into shared memory first (gl_gen_dwpw.c); with the 1x1
 * expansion before it, the whole inverted residual block (gl_gen_irb.c).
 *
 * Inlining: a group whose output has one
 * reader, made by a one-vec4-per-invocation generator (element-wise, pad, resize,
 * depthwise, slice, depth-to-space), becomes a function the consumer's loads call
 * (gl_emit.c) instead of a dispatch and a round trip through memory. The consumer
 * recomputes it once per read, so the pass weighs the producer's loads per element
 * against how often the consumer reads each element: an element-wise op or a resize
 * goes into almost anything; convolutions are never inlined (gl_fuse_cost). Work
 * ratios, not a GPU's numbers. */
#include <stdlib.h>

#include "gl_plan_int.h"

/* how much recomputation and nesting inlining allows: the tuning table (gl_tune.c) */
#define MAX_RECOMPUTE (gl_tune_table_get()->fuse_max_recompute)
#define MAX_DEPTH (gl_tune_table_get()->fuse_max_depth)

/* Loads per output element of a producer we can inline; 0: not inlinable. */
int gl_fuse_cost(const tfl_graph *g, int node)
{
  const tfl_node *n = &g->nodes[node];
  const gl_op_info *info = gl_op_info_of(n->op);
  if (n->n_out != 1) return 0;
  if (info->kind == GL_KIND_UNARY || info->kind == GL_KIND_BINARY) return 1;
  switch (n->op) {
  case TFL_OP_PAD:
  case TFL_OP_PADV2:
  case TFL_OP_STRIDED_SLICE:
  case TFL_OP_DEPTH_TO_SPACE:
  case TFL_OP_RESIZE_NEAREST_NEIGHBOR: return 1;
  case TFL_OP_RESIZE_BILINEAR: return 4;
  /* Convolutions stay dispatches: inlined, their taps run serially inside each of the
   * consumer's (fewer) invocations. On the H100 that made face_landmark 2.40 ms against
   * 0.44 left apart, deeplab 5.23 against 1.60 (gl_bench, fp16, median of 50). */
  case TFL_OP_DEPTHWISE_CONV_2D:
  case TFL_OP_CONV_2D: return 0;
  default: return 0;
  }
}

/* How many times the consumer reads each element of its input k (rounded up). */
static int consumer_reads(const planner *p, int node, int k, int in_cost)
{
  const tfl_graph *g = p->g;
  const tfl_node *n = &g->nodes[node];
  gl_shape out;
  gl_shape_of(&g->tensors[n->out[0]], &out);
  switch (n->op) {
  case TFL_OP_CONV_2D:
  case TFL_OP_FULLY_CONNECTED: {
    const tfl_tensor *w = &g->tensors[n->in[1]];
    int kh = n->op == TFL_OP_CONV_2D ? w->dims[1] : 1, kw = n->op == TFL_OP_CONV_2D ? w->dims[2] : 1;
    int sh = n->op == TFL_OP_CONV_2D ? n->p.conv.stride_h : 1, sw = n->op == TFL_OP_CONV_2D ? n->p.conv.stride_w : 1;
    gl_shape x;
    gl_shape_of(&g->tensors[n->in[0]], &x);
    int reduce = kh * kw * x.s;
    int px, sl;
    gl_tune_conv(out, reduce, k == 0 ? in_cost : 1, &p->o.tune, &p->o.dev, &px, &sl);
    int groups = gl_tune_conv_split(out, reduce, &p->o.tune, &p->o.dev) ? out.s : (out.s + sl - 1) / sl;
    return (kh * kw + sh * sw - 1) / (sh * sw) * groups;
  }
  case TFL_OP_DEPTHWISE_CONV_2D: {
    const tfl_tensor *w = &g->tensors[n->in[1]];
    return (w->dims[1] * w->dims[2] + n->p.conv.stride_h * n->p.conv.stride_w - 1) /
           (n->p.conv.stride_h * n->p.conv.stride_w);
  }
  case TFL_OP_TRANSPOSE_CONV:
  case TFL_OP_CONV2D_TRANSPOSE_BIAS: {
    const tfl_tensor *w = &g->tensors[n->in[1]];
    int st = n->p.conv.stride_h * n->p.conv.stride_w;
    return (w->dims[1] * w->dims[2] + st - 1) / st * out.s;
  }
  case TFL_OP_AVERAGE_POOL_2D:
  case TFL_OP_MAX_POOL_2D: {
    int st = n->p.pool.stride_h * n->p.pool.stride_w;
    return (n->p.pool.filter_h * n->p.pool.filter_w + st - 1) / st;
  }
  case TFL_OP_RESIZE_BILINEAR: {
    gl_shape x;
    gl_shape_of(&g->tensors[n->in[k]], &x);
    long r = 4L * out.h * out.w / ((long)x.h * x.w > 0 ? (long)x.h * x.w : 1);
    return r < 1 ? 1 : (int)r;
  }
  case TFL_OP_SOFTMAX: return 3;
  case TFL_OP_LSTM: return MAX_RECOMPUTE + 1; /* state inputs are raw-read and written back */
  default: return 1;
  }
}

/* The group whose primary node is `node`, -1 if the node is fused or aliased away. */
static int group_of_node(const planner *p, int node)
{
  for (int gi = 0; gi < p->n_groups; gi++)
    if (p->groups[gi].node == node) return gi;
  return -1;
}

/* The one node reading tensor t (or a reshape alias of it), -1 if none or several or
 * when t (or an alias) leaves the partition. */
static int sole_reader(const planner *p, int t)
{
  const tfl_graph *g = p->g;
  int reader = -1, n = 0;
  for (int u = 0; u < g->n_tensors; u++) {
    if (gl_plan_root(p, u) != t) continue;
    if (p->is_out[u]) return -1;
    for (int k = 0; k < p->part->n_nodes; k++) {
      const tfl_node *c = &g->nodes[p->part->nodes[k]];
      for (int j = 0; j < c->n_in; j++)
        if (c->in[j] == u) reader = p->part->nodes[k], n++;
    }
  }
  return n == 1 ? reader : -1;
}

static bool global_pool(const planner *p, const group *G)
{
  const tfl_graph *g = p->g;
  const tfl_node *n = &g->nodes[G->node];
  if (G->n_epi || (n->op != TFL_OP_AVERAGE_POOL_2D && n->op != TFL_OP_MEAN)) return false;
  gl_shape x, y;
  gl_shape_of(&g->tensors[n->in[0]], &x);
  gl_shape_of(&g->tensors[n->out[0]], &y);
  if (y.h != 1 || y.w != 1 || y.c != x.c || y.b != x.b) return false;
  if (n->op == TFL_OP_MEAN) return gl_mean_is_spatial(g, G->node);
  const tfl_pool_params *pp = &n->p.pool;
  return pp->filter_h == x.h && pp->filter_w == x.w && pp->act == TFL_ACT_NONE;
}

/* A 1x1 CONV_2D or FULLY_CONNECTED on a one-pixel input, primary of a group whose
 * fused ops are unary; returns the group or -1. */
static int pointwise_group(const planner *p, int node, int in_root)
{
  const tfl_graph *g = p->g;
  const tfl_node *n = &g->nodes[node];
  if (n->op != TFL_OP_CONV_2D && n->op != TFL_OP_FULLY_CONNECTED) return -1;
  if (gl_plan_root(p, n->in[0]) != in_root) return -1;
  const tfl_tensor *w = &g->tensors[n->in[1]];
  if (n->op == TFL_OP_CONV_2D && (w->dims[1] != 1 || w->dims[2] != 1)) return -1;
  gl_shape y;
  gl_shape_of(&g->tensors[n->out[0]], &y);
  if (y.h != 1 || y.w != 1) return -1;
  int gi = group_of_node(p, node);
  if (gi < 0) return -1;
  for (int e = 0; e < p->groups[gi].n_epi; e++)
    if (gl_op_info_of(g->nodes[p->groups[gi].epi[e]].op)->kind != GL_KIND_UNARY || p->groups[gi].keep[e] >= 0) return -1;
  return gi;
}

void gl_fuse_se(planner *p, gl_plan *plan)
{
  for (int gi = 0; gi < p->n_groups; gi++) {
    group *P = &p->groups[gi];
    if (!gl_group_dispatched(P) || !global_pool(p, P)) continue;
    int r0 = gl_plan_root(p, P->out), c1 = sole_reader(p, r0);
    int g1 = c1 >= 0 ? pointwise_group(p, c1, r0) : -1;
    if (g1 < 0) continue;
    group *G1 = &p->groups[g1];
    int r1 = gl_plan_root(p, G1->out), c2 = sole_reader(p, r1);
    int g2 = c2 >= 0 ? pointwise_group(p, c2, r1) : -1;
    gl_shape x, hid = {0};
    gl_shape_of(&p->g->tensors[p->g->nodes[P->node].in[0]], &x);
    if (g2 >= 0) gl_shape_of(&p->g->tensors[G1->out], &hid);
    if (!gl_tune_se_wg(x.s, hid.s, &p->o.tune, &p->o.dev)) continue; /* shared memory too small */
    group *S = g2 >= 0 ? &p->groups[g2] : G1;
    S->chain[S->n_chain++] = P->node;
    if (g2 >= 0) {
      S->chain[S->n_chain++] = G1->node;
      for (int e = 0; e < G1->n_epi; e++) S->chain[S->n_chain++] = G1->epi[e];
      G1->absorbed = true;
    }
    P->absorbed = true;
    plan->n_se++;
  }
}

/* Convolutions reading the same tensor with the same window (a detector's box and class
 * heads at one scale) run as one dispatch: the first's output slices, then the
 * second's. Both without fused ops, with one activation. */
static bool pairable(const planner *p, int gi)
{
  const group *G = &p->groups[gi];
  const tfl_node *n = &p->g->nodes[G->node];
  return gl_group_dispatched(G) && n->op == TFL_OP_CONV_2D && !G->n_epi && !G->n_chain && G->sib < 0 && n->n_out == 1;
}

void gl_fuse_siblings(planner *p, gl_plan *plan)
{
  const tfl_graph *g = p->g;
  for (int a = 0; a < p->n_groups; a++) {
    if (!pairable(p, a)) continue;
    const tfl_node *na = &g->nodes[p->groups[a].node];
    for (int b = a + 1; b < p->n_groups; b++) {
      if (!pairable(p, b)) continue;
      const tfl_node *nb = &g->nodes[p->groups[b].node];
      const tfl_tensor *wa = &g->tensors[na->in[1]], *wb = &g->tensors[nb->in[1]];
      const tfl_conv_params *ca = &na->p.conv, *cb = &nb->p.conv;
      gl_shape ya, yb;
      gl_shape_of(&g->tensors[na->out[0]], &ya);
      gl_shape_of(&g->tensors[nb->out[0]], &yb);
      if (gl_plan_root(p, na->in[0]) != gl_plan_root(p, nb->in[0]) || wa->dims[1] != wb->dims[1] ||
          wa->dims[2] != wb->dims[2] || wa->dims[3] != wb->dims[3] || ca->padding != cb->padding ||
          ca->stride_w != cb->stride_w || ca->stride_h != cb->stride_h || ca->dilation_w != cb->dilation_w ||
          ca->dilation_h != cb->dilation_h || ca->act != cb->act || ya.b != yb.b || ya.h != yb.h || ya.w != yb.w ||
          (wa->q.n > 0) != (wb->q.n > 0) || (g->tensors[na->out[0]].q.n > 0) || (g->tensors[nb->out[0]].q.n > 0))
        continue;
      p->groups[a].sib = b;
      p->groups[b].absorbed = true;
      plan->n_paired++;
      break;
    }
  }
}

/* A depthwise convolution (multiplier 1, float output, nothing fused into it but its
 * activation) whose only reader is a 1x1 stride-1 convolution with a short enough
 * reduction: one dispatch computes
 * both, the depthwise output staying in shared memory (gl_gen_dwpw.c). In an inverted
 * residual block that is a dispatch, a barrier and the expanded map's round trip
 * through memory fewer. */

static bool dwpw_producer(const planner *p, const group *P)
{
  const tfl_graph *g = p->g;
  const tfl_node *n = &g->nodes[P->node];
  if (!gl_group_dispatched(P) || n->op != TFL_OP_DEPTHWISE_CONV_2D || P->n_epi || P->n_chain || P->dest >= 0 ||
      P->sib >= 0 || P->pre >= 0 || n->n_out != 1)
    return false;
  int t = P->out;
  const tfl_tensor *y = &g->tensors[t], *x = &g->tensors[n->in[0]];
  if (gl_plan_root(p, t) != t || p->is_out[t] || p->consumers[t] != 1 || y->q.n > 0 || y->ndim != 4 ||
      x->ndim != 4 || y->dims[3] != x->dims[3] || !gl_tune_dwpw_fits((y->dims[3] + 3) / 4, &p->o.dev))
    return false;
  for (int u = 0; u < g->n_tensors; u++)
    if (u != t && p->alias[u] == t) return false;
  return true;
}

static bool dwpw_consumer(const planner *p, const group *C, int t)
{
  const tfl_graph *g = p->g;
  const tfl_node *n = &g->nodes[C->node];
  if (!gl_group_dispatched(C) || n->op != TFL_OP_CONV_2D || n->in[0] != t || C->n_chain || C->sib >= 0 || C->pre >= 0)
    return false;
  const tfl_tensor *w = &g->tensors[n->in[1]];
  const tfl_conv_params *c = &n->p.conv;
  if (w->dims[1] != 1 || w->dims[2] != 1 || c->stride_h != 1 || c->stride_w != 1 || c->dilation_h != 1 ||
      c->dilation_w != 1)
    return false;
  /* Where the 1x1 convolution alone would split its reduction over a workgroup (few
   * outputs, many input channels), the fused kernel's one lane per output sums it
   * serially: on the H100 2.5-5x slower (SSD's 10x10x960 -> 160, hand's 7x7x672). */
  gl_shape y;
  gl_shape_of(&g->tensors[n->out[0]], &y);
  return !gl_tune_conv_split(y, (w->dims[3] + 3) / 4, &p->o.tune, &p->o.dev);
}

void gl_fuse_dwpw(planner *p, gl_plan *plan)
{
  for (int gi = 0; gi < p->n_groups; gi++) {
    group *P = &p->groups[gi];
    if (!dwpw_producer(p, P)) continue;
    int cn = sole_reader(p, P->out), cg = cn >= 0 ? group_of_node(p, cn) : -1;
    if (cg < 0 || !dwpw_consumer(p, &p->groups[cg], P->out)) continue;
    p->groups[cg].pre = P->node;
    P->absorbed = true;
    plan->n_dwpw++;
  }
}

/* Then the expansion before such a pair: a 1x1 stride-1 convolution (float output,
 * nothing fused into it but its activation) whose only reader is the pair's depthwise
 * convolution. The dispatch recomputes it per tile on the depthwise window, in chunks
 * of expanded channels (gl_gen_irb.c): the expanded map, the block's largest tensor,
 * never goes to the arena. */
static bool irb_expand(const planner *p, const group *E, int t)
{
  const tfl_graph *g = p->g;
  const tfl_node *n = &g->nodes[E->node];
  if (!gl_group_dispatched(E) || n->op != TFL_OP_CONV_2D || E->n_epi || E->n_chain || E->dest >= 0 || E->sib >= 0 ||
      E->pre >= 0 || n->n_out != 1 || E->out != t)
    return false;
  const tfl_tensor *w = &g->tensors[n->in[1]], *y = &g->tensors[t], *x = &g->tensors[n->in[0]];
  const tfl_conv_params *c = &n->p.conv;
  if (w->dims[1] != 1 || w->dims[2] != 1 || c->stride_h != 1 || c->stride_w != 1 || c->dilation_h != 1 ||
      c->dilation_w != 1 || y->q.n > 0 || y->ndim != 4 || x->ndim != 4 || p->is_out[t] || p->consumers[t] != 1)
    return false;
  for (int u = 0; u < g->n_tensors; u++)
    if (u != t && p->alias[u] == t) return false;
  return true;
}

void gl_fuse_irb(planner *p, gl_plan *plan)
{
  const tfl_graph *g = p->g;
  for (int gi = 0; gi < p->n_groups; gi++) {
    group *C = &p->groups[gi];
    if (!gl_group_dispatched(C) || C->pre < 0) continue;
    int t = g->nodes[C->pre].in[0];
    int eg = gl_plan_root(p, t) == t ? p->group_of[t] : -1;
    if (eg < 0 || sole_reader(p, t) != C->pre || !irb_expand(p, &p->groups[eg], t)) continue;
    gl_shape e, y;
    gl_shape_of(&g->tensors[t], &e);
    gl_shape_of(&g->tensors[C->out], &y);
    if (!gl_tune_irb_fits(g, C->pre, e, y, &p->o.tune, &p->o.dev)) continue;
    C->expand = p->groups[eg].node;
    p->groups[eg].absorbed = true;
    plan->n_irb++;
  }
}

void gl_fuse_inline(planner *p, gl_plan *plan)
{
  const tfl_graph *g = p->g;
  int n = p->n_groups;
  /* per group: functions it sits in, and how often one element of its output is
   * computed per element of the dispatch that finally stores (reads multiply) */
  int *depth = calloc((size_t)n + 1, sizeof(int)), *mult = malloc(sizeof(int) * ((size_t)n + 1));
  if (!mult || !depth) { /* inlining is an optimization: without memory, none */
    free(mult);
    free(depth);
    return;
  }
  for (int gi = 0; gi < n; gi++) mult[gi] = 1;
  /* last to first, so a chain folds from its end: a consumer's own depth and read
   * multiplier are known when its producers are weighed */
  for (int gi = n - 1; gi >= 0; gi--) {
    group *P = &p->groups[gi];
    int t = P->out, r = gl_plan_root(p, t);
    bool keeps = false;
    for (int e = 0; e < P->n_epi; e++) keeps = keeps || P->keep[e] >= 0;
    int cost = gl_group_dispatched(P) && !P->n_chain && !keeps && P->dest < 0 && P->sib < 0 && P->pre < 0
                   ? gl_fuse_cost(g, P->node)
                   : 0;
    if (!cost || t != r || p->is_out[t] || p->consumers[t] != 1) continue;
    bool aliased = false;
    for (int u = 0; u < g->n_tensors && !aliased; u++) aliased = u != r && p->alias[u] == r;
    if (aliased) continue;
    int cn = -1, ck = -1;
    for (int k = 0; k < p->part->n_nodes && cn < 0; k++) {
      const tfl_node *c = &g->nodes[p->part->nodes[k]];
      for (int j = 0; j < c->n_in; j++)
        if (c->in[j] == t) cn = p->part->nodes[k], ck = j;
    }
    int cg = cn >= 0 ? group_of_node(p, cn) : -1;
    if (cg < 0 || p->groups[cg].absorbed || (gl_op_info_of(g->nodes[cn].op)->raw_inputs & (1u << ck))) continue;
    int reads = consumer_reads(p, cn, ck, cost) * mult[cg];
    if (depth[cg] + 1 > MAX_DEPTH || cost * reads > MAX_RECOMPUTE) continue;
    P->inlined = true;
    depth[gi] = depth[cg] + 1;
    mult[gi] = reads;
    plan->n_inlined++;
  }
  free(mult);
  free(depth);
}
