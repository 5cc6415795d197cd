/* shapes_control.c - output shapes of the control ops (tfl_shapes_priv.h).
 *
 * WHILE: output i is loop state i, so it keeps input i's shape (TFLite's static case; a
 * body that changes a shape makes TFLite's outputs dynamic, which the kernel refuses).
 * IF: output i is the branches' output i: their shape where both branches agree (the
 * subgraphs are inferred before the graph that runs them, tfl_graph_prepare), else the
 * file's (it then depends on the predicate). CALL_ONCE has no outputs.
 */
#include "tfl_shapes_priv.h"

tfl_status tfl_shape_control(const tfl_graph *g, const tfl_node *n, int ni, int o, tfl_shape *out,
                             tfl_inf_kind *kind, tfl_diag *diag)
{
  *kind = TFL_INF_OK;
  switch (n->op) {
  case TFL_OP_WHILE: {
    const tfl_tensor *x = tfl_shape_in(g, n, o);
    if (!x || n->n_in != n->n_out)
      return TFL_SHAPE_ERR(TFL_ERR_FORMAT, "%d inputs, %d outputs: output %d has no loop state", n->n_in, n->n_out, o);
    *out = tfl_shape_of(x);
    return TFL_OK;
  }
  case TFL_OP_IF: {
    const tfl_graph *a = tfl_graph_subgraph(g, n->p.subgraph.a), *b = tfl_graph_subgraph(g, n->p.subgraph.b);
    if (!a || !b)
      return TFL_SHAPE_ERR(TFL_ERR_FORMAT, "then subgraph %d or else subgraph %d is not in the model",
                           n->p.subgraph.a, n->p.subgraph.b);
    if (o >= a->n_outputs || o >= b->n_outputs)
      return TFL_SHAPE_ERR(TFL_ERR_FORMAT, "output %d: the branches have %d and %d outputs", o, a->n_outputs,
                           b->n_outputs);
    tfl_shape sa = tfl_shape_of(&a->tensors[a->outputs[o]]), sb = tfl_shape_of(&b->tensors[b->outputs[o]]);
    if (sa.ndim != sb.ndim || memcmp(sa.d, sb.d, sizeof(int32_t) * (size_t)sa.ndim)) {
      /* which branch runs decides: TFLite's dynamic output */
      *kind = TFL_INF_KEEP;
      return TFL_OK;
    }
    *out = sa;
    return TFL_OK;
  }
  case TFL_OP_CALL_ONCE:
    break;
  default:
    break;
  }
  return TFL_SHAPE_ERR(TFL_ERR_FORMAT, "output %d: the op has no outputs", o);
}
