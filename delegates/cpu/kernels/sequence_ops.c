/* sequence_ops.c - RNN, UNIDIRECTIONAL_SEQUENCE_RNN and BIDIRECTIONAL_SEQUENCE_RNN reference
 * kernels (TFLite's basic_rnn / unidirectional_sequence_rnn / bidirectional_sequence_rnn),
 * float32 or hybrid (int8 weights, float activations; asymmetric_quantize_inputs both
 * ways). One step of one batch row, with W [units, in], R [units, units], b [units]:
 *   y = act(b + W x [+ A a] + R h); h = y.
 * Hybrid: x, a and h are quantized per row before their product (seq_common.h).
 * RNN: input [batch, in], state 4 [batch, units], output [batch, units], one step.
 * UNIDIRECTIONAL: input [time, batch, in] (time_major) or [batch, time, in]; state 4.
 * BIDIRECTIONAL (12 inputs): 0 input, 1..4 forward W, R, b, state, 5..8 backward, 9 aux
 *   input, 10/11 forward/backward aux weights. The backward cell runs from the last step
 *   to the first; with an aux input but no aux weights it reads the aux input instead of
 *   the input. merge_outputs: one output [.., fw + bw units] (backward at column fw),
 *   else two.
 *   As TFLite's kernel does: batch major, the backward cell reads the input even when the
 *   aux input replaces it (time major only); hybrid time major runs both passes once per
 *   time step, the states carrying over (the outputs are the last pass's); aux inputs of
 *   another size than the input are refused where TFLite steps through them by the
 *   input's size.
 * Each task runs one batch row of one direction over all steps.
 */
#include "kernels.h"

#include "seq_common.h"

/* Input positions: RNN and UNIDIRECTIONAL_SEQUENCE_RNN use X and the FW_* ones. */
enum {
  X = 0, FW_W = 1, FW_R = 2, FW_B = 3, FW_H = 4, BW_W = 5, BW_R = 6, BW_B = 7, BW_H = 8,
  AUX_X = 9, FW_AUX_W = 10, BW_AUX_W = 11, BIDI_INPUTS = 12, RNN_INPUTS = 5
};

typedef struct {
  int w, r, b, h, aux_w;   /* input indices; aux_w -1: none */
  int units, n_input, n_aux;
  bool hybrid;
  float s_w, s_r, s_aux;
} rnn_cell;

typedef struct {
  int n_time, n_batch, n_dir;
  int passes;              /* runs over the sequence (TFLite's hybrid time-major bidi: n_time) */
  bool time_major, asym, use_aux;
  tfl_activation act;
  rnn_cell cell[2];
  int in_idx[2], out_idx[2], out_stride[2], out_off[2];
  int aux_idx;
  int8_t *qscratch;        /* per task: max(in, aux, units) */
  size_t sq_per_task;
} rnn_state;

static void release(void *state)
{
  rnn_state *st = state;
  if (!st) return;
  free(st->qscratch);
  free(st);
}

static tfl_status check_2d(const tfl_graph *g, const tfl_node *n, int i, const char *what, tfl_type type, int d0,
                           int d1, tfl_diag *diag)
{
  const tfl_tensor *t = cpu_in(g, n, i);
  if (!t) return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%s (input %d) is missing", what, i);
  if (t->type != type)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s (input %d) is %s, expected %s", what, i,
                        tfl_type_name(t->type), tfl_type_name(type));
  bool one = d1 < 0;
  if (t->ndim != (one ? 1 : 2) || t->dims[0] != d0 || (!one && t->dims[1] != d1))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%s (input %d): %d dims [%d, %d], expected [%d, %d]", what, i,
                        t->ndim, t->ndim > 0 ? t->dims[0] : 0, t->ndim > 1 ? t->dims[1] : 0, d0, d1);
  return TFL_OK;
}

