/* compute_ops.c - reference kernels of the compute ops (kernels.h lists them).
 *
 * PENDING: the kernels below are being written; until then each refuses its node at
 * prepare with TFL_ERR_UNSUPPORTED, as an op without a kernel did before.
 */
#include "kernels.h"

#include "../cpu_util.h"

static tfl_status pending_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  (void)g;
  (void)state;
  return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "%s: no CPU kernel yet", tfl_op_name(n->op));
}

static tfl_status pending_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)g;
  (void)state;
  (void)ctx;
  return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "%s: no CPU kernel yet", tfl_op_name(n->op));
}

const cpu_kernel cpu_k_conv_3d = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_conv_3d_transpose = {pending_prepare, pending_eval, NULL};
