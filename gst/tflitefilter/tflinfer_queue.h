/* tflinfer_queue.h - gl-queue-depth=2's bookkeeping: tflitefilter holds one frame so that
 * the CPU never waits for the GPU work of the frame it has just submitted.
 *
 * transform_ip runs frame N's inference with its read-back queued on the GPU
 * (gst_tflite_infer_gl_run's `queued`) and submits it here, after collecting the frame
 * held since N-1 (gst_tflite_infer_complete_held: its fence, usually signalled by then, a
 * map, the decoder; the element adds its meta and message and marks it ready).
 * generate_output then pushes N-1 and holds N (gst_tflite_queue_order). A frame that does
 * not queue (results reused, regions, no read-back) first completes the held one, so
 * frames leave in order and reused results are always the last ones. Serialized events
 * (EOS, caps, segment) and the DRAIN query push the held frame first; a flush and stop
 * drop it. The LATENCY query adds one frame. All on the streaming thread.
 *
 * Buffers only: no GL, no element; the read-back a held frame names belongs to the GL
 * path (tflinfer_gl.c). */
#ifndef GST_TFLITE_INFER_QUEUE_H
#define GST_TFLITE_INFER_QUEUE_H

#include <gst/gst.h>

#include "decoders/tfl_results.h"

G_BEGIN_DECLS

/* A frame whose results are still on the GPU. */
typedef struct {
  GstBuffer *buf;              /* the frame, its meta waiting for the results (ref); NULL: none */
  gint queued;                 /* its read-back (gst_tflite_infer_gl_run) */
  tfl_transform tr;
  GstBuffer *gl_mask;          /* its mask texture, if any (ref) */
  gint64 t0;                   /* when its inference started (g_get_monotonic_time) */
  gint batch;                  /* frames in its run */
} GstTfliteHeldFrame;

typedef struct {
  GstTfliteHeldFrame submitted; /* queued by transform_ip, buf still basetransform's */
  GstTfliteHeldFrame held;     /* queued a frame ago, not pushed yet */
  GstBuffer *ready;            /* the held frame with its results: pushed before the next one */
  GstBuffer *next_out;         /* a frame that waits for `ready` to be pushed first */
} GstTfliteQueue;

void gst_tflite_queue_init(GstTfliteQueue *q);
/* The frame transform_ip is running was queued as read-back `queued` (takes gl_mask). */
void gst_tflite_queue_submit(GstTfliteQueue *q, gint queued, const tfl_transform *tr, GstBuffer *gl_mask, gint64 t0,
                             gint batch);
/* A frame that waited for `ready` (generate_output returns it first), or NULL. */
GstBuffer *gst_tflite_queue_take_next(GstTfliteQueue *q);
/* basetransform's output `cur` (NULL or !ok: transform_ip failed) in order: *out is what
 * goes out now (NULL: nothing); a queued frame is held. */
void gst_tflite_queue_order(GstTfliteQueue *q, GstBuffer *cur, gboolean ok, GstBuffer **out);
/* The held frame (NULL: none) and, once its results are on it, it is ready. */
GstTfliteHeldFrame *gst_tflite_queue_held(GstTfliteQueue *q);
void gst_tflite_queue_set_ready(GstTfliteQueue *q, GstBuffer *buf);
GstBuffer *gst_tflite_queue_take_ready(GstTfliteQueue *q);
void gst_tflite_held_clear(GstTfliteHeldFrame *h);
/* Drops whatever is held (flush, stop). */
void gst_tflite_queue_flush(GstTfliteQueue *q);
/* Drops the frame whose results are still on the GPU; TRUE when there was one. */
gboolean gst_tflite_queue_drop_held(GstTfliteQueue *q);

G_END_DECLS

#endif
