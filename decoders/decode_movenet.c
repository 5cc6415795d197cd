/* decode_movenet.c - MoveNet poses (17 COCO keypoints), the pose kind on MoveNet's
 * outputs (TF Hub's model cards; TF.js pose-detection reads them the same way):
 *  - single-pose Lightning / Thunder: one output [1,1,17,3], each keypoint (y, x, score),
 *    y and x normalized to the model input; the pose's score is the mean of the 17
 *    keypoint scores and its box the keypoints' bounds;
 *  - MultiPose Lightning: one output [1,6,56], six persons of 17 x (y, x, score) then
 *    ymin, xmin, ymax, xmax, score (normalized); persons scoring below the threshold
 *    are dropped, the box is the model's.
 * The model sees the frame padded to its input's aspect (the family's letterbox); points
 * go back through the transform and are not clamped (a joint may lie outside), boxes are
 * clamped to the frame. */
#include "decoder_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define KEYPOINTS 17
#define MULTI_VALUES 56   /* 17 x 3, a box, a score */

/* COCO keypoints: 0 nose, 1 left eye, 2 right eye, 3 left ear, 4 right ear, 5 left
 * shoulder, 6 right shoulder, 7 left elbow, 8 right elbow, 9 left wrist, 10 right wrist,
 * 11 left hip, 12 right hip, 13 left knee, 14 right knee, 15 left ankle, 16 right ankle.
 * The edges TF.js draws for MoveNet (its COCO skeleton, face included). */
static const int32_t coco_edges[] = {
  0, 1,   0, 2,   1, 3,   2, 4,   0, 5,   0, 6,   5, 7,   7, 9,   6, 8,   8, 10,
  5, 6,   5, 11,  6, 12,  11, 12, 11, 13, 13, 15, 12, 14, 14, 16,
};
#define N_EDGES ((int)(sizeof coco_edges / sizeof coco_edges[0] / 2))

typedef struct {
  bool multi;
  int persons;         /* multi: rows of the output */
  int in_w, in_h;      /* model input size: the points are normalized to it */
} movenet_state;

static tfl_status movenet_create(const tfl_graph *g, const tfl_decoder_options *opt, void **state, tfl_diag *diag)
{
  (void)opt;
  char why[160];
  bool multi = false;
  if (tfl_movenet_find(g, &multi, why, sizeof why) != 1)
    return tfl_fail(diag, TFL_ERR_SHAPE, "pose: not a MoveNet output ([1,1,17,3] or [1,N,56])");
  const tfl_tensor *in = g->n_inputs > 0 ? &g->tensors[g->inputs[0]] : NULL;
  if (!in || in->ndim != 4 || in->dims[1] < 1 || in->dims[2] < 1)
    return tfl_fail(diag, TFL_ERR_SHAPE, "pose: MoveNet input %s is not [1,H,W,3]",
                     in && in->name ? in->name : "(none)");
  movenet_state *s = calloc(1, sizeof *s);
  if (!s) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  s->multi = multi;
  s->persons = multi ? g->tensors[g->outputs[0]].dims[1] : 1;
  s->in_h = in->dims[1];
  s->in_w = in->dims[2];
  *state = s;
  return TFL_OK;
}

static void movenet_free(void *state)
{
  free(state);
}

/* Normalized (y, x) -> frame point. */
static void to_frame(const movenet_state *s, const tfl_transform *tr, float y, float x, float *fx, float *fy)
{
  tfl_transform_point(tr, x * (float)s->in_w, y * (float)s->in_h, fx, fy);
}

/* The box x0, y0, x1, y1 (frame) clamped into the pose. */
static void set_box(const tfl_transform *tr, tfl_pose *p, float x0, float y0, float x1, float y1)
{
  tfl_box b = { fminf(x0, x1), fminf(y0, y1), fabsf(x1 - x0), fabsf(y1 - y0), -1, 0.0f, 0, NULL };
  decoder_clamp_box(tr, &b);
  p->has_box = true;
  p->box[0] = b.x;
  p->box[1] = b.y;
  p->box[2] = b.w;
  p->box[3] = b.h;
}

/* Person `i` (values v: 17 x (y, x, score) [, box, score]) as a pose. */
static tfl_status emit(const movenet_state *s, const tfl_tensor *t, int i, const tfl_transform *tr,
                       const tfl_decoder_options *opt, tfl_results *res, tfl_diag *diag)
{
  const size_t base = (size_t)i * (s->multi ? MULTI_VALUES : 3 * KEYPOINTS);
  float score = 0.0f;
  if (s->multi) score = decoder_value(t, base + 55);
  else
    for (int k = 0; k < KEYPOINTS; k++) score += decoder_value(t, base + (size_t)k * 3 + 2) / (float)KEYPOINTS;
  if (!(score >= opt->threshold)) return TFL_OK;   /* NaN is dropped too */
  tfl_keypoint *kp = malloc(KEYPOINTS * sizeof *kp);
  if (!kp) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  float x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
  for (int k = 0; k < KEYPOINTS; k++) {
    const size_t o = base + (size_t)k * 3;
    to_frame(s, tr, decoder_value(t, o), decoder_value(t, o + 1), &kp[k].x, &kp[k].y);
    kp[k].score = decoder_value(t, o + 2);
    x0 = fminf(x0, kp[k].x), y0 = fminf(y0, kp[k].y), x1 = fmaxf(x1, kp[k].x), y1 = fmaxf(y1, kp[k].y);
  }
  tfl_pose *p = &res->poses[res->n_poses++];
  *p = (tfl_pose){ .n_keypoints = KEYPOINTS, .keypoints = kp, .score = score, .class_id = -1,
                   .n_edges = N_EDGES, .edges = coco_edges };
  if (s->multi) {
    to_frame(s, tr, decoder_value(t, base + 51), decoder_value(t, base + 52), &x0, &y0);
    to_frame(s, tr, decoder_value(t, base + 53), decoder_value(t, base + 54), &x1, &y1);
  }
  if (isfinite(x0 + y0 + x1 + y1)) set_box(tr, p, x0, y0, x1, y1);
  return TFL_OK;
}

static tfl_status movenet_run(void *state, const tfl_tensor *const *outputs, int n_outputs, const tfl_transform *tr,
                              const tfl_decoder_options *opt, tfl_results *res, tfl_diag *diag)
{
  const movenet_state *s = state;
  if (n_outputs < 1) return tfl_fail(diag, TFL_ERR_SHAPE, "pose: MoveNet output missing (%d given)", n_outputs);
  const tfl_tensor *t = outputs[0];
  const size_t need = (size_t)s->persons * (s->multi ? MULTI_VALUES : 3 * KEYPOINTS);
  if (tfl_tensor_count(t) != need)
    return tfl_fail(diag, TFL_ERR_SHAPE, "pose: MoveNet output %s has %zu values, expected %zu",
                     t->name ? t->name : "0", tfl_tensor_count(t), need);
  const int cap = opt->max_results > 0 && opt->max_results < s->persons ? opt->max_results : s->persons;
  res->poses = calloc((size_t)cap, sizeof(tfl_pose));
  if (!res->poses) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  tfl_status st = TFL_OK;
  for (int i = 0; i < s->persons && res->n_poses < cap && st == TFL_OK; i++) st = emit(s, t, i, tr, opt, res, diag);
  return st;
}

const decoder_impl decoder_movenet = { movenet_create, movenet_run, movenet_free, NULL };
