/* tfl_results.h - what decoders return: plain C results in frame pixel coordinates.
 *
 * Mirrors the analytics types (classification, box with keypoints, mask, pose) so the
 * GStreamer meta and GstAnalytics bridges are thin. A tfl_results owns all its arrays;
 * free it with tfl_results_clear(). No GStreamer here.
 */
#ifndef TFL_RESULTS_H
#define TFL_RESULTS_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

#include "policy/tfl_transform.h"

typedef struct {
  float x, y;        /* frame pixels */
  float score;       /* 0..1 (visibility / confidence); < 0 when the model gives none */
} tfl_keypoint;

typedef struct {
  int class_id;      /* index into the label list, -1 when the model has no classes */
  float score;
} tfl_class;

/* A detection's own mask (instance segmentation): probabilities 0..1 on a grid of
 * width x height texels over the frame rectangle (frame_x, frame_y, frame_w, frame_h),
 * read bilinearly between texel centres; the object is where the probability is > 0.5
 * inside its box (the grid may reach a little beyond the box, so that sampling near the
 * box's edges sees the texels outside as Ultralytics' upsampling does). */
typedef struct {
  int width, height;
  float *prob;              /* width*height, row-major; NULL: no mask */
  float frame_x, frame_y, frame_w, frame_h;
} tfl_box_mask;

/* An oriented box: centre, size along its own axes and the angle (radians) of its width
 * axis from the frame's x axis, clockwise on screen (y down), as Ultralytics' xywhr. */
typedef struct {
  float cx, cy, w, h, angle;
} tfl_rbox;

typedef struct {
  float x, y, w, h;  /* frame pixels, clamped to the frame (an oriented box: its bounds) */
  int class_id;
  float score;
  int n_keypoints;
  tfl_keypoint *keypoints;
  int n_edges;
  const int32_t *edges;     /* keypoint pairs to join (static tables, not owned), or NULL */
  tfl_box_mask mask;
  bool oriented;            /* rbox holds the box (frame pixels, not clamped) */
  tfl_rbox rbox;
} tfl_box;

typedef struct {
  int n_keypoints;
  tfl_keypoint *keypoints;
  float score;
  int class_id;          /* e.g. handedness (0 left, 1 right); -1 when none */
  int n_edges;
  const int32_t *edges;  /* pairs of keypoint indices (static tables, not owned) */
  /* points the model gives beyond the reported ones (BlazePose: its alignment points,
   * hips centre and body scale), frame pixels: they place the next frame's region */
  int n_aux;
  tfl_keypoint *aux;
  /* the person's box (x, y, w, h frame pixels, clamped) when the decoder gives one
   * (MoveNet: the model's, or the keypoints' bounds); else the pose covers the area */
  bool has_box;
  float box[4];
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

/* One output tensor as the model wrote it (decoder=tensors, keep-tensors): its bytes
 * copied out of the interpreter, with what a reader needs to interpret them. */
#define TFL_RAW_MAX_DIMS 8
typedef struct {
  const char *name;         /* the graph's (borrowed: valid while the model is loaded) */
  int index;                /* position among the graph's outputs */
  int type;                 /* tfl_type (runtime/tfl_graph.h) */
  int ndim;
  int32_t dims[TFL_RAW_MAX_DIMS];
  float scale;              /* real = scale * (q - zero_point); scale 0: not quantized */
  int32_t zero_point;       /* (per-channel quantization: the first channel's) */
  size_t bytes;
  void *data;               /* owned (malloc) */
} tfl_raw_tensor;

typedef struct {
  int n_classes;
  tfl_class *classes;       /* sorted by score, best first */
  int n_boxes;
  tfl_box *boxes;
  int n_poses;
  tfl_pose *poses;
  tfl_mask mask;
  int n_tensors;            /* the raw outputs, when asked for (decoders/decode_tensors.c) */
  tfl_raw_tensor *tensors;
} tfl_results;

/* Frees every array and zeroes r. */
void tfl_results_clear(tfl_results *r);
/* Deep copy; -1 on OOM (dst then holds what was copied; clear it as usual). */
int tfl_results_copy(tfl_results *dst, const tfl_results *src);
/* Frees the raw tensors only (results kept for repeated frames carry none). */
void tfl_results_clear_tensors(tfl_results *r);

#endif
