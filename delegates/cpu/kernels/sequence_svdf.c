/* sequence_svdf.c - SVDF reference kernel (TFLite's svdf), float32 or hybrid (int8 weights,
 * float input and state; asymmetric_quantize_inputs both ways).
 *
 * Inputs: 0 x [batch, in], 1 weights_feature [filters, in], 2 weights_time [filters, memory],
 * 3 bias [units] (optional), 4 state [batch, filters * memory] (variable); output
 * [batch, units] with units = filters / rank. Per batch row and run:
 *   the state moves one column left (per filter, the oldest activation drops out);
 *   state[f, memory - 1] = weights_feature[f] . x;
 *   s[f] = weights_time[f] . state[f, :];
 *   y[u] = act(bias[u] + sum over r < rank of s[u * rank + r]).
 * Hybrid: x is quantized per row (seq_common.h); weights_time is used as int8 * scale.
 * Full integer (TFLite's 8x16): x, weights_feature and y int8, weights_time and the state
 *   int16 (zero point 0), bias int32. The new state column is
 *   clamp16(M1 * sum w (x - zx)) with M1 = sx * swf / sstate, the time product sums in
 *   int32, y = clamp8(M2 * (bias + sum over rank) + zy) with M2 = sstate * swt / sy
 *   (TFLite's fixed-point multipliers). TFLite accepts only a RELU activation here and
 *   then applies none: the same is done.
 */
#include "kernels.h"

#include "seq_common.h"

enum { X = 0, W_FEAT = 1, W_TIME = 2, BIAS = 3, STATE = 4 };

typedef struct {
  int n_batch, n_input, n_filters, n_memory, n_units, rank;
  bool hybrid, asym, integer;
  tfl_activation act;
  int32_t m1, m2, x_zp, y_zp;   /* full integer: multipliers (Q31) and zero points */
  int sh1, sh2;
  float s_feat, s_time;
  float *w_time;           /* hybrid: weights_time as floats (filled by eval) */
  float *scratch;          /* per row: filters */
  int8_t *qscratch;        /* per row: in */
  int32_t *iscratch;       /* full integer, per row: filters */
} svdf_state;

static void release(void *state)
{
  svdf_state *st = state;
  if (!st) return;
  free(st->w_time);
  free(st->scratch);
  free(st->qscratch);
  free(st->iscratch);
  free(st);
}

static tfl_status need_2d(const tfl_graph *g, const tfl_node *n, int i, const char *what, tfl_diag *diag)
{
  const tfl_tensor *t = cpu_in(g, n, i);
  if (!t) return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%s (input %d) is missing", what, i);
  if (t->ndim != 2)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%s (input %d) has %d dims, expected 2", what, i, t->ndim);
  return TFL_OK;
}

/* One scale and zero point (want_zp0: zero point 0) on input i (-1: output 0). */
static tfl_status quant_of(const tfl_graph *g, const tfl_node *n, int i, const char *what, bool want_zp0, float *scale,
                           int32_t *zp, tfl_diag *diag)
{
  const tfl_tensor *t = i >= 0 ? cpu_in(g, n, i) : cpu_out(g, n, 0);
  if (t->q.n != 1 || !(t->q.scale[0] > 0.0f) || !isfinite(t->q.scale[0]) || (want_zp0 && t->q.zero_point[0] != 0))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s needs one scale > 0%s (%d scales given)", what,
                        want_zp0 ? " and zero point 0" : "", t->q.n);
  *scale = t->q.scale[0];
  *zp = t->q.zero_point[0];
  return TFL_OK;
}

