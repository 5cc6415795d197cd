/* tfl_results.c - see tfl_results.h */
#include "tfl_results.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void tfl_results_clear_tensors(tfl_results *r)
{
  for (int i = 0; i < r->n_tensors; i++) free(r->tensors[i].data);
  free(r->tensors);
  r->tensors = NULL;
  r->n_tensors = 0;
}

void tfl_results_clear(tfl_results *r)
{
  if (!r) return;
  tfl_results_clear_tensors(r);
  for (int i = 0; i < r->n_boxes; i++) {
    free(r->boxes[i].keypoints);
    free(r->boxes[i].mask.prob);
  }
  for (int i = 0; i < r->n_poses; i++) {
    free(r->poses[i].keypoints);
    free(r->poses[i].aux);
  }
  free(r->classes);
  free(r->boxes);
  free(r->poses);
  free(r->mask.classes);
  free(r->mask.prob);
  memset(r, 0, sizeof *r);
}

static void *dup_array(const void *src, size_t bytes)
{
  if (!src || !bytes) return NULL;
  void *p = malloc(bytes);
  if (p) memcpy(p, src, bytes);
  return p;
}

int tfl_results_copy(tfl_results *dst, const tfl_results *src)
{
  *dst = *src;
  dst->classes = dup_array(src->classes, sizeof(tfl_class) * (size_t)src->n_classes);
  dst->boxes = dup_array(src->boxes, sizeof(tfl_box) * (size_t)src->n_boxes);
  dst->poses = dup_array(src->poses, sizeof(tfl_pose) * (size_t)src->n_poses);
  size_t px = (size_t)src->mask.width * (size_t)src->mask.height;
  dst->mask.classes = dup_array(src->mask.classes, px);
  dst->mask.prob = dup_array(src->mask.prob, px * sizeof(float));
  dst->tensors = dup_array(src->tensors, sizeof(tfl_raw_tensor) * (size_t)src->n_tensors);
  int ok = (!src->n_classes || dst->classes) && (!src->n_boxes || dst->boxes) &&
           (!src->n_tensors || dst->tensors) &&
           (!src->n_poses || dst->poses) && (!src->mask.classes || dst->mask.classes) &&
           (!src->mask.prob || dst->mask.prob);
  for (int i = 0; dst->boxes && i < src->n_boxes; i++) {
    dst->boxes[i].keypoints = dup_array(src->boxes[i].keypoints,
                                        sizeof(tfl_keypoint) * (size_t)src->boxes[i].n_keypoints);
    ok &= !src->boxes[i].n_keypoints || dst->boxes[i].keypoints != NULL;
    const tfl_box_mask *m = &src->boxes[i].mask;
    dst->boxes[i].mask.prob = dup_array(m->prob, sizeof(float) * (size_t)m->width * (size_t)m->height);
    ok &= !m->prob || dst->boxes[i].mask.prob != NULL;
  }
  for (int i = 0; dst->poses && i < src->n_poses; i++) {
    dst->poses[i].keypoints = dup_array(src->poses[i].keypoints,
                                        sizeof(tfl_keypoint) * (size_t)src->poses[i].n_keypoints);
    dst->poses[i].aux = dup_array(src->poses[i].aux, sizeof(tfl_keypoint) * (size_t)src->poses[i].n_aux);
    ok &= !src->poses[i].n_keypoints || dst->poses[i].keypoints != NULL;
    ok &= !src->poses[i].n_aux || dst->poses[i].aux != NULL;
  }
  for (int i = 0; dst->tensors && i < src->n_tensors; i++) {
    dst->tensors[i].data = dup_array(src->tensors[i].data, src->tensors[i].bytes);
    ok &= !src->tensors[i].bytes || dst->tensors[i].data != NULL;
  }
  if (!dst->boxes) dst->n_boxes = 0;
  if (!dst->tensors) dst->n_tensors = 0;
  if (!dst->poses) dst->n_poses = 0;
  if (!dst->classes) dst->n_classes = 0;
  return ok ? 0 : -1;
}
