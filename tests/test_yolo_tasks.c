/* test_yolo_tasks.c - the trained tiny YOLO segmentation, pose and oriented-box models
 * (fp32 and int8 exports, tests/data/yolo/make_yolo_tasks.py), and a random YOLO26
 * oriented-box model with its end-to-end head, run by our runtime on held-out synthetic
 * pictures against Ultralytics' own predict on the same files.
 *
 *   test_yolo_tasks DATA_DIR
 *
 * tasks.txt lists the runs. Each of Ultralytics' detections must have one of ours of the
 * same class, score within 0.02, box within 2 px (an int8 head: two of its steps, ~2.5 px
 * and ~0.03; tasks.txt says); and per task:
 *  - segment: the box's own mask, made into a frame mask as predict makes its own (mask_iou),
 *    IoU >= 0.9 with predict's mask (*.masks);
 *  - pose: the 17 keypoints within the box tolerance, visibility within the score's;
 *  - obb: the rotated box's centre and sides (their magnitudes) within 2 px, its angle
 *    within 2 degrees.
 * And raw heads against Ultralytics' NMS: rotated (run_obb_raw), multi-label
 * (run_multilabel_raw). */
#include "check.h"

#include "decoders/tfl_decoder.h"
#include "policy/tfl_family.h"
#include "delegates/cpu/cpu_delegate.h"
#include "preprocess/preprocess.h"
#include "runtime/tfl_interpreter.h"
#include "runtime/tfl_loader.h"
#include "runtime/tfl_passes.h"
#include "tests/cpu_interp.h"
#include "tests/golden.h"
#include "tests/yolo_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DET 64
#define MAX_VALUES 64
#define BOX_TOL 2.0
#define SCORE_TOL 0.02
#define ANGLE_TOL_DEG 2.0
#define MASK_IOU 0.9

typedef yolo_ref det;

/* Theirs clipped to the frame (predict's oriented boxes' bounds are not) against ours. */
static double box_error(const tfl_box *o, const det *w, int fw, int fh)
{
  const double x0 = fmin(fmax(w->x0, 0), fw), x1 = fmin(fmax(w->x1, 0), fw);
  const double y0 = fmin(fmax(w->y0, 0), fh), y1 = fmin(fmax(w->y1, 0), fh);
  return fmax(fmax(fabs(o->x - x0), fabs(o->y - y0)), fmax(fabs(o->x + o->w - x1), fabs(o->y + o->h - y1)));
}

/* A probability's logit (Ultralytics interpolates the mask's logits, not probabilities). */
static float logit(float p)
{
  const float q = fminf(fmaxf(p, 1e-7f), 1.0f - 1e-7f);
  return logf(q / (1.0f - q));
}

/* Our box's own mask as Ultralytics' predict makes its frame mask: the texels' logits
 * read between texel centres at the input's pixel centres, > 0, inside the box (all in
 * input pixels, through the transform), then the letterbox's content scaled to the frame
 * (bilinear, half-pixel centres, > 0.5: ops.scale_masks); IoU with theirs (bit-packed
 * frame rows). `in` is scratch of in_w x in_h bytes. */
