/* op_runner.h - drives one op through its CPU reference kernel's own
 * prepare/eval/release, on a one-node graph built from literal tensors.
 *
 *   op_runner r;  op_runner_init(&r, TFL_OP_ADD);
 *   int a = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){1,2,2,1}, a_vals, false);
 *   ...; op_runner_io(&r, (int[]){a, b}, 2, (int[]){out}, 1);
 *   r.node.p.eltwise.act = TFL_ACT_RELU;
 *   if (op_runner_run(&r, threads) != TFL_OK) ...;  float *y = r.graph.tensors[out].data;
 *   op_runner_free(&r);
 * Tensor data given to op_runner_tensor is copied; output tensors get zeroed storage.
 * A failed run says why in r.diag.error (still readable after op_runner_free).
 */
#ifndef OP_RUNNER_H
#define OP_RUNNER_H

#include "../delegates/cpu/cpu_kernel.h"

#define OP_RUNNER_MAX_TENSORS 32 /* LSTM: 24 inputs + output */

typedef struct {
  tfl_diag diag;           /* the kernel's errors (r.diag.error after a failed run) */
  tfl_graph graph;
  tfl_tensor tensors[OP_RUNNER_MAX_TENSORS];
  tfl_node node;
  int32_t in[OP_RUNNER_MAX_TENSORS], out[OP_RUNNER_MAX_TENSORS];
} op_runner;

void op_runner_init(op_runner *r, tfl_op op);
/* Adds a tensor; `data` (may be NULL: zeroed) is copied. is_const marks weights.
 * Returns its index. */
int op_runner_tensor(op_runner *r, tfl_type type, int ndim, const int32_t *dims, const void *data,
                     bool is_const);
/* Quantization of tensor t (per tensor when n == 1), replacing any earlier one. Arrays
 * are copied. */
void op_runner_quant(op_runner *r, int t, int n, const float *scale, const int32_t *zero_point,
                     int axis);
void op_runner_io(op_runner *r, const int *ins, int n_in, const int *outs, int n_out);
/* prepare + eval + release with `threads` threads (1: serial). */
tfl_status op_runner_run(op_runner *r, int threads);
void op_runner_free(op_runner *r);

/* Compares n floats; prints the first mismatch beyond tol (absolute) and returns 0 then. */
int op_runner_expect_near(const char *what, const float *got, const float *want, size_t n, float tol);

#endif
