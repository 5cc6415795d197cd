/* test_gl_yolo_op.c - the appended YOLO_DETECTION (decoders/yolo_op.c): its CPU kernel and
 * its GL generator against Ultralytics, and GL against the CPU kernel.
 *
 *   test_gl_yolo_op [--fp16] --ultralytics DATA_DIR   (tests/data/yolo: cases.txt)
 *   test_gl_yolo_op [--fp16] --synthetic
 *
 * 1. --ultralytics: each raw head of cases.txt (anchor-free both orientations, YOLOv5
 *    with objectness, end-to-end, float16, int8, pose, segmentation with its prototypes
 *    as a second output) as the output of a graph, the op appended as the element appends
 *    it, run by the CPU kernel (the head's own type) and on GL (a float32 head: the GL op
 *    reads float32), decoded: what Ultralytics' non_max_suppression gave (*.expected,
 *    make_yolo.py): same boxes, classes and scores (boxes of equal scores matched by class
 *    and score: torch's sort is not stable); segmentation: GL's masks those of the CPU
 *    kernel's rows (test_yolo checks those against Ultralytics' process_mask).
 * 2. --synthetic: random heads of values on a 1/64 grid (exact in halves, so fp16
 *    storage changes no decision; many equal scores), GL against the CPU kernel row by row:
 *    both orientations, YOLOv5, end-to-end with non-finite rows, agnostic, max 7, pose
 *    keypoints, segmentation's 32 mask coefficients (each kept row's the head's values of
 *    one box bit for bit: copied, not scaled as keypoints), batch 2 (items that differ),
 *    hundreds of candidates, 8400 x 80 heads (YOLOv8 at 640, thousands of candidates);
 *    and the GL check's refusals. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoders/tfl_decoder.h"
#include "delegates/cpu/cpu_delegate.h"
#include "delegates/gl/gl_gen.h"
#include "runtime/tfl_half.h"
#include "runtime/tfl_interpreter.h"
#include "runtime/tfl_passes.h"
#include "tests/gl/gl_model_run.h"
#include "tests/gl/gl_test_util.h"
#include "tests/golden.h"
#include "tests/yolo_ref.h"

#define MAX_BOXES 512
typedef yolo_ref ubox;

static double box_error(const tfl_box *o, const ubox *w)
{
  double e = fmax(fmax(fabs(o->x - w->x0), fabs(o->y - w->y0)),
                  fmax(fabs(o->x + o->w - w->x1), fabs(o->y + o->h - w->y1)));
  if (w->n_values != 3 * o->n_keypoints) return INFINITY;
  for (int k = 0; k < o->n_keypoints; k++) {
    e = fmax(e, fmax(fabs(o->keypoints[k].x - w->v[3 * k]), fabs(o->keypoints[k].y - w->v[3 * k + 1])));
    e = fmax(e, fabs(o->keypoints[k].score - w->v[3 * k + 2]));
  }
  return e;
}

/* Ours against Ultralytics': each of ours matched to one of theirs of the same class and
 * score with the nearest box; as many as theirs, or max_out. 0 on pass. */
static int compare_ultralytics(const char *name, const char *who, const tfl_results *r, const ubox *want, int n_want,
                               int max_out, double box_tol, double score_tol)
{
  double worst = 0;
  int matched = 0;
  bool used[MAX_BOXES] = { false };
  for (int j = 0; j < r->n_boxes; j++) {
    const tfl_box *o = &r->boxes[j];
    int best = -1;
    for (int i = 0; i < n_want; i++) {
      if (used[i] || o->class_id != want[i].class_id || fabs(o->score - want[i].score) > score_tol) continue;
      if (best < 0 || box_error(o, &want[i]) < box_error(o, &want[best])) best = i;
    }
    if (best < 0) continue;
    used[best] = true;
    matched++;
    worst = fmax(worst, box_error(o, &want[best]));
  }
  const int n = n_want < max_out ? n_want : max_out;
  const bool bad = r->n_boxes != n || matched != n || !(worst <= box_tol);
  printf("%s %-12s %-4s %3d boxes (Ultralytics %3d, at most %3d), %3d matched, max box/keypoint error %.2e px\n",
         bad ? "FAIL" : "ok  ", name, who, r->n_boxes, n_want, max_out, matched, worst);
  return bad;
}

