/* gsttflitefilter_gl.h - tflitefilter's GL path: the frame's texture goes straight into
 * the GL delegate on GStreamer's GL thread; the frame is never mapped on the CPU.
 * All functions are called from the streaming thread; they marshal to the GL thread. */
#ifndef GST_TFLITE_FILTER_GL_H
#define GST_TFLITE_FILTER_GL_H

#include "gsttflitefilter.h"

G_BEGIN_DECLS

/* Creates the GL delegate and an interpreter of self->graph with it, on the GL context of
 * `buf`'s memory (self->gl and self->interp). FALSE with *err set when GL is unusable (no
 * GL memory, no compute shaders, compile failure); nothing is left allocated then. */
gboolean gst_tflite_filter_gl_start(GstTfliteFilter *self, GstBuffer *buf, GError **err);

/* Runs one inference on `buf`'s texture. Outputs end up readable on the CPU for decoding,
 * except for a segmentation model whose mask is written to a GL texture: then *gl_mask is
 * a buffer holding that texture (GRAY8 GstGLMemory with a GstGLSyncMeta fencing the
 * write; caller owns the ref) and, unless `readback`, the mask output may stay on the GPU
 * (*gpu_only: nothing to decode on the CPU but the mask's geometry). */
gboolean gst_tflite_filter_gl_infer(GstTfliteFilter *self, GstBuffer *buf, const tfl_transform *tr,
                                    gboolean readback, GstBuffer **gl_mask, gboolean *gpu_only, GError **err);

/* Frees the interpreter, the delegate and the GL objects on the GL thread. Masks already
 * handed out stay valid (their pool outlives the element's use of it). */
void gst_tflite_filter_gl_stop(GstTfliteFilter *self);

G_END_DECLS

#endif