/* Full integer SVDF: types, scales and TFLite's two multipliers. */
static tfl_status prepare_integer(const tfl_graph *g, const tfl_node *n, svdf_state *st, tfl_diag *diag)
{
  const tfl_tensor *wf = cpu_in(g, n, W_FEAT), *wt = cpu_in(g, n, W_TIME), *b = cpu_in(g, n, BIAS);
  const tfl_tensor *sv = cpu_in(g, n, STATE), *y = cpu_out(g, n, 0);
  tfl_status s;
  struct { const tfl_tensor *t; tfl_type type; const char *what; } need[] = {
    {wf, TFL_TYPE_INT8, "weights_feature"}, {wt, TFL_TYPE_INT16, "weights_time"}, {sv, TFL_TYPE_INT16, "state"},
    {y, TFL_TYPE_INT8, "output"}, {b, TFL_TYPE_INT32, "bias"}};
  for (size_t k = 0; k < sizeof need / sizeof need[0]; k++)
    if (need[k].t && need[k].t->type != need[k].type)
      return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "int8 SVDF: %s is %s, expected %s", need[k].what,
                          tfl_type_name(need[k].t->type), tfl_type_name(need[k].type));
  if (st->act != TFL_ACT_RELU)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "int8 SVDF takes only a RELU activation (TFLite's), not %d",
                        (int)st->act);
  float sx, swf, swt, ss, sy;
  int32_t zwf, zwt, zs;
  if ((s = quant_of(g, n, X, "input", false, &sx, &st->x_zp, diag)) ||
      (s = quant_of(g, n, W_FEAT, "weights_feature", false, &swf, &zwf, diag)) ||
      (s = quant_of(g, n, W_TIME, "weights_time", false, &swt, &zwt, diag)) ||
      (s = quant_of(g, n, STATE, "state", true, &ss, &zs, diag)) ||
      (s = quant_of(g, n, -1, "output", false, &sy, &st->y_zp, diag)))
    return s;
  /* TFLite forms both ratios in float, then widens them */
  float e1 = sx * swf / ss, e2 = ss * swt / sy;
  cpu_quantize_multiplier((double)e1, &st->m1, &st->sh1);
  cpu_quantize_multiplier((double)e2, &st->m2, &st->sh2);
  st->integer = true;
  return TFL_OK;
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  svdf_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "SVDF state");
  *state = st;
  tfl_status s;
  if (n->n_in != 5 || n->n_out != 1)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%d inputs and %d outputs, expected 5 and 1", n->n_in, n->n_out);
  if ((s = need_2d(g, n, X, "input", diag)) || (s = need_2d(g, n, W_FEAT, "weights_feature", diag)) ||
      (s = need_2d(g, n, W_TIME, "weights_time", diag)) || (s = need_2d(g, n, STATE, "state", diag)))
    return s;
  const tfl_tensor *x = cpu_in(g, n, X), *wf = cpu_in(g, n, W_FEAT), *wt = cpu_in(g, n, W_TIME);
  const tfl_tensor *b = cpu_in(g, n, BIAS), *sv = cpu_in(g, n, STATE), *y = cpu_out(g, n, 0);
  st->rank = n->p.seq.rank;
  st->act = n->p.seq.act;
  st->asym = n->p.seq.asymmetric_quantize_inputs;
  st->n_batch = x->dims[0];
  st->n_input = x->dims[1];
  st->n_filters = wf->dims[0];
  st->n_memory = wt->dims[1];
  if (x->type != TFL_TYPE_FLOAT32 && x->type != TFL_TYPE_INT8)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input is %s: float32, int8 and hybrid run",
                        tfl_type_name(x->type));
  if (!seq_act_ok(st->act))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "activation %d is not one TFLite's SVDF applies",
                        (int)st->act);
  if (st->rank < 1 || st->n_filters < 1 || st->n_filters % st->rank)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "weights_feature has %d filters, not a multiple of rank %d",
                        st->n_filters, st->rank);
  st->n_units = st->n_filters / st->rank;
  if (wf->dims[1] != st->n_input || st->n_input < 1)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "weights_feature is [%d, %d], input size %d", wf->dims[0],
                        wf->dims[1], st->n_input);
  if (wt->dims[0] != st->n_filters || st->n_memory < 1)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "weights_time is [%d, %d], expected [%d, memory >= 1]", wt->dims[0],
                        wt->dims[1], st->n_filters);
  if (b && (b->ndim != 1 || b->dims[0] != st->n_units))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "bias has %d dims, expected [%d]", b->ndim, st->n_units);
  if (sv->is_const || sv->dims[0] != st->n_batch || (int64_t)sv->dims[1] != (int64_t)st->n_filters * st->n_memory)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "state is %s[%d, %d], expected a variable [%d, %d x %d]",
                        sv->is_const ? "a constant " : "", sv->dims[0], sv->dims[1], st->n_batch, st->n_filters,
                        st->n_memory);
  if (!y || tfl_tensor_count(y) != (size_t)st->n_batch * (size_t)st->n_units)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output has %zu values, expected %d x %d",
                        y ? tfl_tensor_count(y) : 0, st->n_batch, st->n_units);
  size_t rows = (size_t)(st->n_batch > 0 ? st->n_batch : 1);
  size_t nf = (size_t)st->n_filters;
  if (nf > SIZE_MAX / sizeof(float) / rows || (size_t)st->n_input > SIZE_MAX / rows)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "scratch of %zu rows overflows", rows);
  if (x->type == TFL_TYPE_INT8) {
    if ((s = prepare_integer(g, n, st, diag))) return s;
    st->iscratch = malloc(sizeof(int32_t) * nf * rows);
    return st->iscratch ? TFL_OK : tfl_fail(diag, TFL_ERR_NOMEM, "SVDF scratch");
  }
  st->hybrid = seq_hybrid_type(wf->type);
  if (wf->type != TFL_TYPE_FLOAT32 && !st->hybrid)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "weights_feature is %s: float32 and hybrid int8 run",
                        tfl_type_name(wf->type));
  if (wt->type != wf->type)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "weights_time is %s, weights_feature %s: expected the same",
                        tfl_type_name(wt->type), tfl_type_name(wf->type));
  if (b && (b->type != TFL_TYPE_FLOAT32 || b->ndim != 1 || b->dims[0] != st->n_units))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "bias is %s with %d dims, expected float32 [%d]",
                        tfl_type_name(b->type), b->ndim, st->n_units);
  if (sv->type != TFL_TYPE_FLOAT32 || sv->is_const || sv->dims[0] != st->n_batch ||
      (int64_t)sv->dims[1] != (int64_t)st->n_filters * st->n_memory)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "state is %s%s [%d, %d], expected a float32 variable [%d, %d x %d]",
                        sv->is_const ? "constant " : "", tfl_type_name(sv->type), sv->dims[0], sv->dims[1], st->n_batch,
                        st->n_filters, st->n_memory);
  if (!y || y->type != TFL_TYPE_FLOAT32 || tfl_tensor_count(y) != (size_t)st->n_batch * (size_t)st->n_units)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output is %s with %zu values, expected float32 %d x %d",
                        y ? tfl_type_name(y->type) : "missing", y ? tfl_tensor_count(y) : 0, st->n_batch, st->n_units);
  if (st->hybrid && ((s = seq_check_hybrid_weight(g, n, W_FEAT, &st->s_feat, diag)) ||
                     (s = seq_check_hybrid_weight(g, n, W_TIME, &st->s_time, diag))))
    return s;
  st->scratch = malloc(sizeof(float) * nf * rows);
  st->qscratch = malloc((size_t)st->n_input * rows);
  if (st->hybrid) st->w_time = malloc(sizeof(float) * tfl_tensor_count(wt));
  if (!st->scratch || !st->qscratch || (st->hybrid && !st->w_time))
    return tfl_fail(diag, TFL_ERR_NOMEM, "SVDF scratch");
  return TFL_OK;
}

