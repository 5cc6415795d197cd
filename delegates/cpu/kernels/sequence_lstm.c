/* sequence_lstm.c - UNIDIRECTIONAL_SEQUENCE_LSTM and BIDIRECTIONAL_SEQUENCE_LSTM reference
 * kernels: the cell of lstm_cell.h run over the time steps of a 3-D input, float32 or
 * hybrid (int8 weights, float activations; asymmetric_quantize_inputs both ways).
 *
 * UNIDIRECTIONAL (20 or 24 inputs, as LSTM): input [time, batch, in] (time_major) or
 *   [batch, time, in]; output the same with n_output last; the states (inputs 18, 19)
 *   carry over between runs; diagonal_recurrent_tensors: [cells] recurrent weights.
 * BIDIRECTIONAL (48 inputs): 0 input; 1..17 the forward cell (weights, peepholes, biases,
 *   projection as LSTM's 1..17), 18..34 the backward cell; 35/36 forward output/cell state,
 *   37/38 backward; 39 aux input; 40..43 forward and 44..47 backward aux weights. The
 *   backward cell runs from the last step to the first. With an aux input but no aux
 *   weights the backward cell reads the aux input instead of the input (TFLite's
 *   non-stacking mode); with aux weights both cells add A_G a. merge_outputs: one output
 *   [.., n_fw + n_bw] (backward at column n_fw), else two.
 * Batch rows (and, bidirectional, the two directions) are independent: each task runs one
 * row of one direction over all steps, with its own scratch.
 */
#include "lstm_cell.h"

#include "kernels.h"

/* Input positions; a cell's 17 tensors start at UNI_CELL / BI_FW_CELL / BI_BW_CELL in
 * LSTM's order (input weights i f c o, recurrent i f c o, peepholes i f o, biases i f c o,
 * projection weights and bias). */
enum {
  INPUT = 0, UNI_CELL = 1, UNI_H = 18, UNI_C = 19, UNI_LN = 20,
  BI_FW_CELL = 1, BI_BW_CELL = 18, BI_FW_H = 35, BI_FW_C = 36, BI_BW_H = 37, BI_BW_C = 38, BI_AUX = 39,
  BI_FW_AUX_W = 40, BI_BW_AUX_W = 44, BI_INPUTS = 48
};
enum { AUX_W_OUTPUT = 3 };   /* the output gate's aux weights: one says whether all are there */

typedef struct {
  bool bidi, time_major;
  int n_time, n_batch;
  int n_dir;                 /* 1 or 2 cells */
  lstm_cell cell[2];
  int in_idx[2];             /* the tensor each direction reads as x */
  bool use_aux;              /* the cells add A_G a (a = input 39) */
  int out_idx[2];            /* output tensor of each direction */
  int out_stride[2], out_off[2];
  float *scratch;
  int8_t *qscratch;
  size_t sf_per_task, sq_per_task;
} seqlstm_state;

static void release(void *state)
{
  seqlstm_state *st = state;
  if (!st) return;
  free(st->scratch);
  free(st->qscratch);
  free(st);
}

/* The 17 tensors of one cell starting at `base` (LSTM's 1..17), plus states and aux. */
static lstm_cell_map cell_map(int base, int h, int c, int aux0, int ln0)
{
  lstm_cell_map m = {
    .w_in = {base, base + 1, base + 2, base + 3}, .w_rec = {base + 4, base + 5, base + 6, base + 7},
    .w_peep = {base + 8, base + 9, -1, base + 10}, .bias = {base + 11, base + 12, base + 13, base + 14},
    .proj_w = base + 15, .proj_b = base + 16, .h_state = h, .c_state = c};
  for (int G = 0; G < 4; G++) {
    m.w_aux[G] = aux0 < 0 ? -1 : aux0 + G;
    m.ln[G] = ln0 < 0 ? -1 : ln0 + G;
  }
  return m;
}