/* A graph whose inputs are an NCHW picture [1,3,imgsz,imgsz] (as litert-torch exports
 * take: the end-to-end head is then in pixels), the head (type, dims, quantization) and,
 * with protos, a segmentation's prototypes [1,32,imgsz/4,imgsz/4]; its outputs the head
 * (and the prototypes); metadata as cases.txt says ("task:names[:KxD][:e2e]"; "-": a
 * detection export's, for the input size); the op appended (expect_op) or not; NULL
 * (FAIL printed) otherwise. */
static tfl_graph *head_graph(const char *name, tfl_type type, int ndim, const int32_t *dims, const float *scale,
                             const int32_t *zero, const char *meta, int nc, int imgsz, bool protos,
                             const tfl_decoder_options *opt, bool expect_op)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_graph *g = calloc(1, sizeof *g);
  int32_t *in = malloc(3 * sizeof *in), *out = malloc(2 * sizeof *out);
  if (!g || !in || !out) goto fail;
  in[0] = tfl_graph_add_tensor(g, "picture", TFL_TYPE_FLOAT32, 4, (const int32_t[]){ 1, 3, imgsz, imgsz });
  in[1] = out[0] = tfl_graph_add_tensor(g, "head", type, ndim, dims);
  in[2] = out[1] = protos ? tfl_graph_add_tensor(g, "protos", TFL_TYPE_FLOAT32, 4,
                                                 (const int32_t[]){ 1, 32, imgsz / 4, imgsz / 4 }) : 0;
  if (in[0] < 0 || in[1] < 0 || in[2] < 0) goto fail;
  if (scale) {
    float *s = tfl_graph_alloc(g, sizeof *s);
    int32_t *z = tfl_graph_alloc(g, sizeof *z);
    if (!s || !z) goto fail;
    *s = *scale, *z = *zero;
    g->tensors[in[1]].q = (tfl_quant){ 1, s, z, 0 };
  }
  g->inputs = in;
  g->outputs = out;
  g->n_inputs = protos ? 3 : 2;
  g->n_outputs = protos ? 2 : 1;
  in = out = NULL;
  g->batch = 1;
  /* no metadata ("-"): what a detection export's says, for the input size */
  char m[64];
  if (!strcmp(meta, "-")) snprintf(m, sizeof m, "detect:%d", nc);
  else snprintf(m, sizeof m, "%s", meta);
  char *colon = strchr(m, ':');
  if (colon) {
    *colon = 0;
    g->meta.ultralytics.present = true;
    snprintf(g->meta.ultralytics.task, sizeof g->meta.ultralytics.task, "%.15s", m);
    g->meta.ultralytics.n_names = atoi(colon + 1);
    g->meta.ultralytics.end2end = strstr(colon + 1, ":e2e") ? 1 : -1;
    g->meta.ultralytics.imgsz[0] = g->meta.ultralytics.imgsz[1] = imgsz;
    const char *kpt = strchr(colon + 1, ':');
    if (kpt && sscanf(kpt, ":%dx%d", &g->meta.ultralytics.kpt_shape[0], &g->meta.ultralytics.kpt_shape[1]) != 2)
      g->meta.ultralytics.kpt_shape[0] = g->meta.ultralytics.kpt_shape[1] = 0;
  }
  bool appended = false;
  if (tfl_decoder_append_postprocess(TFL_DECODER_DETECTION, g, opt, &appended, &diag)) goto fail;
  /* segmentation: the rows, then the prototypes (graph input 2 here) */
  const bool has_op = g->n_nodes == 1 && g->nodes[0].op == TFL_OP_YOLO_DETECTION && g->n_outputs == (protos ? 2 : 1) &&
                      (!protos || (g->outputs[1] == g->inputs[2] && g->nodes[0].p.yolo_det.n_extra == 32 &&
                                   g->nodes[0].p.yolo_det.kpt_dim == 0));
  if (appended != expect_op || has_op != expect_op) {
    printf("FAIL %-12s the op %s appended (expected %s)\n", name, has_op ? "was" : "was not", expect_op ? "yes" : "no");
    tfl_graph_free(g);
    return NULL;
  }
  return g;
