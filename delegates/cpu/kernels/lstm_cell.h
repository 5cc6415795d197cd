/* lstm_cell.h - one LSTM cell over one batch row and one time step, float32 or hybrid
 * (int8 weights, float activations), shared by LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM and
 * BIDIRECTIONAL_SEQUENCE_LSTM. With x the input, a the auxiliary input, h / c the output
 * and cell states:
 *   gate_G = W_G x [+ A_G a] + R_G h [+ p_G .* c] + b_G    G in input i, forget f, cell g, output o
 *   (layer norm: gate_G = norm(W_G x + A_G a + R_G h [+ p_G .* c]) .* ln_G + b_G)
 *   i = sigmoid (1 - f without input weights: CIFG), f = sigmoid, g = act(gate_g);
 *   c = f .* c + i .* g, clipped to +-cell_clip when > 0; o = sigmoid(gate_o), whose
 *   peephole reads the new c; m = o .* act(c); h = P m + pb clipped to +-proj_clip when
 *   > 0 (projection), else h = m. The step's output is h.
 * Diagonal recurrent weights (UNIDIRECTIONAL_SEQUENCE_LSTM's diagonal_recurrent_tensors,
 * float32): R_G h is r_G .* h.
 * Hybrid: x, a, h and m are quantized per row before each product (seq_common.h); the
 * peephole weights are int8 scaled back to float (TFLite's order: w * scale, then * c).
 */
#ifndef LSTM_CELL_H
#define LSTM_CELL_H

#include "seq_common.h"

enum { LSTM_I = 0, LSTM_F = 1, LSTM_G = 2, LSTM_O = 3 };

/* Where one cell's tensors are among the node's inputs (-1: the op has none). */
typedef struct {
  int w_in[4], w_aux[4], w_rec[4], w_peep[4]; /* w_peep[LSTM_G] is -1 */
  int bias[4], ln[4];
  int proj_w, proj_b;
  int h_state, c_state;                       /* variable [batch, n_output], [batch, n_cell] */
} lstm_cell_map;

typedef struct {
  lstm_cell_map map;
  int n_input, n_aux, n_cell, n_output;
  bool cifg, peephole, layer_norm, projection, aux;
  bool diagonal;            /* recurrent weights are [n_cell] diagonals (float32 only) */
  bool hybrid, asym;
  tfl_activation act;
  float cell_clip, proj_clip;
  float s_in[4], s_aux[4], s_rec[4], s_peep[4], s_proj; /* hybrid weight scales */
} lstm_cell;

/* The cell's tensors bound to their data (done in eval: activations move). */
typedef struct {
  const void *w_in[4], *w_aux[4], *w_rec[4], *w_peep[4], *proj_w;
  const float *bias[4], *ln[4], *proj_b;
} lstm_cell_data;

/* Checks the cell's tensors (shapes, float32 or hybrid int8 weights, float state) and
 * fills c from c->map, act, clips, asym and diagonal set by the caller. use_aux: the auxiliary
 * weights are used (their size gives n_aux). n_batch: the state tensors' rows. */
tfl_status lstm_cell_prepare(const tfl_graph *g, const tfl_node *n, lstm_cell *c, bool use_aux, int n_batch,
                             tfl_diag *diag);
void lstm_cell_bind(const tfl_graph *g, const tfl_node *n, const lstm_cell *c, lstm_cell_data *d);

/* Scratch of one row: floats and int8 values. */
size_t lstm_cell_scratch_f(const lstm_cell *c);
size_t lstm_cell_scratch_q(const lstm_cell *c);

/* One step of one batch row: reads x (n_input) and a (n_aux, or NULL), updates h and cs in
 * place, writes h to out. */
void lstm_cell_step(const lstm_cell *c, const lstm_cell_data *d, const float *x, const float *a, float *h,
                    float *cs, float *out, float *scratch, int8_t *qscratch);

#endif
