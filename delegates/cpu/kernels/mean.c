/* mean.c - MEAN over the axes listed in an int32/int64 tensor (negative axes count from the
 * end, repeats allowed; reduce_common.h), keep_dims or not (only the output's dims differ),
 * over any axes: channels too (LayerNorm's mean over the last axis).
 * Float32 sums in float like TFLite. Quantized uint8/int8/int16 (int16: zero points 0, as
 * TFLite demands) sum the raw codes exactly and requantize
 * out = zo + round(in_scale / out_scale * (sum / count - zi)), as TFLite's quantized mean.
 * int32/int64 sum in int64 and divide truncating toward zero, as TFLite's integer mean.
 * An empty input gives NaN (float) or 0 (integer codes), as TFLite fills it.
 *
 * eval walks the input in order in rows of the innermost merged dim, adding into an
 * accumulator per output element. When the innermost merged dim is kept, its columns are
 * split over threads.
 */
#include "reduce_common.h"

enum { INPUT = 0, AXES = 1 };
enum { OUTPUT = 0 };

typedef enum { ACC_FLOAT, ACC_DOUBLE, ACC_INT64 } acc_kind;

typedef struct {
  tfl_type type;
  acc_kind acc_kind;
  bool planned;
  cpu_reduce_plan plan;
  void *acc;                            /* float, double (quantized) or int64 per output */
  size_t acc_size;
  double q_scale;                       /* in_scale / out_scale */
  int32_t zi, zo, lo, hi;
} mean_state;

static void release(void *state)
{
  mean_state *st = state;
  if (!st) return;
  free(st->acc);
  free(st);
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *ax = cpu_in(g, n, AXES), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "input", -1, diag)) || (s = cpu_check_tensor(g, n, ax, "axes", -1, diag)) ||
      (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  if (x->type != y->type)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input %s, output %s: types differ",
                        tfl_type_name(x->type), tfl_type_name(y->type));
  acc_kind k;
  switch (x->type) {
  case TFL_TYPE_FLOAT32: k = ACC_FLOAT; break;
  case TFL_TYPE_UINT8:
  case TFL_TYPE_INT8:
  case TFL_TYPE_INT16: k = ACC_DOUBLE; break;
  case TFL_TYPE_INT32:
  case TFL_TYPE_INT64: k = ACC_INT64; break;
  default:
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input type %s is not supported (TFLite: FLOAT32, "
                        "INT8, UINT8, INT16, INT32, INT64)", tfl_type_name(x->type));
  }
  mean_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "mean state");
  *state = st;
  st->type = x->type;
  st->acc_kind = k;
  if ((s = cpu_reduce_prepare_plan(g, n, &st->plan, &st->planned, diag))) return s;
  size_t out = tfl_tensor_count(y);
  st->acc_size = k == ACC_FLOAT ? sizeof(float) : k == ACC_DOUBLE ? sizeof(double) : sizeof(int64_t);
  st->acc = calloc(out ? out : 1, st->acc_size);
  if (!st->acc) return tfl_fail(diag, TFL_ERR_NOMEM, "mean accumulator");
  if (k == ACC_DOUBLE) {
    if ((s = cpu_check_per_tensor(g, n, x, "input", diag)) || (s = cpu_check_per_tensor(g, n, y, "output", diag)))
      return s;
    st->q_scale = (double)cpu_scale(x, 0) / cpu_scale(y, 0);
    st->zi = cpu_zero_point(x, 0);
    st->zo = cpu_zero_point(y, 0);
    if (x->type == TFL_TYPE_INT16 && (st->zi != 0 || st->zo != 0))
      return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "INT16 zero points %d (input), %d (output): TFLite "
                          "needs 0", st->zi, st->zo);
    cpu_type_limits(y->type, &st->lo, &st->hi);
  }
  return TFL_OK;
}

typedef struct {
  const mean_state *st;
  const cpu_reduce_plan *p;
  const void *x;
  void *y;
  size_t tasks;
} mean_job;

/* Integer code i of x (8/16-bit quantized, int32, int64). */
static inline int64_t code_at(tfl_type t, const void *x, size_t i)
{
  switch (t) {
  case TFL_TYPE_UINT8: return ((const uint8_t *)x)[i];
  case TFL_TYPE_INT8: return ((const int8_t *)x)[i];
  case TFL_TYPE_INT16: return ((const int16_t *)x)[i];
  case TFL_TYPE_INT32: return ((const int32_t *)x)[i];
  default: return ((const int64_t *)x)[i];
  }
}

/* Adds one input row of codes of type T into acc: one sum when the row is reduced,
 * columns [c0, c1) when it is kept. */
#define SUM_ROW_FN(NAME, T)                                                                          \
  static void NAME(const void *xv, size_t inner, bool reduced, size_t c0, size_t c1, double *acc)    \
  {                                                                                                  \
    const T *x = xv;                                                                                 \
    if (reduced) {                                                                                   \
      int64_t sum = 0;                                                                               \
      for (size_t k = 0; k < inner; k++) sum += x[k];                                                \
      acc[0] += (double)sum;                                                                         \
    } else {                                                                                         \
      for (size_t k = c0; k < c1; k++) acc[k] += (double)x[k];                                       \
    }                                                                                                \
  }

SUM_ROW_FN(sum_row_u8, uint8_t)
SUM_ROW_FN(sum_row_i8, int8_t)
SUM_ROW_FN(sum_row_i16, int16_t)