fail:
  printf("FAIL %-12s head graph: %s\n", name, diag.error);
  free(in);
  free(out);
  tfl_graph_free(g);
  return NULL;
}

/* Runs g on d (NULL: the CPU alone; GL: every node must run there) with the head's bytes
 * in its input (and a segmentation's prototypes, when g has them) and decodes the outputs
 * into r. 0 on success. */
static int run_graph(const char *name, tfl_graph *g, tfl_delegate *d, const void *head, size_t bytes,
                     const void *protos, size_t pbytes, const tfl_decoder_options *opt, int imgsz, tfl_results *r,
                     float *rows, size_t n_rows)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_delegate *cpu = cpu_delegate_create(&(cpu_delegate_options){ .threads = 1, .use_xnnpack = false, .diag = &diag });
  tfl_interp_options o = tfl_interp_defaults();
  o.delegate = d;
  o.fallback = cpu;
  o.diag = &diag;
  tfl_interpreter *it = NULL;
  tfl_decoder *dec = NULL;
  int fail = 1;
  if (!cpu || tfl_interpreter_create(g, &o, &it)) goto out;
  for (int i = 0; d && i < g->n_nodes; i++) {
    const char *who = tfl_interpreter_node_delegate(it, i);
    if (!who || strcmp(who, "gl")) {
      printf("FAIL %-12s node %d (%s) runs on %s, not GL\n", name, i, tfl_op_name(g->nodes[i].op), who ? who : "?");
      goto out;
    }
  }
  tfl_tensor *in = tfl_interpreter_input(it, 1);
  if (in->bytes != bytes) {
    printf("FAIL %-12s input of %zu bytes, head of %zu\n", name, in->bytes, bytes);
    goto out;
  }
  memcpy(in->data, head, bytes);
  if (g->n_inputs > 2) {
    tfl_tensor *pin = tfl_interpreter_input(it, 2);
    if (protos && pin->bytes != pbytes) {
      printf("FAIL %-12s prototypes input of %zu bytes, given %zu\n", name, pin->bytes, pbytes);
      goto out;
    }
    if (protos) memcpy(pin->data, protos, pbytes);
    else memset(pin->data, 0, pin->bytes);
  }
  if (tfl_interpreter_invoke(it)) goto out;
  const int n_outs = g->n_outputs < 2 ? g->n_outputs : 2;
  const tfl_tensor *outs[2] = { tfl_interpreter_output(it, 0), n_outs > 1 ? tfl_interpreter_output(it, 1) : NULL };
  if (rows) memcpy(rows, outs[0]->data, n_rows * sizeof(float));
  fail = 0;
  if (!r) goto out; /* a batch: the rows alone (the element decodes item by item) */
  fail = 1;
  if (tfl_decoder_create(TFL_DECODER_DETECTION, g, opt, &dec, &diag)) goto out;
  const tfl_transform tr = { imgsz, imgsz, (float)imgsz, (float)imgsz, 1.0f, 1.0f, 0.0f, 0.0f, 0.0f, 0.0f };
  if (tfl_decoder_run(dec, outs, n_outs, &tr, r, &diag)) goto out;
  fail = 0;
out:
  if (fail && diag.error[0]) printf("FAIL %-12s %s: %s\n", name, d ? "GL" : "CPU", diag.error);
  tfl_decoder_free(dec);
  tfl_interpreter_free(it);
  if (cpu) cpu->destroy(cpu);
  return fail;
}

