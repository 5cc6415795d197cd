/* tfl_region.h - where a second model looks: MediaPipe's region rules as plain C.
 *
 * A region is a rectangle in frame pixels, possibly rotated. A rule turns what a first
 * model found (a detector's box and keypoints) or what a landmark model found on the
 * previous frame (its points) into the region the next model runs on, as MediaPipe's
 * graphs do (values from its pose_landmark, hand_landmark and face_landmark graphs):
 *
 *   pose detector -> pose landmarks: centre = keypoint 0 (hips), side = 2 |kp1 - kp0|,
 *       rotated so kp0 -> kp1 points up, square, x1.25
 *   palm detector -> hand landmarks: the box, rotated so wrist (kp0) -> middle finger
 *       (kp2) points up, moved half a box up along that direction, square, x2.6
 *   face detector -> face landmarks: the box, rotated so right eye (kp0) -> left eye (kp1)
 *       is horizontal, square, x1.5
 *   any box -> a classifier: the box itself
 *
 *   tfl_region_rule r = tfl_region_rule_preset(TFL_REGION_PALM);
 *   tfl_region reg;  if (tfl_region_from_box(&r, &box, &reg)) {
 *     tfl_transform tr = tfl_region_transform(&reg, in_w, in_h, frame_w, frame_h, r.keep_aspect);
 *     preprocess with tr; decode with tr: results come out in frame pixels }
 *
 * Plain C, no state: every call reads only its arguments. Any thread.
 */
#ifndef TFL_REGION_H
#define TFL_REGION_H

#include <stdbool.h>

#include "policy/tfl_model_kind.h"
#include "tfl_results.h"

/* Centre and size in frame pixels; angle in radians, clockwise on screen (y down): the
 * region's "up" is the frame's up turned by angle. */
typedef struct {
  float cx, cy, w, h, angle;
} tfl_region;

typedef struct {
  tfl_region_kind kind;
  /* from a detection */
  bool from_points;      /* centre = kp[start], side = 2 |kp[end] - kp[start]|; else the box */
  int start_kp, end_kp;  /* rotation vector from keypoint start to end; -1: no rotation */
  float target_angle;    /* radians: the direction (counter-clockwise from +x, y up) the
                            vector should have after rotating the region */
  /* then, in the region's own axes */
  float shift_x, shift_y; /* centre moved by (shift_x w, shift_y h) */
  bool square_long;      /* both sides become the longer one */
  float scale_x, scale_y;
  bool keep_aspect;      /* widen the region to the model's input aspect (zero border)
                            instead of stretching it */
} tfl_region_rule;

/* The rule MediaPipe's graph uses for a region made from a detection of that kind. */
tfl_region_rule tfl_region_rule_preset(tfl_region_kind kind);
/* "box", "pose", "palm", "face"; NULL past the end. */
const char *tfl_region_kind_name(tfl_region_kind kind);

/* The region for detection `b` (frame pixels). False when the rule needs keypoints the
 * box does not have, or the region would be empty. */
bool tfl_region_from_box(const tfl_region_rule *r, const tfl_box *b, tfl_region *out);

/* The region for the next frame from landmarks found in a region of this kind
 * (MediaPipe's "landmarks to ROI"): pose from BlazePose's alignment points (pose->aux),
 * hands from the wrist and finger joints, faces from the eye corners and the points'
 * bounds. False when the points do not fit the kind (count) or the region is empty. */
bool tfl_region_from_landmarks(tfl_region_kind kind, const tfl_pose *p, tfl_region *out);

/* Model-input pixel -> frame pixel for a model of input size in_w x in_h looking at
 * `reg`: input (0, 0) is the region's top-left corner (in its own axes), (in_w, in_h) its
 * bottom-right. keep_aspect widens the shorter side to the input's aspect first. */
tfl_transform tfl_region_transform(const tfl_region *reg, int in_w, int in_h, float frame_w, float frame_h,
                                   bool keep_aspect);

/* The region's four corners (top-left, top-right, bottom-right, bottom-left in its own
 * axes) in frame pixels, for drawing and tests. */
void tfl_region_corners(const tfl_region *reg, float xy[8]);

#endif
