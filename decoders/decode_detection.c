/* decode_detection.c - boxes from detection models, five layouts chosen from the graph:
 *  - the four outputs of TFLite_Detection_PostProcess (boxes ymin,xmin,ymax,xmax
 *    normalized, classes, scores, count), taken by the op's output roles wherever they
 *    sit among the graph's outputs (Model Maker's EfficientDet-Lite lists them scores,
 *    boxes, count, classes); class k is reported as k + 1, the line of the COCO label
 *    map whose line 0 is "???", or as k when the model's TFLite metadata has the
 *    labels (tfl_family_class_offset);
 *  - standard SSD raw outputs: box encodings [1,A,4] (ty,tx,th,tw) and class scores
 *    [1,A,C] with background class 0 (logits through a sigmoid unless the graph ends
 *    in LOGISTIC/SOFTMAX), TF's multiple-grid anchors, FasterRCNN box coder, greedy
 *    NMS per class (postproc/ssd_detect.h); class c is reported as c (label line 0 is
 *    the background);
 *  - the same SSDs with their post-processing appended as the internal ops
 *    SSD_CLASS_NMS + SSD_DETECTION (detection_op.c): boxes [1,D,4], classes [1,D] (c),
 *    scores [1,D], count [1], the numbers the raw layout computes;
 *  - MediaPipe detectors: regressors [1,A,K] (x,y,w,h then K/2-2 keypoints) and
 *    classificators [1,A,1] (clipped logits), SsdAnchorsCalculator anchors, weighted
 *    NMS (postproc/anchor_detect.h); class 0;
 *  - the same detectors with their post-processing appended as the internal op
 *    ANCHOR_DETECTION (tfl_decoder_append_postprocess, detection_op.c): boxes [1,D,4],
 *    keypoints [1,D,2k], scores [1,D], count [1], the numbers the raw layout computes.
 * Boxes are mapped through the transform to frame pixels and clamped. */
#include "decoder_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policy/tfl_family.h"
#include "postproc/anchor_detect.h"
#include "postproc/nms.h"
#include "postproc/ssd_detect.h"
#include "ssd_anchors.h"

typedef enum { DET_POSTPROCESS, DET_SSD, DET_MEDIAPIPE, DET_ANCHOR_OP, DET_SSD_OP } det_layout;

typedef struct {
  det_layout layout;
  int out[4];              /* graph output positions (postprocess: boxes, classes, scores,
                            * count; raw: boxes, scores; anchor op: boxes, keypoints,
                            * scores, count; SSD op: as postprocess) */
  int in_w, in_h;          /* the graph's input size, when the transform has none */
  int class_offset;        /* postprocess: added to the op's class */
  int n_anchors, n_classes, n_coords, n_keypoints;
  ssd_anchor *anchors;
  float *anchor_rows;      /* raw: the anchors as rows of 4 floats (y centre, x centre, h, w) */
  float *regf, *scf;       /* raw: the heads as float, when they are not float32 */
  float scale[4];          /* box coder: y, x, h, w */
  bool prob_scores;        /* scores are probabilities already */
  int cap;                 /* results at most */
  pp_box *boxes;          /* per anchor, decoded each run */
  float *kps;              /* per anchor: x, y of each keypoint, normalized */
  nms_scored *cand;        /* per anchor */
  uint8_t *scratch;        /* per anchor */
  int *sel;                /* cap */
  nms_scored *picks;       /* cap: one class's SSD picks */
  pp_ssd_found *found;     /* cap */
  pp_box *wbox;           /* cap: weighted NMS outputs */
  float *wscore, *wkps;    /* cap, cap * 2 * n_keypoints */
  int *windex;             /* cap */
} det_state;

static void det_free(void *state)
{
  det_state *s = state;
  if (!s) return;
  free(s->anchors);
  free(s->anchor_rows);
  free(s->regf);
  free(s->scf);
  free(s->boxes);
  free(s->kps);
  free(s->cand);
  free(s->scratch);
  free(s->sel);
  free(s->picks);
  free(s->found);
  free(s->wbox);
  free(s->wscore);
  free(s->wkps);
  free(s->windex);
  free(s);
}

static int output_position(const tfl_graph *g, int32_t tensor)
{
  for (int i = 0; i < g->n_outputs; i++)
    if (g->outputs[i] == tensor) return i;
  return -1;
}

static const tfl_tensor *graph_output(const tfl_graph *g, int i)
{
  return &g->tensors[g->outputs[i]];
}

