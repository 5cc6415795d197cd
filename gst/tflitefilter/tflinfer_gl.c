/* tflinfer_gl.c - tflitefilter's GL path (see tflinfer_gl.h).
 *
 * Per frame: the streaming thread maps the frame's memory for GL (the texture name; it
 * runs a pending upload, never a CPU copy), waits on the producer's sync meta, takes a
 * mask texture from the pool and hands the engine a job. On the engine's GL thread the
 * job binds the texture to its slot of the batch (the delegate's texture-input shader
 * samples it into the model input), and after the batch's inference exports its slot of
 * the segmentation output into the mask texture and fences it (the mask buffer's
 * GstGLSyncMeta): a consumer waits for its own frame's mask and nothing else. The meta
 * holds the mask buffer, so the mask stays valid until every frame using it is freed,
 * whatever queues lie between the elements.
 *
 * Unless gl-readback is set, masks stay on the GPU after the first frame: the outputs
 * are not read back and the inference does not wait for the GPU.
 *
 * Queued (gl-queue-depth=2; tflinfer_queue.c holds the frame): a frame whose
 * results come back to the CPU does not wait for them. The job leaves the outputs on the
 * GPU (host_outputs FALSE), and after the inference exports what the decoder reads into
 * a device buffer (runtime/tfl_buffer.h; one of two, used in turn) and fences it: a
 * segmentation's mask bytes (gl-readback; TFL_CONVERT_CLASS_U8), for every other
 * decoder each output's slot as its host bytes (TFL_CONVERT_NONE, all outputs
 * in one buffer). The streaming thread goes on with the next frame and collects these
 * bytes a frame later (gst_tflite_infer_gl_collect: tfl_buffer_map waits for the
 * fence, usually signalled by then; the decoder on views over the copied bytes). The
 * runtime's GL delegate does all of the read-back: no GL call here reads results. A
 * model whose outputs the delegate cannot queue (made on the CPU, read by another node, quantized) is read back
 * with each inference instead, from the first frame that finds out on.
 *
 * Frames in system memory with delegate=gl: the element uploads each frame itself, on the
 * engine's context (the element's own, from the GL share group): GstGLUpload, then
 * GstGLColorConvert to RGBA for the other formats. Their outputs always come back (the
 * buffers downstream hold no textures) and no mask textures are made. */
#include "tflinfer_gl.h"

#include <gst/gl/gl.h>
#include <gst/gl/gstglfuncs.h>
#include <string.h>

#include "runtime/tfl_buffer.h"

#include "gsttfliteengine.h"
#include "tflinfer_decode.h"

GST_DEBUG_CATEGORY_EXTERN(gst_tflite_infer_debug);
#define GST_CAT_DEFAULT gst_tflite_infer_debug

#define MAX_QUEUED_OUTPUTS 16 /* as gst_tflite_infer_decode_slot */

/* A queued read-back: the results of a frame in flight, in a device buffer of the GL
 * delegate's that holds its own fence (GL thread only). */
typedef struct {
  tfl_buffer *buf;             /* made with the GL path, grown once the outputs are planned */
  gboolean mask;               /* a mask's bytes (rows padded to 4), else the outputs */
} queued_readback;

struct _GstTfliteInferGl {
  GstGLContext *context;       /* the engine's (ref) */
  tfl_delegate *delegate;      /* the engine's GL delegate (borrowed): makes the buffers */
  /* the runtime's buffers (runtime/tfl_buffer.h), made with the GL path on the GL thread
   * (make_buffers) and reused: the frame imported for binding (the delegate copies it at
   * each bind, so one serves every slot), the mask texture an export writes (re-imported
   * a frame), gl-readback's mask bytes on the host */
  tfl_buffer *image, *mask_image, *host_mask;
  const guint8 *host_mask_bytes; /* host_mask mapped for good (a host buffer's memory) */
  tfl_diag diag;               /* their errors (GL thread) */
  guint8 *collected;           /* collect's copy of a read-back (grown, reused) */
  gsize collected_size;
  gboolean segmentation;       /* the decoder makes masks */
  gboolean logits;             /* its one-channel mask is logits */
  gint mask_w, mask_h;
  GstBufferPool *pool;         /* GRAY8 GL textures of the mask size; NULL: CPU masks only */
  gboolean checked;            /* one frame read back and decoded on the CPU already */
  /* system-memory frames: their upload to an RGBA texture on `context` */
  GstGLUpload *upload;
  GstGLColorConvert *convert;  /* NULL for RGBA frames */
  /* queued read-backs: the results of a frame in flight, its fence (GL thread only) */
  queued_readback queued[2];
  gint queued_next;            /* the one the next queued frame takes */
  /* queued outputs: each graph output's slot in a read-back buffer (set by the jobs) */
  gint n_outputs;
  gsize out_off[MAX_QUEUED_OUTPUTS], out_bytes[MAX_QUEUED_OUTPUTS], out_total;
  gboolean outputs_refused;    /* the delegate cannot queue them: read back with each
                                  inference (said once, in a GST_INFO line) */
};