static tfl_status prepare_cell(const tfl_graph *g, const tfl_node *n, rnn_cell *c, int n_batch, tfl_diag *diag)
{
  const tfl_tensor *w = cpu_in(g, n, c->w);
  tfl_status s;
  if (!w || w->ndim != 2)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "weights (input %d) missing or not 2-D", c->w);
  c->units = w->dims[0];
  c->n_input = w->dims[1];
  if (c->units < 1 || c->n_input < 1)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "weights (input %d) are [%d, %d]", c->w, c->units, c->n_input);
  c->hybrid = seq_hybrid_type(w->type);
  if (w->type != TFL_TYPE_FLOAT32 && !c->hybrid)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "weights (input %d) are %s: float32 and hybrid int8 run", c->w,
                        tfl_type_name(w->type));
  c->n_aux = 0;
  if (c->aux_w >= 0) {
    const tfl_tensor *aw = cpu_in(g, n, c->aux_w);
    if (!aw || aw->ndim != 2)
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "aux weights (input %d) missing or not 2-D", c->aux_w);
    c->n_aux = aw->dims[1];
    if ((s = check_2d(g, n, c->aux_w, "aux weights", w->type, c->units, c->n_aux, diag))) return s;
  }
  if ((s = check_2d(g, n, c->r, "recurrent weights", w->type, c->units, c->units, diag)) ||
      (s = check_2d(g, n, c->b, "bias", TFL_TYPE_FLOAT32, c->units, -1, diag)))
    return s;
  const tfl_tensor *h = cpu_in(g, n, c->h);
  if ((s = check_2d(g, n, c->h, "hidden state", TFL_TYPE_FLOAT32, n_batch, c->units, diag))) return s;
  if (h->is_const)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "hidden state (input %d) is a constant; the op writes it",
                        c->h);
  c->s_w = c->s_r = c->s_aux = 1.0f;
  if (c->hybrid) {
    if ((s = seq_check_hybrid_weight(g, n, c->w, &c->s_w, diag)) ||
        (s = seq_check_hybrid_weight(g, n, c->r, &c->s_r, diag)))
      return s;
    if (c->aux_w >= 0 && (s = seq_check_hybrid_weight(g, n, c->aux_w, &c->s_aux, diag))) return s;
  }
  return TFL_OK;
}

