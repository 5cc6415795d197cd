/* coco_metric.c - see coco_metric.h. One category at a time: match every image's
 * detections against its ground truth for the 4 area ranges and 10 thresholds, then rank
 * the category's detections and read precision and recall off the ranking. */
#include "coco_metric.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval_error.h"

#define N_IOU 10      /* IoU thresholds 0.50:0.05:0.95 */
#define N_REC 101     /* recall points 0:0.01:1 */
#define N_AREA 4      /* all, small, medium, large */
#define N_MAXDET 3    /* 1, 10, 100 detections per image */
#define MAX_DETS 100

static const int max_dets[N_MAXDET] = { 1, 10, MAX_DETS };
static const double area_lo[N_AREA] = { 0.0, 0.0, 32.0 * 32.0, 96.0 * 96.0 };
static const double area_hi[N_AREA] = { 1e10, 32.0 * 32.0, 96.0 * 96.0, 1e10 };

/* The thresholds as numpy's linspace makes them (start + i * step, the last one exact), so
 * an IoU equal to a threshold falls on the same side as in pycocotools. */
static void make_thresholds(double iou[N_IOU], double rec[N_REC])
{
  const double iou_step = (0.95 - 0.5) / (N_IOU - 1), rec_step = 1.0 / (N_REC - 1);
  for (int t = 0; t < N_IOU; t++) iou[t] = (double)t * iou_step + 0.5;
  iou[N_IOU - 1] = 0.95;
  for (int r = 0; r < N_REC; r++) rec[r] = (double)r * rec_step;
  rec[N_REC - 1] = 1.0;
}