/* One frame's job (tfl_engine.h): runs on the engine's GL thread. */
typedef struct {
  tfl_job job;
  GstTfliteInfer *self;
  const tfl_transform *tr;
  tfl_results *res;
  GstTfliteGlFrame frame;      /* the frame's textures */
  gint width, height;
  GstBuffer *mask;             /* the texture to export the mask into, or NULL */
  gboolean decode;             /* outputs were read back: decode them */
  gboolean host_mask;          /* gl-readback of a segmentation: the mask's bytes made on
                                  the GPU come back (a host buffer), not the outputs */
  gint queued;                 /* queued: its read-back buffer (gl->queued[]) for the mask's
                                  bytes (host_mask) or the outputs, collected later; -1:
                                  decoded now */
} gl_frame_job;

GstGLContext *gst_tflite_infer_gl_context(GstBuffer *buf, GError **err)
{
  GstMemory *mem = gst_buffer_n_memory(buf) > 0 ? gst_buffer_peek_memory(buf, 0) : NULL;
  if (!mem || !gst_is_gl_memory(mem)) {
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, "the buffer holds no GL memory");
    return NULL;
  }
  GstGLContext *ctx = ((GstGLBaseMemory *)mem)->context;
  GstGLAPI api = gst_gl_context_get_gl_api(ctx);
  gint major = 0, minor = 0;
  gst_gl_context_get_gl_version(ctx, &major, &minor);
  gboolean compute = (api & GST_GL_API_GLES2) ? (major > 3 || (major == 3 && minor >= 1))
                                              : (major > 4 || (major == 4 && minor >= 3));
  if (!compute) {
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT,
                "the GL context (version %d.%d) has no compute shaders (needs GLES 3.1 or GL 4.3)", major, minor);
    return NULL;
  }
  return gst_object_ref(ctx);
}

static void read_renderer(GstGLContext *ctx, gpointer data)
{
  const GLubyte *r = ctx->gl_vtable->GetString ? ctx->gl_vtable->GetString(GL_RENDERER) : NULL;
  *(gchar **)data = g_strdup(r ? (const gchar *)r : "");
}

gchar *gst_tflite_infer_gl_software_renderer(GstGLContext *ctx)
{
  static const gchar *const software[] = { "llvmpipe", "softpipe", "software rasterizer", "swiftshader", "swrast" };
  gchar *renderer = NULL;
  gst_gl_context_thread_add(ctx, read_renderer, &renderer);
  gchar *lower = g_ascii_strdown(renderer ? renderer : "", -1);
  gboolean soft = FALSE;
  for (gsize i = 0; i < G_N_ELEMENTS(software) && !soft; i++) soft = strstr(lower, software[i]) != NULL;
  g_free(lower);
  if (soft) return renderer;
  g_free(renderer);
  return NULL;
}

/* A pool of GRAY8 GL textures of the mask's size on the engine's context. */
static GstBufferPool *mask_pool_new(GstGLContext *ctx, gint w, gint h)
{
  GstVideoInfo info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_GRAY8, (guint)w, (guint)h);
  GstCaps *caps = gst_video_info_to_caps(&info);
  gst_caps_set_features(caps, 0, gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_GL_MEMORY, NULL));
  GstBufferPool *pool = gst_gl_buffer_pool_new(ctx);
  GstStructure *config = gst_buffer_pool_get_config(pool);
  gst_buffer_pool_config_set_params(config, caps, (guint)info.size, 0, 0);
  gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_GL_SYNC_META);
  /* the video meta (GRAY8, size, stride) lets the buffer be a GStreamer segmentation mask */
  gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_caps_unref(caps);
  if (!gst_buffer_pool_set_config(pool, config) || !gst_buffer_pool_set_active(pool, TRUE)) {
    gst_object_unref(pool);
    return NULL;
  }
  return pool;
}

/* The frames' caps as GL textures (2D): what the raw-data upload makes of them. */
static GstCaps *texture_caps(GstCaps *sysmem)
{
  GstCaps *caps = gst_caps_copy(sysmem);
  gst_caps_set_features(caps, 0, gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_GL_MEMORY, NULL));
  gst_caps_set_simple(caps, "texture-target", G_TYPE_STRING, GST_GL_TEXTURE_TARGET_2D_STR, NULL);
  return caps;
}

/* The upload (and conversion) of system-memory frames of self->info. */
static gboolean uploader_new(GstTfliteInfer *self, GstTfliteInferGl *gl, GError **err)
{
  GstVideoFormat fmt = GST_VIDEO_INFO_FORMAT(&self->info);
  GstCaps *in = gst_video_info_to_caps(&self->info), *tex = texture_caps(in);
  gl->upload = gst_gl_upload_new(gl->context);
  gboolean ok = gst_gl_upload_set_caps(gl->upload, in, tex);
  tfl_image_layout layout;
  if (ok && !gst_tflite_infer_gl_layout(fmt, &layout)) {
    /* the converter picks the RGBA caps (colorimetry) that go with the frames' */
    GstCaps *want = gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING, "RGBA", "width", G_TYPE_INT,
                                        GST_VIDEO_INFO_WIDTH(&self->info), "height", G_TYPE_INT,
                                        GST_VIDEO_INFO_HEIGHT(&self->info), "texture-target", G_TYPE_STRING,
                                        GST_GL_TEXTURE_TARGET_2D_STR, NULL);
    gst_caps_set_features(want, 0, gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_GL_MEMORY, NULL));
    GstCaps *rgba = gst_gl_color_convert_fixate_caps(gl->context, GST_PAD_SINK, tex, want);
    gl->convert = gst_gl_color_convert_new(gl->context);
    ok = rgba && gst_gl_color_convert_set_caps(gl->convert, tex, rgba);
    if (rgba) gst_caps_unref(rgba);
  }
  if (!ok)
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, "cannot upload %s frames to GL textures",
                gst_video_format_to_string(fmt));
  gst_caps_unref(in);
  gst_caps_unref(tex);
  return ok;
}