static double mask_iou(const tfl_box *o, const uint8_t *bits, int fw, int fh, const tfl_transform *tr, uint8_t *in)
{
  const tfl_box_mask *m = &o->mask;
  const int iw = tr->in_w, ih = tr->in_h;
  for (int v = 0; v < ih; v++)
    for (int u = 0; u < iw; u++) {
      float x, y;
      tfl_transform_point(tr, (float)u + 0.5f, (float)v + 0.5f, &x, &y);
      bool on = false;
      if (m->prob && x >= o->x && x < o->x + o->w && y >= o->y && y < o->y + o->h) {
        const float gu = (x - m->frame_x) / m->frame_w * (float)m->width - 0.5f;
        const float gv = (y - m->frame_y) / m->frame_h * (float)m->height - 0.5f;
        const int u0 = (int)floorf(gu), v0 = (int)floorf(gv);
        const float tu = gu - (float)u0, tv = gv - (float)v0;
#define TEXEL(a, b) logit(m->prob[(size_t)((b) < 0 ? 0 : (b) >= m->height ? m->height - 1 : (b)) * (size_t)m->width + \
                                  (size_t)((a) < 0 ? 0 : (a) >= m->width ? m->width - 1 : (a))])
        const float l = (1 - tv) * ((1 - tu) * TEXEL(u0, v0) + tu * TEXEL(u0 + 1, v0)) +
                        tv * ((1 - tu) * TEXEL(u0, v0 + 1) + tu * TEXEL(u0 + 1, v0 + 1));
#undef TEXEL
        on = l > 0.0f;
      }
      in[(size_t)v * iw + u] = on;
    }
  /* the letterbox's content, as scale_masks cuts it */
  const double gain = fmin((double)iw / fw, (double)ih / fh);
  const int cw = (int)lround(fw * gain), ch = (int)lround(fh * gain);
  const int left = (int)lround((iw - cw) / 2.0 - 0.1), top = (int)lround((ih - ch) / 2.0 - 0.1);
  const size_t row_bytes = ((size_t)fw + 7) / 8;
  long inter = 0, uni = 0;
  for (int y = 0; y < fh; y++) {
    const float sy = fmaxf(((float)y + 0.5f) * (float)ch / (float)fh - 0.5f, 0.0f);
    const int y0 = (int)sy, y1 = y0 + 1 < ch ? y0 + 1 : ch - 1;
    const float ty = sy - (float)y0;
    for (int x = 0; x < fw; x++) {
      const float sx = fmaxf(((float)x + 0.5f) * (float)cw / (float)fw - 0.5f, 0.0f);
      const int x0 = (int)sx, x1 = x0 + 1 < cw ? x0 + 1 : cw - 1;
      const float tx = sx - (float)x0;
#define AT(a, b) (float)in[(size_t)(top + (b)) * iw + (size_t)(left + (a))]
      const float p = (1 - ty) * ((1 - tx) * AT(x0, y0) + tx * AT(x1, y0)) + ty * ((1 - tx) * AT(x0, y1) + tx * AT(x1, y1));
#undef AT
      const bool ours = p > 0.5f;
      const bool theirs = (bits[(size_t)y * row_bytes + (size_t)(x / 8)] >> (7 - x % 8)) & 1;
      inter += ours && theirs;
      uni += ours || theirs;
    }
  }
  return uni ? (double)inter / (double)uni : 1.0;
}

static double angle_diff_deg(double a, double b)
{
  double d = fmod(fabs(a - b), 2 * M_PI);
  return fmin(d, 2 * M_PI - d) * 180.0 / M_PI;
}

