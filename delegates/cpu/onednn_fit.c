/* onednn_fit.c - which convolutions the oneDNN path takes (see onednn_fit.h): types,
 * shapes, quantization, the PAD / ADD / activation nodes it can absorb, and the measured
 * rule for when it beats XNNPACK. */
#include "onednn_fit.h"

#include <string.h>

#include "cpu_util.h"
#include "onednn_conv.h"

enum { INPUT = ONEDNN_INPUT, FILTER = ONEDNN_FILTER, BIAS = ONEDNN_BIAS };

static bool is_q8(tfl_type t)
{
  return t == TFL_TYPE_UINT8 || t == TFL_TYPE_INT8;
}

/* Integer element i of a constant int32/int64 tensor. */
static int64_t int_at(const tfl_tensor *t, size_t i)
{
  return t->type == TFL_TYPE_INT64 ? ((const int64_t *)t->data)[i] : ((const int32_t *)t->data)[i];
}

/* The only reader of tensor t (not a graph output): its node, else -1. */
static int only_reader(const tfl_graph *g, int t)
{
  for (int i = 0; i < g->n_outputs; i++)
    if (g->outputs[i] == t) return -1;
  int reader = -1;
  for (int i = 0; i < g->n_nodes; i++)
    for (int j = 0; !g->nodes[i].dead && j < g->nodes[i].n_in; j++)
      if (g->nodes[i].in[j] == t) {
        if (reader >= 0) return -1;
        reader = i;
      }
  return reader;
}

/* A PAD pads with zero (the value oneDNN pads with, or adds nothing): PADV2's value is a
 * real zero. */
static bool pads_with_zero(const tfl_graph *g, const tfl_node *pad, const tfl_tensor *x)
{
  if (pad->op != TFL_OP_PADV2) return true;
  const tfl_tensor *v = onednn_in(g, pad, 2);
  if (!v || !v->is_const || !v->data || tfl_tensor_count(v) != 1 || v->type != x->type) return false;
  if (x->type == TFL_TYPE_FLOAT32) return ((const float *)v->data)[0] == 0.0f;
  if (x->type == TFL_TYPE_UINT8) return ((const uint8_t *)v->data)[0] == cpu_zero_point(x, 0);
  if (x->type == TFL_TYPE_INT8) return ((const int8_t *)v->data)[0] == cpu_zero_point(x, 0);
  return false;
}

int onednn_conv_fusable_pad(const tfl_graph *g, int node)
{
  if (!g || node < 0 || node >= g->n_nodes) return -1;
  const tfl_node *n = &g->nodes[node];
  const tfl_tensor *pt = onednn_in(g, n, INPUT);
  if (n->dead || (n->op != TFL_OP_CONV_2D && n->op != TFL_OP_DEPTHWISE_CONV_2D) || !pt || pt->producer < 0 ||
      pt->producer >= g->n_nodes)
    return -1;
  const int t = n->in[INPUT], p = pt->producer;
  const tfl_node *pad = &g->nodes[p];
  if (pad->dead || (pad->op != TFL_OP_PAD && pad->op != TFL_OP_PADV2) || pad->n_in < 2) return -1;
  for (int i = 0; i < g->n_outputs; i++)
    if (g->outputs[i] == t) return -1;
  for (int i = 0; i < g->n_nodes; i++) /* the conv is its only reader */
    for (int j = 0; !g->nodes[i].dead && i != node && j < g->nodes[i].n_in; j++)
      if (g->nodes[i].in[j] == t) return -1;
  const tfl_tensor *x = onednn_in(g, pad, 0), *pads = onednn_in(g, pad, 1);
  if (!x || x->ndim != 4 || x->type != pt->type || !pads || !pads->is_const || !pads->data ||
      (pads->type != TFL_TYPE_INT32 && pads->type != TFL_TYPE_INT64) || tfl_tensor_count(pads) != 8)
    return -1;
  if (int_at(pads, 0) || int_at(pads, 1) || int_at(pads, 6) || int_at(pads, 7)) return -1; /* N, C */
  for (int k = 2; k < 6; k++)
    if (int_at(pads, (size_t)k) < 0) return -1;
  if (x->q.n != pt->q.n || (x->q.n && (x->q.scale[0] != pt->q.scale[0] || x->q.zero_point[0] != pt->q.zero_point[0])))
    return -1;
  return pads_with_zero(g, pad, x) ? p : -1;
}

