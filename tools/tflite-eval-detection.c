/* tflite-eval-detection - COCO's detection metric (AP@[.50:.95], AP50, AP75, AP by area,
 * AR@1/10/100, AR by area: evaluation/coco_metric.h, computed as pycocotools does) of a
 * detector on pictures with COCO annotations, per delegate. Pictures go through
 * tflitefilter's preprocessing and detection decoder (eval_session.h); the decoder's
 * classes become the annotations' category ids through --class-map. Detections can be
 * written as a COCO results file for pycocotools. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval_session.h"
#include "evaluation/coco_json.h"
#include "evaluation/coco_metric.h"
#include "evaluation/ultralytics_map.h"

#define DEFAULT_THRESHOLD 0.01f
#define DEFAULT_MAX_RESULTS 100
#define NO_CATEGORY INT64_MIN

static void usage(FILE *out)
{
  fprintf(out,
          "usage: tflite-eval-detection MODEL --images DIR --annotations INSTANCES.json [options]\n"
          "  --images DIR       the pictures named by the annotations' file_name (PNG or JPEG)\n"
          "  --annotations F    COCO instances file: images, categories, annotations (bbox, area,\n"
          "                     iscrowd)\n"
          "  --class-map MAP    decoder class -> category id: auto (names when the model has\n"
          "                     labels, else identity), names (label text = category name),\n"
          "                     identity, offset:N (class + N), coco80 (class k = the k-th\n"
          "                     category by id), or a file of \"CLASS CATEGORY\" lines (default auto)\n"
          "  --decoder-options O  comma-separated: threshold=T (default %g), max-results=N (default\n"
          "                     %d), iou-threshold=T (NMS, default %g), anchors=auto|ssd-mobilenet|\n"
          "                     face-short|face-full|pose-detection|palm, box-scale=Y:X:H:W\n"
          "                     multi-label=0|1 (YOLO: a candidate per class above the threshold,\n"
          "                     as Ultralytics' val; default 0, as predict)\n"
          "  --ultralytics-map  also print the box mAP as Ultralytics' val computes it (its matching\n"
          "                     and interpolation; pass max-results=300, threshold=0.001,\n"
          "                     iou-threshold=0.7,multi-label=1 for val's settings)\n"
          "  --results FILE     write the detections as a COCO results file (several delegates:\n"
          "                     FILE with .<delegate> before the extension)\n"
          "                     (--verbose: categories, scores and IoU with the best truth box)\n",
          DEFAULT_THRESHOLD, DEFAULT_MAX_RESULTS, tfl_decoder_defaults().iou_threshold);
  eval_flags_help(out);
}

/* ---- --decoder-options ------------------------------------------------------- */