static tfl_status check_io(const tfl_graph *g, const tfl_node *n, const tfl_tensor *t, const char *what, int last,
                           const rnn_state *st, int rank, tfl_diag *diag)
{
  if (!t) return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "missing %s", what);
  if (t->type != TFL_TYPE_FLOAT32)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s is %s, only float32 runs", what, tfl_type_name(t->type));
  size_t want;
  if (!seq_mul3((size_t)st->n_time, (size_t)st->n_batch, (size_t)last, &want))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%s: %d x %d x %d values overflow", what, st->n_time, st->n_batch,
                        last);
  if (t->ndim != rank || t->dims[rank - 1] != last || tfl_tensor_count(t) != want)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n,
                        "%s has %d dims (last %d, %zu values), expected %d dims, last %d, %zu values", what, t->ndim,
                        t->ndim ? t->dims[t->ndim - 1] : 0, tfl_tensor_count(t), rank, last, want);
  return TFL_OK;
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  rnn_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "RNN state");
  *state = st;
  const tfl_seq_params *p = &n->p.seq;
  bool bidi = n->op == TFL_OP_BIDIRECTIONAL_SEQUENCE_RNN, seq = n->op != TFL_OP_RNN;
  int want_in = bidi ? BIDI_INPUTS : RNN_INPUTS, want_out = bidi && !p->merge_outputs ? 2 : 1;
  tfl_status s;
  if (n->n_in != want_in || n->n_out != want_out)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%d inputs and %d outputs, expected %d and %d", n->n_in, n->n_out,
                        want_in, want_out);
  if (!seq_act_ok(p->act))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "activation %d is not one TFLite's RNN applies", (int)p->act);
  st->act = p->act;
  st->asym = p->asymmetric_quantize_inputs;
  st->time_major = seq && p->time_major;
  const tfl_tensor *x = cpu_in(g, n, X);
  int rank = seq ? 3 : 2;
  if ((s = cpu_check_tensor(g, n, x, "input", rank, diag))) return s;
  if (x->type != TFL_TYPE_FLOAT32)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input is %s: float32 and hybrid run", tfl_type_name(x->type));
  st->n_time = seq ? (st->time_major ? x->dims[0] : x->dims[1]) : 1;
  st->n_batch = seq && !st->time_major ? x->dims[0] : x->dims[seq ? 1 : 0];
  st->aux_idx = -1;
  st->cell[0] = (rnn_cell){.w = FW_W, .r = FW_R, .b = FW_B, .h = FW_H, .aux_w = -1};
  st->in_idx[0] = st->in_idx[1] = X;
  st->n_dir = 1;
  if (bidi) {
    st->n_dir = 2;
    st->cell[1] = (rnn_cell){.w = BW_W, .r = BW_R, .b = BW_B, .h = BW_H, .aux_w = -1};
    bool has_aux = cpu_in(g, n, AUX_X) != NULL, fw_aw = cpu_in(g, n, FW_AUX_W) != NULL;
    bool bw_aw = cpu_in(g, n, BW_AUX_W) != NULL;
    if (fw_aw != bw_aw)
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "aux weights for one direction only (input %d %s, input %d %s)",
                          FW_AUX_W, fw_aw ? "given" : "absent", BW_AUX_W, bw_aw ? "given" : "absent");
    if (fw_aw && !has_aux)
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "aux weights without an aux input (input %d)", AUX_X);
    st->use_aux = fw_aw;
    if (fw_aw) {
      st->cell[0].aux_w = FW_AUX_W;
      st->cell[1].aux_w = BW_AUX_W;
      st->aux_idx = AUX_X;
    } else if (has_aux && st->time_major) {
      st->in_idx[1] = AUX_X;    /* the backward cell reads the aux input (batch major: TFLite's reads the input) */
    }
  }
  for (int k = 0; k < st->n_dir; k++) {
    rnn_cell *c = &st->cell[k];
    if ((s = prepare_cell(g, n, c, st->n_batch, diag))) return s;
    if (c->hybrid != st->cell[0].hybrid)
      return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "forward weights are %s, backward %s: expected one type",
                          tfl_type_name(cpu_in(g, n, FW_W)->type), tfl_type_name(cpu_in(g, n, BW_W)->type));
    char what[40];
    snprintf(what, sizeof what, "input %d", st->in_idx[k]);
    if ((s = check_io(g, n, cpu_in(g, n, st->in_idx[k]), what, c->n_input, st, rank, diag))) return s;
    if (st->use_aux && (s = check_io(g, n, cpu_in(g, n, AUX_X), "aux input (input 9)", c->n_aux, st, rank, diag)))
      return s;
    if (st->use_aux && c->n_aux != c->n_input && (st->time_major || c->hybrid))
      return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n,
                          "aux input size %d != input size %d: TFLite steps through the aux input by the input's size "
                          "here (time major or hybrid)", c->n_aux, c->n_input);
    size_t q = (size_t)c->n_input;
    if ((size_t)c->n_aux > q) q = (size_t)c->n_aux;
    if ((size_t)c->units > q) q = (size_t)c->units;
    if (q > st->sq_per_task) st->sq_per_task = q;
  }
  st->passes = bidi && st->time_major && st->cell[0].hybrid ? st->n_time : 1;
  int n_fw = st->cell[0].units, n_bw = bidi ? st->cell[1].units : 0;
  if (bidi && p->merge_outputs) {
    st->out_stride[0] = st->out_stride[1] = n_fw + n_bw;
    st->out_off[1] = n_fw;
    if ((s = check_io(g, n, cpu_out(g, n, 0), "output 0", n_fw + n_bw, st, rank, diag))) return s;
  } else {
    for (int k = 0; k < st->n_dir; k++) {
      st->out_idx[k] = k;
      st->out_stride[k] = st->cell[k].units;
      char what[16];
      snprintf(what, sizeof what, "output %d", k);
      if ((s = check_io(g, n, cpu_out(g, n, k), what, st->cell[k].units, st, rank, diag))) return s;
    }
  }
  size_t tasks = (size_t)st->n_dir * (size_t)(st->n_batch > 0 ? st->n_batch : 1);
  if (st->sq_per_task > SIZE_MAX / tasks)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "scratch of %zu x %zu bytes overflows", tasks, st->sq_per_task);
  st->qscratch = malloc(st->sq_per_task * tasks);
  return st->qscratch ? TFL_OK : tfl_fail(diag, TFL_ERR_NOMEM, "RNN scratch");
}

