/* gsttflitefilter_gl.h - tflitefilter's GL path: the frame's texture goes straight into
 * the GL delegate on GStreamer's GL thread; the frame is never mapped on the CPU.
 * All functions are called from the streaming thread; they marshal to the GL thread. */
#ifndef GST_TFLITE_FILTER_GL_H
#define GST_TFLITE_FILTER_GL_H

#include "gsttflitefilter.h"
#include "gsttflitemeta.h"

G_BEGIN_DECLS

/* Creates the GL delegate on the GL context of `buf`'s memory and the interpreter with it.
 * FALSE with *err set when GL is unusable (no GL memory, no compute, compile failure). */
gboolean gst_tflite_filter_gl_setup(GstTfliteFilter *self, GstBuffer *buf, GError **err);
/* Runs one inference on `buf`'s texture; outputs end up readable on the CPU for decoding,
 * except a segmentation mask kept on the GPU (gl-readback unset, the mask texture working):
 * then see gst_tflite_filter_gl_mask_without_pixels. */
gboolean gst_tflite_filter_gl_infer(GstTfliteFilter *self, GstBuffer *buf, const tfl_transform *tr,
                                    GError **err);
/* TRUE when the last inference left its mask on the GPU only: fills res->mask's kind, size,
 * classes and placement, without pixels (decode nothing else; the texture has them). */
gboolean gst_tflite_filter_gl_mask_without_pixels(GstTfliteFilter *self, const tfl_transform *tr,
                                                  tfl_results *res);
/* Hands the mask output's GL texture to the meta when the model has one. */
void gst_tflite_filter_gl_attach_mask(GstTfliteFilter *self, GstTfliteMeta *meta);
/* Frees the GL delegate (on the GL thread) and drops the context. */
void gst_tflite_filter_release_runtime(GstTfliteFilter *self);
/* Creates self->cpu (the interpreter's fallback) with `threads` threads; FALSE with
 * self->diag saying why. */
gboolean gst_tflite_filter_make_cpu(GstTfliteFilter *self, int threads);
void gst_tflite_filter_gl_release(GstTfliteFilter *self);

G_END_DECLS

#endif
