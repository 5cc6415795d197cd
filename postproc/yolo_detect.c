/* yolo_detect.c - see yolo_detect.h */
#include "yolo_detect.h"

#include <string.h>

int pp_nms_greedy_by_class(const pp_box *boxes, const int *classes, const nms_scored *c, int n,
                           float iou_threshold, int max_out, int *selected, uint8_t *scratch)
{
  int taken = 0;
  memset(scratch, 1, (size_t)(n > 0 ? n : 0));
  for (int i = 0; i < n && taken < max_out; i++) {
    if (!scratch[i]) continue;
    scratch[i] = 0;
    const int bi = c[i].index;
    selected[taken++] = bi;
    for (int j = i + 1; j < n; j++) {
      const int bj = c[j].index;
      if (scratch[j] && classes[bj] == classes[bi] && pp_box_iou(&boxes[bi], &boxes[bj]) > iou_threshold)
        scratch[j] = 0;
    }
  }
  return taken;
}

int pp_yolo_detect(const pp_yolo_params *p, const float *v, const pp_yolo_work *w, pp_yolo_found *out)
{
  const size_t bs = p->box_step, vs = p->value_step;
  const int first_class = p->objectness ? 5 : 4;
  int k = 0;
  for (int i = 0; i < p->n_boxes; i++) {
    const float *b = v + (size_t)i * bs;
    float obj = 1.0f;
    if (p->objectness) {
      obj = b[4 * vs];
      if (!(obj > p->threshold)) continue;
    }
    /* the best class; the first of equal scores, as torch's max */
    int best = -1;
    float score = 0.0f;
    for (int c = 0; c < p->n_classes; c++) {
      const float s = b[(size_t)(first_class + c) * vs] * obj;
      if (best < 0 || s > score) {
        best = c;
        score = s;
      }
    }
    if (best < 0 || !(score > p->threshold)) continue;  /* NaN never passes */
    const float cx = b[0] * p->scale_x, cy = b[vs] * p->scale_y;
    const float hw = b[2 * vs] * p->scale_x * 0.5f, hh = b[3 * vs] * p->scale_y * 0.5f;
    w->boxes[i] = (pp_box){ cy - hh, cx - hw, cy + hh, cx + hw };
    w->classes[i] = best;
    w->cand[k++] = (nms_scored){ score, i };
  }
  nms_sort(w->cand, k);
  const int m = p->agnostic ? nms_greedy(w->boxes, w->cand, k, p->iou_threshold, p->max_out, w->selected, w->scratch)
                             : pp_nms_greedy_by_class(w->boxes, w->classes, w->cand, k, p->iou_threshold, p->max_out,
                                                      w->selected, w->scratch);
  for (int i = 0; i < m; i++) {
    const int bi = w->selected[i];
    out[i].index = bi;
    const float *b = v + (size_t)bi * bs;
    const float obj = p->objectness ? b[4 * vs] : 1.0f;
    out[i].box = w->boxes[bi];
    out[i].class_id = w->classes[bi];
    out[i].score = b[(size_t)(first_class + w->classes[bi]) * vs] * obj;
  }
  return m;
}

int pp_yolo_detect_multilabel(const pp_yolo_params *p, const float *v, const pp_yolo_work *w, pp_yolo_found *out)
{
  const size_t bs = p->box_step, vs = p->value_step, nc = (size_t)(p->n_classes > 0 ? p->n_classes : 0);
  const int first_class = p->objectness ? 5 : 4;
  int k = 0;
  for (int i = 0; i < p->n_boxes; i++) {
    const float *b = v + (size_t)i * bs;
    const float obj = p->objectness ? b[4 * vs] : 1.0f;
    if (p->objectness && !(obj > p->threshold)) continue;
    const float cx = b[0] * p->scale_x, cy = b[vs] * p->scale_y;
    const float hw = b[2 * vs] * p->scale_x * 0.5f, hh = b[3 * vs] * p->scale_y * 0.5f;
    for (size_t c = 0; c < nc; c++) {
      const float s = b[((size_t)first_class + c) * vs] * obj;
      if (!(s > p->threshold)) continue;  /* NaN never passes */
      const size_t pair = (size_t)i * nc + c;
      w->boxes[pair] = (pp_box){ cy - hh, cx - hw, cy + hh, cx + hw };
      w->classes[pair] = (int)c;
      w->cand[k++] = (nms_scored){ s, (int)pair };
    }
  }
  nms_sort(w->cand, k);
  const int m = p->agnostic ? nms_greedy(w->boxes, w->cand, k, p->iou_threshold, p->max_out, w->selected, w->scratch)
                             : pp_nms_greedy_by_class(w->boxes, w->classes, w->cand, k, p->iou_threshold, p->max_out,
                                                      w->selected, w->scratch);
  for (int i = 0; i < m; i++) {
    const int pair = w->selected[i], bi = (int)((size_t)pair / nc), c = w->classes[pair];
    const float *b = v + (size_t)bi * bs;
    out[i] = (pp_yolo_found){ w->boxes[pair], b[(size_t)(first_class + c) * vs] * (p->objectness ? b[4 * vs] : 1.0f),
                              c, bi };
  }
  return m;
}
