/* nms.c - see nms.h */
#include "nms.h"

#include <stdlib.h>
#include <string.h>

static int cmp_scored(const void *pa, const void *pb)
{
  const nms_scored *a = pa, *b = pb;
  if (a->score > b->score) return -1;
  if (a->score < b->score) return 1;
  return (a->index > b->index) - (a->index < b->index);
}

void nms_sort(nms_scored *c, int n)
{
  if (n > 1) qsort(c, (size_t)n, sizeof *c, cmp_scored);
}

int nms_collect(const float *scores, int n, int stride, float threshold, nms_scored *out)
{
  int k = 0;
  for (int i = 0; i < n; i++) {
    const float s = scores[(size_t)i * (size_t)stride];
    if (s >= threshold) out[k++] = (nms_scored){s, i};
  }
  nms_sort(out, k);
  return k;
}

int nms_greedy(const pp_box *boxes, const nms_scored *c, int n, float iou_threshold, int max_out,
               int *selected, uint8_t *scratch)
{
  int taken = 0;
  memset(scratch, 1, (size_t)(n > 0 ? n : 0));
  for (int i = 0; i < n && taken < max_out; i++) {
    if (!scratch[i]) continue;
    scratch[i] = 0;
    const pp_box *best = &boxes[c[i].index];
    selected[taken++] = c[i].index;
    for (int j = i + 1; j < n; j++) {
      if (scratch[j] && pp_box_iou(best, &boxes[c[j].index]) > iou_threshold) scratch[j] = 0;
    }
  }
  return taken;
}

int nms_weighted(const pp_box *boxes, const float *extra, int n_extra, const nms_scored *c, int n,
                 float iou_threshold, int max_out, pp_box *out_boxes, float *out_scores,
                 int *out_index, float *out_extra, uint8_t *scratch)
{
  int taken = 0;
  memset(scratch, 1, (size_t)(n > 0 ? n : 0));
  for (int i = 0; i < n && taken < max_out; i++) {
    if (!scratch[i]) continue;
    const pp_box *best = &boxes[c[i].index];
    /* sums in double: many overlapping anchors of similar score */
    double sy0 = 0, sx0 = 0, sy1 = 0, sx1 = 0, total = 0;
    float *ex = out_extra ? out_extra + (size_t)taken * (size_t)n_extra : NULL;
    if (ex) memset(ex, 0, sizeof(float) * (size_t)n_extra);
    for (int j = i; j < n; j++) {
      if (!scratch[j]) continue;
      const pp_box *b = &boxes[c[j].index];
      if (j != i && !(pp_box_iou(best, b) > iou_threshold)) continue;
      scratch[j] = 0;
      const double w = c[j].score;
      total += w;
      sy0 += w * b->ymin;
      sx0 += w * b->xmin;
      sy1 += w * b->ymax;
      sx1 += w * b->xmax;
      if (ex) {
        const float *e = extra + (size_t)c[j].index * (size_t)n_extra;
        for (int k = 0; k < n_extra; k++) ex[k] += (float)(w * e[k]);
      }
    }
    if (total > 0) {
      out_boxes[taken] = (pp_box){(float)(sy0 / total), (float)(sx0 / total),
                                   (float)(sy1 / total), (float)(sx1 / total)};
      if (ex)
        for (int k = 0; k < n_extra; k++) ex[k] = (float)(ex[k] / total);
    } else { /* all weights zero: keep the best box as it is */
      out_boxes[taken] = *best;
      if (ex) memcpy(ex, extra + (size_t)c[i].index * (size_t)n_extra, sizeof(float) * (size_t)n_extra);
    }
    out_scores[taken] = c[i].score;
    out_index[taken] = c[i].index;
    taken++;
  }
  return taken;
}