int onednn_conv_channel_pad(const tfl_graph *g, int t)
{
  if (!g || t < 0 || t >= g->n_tensors) return -1;
  const int p = g->tensors[t].producer;
  if (p < 0 || p >= g->n_nodes || only_reader(g, t) < 0) return -1;
  const tfl_node *pad = &g->nodes[p];
  if (pad->dead || (pad->op != TFL_OP_PAD && pad->op != TFL_OP_PADV2) || pad->n_in < 2 || pad->n_out != 1 ||
      pad->out[0] != t)
    return -1;
  const tfl_tensor *x = onednn_in(g, pad, 0), *pads = onednn_in(g, pad, 1), *y = &g->tensors[t];
  if (!x || x->type != TFL_TYPE_FLOAT32 || y->type != TFL_TYPE_FLOAT32 || x->ndim != 4 || y->ndim != 4 || !pads ||
      !pads->is_const || !pads->data || (pads->type != TFL_TYPE_INT32 && pads->type != TFL_TYPE_INT64) ||
      tfl_tensor_count(pads) != 8)
    return -1;
  for (int k = 0; k < 7; k++) /* only after the last channel */
    if (int_at(pads, (size_t)k) != 0) return -1;
  if (int_at(pads, 7) < 1 || x->dims[3] + int_at(pads, 7) != y->dims[3]) return -1;
  for (int d = 0; d < 3; d++)
    if (x->dims[d] != y->dims[d]) return -1;
  return pads_with_zero(g, pad, x) ? p : -1;
}

int onednn_conv_addend(const tfl_graph *g, int node, int add_node, int *channels)
{
  const tfl_node *a = &g->nodes[add_node];
  const int z = a->in[0] == g->nodes[node].out[0] ? a->in[1] : a->in[0];
  const int p = onednn_conv_channel_pad(g, z);
  *channels = p >= 0 ? g->tensors[g->nodes[p].in[0]].dims[3] : 0;
  return p >= 0 ? g->nodes[p].in[0] : z;
}

int onednn_conv_addend_pool(const tfl_graph *g, int pad_node)
{
  if (!g || pad_node < 0 || pad_node >= g->n_nodes || g->nodes[pad_node].n_in < 1) return -1;
  const int t = g->nodes[pad_node].in[0];
  if (t < 0 || t >= g->n_tensors || only_reader(g, t) != pad_node) return -1;
  const int p = g->tensors[t].producer;
  if (p < 0 || p >= g->n_nodes) return -1;
  const tfl_node *n = &g->nodes[p];
  const tfl_pool_params *pp = &n->p.pool;
  if (n->dead || n->op != TFL_OP_MAX_POOL_2D || n->n_in != 1 || n->n_out != 1 || n->out[0] != t || n->in[0] < 0 ||
      pp->filter_h != 2 || pp->filter_w != 2 || pp->stride_h != 2 || pp->stride_w != 2 || pp->act != TFL_ACT_NONE)
    return -1;
  const tfl_tensor *x = &g->tensors[n->in[0]], *y = &g->tensors[t];
  if (x->type != TFL_TYPE_FLOAT32 || x->ndim != 4 || y->ndim != 4 || x->dims[0] != y->dims[0] ||
      x->dims[1] != 2 * y->dims[1] || x->dims[2] != 2 * y->dims[2] || x->dims[3] != y->dims[3])
    return -1; /* whole windows only: no padding, SAME or VALID alike */
  return p;
}

int onednn_conv_fusable_add(const tfl_graph *g, int node)
{
  if (!g || node < 0 || node >= g->n_nodes) return -1;
  const tfl_node *n = &g->nodes[node];
  if (n->dead || (n->op != TFL_OP_CONV_2D && n->op != TFL_OP_DEPTHWISE_CONV_2D) || n->n_out != 1) return -1;
  const int t = n->out[0];
  if (t < 0 || g->tensors[t].type != TFL_TYPE_FLOAT32) return -1;
  const int add = only_reader(g, t);
  if (add < 0 || g->nodes[add].op != TFL_OP_ADD) return -1;
  const tfl_node *a = &g->nodes[add];
  if (a->n_in != 2 || a->n_out != 1 || a->out[0] < 0 || a->in[0] < 0 || a->in[1] < 0 || a->in[0] == a->in[1] ||
      !tfl_act_is_clamp(a->p.eltwise.act))
    return -1;
  const int z = a->in[0] == t ? a->in[1] : a->in[0];
  const tfl_tensor *zt = &g->tensors[z], *tt = &g->tensors[t], *yt = &g->tensors[a->out[0]];
  if (zt->is_const || zt->type != TFL_TYPE_FLOAT32 || yt->type != TFL_TYPE_FLOAT32 || zt->ndim != tt->ndim ||
      yt->ndim != tt->ndim)
    return -1;
  for (int d = 0; d < tt->ndim; d++)
    if (zt->dims[d] != tt->dims[d] || yt->dims[d] != tt->dims[d]) return -1;
  /* the other addend must exist when the conv runs: a graph input or produced before
   * (through a channel PAD: the PAD's input, which the conv then reads) */
  const int zp = onednn_conv_channel_pad(g, z);
  if (g->tensors[zp >= 0 ? g->nodes[zp].in[0] : z].producer >= node) return -1;
  return add;
}

