/* gl_gen_layout.c - TRANSPOSE, SLICE, PACK, UNPACK, SPLIT, SPLIT_V, TILE, BROADCAST_TO and
 * REVERSE_V2 as gathers.
 *
 * Every output element reads one input element whose row-major index is an affine map of
 * the output's coordinates in the tensors' own ranks (up to 4): base + sum o[d] * st[d]
 * (a reversed dim steps back from its end; TILE wraps a coordinate first).
 * An output made of several inputs (PACK) picks the piece by its coordinate along one dim.
 * Each invocation makes one vec4 of each output (a flat grid over the largest output, so
 * SPLIT_V's unequal outputs fit): the lanes are gathered one by one through the input's
 * BHWC view (the layout is the PHWC4 of gl_layout.h). Output 0 goes through store_out
 * (its fused epilogue), outputs 1..3 through Ok_ST. */
#include "gl_gen.h"

#include <stdio.h>

#define MAX_PIECES GL_GEN_MAX_IN
#define GRID_ROW 32768

typedef struct {
  int obj;          /* input object k ("Ik") */
  int lo, hi;       /* its range along the selecting dim */
  long base;        /* input element index at output coordinates 0 (lo along sel) */
  long st[4];       /* input elements per step of each output dim (negative: reversed) */
  int mod[4];       /* > 0: the dim's coordinate wraps at mod first (TILE) */
} piece;

typedef struct {
  int rank;         /* the output's */
  int dims[4];
  int sel;          /* the dim that picks the piece (n_pieces > 1) */
  int n_pieces;
  piece p[MAX_PIECES];
} gather;

/* Row-major strides of a tensor's dims. */
static void strides_of(const tfl_tensor *t, long st[4])
{
  long s = 1;
  for (int d = t->ndim - 1; d >= 0; d--) {
    st[d] = s;
    s *= t->dims[d];
  }
}

static bool is_float(const tfl_tensor *t)
{
  return t->type == TFL_TYPE_FLOAT32 || t->type == TFL_TYPE_FLOAT16;
}

/* Constant integer tensor element i (int32 or int64). */
static long const_int(const tfl_tensor *t, size_t i)
{
  return t->type == TFL_TYPE_INT64 ? (long)((const int64_t *)t->data)[i] : (long)((const int32_t *)t->data)[i];
}

static bool const_ints(const tfl_tensor *t)
{
  return t->is_const && t->data && (t->type == TFL_TYPE_INT32 || t->type == TFL_TYPE_INT64);
}

/* The data input of each op (SPLIT: 1, after the axis). */
static int data_input(tfl_op op)
{
  return op == TFL_OP_SPLIT ? 1 : 0;
}

/* The axis of PACK / UNPACK / SPLIT / SPLIT_V in 0..rank-1; false when out of range. */
static bool op_axis(const tfl_graph *g, const tfl_node *n, int rank, int *axis)
{
  long a;
  if (n->op == TFL_OP_PACK || n->op == TFL_OP_UNPACK) {
    a = n->p.pack.axis;
  } else {
    const tfl_tensor *t = &g->tensors[n->in[n->op == TFL_OP_SPLIT ? 0 : 2]];
    if (!const_ints(t) || tfl_tensor_count(t) != 1) return false;
    a = const_int(t, 0);
  }
  if (a < 0) a += rank;
  *axis = (int)a;
  return a >= 0 && a < rank;
}

