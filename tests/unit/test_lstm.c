/* test_lstm.c - LSTM reference kernel (float): the basic kernel against a hand-worked
 * step, and the full kernel (CIFG, peephole, projection, clipping, layer norm, 20- and
 * 24-input forms) against a naive double-precision LSTM written here, over two time
 * steps so the variable states carry. Tolerance 1e-5 absolute.
 * The sequence ops keep their states between runs too: UNIDIRECTIONAL_SEQUENCE_LSTM run
 * twice on two halves of a sequence gives what one run on the whole sequence gives, and
 * SVDF's memory over three runs matches a naive SVDF written here. Their clean refusals
 * (a constant state, int16 input, an int8 SVDF without RELU) are checked too. */
#include "conv_test_util.h"

#include <string.h>

typedef struct {
  int n_batch, n_input, n_cell, n_output;
  int cifg, peephole, projection, proj_bias, layer_norm, n_inputs;
  float cell_clip, proj_clip;
} lstm_case;

/* Everything a full LSTM holds, as plain arrays (gate order i, f, g, o). */
typedef struct {
  float *wx[4], *wh[4], *peep[4], *bias[4], *ln[4], *proj, *proj_b;
  float *h, *c;
} lstm_weights;

static float *rnd(size_t n, float lo, float hi)
{
  float *v = malloc(n * sizeof(float));
  test_fill(v, n, lo, hi);
  return v;
}

static double sigm(double v)
{
  return 1.0 / (1.0 + exp(-v));
}

static double clipd(double v, double lim)
{
  return lim > 0 ? fmax(-lim, fmin(lim, v)) : v;
}

/* One step of the textbook LSTM for every batch row, in double. */
static void naive_step(const lstm_case *c, const lstm_weights *w, const float *x, double *h,
                       double *cs)
{
  int nc = c->n_cell, no = c->n_output, ni = c->n_input;
  double *pre = malloc(sizeof(double) * 4 * nc), *m = malloc(sizeof(double) * nc);
  for (int b = 0; b < c->n_batch; b++) {
    double *hb = h + b * no, *cb = cs + b * nc;
    const float *xb = x + b * ni;
    for (int gi = 0; gi < 4; gi++) {
      if (gi == 0 && c->cifg) continue;
      if (gi == 3) { /* output gate after the cell update: peephole sees the new cell */
        for (int k = 0; k < nc; k++) {
          double ig = c->cifg ? 1 - sigm(pre[nc + k]) : sigm(pre[k]);
          cb[k] = clipd(sigm(pre[nc + k]) * cb[k] + ig * tanh(pre[2 * nc + k]), c->cell_clip);
        }
      }
      double *p = pre + gi * nc;
      for (int k = 0; k < nc; k++) {
        double a = 0;
        for (int i = 0; i < ni; i++) a += (double)w->wx[gi][k * ni + i] * xb[i];
        for (int j = 0; j < no; j++) a += (double)w->wh[gi][k * no + j] * hb[j];
        if (c->peephole && gi != 2) a += (double)w->peep[gi][k] * cb[k];
        p[k] = a;
      }
      if (c->layer_norm) {
        double mean = 0, var = 0;
        for (int k = 0; k < nc; k++) mean += p[k] / nc;
        for (int k = 0; k < nc; k++) var += (p[k] - mean) * (p[k] - mean) / nc;
        for (int k = 0; k < nc; k++) p[k] = (p[k] - mean) / sqrt(var + 1e-8) * w->ln[gi][k];
      }
      for (int k = 0; k < nc; k++) p[k] += w->bias[gi][k];
    }
    for (int k = 0; k < nc; k++) m[k] = sigm(pre[3 * nc + k]) * tanh(cb[k]);
    for (int j = 0; j < no; j++) {
      if (!c->projection) {
        hb[j] = m[j];
        continue;
      }
      double a = c->proj_bias ? w->proj_b[j] : 0;
      for (int k = 0; k < nc; k++) a += (double)w->proj[j * nc + k] * m[k];
      hb[j] = clipd(a, c->proj_clip);
    }
  }
  free(pre);
  free(m);
}

