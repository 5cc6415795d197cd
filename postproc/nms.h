/* nms.h - non-maximum suppression (hard and MediaPipe's weighted) on plain arrays.
 *
 * Shared by the TFLite_Detection_PostProcess CPU kernel and the element's SSD /
 * anchor decoders. No runtime or GStreamer types: boxes are corner boxes (box.h) in
 * any unit (normalized or pixels), scores are floats, results are index lists.
 *
 *   nms_scored c[n];  int order[n], keep[max];  uint8_t scratch[n];
 *   int k = nms_collect(scores, n, 1, threshold, c);   // score >= threshold, best first
 *   int m = nms_greedy(boxes, c, k, iou, max, keep, scratch);
 *
 * All output and scratch arrays belong to the caller; nothing here allocates.
 */
#ifndef PP_NMS_H
#define PP_NMS_H

#include <stdint.h>

#include "box.h"

/* One candidate: its score and the index of its box. */
typedef struct {
  float score;
  int index;
} nms_scored;

/* Sorts candidates by score, best first; equal scores keep increasing index
 * (a stable order, so results do not depend on the sort algorithm). */
void nms_sort(nms_scored *c, int n);

/* Collects every i in [0, n) with scores[i * stride] >= threshold into `out`
 * (room for n) and sorts them. Returns how many. */
int nms_collect(const float *scores, int n, int stride, float threshold, nms_scored *out);

/* Greedy NMS over sorted candidates `c` (n of them): takes the best remaining one,
 * drops every later candidate whose IoU with it is > iou_threshold, repeats until
 * max_out are taken. Writes the chosen box indices to `selected` (room for
 * max_out) in decreasing score order; `scratch` holds n bytes. Returns the count. */
int nms_greedy(const pp_box *boxes, const nms_scored *c, int n, float iou_threshold, int max_out,
               int *selected, uint8_t *scratch);

/* MediaPipe's weighted NMS: takes the best remaining candidate, gathers every
 * remaining candidate whose IoU with it is > iou_threshold (itself included) and
 * outputs the score-weighted mean of their boxes (and of their `n_extra` extra
 * values each, e.g. keypoints, from `extra` rows of n_extra floats per box index),
 * keeping the best score. Repeats until max_out results or no candidate is left.
 * Writes out_boxes[k], out_scores[k], out_index[k] (the best candidate's box index)
 * and out_extra[k * n_extra ...] (may be NULL when n_extra == 0); `scratch` holds n
 * bytes. Returns the count. */
int nms_weighted(const pp_box *boxes, const float *extra, int n_extra, const nms_scored *c, int n,
                 float iou_threshold, int max_out, pp_box *out_boxes, float *out_scores,
                 int *out_index, float *out_extra, uint8_t *scratch);

#endif
