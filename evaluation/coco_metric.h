/* coco_metric.h - COCO's bounding-box detection metric: the 12 numbers pycocotools'
 * COCOeval (iouType "bbox", default parameters) prints, computed by its rules:
 *
 *   coco_eval_input in = { gt, n_gt, dt, n_dt, image_ids, n_images, category_ids, n_categories };
 *   coco_stats s;  char err[256];
 *   if (coco_evaluate(&in, &s, err, sizeof err) != 0) puts(err);
 *
 * The rules (COCOeval's evaluate, accumulate and summarize):
 *  - Per image and category, detections are sorted by score, highest first (equal scores
 *    keep their input order), and only the best 100 count.
 *  - Boxes overlap by IoU; against a crowd region the intersection is divided by the
 *    detection's area alone.
 *  - At each of 10 IoU thresholds 0.50:0.05:0.95, each detection in score order takes the
 *    ground truth with the highest IoU at or above the threshold that is not taken yet
 *    (crowd regions are never used up), preferring regular ground truth over ignored.
 *    Ignored ground truth is: crowd regions, and objects whose `area` lies outside the area
 *    range being evaluated (all; small < 32^2; medium 32^2..96^2; large > 96^2). A
 *    detection that matches ignored ground truth, or matches nothing and has a box area
 *    outside the range, counts neither as true nor as false positive.
 *  - Per category, detections of all images are ranked by score (equal scores: image id
 *    order, then per-image order); precision at the 101 recall points 0:0.01:1 is read
 *    from the precision envelope (made non-increasing from the right), 0 past the last
 *    recall reached. AP averages it over thresholds, recall points and categories; AR
 *    averages the last recall reached. maxDets 1/10/100 cut each image's detections.
 *  - Categories without regular ground truth in an area range are left out of that
 *    range's averages; a number with nothing to average is -1, as pycocotools prints.
 * Differences: none known; ground-truth ids are not used (pycocotools treats an
 * annotation id of 0 as "unmatched", COCO's ids start at 1).
 *
 * Plain C, no I/O and no global state: any thread may call. The caller owns all arrays;
 * nothing is kept after the call.
 */
#ifndef COCO_METRIC_H
#define COCO_METRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One ground-truth annotation. */
typedef struct {
  int64_t id;                 /* annotation id, for messages */
  int64_t image_id, category_id;
  double bbox[4];             /* x, y, width, height in image pixels */
  double area;                /* COCO: the segmentation's area; decides the area range */
  bool iscrowd;               /* a crowd region: ignored, matches any number of detections */
  /* an oriented box (our extension "rbox": [cx, cy, w, h, angle radians]), matched by
   * ultralytics_map.h against oriented detections; coco_evaluate uses bbox only */
  bool oriented;
  double rbox[5];
} coco_gt;

/* One detection, as in a COCO results file. */
typedef struct {
  int64_t image_id, category_id;
  double bbox[4];             /* x, y, width, height in image pixels */
  double score;
  bool oriented;              /* rbox as coco_gt's */
  double rbox[5];
} coco_det;

typedef struct {
  const coco_gt *gt;
  size_t n_gt;
  const coco_det *dt;
  size_t n_dt;
  /* the images and categories evaluated (any order, repeats allowed); annotations and
   * detections of other images or categories are left out, as COCOeval's params do */
  const int64_t *image_ids;
  size_t n_images;
  const int64_t *category_ids;
  size_t n_categories;
} coco_eval_input;

/* COCOeval.stats, in its order. */
typedef enum {
  COCO_AP,          /* AP @[IoU=0.50:0.95 | area=all | maxDets=100] */
  COCO_AP50,        /* AP @[IoU=0.50 | all | 100] */
  COCO_AP75,        /* AP @[IoU=0.75 | all | 100] */
  COCO_AP_SMALL,
  COCO_AP_MEDIUM,
  COCO_AP_LARGE,
  COCO_AR1,         /* AR @[IoU=0.50:0.95 | all | maxDets=1] */
  COCO_AR10,
  COCO_AR100,
  COCO_AR_SMALL,    /* AR @[0.50:0.95 | small | 100] */
  COCO_AR_MEDIUM,
  COCO_AR_LARGE,
  COCO_STATS_COUNT
} coco_stat;

typedef struct {
  double v[COCO_STATS_COUNT];  /* -1 where nothing was averaged */
} coco_stats;

/* Computes the 12 numbers. 0 on success; -1 with a message in err (bad number in the
 * input, naming the detection or annotation; out of memory). */
int coco_evaluate(const coco_eval_input *in, coco_stats *out, char *err, size_t err_size);

/* pycocotools' summary line for stat i without the value, e.g.
 * " Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ]". Static. */
const char *coco_stat_title(coco_stat i);
/* A short name for tables: "AP", "AP50", ..., "AR_large". Static. */
const char *coco_stat_name(coco_stat i);

#endif
