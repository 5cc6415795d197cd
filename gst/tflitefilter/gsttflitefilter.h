/* gsttflitefilter.h - runs a .tflite model on video frames and attaches the decoded
 * results (GstTfliteMeta) to each buffer; the video passes through unchanged. */
#ifndef GST_TFLITE_FILTER_H
#define GST_TFLITE_FILTER_H

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include "decoders/tfl_decoder.h"
#include "preprocess.h"
#include "runtime/tfl_interpreter.h"
#include "delegates/cpu/cpu_delegate.h"

G_BEGIN_DECLS

#define GST_TYPE_TFLITE_FILTER (gst_tflite_filter_get_type())
G_DECLARE_FINAL_TYPE(GstTfliteFilter, gst_tflite_filter, GST, TFLITE_FILTER, GstBaseTransform)

typedef enum {
  GST_TFLITE_DELEGATE_AUTO,
  GST_TFLITE_DELEGATE_GL,
  GST_TFLITE_DELEGATE_CPU,
} GstTfliteDelegate;

typedef enum {
  GST_TFLITE_PRECISION_FP16,
  GST_TFLITE_PRECISION_FP32,
} GstTflitePrecision;

struct _GstTfliteFilter {
  GstBaseTransform parent;

  /* properties, guarded by the object lock; `settings_changed` makes the streaming
   * thread rebuild the runtime at the next buffer */
  gchar *model_path;
  gchar *labels_path;
  GstTfliteDelegate delegate_kind;
  gint threads;
  GstTflitePrecision precision;
  gchar *cache_dir;
  tfl_decoder_kind decoder_kind;
  tfl_decoder_options decoder_opts;
  guint inference_interval;
  gboolean qos;
  gfloat norm_mean[3], norm_std[3];
  gboolean norm_set;
  fit_mode fit;
  gboolean gl_readback;        /* GL path: read masks back to the CPU on every frame */
  gboolean settings_changed;

  /* streaming state */
  GstVideoInfo info;
  gboolean is_gl;
  tfl_diag diag;               /* the runtime's errors and logs for this element (its debug
                                  category); streaming thread, or GL thread while it waits */
  tfl_graph *graph;
  tfl_interpreter *interp;
  tfl_delegate *cpu;           /* CPU delegate: the interpreter's fallback (owned) */
  tfl_delegate *accel;         /* GL delegate when the GL path runs */
  gpointer gl_context;         /* GstGLContext * the GL delegate lives on */
  gpointer gl_mask;            /* GL mask writer (gsttflitefilter_gl.c), GL thread only */
  gboolean gl_mask_valid;      /* its texture holds the last inference's mask */
  gboolean gl_out_on_gpu;      /* the delegate leaves the mask output on the GPU (GL thread) */
  gboolean gl_mask_sigmoid;    /* the mask output is logits: the mask shader applies a sigmoid */
  gboolean gl_frame_no_pixels; /* the last inference read nothing back: mask as texture only */
  tfl_decoder *decoder;
  GPtrArray *labels;
  pix_norm norm;
  guint64 frame_count;
  tfl_results last_results;    /* reused on skipped frames */
  gboolean have_last;
  GstClockTime earliest_time;  /* from QoS events */
  gdouble last_latency_ms;
};

G_END_DECLS

#endif
