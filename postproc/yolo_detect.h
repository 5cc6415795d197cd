/* yolo_detect.h - YOLO detection heads: scores -> candidates -> NMS, as Ultralytics'
 * non_max_suppression does it, on plain float arrays.
 *
 * Two head layouts, each a matrix of n boxes x k values, either orientation (a box's
 * values `value_step` floats apart, boxes `box_step` apart):
 *  - anchor-free (YOLOv5u/v8/v9/v11/v12): cx, cy, w, h, then nc class scores
 *    (probabilities), then extra values (mask coefficients, keypoints) that are carried
 *    along, not read;
 *  - anchor-based YOLOv5: cx, cy, w, h, objectness, nc class scores; a box is a
 *    candidate when its objectness > threshold and its score is objectness x class score.
 * A box's class is its best class (the first of equal ones); it is kept when that score
 * > threshold (strictly, as Ultralytics). NMS is greedy, best score first, dropping a
 * box whose IoU with a kept one of the same class (or any class: agnostic) is >
 * iou_threshold; at most max_out are kept.
 *
 *   pp_yolo_params p = { ... };     pp_yolo_work w = { cand, boxes, classes, scratch, selected };  // n, max_out
 *   int k = pp_yolo_detect(&p, values, &w, out);                                   // out: room for max_out
 *
 * Coordinates are multiplied by (scale_x, scale_y): 1 for heads in input pixels, the
 * input size for normalized heads. No allocation; plain C.
 */
#ifndef PP_YOLO_DETECT_H
#define PP_YOLO_DETECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box.h"
#include "nms.h"

typedef struct {
  int n_boxes;
  int n_classes;
  bool objectness;          /* YOLOv5: value 4 is objectness, classes from value 5 */
  size_t box_step, value_step;
  float scale_x, scale_y;   /* cx, w and cy, h are multiplied by these */
  float threshold, iou_threshold;
  int max_out;
  bool agnostic;            /* one NMS over all classes */
} pp_yolo_params;

typedef struct {
  nms_scored *cand;         /* n_boxes */
  pp_box *boxes;            /* n_boxes: corner boxes (ymin, xmin, ymax, xmax), scaled */
  int *classes;             /* n_boxes */
  uint8_t *scratch;         /* n_boxes */
  int *selected;            /* max_out */
} pp_yolo_work;

typedef struct {
  pp_box box;               /* scaled corners */
  float score;
  int class_id;
  int index;                /* the box's position in the head */
} pp_yolo_found;

/* Decodes and suppresses; writes the kept boxes into out (best first) and returns how
 * many (<= max_out). */
int pp_yolo_detect(const pp_yolo_params *p, const float *values, const pp_yolo_work *w, pp_yolo_found *out);

/* Multi-label (Ultralytics' multi_label=True, as its val runs NMS): every (box, class)
 * pair whose score > threshold is a candidate, suppressed per class (or agnostic) as
 * above. Candidates are numbered box * n_classes + class: w->cand, w->boxes, w->classes
 * and w->scratch hold n_boxes * n_classes entries (w->boxes at the pair's number);
 * out[i].index is the box. */
int pp_yolo_detect_multilabel(const pp_yolo_params *p, const float *values, const pp_yolo_work *w,
                              pp_yolo_found *out);

/* Greedy NMS over sorted candidates c (n) that suppresses only within a class (classes
 * indexed by box index), as nms_greedy otherwise (nms.h). */
int pp_nms_greedy_by_class(const pp_box *boxes, const int *classes, const nms_scored *c, int n,
                           float iou_threshold, int max_out, int *selected, uint8_t *scratch);

#endif
