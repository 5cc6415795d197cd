/* lstm_cell.c - the LSTM cell of lstm_cell.h (TFLite's lstm_eval float and hybrid steps). */
#include "lstm_cell.h"

static const char *const gate_name[4] = {"input", "forget", "cell", "output"};

tfl_status seq_check_hybrid_weight(const tfl_graph *g, const tfl_node *n, int i, float *scale, tfl_diag *diag)
{
  const tfl_tensor *t = cpu_in(g, n, i);
  if (!seq_hybrid_type(t->type))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "hybrid weights (input %d) are %s, int8 (or uint8) runs", i,
                        tfl_type_name(t->type));
  if (t->q.n != 1 || !(t->q.scale[0] > 0.0f) || !isfinite(t->q.scale[0]))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n,
                        "hybrid weights (input %d) need one scale > 0 (%d scales given)", i, t->q.n);
  *scale = t->q.scale[0];
  return TFL_OK;
}

bool seq_act_ok(tfl_activation act)
{
  return act != TFL_ACT_SIGN_BIT;
}

/* Input i: absent (-1 or beyond the node's inputs) is fine unless need; present: type
 * `type` (weights: the cell's weight type) and dims {d0[, d1]} (d1 < 0: 1-D). */
static tfl_status check_in(const tfl_graph *g, const tfl_node *n, int i, const char *what, tfl_type type, int d0,
                           int d1, bool need, tfl_diag *diag)
{
  const tfl_tensor *t = i >= 0 ? cpu_in(g, n, i) : NULL;
  if (!t) return need ? CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%s (input %d) is missing", what, i) : TFL_OK;
  if (t->type != type)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s (input %d) is %s, expected %s", what, i,
                        tfl_type_name(t->type), tfl_type_name(type));
  int nd = d1 < 0 ? 1 : 2;
  if (t->ndim != nd || t->dims[0] != d0 || (nd == 2 && t->dims[1] != d1))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%s (input %d) has %d dims [%d, %d], expected [%d%s%.0d]", what, i,
                        t->ndim, t->ndim > 0 ? t->dims[0] : 0, t->ndim > 1 ? t->dims[1] : 0, d0, nd == 2 ? ", " : "",
                        nd == 2 ? d1 : 0);
  return TFL_OK;
}

static bool has(const tfl_graph *g, const tfl_node *n, int i)
{
  return i >= 0 && cpu_in(g, n, i) != NULL;
}

