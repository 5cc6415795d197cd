/* gsttflitefilter.h - runs a .tflite model on video frames and attaches the decoded
 * results (GstTfliteMeta objects) to each buffer; the video passes through unchanged. */
#ifndef GST_TFLITE_FILTER_H
#define GST_TFLITE_FILTER_H

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include "decoders/tfl_decoder.h"
#include "gsttfliteenums.h"
#include "gsttflitemeta.h"
#include "gsttflitemodel.h"
#include "preprocess/preprocess.h"
#include "runtime/tfl_engine.h"

G_BEGIN_DECLS

#define GST_TYPE_TFLITE_FILTER (gst_tflite_filter_get_type())
G_DECLARE_FINAL_TYPE(GstTfliteFilter, gst_tflite_filter, GST, TFLITE_FILTER, GstBaseTransform)

typedef struct _GstTfliteFilterGl GstTfliteFilterGl; /* the GL path's state (gsttflitefilter_gl.c) */

/* A frame whose results are still on the GPU (gl-queue-depth=2, gsttflitefilter_queue.c). */
typedef struct {
  GstBuffer *buf;              /* the frame, its meta waiting for the results (ref); NULL: none */
  gint queued;                 /* its read-back (gst_tflite_filter_gl_run) */
  tfl_transform tr;
  GstBuffer *gl_mask;          /* its mask texture, if any (ref) */
  gint64 t0;                   /* when its inference started (g_get_monotonic_time) */
  gint batch;                  /* frames in its run */
} GstTfliteHeldFrame;

struct _GstTfliteFilter {
  GstBaseTransform parent;

  /* properties, guarded by the object lock; `settings_changed` makes the streaming
   * thread rebuild the runtime at the next buffer */
  GstTfliteModelSettings model_settings;
  GstTfliteDelegate delegate_kind;
  gint threads;
  GstTflitePrecision precision;
  gchar *cache_dir;
  gint gl_profile;             /* gl_device_profile (gl-profile) */
  tfl_decoder_options decoder_opts;
  guint inference_interval;
  gboolean qos;
  fit_mode fit;
  gboolean gl_readback;        /* GL path: read masks back to the CPU on every frame */
  guint gl_queue_depth;        /* 1: a frame leaves with its results; 2: one frame is held
                                  while its read-back finishes on the GPU */
  gchar *instance_id;          /* model-instance-id: the shared engine's name */
  guint batch_window_us;       /* batching across streams; 0: off */
  guint max_batch;
  /* models on regions (gsttflitefilter_regions.c) */
  gchar *regions_from;         /* upstream tflitefilter whose detections are the regions; NULL: the frame */
  gchar *region_labels;        /* comma-separated labels to take; NULL: every label */
  guint max_regions, min_region_size;
  gboolean track_regions;      /* landmarks carry the region to the next frame */
  GstTfliteEngineContext engine_context;
  GstTfliteGlStart gl_start;
  gboolean keep_tensors;       /* other decoders' results carry the raw outputs too */
  gboolean settings_changed;