/* The appended ANCHOR_DETECTION's or SSD_DETECTION's outputs, in the graph's outputs. */
static tfl_status create_appended_op(const tfl_graph *g, const tfl_node *n, det_state *s, tfl_diag *diag)
{
  for (int i = 0; i < 4; i++) {
    s->out[i] = n->out[i] >= 0 ? output_position(g, n->out[i]) : -1;
    if (s->out[i] < 0)
      return tfl_fail(diag, TFL_ERR_SHAPE, "detection: %s output %d is not a model output", tfl_op_name(n->op), i);
  }
  s->layout = n->op == TFL_OP_SSD_DETECTION ? DET_SSD_OP : DET_ANCHOR_OP;
  const tfl_tensor *kp = &g->tensors[n->out[1]];
  s->n_keypoints = s->layout == DET_ANCHOR_OP && kp->ndim == 3 ? kp->dims[2] / 2 : 0;
  return TFL_OK;
}

static tfl_status create_postprocess(const tfl_graph *g, const tfl_node *n, det_state *s, tfl_diag *diag)
{
  static const char *const what[4] = { "boxes", "classes", "scores", "count" };
  if (n->n_out != 4)
    return tfl_fail(diag, TFL_ERR_SHAPE, "detection: TFLite_Detection_PostProcess has %d outputs, expected 4",
                     n->n_out);
  for (int i = 0; i < 4; i++) {
    s->out[i] = n->out[i] >= 0 ? output_position(g, n->out[i]) : -1;
    if (s->out[i] < 0)
      return tfl_fail(diag, TFL_ERR_SHAPE, "detection: TFLite_Detection_PostProcess output %d (%s) is not a model output",
                       i, what[i]);
  }
  s->layout = DET_POSTPROCESS;
  s->class_offset = tfl_family_class_offset(g);
  return TFL_OK;
}

/* The anchor preset for a count (and input size), or AUTO when none fits. */
static tfl_anchor_kind auto_anchors(int count, int in_w, int in_h)
{
  static const tfl_anchor_kind kinds[] = { TFL_ANCHORS_SSD_MOBILENET, TFL_ANCHORS_FACE_SHORT,
                                           TFL_ANCHORS_FACE_FULL, TFL_ANCHORS_POSE_DETECTION,
                                           TFL_ANCHORS_PALM };
  tfl_anchor_kind by_count = TFL_ANCHORS_AUTO;
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
    const ssd_anchor_options *o = ssd_anchor_preset(kinds[i]);
    if (ssd_anchor_count(o) != count) continue;
    if (o->in_w == in_w && o->in_h == in_h) return kinds[i];  /* exact match wins */
    if (by_count == TFL_ANCHORS_AUTO) by_count = kinds[i];
  }
  return by_count;
}

/* Last two dims of a [1,A,K] (or [A,K]) tensor; false when it is not one. */
static bool rows_cols(const tfl_tensor *t, int *rows, int *cols)
{
  if (t->ndim < 2) return false;
  for (int d = 0; d < t->ndim - 2; d++)
    if (t->dims[d] != 1) return false;
  *rows = t->dims[t->ndim - 2];
  *cols = t->dims[t->ndim - 1];
  return *rows > 0 && *cols > 0;
}

static bool is_prob_output(const tfl_graph *g, int32_t tensor)
{
  const int p = g->tensors[tensor].producer;
  if (p < 0 || p >= g->n_nodes) return false;
  return g->nodes[p].op == TFL_OP_LOGISTIC || g->nodes[p].op == TFL_OP_SOFTMAX;
}

