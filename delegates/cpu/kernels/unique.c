/* unique.c - UNIQUE as TFLite computes it: the distinct values of a 1-D input in order of
 * first appearance (output 0) and, per element, the position of its value there (output 1,
 * int32 or int64).
 *
 * Output 0's size depends on the data: it is planned at the input's length and each eval
 * sets its dim to the true count (idx_check_dynamic_output: a graph output no node reads).
 * Equal values are found by a stable sort of the positions (O(n log n), scratch made in
 * prepare): each run of equal values belongs to its first position. Floats compare as
 * TFLite's std::map does (-0 equals 0); NaNs, which that map cannot order, count as one value.
 */
#include "index_common.h"

#include <math.h>

enum { INPUT = 0 };
enum { VALUES = 0, INDICES = 1 };

typedef struct {
  size_t n;
  size_t *order, *tmp;      /* positions, sorted by value then position */
  size_t *first;            /* first[i]: first position of element i's value */
  int64_t *id;              /* id[p]: output slot of the value first seen at p */
} unique_state;

static void release(void *state)
{
  unique_state *st = state;
  if (!st) return;
  free(st->order);
  free(st->tmp);
  free(st->first);
  free(st->id);
  free(st);
}

static bool unique_type(tfl_type t)
{
  return t == TFL_TYPE_FLOAT32 || t == TFL_TYPE_INT8 || t == TFL_TYPE_UINT8 || t == TFL_TYPE_INT16 ||
         t == TFL_TYPE_INT32 || t == TFL_TYPE_INT64;
}

static tfl_status unique_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, VALUES), *idx = cpu_out(g, n, INDICES);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "input", 1, diag)) || (s = cpu_check_tensor(g, n, y, "values", 1, diag)) ||
      (s = cpu_check_tensor(g, n, idx, "indices", 1, diag)))
    return s;
  if (!unique_type(x->type)) return idx_unsupported_type(g, n, "input", x->type, diag);
  if ((s = idx_same_storage(g, n, x, "input", y, "values", diag))) return s;
  if (idx->type != TFL_TYPE_INT32 && idx->type != TFL_TYPE_INT64)
    return idx_unsupported_type(g, n, "indices", idx->type, diag);
  int64_t d[1] = {x->dims[0]};
  if ((s = idx_check_shape(g, n, y, "values", d, 1, diag)) || (s = idx_check_shape(g, n, idx, "indices", d, 1, diag)))
    return s;
  if ((s = idx_check_dynamic_output(g, n, VALUES, diag))) return s;
  unique_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "UNIQUE state");
  st->n = (size_t)x->dims[0];
  /* n < 2^31 (the loader's element limit): these products cannot overflow */
  size_t m = st->n ? st->n : 1;
  st->order = malloc(m * sizeof *st->order);
  st->tmp = malloc(m * sizeof *st->tmp);
  st->first = malloc(m * sizeof *st->first);
  st->id = malloc(m * sizeof *st->id);
  if (!st->order || !st->tmp || !st->first || !st->id) {
    release(st);
    return tfl_fail(diag, TFL_ERR_NOMEM, "UNIQUE scratch for %d elements", x->dims[0]);
  }
  *state = st;
  return TFL_OK;
}

/* <0, 0, >0 as value a is below, equal to or above value b; NaN above every number. */
static int cmp_values(const tfl_tensor *x, size_t a, size_t b)
{
  if (x->type == TFL_TYPE_FLOAT32) {
    float u = ((const float *)x->data)[a], v = ((const float *)x->data)[b];
    if (isnan(u) || isnan(v)) return isnan(u) - isnan(v);
    return (u > v) - (u < v);
  }
  int64_t u = idx_get_any(x, a), v = idx_get_any(x, b);
  return (u > v) - (u < v);
}

/* Stable merge sort of o[0..n) by value (tmp: n positions of scratch). */
static void sort_positions(const tfl_tensor *x, size_t *o, size_t *tmp, size_t n)
{
  for (size_t w = 1; w < n; w *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * w) {
      size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) tmp[k++] = cmp_values(x, o[j], o[i]) < 0 ? o[j++] : o[i++];
      while (i < mid) tmp[k++] = o[i++];
      while (j < hi) tmp[k++] = o[j++];
    }
    memcpy(o, tmp, n * sizeof *o);
  }
}

static tfl_status unique_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const unique_state *st = state;
  const tfl_tensor *x = cpu_in(g, n, INPUT), *idx = cpu_out(g, n, INDICES);
  tfl_tensor *y = cpu_out(g, n, VALUES);
  const size_t es = tfl_type_size(x->type);
  (void)ctx, (void)diag;
  for (size_t i = 0; i < st->n; i++) st->order[i] = i;
  sort_positions(x, st->order, st->tmp, st->n);
  /* the first position of each run of equal values is the smallest: the sort is stable */
  for (size_t r = 0; r < st->n;) {
    size_t e = r + 1;
    while (e < st->n && cmp_values(x, st->order[r], st->order[e]) == 0) e++;
    for (size_t k = r; k < e; k++) st->first[st->order[k]] = st->order[r];
    r = e;
  }
  size_t count = 0;
  for (size_t i = 0; i < st->n; i++) {
    if (st->first[i] == i) {
      memcpy((uint8_t *)y->data + count * es, (const uint8_t *)x->data + i * es, es);
      st->id[i] = (int64_t)count++;
    }
    int64_t v = st->id[st->first[i]];   /* first[i] <= i: already numbered */
    if (idx->type == TFL_TYPE_INT64) ((int64_t *)idx->data)[i] = v;
    else ((int32_t *)idx->data)[i] = (int32_t)v;
  }
  y->dims[0] = (int32_t)count;   /* a dynamic output: this run's count */
  tfl_tensor_update_bytes(y);
  return TFL_OK;
}

const cpu_kernel cpu_k_unique = {unique_prepare, unique_eval, release, CPU_F32 | CPU_Q8 | CPU_I16 | CPU_I32 | CPU_I64,
                                 0};
