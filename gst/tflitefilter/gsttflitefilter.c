/**
 * SECTION:element-tflitefilter
 * @title: tflitefilter
 *
 * Runs a TensorFlow Lite model (.tflite) on each video frame and attaches the decoded
 * results (classes, boxes, masks, keypoints) to the buffer as #GstTfliteMeta; the
 * video itself passes through unchanged. GL frames (memory:GLMemory, RGBA) go
 * zero-copy into the GL compute delegate on GStreamer's GL thread (2D textures, or the
 * external-oes RGBA textures glupload makes of imported DMABufs, on GLES); system-memory
 * and DMABuf frames go to the CPU delegate, mapped in place, converted, resized and
 * normalized in one pass.
 *
 * After each inference an element message "tflite-results" carries the results; when
 * the model is loaded a "tflite-model" message says which decoder was picked and which
 * delegate runs how many nodes (ops that fell back to the CPU are listed). Their fields
 * are listed in docs/bus-messages.md. Every object is also a GstVideoRegionOfInterestMeta
 * with "detection", "classification", "landmarks", "segmentation" and "tracking"
 * parameters (docs/objects.md), readable from any language with GstVideo alone.
 *
 * A cold start on GL compiles every GL program of the model (seconds without the driver's
 * shader cache). With #GstTfliteFilter:gl-start=cpu the first frames run on the CPU
 * meanwhile (GL frames are read through a download; their results are the CPU's, CPU masks
 * that tfliteoverlay draws on GL frames too) while the GL engine is made on a thread of its
 * own, and the frame after it is ready runs on GL; "tflite-model" is posted again then,
 * with the time it took:
 * |[
 * gst-launch-1.0 gltestsrc is-live=true ! 'video/x-raw(memory:GLMemory),width=1280,height=720' ! \
 *   tflitefilter model=selfie_segmentation.tflite gl-start=cpu ! tfliteoverlay ! glimagesink
 * ]|
 *
 * With #GstTfliteFilter:regions-from the model runs on the regions an upstream
 * tflitefilter detected instead of the whole frame (MediaPipe's rotated, scaled regions
 * for its pose, hand and face landmark models; the box for other models), all regions of
 * a frame in one batch, and its results are children of their detection:
 * |[
 * gst-launch-1.0 filesrc location=astronaut.png ! pngdec ! videoconvert ! \
 *   tflitefilter name=det model=pose_detection.tflite ! \
 *   tflitefilter model=pose_landmark_full.tflite regions-from=det ! tfliteoverlay ! \
 *   videoconvert ! pngenc ! filesink location=pose.png
 * ]|
 *
 * On the GL path a segmentation mask stays on the GPU: the meta carries it as a GL
 * texture (#GstTfliteMeta.mask_texture, drawn by tfliteoverlay) with its size, kind and
 * placement, and from the second inference on no output is read back, so the element
 * never waits for the GPU. Those frames' meta has no CPU mask pixels and their
 * "tflite-results" message no "mask-fraction" / "mask-areas" (it says "mask-gpu-only");
 * set #GstTfliteFilter:gl-readback for CPU pixels on every frame: the argmax class (or
 * the probability) is then made on the GPU and only one byte per mask pixel comes back,
 * not the model's float output. Other decoders always read their outputs back; detectors
 * read back only their final boxes: an SSD's TFLite_Detection_PostProcess runs where the
 * model does, and a MediaPipe detector (face, palm, pose detection) gets its anchor
 * decoding and weighted non-maximum suppression appended to the graph, on the GPU too,
 * and so does an SSD without that op (box decoding and non-maximum suppression per class:
 * SSD MobileNet v2 oidv4) (a few hundred bytes come back instead of the raw heads; on the
 * CPU past 100 results), and an Ultralytics YOLO's thresholding and non-maximum suppression
 * (per class, or over all with #GstTfliteFilter:class-agnostic; docs/yolo.md).
 * That step takes threshold, iou-threshold, max-results and class-agnostic as they are when the element
 * starts, as the decoders do. With #GstTfliteFilter:gl-queue-depth=2 the element holds one
 * frame, so the CPU goes on with the next frame while the GPU finishes the results of the
 * last one (a mask's bytes, or whatever the decoder reads; one frame more latency).
 *
 * Any other model: decoder=tensors attaches every output tensor (name, type, shape,
 * quantization, bytes) to the meta instead of decoding it, and #GstTfliteFilter:keep-tensors
 * does so beside any decoder; a ".modelinfo" file beside the model (GStreamer 1.28's format)
 * gives its input range, decoder and labels (docs/bring-your-own-model.md):
 * |[
 * gst-launch-1.0 filesrc location=astronaut.png ! pngdec ! videoconvert ! \
 *   tflitefilter model=my_model.tflite decoder=tensors ! appsink
 * ]|
 *
 * Many streams: every tflitefilter of a process with the same model file, delegate,
 * precision, threads and #GstTfliteFilter:model-instance-id runs on one shared engine (one
 * loaded model, one set of packed weights or GL programs and constants); each stream keeps
 * only its results. Frames of several streams that reach the engine within
 * #GstTfliteFilter:batch-window run as one batch (models whose outputs carry the batch);
 * a stream alone never waits. On the GL path every GL element of the pipeline joins one
 * share group (tflitefilter answers their "gst.gl.app_context" query), so streams whose
 * sources made GL contexts of their own still share the engine; the frames and masks that
 * cross contexts are fenced with #GstGLSyncMeta. Results own their data: a mask texture
 * belongs to the buffer's meta, valid behind any queue until the buffer is freed. Behind a
 * tee the element copies the buffer's metadata (never the pixels) to add its meta.
 *
 * Settings may change while PLAYING (a model swap, say): every property but
 * inference-interval, qos, gl-readback and gl-queue-depth makes the next frame rebuild the
 * runtime from one snapshot of all of them, taken at once under the object lock, so a
 * rebuild never mixes the old and the new values (a frame held by gl-queue-depth=2 gets
 * its results from the runtime it ran on first). A model that cannot be loaded is an
 * element error naming the file.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 filesrc location=astronaut.png ! pngdec ! videoconvert ! \
 *   video/x-raw,format=RGBA ! tflitefilter model=selfie_segmentation.tflite ! fakesink -m
 * ]|
 *
 * Since: 0.1
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gsttflitefilter.h"

#include <gst/gl/gl.h>
#include <gst/video/video.h>
#include <string.h>

#include "delegates/gl/gl_delegate.h"
#include "gsttfliteenums.h"
#include "gsttfliteglelement.h"
#include "gsttfliteglshare.h"
#include "gsttflitemessages.h"
#include "gsttflitenames.h"
#include "gsttflitesettings.h"
#include "tflinfer.h"
#include "tflinfer_decode.h"
#include "tflinfer_regions.h"
#include "tflinfer_run.h"

GST_DEBUG_CATEGORY(gst_tflite_filter_debug);
#define GST_CAT_DEFAULT gst_tflite_filter_debug

/* The element: properties, caps, events and meta. The inference (engine, paths, held
 * frames, regions) is self->infer's (tflinfer.h), which never calls back here. */
struct _GstTfliteFilter {
  GstBaseTransform parent;

  /* properties, guarded by the object lock. `props` are the ones that need the runtime
   * rebuilt: setting one raises `settings_changed`, and the streaming thread takes one
   * snapshot of them all at the next buffer (gsttflitesettings.h) for the inference
   * object; nothing made from it reads `props` again. */
  GstTfliteSettings props;
  gboolean settings_changed;
  guint inference_interval;    /* per frame, read under the lock */
  gboolean qos;
  gboolean gl_readback;        /* GL path: read masks back to the CPU on every frame */
  guint gl_queue_depth;        /* 1: a frame leaves with its results; 2: one frame is held
                                  while its read-back finishes on the GPU */

