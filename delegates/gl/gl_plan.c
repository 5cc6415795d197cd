/* gl_plan.c - partition -> dispatches: group (alias, fuse), generate, place, emit.
 * See gl_plan.h for the passes. */
#include "gl_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_plan_int.h"

static bool float_like(tfl_type t)
{
  return t == TFL_TYPE_FLOAT32 || t == TFL_TYPE_FLOAT16 || t == TFL_TYPE_UINT8 || t == TFL_TYPE_INT8 ||
         t == TFL_TYPE_BOOL;
}

bool gl_plan_supports(const tfl_graph *g, int node, tfl_diag *why)
{
  const tfl_node *n = &g->nodes[node];
  const gl_op_info *info = gl_op_info_of(n->op);
  const char *op = tfl_op_name(n->op);
  if (info->kind == GL_KIND_NONE || !info->check) {
    tfl_fail(why, TFL_ERR_UNSUPPORTED, "node %d (%s): no GL kernel for this op", node, op);
    return false;
  }
  /* several outputs only from generators (LSTM: output k >= 1 is object "Ok") */
  if (n->n_out < 1 || n->out[0] < 0 || n->n_in > GL_GEN_MAX_IN ||
      (n->n_out > 1 && (info->kind != GL_KIND_GEN || n->n_out > 4))) {
    tfl_fail(why, TFL_ERR_UNSUPPORTED, "node %d (%s): %d inputs, %d outputs (GL: up to %d inputs, 4 outputs)", node, op,
             n->n_in, n->n_out, GL_GEN_MAX_IN);
    return false;
  }
  for (int k = 0; k < n->n_out; k++) {
    if (n->out[k] < 0) continue;
    const tfl_tensor *y = &g->tensors[n->out[k]];
    if (!float_like(y->type) || y->ndim > 4 || y->is_variable) {
      tfl_fail(why, TFL_ERR_UNSUPPORTED, "node %d (%s): output tensor %d is %s with %d dims%s (GL: float, 8-bit or bool, "
               "up to 4 dims)", node, op, n->out[k], tfl_type_name(y->type), y->ndim, y->is_variable ? ", a variable" : "");
      return false;
    }
  }
  for (int k = 0; k < n->n_in; k++) {
    if (n->in[k] < 0 || (info->raw_inputs & (1u << k))) continue;
    const tfl_tensor *x = &g->tensors[n->in[k]];
    if (x->ndim > 4 || x->is_variable || !float_like(x->type)) {
      tfl_fail(why, TFL_ERR_UNSUPPORTED, "node %d (%s): input %d (tensor %d) is %s with %d dims%s (GL: float, 8-bit or "
               "bool, up to 4 dims)", node, op, k, n->in[k], tfl_type_name(x->type), x->ndim,
               x->is_variable ? ", a variable" : "");
      return false;
    }
  }
  return info->check(g, node, why) == TFL_OK;
}

/* Shape of tensor t as input of a node whose output has rank out_rank: element-wise
 * ops right-align lower ranks first (numpy broadcasting). */
static gl_shape aligned_shape(const tfl_tensor *t, int out_rank, bool align)
{
  gl_shape s;
  if (align && t->ndim < out_rank) {
    tfl_tensor tmp = *t;
    int pad = out_rank - t->ndim;
    for (int d = out_rank - 1; d >= 0; d--) tmp.dims[d] = d >= pad ? t->dims[d - pad] : 1;
    tmp.ndim = out_rank;
    gl_shape_of(&tmp, &s);
  } else {
    gl_shape_of(t, &s);
  }
  return s;
}

static bool is_elementwise(const gl_op_info *info)
{
  return info->kind == GL_KIND_UNARY || info->kind == GL_KIND_BINARY;
}

/* Tries to fuse element-wise node ni into the group producing its input; true if done.
 * An input read elsewhere too (or leaving the partition) is still fused into a
 * generated dispatch, which then also stores it (keep). */
static bool try_fuse(planner *p, int ni)
{
  const tfl_graph *g = p->g;
  const tfl_node *n = &g->nodes[ni];
  const gl_op_info *info = gl_op_info_of(n->op);
  int n_ops = info->kind == GL_KIND_BINARY ? 2 : 1;
  gl_shape ys;
  gl_shape_of(&g->tensors[n->out[0]], &ys);
  for (int k = 0; k < n_ops; k++) {
    int t = n->in[k];
    if (t < 0 || g->tensors[t].is_const || p->group_of[t] < 0) continue;
    group *G = &p->groups[p->group_of[t]];
    if (G->out != t || G->n_epi == MAX_EPI) continue;
    bool shared = p->consumers[t] != 1 || p->is_out[t];
    const tfl_node *pn = &g->nodes[G->node];
    if (shared && (gl_op_info_of(pn->op)->kind != GL_KIND_GEN || pn->n_out != 1 || p->alias[t] != t)) continue;
    bool aliased = false; /* a reshape view of t must read stored memory: keep only roots */
    for (int u = 0; shared && u < g->n_tensors && !aliased; u++) aliased = u != t && p->alias[u] == t;
    if (aliased) continue;
    gl_shape ts = aligned_shape(&g->tensors[t], g->tensors[n->out[0]].ndim, true);
    if (!gl_shape_eq(ts, ys)) continue;
    if (n_ops == 2) {
      int o = n->in[1 - k];
      if (o < 0 || o == t) continue;
      int r = gl_plan_root(p, o);
      if (!g->tensors[o].is_const && p->group_of[r] >= 0 && p->group_of[r] >= p->group_of[t]) continue;
    }
    G->epi[G->n_epi] = ni;
    G->epi_main[G->n_epi] = k;
    G->keep[G->n_epi] = shared ? t : -1;
    G->n_epi++;
    if (!shared) p->group_of[t] = -1;
    G->out = n->out[0];
    p->group_of[G->out] = (int)(G - p->groups);
    return true;
  }
  return false;
}