/* Sums the input columns [c0, c1) of the innermost dim (all of it when reduced). */
static void accumulate(const mean_job *j, size_t c0, size_t c1)
{
  const cpu_reduce_plan *p = j->p;
  int last = p->nd - 1;
  size_t inner = p->dims[last];
  tfl_type t = j->st->type;
  for (size_t r = 0; r < p->rows; r++) {
    size_t o = cpu_reduce_row_out(p, r), in_off = r * inner;
    switch (j->st->acc_kind) {
    case ACC_FLOAT: {
      const float *x = (const float *)j->x + in_off;
      float *acc = (float *)j->st->acc + o;
      if (p->reduced[last]) {
        float sum = 0.0f;
        for (size_t k = 0; k < inner; k++) sum += x[k];
        acc[0] += sum;
      } else {
        for (size_t k = c0; k < c1; k++) acc[k] += x[k];
      }
      break;
    }
    case ACC_DOUBLE: { /* codes of at most 16 bits: exact in int64 and in double */
      double *acc = (double *)j->st->acc + o;
      const void *x = (const uint8_t *)j->x + in_off * tfl_type_size(t);
      if (t == TFL_TYPE_UINT8)
        sum_row_u8(x, inner, p->reduced[last], c0, c1, acc);
      else if (t == TFL_TYPE_INT8)
        sum_row_i8(x, inner, p->reduced[last], c0, c1, acc);
      else
        sum_row_i16(x, inner, p->reduced[last], c0, c1, acc);
      break;
    }
    case ACC_INT64: { /* wraps like the int64 accumulator it stands for */
      int64_t *acc = (int64_t *)j->st->acc + o;
      if (p->reduced[last]) {
        uint64_t sum = 0;
        for (size_t k = 0; k < inner; k++) sum += (uint64_t)code_at(t, j->x, in_off + k);
        acc[0] = (int64_t)((uint64_t)acc[0] + sum);
      } else {
        for (size_t k = c0; k < c1; k++) acc[k] = (int64_t)((uint64_t)acc[k] + (uint64_t)code_at(t, j->x, in_off + k));
      }
      break;
    }
    }
  }
}

static void finish(const mean_job *j, size_t o0, size_t o1)
{
  const mean_state *st = j->st;
  size_t cnt = j->p->per_out;
  switch (st->acc_kind) {
  case ACC_FLOAT: {
    const float *acc = st->acc;
    float *y = j->y;
    float c = (float)cnt;
    for (size_t o = o0; o < o1; o++) y[o] = acc[o] / c;
    break;
  }
  case ACC_DOUBLE: {
    const double *acc = st->acc;
    for (size_t o = o0; o < o1; o++) {
      int32_t v = cnt ? cpu_q8_quantize(acc[o] / (double)cnt - st->zi, st->q_scale, st->zo, st->lo, st->hi) : 0;
      if (st->type == TFL_TYPE_INT16)
        ((int16_t *)j->y)[o] = (int16_t)v;
      else
        ((uint8_t *)j->y)[o] = (uint8_t)v;
    }
    break;
  }
  case ACC_INT64: {
    const int64_t *acc = st->acc;
    int64_t c = (int64_t)cnt;
    for (size_t o = o0; o < o1; o++) {
      /* INT64_MIN / -1 cannot happen: c > 0 */
      int64_t v = c ? acc[o] / c : 0;
      if (st->type == TFL_TYPE_INT32)
        ((int32_t *)j->y)[o] = (int32_t)v;
      else
        ((int64_t *)j->y)[o] = v;
    }
    break;
  }
  }
}

/* Threaded case: the innermost merged dim is kept; task t owns a range of its columns,
 * which are the same columns of every output row. */
static void column_task(void *arg, size_t t)
{
  const mean_job *j = arg;
  const cpu_reduce_plan *p = j->p;
  size_t inner = p->dims[p->nd - 1], c0, c1;
  cpu_task_range(t, j->tasks, inner, &c0, &c1);
  accumulate(j, c0, c1);
  for (size_t o = 0; o < p->out_count; o += inner) finish(j, o + c0, o + c1);
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  mean_state *st = state;
  cpu_reduce_plan plan;
  const cpu_reduce_plan *p = &st->plan;
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  if (!st->planned) { /* axes computed at run */
    tfl_status s = cpu_reduce_plan_make(g, n, x, cpu_in(g, n, AXES), y, &plan, diag);
    if (s) return s;
    p = &plan;
  }
  mean_job j = { st, p, x->data, y->data, 1 };
  if (p->out_count == 0) return TFL_OK;
  if (p->per_out == 0) { /* empty input */
    if (st->acc_kind == ACC_FLOAT)
      for (size_t o = 0; o < p->out_count; o++) ((float *)y->data)[o] = NAN;
    else
      memset(y->data, 0, p->out_count * tfl_type_size(y->type));
    return TFL_OK;
  }
  memset(st->acc, 0, p->out_count * st->acc_size);
  size_t total = p->out_count * p->per_out;
  size_t inner = p->dims[p->nd - 1];
  if (!p->reduced[p->nd - 1] && inner >= 64) {
    size_t tasks = cpu_task_count(ctx, total, 65536);
    j.tasks = tasks < inner / 16 ? tasks : inner / 16;
    cpu_parallel(ctx, column_task, &j, j.tasks);
    return TFL_OK;
  }
  accumulate(&j, 0, inner);
  finish(&j, 0, p->out_count);
  return TFL_OK;
}

const cpu_kernel cpu_k_mean = {prepare, eval, release, CPU_F32 | CPU_Q8 | CPU_I16 | CPU_I32 | CPU_I64, 0};
