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
 * Full integer SVDF (int8 input, int16 state) is not written: refused.
 */
#include "kernels.h"

#include "seq_common.h"

enum { X = 0, W_FEAT = 1, W_TIME = 2, BIAS = 3, STATE = 4 };

typedef struct {
  int n_batch, n_input, n_filters, n_memory, n_units, rank;
  bool hybrid, asym;
  tfl_activation act;
  float s_feat, s_time;
  float *w_time;           /* hybrid: weights_time as floats (filled by eval) */
  float *scratch;          /* per row: filters */
  int8_t *qscratch;        /* per row: in */
} svdf_state;

static void release(void *state)
{
  svdf_state *st = state;
  if (!st) return;
  free(st->w_time);
  free(st->scratch);
  free(st->qscratch);
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
  if (x->type != TFL_TYPE_FLOAT32)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n,
                        "input is %s: float32 and hybrid run (full integer SVDF is not written)", tfl_type_name(x->type));
  if (!seq_act_ok(st->act))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "activation %d is not one TFLite's SVDF applies", (int)st->act);
  if (st->rank < 1 || st->n_filters < 1 || st->n_filters % st->rank)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "weights_feature has %d filters, not a multiple of rank %d",
                        st->n_filters, st->rank);
  st->n_units = st->n_filters / st->rank;
  if (wf->dims[1] != st->n_input || st->n_input < 1)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "weights_feature is [%d, %d], input size %d", wf->dims[0], wf->dims[1],
                        st->n_input);
  if (wt->dims[0] != st->n_filters || st->n_memory < 1)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "weights_time is [%d, %d], expected [%d, memory >= 1]", wt->dims[0],
                        wt->dims[1], st->n_filters);
  st->hybrid = wf->type == TFL_TYPE_INT8;
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
  size_t rows = (size_t)(st->n_batch > 0 ? st->n_batch : 1);
  size_t nf = (size_t)st->n_filters;
  if (nf > SIZE_MAX / sizeof(float) / rows || (size_t)st->n_input > SIZE_MAX / rows)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "scratch of %zu rows overflows", rows);
  st->scratch = malloc(sizeof(float) * nf * rows);
  st->qscratch = malloc((size_t)st->n_input * rows);
  if (st->hybrid) st->w_time = malloc(sizeof(float) * tfl_tensor_count(wt));
  if (!st->scratch || !st->qscratch || (st->hybrid && !st->w_time)) return tfl_fail(diag, TFL_ERR_NOMEM, "SVDF scratch");
  return TFL_OK;
}

typedef struct {
  const tfl_graph *g;
  const tfl_node *n;
  const svdf_state *st;
} svdf_args;

static void run_row(void *arg, size_t bi)
{
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

const cpu_kernel cpu_k_svdf = {prepare, eval, release};
