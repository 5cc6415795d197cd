/* decode_yolo.c - boxes from Ultralytics YOLO heads, as Ultralytics' predict gives them.
 *
 * Three heads, recognized from Ultralytics' metadata.json (g->meta.ultralytics: task,
 * imgsz, names, end2end), else from the output's shape and the input size H x W, with
 * N = sum over strides 8, 16, 32 of (H / s) * (W / s):
 *  - anchor-free (YOLOv5u, v8, v9, v11, v12): [1, 4 + nc (+ extra), N], or its transpose
 *    [1, N, 4 + nc]; cx, cy, w, h then class probabilities (extra: a segmentation's mask
 *    coefficients or a pose's keypoints, after the classes: only the metadata's class
 *    count tells them apart);
 *  - anchor-based YOLOv5: [1, 3N, 5 + nc] with objectness;
 *  - end-to-end (YOLOv10, YOLO26 exported with nms=False): [1, 300, 6 (+ extra)], rows of
 *    x1, y1, x2, y2, score, class, already suppressed and sorted (oriented: cx, cy, w, h,
 *    score, class, angle).
 * Coordinates: LiteRT / TFLite exports normalize the anchor-free and YOLOv5 heads to
 * 0..1 (Ultralytics' LiteRT backend multiplies them by the input size), and so do the
 * legacy NHWC (onnx2tf) end-to-end exports; litert-torch's end-to-end head (NCHW input)
 * is in input pixels.
 * Scores -> best class -> threshold -> per-class (or agnostic) NMS: postproc/yolo_detect.h.
 * Pose heads (metadata task pose, kpt_shape [k, 2|3]): each box carries its k keypoints
 * (x, y scaled as the box, the visibility probability as their score). Segmentation
 * heads (task segment: mask coefficients after the classes, prototypes as a second
 * output): each box carries its own probability mask (build_mask). Oriented-box heads
 * (task obb: the angle after the classes): rotated NMS (postproc/yolo_obb.h), each box
 * carries its rotated box (tfl_box.rbox) and is its bounds; end-to-end rotated rows are
 * taken as they come.
 * float32, float16, int8 and uint8 heads (dequantized with the tensor's scale).
 * Boxes are mapped through the transform to frame pixels and clamped (not with
 * tfl_decoder_options.unclamped: Ultralytics' val scores them unclipped). */
#include "decoder_impl.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "postproc/yolo_detect.h"
#include "postproc/yolo_obb.h"
#include "runtime/tfl_half.h"

/* COCO's person skeleton (its annotations' "skeleton", 0-based), which Ultralytics draws
 * for 17-keypoint pose models: legs, hips, torso, arms, face. */
static const int32_t coco_skeleton[] = {
  15, 13, 13, 11, 16, 14, 14, 12, 11, 12, 5, 11, 6, 12, 5, 6, 5, 7, 6, 8,
  7, 9, 8, 10, 1, 2, 0, 1, 0, 2, 1, 3, 2, 4, 3, 5, 4, 6,
};
#define COCO_KEYPOINTS 17

typedef struct {
  tfl_yolo_layout L;
  int cap;
  float *vals;            /* the head as float, when it is not float32 */
  nms_scored *cand;
  pp_box *boxes;
  int *classes;
  uint8_t *scratch;
  int *selected;
  pp_yolo_found *found;
  float *pvals;           /* segmentation: the prototypes as float, when not float32 */
  const float **coeffs;   /* cap: each kept box's first coefficient */
  size_t coeff_step;
  float *kept;            /* cap * 4: each kept box's corners, input pixels */
  int n_kept;
  pp_rbox *rboxes;        /* oriented heads: each candidate's rotated box, input pixels */
  bool multi_label;       /* candidates per (box, class): cand .. scratch hold n * nc */
  bool unclamped;         /* boxes not clamped to the frame (as Ultralytics' val scores them) */
} yolo_state;

static void yolo_free(void *state)
{
  yolo_state *s = state;
  if (!s) return;
  free(s->vals);
  free(s->cand);
  free(s->boxes);
  free(s->classes);
  free(s->scratch);
  free(s->selected);
  free(s->found);
  free(s->pvals);
  free(s->coeffs);
  free(s->kept);
  free(s->rboxes);
  free(s);
}

