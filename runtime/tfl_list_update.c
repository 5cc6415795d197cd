/* tfl_list_update.c - TensorListSetItem as the converter writes it, run as one
 * DYNAMIC_UPDATE_SLICE (tfl_passes.h).
 *
 * TensorFlow's converter lowers a write into a tensor list inside a loop (Keras' LSTM with
 * return_sequences keeps its outputs so) to
 *
 *   A = SLICE(L, [0, 0, ...], CONCATENATION([i], [-1, -1, ...]))     L[0:i]
 *   B = SLICE(L, CONCATENATION([i + 1], [0, 0, ...]), [-1, -1, ...]) L[i+1:]
 *   y = CONCATENATION(A, U, B, axis 0)                               U: [1, L.dims[1:]]
 *
 * where i is a value computed at run time (the loop counter, a body input): A and B then
 * change shape at every iteration, which memory planned once cannot hold, and the file
 * declares them as placeholders (shape [1, 1, 1], shape_signature [-1, -1, -1]). y itself
 * has L's shape and is L with row i replaced by U: the DYNAMIC_UPDATE_SLICE(L, U, [i, 0,
 * ...]) the converter writes instead with its enable-dynamic-update-slice option. This pass
 * rewrites the pattern into that node: the concatenation that builds A's size [i, -1, ...]
 * gets B's zeros in place of its -1s and so computes the start [i, 0, ...]; the
 * concatenation of the three parts becomes the update; A and B, no longer read, are pruned.
 *
 * Matched strictly: L of rank >= 1 and the same type, shape and quantization as y, U of
 * shape [1, L.dims[1:]] with L's type and quantization, concatenations on axis 0 without
 * activation, A's begin all 0 and B's size all -1 (constants), [i] and [i + 1] 1-element
 * int32 vectors (a RESHAPE of a scalar is looked through) with i + 1 an ADD of i and a
 * constant 1, and A, B and A's size read by nothing else. For every i in [0, L.dims[0])
 * both compute the same values; an i outside that range makes TFLite's SLICE fail the
 * invoke, where DYNAMIC_UPDATE_SLICE clamps it.
 */
#include "tfl_passes.h"

#include <string.h>

static int producer(const tfl_graph *g, int t)
{
  if (t < 0 || t >= g->n_tensors) return -1;
  int p = g->tensors[t].producer;
  if (p < 0 || p >= g->n_nodes || g->nodes[p].dead) return -1;
  return p;
}

/* How many live nodes read tensor t, and whether it is a graph output (counted too). */
static int readers(const tfl_graph *g, int t)
{
  int k = 0;
  for (int ni = 0; ni < g->n_nodes; ni++) {
    const tfl_node *n = &g->nodes[ni];
    if (n->dead) continue;
    for (int j = 0; j < n->n_in; j++) k += n->in[j] == t;
  }
  for (int i = 0; i < g->n_outputs; i++) k += g->outputs[i] == t;
  return k;
}

/* Constant int32 vector of `count` values, every one `v`. */
static bool const_all(const tfl_graph *g, int t, int count, int32_t v)
{
  if (t < 0 || t >= g->n_tensors) return false;
  const tfl_tensor *x = &g->tensors[t];
  if (!x->is_const || !x->data || x->sparsity || x->type != TFL_TYPE_INT32 || x->ndim != 1 ||
      x->dims[0] != count)
    return false;
  for (int i = 0; i < count; i++)
    if (((const int32_t *)x->data)[i] != v) return false;
  return true;
}

/* A 1-element int32 tensor: the scalar it reshapes, or itself. */
static int index_source(const tfl_graph *g, int t)
{
  if (t < 0 || t >= g->n_tensors) return -1;
  const tfl_tensor *x = &g->tensors[t];
  if (x->type != TFL_TYPE_INT32 || tfl_tensor_count(x) != 1) return -1;
  int p = producer(g, t);
  if (p >= 0 && g->nodes[p].op == TFL_OP_RESHAPE && g->nodes[p].n_in >= 1) {
    int s = g->nodes[p].in[0];
    if (s >= 0 && g->tensors[s].type == TFL_TYPE_INT32 && tfl_tensor_count(&g->tensors[s]) == 1) return s;
  }
  return t;
}

/* A constant int32 holding one value, 1 (a scalar or a vector of one). */
static bool const_one(const tfl_graph *g, int t)
{
  if (t < 0 || t >= g->n_tensors) return false;
  const tfl_tensor *x = &g->tensors[t];
  return x->is_const && x->data && !x->sparsity && x->type == TFL_TYPE_INT32 && tfl_tensor_count(x) == 1 &&
         *(const int32_t *)x->data == 1;
}

/* Tensor t is ADD(i, 1) or ADD(1, i) without activation. */
static bool is_plus_one(const tfl_graph *g, int t, int i)
{
  int p = producer(g, t);
  if (p < 0) return false;
  const tfl_node *n = &g->nodes[p];
  if (n->op != TFL_OP_ADD || n->n_in != 2 || n->n_out != 1 || n->p.eltwise.act != TFL_ACT_NONE) return false;
  return (n->in[0] == i && const_one(g, n->in[1])) || (n->in[1] == i && const_one(g, n->in[0]));
}

