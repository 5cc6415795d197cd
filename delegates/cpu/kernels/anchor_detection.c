/* anchor_detection.c - the internal op ANCHOR_DETECTION: a MediaPipe detector's heads
 * (regressors [B,A,4+2k], scores [B,A,1]) decoded against its constant anchors [A,4] and
 * merged by weighted NMS, per batch item. The arithmetic is postproc/anchor_detect.c,
 * which the detection decoder runs on raw heads too. Outputs (float): boxes [B,D,4],
 * keypoints [B,D,2k], scores [B,D], count [B]; empty slots 0. */
#include "kernels.h"

#include <stdlib.h>
#include <string.h>

#include "postproc/anchor_detect.h"

enum { IN_REGRESSORS = 0, IN_SCORES = 1, IN_ANCHORS = 2 };
enum { OUT_BOXES = 0, OUT_KEYPOINTS = 1, OUT_SCORES = 2, OUT_COUNT = 3 };

typedef struct {
  int batch, n_anchors, row, n_kps, max_out;
  pp_anchor_params pp;
  pp_anchor_work w;
  pp_box *out_boxes;
  int *out_index;
} ad_state;

static void ad_release(void *state)
{
  ad_state *s = state;
  if (!s) return;
  free(s->w.boxes);
  free(s->w.kps);
  free(s->w.cand);
  free(s->w.scratch);
  free(s->out_boxes);
  free(s->out_index);
  free(s);
}

static tfl_status ad_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_anchor_detection_params *p = &n->p.anchor_det;
  const tfl_tensor *reg = cpu_in(g, n, IN_REGRESSORS), *sc = cpu_in(g, n, IN_SCORES), *an = cpu_in(g, n, IN_ANCHORS);
  if (n->n_in != 3 || n->n_out != 4 || !reg || !sc || !an)
    return tfl_fail(diag, TFL_ERR_SHAPE, "AnchorDetection: %d inputs and %d outputs, expected 3 and 4", n->n_in,
                    n->n_out);
  if (reg->ndim != 3 || reg->dims[2] < 6 || (reg->dims[2] - 4) % 2 || tfl_tensor_count(sc) != (size_t)reg->dims[0] * (size_t)reg->dims[1] ||
      an->ndim != 2 || an->dims[0] != reg->dims[1] || an->dims[1] != 4)
    return tfl_fail(diag, TFL_ERR_SHAPE, "AnchorDetection: expected regressors [B,A,4+2k], scores [B,A,1], anchors [A,4]");
  if (reg->type != TFL_TYPE_FLOAT32 || sc->type != TFL_TYPE_FLOAT32 || an->type != TFL_TYPE_FLOAT32)
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "AnchorDetection: inputs %s/%s/%s, expected float32",
                    tfl_type_name(reg->type), tfl_type_name(sc->type), tfl_type_name(an->type));
  const int b = reg->dims[0], a = reg->dims[1], row = reg->dims[2], k = (row - 4) / 2, md = p->max_detections;
  const size_t need[4] = {(size_t)b * md * 4, (size_t)b * md * 2 * k, (size_t)b * md, (size_t)b};
  for (int i = 0; i < 4; i++) {
    const tfl_tensor *o = cpu_out(g, n, i);
    if (!o || o->type != TFL_TYPE_FLOAT32 || tfl_tensor_count(o) != need[i])
      return tfl_fail(diag, TFL_ERR_SHAPE, "AnchorDetection: output %d is not %zu floats", i, need[i]);
  }
  ad_state *s = calloc(1, sizeof *s);
  if (!s) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  *s = (ad_state){.batch = b, .n_anchors = a, .row = row, .n_kps = k, .max_out = md,
                  .pp = {p->score_threshold, p->iou_threshold, md, {p->y_scale, p->x_scale, p->h_scale, p->w_scale},
                         k, p->prob_scores}};
  s->w.boxes = malloc(sizeof(pp_box) * (size_t)a);
  s->w.kps = malloc(sizeof(float) * 2 * (size_t)k * (size_t)a);
  s->w.cand = malloc(sizeof(nms_scored) * (size_t)a);
  s->w.scratch = malloc((size_t)a);
  s->out_boxes = malloc(sizeof(pp_box) * (size_t)md);
  s->out_index = malloc(sizeof(int) * (size_t)md);
  if (!s->w.boxes || !s->w.kps || !s->w.cand || !s->w.scratch || !s->out_boxes || !s->out_index) {
    ad_release(s);
    return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  }
  *state = s;
  return TFL_OK;
}

static tfl_status ad_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)ctx;
  (void)diag;
  ad_state *s = state;
  const float *reg = cpu_in(g, n, IN_REGRESSORS)->data, *sc = cpu_in(g, n, IN_SCORES)->data;
  const float *an = cpu_in(g, n, IN_ANCHORS)->data;
  float *ob = cpu_out(g, n, OUT_BOXES)->data, *ok = cpu_out(g, n, OUT_KEYPOINTS)->data;
  float *os = cpu_out(g, n, OUT_SCORES)->data, *oc = cpu_out(g, n, OUT_COUNT)->data;
  const size_t md = (size_t)s->max_out, kl = 2 * (size_t)s->n_kps;
  /* unused slots read as zero, whatever the arena held before */
  memset(ob, 0, sizeof(float) * 4 * md * (size_t)s->batch);
  memset(ok, 0, sizeof(float) * kl * md * (size_t)s->batch);
  memset(os, 0, sizeof(float) * md * (size_t)s->batch);
  for (int b = 0; b < s->batch; b++) {
    const pp_anchor_out out = {s->out_boxes, os + md * b, s->out_index, ok + kl * md * b};
    const int m = pp_anchor_detect(&s->pp, reg + (size_t)b * s->n_anchors * s->row, s->row,
                                   sc + (size_t)b * s->n_anchors, an, s->n_anchors, &s->w, &out);
    memcpy(ob + 4 * md * b, s->out_boxes, sizeof(pp_box) * (size_t)m);
    oc[b] = (float)m;
  }
  return TFL_OK;
}

const cpu_kernel cpu_k_anchor_detection = {ad_prepare, ad_eval, ad_release, CPU_F32, 0};