tfl_status lstm_cell_prepare(const tfl_graph *g, const tfl_node *n, lstm_cell *c, bool use_aux, int n_batch,
                             tfl_diag *diag)
{
  const lstm_cell_map *m = &c->map;
  const tfl_tensor *w_o = has(g, n, m->w_in[LSTM_O]) ? cpu_in(g, n, m->w_in[LSTM_O]) : NULL;
  const tfl_tensor *r_o = has(g, n, m->w_rec[LSTM_O]) ? cpu_in(g, n, m->w_rec[LSTM_O]) : NULL;
  tfl_status s;
  if (!w_o || w_o->ndim != 2)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input_to_output_weights (input %d) missing or not 2-D",
                        m->w_in[LSTM_O]);
  if (!r_o || r_o->ndim != (c->diagonal ? 1 : 2))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "recurrent_to_output_weights (input %d) missing or not %d-D",
                        m->w_rec[LSTM_O], c->diagonal ? 1 : 2);
  if (!seq_act_ok(c->act))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "activation %d is not one TFLite's LSTM applies", (int)c->act);
  c->n_cell = w_o->dims[0];
  c->n_input = w_o->dims[1];
  c->n_output = r_o->dims[c->diagonal ? 0 : 1];   /* a diagonal maps h onto the cells: sizes agree */
  c->cifg = !has(g, n, m->w_in[LSTM_I]);
  c->peephole = has(g, n, m->w_peep[LSTM_O]);
  c->layer_norm = has(g, n, m->ln[LSTM_F]);
  c->projection = has(g, n, m->proj_w);
  c->aux = use_aux;
  c->n_aux = 0;
  if (use_aux) {
    const tfl_tensor *a_o = has(g, n, m->w_aux[LSTM_O]) ? cpu_in(g, n, m->w_aux[LSTM_O]) : NULL;
    if (!a_o || a_o->ndim != 2)
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "aux_input_to_output_weights (input %d) missing or not 2-D",
                          m->w_aux[LSTM_O]);
    c->n_aux = a_o->dims[1];
  }
  if (c->n_cell < 1 || c->n_input < 1 || c->n_output < 1)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "cells %d, input size %d, output size %d: each must be >= 1",
                        c->n_cell, c->n_input, c->n_output);
  if (c->cifg && has(g, n, m->w_rec[LSTM_I]))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n,
                        "recurrent_to_input_weights (input %d) without input_to_input_weights (input %d)",
                        m->w_rec[LSTM_I], m->w_in[LSTM_I]);
  /* TFLite's consistency rules for the optional tensors */
  if (!c->projection && has(g, n, m->proj_b))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "projection_bias (input %d) without projection_weights (input %d)",
                        m->proj_b, m->proj_w);
  if (c->cifg && has(g, n, m->bias[LSTM_I]))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n,
                        "input_gate_bias (input %d) without input_to_input_weights (input %d)", m->bias[LSTM_I],
                        m->w_in[LSTM_I]);
  if (!c->projection && c->n_output != c->n_cell)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "no projection but output size %d != cell count %d", c->n_output,
                        c->n_cell);
  if (c->peephole != has(g, n, m->w_peep[LSTM_F]))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n,
                        "cell_to_forget (input %d) and cell_to_output (input %d) weights must come together",
                        m->w_peep[LSTM_F], m->w_peep[LSTM_O]);
  c->hybrid = seq_hybrid_type(w_o->type);
  if (c->diagonal && (c->hybrid || c->projection))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "diagonal recurrent weights run with float32 weights and no "
                        "projection (weights %s, projection input %d)", tfl_type_name(w_o->type), m->proj_w);
  if (w_o->type != TFL_TYPE_FLOAT32 && !c->hybrid)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n,
                        "weights are %s: float32 and hybrid int8 weights run (full integer LSTM is not written)",
                        tfl_type_name(w_o->type));
  tfl_type wt = w_o->type, f32 = TFL_TYPE_FLOAT32;
  int nc = c->n_cell, ni = c->n_input, no = c->n_output;
  char what[64];
  for (int G = 0; G < 4; G++) {
    bool need = G != LSTM_I || !c->cifg;
    snprintf(what, sizeof what, "input_to_%s_weights", gate_name[G]);
    if ((s = check_in(g, n, m->w_in[G], what, wt, nc, ni, need, diag))) return s;
    snprintf(what, sizeof what, "recurrent_to_%s_weights", gate_name[G]);
    if ((s = check_in(g, n, m->w_rec[G], what, wt, nc, c->diagonal ? -1 : no, need, diag))) return s;
    snprintf(what, sizeof what, "aux_input_to_%s_weights", gate_name[G]);
    if (use_aux && (s = check_in(g, n, m->w_aux[G], what, wt, nc, c->n_aux, need, diag))) return s;
    snprintf(what, sizeof what, "cell_to_%s_weights", gate_name[G]);
    if (G != LSTM_G && (s = check_in(g, n, m->w_peep[G], what, wt, nc, -1, c->peephole && need, diag))) return s;
    snprintf(what, sizeof what, "%s_gate_bias", gate_name[G]);
    if ((s = check_in(g, n, m->bias[G], what, f32, nc, -1, need, diag))) return s;
    snprintf(what, sizeof what, "%s_layer_norm_coefficients", gate_name[G]);
    if ((s = check_in(g, n, m->ln[G], what, f32, nc, -1, c->layer_norm && need, diag))) return s;
  }
  if ((s = check_in(g, n, m->proj_w, "projection_weights", wt, no, nc, false, diag)) ||
      (s = check_in(g, n, m->proj_b, "projection_bias", f32, no, -1, false, diag)))
    return s;
  if (!use_aux)
    for (int G = 0; G < 4; G++)
      if (has(g, n, m->w_aux[G]))
        return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "aux weights (input %d) without an auxiliary input",
                            m->w_aux[G]);
  if (c->hybrid) {
    for (int G = 0; G < 4; G++) {
      c->s_in[G] = c->s_aux[G] = c->s_rec[G] = c->s_peep[G] = 1.0f;
      if (has(g, n, m->w_in[G]) && (s = seq_check_hybrid_weight(g, n, m->w_in[G], &c->s_in[G], diag))) return s;
      if (has(g, n, m->w_rec[G]) && (s = seq_check_hybrid_weight(g, n, m->w_rec[G], &c->s_rec[G], diag))) return s;
      if (use_aux && has(g, n, m->w_aux[G]) && (s = seq_check_hybrid_weight(g, n, m->w_aux[G], &c->s_aux[G], diag)))
        return s;
      if (has(g, n, m->w_peep[G]) && (s = seq_check_hybrid_weight(g, n, m->w_peep[G], &c->s_peep[G], diag)))
        return s;
    }
    c->s_proj = 1.0f;
    if (c->projection && (s = seq_check_hybrid_weight(g, n, m->proj_w, &c->s_proj, diag))) return s;
  }
  /* the states: float variables this op writes */
  const int st_idx[2] = {m->h_state, m->c_state};
  const int st_len[2] = {no, nc};
  for (int k = 0; k < 2; k++) {
    const tfl_tensor *t = has(g, n, st_idx[k]) ? cpu_in(g, n, st_idx[k]) : NULL;
    const char *nm = k ? "cell_state" : "output_state";
    if (!t) return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%s (input %d) is missing", nm, st_idx[k]);
    if (t->type != TFL_TYPE_FLOAT32)
      return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s (input %d) is %s, expected float32", nm, st_idx[k],
                          tfl_type_name(t->type));
    if (t->is_const)
      return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s (input %d) is a constant; the op writes it", nm,
                          st_idx[k]);
    if (tfl_tensor_count(t) != (size_t)n_batch * (size_t)st_len[k])
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%s (input %d) has %zu values, expected %d x %d", nm, st_idx[k],
                          tfl_tensor_count(t), n_batch, st_len[k]);
  }
  return TFL_OK;
}