static void compare(const char *name, const char *task, const tfl_results *r, const det *want, int n_want,
                    const uint8_t *masks, int fw, int fh, const tfl_transform *tr, double box_tol, double score_tol)
{
  uint8_t *scratch = masks ? malloc((size_t)tr->in_w * (size_t)tr->in_h) : NULL;
  CHECK(r->n_boxes == n_want, "%s: %d detections, Ultralytics %d", name, r->n_boxes, n_want);
  bool used[MAX_DET] = { false };
  const size_t mask_bytes = ((size_t)fw + 7) / 8 * (size_t)fh;
  double worst_box = 0, worst_score = 0, worst_kpt = 0, worst_vis = 0, worst_angle = 0, worst_iou = 1;
  int matched = 0;
  for (int i = 0; i < n_want; i++) {
    const det *w = &want[i];
    int best = -1;
    for (int j = 0; j < r->n_boxes && j < MAX_DET; j++) {
      const tfl_box *o = &r->boxes[j];
      if (used[j] || o->class_id != w->class_id || fabs(o->score - w->score) > score_tol) continue;
      if (box_error(o, w, fw, fh) > 2 * box_tol) continue;  /* another box of the class */
      if (best < 0 || box_error(o, w, fw, fh) < box_error(&r->boxes[best], w, fw, fh)) best = j;
    }
    if (best < 0) {
      fprintf(stderr, "  %s: Ultralytics' #%d (class %d %.4f, %.2f %.2f %.2f %.2f) has no match\n", name, i,
              w->class_id, w->score, w->x0, w->y0, w->x1, w->y1);
      continue;
    }
    used[best] = true;
    matched++;
    const tfl_box *o = &r->boxes[best];
    worst_box = fmax(worst_box, box_error(o, w, fw, fh));
    worst_score = fmax(worst_score, fabs(o->score - w->score));
    if (!strcmp(task, "pose")) {
      CHECK(o->n_keypoints == 17 && w->n_values == 51 && o->n_edges == 19 && o->edges,
            "%s #%d: %d keypoints (%d values), %d skeleton edges", name, i, o->n_keypoints, w->n_values, o->n_edges);
      for (int k = 0; k < o->n_keypoints && 3 * k + 2 < w->n_values; k++) {
        worst_kpt = fmax(worst_kpt, fmax(fabs(o->keypoints[k].x - w->v[3 * k]), fabs(o->keypoints[k].y - w->v[3 * k + 1])));
        worst_vis = fmax(worst_vis, fabs(o->keypoints[k].score - w->v[3 * k + 2]));
      }
    } else if (!strcmp(task, "obb")) {
      CHECK(o->oriented && w->n_values == 5, "%s #%d: an oriented box (%d values)", name, i, w->n_values);
      const tfl_rbox *b = &o->rbox;
      /* a side may be negative in a random YOLO26 head's rows: predict keeps the sign, we
       * give the same rectangle with positive sides */
      worst_box = fmax(worst_box, fmax(fmax(fabs(b->cx - w->v[0]), fabs(b->cy - w->v[1])),
                                       fmax(fabs(b->w - fabs(w->v[2])), fabs(b->h - fabs(w->v[3])))));
      worst_angle = fmax(worst_angle, angle_diff_deg(b->angle, w->v[4]));
    } else if (masks) {
      CHECK(o->mask.prob != NULL && scratch, "%s #%d: no mask", name, i);
      if (scratch) worst_iou = fmin(worst_iou, mask_iou(o, masks + (size_t)i * mask_bytes, fw, fh, tr, scratch));
    }
  }
  printf("%-28s %2d detections (Ultralytics %2d): %d matched, max box error %.2e px, score %.2e", name, r->n_boxes,
         n_want, matched, worst_box, worst_score);
  if (!strcmp(task, "pose")) printf(", keypoints %.2e px, visibility %.2e", worst_kpt, worst_vis);
  if (!strcmp(task, "obb")) printf(", angle %.2e deg", worst_angle);
  if (!strcmp(task, "segment")) printf(", worst mask IoU %.4f", worst_iou);
  printf("\n");
  free(scratch);
  CHECK(matched == n_want, "%s: %d of Ultralytics' %d matched", name, matched, n_want);
  CHECK(worst_box <= box_tol, "%s: box error %g px > %g", name, worst_box, box_tol);
  CHECK(worst_kpt <= box_tol && worst_vis <= score_tol, "%s: keypoint error %g px, visibility %g", name, worst_kpt,
        worst_vis);
  CHECK(worst_angle <= ANGLE_TOL_DEG, "%s: angle error %g degrees", name, worst_angle);
  CHECK(worst_iou >= MASK_IOU, "%s: mask IoU %g", name, worst_iou);
}

