/* layout_ops.c - reference kernels of the layout ops (kernels.h lists them).
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

const cpu_kernel cpu_k_transpose = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_slice = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_split = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_split_v = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_pack = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_unpack = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_tile = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_broadcast_to = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_expand_dims = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_reverse_v2 = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_mirror_pad = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_space_to_depth = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_space_to_batch_nd = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_batch_to_space_nd = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_reverse_sequence = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_matrix_diag = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_matrix_set_diag = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_dynamic_update_slice = {pending_prepare, pending_eval, NULL};