static const void *data_of(const tfl_graph *g, const tfl_node *n, int i)
{
  const tfl_tensor *t = i >= 0 ? cpu_in(g, n, i) : NULL;
  return t ? t->data : NULL;
}

void lstm_cell_bind(const tfl_graph *g, const tfl_node *n, const lstm_cell *c, lstm_cell_data *d)
{
  const lstm_cell_map *m = &c->map;
  for (int G = 0; G < 4; G++) {
    d->w_in[G] = data_of(g, n, m->w_in[G]);
    d->w_rec[G] = data_of(g, n, m->w_rec[G]);
    d->w_aux[G] = c->aux ? data_of(g, n, m->w_aux[G]) : NULL;
    d->w_peep[G] = c->peephole ? data_of(g, n, m->w_peep[G]) : NULL;
    d->bias[G] = data_of(g, n, m->bias[G]);
    d->ln[G] = c->layer_norm ? data_of(g, n, m->ln[G]) : NULL;
  }
  d->proj_w = c->projection ? data_of(g, n, m->proj_w) : NULL;
  d->proj_b = data_of(g, n, m->proj_b);
}

size_t lstm_cell_scratch_f(const lstm_cell *c)
{
  return 5 * (size_t)c->n_cell;
}

size_t lstm_cell_scratch_q(const lstm_cell *c)
{
  int m = c->n_input;
  if (c->n_aux > m) m = c->n_aux;
  if (c->n_output > m) m = c->n_output;
  if (c->n_cell > m) m = c->n_cell;
  return 3 * (size_t)m;
}

static float sigmoid(float v)
{
  return 1.0f / (1.0f + expf(-v));
}

/* Zero mean, unit variance (TFLite's MeanStddevNormalization, epsilon 1e-8). */
static void mean_stddev_norm(float *v, int len)
{
  float sum = 0.0f, sq = 0.0f;
  for (int k = 0; k < len; k++) sum += v[k];
  float mean = sum / (float)len;
  for (int k = 0; k < len; k++) sq += (v[k] - mean) * (v[k] - mean);
  float inv = 1.0f / sqrtf(sq / (float)len + 1e-8f);
  for (int k = 0; k < len; k++) v[k] = (v[k] - mean) * inv;
}

/* One row's quantized activation (hybrid). */
typedef struct {
  const int8_t *q;
  float sf;
  int32_t zp;
} qrow;

