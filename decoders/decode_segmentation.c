/* decode_segmentation.c - a mask from one [1, H, W, C] output: C == 1 gives a 0..1
 * probability per pixel (sigmoid applied when the values are logits), C > 1 the argmax
 * class per pixel (deeplab). The mask covers the frame region the input showed. */
#include "decoder_impl.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
  int w, h, c;
} seg_state;

static tfl_status seg_create(const tfl_graph *g, const tfl_decoder_options *opt, void **state, tfl_diag *diag)
{
  if (g->n_outputs < 1) return tfl_fail(diag, TFL_ERR_SHAPE, "segmentation: the model has no outputs");
  const tfl_tensor *t = &g->tensors[g->outputs[0]];
  if (t->ndim != 4 || t->dims[0] != 1 || t->dims[1] < 1 || t->dims[2] < 1 || t->dims[3] < 1 ||
      t->dims[3] > 255)
    return tfl_fail(diag, TFL_ERR_SHAPE, "segmentation: output 0 '%s' is not [1, H, W, C<=255]",
                     t->name ? t->name : "");
  if (t->type != TFL_TYPE_FLOAT32 && t->type != TFL_TYPE_UINT8 && t->type != TFL_TYPE_INT8)
    return tfl_fail(diag, TFL_ERR_SHAPE, "segmentation: output 0 has type %s", tfl_type_name(t->type));
  seg_state *s = malloc(sizeof *s);
  if (!s) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  s->h = t->dims[1];
  s->w = t->dims[2];
  s->c = t->dims[3];
  *state = s;
  return TFL_OK;
}

static tfl_status seg_run(void *state, const tfl_tensor *const *outputs, int n_outputs,
                          const tfl_transform *tr, const tfl_decoder_options *opt, tfl_results *res, tfl_diag *diag)
{
  seg_state *s = state;
  const tfl_tensor *t = outputs[0];
  size_t px = (size_t)s->w * (size_t)s->h;
  if (n_outputs < 1 || tfl_tensor_count(t) != px * (size_t)s->c)
    return tfl_fail(diag, TFL_ERR_SHAPE, "segmentation: output 0 changed size");
  tfl_mask *m = &res->mask;
  m->width = s->w;
  m->height = s->h;
  m->n_classes = s->c == 1 ? 2 : s->c;
  m->frame_x = tr->off_x;
  m->frame_y = tr->off_y;
  m->frame_w = (float)tr->in_w * tr->scale_x;
  m->frame_h = (float)tr->in_h * tr->scale_y;
  if (s->c == 1) {
    m->kind = TFL_MASK_PROB;
    if (!(m->prob = malloc(px * sizeof(float)))) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
    int logits = 0;
    for (size_t i = 0; i < px; i++) {
      m->prob[i] = decoder_value(t, i);
      logits |= m->prob[i] < -1e-3f || m->prob[i] > 1.0f + 1e-3f;
    }
    if (logits)
      for (size_t i = 0; i < px; i++) m->prob[i] = 1.0f / (1.0f + expf(-m->prob[i]));
    return TFL_OK;
  }
  m->kind = TFL_MASK_CLASSES;
  if (!(m->classes = malloc(px))) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  for (size_t i = 0; i < px; i++) {
    size_t base = i * (size_t)s->c;
    int best = 0;
    float bv = decoder_value(t, base);
    for (int c = 1; c < s->c; c++) {
      float v = decoder_value(t, base + (size_t)c);
      if (v > bv) bv = v, best = c;
    }
    m->classes[i] = (uint8_t)best;
  }
  return TFL_OK;
}

static void seg_free(void *state)
{
  free(state);
}

const decoder_impl decoder_segmentation = { seg_create, seg_run, seg_free };