/* GL's masks (its rows' coefficients and the prototypes) those of the CPU kernel's rows,
 * box by box: the same texels, each on the same side of 0.5, probabilities within 1e-4
 * (the coefficients are copied; the boxes that place the grid come from the GPU's float
 * arithmetic). 0 when they are. */
static int same_masks(const char *name, const tfl_results *cpu, const tfl_results *gl)
{
  int differ = cpu->n_boxes != gl->n_boxes, with = 0;
  double worst = 0;
  for (int b = 0; !differ && b < cpu->n_boxes; b++) {
    const tfl_box_mask *c = &cpu->boxes[b].mask, *o = &gl->boxes[b].mask;
    with += c->prob != NULL;
    if (!c->prob || !o->prob || c->width != o->width || c->height != o->height) {
      differ++;
      continue;
    }
    for (size_t i = 0; i < (size_t)c->width * (size_t)c->height; i++) {
      differ += (c->prob[i] > 0.5f) != (o->prob[i] > 0.5f);
      worst = fmax(worst, fabs((double)c->prob[i] - o->prob[i]));
    }
  }
  const bool bad = differ || !with || !(worst <= 1e-4);
  printf("%s %-12s GL   %3d masks as the CPU kernel's rows give: %d texels or grids differ, max probability "
         "difference %.2e\n", bad ? "FAIL" : "ok  ", name, with, differ, worst);
  return bad;
}

static tfl_type type_of(const char *s)
{
  return !strcmp(s, "float16") ? TFL_TYPE_FLOAT16 : !strcmp(s, "int8") ? TFL_TYPE_INT8 : TFL_TYPE_FLOAT32;
}

/* (1): one line of cases.txt. */
static int ultralytics_case(const char *dir, const char *line, tfl_delegate *gl, bool fp16)
{
  char name[64], type[16], dims_s[64], meta[32];
  float qscale, conf, iou;
  int qzero, imgsz, max_det, agnostic, nc;
  if (sscanf(line, "%63s %15s %63s %f %d %d %f %f %d %d %d %31s", name, type, dims_s, &qscale, &qzero, &imgsz, &conf,
             &iou, &max_det, &agnostic, &nc, meta) != 12) {
    printf("FAIL cases.txt: bad line %s", line);
    return 1;
  }
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.bin", dir, name);
  size_t size = 0;
  void *data = golden_read_file(path, &size);
  if (!data) {
    printf("FAIL %-12s cannot read %s\n", name, path);
    return 1;
  }
  int32_t dims[3];
  int ndim = 0;
  for (char *p = dims_s; ndim < 3;) {
    dims[ndim++] = (int32_t)strtol(p, &p, 10);
    if (*p != ',') break;
    p++;
  }
  tfl_decoder_options opt = tfl_decoder_defaults();
  opt.threshold = conf;
  opt.iou_threshold = iou;
  opt.max_results = max_det;
  opt.class_agnostic = agnostic;
  const tfl_type t = type_of(type);
  const int32_t zero = qzero;
  const bool seg = !strncmp(meta, "segment", 7);
  int fail = 0;
  ubox want[MAX_BOXES];
  snprintf(path, sizeof path, "%s/%s.expected", dir, name);
  const int n_want = yolo_ref_read(path, want, MAX_BOXES);
  size_t psize = 0;
  void *protos = NULL;
  if (seg) { /* the prototypes [1, 32, imgsz/4, imgsz/4] */
    snprintf(path, sizeof path, "%s/%s.protos.bin", dir, name);
    protos = golden_read_file(path, &psize);
    if (!protos) {
      printf("FAIL %-12s cannot read %s\n", name, path);
      free(data);
      return 1;
    }
    snprintf(path, sizeof path, "%s/%s.expected", dir, name);
  }
  tfl_graph *g = head_graph(name, t, ndim, dims, qscale > 0 ? &qscale : NULL, &zero, meta, nc, imgsz, seg, &opt, true);
  if (!g || n_want < 0) {
    if (n_want < 0) printf("FAIL %-12s cannot read %s\n", name, path);
    free(data);
    free(protos);
    tfl_graph_free(g);
    return 1;
  }
  tfl_results r = { 0 }, cpu_r = { 0 };
  /* the CPU kernel on the head as it is; at most the GL op's 100 boxes on a segmentation,
   * whose masks GL's are compared with */
  const int max_gl = max_det < 100 ? max_det : 100;
  if (!fp16) {
    if (seg) {
      opt.max_results = max_gl;
      tfl_graph_free(g);
      g = head_graph(name, t, ndim, dims, qscale > 0 ? &qscale : NULL, &zero, meta, nc, imgsz, seg, &opt, true);
    }
    fail |= !g || run_graph(name, g, NULL, data, size, protos, psize, &opt, imgsz, &cpu_r, NULL, 0) ||
            compare_ultralytics(name, "CPU", &cpu_r, want, n_want, opt.max_results, 1e-3, 1e-5);
  }
  tfl_graph_free(g);
  /* GL on the head as float32 (fp16: stored as halves, so within their rounding) */
  const size_t count = (size_t)dims[0] * dims[1] * dims[2];
  float *f = malloc(count * sizeof *f);
  for (size_t i = 0; f && i < count; i++)
    f[i] = t == TFL_TYPE_FLOAT16 ? tfl_half_to_float(((const uint16_t *)data)[i])
           : t == TFL_TYPE_INT8  ? qscale * (float)(((const int8_t *)data)[i] - qzero)
                                 : ((const float *)data)[i];
  opt.max_results = max_gl; /* the GL op's most */
  g = f ? head_graph(name, TFL_TYPE_FLOAT32, ndim, dims, NULL, NULL, meta, nc, imgsz, seg, &opt, true) : NULL;
  fail |= !g || run_graph(name, g, gl, f, count * sizeof *f, protos, psize, &opt, imgsz, &r, NULL, 0) ||
          compare_ultralytics(name, "GL", &r, want, n_want, opt.max_results, fp16 ? 0.2 : 1e-3, fp16 ? 2e-3 : 1e-5);
  if (seg && !fp16 && !fail) fail |= same_masks(name, &cpu_r, &r);
  tfl_results_clear(&r);
  tfl_results_clear(&cpu_r);
  free(protos);
  tfl_graph_free(g);
  free(f);
  free(data);
  return fail;
}

