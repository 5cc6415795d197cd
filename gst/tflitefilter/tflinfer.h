/* tflinfer.h - tflitefilter's inference object: one stream's engine attachment, its GL or
 * system-memory path, the frames held for gl-queue-depth=2 and the regions; it turns a
 * frame into results (plain tfl_results) that the element turns into meta.
 *
 * The element calls it, never the other way round: nothing here includes the element.
 * Failures come back as values (GstTfliteNotice: a GError for the message and a debug
 * line) that the element posts; warnings collect in `notices` until the element posts
 * them (gst_tflite_infer_take_notices). Two existing modules post on `owner` themselves,
 * as they did for the element: the model policy (gsttflitemodel.c) and the shared engine
 * (gsttfliteengine.c); `owner` also names the debug lines.
 *
 * Layers of its files (each calls only those below it, no circle):
 *   tflinfer.c          life cycle: settings snapshot, model, engine, paths, gl-start
 *   tflinfer_regions.c  regions-from: regions -> transforms -> run -> children objects
 *   tflinfer_run.c      one frame: either path; a held frame's read-back collected
 *   tflinfer_start.c    gl-start=cpu: the GL engine made on a thread of its own
 *   tflinfer_gl.c       the GL path (textures in, masks and read-backs out)
 *   tflinfer_decode.c   outputs -> results (decoder, keep-tensors, mask geometry)
 *   tflinfer_queue.c    the held frames' bookkeeping (buffers only)
 *   tflinfer_notice.c   GstTfliteNotice
 * Threads: the streaming thread (set_caps and stop from theirs, as before); gl-start's
 * worker touches only its own state. */
#ifndef GST_TFLITE_INFER_H
#define GST_TFLITE_INFER_H

#include <gst/gl/gl.h>
#include <gst/video/video.h>

#include "decoders/tfl_decoder.h"
#include "gsttflitemodel.h"
#include "gsttflitesettings.h"
#include "preprocess/preprocess.h"
#include "runtime/tfl_engine.h"
#include "tflinfer_queue.h"

G_BEGIN_DECLS

typedef struct _GstTfliteInferGl GstTfliteInferGl;     /* tflinfer_gl.c */
typedef struct _GstTfliteGlStarter GstTfliteGlStarter; /* tflinfer_start.c */
typedef struct _GstTfliteRegions GstTfliteRegions;     /* tflinfer_regions.c */
struct _GstTfliteEngine;

/* An error or a warning for the element to post: error->domain/code/message are the
 * GStreamer error, `debug` its detail (may be NULL). */
typedef struct {
  GError *error;
  gchar *debug;
} GstTfliteNotice;

/* Sets *n (cleared first) to domain/code with the message from format. */
void gst_tflite_notice_set(GstTfliteNotice *n, GQuark domain, gint code, const gchar *debug, const gchar *format, ...)
  G_GNUC_PRINTF(5, 6);
void gst_tflite_notice_clear(GstTfliteNotice *n);

typedef struct {
  GstElement *owner;           /* not a ref (the element owns this object) */
  const GstTfliteSettings *cfg; /* the snapshot everything here was made from (ref) */

  /* the frames (set_caps) */
  GstVideoInfo info;
  gboolean is_gl;

  /* the runtime, made by gst_tflite_infer_prepare */
  GstTfliteModel model;        /* labels, normalization, decoder kind; the policy's graph */
  struct _GstTfliteEngine *engine; /* shared with every element of the same model (ref) */
  tfl_stream *stream;          /* this element's stream on it */
  tfl_decoder *decoder;
  gboolean tensors_out;        /* every inference's raw outputs go onto the meta */
  gboolean postprocess_in_graph; /* the decoder's post-processing runs in the graph */
  tfl_decoder_options postprocess_opts;
  fit_mode fit;                /* the fit in use: the property's, or for fit=auto the
                                  model family's (set with the model) */
  GstTfliteInferGl *gl;        /* non-NULL while the GL path runs */
  GstTfliteGlStarter *gl_starter; /* gl-start=cpu: the GL engine being made */
  GstGLContext *warm_context;  /* gl-start=cpu: the context it compiles on first, kept to
                                  finalize so every start compiles on its one thread */
  GstTfliteRegions *regions;   /* regions-from's state (NULL: whole frames) */
  gboolean failed;             /* the runtime could not be made (not retried until reset) */
  gchar *software_gl;          /* delegate=auto on a software GL renderer: its name */
  gboolean warned_software_gl; /* its warning is given once per element */
  tfl_diag diag;               /* the runtime's errors and log lines */

  /* per frame */
  guint64 frames;              /* the element's frame count (it sets it before prepare) */
  gint last_batch;             /* frames in the last inference's run */
  gdouble last_latency_ms;
  GstTfliteQueue queue;        /* gl-queue-depth=2's held frames */
  GPtrArray *notices;          /* GstTfliteNotice* warnings not posted yet */
  GstStructure *model_message; /* a "tflite-model" message is due: its extra fields */
} GstTfliteInfer;

/* The GL share group's context for system-memory frames with delegate=gl, or why there
 * is none (from the element's share group; borrowed for the call). */
typedef struct {
  GstGLContext *share_context;
  const gchar *share_error;
} GstTfliteGlShare;

void gst_tflite_infer_init(GstTfliteInfer *in, GstElement *owner);
void gst_tflite_infer_finalize(GstTfliteInfer *in);

/* A new settings snapshot (ref taken): the runtime made from the old one goes first. */
void gst_tflite_infer_set_settings(GstTfliteInfer *in, const GstTfliteSettings *cfg);
/* The frames' format and path; the runtime goes when the path changes (or the frames of
 * a GL upload do). */
void gst_tflite_infer_set_info(GstTfliteInfer *in, const GstVideoInfo *info, gboolean is_gl);

/* Loads the model's policy (labels, normalization, decoder). FALSE with *fail set
 * (model load errors are posted on owner by gsttflitemodel.c: *fail then has no error). */
gboolean gst_tflite_infer_load_model(GstTfliteInfer *in, GstTfliteNotice *fail);
/* The runtime for the frames (buf: the first GL frame, or NULL for system memory), made
 * once: TRUE when it runs. A failure is not retried until the settings, path or state
 * change (*fail set the first time only). Also hands over to a GL engine made in the
 * background (gl-start=cpu) between two frames. */
gboolean gst_tflite_infer_prepare(GstTfliteInfer *in, GstBuffer *buf, const GstTfliteGlShare *share,
                                  GstTfliteNotice *fail);
/* Everything made for the frames goes (the settings stay). */
void gst_tflite_infer_release(GstTfliteInfer *in);
/* The warnings collected since the last call (the caller frees the array). */
GPtrArray *gst_tflite_infer_take_notices(GstTfliteInfer *in);
/* Posts the "tflite-model" message that is due (a runtime made, or GL taken over), on
 * owner: the element calls it after posting the warnings, so they keep their order. */
void gst_tflite_infer_post_model(GstTfliteInfer *in);

G_END_DECLS

#endif
