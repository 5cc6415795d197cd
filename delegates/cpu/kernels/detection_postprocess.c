/* detection_postprocess.c - the custom op TFLite_Detection_PostProcess (SSD heads).
 *
 * Decodes center-size box encodings against the anchors, then keeps the best boxes
 * with non-maximum suppression, as TensorFlow Lite's kernel does:
 *   ycenter = ty / y_scale * anchor_h + anchor_y     h = exp(th / h_scale) * anchor_h
 *   (x likewise)  -> ymin, xmin, ymax, xmax
 * fast NMS (use_regular_nms false): each anchor is ranked by its best class; one NMS
 *   over anchors; each kept anchor reports its top max_classes_per_detection classes.
 * regular NMS: one NMS per class (detections_per_class each), merged by score.
 * Outputs (float): boxes [1,D,4], classes [1,D] (index without background),
 * scores [1,D], count [1]; D = max_detections * max_classes_per_detection.
 * The box coder and the NMS live in postproc/ (box.c, nms.c), shared with the element.
 */
#include "kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "postproc/nms.h"

enum { IN_BOXES = 0, IN_SCORES = 1, IN_ANCHORS = 2 };
enum { OUT_BOXES = 0, OUT_CLASSES = 1, OUT_SCORES = 2, OUT_COUNT = 3 };

typedef struct {
  int n_anchors, box_len;         /* box encodings [1, n_anchors, box_len >= 4] */
  int n_classes, n_with_bg, label_offset;
  int n_cat;                      /* classes reported per anchor (fast NMS) */
  int n_out;                      /* detection slots in the outputs */
  int per_class;                  /* regular NMS: detections kept per class */
  pp_box *boxes;                 /* decoded, one per anchor */
  float *scores;                  /* dequantized class scores (NULL: input is float) */
  float *class_scores;            /* one column (regular) or the best score (fast) */
  nms_scored *cand;               /* n_anchors */
  uint8_t *active;                /* n_anchors */
  int *selected;                  /* max(max_detections, per_class) */
  int *top_classes;               /* n_anchors * n_cat (fast) */
  nms_scored *merged;             /* max_detections + per_class (regular) */
} dp_state;

static void dp_release(void *state)
{
  dp_state *s = state;
  if (!s) return;
  free(s->boxes);
  free(s->scores);
  free(s->class_scores);
  free(s->cand);
  free(s->active);
  free(s->selected);
  free(s->top_classes);
  free(s->merged);
  free(s);
}

static bool dp_type_ok(const tfl_tensor *t)
{
  return t->type == TFL_TYPE_FLOAT32 || t->type == TFL_TYPE_UINT8 || t->type == TFL_TYPE_INT8;
}

/* Element i as a real value (float, or uint8/int8 with per-tensor quantization). */
static inline float dp_real(const tfl_tensor *t, size_t i)
{
  const float scale = t->q.n ? t->q.scale[0] : 1.0f;
  const float zp = t->q.n ? (float)t->q.zero_point[0] : 0.0f;
  switch (t->type) {
  case TFL_TYPE_UINT8: return ((float)((const uint8_t *)t->data)[i] - zp) * scale;
  case TFL_TYPE_INT8: return ((float)((const int8_t *)t->data)[i] - zp) * scale;
  case TFL_TYPE_FLOAT32:
  case TFL_TYPE_FLOAT16:
  case TFL_TYPE_INT32:
  case TFL_TYPE_INT64:
  case TFL_TYPE_STRING:
  case TFL_TYPE_COMPLEX64:
  case TFL_TYPE_BOOL:
  case TFL_TYPE_INT16:
  case TFL_TYPE_COUNT:
    break;
  }
  return ((const float *)t->data)[i];
}

