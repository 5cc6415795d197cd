/* yolo_op.c - an Ultralytics YOLO head's thresholding and NMS appended to its graph as
 * YOLO_DETECTION (tfl_decoder_append_postprocess, tfl_decoder.h), so the delegate that runs
 * the model runs them too (delegates/gl/gl_gen_yolo_detect.c on the GPU,
 * delegates/cpu/kernels/yolo_detection.c on the CPU) and only the kept boxes come back.
 * The op's rows read as an end-to-end head in input pixels (decode_yolo.c), so the
 * decoder maps and clamps them as it does its own. A segmentation head's rows carry each
 * kept box's mask coefficients as they are (kpt_dim 0) and the prototypes stay a graph
 * output, so the decoder builds the masks from them as from an end-to-end head's.
 * Oriented boxes (probiou NMS) and multi-label NMS are left to the decoder. */
#include "decoder_impl.h"

#include <stdlib.h>

tfl_status decoder_append_yolo(tfl_graph *g, const tfl_decoder_options *opt, const tfl_yolo_layout *L,
                               bool *appended, tfl_diag *diag)
{
  const int head = g->outputs[L->output];
  const tfl_tensor *t = &g->tensors[head];
  *appended = tfl_yolo_op(g, head) != NULL;
  /* rotated boxes (probiou NMS) and multi-label NMS stay with the decoder */
  if (*appended || L->oriented || opt->multi_label || t->ndim != 3) return TFL_OK;
  const bool seg = L->protos >= 0;
  const int md = opt->max_results > 0 ? opt->max_results : 1, extra = seg ? L->n_coeffs : L->n_kpts * L->kpt_dim;
  const tfl_params p = { .yolo_det = {
    .head = L->head == YOLO_END2END ? 2 : L->head == YOLO_V5 ? 1 : 0, .values_first = L->values_first,
    .agnostic = opt->class_agnostic, .n_classes = L->n_classes, .n_extra = extra,
    .extra_offset = !extra ? 0 : seg ? L->coeff_offset : L->kpt_offset, .kpt_dim = extra && !seg ? L->kpt_dim : 0,
    .max_detections = md,
    .scale_x = L->normalized ? (float)L->in_w : 1.0f, .scale_y = L->normalized ? (float)L->in_h : 1.0f,
    .threshold = opt->threshold, .iou_threshold = opt->iou_threshold } };
  const int32_t dims[3] = { t->dims[0], md, 6 + extra };
  const int32_t out = tfl_graph_add_tensor(g, "yolo_detection/rows", TFL_TYPE_FLOAT32, 3, dims);
  /* the rows, then the prototypes (segmentation); the decoder finds them again by shape */
  const int n_out = seg ? 2 : 1;
  int32_t *outputs = malloc((size_t)n_out * sizeof *outputs);
  const int32_t in = head;
  if (out < 0 || !outputs || tfl_graph_add_node(g, TFL_OP_YOLO_DETECTION, &in, 1, &out, 1, &p) < 0) {
    free(outputs);
    return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  }
  outputs[0] = out;
  if (seg) outputs[1] = g->outputs[L->protos];
  free(g->outputs);
  g->outputs = outputs;
  g->n_outputs = n_out;
  *appended = true;
  return TFL_OK;
}
