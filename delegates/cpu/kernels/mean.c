/* mean.c - MEAN over the axes listed in an int32 tensor (negative axes count from the
 * end, repeats allowed), keep_dims or not (only the output's dims differ).
 * Float32 sums in float like TFLite; uint8/int8 sum the raw codes exactly and requantize
 * out = zo + round(in_scale / out_scale * (sum / count - zi)), as TFLite's quantized mean.
 *
 * Adjacent input dims that are both reduced or both kept merge, so [N,H,W,C] over (1,2)
 * becomes [H*W reduced, C kept]: eval walks the input in order with a contiguous inner
 * run, adding into an accumulator per output element. When the innermost merged dim is
 * kept, its columns are split over threads.
 */
#include "eltwise_common.h"

#include <string.h>

enum { INPUT = 0, AXES = 1 };
enum { OUTPUT = 0 };

typedef struct {
  int nd;                               /* merged dims */
  size_t dims[TFL_MAX_DIMS];
  bool reduced[TFL_MAX_DIMS];
  size_t ostride[TFL_MAX_DIMS];         /* output element stride, 0 for reduced dims */
  size_t out_count, per_out;            /* outputs; inputs averaged into each */
} mean_plan;

typedef struct {
  tfl_type type;
  mean_plan plan;
  void *acc;                            /* float (float32) or double (quantized) per output */
  uint8_t flip;
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

static tfl_status make_plan(const tfl_graph *g, const tfl_node *n, mean_plan *p, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *ax = cpu_in(g, n, AXES), *y = cpu_out(g, n, OUTPUT);
  bool red[TFL_MAX_DIMS] = { false };
  size_t n_axes = tfl_tensor_count(ax);
  for (size_t i = 0; i < n_axes; i++) {
    int a = ((const int32_t *)ax->data)[i];
    int d = a < 0 ? a + x->ndim : a;
    if (d < 0 || d >= x->ndim)
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "axis %d out of range for %d dims", a, x->ndim);
    red[d] = true;
  }
  memset(p, 0, sizeof *p);
  p->out_count = 1;
  p->per_out = 1;
  for (int d = 0; d < x->ndim; d++) {
    size_t sz = (size_t)x->dims[d];
    if (red[d])
      p->per_out *= sz;
    else
      p->out_count *= sz;
    if (sz == 1) continue;
    if (p->nd > 0 && p->reduced[p->nd - 1] == red[d]) {
      p->dims[p->nd - 1] *= sz;
    } else {
      p->dims[p->nd] = sz;
      p->reduced[p->nd] = red[d];
      p->nd++;
    }
  }
  if (p->nd == 0) { /* a single element */
    p->dims[0] = 1;
    p->nd = 1;
  }
  size_t s = 1;
  for (int d = p->nd - 1; d >= 0; d--) {
    p->ostride[d] = p->reduced[d] ? 0 : s;
    if (!p->reduced[d]) s *= p->dims[d];
  }
  if (tfl_tensor_count(y) != p->out_count)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output has %zu elements, the reduction gives %zu",
                        tfl_tensor_count(y), p->out_count);
  return TFL_OK;
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *ax = cpu_in(g, n, AXES), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "input", -1, diag)) || (s = cpu_check_tensor(g, n, ax, "axes", -1, diag)) ||
      (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  if (ax->type != TFL_TYPE_INT32)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "axes are %s, expected INT32", tfl_type_name(ax->type));
  if (x->type != y->type)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input %s, output %s: types differ",
                        tfl_type_name(x->type), tfl_type_name(y->type));
  if (x->type != TFL_TYPE_FLOAT32 && !cpu_is_q8(x->type))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "type %s", tfl_type_name(x->type));
  mean_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "mean state");
  *state = st;
  st->type = x->type;
  if (ax->is_const && ax->data && (s = make_plan(g, n, &st->plan, diag))) return s;
  size_t out = tfl_tensor_count(y);
  st->acc = calloc(out ? out : 1, cpu_is_q8(x->type) ? sizeof(double) : sizeof(float));
  if (!st->acc) return tfl_fail(diag, TFL_ERR_NOMEM, "mean accumulator");
  if (cpu_is_q8(x->type)) {
    if ((s = cpu_check_per_tensor(g, n, x, "input", diag)) || (s = cpu_check_per_tensor(g, n, y, "output", diag)))
      return s;
    st->flip = cpu_q8_flip(x->type);
    st->q_scale = (double)cpu_scale(x, 0) / cpu_scale(y, 0);
    st->zi = cpu_zero_point(x, 0);
    st->zo = cpu_zero_point(y, 0);
    cpu_type_limits(y->type, &st->lo, &st->hi);
  }
  return TFL_OK;
}

