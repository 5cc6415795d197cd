/* bit_ops.c - BUCKETIZE and BITCAST, as TFLite computes them.
 *
 * BUCKETIZE: output[i] (int32) is the number of boundaries <= input[i] (std::upper_bound
 * over the ascending boundaries of the op's options; the loader checked the order). An
 * integer input is compared as float, as C++ compares an int with a float boundary.
 * BITCAST: the input's bytes unchanged under the output's type (shapes_spectral.c sizes it).
 */
#include "eltwise_common.h"

#include <string.h>

enum { INPUT = 0 };
enum { OUTPUT = 0 };

static tfl_status bucketize_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "input", -1, diag)) || (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  if ((x->type != TFL_TYPE_FLOAT32 && x->type != TFL_TYPE_INT32 && x->type != TFL_TYPE_INT64) ||
      y->type != TFL_TYPE_INT32)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "types %s -> %s, expected FLOAT32, INT32 or INT64 -> INT32",
                        tfl_type_name(x->type), tfl_type_name(y->type));
  if (tfl_tensor_count(x) != tfl_tensor_count(y))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input has %zu elements, output %zu", tfl_tensor_count(x),
                        tfl_tensor_count(y));
  if (n->p.bucketize.n > 0 && !n->p.bucketize.boundaries)
    return CPU_NODE_ERR(diag, TFL_ERR_ARG, g, n, "%d boundaries without data", n->p.bucketize.n);
  *state = NULL;
  return TFL_OK;
}

static float boundary(const uint8_t *b, int i)
{
  float v;
  memcpy(&v, b + 4 * (size_t)i, sizeof v);
  return v;
}

/* First index whose boundary is > v (NaN: none is, so all of them). */
static int32_t upper_bound(const uint8_t *b, int nb, float v)
{
  int lo = 0, hi = nb;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (v < boundary(b, mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

static tfl_status bucketize_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT);
  int32_t *y = cpu_out(g, n, OUTPUT)->data;
  const uint8_t *b = n->p.bucketize.boundaries;
  int nb = n->p.bucketize.n;
  size_t count = tfl_tensor_count(x);
  (void)state, (void)ctx, (void)diag;
  for (size_t i = 0; i < count; i++) {
    float v = x->type == TFL_TYPE_INT32   ? (float)((const int32_t *)x->data)[i]
              : x->type == TFL_TYPE_INT64 ? (float)((const int64_t *)x->data)[i]
                                          : ((const float *)x->data)[i];
    y[i] = upper_bound(b, nb, v);
  }
  return TFL_OK;
}

static tfl_status bitcast_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "input", -1, diag)) || (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  if (x->bytes != y->bytes || !tfl_type_size(y->type))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input %s has %zu bytes, output %s %zu", tfl_type_name(x->type),
                        x->bytes, tfl_type_name(y->type), y->bytes);
  *state = NULL;
  return TFL_OK;
}

static tfl_status bitcast_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT);
  tfl_tensor *y = cpu_out(g, n, OUTPUT);
  (void)state, (void)ctx, (void)diag;
  if (y->data != x->data) memmove(y->data, x->data, x->bytes);
  return TFL_OK;
}

const cpu_kernel cpu_k_bucketize = {bucketize_prepare, bucketize_eval, NULL, CPU_F32 | CPU_I32 | CPU_I64, 0};
const cpu_kernel cpu_k_bitcast = {bitcast_prepare, bitcast_eval, NULL, CPU_ALL_TYPES | CPU_C64, 0};
