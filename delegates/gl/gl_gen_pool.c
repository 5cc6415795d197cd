/* gl_gen_pool.c - AVERAGE_POOL_2D, MAX_POOL_2D, MEAN over height and width, SOFTMAX
 * over channels. Pooling skips window positions outside the input (TFLite's
 * convention: averages count only the pixels inside). */
#include "gl_gen.h"

#include <stdlib.h>

#include "gl_shaders.h"
#include "runtime/tfl_padding.h"

static bool float_like(tfl_type t)
{
  return t == TFL_TYPE_FLOAT32 || t == TFL_TYPE_FLOAT16 || t == TFL_TYPE_UINT8 || t == TFL_TYPE_INT8;
}

static tfl_status check_unary_io(const tfl_graph *g, int node, int ndim, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  if (n->n_in < 1 || n->in[0] < 0 || n->n_out < 1) return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "missing input or output");
  const tfl_tensor *x = &g->tensors[n->in[0]], *y = &g->tensors[n->out[0]];
  if (!float_like(x->type) || !float_like(y->type))
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "types %s -> %s", tfl_type_name(x->type), tfl_type_name(y->type));
  if (ndim && x->ndim != ndim) return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "input has %d dims, need %d", x->ndim, ndim);
  if (x->ndim > 4 || y->ndim > 4) return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "more than 4 dims");
  return TFL_OK;
}

static void emit_global_mean(const gl_gen_in *in, gl_gen_out *o, tfl_activation act);

/* Float32 in and out, for the ops GL runs on float32 only. */
static tfl_status check_f32(const tfl_graph *g, int node, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  const tfl_tensor *x = &g->tensors[n->in[0]], *y = &g->tensors[n->out[0]];
  if (x->type != TFL_TYPE_FLOAT32 || y->type != TFL_TYPE_FLOAT32)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "%s -> %s (tensors %d -> %d): GL takes float32 only",
                         tfl_type_name(x->type), tfl_type_name(y->type), n->in[0], n->out[0]);
  return TFL_OK;
}

tfl_status gl_check_pool(const tfl_graph *g, int node, tfl_diag *diag)
{
  tfl_status s = check_unary_io(g, node, 4, diag);
  if (s) return s;
  if (g->nodes[node].op == TFL_OP_L2_POOL_2D && (s = check_f32(g, node, diag))) return s;
  const tfl_pool_params *p = &g->nodes[node].p.pool;
  if (p->stride_w < 1 || p->stride_h < 1 || p->filter_w < 1 || p->filter_h < 1)
    return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "stride %dx%d filter %dx%d", p->stride_w, p->stride_h, p->filter_w,
                         p->filter_h);
  if (!gl_act_ok(p->act)) return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "activation %d", (int)p->act);
  return TFL_OK;
}

tfl_status gl_gen_pool(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  const tfl_pool_params *p = &in->n->p.pool;
  bool avg = in->n->op == TFL_OP_AVERAGE_POOL_2D;
  bool l2 = in->n->op == TFL_OP_L2_POOL_2D; /* sqrt(mean of x^2) over the in-bounds taps */
  int pt = tfl_conv_pad_before(p->padding, in->in[0].h, p->filter_h, p->stride_h, 1, in->out.h);
  int pl = tfl_conv_pad_before(p->padding, in->in[0].w, p->filter_w, p->stride_w, 1, in->out.w);
  /* an average whose one window holds every input pixel: the parallel mean */
  if (avg && in->out.h == 1 && in->out.w == 1 && pt <= 0 && pl <= 0 && p->filter_h - pt >= in->in[0].h &&
      p->filter_w - pl >= in->in[0].w) {
    emit_global_mean(in, o, p->act);
    return TFL_OK;
  }
  /* a pool is never inlined into a consumer (gl_fuse_cost), so it may declare */
  gl_str_addf(&o->decls,
              "#define PL_KH %d\n#define PL_KW %d\n#define PL_SH %d\n#define PL_SW %d\n#define PL_PT %d\n"
              "#define PL_PL %d\n#define %s 1\n",
              p->filter_h, p->filter_w, p->stride_h, p->stride_w, pt, pl, avg ? "PL_AVG" : l2 ? "PL_L2" : "PL_MAX");
  gl_gen_per_vec4(in, o);
  gl_str *m = &o->main;
  gl_str_addf(m, "%s", pool); /* shaders/pool.glsl */
  gl_act_stmt(p->act, "acc", m);
  gl_str_addf(m, "  store_out(b, y, x, s, acc);\n");
  return TFL_OK;
}