/* A system-memory frame as an RGBA texture on the engine's context (a new buffer). */
static GstBuffer *upload_frame(GstTfliteInferGl *gl, GstBuffer *buf, GError **err)
{
  GstBuffer *tex = NULL;
  GstGLUploadReturn r = gst_gl_upload_perform_with_buffer(gl->upload, buf, &tex);
  /* the first frame picks the upload method and says "reconfigure": our caps are its own */
  if (r == GST_GL_UPLOAD_RECONFIGURE) {
    gst_clear_buffer(&tex);
    r = gst_gl_upload_perform_with_buffer(gl->upload, buf, &tex);
  }
  if (r != GST_GL_UPLOAD_DONE || !tex) {
    GST_DEBUG("upload returned %d", (int)r);
    gst_clear_buffer(&tex);
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_FAILED, "could not upload the frame to a GL texture");
    return NULL;
  }
  if (!gl->convert) return tex;
  GstBuffer *rgba = gst_gl_color_convert_perform(gl->convert, tex);
  gst_buffer_unref(tex);
  if (!rgba)
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_FAILED, "could not convert the frame to RGBA on the GPU");
  return rgba;
}

gboolean gst_tflite_infer_gl_mask_size(GstTfliteInfer *self, gint *width, gint *height, gboolean *logits)
{
  const tfl_graph *g = self->model.graph;
  /* mask textures only for GL frames: system-memory buffers carry CPU masks */
  if (!self->is_gl || !self->decoder || tfl_decoder_get_kind(self->decoder) != TFL_DECODER_SEGMENTATION ||
      g->n_outputs < 1)
    return FALSE;
  const tfl_tensor *t = &g->tensors[g->outputs[0]];
  *logits = tfl_decoder_output_is_logits(g, g->outputs[0]);
  *width = t->dims[2];
  *height = t->dims[1];
  return TRUE;
}

typedef struct {
  GstTfliteInferGl *gl;
  gboolean *made;
} make_call;

/* GL thread (the engine's context, not the element's: no gl_start, see gsttflitefilter.c's
 * `gl`): the runtime's buffers of the GL path, made once and reused by every frame:
 * the frame's image, the mask texture's, the mask bytes on the host (mapped now, for
 * good), the two queued read-backs (a mask's size now; the outputs' once planned). */
static void make_buffers(GstGLContext *ctx, gpointer data)
{
  (void)ctx;
  make_call *c = data;
  GstTfliteInferGl *gl = c->gl;
  gsize dense = (gsize)gl->mask_w * (gsize)gl->mask_h, row = tfl_class_row_bytes(gl->mask_w) * (gsize)gl->mask_h;
  tfl_status st = tfl_buffer_new(gl->delegate, TFL_BUFFER_IMAGE, 0, &gl->diag, &gl->image);
  if (!st && gl->pool) st = tfl_buffer_new(gl->delegate, TFL_BUFFER_IMAGE, 0, &gl->diag, &gl->mask_image);
  if (!st && gl->segmentation) st = tfl_buffer_new(NULL, TFL_BUFFER_HOST, dense, &gl->diag, &gl->host_mask);
  if (!st && gl->segmentation) st = tfl_buffer_map(gl->host_mask, (const void **)&gl->host_mask_bytes);
  for (guint i = 0; i < G_N_ELEMENTS(gl->queued) && !st; i++)
    st = tfl_buffer_new(gl->delegate, TFL_BUFFER_DEVICE, gl->segmentation ? row : 0, &gl->diag, &gl->queued[i].buf);
  *c->made = st == TFL_OK;
}

GstTfliteInferGl *gst_tflite_infer_gl_new(GstTfliteInfer *self, GError **err)
{
  GstTfliteInferGl *gl = g_new0(GstTfliteInferGl, 1);
  gl->context = gst_object_ref(gst_tflite_engine_gl_context(self->engine));
  gl->delegate = gst_tflite_engine_gl_delegate(self->engine);
  tfl_diag_init(&gl->diag);
  if (!self->is_gl && !uploader_new(self, gl, err)) {
    gst_tflite_infer_gl_free(gl);
    return NULL;
  }
  gl->segmentation = gst_tflite_infer_gl_mask_size(self, &gl->mask_w, &gl->mask_h, &gl->logits);
  if (gl->segmentation) {
    gl->pool = mask_pool_new(gl->context, gl->mask_w, gl->mask_h);
    if (!gl->pool) GST_WARNING_OBJECT(self->owner, "no GL mask textures (%dx%d GRAY8): CPU masks only", gl->mask_w, gl->mask_h);
  }
  gboolean made = FALSE;
  gst_gl_context_thread_add(gl->context, make_buffers, &(make_call){ gl, &made });
  if (!made) {
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, "the GL path's buffers: %s", gl->diag.error);
    gst_tflite_infer_gl_free(gl);
    return NULL;
  }
  return gl;
}

