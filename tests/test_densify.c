/* test_densify.c - sparse constants to dense (TFLite's SparsityParameters format),
 * with literal expected matrices worked out by hand, and the fold pass on DENSIFY and
 * a float16 DEQUANTIZE. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/tfl_densify.h"
#include "runtime/tfl_passes.h"

static int failures;

static void expect(const char *what, const float *got, const float *want, int n)
{
  for (int i = 0; i < n; i++)
    if (got[i] != want[i]) {
      printf("FAIL %s: element %d is %g, expected %g\n", what, i, (double)got[i], (double)want[i]);
      failures++;
      return;
    }
}

static tfl_tensor sparse_tensor(int32_t rows, int32_t cols, tfl_sparsity *s, float *values)
{
  tfl_tensor t = {.name = "w", .type = TFL_TYPE_FLOAT32, .ndim = 2, .dims = {rows, cols}, .data = values,
                  .is_const = true, .producer = -1, .sparsity = s};
  tfl_tensor_update_bytes(&t);
  return t;
}

/* 3x4 in CSR:  [[0,1,0,2],[0,0,0,0],[3,0,4,0]] */
static const float csr_dense[12] = {0, 1, 0, 2, 0, 0, 0, 0, 3, 0, 4, 0};

static void test_csr(void)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  static const int32_t seg[] = {0, 2, 2, 4}, idx[] = {1, 3, 0, 2};
  float values[] = {1, 2, 3, 4};
  tfl_sparsity s = {.n_traversal = 2, .traversal_order = {0, 1}};
  s.dim[0] = (tfl_dim_meta){.format = TFL_DIM_DENSE, .dense_size = 3};
  s.dim[1] = (tfl_dim_meta){.format = TFL_DIM_SPARSE_CSR, .n_segments = 4, .n_indices = 4, .segments = seg,
                            .indices = idx};
  tfl_tensor t = sparse_tensor(3, 4, &s, values);
  float out[12];
  if (tfl_sparse_value_count(&t, &diag) != 4) {
    printf("FAIL csr: value count %lld\n", (long long)tfl_sparse_value_count(&t, &diag));
    failures++;
  }
  if (tfl_densify(&t, 4, out, &diag) != TFL_OK) {
    printf("FAIL csr: %s\n", diag.error);
    failures++;
    return;
  }
  expect("csr", out, csr_dense, 12);
  /* a lying value count is refused */
  if (tfl_densify(&t, 3, out, &diag) == TFL_OK) {
    printf("FAIL csr: 3 stored values accepted for 4 indices\n");
    failures++;
  }
}

/* the same matrix column-major: traversal (1, 0), rows sparse per column */
static void test_csc(void)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  static const int32_t seg[] = {0, 1, 2, 3, 4}, idx[] = {2, 0, 2, 0};
  float values[] = {3, 1, 4, 2};
  tfl_sparsity s = {.n_traversal = 2, .traversal_order = {1, 0}};
  s.dim[0] = (tfl_dim_meta){.format = TFL_DIM_DENSE, .dense_size = 4};
  s.dim[1] = (tfl_dim_meta){.format = TFL_DIM_SPARSE_CSR, .n_segments = 5, .n_indices = 4, .segments = seg,
                            .indices = idx};
  tfl_tensor t = sparse_tensor(3, 4, &s, values);
  float out[12];
  if (tfl_densify(&t, 4, out, &diag) != TFL_OK) {
    printf("FAIL csc: %s\n", diag.error);
    failures++;
    return;
  }
  expect("csc", out, csr_dense, 12);
}

/* 4x4 of 2x2 blocks, blocks (0,0) and (1,1) present:
 *   1 2 0 0
 *   3 4 0 0
 *   0 0 5 0
 *   0 0 7 8      levels: block row (dense 2), block col (CSR), row in block, col in block */
static void test_block(void)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  static const int32_t seg[] = {0, 1, 2}, idx[] = {0, 1};
  float values[] = {1, 2, 3, 4, 5, 0, 7, 8};
  static const float want[16] = {1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 5, 0, 0, 0, 7, 8};
  tfl_sparsity s = {.n_traversal = 4, .traversal_order = {0, 1, 2, 3}, .n_block = 2, .block_map = {0, 1}};
  s.dim[0] = (tfl_dim_meta){.format = TFL_DIM_DENSE, .dense_size = 2};
  s.dim[1] = (tfl_dim_meta){.format = TFL_DIM_SPARSE_CSR, .n_segments = 3, .n_indices = 2, .segments = seg,
                            .indices = idx};
  s.dim[2] = (tfl_dim_meta){.format = TFL_DIM_DENSE, .dense_size = 2};
  s.dim[3] = (tfl_dim_meta){.format = TFL_DIM_DENSE, .dense_size = 2};
  tfl_tensor t = sparse_tensor(4, 4, &s, values);
  float out[16];
  if (tfl_densify(&t, 8, out, &diag) != TFL_OK) {
    printf("FAIL block: %s\n", diag.error);
    failures++;
    return;
  }
  expect("block", out, want, 16);
}