static tfl_status group_nodes(planner *p, gl_plan *plan)
{
  const tfl_graph *g = p->g;
  for (int k = 0; k < p->part->n_nodes; k++) {
    int ni = p->part->nodes[k];
    const tfl_node *n = &g->nodes[ni];
    const gl_op_info *info = gl_op_info_of(n->op);
    if (info->kind == GL_KIND_NONE || !info->gen)
      return gl_node_error(p->diag, TFL_ERR_UNSUPPORTED, g, ni, "not supported by the GL delegate");
    int out = n->out[0];
    /* a resize to the size it has is the identity (every scale is 1) */
    bool same_size_resize = (n->op == TFL_OP_RESIZE_BILINEAR || n->op == TFL_OP_RESIZE_NEAREST_NEIGHBOR) &&
                            g->tensors[n->in[0]].ndim == 4 && g->tensors[out].ndim == 4 &&
                            g->tensors[n->in[0]].dims[1] == g->tensors[out].dims[1] &&
                            g->tensors[n->in[0]].dims[2] == g->tensors[out].dims[2];
    if ((info->kind == GL_KIND_ALIAS || same_size_resize) && !g->tensors[n->in[0]].is_const) {
      gl_shape a, b;
      gl_shape_of(&g->tensors[n->in[0]], &a);
      gl_shape_of(&g->tensors[out], &b);
      if (gl_shape_eq(a, b)) {
        p->alias[out] = n->in[0];
        plan->n_alias++;
        continue;
      }
    }
    if (is_elementwise(info) && !p->o.tune.no_fuse && try_fuse(p, ni)) {
      plan->n_fused++;
      continue;
    }
    group *G = &p->groups[p->n_groups];
    memset(G, 0, sizeof *G);
    G->dest = -1;
    G->sib = -1;
    G->pre = -1;
    G->expand = -1;
    G->node = ni;
    G->out = out;
    for (int k = 1; k < n->n_out; k++)
      if (n->out[k] >= 0) p->group_of[n->out[k]] = p->n_groups;
    p->group_of[out] = p->n_groups++;
  }
  return TFL_OK;
}

static tfl_status add_tensor_obj(planner *p, group_build *b, const char *name, int t, gl_shape sh)
{
  const tfl_tensor *x = &p->g->tensors[t];
  gl_emit_obj *o = &b->objs[b->n_objs];
  memset(o, 0, sizeof *o);
  snprintf(o->name, sizeof o->name, "%s", name);
  o->sh = sh;
  o->is_tensor = true;
  if (b->n_objs >= MAX_OBJS) return tfl_fail(p->diag, TFL_ERR_UNSUPPORTED, "GL: more than %d objects in one shader", MAX_OBJS);
  b->obj_tensor[b->n_objs] = -1;
  b->obj_const[b->n_objs] = NULL;
  b->obj_write[b->n_objs] = false;
  b->obj_sub[b->n_objs] = -1;
  int pg = x->is_const ? -1 : p->group_of[gl_plan_root(p, t)];
  if (pg >= 0 && p->groups[pg].inlined) { /* computed by the inlined producer's function */
    b->obj_sub[b->n_objs++] = gl_plan_root(p, t);
    return TFL_OK;
  }
  if (x->is_const) {
    float *r = gl_const_reals(x);
    float *pk = r ? malloc(gl_shape_vec4s(sh) * 4 * sizeof(float) + 16) : NULL;
    if (!pk) {
      free(r);
      return tfl_fail(p->diag, TFL_ERR_NOMEM, "constant tensor %d", t);
    }
    tfl_tensor f = {0};
    f.type = TFL_TYPE_FLOAT32;
    gl_to_phwc4(&f, r, sh, pk);
    free(r);
    o->is_const = true;
    o->n_vec4 = gl_shape_vec4s(sh);
    b->obj_const[b->n_objs] = pk;
  } else {
    b->obj_tensor[b->n_objs] = gl_plan_root(p, t);
  }
  b->n_objs++;
  return TFL_OK;
}

/* The PHWC4 vec4 span [lo, hi) that G's n output elements reach in its destination ds
 * through its remap steps (L = (L / a) * b + add + L % a each). Walked element by
 * element with mixed-radix counters: from one element to the next each step's input
 * moves by one unless the step below it wrapped, so the divisions run only there. */