/* GL thread: the runtime's buffers (a device buffer's fence goes with it). */
static void free_buffers(GstGLContext *ctx, gpointer data)
{
  (void)ctx;
  GstTfliteInferGl *gl = data;
  for (guint i = 0; i < G_N_ELEMENTS(gl->queued); i++) tfl_buffer_free(gl->queued[i].buf);
  tfl_buffer_free(gl->image);
  tfl_buffer_free(gl->mask_image);
  tfl_buffer_free(gl->host_mask);
}

void gst_tflite_infer_gl_free(GstTfliteInferGl *gl)
{
  if (!gl) return;
  gst_gl_context_thread_add(gl->context, free_buffers, gl);
  if (gl->pool) {
    /* masks still out (in metas downstream) are freed when they come back */
    gst_buffer_pool_set_active(gl->pool, FALSE);
    gst_object_unref(gl->pool);
  }
  gst_clear_object(&gl->upload);
  gst_clear_object(&gl->convert);
  gst_object_unref(gl->context);
  g_free(gl->collected);
  g_free(gl);
}

/* ---- the job, on the engine's GL thread ---- */

/* Before the invoke: whether every output's slot can be queued (tfl_interpreter_output_bytes),
 * and where each goes in a read-back buffer: asked once per GL path (a slot's size and
 * place never change, so the frame held keeps its places). A refusal is for good (the
 * model's outputs are made on the CPU, read by another node, quantized): said once. */
static gboolean plan_queued_outputs(gl_frame_job *j, tfl_interpreter *it, int slot)
{
  GstTfliteInferGl *gl = j->self->gl;
  if (gl->n_outputs) return TRUE;
  gint n = tfl_interpreter_output_count(it);
  gsize total = 0;
  const char *why = NULL;
  if (n > MAX_QUEUED_OUTPUTS) why = "more outputs than are queued";
  for (gint i = 0; i < n && !why; i++) {
    size_t need = 0;
    if (tfl_interpreter_output_bytes(it, i, &(tfl_export){ .slot = slot }, gl->delegate, &need) != TFL_OK)
      why = tfl_interpreter_last_error(it);
    gl->out_off[i] = total;
    gl->out_bytes[i] = need;
    total += (need + 15) / 16 * 16;
  }
  if (why) {
    GST_INFO_OBJECT(j->self->owner, "gl-queue-depth=2: the outputs are read back with each inference, not queued: %s", why);
    gl->outputs_refused = TRUE;
    return FALSE;
  }
  for (guint q = 0; q < G_N_ELEMENTS(gl->queued); q++)
    if (tfl_buffer_reserve(gl->queued[q].buf, total) != TFL_OK) {
      GST_WARNING_OBJECT(j->self->owner, "gl-queue-depth=2: the outputs are read back with each inference: %s", gl->diag.error);
      gl->outputs_refused = TRUE;
      return FALSE;
    }
  gl->out_total = total;
  gl->n_outputs = n; /* last: planned */
  return TRUE;
}

gboolean gst_tflite_infer_gl_layout(GstVideoFormat f, tfl_image_layout *layout)
{
  switch (f) {
  case GST_VIDEO_FORMAT_RGBA:
  case GST_VIDEO_FORMAT_RGBx:
  case GST_VIDEO_FORMAT_RGB: *layout = TFL_IMAGE_RGBA; return TRUE;
  case GST_VIDEO_FORMAT_BGRA:
  case GST_VIDEO_FORMAT_BGRx:
  case GST_VIDEO_FORMAT_BGR: *layout = TFL_IMAGE_BGRA; return TRUE;
  case GST_VIDEO_FORMAT_GRAY8: *layout = TFL_IMAGE_GRAY; return TRUE;
  case GST_VIDEO_FORMAT_I420:
  case GST_VIDEO_FORMAT_YV12: *layout = TFL_IMAGE_I420; return TRUE;
  case GST_VIDEO_FORMAT_NV12: *layout = TFL_IMAGE_NV12; return TRUE;
  case GST_VIDEO_FORMAT_NV21: *layout = TFL_IMAGE_NV21; return TRUE;
  case GST_VIDEO_FORMAT_YUY2: *layout = TFL_IMAGE_YUY2; return TRUE;
  case GST_VIDEO_FORMAT_UYVY: *layout = TFL_IMAGE_UYVY; return TRUE;
  default: return FALSE;
  }
}