  /* streaming state */
  GstTfliteInfer infer;        /* the frames' inference: runtime, paths, held frames, regions */
  GQuark source;               /* the element's name: objects' source */
  guint64 frame_count;
  tfl_results last_results;    /* reused on skipped frames */
  GstBuffer *last_gl_mask;     /* its GL mask, if any (ref) */
  gboolean have_last;
  guint frames_since_run;      /* the age of reused results */
  GstClockTime earliest_time;  /* from QoS events (object lock) */
  gboolean paused_by_downstream; /* a downstream tflitefilter tracks our objects itself
                                    (object lock) */
  /* GL share group (gsttfliteglshare.h), from READY to NULL */
  GstTfliteGlElement gl;       /* the display, app context and share_context. No gl_start:
                                  the stream's GL objects (tflinfer_gl.c, tflinfer_start.c)
                                  live on the engine's context, which may be the frames'
                                  (engine-context=frames) or one in no share group, and
                                  need the engine's delegate and the caps, which come after
                                  this context starts; docs/boards.md */
  GstGLContext *share_context; /* handed to GL elements as their app context; runs
                                  delegate=gl on system-memory frames */
  gchar *gl_share_error;       /* why there is no share_context */
};

#define DEFAULT_DELEGATE GST_TFLITE_DELEGATE_AUTO
#define DEFAULT_THREADS 0 /* automatic */
#define MAX_THREADS 64
#define DEFAULT_PRECISION GST_TFLITE_PRECISION_FP16
#define DEFAULT_DECODER TFL_DECODER_AUTO
#define DEFAULT_THRESHOLD 0.5f
#define DEFAULT_MAX_RESULTS 10
#define DEFAULT_IOU 0.3f
#define DEFAULT_INTERVAL 1
#define DEFAULT_QOS TRUE
#define DEFAULT_FIT FIT_AUTO
#define DEFAULT_ANCHORS TFL_ANCHORS_AUTO
#define DEFAULT_GL_READBACK FALSE
#define DEFAULT_GL_QUEUE_DEPTH 1
#define MAX_GL_QUEUE_DEPTH 2
#define DEFAULT_BATCH_WINDOW_US 1000
#define MAX_BATCH_WINDOW_US 1000000
#define DEFAULT_MAX_BATCH 8
#define DEFAULT_MAX_REGIONS 8
#define MAX_MAX_REGIONS 64
#define DEFAULT_MIN_REGION_SIZE 8
#define DEFAULT_TRACK_REGIONS FALSE
#define MAX_MAX_BATCH 64
#define DEFAULT_ENGINE_CONTEXT GST_TFLITE_ENGINE_CONTEXT_FRAMES
#define DEFAULT_GL_START GST_TFLITE_GL_START_WAIT
#define DEFAULT_KEEP_TENSORS FALSE

enum {
  PROP_0,
  PROP_MODEL,
  PROP_LABELS,
  PROP_DELEGATE,
  PROP_THREADS,
  PROP_PRECISION,
  PROP_CACHE_DIR,
  PROP_GL_PROFILE,
  PROP_DECODER,
  PROP_THRESHOLD,
  PROP_MAX_RESULTS,
  PROP_IOU_THRESHOLD,
  PROP_CLASS_AGNOSTIC,
  PROP_INFERENCE_INTERVAL,
  PROP_QOS,
  PROP_INPUT_MEAN,
  PROP_INPUT_STD,
  PROP_FIT,
  PROP_ANCHORS,
  PROP_LATENCY,
  PROP_GL_READBACK,
  PROP_MODEL_INSTANCE_ID,
  PROP_BATCH_WINDOW,
  PROP_MAX_BATCH,
  PROP_REGIONS_FROM,
  PROP_REGION_LABELS,
  PROP_MAX_REGIONS,
  PROP_MIN_REGION_SIZE,
  PROP_TRACK_REGIONS,
  PROP_ENGINE_CONTEXT,
  PROP_GL_QUEUE_DEPTH,
  PROP_GL_START,
  PROP_KEEP_TENSORS,
};

/* what cameras and decoders give; converted to RGB in preprocessing's one pass */
#define SYSMEM_FORMATS "{ RGBA, RGBx, BGRx, BGRA, RGB, BGR, I420, YV12, NV12, NV21, YUY2, UYVY, GRAY8 }"
/* GL frames in every format glupload gives that the texture-input shader reads
 * (gst_tflite_infer_gl_layout): the same list, planes as their own textures; and the
 * external-OES textures glupload makes of DMABufs it imports as EGLImages (RGBA: the
 * driver converts the camera's format when the shader samples). DMABuf frames on the
 * CPU path: mapped (mmap of the fd) like system memory, no copy. */
#define CAPS_STR                                                                              \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES("memory:GLMemory", SYSMEM_FORMATS) ", texture-target=2D; " \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES("memory:GLMemory", "RGBA") ", texture-target=external-oes; " \
  GST_VIDEO_CAPS_MAKE(SYSMEM_FORMATS) "; "                                                     \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES("memory:DMABuf", SYSMEM_FORMATS)

static GstStaticPadTemplate sink_template =
  GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS(CAPS_STR));
static GstStaticPadTemplate src_template =
  GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(CAPS_STR));