static void run_task(const char *dir, const char *line)
{
  char model[128], task[16], picture[128], expected[128];
  int width, height, n_expected;
  float conf, iou, box_tol, score_tol;
  if (sscanf(line, "%127s %15s %127s %d %d %f %f %127s %d %f %f", model, task, picture, &width, &height, &conf, &iou,
             expected, &n_expected, &box_tol, &score_tol) != 11) {
    CHECK(0, "tasks.txt: bad line %s", line);
    return;
  }
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, model);
  tfl_diag d;
  tfl_diag_init(&d);
  tfl_graph *g = NULL;
  CHECK(tfl_load_file(path, &g, &d) == TFL_OK, "%s: %s", model, d.error);
  if (!g) return;
  CHECK(g->meta.ultralytics.present && !strcmp(g->meta.ultralytics.task, task), "%s: metadata task '%s', want %s",
        model, g->meta.ultralytics.task, task);
  tfl_pass_nhwc_input(g, 0);
  char why[256];
  tfl_family_match m;
  const tfl_family *f = tfl_family_identify(g, &m, why, sizeof why);
  CHECK(f && f->decoder == TFL_DECODER_DETECTION && m == TFL_FAMILY_KNOWN, "%s: %s", model, why);
  const fit_mode fit = preprocess_model_fit(g, TFL_DECODER_DETECTION);
  CHECK(fit == FIT_LETTERBOX_GREY, "%s: fit %d, not Ultralytics' letterbox", model, (int)fit);
  pix_norm norm = preprocess_model_norm(g, TFL_DECODER_DETECTION, NULL);
  norm.pad = preprocess_fit_pad(fit);

  tfl_delegate *cpu = NULL;
  tfl_interpreter *it = NULL;
  tfl_decoder *dec = NULL;
  tfl_results r = { 0 };
  CHECK(test_cpu_interpreter(g, &d, &cpu, &it) == TFL_OK, "%s: %s", model, d.error);
  snprintf(path, sizeof path, "%s/%s", dir, picture);
  size_t size = 0;
  uint8_t *rgb = golden_read_file(path, &size), *masks = NULL;
  CHECK(rgb && size == (size_t)width * height * 3, "%s: picture %s", model, path);
  if (it && rgb) {
    tfl_tensor *in = tfl_interpreter_input(it, 0);
    const pix_frame frame = { PIX_RGB, width, height, { rgb }, { width * 3 } };
    const tfl_transform tr = preprocess_transform(width, height, in->dims[2], in->dims[1], fit);
    CHECK(preprocess_frame(&frame, &tr, &norm, in) == 0, "%s: preprocess", model);
    CHECK(tfl_interpreter_invoke(it) == TFL_OK, "%s: %s", model, tfl_interpreter_last_error(it));
    tfl_decoder_options o = tfl_decoder_defaults();
    o.threshold = conf;
    o.iou_threshold = iou;
    o.max_results = 300;
    CHECK(tfl_decoder_create(TFL_DECODER_DETECTION, g, &o, &dec, &d) == TFL_OK, "%s: %s", model, d.error);
    const tfl_tensor *outs[8];
    const int n_out = tfl_interpreter_output_count(it) < 8 ? tfl_interpreter_output_count(it) : 8;
    for (int i = 0; i < n_out; i++) outs[i] = tfl_interpreter_output(it, i);
    if (dec) CHECK(tfl_decoder_run(dec, outs, n_out, &tr, &r, &d) == TFL_OK, "%s: %s", model, d.error);
    det want[MAX_DET];
    snprintf(path, sizeof path, "%s/%s.predict", dir, expected);
    const int n = yolo_ref_read(path, want, MAX_DET);
    CHECK(n == n_expected && n > 0, "%s: %s has %d detections, tasks.txt says %d", model, path, n, n_expected);
    if (!strcmp(task, "segment")) {
      snprintf(path, sizeof path, "%s/%s.masks", dir, expected);
      size_t msize = 0;
      masks = golden_read_file(path, &msize);
      CHECK(masks && n > 0 && msize == (size_t)n * (((size_t)width + 7) / 8) * (size_t)height, "%s: %s (%zu bytes)",
            model, path, msize);
    }
    CHECK(box_tol >= BOX_TOL - 1e-6 && box_tol <= 4.0 && score_tol >= SCORE_TOL - 1e-6 && score_tol <= 0.05,
          "%s: tolerances %g px, score %g", model, box_tol, score_tol);
    if (n >= 0) compare(expected, task, &r, want, n, masks, width, height, &tr, box_tol, score_tol);
  }
  tfl_results_clear(&r);
  tfl_decoder_free(dec);
  free(rgb);
  free(masks);
  tfl_interpreter_free(it);
  cpu->destroy(cpu);
  tfl_graph_free(g);
}

/* A random rotated head (obb_raw.bin, [1, 8, 525], clusters of overlapping boxes) on a
 * graph of that one output with obb metadata, against Ultralytics' non_max_suppression
 * (rotated=True) on the same values: the same boxes (147, per class; 76 agnostic), classes
 * and scores, rotated boxes within 1e-3 px and 1e-3 degrees. */
