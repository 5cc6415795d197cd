/* anchor_detect.h - MediaPipe detection heads to detections, on plain arrays.
 *
 * A MediaPipe detector (BlazeFace, BlazePose's detector, the palm detector) gives per
 * anchor a row of regressors (x, y, w, h, then x, y per keypoint, in input pixels) and one
 * score (a logit, clipped to +-100 as MediaPipe does, or a probability). Each anchor
 * (y centre, x centre, h, w; normalized) decodes its row:
 *   xc = x / x_scale * aw + ax     yc = y / y_scale * ah + ay
 *   w  = w / w_scale * aw          h  = h / h_scale * ah       (keypoints as the centre)
 * in float. Anchors whose raw score reaches the threshold (the probability threshold as a
 * logit) are sorted by probability (nms_sort) and merged by weighted NMS (nms_weighted).
 *
 * Shared by the detection decoder (decoders/decode_detection.c, raw heads on the CPU) and
 * the ANCHOR_DETECTION CPU kernel, so both give the same numbers; the GL generator
 * (delegates/gl/gl_gen_anchor_detect.c) follows this order and arithmetic. Nothing here
 * allocates: the caller owns every array.
 */
#ifndef PP_ANCHOR_DETECT_H
#define PP_ANCHOR_DETECT_H

#include <stdbool.h>
#include <stdint.h>

#include "box.h"
#include "nms.h"

typedef struct {
  float score_threshold;    /* probability */
  float iou_threshold;
  int max_out;
  float scale[4];           /* y, x, h, w */
  int n_keypoints;
  bool prob_scores;         /* scores are probabilities already */
} pp_anchor_params;

/* Per-anchor work arrays: boxes and cand n_anchors each, kps n_anchors * 2 * n_keypoints
 * floats, scratch n_anchors bytes. */
typedef struct {
  pp_box *boxes;
  float *kps;
  nms_scored *cand;
  uint8_t *scratch;
} pp_anchor_work;

/* Where the results go: boxes, scores and index (the leading anchor) max_out each, kps
 * max_out * 2 * n_keypoints (may be NULL when n_keypoints is 0). */
typedef struct {
  pp_box *boxes;
  float *scores;
  int *index;
  float *kps;
} pp_anchor_out;

/* The probability of a raw score. */
float pp_anchor_prob(float v, bool prob_scores);
/* The raw score at or above which the probability reaches thr (-inf / +inf at the ends). */
float pp_anchor_raw_threshold(float thr, bool prob_scores);

/* Decodes anchors' rows: reg holds n_anchors rows of `row` floats (row >= 4 + 2 *
 * n_keypoints), scores one float per anchor, anchors 4 floats per anchor. Returns the
 * number of detections written to out, best first. */
int pp_anchor_detect(const pp_anchor_params *p, const float *reg, int row, const float *scores,
                     const float *anchors, int n_anchors, const pp_anchor_work *w, const pp_anchor_out *out);

#endif