static int check_ultralytics(const char *dir, tfl_delegate *gl, bool fp16)
{
  char path[1024], line[512];
  snprintf(path, sizeof path, "%s/cases.txt", dir);
  FILE *f = fopen(path, "r");
  if (!f) {
    printf("FAIL cannot read %s\n", path);
    return 1;
  }
  int fail = 0, n = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == '\n') continue;
    fail |= ultralytics_case(dir, line, gl, fp16);
    n++;
  }
  fclose(f);
  if (n < 10) printf("FAIL %s: %d cases\n", path, n);
  return fail || n < 10;
}

/* (2): a synthetic head. */
typedef struct {
  const char *what;
  int head;          /* 0 anchor-free, 1 YOLOv5, 2 end-to-end */
  bool values_first;
  int boxes, classes, kpts, batch, max;
  float thr, iou;
  bool agnostic;
  int coeffs;        /* segmentation: mask coefficients after the classes */
} synth;

static float grid(unsigned *seed, float lo, float hi)
{
  float v;
  glt_fill(&v, 1, lo, hi, seed);
  return floorf(v * 64.0f) / 64.0f;
}

/* Values of box i (`values` of them) of item b: boxes in 0..1 with many overlaps, class
 * scores mostly low with one high on a coarse grid (equal scores), keypoints anywhere. */
