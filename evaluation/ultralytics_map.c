/* ultralytics_map.c - see ultralytics_map.h */
#include "ultralytics_map.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_IOU 10
#define AP_POINTS 101

typedef struct {
  double score;
  int64_t category_id;
  size_t order;              /* input position: equal scores keep it */
  bool tp[N_IOU];
} ranked;

static bool listed(const int64_t *ids, size_t n, int64_t id)
{
  for (size_t i = 0; i < n; i++)
    if (ids[i] == id) return true;
  return false;
}

static float box_iou(const double a[4], const double b[4])
{
  /* xywh -> corners; float as torch computes it */
  const float ax0 = (float)a[0], ay0 = (float)a[1], ax1 = (float)(a[0] + a[2]), ay1 = (float)(a[1] + a[3]);
  const float bx0 = (float)b[0], by0 = (float)b[1], bx1 = (float)(b[0] + b[2]), by1 = (float)(b[1] + b[3]);
  const float iw = fmaxf(fminf(ax1, bx1) - fmaxf(ax0, bx0), 0.0f), ih = fmaxf(fminf(ay1, by1) - fmaxf(ay0, by0), 0.0f);
  const float inter = iw * ih;
  return inter / ((ax1 - ax0) * (ay1 - ay0) + (bx1 - bx0) * (by1 - by0) - inter + 1e-7f);
}

static int by_score(const void *pa, const void *pb)
{
  const ranked *a = pa, *b = pb;
  if (a->score != b->score) return a->score > b->score ? -1 : 1;
  return a->order < b->order ? -1 : a->order > b->order;
}

/* numpy.interp(x, xp, fp) for non-decreasing xp: the last point at or left of x, then
 * linear to the next one. */
static double interp(double x, const double *xp, const double *fp, size_t n)
{
  if (x > xp[n - 1]) return fp[n - 1];
  if (x < xp[0]) return fp[0];
  size_t lo = 0, hi = n; /* the first index with xp > x */
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (x >= xp[mid]) lo = mid + 1;
    else hi = mid;
  }
  const size_t j = lo - 1;
  if (j == n - 1 || xp[j] == x) return fp[j];
  return (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]) * (x - xp[j]) + fp[j];
}

/* compute_ap on one category's curve of n points (mrec / mpre: room for n + 3). */
static double compute_ap(const double *recall, const double *precision, size_t n, double *mrec, double *mpre)
{
  mrec[0] = 0.0, mpre[0] = 1.0;
  for (size_t i = 0; i < n; i++) mrec[i + 1] = recall[i], mpre[i + 1] = precision[i];
  mrec[n + 1] = n ? recall[n - 1] : 1.0, mpre[n + 1] = 0.0;
  mrec[n + 2] = 1.0, mpre[n + 2] = 0.0;
  for (size_t i = n + 2; i-- > 0;) mpre[i] = fmax(mpre[i], mpre[i + 1]); /* the envelope */
  double ap = 0, prev = interp(0.0, mrec, mpre, n + 3);
  for (int k = 1; k < AP_POINTS; k++) {
    const double x0 = (double)(k - 1) / (AP_POINTS - 1), x1 = k == AP_POINTS - 1 ? 1.0 : (double)k / (AP_POINTS - 1);
    const double y = interp(x1, mrec, mpre, n + 3);
    ap += (x1 - x0) * (prev + y) / 2;
    prev = y;
  }
  return ap;
}