typedef struct {
  const mean_state *st;
  const mean_plan *p;
  const void *x;
  void *y;
  size_t tasks;
} mean_job;

/* Sums the input columns [c0, c1) of the innermost dim (all of it when reduced). */
static void accumulate(const mean_job *j, size_t c0, size_t c1)
{
  const mean_plan *p = j->p;
  int last = p->nd - 1;
  size_t inner = p->dims[last], rows = 1;
  for (int d = 0; d < last; d++) rows *= p->dims[d];
  bool q8 = cpu_is_q8(j->st->type);
  for (size_t r = 0; r < rows; r++) {
    size_t rem = r, o = 0;
    for (int d = last - 1; d >= 0; d--) {
      o += (rem % p->dims[d]) * p->ostride[d];
      rem /= p->dims[d];
    }
    size_t in_off = r * inner;
    if (q8) {
      const uint8_t *x = (const uint8_t *)j->x + in_off;
      double *acc = (double *)j->st->acc + o;
      const uint8_t f = j->st->flip;
      const int32_t bias = f ? 128 : 0; /* table index -> raw code */
      if (p->reduced[last]) {
        int64_t sum = 0;
        for (size_t k = 0; k < inner; k++) sum += (x[k] ^ f) - bias;
        acc[0] += (double)sum;
      } else {
        for (size_t k = c0; k < c1; k++) acc[k] += (x[k] ^ f) - bias;
      }
    } else {
      const float *x = (const float *)j->x + in_off;
      float *acc = (float *)j->st->acc + o;
      if (p->reduced[last]) {
        float sum = 0.0f;
        for (size_t k = 0; k < inner; k++) sum += x[k];
        acc[0] += sum;
      } else {
        for (size_t k = c0; k < c1; k++) acc[k] += x[k];
      }
    }
  }
}

static void finish(const mean_job *j, size_t o0, size_t o1)
{
  const mean_state *st = j->st;
  double cnt = (double)j->p->per_out;
  if (cpu_is_q8(st->type)) {
    const double *acc = st->acc;
    uint8_t *y = j->y;
    for (size_t o = o0; o < o1; o++)
      y[o] = (uint8_t)cpu_q8_quantize(acc[o] / cnt - st->zi, st->q_scale, st->zo, st->lo, st->hi);
  } else {
    const float *acc = st->acc;
    float *y = j->y;
    float c = (float)cnt;
    for (size_t o = o0; o < o1; o++) y[o] = acc[o] / c;
  }
}

/* Threaded case: the innermost merged dim is kept; task t owns a range of its columns,
 * which are the same columns of every output row. */
static void column_task(void *arg, size_t t)
{
  const mean_job *j = arg;
  const mean_plan *p = j->p;
  size_t inner = p->dims[p->nd - 1], c0, c1;
  cpu_task_range(t, j->tasks, inner, &c0, &c1);
  accumulate(j, c0, c1);
  for (size_t o = 0; o < p->out_count; o += inner) finish(j, o + c0, o + c1);
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  mean_state *st = state;
  mean_plan plan;
  const mean_plan *p = &st->plan;
  if (!cpu_in(g, n, AXES)->is_const) { /* axes computed at run */
    tfl_status s = make_plan(g, n, &plan, diag);
    if (s) return s;
    p = &plan;
  }
  mean_job j = { st, p, cpu_in(g, n, INPUT)->data, cpu_out(g, n, OUTPUT)->data, 1 };
  memset(st->acc, 0, p->out_count * (cpu_is_q8(st->type) ? sizeof(double) : sizeof(float)));
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

const cpu_kernel cpu_k_mean = { prepare, eval, release };