static void synth_box(const synth *c, int values, unsigned *seed, float *v)
{
  for (int k = 0; k < values; k++) v[k] = grid(seed, 0.0f, 0.25f);
  if (c->head == 2) {
    const float x = grid(seed, 0.1f, 0.7f), y = grid(seed, 0.1f, 0.7f);
    v[0] = x, v[1] = y, v[2] = x + grid(seed, 0.05f, 0.3f), v[3] = y + grid(seed, 0.05f, 0.3f);
    v[4] = floorf(grid(seed, 0.0f, 1.0f) * 8.0f) / 8.0f;
    v[5] = (float)(int)grid(seed, 0.0f, (float)c->classes);
    return;
  }
  v[0] = grid(seed, 0.2f, 0.8f), v[1] = grid(seed, 0.2f, 0.8f);
  v[2] = grid(seed, 0.05f, 0.4f), v[3] = grid(seed, 0.05f, 0.4f);
  const int fc = c->head == 1 ? 5 : 4;
  if (c->head == 1) v[4] = floorf(grid(seed, 0.0f, 1.0f) * 4.0f) / 4.0f;
  const int hot = (int)grid(seed, 0.0f, (float)c->classes);
  v[fc + (hot < c->classes ? hot : 0)] = floorf(grid(seed, 0.0f, 1.0f) * 8.0f) / 8.0f;
}

static int synthetic_case(const synth *c, tfl_delegate *gl, bool fp16)
{
  const int fc = c->head == 2 ? 6 : c->head == 1 ? 5 + c->classes : 4 + c->classes;
  const int n_extra = 3 * c->kpts + c->coeffs, values = fc + n_extra;
  /* 525 anchor-free boxes at 160, 2100 at 320, 8400 at 640 */
  const int imgsz = c->boxes == 8400 ? 640 : c->boxes == 2100 ? 320 : 160;
  const int32_t dims[3] = { 1, c->values_first ? values : c->boxes, c->values_first ? c->boxes : values };
  const size_t item = (size_t)values * c->boxes, row = 6 + (size_t)n_extra, md = (size_t)c->max;
  float *head = malloc(item * c->batch * sizeof *head), *v = malloc(values * sizeof *v);
  float *rows[2] = { malloc(row * md * c->batch * sizeof(float)), malloc(row * md * c->batch * sizeof(float)) };
  unsigned seed = 11;
  for (int b = 0; b < c->batch; b++)
    for (int i = 0; i < c->boxes; i++) {
      synth_box(c, values, &seed, v);
      if (c->head == 2 && i % 37 == 5) v[2] = NAN; /* not finite: skipped, not counted */
      /* coefficients of either sign, past the box's scale, on the 1/64 grid (exact in halves) */
      for (int k = 0; k < c->coeffs; k++) v[fc + k] = grid(&seed, -4.0f, 4.0f);
      for (int k = 0; k < values; k++)
        head[item * b + (c->values_first ? (size_t)k * c->boxes + i : (size_t)i * values + k)] = v[k];
    }
  char meta[48] = "-";
  if (c->coeffs) snprintf(meta, sizeof meta, "segment:%d", c->classes);
  else if (c->kpts) snprintf(meta, sizeof meta, "pose:%d:%dx3%s", c->classes, c->kpts, c->head == 2 ? ":e2e" : "");
  else if (c->head == 2) snprintf(meta, sizeof meta, "detect:%d:e2e", c->classes);
  else snprintf(meta, sizeof meta, "detect:%d", c->classes);
  tfl_decoder_options opt = tfl_decoder_defaults();
  opt.threshold = c->thr;
  opt.iou_threshold = c->iou;
  opt.max_results = c->max;
  opt.class_agnostic = c->agnostic;
  tfl_results r[2] = { { 0 }, { 0 } };
  int fail = 0, kept[2] = { 0, 0 };
  for (int k = 0; k < 2; k++) {
    tfl_diag diag;
    tfl_diag_init(&diag);
    tfl_graph *g = head_graph(c->what, TFL_TYPE_FLOAT32, 3, dims, NULL, NULL, meta, c->classes, imgsz, c->coeffs > 0,
                              &opt, true);
    /* the batch given after the op is appended, the engine's order */
    if (!g || (c->batch > 1 && tfl_pass_set_batch(g, c->batch, &diag)) ||
        run_graph(c->what, g, k ? gl : NULL, head, item * c->batch * sizeof *head, NULL, 0, &opt, imgsz,
                  c->batch > 1 || c->coeffs ? NULL : &r[k], rows[k], row * md * c->batch)) {
      if (diag.error[0]) printf("FAIL %s: %s\n", c->what, diag.error);
      fail = 1;
    }
    tfl_graph_free(g);
  }
  /* the candidates (best class score > threshold) of item 0, anchor-free heads */
  int cands = 0;
  for (int i = 0; c->head == 0 && i < c->boxes; i++) {
    float best = -1.0f;
    for (int k = 4; k < 4 + c->classes; k++)
      best = fmaxf(best, head[c->values_first ? (size_t)k * c->boxes + i : (size_t)i * values + k]);
    cands += best > c->thr;
  }
  /* row by row: classes, counts and empty rows exactly; values within fp16 storage's rounding */
  double worst = 0;
  int bad = 0;
  for (size_t e = 0; !fail && e < row * md * c->batch; e++) {
    const float w = rows[0][e], o = rows[1][e];
    const size_t col = e % row;
    if (col == 5) bad += !(w == o);
    if (col == 4 && w >= 0) kept[e / (row * md)]++;
    if (isnan(w) || isnan(o)) {
      bad += isnan(w) != isnan(o);
      continue;
    }
    const double d = fabs((double)w - o) / fmax(1.0, fabs(w));
    worst = fmax(worst, d);
  }
  /* segmentation: each kept row's coefficients a box's own, bit for bit (copied, not scaled
   * as keypoints are), on GL as on the CPU */
  int not_copied = 0;
  for (size_t k = 0; !fail && c->coeffs && k < md; k++) {
    const float *w = rows[0] + k * row, *o = rows[1] + k * row;
    if (w[4] < 0) continue;
    bool found = false;
    for (int i = 0; !found && i < c->boxes; i++) {
      found = true;
      for (int e = 0; found && e < c->coeffs; e++)
        found = head[c->values_first ? (size_t)(fc + e) * c->boxes + i : (size_t)i * values + fc + e] == w[6 + e];
    }
    not_copied += !found || memcmp(w + 6, o + 6, (size_t)c->coeffs * sizeof *w) != 0;
  }
  bad += not_copied;
  const bool items_differ =
    c->batch == 1 || (kept[1] > 0 && memcmp(rows[0], rows[0] + row * md, row * md * sizeof(float)));
  fail |= bad || !(worst <= (fp16 ? 1.0 / 1024 : 1e-6)) || !items_differ || kept[0] == 0;
  printf("%s %-34s GL against the CPU kernel: %d candidates, %d + %d kept, %d class/empty-row differences, max "
         "relative difference %.2e%s\n", fail ? "FAIL" : "ok  ", c->what, cands, kept[0], kept[1], bad, worst,
         items_differ ? "" : " (the items are the same)");
  if (c->coeffs) printf("     %-34s %d kept rows whose coefficients are not one box's, bit for bit, on both\n", c->what,
                        not_copied);
  tfl_results_clear(&r[0]);
  tfl_results_clear(&r[1]);
  free(head);
  free(v);
  free(rows[0]);
  free(rows[1]);
  return fail;
}