tfl_status gst_tflite_infer_gl_bind_frame(tfl_job *job, tfl_interpreter *it, tfl_buffer *image,
                                           const tfl_diag *image_diag, int slot, const GstTfliteGlFrame *frame,
                                           gint width, gint height, const tfl_transform *tr, const pix_norm *norm)
{
  /* slot 0 is filled first in every run: drop the last run's textures */
  if (slot == 0) tfl_interpreter_bind_input(it, 0, NULL);
  tfl_image_desc x = { .slot = slot, .handle = frame->texture, .width = width, .height = height,
                       /* tfl_transform's affine: a crop, or a rotated region */
                       .affine = { tr->scale_x, tr->shear_x, tr->off_x, tr->shear_y, tr->scale_y, tr->off_y },
                       .layout = frame->layout, .planes = { frame->planes[0], frame->planes[1] },
                       .external = frame->external != FALSE };
  for (int k = 0; k < 6; k++) x.yuv[k] = frame->yuv[k];
  for (int c = 0; c < 3; c++) {
    x.mean[c] = norm->mean[c];
    x.std[c] = norm->std[c];
  }
  x.pad = norm->pad;
  tfl_status st = tfl_buffer_import(image, &x);
  if (st != TFL_OK) {
    g_strlcpy(job->error, image_diag->error, sizeof job->error);
    return st;
  }
  /* the delegate copies the picture's description: the buffer serves the next slot too */
  st = tfl_interpreter_bind_input(it, 0, image);
  if (st != TFL_OK) g_strlcpy(job->error, tfl_interpreter_last_error(it), sizeof job->error);
  return st;
}

static tfl_status fill(tfl_job *job, tfl_interpreter *it, int slot)
{
  gl_frame_job *j = (gl_frame_job *)job;
  pix_norm norm = j->self->model.norm;
  norm.pad = preprocess_fit_pad(j->self->fit);
  GstTfliteInferGl *gl = j->self->gl;
  tfl_status st = gst_tflite_infer_gl_bind_frame(job, it, gl->image, &gl->diag, slot, &j->frame, j->width, j->height,
                                                 j->tr, &norm);
  if (st == TFL_OK && j->queued >= 0 && !j->host_mask && !plan_queued_outputs(j, it, slot)) {
    /* this invoke reads them back after all (for every job of the batch: harmless) */
    tfl_interpreter_set_outputs_host(it, true);
    j->queued = -1;
    j->decode = TRUE;
  }
  return st;
}

/* How the mask's bytes are made of output 0. */
static tfl_export mask_export(const GstTfliteInferGl *gl, int slot)
{
  return (tfl_export){ .slot = slot, .convert = gl->logits ? TFL_CONVERT_SIGMOID_CLASS_U8 : TFL_CONVERT_CLASS_U8 };
}

/* The segmentation's bytes (argmax class or probability * 255, one per pixel) read
 * back from the GPU and decoded: a few KB instead of the H x W x C floats. */
static tfl_status decode_host_mask(gl_frame_job *j, tfl_interpreter *it, int slot)
{
  GstTfliteInfer *self = j->self;
  GstTfliteInferGl *gl = self->gl;
  tfl_export e = mask_export(gl, slot);
  /* host_mask stays mapped: the export writes the very bytes the decoder reads */
  tfl_status st = tfl_interpreter_export_output(it, 0, &e, gl->host_mask);
  if (st != TFL_OK)
    g_snprintf(j->job.error, sizeof j->job.error, "reading the mask back: %s", tfl_interpreter_last_error(it));
  else if ((st = tfl_decoder_run_mask(self->decoder, gl->host_mask_bytes, gl->mask_w, gl->mask_h, j->tr, j->res,
                                      &self->diag)))
    g_snprintf(j->job.error, sizeof j->job.error, "decoding the mask: %s", self->diag.error);
  return st;
}

/* Read-back j->queued's device buffer (room for a mask from the start, for the outputs
 * since plan_queued_outputs). */
static queued_readback *readback_buffer(gl_frame_job *j, gboolean mask)
{
  queued_readback *q = &j->self->gl->queued[j->queued];
  q->mask = mask;
  return q;
}

/* After the exports: the buffer's fence (flushed: the GPU starts now). */
static tfl_status fence_readback(gl_frame_job *j, queued_readback *q)
{
  tfl_status st = tfl_buffer_fence(q->buf);
  if (st != TFL_OK)
    g_snprintf(j->job.error, sizeof j->job.error, "fencing the queued read-back: %s", j->self->gl->diag.error);
  return st;
}

/* The mask's bytes into read-back buffer j->queued on the GPU, fenced; no wait. */
static tfl_status queue_host_mask(gl_frame_job *j, tfl_interpreter *it, int slot)
{
  GstTfliteInferGl *gl = j->self->gl;
  queued_readback *q = readback_buffer(j, TRUE);
  tfl_export e = mask_export(gl, slot);
  tfl_status st = tfl_interpreter_export_output(it, 0, &e, q->buf);
  if (st != TFL_OK) {
    g_snprintf(j->job.error, sizeof j->job.error, "queueing the mask's read-back: %s", tfl_interpreter_last_error(it));
    return st;
  }
  return fence_readback(j, q);
}

/* Every output's slot, as its host bytes, into read-back buffer j->queued on the GPU
 * (plan_queued_outputs' places), fenced; no wait. */
static tfl_status queue_outputs(gl_frame_job *j, tfl_interpreter *it, int slot)
{
  GstTfliteInferGl *gl = j->self->gl;
  queued_readback *q = readback_buffer(j, FALSE);
  for (gint i = 0; i < gl->n_outputs; i++) {
    tfl_export e = { .slot = slot, .convert = TFL_CONVERT_NONE, .offset = gl->out_off[i] };
    tfl_status st = tfl_interpreter_export_output(it, i, &e, q->buf);
    if (st != TFL_OK) {
      g_snprintf(j->job.error, sizeof j->job.error, "queueing output %d's read-back: %s", i,
                 tfl_interpreter_last_error(it));
      return st;
    }
  }
  return fence_readback(j, q);
}

