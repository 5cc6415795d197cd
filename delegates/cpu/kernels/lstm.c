/* lstm.c - LSTM reference kernel: one time step.
 *
 * Full kernel (kernel_type 0), 20 or 24 inputs (TFLite's order, below): the cell of
 * lstm_cell.h (shared with the sequence LSTMs) over each batch row, float32 or hybrid
 * (int8 weights, float activations; asymmetric_quantize_inputs both ways); the output is
 * the new output state h. Full integer LSTM is refused.
 * Basic kernel: float32 only.
 * Basic kernel (kernel_type 1), inputs input, prev_activation, weights [4*N, I+N],
 *   biases [4*N], prev_state; outputs activation, state, concat_temp, activ_temp:
 *   a = W [x, h_prev] + b, gate blocks in the order input, candidate, forget, output:
 *   state = sigmoid(a_i) * tanh(a_g) + sigmoid(a_f) * prev_state;
 *   activation = sigmoid(a_o) * tanh(state).
 *   As TFLite's basic kernel, the new activation and state are also written back into the
 *   prev_activation / prev_state inputs (unless constant), so a next run that does not
 *   refill them carries the state on.
 * eval runs batch rows as separate tasks; each writes only its own rows and scratch.
 */
#include "lstm_cell.h"

#include <string.h>

enum {
  INPUT = 0,
  I2I_W = 1, I2F_W = 2, I2C_W = 3, I2O_W = 4,         /* input-to-gate weights [cell, input] */
  R2I_W = 5, R2F_W = 6, R2C_W = 7, R2O_W = 8,         /* recurrent weights [cell, output] */
  C2I_W = 9, C2F_W = 10, C2O_W = 11,                  /* peephole weights [cell], optional */
  I_BIAS = 12, F_BIAS = 13, C_BIAS = 14, O_BIAS = 15, /* [cell]; I_BIAS absent with CIFG */
  PROJ_W = 16, PROJ_BIAS = 17,                        /* [output, cell], [output] optional */
  OUTPUT_STATE = 18, CELL_STATE = 19,                 /* variable tensors */
  I_LN = 20, F_LN = 21, C_LN = 22, O_LN = 23,         /* layer-norm coefficients, optional */
  FULL_INPUTS = 24
};
enum { B_INPUT = 0, B_PREV_ACTIV = 1, B_WEIGHTS = 2, B_BIASES = 3, B_PREV_STATE = 4 };
enum { B_ACTIV = 0, B_STATE = 1, B_CONCAT = 2, B_ACTIV_TEMP = 3 };
enum { OUTPUT = 0 };
enum { GATE_I = 0, GATE_F = 1, GATE_G = 2, GATE_O = 3 };

typedef struct {
  bool basic;
  int n_batch, n_input, n_cell, n_output;
  lstm_cell cell;   /* full kernel */
  float *scratch;   /* per batch row: the cell's scratch, or the basic kernel's 4 * N + I + N */
  size_t scratch_per_batch;
  int8_t *qscratch;  /* full kernel, hybrid: the cell's quantized rows, per batch row */
  size_t q_per_batch;
} lstm_state;

static void release(void *state)
{
  lstm_state *st = state;
  if (!st) return;
  free(st->scratch);
  free(st->qscratch);
  free(st);
}

/* Checks optional/required float tensor `i` has the given element count (dims folded). */
static tfl_status check_f32(const tfl_graph *g, const tfl_node *n, int i, size_t count, bool need, tfl_diag *diag)
{
  const tfl_tensor *t = cpu_in(g, n, i);
  if (!t) return need ? CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "missing input %d", i) : TFL_OK;
  if (t->type != TFL_TYPE_FLOAT32)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input %d is %s, only float32 runs", i,
                        tfl_type_name(t->type));
  if (tfl_tensor_count(t) != count)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input %d has %zu values, expected %zu", i,
                        tfl_tensor_count(t), count);
  return TFL_OK;
}