static void dest_span(const group *G, const gl_shape *ds, long n, size_t *lo, size_t *hi)
{
  long q[GL_REMAP_STEPS], r[GL_REMAP_STEPS];
  long c = 0, w = 0, h = 0, b = 0; /* the destination's coordinates of the current element */
  bool moved_by_one = false;        /* the current element's L is the last one's + 1 */
  for (long e = 0; e < n; e++) {
    long L = e;
    for (int k = 0; k < G->n_steps; k++) {
      if (moved_by_one && ++r[k] < G->step_a[k]) {
        L = q[k] * G->step_b[k] + G->step_add[k] + r[k];
        continue; /* the next step's input moved by one too */
      }
      if (moved_by_one) { /* r wrapped: the quotient moves on, L jumps */
        r[k] = 0;
        q[k]++;
      } else {
        q[k] = L / G->step_a[k];
        r[k] = L % G->step_a[k];
      }
      L = q[k] * G->step_b[k] + G->step_add[k] + r[k];
      moved_by_one = false;
    }
    if (moved_by_one) { /* one channel on, carried into the pixel */
      if (++c == ds->c) {
        c = 0;
        if (++w == ds->w) {
          w = 0;
          if (++h == ds->h) {
            h = 0;
            b++;
          }
        }
      }
    } else {
      c = L % ds->c;
      w = (L / ds->c) % ds->w;
      h = (L / ((long)ds->c * ds->w)) % ds->h;
      b = L / ((long)ds->c * ds->w * ds->h);
    }
    size_t i = (size_t)(((b * ds->s + c / 4) * ds->h + h) * ds->w + w);
    if (i < *lo) *lo = i;
    if (i + 1 > *hi) *hi = i + 1;
    moved_by_one = true;
  }
}

/* The destination of group G writing through reshapes and concatenations (object
 * `name`, written; its span from the mapping, so that writers of disjoint parts need
 * no barrier between them). Returns the object's index in *obj. */
static tfl_status add_dest(planner *p, const group *G, group_build *b, const char *name, int *obj)
{
  const tfl_graph *g = p->g;
  gl_shape ds, os;
  gl_shape_of(&g->tensors[G->dest], &ds);
  gl_shape_of(&g->tensors[g->nodes[G->node].out[0]], &os);
  tfl_status st = add_tensor_obj(p, b, name, G->dest, ds);
  if (st) return st;
  *obj = b->n_objs - 1;
  b->obj_write[*obj] = true;
  long n = (long)os.b * os.h * os.w * os.c;
  if (n > (1L << 22)) return TFL_OK; /* whole tensor */
  size_t lo = SIZE_MAX, hi = 0;
  dest_span(G, &ds, n, &lo, &hi);
  if (hi > lo) {
    b->objs[*obj].span_lo = lo;
    b->objs[*obj].span_hi = hi;
  }
  return TFL_OK;
}

/* A paired convolution (G->sib): computed by G's dispatch after G's own slices; its
 * output (or destination) is written object "P2". in->out becomes both. */
static tfl_status add_sibling(planner *p, const group *G, group_build *b, gl_gen_in *in)
{
  const group *B = &p->groups[G->sib];
  const tfl_graph *g = p->g;
  gl_shape sb;
  gl_shape_of(&g->tensors[g->nodes[B->node].out[0]], &sb);
  in->sib = &g->nodes[B->node];
  in->out = gl_shape_make(in->out.b, in->out.h, in->out.w, 4 * in->out.s + sb.c);
  tfl_status st;
  if (B->dest >= 0) return add_dest(p, B, b, "P2", &b->sib_obj);
  if ((st = add_tensor_obj(p, b, "P2", B->out, sb))) return st;
  b->sib_obj = b->n_objs - 1;
  b->obj_write[b->sib_obj] = true;
  return TFL_OK;
}

