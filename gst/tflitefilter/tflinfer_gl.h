/* tflinfer_gl.h - the inference object's GL path: the frame's texture goes straight into
 * the shared engine's GL delegate on its GL thread (bound as the model's input through
 * the delegate interface); the frame is never mapped on the CPU. Segmentation masks come
 * back as textures of their own, from a pool, fenced with a GstGLSyncMeta.
 * All functions are called from the streaming thread; the engine runs the GL work on
 * its context's thread. */
#ifndef GST_TFLITE_INFER_GL_H
#define GST_TFLITE_INFER_GL_H

#include <gst/gl/gl.h>

#include "tflinfer.h"

G_BEGIN_DECLS

/* The GL context of buf's memory when it can run the GL delegate (compute shaders), with
 * a ref; NULL with *err set otherwise. */
GstGLContext *gst_tflite_infer_gl_context(GstBuffer *buf, GError **err);
/* ctx's GL_RENDERER (g_free) when it is a software rasterizer (Mesa llvmpipe, softpipe,
 * swrast; SwiftShader), else NULL: there the CPU delegate is many times faster. */
gchar *gst_tflite_infer_gl_software_renderer(GstGLContext *ctx);

/* Whether GL frames of self's model get their segmentation mask as a texture, and its
 * size and kind (logits: a one-channel mask of logits, not probabilities). */
gboolean gst_tflite_infer_gl_mask_size(GstTfliteInfer *self, gint *width, gint *height, gboolean *logits);

/* The GL path's state for self (whose engine is a GL engine); for system-memory frames
 * (self->is_gl FALSE) with their upload to textures. NULL with *err set when the frames'
 * format cannot be uploaded. */
GstTfliteInferGl *gst_tflite_infer_gl_new(GstTfliteInfer *self, GError **err);
void gst_tflite_infer_gl_free(GstTfliteInferGl *gl);

/* Runs the model on buf's texture through the engine (system-memory frames are uploaded
 * first, and then always read back), once per transform trs[0..n-1] (the
 * whole frame, or each region: all handed to the engine together, so they batch).
 * Results (decoded unless the mask stays on the GPU: then its geometry only) in res[i];
 * with n == 1 and gl_mask non-NULL, a segmentation mask also as a GRAY8 GL texture in
 * *gl_mask (caller owns the ref), written on the GPU. `readback`: the outputs come back
 * to the CPU every frame (gl-readback). `queued` non-NULL (n == 1, GL frames): what comes
 * back to the CPU (a mask's bytes with gl-readback, the outputs of any other decoder) is
 * not waited for, from the second inference on: *queued names its read-back (res[0]
 * stays empty until gst_tflite_infer_gl_collect), else -1 and res is complete. buf must
 * then stay alive until it is collected. */
gboolean gst_tflite_infer_gl_run(GstTfliteInfer *self, GstBuffer *buf, const tfl_transform *trs, gint n,
                                  gboolean readback, tfl_results *res, GstBuffer **gl_mask, gint *queued,
                                  GError **err);

/* The queued read-back `queued` decoded into res (tr: the frame's transform): waits for
 * its GPU work if it is not done yet. Each queued read-back is collected once, before the
 * second frame after it is run. */
gboolean gst_tflite_infer_gl_collect(GstTfliteInfer *self, gint queued, const tfl_transform *tr, tfl_results *res,
                                      GError **err);

/* A frame's textures as the texture-input shader reads them (tfl_delegate.h). */
typedef struct {
  guint texture;               /* the frame (RGB formats, packed YUV) or its luma */
  guint planes[2];             /* chroma: I420/YV12 U and V, NV12/NV21 the pair plane */
  tfl_image_layout layout;
  gfloat yuv[6];               /* preprocess_yuv_coefficients of the frame's colorimetry */
  gboolean external;           /* texture is GL_TEXTURE_EXTERNAL_OES (an imported DMABuf), RGBA */
} GstTfliteGlFrame;

/* The layout of GL frames in format f; FALSE when the texture-input shader cannot read
 * them (the element's GL caps list exactly the formats that give TRUE). */
gboolean gst_tflite_infer_gl_layout(GstVideoFormat f, tfl_image_layout *layout);

/* For a job's fill (GL thread): binds `frame` (width x height) as slot `slot` of the
 * model's input, sampled through tr and normalized by norm, imported into `image` (an
 * image buffer of the engine's GL delegate, reused frame after frame, reporting to
 * image_diag); else the error in job. */
tfl_status gst_tflite_infer_gl_bind_frame(tfl_job *job, tfl_interpreter *it, tfl_buffer *image,
                                           const tfl_diag *image_diag, int slot, const GstTfliteGlFrame *frame,
                                           gint width, gint height, const tfl_transform *tr, const pix_norm *norm);

G_END_DECLS

#endif
