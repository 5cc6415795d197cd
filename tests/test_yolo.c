/* test_yolo.c - Ultralytics YOLO: recognition, decoding and preprocessing against
 * Ultralytics' own results (tests/data/yolo/, made by make_yolo.py; no Python here).
 *
 *   test_yolo DATA_DIR
 *
 * 1. cases.txt: raw output tensors (anchor-free both orientations, YOLOv5 with
 *    objectness, end-to-end, float16, int8) on a graph that has only the input
 *    [1,3,160,160] and that output: the family table must recognize the head from its
 *    shape, and the detection decoder must give what Ultralytics' non_max_suppression
 *    gave (*.expected): same count, classes and order, scores within 1e-5, boxes within
 *    1e-3 px.
 * 2. runs.txt: the exported .tflite files (their metadata.json: task, names, imgsz,
 *    end2end) run by our runtime on picture.rgb with the family's preprocessing (grey
 *    letterbox, 0..1): boxes within 2 px of Ultralytics' predict on the same file
 *    (*.predict), same classes, scores within 0.02 (its resize rounds to 8 bits). */
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

#include <stdlib.h>
#include <string.h>

#define MAX_BOXES 512

typedef yolo_ref box;

/* Largest keypoint difference (position in px, visibility) of ours against theirs. */
static double kpt_error(const tfl_box *o, const box *w)
{
  if (w->n_values != 3 * o->n_keypoints) return INFINITY;
  double e = 0;
  for (int k = 0; k < o->n_keypoints; k++) {
    e = fmax(e, fmax(fabs(o->keypoints[k].x - w->v[3 * k]), fabs(o->keypoints[k].y - w->v[3 * k + 1])));
    e = fmax(e, fabs(o->keypoints[k].score - w->v[3 * k + 2]));
  }
  return e;
}

static double box_error(const tfl_box *o, const box *w)
{
  return fmax(fmax(fabs(o->x - w->x0), fabs(o->y - w->y0)),
              fmax(fabs(o->x + o->w - w->x1), fabs(o->y + o->h - w->y1)));
}

/* Ours against theirs: each of theirs matched to one of ours of the same class and score
 * (within score_tol) with the nearest box; boxes of equal scores may come in either
 * order (torch's sort is not stable, ours keeps the head's order). Prints the numbers;
 * a failure when a box is unmatched or a tolerance is passed. */
static void compare(const char *name, const tfl_results *r, const box *want, int n_want, double box_tol,
                    double score_tol)
{
  CHECK(r->n_boxes == n_want, "%s: %d boxes, Ultralytics %d", name, r->n_boxes, n_want);
  double worst_box = 0, worst_score = 0;
  int matched = 0, in_order = 0;
  bool used[MAX_BOXES] = { false };
  for (int i = 0; i < n_want; i++) {
    const box *w = &want[i];
    int best = -1;
    for (int j = 0; j < r->n_boxes && j < MAX_BOXES; j++) {
      const tfl_box *o = &r->boxes[j];
      if (used[j] || o->class_id != w->class_id || fabs(o->score - w->score) > score_tol) continue;
      if (best < 0 || box_error(o, w) < box_error(&r->boxes[best], w)) best = j;
    }
    if (best < 0) {
      fprintf(stderr, "  %s: Ultralytics' #%d (class %d %.4f, %.3f %.3f %.3f %.3f) has no match\n", name, i,
              w->class_id, w->score, w->x0, w->y0, w->x1, w->y1);
      continue;
    }
    used[best] = true;
    matched++;
    in_order += best == i;
    const tfl_box *o = &r->boxes[best];
    if (box_error(o, w) > box_tol)
      fprintf(stderr, "  %s #%d: ours (%.3f %.3f %.3f %.3f), Ultralytics (%.3f %.3f %.3f %.3f)\n", name, i, o->x, o->y,
              o->x + o->w, o->y + o->h, w->x0, w->y0, w->x1, w->y1);
    worst_box = fmax(worst_box, box_error(o, w));
    if (w->n_values || o->n_keypoints) worst_box = fmax(worst_box, kpt_error(o, w));
    worst_score = fmax(worst_score, fabs(o->score - w->score));
  }
  printf("%-30s %3d boxes (Ultralytics %3d): %d matched (class and score; %d in the same place), max box/keypoint error "
         "%.2e px, max score error %.2e\n", name, r->n_boxes, n_want, matched, in_order, worst_box, worst_score);
  CHECK(matched == n_want, "%s: %d of Ultralytics' %d boxes matched", name, matched, n_want);
  CHECK(worst_box <= box_tol, "%s: box error %g px > %g", name, worst_box, box_tol);
}