/* CONCATENATION on axis 0 of two int32 vectors, without activation: its node, or -1. */
static int pair_concat(const tfl_graph *g, int t)
{
  int p = producer(g, t);
  if (p < 0) return -1;
  const tfl_node *n = &g->nodes[p];
  if (n->op != TFL_OP_CONCATENATION || n->n_in != 2 || n->p.concat.axis != 0 || n->p.concat.act != TFL_ACT_NONE)
    return -1;
  return p;
}

/* SLICE of L: its node, or -1. */
static int slice_of(const tfl_graph *g, int t, int *list)
{
  int p = producer(g, t);
  if (p < 0) return -1;
  const tfl_node *n = &g->nodes[p];
  if (n->op != TFL_OP_SLICE || n->n_in != 3 || n->n_out != 1) return -1;
  *list = n->in[0];
  return p;
}

/* x and y hold values the same way: neither quantized, or both per tensor with the same
 * scale and zero point (CONCATENATION requantizes its inputs; DYNAMIC_UPDATE_SLICE copies). */
static bool same_quant(const tfl_tensor *x, const tfl_tensor *y)
{
  if (!x->q.n && !y->q.n) return true;
  return x->q.n == 1 && y->q.n == 1 && x->q.scale[0] == y->q.scale[0] && x->q.zero_point[0] == y->q.zero_point[0];
}

/* Node ci when it is the pattern: rewritten, true. */
static bool rewrite(tfl_graph *g, int ci)
{
  tfl_node *c = &g->nodes[ci];
  if (c->op != TFL_OP_CONCATENATION || c->n_in != 3 || c->n_out != 1 || c->p.concat.act != TFL_ACT_NONE) return false;
  int la = -1, lb = -1, a = c->in[0], u = c->in[1], b = c->in[2], y = c->out[0];
  int sa = slice_of(g, a, &la), sb = slice_of(g, b, &lb);
  if (sa < 0 || sb < 0 || la != lb || la < 0 || u < 0 || y < 0) return false;
  const tfl_tensor *L = &g->tensors[la], *U = &g->tensors[u], *Y = &g->tensors[y];
  const int r = L->ndim;
  if (r < 1 || (c->p.concat.axis != 0 && c->p.concat.axis != -r)) return false;
  if (Y->type != L->type || U->type != L->type || Y->ndim != r || U->ndim != r ||
      memcmp(Y->dims, L->dims, sizeof(int32_t) * (size_t)r) || U->dims[0] != 1 ||
      memcmp(U->dims + 1, L->dims + 1, sizeof(int32_t) * (size_t)(r - 1)) || !same_quant(L, U) || !same_quant(L, Y))
    return false;
  const tfl_node *A = &g->nodes[sa], *B = &g->nodes[sb];
  /* A = L[0:i]: begin all 0, size CONCATENATION([i], [-1, ...]) */
  int a_size = A->in[2], a_cat = pair_concat(g, a_size);
  if (!const_all(g, A->in[1], r, 0) || a_cat < 0 || !const_all(g, g->nodes[a_cat].in[1], r - 1, -1)) return false;
  const tfl_tensor *S = &g->tensors[a_size];
  if (S->type != TFL_TYPE_INT32 || S->ndim != 1 || S->dims[0] != r) return false;
  /* B = L[i+1:]: begin CONCATENATION([i + 1], [0, ...]), size all -1 */
  int b_cat = pair_concat(g, B->in[1]);
  if (!const_all(g, B->in[2], r, -1) || b_cat < 0) return false;
  int zeros = g->nodes[b_cat].in[1];
  if (!const_all(g, zeros, r - 1, 0)) return false;
  int i = index_source(g, g->nodes[a_cat].in[0]), j = index_source(g, g->nodes[b_cat].in[0]);
  if (i < 0 || j < 0 || !is_plus_one(g, j, i)) return false;
  if (readers(g, a) != 1 || readers(g, b) != 1 || readers(g, a_size) != 1) return false;
  /* A's size [i, -1, ...] becomes the start [i, 0, ...] */
  tfl_node *ac = &g->nodes[a_cat];
  ac->in[1] = zeros;
  c = &g->nodes[ci];
  c->op = TFL_OP_DYNAMIC_UPDATE_SLICE;
  c->builtin_code = 151;
  c->version = 1;
  memset(&c->p, 0, sizeof c->p);
  c->in[0] = la;
  c->in[1] = u;
  c->in[2] = a_size;
  return true;
}

int tfl_pass_list_update(tfl_graph *g, tfl_diag *diag)
{
  int done = 0;
  for (int ni = 0; ni < g->n_nodes; ni++) {
    if (g->nodes[ni].dead || !rewrite(g, ni)) continue;
    done++;
    tfl_logf(diag, TFL_LOG_DEBUG, "node %d (CONCATENATION of two SLICEs around a run-time index): runs as "
             "DYNAMIC_UPDATE_SLICE", ni);
  }
  return done;
}