static void run_obb_raw(const char *dir, const char *expected, bool agnostic)
{
  char path[1024];
  snprintf(path, sizeof path, "%s/obb_raw.bin", dir);
  size_t size = 0;
  void *data = golden_read_file(path, &size);
  CHECK(data && size == 8 * 525 * sizeof(float), "%s: %zu bytes", path, size);
  if (!data) return;
  tfl_tensor t[2];
  memset(t, 0, sizeof t);
  t[0] = (tfl_tensor){ .type = TFL_TYPE_FLOAT32, .ndim = 4, .dims = { 1, 3, 160, 160 }, .producer = -1 };
  t[1] = (tfl_tensor){ .type = TFL_TYPE_FLOAT32, .ndim = 3, .dims = { 1, 8, 525 }, .producer = -1, .data = data,
                       .bytes = size };
  int32_t in = 0, out = 1;
  tfl_graph g;
  memset(&g, 0, sizeof g);
  g.n_tensors = 2;
  g.tensors = t;
  g.n_inputs = g.n_outputs = 1;
  g.inputs = &in;
  g.outputs = &out;
  g.batch = 1;
  g.meta.ultralytics.present = true;
  snprintf(g.meta.ultralytics.task, sizeof g.meta.ultralytics.task, "obb");
  g.meta.ultralytics.n_names = 3;
  g.meta.ultralytics.end2end = -1;
  tfl_decoder_options o = tfl_decoder_defaults();
  o.threshold = 0.25f;
  o.iou_threshold = 0.7f;
  o.max_results = 300;
  o.class_agnostic = agnostic;
  tfl_diag d;
  tfl_diag_init(&d);
  tfl_decoder *dec = NULL;
  tfl_results r = { 0 };
  CHECK(tfl_decoder_create(TFL_DECODER_DETECTION, &g, &o, &dec, &d) == TFL_OK, "obb_raw: %s", d.error);
  const tfl_transform tr = preprocess_transform(160, 160, 160, 160, FIT_STRETCH);
  const tfl_tensor *outs[1] = { &t[1] };
  if (dec) CHECK(tfl_decoder_run(dec, outs, 1, &tr, &r, &d) == TFL_OK, "obb_raw: %s", d.error);
  snprintf(path, sizeof path, "%s/%s", dir, expected);
  FILE *f = fopen(path, "r");
  CHECK(f != NULL, "cannot read %s", path);
  bool used[512] = { false };
  int n = 0, matched = 0;
  double worst = 0, worst_angle = 0;
  char line[256];
  while (f && fgets(line, sizeof line, f)) {
    int c;
    float sc, cx, cy, w, h, a;
    if (sscanf(line, "%d %f %f %f %f %f %f", &c, &sc, &cx, &cy, &w, &h, &a) != 7) continue;
    n++;
    int best = -1;
    double best_err = 0;
    for (int j = 0; j < r.n_boxes && j < 512; j++) {
      const tfl_rbox *b = &r.boxes[j].rbox;
      if (used[j] || r.boxes[j].class_id != c || fabsf(r.boxes[j].score - sc) > 1e-5f) continue;
      const double e = fmax(fmax(fabs(b->cx - cx), fabs(b->cy - cy)), fmax(fabs(b->w - w), fabs(b->h - h)));
      if (best < 0 || e < best_err) best = j, best_err = e;
    }
    if (best < 0) {
      fprintf(stderr, "  %s: Ultralytics' %s has no match\n", expected, line);
      continue;
    }
    used[best] = true;
    matched++;
    worst = fmax(worst, best_err);
    worst_angle = fmax(worst_angle, angle_diff_deg(r.boxes[best].rbox.angle, a));
  }
  if (f) fclose(f);
  printf("%-28s %3d rotated boxes (Ultralytics %3d): %d matched, max error %.2e px, angle %.2e deg\n", expected,
         r.n_boxes, n, matched, worst, worst_angle);
  CHECK(n > 50 && r.n_boxes == n && matched == n, "%s: %d boxes, Ultralytics %d, %d matched", expected, r.n_boxes, n,
        matched);
  CHECK(worst <= 1e-3 && worst_angle <= 1e-3, "%s: error %g px, angle %g degrees", expected, worst, worst_angle);
  tfl_results_clear(&r);
  tfl_decoder_free(dec);
  free(data);
}

/* Multi-label decoding (tfl_decoder_options.multi_label, Ultralytics' val NMS) of a random
 * anchor-free head (ml_raw.bin, [1, 7, 525], no metadata) against Ultralytics'
 * non_max_suppression(multi_label=True): every (box, class) detection, scores within
 * 1e-5, boxes within 1e-3 px. */
