/* gsttfliteengine.h - the process's shared engines.
 *
 * Every tflitefilter of a process asking for the same model file (same file on disk,
 * same contents' identity), delegate, precision, threads, batching, appended
 * post-processing (and its options) and engine name shares
 * one tfl_engine: one loaded model, one set of packed CPU weights or GL programs and
 * constants, one activation arena; each stream keeps only its own results. GL engines
 * live on the GL context of the first element's frames and serve every element whose
 * frames' context shares with it.
 *
 * Threads: get/unref from any thread (a process-wide lock guards the registry); the
 * engine's own calls as tfl_engine.h says.
 */
#ifndef GST_TFLITE_ENGINE_H
#define GST_TFLITE_ENGINE_H

#include <gst/gl/gl.h>
#include <gst/gst.h>

#include "decoders/tfl_decoder.h"
#include "runtime/tfl_engine.h"

G_BEGIN_DECLS

typedef struct {
  const gchar *model_path;
  GstGLContext *gl_context;    /* GL delegate on this context's thread; NULL: CPU */
  gboolean fp32;               /* GL precision */
  gint threads;                /* CPU delegate threads (also the GL engine's fallback); 0:
                                  automatic (gst_tflite_engine_auto_threads) */
  const gchar *cache_dir;      /* GL program cache; NULL: none */
  const gchar *instance_id;    /* engine name: NULL or "" shares by configuration */
  gint max_batch;
  gint window_us;
  const tfl_decoder_options *postprocess; /* non-NULL: the post-processing of decoder
                                             postprocess_kind with these options is appended
                                             to the graph (tfl_decoder_append_postprocess) */
  tfl_decoder_kind postprocess_kind;
  gint gl_profile;             /* gl_device_profile: the GPU limits the GL delegate keeps to */
} GstTfliteEngineKey;

typedef struct _GstTfliteEngine GstTfliteEngine;

/* A copy owning its strings, context ref and options; freed by gst_tflite_engine_key_free. */
GstTfliteEngineKey *gst_tflite_engine_key_copy(const GstTfliteEngineKey *key);
void gst_tflite_engine_key_free(GstTfliteEngineKey *key);

/* The shared engine for key, made (model loaded, compiled) if there is none yet; while
 * another element makes it, waits for it. Engines of other keys are made meanwhile (no
 * process-wide lock is held while compiling). `who` names the element in log lines. NULL
 * with *err set when the model cannot be prepared for that delegate. */
GstTfliteEngine *gst_tflite_engine_get(const GstTfliteEngineKey *key, GstElement *who, GError **err);
/* The shared engine for key if it is made already (ref), else NULL; never waits.
 * *being_made (may be NULL): another element is making it now. */
GstTfliteEngine *gst_tflite_engine_find(const GstTfliteEngineKey *key, gboolean *being_made);
/* An engine for key that nobody else shares (not in the registry; id 0): made, for
 * instance, to fill the driver's and the program cache on another GL context. */
GstTfliteEngine *gst_tflite_engine_make_private(const GstTfliteEngineKey *key, GError **err);
void gst_tflite_engine_unref(GstTfliteEngine *engine);

tfl_engine *gst_tflite_engine_runtime(GstTfliteEngine *engine);
/* The GL context the engine's GL delegate runs on (borrowed), or NULL for a CPU engine. */
GstGLContext *gst_tflite_engine_gl_context(GstTfliteEngine *engine);
/* The engine's GL delegate (borrowed; NULL for a CPU engine): it makes the device and
 * image buffers of the element's GL path (runtime/tfl_buffer.h). Its calls run on the
 * engine's GL thread. */
struct tfl_delegate *gst_tflite_engine_gl_delegate(GstTfliteEngine *engine);
/* A number naming the engine in messages (process-unique, never reused). */
guint64 gst_tflite_engine_id(GstTfliteEngine *engine);
/* How many elements use the engine now. */
gint gst_tflite_engine_users(GstTfliteEngine *engine);
/* The CPU delegate's threads (threads=0 resolved). */
gint gst_tflite_engine_threads(GstTfliteEngine *engine);
/* threads=0: the cores this process may run on (its CPU affinity: taskset, cgroups'
 * cpusets), at most max. One engine's streams share its pool, so this is per engine. */
gint gst_tflite_engine_auto_threads(gint max);

G_END_DECLS

#endif
