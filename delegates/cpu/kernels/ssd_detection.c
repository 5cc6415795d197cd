/* ssd_detection.c - the internal ops SSD_CLASS_NMS and SSD_DETECTION (tfl_graph.h): an
 * SSD's heads (box encodings [B,A,4], class scores [B,A,C]) decoded against its constant
 * anchors [A,4], thinned by greedy NMS class by class (selections [B,C-1,D,2]), then the
 * best D picks over all classes (boxes [B,D,4], classes [B,D], scores [B,D], count [B];
 * empty slots 0). The arithmetic is postproc/ssd_detect.c, which the detection decoder
 * runs on raw heads too. Two ops so that the GPU runs them as two dispatches. */
#include "kernels.h"

#include <stdlib.h>
#include <string.h>

#include "postproc/ssd_detect.h"

enum { IN_ENCODINGS = 0, IN_SCORES = 1, IN_ANCHORS = 2 };          /* SSD_CLASS_NMS */
enum { IN_SELECTIONS = 0, IN_ENC = 1, IN_ANC = 2 };                 /* SSD_DETECTION */
enum { OUT_BOXES = 0, OUT_CLASSES = 1, OUT_SCORES = 2, OUT_COUNT = 3 };

typedef struct {
  int batch, n_anchors, n_classes, max_out;
  pp_ssd_params pp;
  pp_ssd_work w;
  pp_box *boxes;           /* per anchor */
  nms_scored *picks;       /* max_out */
  pp_ssd_found *found;     /* max_out */
} ssd_state;

static void ssd_release(void *state)
{
  ssd_state *s = state;
  if (!s) return;
  free(s->w.cand);
  free(s->w.scratch);
  free(s->w.sel);
  free(s->boxes);
  free(s->picks);
  free(s->found);
  free(s);
}

/* Shapes as tfl_validate.c's ssd_det_shapes checks them; the state for either op. */
static tfl_status ssd_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const bool merge = n->op == TFL_OP_SSD_DETECTION;
  const tfl_anchor_detection_params *p = &n->p.anchor_det;
  const tfl_tensor *enc = cpu_in(g, n, merge ? IN_ENC : IN_ENCODINGS), *y = cpu_in(g, n, merge ? IN_SELECTIONS : IN_SCORES);
  const tfl_tensor *an = cpu_in(g, n, IN_ANCHORS);
  if (n->n_in != 3 || n->n_out != (merge ? 4 : 1) || !enc || !y || !an)
    return tfl_fail(diag, TFL_ERR_SHAPE, "%s: %d inputs and %d outputs, expected 3 and %d", tfl_op_name(n->op), n->n_in,
                    n->n_out, merge ? 4 : 1);
  const int md = p->max_detections;
  if (enc->ndim != 3 || enc->dims[2] != 4 || an->ndim != 2 || an->dims[0] != enc->dims[1] || an->dims[1] != 4 ||
      (merge ? y->ndim != 4 || y->dims[0] != enc->dims[0] || y->dims[2] != md || y->dims[3] != 2
             : y->ndim != 3 || y->dims[0] != enc->dims[0] || y->dims[1] != enc->dims[1] || y->dims[2] < 2))
    return tfl_fail(diag, TFL_ERR_SHAPE, "%s: expected box encodings [B,A,4], anchors [A,4] and %s", tfl_op_name(n->op),
                    merge ? "selections [B,C-1,D,2]" : "scores [B,A,C]");
  if (enc->type != TFL_TYPE_FLOAT32 || y->type != TFL_TYPE_FLOAT32 || an->type != TFL_TYPE_FLOAT32)
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "%s: inputs %s/%s/%s, expected float32", tfl_op_name(n->op),
                    tfl_type_name(enc->type), tfl_type_name(y->type), tfl_type_name(an->type));
  const int b = enc->dims[0], a = enc->dims[1], nc = merge ? y->dims[1] + 1 : y->dims[2];
  const size_t need[4] = {merge ? (size_t)b * md * 4 : (size_t)b * (nc - 1) * md * 2, (size_t)b * md, (size_t)b * md,
                          (size_t)b};
  for (int i = 0; i < n->n_out; i++) {
    const tfl_tensor *o = cpu_out(g, n, i);
    if (!o || o->type != TFL_TYPE_FLOAT32 || tfl_tensor_count(o) != need[i])
      return tfl_fail(diag, TFL_ERR_SHAPE, "%s: output %d is not %zu floats", tfl_op_name(n->op), i, need[i]);
  }
  ssd_state *s = calloc(1, sizeof *s);
  if (!s) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  *s = (ssd_state){.batch = b, .n_anchors = a, .n_classes = nc, .max_out = md,
                   .pp = {p->score_threshold, p->iou_threshold, md, {p->y_scale, p->x_scale, p->h_scale, p->w_scale},
                          p->prob_scores}};
  s->w.cand = malloc(sizeof(nms_scored) * (size_t)a);
  s->w.scratch = malloc((size_t)a);
  s->w.sel = malloc(sizeof(int) * (size_t)md);
  s->boxes = malloc(sizeof(pp_box) * (size_t)a);
  s->picks = malloc(sizeof(nms_scored) * (size_t)md);
  s->found = malloc(sizeof(pp_ssd_found) * (size_t)md);
  if (!s->w.cand || !s->w.scratch || !s->w.sel || !s->boxes || !s->picks || !s->found) {
    ssd_release(s);
    return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  }
  *state = s;
  return TFL_OK;
}

