/* gsttfliteglelement.h - what GStreamer's GstGLBaseFilter does for its subclasses, for our
 * elements that take system memory and GL memory (so cannot be GL base filters):
 * tflitefilter and tfliteoverlay.
 *
 * The display and the application's context come from the pipeline (set_context and the
 * context queries, gst_gl_ensure_element_data); the element answers its neighbours'
 * display, app-context and local-context queries; its context (tflitefilter: one of the
 * share group of gsttfliteglshare.h; tfliteoverlay: the frames') runs the element's
 * gl_start, which makes its GL objects on the context's thread, and gl_stop frees them
 * there.
 *
 * Threads: start, stop and clear on the streaming thread or in state changes, one at a time
 * (the element's stop follows its last frame); queries on any thread: they read the
 * display and context under the element's object lock. The display and app context are
 * written as GstGLBaseFilter writes them (set_context, ensure_display: before the
 * element's neighbours query it).
 */
#ifndef GST_TFLITE_GL_ELEMENT_H
#define GST_TFLITE_GL_ELEMENT_H

#include <gst/gl/gl.h>

G_BEGIN_DECLS

typedef struct _GstTfliteGlElement GstTfliteGlElement;

/* gl_start: the element's GL objects made on ctx (current, its thread); FALSE with *error
 * (g_free) when GL cannot serve the element. gl_stop: freed there. Both may be NULL (an
 * element whose GL objects others make: its context is then only offered to neighbours). */
typedef gboolean (*GstTfliteGlStartFunc)(GstTfliteGlElement *gl, GstGLContext *ctx, gchar **error);
typedef void (*GstTfliteGlStopFunc)(GstTfliteGlElement *gl, GstGLContext *ctx);

struct _GstTfliteGlElement {
  GstElement *element;         /* borrowed: the owner */
  /* context and started written under the element's object lock */
  GstGLDisplay *display;
  GstGLContext *app_context;   /* the application's, if it gave one */
  GstGLContext *context;       /* the element's (gl_start ran on it), or NULL */
  gboolean started;            /* gl_start succeeded on context */
  GstTfliteGlStartFunc gl_start;
  GstTfliteGlStopFunc gl_stop;
  gpointer user;               /* the element's, for gl_start and gl_stop */
};

void gst_tflite_gl_element_init(GstTfliteGlElement *gl, GstElement *element, GstTfliteGlStartFunc start,
                                GstTfliteGlStopFunc stop, gpointer user);
/* The element's set_context: a display or app context given by the application. */
void gst_tflite_gl_element_set_context(GstTfliteGlElement *gl, GstContext *context);
/* The display (and app context) from the pipeline, made when there is none; FALSE when no
 * display can be opened. */
gboolean gst_tflite_gl_element_ensure_display(GstTfliteGlElement *gl);
/* A context query from a neighbour (any thread): answered (TRUE) when it asks for the
 * display, an app context (`app`, when not NULL) or a local context (`local`: the
 * element's context, once gl_start ran on it). */
gboolean gst_tflite_gl_element_query(GstTfliteGlElement *gl, GstQuery *query, GstGLContext *app, gboolean local);
/* Makes ctx the element's context: gl_stop on the previous one, gl_start on ctx (on its
 * thread). FALSE with *error (g_free) when gl_start failed; not tried again on ctx. */
gboolean gst_tflite_gl_element_start(GstTfliteGlElement *gl, GstGLContext *ctx, gchar **error);
/* gl_stop on the element's context (its thread), which is then released. */
void gst_tflite_gl_element_stop(GstTfliteGlElement *gl);
/* gl_stop, and the display and app context released (READY -> NULL, finalize). */
void gst_tflite_gl_element_clear(GstTfliteGlElement *gl);

G_END_DECLS

#endif
