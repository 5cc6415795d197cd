/* tflinfer_decode.c - see tflinfer_decode.h */
#include "tflinfer_decode.h"

tfl_status gst_tflite_infer_decode_slot(GstTfliteInfer *in, tfl_interpreter *it, int slot, const tfl_transform *tr,
                                        tfl_results *res, char *error, size_t error_size)
{
  if (!in->decoder) return TFL_OK;
  int n = tfl_interpreter_output_count(it);
  tfl_tensor views[16];
  const tfl_tensor *outs[16];
  if (n > 16) n = 16;
  for (int i = 0; i < n; i++) {
    views[i] = tfl_tensor_slot(tfl_interpreter_output(it, i), slot);
    outs[i] = &views[i];
  }
  tfl_status st = tfl_decoder_run(in->decoder, outs, n, tr, res, &in->diag);
  if (st != TFL_OK) {
    g_snprintf(error, error_size, "decoding the outputs: %s", in->diag.error);
    return st;
  }
  return gst_tflite_infer_keep_tensors(in, outs, n, res, error, error_size);
}

tfl_status gst_tflite_infer_keep_tensors(GstTfliteInfer *in, const tfl_tensor *const *outs, int n, tfl_results *res,
                                         char *error, size_t error_size)
{
  if (!in->tensors_out || tfl_decoder_get_kind(in->decoder) == TFL_DECODER_TENSORS) return TFL_OK;
  tfl_status st = tfl_results_add_tensors(res, outs, n, &in->diag);
  if (st != TFL_OK) g_snprintf(error, error_size, "keep-tensors: %s", in->diag.error);
  return st;
}

void gst_tflite_infer_tensor_ids(const GstTfliteInfer *in, GstTfliteMeta *meta, guint first)
{
  const GstTfliteModelInfo *mi = &in->model.info;
  if (!in->model.has_info) return;
  for (guint i = first; i < meta->tensors->len; i++) {
    GstTfliteTensor *t = &g_array_index(meta->tensors, GstTfliteTensor, i);
    if ((gint)t->index < mi->n_outputs && mi->output_ids[t->index]) t->id = g_quark_from_string(mi->output_ids[t->index]);
  }
}

tfl_transform gst_tflite_infer_frame_transform(const GstTfliteInfer *in, gint w, gint h)
{
  const tfl_graph *g = in->model.graph;
  const tfl_tensor *t = &g->tensors[g->inputs[0]];
  return preprocess_transform(w, h, t->dims[2], t->dims[1], in->fit);
}

/* The frame's YUV matrix and range as preprocessing takes them (unknown: BT.601, limited
 * range for YUV; GStreamer gives GRAY8 full range by default). */
pix_yuv gst_tflite_infer_yuv_of(const GstVideoInfo *info)
{
  pix_yuv y = { 0.0f, 0.0f, info->colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255 };
  gdouble kr, kb;
  if (gst_video_color_matrix_get_Kr_Kb(info->colorimetry.matrix, &kr, &kb)) y.kr = (float)kr, y.kb = (float)kb;
  return y;
}