typedef struct {
  const tfl_graph *g;
  const tfl_node *n;
  const svdf_state *st;
} svdf_args;

static void run_row_integer(const svdf_args *a, size_t bi)
{
  const svdf_state *st = a->st;
  size_t nf = (size_t)st->n_filters, nm = (size_t)st->n_memory, ni = (size_t)st->n_input;
  const int8_t *x = (const int8_t *)cpu_in(a->g, a->n, X)->data + bi * ni;
  const int8_t *wf = cpu_in(a->g, a->n, W_FEAT)->data;
  const int16_t *wt = cpu_in(a->g, a->n, W_TIME)->data;
  int16_t *sv = (int16_t *)cpu_in(a->g, a->n, STATE)->data + bi * nf * nm;
  const tfl_tensor *tb = cpu_in(a->g, a->n, BIAS);
  const int32_t *bias = tb ? tb->data : NULL;
  int32_t *s = st->iscratch + bi * nf;
  int8_t *y = (int8_t *)cpu_out(a->g, a->n, 0)->data + bi * (size_t)st->n_units;

  memmove(sv, sv + 1, sizeof(int16_t) * (nf * nm - 1));
  for (size_t f = 0; f < nf; f++) {
    uint32_t acc = 0;   /* TFLite's int32 accumulator, wrapping */
    for (size_t k = 0; k < ni; k++) acc += (uint32_t)((int32_t)wf[f * ni + k] * ((int32_t)x[k] - st->x_zp));
    int32_t v = cpu_mul_by_quantized_multiplier((int32_t)acc, st->m1, st->sh1);
    sv[f * nm + nm - 1] = (int16_t)cpu_clamp_i32(v, INT16_MIN, INT16_MAX);
  }
  for (size_t f = 0; f < nf; f++) {
    uint32_t acc = 0;
    for (size_t j = 0; j < nm; j++) acc += (uint32_t)((int32_t)wt[f * nm + j] * sv[f * nm + j]);
    s[f] = (int32_t)acc;
  }
  for (int u = 0; u < st->n_units; u++) {
    uint32_t acc = bias ? (uint32_t)bias[u] : 0u;
    for (int r = 0; r < st->rank; r++) acc += (uint32_t)s[(size_t)u * st->rank + r];
    int32_t v = cpu_mul_by_quantized_multiplier((int32_t)acc, st->m2, st->sh2) + st->y_zp;
    y[u] = (int8_t)cpu_clamp_i32(v, INT8_MIN, INT8_MAX);
  }
}

