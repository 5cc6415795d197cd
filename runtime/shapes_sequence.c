/* shapes_sequence.c - output shapes of the sequence ops (tfl_shapes_priv.h), as TFLite's
 * Prepare sets them:
 *   UNIDIRECTIONAL_SEQUENCE_LSTM: the input's dims with n_output (recurrent_to_output
 *     weights, input 8, dim 1; dim 0 when diagonal) last.
 *   BIDIRECTIONAL_SEQUENCE_LSTM: output 0 [d0, d1, n_fw (+ n_bw when merged)], output 1
 *     [d0, d1, n_bw] (n_fw from input 8, n_bw from input 25).
 *   UNIDIRECTIONAL_SEQUENCE_RNN: [d0, d1, units] (units: weights, input 1, dim 0).
 *   BIDIRECTIONAL_SEQUENCE_RNN: output 0 [d0, d1, fw (+ bw when merged)], output 1
 *     [d0, d1, bw] (fw units from input 1, bw from input 5).
 *   RNN: [batch, units]. SVDF: [batch, filters / rank] (weights_feature, input 1).
 */
#include "tfl_shapes_priv.h"

/* dims[d] of input i, which must have `ndim` dims (ndim < 0: any >= d + 1). */
static tfl_status dim_of(const tfl_graph *g, const tfl_node *n, int ni, int i, int ndim, int d, const char *what,
                         int32_t *out, tfl_diag *diag)
{
  const tfl_tensor *t = tfl_shape_in(g, n, i);
  if (!t) return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "%s (input %d) is missing", what, i);
  if ((ndim >= 0 && t->ndim != ndim) || t->ndim <= d)
    return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "%s (input %d) has %d dims, expected %d", what, i, t->ndim,
                         ndim >= 0 ? ndim : d + 1);
  *out = t->dims[d];
  return TFL_OK;
}

/* Bidirectional: output 0 takes fw (+ bw merged) units, output 1 bw. */
static tfl_status last_dim(const tfl_node *n, int ni, int o, int32_t fw, int32_t bw, tfl_shape *out, tfl_diag *diag)
{
  int64_t d = o == 1 ? bw : (n->p.seq.merge_outputs ? (int64_t)fw + bw : fw);
  if (d > INT32_MAX) return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "merged output of %d + %d units is too wide", fw, bw);
  out->d[2] = (int32_t)d;
  return TFL_OK;
}

tfl_status tfl_shape_sequence(const tfl_graph *g, const tfl_node *n, int ni, int o, tfl_shape *out,
                              tfl_inf_kind *kind, tfl_diag *diag)
{
  *kind = TFL_INF_OK;
  const tfl_seq_params *p = &n->p.seq;
  tfl_status s;
  int32_t a, b, d0, d1;
  bool rnn = n->op == TFL_OP_RNN || n->op == TFL_OP_SVDF;
  if ((s = dim_of(g, n, ni, 0, rnn ? 2 : 3, 0, "input", &d0, diag)) ||
      (s = dim_of(g, n, ni, 0, rnn ? 2 : 3, 1, "input", &d1, diag)))
    return s;
  out->ndim = 3;
  out->d[0] = d0;
  out->d[1] = d1;
  if (n->op == TFL_OP_UNIDIRECTIONAL_SEQUENCE_LSTM) {
    /* diagonal recurrent weights are [cells], and the output has as many units */
    bool dg = p->diagonal_recurrent;
    if ((s = dim_of(g, n, ni, 8, dg ? 1 : 2, dg ? 0 : 1, "recurrent_to_output_weights", &a, diag))) return s;
    out->d[2] = a;
    return TFL_OK;
  }
  if (n->op == TFL_OP_BIDIRECTIONAL_SEQUENCE_LSTM) {
    if ((s = dim_of(g, n, ni, 8, 2, 1, "fw_recurrent_to_output_weights", &a, diag)) ||
        (s = dim_of(g, n, ni, 25, 2, 1, "bw_recurrent_to_output_weights", &b, diag)))
      return s;
    return last_dim(n, ni, o, a, b, out, diag);
  }
  if (n->op == TFL_OP_UNIDIRECTIONAL_SEQUENCE_RNN) {
    if ((s = dim_of(g, n, ni, 1, 2, 0, "weights", &a, diag))) return s;
    out->d[2] = a;
    return TFL_OK;
  }
  if (n->op == TFL_OP_BIDIRECTIONAL_SEQUENCE_RNN) {
    if ((s = dim_of(g, n, ni, 1, 2, 0, "fw_weights", &a, diag)) ||
        (s = dim_of(g, n, ni, 5, 2, 0, "bw_weights", &b, diag)))
      return s;
    return last_dim(n, ni, o, a, b, out, diag);
  }
  if (n->op == TFL_OP_RNN) {
    if ((s = dim_of(g, n, ni, 1, 2, 0, "weights", &a, diag))) return s;
    out->ndim = 2;
    out->d[1] = a;
    return TFL_OK;
  }
  if (n->op == TFL_OP_SVDF) {
    if ((s = dim_of(g, n, ni, 1, 2, 0, "weights_feature", &a, diag))) return s;
    if (p->rank < 1 || a % p->rank)
      return TFL_SHAPE_ERR(TFL_ERR_SHAPE, "weights_feature has %d filters, not a multiple of rank %d", a, p->rank);
    out->ndim = 2;
    out->d[1] = a / p->rank;
    return TFL_OK;
  }
  return TFL_SHAPE_ERR(TFL_ERR_UNSUPPORTED, "no shape rule");
}