int ultralytics_map(const coco_eval_input *in, double *map50_95, double *map50, char *err, size_t err_size)
{
  float thr[N_IOU];
  for (int t = 0; t < N_IOU; t++) thr[t] = 0.5f + (float)t * (0.45f / (N_IOU - 1)); /* torch.linspace, float32 */
  thr[N_IOU - 1] = 0.95f;
  ranked *r = calloc(in->n_dt ? in->n_dt : 1, sizeof *r);
  double *rec = malloc((in->n_dt + 1) * sizeof *rec), *pre = malloc((in->n_dt + 1) * sizeof *pre);
  double *mrec = malloc((in->n_dt + 4) * sizeof *mrec), *mpre = malloc((in->n_dt + 4) * sizeof *mpre);
  size_t *gts = malloc((in->n_gt ? in->n_gt : 1) * sizeof *gts);
  bool(*claimed)[N_IOU] = calloc(in->n_gt ? in->n_gt : 1, sizeof *claimed);
  size_t *dts = malloc((in->n_dt ? in->n_dt : 1) * sizeof *dts);
  int status = -1;
  if (!r || !rec || !pre || !mrec || !mpre || !gts || !claimed || !dts) {
    snprintf(err, err_size, "out of memory evaluating %zu detections", in->n_dt);
    goto out;
  }
  size_t nr = 0;
  /* per image: its truth and its detections in score order, matched greedily */
  for (size_t im = 0; im < in->n_images; im++) {
    const int64_t id = in->image_ids[im];
    if (listed(in->image_ids, im, id)) continue; /* a repeat */
    size_t ng = 0, nd = 0;
    for (size_t g = 0; g < in->n_gt; g++)
      if (in->gt[g].image_id == id && !in->gt[g].iscrowd &&
          listed(in->category_ids, in->n_categories, in->gt[g].category_id))
        gts[ng++] = g;
    for (size_t d = 0; d < in->n_dt; d++)
      if (in->dt[d].image_id == id && listed(in->category_ids, in->n_categories, in->dt[d].category_id)) dts[nd++] = d;
    /* score order, equal scores in input order (insertion sort: few per image) */
    for (size_t a = 1; a < nd; a++)
      for (size_t b = a; b > 0 && in->dt[dts[b]].score > in->dt[dts[b - 1]].score; b--) {
        const size_t t = dts[b];
        dts[b] = dts[b - 1], dts[b - 1] = t;
      }
    memset(claimed, 0, ng * sizeof *claimed);
    for (size_t k = 0; k < nd; k++) {
      const coco_det *d = &in->dt[dts[k]];
      ranked *o = &r[nr++];
      o->score = d->score, o->category_id = d->category_id, o->order = dts[k];
      for (int t = 0; t < N_IOU; t++) {
        /* the unclaimed truth of the category with the highest IoU, the first of equal ones */
        float best = 0.0f;
        size_t bi = SIZE_MAX;
        for (size_t g = 0; g < ng; g++) {
          const coco_gt *x = &in->gt[gts[g]];
          const float iou = x->category_id == d->category_id && !claimed[g][t] ? box_iou(x->bbox, d->bbox) : 0.0f;
          if (bi == SIZE_MAX || iou > best) best = iou, bi = g;
        }
        o->tp[t] = bi != SIZE_MAX && best >= thr[t];
        if (o->tp[t]) claimed[bi][t] = true;
      }
    }
  }
  qsort(r, nr, sizeof *r, by_score);
  /* categories with truth, each with its count */
  double sum = 0, sum50 = 0;
  size_t nc = 0;
  for (size_t c = 0; c < in->n_categories; c++) {
    const int64_t cat = in->category_ids[c];
    if (listed(in->category_ids, c, cat)) continue;
    size_t n_truth = 0;
    for (size_t im = 0; im < in->n_images; im++) {
      if (listed(in->image_ids, im, in->image_ids[im])) continue;
      for (size_t g = 0; g < in->n_gt; g++)
        n_truth += in->gt[g].image_id == in->image_ids[im] && in->gt[g].category_id == cat && !in->gt[g].iscrowd;
    }
    if (!n_truth) continue;
    nc++;
    for (int t = 0; t < N_IOU; t++) {
      size_t n = 0, tp = 0, fp = 0;
      for (size_t i = 0; i < nr; i++) {
        if (r[i].category_id != cat) continue;
        tp += r[i].tp[t], fp += !r[i].tp[t];
        rec[n] = (double)tp / ((double)n_truth + 1e-16);
        pre[n] = (double)tp / (double)(tp + fp);
        n++;
      }
      const double ap = n ? compute_ap(rec, pre, n, mrec, mpre) : 0.0;
      sum += ap;
      if (t == 0) sum50 += ap;
    }
  }
  *map50_95 = nc ? sum / (double)(nc * N_IOU) : 0.0;
  *map50 = nc ? sum50 / (double)nc : 0.0;
  status = 0;
out:
  free(r);
  free(rec);
  free(pre);
  free(mrec);
  free(mpre);
  free(gts);
  free(claimed);
  free(dts);
  return status;
}