static tfl_status consume(tfl_job *job, tfl_interpreter *it, int slot)
{
  gl_frame_job *j = (gl_frame_job *)job;
  GstTfliteInfer *self = j->self;
  GstTfliteInferGl *gl = self->gl;
  if (j->mask) {
    GstMemory *mem = gst_buffer_peek_memory(j->mask, 0);
    tfl_image_desc x = { .handle = gst_gl_memory_get_texture_id((GstGLMemory *)mem), .width = gl->mask_w,
                         .height = gl->mask_h };
    tfl_export e = mask_export(gl, slot);
    if (tfl_buffer_import(gl->mask_image, &x) != TFL_OK) {
      GST_WARNING_OBJECT(self->owner, "no GL mask texture (CPU mask only): %s", gl->diag.error);
      gst_clear_buffer(&j->mask);
    } else if (tfl_interpreter_export_output(it, 0, &e, gl->mask_image) != TFL_OK) {
      GST_WARNING_OBJECT(self->owner, "no GL mask texture (CPU mask only): %s", tfl_interpreter_last_error(it));
      gst_clear_buffer(&j->mask);
    } else {
      /* the texture changed behind GstGLMemory's back: a later CPU map must download it
       * again (pool textures are reused, and a map of an earlier mask left a CPU copy) */
      GST_MINI_OBJECT_FLAG_SET(mem, GST_GL_BASE_MEMORY_TRANSFER_NEED_DOWNLOAD);
      GstGLSyncMeta *sync = gst_buffer_get_gl_sync_meta(j->mask);
      if (sync) gst_gl_sync_meta_set_sync_point(sync, gl->context);
    }
  }
  if (j->host_mask) return j->queued >= 0 ? queue_host_mask(j, it, slot) : decode_host_mask(j, it, slot);
  if (j->queued >= 0) return queue_outputs(j, it, slot);
  if (!j->decode) {
    if (j->mask) return TFL_OK;
    /* the texture broke on a frame that read nothing back: no mask this once */
    g_strlcpy(job->error, "the mask could neither stay on the GPU nor come back", sizeof job->error);
    return TFL_ERR_BACKEND;
  }
  return gst_tflite_infer_decode_slot(self, it, slot, j->tr, j->res, job->error, sizeof job->error);
}

/* ---- per frame, streaming thread ---- */

/* A mask left on the GPU: its kind, size and placement in res, no pixels. */
static void mask_geometry(const GstTfliteInfer *in, const tfl_transform *tr, tfl_results *res)
{
  /* decode_segmentation's geometry: output 0 is [1, H, W, C], checked when it was created */
  const tfl_graph *g = in->model.graph;
  const tfl_tensor *t = &g->tensors[g->outputs[0]];
  tfl_mask *m = &res->mask;
  m->kind = t->dims[3] == 1 ? TFL_MASK_PROB : TFL_MASK_CLASSES;
  m->width = t->dims[2];
  m->height = t->dims[1];
  m->n_classes = t->dims[3] == 1 ? 2 : t->dims[3];
  m->frame_x = tr->off_x;
  m->frame_y = tr->off_y;
  m->frame_w = (float)tr->in_w * tr->scale_x;
  m->frame_h = (float)tr->in_h * tr->scale_y;
}

static gboolean run_texture(GstTfliteInfer *self, GstBuffer *buf, const tfl_transform *trs, gint n,
                            gboolean readback, tfl_results *res, GstBuffer **gl_mask, gint *queued, GError **err);

gboolean gst_tflite_infer_gl_run(GstTfliteInfer *self, GstBuffer *buf, const tfl_transform *trs, gint n,
                                  gboolean readback, tfl_results *res, GstBuffer **gl_mask, gint *queued, GError **err)
{
  GstTfliteInferGl *gl = self->gl;
  if (gl_mask) *gl_mask = NULL;
  if (queued) *queued = -1;
  if (!gl->upload) return run_texture(self, buf, trs, n, readback, res, gl_mask, queued, err);
  GstBuffer *tex = upload_frame(gl, buf, err);
  if (!tex) return FALSE;
  /* writable, as run_texture may add a sync meta */
  tex = gst_buffer_make_writable(tex);
  /* not queued: the uploaded texture goes back to its pool when this returns */
  gboolean ok = run_texture(self, tex, trs, n, TRUE, res, gl_mask, NULL, err);
  gst_buffer_unref(tex);
  return ok;
}