static void run_row(void *arg, size_t bi)
{
  if (((const svdf_args *)arg)->st->integer) {
    run_row_integer(arg, bi);
    return;
  }
  const svdf_args *a = arg;
  const svdf_state *st = a->st;
  size_t nf = (size_t)st->n_filters, nm = (size_t)st->n_memory, ni = (size_t)st->n_input;
  const float *x = (const float *)cpu_in(a->g, a->n, X)->data + bi * ni;
  float *sv = (float *)cpu_in(a->g, a->n, STATE)->data + bi * nf * nm;
  const tfl_tensor *tb = cpu_in(a->g, a->n, BIAS);
  const float *bias = tb ? tb->data : NULL;
  const float *wt = st->hybrid ? st->w_time : cpu_in(a->g, a->n, W_TIME)->data;
  float *s = st->scratch + bi * nf, *y = (float *)cpu_out(a->g, a->n, 0)->data + bi * (size_t)st->n_units;

  memmove(sv, sv + 1, sizeof(float) * (nf * nm - 1));
  if (st->hybrid) {
    float sf;
    int32_t zp;
    int8_t *q = st->qscratch + bi * ni;
    memset(s, 0, sizeof(float) * nf);
    seq_quantize_row(x, st->n_input, st->asym, q, &sf, &zp);
    seq_matvec_i8(s, cpu_in(a->g, a->n, W_FEAT)->data, q, st->n_filters, st->n_input, sf, zp, st->s_feat);
    for (size_t f = 0; f < nf; f++) sv[f * nm + nm - 1] = s[f];
  } else {
    const float *wf = cpu_in(a->g, a->n, W_FEAT)->data;
    for (size_t f = 0; f < nf; f++) sv[f * nm + nm - 1] = cpu_dot_f32(wf + f * ni, x, st->n_input);
  }
  for (size_t f = 0; f < nf; f++) s[f] = cpu_dot_f32(wt + f * nm, sv + f * nm, st->n_memory);
  for (int u = 0; u < st->n_units; u++) {
    float acc = bias ? bias[u] : 0.0f;
    for (int r = 0; r < st->rank; r++) acc += s[(size_t)u * st->rank + r];
    y[u] = cpu_apply_activation(st->act, acc);
  }
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)diag;
  const svdf_state *st = state;
  if (st->hybrid) {
    const tfl_tensor *wt = cpu_in(g, n, W_TIME);
    const int8_t *q = wt->data;
    size_t cnt = tfl_tensor_count(wt);
    for (size_t i = 0; i < cnt; i++) st->w_time[i] = (float)q[i] * st->s_time;
  }
  svdf_args a = {g, n, st};
  cpu_parallel(ctx, run_row, &a, (size_t)st->n_batch);
  return TFL_OK;
}

const cpu_kernel cpu_k_svdf = {prepare, eval, release, CPU_F32 | CPU_TYPE(TFL_TYPE_INT8), 0};