/* An index past the level size is an error, not a write out of bounds. */
static void test_bad_index(void)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  static const int32_t seg[] = {0, 2, 2, 4}, idx[] = {1, 9, 0, 2};
  float values[] = {1, 2, 3, 4};
  tfl_sparsity s = {.n_traversal = 2, .traversal_order = {0, 1}};
  s.dim[0] = (tfl_dim_meta){.format = TFL_DIM_DENSE, .dense_size = 3};
  s.dim[1] = (tfl_dim_meta){.format = TFL_DIM_SPARSE_CSR, .n_segments = 4, .n_indices = 4, .segments = seg,
                            .indices = idx};
  tfl_tensor t = sparse_tensor(3, 4, &s, values);
  float out[12];
  if (tfl_densify(&t, 4, out, &diag) == TFL_OK) {
    printf("FAIL bad index: accepted index 9 of a 4-wide row\n");
    failures++;
  }
}

/* fold: DENSIFY(sparse fp16) -> DEQUANTIZE -> float32 constant; both nodes die. */
static void test_fold(void)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  static const int32_t seg[] = {0, 2, 2, 4}, idx[] = {1, 3, 0, 2};
  tfl_graph *g = calloc(1, sizeof *g);
  uint16_t *h = tfl_graph_alloc(g, 8);
  h[0] = 0x3C00; /* 1.0 */
  h[1] = 0xC000; /* -2.0 */
  h[2] = 0x03FF; /* 1023 * 2^-24, the largest subnormal */
  h[3] = 0xFBFF; /* -65504, the most negative finite */
  tfl_sparsity *s = tfl_graph_alloc(g, sizeof *s);
  s->n_traversal = 2;
  s->traversal_order[1] = 1;
  s->dim[0] = (tfl_dim_meta){.format = TFL_DIM_DENSE, .dense_size = 3};
  s->dim[1] = (tfl_dim_meta){.format = TFL_DIM_SPARSE_CSR, .n_segments = 4, .n_indices = 4, .segments = seg,
                             .indices = idx};
  g->n_tensors = 3;
  g->tensors = calloc(3, sizeof(tfl_tensor));
  tfl_type types[3] = {TFL_TYPE_FLOAT16, TFL_TYPE_FLOAT16, TFL_TYPE_FLOAT32};
  for (int i = 0; i < 3; i++) {
    tfl_tensor *t = &g->tensors[i];
    t->type = types[i];
    t->ndim = i == 0 ? 2 : 0; /* outputs declared empty: fold fills them in */
    t->dims[0] = 3;
    t->dims[1] = 4;
    t->producer = i - 1;
    tfl_tensor_update_bytes(t);
  }
  g->tensors[0].data = h;
  g->tensors[0].is_const = true;
  g->tensors[0].sparsity = s;
  g->n_nodes = 2;
  g->nodes = calloc(2, sizeof(tfl_node));
  tfl_op ops[2] = {TFL_OP_DENSIFY, TFL_OP_DEQUANTIZE};
  for (int i = 0; i < 2; i++) {
    tfl_node *n = &g->nodes[i];
    n->op = ops[i];
    n->n_in = n->n_out = 1;
    n->in = tfl_graph_alloc(g, 4);
    n->out = tfl_graph_alloc(g, 4);
    n->in[0] = i;
    n->out[0] = i + 1;
  }
  if (tfl_pass_fold_constants(g, &diag) != TFL_OK) {
    printf("FAIL fold: %s\n", diag.error);
    failures++;
  } else {
    static const float want[12] = {0, 1, 0, -2, 0, 0, 0, 0, 1023 * 0x1p-24f, 0, -65504, 0};
    const tfl_tensor *y = &g->tensors[2];
    if (!g->nodes[0].dead || !g->nodes[1].dead || !y->is_const || y->ndim != 2 || y->bytes != 48) {
      printf("FAIL fold: dead %d %d, const %d, ndim %d, bytes %zu\n", g->nodes[0].dead, g->nodes[1].dead,
             y->is_const, y->ndim, y->bytes);
      failures++;
    } else {
      expect("fold", y->data, want, 12);
    }
  }
  tfl_graph_free(g);
}

int main(void)
{
  test_csr();
  test_csc();
  test_block();
  test_bad_index();
  test_fold();
  if (failures) printf("%d failures\n", failures);
  else printf("densify: all checks passed\n");
  return failures != 0;
}
