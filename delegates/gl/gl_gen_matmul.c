/* gl_gen_matmul.c - BATCH_MATMUL on floats: lhs [..., M, K] (adj_x: [..., K, M]) times
 * rhs [..., K, N] (adj_y: [..., N, K]), batch dims broadcast numpy-style, up to 4 dims.
 *
 * In the BHWC view every matrix row is one pixel (b, y, x) and its last dim the channels,
 * so row r of a tensor is pixel r of the view and a row's elements come in vec4s. Each
 * invocation makes one output vec4: 4 columns n of one row m. Without adj_y an rhs row k
 * is a vec4 of those columns (a row of lhs times rows of rhs); with adj_y each lane is the
 * dot product of the lhs row with rhs row n, vec4 by vec4. adj_x reads lhs column m one
 * element a step. */
#include "gl_gen.h"

static bool is_float(const tfl_tensor *t)
{
  return t->type == TFL_TYPE_FLOAT32 || t->type == TFL_TYPE_FLOAT16;
}

tfl_status gl_check_batch_matmul(const tfl_graph *g, int node, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  if (n->n_in < 2 || n->in[0] < 0 || n->in[1] < 0 || n->n_out != 1 || n->out[0] < 0)
    return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "needs lhs, rhs and one output");
  const tfl_tensor *a = &g->tensors[n->in[0]], *b = &g->tensors[n->in[1]], *y = &g->tensors[n->out[0]];
  if (!is_float(a) || !is_float(b) || !is_float(y))
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node,
                         "%s x %s -> %s (tensors %d, %d -> %d): GL multiplies floats only (hybrid and quantized: CPU)",
                         tfl_type_name(a->type), tfl_type_name(b->type), tfl_type_name(y->type), n->in[0], n->in[1],
                         n->out[0]);
  if (a->ndim < 2 || b->ndim < 2 || a->ndim > 4 || b->ndim > 4 || y->ndim > 4)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "ranks %d x %d -> %d (GL: 2 to 4)", a->ndim, b->ndim,
                         y->ndim);
  const tfl_batch_matmul_params *p = &n->p.bmm;
  int M = a->dims[a->ndim - (p->adj_x ? 1 : 2)], K = a->dims[a->ndim - (p->adj_x ? 2 : 1)];
  int Kb = b->dims[b->ndim - (p->adj_y ? 1 : 2)], N = b->dims[b->ndim - (p->adj_y ? 2 : 1)];
  int ro = a->ndim > b->ndim ? a->ndim : b->ndim;
  if (K != Kb || y->ndim != ro || y->dims[ro - 2] != M || y->dims[ro - 1] != N)
    return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "lhs tensor %d (K %d) x rhs tensor %d (K %d) does not give output "
                         "tensor %d [.., %d, %d]", n->in[0], K, n->in[1], Kb, n->out[0], M, N);
  for (int d = 0; d < ro - 2; d++) {
    int da = d - (ro - a->ndim), db = d - (ro - b->ndim);
    int sa = da >= 0 ? a->dims[da] : 1, sb = db >= 0 ? b->dims[db] : 1;
    if ((sa != 1 && sa != y->dims[d]) || (sb != 1 && sb != y->dims[d]))
      return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "batch dim %d: %d and %d do not broadcast to %d", d, sa, sb,
                           y->dims[d]);
  }
  return TFL_OK;
}

/* Matrices per step of each output batch dim for tensor t (0: broadcast). */
static void batch_steps(const tfl_tensor *t, int ro, long st[2])
{
  long s = 1;
  st[0] = st[1] = 0;
  for (int d = ro - 3; d >= 0; d--) {
    int dt = d - (ro - t->ndim);
    int size = dt >= 0 ? t->dims[dt] : 1;
    st[d] = size == 1 ? 0 : s;
    s *= size;
  }
}