static tfl_status dp_check_out(const tfl_tensor *t, int i, size_t need, tfl_diag *diag)
{
  if (!t) return tfl_fail(diag, TFL_ERR_SHAPE, "TFLite_Detection_PostProcess: output %d missing", i);
  if (t->type != TFL_TYPE_FLOAT32)
    return tfl_fail(diag, TFL_ERR_SHAPE, "TFLite_Detection_PostProcess: output %d is %s, expected float32",
                     i, tfl_type_name(t->type));
  if (tfl_tensor_count(t) < need)
    return tfl_fail(diag, TFL_ERR_SHAPE,
                     "TFLite_Detection_PostProcess: output %d holds %zu values, needs %zu",
                     i, tfl_tensor_count(t), need);
  return TFL_OK;
}

static tfl_status dp_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_detection_params *p = &n->p.detection;
  const tfl_tensor *boxes = cpu_in(g, n, IN_BOXES), *scores = cpu_in(g, n, IN_SCORES);
  const tfl_tensor *anchors = cpu_in(g, n, IN_ANCHORS);
  if (n->n_in != 3 || n->n_out != 4 || !boxes || !scores || !anchors)
    return tfl_fail(diag, TFL_ERR_SHAPE, "TFLite_Detection_PostProcess: %d inputs and %d outputs, "
                     "expected 3 and 4", n->n_in, n->n_out);
  if (!dp_type_ok(boxes) || !dp_type_ok(scores) || !dp_type_ok(anchors))
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "TFLite_Detection_PostProcess: input types %s/%s/%s, "
                     "expected float32 or 8-bit", tfl_type_name(boxes->type),
                     tfl_type_name(scores->type), tfl_type_name(anchors->type));
  if (boxes->ndim != 3 || boxes->dims[0] != 1 || boxes->dims[2] < 4)
    return tfl_fail(diag, TFL_ERR_SHAPE, "TFLite_Detection_PostProcess: box encodings must be "
                     "[1,N,>=4], got %d dims", boxes->ndim);
  const int na = boxes->dims[1];
  if (scores->ndim != 3 || scores->dims[0] != 1 || scores->dims[1] != na)
    return tfl_fail(diag, TFL_ERR_SHAPE, "TFLite_Detection_PostProcess: class predictions must be "
                     "[1,%d,C]", na);
  if (anchors->ndim != 2 || anchors->dims[0] != na || anchors->dims[1] != 4)
    return tfl_fail(diag, TFL_ERR_SHAPE, "TFLite_Detection_PostProcess: anchors must be [%d,4]", na);
  if (p->num_classes <= 0 || p->num_classes > scores->dims[2])
    return tfl_fail(diag, TFL_ERR_SHAPE, "TFLite_Detection_PostProcess: num_classes %d, class "
                     "predictions have %d columns", p->num_classes, scores->dims[2]);
  if (p->max_detections <= 0 || p->max_classes_per_detection <= 0)
    return tfl_fail(diag, TFL_ERR_SHAPE, "TFLite_Detection_PostProcess: max_detections %d, "
                     "max_classes_per_detection %d must be > 0", p->max_detections,
                     p->max_classes_per_detection);
  if (!(p->nms_iou_threshold > 0.0f && p->nms_iou_threshold <= 1.0f))
    return tfl_fail(diag, TFL_ERR_SHAPE, "TFLite_Detection_PostProcess: nms_iou_threshold %g not in "
                     "(0, 1]", p->nms_iou_threshold);
  if (p->y_scale == 0 || p->x_scale == 0 || p->h_scale == 0 || p->w_scale == 0)
    return tfl_fail(diag, TFL_ERR_SHAPE, "TFLite_Detection_PostProcess: a box scale is 0");
  if (p->use_regular_nms && p->detections_per_class <= 0)
    return tfl_fail(diag, TFL_ERR_SHAPE, "TFLite_Detection_PostProcess: detections_per_class %d",
                     p->detections_per_class);

  const size_t n_out = (size_t)p->max_detections * (size_t)p->max_classes_per_detection;
  tfl_status st;
  if ((st = dp_check_out(cpu_out(g, n, OUT_BOXES), OUT_BOXES, n_out * 4, diag)) != TFL_OK ||
      (st = dp_check_out(cpu_out(g, n, OUT_CLASSES), OUT_CLASSES, n_out, diag)) != TFL_OK ||
      (st = dp_check_out(cpu_out(g, n, OUT_SCORES), OUT_SCORES, n_out, diag)) != TFL_OK ||
      (st = dp_check_out(cpu_out(g, n, OUT_COUNT), OUT_COUNT, 1, diag)) != TFL_OK)
    return st;

  dp_state *s = calloc(1, sizeof *s);
  if (!s) return tfl_fail(diag, TFL_ERR_NOMEM, "TFLite_Detection_PostProcess: state");
  s->n_anchors = na;
  s->box_len = boxes->dims[2];
  s->n_classes = p->num_classes;
  s->n_with_bg = scores->dims[2];
  s->label_offset = s->n_with_bg - s->n_classes;
  s->n_cat = p->max_classes_per_detection < p->num_classes ? p->max_classes_per_detection
                                                           : p->num_classes;
  s->n_out = (int)n_out;
  s->per_class = p->detections_per_class < p->max_detections ? p->detections_per_class
                                                             : p->max_detections;
  const size_t nan = (size_t)(na > 0 ? na : 1);
  const int n_sel = p->max_detections > s->per_class ? p->max_detections : s->per_class;
  s->boxes = malloc(sizeof(pp_box) * nan);
  s->class_scores = malloc(sizeof(float) * nan);
  s->cand = malloc(sizeof(nms_scored) * nan);
  s->active = malloc(nan);
  s->selected = malloc(sizeof(int) * (size_t)(n_sel > 0 ? n_sel : 1));
  if (scores->type != TFL_TYPE_FLOAT32)
    s->scores = malloc(sizeof(float) * nan * (size_t)s->n_with_bg);
  if (p->use_regular_nms)
    s->merged = malloc(sizeof(nms_scored) * (size_t)(p->max_detections + s->per_class));
  else
    s->top_classes = malloc(sizeof(int) * nan * (size_t)s->n_cat);
  if (!s->boxes || !s->class_scores || !s->cand || !s->active || !s->selected ||
      (scores->type != TFL_TYPE_FLOAT32 && !s->scores) ||
      (p->use_regular_nms ? !s->merged : !s->top_classes)) {
    dp_release(s);
    return tfl_fail(diag, TFL_ERR_NOMEM, "TFLite_Detection_PostProcess: scratch for %d anchors", na);
  }
  *state = s;
  return TFL_OK;
}

