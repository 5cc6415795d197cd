/* yolo_obb.c - see yolo_obb.h */
#include "yolo_obb.h"

#include <math.h>

#define PROBIOU_EPS 1e-7f

/* The Gaussian's covariance [[a, c], [c, b]] of a box: (w^2/12, h^2/12) rotated. */
static void covariance(const pp_rbox *r, float *a, float *b, float *c)
{
  const float va = r->w * r->w / 12.0f, vb = r->h * r->h / 12.0f;
  const float co = cosf(r->angle), si = sinf(r->angle);
  *a = va * co * co + vb * si * si;
  *b = va * si * si + vb * co * co;
  *c = (va - vb) * co * si;
}

float pp_rbox_probiou(const pp_rbox *p, const pp_rbox *q)
{
  float a1, b1, c1, a2, b2, c2;
  covariance(p, &a1, &b1, &c1);
  covariance(q, &a2, &b2, &c2);
  const float dx = p->cx - q->cx, dy = p->cy - q->cy;
  const float sa = a1 + a2, sb = b1 + b2, sc = c1 + c2;
  const float den = sa * sb - sc * sc + PROBIOU_EPS;
  const float t1 = (sa * dy * dy + sb * dx * dx) / den * 0.25f;
  const float t2 = (sc * (-dx) * dy) / den * 0.5f;  /* (x2 - x1)(y1 - y2) */
  const float d1 = fmaxf(a1 * b1 - c1 * c1, 0.0f), d2 = fmaxf(a2 * b2 - c2 * c2, 0.0f);
  const float t3 = 0.5f * logf((sa * sb - sc * sc) / (4.0f * sqrtf(d1 * d2) + PROBIOU_EPS) + PROBIOU_EPS);
  float bd = t1 + t2 + t3;
  bd = bd < PROBIOU_EPS ? PROBIOU_EPS : bd > 100.0f ? 100.0f : bd;  /* NaN stays NaN: no overlap */
  const float hd = sqrtf(1.0f - expf(-bd) + PROBIOU_EPS);
  return 1.0f - hd;
}

void pp_rbox_corners(const pp_rbox *r, float xy[8])
{
  const float co = cosf(r->angle), si = sinf(r->angle);
  const float ux = r->w * 0.5f * co, uy = r->w * 0.5f * si;   /* half the width axis */
  const float vx = -r->h * 0.5f * si, vy = r->h * 0.5f * co;  /* half the height axis */
  const float s[4][2] = { { 1, 1 }, { 1, -1 }, { -1, -1 }, { -1, 1 } };
  for (int k = 0; k < 4; k++) {
    xy[2 * k] = r->cx + s[k][0] * ux + s[k][1] * vx;
    xy[2 * k + 1] = r->cy + s[k][0] * uy + s[k][1] * vy;
  }
}

int pp_yolo_detect_obb(const pp_yolo_params *p, const float *v, const pp_yolo_obb_work *w, pp_yolo_found *out)
{
  const size_t bs = p->box_step, vs = p->value_step;
  const size_t angle_at = (size_t)(4 + p->n_classes) * vs;
  int k = 0;
  for (int i = 0; i < p->n_boxes; i++) {
    const float *b = v + (size_t)i * bs;
    int best = -1;
    float score = 0.0f;
    for (int c = 0; c < p->n_classes; c++) {
      const float s = b[(size_t)(4 + c) * vs];
      if (best < 0 || s > score) {
        best = c;
        score = s;
      }
    }
    if (best < 0 || !(score > p->threshold)) continue;
    w->rboxes[i] = (pp_rbox){ b[0] * p->scale_x, b[vs] * p->scale_y, b[2 * vs] * p->scale_x, b[3 * vs] * p->scale_y,
                              b[angle_at] };
    w->classes[i] = best;
    w->cand[k++] = (nms_scored){ score, i };
  }
  nms_sort(w->cand, k);
  /* fast NMS: suppressed by any better candidate of the class, suppressed or not */
  int m = 0;
  for (int i = 0; i < k && m < p->max_out; i++) {
    const int bi = w->cand[i].index;
    bool keep = true;
    for (int j = 0; j < i && keep; j++) {
      const int bj = w->cand[j].index;
      if ((p->agnostic || w->classes[bj] == w->classes[bi]) &&
          pp_rbox_probiou(&w->rboxes[bj], &w->rboxes[bi]) > p->iou_threshold)
        keep = false;
    }
    if (keep) w->selected[m++] = bi;
  }
  for (int i = 0; i < m; i++) {
    const int bi = w->selected[i];
    float xy[8];
    pp_rbox_corners(&w->rboxes[bi], xy);
    pp_box bb = { xy[1], xy[0], xy[1], xy[0] };
    for (int c = 1; c < 4; c++) {
      bb.xmin = fminf(bb.xmin, xy[2 * c]), bb.xmax = fmaxf(bb.xmax, xy[2 * c]);
      bb.ymin = fminf(bb.ymin, xy[2 * c + 1]), bb.ymax = fmaxf(bb.ymax, xy[2 * c + 1]);
    }
    out[i] = (pp_yolo_found){ bb, v[(size_t)bi * bs + (size_t)(4 + w->classes[bi]) * vs], w->classes[bi], bi };
  }
  return m;
}
