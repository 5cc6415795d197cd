/* tflinfer_run.c - see tflinfer_run.h */
#include "tflinfer_run.h"

#include "tflinfer_decode.h"
#include "tflinfer_gl.h"

GST_DEBUG_CATEGORY_EXTERN(gst_tflite_infer_debug);
#define GST_CAT_DEFAULT gst_tflite_infer_debug

static pix_format pix_format_of(GstVideoFormat f, gboolean *ok)
{
  *ok = TRUE;
  switch (f) {
  case GST_VIDEO_FORMAT_RGBA: return PIX_RGBA;
  case GST_VIDEO_FORMAT_RGBx: return PIX_RGBX;
  case GST_VIDEO_FORMAT_BGRx: return PIX_BGRX;
  case GST_VIDEO_FORMAT_BGRA: return PIX_BGRA;
  case GST_VIDEO_FORMAT_RGB: return PIX_RGB;
  case GST_VIDEO_FORMAT_BGR: return PIX_BGR;
  case GST_VIDEO_FORMAT_I420: return PIX_I420;
  case GST_VIDEO_FORMAT_YV12: return PIX_I420; /* its planes are passed as U, V */
  case GST_VIDEO_FORMAT_NV12: return PIX_NV12;
  case GST_VIDEO_FORMAT_NV21: return PIX_NV21;
  case GST_VIDEO_FORMAT_YUY2: return PIX_YUY2;
  case GST_VIDEO_FORMAT_UYVY: return PIX_UYVY;
  case GST_VIDEO_FORMAT_GRAY8: return PIX_GRAY8;
  default: *ok = FALSE; return PIX_RGBA;
  }
}

/* The system-memory path's job: the frame (mapped by the streaming thread) is converted
 * into its slot of the batch, on whichever thread runs the batch. */
typedef struct {
  tfl_job job;
  GstTfliteInfer *in;
  pix_frame frame;
  const tfl_transform *tr;
  tfl_results *res;
} sysmem_job;

static tfl_status sysmem_fill(tfl_job *job, tfl_interpreter *it, int slot)
{
  sysmem_job *j = (sysmem_job *)job;
  tfl_tensor in = tfl_tensor_slot(tfl_interpreter_input(it, 0), slot);
  pix_norm norm = j->in->model.norm;
  norm.pad = preprocess_fit_pad(j->in->fit);
  if (preprocess_frame(&j->frame, j->tr, &norm, &in) != 0) {
    g_strlcpy(job->error, "the model's input cannot take an image", sizeof job->error);
    return TFL_ERR_SHAPE;
  }
  return TFL_OK;
}

static tfl_status sysmem_consume(tfl_job *job, tfl_interpreter *it, int slot)
{
  sysmem_job *j = (sysmem_job *)job;
  return gst_tflite_infer_decode_slot(j->in, it, slot, j->tr, j->res, job->error, sizeof job->error);
}

