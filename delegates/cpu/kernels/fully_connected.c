/* fully_connected.c - FULLY_CONNECTED reference kernel: float32, uint8 (per-tensor),
 * int8 (per-tensor or per-channel weights along axis 0) and hybrid (float32 input and
 * output, int8 weights with per-tensor or per-channel scales: hybrid.h), whose input rows
 * are quantized per batch row, symmetric or asymmetric (asymmetric_quantize_inputs, or
 * always where LiteRT's XNNPACK runs the node: hybrid.h).
 * Weights [units, input_size]; the input is read as [count / input_size, input_size]
 * (leading dims flattened); optional bias [units]; output [batches, units], or the
 * input's dims with the last one replaced by units when keep_num_dims (the shape pass
 * decides the dims: here only the element count and the last dim are checked).
 * eval splits (batch, block of units) pairs over threads; each task writes its own block.
 */
#include "conv_common.h"
#include "hybrid.h"

enum { INPUT = 0, WEIGHTS = 1, BIAS = 2 };
enum { OUTPUT = 0 };
enum { UNITS_PER_TASK = 64 };

typedef struct {
  int batches, input_size, units, blocks;
  float act_lo, act_hi;
  cpu_requant rq;     /* quantized only */
  /* hybrid only: weight scales, quantized input rows with their scale and zero point,
   * weight row sums (asymmetric inputs; constant weights: computed at prepare) */
  bool hybrid, asym;
  tfl_activation act;
  cpu_hybrid_weights hw;
  int8_t *xq;
  float *x_scale;
  int32_t *x_zp, *row_sums;
} fc_state;

static void release(void *state)
{
  fc_state *st = state;
  if (!st) return;
  cpu_requant_free(&st->rq);
  free(st->hw.w_scale);
  free(st->xq);
  free(st->x_scale);
  free(st->x_zp);
  free(st->row_sums);
  free(st);
}

/* Float input and output, int8 weights. TFLite applies any fused activation here. */
static tfl_status prepare_hybrid(const tfl_graph *g, const tfl_node *n, fc_state *st, tfl_diag *diag)
{
  const tfl_tensor *w = cpu_in(g, n, WEIGHTS), *b = cpu_in(g, n, BIAS), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if (y->type != TFL_TYPE_FLOAT32)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "float input with %s weights, %s output",
                        tfl_type_name(w->type), tfl_type_name(y->type));
  if ((s = cpu_hybrid_weights_prepare(g, n, w, "weights", st->units, 0, &st->hw, diag)) ||
      (s = cpu_check_bias(g, n, b, false, st->units, diag)))
    return s;
  st->hybrid = true;
  st->asym = n->p.fc.asymmetric_quantize_inputs || cpu_hybrid_xnnpack_takes(w, b, n->p.fc.act);
  st->act = n->p.fc.act;
  size_t rows = st->batches > 0 ? (size_t)st->batches : 1;
  st->xq = malloc(rows * (size_t)st->input_size);
  st->x_scale = malloc(sizeof(float) * rows);
  st->x_zp = calloc(rows, sizeof(int32_t));
  st->row_sums = calloc(st->units > 0 ? (size_t)st->units : 1, sizeof(int32_t));
  if (!st->xq || !st->x_scale || !st->x_zp || !st->row_sums)
    return tfl_fail(diag, TFL_ERR_NOMEM, "hybrid fully connected buffers");
  if (w->is_const) cpu_hybrid_row_sums(w->data, st->units, st->input_size, st->row_sums);
  return TFL_OK;
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *w = cpu_in(g, n, WEIGHTS), *b = cpu_in(g, n, BIAS);
  const tfl_tensor *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "input", -1, diag)) ||
      (s = cpu_check_tensor(g, n, w, "weights", 2, diag)) || (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  fc_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "fully connected state");
  *state = st;
  st->units = w->dims[0];
  st->input_size = w->dims[1];
  size_t count = tfl_tensor_count(x);
  if (st->input_size < 1 || count % (size_t)st->input_size != 0)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input has %zu values, not a multiple of %d", count,
                        st->input_size);
  st->batches = (int)(count / (size_t)st->input_size);
  st->blocks = (st->units + UNITS_PER_TASK - 1) / UNITS_PER_TASK;
  if (y->ndim < 1 || y->dims[y->ndim - 1] != st->units ||
      tfl_tensor_count(y) != (size_t)st->batches * st->units)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n,
                        "output has %zu values (last dim %d), expected %d batches x %d units",
                        tfl_tensor_count(y), y->ndim ? y->dims[y->ndim - 1] : 0, st->batches,
                        st->units);

  if (x->type == TFL_TYPE_FLOAT32 && w->type != TFL_TYPE_FLOAT32) return prepare_hybrid(g, n, st, diag);
  cpu_conv_types t = {x, w, b, y, "weights", st->units, 0, n->p.fc.act, true};
  return cpu_conv_prepare_types(g, n, &t, &st->act_lo, &st->act_hi, &st->rq, diag);
}

