/* gl_gen_reduce.c - SUM, MEAN, REDUCE_MAX, REDUCE_MIN and REDUCE_PROD over any constant
 * axes of a tensor of up to 4 dims (LayerNorm's mean over the channels or the last axis
 * of a 2-D/3-D tensor, a sum over the batch ...). MEAN over exactly height and width of a
 * 4-D input keeps the parallel workgroup mean of gl_gen_pool.c.
 *
 * The reduced dims are those of the delegate's BHWC view (gl_axis_4d); the output's
 * elements are the kept dims in row-major order. With the channels kept, the output's
 * last dim is the input's, so each invocation reduces whole vec4s of one output slice;
 * with the channels reduced, each of an output vec4's lanes is its own reduction, every
 * input slice folded into it with the lanes past C masked. One invocation loops over the
 * whole reduction (no workgroup split). */
#include "gl_gen.h"

#include "runtime/tfl_reduce_axes.h"

static const char *const dim_name[4] = {"B", "H", "W", "C"};

/* The BHWC dims the node reduces (red[4]); false with an error in diag. */
static bool reduced_dims(const tfl_graph *g, int node, bool red[4], tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  const tfl_tensor *x = &g->tensors[n->in[0]], *ax = &g->tensors[n->in[1]];
  bool r[TFL_MAX_DIMS] = {false};
  int64_t bad = 0;
  if (tfl_tensor_count(ax) > 0 && !tfl_reduce_axes_mask(ax, x->ndim, r, &bad)) {
    gl_node_error(diag, TFL_ERR_SHAPE, g, node, "axis %lld out of range for input tensor %d of %d dims", (long long)bad,
                  n->in[0], x->ndim);
    return false;
  }
  for (int d = 0; d < 4; d++) red[d] = false;
  for (int d = 0; d < x->ndim; d++)
    if (r[d]) red[gl_axis_4d(x->ndim, d)] = true;
  return true;
}

bool gl_mean_is_spatial(const tfl_graph *g, int node)
{
  const tfl_node *n = &g->nodes[node];
  bool red[4];
  tfl_diag quiet;
  tfl_diag_init(&quiet);
  return n->op == TFL_OP_MEAN && g->tensors[n->in[0]].ndim == 4 && reduced_dims(g, node, red, &quiet) && !red[0] &&
         red[1] && red[2] && !red[3];
}

tfl_status gl_check_reduce(const tfl_graph *g, int node, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  if (n->n_in < 2 || n->in[0] < 0 || n->in[1] < 0 || n->n_out < 1 || n->out[0] < 0)
    return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "needs an input, the axes and an output");
  const tfl_tensor *x = &g->tensors[n->in[0]], *ax = &g->tensors[n->in[1]], *y = &g->tensors[n->out[0]];
  /* no axes at all (an empty constant tensor, maybe without data): a copy */
  bool none = ax->ndim >= 1 && tfl_tensor_count(ax) == 0;
  if (!ax->is_const || (!none && (!ax->data || (ax->type != TFL_TYPE_INT32 && ax->type != TFL_TYPE_INT64))))
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "axes (tensor %d) are not a constant int32/int64 tensor",
                         n->in[1]);
  if (x->ndim > 4 || y->ndim > 4)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "input tensor %d has %d dims, output %d (max 4)", n->in[0],
                         x->ndim, y->ndim);
  if (gl_mean_is_spatial(g, node)) return gl_check_mean(g, node, diag);
  bool fx = x->type == TFL_TYPE_FLOAT32 || x->type == TFL_TYPE_FLOAT16;
  bool fy = y->type == TFL_TYPE_FLOAT32 || y->type == TFL_TYPE_FLOAT16;
  if (!fx || !fy)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node,
                         "%s -> %s (tensors %d -> %d): GL reduces floats only (but MEAN over height and width)",
                         tfl_type_name(x->type), tfl_type_name(y->type), n->in[0], n->out[0]);
  bool red[4];
  if (!reduced_dims(g, node, red, diag)) return TFL_ERR_SHAPE;
  gl_shape xs, ys;
  gl_shape_of(x, &xs);
  gl_shape_of(y, &ys);
  const int dims[4] = {xs.b, xs.h, xs.w, xs.c};
  long kept = 1, out = (long)ys.b * ys.h * ys.w * ys.c;
  for (int d = 0; d < 4; d++) kept *= red[d] ? 1 : dims[d];
  if (kept != out)
    return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "output tensor %d holds %ld values, the kept dims %ld", n->out[0],
                         out, kept);
  if (!red[3] && ys.c != xs.c)
    return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "channels kept but output tensor %d has %d of them, input %d",
                         n->out[0], ys.c, xs.c);
  return TFL_OK;
}

/* Splits `q` (an int expression already declared as variable q) into the kept dims of
 * dims[0..3) (B, H, W; innermost last), declaring i0 i1 i2 for them; reduced ones get
 * their loops later. */
static void emit_kept_coords(gl_str *m, const bool red[4])
{
  static const char *const size[3] = {"I0_B", "I0_H", "I0_W"};
  for (int d = 2; d >= 0; d--)
    if (!red[d]) gl_str_addf(m, "    int i%d = q %% %s;\n    q /= %s;\n", d, size[d], size[d]);
}