static tfl_type type_of(const char *s)
{
  return !strcmp(s, "float16") ? TFL_TYPE_FLOAT16 : !strcmp(s, "int8") ? TFL_TYPE_INT8 : TFL_TYPE_FLOAT32;
}

/* The masks (segmentation) and boxes of a raw case's decoding (case `file`) against
 * Ultralytics'. */
static void check_result(const char *dir, const char *file, const char *name, int imgsz, bool protos,
                         const tfl_results *res)
{
  const tfl_results r = *res;
  char path[1024];
  if (protos) {
    /* the union of the instance masks against Ultralytics' process_mask (binary, at the
     * prototypes' resolution) */
    snprintf(path, sizeof path, "%s/%s.mask", dir, file);
    size_t msize = 0;
    uint8_t *want = golden_read_file(path, &msize);
    const int mw = imgsz / 4, mh = imgsz / 4;
    CHECK(want && msize == (size_t)mw * mh, "%s: cannot read %s", name, path);
    /* the boxes' own masks (the transform is the identity: frame = input pixels), each
     * cropped to its box as crop_mask (texel column x is in when x1 <= x < x2) */
    uint8_t *got = calloc((size_t)mw * mh, 1);
    int with_mask = 0;
    const float g = (float)mw / (float)imgsz;
    for (int b = 0; got && b < r.n_boxes; b++) {
      const tfl_box *o = &r.boxes[b];
      const tfl_box_mask *bm = &o->mask;
      if (!bm->prob) continue;
      with_mask++;
      const int g0 = (int)lroundf(bm->frame_x * g), h0 = (int)lroundf(bm->frame_y * g);
      CHECK(fabsf(bm->frame_w * g - (float)bm->width) < 1e-3f && fabsf(bm->frame_h * g - (float)bm->height) < 1e-3f,
            "%s #%d: a %dx%d mask over %.2fx%.2f px", name, b, bm->width, bm->height, bm->frame_w, bm->frame_h);
      for (int y = 0; y < bm->height; y++)
        for (int x = 0; x < bm->width; x++) {
          const int px = g0 + x, py = h0 + y;
          const bool in = px >= 0 && py >= 0 && px < mw && py < mh && (float)px >= o->x * g &&
                          (float)px < (o->x + o->w) * g && (float)py >= o->y * g && (float)py < (o->y + o->h) * g;
          if (in && bm->prob[(size_t)y * bm->width + x] > 0.5f) got[(size_t)py * mw + px] = 1;
        }
    }
    CHECK(with_mask == r.n_boxes, "%s: %d of %d boxes have a mask", name, with_mask, r.n_boxes);
    if (want && got) {
      int differ = 0, on = 0;
      for (int i = 0; i < mw * mh; i++) {
        differ += got[i] != (want[i] != 0);
        on += want[i] != 0;
      }
      printf("%-30s masks %dx%d: the union of the %d boxes' masks: %d of %d pixels differ from Ultralytics' "
             "process_mask (%d on)\n", name, mw, mh, with_mask, differ, mw * mh, on);
      CHECK(differ == 0, "%s: %d mask pixels differ", name, differ);
    }
    free(got);
    free(want);
  }
  box want[MAX_BOXES];
  snprintf(path, sizeof path, "%s/%s.expected", dir, file);
  const int n = yolo_ref_read(path, want, MAX_BOXES);
  CHECK(n >= 0, "%s: cannot read %s", name, path);
  if (n >= 0) compare(name, &r, want, n, 1e-3, 1e-5);
}

/* The element's way with a segmentation head: a graph of the head and the prototypes,
 * YOLO_DETECTION appended (decoders/yolo_op.c), run by the CPU kernel, the decoder on the
 * op's rows (each kept box's coefficients carried) and the prototypes. true when r holds
 * a decoding. */
