/* reshape.c - RESHAPE and SQUEEZE: the bytes do not change, only the dims (which shape
 * inference has already set on the output). eval copies unless the planner made input and
 * output share storage (equal data pointers). Any fixed-size type; quantization passes
 * through unchanged. The optional shape input of RESHAPE is not read here.
 */
#include "eltwise_common.h"

#include <string.h>

enum { INPUT = 0 };
enum { OUTPUT = 0 };

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  (void)state;
  if ((s = cpu_check_tensor(g, n, x, "input", -1, diag)) || (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  if (x->type != y->type)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input %s, output %s: types differ",
                        tfl_type_name(x->type), tfl_type_name(y->type));
  if (tfl_type_size(x->type) == 0)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "type %s", tfl_type_name(x->type));
  if (tfl_tensor_count(x) != tfl_tensor_count(y))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input has %zu elements, output %zu",
                        tfl_tensor_count(x), tfl_tensor_count(y));
  return TFL_OK;
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  (void)state;
  (void)ctx;
  if (x->data != y->data) memmove(y->data, x->data, y->bytes);
  return TFL_OK;
}

static void release(void *state)
{
  (void)state;
}

const cpu_kernel cpu_k_reshape = {prepare, eval, release, CPU_ALL_TYPES, 0};
const cpu_kernel cpu_k_squeeze = {prepare, eval, release, CPU_ALL_TYPES, 0};
