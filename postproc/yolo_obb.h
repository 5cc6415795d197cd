/* yolo_obb.h - YOLO oriented-box heads (Ultralytics' OBB task): scores -> candidates ->
 * rotated NMS, as Ultralytics' non_max_suppression(rotated=True) does it.
 *
 * The head is the anchor-free one (yolo_detect.h) with one more value per box, the angle
 * (radians), last: cx, cy, w, h, nc class scores, angle. Suppression is Ultralytics'
 * "fast NMS" with probabilistic IoU (batch_probiou: the boxes as Gaussians, 1 - their
 * Hellinger distance), not the greedy one: candidates sorted by score, a box is kept when
 * no better-scored candidate of its class (any class: agnostic), kept or not, overlaps
 * it by more than iou_threshold.
 *
 *   pp_yolo_params p = { ... };   pp_yolo_obb_work w = { cand, rboxes, classes, selected };   // n, n, n, max_out
 *   int k = pp_yolo_detect_obb(&p, values, &w, out);
 *
 * out[i].box is the rotated box's axis-aligned bounds; w->rboxes[out[i].index] the
 * rotated box (scaled like the head: p.scale_x / scale_y on cx, w and cy, h; a
 * non-square scale is applied to w and h along the frame's axes as Ultralytics does).
 * p.objectness must be false. No allocation; plain C.
 */
#ifndef PP_YOLO_OBB_H
#define PP_YOLO_OBB_H

#include "yolo_detect.h"

typedef struct {
  float cx, cy, w, h, angle;   /* angle in radians, clockwise on screen (y down) */
} pp_rbox;

typedef struct {
  nms_scored *cand;            /* n_boxes */
  pp_rbox *rboxes;             /* n_boxes */
  int *classes;                /* n_boxes */
  int *selected;               /* max_out */
} pp_yolo_obb_work;

/* Ultralytics' batch_probiou of two boxes (its eps 1e-7), in float as torch computes it. */
float pp_rbox_probiou(const pp_rbox *a, const pp_rbox *b);
/* The four corners (x, y pairs) of r: centre +- the rotated half axes, as xywhr2xyxyxyxy. */
void pp_rbox_corners(const pp_rbox *r, float xy[8]);

int pp_yolo_detect_obb(const pp_yolo_params *p, const float *values, const pp_yolo_obb_work *w, pp_yolo_found *out);

#endif