G_DEFINE_TYPE(GstTfliteFilter, gst_tflite_filter, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE(tflitefilter, "tflitefilter", GST_RANK_NONE, GST_TYPE_TFLITE_FILTER,
                                      GST_DEBUG_CATEGORY_INIT(gst_tflite_filter_debug, "tflitefilter", 0,
                                                              "TensorFlow Lite inference"));

/* ---- the inference object's results as meta (streaming thread) ---- */

static void forget_last(GstTfliteFilter *self)
{
  tfl_results_clear(&self->last_results);
  gst_clear_buffer(&self->last_gl_mask);
  self->have_last = FALSE;
}

/* Posts what the inference object reported: its warnings, then fail (if set). */
static void post_notices(GstTfliteFilter *self, GstTfliteNotice *fail)
{
  GPtrArray *w = self->infer.notices->len ? gst_tflite_infer_take_notices(&self->infer) : NULL;
  for (guint i = 0; w && i < w->len; i++) {
    const GstTfliteNotice *n = g_ptr_array_index(w, i);
    gst_element_message_full(GST_ELEMENT(self), GST_MESSAGE_WARNING, n->error->domain, n->error->code,
                             g_strdup(n->error->message), g_strdup(n->debug), __FILE__, GST_FUNCTION, __LINE__);
  }
  if (w) g_ptr_array_unref(w);
  /* the model message comes after the warnings of its making, as they happened */
  if (self->infer.model_message) gst_tflite_infer_post_model(&self->infer);
  if (!fail || !fail->error) return;
  gst_element_message_full(GST_ELEMENT(self), GST_MESSAGE_ERROR, fail->error->domain, fail->error->code,
                           g_strdup(fail->error->message), g_strdup(fail->debug), __FILE__, GST_FUNCTION, __LINE__);
  gst_tflite_notice_clear(fail);
}

static void release_runtime(GstTfliteFilter *self)
{
  forget_last(self); /* masks first: they hold textures of the GL path's pool */
  gst_tflite_infer_release(&self->infer);
}

/* One snapshot of every rebuild setting, taken with the change flag cleared under the
 * same lock: a property set later raises the flag again for the next rebuild. The
 * runtime made from the last one goes. */
static void take_settings(GstTfliteFilter *self)
{
  GST_OBJECT_LOCK(self);
  self->settings_changed = FALSE;
  const GstTfliteSettings *cfg = gst_tflite_settings_snapshot(&self->props);
  GST_OBJECT_UNLOCK(self);
  forget_last(self);
  gst_tflite_infer_set_settings(&self->infer, cfg);
  gst_tflite_settings_unref(cfg);
}

/* A whole frame's results onto its meta: fresh ones (kept for the frames that skip
 * inference) or the kept ones again (res is filled with a copy). */
static void add_frame_results(GstTfliteFilter *self, GstTfliteMeta *meta, tfl_results *res, GstBuffer *gl_mask,
                              gboolean fresh)
{
  const GstVideoInfo *info = &self->infer.info;
  if (fresh) {
    forget_last(self);
    /* repeated frames carry the objects, not the raw tensors (no copy of those) */
    tfl_results kept = *res;
    kept.n_tensors = 0;
    kept.tensors = NULL;
    if (tfl_results_copy(&self->last_results, &kept) != 0) tfl_results_clear(&self->last_results);
    self->last_gl_mask = gl_mask ? gst_buffer_ref(gl_mask) : NULL;
    self->have_last = TRUE;
    self->frames_since_run = 0;
  } else {
    self->frames_since_run++;
  }
  guint first = gst_tflite_meta_n_objects(meta), t0 = gst_tflite_meta_n_tensors(meta);
  const gfloat frame[4] = { 0, 0, (gfloat)GST_VIDEO_INFO_WIDTH(info), (gfloat)GST_VIDEO_INFO_HEIGHT(info) };
  gst_tflite_meta_add_results(meta, res, self->source, 0, frame, self->infer.model.labels, gl_mask);
  gst_tflite_infer_tensor_ids(&self->infer, meta, t0);
  /* repeated results say how old they are (a tracker tells them from fresh ones) */
  for (guint i = first; i < gst_tflite_meta_n_objects(meta); i++)
    gst_tflite_meta_get_object_writable(meta, i)->age = self->frames_since_run;
}

/* What was added to the meta, announced: GStreamer's standard region metadata mirrors it,
 * and a fresh inference posts its "tflite-results". */
static void announce(GstTfliteFilter *self, GstBuffer *buf, GstTfliteMeta *meta, gboolean fresh)
{
  gst_tflite_meta_sync_rois(meta, buf);
  if (fresh)
    gst_tflite_post_results_message(GST_ELEMENT(self), meta, self->source, GST_BUFFER_PTS(buf),
                                    self->infer.last_latency_ms, self->infer.last_batch,
                                    self->infer.gl ? "gl" : "cpu");
}

/* ---- gl-queue-depth=2 (tflinfer_queue.h) ---- */

static gboolean queue_wanted(GstTfliteFilter *self)
{
  GST_OBJECT_LOCK(self);
  guint depth = self->gl_queue_depth;
  GST_OBJECT_UNLOCK(self);
  return depth > 1 && self->infer.gl && self->infer.is_gl;
}

/* The held frame's results onto it; it is pushed before the next frame. FALSE after
 * posting an element error (the frame is dropped). TRUE when nothing is held. */
static gboolean complete_held(GstTfliteFilter *self)
{
  GstTfliteCompleted c;
  tfl_results res = { 0 };
  GstTfliteNotice fail = { 0 };
  if (!gst_tflite_infer_complete_held(&self->infer, &c, &res, &fail)) {
    post_notices(self, &fail);
    return FALSE;
  }
  if (!c.buf) return TRUE;
  /* its message says how long the frame waited for its results, and its own batch */
  gint last_batch = self->infer.last_batch;
  self->infer.last_batch = c.batch;
  GstTfliteMeta *meta = gst_buffer_get_tflite_meta(c.buf);
  add_frame_results(self, meta, &res, c.gl_mask, TRUE);
  tfl_results_clear(&res);
  announce(self, c.buf, meta, TRUE);
  self->infer.last_batch = last_batch;
  gst_clear_buffer(&c.gl_mask);
  gst_tflite_queue_set_ready(&self->infer.queue, c.buf);
  return TRUE;
}

/* basetransform's generate_output: the frames in order, the queued one held back. */
static GstFlowReturn generate_output(GstBaseTransform *trans, GstBuffer **out)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(trans);
  if ((*out = gst_tflite_queue_take_next(&self->infer.queue))) return GST_FLOW_OK;
  GstFlowReturn ret = GST_BASE_TRANSFORM_CLASS(gst_tflite_filter_parent_class)->generate_output(trans, out);
  gst_tflite_queue_order(&self->infer.queue, *out, ret == GST_FLOW_OK, out);
  return ret;
}

/* Pushes the held frame with its results (before a serialized event or a drain). */
static GstFlowReturn drain_held(GstTfliteFilter *self)
{
  if (!gst_tflite_queue_held(&self->infer.queue)) return GST_FLOW_OK;
  if (!complete_held(self)) return GST_FLOW_ERROR;
  GstBuffer *buf = gst_tflite_queue_take_ready(&self->infer.queue);
  GST_LOG_OBJECT(self, "pushing the held frame %" GST_TIME_FORMAT, GST_TIME_ARGS(GST_BUFFER_PTS(buf)));
  return gst_pad_push(GST_BASE_TRANSFORM_SRC_PAD(self), buf);
}

/* A LATENCY query's answer from upstream plus the held frame's duration. */
static void add_held_latency(GstTfliteFilter *self, GstQuery *query)
{
  GST_OBJECT_LOCK(self);
  guint depth = self->gl_queue_depth;
  GST_OBJECT_UNLOCK(self);
  if (depth < 2) return;
  gint n = GST_VIDEO_INFO_FPS_N(&self->infer.info), d = GST_VIDEO_INFO_FPS_D(&self->infer.info);
  if (n <= 0 || d <= 0) {
    GST_DEBUG_OBJECT(self, "gl-queue-depth=%u: no frame rate (%d/%d), no frame's latency to add", depth, n, d);
    return;
  }
  GstClockTime frame = gst_util_uint64_scale_int_ceil(GST_SECOND, d, n) * (depth - 1);
  gboolean live;
  GstClockTime min, max;
  gst_query_parse_latency(query, &live, &min, &max);
  gst_query_set_latency(query, live, min + frame, GST_CLOCK_TIME_IS_VALID(max) ? max + frame : max);
  GST_DEBUG_OBJECT(self, "latency + %" GST_TIME_FORMAT " (one frame held)", GST_TIME_ARGS(frame));
}

/* ---- per frame ---- */

/* The runtime for the current caps and settings; FALSE after an element error. A failure
 * is not retried (and posted again) until the settings, caps or state change. */
static gboolean ensure_runtime(GstTfliteFilter *self, GstBuffer *buf)
{
  GST_OBJECT_LOCK(self);
  gboolean changed = self->settings_changed;
  GST_OBJECT_UNLOCK(self);
  /* a frame held by gl-queue-depth=2 gets its results from the runtime it ran on */
  if (changed && !complete_held(self)) return FALSE;
  if (changed) take_settings(self);
  GstTfliteGlShare share = { self->share_context, self->gl_share_error };
  GstTfliteNotice fail = { 0 };
  self->infer.frames = self->frame_count;
  gboolean ok = gst_tflite_infer_prepare(&self->infer, buf, &share, &fail);
  if (!ok) forget_last(self);
  post_notices(self, &fail);
  return ok;
}

static gboolean is_late(GstTfliteFilter *self, GstBuffer *buf)
{
  GST_OBJECT_LOCK(self);
  gboolean qos = self->qos;
  GstClockTime earliest = self->earliest_time;
  GST_OBJECT_UNLOCK(self);
  if (!qos || !GST_CLOCK_TIME_IS_VALID(earliest)) return FALSE;
  GstClockTime rt = gst_segment_to_running_time(&GST_BASE_TRANSFORM(self)->segment, GST_FORMAT_TIME,
                                                GST_BUFFER_PTS(buf));
  return GST_CLOCK_TIME_IS_VALID(rt) && rt < earliest;
}