static tfl_status build_group(planner *p, const group *G, group_build *b)
{
  const tfl_graph *g = p->g;
  const tfl_node *n = &g->nodes[G->node];
  const gl_op_info *info = gl_op_info_of(n->op);
  gl_gen_in in = {0};
  in.pre = in.expand = -1;
  b->remap_obj = b->sib_obj = -1;
  in.g = g;
  in.node = G->node;
  in.n = n;
  in.n_in = n->n_in;
  in.fn = G->inlined;
  int out_rank = g->tensors[n->out[0]].ndim;
  gl_shape_of(&g->tensors[n->out[0]], &in.out);
  tfl_status st;
  bool one_obj = G->n_chain || G->pre >= 0;
  if (one_obj) { /* squeeze-excite: the pooled map; depthwise + 1x1: the depthwise's input
                   (with the expansion: the expansion's) */
    int first = G->expand >= 0 ? G->expand : G->pre >= 0 ? G->pre : G->chain[0];
    int x = g->nodes[first].in[0];
    in.chain = G->chain;
    in.n_chain = G->n_chain;
    in.pre = G->pre;
    in.expand = G->expand;
    gl_shape_of(&g->tensors[x], &in.in[0]);
    in.in_obj[0] = true;
    if ((st = add_tensor_obj(p, b, "I0", x, in.in[0]))) return st;
  }
  for (int k = 0; k < n->n_in && !one_obj; k++) {
    if (n->in[k] < 0) continue;
    in.in[k] = aligned_shape(&g->tensors[n->in[k]], out_rank, is_elementwise(info));
    if (info->raw_inputs & (1u << k)) continue;
    in.in_obj[k] = true;
    char name[16];
    snprintf(name, sizeof name, "I%d", k);
    if ((st = add_tensor_obj(p, b, name, n->in[k], in.in[k]))) return st;
    int sub = b->obj_sub[b->n_objs - 1];
    if (sub >= 0) in.in_cost[k] = gl_fuse_cost(g, p->groups[p->group_of[sub]].node);
  }
  for (int k = 1; k < n->n_out; k++) { /* extra outputs: arena objects the body stores to */
    if (n->out[k] < 0) continue;
    char name[16];
    snprintf(name, sizeof name, "O%d", k);
    gl_shape sh;
    gl_shape_of(&g->tensors[n->out[k]], &sh);
    if ((st = add_tensor_obj(p, b, name, n->out[k], sh))) return st;
    b->obj_write[b->n_objs - 1] = true;
  }
  if (G->dest >= 0 && (st = add_dest(p, G, b, "D", &b->remap_obj))) return st;
  if (G->sib >= 0 && (st = add_sibling(p, G, b, &in))) return st;
  gl_tune_dispatch(&in, &p->o.tune, &p->o.dev);
  gl_gen_fn gen = G->n_chain ? gl_gen_se : G->expand >= 0 ? gl_gen_irb : G->pre >= 0 ? gl_gen_dwpw : info->gen;
  if ((st = gen(&in, &b->gen, p->diag))) return st;
  if (b->gen.decls.oom || b->gen.main.oom) return tfl_fail(p->diag, TFL_ERR_NOMEM, "shader of node %d", G->node);
  if (G->inlined && b->gen.decls.n)
    return tfl_fail(p->diag, TFL_ERR_BACKEND, "GL: node %d cannot be inlined (its shader has declarations)", G->node);
  for (int c = 0; c < b->gen.n_consts; c++) {
    if (b->n_objs >= MAX_OBJS) return tfl_fail(p->diag, TFL_ERR_UNSUPPORTED, "GL: more than %d objects in one shader", MAX_OBJS);
    gl_emit_obj *o = &b->objs[b->n_objs];
    memset(o, 0, sizeof *o);
    snprintf(o->name, sizeof o->name, "%s", b->gen.consts[c].name);
    o->is_const = true;
    o->n_vec4 = b->gen.consts[c].n_vec4;
    b->obj_tensor[b->n_objs] = -1;
    b->obj_const[b->n_objs] = NULL;
    b->obj_write[b->n_objs] = false;
    b->obj_sub[b->n_objs] = -1;
    b->n_objs++;
  }
  /* epilogue: the primary output's clamp, then each fused op */
  gl_quant_stmt(&g->tensors[n->out[0]], "v", "FLT4", &b->epi);
  for (int e = 0; e < G->n_epi; e++) {
    const tfl_node *m = &g->nodes[G->epi[e]];
    const gl_op_info *mi = gl_op_info_of(m->op);
    if (G->keep[e] >= 0) { /* the value so far is read elsewhere too: store it */
      char name[16];
      snprintf(name, sizeof name, "K%d", e);
      gl_shape ks;
      gl_shape_of(&g->tensors[G->keep[e]], &ks);
      if ((st = add_tensor_obj(p, b, name, G->keep[e], ks))) return st;
      b->obj_write[b->n_objs - 1] = true;
      gl_str_addf(&b->epi, "  { FLT4 k_ = v;\n");
      if (ks.c % 4)
        gl_str_addf(&b->epi, "    if (s == O_S - 1) k_ = FLT4(%s);\n",
                    (const char *[]){"", "k_.x, 0.0, 0.0, 0.0", "k_.xy, 0.0, 0.0", "k_.xyz, 0.0"}[ks.c % 4]);
      gl_str_addf(&b->epi, "    %s_ST(b, y, x, s, k_); }\n", name);
    }
    char other[48] = "v";
    if (mi->kind == GL_KIND_BINARY) {
      int ot = m->in[1 - G->epi_main[e]];
      char name[16];
      snprintf(name, sizeof name, "E%d", e);
      gl_shape os = aligned_shape(&g->tensors[ot], g->tensors[m->out[0]].ndim, true);
      if ((st = add_tensor_obj(p, b, name, ot, os))) return st;
      snprintf(other, sizeof other, "%s_LDB(b, y, x, s)", name);
    }
    gl_str_addf(&b->epi, "  v = ");
    if (G->epi_main[e] == 0) gl_eltwise_expr(m, "v", other, &b->epi);
    else gl_eltwise_expr(m, other, "v", &b->epi);
    gl_str_addf(&b->epi, ";\n");
    if (m->op == TFL_OP_ADD || m->op == TFL_OP_SUB || m->op == TFL_OP_MUL || m->op == TFL_OP_DIV)
      gl_act_stmt(m->p.eltwise.act, "v", &b->epi);
    gl_quant_stmt(&g->tensors[m->out[0]], "v", "FLT4", &b->epi);
  }
  if (b->epi.oom) return tfl_fail(p->diag, TFL_ERR_NOMEM, "epilogue of node %d", G->node);
  return TFL_OK;
}

