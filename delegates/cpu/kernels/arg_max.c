/* arg_max.c - ARG_MAX and ARG_MIN along the axis given by an int32/int64 tensor (negative
 * counts from the end). Output int32 or int64 (node->p.arg_max.output_type). Ties keep the
 * first index, as TFLite's strict comparisons (greater / less) do. Inputs: float32, uint8, int8, int32
 * (quantized codes compare like their real values since the scale is positive).
 */
#include "eltwise_common.h"

enum { INPUT = 0, AXIS = 1 };
enum { OUTPUT = 0 };

static void release(void *state)
{
  (void)state;
}

static double value_at(const tfl_tensor *x, size_t i)
{
  switch (x->type) {
  case TFL_TYPE_FLOAT32: return ((const float *)x->data)[i];
  case TFL_TYPE_UINT8: return ((const uint8_t *)x->data)[i];
  case TFL_TYPE_INT8: return ((const int8_t *)x->data)[i];
  case TFL_TYPE_INT32: return ((const int32_t *)x->data)[i];
  case TFL_TYPE_FLOAT16:
  case TFL_TYPE_INT64:
  case TFL_TYPE_STRING:
  case TFL_TYPE_COMPLEX64:
  case TFL_TYPE_BOOL:
  case TFL_TYPE_INT16:
  case TFL_TYPE_COUNT: break;
  }
  return 0.0;
}

static tfl_status read_axis(const tfl_graph *g, const tfl_node *n, int *axis, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *a = cpu_in(g, n, AXIS);
  int64_t v = a->type == TFL_TYPE_INT64 ? ((const int64_t *)a->data)[0] : ((const int32_t *)a->data)[0];
  int64_t d = v < 0 ? v + x->ndim : v;
  if (d < 0 || d >= x->ndim)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "axis %lld out of range for %d dims", (long long)v, x->ndim);
  *axis = (int)d;
  return TFL_OK;
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *a = cpu_in(g, n, AXIS), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  (void)state;
  if ((s = cpu_check_tensor(g, n, x, "input", -1, diag)) || (s = cpu_check_tensor(g, n, a, "axis", -1, diag)) ||
      (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  if (x->type != TFL_TYPE_FLOAT32 && x->type != TFL_TYPE_UINT8 && x->type != TFL_TYPE_INT8 &&
      x->type != TFL_TYPE_INT32)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input type %s is not supported (TFLite: FLOAT32, "
                        "UINT8, INT8, INT32)", tfl_type_name(x->type));
  if ((a->type != TFL_TYPE_INT32 && a->type != TFL_TYPE_INT64) || tfl_tensor_count(a) != 1)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "axis is %s with %zu values, expected one INT32 or INT64",
                        tfl_type_name(a->type), tfl_tensor_count(a));
  tfl_type ot = n->p.arg_max.output_type;
  if (y->type != TFL_TYPE_INT32 && y->type != TFL_TYPE_INT64)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "output type %s", tfl_type_name(y->type));
  if (ot != y->type && (ot == TFL_TYPE_INT32 || ot == TFL_TYPE_INT64))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output_type %s but output tensor is %s",
                        tfl_type_name(ot), tfl_type_name(y->type));
  if (x->ndim < 1) return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input has %d dims", x->ndim);
  int axis;
  if (a->is_const && a->data && (s = read_axis(g, n, &axis, diag))) return s;
  return TFL_OK;
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const bool is_min = n->op == TFL_OP_ARG_MIN;
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  int axis;
  (void)state;
  (void)ctx;
  tfl_status s = read_axis(g, n, &axis, diag);
  if (s) return s;
  size_t outer = 1, inner = 1, len = (size_t)x->dims[axis];
  for (int d = 0; d < axis; d++) outer *= (size_t)x->dims[d];
  for (int d = axis + 1; d < x->ndim; d++) inner *= (size_t)x->dims[d];
  if (tfl_tensor_count(y) != outer * inner)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output has %zu elements, expected %zu",
                        tfl_tensor_count(y), outer * inner);
  for (size_t o = 0; o < outer; o++)
    for (size_t i = 0; i < inner; i++) {
      size_t base = o * len * inner + i, best = 0;
      double bv = len ? value_at(x, base) : 0.0;
      for (size_t k = 1; k < len; k++) {
        double v = value_at(x, base + k * inner);
        if (is_min ? v < bv : v > bv) {
          bv = v;
          best = k;
        }
      }
      if (y->type == TFL_TYPE_INT64)
        ((int64_t *)y->data)[o * inner + i] = (int64_t)best;
      else
        ((int32_t *)y->data)[o * inner + i] = (int32_t)best;
    }
  return TFL_OK;
}

const cpu_kernel cpu_k_arg_max = {prepare, eval, release, CPU_F32 | CPU_Q8 | CPU_I32, 0};
const cpu_kernel cpu_k_arg_min = {prepare, eval, release, CPU_F32 | CPU_Q8 | CPU_I32, 0};