/* Region mode's frame, and the detector asked to pause or resume after it. */
static gboolean regions_frame(GstTfliteFilter *self, GstBuffer *buf, GstTfliteMeta *meta, gboolean run)
{
  GstTfliteRegionFrame f = { self->source, &self->frames_since_run, &self->have_last };
  GstTfliteNotice fail = { 0 };
  if (!gst_tflite_infer_regions_frame(&self->infer, buf, meta, run, &f, &fail)) {
    post_notices(self, &fail);
    return FALSE;
  }
  gboolean pause;
  const gchar *detector;
  if (gst_tflite_regions_pause_request(self->infer.regions, &pause, &detector)) {
    GST_DEBUG_OBJECT(self, "asking \"%s\" to %s", detector, pause ? "pause" : "resume");
    GstStructure *s = gst_structure_new(GST_TFLITE_TRACK_REGIONS_EVENT, "detector", G_TYPE_STRING, detector, "pause",
                                        G_TYPE_BOOLEAN, pause, NULL);
    gst_pad_push_event(GST_BASE_TRANSFORM_SINK_PAD(self), gst_event_new_custom(GST_EVENT_CUSTOM_UPSTREAM, s));
  }
  return TRUE;
}

static GstFlowReturn gst_tflite_filter_transform_ip(GstBaseTransform *trans, GstBuffer *buf)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(trans);
  if (!ensure_runtime(self, buf)) return GST_FLOW_ERROR;

  gint fw = GST_VIDEO_INFO_WIDTH(&self->infer.info), fh = GST_VIDEO_INFO_HEIGHT(&self->infer.info);
  GST_OBJECT_LOCK(self);
  guint interval = self->inference_interval ? self->inference_interval : 1;
  gboolean paused = self->paused_by_downstream;
  gboolean readback = self->gl_readback;
  GST_OBJECT_UNLOCK(self);
  gboolean run = !self->have_last || (self->frame_count % interval == 0 && !is_late(self, buf));
  self->frame_count++;
  /* results reused, regions or none: the held frame's results come first */
  if ((!run || paused || self->infer.regions) && !complete_held(self)) return GST_FLOW_ERROR;

  /* basetransform made the buffer writable (no pixel copy: memories are shared) */
  GstTfliteMeta *meta = gst_buffer_add_tflite_meta(buf, fw, fh);
  if (!meta) {
    GST_ELEMENT_ERROR(self, CORE, FAILED, ("Could not attach the results to the buffer."),
                      ("The buffer is not writable."));
    return GST_FLOW_ERROR;
  }
  if (self->infer.regions) {
    if (!regions_frame(self, buf, meta, run)) return GST_FLOW_ERROR;
  } else if (paused) {
    /* a downstream element follows our objects from its own results: no inference, and
     * no stale results either */
    forget_last(self);
  } else {
    tfl_transform tr = gst_tflite_infer_frame_transform(&self->infer, fw, fh);
    tfl_results res = { 0 };
    GstBuffer *gl_mask = NULL;
    if (run) {
      gint queued = -1;
      gint64 t0 = g_get_monotonic_time();
      GstTfliteNotice fail = { 0 };
      if (!gst_tflite_infer_run(&self->infer, buf, &tr, 1, readback, &res, &gl_mask,
                                queue_wanted(self) ? &queued : NULL, &fail)) {
        post_notices(self, &fail);
        tfl_results_clear(&res);
        gst_clear_buffer(&gl_mask);
        return GST_FLOW_ERROR;
      }
      /* the held frame ran first: its results first */
      if (!complete_held(self)) {
        tfl_results_clear(&res);
        gst_clear_buffer(&gl_mask);
        return GST_FLOW_ERROR;
      }
      if (queued >= 0) {
        /* results a frame later: generate_output holds this frame (takes gl_mask) */
        gst_tflite_queue_submit(&self->infer.queue, queued, &tr, gl_mask, t0, self->infer.last_batch);
        return GST_FLOW_OK;
      }
    } else {
      if (tfl_results_copy(&res, &self->last_results) != 0) tfl_results_clear(&res);
      gl_mask = self->last_gl_mask ? gst_buffer_ref(self->last_gl_mask) : NULL;
    }
    add_frame_results(self, meta, &res, gl_mask, run);
    gst_clear_buffer(&gl_mask);
  }
  announce(self, buf, meta, run && !paused);
  return GST_FLOW_OK;
}

/* ---- the GL share group (gsttfliteglshare.h) ---- */

/* The display, before the GL elements upstream start (states change downstream first), so
 * they all find this one display. */
static void find_gl_display(GstTfliteFilter *self)
{
  GST_OBJECT_LOCK(self);
  gboolean cpu = self->props.delegate_kind == GST_TFLITE_DELEGATE_CPU;
  gboolean automatic = self->props.delegate_kind == GST_TFLITE_DELEGATE_AUTO;
  GST_OBJECT_UNLOCK(self);
  g_clear_pointer(&self->gl_share_error, g_free);
  /* auto runs system-memory frames on the CPU: a pipeline with no GL element needs no
   * display (GL frames from a decoder added later bring their own context) */
  if (cpu || (automatic && !self->gl.display && !gst_tflite_pipeline_has_gl(GST_ELEMENT(self)))) {
    if (!cpu) self->gl_share_error = g_strdup("no GL element in the pipeline when it started");
    return;
  }
  if (!gst_tflite_gl_element_ensure_display(&self->gl))
    self->gl_share_error = g_strdup("no GL display could be opened");
}

/* When a GL element asks for an app context (making its own GL context), or delegate=gl
 * needs a context of its own: the context to share with. Only then, so CPU pipelines
 * never make a GL context. */
static void join_gl_share_group(GstTfliteFilter *self)
{
  if (self->share_context || !self->gl.display) return;
  g_clear_pointer(&self->gl_share_error, g_free);
  GError *err = NULL;
  self->share_context = gst_tflite_gl_share_get(self->gl.display, self->gl.app_context, &err);
  /* the element's context, which it lends (no GL objects of its own: the engine makes them) */
  if (self->share_context) gst_tflite_gl_element_start(&self->gl, self->share_context, NULL);
  if (!self->share_context) {
    self->gl_share_error = g_strdup(err ? err->message : "the shared GL context could not be made");
    GST_INFO_OBJECT(self, "no shared GL context (streams' GL contexts stay apart): %s", self->gl_share_error);
  }
  g_clear_error(&err);
}

static void leave_gl_share_group(GstTfliteFilter *self)
{
  g_clear_pointer(&self->gl_share_error, g_free);
  gst_clear_object(&self->share_context);
  gst_tflite_gl_element_clear(&self->gl);
}

static GstStateChangeReturn gst_tflite_filter_change_state(GstElement *element, GstStateChange transition)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(element);
  if (transition == GST_STATE_CHANGE_NULL_TO_READY) {
    find_gl_display(self);
    /* delegate=gl runs on GL whatever the frames; with no GL at all it never could: fail
     * now, not at the first frame */
    GST_OBJECT_LOCK(self);
    gboolean gl = self->props.delegate_kind == GST_TFLITE_DELEGATE_GL;
    GST_OBJECT_UNLOCK(self);
    if (gl) join_gl_share_group(self);
    if (gl && !self->gl.display) {
      GST_ELEMENT_ERROR(self, LIBRARY, INIT, ("delegate=gl, but no GL context with compute shaders can be made."),
                        ("%s", self->gl_share_error ? self->gl_share_error : "?"));
      leave_gl_share_group(self);
      return GST_STATE_CHANGE_FAILURE;
    }
    /* a display but no context of our own: GL frames bring theirs (system-memory frames
     * fail at the first frame, naming this reason) */
    if (gl && !self->share_context)
      GST_ELEMENT_WARNING(self, LIBRARY, INIT,
                          ("delegate=gl, but the element has no GL context of its own: the model runs on the "
                           "frames' GL context."), ("%s", self->gl_share_error ? self->gl_share_error : "?"));
  }
  GstStateChangeReturn ret = GST_ELEMENT_CLASS(gst_tflite_filter_parent_class)->change_state(element, transition);
  if (transition == GST_STATE_CHANGE_READY_TO_NULL) leave_gl_share_group(self);
  return ret;
}

