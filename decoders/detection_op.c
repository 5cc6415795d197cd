/* detection_op.c - tfl_decoder_append_postprocess (tfl_decoder.h): a MediaPipe
 * detector's anchor decoding and weighted NMS appended to its graph as ANCHOR_DETECTION,
 * an SSD's box decoding and per-class NMS as SSD_CLASS_NMS + SSD_DETECTION, so the
 * delegate that runs the heads runs them too (delegates/gl/gl_gen_anchor_detect.c and
 * gl_gen_ssd_detect.c on the GPU, delegates/cpu/kernels/ on the CPU). */
#include "decoder_impl.h"

#include <stdlib.h>
#include <string.h>

/* The heads' anchors as a constant [A,4] tensor; its index or -1 (OOM). */
static int add_anchors(tfl_graph *g, const decoder_heads *h)
{
  const int32_t adims[2] = { h->n_anchors, 4 };
  const int an = tfl_graph_add_tensor(g, "detection/anchors", TFL_TYPE_FLOAT32, 2, adims);
  float *rows = an >= 0 ? tfl_graph_alloc(g, g->tensors[an].bytes) : NULL;
  if (!rows) return -1;
  memcpy(rows, h->anchor_rows, g->tensors[an].bytes);
  g->tensors[an].data = rows;
  g->tensors[an].is_const = true;
  return an;
}

/* Appends op with inputs in and four float outputs named and shaped as given; they
 * become the graph's outputs. */
static tfl_status append_outputs(tfl_graph *g, tfl_op op, const int32_t in[3], const char *const names[4],
                                 const int ndim[4], const int32_t dims[4][3], const tfl_params *p, tfl_diag *diag)
{
  int32_t out[4];
  for (int i = 0; i < 4; i++)
    if ((out[i] = tfl_graph_add_tensor(g, names[i], TFL_TYPE_FLOAT32, ndim[i], dims[i])) < 0)
      return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  int32_t *outputs = malloc(sizeof out);
  if (!outputs) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  if (tfl_graph_add_node(g, op, in, 3, out, 4, p) < 0) {
    free(outputs);
    return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  }
  memcpy(outputs, out, sizeof out);
  free(g->outputs);
  g->outputs = outputs;
  g->n_outputs = 4;
  return TFL_OK;
}

static tfl_anchor_detection_params op_params(const tfl_decoder_options *opt, const decoder_heads *h, int md)
{
  return (tfl_anchor_detection_params){ md, opt->threshold, opt->iou_threshold, h->scale[0], h->scale[1],
                                        h->scale[2], h->scale[3], h->prob_scores };
}

static tfl_status append_anchor_detection(tfl_graph *g, const tfl_decoder_options *opt, const decoder_heads *h,
                                          tfl_diag *diag)
{
  const int32_t batch = g->tensors[h->regressors].dims[0], md = opt->max_results > 0 ? opt->max_results : 1;
  const int32_t dims[4][3] = { { batch, md, 4 }, { batch, md, 2 * h->n_keypoints }, { batch, md }, { batch } };
  static const int ndim[4] = { 3, 3, 2, 1 };
  static const char *const names[4] = { "anchor_detection/boxes", "anchor_detection/keypoints",
                                        "anchor_detection/scores", "anchor_detection/count" };
  const int an = add_anchors(g, h);
  if (an < 0) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  const int32_t in[3] = { h->regressors, h->scores, an };
  const tfl_params p = { .anchor_det = op_params(opt, h, md) };
  return append_outputs(g, TFL_OP_ANCHOR_DETECTION, in, names, ndim, dims, &p, diag);
}

/* SSD_CLASS_NMS (selections [B,C-1,D,2]) then SSD_DETECTION on them. */
static tfl_status append_ssd_detection(tfl_graph *g, const tfl_decoder_options *opt, const decoder_heads *h,
                                       tfl_diag *diag)
{
  const int32_t batch = g->tensors[h->regressors].dims[0], md = opt->max_results > 0 ? opt->max_results : 1;
  const int32_t sdims[4] = { batch, h->n_classes - 1, md, 2 };
  const int32_t dims[4][3] = { { batch, md, 4 }, { batch, md }, { batch, md }, { batch } };
  static const int ndim[4] = { 3, 2, 2, 1 };
  static const char *const names[4] = { "ssd_detection/boxes", "ssd_detection/classes", "ssd_detection/scores",
                                        "ssd_detection/count" };
  const int an = add_anchors(g, h);
  const int sel = an >= 0 ? tfl_graph_add_tensor(g, "ssd_detection/selections", TFL_TYPE_FLOAT32, 4, sdims) : -1;
  if (sel < 0) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  const tfl_params p = { .anchor_det = op_params(opt, h, md) };
  const int32_t nms_in[3] = { h->regressors, h->scores, an }, nms_out[1] = { sel };
  if (tfl_graph_add_node(g, TFL_OP_SSD_CLASS_NMS, nms_in, 3, nms_out, 1, &p) < 0)
    return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  const int32_t in[3] = { sel, h->regressors, an };
  return append_outputs(g, TFL_OP_SSD_DETECTION, in, names, ndim, dims, &p, diag);
}

tfl_status tfl_decoder_append_postprocess(tfl_decoder_kind kind, tfl_graph *g, const tfl_decoder_options *opt,
                                          bool *appended, tfl_diag *diag)
{
  *appended = false;
  if (kind == TFL_DECODER_LANDMARKS) return decoder_append_landmarks(g, appended, diag);
  tfl_yolo_layout L;
  char why[256];
  if (kind == TFL_DECODER_DETECTION && tfl_yolo_find(g, &L, why, sizeof why) > 0)
    return decoder_append_yolo(g, opt, &L, appended, diag);
  decoder_heads h;
  if (kind != TFL_DECODER_DETECTION || !decoder_raw_heads(g, opt, &h)) return TFL_OK;
  const tfl_status st = h.n_classes ? append_ssd_detection(g, opt, &h, diag) : append_anchor_detection(g, opt, &h, diag);
  free(h.anchor_rows);
  *appended = st == TFL_OK;
  return st;
}