typedef struct {
  const tfl_graph *g;
  const tfl_node *n;
  const rnn_state *st;
} rnn_args;

/* One step of one row: y = act(b + W x [+ A a] + R h); h = y. */
static void rnn_step(const rnn_state *st, const rnn_cell *c, const rnn_args *a, const float *x, const float *ax,
                     float *h, float *y, int8_t *q)
{
  const float *b = cpu_in(a->g, a->n, c->b)->data;
  const void *w = cpu_in(a->g, a->n, c->w)->data, *r = cpu_in(a->g, a->n, c->r)->data;
  const void *aw = c->aux_w >= 0 ? cpu_in(a->g, a->n, c->aux_w)->data : NULL;
  int u = c->units;
  memcpy(y, b, sizeof(float) * (size_t)u);
  if (c->hybrid) {
    float sf;
    int32_t zp;
    seq_quantize_row(x, c->n_input, st->asym, q, &sf, &zp);
    seq_matvec_i8(y, w, q, u, c->n_input, sf, zp, c->s_w);
    if (aw && ax) {
      seq_quantize_row(ax, c->n_aux, st->asym, q, &sf, &zp);
      seq_matvec_i8(y, aw, q, u, c->n_aux, sf, zp, c->s_aux);
    }
    seq_quantize_row(h, u, st->asym, q, &sf, &zp);
    seq_matvec_i8(y, r, q, u, u, sf, zp, c->s_r);
  } else {
    seq_matvec_f32(y, w, x, u, c->n_input);
    if (aw && ax) seq_matvec_f32(y, aw, ax, u, c->n_aux);
    seq_matvec_f32(y, r, h, u, u);
  }
  for (int k = 0; k < u; k++) y[k] = cpu_apply_activation(st->act, y[k]);
  memcpy(h, y, sizeof(float) * (size_t)u);
}

static void run_row(void *arg, size_t k)
{
  const rnn_args *a = arg;
  const rnn_state *st = a->st;
  size_t nb = (size_t)st->n_batch, nt = (size_t)st->n_time;
  int dir = (int)(k / nb);
  size_t b = k % nb;
  const rnn_cell *c = &st->cell[dir];
  size_t ni = (size_t)c->n_input, na = (size_t)c->n_aux, u = (size_t)c->units, ys = (size_t)st->out_stride[dir];
  const float *x = cpu_in(a->g, a->n, st->in_idx[dir])->data;
  const float *aux = st->use_aux ? cpu_in(a->g, a->n, st->aux_idx)->data : NULL;
  float *y = (float *)cpu_out(a->g, a->n, st->out_idx[dir])->data + st->out_off[dir];
  float *h = (float *)cpu_in(a->g, a->n, c->h)->data + b * u;
  int8_t *q = st->qscratch + k * st->sq_per_task;
  for (int pass = 0; pass < st->passes; pass++)
    for (size_t s = 0; s < nt; s++) {
      size_t t = dir == 1 ? nt - 1 - s : s;
      size_t row = st->time_major ? t * nb + b : b * nt + t;
      rnn_step(st, c, a, x + row * ni, aux ? aux + row * na : NULL, h, y + row * ys, q);
    }
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)diag;
  const rnn_state *st = state;
  rnn_args a = {g, n, st};
  cpu_parallel(ctx, run_row, &a, (size_t)st->n_dir * (size_t)st->n_batch);
  return TFL_OK;
}

const cpu_kernel cpu_k_unidirectional_sequence_rnn = {prepare, eval, release, CPU_F32, 0};
const cpu_kernel cpu_k_bidirectional_sequence_rnn = {prepare, eval, release, CPU_F32, 0};
const cpu_kernel cpu_k_rnn = {prepare, eval, release, CPU_F32, 0};