static tfl_status prepare_full(tfl_graph *g, const tfl_node *n, lstm_state *st, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if (n->n_in != 20 && n->n_in != FULL_INPUTS)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%d inputs, expected 20 or 24", n->n_in);
  if ((s = cpu_check_tensor(g, n, x, "input", -1, diag)) || (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  lstm_cell *c = &st->cell;
  c->map = (lstm_cell_map){
    .w_in = {I2I_W, I2F_W, I2C_W, I2O_W}, .w_aux = {-1, -1, -1, -1}, .w_rec = {R2I_W, R2F_W, R2C_W, R2O_W},
    .w_peep = {C2I_W, C2F_W, -1, C2O_W}, .bias = {I_BIAS, F_BIAS, C_BIAS, O_BIAS},
    .ln = {I_LN, F_LN, C_LN, O_LN}, .proj_w = PROJ_W, .proj_b = PROJ_BIAS,
    .h_state = OUTPUT_STATE, .c_state = CELL_STATE};
  c->act = n->p.lstm.act;
  c->cell_clip = n->p.lstm.cell_clip;
  c->proj_clip = n->p.lstm.proj_clip;
  c->asym = n->p.lstm.asymmetric_quantize_inputs;
  const tfl_tensor *w_o = cpu_in(g, n, I2O_W);
  if (!w_o || w_o->ndim != 2)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input_to_output_weights (input %d) missing or not 2-D", I2O_W);
  int ni = w_o->dims[1];
  if (x->type != TFL_TYPE_FLOAT32)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n,
                        "input is %s: float32 and hybrid run (full integer LSTM is not written)",
                        tfl_type_name(x->type));
  if (x->ndim < 1 || ni < 1 || x->dims[x->ndim - 1] != ni)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input's last dim is %d, weights expect %d",
                        x->ndim ? x->dims[x->ndim - 1] : 0, ni);
  st->n_batch = (int)(tfl_tensor_count(x) / (size_t)ni);
  if ((s = lstm_cell_prepare(g, n, c, false, st->n_batch, diag))) return s;
  st->n_input = c->n_input;
  st->n_cell = c->n_cell;
  st->n_output = c->n_output;
  size_t no = (size_t)st->n_output;
  if (y->type != TFL_TYPE_FLOAT32 || tfl_tensor_count(y) != (size_t)st->n_batch * no)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output is %s with %zu values, expected float32 %zu",
                        tfl_type_name(y->type), tfl_tensor_count(y), (size_t)st->n_batch * no);
  st->scratch_per_batch = lstm_cell_scratch_f(c);
  st->q_per_batch = c->hybrid ? lstm_cell_scratch_q(c) : 0;
  return TFL_OK;
}

static tfl_status prepare_basic(tfl_graph *g, const tfl_node *n, lstm_state *st, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, B_INPUT), *h = cpu_in(g, n, B_PREV_ACTIV);
  const tfl_tensor *w = cpu_in(g, n, B_WEIGHTS);
  const tfl_tensor *ya = cpu_out(g, n, B_ACTIV), *ys = cpu_out(g, n, B_STATE);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "input", -1, diag)) ||
      (s = cpu_check_tensor(g, n, h, "prev_activation", -1, diag)) ||
      (s = cpu_check_tensor(g, n, w, "weights", 2, diag)) ||
      (s = cpu_check_tensor(g, n, ya, "activation output", -1, diag)) ||
      (s = cpu_check_tensor(g, n, ys, "state output", -1, diag)))
    return s;
  if (w->dims[0] % 4 != 0)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "weights dim 0 is %d, not 4 gates", w->dims[0]);
  st->n_output = st->n_cell = w->dims[0] / 4;
  st->n_input = w->dims[1] - st->n_output;
  if (st->n_input < 1 || x->dims[x->ndim - 1] != st->n_input)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input's last dim is %d, weights expect %d",
                        x->dims[x->ndim - 1], st->n_input);
  st->n_batch = (int)(tfl_tensor_count(x) / (size_t)st->n_input);
  size_t nb = (size_t)st->n_batch, no = (size_t)st->n_output, ni = (size_t)st->n_input;
  if ((s = check_f32(g, n, B_INPUT, nb * ni, true, diag)) ||
      (s = check_f32(g, n, B_PREV_ACTIV, nb * no, true, diag)) ||
      (s = check_f32(g, n, B_WEIGHTS, 4 * no * (ni + no), true, diag)) ||
      (s = check_f32(g, n, B_BIASES, 4 * no, true, diag)) ||
      (s = check_f32(g, n, B_PREV_STATE, nb * no, true, diag)))
    return s;
  const tfl_tensor *outs[] = {ya, ys, cpu_out(g, n, B_CONCAT), cpu_out(g, n, B_ACTIV_TEMP)};
  size_t want[] = {nb * no, nb * no, nb * (ni + no), nb * 4 * no};
  for (int k = 0; k < 4; k++)
    if (outs[k] && (outs[k]->type != TFL_TYPE_FLOAT32 || tfl_tensor_count(outs[k]) != want[k]))
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output %d is %s with %zu values, expected float32 %zu",
                          k, tfl_type_name(outs[k]->type), tfl_tensor_count(outs[k]), want[k]);
  st->scratch_per_batch = 4 * no + ni + no;
  return TFL_OK;
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  lstm_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "lstm state");
  *state = st;
  st->basic = n->p.lstm.kernel_type == 1;
  tfl_status s = st->basic ? prepare_basic(g, n, st, diag) : prepare_full(g, n, st, diag);
  if (s) return s;
  size_t rows = (size_t)(st->n_batch ? st->n_batch : 1);
  if (st->scratch_per_batch > SIZE_MAX / sizeof(float) / rows || st->q_per_batch > SIZE_MAX / rows)
    return tfl_fail(diag, TFL_ERR_SHAPE, "lstm scratch of %zu rows overflows", rows);
  st->scratch = malloc(sizeof(float) * st->scratch_per_batch * rows);
  if (st->q_per_batch) st->qscratch = malloc(st->q_per_batch * rows);
  return st->scratch && (!st->q_per_batch || st->qscratch) ? TFL_OK : tfl_fail(diag, TFL_ERR_NOMEM, "lstm scratch");
}