/* How output `out` of node n reads its inputs; false with diag set when GL cannot. */
static bool make_gather(const tfl_graph *g, int node, int out, gather *G, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  const tfl_tensor *y = &g->tensors[n->out[out]];
  const tfl_tensor *x = &g->tensors[n->in[data_input(n->op)]];
  long xs[4] = {0};
  strides_of(x, xs);
  G->rank = y->ndim;
  for (int d = 0; d < y->ndim; d++) G->dims[d] = y->dims[d];
  G->sel = 0;
  G->n_pieces = 1;
  piece *p = &G->p[0];
  *p = (piece){data_input(n->op), 0, 0, 0, {0}, {0}};
  int axis = 0;
  if (n->op == TFL_OP_TRANSPOSE) {
    const tfl_tensor *pm = &g->tensors[n->in[1]];
    if (!const_ints(pm) || (int)tfl_tensor_count(pm) != x->ndim || y->ndim != x->ndim) {
      gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "perm (tensor %d) is not a constant of %d ints", n->in[1], x->ndim);
      return false;
    }
    bool used[4] = {false};
    for (int d = 0; d < x->ndim; d++) {
      long a = const_int(pm, (size_t)d);
      if (a < 0) a += x->ndim;
      if (a < 0 || a >= x->ndim || used[a] || y->dims[d] != x->dims[a]) {
        gl_node_error(diag, TFL_ERR_SHAPE, g, node, "perm[%d] = %ld is not a permutation giving output tensor %d", d,
                      const_int(pm, (size_t)d), n->out[0]);
        return false;
      }
      used[a] = true;
      p->st[d] = xs[a];
    }
    return true;
  }
  if (n->op == TFL_OP_SLICE) {
    const tfl_tensor *bt = &g->tensors[n->in[1]];
    if (!const_ints(bt) || (int)tfl_tensor_count(bt) != x->ndim || y->ndim != x->ndim) {
      gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "begin (tensor %d) is not a constant of %d ints", n->in[1],
                    x->ndim);
      return false;
    }
    for (int d = 0; d < x->ndim; d++) {
      long b = const_int(bt, (size_t)d);
      if (b < 0 || b + y->dims[d] > x->dims[d]) {
        gl_node_error(diag, TFL_ERR_SHAPE, g, node, "dim %d: begin %ld + size %d past input tensor %d's %d", d, b,
                      y->dims[d], n->in[0], x->dims[d]);
        return false;
      }
      p->base += b * xs[d];
      p->st[d] = xs[d];
    }
    return true;
  }
  if (n->op == TFL_OP_PACK) {
    if (!op_axis(g, n, y->ndim, &axis) || n->n_in > MAX_PIECES || n->n_in != y->dims[axis]) {
      gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "axis %d of output tensor %d with %d inputs (GL: up to %d)",
                    n->p.pack.axis, n->out[0], n->n_in, MAX_PIECES);
      return false;
    }
    G->sel = axis;
    G->n_pieces = n->n_in;
    for (int k = 0; k < n->n_in; k++) {
      const tfl_tensor *xk = &g->tensors[n->in[k]];
      bool same = xk->ndim == y->ndim - 1;
      for (int d = 0; same && d < xk->ndim; d++) same = xk->dims[d] == y->dims[d < axis ? d : d + 1];
      if (!same) {
        gl_node_error(diag, TFL_ERR_SHAPE, g, node, "input %d (tensor %d) does not stack into output tensor %d", k,
                      n->in[k], n->out[0]);
        return false;
      }
      long st[4] = {0};
      strides_of(xk, st);
      G->p[k] = (piece){k, k, k + 1, 0, {0}, {0}};
      for (int d = 0; d < y->ndim; d++) G->p[k].st[d] = d == axis ? 0 : st[d < axis ? d : d - 1];
    }
    return true;
  }
  if (n->op == TFL_OP_UNPACK) {
    if (!op_axis(g, n, x->ndim, &axis) || y->ndim != x->ndim - 1 || out >= x->dims[axis]) {
      gl_node_error(diag, TFL_ERR_SHAPE, g, node, "axis %d of input tensor %d for output %d", n->p.pack.axis, n->in[0],
                    out);
      return false;
    }
    p->base = out * xs[axis];
    for (int d = 0; d < y->ndim; d++) p->st[d] = xs[d < axis ? d : d + 1];
    return true;
  }
  if (n->op == TFL_OP_SPLIT || n->op == TFL_OP_SPLIT_V) {
    if (!op_axis(g, n, x->ndim, &axis) || y->ndim != x->ndim) {
      gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "the axis is not a constant scalar within input tensor %d's %d dims",
                    n->in[data_input(n->op)], x->ndim);
      return false;
    }
    long off = 0;
    for (int k = 0; k < out; k++) off += g->tensors[n->out[k]].dims[axis];
    if (off + y->dims[axis] > x->dims[axis]) {
      gl_node_error(diag, TFL_ERR_SHAPE, g, node, "output %d (tensor %d) ends past input tensor %d along axis %d", out,
                    n->out[out], n->in[data_input(n->op)], axis);
      return false;
    }
    for (int d = 0; d < x->ndim; d++) {
      if (d != axis && y->dims[d] != x->dims[d]) {
        gl_node_error(diag, TFL_ERR_SHAPE, g, node, "output %d (tensor %d) dim %d is %d, input %d", out, n->out[out], d,
                      y->dims[d], x->dims[d]);
        return false;
      }
      p->st[d] = xs[d];
    }
    p->base = off * xs[axis];
    return true;
  }
  if (n->op == TFL_OP_TILE || n->op == TFL_OP_BROADCAST_TO) {
    /* output dim d reads input dim d - off (right-aligned): broadcast dims (1) step 0,
     * tiled dims wrap at the input's length */
    int off = y->ndim - x->ndim;
    if (off < 0 || (n->op == TFL_OP_TILE && off != 0)) {
      gl_node_error(diag, TFL_ERR_SHAPE, g, node, "input tensor %d has %d dims, output tensor %d %d", n->in[0], x->ndim,
                    n->out[0], y->ndim);
      return false;
    }
    for (int d = off; d < y->ndim; d++) {
      int xd = x->dims[d - off];
      bool ok = n->op == TFL_OP_TILE ? xd > 0 && y->dims[d] % xd == 0 : xd == 1 || xd == y->dims[d];
      if (!ok) {
        gl_node_error(diag, TFL_ERR_SHAPE, g, node, "dim %d: input tensor %d has %d, output tensor %d %d", d, n->in[0], xd,
                      n->out[0], y->dims[d]);
        return false;
      }
      p->st[d] = xd == 1 ? 0 : xs[d - off];
      if (n->op == TFL_OP_TILE && xd != y->dims[d] && xd != 1) p->mod[d] = xd;
    }
    return true;
  }
  if (n->op == TFL_OP_REVERSE_V2) {
    const tfl_tensor *at = &g->tensors[n->in[1]];
    if (!const_ints(at) || y->ndim != x->ndim) {
      gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "axes (tensor %d) are not constant ints", n->in[1]);
      return false;
    }
    bool rev[4] = {false};
    for (size_t i = 0; i < tfl_tensor_count(at); i++) {
      long a = const_int(at, i);
      if (a < 0) a += x->ndim;
      if (a < 0 || a >= x->ndim) {
        gl_node_error(diag, TFL_ERR_SHAPE, g, node, "axis %ld out of range for input tensor %d of %d dims",
                      const_int(at, i), n->in[0], x->ndim);
        return false;
      }
      rev[a] = true;
    }
    for (int d = 0; d < x->ndim; d++) {
      p->st[d] = rev[d] ? -xs[d] : xs[d];
      if (rev[d]) p->base += (long)(x->dims[d] - 1) * xs[d];
    }
    return true;
  }
  gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "not a layout op");
  return false;
}

