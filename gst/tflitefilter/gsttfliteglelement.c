/* gsttfliteglelement.c - see gsttfliteglelement.h */
#include "gsttfliteglelement.h"

void gst_tflite_gl_element_init(GstTfliteGlElement *gl, GstElement *element, GstTfliteGlStartFunc start,
                                GstTfliteGlStopFunc stop, gpointer user)
{
  *gl = (GstTfliteGlElement){ .element = element, .gl_start = start, .gl_stop = stop, .user = user };
}

/* On the fields themselves, as GstGLBaseFilter does: gst_gl_ensure_element_data's
 * NEED_CONTEXT message makes the bin call our set_context, which writes where it reads. */
void gst_tflite_gl_element_set_context(GstTfliteGlElement *gl, GstContext *context)
{
  gst_gl_handle_set_context(gl->element, context, &gl->display, &gl->app_context);
}

gboolean gst_tflite_gl_element_ensure_display(GstTfliteGlElement *gl)
{
  return gst_gl_ensure_element_data(gl->element, &gl->display, &gl->app_context);
}

gboolean gst_tflite_gl_element_query(GstTfliteGlElement *gl, GstQuery *query, GstGLContext *app, gboolean local)
{
  const gchar *type = NULL;
  if (GST_QUERY_TYPE(query) != GST_QUERY_CONTEXT || !gst_query_parse_context_type(query, &type)) return FALSE;
  /* queries come on any thread: the display and context as they are now, with refs */
  GST_OBJECT_LOCK(gl->element);
  GstGLDisplay *display = gl->display ? gst_object_ref(gl->display) : NULL;
  GstGLContext *ctx = local && gl->started ? gst_object_ref(gl->context) : NULL;
  GST_OBJECT_UNLOCK(gl->element);
  /* only what was offered: a query we would answer with nothing goes on to the neighbours */
  gboolean ok = display && (g_strcmp0(type, "gst.gl.app_context") || app) &&
                (g_strcmp0(type, "gst.gl.local_context") || ctx) &&
                gst_gl_handle_context_query(gl->element, query, display, ctx, app);
  gst_clear_object(&ctx);
  gst_clear_object(&display);
  return ok;
}

typedef struct {
  GstTfliteGlElement *gl;
  gboolean ok;
  gchar *error;
} start_call;

static void start_on_gl(GstGLContext *ctx, gpointer data)
{
  start_call *c = data;
  c->ok = c->gl->gl_start(c->gl, ctx, &c->error);
}

static void stop_on_gl(GstGLContext *ctx, gpointer data)
{
  GstTfliteGlElement *gl = data;
  gl->gl_stop(gl, ctx);
}

gboolean gst_tflite_gl_element_start(GstTfliteGlElement *gl, GstGLContext *ctx, gchar **error)
{
  if (gl->context == ctx) return gl->started;
  gst_tflite_gl_element_stop(gl);
  start_call c = { gl, TRUE, NULL };
  if (gl->gl_start) gst_gl_context_thread_add(ctx, start_on_gl, &c);
  GST_OBJECT_LOCK(gl->element);
  gl->context = gst_object_ref(ctx);
  gl->started = c.ok;
  GST_OBJECT_UNLOCK(gl->element);
  if (error) *error = c.error;
  else g_free(c.error);
  return c.ok;
}

void gst_tflite_gl_element_stop(GstTfliteGlElement *gl)
{
  GST_OBJECT_LOCK(gl->element);
  GstGLContext *ctx = gl->context;
  gboolean started = gl->started;
  gl->context = NULL;
  gl->started = FALSE;
  GST_OBJECT_UNLOCK(gl->element);
  if (started && gl->gl_stop) gst_gl_context_thread_add(ctx, stop_on_gl, gl);
  gst_clear_object(&ctx);
}

void gst_tflite_gl_element_clear(GstTfliteGlElement *gl)
{
  gst_tflite_gl_element_stop(gl);
  GST_OBJECT_LOCK(gl->element);
  GstGLDisplay *display = g_steal_pointer(&gl->display);
  GstGLContext *app = g_steal_pointer(&gl->app_context);
  GST_OBJECT_UNLOCK(gl->element);
  gst_clear_object(&display);
  gst_clear_object(&app);
}
