/* gsttfliteglshare.h - one GL context per display that every GL element of the process
 * can share with.
 *
 * Each gltestsrc, glupload or other GL source of a pipeline makes a GL context of its
 * own, and contexts made independently cannot see each other's textures. tflitefilter
 * makes this context before they start and hands it to them as "gst.gl.app_context"
 * (the context they create theirs to share with), so every stream's frames live in one
 * share group, and one engine on this context runs every stream's model (its own thread:
 * inference no longer queues behind the streams' drawing).
 *
 * Threads: any. The context lives while someone holds a ref.
 */
#ifndef GST_TFLITE_GL_SHARE_H
#define GST_TFLITE_GL_SHARE_H

#include <gst/gl/gl.h>

G_BEGIN_DECLS

/* The context for display (created, sharing with app_context when given, if none is
 * alive), with a ref; NULL with *err set when no context with compute shaders can be made. */
GstGLContext *gst_tflite_gl_share_get(GstGLDisplay *display, GstGLContext *app_context, GError **err);
/* A context for display in no share group (gl-start=cpu compiles on it first), one per
 * display while someone holds a ref, with a ref; NULL with *err set as above. */
GstGLContext *gst_tflite_gl_share_get_apart(GstGLDisplay *display, GError **err);

G_END_DECLS

#endif
