/* tflinfer_decode.h - the inference object's outputs -> results: the decoder on a slot of
 * the batch, keep-tensors, the tensors' ids, and what the frame's input takes
 * (transform, YUV). Called by both paths and the regions; calls nothing of theirs. */
#ifndef GST_TFLITE_INFER_DECODE_H
#define GST_TFLITE_INFER_DECODE_H

#include <gst/tflitemeta/gsttflitemeta.h>
#include "tflinfer.h"

G_BEGIN_DECLS

/* For the paths' jobs (on the engine's thread): decodes slot `slot` of the runner's
 * outputs into res; on failure a sentence in error. */
tfl_status gst_tflite_infer_decode_slot(GstTfliteInfer *in, tfl_interpreter *it, int slot, const tfl_transform *tr,
                                        tfl_results *res, char *error, size_t error_size);
/* After decoding (outs: the graph's outputs on the CPU): with keep-tensors, their bytes
 * copied into res too (decoder=tensors has them already); on failure a sentence in error. */
tfl_status gst_tflite_infer_keep_tensors(GstTfliteInfer *in, const tfl_tensor *const *outs, int n, tfl_results *res,
                                         char *error, size_t error_size);
/* The .modelinfo's output ids onto the meta's tensors from index `first` on. */
void gst_tflite_infer_tensor_ids(const GstTfliteInfer *in, GstTfliteMeta *meta, guint first);

/* The whole-frame transform of the model's input for w x h frames. */
tfl_transform gst_tflite_infer_frame_transform(const GstTfliteInfer *in, gint w, gint h);
/* The frame's YUV matrix and range for preprocessing (both paths use the same). */
pix_yuv gst_tflite_infer_yuv_of(const GstVideoInfo *info);

G_END_DECLS

#endif
