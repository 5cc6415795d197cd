/* gsttflitefilter.h - runs a .tflite model on video frames and attaches the decoded
 * results (GstTfliteMeta objects) to each buffer; the video passes through unchanged. */
#ifndef GST_TFLITE_FILTER_H
#define GST_TFLITE_FILTER_H

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include "decoders/tfl_decoder.h"
#include "gsttfliteenums.h"
#include "gsttflitemodel.h"
#include "preprocess/preprocess.h"
#include "runtime/tfl_interpreter.h"

G_BEGIN_DECLS

#define GST_TYPE_TFLITE_FILTER (gst_tflite_filter_get_type())
G_DECLARE_FINAL_TYPE(GstTfliteFilter, gst_tflite_filter, GST, TFLITE_FILTER, GstBaseTransform)

typedef struct _GstTfliteFilterGl GstTfliteFilterGl; /* the GL path's state (gsttflitefilter_gl.c) */

struct _GstTfliteFilter {
  GstBaseTransform parent;

  /* properties, guarded by the object lock; `settings_changed` makes the streaming
   * thread rebuild the runtime at the next buffer */
  GstTfliteModelSettings model_settings;
  GstTfliteDelegate delegate_kind;
  gint threads;
  GstTflitePrecision precision;
  gchar *cache_dir;
  tfl_decoder_options decoder_opts;
  guint inference_interval;
  gboolean qos;
  fit_mode fit;
  gboolean gl_readback;        /* GL path: read masks back to the CPU on every frame */
  gboolean settings_changed;

  /* streaming state */
  GstVideoInfo info;
  gboolean is_gl;
  GQuark source;               /* the element's name: objects' source */
  GstTfliteModel model;        /* labels, normalization, decoder kind; graph until built */
  tfl_graph *graph;            /* the graph the interpreter runs (owned) */
  tfl_interpreter *interp;
  tfl_decoder *decoder;
  GstTfliteFilterGl *gl;       /* non-NULL while the GL path runs */
  tfl_delegate *cpu;           /* the CPU delegate (the interpreter's fallback) */
  tfl_diag diag;               /* the runtime's errors and log lines for this element */
  guint64 frame_count;
  tfl_results last_results;    /* reused on skipped frames */
  GstBuffer *last_gl_mask;     /* its GL mask, if any (ref) */
  gboolean have_last;
  GstClockTime earliest_time;  /* from QoS events */
  gdouble last_latency_ms;
};

/* (Re)creates self->cpu with `threads` threads; FALSE with self->diag's error on failure. */
gboolean gst_tflite_filter_make_cpu(GstTfliteFilter *self, int threads);

G_END_DECLS

#endif