/* (2): the GL check's refusals, each naming what it refuses. */
static int check_refusals(void)
{
  static const struct { const char *what, *want; int max; tfl_type type; } cases[] = {
    { "as built", NULL, 100, TFL_TYPE_FLOAT32 },
    { "101 detections", "101 detections (at most 100)", 101, TFL_TYPE_FLOAT32 },
    { "an int8 head", "head INT8", 10, TFL_TYPE_INT8 },
  };
  int fail = 0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tfl_decoder_options opt = tfl_decoder_defaults();
    opt.max_results = cases[i].max;
    const float scale = 0.01f;
    const int32_t zero = 0;
    tfl_graph *g = head_graph(cases[i].what, cases[i].type, 3, (const int32_t[]){ 1, 7, 525 },
                              cases[i].type == TFL_TYPE_INT8 ? &scale : NULL, &zero, "detect:3", 3, 160, false, &opt, true);
    if (!g) return 1;
    tfl_diag diag;
    tfl_diag_init(&diag);
    const tfl_status st = gl_check_yolo_detection(g, 0, &diag);
    const bool bad = cases[i].want ? st == TFL_OK || !strstr(diag.error, cases[i].want) : st != TFL_OK;
    printf("%s GL check %-16s: %s%s\n", bad ? "FAIL" : "ok  ", cases[i].what, st ? "refused: " : "accepted",
           st ? diag.error : "");
    fail |= bad;
    tfl_graph_free(g);
  }
  return fail;
}