static int full_case(const lstm_case *c, int threads)
{
  int nb = c->n_batch, ni = c->n_input, nc = c->n_cell, no = c->n_output;
  lstm_weights w = {0};
  for (int gi = 0; gi < 4; gi++) {
    w.wx[gi] = rnd((size_t)nc * ni, -0.6f, 0.6f);
    w.wh[gi] = rnd((size_t)nc * no, -0.6f, 0.6f);
    w.peep[gi] = rnd(nc, -0.5f, 0.5f);
    w.bias[gi] = rnd(nc, -0.3f, 0.3f);
    w.ln[gi] = rnd(nc, 0.5f, 1.5f);
  }
  w.proj = rnd((size_t)no * nc, -0.5f, 0.5f);
  w.proj_b = rnd(no, -0.2f, 0.2f);
  float *x[2] = {rnd((size_t)nb * ni, -1, 1), rnd((size_t)nb * ni, -1, 1)};
  float *h0 = rnd((size_t)nb * no, -0.5f, 0.5f), *c0 = rnd((size_t)nb * nc, -1, 1);
  double *h = malloc(sizeof(double) * nb * no), *cs = malloc(sizeof(double) * nb * nc);
  for (int k = 0; k < nb * no; k++) h[k] = h0[k];
  for (int k = 0; k < nb * nc; k++) cs[k] = c0[k];

  op_runner r;
  op_runner_init(&r, TFL_OP_LSTM);
  int in[24];
  for (int k = 0; k < 24; k++) in[k] = -1;
  int32_t dx[2] = {nb, ni}, dwx[2] = {nc, ni}, dwh[2] = {nc, no}, dc[1] = {nc};
  in[0] = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, dx, x[0], false);
  for (int gi = 0; gi < 4; gi++) {
    if (gi == 0 && c->cifg) continue;
    in[1 + gi] = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, dwx, w.wx[gi], true);
    in[5 + gi] = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, dwh, w.wh[gi], true);
    if (c->peephole && gi != 2)
      in[9 + (gi == 3 ? 2 : gi)] = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, dc, w.peep[gi], true);
    in[12 + gi] = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, dc, w.bias[gi], true);
    if (c->layer_norm) in[20 + gi] = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, dc, w.ln[gi], true);
  }
  if (c->projection) {
    in[16] = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){no, nc}, w.proj, true);
    if (c->proj_bias) in[17] = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){no}, w.proj_b, true);
  }
  in[18] = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){nb, no}, h0, false);
  in[19] = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){nb, nc}, c0, false);
  r.tensors[in[18]].is_variable = r.tensors[in[19]].is_variable = true;
  int yt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){nb, no}, NULL, false);
  op_runner_io(&r, in, c->n_inputs, (int[]){yt}, 1);
  r.node.p.lstm = (tfl_lstm_params){TFL_ACT_TANH, c->cell_clip, c->proj_clip, 0};

  int ok = 1;
  float *want = malloc(sizeof(float) * nb * no), *want_c = malloc(sizeof(float) * nb * nc);
  for (int step = 0; ok && step < 2; step++) {
    memcpy(r.tensors[in[0]].data, x[step], sizeof(float) * nb * ni);
    naive_step(c, &w, x[step], h, cs);
    for (int k = 0; k < nb * no; k++) want[k] = (float)h[k];
    for (int k = 0; k < nb * nc; k++) want_c[k] = (float)cs[k];
    ok = op_runner_run(&r, threads) == TFL_OK;
    if (!ok) fprintf(stderr, "run failed: %s\n", r.diag.error);
    char what[160];
    snprintf(what, sizeof what, "lstm cifg%d peep%d proj%d ln%d in%d clip %g/%g step %d t%d",
             c->cifg, c->peephole, c->projection, c->layer_norm, c->n_inputs, c->cell_clip,
             c->proj_clip, step, threads);
    ok = ok && op_runner_expect_near(what, r.tensors[yt].data, want, (size_t)nb * no, 1e-5f) &&
         op_runner_expect_near(what, r.tensors[in[18]].data, want, (size_t)nb * no, 1e-5f) &&
         op_runner_expect_near(what, r.tensors[in[19]].data, want_c, (size_t)nb * nc, 1e-5f);
  }
  op_runner_free(&r);
  for (int gi = 0; gi < 4; gi++)
    free(w.wx[gi]), free(w.wh[gi]), free(w.peep[gi]), free(w.bias[gi]), free(w.ln[gi]);
  free(w.proj), free(w.proj_b), free(x[0]), free(x[1]), free(h0), free(c0), free(h), free(cs);
  free(want), free(want_c);
  return ok;
}