static tfl_status check_io(const tfl_graph *g, const tfl_node *n, const tfl_tensor *t, const char *what, int want_last,
                           const seqlstm_state *st, tfl_diag *diag)
{
  if (!t) return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "missing %s", what);
  if (t->type != TFL_TYPE_FLOAT32)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n,
                        "%s is %s, only float32 runs (full integer LSTM is not written)", what, tfl_type_name(t->type));
  size_t want;
  if (!seq_mul3((size_t)st->n_time, (size_t)st->n_batch, (size_t)want_last, &want))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%s: %d x %d x %d values overflow", what, st->n_time, st->n_batch,
                        want_last);
  if (t->ndim != 3 || t->dims[2] != want_last || tfl_tensor_count(t) != want)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n,
                        "%s has %d dims (last %d, %zu values), expected 3 dims, last %d, %zu values", what, t->ndim,
                        t->ndim ? t->dims[t->ndim - 1] : 0, tfl_tensor_count(t), want_last, want);
  return TFL_OK;
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  seqlstm_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "sequence LSTM state");
  *state = st;
  const tfl_seq_params *p = &n->p.seq;
  tfl_status s;
  st->bidi = n->op == TFL_OP_BIDIRECTIONAL_SEQUENCE_LSTM;
  st->time_major = p->time_major;
  if (!st->bidi && n->n_in != 20 && n->n_in != 24)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%d inputs, expected 20 or 24", n->n_in);
  if (st->bidi && n->n_in != BI_INPUTS)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%d inputs, expected %d", n->n_in, BI_INPUTS);
  if (st->bidi && n->n_out != (p->merge_outputs ? 1 : 2))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%d outputs, expected %d (merge_outputs %d)", n->n_out,
                        p->merge_outputs ? 1 : 2, p->merge_outputs);
  const tfl_tensor *x = cpu_in(g, n, INPUT);
  if ((s = cpu_check_tensor(g, n, x, "input", 3, diag))) return s;
  if (x->type != TFL_TYPE_FLOAT32)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n,
                        "input is %s: float32 and hybrid run (full integer LSTM is not written)",
                        tfl_type_name(x->type));
  st->n_time = st->time_major ? x->dims[0] : x->dims[1];
  st->n_batch = st->time_major ? x->dims[1] : x->dims[0];
  if (!st->bidi) {
    st->n_dir = 1;
    st->cell[0].map = cell_map(UNI_CELL, UNI_H, UNI_C, -1, UNI_LN);
    st->in_idx[0] = INPUT;
  } else {
    st->n_dir = 2;
    const tfl_tensor *aux = cpu_in(g, n, BI_AUX);
    bool fw_aux_w = cpu_in(g, n, BI_FW_AUX_W + AUX_W_OUTPUT) != NULL;
    bool bw_aux_w = cpu_in(g, n, BI_BW_AUX_W + AUX_W_OUTPUT) != NULL;
    if (fw_aux_w != bw_aux_w)
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "aux weights for one direction only (input %d %s, input %d %s)",
                          BI_FW_AUX_W + AUX_W_OUTPUT, fw_aux_w ? "given" : "absent", BI_BW_AUX_W + AUX_W_OUTPUT,
                          bw_aux_w ? "given" : "absent");
    if (fw_aux_w && !aux)
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "aux weights without an aux input (input %d)", BI_AUX);
    st->use_aux = fw_aux_w;
    st->cell[0].map = cell_map(BI_FW_CELL, BI_FW_H, BI_FW_C, BI_FW_AUX_W, -1);
    st->cell[1].map = cell_map(BI_BW_CELL, BI_BW_H, BI_BW_C, BI_BW_AUX_W, -1);
    st->in_idx[0] = INPUT;
    st->in_idx[1] = aux && !st->use_aux ? BI_AUX : INPUT;
  }
  for (int k = 0; k < st->n_dir; k++) {
    lstm_cell *c = &st->cell[k];
    c->act = p->act;
    c->cell_clip = p->cell_clip;
    c->proj_clip = p->proj_clip;
    c->asym = p->asymmetric_quantize_inputs;
    c->diagonal = !st->bidi && p->diagonal_recurrent;
    if ((s = lstm_cell_prepare(g, n, c, st->use_aux, st->n_batch, diag))) return s;
    if (c->hybrid != st->cell[0].hybrid)
      return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "forward weights are %s, backward %s: expected one type",
                          tfl_type_name(cpu_in(g, n, st->cell[0].map.w_in[LSTM_O])->type),
                          tfl_type_name(cpu_in(g, n, c->map.w_in[LSTM_O])->type));
    char what[48];
    snprintf(what, sizeof what, "%s input (input %d)", k ? "backward" : "forward", st->in_idx[k]);
    if ((s = check_io(g, n, cpu_in(g, n, st->in_idx[k]), what, c->n_input, st, diag))) return s;
    if (st->use_aux && (s = check_io(g, n, cpu_in(g, n, BI_AUX), "aux input (input 39)", c->n_aux, st, diag))) return s;
  }
  int n_fw = st->cell[0].n_output, n_bw = st->bidi ? st->cell[1].n_output : 0;
  if (st->bidi && p->merge_outputs) {
    st->out_idx[0] = st->out_idx[1] = 0;
    st->out_stride[0] = st->out_stride[1] = n_fw + n_bw;
    st->out_off[1] = n_fw;
    if ((s = check_io(g, n, cpu_out(g, n, 0), "output 0", n_fw + n_bw, st, diag))) return s;
  } else {
    for (int k = 0; k < st->n_dir; k++) {
      st->out_idx[k] = k;
      st->out_stride[k] = st->cell[k].n_output;
      char what[16];
      snprintf(what, sizeof what, "output %d", k);
      if ((s = check_io(g, n, cpu_out(g, n, k), what, st->cell[k].n_output, st, diag))) return s;
    }
  }
  for (int k = 0; k < st->n_dir; k++) {
    if (lstm_cell_scratch_f(&st->cell[k]) > st->sf_per_task) st->sf_per_task = lstm_cell_scratch_f(&st->cell[k]);
    if (lstm_cell_scratch_q(&st->cell[k]) > st->sq_per_task) st->sq_per_task = lstm_cell_scratch_q(&st->cell[k]);
  }
  size_t tasks = (size_t)st->n_dir * (size_t)(st->n_batch > 0 ? st->n_batch : 1);
  if (st->sf_per_task > SIZE_MAX / sizeof(float) / tasks)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "scratch of %zu x %zu floats overflows", tasks, st->sf_per_task);
  st->scratch = malloc(sizeof(float) * st->sf_per_task * tasks);
  st->qscratch = malloc(st->sq_per_task * tasks);
  if (!st->scratch || !st->qscratch) return tfl_fail(diag, TFL_ERR_NOMEM, "sequence LSTM scratch");
  return TFL_OK;
}

