/* tfl_decoder.c - picks and dispatches decoder families (see tfl_decoder.h). */
#include "decoder_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tfl_decoder {
  tfl_decoder_kind kind;
  tfl_decoder_options opt;
  const decoder_impl *impl;
  void *state;
};

const char *tfl_decoder_kind_name(tfl_decoder_kind k)
{
  switch (k) {
  case TFL_DECODER_AUTO: return "auto";
  case TFL_DECODER_NONE: return "none";
  case TFL_DECODER_CLASSIFICATION: return "classification";
  case TFL_DECODER_DETECTION: return "detection";
  case TFL_DECODER_SEGMENTATION: return "segmentation";
  case TFL_DECODER_POSE: return "pose";
  case TFL_DECODER_LANDMARKS: return "landmarks";
  }
  return "unknown";
}

tfl_decoder_options tfl_decoder_defaults(void)
{
  tfl_decoder_options o = { 0 };
  o.threshold = 0.5f;
  o.max_results = 10;
  o.iou_threshold = 0.3f;
  o.anchors = TFL_ANCHORS_AUTO;
  return o;
}

static const tfl_tensor *output(const tfl_graph *g, int i)
{
  return i < g->n_outputs ? &g->tensors[g->outputs[i]] : NULL;
}

/* Elements after the leading 1s, e.g. [1,1,1,1001] -> 1001 in one dim. */
static int trailing_dims(const tfl_tensor *t, int32_t *dims)
{
  int n = 0, lead = 1;
  for (int d = 0; d < t->ndim; d++) {
    if (lead && t->dims[d] == 1 && d < t->ndim - 1) continue;
    lead = 0;
    dims[n++] = t->dims[d];
  }
  return n;
}

static bool has_op(const tfl_graph *g, tfl_op op)
{
  for (int i = 0; i < g->n_nodes; i++)
    if (g->nodes[i].op == op) return true;
  return false;
}

tfl_decoder_kind tfl_decoder_pick(const tfl_graph *g, char *why, size_t why_size)
{
  int32_t d0[TFL_MAX_DIMS];
  const tfl_tensor *o0 = output(g, 0);
  if (has_op(g, TFL_OP_DETECTION_POSTPROCESS)) {
    snprintf(why, why_size, "the model ends in TFLite_Detection_PostProcess");
    return TFL_DECODER_DETECTION;
  }
  if (has_op(g, TFL_OP_POSENET_DECODER)) {
    snprintf(why, why_size, "the model ends in PosenetDecoderOp");
    return TFL_DECODER_POSE;
  }
  if (!o0) {
    snprintf(why, why_size, "the model has no outputs");
    return TFL_DECODER_NONE;
  }
  int n0 = trailing_dims(o0, d0);
  if (g->n_outputs == 1 && n0 == 1 && d0[0] >= 2) {
    snprintf(why, why_size, "one output of %d scores", d0[0]);
    return TFL_DECODER_CLASSIFICATION;
  }
  if (g->n_outputs == 1 && o0->ndim == 4 && o0->dims[1] >= 8 && o0->dims[2] >= 8) {
    snprintf(why, why_size, "one %dx%d output with %d channel(s): a mask", o0->dims[2], o0->dims[1],
             o0->dims[3]);
    return TFL_DECODER_SEGMENTATION;
  }
  if (g->n_outputs == 2 && o0->ndim == 3 && output(g, 1)->ndim == 3 &&
      o0->dims[1] == output(g, 1)->dims[1]) {
    snprintf(why, why_size, "two outputs over %d anchors: boxes and scores", o0->dims[1]);
    return TFL_DECODER_DETECTION;
  }
  if (g->n_outputs == 3 && o0->ndim == 4 && o0->dims[3] == 17) {
    snprintf(why, why_size, "PoseNet heatmaps and offsets");
    return TFL_DECODER_POSE;
  }
  /* MediaPipe landmark models: pose 33*5 (+ more), hands 21*3, face 468*3 */
  if (n0 == 1 && (d0[0] == 195 || d0[0] == 63 || d0[0] == 1404)) {
    snprintf(why, why_size, "a landmark vector of %d values", d0[0]);
    return TFL_DECODER_LANDMARKS;
  }
  snprintf(why, why_size, "no decoder recognizes %d output(s)", g->n_outputs);
  return TFL_DECODER_NONE;
}