/* Basic kernel, zero weights: biases give sigmoid(i) = 0.75, tanh(g) = 0.5,
 * sigmoid(f) = sigmoid(o) = 0.5; prev_state 1: state = 0.75*0.5 + 0.5*1 = 0.875,
 * activation = 0.5 * tanh(0.875). A second batch row with prev_state -1 gives
 * state = 0.375 - 0.5 = -0.125. Both land in the outputs and, written back, in the
 * prev_activation / prev_state inputs. */
static int basic_case(void)
{
  enum { NI = 2, NO = 3 };
  float wts[4 * NO * (NI + NO)] = {0}, bias[4 * NO];
  for (int k = 0; k < NO; k++) {
    bias[k] = logf(3.0f);              /* sigmoid = 0.75 */
    bias[NO + k] = atanhf(0.5f);       /* tanh = 0.5 */
    bias[2 * NO + k] = 0;
    bias[3 * NO + k] = 0;
  }
  float x[2 * NI] = {0.3f, -0.2f, 1, 2}, h[2 * NO] = {0}, prev[2 * NO] = {1, 1, 1, -1, -1, -1};
  op_runner r;
  op_runner_init(&r, TFL_OP_LSTM);
  int xt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){2, NI}, x, false);
  int ht = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){2, NO}, h, false);
  int wt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){4 * NO, NI + NO}, wts, true);
  int bt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){4 * NO}, bias, true);
  int pt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){2, NO}, prev, false);
  int ya = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){2, NO}, NULL, false);
  int ys = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){2, NO}, NULL, false);
  int yc = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){2, NI + NO}, NULL, false);
  int yg = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){2, 4 * NO}, NULL, false);
  op_runner_io(&r, (int[]){xt, ht, wt, bt, pt}, 5, (int[]){ya, ys, yc, yg}, 4);
  r.node.p.lstm = (tfl_lstm_params){TFL_ACT_TANH, 0, 0, 1};
  TEST_CHECK(op_runner_run(&r, 2) == TFL_OK);
  float a1 = 0.5f * tanhf(0.875f), a2 = 0.5f * tanhf(-0.125f);
  float want_state[2 * NO] = {0.875f, 0.875f, 0.875f, -0.125f, -0.125f, -0.125f};
  float want_act[2 * NO] = {a1, a1, a1, a2, a2, a2};
  float want_cat[NI + NO] = {1, 2, 0, 0, 0}; /* second row: [x, h_prev] */
  int ok = op_runner_expect_near("basic lstm state", r.tensors[ys].data, want_state, 2 * NO, 1e-6f) &&
           op_runner_expect_near("basic lstm activation", r.tensors[ya].data, want_act, 2 * NO, 1e-6f) &&
           op_runner_expect_near("basic lstm concat", (float *)r.tensors[yc].data + NI + NO, want_cat,
                                 NI + NO, 0) &&
           op_runner_expect_near("basic lstm gates", r.tensors[yg].data, bias, 4 * NO, 0) &&
           /* TFLite writes the new activation and state back into the state inputs */
           op_runner_expect_near("basic lstm prev_activation written back", r.tensors[ht].data, want_act,
                                 2 * NO, 1e-6f) &&
           op_runner_expect_near("basic lstm prev_state written back", r.tensors[pt].data, want_state,
                                 2 * NO, 1e-6f);
  op_runner_free(&r);
  return ok;
}