static int cmp_i64(const void *a, const void *b)
{
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Sorted copy without repeats; NULL on OOM (an empty list gives a 1-element buffer). */
static int64_t *unique_sorted(const int64_t *v, size_t n, size_t *out_n)
{
  int64_t *u = malloc((n ? n : 1) * sizeof *u);
  if (!u) return NULL;
  if (n) memcpy(u, v, n * sizeof *u);
  qsort(u, n, sizeof *u, cmp_i64);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (k == 0 || u[k - 1] != u[i]) u[k++] = u[i];
  *out_n = k;
  return u;
}

static long find_id(const int64_t *ids, size_t n, int64_t id)
{
  const int64_t *p = bsearch(&id, ids, n, sizeof *ids, cmp_i64);
  return p ? (long)(p - ids) : -1;
}

/* An annotation or detection placed in its (category, image) cell. */
typedef struct {
  long cat, img;
  size_t index;     /* position in the caller's array */
  double score;     /* detections; 0 for ground truth */
} placed;

static int cmp_placed(const void *a, const void *b)
{
  const placed *x = a, *y = b;
  if (x->cat != y->cat) return x->cat < y->cat ? -1 : 1;
  if (x->img != y->img) return x->img < y->img ? -1 : 1;
  if (x->score != y->score) return x->score > y->score ? -1 : 1;  /* highest first */
  return (x->index > y->index) - (x->index < y->index);           /* stable */
}

/* One ranked detection of the current category. */
typedef struct {
  double score;
  int rank;         /* position among its image's detections (score order) */
  size_t pos;       /* position in the image-by-image concatenation */
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
  const ranked *x = a, *y = b;
  if (x->score != y->score) return x->score > y->score ? -1 : 1;
  return (x->pos > y->pos) - (x->pos < y->pos);
}

/* IoU as pycocotools' bbIou: against a crowd region, intersection over the detection. */
static double box_iou(const double *d, const double *g, bool crowd)
{
  double w = fmin(d[0] + d[2], g[0] + g[2]) - fmax(d[0], g[0]);
  if (w <= 0) return 0;
  double h = fmin(d[1] + d[3], g[1] + g[3]) - fmax(d[1], g[1]);
  if (h <= 0) return 0;
  double inter = w * h, da = d[2] * d[3];
  return inter / (crowd ? da : da + g[2] * g[3] - inter);
}

/* Sums behind the 12 averages. */
typedef struct {
  double sum[COCO_STATS_COUNT];
  size_t count[COCO_STATS_COUNT];
} stat_sums;

static void add(stat_sums *s, coco_stat i, double v)
{
  s->sum[i] += v;
  s->count[i]++;
}

/* Working memory for one category, grown as needed. */
typedef struct {
  ranked *det;              /* the category's detections, image by image */
  uint16_t *tp[N_AREA];     /* per detection: bit t set = matched at threshold t */
  uint16_t *ig[N_AREA];     /* per detection: bit t set = ignored at threshold t */
  size_t n, cap;
  size_t npig[N_AREA];      /* regular ground truth per area range */
  bool any_cell;            /* some image has ground truth or detections */
  /* per cell */
  double *iou;              /* D x G */
  int *order;               /* G: regular ground truth first */
  bool *gt_ig, *taken;      /* G; N_IOU x G */
  size_t cell_cap;
  /* ranking */
  double *rc, *pr;          /* n */
} work;

static bool grow_dets(work *w, size_t need)
{
  if (need <= w->cap) return true;
  size_t cap = w->cap ? w->cap : 256;
  while (cap < need) cap *= 2;
  ranked *d = realloc(w->det, cap * sizeof *d);
  if (!d) return false;
  w->det = d;
  for (int a = 0; a < N_AREA; a++) {
    uint16_t *t = realloc(w->tp[a], cap * sizeof *t);
    if (!t) return false;
    w->tp[a] = t;
    uint16_t *g = realloc(w->ig[a], cap * sizeof *g);
    if (!g) return false;
    w->ig[a] = g;
  }
  double *rc = realloc(w->rc, cap * sizeof *rc);
  if (!rc) return false;
  w->rc = rc;
  double *pr = realloc(w->pr, cap * sizeof *pr);
  if (!pr) return false;
  w->pr = pr;
  w->cap = cap;
  return true;
}

static bool grow_cell(work *w, size_t n_gt)
{
  if (n_gt <= w->cell_cap && w->iou) return true;
  size_t cap = n_gt > 16 ? n_gt : 16;
  free(w->iou);
  free(w->order);
  free(w->gt_ig);
  free(w->taken);
  w->iou = malloc((size_t)MAX_DETS * cap * sizeof *w->iou);
  w->order = malloc(cap * sizeof *w->order);
  w->gt_ig = malloc(cap * sizeof *w->gt_ig);
  w->taken = malloc((size_t)N_IOU * cap * sizeof *w->taken);
  w->cell_cap = cap;
  return w->iou && w->order && w->gt_ig && w->taken;
}

static void work_free(work *w)
{
  free(w->det);
  for (int a = 0; a < N_AREA; a++) {
    free(w->tp[a]);
    free(w->ig[a]);
  }
  free(w->rc);
  free(w->pr);
  free(w->iou);
  free(w->order);
  free(w->gt_ig);
  free(w->taken);
}

/* Matches one image's detections (score order, at most MAX_DETS) with its ground truth
 * in one category, for every area range and threshold (COCOeval.evaluateImg). */
static bool eval_cell(work *w, const coco_gt *gt, const placed *g, size_t ng, const coco_det *dt,
                      const placed *d, size_t nd, const double thr[N_IOU])
{
  if (ng == 0 && nd == 0) return true;
  w->any_cell = true;
  if (nd > MAX_DETS) nd = MAX_DETS;
  if (!grow_cell(w, ng) || !grow_dets(w, w->n + nd)) return false;
  for (size_t i = 0; i < nd; i++)
    for (size_t j = 0; j < ng; j++)
      w->iou[i * ng + j] = box_iou(dt[d[i].index].bbox, gt[g[j].index].bbox, gt[g[j].index].iscrowd);
  size_t base = w->n;
  for (size_t i = 0; i < nd; i++)
    w->det[base + i] = (ranked){ dt[d[i].index].score, (int)i, base + i };
  w->n += nd;

  for (int a = 0; a < N_AREA; a++) {
    /* ground truth ignored in this range goes last, keeping its order */
    size_t k = 0;
    for (int pass = 0; pass < 2; pass++)
      for (size_t j = 0; j < ng; j++) {
        const coco_gt *o = &gt[g[j].index];
        bool ig = o->iscrowd || o->area < area_lo[a] || o->area > area_hi[a];
        if (ig != (pass == 1)) continue;
        w->order[k] = (int)j;
        w->gt_ig[k++] = ig;
        if (!ig) w->npig[a]++;
      }
    memset(w->taken, 0, (size_t)N_IOU * ng * sizeof *w->taken);
    for (size_t i = 0; i < nd; i++) {
      const coco_det *o = &dt[d[i].index];
      double box_area = o->bbox[2] * o->bbox[3];
      bool outside = box_area < area_lo[a] || box_area > area_hi[a];
      uint16_t tp = 0, ig = 0;
      for (int t = 0; t < N_IOU; t++) {
        double best = fmin(thr[t], 1 - 1e-10);
        long m = -1;
        bool *taken = w->taken + (size_t)t * ng;
        for (size_t k2 = 0; k2 < ng; k2++) {
          int j = w->order[k2];
          if (taken[k2] && !gt[g[j].index].iscrowd) continue;
          /* matched regular ground truth already: ignored ground truth comes only after */
          if (m > -1 && !w->gt_ig[m] && w->gt_ig[k2]) break;
          double v = w->iou[i * ng + (size_t)j];
          if (v < best) continue;
          best = v;
          m = (long)k2;
        }
        if (m == -1) {
          if (outside) ig |= (uint16_t)(1u << t);
          continue;
        }
        tp |= (uint16_t)(1u << t);
        if (w->gt_ig[m]) ig |= (uint16_t)(1u << t);
        taken[m] = true;
      }
      w->tp[a][base + i] = tp;
      w->ig[a][base + i] = ig;
    }
  }
  return true;
}

/* Precision at the recall points and the last recall for one category, area range,
 * maxDets and threshold (COCOeval.accumulate), added to the sums it feeds. */
static void accumulate(work *w, const size_t *sorted, int a, int m, int t, const double rec[N_REC],
                       stat_sums *s)
{
  double tp = 0, fp = 0;
  size_t nd = 0;
  const uint16_t bit = (uint16_t)(1u << t);
  for (size_t k = 0; k < w->n; k++) {
    size_t i = sorted[k];
    if (w->det[i].rank >= max_dets[m]) continue;
    if (!(w->ig[a][i] & bit)) {
      if (w->tp[a][i] & bit) tp += 1;
      else fp += 1;
    }
    w->rc[nd] = tp / (double)w->npig[a];
    w->pr[nd] = tp / (fp + tp + DBL_EPSILON);  /* numpy's spacing(1) */
    nd++;
  }
  double recall = nd ? w->rc[nd - 1] : 0.0;
  for (size_t i = nd; i-- > 1;)
    if (w->pr[i] > w->pr[i - 1]) w->pr[i - 1] = w->pr[i];
  double prec_sum = 0;
  size_t i = 0;
  for (int r = 0; r < N_REC; r++) {
    while (i < nd && w->rc[i] < rec[r]) i++;  /* numpy searchsorted, side left */
    if (i == nd) break;                       /* past the last recall: 0 */
    prec_sum += w->pr[i];
  }
  if (m == N_MAXDET - 1) {
    static const coco_stat ap_by_area[N_AREA] = { COCO_AP, COCO_AP_SMALL, COCO_AP_MEDIUM, COCO_AP_LARGE };
    static const coco_stat ar_by_area[N_AREA] = { COCO_AR100, COCO_AR_SMALL, COCO_AR_MEDIUM, COCO_AR_LARGE };
    s->sum[ap_by_area[a]] += prec_sum;
    s->count[ap_by_area[a]] += N_REC;
    add(s, ar_by_area[a], recall);
    if (a == 0 && t == 0) {
      s->sum[COCO_AP50] += prec_sum;
      s->count[COCO_AP50] += N_REC;
    }
    if (a == 0 && t == 5) {
      s->sum[COCO_AP75] += prec_sum;
      s->count[COCO_AP75] += N_REC;
    }
  } else if (a == 0) {
    add(s, m == 0 ? COCO_AR1 : COCO_AR10, recall);
  }
}

static bool finish_category(work *w, const double rec[N_REC], stat_sums *s)
{
  if (!w->any_cell) return true;
  size_t *sorted = malloc((w->n ? w->n : 1) * sizeof *sorted);
  ranked *tmp = malloc((w->n ? w->n : 1) * sizeof *tmp);
  if (!sorted || !tmp) {
    free(sorted);
    free(tmp);
    return false;
  }
  if (w->n) memcpy(tmp, w->det, w->n * sizeof *tmp);
  qsort(tmp, w->n, sizeof *tmp, cmp_ranked);
  for (size_t k = 0; k < w->n; k++) sorted[k] = tmp[k].pos;
  free(tmp);
  for (int a = 0; a < N_AREA; a++) {
    if (w->npig[a] == 0) continue;  /* no regular ground truth: left out (-1) */
    for (int m = 0; m < N_MAXDET; m++) {
      if (a != 0 && m != N_MAXDET - 1) continue;  /* no stat reads it */
      for (int t = 0; t < N_IOU; t++) accumulate(w, sorted, a, m, t, rec, s);
    }
  }
  free(sorted);
  return true;
}

static int check_numbers(const coco_eval_input *in, char *err, size_t n)
{
  for (size_t i = 0; i < in->n_dt; i++) {
    const coco_det *d = &in->dt[i];
    if (!isfinite(d->score) || !isfinite(d->bbox[0]) || !isfinite(d->bbox[1]) ||
        !isfinite(d->bbox[2]) || !isfinite(d->bbox[3]))
      return eval_fail(err, n, "detection %zu (image %lld): its score or box is not a finite number", i,
                  (long long)d->image_id);
  }
  for (size_t i = 0; i < in->n_gt; i++) {
    const coco_gt *g = &in->gt[i];
    if (!isfinite(g->area) || !isfinite(g->bbox[0]) || !isfinite(g->bbox[1]) ||
        !isfinite(g->bbox[2]) || !isfinite(g->bbox[3]))
      return eval_fail(err, n, "annotation %lld: its area or box is not a finite number", (long long)g->id);
  }
  return 0;
}

/* Places the items whose image and category are evaluated; sorted by cell. */
static placed *place(const coco_eval_input *in, bool dets, const int64_t *imgs, size_t n_imgs,
                     const int64_t *cats, size_t n_cats, size_t *out_n)
{
  size_t n = dets ? in->n_dt : in->n_gt, k = 0;
  placed *p = malloc((n ? n : 1) * sizeof *p);
  if (!p) return NULL;
  for (size_t i = 0; i < n; i++) {
    int64_t img = dets ? in->dt[i].image_id : in->gt[i].image_id;
    int64_t cat = dets ? in->dt[i].category_id : in->gt[i].category_id;
    long ii = find_id(imgs, n_imgs, img), ci = find_id(cats, n_cats, cat);
    if (ii < 0 || ci < 0) continue;
    p[k++] = (placed){ ci, ii, i, dets ? in->dt[i].score : 0.0 };
  }
  qsort(p, k, sizeof *p, cmp_placed);
  *out_n = k;
  return p;
}

int coco_evaluate(const coco_eval_input *in, coco_stats *out, char *err, size_t err_size)
{
  if (check_numbers(in, err, err_size) != 0) return -1;
  double thr[N_IOU], rec[N_REC];
  make_thresholds(thr, rec);
  size_t n_imgs = 0, n_cats = 0, n_g = 0, n_d = 0;
  int64_t *imgs = unique_sorted(in->image_ids, in->n_images, &n_imgs);
  int64_t *cats = unique_sorted(in->category_ids, in->n_categories, &n_cats);
  placed *g = imgs && cats ? place(in, false, imgs, n_imgs, cats, n_cats, &n_g) : NULL;
  placed *d = g ? place(in, true, imgs, n_imgs, cats, n_cats, &n_d) : NULL;
  work w = { 0 };
  stat_sums sums = { { 0 }, { 0 } };
  bool ok = d != NULL;
  size_t gi = 0, di = 0;
  for (long c = 0; ok && c < (long)n_cats; c++) {
    w.n = 0;
    w.any_cell = false;
    memset(w.npig, 0, sizeof w.npig);
    while (ok && ((gi < n_g && g[gi].cat == c) || (di < n_d && d[di].cat == c))) {
      /* the next image with ground truth or detections in this category */
      long img = -1;
      if (gi < n_g && g[gi].cat == c) img = g[gi].img;
      if (di < n_d && d[di].cat == c && (img < 0 || d[di].img < img)) img = d[di].img;
      size_t g0 = gi, d0 = di;
      while (gi < n_g && g[gi].cat == c && g[gi].img == img) gi++;
      while (di < n_d && d[di].cat == c && d[di].img == img) di++;
      ok = eval_cell(&w, in->gt, g + g0, gi - g0, in->dt, d + d0, di - d0, thr);
    }
    if (ok) ok = finish_category(&w, rec, &sums);
  }
  work_free(&w);
  free(imgs);
  free(cats);
  free(g);
  free(d);
  if (!ok) return eval_fail(err, err_size, "out of memory evaluating %zu detections", in->n_dt);
  for (int i = 0; i < COCO_STATS_COUNT; i++)
    out->v[i] = sums.count[i] ? sums.sum[i] / (double)sums.count[i] : -1.0;
  return 0;
}

const char *coco_stat_title(coco_stat i)
{
  switch (i) {
  case COCO_AP: return " Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ]";
  case COCO_AP50: return " Average Precision  (AP) @[ IoU=0.50      | area=   all | maxDets=100 ]";
  case COCO_AP75: return " Average Precision  (AP) @[ IoU=0.75      | area=   all | maxDets=100 ]";
  case COCO_AP_SMALL: return " Average Precision  (AP) @[ IoU=0.50:0.95 | area= small | maxDets=100 ]";
  case COCO_AP_MEDIUM: return " Average Precision  (AP) @[ IoU=0.50:0.95 | area=medium | maxDets=100 ]";
  case COCO_AP_LARGE: return " Average Precision  (AP) @[ IoU=0.50:0.95 | area= large | maxDets=100 ]";
  case COCO_AR1: return " Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets=  1 ]";
  case COCO_AR10: return " Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets= 10 ]";
  case COCO_AR100: return " Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ]";
  case COCO_AR_SMALL: return " Average Recall     (AR) @[ IoU=0.50:0.95 | area= small | maxDets=100 ]";
  case COCO_AR_MEDIUM: return " Average Recall     (AR) @[ IoU=0.50:0.95 | area=medium | maxDets=100 ]";
  case COCO_AR_LARGE: return " Average Recall     (AR) @[ IoU=0.50:0.95 | area= large | maxDets=100 ]";
  case COCO_STATS_COUNT: break;
  }
  return "?";
}

const char *coco_stat_name(coco_stat i)
{
  switch (i) {
  case COCO_AP: return "AP";
  case COCO_AP50: return "AP50";
  case COCO_AP75: return "AP75";
  case COCO_AP_SMALL: return "AP_small";
  case COCO_AP_MEDIUM: return "AP_medium";
  case COCO_AP_LARGE: return "AP_large";
  case COCO_AR1: return "AR1";
  case COCO_AR10: return "AR10";
  case COCO_AR100: return "AR100";
  case COCO_AR_SMALL: return "AR_small";
  case COCO_AR_MEDIUM: return "AR_medium";
  case COCO_AR_LARGE: return "AR_large";
  case COCO_STATS_COUNT: break;
  }
  return "?";
}
