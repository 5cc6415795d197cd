/* eltwise_ops.c - reference kernels of the eltwise ops (kernels.h lists them).
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

const cpu_kernel cpu_k_abs = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_neg = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_sqrt = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_rsqrt = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_square = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_log = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_sin = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_cos = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_floor = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_ceil = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_round = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_sign = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_elu = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_leaky_relu = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_relu_n1_to_1 = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_relu_0_to_1 = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_gelu = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_logical_not = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_fake_quant = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_pow = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_squared_difference = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_floor_div = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_floor_mod = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_less = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_less_equal = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_greater = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_greater_equal = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_equal = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_not_equal = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_logical_or = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_add_n = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_atan2 = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_bitwise_xor = {pending_prepare, pending_eval, NULL};
const cpu_kernel cpu_k_right_shift = {pending_prepare, pending_eval, NULL};
