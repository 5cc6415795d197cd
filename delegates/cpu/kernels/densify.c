/* densify.c - DENSIFY: a sparse constant expanded to its dense form. The constant
 * folding pass normally does this once at load (tfl_fold.c); the kernel covers a
 * graph run without that pass, with the same algorithm (runtime/tfl_densify.c). */
#include "kernels.h"
#include "runtime/tfl_densify.h"

enum { INPUT = 0, OUTPUT = 0 };

static tfl_status densify_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *in = cpu_in(g, n, INPUT), *out = cpu_out(g, n, OUTPUT);
  if (!in || !out) return tfl_fail(diag, TFL_ERR_SHAPE, "DENSIFY: needs one input and one output");
  if (!in->sparsity || !in->is_const)
    return tfl_fail(diag, TFL_ERR_SHAPE, "DENSIFY: input '%s' is not a sparse constant", in->name ? in->name : "");
  if (in->type != out->type || in->bytes != out->bytes)
    return tfl_fail(diag, TFL_ERR_SHAPE, "DENSIFY: output '%s' differs from the input in type or size",
                     out->name ? out->name : "");
  if (tfl_sparse_value_count(in, diag) < 0)
    return tfl_fail(diag, TFL_ERR_FORMAT, "DENSIFY: input '%s' has inconsistent sparsity", in->name ? in->name : "");
  *state = NULL;
  return TFL_OK;
}

static tfl_status densify_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const tfl_tensor *in = cpu_in(g, n, INPUT);
  tfl_tensor *out = cpu_out(g, n, OUTPUT);
  return tfl_densify(in, (size_t)tfl_sparse_value_count(in, diag), out->data, diag);
}

const cpu_kernel cpu_k_densify = {densify_prepare, densify_eval, NULL, CPU_ALL_TYPES, 0};
