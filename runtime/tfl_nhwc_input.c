/* tfl_nhwc_input.c - an NCHW image input made NHWC by dropping its leading TRANSPOSE.
 *
 * PyTorch exports (Ultralytics' LiteRT export, litert-torch) take [1, C, H, W] and start
 * with TRANSPOSE perm [0, 2, 3, 1]. A caller that writes the input itself (tflitefilter's
 * preprocessing, the GL texture-input shader) can write NHWC directly: the transpose's
 * output becomes the graph input and the node is dead, so no delegate runs a full-frame
 * copy and the GL delegate needs no boundary op. Fully quantized exports put a QUANTIZE
 * before that TRANSPOSE: the input is made NHWC in place and the QUANTIZE writes the
 * transpose's output. See tfl_passes.h.
 */
#include "tfl_passes.h"

#include <string.h>

static bool perm_is_nchw_to_nhwc(const tfl_tensor *p)
{
  static const int32_t want[4] = {0, 2, 3, 1};
  if (!p || !p->is_const || !p->data || p->ndim != 1 || p->dims[0] != 4) return false;
  for (int i = 0; i < 4; i++) {
    int64_t v = p->type == TFL_TYPE_INT64 ? ((const int64_t *)p->data)[i]
              : p->type == TFL_TYPE_INT32 ? ((const int32_t *)p->data)[i] : -1;
    if (v != want[i]) return false;
  }
  return true;
}

static bool same_quant(const tfl_quant *a, const tfl_quant *b)
{
  if (a->n != b->n || a->axis != b->axis) return false;
  for (int i = 0; i < a->n; i++)
    if (a->scale[i] != b->scale[i] || a->zero_point[i] != b->zero_point[i]) return false;
  return true;
}

/* The only reader of the graph's one consumer of tensor ti, or -1. */
static int only_reader(const tfl_graph *g, int ti)
{
  int reader = -1;
  for (int ni = 0; ni < g->n_nodes; ni++) {
    const tfl_node *n = &g->nodes[ni];
    if (n->dead) continue;
    for (int k = 0; k < n->n_in; k++) {
      if (n->in[k] != ti) continue;
      if (reader >= 0 && reader != ni) return -1;
      reader = ni;
    }
  }
  return reader;
}

/* A fully quantized export (Ultralytics' int8 LiteRT) quantizes the float NCHW input
 * first, then transposes: input -> QUANTIZE -> TRANSPOSE [0, 2, 3, 1]. The input is made
 * NHWC (same elements, dims permuted) and the QUANTIZE writes the transpose's output
 * directly (the same quantization, a quantize is elementwise), the transpose dead. */
static bool nhwc_through_quantize(tfl_graph *g, int input, int qi)
{
  tfl_node *q = &g->nodes[qi];
  const int ti = g->inputs[input];
  tfl_tensor *x = &g->tensors[ti];
  if (q->n_in != 1 || q->n_out != 1 || q->out[0] < 0 || q->out[0] >= g->n_tensors) return false;
  const int mi = q->out[0];
  for (int i = 0; i < g->n_outputs; i++)
    if (g->outputs[i] == mi) return false;
  const int tr = only_reader(g, mi);
  if (tr < 0) return false;
  tfl_node *t = &g->nodes[tr];
  if (t->op != TFL_OP_TRANSPOSE || t->n_in != 2 || t->n_out != 1 || t->in[0] != mi || t->in[1] < 0 ||
      t->in[1] >= g->n_tensors || t->out[0] < 0 || t->out[0] >= g->n_tensors ||
      !perm_is_nchw_to_nhwc(&g->tensors[t->in[1]]))
    return false;
  const tfl_tensor *m = &g->tensors[mi];
  tfl_tensor *y = &g->tensors[t->out[0]];
  const int32_t want[4] = {x->dims[0], x->dims[2], x->dims[3], x->dims[1]};
  if (m->ndim != 4 || memcmp(m->dims, x->dims, sizeof want) != 0 || y->ndim != 4 ||
      memcmp(y->dims, want, sizeof want) != 0 || y->type != m->type || !same_quant(&y->q, &m->q))
    return false;
  for (int i = 0; i < g->n_outputs; i++)
    if (g->outputs[i] == t->out[0]) return false;
  memcpy(x->dims, want, sizeof want);
  q->out[0] = t->out[0];
  y->producer = qi;
  g->tensors[mi].producer = -1;
  t->dead = true;
  return true;
}

bool tfl_pass_nhwc_input(tfl_graph *g, int input)
{
  if (input < 0 || input >= g->n_inputs) return false;
  const int ti = g->inputs[input];
  const tfl_tensor *x = &g->tensors[ti];
  if (x->ndim != 4 || x->is_const || x->is_variable) return false;
  for (int i = 0; i < g->n_outputs; i++)
    if (g->outputs[i] == ti) return false;
  int reader = -1;
  for (int ni = 0; ni < g->n_nodes; ni++) {
    const tfl_node *n = &g->nodes[ni];
    if (n->dead) continue;
    for (int k = 0; k < n->n_in; k++) {
      if (n->in[k] != ti) continue;
      if (reader >= 0 && reader != ni) return false;   /* read elsewhere in NCHW too */
      reader = ni;
    }
  }
  if (reader < 0) return false;
  if (g->nodes[reader].op == TFL_OP_QUANTIZE) return nhwc_through_quantize(g, input, reader);
  tfl_node *t = &g->nodes[reader];
  if (t->op != TFL_OP_TRANSPOSE || t->n_in != 2 || t->n_out != 1 || t->in[0] != ti || t->in[1] < 0 ||
      t->in[1] >= g->n_tensors || t->out[0] < 0 || t->out[0] >= g->n_tensors ||
      !perm_is_nchw_to_nhwc(&g->tensors[t->in[1]]))
    return false;
  const int yi = t->out[0];
  tfl_tensor *y = &g->tensors[yi];
  /* the file's declared NHWC shape must be the transposed one (shape inference never
   * sees this node again) */
  const int32_t want[4] = {x->dims[0], x->dims[2], x->dims[3], x->dims[1]};
  if (y->ndim != 4 || memcmp(y->dims, want, sizeof want) != 0 || y->type != x->type) return false;
  for (int i = 0; i < g->n_inputs; i++)
    if (g->inputs[i] == yi) return false;
  t->dead = true;
  y->producer = -1;
  g->inputs[input] = yi;
  return true;
}