static bool act_op(tfl_op op)
{
  return op == TFL_OP_RELU || op == TFL_OP_RELU6 || op == TFL_OP_HARD_SWISH || op == TFL_OP_LOGISTIC;
}

int onednn_conv_fusable_act(const tfl_graph *g, int t)
{
  if (!g || t < 0 || t >= g->n_tensors || g->tensors[t].type != TFL_TYPE_FLOAT32) return -1;
  const int act = only_reader(g, t);
  if (act < 0 || !act_op(g->nodes[act].op)) return -1;
  const tfl_node *a = &g->nodes[act];
  if (a->n_in != 1 || a->n_out != 1 || a->out[0] < 0) return -1;
  const tfl_tensor *x = &g->tensors[t], *y = &g->tensors[a->out[0]];
  if (y->type != TFL_TYPE_FLOAT32 || y->ndim != x->ndim) return -1;
  for (int d = 0; d < x->ndim; d++)
    if (y->dims[d] != x->dims[d]) return -1;
  return act;
}

/* Types, shapes and quantization this module takes; fills the geometry. pad_node >= 0:
 * the conv reads that PAD's input instead, its padding added to the conv's own. */
bool onednn_fit_node(const tfl_graph *g, const tfl_node *n, int pad_node, onednn_geom *s, onednn_kind *kind,
                     bool bf16)
{
  if (n->dead || (n->op != TFL_OP_CONV_2D && n->op != TFL_OP_DEPTHWISE_CONV_2D)) return false;
  const tfl_tensor *x = onednn_in(g, n, INPUT), *w = onednn_in(g, n, FILTER), *b = onednn_in(g, n, BIAS), *y = onednn_out(g, n);
  const tfl_conv_params *p = &n->p.conv;
  if (!x || !w || !y || x->ndim != 4 || w->ndim != 4 || y->ndim != 4) return false;
  if (!w->is_const || !w->data || w->sparsity) return false;
  if (!tfl_act_is_clamp(p->act) || p->stride_h < 1 || p->stride_w < 1 || p->dilation_h < 1 || p->dilation_w < 1)
    return false;
  memset(s, 0, sizeof *s);
  s->depthwise = n->op == TFL_OP_DEPTHWISE_CONV_2D;
  s->N = x->dims[0];
  s->H = x->dims[1];
  s->W = x->dims[2];
  s->C = x->dims[3];
  s->KH = w->dims[1];
  s->KW = w->dims[2];
  s->OC = s->depthwise ? w->dims[3] : w->dims[0];
  s->sh = p->stride_h;
  s->sw = p->stride_w;
  s->dh = p->dilation_h;
  s->dw = p->dilation_w;
  if (s->N < 1 || s->H < 1 || s->W < 1 || s->C < 1 || s->OC < 1 || s->KH < 1 || s->KW < 1) return false;
  if (s->depthwise) {
    if (w->dims[0] != 1 || s->OC % s->C != 0) return false;
    s->groups = s->C;
  } else {
    if (w->dims[3] != s->C) return false;
    s->groups = 1;
  }
  s->OH = tfl_conv_out_size(p->padding, s->H, s->KH, s->sh, s->dh);
  s->OW = tfl_conv_out_size(p->padding, s->W, s->KW, s->sw, s->dw);
  if (s->OH < 1 || s->OW < 1 || y->dims[0] != s->N || y->dims[1] != s->OH || y->dims[2] != s->OW ||
      y->dims[3] != s->OC)
    return false;
  s->pad_t = tfl_conv_pad_before(p->padding, s->H, s->KH, s->sh, s->dh, s->OH);
  s->pad_l = tfl_conv_pad_before(p->padding, s->W, s->KW, s->sw, s->dw, s->OW);
  if (pad_node >= 0) { /* read the PAD's input: its sizes, its padding in front of ours */
    if (onednn_conv_fusable_pad(g, (int)(n - g->nodes)) != pad_node) return false;
    const tfl_node *pad = &g->nodes[pad_node];
    const tfl_tensor *px = onednn_in(g, pad, 0), *pads = onednn_in(g, pad, 1);
    if (px->dims[0] != s->N || px->dims[3] != s->C ||
        px->dims[1] + int_at(pads, 2) + int_at(pads, 3) != s->H ||
        px->dims[2] + int_at(pads, 4) + int_at(pads, 5) != s->W)
      return false;
    s->pad_t += (int)int_at(pads, 2);
    s->pad_l += (int)int_at(pads, 4);
    s->H = px->dims[1];
    s->W = px->dims[2];
  }
  /* columns past the last window (VALID with a stride remainder) are left out by a
   * negative right padding: oneDNN's kernels want dense rows */
  const int need_w = (s->OW - 1) * s->sw - s->pad_l + (s->KW - 1) * s->dw + 1;
  s->w_used = s->W;
  s->pad_r = need_w - s->W;
  if (s->pad_t < 0 || s->pad_l < 0 || s->pad_r <= -s->sw) return false;
  if (b && (tfl_tensor_count(b) != (size_t)s->OC || !b->is_const || !b->data)) return false;

  if (x->type == TFL_TYPE_FLOAT32) {
    if (w->type != TFL_TYPE_FLOAT32 || y->type != TFL_TYPE_FLOAT32 || w->q.n != 0) return false;
    if (b && b->type != TFL_TYPE_FLOAT32) return false;
    *kind = bf16 ? K_BF16 : K_F32;
    return true;
  }
  /* 8-bit: the reference kernels' conventions (conv_common.h: cpu_requant_prepare) */
  if (!is_q8(x->type) || w->type != x->type || y->type != x->type) return false;
  if (x->q.n != 1 || y->q.n != 1 || (b && b->type != TFL_TYPE_INT32)) return false;
  const int w_axis = s->depthwise ? 3 : 0;
  if (w->q.n != 1 && (w->q.n != s->OC || w->q.axis != w_axis)) return false;
  /* weights minus their zero point must fit int8 (oneDNN takes no weight zero point);
   * uint8 weights that do not are shifted by 128 instead (onednn_geom.shifted) */
  const size_t count = tfl_tensor_count(w), per_oc_run = s->depthwise ? 1 : count / (size_t)s->OC;
  for (size_t i = 0; i < count && !s->shifted; i++) {
    const int oc = s->depthwise ? (int)(i % (size_t)s->OC) : (int)(i / per_oc_run);
    const int32_t v = (w->type == TFL_TYPE_UINT8 ? ((const uint8_t *)w->data)[i] : ((const int8_t *)w->data)[i]) -
                      cpu_zero_point(w, oc);
    if (v < -128 || v > 127) {
      /* depthwise: the per-channel window sums cost more than the conv (5.8x slower than
       * XNNPACK's uint8 depthwise on mobilenet_v2_quant): left to XNNPACK */
      if (w->type != TFL_TYPE_UINT8 || s->depthwise) return false;
      s->shifted = true;
    }
  }
  /* the correction's window sums stay in int32: |sum| <= taps * C * 255, times <= 255 */
  if (s->shifted && (double)s->KH * s->KW * s->C * 255.0 * 255.0 > 2e9) return false;
  *kind = K_Q8;
  return true;
}