/* A quantized input is refused with a message naming the op. */
static int bad_type(void)
{
  op_runner r;
  op_runner_init(&r, TFL_OP_LSTM);
  int xt = op_runner_tensor(&r, TFL_TYPE_UINT8, 2, (int32_t[]){1, 2}, NULL, false);
  int ht = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){1, 1}, NULL, false);
  int wt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){4, 3}, NULL, true);
  int bt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){4}, NULL, true);
  int pt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){1, 1}, NULL, false);
  int ya = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){1, 1}, NULL, false);
  int ys = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){1, 1}, NULL, false);
  op_runner_io(&r, (int[]){xt, ht, wt, bt, pt}, 5, (int[]){ya, ys}, 2);
  r.node.p.lstm.kernel_type = 1;
  tfl_status s = op_runner_run(&r, 1);
  op_runner_free(&r);
  TEST_CHECK(s == TFL_ERR_UNSUPPORTED);
  TEST_CHECK(strstr(r.diag.error, "LSTM") && strstr(r.diag.error, "float32"));
  return 1;
}

/* The 24 inputs of a float UNIDIRECTIONAL_SEQUENCE_LSTM ([batch, time, 3] in, 4 cells,
 * no peephole / projection) with fixed weights; the states are variables unless
 * const_state. Returns the output tensor. */
static int seq_lstm_node(op_runner *r, int nb, int nt, const float *x, const float *wts, bool const_state,
                         tfl_type x_type)
{
  enum { NI = 3, NC = 4 };
  int in[24];
  for (int k = 0; k < 24; k++) in[k] = -1;
  in[0] = op_runner_tensor(r, x_type, 3, (int32_t[]){nb, nt, NI}, x, false);
  for (int gi = 0; gi < 4; gi++) {
    in[1 + gi] = op_runner_tensor(r, TFL_TYPE_FLOAT32, 2, (int32_t[]){NC, NI}, wts + gi * NC * NI, true);
    in[5 + gi] = op_runner_tensor(r, TFL_TYPE_FLOAT32, 2, (int32_t[]){NC, NC}, wts + 48 + gi * NC * NC, true);
    in[12 + gi] = op_runner_tensor(r, TFL_TYPE_FLOAT32, 1, (int32_t[]){NC}, wts + 112 + gi * NC, true);
  }
  in[18] = op_runner_tensor(r, TFL_TYPE_FLOAT32, 2, (int32_t[]){nb, NC}, NULL, const_state);
  in[19] = op_runner_tensor(r, TFL_TYPE_FLOAT32, 2, (int32_t[]){nb, NC}, NULL, const_state);
  r->tensors[in[18]].is_variable = r->tensors[in[19]].is_variable = !const_state;
  int yt = op_runner_tensor(r, TFL_TYPE_FLOAT32, 3, (int32_t[]){nb, nt, NC}, NULL, false);
  op_runner_io(r, in, 24, (int[]){yt}, 1);
  r->node.p.seq = (tfl_seq_params){.act = TFL_ACT_TANH};
  return yt;
}