static void gst_tflite_filter_set_context(GstElement *element, GstContext *context)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(element);
  gst_tflite_gl_element_set_context(&self->gl, context);
  GST_ELEMENT_CLASS(gst_tflite_filter_parent_class)->set_context(element, context);
}

/* Whether GL elements upstream are offered the element's own context to run on: with
 * engine-context=frames the engine runs on the frames' context, and a context made by
 * upstream (glupload's) is new with every NULL->PLAYING, its thread too; the engine's
 * GL objects (llvmpipe keeps buffers and textures in malloc'd memory) then landed in a
 * new glibc arena each restart, each keeping its freed engine (RSS +100 MiB a cycle of
 * four selfie streams). The element's context lives as long as the share group. */
static gboolean lends_context(GstTfliteFilter *self)
{
  GST_OBJECT_LOCK(self);
  gboolean lend = self->props.delegate_kind != GST_TFLITE_DELEGATE_CPU &&
                  self->props.engine_context == GST_TFLITE_ENGINE_CONTEXT_FRAMES;
  GST_OBJECT_UNLOCK(self);
  return lend;
}

static gboolean gst_tflite_filter_query(GstBaseTransform *trans, GstPadDirection direction, GstQuery *query)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(trans);
  /* GL elements asking for an app context get the shared one; with engine-context=frames,
   * those upstream asking for a context to run on (glupload) get it too (downstream ones
   * asking upstream still find the frames' context) */
  const gchar *type = NULL;
  if (GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT && gst_query_parse_context_type(query, &type)) {
    gboolean app = !g_strcmp0(type, "gst.gl.app_context");
    gboolean local = direction == GST_PAD_SINK && !g_strcmp0(type, "gst.gl.local_context") && lends_context(self);
    if (app || local) join_gl_share_group(self);
    if (gst_tflite_gl_element_query(&self->gl, query, app ? self->share_context : NULL, local))
      return TRUE;
  }
  /* a drain (allocation changes) takes the held frame too */
  if (direction == GST_PAD_SINK && GST_QUERY_TYPE(query) == GST_QUERY_DRAIN && drain_held(self) == GST_FLOW_ERROR)
    return FALSE;
  gboolean ok = GST_BASE_TRANSFORM_CLASS(gst_tflite_filter_parent_class)->query(trans, direction, query);
  if (ok && direction == GST_PAD_SRC && GST_QUERY_TYPE(query) == GST_QUERY_LATENCY) add_held_latency(self, query);
  return ok;
}

static gboolean gst_tflite_filter_sink_event(GstBaseTransform *trans, GstEvent *event)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(trans);
  /* a frame held by gl-queue-depth=2 goes before any serialized event (EOS, caps, a new
   * segment); a flush drops it */
  if (GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP) gst_tflite_queue_flush(&self->infer.queue);
  else if (GST_EVENT_IS_SERIALIZED(event)) drain_held(self);
  return GST_BASE_TRANSFORM_CLASS(gst_tflite_filter_parent_class)->sink_event(trans, event);
}

/* ---- negotiation and state ---- */

static gboolean gst_tflite_filter_set_caps(GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(trans);
  GstVideoInfo info;
  if (!gst_video_info_from_caps(&info, incaps)) {
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("Could not parse caps %" GST_PTR_FORMAT, incaps), (NULL));
    return FALSE;
  }
  GstCapsFeatures *f = gst_caps_get_features(incaps, 0);
  gboolean is_gl = f && gst_caps_features_contains(f, "memory:GLMemory");
  /* another path, or other system-memory frames for the GL path's upload: a new runtime */
  if (self->infer.stream && (is_gl != self->infer.is_gl ||
                             (self->infer.gl && !is_gl && !gst_video_info_is_equal(&info, &self->infer.info))))
    forget_last(self);
  gst_tflite_infer_set_info(&self->infer, &info, is_gl);
  GST_DEBUG_OBJECT(self, "caps %" GST_PTR_FORMAT " (%s path)", incaps, is_gl ? "GL" : "system memory");
  /* System-memory frames: everything the runtime needs is known now (GL frames bring their
   * context with them), so a model the delegates refuse fails the negotiation, not the
   * first frame. */
  if (!is_gl && !ensure_runtime(self, NULL)) return FALSE;
  return TRUE;
}

/* A downstream tflitefilter's pause/resume request (tflinfer_regions.h): TRUE when the
 * event was meant for self (then it is consumed). */
static gboolean track_regions_event(GstTfliteFilter *self, GstEvent *event)
{
  if (GST_EVENT_TYPE(event) != GST_EVENT_CUSTOM_UPSTREAM) return FALSE;
  const GstStructure *s = gst_event_get_structure(event);
  if (!s || !gst_structure_has_name(s, GST_TFLITE_TRACK_REGIONS_EVENT)) return FALSE;
  const gchar *who = gst_structure_get_string(s, "detector");
  gboolean pause = FALSE;
  if (!who || g_strcmp0(who, g_quark_to_string(self->source)) || !gst_structure_get_boolean(s, "pause", &pause))
    return FALSE;
  GST_OBJECT_LOCK(self);
  self->paused_by_downstream = pause;
  GST_OBJECT_UNLOCK(self);
  GST_DEBUG_OBJECT(self, "%s: a downstream element %s our objects", pause ? "paused" : "resumed",
                   pause ? "tracks" : "no longer tracks");
  return TRUE;
}

static gboolean gst_tflite_filter_src_event(GstBaseTransform *trans, GstEvent *event)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(trans);
  if (track_regions_event(self, event)) {
    gst_event_unref(event);
    return TRUE;
  }
  if (GST_EVENT_TYPE(event) == GST_EVENT_QOS) {
    GstClockTimeDiff diff;
    GstClockTime ts;
    gst_event_parse_qos(event, NULL, NULL, &diff, &ts);
    GST_OBJECT_LOCK(self);
    /* skip inference on frames due before ts + 2*diff: we are that late */
    self->earliest_time = diff > 0 ? ts + 2 * diff : GST_CLOCK_TIME_NONE;
    GST_OBJECT_UNLOCK(self);
  }
  return GST_BASE_TRANSFORM_CLASS(gst_tflite_filter_parent_class)->src_event(trans, event);
}

/* regions-from names an element of this pipeline: one that is not there is a typo (the
 * model would run on no regions, forever), so the state change fails. Outside a bin
 * (a harness feeding its own meta) there is nothing to check. */
static gboolean check_regions_from(GstTfliteFilter *self)
{
  const GstTfliteSettings *cfg = self->infer.cfg;
  const gchar *from = cfg->regions_from && cfg->regions_from[0] ? cfg->regions_from : NULL;
  if (!from) return TRUE;
  gchar *known = NULL, *kind = NULL;
  GstTfliteNameCheck c = gst_tflite_check_element_name(GST_ELEMENT(self), from, &known, &kind);
  gboolean ok = c == GST_TFLITE_NAME_FOUND || c == GST_TFLITE_NAME_NOT_CHECKED;
  if (c == GST_TFLITE_NAME_MISSING)
    GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND, ("regions-from=\"%s\": the pipeline has no element of that name.", from),
                      ("Elements that make objects: %s.", known));
  else if (c == GST_TFLITE_NAME_WRONG_KIND)
    GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND,
                      ("regions-from=\"%s\" names an element that makes no objects (%s); it must name a "
                       "tflitefilter or tflitetracker.", from, kind),
                      ("Elements that make objects: %s.", known));
  g_free(known);
  g_free(kind);
  return ok;
}

static gboolean gst_tflite_filter_start(GstBaseTransform *trans)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(trans);
  /* load now so a missing or corrupt model fails the state change; the snapshot taken
   * here needs no second load at the first buffer */
  take_settings(self);
  if (!check_regions_from(self)) return FALSE;
  self->frame_count = 0;
  self->earliest_time = GST_CLOCK_TIME_NONE;
  GST_OBJECT_LOCK(self);
  self->paused_by_downstream = FALSE;
  GST_OBJECT_UNLOCK(self);
  gchar *name = gst_object_get_name(GST_OBJECT(self));
  self->source = g_quark_from_string(name);
  g_free(name);
  GstTfliteNotice fail = { 0 };
  gboolean ok = gst_tflite_infer_load_model(&self->infer, &fail);
  post_notices(self, &fail);
  return ok;
}