tfl_status gl_check_layout(const tfl_graph *g, int node, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  int first = n->op == TFL_OP_PACK ? n->n_in : 1;
  for (int k = 0; k < first; k++) {
    int t = n->in[data_input(n->op) + k];
    if (t < 0 || !is_float(&g->tensors[t]))
      return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "input tensor %d is %s (GL moves floats only)", t,
                           t < 0 ? "missing" : tfl_type_name(g->tensors[t].type));
  }
  if (n->op == TFL_OP_SPLIT || n->op == TFL_OP_SPLIT_V) {
    const tfl_tensor *x = &g->tensors[n->in[data_input(n->op)]];
    int axis;
    if (!op_axis(g, n, x->ndim, &axis))
      return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "the axis is not a constant scalar within %d dims",
                           x->ndim);
    long sum = 0;
    for (int k = 0; k < n->n_out; k++) sum += n->out[k] >= 0 ? g->tensors[n->out[k]].dims[axis] : 0;
    if (sum != x->dims[axis])
      return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "outputs hold %ld along axis %d, input tensor %d has %d", sum, axis,
                           n->in[data_input(n->op)], x->dims[axis]);
  }
  for (int k = 0; k < n->n_out; k++) {
    if (n->out[k] < 0) continue;
    if (!is_float(&g->tensors[n->out[k]]))
      return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "output tensor %d is %s (GL moves floats only)", n->out[k],
                           tfl_type_name(g->tensors[n->out[k]].type));
    gather G;
    if (!make_gather(g, node, k, &G, diag)) return TFL_ERR_UNSUPPORTED;
  }
  if (n->out[0] < 0) return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "output 0 is not used");
  return TFL_OK;
}