static tfl_status yolo_create(const tfl_graph *g, const tfl_decoder_options *opt, void **state, tfl_diag *diag)
{
  char why[256];
  yolo_state *s = calloc(1, sizeof *s);
  if (!s) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  const int r = tfl_yolo_find(g, &s->L, why, sizeof why);
  if (r <= 0) {
    free(s);
    return tfl_fail(diag, TFL_ERR_SHAPE, "yolo: %s", why);
  }
  const tfl_tensor *t = &g->tensors[g->outputs[s->L.output]];
  if (t->type != TFL_TYPE_FLOAT32 && t->type != TFL_TYPE_FLOAT16 && t->type != TFL_TYPE_INT8 &&
      t->type != TFL_TYPE_UINT8) {
    free(s);
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "yolo: the head is %s; float32, float16, int8 or uint8 are read",
                    tfl_type_name(t->type));
  }
  const size_t n = (size_t)s->L.n_boxes;
  s->cap = opt->max_results > 0 ? opt->max_results : 1;
  s->unclamped = opt->unclamped;
  s->multi_label = opt->multi_label && s->L.head != YOLO_END2END && !s->L.oriented && s->L.n_classes > 0;
  if (s->multi_label) {
    /* a candidate per (box, class): the work arrays hold n * nc, numbered in an int */
    const size_t nc = (size_t)s->L.n_classes;
    if (n > (size_t)INT_MAX / nc) {
      free(s);
      return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "yolo: multi-label: %zu boxes x %zu classes is too many", n, nc);
    }
  }
  const size_t pairs = s->multi_label ? n * (size_t)s->L.n_classes : n;
  if (t->type != TFL_TYPE_FLOAT32) s->vals = malloc(n * (size_t)s->L.n_values * sizeof(float));
  s->cand = malloc(pairs * sizeof *s->cand);
  s->boxes = malloc(pairs * sizeof *s->boxes);
  s->classes = malloc(pairs * sizeof(int));
  s->scratch = malloc(pairs);
  s->selected = malloc((size_t)s->cap * sizeof(int));
  s->found = malloc((size_t)s->cap * sizeof *s->found);
  if (s->L.protos >= 0) {
    const tfl_tensor *p = &g->tensors[g->outputs[s->L.protos]];
    if (p->type != TFL_TYPE_FLOAT32)
      s->pvals = malloc((size_t)s->L.n_coeffs * (size_t)s->L.proto_w * (size_t)s->L.proto_h * sizeof(float));
    s->coeffs = malloc((size_t)s->cap * sizeof *s->coeffs);
    s->kept = malloc((size_t)s->cap * 4 * sizeof(float));
    if ((p->type != TFL_TYPE_FLOAT32 && !s->pvals) || !s->coeffs || !s->kept) {
      yolo_free(s);
      return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
    }
  }
  if (s->L.oriented) s->rboxes = malloc(n * sizeof *s->rboxes);
  if ((t->type != TFL_TYPE_FLOAT32 && !s->vals) || !s->cand || !s->boxes || !s->classes || !s->scratch ||
      !s->selected || !s->found || (s->L.oriented && !s->rboxes)) {
    yolo_free(s);
    return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  }
  *state = s;
  return TFL_OK;
}

/* The head as floats: its own data, else dequantized / widened into s->vals. */
static const float *head_floats(yolo_state *s, const tfl_tensor *t)
{
  if (t->type == TFL_TYPE_FLOAT32) return t->data;
  const size_t n = (size_t)s->L.n_boxes * (size_t)s->L.n_values;
  if (t->type == TFL_TYPE_FLOAT16) {
    const uint16_t *h = t->data;
    for (size_t i = 0; i < n; i++) s->vals[i] = tfl_half_to_float(h[i]);
  } else {
    for (size_t i = 0; i < n; i++) s->vals[i] = decoder_value(t, i);
  }
  return s->vals;
}

/* Appends a box (input pixels) and, for a pose head, its keypoints: value `first` of the
 * box's values, `step` apart (the head's orientation), scaled like the box. */