typedef struct {
  const fc_state *st;
  const void *x, *w, *b;
  void *y;
} fc_args;

/* Quantizes input row i (one batch). */
static void quant_row(void *arg, size_t i)
{
  const fc_args *a = arg;
  const fc_state *st = a->st;
  const float *x = (const float *)a->x + i * (size_t)st->input_size;
  int8_t *q = st->xq + i * (size_t)st->input_size;
  st->x_scale[i] = st->asym ? cpu_hybrid_quant_asym(x, (size_t)st->input_size, q, &st->x_zp[i])
                            : cpu_hybrid_quant_sym(x, (size_t)st->input_size, q);
}

/* One (batch, block of units) pair of a hybrid node: the int32 dot of the quantized row
 * and the weight row, less zero point x row sum, times input scale x weight scale. */
static void task_hybrid(void *arg, size_t i)
{
  const fc_args *a = arg;
  const fc_state *st = a->st;
  size_t bi = i / (size_t)st->blocks;
  int u0 = (int)(i % (size_t)st->blocks) * UNITS_PER_TASK;
  int u1 = u0 + UNITS_PER_TASK < st->units ? u0 + UNITS_PER_TASK : st->units;
  const int8_t *q = st->xq + bi * (size_t)st->input_size;
  const float *bias = a->b;
  float xs = st->x_scale[bi];
  int32_t zp = st->x_zp[bi];
  for (int u = u0; u < u1; u++) {
    int32_t acc = cpu_hybrid_dot(q, (const int8_t *)a->w + (size_t)u * st->input_size, st->input_size);
    acc = cpu_wrap_add(acc, (int32_t)((uint32_t)st->row_sums[u] * (uint32_t)-zp));
    float v = (bias ? bias[u] : 0.0f) + (float)acc * (xs * st->hw.w_scale[u]);
    ((float *)a->y)[bi * (size_t)st->units + u] = cpu_apply_activation(st->act, v);
  }
}

static void task(void *arg, size_t i)
{
  const fc_args *a = arg;
  const fc_state *st = a->st;
  const cpu_requant *rq = &st->rq;
  size_t bi = i / (size_t)st->blocks;
  int u0 = (int)(i % (size_t)st->blocks) * UNITS_PER_TASK;
  int u1 = u0 + UNITS_PER_TASK < st->units ? u0 + UNITS_PER_TASK : st->units;
  size_t xo = bi * (size_t)st->input_size;
  for (int u = u0; u < u1; u++) {
    size_t wo = (size_t)u * st->input_size, yo = bi * (size_t)st->units + u;
    if (!rq->on) {
      const float *bias = a->b;
      float v = (bias ? bias[u] : 0.0f) +
                cpu_dot_f32((const float *)a->x + xo, (const float *)a->w + wo, st->input_size);
      ((float *)a->y)[yo] = v < st->act_lo ? st->act_lo : (v > st->act_hi ? st->act_hi : v);
      continue;
    }
    const int32_t *bias = a->b;
    int32_t acc = bias ? bias[u] : 0;
    acc = cpu_wrap_add(acc, rq->is_u8 ? cpu_dot_u8((const uint8_t *)a->x + xo, (const uint8_t *)a->w + wo,
                                  st->input_size, rq->in_zp, rq->w_zp[u])
                     : cpu_dot_i8((const int8_t *)a->x + xo, (const int8_t *)a->w + wo,
                                  st->input_size, rq->in_zp, rq->w_zp[u]));
    cpu_store_q(a->y, rq->is_u8, yo, cpu_requant_apply(rq, acc, u));
  }
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const fc_state *st = state;
  const tfl_tensor *b = cpu_in(g, n, BIAS);
  fc_args a = {st, cpu_in(g, n, INPUT)->data, cpu_in(g, n, WEIGHTS)->data, b ? b->data : NULL,
               cpu_out(g, n, OUTPUT)->data};
  if (st->hybrid) {
    const tfl_tensor *w = cpu_in(g, n, WEIGHTS);
    if (st->asym && !w->is_const) cpu_hybrid_row_sums(w->data, st->units, st->input_size, st->row_sums);
    cpu_parallel(ctx, quant_row, &a, (size_t)st->batches);
    cpu_parallel(ctx, task_hybrid, &a, (size_t)st->batches * st->blocks);
    return TFL_OK;
  }
  cpu_parallel(ctx, task, &a, (size_t)st->batches * st->blocks);
  return TFL_OK;
}

const cpu_kernel cpu_k_fully_connected = {prepare, eval, release, CPU_F32 | CPU_Q8, 0};