static bool parse_options(char *spec, tfl_decoder_options *o)
{
  static const char *anchors[] = { "auto", "ssd-mobilenet", "face-short", "face-full", "pose-detection", "palm" };
  for (char *save = NULL, *kv = strtok_r(spec, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
    char *v = strchr(kv, '=');
    if (!v) goto bad;
    *v++ = '\0';
    char *end;
    if (!strcmp(kv, "threshold") || !strcmp(kv, "iou-threshold")) {
      double x = strtod(v, &end);
      if (end == v || *end || !(x >= 0 && x <= 1)) goto bad;
      *(!strcmp(kv, "threshold") ? &o->threshold : &o->iou_threshold) = (float)x;
    } else if (!strcmp(kv, "max-results")) {
      long x = strtol(v, &end, 10);
      if (end == v || *end || x < 1 || x > 100000) goto bad;
      o->max_results = (int)x;
    } else if (!strcmp(kv, "multi-label")) {
      if (strcmp(v, "0") && strcmp(v, "1")) goto bad;
      o->multi_label = v[0] == '1';
    } else if (!strcmp(kv, "anchors")) {
      int k = 0;
      while (k < 6 && strcmp(v, anchors[k])) k++;
      if (k == 6) goto bad;
      o->anchors = (tfl_anchor_kind)k;
    } else if (!strcmp(kv, "box-scale")) {
      for (int k = 0; k < 4; k++) {
        o->box_scale[k] = strtof(v, &end);
        if (end == v || !(o->box_scale[k] > 0) || (k < 3 ? *end != ':' : *end != '\0')) goto bad;
        v = end + 1;
      }
    } else {
      goto bad;
    }
    continue;
  bad:
    fprintf(stderr, "error: --decoder-options: bad '%s%s%s' (see --help)\n", kv, v ? "=" : "", v ? v : "");
    return false;
  }
  return true;
}

/* ---- --class-map ------------------------------------------------------------- */

typedef struct {
  char what[160];       /* how classes were mapped, for the report */
  int64_t offset;       /* identity / offset:N */
  bool table_mode;
  int64_t *table;       /* class -> category id or NO_CATEGORY */
  size_t n;
} class_map;

static int64_t map_class(const class_map *m, int class_id)
{
  if (!m->table_mode) return (int64_t)class_id + m->offset;
  return class_id >= 0 && (size_t)class_id < m->n ? m->table[class_id] : NO_CATEGORY;
}

static bool table_alloc(class_map *m, size_t n)
{
  m->table_mode = true;
  m->n = n;
  m->table = malloc((n ? n : 1) * sizeof *m->table);
  if (!m->table) return false;
  for (size_t i = 0; i < n; i++) m->table[i] = NO_CATEGORY;
  return true;
}

static int cmp_cat(const void *a, const void *b)
{
  int64_t x = ((const coco_category *)a)->id, y = ((const coco_category *)b)->id;
  return (x > y) - (x < y);
}

static bool map_from_file(class_map *m, const char *path)
{
  text_lines l;
  char err[600];
  if (text_lines_from_file(path, &l, err, sizeof err) != 0) {
    fprintf(stderr, "error: --class-map %s\n", err);
    return false;
  }
  bool ok = true;
  long max_class = -1;
  long (*pairs)[2] = malloc((l.n ? l.n : 1) * sizeof *pairs);
  size_t np = 0;
  ok = pairs != NULL;
  for (size_t i = 0; ok && i < l.n; i++) {
    char *p = l.line[i], *end;
    while (isspace((unsigned char)*p)) p++;
    if (*p == '\0' || *p == '#') continue;
    errno = 0;
    long c = strtol(p, &end, 10), cat;
    if (end == p || c < 0 || c > 1000000 || errno) ok = false;
    p = end;
    while (ok && (isspace((unsigned char)*p) || *p == ',')) p++;
    if (ok) {
      cat = strtol(p, &end, 10);
      if (end == p || *end != '\0' || errno) ok = false;
    }
    if (!ok) {
      fprintf(stderr, "error: --class-map %s:%zu: expected \"CLASS CATEGORY\" (two whole numbers)\n", path, i + 1);
      break;
    }
    pairs[np][0] = c;
    pairs[np++][1] = cat;
    if (c > max_class) max_class = c;
  }
  if (ok && np == 0) {
    fprintf(stderr, "error: --class-map %s: no \"CLASS CATEGORY\" lines\n", path);
    ok = false;
  }
  if (ok && !table_alloc(m, (size_t)(max_class + 1))) ok = false;
  for (size_t i = 0; ok && i < np; i++) m->table[pairs[i][0]] = pairs[i][1];
  if (ok) snprintf(m->what, sizeof m->what, "from %s (%zu classes)", path, np);
  free(pairs);
  text_lines_free(&l);
  return ok;
}

static bool make_class_map(class_map *m, const char *spec, const text_lines *labels, bool have_labels,
                           const coco_dataset *ds)
{
  memset(m, 0, sizeof *m);
  if (!strcmp(spec, "auto")) spec = have_labels ? "names" : "identity";
  if (!strcmp(spec, "identity")) {
    snprintf(m->what, sizeof m->what, "identity (decoder class = category id)");
    return true;
  }
  if (!strncmp(spec, "offset:", 7)) {
    char *end;
    m->offset = strtoll(spec + 7, &end, 10);
    if (end == spec + 7 || *end) {
      fprintf(stderr, "error: --class-map offset:N takes a whole number\n");
      return false;
    }
    snprintf(m->what, sizeof m->what, "offset (category id = class %+lld)", (long long)m->offset);
    return true;
  }
  if (!strcmp(spec, "names")) {
    if (!have_labels) {
      fprintf(stderr, "error: --class-map names: the model has no labels (give --model-labels)\n");
      return false;
    }
    if (!table_alloc(m, labels->n)) return false;
    size_t matched = 0;
    for (size_t k = 0; k < labels->n; k++)
      for (size_t c = 0; c < ds->n_categories; c++)
        if (!strcmp(labels->line[k], ds->categories[c].name)) {
          m->table[k] = ds->categories[c].id;
          matched++;
          break;
        }
    snprintf(m->what, sizeof m->what, "by name (%zu of %zu model labels are categories)", matched, labels->n);
    if (matched == 0) {
      fprintf(stderr, "error: --class-map names: no model label is a category name of the annotations\n");
      return false;
    }
    return true;
  }
  if (!strcmp(spec, "coco80")) {
    coco_category *sorted = malloc((ds->n_categories ? ds->n_categories : 1) * sizeof *sorted);
    if (!sorted || !table_alloc(m, ds->n_categories)) {
      free(sorted);
      return false;
    }
    if (ds->n_categories) memcpy(sorted, ds->categories, ds->n_categories * sizeof *sorted);
    qsort(sorted, ds->n_categories, sizeof *sorted, cmp_cat);
    for (size_t k = 0; k < ds->n_categories; k++) m->table[k] = sorted[k].id;
    free(sorted);
    snprintf(m->what, sizeof m->what, "coco80 (class k = the k-th of %zu categories by id)", ds->n_categories);
    return true;
  }
  return map_from_file(m, spec);
}

/* ---- the run ------------------------------------------------------------------- */

typedef struct {
  coco_det *dt;
  size_t n, cap;
  size_t dropped;        /* detections whose class has no category */
} det_list;

static bool add_det(det_list *l, const coco_det *d)
{
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 1024;
    coco_det *p = realloc(l->dt, cap * sizeof *p);
    if (!p) return false;
    l->dt = p;
    l->cap = cap;
  }
  l->dt[l->n++] = *d;
  return true;
}