static tfl_status emit(yolo_state *s, tfl_results *res, const tfl_transform *tr, const float *first, size_t step,
                       float sx, float sy, float x0, float y0, float x1, float y1, int class_id, float score,
                       tfl_diag *diag)
{
  const tfl_yolo_layout *L = &s->L;
  if (L->protos >= 0 && s->n_kept < s->cap) {
    float *k = s->kept + 4 * (size_t)s->n_kept;
    k[0] = fminf(x0, x1), k[1] = fminf(y0, y1), k[2] = fmaxf(x0, x1), k[3] = fmaxf(y0, y1);
    s->coeffs[s->n_kept++] = first + (size_t)L->coeff_offset * step;
    s->coeff_step = step;
  }
  float fb[4];
  tfl_transform_bounds(tr, fminf(x0, x1), fminf(y0, y1), fmaxf(x0, x1), fmaxf(y0, y1), fb);
  tfl_box *o = &res->boxes[res->n_boxes++];
  *o = (tfl_box){ .x = fb[0], .y = fb[1], .w = fb[2], .h = fb[3], .class_id = class_id, .score = score };
  if (!s->unclamped) decoder_clamp_box(tr, o);
  if (!L->n_kpts) return TFL_OK;
  o->keypoints = malloc((size_t)L->n_kpts * sizeof *o->keypoints);
  if (!o->keypoints) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  o->n_keypoints = L->n_kpts;
  for (int k = 0; k < L->n_kpts; k++) {
    const float *p = first + (size_t)(L->kpt_offset + k * L->kpt_dim) * step;
    tfl_transform_point(tr, p[0] * sx, p[step] * sy, &o->keypoints[k].x, &o->keypoints[k].y);
    o->keypoints[k].score = L->kpt_dim == 3 ? p[2 * step] : -1.0f;
  }
  if (L->n_kpts == COCO_KEYPOINTS) {
    o->edges = coco_skeleton;
    o->n_edges = (int)(sizeof coco_skeleton / sizeof coco_skeleton[0] / 2);
  }
  return TFL_OK;
}

/* Appends an oriented box (input pixels): its centre and axes mapped through the
 * transform (the letterbox scales both axes alike, so the angle stays), the bounds of
 * its mapped corners as the box, clamped. */
static void emit_oriented(const yolo_state *s, tfl_results *res, const tfl_transform *tr, const pp_rbox *r,
                          int class_id, float score)
{
  const float co = cosf(r->angle), si = sinf(r->angle);
  /* the half axes through the transform's linear part */
  const float ux = 0.5f * r->w * co, uy = 0.5f * r->w * si, vx = -0.5f * r->h * si, vy = 0.5f * r->h * co;
  const float aux = ux * tr->scale_x + uy * tr->shear_x, auy = ux * tr->shear_y + uy * tr->scale_y;
  const float avx = vx * tr->scale_x + vy * tr->shear_x, avy = vx * tr->shear_y + vy * tr->scale_y;
  tfl_rbox fr;
  tfl_transform_point(tr, r->cx, r->cy, &fr.cx, &fr.cy);
  fr.w = 2.0f * hypotf(aux, auy);
  fr.h = 2.0f * hypotf(avx, avy);
  /* the same angle when the axes are scaled alike (atan2 returns it unchanged in
   * (-pi, pi], which holds the anchor-free head's [-pi/4, 3pi/4); YOLO26's raw angle
   * only modulo 2 pi, the same box) */
  fr.angle = tr->shear_x == 0.0f && tr->shear_y == 0.0f && tr->scale_x == tr->scale_y && tr->scale_x > 0.0f
               ? r->angle : atan2f(auy, aux);
  float xy[8];
  pp_rbox_corners(&(pp_rbox){ fr.cx, fr.cy, fr.w, fr.h, fr.angle }, xy);
  float x0 = xy[0], x1 = xy[0], y0 = xy[1], y1 = xy[1];
  for (int k = 1; k < 4; k++) {
    x0 = fminf(x0, xy[2 * k]), x1 = fmaxf(x1, xy[2 * k]);
    y0 = fminf(y0, xy[2 * k + 1]), y1 = fmaxf(y1, xy[2 * k + 1]);
  }
  tfl_box *o = &res->boxes[res->n_boxes++];
  *o = (tfl_box){ .x = x0, .y = y0, .w = x1 - x0, .h = y1 - y0, .class_id = class_id, .score = score,
                  .oriented = true, .rbox = fr };
  if (!s->unclamped) decoder_clamp_box(tr, o);
}