static bool run_with_op(const char *name, const tfl_tensor *head, const tfl_tensor *protos, const tfl_model_meta *meta,
                        int imgsz, const tfl_decoder_options *o, const tfl_transform *tr, tfl_results *r)
{
  tfl_diag d;
  tfl_diag_init(&d);
  tfl_graph *g = calloc(1, sizeof *g);
  int32_t *in = malloc(3 * sizeof *in), *out = malloc(2 * sizeof *out);
  bool ok = false, appended = false;
  tfl_delegate *cpu = NULL;
  tfl_interpreter *it = NULL;
  tfl_decoder *dec = NULL;
  CHECK(g && in && out, "%s: out of memory", name);
  if (!g || !in || !out) goto out;
  in[0] = tfl_graph_add_tensor(g, "picture", TFL_TYPE_FLOAT32, 4, (const int32_t[]){ 1, 3, imgsz, imgsz });
  in[1] = out[0] = tfl_graph_add_tensor(g, "head", head->type, head->ndim, head->dims);
  in[2] = out[1] = tfl_graph_add_tensor(g, "protos", protos->type, protos->ndim, protos->dims);
  if (head->q.n) {
    float *sc = tfl_graph_alloc(g, sizeof *sc);
    int32_t *zp = tfl_graph_alloc(g, sizeof *zp);
    if (sc && zp) {
      *sc = head->q.scale[0], *zp = head->q.zero_point[0];
      g->tensors[in[1]].q = (tfl_quant){ 1, sc, zp, 0 };
    }
  }
  g->inputs = in;
  g->outputs = out;
  g->n_inputs = 3;
  g->n_outputs = 2;
  in = out = NULL;
  g->batch = 1;
  g->meta.ultralytics = meta->ultralytics; /* the names and labels stay the caller's */
  CHECK(tfl_decoder_append_postprocess(TFL_DECODER_DETECTION, g, o, &appended, &d) == TFL_OK, "%s: %s", name, d.error);
  const bool has_op = appended && g->n_nodes == 1 && g->nodes[0].op == TFL_OP_YOLO_DETECTION && g->n_outputs == 2 &&
                      g->outputs[1] == 2 && g->nodes[0].p.yolo_det.n_extra == 32 && g->nodes[0].p.yolo_det.kpt_dim == 0;
  CHECK(has_op, "%s: YOLO_DETECTION %s appended with the 32 coefficients and the prototypes kept", name,
        appended ? "not" : "was not");
  if (!has_op) goto out;
  CHECK(test_cpu_interpreter(g, &d, &cpu, &it) == TFL_OK, "%s: %s", name, d.error);
  if (!it) goto out;
  tfl_tensor *ih = tfl_interpreter_input(it, 1), *ip = tfl_interpreter_input(it, 2);
  CHECK(ih->bytes == head->bytes && ip->bytes == protos->bytes, "%s: inputs of %zu and %zu bytes", name, ih->bytes,
        ip->bytes);
  if (ih->bytes != head->bytes || ip->bytes != protos->bytes) goto out;
  memcpy(ih->data, head->data, head->bytes);
  memcpy(ip->data, protos->data, protos->bytes);
  CHECK(tfl_interpreter_invoke(it) == TFL_OK, "%s: %s", name, tfl_interpreter_last_error(it));
  CHECK(tfl_decoder_create(TFL_DECODER_DETECTION, g, o, &dec, &d) == TFL_OK, "%s: %s", name, d.error);
  if (!dec) goto out;
  const tfl_tensor *outs[2] = { tfl_interpreter_output(it, 0), tfl_interpreter_output(it, 1) };
  ok = tfl_decoder_run(dec, outs, 2, tr, r, &d) == TFL_OK;
  CHECK(ok, "%s: %s", name, d.error);
out:
  tfl_decoder_free(dec);
  tfl_interpreter_free(it);
  if (cpu) cpu->destroy(cpu);
  free(in);
  free(out);
  tfl_graph_free(g);
  return ok;
}

