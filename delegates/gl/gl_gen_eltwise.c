/* gl_gen_eltwise.c - element-wise ops (unary activations, binary arithmetic with
 * broadcasting, PRELU). The expressions are shared with the fusion pass, which
 * appends them to the producer's store_out instead of giving them a dispatch. */
#include "gl_gen.h"

#include <string.h>

/* GLSL of each element-wise op: %1$s is input 0, %2$s input 1. */
static const struct {
  tfl_op op;
  const char *fmt;
} exprs[] = {
  {TFL_OP_ADD, "(%1$s + %2$s)"},
  {TFL_OP_SUB, "(%1$s - %2$s)"},
  {TFL_OP_MUL, "(%1$s * %2$s)"},
  {TFL_OP_DIV, "(%1$s / %2$s)"},
  {TFL_OP_MAXIMUM, "max(%1$s, %2$s)"},
  {TFL_OP_MINIMUM, "min(%1$s, %2$s)"},
  {TFL_OP_PRELU, "(max(%1$s, FLT4(0.0)) + %2$s * min(%1$s, FLT4(0.0)))"},
  {TFL_OP_LOGICAL_AND, "FLT4(min(vec4(notEqual(vec4(%1$s), vec4(0.0))), vec4(notEqual(vec4(%2$s), vec4(0.0)))))"},
  {TFL_OP_RELU, "max(%1$s, FLT4(0.0))"},
  {TFL_OP_RELU6, "clamp(%1$s, FLT4(0.0), FLT4(6.0))"},
  {TFL_OP_LOGISTIC, "(FLT4(1.0) / (FLT4(1.0) + exp(-%1$s)))"},
  {TFL_OP_TANH, "tanh(clamp(%1$s, FLT4(-10.0), FLT4(10.0)))"}, /* some drivers give NaN past exp's range */
  {TFL_OP_EXP, "exp(%1$s)"},
  {TFL_OP_HARD_SWISH, "(%1$s * clamp(%1$s + FLT4(3.0), FLT4(0.0), FLT4(6.0)) * FLT4(1.0 / 6.0))"},
};

bool gl_eltwise_expr(const tfl_node *n, const char *a, const char *b, gl_str *s)
{
  for (size_t i = 0; i < sizeof exprs / sizeof exprs[0]; i++)
    if (exprs[i].op == n->op) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
      gl_str_addf(s, exprs[i].fmt, a, b);
#pragma GCC diagnostic pop
      return true;
    }
  return false;
}

static bool has_act(tfl_op op)
{
  return op == TFL_OP_ADD || op == TFL_OP_SUB || op == TFL_OP_MUL || op == TFL_OP_DIV;
}

static bool float_like(tfl_type t)
{
  return t == TFL_TYPE_FLOAT32 || t == TFL_TYPE_FLOAT16 || t == TFL_TYPE_UINT8 || t == TFL_TYPE_INT8;
}

/* in (right-aligned to the output's rank) broadcasts to out? */
static bool broadcasts(const tfl_tensor *in, const tfl_tensor *out)
{
  if (in->ndim > out->ndim) return false;
  int off = out->ndim - in->ndim;
  for (int d = 0; d < in->ndim; d++)
    if (in->dims[d] != out->dims[d + off] && in->dims[d] != 1) return false;
  return true;
}

tfl_status gl_check_eltwise(const tfl_graph *g, int node, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  bool binary = n->op == TFL_OP_ADD || n->op == TFL_OP_SUB || n->op == TFL_OP_MUL || n->op == TFL_OP_DIV ||
                n->op == TFL_OP_MAXIMUM || n->op == TFL_OP_MINIMUM || n->op == TFL_OP_PRELU ||
                n->op == TFL_OP_LOGICAL_AND;
  int need = binary ? 2 : 1;
  if (n->n_in < need || n->n_out < 1) return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "needs %d inputs", need);
  const tfl_tensor *y = &g->tensors[n->out[0]];
  if (y->ndim > 4) return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "output has %d dims (max 4)", y->ndim);
  for (int k = 0; k < need; k++) {
    if (n->in[k] < 0) return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "input %d missing", k);
    const tfl_tensor *x = &g->tensors[n->in[k]];
    bool ok_type = n->op == TFL_OP_LOGICAL_AND ? x->type == TFL_TYPE_BOOL : float_like(x->type);
    if (!ok_type) return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "input %d is %s", k, tfl_type_name(x->type));
    if (!broadcasts(x, y))
      return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "input %d does not broadcast to the output", k);
  }
  if (has_act(n->op) && !gl_act_ok(n->p.eltwise.act))
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "fused activation %d", (int)n->p.eltwise.act);
  return TFL_OK;
}

tfl_status gl_gen_eltwise(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  gl_gen_per_vec4(in, o);
  gl_str_addf(&o->main, "  FLT4 v = ");
  gl_eltwise_expr(in->n, "I0_LDB(b, y, x, s)", "I1_LDB(b, y, x, s)", &o->main);
  gl_str_addf(&o->main, ";\n");
  if (has_act(in->n->op)) gl_act_stmt(in->n->p.eltwise.act, "v", &o->main);
  gl_str_addf(&o->main, "  store_out(b, y, x, s, v);\n");
  return TFL_OK;
}