/* FILE.json -> FILE.<delegate>.json when several delegates write. */
static void results_path(char *out, size_t n, const char *path, const char *delegate, bool several)
{
  if (!several) {
    snprintf(out, n, "%s", path);
    return;
  }
  const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
  if (!dot || (slash && dot < slash)) dot = path + strlen(path);
  snprintf(out, n, "%.*s.%s%s", (int)(dot - path), path, delegate, dot);
}

static double best_iou(const coco_det *d, const coco_dataset *ds, int64_t image_id)
{
  double best = 0;
  for (size_t i = 0; i < ds->n_annotations; i++) {
    const coco_gt *g = &ds->annotations[i];
    if (g->image_id != image_id || g->category_id != d->category_id) continue;
    double w = fmin(d->bbox[0] + d->bbox[2], g->bbox[0] + g->bbox[2]) - fmax(d->bbox[0], g->bbox[0]);
    double h = fmin(d->bbox[1] + d->bbox[3], g->bbox[1] + g->bbox[3]) - fmax(d->bbox[1], g->bbox[1]);
    if (w <= 0 || h <= 0) continue;
    double iou = w * h / (d->bbox[2] * d->bbox[3] + g->bbox[2] * g->bbox[3] - w * h);
    if (iou > best) best = iou;
  }
  return best;
}

static void print_stats(FILE *out, const coco_stats *st)
{
  for (int i = 0; i < COCO_STATS_COUNT; i++) fprintf(out, "%s = %0.3f\n", coco_stat_title((coco_stat)i), st->v[i]);
}

