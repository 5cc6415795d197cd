/* gsttflitefilter_queue.h - gl-queue-depth=2: tflitefilter holds one frame so that the
 * CPU never waits for the GPU work of the frame it has just submitted.
 *
 * transform_ip runs frame N's inference with its read-back queued on the GPU
 * (gst_tflite_filter_gl_run's `queued`) and hands it here (submit) after collecting the
 * frame held since N-1 (complete: its fence, usually signalled by then, a map, the
 * decoder, its meta and message). generate_output then pushes N-1 and holds N. A frame
 * that does not queue (results reused, regions, no read-back) first completes the held
 * one, so frames leave in order and reused results are always the last ones. Serialized
 * events (EOS, caps, segment) and the DRAIN query push the held frame first; a flush and
 * stop drop it. The LATENCY query adds one frame. All on the streaming thread.
 */
#ifndef GST_TFLITE_FILTER_QUEUE_H
#define GST_TFLITE_FILTER_QUEUE_H

#include "gsttflitefilter.h"

G_BEGIN_DECLS

/* Whether the next inference may be queued (gl-queue-depth=2 on GL frames). */
gboolean gst_tflite_queue_wanted(GstTfliteFilter *self);
/* The frame transform_ip is running was queued as read-back `queued` (takes gl_mask). */
void gst_tflite_queue_submit(GstTfliteFilter *self, gint queued, const tfl_transform *tr, GstBuffer *gl_mask,
                             gint64 t0);
/* The held frame's results onto it; it is pushed before the next frame. FALSE after
 * posting an element error (the frame is dropped). TRUE when nothing is held. */
gboolean gst_tflite_queue_complete(GstTfliteFilter *self);
/* basetransform's generate_output: the frames in order, the queued one held back. */
GstFlowReturn gst_tflite_queue_generate_output(GstBaseTransform *trans, GstBuffer **out);
/* Pushes the held frame with its results (before a serialized event or a drain). */
GstFlowReturn gst_tflite_queue_drain(GstTfliteFilter *self);
/* Drops whatever is held (flush, stop). */
void gst_tflite_queue_flush(GstTfliteFilter *self);
/* Drops the frame whose results are still on the GPU (its read-back is the GL path's,
 * about to be freed); frames with their results stay. */
void gst_tflite_queue_drop_held(GstTfliteFilter *self);
/* A LATENCY query's answer from upstream plus the held frame's duration. */
void gst_tflite_queue_add_latency(GstTfliteFilter *self, GstQuery *query);

G_END_DECLS

#endif
