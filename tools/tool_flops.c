/* tool_flops.c - multiply-adds per node (see tool_flops.h). */
#include "tool_flops.h"

static const tfl_tensor *tensor(const tfl_graph *g, const tfl_node *n, bool out, int i)
{
  const int count = out ? n->n_out : n->n_in;
  const int32_t idx = i < count ? (out ? n->out[i] : n->in[i]) : -1;
  return idx >= 0 && idx < g->n_tensors ? &g->tensors[idx] : NULL;
}

/* Product of the dims of t except the last (the pixels of an NHWC tensor). */
static double outer(const tfl_tensor *t)
{
  double p = 1;
  for (int d = 0; d + 1 < t->ndim; d++) p *= t->dims[d];
  return p;
}

double tool_node_macs(const tfl_graph *g, int i)
{
  if (i < 0 || i >= g->n_nodes || g->nodes[i].dead) return 0;
  const tfl_node *n = &g->nodes[i];
  const tfl_tensor *x = tensor(g, n, false, 0), *w = tensor(g, n, false, 1), *y = tensor(g, n, true, 0);
  if (n->op == TFL_OP_CONV_2D) {
    /* filter [out_c, kh, kw, in_c / groups]: every output element reads one filter */
    if (!w || !y || w->ndim != 4 || y->ndim != 4) return 0;
    return outer(y) * y->dims[3] * (double)w->dims[1] * w->dims[2] * w->dims[3];
  }
  if (n->op == TFL_OP_DEPTHWISE_CONV_2D) {
    /* filter [1, kh, kw, out_c]: each output element is one kh x kw window */
    if (!w || !y || w->ndim != 4) return 0;
    return (double)tfl_tensor_count(y) * w->dims[1] * w->dims[2];
  }
  if (n->op == TFL_OP_FULLY_CONNECTED) {
    /* weights [units, depth] */
    if (!w || !y || w->ndim != 2) return 0;
    return (double)tfl_tensor_count(y) * w->dims[1];
  }
  if (n->op == TFL_OP_TRANSPOSE_CONV || n->op == TFL_OP_CONV2D_TRANSPOSE_BIAS) {
    /* filter [out_c, kh, kw, in_c]; the activation is input 2 of TRANSPOSE_CONV (after
     * the output shape), input 0 of MediaPipe's Convolution2DTransposeBias */
    if (n->op == TFL_OP_TRANSPOSE_CONV) x = tensor(g, n, false, 2);
    if (!x || !w || w->ndim != 4 || x->ndim != 4) return 0;
    return outer(x) * x->dims[3] * (double)w->dims[0] * w->dims[1] * w->dims[2];
  }
  return 0;
}

double tool_graph_macs(const tfl_graph *g)
{
  double sum = 0;
  for (int i = 0; i < g->n_nodes; i++) sum += tool_node_macs(g, i);
  return sum;
}
