/* gl_gen_eltwise.c - element-wise ops (unary activations, binary arithmetic with
 * broadcasting, PRELU). The expressions are shared with the fusion pass, which
 * appends them to the producer's store_out instead of giving them a dispatch. */
#include "gl_gen.h"
#include "gl_shaders.h"

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
  {TFL_OP_SQUARED_DIFFERENCE, "tfl_square(%1$s - %2$s)"},
  {TFL_OP_POW, "tfl_pow(%1$s, %2$s)"},
  {TFL_OP_FLOOR_DIV, "floor(%1$s / %2$s)"},
  {TFL_OP_FLOOR_MOD, "tfl_floor_mod(%1$s, %2$s)"},
  {TFL_OP_ABS, "abs(%1$s)"},
  {TFL_OP_NEG, "(-%1$s)"},
  {TFL_OP_SQRT, "sqrt(%1$s)"},
  {TFL_OP_RSQRT, "inversesqrt(%1$s)"},
  {TFL_OP_SQUARE, "tfl_square(%1$s)"},
  {TFL_OP_LOG, "log(%1$s)"},
  {TFL_OP_SIN, "sin(%1$s)"},
  {TFL_OP_COS, "cos(%1$s)"},
  {TFL_OP_FLOOR, "floor(%1$s)"},
  {TFL_OP_CEIL, "ceil(%1$s)"},
  {TFL_OP_ROUND, "roundEven(%1$s)"}, /* TFLite's ROUND: half to even */
  {TFL_OP_SIGN, "sign(%1$s)"},
  {TFL_OP_ELU, "tfl_elu(%1$s)"},
  {TFL_OP_RELU_N1_TO_1, "clamp(%1$s, FLT4(-1.0), FLT4(1.0))"},
  {TFL_OP_RELU_0_TO_1, "clamp(%1$s, FLT4(0.0), FLT4(1.0))"},
  {TFL_OP_QUANTIZE, "%1$s"}, /* the value; the store rounds it to the output's grid */
};

const char *gl_eltwise_helpers(void)
{
  return eltwise_helpers; /* shaders/eltwise_helpers.glsl */
}

bool gl_eltwise_expr(const tfl_node *n, const char *a, const char *b, gl_str *s)
{
  if (n->op == TFL_OP_GELU) {
    gl_str_addf(s, "%s(%s)", n->p.gelu.approximate ? "tfl_gelu_tanh" : "tfl_gelu", a);
    return true;
  }
  if (n->op == TFL_OP_LEAKY_RELU) { /* x > 0 ? x : alpha x, for any alpha */
    gl_str_addf(s, "tfl_leaky(%s, ", a);
    gl_str_float(s, n->p.leaky_relu.alpha);
    gl_str_addf(s, ")");
    return true;
  }
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

/* The ops added with the LayerNorm/GELU models: float tensors only (their quantized
 * forms are TFLite's lookup tables and integer arithmetic, left to the CPU). */
static bool float_only(tfl_op op)
{
  return op >= TFL_OP_ABS && op <= TFL_OP_FLOOR_MOD && op != TFL_OP_LOGICAL_NOT && op != TFL_OP_FAKE_QUANT;
}

tfl_status gl_check_eltwise(const tfl_graph *g, int node, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  bool binary = n->op == TFL_OP_ADD || n->op == TFL_OP_SUB || n->op == TFL_OP_MUL || n->op == TFL_OP_DIV ||
                n->op == TFL_OP_MAXIMUM || n->op == TFL_OP_MINIMUM || n->op == TFL_OP_PRELU ||
                n->op == TFL_OP_LOGICAL_AND || n->op == TFL_OP_POW || n->op == TFL_OP_SQUARED_DIFFERENCE ||
                n->op == TFL_OP_FLOOR_DIV || n->op == TFL_OP_FLOOR_MOD;
  int need = binary ? 2 : 1;
  if (n->n_in < need || n->n_out < 1) return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "needs %d inputs", need);
  const tfl_tensor *y = &g->tensors[n->out[0]];
  if (y->ndim > 4) return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "output has %d dims (max 4)", y->ndim);
  for (int k = 0; k < need; k++) {
    if (n->in[k] < 0) return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "input %d missing", k);
    const tfl_tensor *x = &g->tensors[n->in[k]];
    bool ok_type = n->op == TFL_OP_LOGICAL_AND ? x->type == TFL_TYPE_BOOL
                   : float_only(n->op)         ? x->type == TFL_TYPE_FLOAT32 || x->type == TFL_TYPE_FLOAT16
                                               : float_like(x->type);
    if (!ok_type)
      return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "input %d (tensor %d) is %s%s", k, n->in[k],
                           tfl_type_name(x->type), float_only(n->op) ? " (GL runs this op on floats only)" : "");
    if (!broadcasts(x, y))
      return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "input %d does not broadcast to the output", k);
  }
  if (float_only(n->op) && y->type != TFL_TYPE_FLOAT32 && y->type != TFL_TYPE_FLOAT16)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "output (tensor %d) is %s (GL runs this op on floats only)",
                         n->out[0], tfl_type_name(y->type));
  bool q8 = y->q.n > 0 && (y->type == TFL_TYPE_INT8 || y->type == TFL_TYPE_UINT8);
  /* TFLite's 8-bit DIV multiplies by a fixed-point reciprocal whose shifts saturate a
   * numerator one step from its zero point (div_i8: -0.02 / 1.28 gives -128): CPU only */
  if (q8 && n->op == TFL_OP_DIV)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "8-bit DIV (TFLite's fixed-point reciprocal, CPU only)");
  /* TFLite's 8-bit MAXIMUM / MINIMUM compare and copy the raw codes, whatever the scales */
  for (int k = 0; q8 && (n->op == TFL_OP_MAXIMUM || n->op == TFL_OP_MINIMUM) && k < 2; k++) {
    const tfl_tensor *x = &g->tensors[n->in[k]];
    if (x->q.n != 1 || y->q.n != 1 || x->q.scale[0] != y->q.scale[0] || x->q.zero_point[0] != y->q.zero_point[0])
      return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node,
                           "input %d's quantization differs from the output's (TFLite compares raw codes, CPU only)", k);
  }
  if (has_act(n->op) && !gl_act_ok(n->p.eltwise.act))
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "fused activation %d", (int)n->p.eltwise.act);
  return TFL_OK;
}

