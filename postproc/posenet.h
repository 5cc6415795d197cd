/* posenet.h - PoseNet multi-person pose decoding on plain float arrays (shared by the
 * PosenetDecoderOp CPU kernel and the element's pose decoder).
 *
 * Input: the three PoseNet heads on a grid of height x width cells (one cell per
 * `stride` input pixels), row-major HWC, batch 1, dequantized:
 *   heatmaps      [H, W, 17]  keypoint logits (before sigmoid)
 *   short offsets [H, W, 34]  y offsets of the 17 keypoints, then x, in input pixels
 *   mid offsets   [H, W, 64]  y offsets of the 16 forward edges, x, then y and x of
 *                             the 16 backward edges, in input pixels
 * Output: up to max_detections poses, best first, keypoints in input pixels.
 *
 * Algorithm (PoseNet's "multi-person" decoder): every heatmap cell that is the
 * maximum of its 3x3 window and above the threshold is a root candidate (refined by
 * its short offset); candidates are taken best first, skipped when within
 * nms_radius of the same keypoint of an already decoded pose; from a root, the
 * skeleton is walked best-score first along the edges: follow the edge's mid-range
 * offset, then refine with the target's short-range offset a few times. A pose's
 * score is the mean of its 17 keypoint scores; finally each pose is rescored
 * without the keypoints that lie within nms_radius of a better pose's same keypoint.
 *
 *   size_t n = posenet_scratch_bytes(h, w, opt.max_detections);  void *scratch = malloc(n);
 *   int k = posenet_decode(heat, shorts, mids, h, w, &opt, poses, scratch);
 *
 * The caller owns every array; nothing here allocates. Not thread-safe per scratch.
 */
#ifndef PP_POSENET_H
#define PP_POSENET_H

#include <stddef.h>
#include <stdint.h>

#define POSENET_KEYPOINTS 17
#define POSENET_EDGES 16

/* Keypoint order of PoseNet's heads. */
typedef enum {
  POSENET_NOSE, POSENET_LEFT_EYE, POSENET_RIGHT_EYE, POSENET_LEFT_EAR, POSENET_RIGHT_EAR,
  POSENET_LEFT_SHOULDER, POSENET_RIGHT_SHOULDER, POSENET_LEFT_ELBOW, POSENET_RIGHT_ELBOW,
  POSENET_LEFT_WRIST, POSENET_RIGHT_WRIST, POSENET_LEFT_HIP, POSENET_RIGHT_HIP,
  POSENET_LEFT_KNEE, POSENET_RIGHT_KNEE, POSENET_LEFT_ANKLE, POSENET_RIGHT_ANKLE,
} posenet_keypoint;

/* The 16 tree edges (parent, child) in the order of the mid-offset channels; also
 * the skeleton to draw. */
extern const int32_t posenet_edges[POSENET_EDGES * 2];
/* Keypoint names ("nose", "left_eye", ...). */
extern const char *const posenet_keypoint_names[POSENET_KEYPOINTS];

typedef struct {
  int max_detections;     /* poses to return at most */
  float score_threshold;  /* 0..1, for root keypoints and pose scores */
  int stride;             /* input pixels per grid cell (16 for the 353x481 model) */
  float nms_radius;       /* input pixels */
  int refine_steps;       /* short-offset refinements after a mid-offset jump (5) */
} posenet_options;

typedef struct {
  float y, x;
} posenet_point;

typedef struct {
  posenet_point keypoints[POSENET_KEYPOINTS];  /* input pixels */
  float keypoint_scores[POSENET_KEYPOINTS];    /* 0..1 */
  float score;                                 /* 0..1 */
} posenet_pose;

posenet_options posenet_defaults(void);  /* 10 poses, 0.5, stride 16, radius 20, 5 steps */

/* Scratch bytes posenet_decode needs for this grid and pose count. */
size_t posenet_scratch_bytes(int height, int width, int max_detections);

/* Decodes poses into out[0 .. return value); out has room for max_detections.
 * `scratch` holds posenet_scratch_bytes() bytes, aligned for floats. */
int posenet_decode(const float *heatmaps, const float *short_offsets, const float *mid_offsets,
                   int height, int width, const posenet_options *opt, posenet_pose *out,
                   void *scratch);

#endif