static void run_multilabel_raw(const char *dir)
{
  char path[1024];
  snprintf(path, sizeof path, "%s/ml_raw.bin", dir);
  size_t size = 0;
  void *data = golden_read_file(path, &size);
  CHECK(data && size == 7 * 525 * sizeof(float), "%s: %zu bytes", path, size);
  if (!data) return;
  tfl_tensor t[2];
  memset(t, 0, sizeof t);
  t[0] = (tfl_tensor){ .type = TFL_TYPE_FLOAT32, .ndim = 4, .dims = { 1, 3, 160, 160 }, .producer = -1 };
  t[1] = (tfl_tensor){ .type = TFL_TYPE_FLOAT32, .ndim = 3, .dims = { 1, 7, 525 }, .producer = -1, .data = data,
                       .bytes = size };
  int32_t in = 0, out = 1;
  tfl_graph g;
  memset(&g, 0, sizeof g);
  g.n_tensors = 2;
  g.tensors = t;
  g.n_inputs = g.n_outputs = 1;
  g.inputs = &in;
  g.outputs = &out;
  g.batch = 1;
  tfl_decoder_options o = tfl_decoder_defaults();
  o.threshold = 0.4f;
  o.iou_threshold = 0.6f;
  o.max_results = 300;
  o.multi_label = true;
  tfl_diag d;
  tfl_diag_init(&d);
  tfl_decoder *dec = NULL;
  tfl_results r = { 0 };
  CHECK(tfl_decoder_create(TFL_DECODER_DETECTION, &g, &o, &dec, &d) == TFL_OK, "ml_raw: %s", d.error);
  const tfl_transform tr = preprocess_transform(160, 160, 160, 160, FIT_STRETCH);
  const tfl_tensor *outs[1] = { &t[1] };
  if (dec) CHECK(tfl_decoder_run(dec, outs, 1, &tr, &r, &d) == TFL_OK, "ml_raw: %s", d.error);
  int n = 0;
  snprintf(path, sizeof path, "%s/ml_raw.expected", dir);
  FILE *f = fopen(path, "r");
  CHECK(f != NULL, "cannot read %s", path);
  bool used[512] = { false };
  int matched = 0;
  double worst = 0;
  char line[256];
  while (f && fgets(line, sizeof line, f)) {
    det w;
    if (sscanf(line, "%d %f %f %f %f %f", &w.class_id, &w.score, &w.x0, &w.y0, &w.x1, &w.y1) != 6) continue;
    n++;
    int best = -1;
    for (int j = 0; j < r.n_boxes && j < 512; j++) {
      const tfl_box *b = &r.boxes[j];
      if (used[j] || b->class_id != w.class_id || fabsf(b->score - w.score) > 1e-5f) continue;
      if (best < 0 || box_error(b, &w, 160, 160) < box_error(&r.boxes[best], &w, 160, 160)) best = j;
    }
    if (best < 0) {
      fprintf(stderr, "  ml_raw: Ultralytics' %s has no match\n", line);
      continue;
    }
    used[best] = true;
    matched++;
    worst = fmax(worst, box_error(&r.boxes[best], &w, 160, 160));
  }
  if (f) fclose(f);
  printf("%-28s %3d detections (Ultralytics %3d, multi-label): %d matched, max box error %.2e px\n", "ml_raw",
         r.n_boxes, n, matched, worst);
  CHECK(n > 100 && r.n_boxes == n && matched == n, "ml_raw: %d detections, Ultralytics %d, %d matched", r.n_boxes, n,
        matched);
  CHECK(worst <= 1e-3, "ml_raw: box error %g px", worst);
  tfl_results_clear(&r);
  tfl_decoder_free(dec);
  free(data);
}

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: test_yolo_tasks DATA_DIR (tests/data/yolo)\n");
    return 2;
  }
  /* tasks.txt: the trained models (the element's test runs them too); tasks_e2e.txt:
   * the random YOLO26 end-to-end obb (random weights: for the decoder only) */
  int runs = 0, runs_e2e = 0;
  for (int list = 0; list < 2; list++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", argv[1], list ? "tasks_e2e.txt" : "tasks.txt");
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "cannot read %s", path);
    char line[1024];
    while (f && fgets(line, sizeof line, f)) {
      if (line[0] == '#' || line[0] == '\n') continue;
      run_task(argv[1], line);
      *(list ? &runs_e2e : &runs) += 1;
    }
    if (f) fclose(f);
  }
  run_obb_raw(argv[1], "obb_raw.expected", false);
  run_obb_raw(argv[1], "obb_raw_agnostic.expected", true);
  run_multilabel_raw(argv[1]);
  /* every task, fp32 and int8; YOLO26's end-to-end obb */
  CHECK(runs == 6, "%d runs in tasks.txt, want 6 (segment, pose, obb; fp32 and int8)", runs);
  CHECK(runs_e2e == 1, "%d runs in tasks_e2e.txt, want 1 (YOLO26 obb end-to-end)", runs_e2e);
  printf("%s\n", failures ? "FAILED" : "ok");
  return failures != 0;
}
