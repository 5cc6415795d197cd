/* tfl_decoder.c - picks and dispatches decoder families (see tfl_decoder.h). */
#include "decoder_impl.h"
#include "policy/tfl_family.h"
#include "runtime/tfl_half.h"

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

tfl_decoder_options tfl_decoder_defaults(void)
{
  tfl_decoder_options o = { 0 };
  o.threshold = 0.5f;
  o.max_results = 10;
  o.iou_threshold = 0.3f;
  o.anchors = TFL_ANCHORS_AUTO;
  return o;
}

tfl_decoder_kind tfl_decoder_pick(const tfl_graph *g, char *why, size_t why_size)
{
  tfl_family_match m;
  const tfl_family *f = tfl_family_identify(g, &m, why, why_size);
  return f ? f->decoder : TFL_DECODER_NONE;
}

static const decoder_impl *impl_of(tfl_decoder_kind k, const tfl_graph *g)
{
  char why[8];
  tfl_yolo_layout L;
  bool multi;
  if (k == TFL_DECODER_DETECTION && tfl_yolo_find(g, &L, why, sizeof why) != 0) return &decoder_yolo;
  if (k == TFL_DECODER_POSE && tfl_movenet_find(g, &multi, why, sizeof why)) return &decoder_movenet;
  switch (k) {
  case TFL_DECODER_CLASSIFICATION: return &decoder_classification;
  case TFL_DECODER_SEGMENTATION: return &decoder_segmentation;
  case TFL_DECODER_DETECTION: return &decoder_detection;
  case TFL_DECODER_POSE: return &decoder_pose;
  case TFL_DECODER_LANDMARKS: return &decoder_landmarks;
  case TFL_DECODER_TENSORS: return &decoder_tensors;
  case TFL_DECODER_AUTO:
  case TFL_DECODER_NONE: return NULL;
  }
  return NULL;
}

tfl_status tfl_decoder_create(tfl_decoder_kind kind, const tfl_graph *g,
                              const tfl_decoder_options *opt, tfl_decoder **out, tfl_diag *diag)
{
  *out = NULL;
  const decoder_impl *impl = impl_of(kind, g);
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

tfl_status tfl_decoder_run_mask(tfl_decoder *d, const uint8_t *bytes, int width, int height,
                                const tfl_transform *tr, tfl_results *res, tfl_diag *diag)
{
  tfl_results_clear(res);
  if (!d->impl->run_mask)
    return tfl_fail(diag, TFL_ERR_ARG, "a %s decoder takes no mask bytes", tfl_decoder_kind_name(d->kind));
  return d->impl->run_mask(d->state, bytes, width, height, tr, res, diag);
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
  case TFL_TYPE_FLOAT16: return tfl_half_to_float(((const uint16_t *)t->data)[i]);
  case TFL_TYPE_STRING:
  case TFL_TYPE_COMPLEX64:
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
