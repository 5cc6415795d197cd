/* decode_tensors.c - decoder=tensors: no interpretation, every output tensor's bytes
 * copied into the results with its name, type, shape and quantization, for applications
 * that post-process a model themselves (the GStreamer meta hands them on without a copy). */
#include <stdlib.h>
#include <string.h>

#include "decoder_impl.h"

tfl_status tfl_results_add_tensors(tfl_results *res, const tfl_tensor *const *outputs, int n_outputs, tfl_diag *diag)
{
  tfl_results_clear_tensors(res);
  if (n_outputs <= 0) return TFL_OK;
  res->tensors = calloc((size_t)n_outputs, sizeof *res->tensors);
  if (!res->tensors) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory for %d output tensors", n_outputs);
  for (int i = 0; i < n_outputs; i++) {
    const tfl_tensor *t = outputs[i];
    tfl_raw_tensor *r = &res->tensors[i];
    if (t->ndim > TFL_RAW_MAX_DIMS || tfl_type_size(t->type) == 0 || (t->bytes && !t->data)) {
      tfl_status st = tfl_fail(diag, TFL_ERR_UNSUPPORTED, "output %d ('%s'): a %s tensor of %d dims cannot be handed on raw",
                               i, t->name ? t->name : "", tfl_type_name(t->type), t->ndim);
      tfl_results_clear_tensors(res);
      return st;
    }
    r->name = t->name;
    r->index = i;
    r->type = (int)t->type;
    r->ndim = t->ndim;
    memcpy(r->dims, t->dims, sizeof(int32_t) * (size_t)t->ndim);
    if (t->q.n > 0) {
      r->scale = t->q.scale[0];
      r->zero_point = t->q.zero_point ? t->q.zero_point[0] : 0;
    }
    r->bytes = t->bytes;
    /* counted before the copy: a failure leaves every earlier one to tfl_results_clear */
    res->n_tensors = i + 1;
    if (t->bytes) {
      r->data = malloc(t->bytes);
      if (!r->data) {
        tfl_results_clear_tensors(res);
        return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory for output %d ('%s', %zu bytes)", i,
                        t->name ? t->name : "", t->bytes);
      }
      memcpy(r->data, t->data, t->bytes);
    }
  }
  return TFL_OK;
}

static tfl_status tensors_create(const tfl_graph *g, const tfl_decoder_options *opt, void **state, tfl_diag *diag)
{
  (void)opt;
  *state = NULL;
  for (int i = 0; i < g->n_outputs; i++) {
    const tfl_tensor *t = &g->tensors[g->outputs[i]];
    if (t->ndim > TFL_RAW_MAX_DIMS || tfl_type_size(t->type) == 0)
      return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "decoder 'tensors': output %d ('%s') is a %s tensor of %d dims (at most %d dims of a numeric type)",
                      i, t->name ? t->name : "", tfl_type_name(t->type), t->ndim, TFL_RAW_MAX_DIMS);
  }
  return TFL_OK;
}

static tfl_status tensors_run(void *state, const tfl_tensor *const *outputs, int n_outputs, const tfl_transform *tr,
                              const tfl_decoder_options *opt, tfl_results *res, tfl_diag *diag)
{
  (void)state;
  (void)tr;
  (void)opt;
  return tfl_results_add_tensors(res, outputs, n_outputs, diag);
}

static void tensors_free(void *state)
{
  (void)state;
}

const decoder_impl decoder_tensors = { tensors_create, tensors_run, tensors_free, NULL };
