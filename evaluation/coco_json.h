/* coco_json.h - COCO's JSON files: an instances (annotations) file in, a detection results
 * file in or out (the formats of cocodataset.org's "data format" and "results format").
 *
 *   coco_dataset ds;  char err[512];
 *   if (coco_dataset_load("instances_val2017.json", &ds, err, sizeof err) != 0) puts(err);
 *   ... ds.images / ds.categories / ds.annotations (coco_metric.h's coco_gt) ...
 * An annotation may carry "rbox": [cx, cy, w, h, angle in radians] (an oriented box, our
 * extension; COCO has none), read into coco_gt.rbox.
 *   coco_dataset_free(&ds);
 *
 * Files are untrusted: every field the metric needs is checked (type, range, repeats) and
 * a bad file gives one message naming the file, the entry and the field. Parsed with
 * json-c in strict mode (no NaN, no trailing commas). Annotations without "area" get their
 * box's area (pycocotools needs the field; COCO's files always have it). Fields other
 * than those below are ignored (segmentations are not read).
 *
 * No global state; a dataset belongs to its caller and to one thread at a time.
 */
#ifndef COCO_JSON_H
#define COCO_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "coco_metric.h"

typedef struct {
  int64_t id;
  char *file_name;        /* relative to the images folder */
  int width, height;      /* 0 when the file does not say */
} coco_image;

typedef struct {
  int64_t id;
  char *name;
} coco_category;

typedef struct {
  coco_image *images;     /* file order */
  size_t n_images;
  coco_category *categories;
  size_t n_categories;
  coco_gt *annotations;   /* file order */
  size_t n_annotations;
} coco_dataset;

/* 0, or -1 with a message in err (ds is then empty). */
int coco_dataset_load(const char *path, coco_dataset *ds, char *err, size_t err_size);
void coco_dataset_free(coco_dataset *ds);

/* Reads a results file: a JSON array of {"image_id", "category_id", "bbox", "score"}.
 * *dt is malloc'd (free it); 0, or -1 with a message. */
int coco_results_load(const char *path, coco_det **dt, size_t *n, char *err, size_t err_size);

/* Writes detections as a results file (numbers printed so they read back exactly). */
int coco_results_write(const char *path, const coco_det *dt, size_t n, char *err, size_t err_size);

#endif
