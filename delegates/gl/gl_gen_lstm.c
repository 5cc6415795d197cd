/* gl_gen_lstm.c - TFLite's basic LSTM cell (kernel_type 1), one time step, float.
 *
 * a = W [x, h_prev] + b over 4 gate blocks of N (input, candidate, forget, output);
 * state = sigmoid(a_i) tanh(a_g) + sigmoid(a_f) prev_state; activation =
 * sigmoid(a_o) tanh(state). One invocation per (slice s, batch row b) of the widest
 * output: s < SN computes the 4 gates of N-slice s (weights "W" packed per slice, gate,
 * input vec4 and lane) and stores activation / state (and activ_temp when N % 4 == 0,
 * where gate slices are its slices); s < S of concat_temp copies that slice; when
 * N % 4 != 0, s < S of activ_temp recomputes its rows ("T", plain rows) because its
 * slices straddle gates. The write-back into the state inputs is the planner's
 * (find_write_backs in gl_plan.c).
 */
#include "gl_gen.h"

#include <stdlib.h>
#include <string.h>

enum { X = 0, H = 1, WT = 2, BIAS = 3, C = 4 };

static int readers(const tfl_graph *g, int t)
{
  int r = 0;
  for (int i = 0; i < g->n_nodes; i++)
    for (int k = 0; !g->nodes[i].dead && k < g->nodes[i].n_in; k++) r += g->nodes[i].in[k] == t;
  return r;
}

tfl_status gl_check_lstm(const tfl_graph *g, int node, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  if (n->p.lstm.kernel_type != 1) return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "only the basic LSTM kernel runs");
  if (n->n_in != 5 || n->n_out < 2) return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "%d inputs / %d outputs, expected 5 / 2..4", n->n_in, n->n_out);
  for (int k = 0; k < 5; k++)
    if (n->in[k] < 0 || g->tensors[n->in[k]].type != TFL_TYPE_FLOAT32)
      return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "input %d is missing or not float32", k);
  for (int k = 0; k < n->n_out; k++)
    if (n->out[k] >= 0 && g->tensors[n->out[k]].type != TFL_TYPE_FLOAT32)
      return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "output %d is not float32", k);
  if (n->out[0] < 0 || n->out[1] < 0) return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "activation or state output missing");
  const tfl_tensor *w = &g->tensors[n->in[WT]], *b = &g->tensors[n->in[BIAS]];
  if (!w->is_const || !b->is_const) return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "weights and biases must be constant");
  if (w->ndim != 2 || w->dims[0] % 4 || w->dims[0] < 4)
    return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "weights are not [4N, I+N]");
  int nn = w->dims[0] / 4, ni = w->dims[1] - nn;
  if (ni < 1 || (int)tfl_tensor_count(b) != 4 * nn) return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "weights [%d, %d] / biases %zu", w->dims[0], w->dims[1], tfl_tensor_count(b));
  gl_shape sx, want[4];
  gl_shape_of(&g->tensors[n->in[X]], &sx);
  if (sx.c != ni || sx.h != 1 || sx.w != 1) return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "input is not [B, %d]", ni);
  int nb = sx.b, ext[4] = {nn, nn, ni + nn, 4 * nn};
  for (int k = 0; k < 4; k++) want[k] = gl_shape_make(nb, 1, 1, ext[k]);
  for (int k = 0; k < n->n_out && k < 4; k++) {
    gl_shape s;
    if (n->out[k] >= 0 && (!gl_shape_of(&g->tensors[n->out[k]], &s) || !gl_shape_eq(s, want[k])))
      return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "output %d is not [%d, %d]", k, nb, ext[k]);
  }
  /* state inputs: the new values are downloaded into them after the run (as the CPU
   * kernel writes them back); that is exact only when nothing else reads them */
  static const int st_in[2] = {H, C};
  for (int j = 0; j < 2; j++) {
    int t = n->in[st_in[j]];
    gl_shape s;
    if (!gl_shape_of(&g->tensors[t], &s) || !gl_shape_eq(s, want[0]))
      return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "input %d is not [%d, %d]", st_in[j], nb, nn);
    if (g->tensors[t].is_const) continue;
    bool gout = false;
    for (int i = 0; i < g->n_outputs; i++) gout = gout || g->outputs[i] == t;
    if (gout || readers(g, t) != 1)
      return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "state input %d (tensor %d) is read elsewhere or a graph output: its write-back would be visible", st_in[j], t);
  }
  return TFL_OK;
}