/* Whether every piece moves whole rows: the last dim maps to the input's last dim with
 * step 1 and the same length, every other step and the base are whole rows (TRANSPOSE
 * keeping the last axis, SLICE / SPLIT / UNPACK / PACK along an outer one). Then an output
 * vec4 is an input vec4 of the same slice. c_in: each piece's input channels. */
static bool moves_rows(const gather *G, const int *c_in)
{
  if (G->rank < 1 || (G->n_pieces > 1 && G->sel == G->rank - 1)) return false;
  for (int k = 0; k < G->n_pieces; k++) {
    const piece *p = &G->p[k];
    long c = c_in[k];
    if (c < 1 || p->st[G->rank - 1] != 1 || G->dims[G->rank - 1] != c || p->base % c) return false;
    for (int d = 0; d + 1 < G->rank; d++)
      if (p->st[d] % c || p->mod[d]) return false;
  }
  return true;
}

/* Whole rows: output vec4 (b, y, x, s) of P is vec4 s of one input row. */
static void emit_rows(gl_str *m, const gather *G, const int *c_in, const char *P)
{
  gl_str_addf(m, "    int L = (b * %s_H + y) * %s_W + x;\n    FLT4 v = FLT4(0.0);\n", P, P);
  for (int d = G->rank - 2; d >= 1; d--) gl_str_addf(m, "    int o%d = L %% %d;\n    L /= %d;\n", d, G->dims[d], G->dims[d]);
  if (G->rank >= 2) gl_str_addf(m, "    int o0 = L;\n");
  for (int k = 0; k < G->n_pieces; k++) {
    const piece *p = &G->p[k];
    long c = c_in[k];
    if (G->n_pieces > 1) gl_str_addf(m, "    %sif (o%d < %d)", k ? "else " : "", G->sel, p->hi);
    else gl_str_addf(m, "   ");
    gl_str_addf(m, " v = row%d(%ld", p->obj, (p->base - (long)p->lo * p->st[G->sel]) / c);
    for (int d = 0; d + 1 < G->rank; d++)
      if (p->st[d]) gl_str_addf(m, " + o%d * %ld", d, p->st[d] / c);
    gl_str_addf(m, ", s);\n");
  }
}

