/* tfl_fused_act.c - see tfl_fused_act.h. */
#include "tfl_fused_act.h"

#include <stddef.h>

const char *tfl_act_name(tfl_activation a)
{
  static const char *const names[] = {"NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH", "SIGN_BIT", "SIGMOID"};
  return (unsigned)a < sizeof names / sizeof names[0] ? names[a] : "?";
}

static const tfl_activation *field(const tfl_node *n)
{
  switch (n->op) {
  case TFL_OP_ADD:
  case TFL_OP_SUB:
  case TFL_OP_MUL:
  case TFL_OP_DIV:
  case TFL_OP_L2_NORMALIZATION: return &n->p.eltwise.act;
  case TFL_OP_AVERAGE_POOL_2D:
  case TFL_OP_MAX_POOL_2D:
  case TFL_OP_L2_POOL_2D: return &n->p.pool.act;
  case TFL_OP_CONV_2D:
  case TFL_OP_DEPTHWISE_CONV_2D:
  case TFL_OP_TRANSPOSE_CONV: return &n->p.conv.act;
  case TFL_OP_CONV_3D:
  case TFL_OP_CONV_3D_TRANSPOSE: return &n->p.conv3d.act;
  case TFL_OP_FULLY_CONNECTED: return &n->p.fc.act;
  case TFL_OP_CONCATENATION: return &n->p.concat.act;
  default: return NULL;
  }
}

tfl_activation tfl_fused_act_of(const tfl_node *n)
{
  const tfl_activation *a = field(n);
  return a ? *a : TFL_ACT_NONE;
}

static bool is_clamp(tfl_activation a)
{
  return a == TFL_ACT_NONE || a == TFL_ACT_RELU || a == TFL_ACT_RELU_N1_TO_1 || a == TFL_ACT_RELU6;
}

/* fully_connected.cc: 8-bit weights read by a float input */
static bool fc_hybrid(const tfl_graph *g, const tfl_node *n)
{
  if (n->n_in < 2 || n->in[0] < 0 || n->in[1] < 0 || n->in[0] >= g->n_tensors || n->in[1] >= g->n_tensors)
    return false;
  tfl_type x = g->tensors[n->in[0]].type, w = g->tensors[n->in[1]].type;
  return x == TFL_TYPE_FLOAT32 && (w == TFL_TYPE_INT8 || w == TFL_TYPE_UINT8);
}

tfl_fused_act_rule tfl_fused_act_rule_of(const tfl_graph *g, const tfl_node *n, const char **why)
{
  tfl_activation a = tfl_fused_act_of(n);
  if (a == TFL_ACT_NONE) return TFL_FUSED_ACT_APPLY;
  switch (n->op) {
  case TFL_OP_CONCATENATION:
  case TFL_OP_L2_NORMALIZATION:
    if (why) *why = "TensorFlow Lite's kernel takes NONE only";
    return TFL_FUSED_ACT_REFUSE;
  case TFL_OP_FULLY_CONNECTED:
    if (is_clamp(a) || fc_hybrid(g, n)) return TFL_FUSED_ACT_APPLY;
    if (why) *why = "TensorFlow Lite's kernel takes NONE, RELU, RELU_N1_TO_1 or RELU6 unless the node is hybrid";
    return TFL_FUSED_ACT_REFUSE;
  default:
    return is_clamp(a) ? TFL_FUSED_ACT_APPLY : TFL_FUSED_ACT_IGNORE;
  }
}

/* A convolution with 8-bit constant weights read by a float input. */
static bool conv_hybrid(const tfl_graph *g, const tfl_node *n)
{
  if (n->op != TFL_OP_CONV_2D && n->op != TFL_OP_DEPTHWISE_CONV_2D && n->op != TFL_OP_TRANSPOSE_CONV) return false;
  int xi = n->op == TFL_OP_TRANSPOSE_CONV ? 2 : 0;
  if (n->n_in <= xi || n->n_in < 2 || n->in[xi] < 0 || n->in[1] < 0 || n->in[xi] >= g->n_tensors ||
      n->in[1] >= g->n_tensors)
    return false;
  tfl_type x = g->tensors[n->in[xi]].type, w = g->tensors[n->in[1]].type;
  return x == TFL_TYPE_FLOAT32 && (w == TFL_TYPE_INT8 || w == TFL_TYPE_UINT8);
}

void tfl_fused_act_normalize(tfl_graph *g)
{
  for (int i = 0; i < g->n_nodes; i++) {
    tfl_node *n = &g->nodes[i];
    /* kept: LiteRT's XNNPACK delegate declines a hybrid convolution with TANH or SIGN_BIT,
     * so TFLite's own kernel runs it (another input quantization), and the CPU delegate
     * reads the activation to follow that choice; its kernels ignore it, GL declines it */
    if (conv_hybrid(g, n)) continue;
    /* field() points into n, which is not const here */
    if (tfl_fused_act_rule_of(g, n, NULL) == TFL_FUSED_ACT_IGNORE) *(tfl_activation *)field(n) = TFL_ACT_NONE;
  }
}

bool tfl_act_is_clamp(tfl_activation act)
{
  switch (act) {
  case TFL_ACT_NONE:
  case TFL_ACT_RELU:
  case TFL_ACT_RELU_N1_TO_1:
  case TFL_ACT_RELU6: return true;
  case TFL_ACT_TANH:
  case TFL_ACT_SIGN_BIT:
  case TFL_ACT_SIGMOID: return false;
  }
  return false;
}
