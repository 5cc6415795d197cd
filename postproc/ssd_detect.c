/* ssd_detect.c - see ssd_detect.h */
#include "ssd_detect.h"

#include <math.h>
#include <stddef.h>

#include "anchor_detect.h"

pp_box pp_ssd_box(const float *enc, const float *anchors, int a, const float scale[4])
{
  const float *e = enc + 4 * (size_t)a, *an = anchors + 4 * (size_t)a;
  const double code[4] = {e[0], e[1], e[2], e[3]};
  const double anchor[4] = {an[0], an[1], an[2], an[3]};
  return pp_box_decode_center_size(code, anchor, scale);
}

int pp_ssd_class_nms(const pp_ssd_params *p, const pp_box *boxes, const float *scores, int n_anchors, int n_classes,
                     int c, const pp_ssd_work *w, nms_scored *out)
{
  const float thr = pp_anchor_raw_threshold(p->score_threshold, p->prob_scores);
  int k = 0;
  for (int a = 0; a < n_anchors; a++) {
    const float v = scores[(size_t)a * (size_t)n_classes + (size_t)c];
    const pp_box *b = &boxes[a];
    if (v >= thr && isfinite(b->ymin + b->ymax + b->xmin + b->xmax))
      w->cand[k++] = (nms_scored){pp_anchor_prob(v, p->prob_scores), a};
  }
  nms_sort(w->cand, k);
  const int m = nms_greedy(boxes, w->cand, k, p->iou_threshold, p->max_out, w->sel, w->scratch);
  for (int i = 0, j = 0; i < m; i++) {
    while (w->cand[j].index != w->sel[i]) j++; /* selections keep the candidates' order */
    out[i] = w->cand[j];
  }
  return m;
}

int pp_ssd_keep(pp_ssd_found *found, int n, int cap, pp_ssd_found f)
{
  if (n == cap && !(f.score > found[n - 1].score)) return n;
  int i = n < cap ? n++ : n - 1;
  for (; i > 0 && found[i - 1].score < f.score; i--) found[i] = found[i - 1];
  found[i] = f;
  return n;
}
