/* landmark_op.c - a MediaPipe landmark model's decoding appended to its graph as
 * LANDMARK_DECODE (tfl_decoder_append_postprocess, tfl_decoder.h), so the delegate that
 * runs the heads runs it too and only the decoded row comes back, not the model's other
 * outputs (BlazePose's segmentation, heatmap and world landmarks, the hand model's world
 * landmarks), which the graph then no longer computes (tfl_pass_prune). */
#include "decoder_impl.h"

#include <stdlib.h>

#include "postproc/landmarks.h"

tfl_status decoder_append_landmarks(tfl_graph *g, bool *appended, tfl_diag *diag)
{
  *appended = false;
  if (g->n_outputs < 2) return tfl_fail(diag, TFL_ERR_SHAPE, "landmarks: expected a landmark and a score output");
  const tfl_tensor *lm = &g->tensors[g->outputs[0]];
  const int32_t batch = lm->ndim > 0 && lm->dims[0] > 0 ? lm->dims[0] : 1;
  const size_t n = tfl_tensor_count(lm) / (size_t)batch;
  pp_lm_layout l;
  if (!pp_lm_layout_for(n, &l))
    return tfl_fail(diag, TFL_ERR_SHAPE, "landmarks: landmark layout unknown: output 0 has %zu values an item (pose "
                    "195, hand 63, face 1404)", n);
  /* the hand model's third output is its handedness; BlazePose's is a segmentation */
  const int n_in = l.family == PP_LM_HAND && g->n_outputs >= 3 ? 3 : 2;
  int32_t in[3];
  for (int i = 0; i < n_in; i++) {
    in[i] = g->outputs[i];
    /* quantized heads stay with the decoder, which dequantizes them */
    if (g->tensors[in[i]].type != TFL_TYPE_FLOAT32) return TFL_OK;
  }
  const int32_t dims[2] = {batch, pp_lm_row(l.n_points + l.n_aux, l.visibility)};
  const int32_t out = tfl_graph_add_tensor(g, "landmark_decode/row", TFL_TYPE_FLOAT32, 2, dims);
  int32_t *outputs = malloc(sizeof *outputs);
  const tfl_params p = {.landmark = {l.family, l.n_points + l.n_aux, l.stride, l.visibility, l.presence_logit}};
  if (out < 0 || !outputs || tfl_graph_add_node(g, TFL_OP_LANDMARK_DECODE, in, n_in, &out, 1, &p) < 0) {
    free(outputs);
    return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  }
  outputs[0] = out;
  free(g->outputs);
  g->outputs = outputs;
  g->n_outputs = 1;
  *appended = true;
  return TFL_OK;
}