static gboolean run_sysmem(GstTfliteInfer *in, GstBuffer *buf, const tfl_transform *trs, gint n, tfl_results *res,
                           GstTfliteNotice *fail)
{
  pix_frame frame_px = { 0 };
  gboolean known;
  frame_px.format = pix_format_of(GST_VIDEO_INFO_FORMAT(&in->info), &known);
  if (!known) {
    gst_tflite_notice_set(fail, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION, NULL, "Unsupported video format.");
    return FALSE;
  }
  GstVideoFrame frame;
  if (!gst_video_frame_map(&frame, &in->info, buf, GST_MAP_READ)) {
    /* an imported DMABuf as an external image has no pixels GL can read back */
    GstMemory *m = gst_buffer_n_memory(buf) ? gst_buffer_peek_memory(buf, 0) : NULL;
    gboolean oes = m && gst_is_gl_memory(m) &&
                   gst_gl_memory_get_texture_target((GstGLMemory *)m) == GST_GL_TEXTURE_TARGET_EXTERNAL_OES;
    gst_tflite_notice_set(fail, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED, NULL, "Could not map the video frame%s",
                          oes ? ": texture-target=external-oes frames cannot be read on the CPU (gl-start=cpu or a "
                                "node the CPU runs needs them; put glcolorconvert to texture-target=2D before)" : ".");
    return FALSE;
  }
  frame_px.width = GST_VIDEO_FRAME_WIDTH(&frame);
  frame_px.height = GST_VIDEO_FRAME_HEIGHT(&frame);
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&frame) && p < 3; p++) {
    frame_px.plane[p] = GST_VIDEO_FRAME_PLANE_DATA(&frame, p);
    frame_px.stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p);
  }
  if (GST_VIDEO_FRAME_FORMAT(&frame) == GST_VIDEO_FORMAT_YV12) {
    /* YV12 stores V before U: hand the planes over by component, as I420 */
    for (guint c = 1; c < 3; c++) {
      frame_px.plane[c] = GST_VIDEO_FRAME_COMP_DATA(&frame, c);
      frame_px.stride[c] = GST_VIDEO_FRAME_COMP_STRIDE(&frame, c);
    }
  }
  frame_px.yuv = gst_tflite_infer_yuv_of(&in->info);
  /* one job per region, handed over together so they run as one batch */
  sysmem_job *jobs = g_new0(sysmem_job, n);
  tfl_job **list = g_new(tfl_job *, n);
  for (gint i = 0; i < n; i++) {
    jobs[i] = (sysmem_job){ .in = in, .frame = frame_px, .tr = &trs[i], .res = &res[i] };
    jobs[i].job.fill = sysmem_fill;
    jobs[i].job.consume = sysmem_consume;
    jobs[i].job.host_outputs = TRUE;
    list[i] = &jobs[i].job;
  }
  tfl_status st = tfl_stream_run_many(in->stream, list, n);
  in->last_batch = n > 0 ? jobs[0].job.batch : 0;
  gst_video_frame_unmap(&frame);
  if (st != TFL_OK) {
    const char *why = "";
    for (gint i = 0; i < n && !why[0]; i++)
      if (jobs[i].job.status != TFL_OK) why = jobs[i].job.error;
    gst_tflite_notice_set(fail, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_FAILED, why, "Inference failed.");
  }
  g_free(list);
  g_free(jobs);
  return st == TFL_OK;
}

gboolean gst_tflite_infer_run(GstTfliteInfer *in, GstBuffer *buf, const tfl_transform *trs, gint n, gboolean readback,
                              tfl_results *res, GstBuffer **gl_mask, gint *queued, GstTfliteNotice *fail)
{
  if (queued) *queued = -1;
  gint64 t0 = g_get_monotonic_time();
  if (in->gl) {
    GError *err = NULL;
    if (!gst_tflite_infer_gl_run(in, buf, trs, n, readback, res, gl_mask, in->is_gl ? queued : NULL, &err)) {
      gst_tflite_notice_set(fail, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_FAILED, err ? err->message : "unknown",
                            "GL inference failed.");
      g_clear_error(&err);
      return FALSE;
    }
  } else if (!run_sysmem(in, buf, trs, n, res, fail)) {
    return FALSE;
  }
  in->last_latency_ms = (double)(g_get_monotonic_time() - t0) / 1000.0;
  GST_LOG_OBJECT(in->owner, "inference of %d input(s) took %.3f ms", n, in->last_latency_ms);
  return TRUE;
}

gboolean gst_tflite_infer_complete_held(GstTfliteInfer *in, GstTfliteCompleted *out, tfl_results *res,
                                        GstTfliteNotice *fail)
{
  *out = (GstTfliteCompleted){ 0 };
  GstTfliteHeldFrame *h = gst_tflite_queue_held(&in->queue);
  if (!h) return TRUE;
  GError *err = NULL;
  if (!gst_tflite_infer_gl_collect(in, h->queued, &h->tr, res, &err)) {
    gst_tflite_notice_set(fail, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_FAILED, err ? err->message : "unknown",
                          "GL inference failed.");
    g_clear_error(&err);
    tfl_results_clear(res);
    gst_tflite_held_clear(h);
    return FALSE;
  }
  /* the message says how long the frame waited for its results, and its own batch */
  in->last_latency_ms = (double)(g_get_monotonic_time() - h->t0) / 1000.0;
  *out = (GstTfliteCompleted){ h->buf, h->gl_mask, in->last_latency_ms, h->batch };
  h->buf = NULL;
  h->gl_mask = NULL;
  gst_tflite_held_clear(h);
  return TRUE;
}