/* Opens a loop for each reduced dim among B, H, W (closed by the caller, one "}" each). */
static int emit_loops(gl_str *m, const bool red[4])
{
  static const char *const size[3] = {"I0_B", "I0_H", "I0_W"};
  int open = 0;
  for (int d = 0; d < 3; d++)
    if (red[d]) {
      gl_str_addf(m, "    for (int i%d = 0; i%d < %s; i%d++) {\n", d, d, size[d], d);
      open++;
    }
  return open;
}

tfl_status gl_gen_reduce(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  const tfl_graph *g = in->g;
  if (gl_mean_is_spatial(g, in->node)) return gl_gen_mean(in, o, diag);
  bool red[4];
  if (!reduced_dims(g, in->node, red, diag)) return TFL_ERR_SHAPE;
  const gl_shape xs = in->in[0];
  const int dims[4] = {xs.b, xs.h, xs.w, xs.c};
  long count = 1;
  for (int d = 0; d < 4; d++) count *= red[d] ? dims[d] : 1;
  const tfl_op op = in->n->op;
  if (op != TFL_OP_SUM && op != TFL_OP_MEAN && op != TFL_OP_REDUCE_MAX && op != TFL_OP_REDUCE_MIN &&
      op != TFL_OP_REDUCE_PROD)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, in->node, "not a reduction");
  /* the identity and the step of each reducer (SUM and MEAN: sums) */
  const char *ident = op == TFL_OP_REDUCE_MAX   ? "-uintBitsToFloat(0x7f800000u)"
                      : op == TFL_OP_REDUCE_MIN  ? "uintBitsToFloat(0x7f800000u)"
                      : op == TFL_OP_REDUCE_PROD ? "1.0"
                                                 : "0.0";
  const char *step = op == TFL_OP_REDUCE_MAX   ? "max(acc, v)"
                     : op == TFL_OP_REDUCE_MIN  ? "min(acc, v)"
                     : op == TFL_OP_REDUCE_PROD ? "acc * v"
                                                : "acc + v";
  gl_gen_per_vec4(in, o);
  gl_str *m = &o->main;
  gl_str_addf(m, "  /* %s over", tfl_op_name(in->n->op));
  for (int d = 0; d < 4; d++)
    if (red[d]) gl_str_addf(m, " %s", dim_name[d]);
  gl_str_addf(m, " */\n  ACC4 r = vec4(0.0);\n");
  if (!red[3]) {
    /* one output slice s is input slice s: reduce vec4s */
    gl_str_addf(m, "  {\n    int q = (b * O_H + y) * O_W + x;\n");
    emit_kept_coords(m, red);
    gl_str_addf(m, "    ACC4 acc = vec4(%s);\n", ident);
    int open = emit_loops(m, red);
    gl_str_addf(m, "    ACC4 v = vec4(I0_LD(i0, i1, i2, s));\n    acc = %s;\n", step);
    for (int k = 0; k < open; k++) gl_str_addf(m, "    }\n");
    gl_str_addf(m, "    r = acc;\n  }\n");
  } else {
    /* each lane its own reduction over the input's slices (lanes past I0_C masked) */
    gl_str_addf(m,
                "  for (int l = 0; l < 4; l++) {\n"
                "    if (s * 4 + l >= O_C) break;\n"
                "    int q = ((b * O_H + y) * O_W + x) * O_C + s * 4 + l;\n");
    emit_kept_coords(m, red);
    gl_str_addf(m, "    ACC4 acc = vec4(%s);\n", ident);
    int open = emit_loops(m, red);
    gl_str_addf(m,
                "    for (int si = 0; si < I0_S; si++) {\n"
                "      ACC4 v = vec4(I0_LD(i0, i1, i2, si));\n"
                "      if (si == I0_S - 1) v = mix(v, vec4(%s), greaterThanEqual(ivec4(si * 4) + ivec4(0, 1, 2, 3), "
                "ivec4(I0_C)));\n"
                "      acc = %s;\n"
                "    }\n",
                ident, step);
    for (int k = 0; k < open; k++) gl_str_addf(m, "    }\n");
    /* fold the four lanes */
    const char *fold = in->n->op == TFL_OP_REDUCE_MAX   ? "max(max(acc.x, acc.y), max(acc.z, acc.w))"
                       : in->n->op == TFL_OP_REDUCE_MIN ? "min(min(acc.x, acc.y), min(acc.z, acc.w))"
                       : in->n->op == TFL_OP_REDUCE_PROD ? "acc.x * acc.y * acc.z * acc.w"
                                                         : "(acc.x + acc.y) + (acc.z + acc.w)";
    gl_str_addf(m, "    r[l] = %s;\n  }\n", fold);
  }
  if (in->n->op == TFL_OP_MEAN) {
    gl_str_addf(m, "  r /= %ld.0;\n", count);
  }
  gl_str_addf(m, "  store_out(b, y, x, s, r);\n");
  return TFL_OK;
}
