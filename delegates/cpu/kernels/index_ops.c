/* index_ops.c - reference kernels of the index ops (kernels.h lists them).
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

const cpu_kernel cpu_k_gather = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_gather_nd = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_scatter_nd = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_shape = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_rank = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_fill = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_zeros_like = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_range = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_one_hot = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_cast = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_select = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_select_v2 = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_where = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_topk_v2 = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_cumsum = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_non_max_suppression_v4 = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_non_max_suppression_v5 = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_embedding_lookup = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_segment_sum = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_unsorted_segment_sum = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_unsorted_segment_prod = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_unsorted_segment_max = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_unsorted_segment_min = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_broadcast_args = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_sparse_to_dense = {pending_prepare, pending_eval, NULL};