/* Pre-activation of gate G into out[n_cell]; the peephole reads cs. */
static void gate(const lstm_cell *c, const lstm_cell_data *d, int G, const float *x, const float *a, const float *h,
                 const qrow *qx, const qrow *qa, const qrow *qh, const float *cs, float *out)
{
  int nc = c->n_cell;
  const float *b = d->bias[G];
  for (int k = 0; k < nc; k++) out[k] = c->layer_norm || !b ? 0.0f : b[k];
  if (c->hybrid) {
    seq_matvec_i8(out, d->w_in[G], qx->q, nc, c->n_input, qx->sf, qx->zp, c->s_in[G]);
    if (c->aux && a) seq_matvec_i8(out, d->w_aux[G], qa->q, nc, c->n_aux, qa->sf, qa->zp, c->s_aux[G]);
    seq_matvec_i8(out, d->w_rec[G], qh->q, nc, c->n_output, qh->sf, qh->zp, c->s_rec[G]);
    if (d->w_peep[G]) {
      const int8_t *p = d->w_peep[G];
      for (int k = 0; k < nc; k++) out[k] += (c->s_peep[G] * (float)p[k]) * cs[k];
    }
  } else {
    seq_matvec_f32(out, d->w_in[G], x, nc, c->n_input);
    if (c->aux && a) seq_matvec_f32(out, d->w_aux[G], a, nc, c->n_aux);
    if (c->diagonal) {
      const float *r = d->w_rec[G];
      for (int k = 0; k < nc; k++) out[k] += r[k] * h[k];
    } else {
      seq_matvec_f32(out, d->w_rec[G], h, nc, c->n_output);
    }
    if (d->w_peep[G]) {
      const float *p = d->w_peep[G];
      for (int k = 0; k < nc; k++) out[k] += p[k] * cs[k];
    }
  }
  if (c->layer_norm) {
    const float *l = d->ln[G];
    mean_stddev_norm(out, nc);
    for (int k = 0; k < nc; k++) out[k] = out[k] * l[k] + (b ? b[k] : 0.0f);
  }
}

static float clip(float v, float limit)
{
  if (limit <= 0.0f) return v;
  return v < -limit ? -limit : (v > limit ? limit : v);
}

void lstm_cell_step(const lstm_cell *c, const lstm_cell_data *d, const float *x, const float *a, float *h,
                    float *cs, float *out, float *scratch, int8_t *qscratch)
{
  int nc = c->n_cell, no = c->n_output;
  float *gi = scratch, *gf = scratch + nc, *gg = scratch + 2 * nc, *go = scratch + 3 * nc, *m = scratch + 4 * nc;
  size_t qn = lstm_cell_scratch_q(c) / 3;
  qrow qx = {0}, qa = {0}, qh = {0};
  if (c->hybrid) {
    /* each activation quantized once per step, shared by the four gates */
    int8_t *q0 = qscratch, *q1 = qscratch + qn, *q2 = qscratch + 2 * qn;
    seq_quantize_row(x, c->n_input, c->asym, q0, &qx.sf, &qx.zp);
    qx.q = q0;
    if (c->aux && a) {
      seq_quantize_row(a, c->n_aux, c->asym, q1, &qa.sf, &qa.zp);
      qa.q = q1;
    }
    seq_quantize_row(h, no, c->asym, q2, &qh.sf, &qh.zp);
    qh.q = q2;
  }
  if (!c->cifg) gate(c, d, LSTM_I, x, a, h, &qx, &qa, &qh, cs, gi);
  gate(c, d, LSTM_F, x, a, h, &qx, &qa, &qh, cs, gf);
  gate(c, d, LSTM_G, x, a, h, &qx, &qa, &qh, cs, gg);
  for (int k = 0; k < nc; k++) {
    float f = sigmoid(gf[k]);
    float i = c->cifg ? 1.0f - f : sigmoid(gi[k]);
    cs[k] = clip(f * cs[k] + i * cpu_apply_activation(c->act, gg[k]), c->cell_clip);
  }
  gate(c, d, LSTM_O, x, a, h, &qx, &qa, &qh, cs, go); /* the output gate's peephole reads the new c */
  for (int k = 0; k < nc; k++) m[k] = sigmoid(go[k]) * cpu_apply_activation(c->act, cs[k]);

  /* every read of the old h is done: write the new one */
  if (c->projection) {
    for (int j = 0; j < no; j++) h[j] = d->proj_b ? d->proj_b[j] : 0.0f;
    if (c->hybrid) {
      qrow qm;
      seq_quantize_row(m, nc, c->asym, qscratch, &qm.sf, &qm.zp);
      seq_matvec_i8(h, d->proj_w, qscratch, no, nc, qm.sf, qm.zp, c->s_proj);
    } else {
      seq_matvec_f32(h, d->proj_w, m, no, nc);
    }
    for (int j = 0; j < no; j++) h[j] = clip(h[j], c->proj_clip);
  } else {
    memcpy(h, m, sizeof(float) * (size_t)nc);
  }
  memcpy(out, h, sizeof(float) * (size_t)no);
}