/* One raw case: a graph of an NCHW input and the head as its only output. */
static void run_case(const char *dir, const char *line)
{
  char name[64], type[16], dims[64], meta[32];
  float qscale, conf, iou;
  int qzero, imgsz, max_det, agnostic, nc;
  if (sscanf(line, "%63s %15s %63s %f %d %d %f %f %d %d %d %31s", name, type, dims, &qscale, &qzero, &imgsz, &conf,
             &iou, &max_det, &agnostic, &nc, meta) != 12) {
    CHECK(0, "cases.txt: bad line %s", line);
    return;
  }
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.bin", dir, name);
  size_t size = 0;
  void *data = golden_read_file(path, &size);
  CHECK(data != NULL, "%s: cannot read %s", name, path);
  if (!data) return;

  tfl_tensor t[3];
  memset(t, 0, sizeof t);
  t[0] = (tfl_tensor){ .type = TFL_TYPE_FLOAT32, .ndim = 4, .dims = { 1, 3, imgsz, imgsz }, .producer = -1 };
  t[1] = (tfl_tensor){ .type = type_of(type), .producer = -1, .data = data, .bytes = size };
  /* a segmentation head's prototypes [1, 32, imgsz/4, imgsz/4], when the case has them */
  snprintf(path, sizeof path, "%s/%s.protos.bin", dir, name);
  size_t psize = 0;
  void *protos = golden_read_file(path, &psize);
  t[2] = (tfl_tensor){ .type = TFL_TYPE_FLOAT32, .ndim = 4, .dims = { 1, 32, imgsz / 4, imgsz / 4 }, .producer = -1,
                       .data = protos, .bytes = psize };
  for (char *p = dims; t[1].ndim < TFL_MAX_DIMS;) {
    t[1].dims[t[1].ndim++] = (int32_t)strtol(p, &p, 10);
    if (*p != ',') break;
    p++;
  }
  float scale = qscale;
  int32_t zero = qzero;
  if (qscale > 0) t[1].q = (tfl_quant){ 1, &scale, &zero, 0 };
  int32_t in = 0, outs_ix[2] = { 1, 2 };
  tfl_graph g;
  memset(&g, 0, sizeof g);
  g.n_tensors = 3;
  g.tensors = t;
  g.n_inputs = 1;
  g.n_outputs = protos ? 2 : 1;
  g.inputs = &in;
  g.outputs = outs_ix;
  g.batch = 1;
  /* "task:names[:KxD][:e2e]": what Ultralytics' metadata.json would say (tfl_ultralytics.c) */
  char *colon = strchr(meta, ':');
  if (colon) {
    *colon = 0;
    g.meta.ultralytics.present = true;
    snprintf(g.meta.ultralytics.task, sizeof g.meta.ultralytics.task, "%.15s", meta);
    g.meta.ultralytics.n_names = atoi(colon + 1);
    g.meta.ultralytics.end2end = strstr(colon + 1, ":e2e") ? 1 : -1;
    const char *kpt = strchr(colon + 1, ':');
    if (kpt && sscanf(kpt, ":%dx%d", &g.meta.ultralytics.kpt_shape[0], &g.meta.ultralytics.kpt_shape[1]) != 2)
      g.meta.ultralytics.kpt_shape[0] = g.meta.ultralytics.kpt_shape[1] = 0;
  }

  char why[256];
  tfl_family_match m;
  const tfl_family *f = tfl_family_identify(&g, &m, why, sizeof why);
  CHECK(f && f->decoder == TFL_DECODER_DETECTION && m == TFL_FAMILY_KNOWN &&
            f->fit == TFL_FIT_HINT_LETTERBOX_GREY,
        "%s: recognized as %s (%s)", name, f ? f->name : "nothing", why);
  tfl_decoder_options o = tfl_decoder_defaults();
  o.threshold = conf;
  o.iou_threshold = iou;
  o.max_results = max_det;
  o.class_agnostic = agnostic;
  tfl_diag d;
  tfl_diag_init(&d);
  tfl_decoder *dec = NULL;
  CHECK(tfl_decoder_create(TFL_DECODER_DETECTION, &g, &o, &dec, &d) == TFL_OK, "%s: %s", name, d.error);
  const tfl_transform tr = preprocess_transform(imgsz, imgsz, imgsz, imgsz, FIT_STRETCH);
  tfl_results r = { 0 };
  const tfl_tensor *outs[2] = { &t[1], &t[2] };
  if (dec) CHECK(tfl_decoder_run(dec, outs, g.n_outputs, &tr, &r, &d) == TFL_OK, "%s: %s", name, d.error);
  check_result(dir, name, name, imgsz, protos != NULL, &r);
  tfl_results_clear(&r);
  /* a segmentation head as the element runs it: YOLO_DETECTION appended (decoders/yolo_op.c),
   * its CPU kernel's rows (the coefficients carried) and the prototypes decoded */
  if (protos) {
    char op_name[80];
    snprintf(op_name, sizeof op_name, "%s (op)", name);
    if (run_with_op(op_name, &t[1], &t[2], &g.meta, imgsz, &o, &tr, &r)) check_result(dir, name, op_name, imgsz, true, &r);
    tfl_results_clear(&r);
  }
  tfl_decoder_free(dec);
  free(data);
  free(protos);
}