/* Runs the model on buf's texture (GL memory of, or shared with, the engine's context). */
static gboolean run_texture(GstTfliteInfer *self, GstBuffer *buf, const tfl_transform *trs, gint n,
                            gboolean readback, tfl_results *res, GstBuffer **gl_mask, gint *queued, GError **err)
{
  GstTfliteInferGl *gl = self->gl;
  if (gl_mask) *gl_mask = NULL;
  GstMemory *mem = gst_buffer_n_memory(buf) > 0 ? gst_buffer_peek_memory(buf, 0) : NULL;
  if (!mem || !gst_is_gl_memory(mem)) {
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_FAILED, "the buffer holds no GL memory");
    return FALSE;
  }
  GstGLContext *fctx = ((GstGLBaseMemory *)mem)->context;
  if (fctx != gl->context && !gst_gl_context_can_share(fctx, gl->context)) {
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_FAILED,
                "the frame's GL context changed and does not share with the engine's");
    return FALSE;
  }
  /* A GL map, not a CPU one: it gives the planes' texture names and runs a pending upload
   * (glupload hands out memory whose texture is filled lazily). The frame's format: ours,
   * or RGBA after a conversion of system-memory frames (uploader_new). */
  GstVideoInfo vinfo = self->info;
  GstVideoMeta *vmeta = gst_buffer_get_video_meta(buf);
  if (vmeta && vmeta->format != GST_VIDEO_INFO_FORMAT(&vinfo))
    gst_video_info_set_format(&vinfo, vmeta->format, GST_VIDEO_INFO_WIDTH(&vinfo), GST_VIDEO_INFO_HEIGHT(&vinfo));
  GstTfliteGlFrame tex = { 0 };
  if (!gst_tflite_infer_gl_layout(GST_VIDEO_INFO_FORMAT(&vinfo), &tex.layout)) {
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_FAILED, "GL frames in %s cannot be read",
                gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&vinfo)));
    return FALSE;
  }
  GstVideoFrame vf;
  if (!gst_video_frame_map(&vf, &vinfo, buf, GST_MAP_READ | GST_MAP_GL)) {
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_FAILED, "could not map the frame's textures");
    return FALSE;
  }
  /* by component: YV12's planes are V then U */
  tex.texture = *(guint *)vf.data[0];
  /* glupload's DMABuf import as an external image: one texture the driver reads as RGBA */
  tex.external = gst_gl_memory_get_texture_target((GstGLMemory *)mem) == GST_GL_TEXTURE_TARGET_EXTERNAL_OES;
  if (tex.layout == TFL_IMAGE_I420)
    for (guint c = 1; c < 3; c++) tex.planes[c - 1] = *(guint *)vf.data[GST_VIDEO_FORMAT_INFO_PLANE(vinfo.finfo, c)];
  else if (tex.layout == TFL_IMAGE_NV12 || tex.layout == TFL_IMAGE_NV21)
    tex.planes[0] = *(guint *)vf.data[1];
  pix_yuv yuv = gst_tflite_infer_yuv_of(&vinfo);
  preprocess_yuv_coefficients(&yuv, tex.yuv);
  /* the producer's GL commands, and the upload the map may have run, must be done before
   * our shader samples the texture: on another context of the share group only a fence
   * set after them orders them (the buffer is writable: a sync meta can be added) */
  GstGLSyncMeta *sync = gst_buffer_get_gl_sync_meta(buf);
  if (fctx != gl->context) {
    if (!sync) sync = gst_buffer_add_gl_sync_meta(fctx, buf);
    if (sync) gst_gl_sync_meta_set_sync_point(sync, fctx);
  }
  if (sync) gst_gl_sync_meta_wait(sync, gl->context);

  /* one job per region (all of the frame's regions go to the engine at once, so they
   * run as one batch where the model can be batched), each sampling the same texture
   * through its own affine */
  gl_frame_job *jobs = g_new0(gl_frame_job, n);
  tfl_job **list = g_new(tfl_job *, n);
  gboolean export = gl_mask && n == 1 && gl->pool;
  for (gint i = 0; i < n; i++) {
    gl_frame_job *j = &jobs[i];
    *j = (gl_frame_job){ .self = self, .tr = &trs[i], .res = &res[i], .frame = tex,
                         /* the frame, not the texture: a texture may be wider than the frame */
                         .width = GST_VIDEO_INFO_WIDTH(&self->info), .height = GST_VIDEO_INFO_HEIGHT(&self->info) };
    if (export && gst_buffer_pool_acquire_buffer(gl->pool, &j->mask, NULL) != GST_FLOW_OK) j->mask = NULL;
    /* outputs come back for CPU decoders, for gl-readback, for a model without a mask
     * texture, for regions, and once to check the texture path against the CPU decoder */
    j->decode = readback || self->tensors_out || !j->mask || !gl->checked;
    /* after the first frame, gl-readback of a segmentation reads back the mask's bytes
     * (raw tensors want the outputs themselves) */
    j->host_mask = readback && gl->segmentation && gl->checked && !self->tensors_out;
    if (j->host_mask) j->decode = FALSE;
    j->queued = -1;
    /* queued: what comes back to the CPU, a frame after the first (which checks the
     * GPU path against the CPU decoder) */
    if (queued && n == 1 && gl->checked && (j->host_mask || (j->decode && !gl->outputs_refused))) {
      j->queued = gl->queued_next;
      gl->queued_next = (gl->queued_next + 1) % (gint)G_N_ELEMENTS(gl->queued);
      j->decode = FALSE;
    }
    j->job.fill = fill;
    j->job.consume = consume;
    j->job.host_outputs = j->decode;
    list[i] = &j->job;
  }
  tfl_status st = tfl_stream_run_many(self->stream, list, n);
  self->last_batch = n > 0 ? jobs[0].job.batch : 0;
  gst_video_frame_unmap(&vf);
  gboolean ok = st == TFL_OK;
  if (!ok) {
    for (gint i = 0; i < n; i++)
      if (jobs[i].job.status != TFL_OK) {
        g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_FAILED, "%s", jobs[i].job.error);
        break;
      }
    for (gint i = 0; i < n; i++) gst_clear_buffer(&jobs[i].mask);
  } else if (n == 1) {
    if (jobs[0].decode) gl->checked = TRUE;
    if (!jobs[0].decode && !jobs[0].host_mask && jobs[0].queued < 0)
      mask_geometry(self, &trs[0], &res[0]);
    if (queued) *queued = jobs[0].queued;
    if (gl_mask) *gl_mask = jobs[0].mask;
    else gst_clear_buffer(&jobs[0].mask);
  }
  /* downstream writers wait for our reads of the texture */
  if (sync) gst_gl_sync_meta_set_sync_point(sync, gl->context);
  g_free(list);
  g_free(jobs);
  return ok;
}