  /* streaming state */
  GstVideoInfo info;
  gboolean is_gl;
  GQuark source;               /* the element's name: objects' source */
  GstTfliteModel model;        /* labels, normalization, decoder kind; the policy's graph */
  struct _GstTfliteEngine *engine; /* shared with every element of the same model (ref) */
  gboolean runtime_failed;     /* the runtime could not be made (error posted once) */
  struct tfl_stream *stream;   /* this element's stream on it */
  tfl_decoder *decoder;
  gboolean tensors_out;        /* every inference's raw outputs go onto the meta
                                  (decoder=tensors or keep-tensors; set by load_model) */
  struct _GstTfliteGlStarter *gl_starter; /* gl-start=cpu: the GL engine being made while
                                             the CPU engine runs (gsttflitefilter_start.c) */
  gboolean postprocess_in_graph; /* the decoder's post-processing is appended to the graph
                                    (tfl_decoder_append_postprocess), with these options */
  tfl_decoder_options postprocess_opts;
  GstTfliteFilterGl *gl;       /* non-NULL while the GL path runs */
  /* GL share group (gsttfliteglshare.h), from READY to NULL */
  struct _GstGLDisplay *gl_display;
  struct _GstGLContext *app_context;   /* the application's, if it gave one */
  struct _GstGLContext *share_context; /* handed to GL elements as their app context; runs
                                          delegate=gl on system-memory frames */
  gchar *gl_share_error;               /* why there is no share_context */
  gchar *software_gl;          /* delegate=auto on GL frames of a software renderer: its
                                  GL_RENDERER (the CPU runs the model); NULL otherwise */
  gboolean warned_software_gl; /* its warning is posted once per element */
  tfl_diag diag;               /* the runtime's errors and log lines for this element */
  guint64 frame_count;
  tfl_results last_results;    /* reused on skipped frames */
  GstBuffer *last_gl_mask;     /* its GL mask, if any (ref) */
  gboolean have_last;
  GstClockTime earliest_time;  /* from QoS events */
  gdouble last_latency_ms;
  gint last_batch;             /* frames in the last inference's run */
  guint frames_since_run;      /* the age of reused results */
  struct _GstTfliteRegions *regions; /* region mode's state (NULL: whole frames) */
  gboolean paused_by_downstream; /* a downstream tflitefilter tracks our objects itself
                                    (object lock; gsttflitefilter_regions.c) */
  /* gl-queue-depth=2 (gsttflitefilter_queue.c), streaming thread */
  GstTfliteHeldFrame submitted; /* queued by transform_ip, buf still basetransform's */
  GstTfliteHeldFrame held;     /* queued a frame ago, not pushed yet */
  GstBuffer *ready;            /* the held frame with its results: pushed before the next one */
  GstBuffer *next_out;         /* a frame that waits for `ready` to be pushed first */
};

/* Runs the model once per transform trs[0..n-1] on buf (one batch where the engine
 * allows), results in res[i]; a GL mask only for n == 1 with gl_mask non-NULL. FALSE
 * after posting an element error. Streaming thread. */
gboolean gst_tflite_filter_run(GstTfliteFilter *self, GstBuffer *buf, const tfl_transform *trs, gint n,
                               tfl_results *res, GstBuffer **gl_mask, gint *queued);

/* The GL engine could not be made (err: why): with delegate=gl an element error and FALSE,
 * else a warning (the CPU runs the model) and TRUE. */
gboolean gst_tflite_filter_gl_unavailable(GstTfliteFilter *self, const GError *err);
/* The GL path's state (self->gl) for self's GL engine; FALSE after an element error. */
gboolean gst_tflite_filter_make_gl_path(GstTfliteFilter *self);
/* The "tflite-model" message for self's engine, with the fields of extra (may be NULL). */
void gst_tflite_filter_post_model(GstTfliteFilter *self, const GstStructure *extra);

/* A frame's fresh whole-frame results (res, taken; gl_mask borrowed) onto buf's meta, kept
 * for the frames that skip inference, and announced (ROI metas, "tflite-results"). */
void gst_tflite_filter_add_run_results(GstTfliteFilter *self, GstBuffer *buf, tfl_results *res, GstBuffer *gl_mask);

/* For the paths' jobs (on the engine's thread): decodes slot `slot` of the runner's
 * outputs into res; on failure a sentence in error. */
tfl_status gst_tflite_filter_decode_slot(GstTfliteFilter *self, tfl_interpreter *it, int slot,
                                         const tfl_transform *tr, tfl_results *res, char *error, size_t error_size);
/* After decoding (outs: the graph's outputs on the CPU): with keep-tensors, their bytes
 * copied into res too (decoder=tensors has them already); on failure a sentence in error. */
tfl_status gst_tflite_filter_keep_tensors(GstTfliteFilter *self, const tfl_tensor *const *outs, int n,
                                          tfl_results *res, char *error, size_t error_size);
/* The .modelinfo's output ids onto the meta's tensors from index `first` on (the ones this
 * element just added). */
void gst_tflite_filter_tensor_ids(GstTfliteFilter *self, GstTfliteMeta *meta, guint first);
/* A mask left on the GPU: its kind, size and placement in res, no pixels. */
void gst_tflite_filter_mask_geometry(GstTfliteFilter *self, const tfl_transform *tr, tfl_results *res);

/* The fit in use: the 'fit' property, or for fit=auto the model family's
 * (preprocess_model_fit: Ultralytics YOLO's grey letterbox), else stretch. */
fit_mode gst_tflite_filter_fit(GstTfliteFilter *self);
/* The frame's YUV matrix and range for preprocessing (both paths use the same). */
pix_yuv gst_tflite_filter_yuv_of(const GstVideoInfo *info);

G_END_DECLS

#endif