/* One exported model on the picture, as tflitefilter runs it. */
static void run_model(const char *dir, const char *line)
{
  char model[128], picture[128], expected[128];
  int width, height, max_det, n_expected;
  float conf, iou;
  if (sscanf(line, "%127s %127s %d %d %f %f %d %127s %d", model, picture, &width, &height, &conf, &iou, &max_det,
             expected, &n_expected) != 9) {
    CHECK(0, "runs.txt: bad line %s", line);
    return;
  }
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, model);
  tfl_diag d;
  tfl_diag_init(&d);
  tfl_graph *g = NULL;
  CHECK(tfl_load_file(path, &g, &d) == TFL_OK, "%s: %s", model, d.error);
  if (!g) return;
  CHECK(g->meta.ultralytics.present && !strcmp(g->meta.ultralytics.task, "detect") &&
        g->meta.ultralytics.imgsz[0] == 160 && g->meta.ultralytics.n_names == 3,
        "%s: metadata.json read (task '%s', imgsz %d, %d names)", model, g->meta.ultralytics.task,
        g->meta.ultralytics.imgsz[0], g->meta.ultralytics.n_names);
  /* the trained one has its data set's names; the others Ultralytics' defaults "0", "1", "2" */
  const char *names = strstr(model, "shapes") ? "square\ndisc\ntriangle\n" : "0\n1\n2\n";
  CHECK(g->meta.labels && !strcmp(g->meta.labels, names), "%s: labels from the names: %s", model,
        g->meta.labels ? g->meta.labels : "(none)");
  tfl_pass_nhwc_input(g, 0);
  char why[256];
  tfl_family_match m;
  const tfl_family *f = tfl_family_identify(g, &m, why, sizeof why);
  CHECK(f && f->decoder == TFL_DECODER_DETECTION && m == TFL_FAMILY_KNOWN, "%s: %s", model, why);
  printf("%s: %s\n", model, why);
  const fit_mode fit = preprocess_model_fit(g, TFL_DECODER_DETECTION);
  CHECK(fit == FIT_LETTERBOX_GREY, "%s: fit %d, not Ultralytics' letterbox", model, (int)fit);
  pix_norm norm = preprocess_model_norm(g, TFL_DECODER_DETECTION, NULL);
  norm.pad = preprocess_fit_pad(fit);
  CHECK(norm.mean[0] == 0.0f && norm.std[0] == 255.0f, "%s: input range 0..1 (mean %g std %g)", model, norm.mean[0],
        norm.std[0]);

  tfl_delegate *cpu = NULL;
  tfl_interpreter *it = NULL;
  tfl_decoder *dec = NULL;
  tfl_results r = { 0 };
  CHECK(test_cpu_interpreter(g, &d, &cpu, &it) == TFL_OK, "%s: %s", model, d.error);
  snprintf(path, sizeof path, "%s/%s", dir, picture);
  size_t size = 0;
  uint8_t *rgb = golden_read_file(path, &size);
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
    o.max_results = max_det;
    CHECK(tfl_decoder_create(TFL_DECODER_DETECTION, g, &o, &dec, &d) == TFL_OK, "%s: %s", model, d.error);
    const tfl_tensor *outs[8];
    const int n_out = tfl_interpreter_output_count(it) < 8 ? tfl_interpreter_output_count(it) : 8;
    for (int i = 0; i < n_out; i++) outs[i] = tfl_interpreter_output(it, i);
    if (dec) CHECK(tfl_decoder_run(dec, outs, n_out, &tr, &r, &d) == TFL_OK, "%s: %s", model, d.error);
    box want[MAX_BOXES];
    snprintf(path, sizeof path, "%s/%s", dir, expected);
    const int n = yolo_ref_read(path, want, MAX_BOXES);
    CHECK(n == n_expected, "%s: %s has %d boxes, runs.txt says %d", model, path, n, n_expected);
    if (n >= 0) compare(expected, &r, want, n, 2.0, 0.02);
  }
  tfl_results_clear(&r);
  tfl_decoder_free(dec);
  free(rgb);
  tfl_interpreter_free(it);
  cpu->destroy(cpu);
  tfl_graph_free(g);
}