/* ---- collecting a queued frame ---- */

typedef struct {
  GstTfliteInferGl *gl;
  gint queued;
  guint8 *bytes;               /* mask: mask_w x mask_h; outputs: out_total */
  gboolean ok;
} collect_call;

/* GL thread: the read-back's buffer mapped (it waits for the buffer's fence, usually
 * signalled by then), its bytes copied out. */
static void collect_on_gl(GstGLContext *ctx, gpointer data)
{
  (void)ctx;
  collect_call *c = data;
  GstTfliteInferGl *gl = c->gl;
  queued_readback *q = &gl->queued[c->queued];
  const guint8 *m = NULL;
  if (!q->buf || tfl_buffer_map(q->buf, (const void **)&m) != TFL_OK) return;
  gsize row = tfl_class_row_bytes(gl->mask_w);
  if (q->mask)
    for (gint y = 0; y < gl->mask_h; y++) memcpy(c->bytes + (gsize)y * (gsize)gl->mask_w, m + (gsize)y * row, (gsize)gl->mask_w);
  else
    memcpy(c->bytes, m, gl->out_total);
  tfl_buffer_unmap(q->buf);
  c->ok = TRUE;
}

/* The decoder on the collected outputs: views of the model's output tensors (the
 * element's graph: batch 1, as the engine's slots) over the copied bytes, never the
 * interpreter's own, which later invokes have overwritten. */
static tfl_status decode_outputs(GstTfliteInfer *self, const guint8 *bytes, const tfl_transform *tr, tfl_results *res)
{
  GstTfliteInferGl *gl = self->gl;
  const tfl_graph *g = self->model.graph;
  tfl_tensor views[MAX_QUEUED_OUTPUTS];
  const tfl_tensor *outs[MAX_QUEUED_OUTPUTS];
  if (g->n_outputs != gl->n_outputs)
    return tfl_fail(&self->diag, TFL_ERR_BACKEND, "%d outputs queued, the model has %d", gl->n_outputs, g->n_outputs);
  for (gint i = 0; i < gl->n_outputs; i++) {
    views[i] = g->tensors[g->outputs[i]];
    if (tfl_tensor_count(&views[i]) * tfl_type_size(views[i].type) != gl->out_bytes[i])
      return tfl_fail(&self->diag, TFL_ERR_BACKEND, "output %d: %zu bytes queued, the tensor holds %zu", i,
                      gl->out_bytes[i], tfl_tensor_count(&views[i]) * tfl_type_size(views[i].type));
    views[i].bytes = gl->out_bytes[i];
    views[i].data = (void *)(bytes + gl->out_off[i]);
    outs[i] = &views[i];
  }
  if (!self->decoder) return TFL_OK;
  tfl_status st = tfl_decoder_run(self->decoder, outs, gl->n_outputs, tr, res, &self->diag);
  char why[8]; /* the reason is in self->diag, which the caller reports */
  return st != TFL_OK ? st : gst_tflite_infer_keep_tensors(self, outs, gl->n_outputs, res, why, sizeof why);
}

gboolean gst_tflite_infer_gl_collect(GstTfliteInfer *self, gint queued, const tfl_transform *tr, tfl_results *res,
                                      GError **err)
{
  GstTfliteInferGl *gl = self->gl;
  g_return_val_if_fail(queued >= 0 && queued < (gint)G_N_ELEMENTS(gl->queued), FALSE);
  gboolean mask = gl->queued[queued].mask;
  gsize bytes = mask ? (gsize)gl->mask_w * (gsize)gl->mask_h : gl->out_total;
  if (gl->collected_size < bytes) { /* the first collects only: sizes never change after */
    g_free(gl->collected);
    gl->collected = g_malloc(bytes);
    gl->collected_size = bytes;
  }
  collect_call c = { gl, queued, gl->collected, FALSE };
  gst_gl_context_thread_add(gl->context, collect_on_gl, &c);
  tfl_status st = TFL_OK;
  if (!c.ok)
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_FAILED,
                "the queued %s (read-back buffer %d) could not be read back: %s", mask ? "mask" : "outputs", queued,
                gl->diag.error);
  else if ((st = mask ? tfl_decoder_run_mask(self->decoder, c.bytes, gl->mask_w, gl->mask_h, tr, res, &self->diag)
                      : decode_outputs(self, c.bytes, tr, res)))
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_FAILED, "decoding the queued %s: %s", mask ? "mask" : "outputs",
                self->diag.error);
  return c.ok && st == TFL_OK;
}
