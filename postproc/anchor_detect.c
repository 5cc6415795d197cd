/* anchor_detect.c - see anchor_detect.h */
#include "anchor_detect.h"

#include <math.h>
#include <stddef.h>

float pp_anchor_prob(float v, bool prob_scores)
{
  if (prob_scores) return v;
  v = fminf(fmaxf(v, -100.0f), 100.0f);
  return 1.0f / (1.0f + expf(-v));
}

float pp_anchor_raw_threshold(float thr, bool prob_scores)
{
  if (prob_scores) return thr;
  if (thr <= 0.0f) return -INFINITY;
  if (thr >= 1.0f) return INFINITY;
  return logf(thr / (1.0f - thr));
}

int pp_anchor_detect(const pp_anchor_params *p, const float *reg, int row, const float *scores,
                     const float *anchors, int n_anchors, const pp_anchor_work *w, const pp_anchor_out *out)
{
  const int nk = p->n_keypoints;
  const float thr = pp_anchor_raw_threshold(p->score_threshold, p->prob_scores);
  int k = 0;
  for (int a = 0; a < n_anchors; a++) {
    const float v = scores[a];
    if (!(v >= thr)) continue;
    const float *an = anchors + 4 * (size_t)a, *r = reg + (size_t)a * (size_t)row;
    const float ay = an[0], ax = an[1], ah = an[2], aw = an[3];
    /* MediaPipe's order: x, y, w, h, then x, y per keypoint */
    const float xc = r[0] / p->scale[1] * aw + ax;
    const float yc = r[1] / p->scale[0] * ah + ay;
    const float bw = r[2] / p->scale[3] * aw;
    const float bh = r[3] / p->scale[2] * ah;
    if (!isfinite(xc + yc + bw + bh)) continue;
    w->boxes[a] = (pp_box){ yc - 0.5f * bh, xc - 0.5f * bw, yc + 0.5f * bh, xc + 0.5f * bw };
    float *kp = w->kps + (size_t)a * 2 * (size_t)nk;
    for (int j = 0; j < nk; j++) {
      kp[2 * j] = r[4 + 2 * j] / p->scale[1] * aw + ax;
      kp[2 * j + 1] = r[5 + 2 * j] / p->scale[0] * ah + ay;
    }
    w->cand[k++] = (nms_scored){ pp_anchor_prob(v, p->prob_scores), a };
  }
  nms_sort(w->cand, k);
  return nms_weighted(w->boxes, w->kps, 2 * nk, w->cand, k, p->iou_threshold, p->max_out, out->boxes,
                      out->scores, out->index, nk ? out->kps : NULL, w->scratch);
}