/* ---- metadata.json and recognition edge cases ---- */

static void keep_warning(tfl_log_level level, const char *msg, void *user)
{
  if (level <= TFL_LOG_WARNING) snprintf(user, 256, "%s", msg);
}

/* A one-op model with a zip appended (make_yolo.py's meta_*.tflite): it loads whatever
 * the zip holds; *warning gets the last warning ("" none). */
static tfl_graph *load_meta(const char *dir, const char *name, char warning[256])
{
  char path[1024];
  snprintf(path, sizeof path, "%s/meta_%s.tflite", dir, name);
  tfl_diag d;
  tfl_diag_init(&d);
  d.sink = keep_warning;
  d.user = warning;
  warning[0] = 0;
  tfl_graph *g = NULL;
  CHECK(tfl_load_file(path, &g, &d) == TFL_OK, "%s loads: %s", path, d.error);
  return g;
}

static void test_metadata(const char *dir)
{
  char w[256];
  tfl_graph *g = load_meta(dir, "good", w);
  if (g) {
    const typeof(g->meta.ultralytics) *u = &g->meta.ultralytics;
    CHECK(u->present && !strcmp(u->task, "pose") && u->imgsz[0] == 192 && u->imgsz[1] == 256 && u->stride == 32 &&
          u->end2end == 1 && u->kpt_shape[0] == 17 && u->kpt_shape[1] == 3 && u->n_names == 3,
          "meta_good: task '%s' imgsz %dx%d stride %d end2end %d kpt %dx%d names %d", u->task, u->imgsz[0], u->imgsz[1],
          u->stride, u->end2end, u->kpt_shape[0], u->kpt_shape[1], u->n_names);
    /* keys out of order, a gap (its number), escapes, a newline made a space, a surrogate pair */
    CHECK(g->meta.labels && !strcmp(g->meta.labels, "line break\ntr\xc3\xa8s \"quoted\"\n2\n\xf0\x9f\x98\x80\n"),
          "meta_good labels: %s", g->meta.labels ? g->meta.labels : "(none)");
    CHECK(!w[0], "meta_good: no warning (%s)", w);
    tfl_graph_free(g);
  }
  if ((g = load_meta(dir, "stored", w))) {
    CHECK(g->meta.ultralytics.present && g->meta.ultralytics.imgsz[0] == 320 && g->meta.ultralytics.imgsz[1] == 320 &&
          g->meta.ultralytics.end2end == -1 && g->meta.labels && !strcmp(g->meta.labels, "a\nb\n"),
          "meta_stored: a stored entry, names as a list, imgsz as one number, end2end not said");
    tfl_graph_free(g);
  }
  if ((g = load_meta(dir, "truncated", w))) {
    CHECK(g->meta.ultralytics.present && !strcmp(g->meta.ultralytics.task, "pose") && strstr(w, "partly read"),
          "meta_truncated: what came before the cut, and a warning (%s)", w);
    tfl_graph_free(g);
  }
  if ((g = load_meta(dir, "corrupt", w))) {
    CHECK(!g->meta.ultralytics.present && strstr(w, "does not inflate"), "meta_corrupt: ignored with a warning (%s)",
          w);
    tfl_graph_free(g);
  }
  if ((g = load_meta(dir, "deep", w))) {
    CHECK(g->meta.ultralytics.present && !strcmp(g->meta.ultralytics.task, "detect") && strstr(w, "nested too deeply"),
          "meta_deep: 5000 nested arrays stop at the depth limit (%s)", w);
    tfl_graph_free(g);
  }
}

