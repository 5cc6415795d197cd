/* tflinfer_queue.c - see tflinfer_queue.h */
#include "tflinfer_queue.h"

void gst_tflite_queue_init(GstTfliteQueue *q)
{
  *q = (GstTfliteQueue){ 0 };
  q->submitted.queued = q->held.queued = -1;
}

void gst_tflite_queue_submit(GstTfliteQueue *q, gint queued, const tfl_transform *tr, GstBuffer *gl_mask, gint64 t0,
                             gint batch)
{
  g_assert(!q->submitted.buf && q->submitted.queued < 0);
  q->submitted = (GstTfliteHeldFrame){ .queued = queued, .tr = *tr, .gl_mask = gl_mask, .t0 = t0, .batch = batch };
}

void gst_tflite_held_clear(GstTfliteHeldFrame *h)
{
  gst_clear_buffer(&h->buf);
  gst_clear_buffer(&h->gl_mask);
  h->queued = -1;
}

GstBuffer *gst_tflite_queue_take_next(GstTfliteQueue *q)
{
  GstBuffer *b = q->next_out;
  q->next_out = NULL;
  return b;
}

void gst_tflite_queue_order(GstTfliteQueue *q, GstBuffer *cur, gboolean ok, GstBuffer **out)
{
  GstBuffer *ready = q->ready;
  q->ready = NULL;
  *out = cur;
  if (!ok || !cur) {
    /* transform_ip failed: nothing it queued or completed goes out */
    gst_clear_buffer(&ready);
    gst_clear_buffer(&cur);
    gst_tflite_held_clear(&q->submitted);
    *out = NULL;
    return;
  }
  if (q->submitted.queued >= 0) {
    /* cur's results are on the GPU: hold it, push the one before it (none at the start) */
    g_assert(!q->held.buf);
    q->held = q->submitted;
    q->held.buf = cur;
    q->submitted = (GstTfliteHeldFrame){ .queued = -1 };
    *out = ready;
  } else if (ready) {
    *out = ready;
    q->next_out = cur;
  }
}

GstTfliteHeldFrame *gst_tflite_queue_held(GstTfliteQueue *q)
{
  return q->held.buf ? &q->held : NULL;
}

void gst_tflite_queue_set_ready(GstTfliteQueue *q, GstBuffer *buf)
{
  g_assert(!q->ready);
  q->ready = buf;
}

GstBuffer *gst_tflite_queue_take_ready(GstTfliteQueue *q)
{
  GstBuffer *b = q->ready;
  q->ready = NULL;
  return b;
}

void gst_tflite_queue_flush(GstTfliteQueue *q)
{
  /* the read-back stays in its buffer; its fence goes when the buffer is next used */
  gst_tflite_held_clear(&q->held);
  gst_tflite_held_clear(&q->submitted);
  gst_clear_buffer(&q->ready);
  gst_clear_buffer(&q->next_out);
}

gboolean gst_tflite_queue_drop_held(GstTfliteQueue *q)
{
  gboolean had = q->held.buf != NULL;
  gst_tflite_held_clear(&q->held);
  return had;
}
