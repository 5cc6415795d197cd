/* gsttflitefilter_queue.c - see gsttflitefilter_queue.h */
#include "gsttflitefilter_queue.h"

#include "gsttflitefilter_gl.h"

GST_DEBUG_CATEGORY_EXTERN(gst_tflite_filter_debug);
#define GST_CAT_DEFAULT gst_tflite_filter_debug

gboolean gst_tflite_queue_wanted(GstTfliteFilter *self)
{
  GST_OBJECT_LOCK(self);
  guint depth = self->gl_queue_depth;
  GST_OBJECT_UNLOCK(self);
  return depth > 1 && self->gl && self->is_gl;
}

void gst_tflite_queue_submit(GstTfliteFilter *self, gint queued, const tfl_transform *tr, GstBuffer *gl_mask,
                             gint64 t0)
{
  g_assert(!self->submitted.buf && self->submitted.queued < 0);
  self->submitted = (GstTfliteHeldFrame){ .queued = queued, .tr = *tr, .gl_mask = gl_mask, .t0 = t0,
                                          .batch = self->last_batch };
}

static void held_clear(GstTfliteHeldFrame *h)
{
  gst_clear_buffer(&h->buf);
  gst_clear_buffer(&h->gl_mask);
  h->queued = -1;
}

gboolean gst_tflite_queue_complete(GstTfliteFilter *self)
{
  GstTfliteHeldFrame *h = &self->held;
  if (!h->buf) return TRUE;
  g_assert(!self->ready);
  tfl_results res = { 0 };
  GError *err = NULL;
  if (!gst_tflite_filter_gl_collect(self, h->queued, &h->tr, &res, &err)) {
    GST_ELEMENT_ERROR(self, LIBRARY, FAILED, ("GL inference failed."), ("%s", err ? err->message : "unknown"));
    g_clear_error(&err);
    tfl_results_clear(&res);
    held_clear(h);
    return FALSE;
  }
  /* the message says how long the frame waited for its results, and its own batch */
  gint last_batch = self->last_batch;
  self->last_latency_ms = (double)(g_get_monotonic_time() - h->t0) / 1000.0;
  self->last_batch = h->batch;
  gst_tflite_filter_add_run_results(self, h->buf, &res, h->gl_mask);
  self->last_batch = last_batch;
  self->ready = h->buf;
  h->buf = NULL;
  held_clear(h);
  return TRUE;
}

GstFlowReturn gst_tflite_queue_generate_output(GstBaseTransform *trans, GstBuffer **out)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(trans);
  *out = NULL;
  if (self->next_out) {
    *out = self->next_out;
    self->next_out = NULL;
    return GST_FLOW_OK;
  }
  GstBaseTransformClass *parent = g_type_class_peek_parent(G_OBJECT_GET_CLASS(trans));
  GstFlowReturn ret = parent->generate_output(trans, out);
  GstBuffer *cur = *out, *ready = self->ready;
  self->ready = NULL;
  if (ret != GST_FLOW_OK || !cur) {
    /* transform_ip failed: nothing it queued or completed goes out */
    gst_clear_buffer(&ready);
    gst_clear_buffer(&cur);
    held_clear(&self->submitted);
    *out = NULL;
    return ret;
  }
  if (self->submitted.queued >= 0) {
    /* cur's results are on the GPU: hold it, push the one before it (none at the start) */
    g_assert(!self->held.buf);
    self->held = self->submitted;
    self->held.buf = cur;
    self->submitted = (GstTfliteHeldFrame){ .queued = -1 };
    *out = ready;
  } else if (ready) {
    *out = ready;
    self->next_out = cur;
  }
  return GST_FLOW_OK;
}

GstFlowReturn gst_tflite_queue_drain(GstTfliteFilter *self)
{
  if (!self->held.buf) return GST_FLOW_OK;
  if (!gst_tflite_queue_complete(self)) return GST_FLOW_ERROR;
  GstBuffer *buf = self->ready;
  self->ready = NULL;
  GST_LOG_OBJECT(self, "pushing the held frame %" GST_TIME_FORMAT, GST_TIME_ARGS(GST_BUFFER_PTS(buf)));
  return gst_pad_push(GST_BASE_TRANSFORM_SRC_PAD(self), buf);
}

void gst_tflite_queue_flush(GstTfliteFilter *self)
{
  /* the read-back stays in its buffer; its fence goes when the buffer is next used */
  held_clear(&self->held);
  held_clear(&self->submitted);
  gst_clear_buffer(&self->ready);
  gst_clear_buffer(&self->next_out);
}

void gst_tflite_queue_drop_held(GstTfliteFilter *self)
{
  if (self->held.buf) GST_WARNING_OBJECT(self, "the runtime goes: the held frame is dropped without results");
  held_clear(&self->held);
}

void gst_tflite_queue_add_latency(GstTfliteFilter *self, GstQuery *query)
{
  GST_OBJECT_LOCK(self);
  guint depth = self->gl_queue_depth;
  GST_OBJECT_UNLOCK(self);
  if (depth < 2) return;
  gint n = GST_VIDEO_INFO_FPS_N(&self->info), d = GST_VIDEO_INFO_FPS_D(&self->info);
  if (n <= 0 || d <= 0) {
    GST_DEBUG_OBJECT(self, "gl-queue-depth=%u: no frame rate (%d/%d), no frame's latency to add", depth, n, d);
    return;
  }
  GstClockTime frame = gst_util_uint64_scale_int_ceil(GST_SECOND, d, n) * (depth - 1);
  gboolean live;
  GstClockTime min, max;
  gst_query_parse_latency(query, &live, &min, &max);
  gst_query_set_latency(query, live, min + frame, GST_CLOCK_TIME_IS_VALID(max) ? max + frame : max);
  GST_DEBUG_OBJECT(self, "latency + %" GST_TIME_FORMAT " (one frame held)", GST_TIME_ARGS(frame));
}
