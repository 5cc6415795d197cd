/* gsttfliteglshare.c - see gsttfliteglshare.h */
#include "gsttfliteglshare.h"

GST_DEBUG_CATEGORY_EXTERN(gst_tflite_filter_debug);
#define GST_CAT_DEFAULT gst_tflite_filter_debug

typedef struct {
  GstGLDisplay *display;       /* borrowed: compared only */
  GstGLContext *app_context;   /* borrowed: compared only */
  gboolean apart;              /* gst_tflite_gl_share_get_apart's */
  GWeakRef context;
} share_entry;

/* Weak refs: the process keeps no context alive that no element uses. */
static GMutex lock;
static GList *entries;

static gboolean has_compute(GstGLContext *ctx)
{
  return gst_gl_context_check_gl_version(ctx, GST_GL_API_GLES2, 3, 1) ||
         gst_gl_context_check_gl_version(ctx, GST_GL_API_OPENGL3 | GST_GL_API_OPENGL, 4, 3);
}

static GstGLContext *get(GstGLDisplay *display, GstGLContext *app_context, gboolean apart, GError **err)
{
  g_mutex_lock(&lock);
  GstGLContext *ctx = NULL;
  for (GList *l = entries; l && !ctx; l = l->next) {
    share_entry *e = l->data;
    if (e->display == display && e->app_context == app_context && e->apart == apart)
      ctx = g_weak_ref_get(&e->context);
  }
  /* tests (and boards) force the element's own context off, as the delegate's: the
   * frames' context is then the only one */
  if (!ctx && !apart && !g_strcmp0(g_getenv("TFL_GL_EGL_PLATFORM"), "none")) {
    g_mutex_unlock(&lock);
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, "TFL_GL_EGL_PLATFORM=none: no GL context of the element's own");
    return NULL;
  }
  if (!ctx) {
    /* drop entries whose context is gone */
    for (GList *l = entries, *next; l; l = next) {
      next = l->next;
      share_entry *e = l->data;
      GstGLContext *alive = g_weak_ref_get(&e->context);
      if (alive) {
        gst_object_unref(alive);
        continue;
      }
      g_weak_ref_clear(&e->context);
      g_free(e);
      entries = g_list_delete_link(entries, l);
    }
    /* Making the context current can fail once in a while on a loaded machine (seen with
     * Mesa llvmpipe on an EGL device: "Failed to activate the GL Context" after many
     * pipelines in one process); a fresh context a moment later works, so a few tries
     * before the element gives up. */
    for (int attempt = 0; attempt < 3; attempt++) {
      g_clear_error(err);
      ctx = gst_gl_context_new(display);
      if (ctx && gst_gl_context_create(ctx, app_context, err)) break;
      GST_WARNING("shared GL context, try %d of 3: %s", attempt + 1, err && *err ? (*err)->message : "no context");
      gst_clear_object(&ctx);
      g_usleep(50 * 1000);
    }
    if (!ctx) {
      /* err says why */
    } else if (!has_compute(ctx)) {
      g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, "the shared GL context has no compute shaders");
      gst_clear_object(&ctx);
    } else {
      share_entry *e = g_new0(share_entry, 1);
      e->display = display;
      e->app_context = app_context;
      e->apart = apart;
      g_weak_ref_init(&e->context, ctx);
      entries = g_list_prepend(entries, e);
      GST_INFO("shared GL context %" GST_PTR_FORMAT " for display %" GST_PTR_FORMAT, ctx, display);
    }
  }
  g_mutex_unlock(&lock);
  return ctx;
}

GstGLContext *gst_tflite_gl_share_get(GstGLDisplay *display, GstGLContext *app_context, GError **err)
{
  return get(display, app_context, FALSE, err);
}

GstGLContext *gst_tflite_gl_share_get_apart(GstGLDisplay *display, GError **err)
{
  return get(display, NULL, TRUE, err);
}