static void dp_decode(const tfl_detection_params *p, const tfl_tensor *enc, const tfl_tensor *anc,
                      dp_state *s)
{
  const float scale[4] = {p->y_scale, p->x_scale, p->h_scale, p->w_scale};
  for (int i = 0; i < s->n_anchors; i++) {
    const size_t e = (size_t)i * (size_t)s->box_len, a = (size_t)i * 4;
    const double code[4] = {dp_real(enc, e), dp_real(enc, e + 1), dp_real(enc, e + 2), dp_real(enc, e + 3)};
    const double anchor[4] = {dp_real(anc, a), dp_real(anc, a + 1), dp_real(anc, a + 2), dp_real(anc, a + 3)};
    s->boxes[i] = pp_box_decode_center_size(code, anchor, scale);
  }
}

/* Indices of the k best of n scores, best first; ties keep the lower index. */
static void dp_top_k(const float *v, int n, int k, int *idx)
{
  int len = 0;
  for (int c = 0; c < n; c++) {
    if (len == k && !(v[c] > v[idx[len - 1]])) continue;
    int pos = len < k ? len++ : k - 1;
    while (pos > 0 && v[c] > v[idx[pos - 1]]) {
      idx[pos] = idx[pos - 1];
      pos--;
    }
    idx[pos] = c;
  }
}

