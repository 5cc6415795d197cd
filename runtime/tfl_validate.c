/* tfl_validate.c - see tfl_validate.h.
 *
 * The generic rules (quantization of every tensor a node touches, input and output counts,
 * no zero-sized data tensor) run for every node; an op's own rules are the functions named
 * in its row of `rules`. Every message starts "node N (OP): " and names the tensor by its
 * position in the node, its index and its name, then the value and the range it missed.
 */
#include "tfl_validate.h"

#include "tfl_fused_act.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const tfl_graph *g;
  tfl_validate_stage stage;
  tfl_diag *diag;
  int ni;                 /* node being checked */
  const tfl_node *n;
} vctx;

/* One op's rules. Inputs [0, min_in) must be present (not -1); the rest are optional. */
typedef struct {
  tfl_op op;              /* the row's own op: rows are positional, checked on use */
  int8_t min_in, max_in;  /* max_in -1: any number (CONCATENATION) */
  int8_t min_out, max_out;
  uint32_t param_inputs;  /* bit i: input i holds parameters (shapes, axes, sizes) and may
                             be empty, e.g. RESHAPE to a scalar takes a shape of 0 values */
  tfl_status (*params)(const vctx *c);   /* option ranges (both stages); NULL: none */
  tfl_status (*shapes)(const vctx *c);   /* shape rules (PREPARE only); NULL: none */
} op_rule;

static const char *tname(const tfl_tensor *t)
{
  return t->name ? t->name : "";
}