void tfl_decoder_input_range(tfl_decoder_kind kind, const tfl_graph *g, float *lo, float *hi)
{
  const tfl_tensor *o0 = output(g, 0);
  bool unit = false;
  switch (kind) {
  case TFL_DECODER_LANDMARKS: unit = true; break;
  /* one probability channel: MediaPipe's selfie segmentation; many classes: DeepLab */
  case TFL_DECODER_SEGMENTATION: unit = o0 && o0->ndim == 4 && o0->dims[3] <= 2; break;
  /* raw anchors: 2016 is the palm detector (18 coordinates per anchor) */
  case TFL_DECODER_DETECTION: unit = o0 && o0->ndim == 3 && o0->dims[1] == 2016; break;
  case TFL_DECODER_AUTO:
  case TFL_DECODER_NONE:
  case TFL_DECODER_CLASSIFICATION:
  case TFL_DECODER_POSE: break;
  }
  *lo = unit ? 0.0f : -1.0f;
  *hi = 1.0f;
}

static const decoder_impl *impl_of(tfl_decoder_kind k)
{
  switch (k) {
  case TFL_DECODER_CLASSIFICATION: return &decoder_classification;
  case TFL_DECODER_SEGMENTATION: return &decoder_segmentation;
  case TFL_DECODER_DETECTION: return &decoder_detection;
  case TFL_DECODER_POSE: return &decoder_pose;
  case TFL_DECODER_LANDMARKS: return &decoder_landmarks;
  case TFL_DECODER_AUTO:
  case TFL_DECODER_NONE: return NULL;
  }
  return NULL;
}

tfl_status tfl_decoder_create(tfl_decoder_kind kind, const tfl_graph *g,
                              const tfl_decoder_options *opt, tfl_decoder **out, tfl_diag *diag)
{
  *out = NULL;
  const decoder_impl *impl = impl_of(kind);
  if (!impl) return tfl_fail(diag, TFL_ERR_ARG, "decoder '%s' cannot be created", tfl_decoder_kind_name(kind));
  tfl_decoder *d = calloc(1, sizeof *d);
  if (!d) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  d->kind = kind;
  d->opt = opt ? *opt : tfl_decoder_defaults();
  d->impl = impl;
  tfl_status s = impl->create(g, &d->opt, &d->state, diag);
  if (s != TFL_OK) {
    free(d);
    return s;
  }
  *out = d;
  return TFL_OK;
}

tfl_status tfl_decoder_run(tfl_decoder *d, const tfl_tensor *const *outputs, int n_outputs,
                           const tfl_transform *tr, tfl_results *res, tfl_diag *diag)
{
  tfl_results_clear(res);
  return d->impl->run(d->state, outputs, n_outputs, tr, &d->opt, res, diag);
}

tfl_decoder_kind tfl_decoder_get_kind(const tfl_decoder *d)
{
  return d->kind;
}

void tfl_decoder_free(tfl_decoder *d)
{
  if (!d) return;
  d->impl->free(d->state);
  free(d);
}

float decoder_value(const tfl_tensor *t, size_t i)
{
  switch (t->type) {
  case TFL_TYPE_FLOAT32: return ((const float *)t->data)[i];
  case TFL_TYPE_UINT8:
    return t->q.n ? t->q.scale[0] * (float)((int)((const uint8_t *)t->data)[i] - t->q.zero_point[0])
                  : (float)((const uint8_t *)t->data)[i];
  case TFL_TYPE_INT8:
    return t->q.n ? t->q.scale[0] * (float)((int)((const int8_t *)t->data)[i] - t->q.zero_point[0])
                  : (float)((const int8_t *)t->data)[i];
  case TFL_TYPE_INT32: return (float)((const int32_t *)t->data)[i];
  case TFL_TYPE_INT64: return (float)((const int64_t *)t->data)[i];
  case TFL_TYPE_FLOAT16:
  case TFL_TYPE_STRING:
  case TFL_TYPE_BOOL:
  case TFL_TYPE_INT16:
  case TFL_TYPE_COUNT: return 0.0f;
  }
  return 0.0f;
}

void decoder_clamp_box(const tfl_transform *tr, tfl_box *b)
{
  float x0 = fmaxf(b->x, 0.0f), y0 = fmaxf(b->y, 0.0f);
  float x1 = fminf(b->x + b->w, tr->frame_w), y1 = fminf(b->y + b->h, tr->frame_h);
  b->x = x0;
  b->y = y0;
  b->w = fmaxf(x1 - x0, 0.0f);
  b->h = fmaxf(y1 - y0, 0.0f);
}