static int dp_fast(const tfl_detection_params *p, dp_state *s, const float *scores, float *ob,
                   float *oc, float *os)
{
  for (int i = 0; i < s->n_anchors; i++) {
    const float *row = scores + (size_t)i * (size_t)s->n_with_bg + s->label_offset;
    int *top = s->top_classes + (size_t)i * (size_t)s->n_cat;
    dp_top_k(row, s->n_classes, s->n_cat, top);
    s->class_scores[i] = row[top[0]];
  }
  const int k = nms_collect(s->class_scores, s->n_anchors, 1, p->nms_score_threshold, s->cand);
  const int m = nms_greedy(s->boxes, s->cand, k, p->nms_iou_threshold, p->max_detections,
                           s->selected, s->active);
  for (int r = 0; r < m; r++) {
    const int a = s->selected[r];
    const float *row = scores + (size_t)a * (size_t)s->n_with_bg + s->label_offset;
    const int *top = s->top_classes + (size_t)a * (size_t)s->n_cat;
    for (int c = 0; c < s->n_cat; c++) {
      const int o = p->max_classes_per_detection * r + c;
      memcpy(ob + 4 * (size_t)o, &s->boxes[a], sizeof(float) * 4);
      oc[o] = (float)top[c];
      os[o] = row[top[c]];
    }
  }
  return m;
}

static int dp_regular(const tfl_detection_params *p, dp_state *s, const float *scores, float *ob,
                      float *oc, float *os)
{
  int kept = 0;
  for (int col = 0; col < s->n_classes; col++) {
    const float *base = scores + s->label_offset + col;
    const int k = nms_collect(base, s->n_anchors, s->n_with_bg, p->nms_score_threshold, s->cand);
    const int m = nms_greedy(s->boxes, s->cand, k, p->nms_iou_threshold, s->per_class, s->selected,
                             s->active);
    /* append the class's picks to the list so far and re-sort it (a few dozen
     * entries); equal scores order by anchor, then class */
    for (int j = 0; j < m; j++) {
      const int a = s->selected[j];
      s->merged[kept + j] = (nms_scored){base[(size_t)a * (size_t)s->n_with_bg],
                                         a * s->n_with_bg + s->label_offset + col};
    }
    nms_sort(s->merged, kept + m);
    kept = kept + m < p->max_detections ? kept + m : p->max_detections;
  }
  for (int o = 0; o < kept; o++) {
    const int a = s->merged[o].index / s->n_with_bg;
    memcpy(ob + 4 * (size_t)o, &s->boxes[a], sizeof(float) * 4);
    oc[o] = (float)(s->merged[o].index - a * s->n_with_bg - s->label_offset);
    os[o] = s->merged[o].score;
  }
  return kept;
}

static tfl_status dp_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  dp_state *s = state;
  const tfl_detection_params *p = &n->p.detection;
  const tfl_tensor *enc = cpu_in(g, n, IN_BOXES), *sc = cpu_in(g, n, IN_SCORES);
  const tfl_tensor *anc = cpu_in(g, n, IN_ANCHORS);
  float *ob = cpu_out(g, n, OUT_BOXES)->data, *oc = cpu_out(g, n, OUT_CLASSES)->data;
  float *os = cpu_out(g, n, OUT_SCORES)->data, *count = cpu_out(g, n, OUT_COUNT)->data;

  dp_decode(p, enc, anc, s);
  const float *scores = sc->data;
  if (s->scores) {
    const size_t total = (size_t)s->n_anchors * (size_t)s->n_with_bg;
    for (size_t i = 0; i < total; i++) s->scores[i] = dp_real(sc, i);
    scores = s->scores;
  }
  /* unused slots read as zero, whatever the arena held before */
  memset(ob, 0, sizeof(float) * 4 * (size_t)s->n_out);
  memset(oc, 0, sizeof(float) * (size_t)s->n_out);
  memset(os, 0, sizeof(float) * (size_t)s->n_out);
  const int found = p->use_regular_nms ? dp_regular(p, s, scores, ob, oc, os)
                                       : dp_fast(p, s, scores, ob, oc, os);
  count[0] = (float)found;
  return TFL_OK;
}

const cpu_kernel cpu_k_detection_postprocess = {dp_prepare, dp_eval, dp_release, CPU_F32 | CPU_Q8, 0};