/* Two runs on the halves of a 4-step sequence = one run on all 4 steps (batch major). */
static int seq_lstm_carry(int threads)
{
  enum { NB = 2, NT = 4, NI = 3, NC = 4, H = NT / 2 };
  float *wts = rnd(128, -0.6f, 0.6f), *x = rnd(NB * NT * NI, -1, 1);
  float half[2][NB * H * NI];
  for (int p = 0; p < 2; p++)
    for (int b = 0; b < NB; b++)
      memcpy(half[p] + b * H * NI, x + (b * NT + p * H) * NI, sizeof(float) * H * NI);
  op_runner whole, part;
  op_runner_init(&whole, TFL_OP_UNIDIRECTIONAL_SEQUENCE_LSTM);
  op_runner_init(&part, TFL_OP_UNIDIRECTIONAL_SEQUENCE_LSTM);
  int yw = seq_lstm_node(&whole, NB, NT, x, wts, false, TFL_TYPE_FLOAT32);
  int yp = seq_lstm_node(&part, NB, H, half[0], wts, false, TFL_TYPE_FLOAT32);
  int ok = op_runner_run(&whole, threads) == TFL_OK && op_runner_run(&part, threads) == TFL_OK;
  if (ok) {
    memcpy(part.tensors[part.node.in[0]].data, half[1], sizeof half[1]);
    ok = op_runner_run(&part, threads) == TFL_OK;
  }
  if (!ok) fprintf(stderr, "sequence LSTM run failed: %s %s\n", whole.diag.error, part.diag.error);
  for (int b = 0; ok && b < NB; b++)
    ok = op_runner_expect_near("sequence lstm: second run carries the states",
                               (float *)part.tensors[yp].data + b * H * NC,
                               (float *)whole.tensors[yw].data + (b * NT + H) * NC, H * NC, 1e-6f);
  op_runner_free(&whole);
  op_runner_free(&part);
  free(wts), free(x);
  return ok;
}

/* A constant state (the op writes it) and an int16 input are refused, naming the op. */
static int seq_lstm_refused(void)
{
  float *wts = rnd(128, -0.6f, 0.6f);
  op_runner r;
  op_runner_init(&r, TFL_OP_UNIDIRECTIONAL_SEQUENCE_LSTM);
  seq_lstm_node(&r, 1, 2, NULL, wts, true, TFL_TYPE_FLOAT32);
  tfl_status s = op_runner_run(&r, 1);
  op_runner_free(&r);
  TEST_CHECK(s == TFL_ERR_UNSUPPORTED);
  TEST_CHECK(strstr(r.diag.error, "UNIDIRECTIONAL_SEQUENCE_LSTM") && strstr(r.diag.error, "constant"));
  op_runner_init(&r, TFL_OP_UNIDIRECTIONAL_SEQUENCE_LSTM);
  seq_lstm_node(&r, 1, 2, NULL, wts, false, TFL_TYPE_INT16);
  s = op_runner_run(&r, 1);
  op_runner_free(&r);
  TEST_CHECK(s == TFL_ERR_UNSUPPORTED);
  TEST_CHECK(strstr(r.diag.error, "UNIDIRECTIONAL_SEQUENCE_LSTM") && strstr(r.diag.error, "INT16"));
  free(wts);
  return 1;
}

/* Float SVDF (rank 2, memory 3) over three runs against a naive SVDF keeping the last
 * `memory` feature activations of each filter. */
static int svdf_memory(int threads)
{
  enum { NB = 2, NI = 3, RANK = 2, NU = 2, NF = NU * RANK, NM = 3, RUNS = 3 };
  float *wf = rnd(NF * NI, -0.6f, 0.6f), *wt = rnd(NF * NM, -0.6f, 0.6f), *bias = rnd(NU, -0.3f, 0.3f);
  float *x = rnd(RUNS * NB * NI, -1, 1);
  double mem[NB][NF][NM] = {{{0}}};
  op_runner r;
  op_runner_init(&r, TFL_OP_SVDF);
  int xt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){NB, NI}, x, false);
  int wft = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){NF, NI}, wf, true);
  int wtt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){NF, NM}, wt, true);
  int bt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){NU}, bias, true);
  int st = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){NB, NF * NM}, NULL, false);
  r.tensors[st].is_variable = true;
  int yt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){NB, NU}, NULL, false);
  op_runner_io(&r, (int[]){xt, wft, wtt, bt, st}, 5, (int[]){yt}, 1);
  r.node.p.seq = (tfl_seq_params){.act = TFL_ACT_NONE, .rank = RANK};
  int ok = 1;
  for (int run = 0; ok && run < RUNS; run++) {
    const float *xr = x + run * NB * NI;
    memcpy(r.tensors[xt].data, xr, sizeof(float) * NB * NI);
    float want[NB * NU];
    for (int b = 0; b < NB; b++) {
      for (int f = 0; f < NF; f++) {
        memmove(mem[b][f], mem[b][f] + 1, sizeof(double) * (NM - 1));
        double a = 0;
        for (int i = 0; i < NI; i++) a += (double)wf[f * NI + i] * xr[b * NI + i];
        mem[b][f][NM - 1] = a;
      }
      for (int u = 0; u < NU; u++) {
        double acc = bias[u];
        for (int k = 0; k < RANK; k++)
          for (int j = 0; j < NM; j++) acc += (double)wt[(u * RANK + k) * NM + j] * mem[b][u * RANK + k][j];
        want[b * NU + u] = (float)acc;
      }
    }
    ok = op_runner_run(&r, threads) == TFL_OK;
    if (!ok) fprintf(stderr, "svdf run failed: %s\n", r.diag.error);
    ok = ok && op_runner_expect_near("svdf memory over runs", r.tensors[yt].data, want, NB * NU, 1e-5f);
  }
  op_runner_free(&r);
  free(wf), free(wt), free(bias), free(x);
  return ok;
}

