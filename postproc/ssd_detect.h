/* ssd_detect.h - SSD heads (no TFLite_Detection_PostProcess) to detections, on plain
 * arrays.
 *
 * An SSD gives per anchor four box encodings (ty, tx, th, tw) and a score per class
 * (column 0 the background; logits through a sigmoid, or probabilities). Boxes come from
 * TF's center-size coder (pp_box_decode_center_size, in double). For each class c >= 1,
 * the anchors whose raw score reaches the threshold (the probability threshold as a
 * logit) and whose box is finite are sorted by probability (nms_sort) and thinned by
 * greedy NMS (nms_greedy), up to max_out picks: pp_ssd_class_nms. Over all classes the
 * best max_out picks are kept in the order (probability down, class up, the class's own
 * order): pp_ssd_keep, called class by class in increasing class order.
 *
 * Shared by the detection decoder (decoders/decode_detection.c, raw heads on the CPU)
 * and the SSD_CLASS_NMS / SSD_DETECTION CPU kernels, so both give the same numbers; the
 * GL generators (delegates/gl/gl_gen_ssd_detect.c) follow this order and arithmetic.
 * Nothing here allocates: the caller owns every array.
 */
#ifndef PP_SSD_DETECT_H
#define PP_SSD_DETECT_H

#include <stdbool.h>
#include <stdint.h>

#include "box.h"
#include "nms.h"

typedef struct {
  float score_threshold;    /* probability */
  float iou_threshold;
  int max_out;
  float scale[4];           /* y, x, h, w */
  bool prob_scores;         /* scores are probabilities already */
} pp_ssd_params;

/* Per-anchor work arrays: cand n_anchors, scratch n_anchors bytes, sel max_out. */
typedef struct {
  nms_scored *cand;
  uint8_t *scratch;
  int *sel;
} pp_ssd_work;

/* A pick: its probability, class and anchor. */
typedef struct {
  float score;
  int class_id;
  int anchor;
} pp_ssd_found;

/* Anchor a's box: enc and anchors hold 4 floats an anchor (ty, tx, th, tw; y centre,
 * x centre, h, w). */
pp_box pp_ssd_box(const float *enc, const float *anchors, int a, const float scale[4]);

/* Class c's picks (column c of scores, n_classes floats an anchor) over boxes (one an
 * anchor, from pp_ssd_box): written to out (room for max_out) best first as
 * (probability, anchor). Returns how many. */
int pp_ssd_class_nms(const pp_ssd_params *p, const pp_box *boxes, const float *scores, int n_anchors, int n_classes,
                     int c, const pp_ssd_work *w, nms_scored *out);

/* Adds pick f to found (n picks, room for cap, sorted best first) when it is among the
 * best cap so far: a later pick goes after earlier ones of the same probability. Returns
 * the new count. */
int pp_ssd_keep(pp_ssd_found *found, int n, int cap, pp_ssd_found f);

#endif
