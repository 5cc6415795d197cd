/* shapes_eltwise.c - output shapes of the eltwise ops (tfl_shapes_priv.h).
 *
 * Unary ops keep their input's shape; two-input ops broadcast NumPy style (the comparisons
 * too: only their type is bool), except ATAN2, whose inputs have one shape as in TFLite; ADD_N takes inputs of one shape and keeps it.
 * No rule depends on data: every output shape is known from the input shapes.
 */
#include "tfl_shapes_priv.h"

static bool shape_eq(const tfl_shape *a, const tfl_shape *b)
{
  if (a->ndim != b->ndim) return false;
  for (int i = 0; i < a->ndim; i++)
    if (a->d[i] != b->d[i]) return false;
  return true;
}

static const char *shape_text(const tfl_shape *s, char *buf, size_t len)
{
  size_t k = (size_t)snprintf(buf, len, "[");
  for (int i = 0; i < s->ndim && k < len; i++) k += (size_t)snprintf(buf + k, len - k, "%s%d", i ? "," : "", s->d[i]);
  if (k < len) snprintf(buf + k, len - k, "]");
  return buf;
}

tfl_status tfl_shape_eltwise(const tfl_graph *g, const tfl_node *n, int ni, int o, tfl_shape *out,
                             tfl_inf_kind *kind, tfl_diag *diag)
{
  *kind = TFL_INF_OK;
  if (o != 0) return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "output %d: the op has one output", o);
  const tfl_tensor *a = tfl_shape_in(g, n, 0);
  if (!a) return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "missing input 0");
  const tfl_shape sa = tfl_shape_of(a);
  char b1[96], b2[96];
  switch (n->op) {
  case TFL_OP_POW:
  case TFL_OP_SQUARED_DIFFERENCE:
  case TFL_OP_FLOOR_DIV:
  case TFL_OP_FLOOR_MOD:
  case TFL_OP_LESS:
  case TFL_OP_LESS_EQUAL:
  case TFL_OP_GREATER:
  case TFL_OP_GREATER_EQUAL:
  case TFL_OP_EQUAL:
  case TFL_OP_NOT_EQUAL:
  case TFL_OP_LOGICAL_OR:
  case TFL_OP_ATAN2:
  case TFL_OP_BITWISE_XOR:
  case TFL_OP_RIGHT_SHIFT: {
    const tfl_tensor *b = tfl_shape_in(g, n, 1);
    if (!b) return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "missing input 1");
    const tfl_shape sb = tfl_shape_of(b);
    if (n->op == TFL_OP_ATAN2 && !shape_eq(&sa, &sb))
      return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "input shapes %s and %s differ (ATAN2 does not broadcast)",
                           shape_text(&sa, b1, sizeof b1), shape_text(&sb, b2, sizeof b2));
    if (!tfl_shape_broadcast(&sa, &sb, out))
      return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "input shapes %s and %s do not broadcast",
                           shape_text(&sa, b1, sizeof b1), shape_text(&sb, b2, sizeof b2));
    return TFL_OK;
  }
  case TFL_OP_ADD_N:
    for (int i = 1; i < n->n_in; i++) {
      const tfl_tensor *x = tfl_shape_in(g, n, i);
      if (!x) return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "missing input %d", i);
      const tfl_shape sx = tfl_shape_of(x);
      if (!shape_eq(&sa, &sx))
        return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "input %d has shape %s, input 0 %s (ADD_N takes one shape)", i,
                             shape_text(&sx, b1, sizeof b1), shape_text(&sa, b2, sizeof b2));
    }
    *out = sa;
    return TFL_OK;
  default: /* the unary ops */
    *out = sa;
    return TFL_OK;
  }
}
