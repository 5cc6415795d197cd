/* gsttflitemessages.h - tflitefilter's element messages on the bus (fields documented in
 * docs/bus-messages.md and in the element's documentation). */
#ifndef GST_TFLITE_MESSAGES_H
#define GST_TFLITE_MESSAGES_H

#include <gst/gst.h>

#include <gst/tflitemeta/gsttflitemeta.h>
#include "runtime/tfl_interpreter.h"

G_BEGIN_DECLS

/* "tflite-model", once the model is ready: decoder, delegate, node counts per delegate,
 * partitions, ops that fell back to the CPU, arena bytes, and the fields of `extra`
 * (borrowed; may be NULL: gl-start=cpu's). `accel` says whether an accelerator delegate
 * was asked for (then CPU nodes are a fallback, logged in GST_PERFORMANCE). */
void gst_tflite_post_model_message(GstElement *element, const gchar *model_path, const gchar *decoder_name,
                                   const gchar *delegate_name, const tfl_interpreter *interp, gboolean accel,
                                   guint64 engine_id, GstDebugCategory *perf, const GstStructure *extra);

/* "tflite-results", after an inference: the element's objects in `meta`, the frame's
 * timestamp, the inference's latency, how many frames (of all streams on the engine)
 * ran in that inference and the delegate that ran it ("gl" or "cpu"). */
void gst_tflite_post_results_message(GstElement *element, const GstTfliteMeta *meta, GQuark source,
                                     GstClockTime pts, gdouble latency_ms, gint batch, const gchar *delegate_name);

G_END_DECLS

#endif
