/* ultralytics_map.h - the box mAP Ultralytics' `val` prints (ultralytics 8.4:
 * DetectionValidator.match_predictions, metrics.ap_per_class and compute_ap), on the same
 * ground truth and detections as coco_metric.h takes, so that a detector run by our
 * runtime can be held to Ultralytics' own validation of the same model:
 *  - per image, detections in score order (highest first) each take, at each of the 10
 *    IoU thresholds linspace(0.5, 0.95, 10) (float32, as torch makes them), the unclaimed
 *    ground truth of its category with the highest IoU (the first of equal ones), a true
 *    positive when that IoU >= the threshold; IoU = inter / (area1 + area2 - inter + 1e-7);
 *  - all detections ranked by score; per category with ground truth: recall = tp /
 *    (n_truth + 1e-16), precision = tp / (tp + fp) along the ranking; AP = the trapezoid
 *    integral over 101 recall points 0:0.01:1 of the precision envelope, linearly
 *    interpolated (numpy.interp) between the curve's points with the sentinels (0, 1),
 *    (last recall, 0), (1, 0); no area ranges, no per-image detection cut (the decoder's
 *    max-results is the cut: Ultralytics' max_det 300), crowd regions left out;
 *  - mAP50-95: the mean over categories with ground truth and the 10 thresholds; mAP50:
 *    over categories at 0.5.
 * Differences from COCO's metric (coco_metric.h): the interpolation (COCO reads the
 * envelope at each recall point, a step), no 100-detection cut, no area ranges.
 * Plain C, no I/O, no global state. */
#ifndef ULTRALYTICS_MAP_H
#define ULTRALYTICS_MAP_H

#include "coco_metric.h"

/* 0, or -1 with err filled (out of memory). */
int ultralytics_map(const coco_eval_input *in, double *map50_95, double *map50, char *err, size_t err_size);

#endif