tfl_status gl_gen_batch_matmul(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  (void)diag;
  const tfl_graph *g = in->g;
  const tfl_node *n = in->n;
  const tfl_tensor *a = &g->tensors[n->in[0]], *b = &g->tensors[n->in[1]], *y = &g->tensors[n->out[0]];
  const tfl_batch_matmul_params *p = &n->p.bmm;
  const int M = a->dims[a->ndim - (p->adj_x ? 1 : 2)], K = a->dims[a->ndim - (p->adj_x ? 2 : 1)];
  const int N = b->dims[b->ndim - (p->adj_y ? 2 : 1)];
  const int ro = y->ndim;
  long sa[2], sb[2];
  batch_steps(a, ro, sa);
  batch_steps(b, ro, sb);
  gl_str *d = &o->decls;
  for (int k = 0; k < 2; k++)
    gl_str_addf(d, "FLT4 row%d(int r, int s) { return I%d_LD(r / (I%d_H * I%d_W), (r / I%d_W) %% I%d_H, r %% I%d_W, s); }\n",
                k, k, k, k, k, k, k);
  gl_gen_per_vec4(in, o);
  gl_str *m = &o->main;
  gl_str_addf(m, "  /* [%d x %d]%s x [%d x %d]%s */\n", M, K, p->adj_x ? "^T" : "", K, N, p->adj_y ? "^T" : "");
  gl_str_addf(m, "  int R = (b * O_H + y) * O_W + x, m = R %% %d, ob = R / %d, la = 0, lb = 0;\n", M, M);
  for (int k = ro - 3; k >= 0; k--) {
    gl_str_addf(m, "  { int o_ = ob %% %d; ob /= %d; la += o_ * %ld; lb += o_ * %ld; }\n", y->dims[k], y->dims[k], sa[k],
                sb[k]);
  }
  gl_str_addf(m, "  ACC4 acc = vec4(0.0);\n");
  if (!p->adj_x && !p->adj_y) {
    /* lhs row m in vec4s of k; rhs rows k are vec4s of this slice's columns */
    gl_str_addf(m,
                "  int ra = la * %d + m, rb = lb * %d;\n"
                "  for (int ks = 0; ks < %d; ks++) {\n"
                "    ACC4 av = vec4(row0(ra, ks));\n"
                "    int k = ks * 4;\n"
                "    acc += av.x * vec4(row1(rb + k, s));\n"
                "    acc += av.y * vec4(row1(rb + min(k + 1, %d), s));\n"
                "    acc += av.z * vec4(row1(rb + min(k + 2, %d), s));\n"
                "    acc += av.w * vec4(row1(rb + min(k + 3, %d), s));\n"
                "  }\n",
                M, K, (K + 3) / 4, K - 1, K - 1, K - 1);
  } else if (!p->adj_x) {
    /* each lane: lhs row m . rhs row n, vec4 by vec4 */
    gl_str_addf(m,
                "  int ra = la * %d + m;\n"
                "  for (int l = 0; l < 4; l++) {\n"
                "    int nn = s * 4 + l;\n"
                "    if (nn >= %d) break;\n"
                "    int rb = lb * %d + nn;\n"
                "    highp float t = 0.0;\n"
                "    for (int ks = 0; ks < %d; ks++) t += dot(vec4(row0(ra, ks)), vec4(row1(rb, ks)));\n"
                "    acc[l] = t;\n"
                "  }\n",
                M, N, N, (K + 3) / 4);
  } else if (!p->adj_y) {
    /* lhs [K, M]: column m one element a step */
    gl_str_addf(m,
                "  int rb = lb * %d;\n"
                "  for (int k = 0; k < %d; k++)\n"
                "    acc += float(row0(la * %d + k, m / 4)[m %% 4]) * vec4(row1(rb + k, s));\n",
                K, K, K);
  } else {
    gl_str_addf(m,
                "  for (int l = 0; l < 4; l++) {\n"
                "    int nn = s * 4 + l;\n"
                "    if (nn >= %d) break;\n"
                "    int rb = lb * %d + nn;\n"
                "    highp float t = 0.0;\n"
                "    for (int k = 0; k < %d; k++) t += float(row0(la * %d + k, m / 4)[m %% 4]) * float(row1(rb, k / 4)[k %% 4]);\n"
                "    acc[l] = t;\n"
                "  }\n",
                N, N, K, K);
  }
  gl_str_addf(m, "  store_out(b, y, x, s, acc);\n");
  return TFL_OK;
}