static int check_synthetic(tfl_delegate *gl, bool fp16)
{
  static const synth cases[] = {
    { "anchor-free [values, boxes]", 0, true, 525, 3, 0, 1, 100, 0.25f, 0.7f, false },
    { "anchor-free [boxes, values]", 0, false, 525, 5, 0, 1, 100, 0.8f, 0.5f, false },
    { "agnostic", 0, true, 525, 5, 0, 1, 100, 0.3f, 0.3f, true },
    { "max 7", 0, true, 525, 5, 0, 1, 7, 0.3f, 0.5f, false },
    { "YOLOv5 objectness", 1, false, 1575, 4, 0, 1, 100, 0.3f, 0.45f, false },
    { "end-to-end, non-finite rows", 2, false, 300, 3, 0, 1, 50, 0.25f, 0.7f, false },
    { "pose 17x3 keypoints", 0, true, 525, 1, 17, 1, 100, 0.3f, 0.7f, false },
    { "end-to-end pose", 2, false, 300, 1, 17, 1, 20, 0.25f, 0.7f, false },
    { "segmentation, 32 coefficients", 0, true, 525, 3, 0, 1, 100, 0.3f, 0.7f, false, 32 },
    { "segmentation [boxes, values]", 0, false, 525, 80, 0, 1, 50, 0.25f, 0.5f, false, 32 },
    { "batch 2", 0, true, 525, 3, 0, 2, 30, 0.25f, 0.6f, false },
    { "2100 boxes, 80 classes", 0, true, 2100, 80, 0, 1, 100, 0.5f, 0.45f, false },
    /* past the GL op's 1024 candidates: its best 1024, and the NMS fills max_results within
     * them, so the rows are the CPU's */
    { "2100 candidates", 0, true, 2100, 3, 0, 1, 100, 0.01f, 0.5f, false },
    { "2100 candidates, agnostic", 0, false, 2100, 3, 0, 1, 100, 0.01f, 0.5f, true },
    /* a big head (YOLOv8 at 640): the GL scan's many workgroups; past 1024 candidates
     * with more than 1024 of the top score (0.875) at 0.5, the ties taken in box order */
    { "8400 boxes, 80 classes", 0, true, 8400, 80, 0, 1, 100, 0.5f, 0.45f, false },
    { "8400 x 80 [boxes, values], batch 2", 0, false, 8400, 80, 0, 2, 100, 0.8f, 0.45f, false },
  };
  int fail = 0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) fail |= synthetic_case(&cases[i], gl, fp16);
  return fail | check_refusals();
}

int main(int argc, char **argv)
{
  glm_options opt = glm_default_options(argc, argv);
  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_delegate *gl = glm_gl_delegate(opt.fp16, &diag, "the YOLO op");
  if (!gl) return 1;
  int fails = 0, n = 0;
  for (int i = 1; i < argc; i++) {
    if (glm_take_option(argc, argv, &i, &opt)) continue;
    n++;
    if (!strcmp(argv[i], "--ultralytics") && i + 1 < argc) fails += check_ultralytics(argv[++i], gl, opt.fp16);
    else if (!strcmp(argv[i], "--synthetic")) fails += check_synthetic(gl, opt.fp16);
    else {
      printf("FAIL unknown argument %s\n", argv[i]);
      fails++;
    }
  }
  gl->destroy(gl);
  printf("%d check(s), %d failure(s)\n", n, fails);
  return fails != 0 || n == 0;
}