/* A head that both orientations fit is an error naming what settles it; an oriented-box
 * model without names or with an end-to-end row of another length is an error, YOLO26's
 * end-to-end rows are read; no input size means no YOLO. */
static void test_recognition_errors(void)
{
  tfl_tensor t[2];
  memset(t, 0, sizeof t);
  t[0] = (tfl_tensor){ .type = TFL_TYPE_FLOAT32, .ndim = 4, .dims = { 1, 3, 160, 160 }, .producer = -1 };
  t[1] = (tfl_tensor){ .type = TFL_TYPE_FLOAT32, .ndim = 3, .dims = { 1, 525, 525 }, .producer = -1 };
  int32_t in = 0, out = 1;
  tfl_graph g;
  memset(&g, 0, sizeof g);
  g.n_tensors = 2;
  g.tensors = t;
  g.n_inputs = g.n_outputs = 1;
  g.inputs = &in;
  g.outputs = &out;
  char why[256];
  tfl_family_match m;
  const tfl_family *f = tfl_family_identify(&g, &m, why, sizeof why);
  CHECK(!f && strstr(why, "fits both") && strstr(why, "metadata.json"), "[1,525,525]: %s", why);
  tfl_diag d;
  tfl_diag_init(&d);
  tfl_decoder *dec = NULL;
  const tfl_decoder_options o = tfl_decoder_defaults();
  CHECK(tfl_decoder_create(TFL_DECODER_DETECTION, &g, &o, &dec, &d) != TFL_OK && strstr(d.error, "settles"),
        "a forced detection decoder names the ambiguity: %s", d.error);
  tfl_decoder_free(dec);
  g.meta.ultralytics.present = true;
  g.meta.ultralytics.end2end = 0;
  snprintf(g.meta.ultralytics.task, sizeof g.meta.ultralytics.task, "obb");
  t[1].dims[1] = 8;
  f = tfl_family_identify(&g, &m, why, sizeof why);
  CHECK(!f && strstr(why, "oriented"), "task obb without names: %s", why);
  /* YOLO26's end-to-end rotated rows (box, score, class, angle) are read; a row of
   * another length leaves the angle's place unknown */
  g.meta.ultralytics.n_names = 3;
  g.meta.ultralytics.end2end = 1;
  t[1].dims[1] = 300;
  t[1].dims[2] = 7;
  f = tfl_family_identify(&g, &m, why, sizeof why);
  CHECK(f && f->decoder == TFL_DECODER_DETECTION && strstr(why, "end-to-end") && strstr(why, "oriented") &&
        strstr(why, "3 classes"), "task obb, end-to-end [1,300,7]: %s", why);
  t[1].dims[2] = 8;
  f = tfl_family_identify(&g, &m, why, sizeof why);
  CHECK(!f && strstr(why, "oriented") && strstr(why, "[1,300,8]"), "task obb, end-to-end [1,300,8]: %s", why);
  t[1].dims[2] = 525;
  memset(&g.meta, 0, sizeof g.meta);
  t[0].ndim = 2;  /* no image input: no grid to check the count against */
  t[1].dims[1] = 84;
  f = tfl_family_identify(&g, &m, why, sizeof why);
  CHECK(!f || f->decoder != TFL_DECODER_DETECTION || f->fit != TFL_FIT_HINT_LETTERBOX_GREY, "no input size: not YOLO (%s)", why);
}

/* A YOLO classifier export (metadata task classify): the classifier row, 0..1 input on a
 * centre crop, the names as labels; its probabilities as Ultralytics' predict gives them on
 * a 160x160 picture (yolo11_cls_random.probs), within 1e-4. */