/* The lanes of one output's vec4 at (b, y, x, s) of object P ("O" or "Ok") into v. */
static void emit_output(gl_str *m, const gather *G, const char *P)
{
  gl_str_addf(m,
              "    FLT4 v = FLT4(0.0);\n"
              "    for (int l = 0; l < 4; l++) {\n"
              "      int c = s * 4 + l;\n"
              "      if (c >= %s_C) break;\n"
              "      int L = ((b * %s_H + y) * %s_W + x) * %s_C + c;\n",
              P, P, P, P);
  for (int d = G->rank - 1; d >= 1; d--) gl_str_addf(m, "      int o%d = L %% %d;\n      L /= %d;\n", d, G->dims[d], G->dims[d]);
  if (G->rank >= 1) gl_str_addf(m, "      int o0 = L;\n");
  for (int k = 0; k < G->n_pieces; k++) {
    const piece *p = &G->p[k];
    if (G->n_pieces > 1) gl_str_addf(m, "      %sif (o%d < %d)", k ? "else " : "", G->sel, p->hi);
    else gl_str_addf(m, "     ");
    gl_str_addf(m, " v[l] = ld%d(%ld", p->obj, p->base - (long)p->lo * p->st[G->sel]);
    for (int d = 0; d < G->rank; d++) {
      if (!p->st[d]) continue;
      if (p->mod[d]) gl_str_addf(m, " + (o%d %% %d) * %ld", d, p->mod[d], p->st[d]);
      else gl_str_addf(m, " + o%d * %ld", d, p->st[d]);
    }
    gl_str_addf(m, ");\n");
  }
  gl_str_addf(m, "    }\n");
}

tfl_status gl_gen_layout(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  const tfl_graph *g = in->g;
  const tfl_node *n = in->n;
  /* a reader of each input object: element i of its row-major order */
  for (int k = 0; k < in->n_in && k < GL_GEN_MAX_IN; k++)
    if (in->in_obj[k])
      gl_str_addf(&o->decls,
                  "float ld%d(int i) {\n"
                  "  int c = i %% I%d_C;\n  i /= I%d_C;\n  int x = i %% I%d_W;\n  i /= I%d_W;\n"
                  "  int y = i %% I%d_H;\n  return I%d_AT(i / I%d_H, y, x, c);\n}\n"
                  "FLT4 row%d(int r, int s) { return I%d_LD(r / (I%d_H * I%d_W), (r / I%d_W) %% I%d_H, r %% I%d_W, s); }\n",
                  k, k, k, k, k, k, k, k, k, k, k, k, k, k, k);
  long most = 0;
  for (int j = 0; j < n->n_out; j++) {
    if (n->out[j] < 0) continue;
    gl_shape sh;
    gl_shape_of(&g->tensors[n->out[j]], &sh);
    most = (long)gl_shape_vec4s(sh) > most ? (long)gl_shape_vec4s(sh) : most;
  }
  o->grid[0] = most < GRID_ROW ? (int)most : GRID_ROW;
  o->grid[1] = (int)((most + GRID_ROW - 1) / GRID_ROW);
  o->grid[2] = 1;
  gl_str *m = &o->main;
  gl_str_addf(m, "  int i = gid.y * %d + gid.x;\n", GRID_ROW);
  for (int j = 0; j < n->n_out; j++) {
    if (n->out[j] < 0) continue;
    gather G;
    if (!make_gather(g, in->node, j, &G, diag)) return TFL_ERR_UNSUPPORTED;
    char P[8];
    snprintf(P, sizeof P, j ? "O%d" : "O", j);
    gl_str_addf(m,
                "  if (i < %s_B * %s_S * %s_H * %s_W) {\n"
                "    int x = i %% %s_W, y = (i / %s_W) %% %s_H, s = (i / (%s_W * %s_H)) %% %s_S, "
                "b = i / (%s_W * %s_H * %s_S);\n",
                P, P, P, P, P, P, P, P, P, P, P, P, P);
    int c_in[MAX_PIECES];
    for (int k = 0; k < G.n_pieces; k++) c_in[k] = in->in[G.p[k].obj].c;
    if (moves_rows(&G, c_in)) emit_rows(m, &G, c_in, P);
    else emit_output(m, &G, P);
    if (j) gl_str_addf(m, "    %s_ST(b, y, x, s, v);\n  }\n", P);
    else gl_str_addf(m, "    store_out(b, y, x, s, v);\n  }\n");
  }
  return TFL_OK;
}
