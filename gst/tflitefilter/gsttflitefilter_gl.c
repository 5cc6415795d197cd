/* gsttflitefilter_gl.c - tflitefilter's GL path (see gsttflitefilter_gl.h).
 *
 * The GL delegate lives on the GstGLContext of the incoming GL memory; every call into
 * it (create, invoke, free) is marshalled onto that context's thread with
 * gst_gl_context_thread_add, where the context is current. The frame's texture is
 * sampled by the delegate's input shader: the frame is never mapped on the CPU. */
#include "gsttflitefilter_gl.h"

#include <gst/gl/gl.h>

#include "delegates/gl/gl_delegate.h"

GST_DEBUG_CATEGORY_EXTERN(gst_tflite_filter_debug);
#define GST_CAT_DEFAULT gst_tflite_filter_debug

typedef struct {
  GstTfliteFilter *self;
  gboolean ok;
  gchar *error;
  const gl_texture_input *tex;
} gl_call;

static void setup_on_gl_thread(GstGLContext *ctx, gpointer data)
{
  gl_call *c = data;
  GstTfliteFilter *self = c->self;
  gl_delegate_options o = gl_delegate_defaults();
  GST_OBJECT_LOCK(self);
  o.precision = self->precision == GST_TFLITE_PRECISION_FP32 ? GL_PRECISION_FP32 : GL_PRECISION_FP16;
  gchar *cache_dir = g_strdup(self->cache_dir);
  gint threads = self->threads;
  GST_OBJECT_UNLOCK(self);
  o.use_current_context = true;
  o.cache_dir = cache_dir;
  o.texture_input = true;
  self->accel = gl_delegate_create(&o);
  g_free(cache_dir);
  if (!self->accel) {
    c->error = g_strdup_printf("GL delegate: %s", tfl_last_error());
    return;
  }
  tfl_interp_options io = tfl_interp_defaults();
  io.threads = threads;
  io.delegate = self->accel;
  if (tfl_interpreter_create(self->graph, &io, &self->interp) != TFL_OK) {
    c->error = g_strdup_printf("preparing the model for GL: %s", tfl_last_error());
    self->accel->destroy(self->accel);
    self->accel = NULL;
    return;
  }
  c->ok = TRUE;
}

gboolean gst_tflite_filter_gl_setup(GstTfliteFilter *self, GstBuffer *buf, GError **err)
{
  GstMemory *mem = gst_buffer_n_memory(buf) > 0 ? gst_buffer_peek_memory(buf, 0) : NULL;
  if (!mem || !gst_is_gl_memory(mem)) {
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, "the buffer holds no GL memory");
    return FALSE;
  }
  GstGLContext *ctx = ((GstGLBaseMemory *)mem)->context;
  /* compute shaders: GLES 3.1 or desktop GL 4.3 */
  GstGLAPI api = gst_gl_context_get_gl_api(ctx);
  gint major = 0, minor = 0;
  gst_gl_context_get_gl_version(ctx, &major, &minor);
  gboolean compute = (api & GST_GL_API_GLES2) ? (major > 3 || (major == 3 && minor >= 1))
                                              : (major > 4 || (major == 4 && minor >= 3));
  if (!compute) {
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT,
                "the GL context (version %d.%d) has no compute shaders (needs GLES 3.1 or GL 4.3)",
                major, minor);
    return FALSE;
  }
  self->gl_context = gst_object_ref(ctx);
  gl_call c = { self, FALSE, NULL, NULL };
  gst_gl_context_thread_add(ctx, setup_on_gl_thread, &c);
  if (!c.ok) {
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, "%s", c.error ? c.error : "GL setup failed");
    g_free(c.error);
    gst_clear_object((GstGLContext **)&self->gl_context);
    return FALSE;
  }
  GST_INFO_OBJECT(self, "GL delegate ready on %" GST_PTR_FORMAT, ctx);
  return TRUE;
}

static void infer_on_gl_thread(GstGLContext *ctx, gpointer data)
{
  gl_call *c = data;
  if (gl_delegate_set_input_texture(c->self->accel, c->tex) != TFL_OK ||
      tfl_interpreter_invoke(c->self->interp) != TFL_OK) {
    c->error = g_strdup(tfl_last_error());
    return;
  }
  c->ok = TRUE;
}

gboolean gst_tflite_filter_gl_infer(GstTfliteFilter *self, GstBuffer *buf, const tfl_transform *tr,
                                    GError **err)
{
  GstMemory *mem = gst_buffer_n_memory(buf) > 0 ? gst_buffer_peek_memory(buf, 0) : NULL;
  if (!mem || !gst_is_gl_memory(mem)) {
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_FAILED, "the buffer holds no GL memory");
    return FALSE;
  }
  GstGLMemory *glmem = (GstGLMemory *)mem;
  GstGLContext *ctx = self->gl_context;
  if (((GstGLBaseMemory *)mem)->context != ctx &&
      !gst_gl_context_can_share(((GstGLBaseMemory *)mem)->context, ctx)) {
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_FAILED,
                "the frame's GL context changed and does not share with the delegate's");
    return FALSE;
  }
  /* the producer's GL commands must be done before our shader samples the texture */
  GstGLSyncMeta *sync = gst_buffer_get_gl_sync_meta(buf);
  if (sync) gst_gl_sync_meta_wait(sync, ctx);

  gl_texture_input tex = {
    .texture = gst_gl_memory_get_texture_id(glmem),
    .width = (int)gst_gl_memory_get_texture_width(glmem),
    .height = (int)gst_gl_memory_get_texture_height(glmem),
    /* tfl_transform maps to frame pixels; the texture is the frame */
    .scale_x = tr->scale_x, .scale_y = tr->scale_y, .off_x = tr->off_x, .off_y = tr->off_y,
  };
  for (int ch = 0; ch < 3; ch++) {
    tex.mean[ch] = self->norm.mean[ch];
    tex.std[ch] = self->norm.std[ch];
  }
  gl_call c = { self, FALSE, NULL, &tex };
  gst_gl_context_thread_add(ctx, infer_on_gl_thread, &c);
  if (!c.ok) {
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_FAILED, "%s", c.error ? c.error : "GL inference failed");
    g_free(c.error);
    return FALSE;
  }
  /* downstream writers wait for our reads of the texture */
  if (sync) gst_gl_sync_meta_set_sync_point(sync, ctx);
  return TRUE;
}

void gst_tflite_filter_gl_attach_mask(GstTfliteFilter *self, GstTfliteMeta *meta)
{
  /* The mask is decoded from outputs read back to the CPU; handing the output as a
   * texture (no readback) needs the delegate's output-texture API. */
  (void)self;
  (void)meta;
}

static void release_on_gl_thread(GstGLContext *ctx, gpointer data)
{
  GstTfliteFilter *self = data;
  tfl_interpreter_free(self->interp);
  self->interp = NULL;
  self->accel->destroy(self->accel);
  self->accel = NULL;
}

void gst_tflite_filter_gl_release(GstTfliteFilter *self)
{
  if (!self->accel) return;
  if (self->gl_context)
    gst_gl_context_thread_add(self->gl_context, release_on_gl_thread, self);
  gst_clear_object((GstGLContext **)&self->gl_context);
}