static void test_classifier(const char *dir)
{
  char path[1024];
  snprintf(path, sizeof path, "%s/yolo11_cls_random.tflite", dir);
  tfl_diag d;
  tfl_diag_init(&d);
  tfl_graph *g = NULL;
  CHECK(tfl_load_file(path, &g, &d) == TFL_OK, "%s: %s", path, d.error);
  if (!g) return;
  tfl_pass_nhwc_input(g, 0);
  char why[256];
  tfl_family_match m;
  const tfl_family *f = tfl_family_identify(g, &m, why, sizeof why);
  CHECK(f && f->decoder == TFL_DECODER_CLASSIFICATION && m == TFL_FAMILY_KNOWN && f->fit == TFL_FIT_HINT_CENTER_CROP,
        "classifier: %s", why);
  printf("yolo11_cls_random.tflite: %s\n", why);
  CHECK(preprocess_model_fit(g, TFL_DECODER_CLASSIFICATION) == FIT_CROP, "classifier: fit crop");
  pix_norm norm = preprocess_model_norm(g, TFL_DECODER_CLASSIFICATION, NULL);
  CHECK(norm.mean[0] == 0.0f && norm.std[0] == 255.0f, "classifier: input 0..1");
  CHECK(g->meta.labels && !strcmp(g->meta.labels, "0\n1\n2\n"), "classifier labels: %s",
        g->meta.labels ? g->meta.labels : "(none)");
  tfl_delegate *cpu = NULL;
  tfl_interpreter *it = NULL;
  size_t size = 0;
  snprintf(path, sizeof path, "%s/small.rgb", dir);
  uint8_t *rgb = golden_read_file(path, &size);
  float want[8];
  int n_want = 0;
  snprintf(path, sizeof path, "%s/yolo11_cls_random.probs", dir);
  FILE *pf = fopen(path, "r");
  while (pf && n_want < 8 && fscanf(pf, "%f", &want[n_want]) == 1) n_want++;
  if (pf) fclose(pf);
  CHECK(n_want == 3 && rgb && size == 160 * 160 * 3, "classifier data (%d probabilities)", n_want);
  if (test_cpu_interpreter(g, &d, &cpu, &it) == TFL_OK && rgb) {
    tfl_tensor *in = tfl_interpreter_input(it, 0);
    const pix_frame frame = { PIX_RGB, 160, 160, { rgb }, { 160 * 3 } };
    const tfl_transform tr = preprocess_transform(160, 160, in->dims[2], in->dims[1], FIT_CROP);
    CHECK(preprocess_frame(&frame, &tr, &norm, in) == 0 && tfl_interpreter_invoke(it) == TFL_OK, "classifier runs");
    tfl_decoder_options o = tfl_decoder_defaults();
    o.threshold = 0.0f;
    tfl_decoder *dec = NULL;
    tfl_results r = { 0 };
    const tfl_tensor *outs[1] = { tfl_interpreter_output(it, 0) };
    CHECK(tfl_decoder_create(TFL_DECODER_CLASSIFICATION, g, &o, &dec, &d) == TFL_OK &&
          tfl_decoder_run(dec, outs, 1, &tr, &r, &d) == TFL_OK, "classifier decodes: %s", d.error);
    double worst = 0;
    for (int i = 0; i < r.n_classes; i++)
      if (r.classes[i].class_id >= 0 && r.classes[i].class_id < n_want)
        worst = fmax(worst, fabs(r.classes[i].score - want[r.classes[i].class_id]));
    printf("%-30s %d classes (Ultralytics %d), top %d (%.4f), max probability error %.2e\n", "yolo11_cls_random.probs",
           r.n_classes, n_want, r.n_classes ? r.classes[0].class_id : -1, r.n_classes ? r.classes[0].score : 0.0,
           worst);
    CHECK(r.n_classes == n_want && worst <= 1e-4, "classifier: %d classes, error %g", r.n_classes, worst);
    tfl_results_clear(&r);
    tfl_decoder_free(dec);
  } else {
    CHECK(0, "classifier interpreter: %s", d.error);
  }
  free(rgb);
  tfl_interpreter_free(it);
  cpu->destroy(cpu);
  tfl_graph_free(g);
}

static void each_line(const char *dir, const char *file, void (*fn)(const char *, const char *))
{
  char path[1024], line[512];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  FILE *f = fopen(path, "r");
  CHECK(f != NULL, "cannot read %s", path);
  if (!f) return;
  while (fgets(line, sizeof line, f))
    if (line[0] != '#') fn(dir, line);
  fclose(f);
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: test_yolo DATA_DIR (tests/data/yolo)\n");
    return 2;
  }
  test_metadata(argv[1]);
  test_recognition_errors();
  each_line(argv[1], "cases.txt", run_case);
  each_line(argv[1], "runs.txt", run_model);
  test_classifier(argv[1]);
  printf("%s\n", failures ? "FAILED" : "ok");
  return failures != 0;
}