static tfl_status node_fail(const vctx *c, tfl_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static tfl_status node_fail(const vctx *c, tfl_status st, const char *fmt, ...)
{
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return tfl_fail(c->diag, st, "node %d (%s): %s", c->ni, tfl_op_name(c->n->op), msg);
}

/* "input 1 (tensor 7, 'x')" */
static const char *where(const vctx *c, bool output, int k, char *buf, size_t len)
{
  int t = output ? c->n->out[k] : c->n->in[k];
  snprintf(buf, len, "%s %d (tensor %d, '%s')", output ? "output" : "input", k, t, tname(&c->g->tensors[t]));
  return buf;
}

static const tfl_tensor *input(const vctx *c, int k)
{
  return (k < c->n->n_in && c->n->in[k] >= 0) ? &c->g->tensors[c->n->in[k]] : NULL;
}

static const tfl_tensor *output(const vctx *c, int k)
{
  return (k < c->n->n_out && c->n->out[k] >= 0) ? &c->g->tensors[c->n->out[k]] : NULL;
}

/* ---- quantization ------------------------------------------------------------------ */

/* 8- and 16-bit tensors are read through their scale and zero point: every scale positive,
 * finite and normal (kernels divide by them and form ratios), every zero point inside the
 * type. Other types' quantization (int32 biases: in_scale * w_scale by convention) is not
 * read by any kernel, but must still be finite. */
static tfl_status check_quant(const vctx *c, bool output_side, int k)
{
  int ti = output_side ? c->n->out[k] : c->n->in[k];
  const tfl_tensor *t = &c->g->tensors[ti];
  char w[160];
  int32_t lo, hi;
  bool narrow = tfl_type_int_range(t->type, &lo, &hi);
  for (int i = 0; i < t->q.n; i++) {
    float s = t->q.scale[i];
    if (narrow ? !(s > 0.0f && isnormal(s)) : !isfinite(s))
      return node_fail(c, TFL_ERR_FORMAT, "%s: scale %d is %g, expected a positive finite number",
                       where(c, output_side, k, w, sizeof w), i, (double)s);
    if (narrow && (t->q.zero_point[i] < lo || t->q.zero_point[i] > hi))
      return node_fail(c, TFL_ERR_FORMAT, "%s: zero point %d is outside %s's range %d..%d",
                       where(c, output_side, k, w, sizeof w), (int)t->q.zero_point[i], tfl_type_name(t->type),
                       (int)lo, (int)hi);
  }
  if (t->q.n > 1 && (t->q.axis < 0 || t->q.axis >= t->ndim || t->dims[t->q.axis] != t->q.n))
    return node_fail(c, TFL_ERR_FORMAT, "%s: %d scales along axis %d of a %d-dim tensor",
                     where(c, output_side, k, w, sizeof w), t->q.n, t->q.axis, t->ndim);
  return TFL_OK;
}

/* ---- option rules (both stages) ------------------------------------------------------ */

static tfl_status conv_params(const vctx *c)
{
  const tfl_conv_params *p = &c->n->p.conv;
  if (p->stride_w < 1 || p->stride_h < 1 || p->stride_w > TFL_MAX_EXTENT || p->stride_h > TFL_MAX_EXTENT)
    return node_fail(c, TFL_ERR_FORMAT, "stride %dx%d is outside 1..%d", p->stride_w, p->stride_h, TFL_MAX_EXTENT);
  if (p->dilation_w < 1 || p->dilation_h < 1 || p->dilation_w > TFL_MAX_EXTENT || p->dilation_h > TFL_MAX_EXTENT)
    return node_fail(c, TFL_ERR_FORMAT, "dilation %dx%d is outside 1..%d", p->dilation_w, p->dilation_h,
                     TFL_MAX_EXTENT);
  if (c->n->op == TFL_OP_DEPTHWISE_CONV_2D && p->depth_multiplier < 0)
    return node_fail(c, TFL_ERR_FORMAT, "depth_multiplier %d is negative", p->depth_multiplier);
  return TFL_OK;
}

static tfl_status pool_params(const vctx *c)
{
  const tfl_pool_params *p = &c->n->p.pool;
  if (p->stride_w < 1 || p->stride_h < 1 || p->stride_w > TFL_MAX_EXTENT || p->stride_h > TFL_MAX_EXTENT)
    return node_fail(c, TFL_ERR_FORMAT, "stride %dx%d is outside 1..%d", p->stride_w, p->stride_h, TFL_MAX_EXTENT);
  if (p->filter_w < 1 || p->filter_h < 1 || p->filter_w > TFL_MAX_EXTENT || p->filter_h > TFL_MAX_EXTENT)
    return node_fail(c, TFL_ERR_FORMAT, "filter %dx%d is outside 1..%d", p->filter_w, p->filter_h, TFL_MAX_EXTENT);
  return TFL_OK;
}

static tfl_status resize_params(const vctx *c)
{
  /* TFLite: half-pixel centers with aligned corners is not a sampling rule */
  if (c->n->p.resize.align_corners && c->n->p.resize.half_pixel_centers)
    return node_fail(c, TFL_ERR_FORMAT, "align_corners and half_pixel_centers are both set");
  return TFL_OK;
}

/* The sequence ops: TFLite's exact input / output counts, and the inputs TFLite requires
 * that sit among optional ones (a CIFG LSTM omits input 1 but needs input 2). */
static tfl_status seq_params(const vctx *c)
{
  static const int8_t uni_lstm[] = {0, 2, 3, 4, 6, 7, 8, 13, 14, 15, 18, 19};
  static const int8_t bi_lstm[] = {0,  2,  3,  4,  6,  7,  8,  13, 14, 15, 19, 20,
                                   21, 23, 24, 25, 30, 31, 32, 35, 36, 37, 38};
  static const int8_t svdf[] = {0, 1, 2, 4};
  const tfl_node *n = c->n;
  const int8_t *req = NULL;
  int n_req = 0, in_a = n->n_in, in_b = n->n_in, outs = 1;
  if (n->op == TFL_OP_UNIDIRECTIONAL_SEQUENCE_LSTM) {
    req = uni_lstm, n_req = (int)sizeof uni_lstm, in_a = 20, in_b = 24;
  } else if (n->op == TFL_OP_BIDIRECTIONAL_SEQUENCE_LSTM) {
    req = bi_lstm, n_req = (int)sizeof bi_lstm, in_a = in_b = 48, outs = n->p.seq.merge_outputs ? 1 : 2;
  } else if (n->op == TFL_OP_BIDIRECTIONAL_SEQUENCE_RNN) {
    in_a = in_b = 12, outs = n->p.seq.merge_outputs ? 1 : 2;
  } else if (n->op == TFL_OP_SVDF) {
    req = svdf, n_req = (int)sizeof svdf, in_a = in_b = 5;
  }
  if (n->n_in != in_a && n->n_in != in_b)
    return node_fail(c, TFL_ERR_FORMAT, "%d inputs, expected %d%s%.0d", n->n_in, in_a, in_a != in_b ? " or " : "",
                     in_a != in_b ? in_b : 0);
  if (n->n_out != outs)
    return node_fail(c, TFL_ERR_FORMAT, "%d outputs, expected %d (merge_outputs %d)", n->n_out, outs,
                     (int)n->p.seq.merge_outputs);
  for (int k = 0; k < n_req; k++)
    if (n->in[req[k]] < 0) return node_fail(c, TFL_ERR_FORMAT, "input %d is missing (required)", req[k]);
  return TFL_OK;
}

static tfl_status lstm_params(const vctx *c)
{
  const tfl_lstm_params *p = &c->n->p.lstm;
  if (!(p->cell_clip >= 0.0f && isfinite(p->cell_clip)) || !(p->proj_clip >= 0.0f && isfinite(p->proj_clip)))
    return node_fail(c, TFL_ERR_FORMAT, "cell_clip %g, proj_clip %g: expected finite numbers >= 0",
                     (double)p->cell_clip, (double)p->proj_clip);
  return TFL_OK;
}

static tfl_status d2s_params(const vctx *c)
{
  int b = c->n->p.d2s.block_size;
  if (b < 1 || b > 46340) /* b * b must fit in an int */
    return node_fail(c, TFL_ERR_FORMAT, "block_size %d is outside 1..46340", b);
  return TFL_OK;
}

static tfl_status detection_params(const vctx *c)
{
  const tfl_detection_params *p = &c->n->p.detection;
  int64_t det = (int64_t)p->max_detections * p->max_classes_per_detection;
  if (p->max_detections < 1 || p->max_classes_per_detection < 1 || det > (1 << 20))
    return node_fail(c, TFL_ERR_FORMAT, "max_detections %d x max_classes_per_detection %d is outside 1..%d",
                     p->max_detections, p->max_classes_per_detection, 1 << 20);
  if (p->num_classes < 1 || p->detections_per_class < 1)
    return node_fail(c, TFL_ERR_FORMAT, "num_classes %d, detections_per_class %d: expected >= 1", p->num_classes,
                     p->detections_per_class);
  const float s[4] = {p->y_scale, p->x_scale, p->h_scale, p->w_scale};
  for (int i = 0; i < 4; i++)
    if (!(fabsf(s[i]) > 0.0f && isfinite(s[i])))
      return node_fail(c, TFL_ERR_FORMAT, "box scale %d is %g, expected a non-zero finite number", i, (double)s[i]);
  if (!(p->nms_iou_threshold >= 0.0f && p->nms_iou_threshold <= 1.0f) || !isfinite(p->nms_score_threshold))
    return node_fail(c, TFL_ERR_FORMAT, "nms_iou_threshold %g (expected 0..1), nms_score_threshold %g",
                     (double)p->nms_iou_threshold, (double)p->nms_score_threshold);
  return TFL_OK;
}

static tfl_status posenet_params(const vctx *c)
{
  const tfl_posenet_params *p = &c->n->p.posenet;
  if (p->max_detections < 1 || p->max_detections > 100000 || p->stride < 1 || p->stride > 1024)
    return node_fail(c, TFL_ERR_FORMAT, "max_detections %d (1..100000), stride %d (1..1024)", p->max_detections,
                     p->stride);
  if (!isfinite(p->score_threshold) || !(p->nms_radius >= 0.0f && isfinite(p->nms_radius)))
    return node_fail(c, TFL_ERR_FORMAT, "score_threshold %g, nms_radius %g: expected finite, radius >= 0",
                     (double)p->score_threshold, (double)p->nms_radius);
  return TFL_OK;
}

static tfl_status anchor_det_params(const vctx *c)
{
  const tfl_anchor_detection_params *p = &c->n->p.anchor_det;
  if (p->max_detections < 1 || p->max_detections > 100000)
    return node_fail(c, TFL_ERR_FORMAT, "max_detections %d, expected 1..100000", p->max_detections);
  const float s[4] = {p->y_scale, p->x_scale, p->h_scale, p->w_scale};
  for (int i = 0; i < 4; i++)
    if (!(fabsf(s[i]) > 0.0f && isfinite(s[i])))
      return node_fail(c, TFL_ERR_FORMAT, "box scale %d is %g, expected a non-zero finite number", i, (double)s[i]);
  if (!(p->iou_threshold >= 0.0f && p->iou_threshold <= 1.0f) ||
      !(p->score_threshold >= 0.0f && p->score_threshold <= 1.0f))
    return node_fail(c, TFL_ERR_FORMAT, "iou_threshold %g, score_threshold %g: expected 0..1",
                     (double)p->iou_threshold, (double)p->score_threshold);
  return TFL_OK;
}

static tfl_status softmax_params(const vctx *c)
{
  if (!isfinite(c->n->p.softmax.beta))
    return node_fail(c, TFL_ERR_FORMAT, "beta %g is not finite", (double)c->n->p.softmax.beta);
  return TFL_OK;
}

/* ---- shape rules (PREPARE) ------------------------------------------------------------ */

/* One spatial axis of a window op: size, window and stride products stay below
 * TFL_MAX_EXTENT, so kernels' index sums (oy * stride - pad + ky * dilation) fit an int. */
static tfl_status window_axis(const vctx *c, const char *axis, int64_t in, int64_t out, int64_t k, int64_t stride,
                              int64_t dil)
{
  int64_t eff = (k - 1) * dil + 1;
  if (in > TFL_MAX_EXTENT || out * stride > TFL_MAX_EXTENT || eff > TFL_MAX_EXTENT)
    return node_fail(c, TFL_ERR_SHAPE, "%s: input %lld, output %lld x stride %lld, window %lld (dilated) exceed %d",
                     axis, (long long)in, (long long)out, (long long)stride, (long long)eff, TFL_MAX_EXTENT);
  return TFL_OK;
}

static bool rank4(const tfl_tensor *t)
{
  return t && t->ndim == 4;
}

static tfl_status conv_shapes(const vctx *c)
{
  const tfl_tensor *x = input(c, 0), *w = input(c, 1), *y = output(c, 0);
  const tfl_conv_params *p = &c->n->p.conv;
  if (!rank4(x) || !rank4(w) || !rank4(y)) return TFL_OK; /* shape inference said why */
  tfl_status s = window_axis(c, "height", x->dims[1], y->dims[1], w->dims[1], p->stride_h, p->dilation_h);
  return s ? s : window_axis(c, "width", x->dims[2], y->dims[2], w->dims[2], p->stride_w, p->dilation_w);
}

static tfl_status pool_shapes(const vctx *c)
{
  const tfl_tensor *x = input(c, 0), *y = output(c, 0);
  const tfl_pool_params *p = &c->n->p.pool;
  if (!rank4(x) || !rank4(y)) return TFL_OK;
  tfl_status s = window_axis(c, "height", x->dims[1], y->dims[1], p->filter_h, p->stride_h, 1);
  return s ? s : window_axis(c, "width", x->dims[2], y->dims[2], p->filter_w, p->stride_w, 1);
}

/* Transposed convolutions scatter input pixel i to i * stride + window: that product, the
 * window and the output must stay below TFL_MAX_EXTENT. */
static tfl_status tconv_shapes(const vctx *c)
{
  bool tc = c->n->op == TFL_OP_TRANSPOSE_CONV;
  const tfl_tensor *x = input(c, tc ? 2 : 0), *w = input(c, 1), *y = output(c, 0);
  const tfl_conv_params *p = &c->n->p.conv;
  if (!rank4(x) || !rank4(w) || !rank4(y)) return TFL_OK;
  const int64_t in[2] = {x->dims[1], x->dims[2]}, k[2] = {w->dims[1], w->dims[2]}, out[2] = {y->dims[1], y->dims[2]};
  const int64_t st[2] = {p->stride_h, p->stride_w};
  for (int a = 0; a < 2; a++)
    if (in[a] * st[a] + k[a] > TFL_MAX_EXTENT || out[a] > TFL_MAX_EXTENT)
      return node_fail(c, TFL_ERR_SHAPE, "%s: input %lld x stride %lld + window %lld, output %lld exceed %d",
                       a ? "width" : "height", (long long)in[a], (long long)st[a], (long long)k[a],
                       (long long)out[a], TFL_MAX_EXTENT);
  return TFL_OK;
}

static tfl_status resize_shapes(const vctx *c)
{
  const tfl_tensor *x = input(c, 0), *y = output(c, 0);
  if (!rank4(x) || !rank4(y)) return TFL_OK;
  for (int d = 1; d <= 2; d++)
    if (x->dims[d] > TFL_MAX_EXTENT || y->dims[d] > TFL_MAX_EXTENT)
      return node_fail(c, TFL_ERR_SHAPE, "%s %d -> %d exceeds %d", d == 1 ? "height" : "width", x->dims[d], y->dims[d],
                       TFL_MAX_EXTENT);
  return TFL_OK;
}

/* regressors [B,A,4+2k] (k >= 1), scores [B,A,1], constant float anchors [A,4]; float */
static tfl_status anchor_det_shapes(const vctx *c)
{
  const tfl_tensor *r = input(c, 0), *sc = input(c, 1), *an = input(c, 2);
  if (r->ndim != 3 || r->dims[2] < 6 || (r->dims[2] - 4) % 2 || sc->ndim != 3 || sc->dims[0] != r->dims[0] ||
      sc->dims[1] != r->dims[1] || sc->dims[2] != 1 || an->ndim != 2 || an->dims[0] != r->dims[1] ||
      an->dims[1] != 4)
    return node_fail(c, TFL_ERR_SHAPE, "expected regressors [B,A,4+2k], scores [B,A,1] and anchors [A,4]");
  if (r->type != TFL_TYPE_FLOAT32 || sc->type != TFL_TYPE_FLOAT32 || an->type != TFL_TYPE_FLOAT32 || !an->is_const)
    return node_fail(c, TFL_ERR_UNSUPPORTED, "inputs %s, %s, %s%s: expected float32 and constant anchors",
                     tfl_type_name(r->type), tfl_type_name(sc->type), tfl_type_name(an->type),
                     an->is_const ? "" : " (not constant)");
  return TFL_OK;
}

/* SSD_CLASS_NMS: encodings [B,A,4], scores [B,A,C], anchors [A,4]; SSD_DETECTION:
 * selections [B,C-1,D,2], encodings, anchors. Float32, constant anchors. */
static tfl_status ssd_det_shapes(const vctx *c)
{
  const bool merge = c->n->op == TFL_OP_SSD_DETECTION;
  const tfl_tensor *x = input(c, merge ? 1 : 0), *y = input(c, merge ? 0 : 1), *an = input(c, 2);
  const int md = c->n->p.anchor_det.max_detections;
  const bool enc_ok = x->ndim == 3 && x->dims[2] == 4 && an->ndim == 2 && an->dims[0] == x->dims[1] && an->dims[1] == 4;
  const bool y_ok = merge ? y->ndim == 4 && y->dims[0] == x->dims[0] && y->dims[2] == md && y->dims[3] == 2
                          : y->ndim == 3 && y->dims[0] == x->dims[0] && y->dims[1] == x->dims[1] && y->dims[2] >= 2;
  if (!enc_ok || !y_ok)
    return node_fail(c, TFL_ERR_SHAPE, "expected box encodings [B,A,4], anchors [A,4] and %s",
                     merge ? "selections [B,C-1,max_detections,2]" : "scores [B,A,C], C >= 2");
  if (x->type != TFL_TYPE_FLOAT32 || y->type != TFL_TYPE_FLOAT32 || an->type != TFL_TYPE_FLOAT32 || !an->is_const)
    return node_fail(c, TFL_ERR_UNSUPPORTED, "inputs %s, %s, %s%s: expected float32 and constant anchors",
                     tfl_type_name(x->type), tfl_type_name(y->type), tfl_type_name(an->type),
                     an->is_const ? "" : " (not constant)");
  return TFL_OK;
}

static tfl_status yolo_det_params(const vctx *c)
{
  const tfl_yolo_detection_params *p = &c->n->p.yolo_det;
  if (p->head < 0 || p->head > 2 || p->n_classes < (p->head == 2 ? 0 : 1) || p->n_extra < 0 || p->extra_offset < 0 ||
      (p->kpt_dim != 0 && p->kpt_dim != 2 && p->kpt_dim != 3) || (p->kpt_dim && p->n_extra % p->kpt_dim) ||
      p->max_detections < 1 || p->max_detections > 100000)
    return node_fail(c, TFL_ERR_FORMAT, "YOLO layout unknown: head %d (0 anchor-free, 1 YOLOv5, 2 end-to-end), %d "
                     "classes, %d extra values from %d (keypoints of %d), %d detections (1..100000)", p->head,
                     p->n_classes, p->n_extra, p->extra_offset, p->kpt_dim, p->max_detections);
  if (!isfinite(p->scale_x) || !isfinite(p->scale_y) || !isfinite(p->threshold) || !isfinite(p->iou_threshold))
    return node_fail(c, TFL_ERR_FORMAT, "scale %g x %g, threshold %g, IoU threshold %g: expected finite numbers",
                     (double)p->scale_x, (double)p->scale_y, (double)p->threshold, (double)p->iou_threshold);
  return TFL_OK;
}

/* a head [B, boxes, values] (or values first) holding the classes and extra values */
static tfl_status yolo_det_shapes(const vctx *c)
{
  const tfl_yolo_detection_params *p = &c->n->p.yolo_det;
  const tfl_tensor *x = input(c, 0);
  if (x->ndim != 3)
    return node_fail(c, TFL_ERR_SHAPE, "the head has %d dims, expected [batch, boxes, values]", x->ndim);
  const int values = p->values_first ? x->dims[1] : x->dims[2];
  const int first = p->head == 2 ? 6 : p->head == 1 ? 5 + p->n_classes : 4 + p->n_classes;
  if (values < first || (p->n_extra > 0 && (p->extra_offset < first || p->extra_offset > values - p->n_extra)))
    return node_fail(c, TFL_ERR_SHAPE, "the head has %d values a box: fewer than %d (%d classes) or than %d extra "
                     "values from %d", values, first, p->n_classes, p->n_extra, p->extra_offset);
  if (x->type != TFL_TYPE_FLOAT32 && x->type != TFL_TYPE_FLOAT16 && x->type != TFL_TYPE_INT8 &&
      x->type != TFL_TYPE_UINT8)
    return node_fail(c, TFL_ERR_UNSUPPORTED, "the head is %s, expected float32, float16, int8 or uint8",
                     tfl_type_name(x->type));
  return TFL_OK;
}

static tfl_status landmark_params(const vctx *c)
{
  const tfl_landmark_params *p = &c->n->p.landmark;
  if (p->family < 0 || p->family > 2 || p->points < 1 || p->points > 100000 || p->stride < (p->visibility ? 4 : 2) ||
      p->stride > 64)
    return node_fail(c, TFL_ERR_FORMAT, "landmark layout unknown: family %d (0 pose, 1 hand, 2 face), %d points "
                     "(1..100000) of %d values (%d..64)", p->family, p->points, p->stride, p->visibility ? 4 : 2);
  return TFL_OK;
}

/* landmarks [B,...] of points * stride floats per item, one presence and handedness each */
static tfl_status landmark_shapes(const vctx *c)
{
  const tfl_landmark_params *p = &c->n->p.landmark;
  const tfl_tensor *lm = input(c, 0);
  const size_t b = lm->ndim > 0 && lm->dims[0] > 0 ? (size_t)lm->dims[0] : 1;
  if (tfl_tensor_count(lm) != b * (size_t)p->points * (size_t)p->stride)
    return node_fail(c, TFL_ERR_SHAPE, "landmarks hold %zu values, expected %zu items of %d points x %d",
                     tfl_tensor_count(lm), b, p->points, p->stride);
  for (int i = 0; i < c->n->n_in; i++) {
    const tfl_tensor *t = input(c, i);
    if (!t && i < 2) return node_fail(c, TFL_ERR_SHAPE, "input %d is missing", i);
    if (!t) continue;
    if (t->type != TFL_TYPE_FLOAT32)
      return node_fail(c, TFL_ERR_UNSUPPORTED, "input %d is %s, expected float32", i, tfl_type_name(t->type));
    if (i > 0 && tfl_tensor_count(t) != b)
      return node_fail(c, TFL_ERR_SHAPE, "input %d holds %zu values, expected one per item (%zu)", i,
                       tfl_tensor_count(t), b);
  }
  return TFL_OK;
}

/* ---- the table ------------------------------------------------------------------------ */

#define P(i) (1u << (i))
static const op_rule rules[] = {
  {TFL_OP_ADD, 2, 2, 1, 1, 0, NULL, NULL},
  {TFL_OP_AVERAGE_POOL_2D, 1, 1, 1, 1, 0, pool_params, pool_shapes},
  {TFL_OP_CONCATENATION, 1, -1, 1, 1, 0, NULL, NULL},
  {TFL_OP_CONV_2D, 2, 3, 1, 1, 0, conv_params, conv_shapes},
  {TFL_OP_DEPTHWISE_CONV_2D, 2, 3, 1, 1, 0, conv_params, conv_shapes},
  {TFL_OP_EXP, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_FULLY_CONNECTED, 2, 3, 1, 1, 0, NULL, NULL},
  {TFL_OP_LOGICAL_AND, 2, 2, 1, 1, 0, NULL, NULL},
  {TFL_OP_LOGISTIC, 1, 1, 1, 1, 0, NULL, NULL},
  /* full LSTM: 20 to 24 inputs (many optional); basic LSTM: 5 inputs, 4 outputs */
  {TFL_OP_LSTM, 1, 24, 1, 4, 0, lstm_params, NULL},
  {TFL_OP_MAX_POOL_2D, 1, 1, 1, 1, 0, pool_params, pool_shapes},
  {TFL_OP_MAXIMUM, 2, 2, 1, 1, 0, NULL, NULL},
  {TFL_OP_MINIMUM, 2, 2, 1, 1, 0, NULL, NULL},
  {TFL_OP_MUL, 2, 2, 1, 1, 0, NULL, NULL},
  {TFL_OP_PAD, 2, 2, 1, 1, P(1), NULL, NULL},
  {TFL_OP_PADV2, 2, 3, 1, 1, P(1), NULL, NULL},
  {TFL_OP_PRELU, 2, 2, 1, 1, 0, NULL, NULL},
  {TFL_OP_RELU, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_RELU6, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_RESHAPE, 1, 2, 1, 1, P(1), NULL, NULL},
  {TFL_OP_RESIZE_BILINEAR, 2, 2, 1, 1, P(1), resize_params, resize_shapes},
  {TFL_OP_SOFTMAX, 1, 1, 1, 1, 0, softmax_params, NULL},
  {TFL_OP_STRIDED_SLICE, 4, 4, 1, 1, P(1) | P(2) | P(3), NULL, NULL},
  {TFL_OP_SUB, 2, 2, 1, 1, 0, NULL, NULL},
  {TFL_OP_TRANSPOSE_CONV, 3, 4, 1, 1, P(0), conv_params, tconv_shapes},
  {TFL_OP_DEQUANTIZE, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_QUANTIZE, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_MEAN, 2, 2, 1, 1, P(1), NULL, NULL},
  {TFL_OP_SQUEEZE, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_HARD_SWISH, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_DEPTH_TO_SPACE, 1, 1, 1, 1, 0, d2s_params, NULL},
  {TFL_OP_DENSIFY, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_TANH, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_ARG_MAX, 2, 2, 1, 1, P(1), NULL, NULL},
  {TFL_OP_RESIZE_NEAREST_NEIGHBOR, 2, 2, 1, 1, P(1), resize_params, resize_shapes},
  {TFL_OP_DIV, 2, 2, 1, 1, 0, NULL, NULL},
  {TFL_OP_TRANSPOSE, 2, 2, 1, 1, P(1), NULL, NULL},
  {TFL_OP_SLICE, 3, 3, 1, 1, P(1) | P(2), NULL, NULL},
  {TFL_OP_SPLIT, 2, 2, 1, -1, P(0), NULL, NULL},
  {TFL_OP_SPLIT_V, 3, 3, 1, -1, P(1) | P(2), NULL, NULL},
  {TFL_OP_PACK, 1, -1, 1, 1, 0, NULL, NULL},
  {TFL_OP_UNPACK, 1, 1, 1, -1, 0, NULL, NULL},
  {TFL_OP_TILE, 2, 2, 1, 1, P(1), NULL, NULL},
  {TFL_OP_BROADCAST_TO, 2, 2, 1, 1, P(1), NULL, NULL},
  {TFL_OP_EXPAND_DIMS, 2, 2, 1, 1, P(1), NULL, NULL},
  {TFL_OP_REVERSE_V2, 2, 2, 1, 1, P(1), NULL, NULL},
  {TFL_OP_MIRROR_PAD, 2, 2, 1, 1, P(1), NULL, NULL},
  {TFL_OP_SPACE_TO_DEPTH, 1, 1, 1, 1, 0, d2s_params, NULL},
  {TFL_OP_SPACE_TO_BATCH_ND, 3, 3, 1, 1, P(1) | P(2), NULL, NULL},
  {TFL_OP_BATCH_TO_SPACE_ND, 3, 3, 1, 1, P(1) | P(2), NULL, NULL},
  {TFL_OP_REVERSE_SEQUENCE, 2, 2, 1, 1, P(1), NULL, NULL},
  {TFL_OP_MATRIX_DIAG, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_MATRIX_SET_DIAG, 2, 2, 1, 1, 0, NULL, NULL},
  {TFL_OP_DYNAMIC_UPDATE_SLICE, 3, 3, 1, 1, P(2), NULL, NULL},
  {TFL_OP_GATHER, 2, 2, 1, 1, P(1), NULL, NULL},
  {TFL_OP_GATHER_ND, 2, 2, 1, 1, P(1), NULL, NULL},
  {TFL_OP_SCATTER_ND, 3, 3, 1, 1, P(0) | P(2), NULL, NULL},
  {TFL_OP_SHAPE, 1, 1, 1, 1, P(0), NULL, NULL},
  {TFL_OP_RANK, 1, 1, 1, 1, P(0), NULL, NULL},
  {TFL_OP_FILL, 2, 2, 1, 1, P(0), NULL, NULL},
  {TFL_OP_ZEROS_LIKE, 1, 1, 1, 1, P(0), NULL, NULL},
  {TFL_OP_RANGE, 3, 3, 1, 1, P(0) | P(1) | P(2), NULL, NULL},
  {TFL_OP_ONE_HOT, 4, 4, 1, 1, P(1), NULL, NULL},
  {TFL_OP_CAST, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_SELECT, 3, 3, 1, 1, 0, NULL, NULL},
  {TFL_OP_SELECT_V2, 3, 3, 1, 1, 0, NULL, NULL},
  {TFL_OP_WHERE, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_UNIQUE, 1, 1, 2, 2, 0, NULL, NULL},
  {TFL_OP_TOPK_V2, 2, 2, 2, 2, P(1), NULL, NULL},
  {TFL_OP_CUMSUM, 2, 2, 1, 1, P(1), NULL, NULL},
  {TFL_OP_NON_MAX_SUPPRESSION_V4, 5, 5, 2, 2, P(2) | P(3) | P(4), NULL, NULL},
  {TFL_OP_NON_MAX_SUPPRESSION_V5, 6, 6, 3, 3, P(2) | P(3) | P(4) | P(5), NULL, NULL},
  {TFL_OP_EMBEDDING_LOOKUP, 2, 2, 1, 1, 0, NULL, NULL},
  {TFL_OP_SEGMENT_SUM, 2, 2, 1, 1, P(1), NULL, NULL},
  {TFL_OP_UNSORTED_SEGMENT_SUM, 3, 3, 1, 1, P(1) | P(2), NULL, NULL},
  {TFL_OP_UNSORTED_SEGMENT_PROD, 3, 3, 1, 1, P(1) | P(2), NULL, NULL},
  {TFL_OP_UNSORTED_SEGMENT_MAX, 3, 3, 1, 1, P(1) | P(2), NULL, NULL},
  {TFL_OP_UNSORTED_SEGMENT_MIN, 3, 3, 1, 1, P(1) | P(2), NULL, NULL},
  {TFL_OP_BROADCAST_ARGS, 2, 2, 1, 1, P(0) | P(1), NULL, NULL},
  {TFL_OP_SPARSE_TO_DENSE, 3, 4, 1, 1, P(1), NULL, NULL},
  {TFL_OP_ABS, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_NEG, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_SQRT, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_RSQRT, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_SQUARE, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_LOG, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_SIN, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_COS, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_FLOOR, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_CEIL, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_ROUND, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_SIGN, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_ELU, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_LEAKY_RELU, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_RELU_N1_TO_1, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_RELU_0_TO_1, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_GELU, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_LOGICAL_NOT, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_FAKE_QUANT, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_POW, 2, 2, 1, 1, 0, NULL, NULL},
  {TFL_OP_SQUARED_DIFFERENCE, 2, 2, 1, 1, 0, NULL, NULL},
  {TFL_OP_FLOOR_DIV, 2, 2, 1, 1, 0, NULL, NULL},
  {TFL_OP_FLOOR_MOD, 2, 2, 1, 1, 0, NULL, NULL},
  {TFL_OP_LESS, 2, 2, 1, 1, 0, NULL, NULL},
  {TFL_OP_LESS_EQUAL, 2, 2, 1, 1, 0, NULL, NULL},
  {TFL_OP_GREATER, 2, 2, 1, 1, 0, NULL, NULL},
  {TFL_OP_GREATER_EQUAL, 2, 2, 1, 1, 0, NULL, NULL},
  {TFL_OP_EQUAL, 2, 2, 1, 1, 0, NULL, NULL},
  {TFL_OP_NOT_EQUAL, 2, 2, 1, 1, 0, NULL, NULL},
  {TFL_OP_LOGICAL_OR, 2, 2, 1, 1, 0, NULL, NULL},
  {TFL_OP_ADD_N, 1, -1, 1, 1, 0, NULL, NULL},
  {TFL_OP_ATAN2, 2, 2, 1, 1, 0, NULL, NULL},
  {TFL_OP_BITWISE_XOR, 2, 2, 1, 1, 0, NULL, NULL},
  {TFL_OP_RIGHT_SHIFT, 2, 2, 1, 1, 0, NULL, NULL},
  {TFL_OP_SUM, 2, 2, 1, 1, P(1), NULL, NULL},
  {TFL_OP_REDUCE_PROD, 2, 2, 1, 1, P(1), NULL, NULL},
  {TFL_OP_REDUCE_MAX, 2, 2, 1, 1, P(1), NULL, NULL},
  {TFL_OP_REDUCE_MIN, 2, 2, 1, 1, P(1), NULL, NULL},
  {TFL_OP_REDUCE_ANY, 2, 2, 1, 1, P(1), NULL, NULL},
  {TFL_OP_REDUCE_ALL, 2, 2, 1, 1, P(1), NULL, NULL},
  {TFL_OP_ARG_MIN, 2, 2, 1, 1, P(1), NULL, NULL},
  {TFL_OP_LOG_SOFTMAX, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_L2_NORMALIZATION, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_LOCAL_RESPONSE_NORMALIZATION, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_L2_POOL_2D, 1, 1, 1, 1, 0, pool_params, pool_shapes},
  {TFL_OP_BATCH_MATMUL, 2, 2, 1, 1, 0, NULL, NULL},
  {TFL_OP_CONV_3D, 2, 3, 1, 1, 0, NULL, NULL},
  {TFL_OP_CONV_3D_TRANSPOSE, 3, 4, 1, 1, P(0), NULL, NULL},
  {TFL_OP_RFFT2D, 2, 2, 1, 1, P(1), NULL, NULL},
  {TFL_OP_REAL, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_IMAG, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_COMPLEX_ABS, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_BUCKETIZE, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_BITCAST, 1, 1, 1, 1, 0, NULL, NULL},
  {TFL_OP_UNIDIRECTIONAL_SEQUENCE_LSTM, 1, 24, 1, 1, 0, seq_params, NULL},
  {TFL_OP_BIDIRECTIONAL_SEQUENCE_LSTM, 1, 48, 1, 2, 0, seq_params, NULL},
  {TFL_OP_UNIDIRECTIONAL_SEQUENCE_RNN, 5, 5, 1, 1, 0, NULL, NULL},
  {TFL_OP_BIDIRECTIONAL_SEQUENCE_RNN, 9, 12, 1, 2, 0, seq_params, NULL},
  {TFL_OP_RNN, 5, 5, 1, 1, 0, NULL, NULL},
  {TFL_OP_SVDF, 3, 5, 1, 1, 0, seq_params, NULL},
  {TFL_OP_WHILE, 0, -1, 0, -1, 0, NULL, NULL},
  {TFL_OP_IF, 1, -1, 0, -1, 0, NULL, NULL},
  {TFL_OP_CALL_ONCE, 0, 0, 0, 0, 0, NULL, NULL},
  {TFL_OP_CONV2D_TRANSPOSE_BIAS, 3, 3, 1, 1, 0, conv_params, tconv_shapes},
  {TFL_OP_DETECTION_POSTPROCESS, 3, 3, 4, 4, 0, detection_params, NULL},
  {TFL_OP_POSENET_DECODER, 3, 3, 4, 4, 0, posenet_params, NULL},
  {TFL_OP_ANCHOR_DETECTION, 3, 3, 4, 4, 0, anchor_det_params, anchor_det_shapes},
  {TFL_OP_SSD_CLASS_NMS, 3, 3, 1, 1, 0, anchor_det_params, ssd_det_shapes},
  {TFL_OP_SSD_DETECTION, 3, 3, 4, 4, 0, anchor_det_params, ssd_det_shapes},
  {TFL_OP_LANDMARK_DECODE, 2, 3, 1, 1, 0, landmark_params, landmark_shapes},
  {TFL_OP_YOLO_DETECTION, 1, 1, 1, 1, 0, yolo_det_params, yolo_det_shapes},
};
#undef P
_Static_assert(sizeof rules / sizeof rules[0] == TFL_OP_COUNT, "every op needs a validation row");

/* ---- the pass --------------------------------------------------------------------------- */

static tfl_status check_node(vctx *c)
{
  const tfl_node *n = c->n;
  if ((int)n->op < 0 || n->op >= TFL_OP_COUNT || rules[n->op].op != n->op)
    return tfl_fail(c->diag, TFL_ERR_FORMAT, "node %d: op %d has no validation rule", c->ni, (int)n->op);
  const op_rule *r = &rules[n->op];
  if (n->n_in < r->min_in || (r->max_in >= 0 && n->n_in > r->max_in))
    return node_fail(c, TFL_ERR_FORMAT, "%d inputs, expected %d..%d", n->n_in, r->min_in, r->max_in);
  if (n->n_out < r->min_out || (r->max_out >= 0 && n->n_out > r->max_out))
    return node_fail(c, TFL_ERR_FORMAT, "%d outputs, expected %d..%d", n->n_out, r->min_out, r->max_out);
  for (int k = 0; k < n->n_in; k++) {
    int t = n->in[k];
    if (t < -1 || t >= c->g->n_tensors)
      return node_fail(c, TFL_ERR_FORMAT, "input %d is tensor %d (graph has %d)", k, t, c->g->n_tensors);
    if (t < 0 && k < r->min_in) return node_fail(c, TFL_ERR_FORMAT, "input %d is missing (required)", k);
  }
  for (int k = 0; k < n->n_out; k++)
    if (n->out[k] < 0 || n->out[k] >= c->g->n_tensors)
      return node_fail(c, TFL_ERR_FORMAT, "output %d is tensor %d (graph has %d)", k, n->out[k], c->g->n_tensors);
  tfl_status s;
  for (int k = 0; k < n->n_in; k++)
    if (n->in[k] >= 0 && (s = check_quant(c, false, k))) return s;
  for (int k = 0; k < n->n_out; k++)
    if ((s = check_quant(c, true, k))) return s;
  if (r->params && (s = r->params(c))) return s;
  /* a fused activation TFLite's kernel refuses: no delegate may make up a meaning for it */
  const char *why = NULL;
  if (tfl_fused_act_rule_of(c->g, n, &why) == TFL_FUSED_ACT_REFUSE)
    return node_fail(c, TFL_ERR_FORMAT, "fused activation %s: %s", tfl_act_name(tfl_fused_act_of(n)), why);
  if (c->stage != TFL_VALIDATE_PREPARE) return TFL_OK;

  /* shapes are final now: data tensors hold at least one value */
  char w[160];
  for (int k = 0; k < n->n_in; k++) {
    const tfl_tensor *t = input(c, k);
    /* param_inputs has 32 bits; BIDIRECTIONAL_SEQUENCE_LSTM has 48 inputs */
    if (t && !(k < 32 && (r->param_inputs >> k & 1u)) && tfl_tensor_count(t) == 0)
      return node_fail(c, TFL_ERR_SHAPE, "%s has no elements (a dimension is 0)", where(c, false, k, w, sizeof w));
  }
  for (int k = 0; k < n->n_out; k++)
    if (tfl_tensor_count(output(c, k)) == 0)
      return node_fail(c, TFL_ERR_SHAPE, "%s has no elements (a dimension is 0)", where(c, true, k, w, sizeof w));
  if (r->shapes && (s = r->shapes(c))) return s;
  return TFL_OK;
}

tfl_status tfl_validate(const tfl_graph *g, tfl_validate_stage stage, tfl_diag *diag)
{
  for (int i = 0; i < g->n_inputs; i++) {
    int t = g->inputs[i];
    if (t < 0 || t >= g->n_tensors)
      return tfl_fail(diag, TFL_ERR_FORMAT, "graph input %d is tensor %d (graph has %d)", i, t, g->n_tensors);
    /* callers write inputs: a constant's bytes may be the read-only model mapping */
    if (g->tensors[t].is_const)
      return tfl_fail(diag, TFL_ERR_FORMAT, "graph input %d (tensor %d, '%s') is a constant", i, t,
                      tname(&g->tensors[t]));
  }
  for (int i = 0; i < g->n_outputs; i++)
    if (g->outputs[i] < 0 || g->outputs[i] >= g->n_tensors)
      return tfl_fail(diag, TFL_ERR_FORMAT, "graph output %d is tensor %d (graph has %d)", i, g->outputs[i],
                      g->n_tensors);
  vctx c = {.g = g, .stage = stage, .diag = diag};
  for (int ni = 0; ni < g->n_nodes; ni++) {
    if (g->nodes[ni].dead) continue;
    c.ni = ni;
    c.n = &g->nodes[ni];
    tfl_status s = check_node(&c);
    if (s != TFL_OK) return s;
  }
  return TFL_OK;
}
