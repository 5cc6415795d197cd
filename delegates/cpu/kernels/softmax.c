/* softmax.c - SOFTMAX over the last axis: y = exp(beta * (x - max)) / sum.
 * Float32, and uint8/int8 inputs with outputs of the same type (TFLite fixes the output
 * at scale 1/256 with zero point 0 for uint8, -128 for int8; we honour whatever the output
 * declares). Quantized: exp(-beta * scale * d) for every code distance d = max - q is
 * tabulated in prepare, so a row is one max, one table sum and one rounding pass (within
 * 1 LSB of TFLite's fixed point). Rows are split over threads.
 */
#include "eltwise_common.h"

#include <math.h>

enum { INPUT = 0 };
enum { OUTPUT = 0 };

typedef struct {
  tfl_type type;
  size_t rows, depth;
  float beta;
  uint8_t flip;
  int32_t zo, lo, hi;
  double inv_so;
  double e[256];           /* q8: exp(-beta * in_scale * d) */
} softmax_state;

static void release(void *state)
{
  free(state);
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "input", -1, diag)) || (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  if (x->type != y->type)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input %s, output %s: types differ",
                        tfl_type_name(x->type), tfl_type_name(y->type));
  if (x->type != TFL_TYPE_FLOAT32 && !cpu_is_q8(x->type))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "type %s", tfl_type_name(x->type));
  if (x->ndim < 1) return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input has %d dims, expected >= 1", x->ndim);
  if (tfl_tensor_count(x) != tfl_tensor_count(y))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input has %zu elements, output %zu",
                        tfl_tensor_count(x), tfl_tensor_count(y));
  softmax_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "softmax state");
  *state = st;
  st->type = x->type;
  st->depth = (size_t)x->dims[x->ndim - 1];
  st->rows = st->depth ? tfl_tensor_count(x) / st->depth : 0;
  st->beta = n->p.softmax.beta;
  if (cpu_is_q8(x->type)) {
    if ((s = cpu_check_per_tensor(g, n, x, "input", diag)) || (s = cpu_check_per_tensor(g, n, y, "output", diag)))
      return s;
    st->flip = cpu_q8_flip(x->type);
    st->zo = cpu_zero_point(y, 0);
    st->inv_so = 1.0 / cpu_scale(y, 0);
    cpu_type_limits(y->type, &st->lo, &st->hi);
    for (int d = 0; d < 256; d++) st->e[d] = exp(-(double)st->beta * cpu_scale(x, 0) * d);
  }
  return TFL_OK;
}

typedef struct {
  const softmax_state *st;
  const void *x;
  void *y;
  size_t tasks;
} softmax_job;

static void row_f32(const softmax_state *st, const float *x, float *y)
{
  size_t d = st->depth;
  float mx = x[0];
  for (size_t k = 1; k < d; k++) mx = x[k] > mx ? x[k] : mx;
  float sum = 0.0f;
  for (size_t k = 0; k < d; k++) {
    y[k] = expf((x[k] - mx) * st->beta);
    sum += y[k];
  }
  float inv = 1.0f / sum;
  for (size_t k = 0; k < d; k++) y[k] *= inv;
}

static void row_q8(const softmax_state *st, const uint8_t *x, uint8_t *y)
{
  size_t d = st->depth;
  const uint8_t f = st->flip;
  int mx = 0;
  for (size_t k = 0; k < d; k++) mx = (x[k] ^ f) > mx ? (x[k] ^ f) : mx;
  double sum = 0.0;
  for (size_t k = 0; k < d; k++) sum += st->e[mx - (x[k] ^ f)];
  double inv = 1.0 / sum;
  for (size_t k = 0; k < d; k++)
    y[k] = (uint8_t)cpu_q8_quantize(st->e[mx - (x[k] ^ f)] * inv, st->inv_so, st->zo, st->lo, st->hi);
}

static void task(void *arg, size_t t)
{
  const softmax_job *j = arg;
  const softmax_state *st = j->st;
  size_t begin, end, es = tfl_type_size(st->type);
  cpu_task_range(t, j->tasks, st->rows, &begin, &end);
  for (size_t r = begin; r < end; r++) {
    const uint8_t *x = (const uint8_t *)j->x + r * st->depth * es;
    uint8_t *y = (uint8_t *)j->y + r * st->depth * es;
    if (st->type == TFL_TYPE_FLOAT32)
      row_f32(st, (const float *)x, (float *)y);
    else
      row_q8(st, x, y);
  }
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const softmax_state *st = state;
  softmax_job j = { st, cpu_in(g, n, INPUT)->data, cpu_out(g, n, OUTPUT)->data, 0 };
  size_t grain = st->depth ? 16384 / st->depth : 1;
  j.tasks = cpu_task_count(ctx, st->rows, grain ? grain : 1);
  cpu_parallel(ctx, task, &j, j.tasks);
  return TFL_OK;
}

const cpu_kernel cpu_k_softmax = {prepare, eval, release, CPU_F32 | CPU_Q8, 0};