/* MEAN: only over the spatial axes of a 4-D input (what the models use). */
tfl_status gl_check_mean(const tfl_graph *g, int node, tfl_diag *diag)
{
  tfl_status s = check_unary_io(g, node, 4, diag);
  if (s) return s;
  const tfl_node *n = &g->nodes[node];
  if (n->n_in < 2 || n->in[1] < 0) return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "missing axes");
  const tfl_tensor *ax = &g->tensors[n->in[1]];
  if (!ax->is_const || !ax->data || ax->type != TFL_TYPE_INT32)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "axes are not a constant int32 tensor");
  bool seen[4] = {false};
  for (size_t i = 0; i < tfl_tensor_count(ax); i++) {
    int a = ((const int32_t *)ax->data)[i];
    if (a < 0) a += 4;
    if (a < 0 || a > 3) return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "axis %d", a);
    seen[a] = true;
  }
  if (seen[0] || seen[3] || !seen[1] || !seen[2])
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "only the mean over height and width runs on GL");
  return TFL_OK;
}

/* Mean over all pixels of each input slice: one workgroup of reduce_wg invocations (gl_gen_tile) per
 * output vec4, strided coalesced reads, then a tree in shared memory (written out
 * step by step: GLSL ES allows no barrier() inside loops). fp32 sums either way. */
static void emit_global_mean(const gl_gen_in *in, gl_gen_out *o, tfl_activation act)
{
  o->grid[0] = in->tile.reduce_wg;
  o->grid[1] = 1;
  o->grid[2] = in->out.b * in->out.s;
  o->wg[0] = in->tile.reduce_wg;
  o->wg[1] = o->wg[2] = 1;
  o->whole_groups = true;
  gl_str_addf(&o->decls, "shared highp vec4 red[%d];\n", in->tile.reduce_wg);
  gl_str *m = &o->main;
  gl_str_addf(m,
              "  int t = gid.x, s = gid.z %% O_S, b = gid.z / O_S;\n"
              "  highp vec4 acc = vec4(0.0);\n"
              "  for (int i = t; i < I0_H * I0_W; i += %d) acc += vec4(I0_LD(b, i / I0_W, i %% I0_W, s));\n",
              in->tile.reduce_wg);
  gl_emit_tree_sum(m, "red", "t", in->tile.reduce_wg);
  gl_str_addf(m, "  if (t == 0) {\n    ACC4 acc = red[0] * (1.0 / float(I0_H * I0_W));\n");
  gl_act_stmt(act, "acc", m);
  gl_str_addf(m, "    store_out(b, 0, 0, s, acc);\n  }\n");
}

tfl_status gl_gen_mean(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  emit_global_mean(in, o, TFL_ACT_NONE);
  return TFL_OK;
}

tfl_status gl_check_softmax(const tfl_graph *g, int node, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  if (n->op == TFL_OP_LOG_SOFTMAX && n->n_in >= 1 && n->in[0] >= 0 && n->n_out >= 1 && n->out[0] >= 0) {
    const tfl_tensor *x = &g->tensors[n->in[0]], *y = &g->tensors[n->out[0]];
    if (x->type != TFL_TYPE_FLOAT32 || y->type != TFL_TYPE_FLOAT32)
      return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "%s -> %s (tensors %d -> %d): GL takes float32 only",
                           tfl_type_name(x->type), tfl_type_name(y->type), n->in[0], n->out[0]);
  }
  return check_unary_io(g, node, 0, diag);
}