/* TFLite's int8 SVDF takes only RELU: another activation is refused. */
static int svdf_int8_needs_relu(void)
{
  op_runner r;
  op_runner_init(&r, TFL_OP_SVDF);
  int xt = op_runner_tensor(&r, TFL_TYPE_INT8, 2, (int32_t[]){1, 2}, NULL, false);
  int wft = op_runner_tensor(&r, TFL_TYPE_INT8, 2, (int32_t[]){2, 2}, NULL, true);
  int wtt = op_runner_tensor(&r, TFL_TYPE_INT16, 2, (int32_t[]){2, 2}, NULL, true);
  int st = op_runner_tensor(&r, TFL_TYPE_INT16, 2, (int32_t[]){1, 4}, NULL, false);
  int yt = op_runner_tensor(&r, TFL_TYPE_INT8, 2, (int32_t[]){1, 2}, NULL, false);
  r.tensors[st].is_variable = true;
  op_runner_io(&r, (int[]){xt, wft, wtt, -1, st}, 5, (int[]){yt}, 1);
  r.node.p.seq = (tfl_seq_params){.act = TFL_ACT_NONE, .rank = 1};
  tfl_status s = op_runner_run(&r, 1);
  op_runner_free(&r);
  TEST_CHECK(s == TFL_ERR_UNSUPPORTED);
  TEST_CHECK(strstr(r.diag.error, "SVDF") && strstr(r.diag.error, "RELU"));
  return 1;
}

int main(void)
{
  int ok = basic_case() && bad_type() && seq_lstm_refused() && svdf_int8_needs_relu();
  for (int threads = 1; ok && threads <= 3; threads += 2) ok = seq_lstm_carry(threads) && svdf_memory(threads);
  const lstm_case cases[] = {
    /* batch in cell out cifg peep proj pbias ln inputs cell_clip proj_clip */
    {2, 3, 4, 4, 0, 0, 0, 0, 0, 24, 0, 0},
    {2, 3, 4, 4, 0, 0, 0, 0, 0, 20, 0, 0},
    {1, 5, 6, 3, 1, 1, 1, 1, 0, 24, 0, 0},
    {3, 2, 5, 2, 0, 1, 1, 0, 0, 20, 0.3f, 0.1f},
    {2, 3, 9, 9, 0, 1, 0, 0, 1, 24, 0, 0},
    {2, 4, 5, 3, 1, 0, 1, 1, 1, 24, 0.5f, 0},
  };
  for (size_t k = 0; ok && k < sizeof cases / sizeof cases[0]; k++)
    for (int threads = 1; ok && threads <= 3; threads += 2) ok = full_case(&cases[k], threads);
  printf("%s\n", ok ? "test_lstm: ok" : "test_lstm: FAILED");
  return ok ? 0 : 1;
}