typedef struct {
  const tfl_graph *g;
  const tfl_node *n;
  const seqlstm_state *st;
  lstm_cell_data d[2];
} seqlstm_args;

/* Task k: direction k / n_batch, batch row k % n_batch, every time step. */
static void run_row(void *arg, size_t k)
{
  const seqlstm_args *a = arg;
  const seqlstm_state *st = a->st;
  size_t nb = (size_t)st->n_batch, nt = (size_t)st->n_time;
  int dir = (int)(k / nb);
  size_t b = k % nb;
  const lstm_cell *c = &st->cell[dir];
  size_t ni = (size_t)c->n_input, na = (size_t)c->n_aux, no = (size_t)c->n_output, nc = (size_t)c->n_cell;
  const float *x = cpu_in(a->g, a->n, st->in_idx[dir])->data;
  const float *aux = st->use_aux ? cpu_in(a->g, a->n, BI_AUX)->data : NULL;
  float *y = (float *)cpu_out(a->g, a->n, st->out_idx[dir])->data + st->out_off[dir];
  float *h = (float *)cpu_in(a->g, a->n, c->map.h_state)->data + b * no;
  float *cs = (float *)cpu_in(a->g, a->n, c->map.c_state)->data + b * nc;
  float *sf = st->scratch + k * st->sf_per_task;
  int8_t *sq = st->qscratch + k * st->sq_per_task;
  size_t ys = (size_t)st->out_stride[dir];
  for (size_t s = 0; s < nt; s++) {
    size_t t = dir == 1 ? nt - 1 - s : s;
    size_t row = st->time_major ? t * nb + b : b * nt + t;
    lstm_cell_step(c, &a->d[dir], x + row * ni, aux ? aux + row * na : NULL, h, cs, y + row * ys, sf, sq);
  }
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)diag;
  const seqlstm_state *st = state;
  seqlstm_args a = {.g = g, .n = n, .st = st};
  for (int k = 0; k < st->n_dir; k++) lstm_cell_bind(g, n, &st->cell[k], &a.d[k]);
  cpu_parallel(ctx, run_row, &a, (size_t)st->n_dir * (size_t)st->n_batch);
  return TFL_OK;
}

const cpu_kernel cpu_k_unidirectional_sequence_lstm = {prepare, eval, release, CPU_F32, 0};
const cpu_kernel cpu_k_bidirectional_sequence_lstm = {prepare, eval, release, CPU_F32, 0};