static gboolean gst_tflite_filter_stop(GstBaseTransform *trans)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(trans);
  gst_tflite_queue_flush(&self->infer.queue);
  release_runtime(self);
  return TRUE;
}

/* ---- properties ---- */

static void gst_tflite_filter_set_property(GObject *object, guint prop_id, const GValue *value,
                                           GParamSpec *pspec)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(object);
  GstTfliteSettings *p = &self->props;
  GstTfliteModelSettings *ms = &p->model;
  GST_OBJECT_LOCK(self);
  switch (prop_id) {
  case PROP_MODEL: g_free(ms->model_path); ms->model_path = g_value_dup_string(value); break;
  case PROP_LABELS: g_free(ms->labels_path); ms->labels_path = g_value_dup_string(value); break;
  case PROP_DELEGATE: p->delegate_kind = g_value_get_enum(value); break;
  case PROP_THREADS: p->threads = g_value_get_int(value); break;
  case PROP_PRECISION: p->precision = g_value_get_enum(value); break;
  case PROP_CACHE_DIR: g_free(p->cache_dir); p->cache_dir = g_value_dup_string(value); break;
  case PROP_GL_PROFILE: {
    const gchar *name = g_value_get_string(value);
    gl_device_profile prof = GL_PROFILE_NATIVE;
    if (name && *name && !gl_device_profile_parse(name, &prof))
      GST_WARNING_OBJECT(self, "gl-profile \"%s\" is not one of %s; keeping %s", name, gl_device_profile_names(),
                         gl_device_profile_name(p->gl_profile));
    else
      p->gl_profile = prof;
    break;
  }
  case PROP_DECODER: ms->decoder_kind = g_value_get_enum(value); break;
  case PROP_THRESHOLD: p->decoder_opts.threshold = g_value_get_float(value); break;
  case PROP_MAX_RESULTS: p->decoder_opts.max_results = g_value_get_int(value); break;
  case PROP_IOU_THRESHOLD: p->decoder_opts.iou_threshold = g_value_get_float(value); break;
  case PROP_CLASS_AGNOSTIC: p->decoder_opts.class_agnostic = g_value_get_boolean(value); break;
  case PROP_INFERENCE_INTERVAL: self->inference_interval = g_value_get_uint(value); break;
  case PROP_QOS: self->qos = g_value_get_boolean(value); break;
  case PROP_INPUT_MEAN:
    for (int c = 0; c < 3; c++) ms->norm_mean[c] = g_value_get_float(value);
    break;
  case PROP_INPUT_STD:
    for (int c = 0; c < 3; c++) ms->norm_std[c] = g_value_get_float(value);
    break;
  case PROP_FIT: p->fit = g_value_get_enum(value); break;
  case PROP_ANCHORS: p->decoder_opts.anchors = g_value_get_enum(value); break;
  case PROP_GL_READBACK: self->gl_readback = g_value_get_boolean(value); break;
  case PROP_MODEL_INSTANCE_ID: g_free(p->instance_id); p->instance_id = g_value_dup_string(value); break;
  case PROP_BATCH_WINDOW: p->batch_window_us = g_value_get_uint(value); break;
  case PROP_MAX_BATCH: p->max_batch = g_value_get_uint(value); break;
  case PROP_REGIONS_FROM: g_free(p->regions_from); p->regions_from = g_value_dup_string(value); break;
  case PROP_REGION_LABELS: g_free(p->region_labels); p->region_labels = g_value_dup_string(value); break;
  case PROP_MAX_REGIONS: p->max_regions = g_value_get_uint(value); break;
  case PROP_MIN_REGION_SIZE: p->min_region_size = g_value_get_uint(value); break;
  case PROP_TRACK_REGIONS: p->track_regions = g_value_get_boolean(value); break;
  case PROP_ENGINE_CONTEXT: p->engine_context = g_value_get_enum(value); break;
  case PROP_GL_QUEUE_DEPTH: self->gl_queue_depth = g_value_get_uint(value); break;
  case PROP_GL_START: p->gl_start = g_value_get_enum(value); break;
  case PROP_KEEP_TENSORS: p->keep_tensors = g_value_get_boolean(value); break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    GST_OBJECT_UNLOCK(self);
    return;
  }
  /* every setting but the per-frame ones needs the runtime rebuilt */
  if (prop_id != PROP_INFERENCE_INTERVAL && prop_id != PROP_QOS && prop_id != PROP_GL_READBACK &&
      prop_id != PROP_GL_QUEUE_DEPTH)
    self->settings_changed = TRUE;
  GST_OBJECT_UNLOCK(self);
}

static void gst_tflite_filter_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(object);
  const GstTfliteSettings *p = &self->props;
  const GstTfliteModelSettings *ms = &p->model;
  GST_OBJECT_LOCK(self);
  switch (prop_id) {
  case PROP_MODEL: g_value_set_string(value, ms->model_path); break;
  case PROP_LABELS: g_value_set_string(value, ms->labels_path); break;
  case PROP_DELEGATE: g_value_set_enum(value, p->delegate_kind); break;
  case PROP_THREADS: g_value_set_int(value, p->threads); break;
  case PROP_PRECISION: g_value_set_enum(value, p->precision); break;
  case PROP_CACHE_DIR: g_value_set_string(value, p->cache_dir); break;
  case PROP_GL_PROFILE: g_value_set_string(value, gl_device_profile_name(p->gl_profile)); break;
  case PROP_DECODER: g_value_set_enum(value, ms->decoder_kind); break;
  case PROP_THRESHOLD: g_value_set_float(value, p->decoder_opts.threshold); break;
  case PROP_MAX_RESULTS: g_value_set_int(value, p->decoder_opts.max_results); break;
  case PROP_IOU_THRESHOLD: g_value_set_float(value, p->decoder_opts.iou_threshold); break;
  case PROP_CLASS_AGNOSTIC: g_value_set_boolean(value, p->decoder_opts.class_agnostic); break;
  case PROP_INFERENCE_INTERVAL: g_value_set_uint(value, self->inference_interval); break;
  case PROP_QOS: g_value_set_boolean(value, self->qos); break;
  case PROP_INPUT_MEAN: g_value_set_float(value, ms->norm_mean[0]); break;
  case PROP_INPUT_STD: g_value_set_float(value, ms->norm_std[0]); break;
  case PROP_FIT: g_value_set_enum(value, p->fit); break;
  case PROP_ANCHORS: g_value_set_enum(value, p->decoder_opts.anchors); break;
  case PROP_LATENCY: g_value_set_double(value, self->infer.last_latency_ms); break;
  case PROP_GL_READBACK: g_value_set_boolean(value, self->gl_readback); break;
  case PROP_MODEL_INSTANCE_ID: g_value_set_string(value, p->instance_id); break;
  case PROP_BATCH_WINDOW: g_value_set_uint(value, p->batch_window_us); break;
  case PROP_MAX_BATCH: g_value_set_uint(value, p->max_batch); break;
  case PROP_REGIONS_FROM: g_value_set_string(value, p->regions_from); break;
  case PROP_REGION_LABELS: g_value_set_string(value, p->region_labels); break;
  case PROP_MAX_REGIONS: g_value_set_uint(value, p->max_regions); break;
  case PROP_MIN_REGION_SIZE: g_value_set_uint(value, p->min_region_size); break;
  case PROP_TRACK_REGIONS: g_value_set_boolean(value, p->track_regions); break;
  case PROP_ENGINE_CONTEXT: g_value_set_enum(value, p->engine_context); break;
  case PROP_GL_QUEUE_DEPTH: g_value_set_uint(value, self->gl_queue_depth); break;
  case PROP_GL_START: g_value_set_enum(value, p->gl_start); break;
  case PROP_KEEP_TENSORS: g_value_set_boolean(value, p->keep_tensors); break;
  default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec); break;
  }
  GST_OBJECT_UNLOCK(self);
}

