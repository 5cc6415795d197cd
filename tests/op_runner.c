/* op_runner.c - see op_runner.h */
#include "op_runner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void op_runner_init(op_runner *r, tfl_op op)
{
  memset(r, 0, sizeof *r);
  tfl_diag_init(&r->diag);
  r->graph.tensors = r->tensors;
  r->graph.nodes = &r->node;
  r->graph.n_nodes = 1;
  r->node.op = op;
  r->node.version = 1;
  r->node.in = r->in;
  r->node.out = r->out;
}

int op_runner_tensor(op_runner *r, tfl_type type, int ndim, const int32_t *dims, const void *data,
                     bool is_const)
{
  int i = r->graph.n_tensors++;
  tfl_tensor *t = &r->tensors[i];
  t->type = type;
  t->ndim = ndim;
  for (int d = 0; d < ndim; d++) t->dims[d] = dims[d];
  t->producer = -1;
  t->is_const = is_const;
  tfl_tensor_update_bytes(t);
  t->data = calloc(1, t->bytes ? t->bytes : 1);
  if (data) memcpy(t->data, data, t->bytes);
  return i;
}

void op_runner_quant(op_runner *r, int t, int n, const float *scale, const int32_t *zero_point,
                     int axis)
{
  tfl_tensor *x = &r->tensors[t];
  free(x->q.scale); /* a test may re-quantize a tensor (per tensor, then per channel) */
  free(x->q.zero_point);
  x->q.n = n;
  x->q.axis = axis;
  x->q.scale = malloc(sizeof(float) * (size_t)n);
  x->q.zero_point = malloc(sizeof(int32_t) * (size_t)n);
  memcpy(x->q.scale, scale, sizeof(float) * (size_t)n);
  memcpy(x->q.zero_point, zero_point, sizeof(int32_t) * (size_t)n);
}

void op_runner_io(op_runner *r, const int *ins, int n_in, const int *outs, int n_out)
{
  r->node.n_in = n_in;
  r->node.n_out = n_out;
  for (int i = 0; i < n_in; i++) r->in[i] = ins[i];
  for (int i = 0; i < n_out; i++) {
    r->out[i] = outs[i];
    r->tensors[outs[i]].producer = 0;
  }
}

tfl_status op_runner_run(op_runner *r, int threads)
{
  const cpu_kernel *k = cpu_reference_kernel(r->node.op);
  if (!k || !k->prepare || !k->eval)
    return tfl_fail(&r->diag, TFL_ERR_UNSUPPORTED, "no CPU kernel for %s", tfl_op_name(r->node.op));
  cpu_ctx *ctx = cpu_ctx_create(threads);
  if (!ctx) return tfl_fail(&r->diag, TFL_ERR_NOMEM, "no thread pool");
  void *state = NULL;
  tfl_status s = k->prepare(&r->graph, &r->node, &state, &r->diag);
  if (s == TFL_OK) s = k->eval(&r->graph, &r->node, state, ctx, &r->diag);
  if (k->release) k->release(state);
  cpu_ctx_free(ctx);
  return s;
}

void op_runner_free(op_runner *r)
{
  for (int i = 0; i < r->graph.n_tensors; i++) {
    free(r->tensors[i].data);
    free(r->tensors[i].q.scale);
    free(r->tensors[i].q.zero_point);
  }
  tfl_diag keep = r->diag; /* the last error stays readable */
  memset(r, 0, sizeof *r);
  r->diag = keep;
}

int op_runner_expect_near(const char *what, const float *got, const float *want, size_t n, float tol)
{
  for (size_t i = 0; i < n; i++) {
    if (!(fabsf(got[i] - want[i]) <= tol)) {
      fprintf(stderr, "%s: element %zu is %.7g, expected %.7g (tol %g)\n", what, i, got[i], want[i],
              tol);
      return 0;
    }
  }
  return 1;
}