static tfl_status class_nms_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)ctx;
  (void)diag;
  ssd_state *s = state;
  const float *enc = cpu_in(g, n, IN_ENCODINGS)->data, *sc = cpu_in(g, n, IN_SCORES)->data;
  const float *an = cpu_in(g, n, IN_ANCHORS)->data;
  float *sel = cpu_out(g, n, 0)->data;
  const int A = s->n_anchors, C = s->n_classes;
  const size_t md = (size_t)s->max_out;
  for (int b = 0; b < s->batch; b++) {
    const float *eb = enc + (size_t)b * A * 4, *sb = sc + (size_t)b * A * C;
    for (int a = 0; a < A; a++) s->boxes[a] = pp_ssd_box(eb, an, a, s->pp.scale);
    for (int c = 1; c < C; c++) {
      float *row = sel + 2 * md * ((size_t)b * (C - 1) + (size_t)(c - 1));
      const int m = pp_ssd_class_nms(&s->pp, s->boxes, sb, A, C, c, &s->w, s->picks);
      for (size_t i = 0; i < md; i++) {
        row[2 * i] = (int)i < m ? s->picks[i].score : 0.0f;
        row[2 * i + 1] = (int)i < m ? (float)s->picks[i].index : -1.0f;
      }
    }
  }
  return TFL_OK;
}

static tfl_status merge_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)ctx;
  (void)diag;
  ssd_state *s = state;
  const float *sel = cpu_in(g, n, IN_SELECTIONS)->data, *enc = cpu_in(g, n, IN_ENC)->data;
  const float *an = cpu_in(g, n, IN_ANC)->data;
  float *ob = cpu_out(g, n, OUT_BOXES)->data, *oc = cpu_out(g, n, OUT_CLASSES)->data;
  float *os = cpu_out(g, n, OUT_SCORES)->data, *on = cpu_out(g, n, OUT_COUNT)->data;
  const size_t md = (size_t)s->max_out, rows = (size_t)s->n_classes - 1;
  /* unused slots read as zero, whatever the arena held before */
  memset(ob, 0, sizeof(float) * 4 * md * (size_t)s->batch);
  memset(oc, 0, sizeof(float) * md * (size_t)s->batch);
  memset(os, 0, sizeof(float) * md * (size_t)s->batch);
  for (int b = 0; b < s->batch; b++) {
    int k = 0;
    for (size_t r = 0; r < rows; r++) {
      const float *row = sel + 2 * md * ((size_t)b * rows + r);
      for (size_t i = 0; i < md && row[2 * i + 1] >= 0.0f && row[2 * i + 1] < (float)s->n_anchors; i++)
        k = pp_ssd_keep(s->found, k, s->max_out, (pp_ssd_found){row[2 * i], (int)r + 1, (int)row[2 * i + 1]});
    }
    for (int i = 0; i < k; i++) {
      const pp_box box = pp_ssd_box(enc + (size_t)b * s->n_anchors * 4, an, s->found[i].anchor, s->pp.scale);
      memcpy(ob + 4 * (md * b + i), &box, sizeof box);
      oc[md * b + i] = (float)s->found[i].class_id;
      os[md * b + i] = s->found[i].score;
    }
    on[b] = (float)k;
  }
  return TFL_OK;
}

const cpu_kernel cpu_k_ssd_class_nms = {ssd_prepare, class_nms_eval, ssd_release, CPU_F32, 0};
const cpu_kernel cpu_k_ssd_detection = {ssd_prepare, merge_eval, ssd_release, CPU_F32, 0};
