/* compute_bmm.h - what a prepared hybrid BATCH_MATMUL (compute_bmm.c) holds, for the fast
 * path's kernel (bmm_hybrid.c), which reuses the reference's prepare. Private to
 * delegates/cpu/kernels/. */
#ifndef CPU_COMPUTE_BMM_H
#define CPU_COMPUTE_BMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  int m, n, k;                /* output rows, columns, accumulation depth */
  bool adj_x;                 /* lhs rows are strided columns */
  size_t batches;             /* output batches */
  size_t lhs_rows;            /* lhs batches x M */
  size_t rhs_batches;
  const size_t *lb, *rb;      /* [batches]: the lhs / rhs batch each output batch reads */
  const int8_t *packed;       /* the constant rhs as [rhs batch][N][K] */
  const float *w_scale;       /* [N] */
  float *lt;                  /* adj_x: [lhs_rows][K] floats of scratch */
} cpu_bmm_hybrid_view;

/* Fills v from a prepared BATCH_MATMUL state; false unless it is a hybrid node (float lhs,
 * constant int8 rhs, asymmetric input quantization) with its rhs packed at prepare. */
bool cpu_bmm_hybrid_view_of(const void *state, cpu_bmm_hybrid_view *v);

#endif