static void free_build(group_build *b)
{
  gl_gen_out_free(&b->gen);
  for (int i = 0; i < b->n_objs; i++) free(b->obj_const[i]);
  gl_str_free(&b->epi);
}

/* 2 per multiply-add for the convolution family, 1 per output element otherwise. */
static double node_flops(const tfl_graph *g, int ni)
{
  const tfl_node *n = &g->nodes[ni];
  const tfl_tensor *y = &g->tensors[n->out[0]];
  double out = (double)tfl_tensor_count(y);
  const tfl_tensor *w = n->n_in > 1 && n->in[1] >= 0 ? &g->tensors[n->in[1]] : NULL;
  if (n->op == TFL_OP_CONV_2D && w) return 2.0 * out * w->dims[1] * w->dims[2] * w->dims[3];
  if (n->op == TFL_OP_DEPTHWISE_CONV_2D && w) return 2.0 * out * w->dims[1] * w->dims[2];
  if (n->op == TFL_OP_FULLY_CONNECTED && w) return 2.0 * out * w->dims[1];
  if (n->op == TFL_OP_TRANSPOSE_CONV || n->op == TFL_OP_CONV2D_TRANSPOSE_BIAS) {
    const tfl_tensor *x = &g->tensors[n->in[n->op == TFL_OP_TRANSPOSE_CONV ? 2 : 0]];
    const tfl_tensor *wt = &g->tensors[n->in[1]];
    return 2.0 * (double)tfl_tensor_count(x) * wt->dims[0] * wt->dims[1] * wt->dims[2];
  }
  return out;
}

/* The arithmetic of everything a dispatch computes: its node, a paired convolution,
 * a squeeze-excite chain, the producers inlined into it. */
static double group_flops(const planner *p, const group_build *builds, int gi, int depth)
{
  const group *G = &p->groups[gi];
  double f = node_flops(p->g, G->node);
  if (G->sib >= 0) f += node_flops(p->g, p->groups[G->sib].node);
  if (G->pre >= 0) f += node_flops(p->g, G->pre);
  if (G->expand >= 0) f += node_flops(p->g, G->expand);
  for (int k = 0; k < G->n_chain; k++) f += node_flops(p->g, G->chain[k]);
  for (int k = 0; depth < 8 && k < builds[gi].n_objs; k++) {
    int sg = gl_tree_sub(p, &builds[gi], k);
    if (sg >= 0) f += group_flops(p, builds, sg, depth + 1);
  }
  return f;
}

/* Basic LSTM writes its new activation / state (outputs 0 / 1) into its non-constant
 * state inputs 1 / 4 (gl_check_lstm allows only partition inputs read by it alone):
 * the delegate downloads them there as extra outputs. The sources must stay whole. */
static tfl_status find_write_backs(planner *p)
{
  const tfl_graph *g = p->g;
  int cap = 2 * p->part->n_nodes + 1;
  p->wb_src = malloc(sizeof(int) * (size_t)cap);
  p->wb_dst = malloc(sizeof(int) * (size_t)cap);
  if (!p->wb_src || !p->wb_dst) return tfl_fail(p->diag, TFL_ERR_NOMEM, "GL write-backs");
  for (int k = 0; k < p->part->n_nodes; k++) {
    const tfl_node *n = &g->nodes[p->part->nodes[k]];
    if (n->op != TFL_OP_LSTM || n->p.lstm.kernel_type != 1) continue;
    static const int pairs[2][2] = {{1, 0}, {4, 1}}; /* input, output */
    for (int j = 0; j < 2; j++) {
      int dst = n->in[pairs[j][0]], src = n->out[pairs[j][1]];
      if (dst < 0 || src < 0 || g->tensors[dst].is_const) continue;
      p->wb_src[p->n_wb] = src;
      p->wb_dst[p->n_wb++] = dst;
      p->is_out[src] = true; /* not fused away: its memory must hold it at the end */
    }
  }
  return TFL_OK;
}

/* A dispatch against the limits: "node 7 (CONV_2D): its shader: 20480 bytes of shared
 * memory, over ..."; notes the failure in o->limits_hit. */
static tfl_status check_limits(const tfl_graph *g, const gl_limits *lim, const gl_plan_dispatch *d, const char *what,
                               const gl_plan_options *o, tfl_diag *diag)
{
  char label[160];
  snprintf(label, sizeof label, "node %d (%s): %s", d->node, tfl_op_name(g->nodes[d->node].op), what);
  tfl_status st = gl_limits_check_shader(lim, d->src, d->groups, label, diag);
  if (st && o->limits_hit) *o->limits_hit = true;
  return st;
}