static tfl_status create_raw(const tfl_graph *g, const tfl_decoder_options *opt, det_state *s, tfl_diag *diag)
{
  if (g->n_outputs != 2)
    return tfl_fail(diag, TFL_ERR_SHAPE, "detection: %d outputs; expected boxes and scores (2) or "
                     "TFLite_Detection_PostProcess", g->n_outputs);
  int r0, c0, r1, c1;
  if (!rows_cols(graph_output(g, 0), &r0, &c0) || !rows_cols(graph_output(g, 1), &r1, &c1))
    return tfl_fail(diag, TFL_ERR_SHAPE, "detection: outputs are not [1, anchors, values]");
  if (r0 != r1)
    return tfl_fail(diag, TFL_ERR_SHAPE, "detection: output 0 has %d anchors, output 1 has %d", r0, r1);
  /* boxes: 4 values (SSD) or 4 + keypoints (MediaPipe); scores: classes or 1 */
  const bool swap = (c0 == 1 && c1 >= 4) || (c1 == 4 && c0 != 4);
  s->out[0] = swap ? 1 : 0;
  s->out[1] = swap ? 0 : 1;
  s->n_coords = swap ? c1 : c0;
  s->n_classes = swap ? c0 : c1;
  s->n_anchors = r0;
  tfl_anchor_kind kind = opt->anchors;
  if (kind == TFL_ANCHORS_AUTO) kind = auto_anchors(r0, s->in_w, s->in_h);
  const ssd_anchor_options *ao = ssd_anchor_preset(kind);
  if (!ao)
    return tfl_fail(diag, TFL_ERR_SHAPE, "detection: no anchor preset has %d anchors (SSD 1917, face "
                     "short 896, face full 2304, pose 2254, palm 2016)", r0);
  const int count = ssd_anchor_count(ao);
  if (count != r0)
    return tfl_fail(diag, TFL_ERR_SHAPE, "detection: the chosen anchors give %d boxes, the model has %d",
                     count, r0);
  if (kind == TFL_ANCHORS_SSD_MOBILENET) {
    s->layout = DET_SSD;
    if (s->n_coords != 4)
      return tfl_fail(diag, TFL_ERR_SHAPE, "detection: SSD box encodings have %d values, expected 4", s->n_coords);
    if (s->n_classes < 2)
      return tfl_fail(diag, TFL_ERR_SHAPE, "detection: SSD scores have %d classes, expected background + >= 1",
                       s->n_classes);
    const float def[4] = { 10.0f, 10.0f, 5.0f, 5.0f };
    memcpy(s->scale, def, sizeof def);
  } else {
    s->layout = DET_MEDIAPIPE;
    if (s->n_coords < 4 || (s->n_coords - 4) % 2)
      return tfl_fail(diag, TFL_ERR_SHAPE, "detection: regressors have %d values, expected 4 + 2 per keypoint",
                       s->n_coords);
    if (s->n_classes != 1)
      return tfl_fail(diag, TFL_ERR_SHAPE, "detection: classificators have %d values per anchor, expected 1",
                       s->n_classes);
    s->n_keypoints = (s->n_coords - 4) / 2;
    const float def[4] = { (float)ao->in_h, (float)ao->in_w, (float)ao->in_h, (float)ao->in_w };
    memcpy(s->scale, def, sizeof def);
  }
  for (int i = 0; i < 4; i++)
    if (opt->box_scale[i] > 0) s->scale[i] = opt->box_scale[i];
  s->prob_scores = is_prob_output(g, g->outputs[s->out[1]]);
  const size_t a = (size_t)r0;
  const tfl_tensor *rt = graph_output(g, s->out[0]), *st = graph_output(g, s->out[1]);
  s->anchor_rows = malloc(a * 4 * sizeof(float));
  if (rt->type != TFL_TYPE_FLOAT32) s->regf = malloc(a * (size_t)s->n_coords * sizeof(float));
  if (st->type != TFL_TYPE_FLOAT32) s->scf = malloc(a * (size_t)s->n_classes * sizeof(float));
  if (!s->anchor_rows || (rt->type != TFL_TYPE_FLOAT32 && !s->regf) || (st->type != TFL_TYPE_FLOAT32 && !s->scf))
    return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  s->anchors = malloc(a * sizeof *s->anchors);
  s->boxes = malloc(a * sizeof *s->boxes);
  s->kps = malloc(a * 2 * (size_t)(s->n_keypoints + 1) * sizeof(float));
  s->cand = malloc(a * sizeof *s->cand);
  s->scratch = malloc(a);
  const size_t c = (size_t)s->cap;
  s->wbox = malloc(c * sizeof *s->wbox);
  s->wscore = malloc(c * sizeof(float));
  s->windex = malloc(c * sizeof(int));
  s->wkps = malloc(c * 2 * (size_t)(s->n_keypoints + 1) * sizeof(float));
  if (!s->anchors || !s->boxes || !s->kps || !s->cand || !s->scratch || !s->wbox || !s->wscore ||
      !s->windex || !s->wkps)
    return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  ssd_anchors_generate(ao, s->anchors, r0);
  for (size_t i = 0; i < a; i++) {
    const float row[4] = { s->anchors[i].yc, s->anchors[i].xc, s->anchors[i].h, s->anchors[i].w };
    memcpy(s->anchor_rows + 4 * i, row, sizeof row);
  }
  return TFL_OK;
}