static float sigmoid(float v)
{
  return 1.0f / (1.0f + expf(-v));
}

/* y[r] += sum_k m[r, k] * v[k] for a [rows, cols] matrix. */
static void mat_vec_acc(float *y, const float *m, const float *v, int rows, int cols)
{
  for (int r = 0; r < rows; r++) y[r] += cpu_dot_f32(m + (size_t)r * cols, v, cols);
}

typedef struct {
  const tfl_graph *g;
  const tfl_node *n;
  const lstm_state *st;
  lstm_cell_data d;
} lstm_args;

static void step_full(void *arg, size_t bi)
{
  const lstm_args *a = arg;
  const lstm_state *st = a->st;
  size_t nc = (size_t)st->n_cell, no = (size_t)st->n_output;
  const float *x = (const float *)cpu_in(a->g, a->n, INPUT)->data + bi * (size_t)st->n_input;
  float *h = (float *)cpu_in(a->g, a->n, OUTPUT_STATE)->data + bi * no;
  float *c = (float *)cpu_in(a->g, a->n, CELL_STATE)->data + bi * nc;
  float *y = (float *)cpu_out(a->g, a->n, OUTPUT)->data + bi * no;
  lstm_cell_step(&st->cell, &a->d, x, NULL, h, c, y, st->scratch + bi * st->scratch_per_batch,
                 st->qscratch ? st->qscratch + bi * st->q_per_batch : NULL);
}

static void step_basic(void *arg, size_t bi)
{
  const lstm_args *a = arg;
  const lstm_state *st = a->st;
  int no = st->n_output, ni = st->n_input, nx = ni + no;
  const float *w = cpu_in(a->g, a->n, B_WEIGHTS)->data, *b = cpu_in(a->g, a->n, B_BIASES)->data;
  const float *prev = (const float *)cpu_in(a->g, a->n, B_PREV_STATE)->data + bi * no;
  float *sc = st->scratch + bi * st->scratch_per_batch;
  float *act = sc, *cat = sc + 4 * no;

  memcpy(cat, (const float *)cpu_in(a->g, a->n, B_INPUT)->data + bi * ni, sizeof(float) * (size_t)ni);
  memcpy(cat + ni, (const float *)cpu_in(a->g, a->n, B_PREV_ACTIV)->data + bi * no,
         sizeof(float) * (size_t)no);
  memcpy(act, b, sizeof(float) * 4 * (size_t)no);
  mat_vec_acc(act, w, cat, 4 * no, nx);

  float *ya = (float *)cpu_out(a->g, a->n, B_ACTIV)->data + bi * no;
  float *ys = (float *)cpu_out(a->g, a->n, B_STATE)->data + bi * no;
  for (int k = 0; k < no; k++) {
    float s = sigmoid(act[k]) * tanhf(act[no + k]) + sigmoid(act[2 * no + k]) * prev[k];
    ys[k] = s;
    ya[k] = sigmoid(act[3 * no + k]) * tanhf(s);
  }
  const tfl_tensor *t_cat = cpu_out(a->g, a->n, B_CONCAT), *t_act = cpu_out(a->g, a->n, B_ACTIV_TEMP);
  if (t_cat) memcpy((float *)t_cat->data + bi * nx, cat, sizeof(float) * (size_t)nx);
  if (t_act) memcpy((float *)t_act->data + bi * 4 * no, act, sizeof(float) * 4 * (size_t)no);

  /* write-back after every read of this row's old values (cat holds h_prev already) */
  tfl_tensor *t_h = cpu_in(a->g, a->n, B_PREV_ACTIV), *t_c = cpu_in(a->g, a->n, B_PREV_STATE);
  if (!t_h->is_const) memcpy((float *)t_h->data + bi * no, ya, sizeof(float) * (size_t)no);
  if (!t_c->is_const) memcpy((float *)t_c->data + bi * no, ys, sizeof(float) * (size_t)no);
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const lstm_state *st = state;
  lstm_args a = {.g = g, .n = n, .st = st};
  if (!st->basic) lstm_cell_bind(g, n, &st->cell, &a.d);
  cpu_parallel(ctx, st->basic ? step_basic : step_full, &a, (size_t)st->n_batch);
  return TFL_OK;
}

const cpu_kernel cpu_k_lstm = {prepare, eval, release, CPU_F32, 0};