/* Float32: where oneDNN beat XNNPACK's one-node subgraphs, measured per conv on 10 models
 * at 1 thread (docs/cpu-performance.md, "oneDNN or XNNPACK"). Depthwise: 1.4-4.7x (XNNPACK's
 * 5x5 and 8-channel kernels are slow) except the smallest (4x4, 2x2 outputs: a few us
 * either way, and a split XNNPACK subgraph costs more); dense kxk: about even, 6.7x on
 * one 3-channel stem with 16 outputs, 0.5x on an 8-output one (mobilenet_v1_0.25): from
 * 16 output channels; 1x1: even (0.9-1.1x), and leaving them keeps XNNPACK's subgraphs
 * whole. bf16 and 8-bit always (2x and 3.5x the fp32 arithmetic rate). */
#define F32_MIN_DW_MACS 0.25e6
#define Q8_MIN_DW_PIXELS 15000
#define F32_MIN_DENSE_MACS 2e6

bool onednn_fit_worth_it(const onednn_geom *s, onednn_kind kind)
{
  /* 8-bit depthwise: oneDNN's (int32 sums out, then our requantization) beat XNNPACK's
   * only on large feature maps: 1.41x at 177x241, even at 89x121, 0.68-0.86x at 45x61 and
   * below (posenet, 1 thread). On VNNI kernels/dwconv_q8.c takes them before this is asked. */
  if (kind == K_Q8 && s->depthwise) return (double)s->N * s->OH * s->OW >= Q8_MIN_DW_PIXELS;
  if (kind != K_F32) return true;
  const double macs = (double)s->N * s->OH * s->OW * s->OC * s->KH * s->KW * (s->C / s->groups);
  if (s->depthwise) return macs >= F32_MIN_DW_MACS;
  if (s->KH == 1 && s->KW == 1) return false;
  return macs >= F32_MIN_DENSE_MACS && s->OC >= 16;
}