static tfl_status det_create(const tfl_graph *g, const tfl_decoder_options *opt, void **state, tfl_diag *diag)
{
  det_state *s = calloc(1, sizeof *s);
  if (!s) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  s->cap = opt->max_results > 0 ? opt->max_results : 1;
  s->sel = malloc((size_t)s->cap * sizeof(int));
  s->picks = malloc((size_t)s->cap * sizeof(nms_scored));
  s->found = malloc((size_t)s->cap * sizeof(pp_ssd_found));
  if (!s->sel || !s->picks || !s->found) {
    det_free(s);
    return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  }
  if (g->n_inputs > 0) {
    const tfl_tensor *in = &g->tensors[g->inputs[0]];
    if (in->ndim == 4) {
      s->in_h = in->dims[1];
      s->in_w = in->dims[2];
    }
  }
  const tfl_node *pp = NULL, *op = NULL;
  for (int i = 0; i < g->n_nodes; i++) {
    if (!g->nodes[i].dead && g->nodes[i].op == TFL_OP_DETECTION_POSTPROCESS) pp = &g->nodes[i];
    if (!g->nodes[i].dead && (g->nodes[i].op == TFL_OP_ANCHOR_DETECTION || g->nodes[i].op == TFL_OP_SSD_DETECTION))
      op = &g->nodes[i];
  }
  tfl_status st = op   ? create_appended_op(g, op, s, diag)
                  : pp ? create_postprocess(g, pp, s, diag)
                       : create_raw(g, opt, s, diag);
  if (st != TFL_OK) {
    det_free(s);
    return st;
  }
  *state = s;
  return TFL_OK;
}

/* Appends a box (normalized corners) and its keypoints (normalized x, y pairs). A box
 * found in a rotated region becomes the frame box holding its four corners. */
static tfl_status emit(tfl_results *res, const tfl_transform *tr, int in_w, int in_h, pp_box b,
                       int class_id, float score, const float *kps, int n_kps, tfl_diag *diag)
{
  float fb[4];
  tfl_transform_bounds(tr, b.xmin * (float)in_w, b.ymin * (float)in_h, b.xmax * (float)in_w,
                       b.ymax * (float)in_h, fb);
  tfl_box *o = &res->boxes[res->n_boxes];
  *o = (tfl_box){
    .x = fb[0], .y = fb[1], .w = fb[2], .h = fb[3],
    .class_id = class_id, .score = score,
  };
  decoder_clamp_box(tr, o);
  if (n_kps > 0) {
    o->keypoints = malloc((size_t)n_kps * sizeof(tfl_keypoint));
    if (!o->keypoints) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
    o->n_keypoints = n_kps;
    for (int k = 0; k < n_kps; k++) {
      o->keypoints[k].score = -1.0f;
      tfl_transform_point(tr, kps[2 * k] * (float)in_w, kps[2 * k + 1] * (float)in_h, &o->keypoints[k].x,
                          &o->keypoints[k].y);
    }
  }
  res->n_boxes++;
  return TFL_OK;
}

static tfl_status alloc_boxes(tfl_results *res, int n, tfl_diag *diag)
{
  res->boxes = calloc((size_t)(n > 0 ? n : 1), sizeof(tfl_box));
  return res->boxes ? TFL_OK : tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
}

static tfl_status run_postprocess(det_state *s, const tfl_tensor *const *o, const tfl_transform *tr,
                                  int in_w, int in_h, const tfl_decoder_options *opt, tfl_results *res, tfl_diag *diag)
{
  const tfl_tensor *boxes = o[s->out[0]], *classes = o[s->out[1]], *scores = o[s->out[2]],
                   *count = o[s->out[3]];
  size_t n = tfl_tensor_count(scores);
  if (tfl_tensor_count(classes) < n) n = tfl_tensor_count(classes);
  if (tfl_tensor_count(boxes) / 4 < n) n = tfl_tensor_count(boxes) / 4;
  const float cf = tfl_tensor_count(count) ? decoder_value(count, 0) : 0.0f;
  const int k = cf > 0 ? (cf < (float)n ? (int)cf : (int)n) : 0;  /* NaN gives 0 */
  tfl_status st = alloc_boxes(res, k < s->cap ? k : s->cap, diag);
  for (int i = 0; i < k && st == TFL_OK && res->n_boxes < s->cap; i++) {
    const float score = decoder_value(scores, (size_t)i);
    /* the SSD op thresholded the raw scores already (a probability may round below) */
    if (s->layout == DET_POSTPROCESS && !(score >= opt->threshold)) continue;
    const float c = decoder_value(classes, (size_t)i);
    /* TFLite_Detection_PostProcess counts classes from the first after the background */
    const int class_id = c >= 0 && c < 65535 ? (int)c + (s->layout == DET_POSTPROCESS ? s->class_offset : 0) : -1;
    float v[4];
    for (int j = 0; j < 4; j++) v[j] = decoder_value(boxes, (size_t)i * 4 + (size_t)j);
    const pp_box b = { fminf(v[0], v[2]), fminf(v[1], v[3]), fmaxf(v[0], v[2]), fmaxf(v[1], v[3]) };
    if (!isfinite(b.ymin + b.xmin + b.ymax + b.xmax)) continue;
    st = emit(res, tr, in_w, in_h, b, class_id, score, NULL, 0, diag);
  }
  return st;
}

