/* tflinfer_start.h - gl-start=cpu: the first frames run on the CPU engine while the
 * GL engine is made on a thread of its own; the frame after it is ready runs on GL.
 *
 * On a cold start the driver compiles every GL program of the model (seconds; on llvmpipe
 * minutes for big models), while the CPU delegate runs a frame in milliseconds. The
 * thread:
 *   1. when the GL engine's context is the frames' (engine-context=frames), whose thread
 *      also runs glupload, the source and the sink: makes the engine once on a GL context
 *      made for the purpose and runs one inference on it (drivers compile some programs at
 *      their first dispatch), then frees it. That fills the driver's shader cache and our
 *      program cache (cache-dir), so step 2 is a warm start;
 *   2. gets the shared engine on its context (gst_tflite_engine_get: another element's
 *      when it makes or made it), attaches the element's stream and runs one inference on
 *      a blank texture, so the first real GL frame finds every program compiled.
 * The streaming thread asks at each frame (gst_tflite_infer_prepare, through gst_tflite_infer_gl_start_done) and moves onto
 * the GL engine between two frames: no frame is dropped, held or run twice.
 *
 * Threads: every function is called from the thread that owns self's runtime (the
 * streaming thread; stop and caps from theirs, as release_runtime). The worker touches
 * only its own state (the engine posts its warnings on the element; it is joined first).
 */
#ifndef GST_TFLITE_INFER_START_H
#define GST_TFLITE_INFER_START_H

#include "gsttfliteengine.h"
#include "tflinfer.h"

G_BEGIN_DECLS

/* Starts making self's GL engine for key (copied) in the background; self->gl_starter is
 * set. `on_frames_context`: key's context is the frames' (compile on another first). FALSE
 * with *err set when no thread could be started. */
gboolean gst_tflite_infer_start_gl(GstTfliteInfer *self, const GstTfliteEngineKey *key, gboolean on_frames_context,
                                   GError **err);

/* What the background start gave: the GL engine and self's stream on it (taken), or why
 * not (error, taken); the frames that ran on the CPU meanwhile and the time it took. */
typedef struct {
  GstTfliteEngine *engine;
  tfl_stream *stream;
  GError *error;
  guint64 cpu_frames;
  gdouble ms;
} GstTfliteGlStartOutcome;

/* Once the background start ended: TRUE with *out filled (self->gl_starter is gone); the
 * caller moves onto the engine between two frames (tflinfer.c). FALSE while it still runs. */
gboolean gst_tflite_infer_gl_start_done(GstTfliteInfer *self, GstTfliteGlStartOutcome *out);

/* Ends the background start, if any: the worker stops after the step it is in (a compile
 * is not interrupted) and is joined; what it made is freed. */
void gst_tflite_infer_stop_gl_start(GstTfliteInfer *self);

G_END_DECLS

#endif
