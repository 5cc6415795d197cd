/* onednn_fit.h - which convolutions (and fused PAD / ADD / activation nodes) the oneDNN
 * path takes, and their geometry: the checks behind onednn_conv_applies / _preferred and
 * the fusable_* queries. Private to onednn_conv.c and onednn_fit.c; no oneDNN calls here. */
#ifndef ONEDNN_FIT_H
#define ONEDNN_FIT_H

#include <stdbool.h>

#include "../../runtime/tfl_graph.h"

enum { ONEDNN_INPUT = 0, ONEDNN_FILTER = 1, ONEDNN_BIAS = 2 };

typedef enum { K_F32, K_BF16, K_Q8 } onednn_kind;

/* Geometry of the whole conv. */
typedef struct {
  int N, H, W, C, OH, OW, OC, KH, KW, sh, sw, dh, dw, pad_t, pad_l, pad_r, w_used, groups;
  bool depthwise;
  /* 8-bit weights whose values minus the zero point do not fit int8 (uint8 weights with
   * zero points far from 128): oneDNN gets w - 128, and the sums are corrected by
   * (128 - w_zp[oc]) times the window's sum of (x - x_zp) (window_sums) */
  bool shifted;
} onednn_geom;

static inline const tfl_tensor *onednn_in(const tfl_graph *g, const tfl_node *n, int i)
{
  return (i < n->n_in && n->in[i] >= 0 && n->in[i] < g->n_tensors) ? &g->tensors[n->in[i]] : NULL;
}
static inline const tfl_tensor *onednn_out(const tfl_graph *g, const tfl_node *n)
{
  return (n->n_out > 0 && n->out[0] >= 0 && n->out[0] < g->n_tensors) ? &g->tensors[n->out[0]] : NULL;
}

/* Types, shapes and quantization the oneDNN path takes; fills the geometry and the kind
 * (bf16: float convs in bfloat16). pad_node >= 0: the conv reads that PAD's input instead,
 * its padding added to the conv's own. */
bool onednn_fit_node(const tfl_graph *g, const tfl_node *n, int pad_node, onednn_geom *s, onednn_kind *kind,
                     bool bf16);
/* Measured: where oneDNN beats XNNPACK for this kind and geometry. */
bool onednn_fit_worth_it(const onednn_geom *s, onednn_kind kind);

#endif