/* The heads as float arrays: the tensors' own data, else converted into the state's. */
static const float *as_floats(const tfl_tensor *t, float *buf)
{
  if (!buf) return t->data;
  const size_t n = tfl_tensor_count(t);
  for (size_t i = 0; i < n; i++) buf[i] = decoder_value(t, i);
  return buf;
}

static tfl_status run_ssd(det_state *s, const tfl_tensor *const *o, const tfl_transform *tr,
                          int in_w, int in_h, const tfl_decoder_options *opt, tfl_results *res, tfl_diag *diag)
{
  const float *enc = as_floats(o[s->out[0]], s->regf), *sc = as_floats(o[s->out[1]], s->scf);
  const int A = s->n_anchors, C = s->n_classes;
  for (int a = 0; a < A; a++) s->boxes[a] = pp_ssd_box(enc, s->anchor_rows, a, s->scale);
  const pp_ssd_params p = { opt->threshold, opt->iou_threshold, s->cap, { s->scale[0], s->scale[1], s->scale[2],
                            s->scale[3] }, s->prob_scores };
  const pp_ssd_work w = { s->cand, s->scratch, s->sel };
  int n_found = 0;
  for (int c = 1; c < C; c++) {
    const int m = pp_ssd_class_nms(&p, s->boxes, sc, A, C, c, &w, s->picks);
    for (int i = 0; i < m; i++)
      n_found = pp_ssd_keep(s->found, n_found, s->cap, (pp_ssd_found){ s->picks[i].score, c, s->picks[i].index });
  }
  tfl_status st = alloc_boxes(res, n_found, diag);
  for (int i = 0; i < n_found && st == TFL_OK; i++)
    st = emit(res, tr, in_w, in_h, s->boxes[s->found[i].anchor], s->found[i].class_id, s->found[i].score, NULL, 0,
              diag);
  return st;
}

static pp_anchor_params anchor_params(const det_state *s, const tfl_decoder_options *opt)
{
  return (pp_anchor_params){ opt->threshold, opt->iou_threshold, s->cap,
                             { s->scale[0], s->scale[1], s->scale[2], s->scale[3] }, s->n_keypoints, s->prob_scores };
}

static tfl_status run_mediapipe(det_state *s, const tfl_tensor *const *o, const tfl_transform *tr,
                                int in_w, int in_h, const tfl_decoder_options *opt, tfl_results *res, tfl_diag *diag)
{
  const int nk = s->n_keypoints;
  const pp_anchor_params p = anchor_params(s, opt);
  const pp_anchor_work w = { s->boxes, s->kps, s->cand, s->scratch };
  const pp_anchor_out out = { s->wbox, s->wscore, s->windex, s->wkps };
  const int m = pp_anchor_detect(&p, as_floats(o[s->out[0]], s->regf), s->n_coords, as_floats(o[s->out[1]], s->scf),
                                 s->anchor_rows, s->n_anchors, &w, &out);
  tfl_status st = alloc_boxes(res, m, diag);
  for (int i = 0; i < m && st == TFL_OK; i++)
    st = emit(res, tr, in_w, in_h, s->wbox[i], 0, s->wscore[i], s->wkps + (size_t)i * 2 * (size_t)nk, nk, diag);
  return st;
}

/* The appended op's results: its count (clamped to its slots and max_results) of boxes,
 * keypoints and scores, already thresholded and merged. */