tfl_status gl_gen_lstm(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  const tfl_graph *g = in->g;
  const tfl_node *n = in->n;
  const tfl_tensor *wt = &g->tensors[n->in[WT]];
  int nn = wt->dims[0] / 4, ni = wt->dims[1] - nn, nx = ni + nn, nb = in->out.b;
  int sn = (nn + 3) / 4, si = (ni + 3) / 4, q = si + sn, s4 = (4 * nn + 3) / 4, sc = (nx + 3) / 4;
  bool want_cat = n->n_out > 2 && n->out[2] >= 0, want_act = n->n_out > 3 && n->out[3] >= 0;
  bool act_split = want_act && nn % 4 != 0;
  float *w = gl_const_reals(wt), *bias = gl_const_reals(&g->tensors[n->in[BIAS]]);
  /* W: per (slice s, gate G, input vec4 q, lane j) the 4 weights of row G*N + 4s + j over
   * inputs 4q.. of x (q < SI) or of h (q >= SI); B: per (s, G) the biases of 4 lanes */
  float *pw = calloc((size_t)sn * 4 * q * 4 * 4 + 1, sizeof(float)), *pb = calloc((size_t)sn * 4 * 4 + 1, sizeof(float));
  float *pt = act_split ? calloc((size_t)s4 * q * 4 * 4 + 1, sizeof(float)) : NULL;
  if (!w || !bias || !pw || !pb || (act_split && !pt)) {
    free(w), free(bias), free(pw), free(pb), free(pt);
    return tfl_fail(diag, TFL_ERR_NOMEM, "LSTM constants");
  }
  /* one row r of W into dst[qi * 16 + j * 4 + e] layout (dst already at the row group) */
  #define PACK_ROW(dst, r, j) do { \
    for (int qi = 0; qi < q; qi++) for (int e = 0; e < 4; e++) { \
      int col = qi < si ? 4 * qi + e : 4 * (qi - si) + e; \
      int lim = qi < si ? ni : nn, off = qi < si ? 0 : ni; \
      if (col < lim) (dst)[(size_t)qi * 16 + (j) * 4 + e] = w[(size_t)(r) * nx + off + col]; \
    } } while (0)
  for (int s = 0; s < sn; s++)
    for (int G = 0; G < 4; G++)
      for (int j = 0; j < 4; j++) {
        int k = 4 * s + j;
        if (k >= nn) continue;
        PACK_ROW(pw + ((size_t)(s * 4 + G) * q) * 16, G * nn + k, j);
        pb[(s * 4 + G) * 4 + j] = bias[G * nn + k];
      }
  for (int t = 0; act_split && t < s4; t++)
    for (int j = 0; j < 4; j++)
      if (4 * t + j < 4 * nn) PACK_ROW(pt + (size_t)t * q * 16, 4 * t + j, j);
  #undef PACK_ROW
  free(w);
  if (!gl_gen_add_const(o, "W", pw, (size_t)sn * 4 * q * 4) || !gl_gen_add_const(o, "B", pb, (size_t)sn * 4) ||
      (act_split && !gl_gen_add_const(o, "T", pt, (size_t)s4 * q * 4))) {
    free(bias);
    return tfl_fail(diag, TFL_ERR_NOMEM, "LSTM constants");
  }
  /* T rows carry no bias: activ_temp's biases are a literal array TB */
  gl_str *d = &o->decls, *m = &o->main;
  /* ACC4 is "highp vec4": a type, not a constructor; highp variables keep the sums highp */
  gl_str_addf(d, "ACC4 mv(int wi, ACC4 v) {\n"
                 "  ACC4 w0 = W_LD(wi), w1 = W_LD(wi + 1), w2 = W_LD(wi + 2), w3 = W_LD(wi + 3);\n"
                 "  return vec4(dot(w0, v), dot(w1, v), dot(w2, v), dot(w3, v));\n}\n"
                 "ACC4 sigm(ACC4 v) { return 1.0 / (1.0 + exp(-v)); }\n");
  if (act_split) {
    gl_str_addf(d, "ACC4 mvt(int wi, ACC4 v) {\n"
                   "  ACC4 w0 = T_LD(wi), w1 = T_LD(wi + 1), w2 = T_LD(wi + 2), w3 = T_LD(wi + 3);\n"
                   "  return vec4(dot(w0, v), dot(w1, v), dot(w2, v), dot(w3, v));\n}\n");
    gl_str_addf(d, "const highp float TB[%d] = float[%d](", 4 * s4, 4 * s4);
    for (int r = 0; r < 4 * s4; r++) {
      if (r) gl_str_addf(d, ", ");
      gl_str_float(d, r < 4 * nn ? bias[r] : 0.0f);
    }
    gl_str_addf(d, ");\n");
  }
  free(bias);
  int grid = sn;
  if (want_cat && sc > grid) grid = sc;
  if (want_act && s4 > grid) grid = s4;
  o->grid[0] = grid;
  o->grid[1] = nb;
  o->grid[2] = 1;
  gl_str_addf(m, "  int s = gid.x, b = gid.y;\n");
  gl_str_addf(m, "  if (s < %d) {\n"
                 "    ACC4 a[4];\n"
                 "    for (int G = 0; G < 4; G++) {\n"
                 "      a[G] = B_LD(s * 4 + G);\n"
                 "      int wi = (s * 4 + G) * %d * 4;\n"
                 "      for (int i = 0; i < %d; i++) a[G] += mv(wi + i * 4, I0_LD(b, 0, 0, i));\n"
                 "      for (int i = 0; i < %d; i++) a[G] += mv(wi + (%d + i) * 4, I1_LD(b, 0, 0, i));\n"
                 "    }\n"
                 "    ACC4 c = sigm(a[0]) * tanh(a[1]) + sigm(a[2]) * I4_LD(b, 0, 0, s);\n"
                 "    O1_ST(b, 0, 0, s, FLT4(c));\n"
                 "    store_out(b, 0, 0, s, FLT4(sigm(a[3]) * tanh(c)));\n",
              sn, q, si, sn, si);
  if (want_act && !act_split)
    gl_str_addf(m, "    for (int G = 0; G < 4; G++) O3_ST(b, 0, 0, G * %d + s, FLT4(a[G]));\n", sn);
  gl_str_addf(m, "  }\n");
  if (want_cat) { /* concat_temp: lanes from x, then h, zero past I+N */
    gl_str_addf(m, "  if (s < %d) {\n    FLT4 v;\n    for (int j = 0; j < 4; j++) {\n      int k = 4 * s + j;\n"
                   "      v[j] = k < %d ? I0_AT(b, 0, 0, k) : k < %d ? I1_AT(b, 0, 0, k - %d) : 0.0;\n    }\n"
                   "    O2_ST(b, 0, 0, s, v);\n  }\n",
                sc, ni, nx, ni);
  }
  if (act_split) {
    gl_str_addf(m, "  if (s < %d) {\n    ACC4 t = vec4(TB[4 * s], TB[4 * s + 1], TB[4 * s + 2], TB[4 * s + 3]);\n"
                   "    int wi = s * %d * 4;\n"
                   "    for (int i = 0; i < %d; i++) t += mvt(wi + i * 4, I0_LD(b, 0, 0, i));\n"
                   "    for (int i = 0; i < %d; i++) t += mvt(wi + (%d + i) * 4, I1_LD(b, 0, 0, i));\n"
                   "    O3_ST(b, 0, 0, s, FLT4(t));\n  }\n",
                s4, q, si, sn, si);
  }
  return TFL_OK;
}
