/* tflinfer_run.h - one frame through the inference object: either path, and a held
 * frame's read-back collected (gl-queue-depth=2). Streaming thread. */
#ifndef GST_TFLITE_INFER_RUN_H
#define GST_TFLITE_INFER_RUN_H

#include "tflinfer.h"

G_BEGIN_DECLS

/* Runs the model once per transform trs[0..n-1] on buf (one batch where the engine
 * allows), results in res[i]; a GL mask only for n == 1 with gl_mask non-NULL. `readback`
 * (gl-readback): GL outputs come back every frame. queued non-NULL: the GL path may leave
 * the read-back on the GPU (*queued >= 0, res empty until gst_tflite_infer_complete_held).
 * FALSE with *fail set. */
gboolean gst_tflite_infer_run(GstTfliteInfer *in, GstBuffer *buf, const tfl_transform *trs, gint n, gboolean readback,
                              tfl_results *res, GstBuffer **gl_mask, gint *queued, GstTfliteNotice *fail);

/* The held frame (gl-queue-depth=2), if any, with its results collected: *buf (taken;
 * NULL: none held), res, *gl_mask (taken), its latency and batch. FALSE with *fail set
 * (the frame is dropped). */
typedef struct {
  GstBuffer *buf;
  GstBuffer *gl_mask;
  gdouble latency_ms;
  gint batch;
} GstTfliteCompleted;
gboolean gst_tflite_infer_complete_held(GstTfliteInfer *in, GstTfliteCompleted *out, tfl_results *res,
                                        GstTfliteNotice *fail);

G_END_DECLS

#endif