tfl_status gl_check_quantize(const tfl_graph *g, int node, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  if (n->n_in < 1 || n->n_out < 1 || n->in[0] < 0 || n->out[0] < 0)
    return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "needs an input and an output");
  const tfl_tensor *x = &g->tensors[n->in[0]], *y = &g->tensors[n->out[0]];
  if (y->type != TFL_TYPE_INT8 && y->type != TFL_TYPE_UINT8)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "output (tensor %d) is %s (GL: 8-bit only)", n->out[0],
                         tfl_type_name(y->type));
  /* the store rounds with one scale and zero point (gl_quant_stmt) */
  if (y->q.n != 1)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "output (tensor %d) has %d scales (GL: one per tensor)",
                         n->out[0], y->q.n);
  if (!float_like(x->type) || (x->type != TFL_TYPE_FLOAT32 && x->type != TFL_TYPE_FLOAT16 && x->q.n != 1))
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "input (tensor %d) is %s with %d scales", n->in[0],
                         tfl_type_name(x->type), x->q.n);
  if (x->ndim > 4 || tfl_tensor_count(x) != tfl_tensor_count(y) || x->ndim != y->ndim)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "input (tensor %d) is not the output's shape (up to 4 dims)",
                         n->in[0]);
  for (int d = 0; d < x->ndim; d++)
    if (x->dims[d] != y->dims[d])
      return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "input dim %d is %d, output %d", d, x->dims[d], y->dims[d]);
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

/* ADD_N: the sum of its inputs (same shapes; float only), up to GL_GEN_MAX_IN of them. */
tfl_status gl_check_add_n(const tfl_graph *g, int node, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  if (n->n_in < 1 || n->n_in > GL_GEN_MAX_IN || n->n_out < 1 || n->out[0] < 0)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "%d inputs (GL: 1..%d)", n->n_in, GL_GEN_MAX_IN);
  const tfl_tensor *y = &g->tensors[n->out[0]];
  for (int k = 0; k < n->n_in; k++) {
    const tfl_tensor *x = n->in[k] >= 0 ? &g->tensors[n->in[k]] : NULL;
    if (!x || (x->type != TFL_TYPE_FLOAT32 && x->type != TFL_TYPE_FLOAT16) || tfl_tensor_count(x) != tfl_tensor_count(y) ||
        x->ndim != y->ndim)
      return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "input %d (tensor %d) is not a float tensor of the output's shape",
                           k, n->in[k]);
  }
  return TFL_OK;
}

tfl_status gl_gen_add_n(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  (void)diag;
  gl_gen_per_vec4(in, o);
  gl_str_addf(&o->main, "  ACC4 v = vec4(I0_LD(b, y, x, s));\n");
  for (int k = 1; k < in->n_in; k++) gl_str_addf(&o->main, "  v += vec4(I%d_LD(b, y, x, s));\n", k);
  gl_str_addf(&o->main, "  store_out(b, y, x, s, v);\n");
  return TFL_OK;
}