int main(int argc, char **argv)
{
  eval_flags fl;
  eval_flags_init(&fl);
  const char *ann_path = NULL, *map_spec = "auto", *results = NULL;
  bool ultra = false;
  tfl_decoder_options opt = tfl_decoder_defaults();
  opt.threshold = DEFAULT_THRESHOLD;
  opt.max_results = DEFAULT_MAX_RESULTS;
  for (int i = 1; i < argc; i++) {
    const int r = eval_flags_parse(&fl, argc, argv, &i, usage);
    if (r == TOOL_ARG_TAKEN) continue;
    if (r != TOOL_ARG_OTHER) return r;
    const char *a = argv[i];
    if (!strcmp(a, "--annotations")) {
      if (!(ann_path = tool_flag_value(argc, argv, &i))) return 2;
    } else if (!strcmp(a, "--class-map")) {
      if (!(map_spec = tool_flag_value(argc, argv, &i))) return 2;
    } else if (!strcmp(a, "--ultralytics-map")) {
      ultra = true;
    } else if (!strcmp(a, "--results")) {
      if (!(results = tool_flag_value(argc, argv, &i))) return 2;
    } else if (!strcmp(a, "--decoder-options")) {
      if (!tool_flag_value(argc, argv, &i) || !parse_options(argv[i], &opt)) return 2;
    } else if (!eval_flags_model(&fl, a, usage)) {
      return 2;
    }
  }
  if (!eval_flags_complete(&fl, ann_path, "--annotations FILE", usage)) return 2;
  const char *model = fl.model, *images = fl.images;

  int status = 1, n_open = 0;
  eval_session s[EVAL_MAX_DELEGATES];
  det_list dets[EVAL_MAX_DELEGATES];
  memset(dets, 0, sizeof dets);
  coco_dataset ds = { 0 };
  text_lines labels = { 0 };
  class_map map = { 0 };
  tfl_results res = { 0 };
  int64_t *image_ids = NULL, *cat_ids = NULL;
  char err[700];
  if (coco_dataset_load(ann_path, &ds, err, sizeof err) != 0) {
    fprintf(stderr, "error: %s\n", err);
    return 1;
  }
  if (!eval_sessions_open(s, &n_open, &fl, TFL_DECODER_DETECTION, &opt)) goto out;
  bool have_labels;
  if (!eval_model_labels(&fl, &s[0], &labels, &have_labels) ||
      !make_class_map(&map, map_spec, &labels, have_labels, &ds))
    goto out;

  const size_t n = fl.limit > 0 && (size_t)fl.limit < ds.n_images ? (size_t)fl.limit : ds.n_images;
  image_ids = malloc((n ? n : 1) * sizeof *image_ids);
  cat_ids = malloc((ds.n_categories ? ds.n_categories : 1) * sizeof *cat_ids);
  if (!image_ids || !cat_ids) {
    fprintf(stderr, "error: out of memory\n");
    goto out;
  }
  for (size_t c = 0; c < ds.n_categories; c++) cat_ids[c] = ds.categories[c].id;
  printf("Model: %s\nAnnotations: %s: %zu of %zu pictures, %zu categories\nClasses: %s\n"
         "Decoder: threshold %g, at most %d detections per picture, NMS IoU %g (models without their own)\n",
         model, ann_path, n, ds.n_images, ds.n_categories, map.what, opt.threshold, opt.max_results,
         opt.iou_threshold);
  for (int k = 0; k < n_open; k++) eval_session_describe(&s[k], stdout);
  fflush(stdout);

  for (size_t i = 0; i < n; i++) {
    const coco_image *im = &ds.images[i];
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", images, im->file_name);
    image_ids[i] = im->id;
    eval_picture pic;
    if (!eval_picture_load(&pic, path)) goto out;
    if ((im->width && im->width != pic.width) || (im->height && im->height != pic.height)) {
      fprintf(stderr, "error: %s is %dx%d but the annotations say %dx%d\n", path, pic.width, pic.height,
              im->width, im->height);
      eval_picture_free(&pic);
      goto out;
    }
    for (int k = 0; k < n_open; k++) {
      if (!eval_session_run(&s[k], &pic, &res)) {
        eval_picture_free(&pic);
        goto out;
      }
      if (fl.verbose) printf("%s [%s]:", im->file_name, s[k].name);
      for (int b = 0; b < res.n_boxes; b++) {
        const tfl_box *x = &res.boxes[b];
        coco_det d = { im->id, map_class(&map, x->class_id), { x->x, x->y, x->w, x->h }, x->score };
        if (d.category_id == NO_CATEGORY) {
          dets[k].dropped++;
          continue;
        }
        if (!add_det(&dets[k], &d)) {
          fprintf(stderr, "error: out of memory\n");
          eval_picture_free(&pic);
          goto out;
        }
        if (fl.verbose && b < 10)
          printf(" %lld %.2f (IoU %.2f)", (long long)d.category_id, d.score, best_iou(&d, &ds, im->id));
      }
      if (fl.verbose) printf("%s\n", res.n_boxes > 10 ? " ..." : "");
    }
    eval_picture_free(&pic);
  }

  coco_stats st[EVAL_MAX_DELEGATES];
  for (int k = 0; k < n_open; k++) {
    coco_eval_input in = { ds.annotations, ds.n_annotations, dets[k].dt, dets[k].n, image_ids, n,
                           cat_ids, ds.n_categories };
    if (coco_evaluate(&in, &st[k], err, sizeof err) != 0) {
      fprintf(stderr, "error: %s\n", err);
      goto out;
    }
    printf("\n== %s ==\n", s[k].name);
    eval_session_print_latency(&s[k], stdout);
    printf("Detections: %zu", dets[k].n);
    if (dets[k].dropped) printf(" (%zu more of classes without a category, left out)", dets[k].dropped);
    printf("\n");
    print_stats(stdout, &st[k]);
    if (ultra) {
      double m, m50;
      if (ultralytics_map(&in, &m, &m50, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        goto out;
      }
      printf("Ultralytics box mAP50-95 = %.6f\nUltralytics box mAP50 = %.6f\n", m, m50);
    }
    eval_session_print_rate(&s[k], stdout);
    if (results) {
      char p[4096];
      results_path(p, sizeof p, results, fl.delegates[k], n_open > 1);
      if (coco_results_write(p, dets[k].dt, dets[k].n, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        goto out;
      }
      printf("Results: %s\n", p);
    }
  }
  for (int k = 1; k < n_open; k++) {
    printf("\n== %s - %s ==\n", s[k].name, s[0].name);
    for (int i = 0; i < COCO_STATS_COUNT; i++)
      printf("%-9s %+.6f (%s %.6f, %s %.6f)\n", coco_stat_name((coco_stat)i), st[k].v[i] - st[0].v[i],
             s[0].name, st[0].v[i], s[k].name, st[k].v[i]);
  }
  status = 0;
out:
  tfl_results_clear(&res);
  for (int k = 0; k < n_open; k++) {
    free(dets[k].dt);
    eval_session_close(&s[k]);
  }
  free(map.table);
  free(image_ids);
  free(cat_ids);
  text_lines_free(&labels);
  coco_dataset_free(&ds);
  return status;
}