/* Segmentation: each kept box's own mask, as Ultralytics' process_mask computes it
 * before upsampling: sigmoid(coefficients . prototypes) at the prototypes' resolution,
 * over the texels under the box and one more around (tfl_box_mask), mapped to the frame
 * through the transform. The box crops it (a reader keeps what lies inside the box). */
static tfl_status build_mask(yolo_state *s, const tfl_tensor *pt, const tfl_transform *tr, tfl_results *res,
                             tfl_diag *diag)
{
  const tfl_yolo_layout *L = &s->L;
  const int pw = L->proto_w, ph = L->proto_h, nm = L->n_coeffs;
  const size_t plane = (size_t)pw * (size_t)ph;
  if (tfl_tensor_count(pt) != plane * (size_t)nm)
    return tfl_fail(diag, TFL_ERR_SHAPE, "yolo: the prototypes changed size (expected %d x %dx%d)", nm, pw, ph);
  const float *p = pt->data;
  if (pt->type != TFL_TYPE_FLOAT32) {
    for (size_t i = 0; i < plane * (size_t)nm; i++) s->pvals[i] = decoder_value(pt, i);
    p = s->pvals;
  }
  float fb[4];
  /* a prototype value of channel c at (x, y) */
  const size_t cstep = L->protos_channels_first ? plane : 1, xstep = L->protos_channels_first ? 1 : (size_t)nm;
  const float gx = (float)pw / (float)L->in_w, gy = (float)ph / (float)L->in_h;
  for (int b = 0; b < s->n_kept && b < res->n_boxes; b++) {
    const float *k = s->kept + 4 * (size_t)b, *c = s->coeffs[b];
    const float x1 = k[0] * gx, y1 = k[1] * gy, x2 = k[2] * gx, y2 = k[3] * gy;
    /* empty, NaN or outside the grid: no mask */
    if (!(x1 < x2 && y1 < y2) || x1 >= (float)pw || y1 >= (float)ph || x2 <= 0.0f || y2 <= 0.0f) continue;
    /* the box's own mask: the texels under it and one more around, uncropped, so that
     * sampling it between texel centres near the box's edges reads what upsampling the
     * whole prototype grid reads (Ultralytics upsamples, then crops to the box) */
    const int g0 = x1 > 1.0f ? (int)floorf(x1) - 1 : 0, h0 = y1 > 1.0f ? (int)floorf(y1) - 1 : 0;
    const int g1 = x2 < (float)(pw - 1) ? (int)ceilf(x2) + 1 : pw, h1 = y2 < (float)(ph - 1) ? (int)ceilf(y2) + 1 : ph;
    tfl_box_mask *bm = &res->boxes[b].mask;
    if (g1 <= g0 || h1 <= h0) continue;
    if (!(bm->prob = malloc((size_t)(g1 - g0) * (size_t)(h1 - h0) * sizeof(float))))
      return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
    bm->width = g1 - g0;
    bm->height = h1 - h0;
    tfl_transform_bounds(tr, (float)g0 / gx, (float)h0 / gy, (float)g1 / gx, (float)h1 / gy, fb);
    bm->frame_x = fb[0], bm->frame_y = fb[1], bm->frame_w = fb[2], bm->frame_h = fb[3];
    for (int y = h0; y < h1; y++)
      for (int x = g0; x < g1; x++) {
        const float *q = p + ((size_t)y * (size_t)pw + (size_t)x) * xstep;
        float dot = 0.0f;
        for (int j = 0; j < nm; j++) dot += c[(size_t)j * s->coeff_step] * q[(size_t)j * cstep];
        const float v = 1.0f / (1.0f + expf(-dot));
        bm->prob[(size_t)(y - h0) * (size_t)bm->width + (size_t)(x - g0)] = v;
      }
  }
  return TFL_OK;
}