static tfl_status run_anchor_op(det_state *s, const tfl_tensor *const *o, const tfl_transform *tr, int in_w,
                                int in_h, tfl_results *res, tfl_diag *diag)
{
  const tfl_tensor *boxes = o[s->out[0]], *kps = o[s->out[1]], *scores = o[s->out[2]], *count = o[s->out[3]];
  const int nk = s->n_keypoints;
  size_t n = tfl_tensor_count(scores);
  if (tfl_tensor_count(boxes) / 4 < n) n = tfl_tensor_count(boxes) / 4;
  if (nk > 0 && tfl_tensor_count(kps) / (2 * (size_t)nk) < n) n = tfl_tensor_count(kps) / (2 * (size_t)nk);
  if ((size_t)s->cap < n) n = (size_t)s->cap;
  const float cf = tfl_tensor_count(count) ? decoder_value(count, 0) : 0.0f;
  const int k = cf > 0 ? (cf < (float)n ? (int)cf : (int)n) : 0;  /* NaN gives 0 */
  float *kp = nk > 0 ? malloc(sizeof(float) * 2 * (size_t)nk) : NULL;
  if (nk > 0 && !kp) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  tfl_status st = alloc_boxes(res, k, diag);
  for (int i = 0; i < k && st == TFL_OK; i++) {
    const size_t b = (size_t)i * 4;
    const pp_box box = { decoder_value(boxes, b), decoder_value(boxes, b + 1), decoder_value(boxes, b + 2),
                         decoder_value(boxes, b + 3) };
    if (!isfinite(box.ymin + box.xmin + box.ymax + box.xmax)) continue;
    for (int j = 0; j < 2 * nk; j++) kp[j] = decoder_value(kps, (size_t)i * 2 * (size_t)nk + (size_t)j);
    st = emit(res, tr, in_w, in_h, box, 0, decoder_value(scores, (size_t)i), kp, nk, diag);
  }
  free(kp);
  return st;
}

static tfl_status det_run(void *state, const tfl_tensor *const *outputs, int n_outputs,
                          const tfl_transform *tr, const tfl_decoder_options *opt, tfl_results *res, tfl_diag *diag)
{
  det_state *s = state;
  const int need = s->layout == DET_SSD || s->layout == DET_MEDIAPIPE ? 2 : 4;
  for (int i = 0; i < need; i++)
    if (s->out[i] >= n_outputs)
      return tfl_fail(diag, TFL_ERR_SHAPE, "detection: output %d missing (%d given)", s->out[i], n_outputs);
  if (s->layout == DET_SSD || s->layout == DET_MEDIAPIPE) {
    if (tfl_tensor_count(outputs[s->out[0]]) != (size_t)s->n_anchors * (size_t)s->n_coords ||
        tfl_tensor_count(outputs[s->out[1]]) != (size_t)s->n_anchors * (size_t)s->n_classes)
      return tfl_fail(diag, TFL_ERR_SHAPE, "detection: outputs changed size (expected %d anchors)", s->n_anchors);
  }
  const int in_w = tr->in_w > 0 ? tr->in_w : s->in_w, in_h = tr->in_h > 0 ? tr->in_h : s->in_h;
  switch (s->layout) {
  case DET_POSTPROCESS:
  case DET_SSD_OP: return run_postprocess(s, outputs, tr, in_w, in_h, opt, res, diag);
  case DET_SSD: return run_ssd(s, outputs, tr, in_w, in_h, opt, res, diag);
  case DET_MEDIAPIPE: return run_mediapipe(s, outputs, tr, in_w, in_h, opt, res, diag);
  case DET_ANCHOR_OP: return run_anchor_op(s, outputs, tr, in_w, in_h, res, diag);
  }
  return TFL_OK;
}

bool decoder_raw_heads(const tfl_graph *g, const tfl_decoder_options *opt, decoder_heads *h)
{
  void *state = NULL;
  if (det_create(g, opt, &state, NULL) != TFL_OK) return false;
  det_state *s = state;
  /* the ops take float32 heads; others stay with the raw layout */
  const bool ok = (s->layout == DET_SSD || (s->layout == DET_MEDIAPIPE && s->n_keypoints > 0)) && !s->regf && !s->scf;
  if (ok) {
    *h = (decoder_heads){ g->outputs[s->out[0]], g->outputs[s->out[1]], s->n_anchors, s->n_keypoints,
                          { s->scale[0], s->scale[1], s->scale[2], s->scale[3] }, s->prob_scores, s->anchor_rows,
                          s->layout == DET_SSD ? s->n_classes : 0 };
    s->anchor_rows = NULL;  /* the caller's now */
  }
  det_free(s);
  return ok;
}

const decoder_impl decoder_detection = { det_create, det_run, det_free };
