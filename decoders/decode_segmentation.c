/* decode_segmentation.c - a mask from one [1, H, W, C] output: C == 1 gives a 0..1
 * probability per pixel (sigmoid applied when the output is logits), C > 1 the argmax
 * class per pixel (deeplab). The mask covers the frame region the input showed.
 *
 * Logits or probabilities is decided once, from the graph (tfl_decoder_mask_is_logits),
 * so the CPU decoder and the GL mask shader always agree, whatever a frame's values. */
#include "decoder_impl.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
  int w, h, c;
  bool logits;
} seg_state;

/* Ops through which a probability stays a probability (resampling, reshaping). */
static bool keeps_range(tfl_op op)
{
  return op == TFL_OP_RESIZE_BILINEAR || op == TFL_OP_RESIZE_NEAREST_NEIGHBOR || op == TFL_OP_RESHAPE ||
         op == TFL_OP_SQUEEZE || op == TFL_OP_STRIDED_SLICE || op == TFL_OP_MAX_POOL_2D ||
         op == TFL_OP_AVERAGE_POOL_2D;
}

bool tfl_decoder_output_is_logits(const tfl_graph *g, int tensor)
{
  for (int hops = 0; hops < 16 && tensor >= 0 && tensor < g->n_tensors; hops++) {
    const tfl_tensor *t = &g->tensors[tensor];
    /* 8-bit outputs quantized to 0..1 are probabilities */
    if (t->q.n && (t->type == TFL_TYPE_UINT8 || t->type == TFL_TYPE_INT8)) {
      float lo = t->q.scale[0] * (float)((t->type == TFL_TYPE_UINT8 ? 0 : -128) - t->q.zero_point[0]);
      float hi = t->q.scale[0] * (float)((t->type == TFL_TYPE_UINT8 ? 255 : 127) - t->q.zero_point[0]);
      return lo < -1e-3f || hi > 1.0f + 1e-2f;
    }
    if (t->producer < 0 || t->producer >= g->n_nodes) return true;
    const tfl_node *n = &g->nodes[t->producer];
    if (n->op == TFL_OP_LOGISTIC || n->op == TFL_OP_SOFTMAX) return false;
    if ((n->op == TFL_OP_CONV_2D || n->op == TFL_OP_DEPTHWISE_CONV_2D) && n->p.conv.act == TFL_ACT_SIGMOID)
      return false;
    if (!keeps_range(n->op) || n->n_in < 1) return true;
    tensor = n->in[0];
  }
  return true;
}

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
  s->logits = s->c == 1 && tfl_decoder_output_is_logits(g, g->outputs[0]);
  *state = s;
  return TFL_OK;
}

/* The mask's size, classes and place in the frame (kind and pixels: the caller's). */
static tfl_mask *seg_mask(const seg_state *s, const tfl_transform *tr, tfl_results *res)
{
  tfl_mask *m = &res->mask;
  m->width = s->w;
  m->height = s->h;
  m->n_classes = s->c == 1 ? 2 : s->c;
  /* a mask lies axis-aligned in the frame; one from a rotated region is placed in the
   * box holding that region */
  float fb[4];
  tfl_transform_bounds(tr, 0.0f, 0.0f, (float)tr->in_w, (float)tr->in_h, fb);
  m->frame_x = fb[0];
  m->frame_y = fb[1];
  m->frame_w = fb[2];
  m->frame_h = fb[3];
  return m;
}

static tfl_status seg_run(void *state, const tfl_tensor *const *outputs, int n_outputs,
                          const tfl_transform *tr, const tfl_decoder_options *opt, tfl_results *res, tfl_diag *diag)
{
  seg_state *s = state;
  const tfl_tensor *t = outputs[0];
  size_t px = (size_t)s->w * (size_t)s->h;
  if (n_outputs < 1 || tfl_tensor_count(t) != px * (size_t)s->c)
    return tfl_fail(diag, TFL_ERR_SHAPE, "segmentation: output 0 changed size");
  tfl_mask *m = seg_mask(s, tr, res);
  if (s->c == 1) {
    m->kind = TFL_MASK_PROB;
    if (!(m->prob = malloc(px * sizeof(float)))) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < px; i++) {
      float v = decoder_value(t, i);
      m->prob[i] = s->logits ? 1.0f / (1.0f + expf(-v)) : v;
    }
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

/* A device-made mask (tfl_decoder_run_mask): classes as they are, bytes / 255 as
 * probabilities. */
static tfl_status seg_run_mask(void *state, const uint8_t *bytes, int width, int height, const tfl_transform *tr,
                               tfl_results *res, tfl_diag *diag)
{
  seg_state *s = state;
  if (!bytes || width != s->w || height != s->h)
    return tfl_fail(diag, TFL_ERR_SHAPE, "segmentation: a %dx%d mask for a %dx%d output", width, height, s->w, s->h);
  size_t px = (size_t)s->w * (size_t)s->h;
  tfl_mask *m = seg_mask(s, tr, res);
  if (s->c == 1) {
    m->kind = TFL_MASK_PROB;
    if (!(m->prob = malloc(px * sizeof(float)))) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < px; i++) m->prob[i] = (float)bytes[i] * (1.0f / 255.0f);
    return TFL_OK;
  }
  m->kind = TFL_MASK_CLASSES;
  if (!(m->classes = malloc(px))) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  for (size_t i = 0; i < px; i++) /* a class the output does not have is the model's bug, not ours to pass on */
    m->classes[i] = bytes[i] < s->c ? bytes[i] : 0;
  return TFL_OK;
}

static void seg_free(void *state)
{
  free(state);
}

const decoder_impl decoder_segmentation = { seg_create, seg_run, seg_free, seg_run_mask };