static void gst_tflite_filter_finalize(GObject *object)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(object);
  forget_last(self);
  gst_tflite_infer_finalize(&self->infer);
  gst_tflite_settings_clear(&self->props);
  G_OBJECT_CLASS(gst_tflite_filter_parent_class)->finalize(object);
}
static void gst_tflite_filter_class_init(GstTfliteFilterClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = gst_tflite_filter_set_property;
  gobject_class->get_property = gst_tflite_filter_get_property;
  gobject_class->finalize = gst_tflite_filter_finalize;

  g_object_class_install_property(gobject_class, PROP_MODEL,
    g_param_spec_string("model", "Model", "Path of the .tflite model file", NULL, rw));
  g_object_class_install_property(gobject_class, PROP_LABELS,
    g_param_spec_string("labels", "Labels",
                        "Label file, one label per line, line N = class N "
                        "(default: the label file embedded in the model's metadata)", NULL, rw));
  g_object_class_install_property(gobject_class, PROP_DELEGATE,
    g_param_spec_enum("delegate", "Delegate", "Where the model runs", gst_tflite_delegate_get_type(),
                      DEFAULT_DELEGATE, rw));
  g_object_class_install_property(gobject_class, PROP_THREADS,
    g_param_spec_int("threads", "Threads",
                     "CPU threads for the CPU delegate; 0: the cores the process may use (its CPU affinity), "
                     "one pool shared by the streams of one engine", 0, MAX_THREADS,
                     DEFAULT_THREADS, rw));
  g_object_class_install_property(gobject_class, PROP_PRECISION,
    g_param_spec_enum("precision", "Precision", "GL delegate float precision",
                      gst_tflite_precision_get_type(), DEFAULT_PRECISION, rw));
  g_object_class_install_property(gobject_class, PROP_CACHE_DIR,
    g_param_spec_string("cache-dir", "Cache directory",
                        "Directory for compiled GL programs (NULL: the user's cache directory, $XDG_CACHE_HOME/gst-tflite; \"\": no disk cache)", NULL, rw));
  g_object_class_install_property(gobject_class, PROP_GL_PROFILE,
    g_param_spec_string("gl-profile", "GL device profile",
                        "GPU limits the GL delegate keeps to: native (the context's own), gles31-min (OpenGL ES "
                        "3.1's minimums), mali-g610, v3d (Raspberry Pi 5), adreno6xx; a node whose kernel does not "
                        "fit runs on the CPU (docs/boards.md)", "native", rw));
  g_object_class_install_property(gobject_class, PROP_DECODER,
    g_param_spec_enum("decoder", "Decoder", "How the model's outputs are turned into results",
                      gst_tflite_decoder_get_type(), DEFAULT_DECODER, rw));
  g_object_class_install_property(gobject_class, PROP_THRESHOLD,
    g_param_spec_float("threshold", "Threshold", "Minimum score (0..1) of a reported result", 0.0f,
                       1.0f, DEFAULT_THRESHOLD, rw));
  g_object_class_install_property(gobject_class, PROP_MAX_RESULTS,
    g_param_spec_int("max-results", "Max results", "Most classes, boxes or poses per frame", 1,
                     1000, DEFAULT_MAX_RESULTS, rw));
  g_object_class_install_property(gobject_class, PROP_IOU_THRESHOLD,
    g_param_spec_float("iou-threshold", "IoU threshold",
                       "Non-max suppression: boxes overlapping more than this (0..1) are merged",
                       0.0f, 1.0f, DEFAULT_IOU, rw));
  g_object_class_install_property(gobject_class, PROP_CLASS_AGNOSTIC,
    g_param_spec_boolean("class-agnostic", "Class-agnostic NMS",
                         "YOLO: one non-max suppression over all classes (Ultralytics' agnostic_nms), "
                         "instead of one per class", FALSE, rw));
  g_object_class_install_property(gobject_class, PROP_INFERENCE_INTERVAL,
    g_param_spec_uint("inference-interval", "Inference interval",
                      "Run the model on every Nth frame; others reuse the last results", 1, 1000,
                      DEFAULT_INTERVAL, rw));
  g_object_class_override_property(gobject_class, PROP_QOS, "qos");
  g_object_class_install_property(gobject_class, PROP_INPUT_MEAN,
    g_param_spec_float("input-mean", "Input mean",
                       "Float inputs get (pixel - mean) / std, pixel 0..255 (-1: from the model's "
                       "metadata, else by model family: 0 for MediaPipe landmark, selfie and palm "
                       "models (input 0..1), 127.5 for the others (input -1..1))", -1.0f, 255.0f,
                       GST_TFLITE_NORM_FROM_MODEL, rw));
  g_object_class_install_property(gobject_class, PROP_INPUT_STD,
    g_param_spec_float("input-std", "Input std",
                       "Divisor of the input normalization (-1: from the model's metadata, else by "
                       "model family: 255 where input-mean is 0, else 127.5)",
                       -1.0f, 65535.0f, GST_TFLITE_NORM_FROM_MODEL, rw));
  g_object_class_install_property(gobject_class, PROP_FIT,
    g_param_spec_enum("fit", "Fit", "How the frame is fitted to the model's input size (auto: the model family's: letterbox-grey for Ultralytics YOLO, crop for its classifiers; else stretch)",
                      gst_tflite_fit_get_type(), DEFAULT_FIT, rw));
  g_object_class_install_property(gobject_class, PROP_ANCHORS,
    g_param_spec_enum("anchors", "Anchors", "Anchor layout for detectors with raw box outputs",
                      gst_tflite_anchors_get_type(), DEFAULT_ANCHORS, rw));
  g_object_class_install_property(gobject_class, PROP_LATENCY,
    g_param_spec_double("latency", "Latency",
                        "Duration of the last inference in milliseconds (a GL inference whose "
                        "mask stays on the GPU: the time to submit it, the GPU finishes later; "
                        "gl-queue-depth=2: until its results were collected, a frame later)",
                        0, G_MAXDOUBLE, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property(gobject_class, PROP_GL_READBACK,
    g_param_spec_boolean("gl-readback", "GL readback",
                         "GL path, segmentation: also read the mask back to the CPU on every "
                         "frame (meta mask pixels, mask-fraction / mask-areas in every message, "
                         "one CPU-GPU sync per frame; the class or probability is made on the GPU, "
                         "one byte per mask pixel comes back). FALSE: the mask stays a GL texture after "
                         "the first inference, for GL consumers such as tfliteoverlay",
                         DEFAULT_GL_READBACK, rw));
  g_object_class_install_property(gobject_class, PROP_GL_QUEUE_DEPTH,
    g_param_spec_uint("gl-queue-depth", "GL queue depth",
                      "GL frames whose results come back to the CPU (any decoder; a segmentation mask with "
                      "gl-readback): 1 waits for the GPU on every frame; 2 holds one frame: frame N's inference "
                      "and the copy of its results (a mask's bytes, or the outputs the decoder reads) are queued "
                      "on the GPU, then frame N-1's results (done by then, usually) are collected and decoded, "
                      "and N-1 is pushed, so the CPU never waits for the frame it has just submitted. One frame "
                      "more latency (in the LATENCY query); EOS, caps and other serialized events push the "
                      "held frame, a flush drops it. Still waiting on every frame: the first, regions, "
                      "system-memory frames, and models whose outputs the GPU cannot queue (made on the CPU, "
                      "or quantized)",
                      1, MAX_GL_QUEUE_DEPTH, DEFAULT_GL_QUEUE_DEPTH, rw));

  g_object_class_install_property(gobject_class, PROP_MODEL_INSTANCE_ID,
    g_param_spec_string("model-instance-id", "Model instance id",
                        "Name of the shared engine. Every tflitefilter of the process with the same model file, "
                        "delegate, precision, threads, batching and this name runs on one engine (one loaded "
                        "model, one set of weights and GL programs; each stream keeps only its results). "
                        "NULL: share by configuration alone; a distinct name keeps an element apart", NULL, rw));
  g_object_class_install_property(gobject_class, PROP_BATCH_WINDOW,
    g_param_spec_uint("batch-window", "Batch window",
                      "Microseconds a frame may wait for frames of other streams on the same engine so they "
                      "run as one batch (models that can be batched; a stream alone never waits). 0: no batching",
                      0, MAX_BATCH_WINDOW_US, DEFAULT_BATCH_WINDOW_US, rw));
  g_object_class_install_property(gobject_class, PROP_MAX_BATCH,
    g_param_spec_uint("max-batch", "Max batch", "Most frames of different streams run as one batch",
                      1, MAX_MAX_BATCH, DEFAULT_MAX_BATCH, rw));

  g_object_class_install_property(gobject_class, PROP_REGIONS_FROM,
    g_param_spec_string("regions-from", "Regions from",
                        "Name of an upstream tflitefilter whose detections are this model's regions: the model runs "
                        "once per region (all of a frame's regions as one batch where the model allows), by the "
                        "region rule of its family (pose, hand and face landmarks: MediaPipe's rotated, scaled "
                        "regions; other models: the box), and its results, in frame pixels, are children of their "
                        "detection. NULL or empty: the whole frame", NULL, rw));
  g_object_class_install_property(gobject_class, PROP_REGION_LABELS,
    g_param_spec_string("region-labels", "Region labels",
                        "Comma-separated labels (or #class ids) of the detections to take as regions; NULL: all",
                        NULL, rw));
  g_object_class_install_property(gobject_class, PROP_MAX_REGIONS,
    g_param_spec_uint("max-regions", "Max regions", "Most regions per frame (the best detections first)", 1,
                      MAX_MAX_REGIONS, DEFAULT_MAX_REGIONS, rw));
  g_object_class_install_property(gobject_class, PROP_MIN_REGION_SIZE,
    g_param_spec_uint("min-region-size", "Min region size",
                      "Detections narrower or lower than this many pixels are not regions", 0, 65535,
                      DEFAULT_MIN_REGION_SIZE, rw));
  g_object_class_install_property(gobject_class, PROP_TRACK_REGIONS,
    g_param_spec_boolean("track-regions", "Track regions",
                         "Landmark models: the landmarks give the next frame's region, as MediaPipe does; while "
                         "max-regions are tracked the regions-from detector is asked to pause (it runs again when "
                         "one is lost)", DEFAULT_TRACK_REGIONS, rw));
  g_object_class_install_property(gobject_class, PROP_ENGINE_CONTEXT,
    g_param_spec_enum("engine-context", "Engine context",
                      "GL path: which GL context the shared engine runs on (every GL element of the pipeline "
                      "joins one share group either way, so streams whose sources made their own contexts still "
                      "share one engine)", gst_tflite_engine_context_get_type(), DEFAULT_ENGINE_CONTEXT, rw));
  g_object_class_install_property(gobject_class, PROP_GL_START,
    g_param_spec_enum("gl-start", "GL start",
                      "GL path (GL frames, or delegate=gl): what the first frames do while the GL engine is made "
                      "(its programs compiled: up to seconds on a cold start, no shader caches). wait: they wait "
                      "for it. cpu: they run on the CPU (results as delegate=cpu gives, GL frames read through a "
                      "download) while the GL engine is made on a thread of its own (with engine-context=frames "
                      "first compiled on a GL context of its own, so that making it on the frames' context, whose "
                      "thread the pipeline's other GL elements use, is a warm start where the driver keeps a shader "
                      "cache), and from the first frame after it is ready frames run on GL; the element then posts "
                      "\"tflite-model\" again (delegate gl, cpu-frames, gl-start-ms). An engine made already "
                      "(another element's) is used at once", gst_tflite_gl_start_get_type(), DEFAULT_GL_START, rw));
  g_object_class_install_property(gobject_class, PROP_KEEP_TENSORS,
    g_param_spec_boolean("keep-tensors", "Keep tensors",
                         "Also attach every output tensor of each inference (name, type, shape, quantization, "
                         "bytes) to the buffer's GstTfliteMeta, whatever the decoder, as decoder=tensors does; the "
                         "model's own outputs (a post-processing otherwise moved into the graph stays in the "
                         "decoder), read back from the GPU on the GL path (docs/bring-your-own-model.md)",
                         DEFAULT_KEEP_TENSORS, rw));

  gst_element_class_set_static_metadata(element_class, "TensorFlow Lite filter",
    "Filter/Analyzer/Video", "Runs a .tflite model on video frames and attaches the results as meta",
    "gst-tflite developers");
  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &src_template);

  /* not passthrough: basetransform then hands transform_ip a writable buffer (a copy of
   * the buffer's metadata when it is shared, e.g. behind a tee; the memories, the pixels,
   * are shared, not copied) so the meta can be added */
  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_ip = gst_tflite_filter_transform_ip;
  trans_class->set_caps = gst_tflite_filter_set_caps;
  trans_class->src_event = gst_tflite_filter_src_event;
  trans_class->sink_event = gst_tflite_filter_sink_event;
  trans_class->generate_output = generate_output;
  trans_class->start = gst_tflite_filter_start;
  trans_class->stop = gst_tflite_filter_stop;
  trans_class->query = gst_tflite_filter_query;
  element_class->change_state = gst_tflite_filter_change_state;
  element_class->set_context = gst_tflite_filter_set_context;

  gst_tflite_enums_mark_as_plugin_api();
}

static void gst_tflite_filter_init(GstTfliteFilter *self)
{
  GstTfliteSettings *p = &self->props;
  gst_tflite_gl_element_init(&self->gl, GST_ELEMENT(self), NULL, NULL, NULL);
  p->delegate_kind = DEFAULT_DELEGATE;
  p->threads = DEFAULT_THREADS;
  p->precision = DEFAULT_PRECISION;
  p->model.decoder_kind = DEFAULT_DECODER;
  p->decoder_opts = tfl_decoder_defaults();
  p->decoder_opts.threshold = DEFAULT_THRESHOLD;
  p->decoder_opts.max_results = DEFAULT_MAX_RESULTS;
  p->decoder_opts.iou_threshold = DEFAULT_IOU;
  p->decoder_opts.anchors = DEFAULT_ANCHORS;
  self->inference_interval = DEFAULT_INTERVAL;
  self->qos = DEFAULT_QOS;
  p->fit = DEFAULT_FIT;
  self->gl_readback = DEFAULT_GL_READBACK;
  self->gl_queue_depth = DEFAULT_GL_QUEUE_DEPTH;
  p->batch_window_us = DEFAULT_BATCH_WINDOW_US;
  p->max_batch = DEFAULT_MAX_BATCH;
  p->max_regions = DEFAULT_MAX_REGIONS;
  p->min_region_size = DEFAULT_MIN_REGION_SIZE;
  p->track_regions = DEFAULT_TRACK_REGIONS;
  p->engine_context = DEFAULT_ENGINE_CONTEXT;
  p->gl_start = DEFAULT_GL_START;
  p->keep_tensors = DEFAULT_KEEP_TENSORS;
  for (int c = 0; c < 3; c++)
    p->model.norm_mean[c] = p->model.norm_std[c] = GST_TFLITE_NORM_FROM_MODEL;
  self->earliest_time = GST_CLOCK_TIME_NONE;
  gst_tflite_infer_init(&self->infer, GST_ELEMENT(self));
  gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
  /* QoS here means skipping inference, never dropping frames */
  gst_base_transform_set_qos_enabled(GST_BASE_TRANSFORM(self), FALSE);
}