/* Whether a live node outside the partition reads tensor t (gl_plan_io.feeds). */
static bool read_outside(const tfl_graph *g, const tfl_partition *part, int t)
{
  for (int n = 0; n < g->n_nodes; n++) {
    bool inside = false;
    for (int k = 0; k < part->n_nodes && !inside; k++) inside = part->nodes[k] == n;
    for (int j = 0; !inside && !g->nodes[n].dead && j < g->nodes[n].n_in; j++)
      if (g->nodes[n].in[j] == t) return true;
  }
  return false;
}

tfl_status gl_plan_build(const tfl_graph *g, const tfl_partition *part, const gl_plan_options *o, gl_plan *out, tfl_diag *diag)
{
  /* the limits, lowered further by the test switches */
  gl_limits lim = o->lim;
  if (o->tune.max_shared > 0 && (lim.shared_bytes <= 0 || lim.shared_bytes > o->tune.max_shared))
    lim.shared_bytes = o->tune.max_shared;
  for (int a = 0; a < 3 && o->tune.max_groups > 0; a++)
    if (lim.wg_count[a] <= 0 || lim.wg_count[a] > o->tune.max_groups) lim.wg_count[a] = o->tune.max_groups;
  memset(out, 0, sizeof *out);
  planner p = {.g = g, .part = part, .o = *o, .diag = diag};
  gl_span_set pending = {0};
  int nt = g->n_tensors;
  p.alias = malloc(sizeof(int) * (size_t)nt);
  p.wide = calloc((size_t)nt + 1, sizeof(bool));
  p.group_of = malloc(sizeof(int) * (size_t)nt);
  p.consumers = calloc((size_t)nt, sizeof(int));
  p.is_out = calloc((size_t)nt, sizeof(bool));
  p.groups = calloc((size_t)part->n_nodes + 1, sizeof(group));
  size_t *off_of = malloc(sizeof(size_t) * (size_t)nt);
  group_build *builds = NULL;
  tfl_status st = TFL_OK;
  if (!p.alias || !p.wide || !p.group_of || !p.consumers || !p.is_out || !p.groups || !off_of) {
    st = tfl_fail(diag, TFL_ERR_NOMEM, "GL plan");
    goto done;
  }
  for (int t = 0; t < nt; t++) {
    p.alias[t] = t;
    p.group_of[t] = -1;
  }
  for (int i = 0; i < g->n_nodes; i++) {
    if (g->nodes[i].dead) continue;
    for (int k = 0; k < g->nodes[i].n_in; k++)
      if (g->nodes[i].in[k] >= 0) p.consumers[g->nodes[i].in[k]]++;
  }
  for (int i = 0; i < g->n_outputs; i++) p.consumers[g->outputs[i]]++;
  for (int i = 0; i < part->n_outputs; i++) p.is_out[part->outputs[i]] = true;
  if ((st = find_write_backs(&p))) goto done;
  for (int k = 0; k < part->n_nodes; k++) {
    int ni = part->nodes[k];
    tfl_diag why;
    tfl_diag_init(&why);
    if (!gl_plan_supports(g, ni, &why)) {
      st = gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, ni, "the GL delegate cannot run it (%s)", why.error);
      goto done;
    }
  }
  out->n_nodes = part->n_nodes;
  if ((st = group_nodes(&p, out))) goto done;
  if (!o->tune.no_fuse) {
    gl_fuse_remap(&p, out);
    gl_fuse_siblings(&p, out);
    if (!o->tune.no_se) gl_fuse_se(&p, out);
    if (!o->tune.no_dwpw) gl_fuse_dwpw(&p, out);
    if (!o->tune.no_dwpw && o->tune.irb) gl_fuse_irb(&p, out);
    gl_fuse_inline(&p, out);
  }
  builds = calloc((size_t)p.n_groups + 1, sizeof *builds);
  if (!builds) {
    st = tfl_fail(diag, TFL_ERR_NOMEM, "GL plan");
    goto done;
  }
  for (int gi = 0; gi < p.n_groups; gi++)
    if (!p.groups[gi].absorbed && (st = build_group(&p, &p.groups[gi], &builds[gi]))) goto done;
  if ((st = gl_tree_hide(&p, builds))) goto done;
  if (!o->tune.no_reorder && (st = gl_sched_order(&p, builds))) goto done;
  gl_precision_mark(&p, out);
  /* constants: one blob in storage format (gl_consts.h); offsets in units */
  bool half_buf = o->fp16 && !o->tune.const_fp32;
  size_t unit = half_buf ? 8 : 16;
  size_t align = (size_t)(o->const_align_bytes > 0 ? o->const_align_bytes : 16);
  size_t align_u = align > unit ? align / unit : 1, const_total = 0;
  for (int gi = 0; gi < p.n_groups; gi++) {
    if (!gl_group_dispatched(&p.groups[gi])) continue;
    builds[gi].const_units = gl_tree_units(&p, builds, gi, half_buf);
    if (builds[gi].const_units) const_total = (const_total + align_u - 1) / align_u * align_u + builds[gi].const_units;
  }
  if ((st = gl_sched_place(&p, builds, &out->arena_n, off_of))) goto done;
  /* scratch of two-dispatch nodes: its own range past the tensors' (a few, small) */
  size_t n_pre = 0;
  for (int gi = 0; gi < p.n_groups; gi++) {
    if (!gl_group_dispatched(&p.groups[gi])) continue;
    builds[gi].scratch_off = out->arena_n;
    out->arena_n += builds[gi].gen.scratch;
    n_pre += builds[gi].gen.pre.p != NULL;
  }
  out->d = calloc((size_t)p.n_groups + n_pre + 1, sizeof *out->d);
  out->consts = calloc(const_total + 1, unit);
  out->in = calloc((size_t)part->n_inputs + 1, sizeof *out->in);
  out->out = calloc((size_t)part->n_outputs + (size_t)p.n_wb + 1, sizeof *out->out);
  if (!out->d || !out->consts || !out->in || !out->out) {
    st = tfl_fail(diag, TFL_ERR_NOMEM, "GL plan");
    goto done;
  }
  size_t cpos = 0;
  for (int gi = 0; gi < p.n_groups; gi++) {
    group_build *b = &builds[gi];
    const group *G = &p.groups[gi];
    if (!gl_group_dispatched(G)) continue;
    const bool pre = b->gen.pre.p != NULL;
    gl_plan_dispatch *pd = pre ? &out->d[out->n_d++] : NULL;
    gl_plan_dispatch *d = &out->d[out->n_d++];
    d->node = G->node;
    d->n_fused = G->n_epi;
    d->flops = group_flops(&p, builds, gi, 0);
    if (b->const_units) {
      cpos = (cpos + align_u - 1) / align_u * align_u;
      d->const_off = cpos;
      d->const_units = b->const_units;
      gl_tree_encode(&p, builds, gi, half_buf, unit, (char *)out->consts + cpos * unit);
      cpos += b->const_units;
    }
    for (int k = 0; k < b->n_objs; k++)
      if (b->obj_tensor[k] >= 0) {
        b->objs[k].off = off_of[b->obj_tensor[k]];
        b->objs[k].wide = p.wide[b->obj_tensor[k]];
      }
    gl_emit_in top = {0};
    top.fp16 = o->fp16;
    top.mediump = o->fp16 && o->tune.mediump;
    top.const_fp32 = o->fp16 && o->tune.const_fp32;
    top.has_consts = b->const_units > 0;
    top.const_base = d->const_off;
    gl_emit_in *e = gl_tree_emit(&p, builds, gi, &top, off_of);
    if (!e) {
      st = tfl_fail(diag, TFL_ERR_NOMEM, "shader of node %d", G->node);
      goto done;
    }
    e->scratch_off = b->scratch_off;
    if (pre) { /* the first dispatch: same objects and constants, its own body and grid */
      gl_gen_out pg = b->gen;
      pg.main = b->gen.pre;
      memcpy(pg.grid, b->gen.pre_grid, sizeof pg.grid);
      pg.whole_groups = false;
      memcpy(e->wg, b->gen.pre_wg, sizeof e->wg);
      e->gen = &pg;
      e->first_pass = true;
      for (int a = 0; a < 3; a++) pd->groups[a] = (pg.grid[a] + e->wg[a] - 1) / e->wg[a];
      memcpy(pd->wg, e->wg, sizeof pd->wg);
      pd->split = e->gid_base = gl_limits_needs_split(&lim, pd->groups);
      pd->src = gl_emit_source(e);
      e->first_pass = false;
      e->gid_base = false;
      e->gen = &b->gen;
      pd->node = G->node;
      pd->const_off = d->const_off;
      pd->const_units = d->const_units;
      if (!pd->src || !gl_sched_barrier(&pending, pd, b, b->scratch_off, b->gen.scratch)) {
        gl_tree_free_emit(e);
        st = tfl_fail(diag, TFL_ERR_NOMEM, "first shader of node %d", G->node);
        goto done;
      }
      if ((st = check_limits(g, &lim, pd, "first pass", o, diag))) {
        gl_tree_free_emit(e);
        goto done;
      }
      if (o->tune.all_barriers) pd->barrier = out->n_d > 2;
      out->n_barriers += pd->barrier;
    }
    if (b->gen.wg[0] > 0) memcpy(e->wg, b->gen.wg, sizeof e->wg);
    else gl_tune_workgroup(b->gen.grid, o->dev.wg, e->wg);
    e->out_off = off_of[gl_plan_root(&p, G->out)];
    e->out_wide = p.wide[gl_plan_root(&p, G->out)];
    gl_remap rm = {G->n_steps, G->step_a, G->step_b, G->step_add, b->remap_obj};
    if (G->dest >= 0) e->remap = &rm;
    gl_emit_part second = {0};
    gl_remap rm2 = {0};
    if (G->sib >= 0) { /* the paired convolution's slices follow G's own */
      const group *B = &p.groups[G->sib];
      const gl_emit_obj *ob = &b->objs[b->sib_obj];
      e->first_sh = e->out;
      gl_shape_of(&g->tensors[g->nodes[B->node].out[0]], &second.sh);
      second.s0 = e->first_sh.s;
      second.off = ob->off;
      second.wide = ob->wide;
      if (B->dest >= 0) {
        rm2 = (gl_remap){B->n_steps, B->step_a, B->step_b, B->step_add, b->sib_obj};
        second.remap = &rm2;
      }
      e->second = &second;
      e->out = gl_shape_make(e->out.b, e->out.h, e->out.w, 4 * e->first_sh.s + second.sh.c);
    }
    for (int a = 0; a < 3; a++) d->groups[a] = (b->gen.grid[a] + e->wg[a] - 1) / e->wg[a];
    memcpy(d->wg, e->wg, sizeof d->wg);
    d->split = e->gid_base = gl_limits_needs_split(&lim, d->groups);
    d->src = gl_emit_source(e);
    size_t out_n = G->dest >= 0 ? 0 : gl_shape_vec4s(e->second ? e->first_sh : e->out) * (e->out_wide ? 2 : 1);
    size_t out_off = e->out_off;
    gl_tree_free_emit(e);
    if (!d->src) {
      st = tfl_fail(diag, TFL_ERR_NOMEM, "shader source of node %d", G->node);
      goto done;
    }
    if ((st = check_limits(g, &lim, d, "its shader", o, diag))) goto done;
    if (pre) pending.n = 0; /* it reads the first dispatch's scratch: always a barrier */
    if (!gl_sched_barrier(&pending, d, b, out_off, out_n)) {
      st = tfl_fail(diag, TFL_ERR_NOMEM, "GL barriers");
      goto done;
    }
    if (pre) d->barrier = true;
    if (o->tune.all_barriers) d->barrier = out->n_d > 1;
    out->n_barriers += d->barrier;
  }
  out->const_bytes = cpos * unit;
  for (int i = 0; i < part->n_inputs; i++) {
    int t = part->inputs[i];
    out->in[out->n_in].tensor = t;
    out->in[out->n_in].off = off_of[gl_plan_root(&p, t)];
    out->in[out->n_in].wide = p.wide[gl_plan_root(&p, t)];
    gl_shape_of(&g->tensors[t], &out->in[out->n_in].sh);
    out->n_in++;
  }
  for (int i = 0; i < part->n_outputs; i++) {
    int t = part->outputs[i];
    out->out[out->n_out].tensor = t;
    out->out[out->n_out].off = off_of[gl_plan_root(&p, t)];
    out->out[out->n_out].wide = p.wide[gl_plan_root(&p, t)];
    out->out[out->n_out].feeds = read_outside(g, part, t);
    gl_shape_of(&g->tensors[t], &out->out[out->n_out].sh);
    out->n_out++;
  }
  for (int i = 0; i < p.n_wb; i++) { /* write-backs: the source's memory into the input tensor */
    out->out[out->n_out].tensor = p.wb_dst[i];
    out->out[out->n_out].off = off_of[gl_plan_root(&p, p.wb_src[i])];
    out->out[out->n_out].wide = p.wide[gl_plan_root(&p, p.wb_src[i])];
    gl_shape_of(&g->tensors[p.wb_src[i]], &out->out[out->n_out].sh);
    out->n_out++;
  }
  for (int a = 0; a < 3; a++) out->wg_count[a] = lim.wg_count[a] > 0 ? lim.wg_count[a] : 65535;
  /* the arena and the constants are one storage block each */
  size_t vec4_bytes = o->fp16 ? 8 : 16;
  if (lim.ssbo_bytes > 0 && (out->arena_n > (size_t)lim.ssbo_bytes / vec4_bytes || (long long)out->const_bytes > lim.ssbo_bytes)) {
    bool arena = out->arena_n > (size_t)lim.ssbo_bytes / vec4_bytes;
    st = tfl_fail(diag, TFL_ERR_UNSUPPORTED, "GL: %s need %zu bytes, over GL_MAX_SHADER_STORAGE_BLOCK_SIZE's %lld",
                  arena ? "activations" : "constants", arena ? out->arena_n * vec4_bytes : out->const_bytes, lim.ssbo_bytes);
    if (o->limits_hit) *o->limits_hit = true;
  }
done:
  free(pending.s);
  if (builds)
    for (int gi = 0; gi < p.n_groups; gi++) free_build(&builds[gi]);
  free(builds);
  free(p.alias);
  free(p.wide);
  free(p.group_of);
  free(p.consumers);
  free(p.is_out);
  free(p.groups);
  free(p.wb_src);
  free(p.wb_dst);
  free(off_of);
  if (st != TFL_OK) gl_plan_free(out);
  return st;
}

void gl_plan_free(gl_plan *p)
{
  if (!p) return;
  for (int i = 0; i < p->n_d; i++) free(p->d[i].src);
  free(p->d);
  free(p->consts);
  free(p->in);
  free(p->out);
  memset(p, 0, sizeof *p);
}
