/* decode_classification.c - top-k classes from one score vector ([1, N] or [1,1,1,N]),
 * float or 8-bit. Logits (values outside 0..1) are turned into probabilities with a
 * softmax so `threshold` always means probability. */
#include "decoder_impl.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
  int n;          /* classes */
  float *scores;  /* scratch, n */
} cls_state;

static tfl_status cls_create(const tfl_graph *g, const tfl_decoder_options *opt, void **state, tfl_diag *diag)
{
  if (g->n_outputs < 1) return tfl_fail(diag, TFL_ERR_SHAPE, "classification: the model has no outputs");
  const tfl_tensor *t = &g->tensors[g->outputs[0]];
  size_t n = tfl_tensor_count(t);
  if (n < 2 || n > (1u << 24) || (t->ndim > 0 && (size_t)t->dims[t->ndim - 1] != n))
    return tfl_fail(diag, TFL_ERR_SHAPE, "classification: output 0 '%s' is not a score vector",
                     t->name ? t->name : "");
  if (t->type != TFL_TYPE_FLOAT32 && t->type != TFL_TYPE_UINT8 && t->type != TFL_TYPE_INT8)
    return tfl_fail(diag, TFL_ERR_SHAPE, "classification: output 0 has type %s", tfl_type_name(t->type));
  cls_state *s = calloc(1, sizeof *s);
  if (!s || !(s->scores = malloc(n * sizeof(float)))) {
    free(s);
    return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  }
  s->n = (int)n;
  *state = s;
  return TFL_OK;
}

static tfl_status cls_run(void *state, const tfl_tensor *const *outputs, int n_outputs,
                          const tfl_transform *tr, const tfl_decoder_options *opt, tfl_results *res, tfl_diag *diag)
{
  cls_state *s = state;
  if (n_outputs < 1 || tfl_tensor_count(outputs[0]) != (size_t)s->n)
    return tfl_fail(diag, TFL_ERR_SHAPE, "classification: output 0 changed size");
  float lo = INFINITY, hi = -INFINITY;
  for (int i = 0; i < s->n; i++) {
    s->scores[i] = decoder_value(outputs[0], (size_t)i);
    lo = fminf(lo, s->scores[i]);
    hi = fmaxf(hi, s->scores[i]);
  }
  if (lo < -1e-3f || hi > 1.0f + 1e-3f) { /* logits */
    double sum = 0;
    for (int i = 0; i < s->n; i++) sum += exp((double)(s->scores[i] - hi));
    for (int i = 0; i < s->n; i++) s->scores[i] = (float)(exp((double)(s->scores[i] - hi)) / sum);
  }
  int k = opt->max_results < s->n ? opt->max_results : s->n;
  res->classes = calloc((size_t)(k > 0 ? k : 1), sizeof(tfl_class));
  if (!res->classes) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  /* partial selection sort: k is small */
  for (int j = 0; j < k; j++) {
    int best = -1;
    for (int i = 0; i < s->n; i++) {
      if (s->scores[i] < opt->threshold || s->scores[i] < 0) continue;
      if (best < 0 || s->scores[i] > s->scores[best]) best = i;
    }
    if (best < 0) break;
    res->classes[res->n_classes++] = (tfl_class){ best, s->scores[best] };
    s->scores[best] = -1.0f; /* taken */
  }
  return TFL_OK;
}

static void cls_free(void *state)
{
  cls_state *s = state;
  if (s) free(s->scores);
  free(s);
}

const decoder_impl decoder_classification = { cls_create, cls_run, cls_free };