/* SOFTMAX, and LOG_SOFTMAX (beta 1): x - max - log(sum(exp(x - max))), as TFLite */
tfl_status gl_gen_softmax(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  const bool log_sm = in->n->op == TFL_OP_LOG_SOFTMAX;
  o->grid[0] = in->out.w;
  o->grid[1] = in->out.h;
  o->grid[2] = in->out.b;
  gl_str_addf(&o->decls, "#define SM_BETA ");
  gl_str_float(&o->decls, log_sm ? 1.0f : in->n->p.softmax.beta);
  gl_str_addf(&o->decls, "\n%s", log_sm ? "#define SM_LOG 1\n" : "");
  gl_str_addf(&o->main, "%s", softmax); /* shaders/softmax.glsl */
  return TFL_OK;
}

/* L2_NORMALIZATION over the last axis (float32): x / max(sqrt(sum x^2), 1e-6), as TFLite. */
tfl_status gl_check_l2norm(const tfl_graph *g, int node, tfl_diag *diag)
{
  tfl_status s = check_unary_io(g, node, 0, diag);
  return s ? s : check_f32(g, node, diag);
}

tfl_status gl_gen_l2norm(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  (void)diag;
  o->grid[0] = in->out.w;
  o->grid[1] = in->out.h;
  o->grid[2] = in->out.b;
  gl_str_addf(&o->main,
              "  int x = gid.x, y = gid.y, b = gid.z;\n"
              "  highp float sq = 0.0;\n" /* lanes past I0_C are zero */
              "  for (int s = 0; s < I0_S; s++) { highp vec4 v = vec4(I0_LD(b, y, x, s)); sq += dot(v, v); }\n"
              "  highp float norm = max(sqrt(sq), 1e-6);\n"
              "  for (int s = 0; s < I0_S; s++) store_out(b, y, x, s, FLT4(vec4(I0_LD(b, y, x, s)) / norm));\n");
  return TFL_OK;
}

/* LOCAL_RESPONSE_NORMALIZATION (float32, 4-D): x * (bias + alpha * sum of x^2 over channels
 * c - radius .. c + radius)^-beta, as TFLite. */
tfl_status gl_check_lrn(const tfl_graph *g, int node, tfl_diag *diag)
{
  tfl_status s = check_unary_io(g, node, 4, diag);
  if (s || (s = check_f32(g, node, diag))) return s;
  const tfl_lrn_params *p = &g->nodes[node].p.lrn;
  if (p->radius < 0 || p->radius > 4096)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "radius %d (GL: 0..4096)", p->radius);
  return TFL_OK;
}

tfl_status gl_gen_lrn(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  (void)diag;
  const tfl_lrn_params *p = &in->n->p.lrn;
  gl_gen_per_vec4(in, o);
  gl_str *m = &o->main;
  gl_str_addf(m, "  const highp float alpha = ");
  gl_str_float(m, p->alpha);
  gl_str_addf(m, ", bias = ");
  gl_str_float(m, p->bias);
  gl_str_addf(m, ", beta = ");
  gl_str_float(m, p->beta);
  gl_str_addf(m,
              ";\n"
              "  ACC4 r = vec4(0.0);\n"
              "  for (int l = 0; l < 4; l++) {\n"
              "    int c = s * 4 + l;\n"
              "    if (c >= O_C) break;\n"
              "    highp float acc = 0.0;\n"
              "    for (int k = max(c - %d, 0); k <= min(c + %d, I0_C - 1); k++) {\n"
              "      highp float v = float(I0_AT(b, y, x, k));\n"
              "      acc += v * v * alpha;\n"
              "    }\n"
              "    r[l] = float(I0_AT(b, y, x, c)) * pow(bias + acc, -beta);\n"
              "  }\n"
              "  store_out(b, y, x, s, r);\n",
              p->radius, p->radius);
  return TFL_OK;
}