static tfl_status yolo_run(void *state, const tfl_tensor *const *outputs, int n_outputs, const tfl_transform *tr,
                           const tfl_decoder_options *opt, tfl_results *res, tfl_diag *diag)
{
  yolo_state *s = state;
  const tfl_yolo_layout *L = &s->L;
  if (L->output >= n_outputs)
    return tfl_fail(diag, TFL_ERR_SHAPE, "yolo: output %d missing (%d given)", L->output, n_outputs);
  const tfl_tensor *t = outputs[L->output];
  if (tfl_tensor_count(t) != (size_t)L->n_boxes * (size_t)L->n_values)
    return tfl_fail(diag, TFL_ERR_SHAPE, "yolo: the head changed size (expected %d x %d values)", L->n_boxes,
                    L->n_values);
  const float *v = head_floats(s, t);
  const float sx = L->normalized ? (float)L->in_w : 1.0f, sy = L->normalized ? (float)L->in_h : 1.0f;
  res->boxes = calloc((size_t)s->cap, sizeof(tfl_box));
  if (!res->boxes) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  s->n_kept = 0;
  if (L->protos >= 0 && L->protos >= n_outputs)
    return tfl_fail(diag, TFL_ERR_SHAPE, "yolo: the prototypes (output %d) missing (%d given)", L->protos, n_outputs);
  if (L->head == YOLO_END2END) {
    /* already suppressed: the rows above the threshold, in order, as Ultralytics */
    for (int i = 0; i < L->n_boxes && res->n_boxes < s->cap; i++) {
      const float *r = v + (size_t)i * (size_t)L->n_values;
      if (!(r[4] > opt->threshold)) continue;
      const float c = r[5];
      const int class_id = c >= 0 && c < 65535 && (L->n_classes <= 0 || c < (float)L->n_classes) ? (int)c : -1;
      if (!isfinite(r[0] + r[1] + r[2] + r[3])) continue;
      if (L->oriented) {
        /* YOLO26's rotated rows: cx cy w h, score, class, the angle as its head gives it */
        const pp_rbox rb = { r[0] * sx, r[1] * sy, r[2] * sx, r[3] * sy, r[L->angle_offset] };
        if (isfinite(rb.angle)) emit_oriented(s, res, tr, &rb, class_id, r[4]);
        continue;
      }
      tfl_status st = emit(s, res, tr, r, 1, sx, sy, r[0] * sx, r[1] * sy, r[2] * sx, r[3] * sy, class_id, r[4], diag);
      if (st != TFL_OK) return st;
    }
    return L->protos >= 0 ? build_mask(s, outputs[L->protos], tr, res, diag) : TFL_OK;
  }
  const pp_yolo_params p = {
    .n_boxes = L->n_boxes, .n_classes = L->n_classes, .objectness = L->head == YOLO_V5,
    .box_step = L->values_first ? 1 : (size_t)L->n_values, .value_step = L->values_first ? (size_t)L->n_boxes : 1,
    .scale_x = sx, .scale_y = sy, .threshold = opt->threshold, .iou_threshold = opt->iou_threshold,
    .max_out = s->cap, .agnostic = opt->class_agnostic,
  };
  if (L->oriented) {
    const pp_yolo_obb_work ow = { s->cand, s->rboxes, s->classes, s->selected };
    const int m = pp_yolo_detect_obb(&p, v, &ow, s->found);
    for (int i = 0; i < m; i++) {
      const pp_rbox *r = &s->rboxes[s->found[i].index];
      if (!isfinite(r->cx + r->cy + r->w + r->h + r->angle)) continue;
      emit_oriented(s, res, tr, r, s->found[i].class_id, s->found[i].score);
    }
    return TFL_OK;
  }
  const pp_yolo_work w = { s->cand, s->boxes, s->classes, s->scratch, s->selected };
  const int m = s->multi_label ? pp_yolo_detect_multilabel(&p, v, &w, s->found) : pp_yolo_detect(&p, v, &w, s->found);
  for (int i = 0; i < m; i++) {
    const pp_yolo_found *f = &s->found[i];
    if (!isfinite(f->box.xmin + f->box.ymin + f->box.xmax + f->box.ymax)) continue;
    tfl_status st = emit(s, res, tr, v + (size_t)f->index * p.box_step, p.value_step, sx, sy, f->box.xmin,
                         f->box.ymin, f->box.xmax, f->box.ymax, f->class_id, f->score, diag);
    if (st != TFL_OK) return st;
  }
  return L->protos >= 0 ? build_mask(s, outputs[L->protos], tr, res, diag) : TFL_OK;
}

const decoder_impl decoder_yolo = { yolo_create, yolo_run, yolo_free };
