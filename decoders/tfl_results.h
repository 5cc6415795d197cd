/* tfl_results.h - what decoders return: plain C results in frame pixel coordinates.
 *
 * Mirrors the analytics types (classification, box with keypoints, mask, pose) so the
 * GStreamer meta and GstAnalytics bridges are thin. A tfl_results owns all its arrays;
 * free it with tfl_results_clear(). No GStreamer here.
 */
#ifndef TFL_RESULTS_H
#define TFL_RESULTS_H

#include <stdint.h>
#include <stddef.h>

typedef struct {
  float x, y;        /* frame pixels */
  float score;       /* 0..1 (visibility / confidence); < 0 when the model gives none */
} tfl_keypoint;

typedef struct {
  int class_id;      /* index into the label list, -1 when the model has no classes */
  float score;
} tfl_class;

typedef struct {
  float x, y, w, h;  /* frame pixels, clamped to the frame */
  int class_id;
  float score;
  int n_keypoints;
  tfl_keypoint *keypoints;
} tfl_box;

typedef struct {
  int n_keypoints;
  tfl_keypoint *keypoints;
  float score;
  int class_id;          /* e.g. handedness (0 left, 1 right); -1 when none */
  int n_edges;
  const int32_t *edges;  /* pairs of keypoint indices (static tables, not owned) */
} tfl_pose;

typedef enum {
  TFL_MASK_NONE = 0,
  TFL_MASK_CLASSES,   /* uint8 class index per pixel (argmax) */
  TFL_MASK_PROB,      /* float 0..1 foreground probability per pixel */
} tfl_mask_kind;

typedef struct {
  tfl_mask_kind kind;
  int width, height;        /* mask resolution (model output), row-major */
  int n_classes;
  uint8_t *classes;         /* TFL_MASK_CLASSES: width*height */
  float *prob;              /* TFL_MASK_PROB: width*height */
  /* where the mask lies in the frame (the letterbox/crop mapped back), pixels */
  float frame_x, frame_y, frame_w, frame_h;
} tfl_mask;

typedef struct {
  int n_classes;
  tfl_class *classes;       /* sorted by score, best first */
  int n_boxes;
  tfl_box *boxes;
  int n_poses;
  tfl_pose *poses;
  tfl_mask mask;
} tfl_results;

/* Frees every array and zeroes r. */
void tfl_results_clear(tfl_results *r);
/* Deep copy; -1 on OOM (dst then holds what was copied; clear it as usual). */
int tfl_results_copy(tfl_results *dst, const tfl_results *src);

/* Maps model-input coordinates back to the frame: the input of size (in_w, in_h)
 * shows the frame region (x, y, w, h) scaled to (sx, sy) with offset (ox, oy) for letterbox. */
typedef struct {
  int in_w, in_h;           /* model input size */
  float frame_w, frame_h;   /* frame size in pixels */
  /* model-input pixel (u, v) maps to frame pixel (u * scale_x + off_x, v * scale_y + off_y) */
  float scale_x, scale_y, off_x, off_y;
} tfl_transform;

#endif
