/**
 * SECTION:element-tflitefilter
 * @title: tflitefilter
 *
 * Runs a TensorFlow Lite model (.tflite) on each video frame and attaches the decoded
 * results (classes, boxes, masks, keypoints) to the buffer as #GstTfliteMeta; the
 * video itself passes through unchanged. GL frames (memory:GLMemory, RGBA) go
 * zero-copy into the GL compute delegate on GStreamer's GL thread; system-memory
 * frames go to the CPU delegate, converted, resized and normalized in one pass.
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

#include <string.h>

#include "gsttflitefilter_gl.h"
#include "gsttflitefilter_queue.h"
#include "gsttflitefilter_regions.h"
#include "gsttflitefilter_start.h"
#include "gsttflitenames.h"
#include "gsttflitemessages.h"
#include "gsttfliteengine.h"
#include "delegates/gl/gl_delegate.h"
#include "gsttfliteglshare.h"
#include "gsttflitemeta.h"

GST_DEBUG_CATEGORY(gst_tflite_filter_debug);
#define GST_CAT_DEFAULT gst_tflite_filter_debug
/* slow-path hints (CPU fallbacks) go to GStreamer's performance category */
GST_DEBUG_CATEGORY_STATIC(CAT_PERFORMANCE);

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
 * (gst_tflite_filter_gl_layout): the same list, planes as their own textures */
#define CAPS_STR                                                                              \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES("memory:GLMemory", SYSMEM_FORMATS) ", texture-target=2D; " \
  GST_VIDEO_CAPS_MAKE(SYSMEM_FORMATS)

static GstStaticPadTemplate sink_template =
  GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS(CAPS_STR));
static GstStaticPadTemplate src_template =
  GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(CAPS_STR));

G_DEFINE_TYPE(GstTfliteFilter, gst_tflite_filter, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE(tflitefilter, "tflitefilter", GST_RANK_NONE, GST_TYPE_TFLITE_FILTER,
                                      GST_DEBUG_CATEGORY_INIT(gst_tflite_filter_debug, "tflitefilter", 0,
                                                              "TensorFlow Lite inference"));

/* ---- runtime life cycle (streaming thread; the GL parts marshal to the GL thread) ---- */

/* The element's diagnostics sink: the runtime's log lines go to this element's debug
 * category, with the element as object (so several elements stay apart in the log). */
static void log_sink(tfl_log_level level, const char *msg, void *user)
{
  GstDebugLevel l = GST_LEVEL_DEBUG;
  switch (level) {
  case TFL_LOG_ERROR: l = GST_LEVEL_ERROR; break;
  case TFL_LOG_WARNING: l = GST_LEVEL_WARNING; break;
  case TFL_LOG_INFO: l = GST_LEVEL_INFO; break;
  case TFL_LOG_DEBUG: l = GST_LEVEL_DEBUG; break;
  }
  GST_CAT_LEVEL_LOG(gst_tflite_filter_debug, l, user, "%s", msg);
}

static void forget_last(GstTfliteFilter *self)
{
  tfl_results_clear(&self->last_results);
  gst_clear_buffer(&self->last_gl_mask);
  self->have_last = FALSE;
}

static void release_runtime(GstTfliteFilter *self)
{
  gst_tflite_filter_stop_gl_start(self);
  /* a held frame's read-back lives in the GL path's state: completed before, when it
   * can be (ensure_runtime, serialized events), else dropped here */
  gst_tflite_queue_drop_held(self);
  forget_last(self); /* masks first: they hold textures of the GL path's pool */
  gst_tflite_regions_free(self->regions);
  self->regions = NULL;
  gst_tflite_filter_gl_free(self->gl);
  self->gl = NULL;
  tfl_engine_detach(self->stream);
  self->stream = NULL;
  gst_tflite_engine_unref(self->engine);
  self->engine = NULL;
  tfl_decoder_free(self->decoder);
  self->decoder = NULL;
  gst_tflite_model_clear(&self->model);
}

/* Loads the model's policy (labels, normalization, decoder) from the file; the engine that
 * runs it comes later (ensure_runtime), once caps say which path runs. */
static gboolean load_model(GstTfliteFilter *self)
{
  GstTfliteModelSettings s = { 0 };
  GST_OBJECT_LOCK(self);
  s = self->model_settings;
  s.model_path = g_strdup(self->model_settings.model_path);
  s.labels_path = g_strdup(self->model_settings.labels_path);
  tfl_decoder_options opts = self->decoder_opts;
  gboolean keep = self->keep_tensors;
  GST_OBJECT_UNLOCK(self);
  gboolean ok = gst_tflite_model_load(GST_ELEMENT(self), &s, &self->diag, &self->model);
  self->tensors_out = ok && (keep || self->model.decoder_kind == TFL_DECODER_TENSORS);
  /* a MediaPipe detector's anchor decoding and NMS, a landmark model's decoding run in the
   * graph, on its delegate: the engine appends the same op to its graphs
   * (GstTfliteEngineKey.postprocess). Not with keep-tensors: the tensors handed on are the
   * model's own outputs. */
  bool appended = false;
  if (ok && !keep &&
      tfl_decoder_append_postprocess(self->model.decoder_kind, self->model.graph, &opts, &appended,
                                     &self->diag) != TFL_OK) {
    GST_ELEMENT_ERROR(self, CORE, FAILED, ("Could not add the post-processing to model \"%s\".", s.model_path),
                      ("%s", self->diag.error));
    gst_tflite_model_clear(&self->model);
    ok = FALSE;
  }
  self->postprocess_in_graph = appended;
  self->postprocess_opts = opts;
  if (ok && self->model.decoder_kind != TFL_DECODER_NONE &&
      tfl_decoder_create(self->model.decoder_kind, self->model.graph, &opts, &self->decoder, &self->diag) != TFL_OK) {
    GST_ELEMENT_ERROR(self, STREAM, WRONG_TYPE,
                      ("Model \"%s\" does not fit the '%s' decoder.", s.model_path,
                       tfl_decoder_kind_name(self->model.decoder_kind)),
                      ("%s", self->diag.error));
    gst_tflite_model_clear(&self->model);
    ok = FALSE;
  }
  gst_tflite_model_settings_clear(&s);
  return ok;
}

typedef struct {
  GstTfliteFilter *self;
  const GstStructure *extra;
} model_message;

static void post_model_on_exec(const tfl_interpreter *it, void *user)
{
  model_message *m = user;
  GstTfliteFilter *self = m->self;
  gst_tflite_post_model_message(GST_ELEMENT(self), self->model_settings.model_path,
                                self->decoder ? tfl_decoder_kind_name(tfl_decoder_get_kind(self->decoder)) : "none",
                                self->gl ? "gl" : "cpu", it, self->gl != NULL, gst_tflite_engine_id(self->engine),
                                CAT_PERFORMANCE, m->extra);
}

void gst_tflite_filter_post_model(GstTfliteFilter *self, const GstStructure *extra)
{
  model_message m = { self, extra };
  tfl_engine_inspect(gst_tflite_engine_runtime(self->engine), post_model_on_exec, &m);
}

/* This element's engine key on gl_context (NULL: the CPU): a copy (gst_tflite_engine_key_free). */
static GstTfliteEngineKey *engine_key(GstTfliteFilter *self, GstGLContext *gl_context)
{
  GST_OBJECT_LOCK(self);
  gint threads = self->threads > 0 ? self->threads : gst_tflite_engine_auto_threads(MAX_THREADS);
  GstTfliteEngineKey k = { self->model_settings.model_path, gl_context, self->precision == GST_TFLITE_PRECISION_FP32,
                           threads, self->cache_dir, self->instance_id, (gint)self->max_batch,
                           (gint)self->batch_window_us, self->postprocess_in_graph ? &self->postprocess_opts : NULL,
                           self->model.decoder_kind };
  k.gl_profile = (gint)self->gl_profile;
  GstTfliteEngineKey *copy = gst_tflite_engine_key_copy(&k);
  GST_OBJECT_UNLOCK(self);
  return copy;
}

/* The shared engine for this element's settings, on gl_context (NULL: the CPU). */
static GstTfliteEngine *get_engine(GstTfliteFilter *self, GstGLContext *gl_context, GError **err)
{
  GstTfliteEngineKey *k = engine_key(self, gl_context);
  GstTfliteEngine *e = gst_tflite_engine_get(k, GST_ELEMENT(self), err);
  gst_tflite_engine_key_free(k);
  return e;
}

/* The element's own GL context for system-memory frames (ref): the share group's
 * (join_gl_share_group), made on the element's display. */
static GstGLContext *own_gl_context(GstTfliteFilter *self, GError **err)
{
  if (self->share_context) return gst_object_ref(self->share_context);
  g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, "no GL context of the element's own: %s",
              self->gl_share_error ? self->gl_share_error : "the element did not join a GL display");
  return NULL;
}

static gboolean make_runtime(GstTfliteFilter *self, GstBuffer *buf);

/* The runtime for the current caps and settings; FALSE after an element error. A failure
 * is not retried (and posted again) until the settings, caps or state change. */
static gboolean ensure_runtime(GstTfliteFilter *self, GstBuffer *buf)
{
  GST_OBJECT_LOCK(self);
  gboolean changed = self->settings_changed;
  self->settings_changed = FALSE;
  GST_OBJECT_UNLOCK(self);
  if (changed) {
    /* a frame held by gl-queue-depth=2 gets its results from the runtime it ran on */
    if (!gst_tflite_queue_complete(self)) return FALSE;
    release_runtime(self);
    self->runtime_failed = FALSE;
  }
  if (self->stream && self->gl_starter && !gst_tflite_filter_switch_to_gl(self)) {
    /* delegate=gl and no GL engine: no more frames on the CPU */
    release_runtime(self);
    self->runtime_failed = TRUE;
    return FALSE;
  }
  if (self->stream) return TRUE;
  if (self->runtime_failed) return FALSE;
  if (make_runtime(self, buf)) return TRUE;
  self->runtime_failed = TRUE;
  return FALSE;
}

/* The GL context the GL engine runs on (ref); *frames: it is the frames' own (whose
 * thread also serves the pipeline's other GL elements). NULL with *err set when there is
 * none. */
static GstGLContext *gl_engine_context(GstTfliteFilter *self, GstBuffer *buf, gboolean *frames, GError **err)
{
  *frames = FALSE;
  /* system-memory frames with delegate=gl: the element's own context (the share group's)
   * runs the model, and the element uploads the frames */
  if (!self->is_gl) return own_gl_context(self, err);
  GstGLContext *ctx = gst_tflite_filter_gl_context(buf, err);
  if (!ctx) return NULL;
  /* frames in the share group: the engine runs on the shared context, whose thread is
   * the engine's alone; else on the frames' own context */
  GST_OBJECT_LOCK(self);
  gboolean own = self->engine_context == GST_TFLITE_ENGINE_CONTEXT_SHARED;
  GST_OBJECT_UNLOCK(self);
  gboolean shared = own && self->share_context &&
                    (ctx == self->share_context || gst_gl_context_can_share(ctx, self->share_context));
  GST_DEBUG_OBJECT(self, "frames on %" GST_PTR_FORMAT "%s", ctx, shared ? ", engine on the shared context" : "");
  if (!shared) {
    *frames = TRUE;
    return ctx;
  }
  gst_object_unref(ctx);
  return gst_object_ref(self->share_context);
}

/* The GL engine (self->engine), or with gl-start=cpu, unless it is made already, its
 * start in the background (self->gl_starter) while the CPU runs the first frames. With no
 * GL engine: FALSE after an element error, TRUE after a warning (the CPU runs it). */
static gboolean make_gl_engine(GstTfliteFilter *self, GstBuffer *buf)
{
  GError *err = NULL;
  gboolean frames;
  GstGLContext *ctx = gl_engine_context(self, buf, &frames, &err);
  if (ctx) {
    GstTfliteEngineKey *key = engine_key(self, ctx);
    GST_OBJECT_LOCK(self);
    gboolean background = self->gl_start == GST_TFLITE_GL_START_CPU;
    GST_OBJECT_UNLOCK(self);
    if (background && !(self->engine = gst_tflite_engine_find(key, NULL)) &&
        !gst_tflite_filter_start_gl(self, key, frames, &err)) {
      GST_WARNING_OBJECT(self, "no background GL start (%s): the first frame waits for the GL engine", err->message);
      g_clear_error(&err);
    }
    if (!self->engine && !self->gl_starter) self->engine = gst_tflite_engine_get(key, GST_ELEMENT(self), &err);
    gst_tflite_engine_key_free(key);
    gst_object_unref(ctx);
  }
  gboolean ok = self->engine || self->gl_starter || gst_tflite_filter_gl_unavailable(self, err);
  g_clear_error(&err);
  return ok;
}

gboolean gst_tflite_filter_gl_unavailable(GstTfliteFilter *self, const GError *err)
{
  GST_OBJECT_LOCK(self);
  gboolean required = self->delegate_kind == GST_TFLITE_DELEGATE_GL;
  GST_OBJECT_UNLOCK(self);
  const gchar *why = err ? err->message : "unknown GL failure";
  if (required) {
    GST_ELEMENT_ERROR(self, LIBRARY, INIT, ("The GL delegate is not available."), ("%s", why));
    return FALSE;
  }
  GST_ELEMENT_WARNING(self, LIBRARY, INIT, ("GL delegate unavailable; running on the CPU."), ("%s", why));
  return TRUE;
}

gboolean gst_tflite_filter_make_gl_path(GstTfliteFilter *self)
{
  GError *err = NULL;
  if ((self->gl = gst_tflite_filter_gl_new(self, &err))) return TRUE;
  GST_ELEMENT_ERROR(self, LIBRARY, INIT, ("Could not set up the GL path."), ("%s", err ? err->message : "?"));
  g_clear_error(&err);
  return FALSE;
}

/* delegate=auto on GL frames: a software renderer (no GPU) runs the model many times
 * slower than the CPU delegate (deeplab: 15x), so the CPU runs it, the frames downloaded
 * once each; a warning (once) and the "tflite-model" message say so. */
static gboolean software_gl(GstTfliteFilter *self, GstBuffer *buf)
{
  g_clear_pointer(&self->software_gl, g_free);
  /* tests of GL fallbacks on machines with no GPU */
  if (!g_strcmp0(g_getenv("GST_TFLITE_SOFTWARE_GL"), "1")) return FALSE;
  GstGLContext *ctx = buf ? gst_tflite_filter_gl_context(buf, NULL) : NULL;
  if (!ctx) return FALSE;
  self->software_gl = gst_tflite_filter_gl_software_renderer(ctx);
  gst_object_unref(ctx);
  if (!self->software_gl) return FALSE;
  if (!self->warned_software_gl)
    GST_ELEMENT_WARNING(self, LIBRARY, SETTINGS,
                        ("The GL renderer \"%s\" is software (no GPU): delegate=auto runs the model on the CPU "
                         "(delegate=gl forces GL).", self->software_gl),
                        (NULL));
  self->warned_software_gl = TRUE;
  return TRUE;
}

static gboolean make_runtime(GstTfliteFilter *self, GstBuffer *buf)
{
  GST_OBJECT_LOCK(self);
  GstTfliteDelegate want = self->delegate_kind;
  GST_OBJECT_UNLOCK(self);
  if (!self->model.graph && !load_model(self)) return FALSE;

  if (self->is_gl && want == GST_TFLITE_DELEGATE_AUTO && software_gl(self, buf)) want = GST_TFLITE_DELEGATE_CPU;
  if (((self->is_gl && want != GST_TFLITE_DELEGATE_CPU) || want == GST_TFLITE_DELEGATE_GL) && !make_gl_engine(self, buf))
    return FALSE;
  gboolean gl = self->engine != NULL;
  if (!self->engine) {
    GError *err = NULL;
    if (!(self->engine = get_engine(self, NULL, &err))) {
      GST_ELEMENT_ERROR(self, LIBRARY, INIT, ("Could not prepare model \"%s\" for the CPU.",
                                               self->model_settings.model_path),
                        ("%s", err ? err->message : "unknown failure"));
      g_clear_error(&err);
      return FALSE;
    }
  }
  if (!(self->stream = tfl_engine_attach(gst_tflite_engine_runtime(self->engine)))) {
    GST_ELEMENT_ERROR(self, LIBRARY, INIT, ("Out of memory."), (NULL));
    return FALSE;
  }
  if (gl && !gst_tflite_filter_make_gl_path(self)) return FALSE;
  GST_OBJECT_LOCK(self);
  gboolean regions = self->regions_from && self->regions_from[0];
  GST_OBJECT_UNLOCK(self);
  if (regions) self->regions = gst_tflite_regions_new(self);
  /* gl-start=cpu: this message says CPU; another one follows when GL takes over */
  GstStructure *extra =
    self->gl_starter ? gst_structure_new("gl-start", "gl-start-pending", G_TYPE_BOOLEAN, TRUE, NULL) : NULL;
  if (!extra) extra = gst_structure_new_empty("extra");
  gst_structure_set(extra, "threads", G_TYPE_INT, gst_tflite_engine_threads(self->engine), NULL);
  if (self->software_gl) gst_structure_set(extra, "software-gl-renderer", G_TYPE_STRING, self->software_gl, NULL);
  gst_tflite_filter_post_model(self, extra);
  gst_structure_free(extra);
  return TRUE;
}

/* ---- per frame ---- */

static pix_format pix_format_of(GstVideoFormat f, gboolean *ok)
{
  *ok = TRUE;
  switch (f) {
  case GST_VIDEO_FORMAT_RGBA: return PIX_RGBA;
  case GST_VIDEO_FORMAT_RGBx: return PIX_RGBX;
  case GST_VIDEO_FORMAT_BGRx: return PIX_BGRX;
  case GST_VIDEO_FORMAT_BGRA: return PIX_BGRA;
  case GST_VIDEO_FORMAT_RGB: return PIX_RGB;
  case GST_VIDEO_FORMAT_BGR: return PIX_BGR;
  case GST_VIDEO_FORMAT_I420: return PIX_I420;
  case GST_VIDEO_FORMAT_YV12: return PIX_I420; /* its planes are passed as U, V */
  case GST_VIDEO_FORMAT_NV12: return PIX_NV12;
  case GST_VIDEO_FORMAT_NV21: return PIX_NV21;
  case GST_VIDEO_FORMAT_YUY2: return PIX_YUY2;
  case GST_VIDEO_FORMAT_UYVY: return PIX_UYVY;
  case GST_VIDEO_FORMAT_GRAY8: return PIX_GRAY8;
  default: *ok = FALSE; return PIX_RGBA;
  }
}

/* The frame's YUV matrix and range as preprocessing takes them (unknown: BT.601, limited
 * range for YUV; GStreamer gives GRAY8 full range by default). */
pix_yuv gst_tflite_filter_yuv_of(const GstVideoInfo *info)
{
  pix_yuv y = { 0.0f, 0.0f, info->colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255 };
  gdouble kr, kb;
  if (gst_video_color_matrix_get_Kr_Kb(info->colorimetry.matrix, &kr, &kb)) y.kr = (float)kr, y.kb = (float)kb;
  return y;
}

tfl_status gst_tflite_filter_decode_slot(GstTfliteFilter *self, tfl_interpreter *it, int slot,
                                         const tfl_transform *tr, tfl_results *res, char *error, size_t error_size)
{
  if (!self->decoder) return TFL_OK;
  int n = tfl_interpreter_output_count(it);
  tfl_tensor views[16];
  const tfl_tensor *outs[16];
  if (n > 16) n = 16;
  for (int i = 0; i < n; i++) {
    views[i] = tfl_tensor_slot(tfl_interpreter_output(it, i), slot);
    outs[i] = &views[i];
  }
  tfl_status st = tfl_decoder_run(self->decoder, outs, n, tr, res, &self->diag);
  if (st != TFL_OK) {
    g_snprintf(error, error_size, "decoding the outputs: %s", self->diag.error);
    return st;
  }
  return gst_tflite_filter_keep_tensors(self, outs, n, res, error, error_size);
}

tfl_status gst_tflite_filter_keep_tensors(GstTfliteFilter *self, const tfl_tensor *const *outs, int n,
                                          tfl_results *res, char *error, size_t error_size)
{
  if (!self->tensors_out || tfl_decoder_get_kind(self->decoder) == TFL_DECODER_TENSORS) return TFL_OK;
  tfl_status st = tfl_results_add_tensors(res, outs, n, &self->diag);
  if (st != TFL_OK) g_snprintf(error, error_size, "keep-tensors: %s", self->diag.error);
  return st;
}

void gst_tflite_filter_mask_geometry(GstTfliteFilter *self, const tfl_transform *tr, tfl_results *res)
{
  /* decode_segmentation's geometry: output 0 is [1, H, W, C], checked when it was created */
  const tfl_graph *g = self->model.graph;
  const tfl_tensor *t = &g->tensors[g->outputs[0]];
  tfl_mask *m = &res->mask;
  m->kind = t->dims[3] == 1 ? TFL_MASK_PROB : TFL_MASK_CLASSES;
  m->width = t->dims[2];
  m->height = t->dims[1];
  m->n_classes = t->dims[3] == 1 ? 2 : t->dims[3];
  m->frame_x = tr->off_x;
  m->frame_y = tr->off_y;
  m->frame_w = (float)tr->in_w * tr->scale_x;
  m->frame_h = (float)tr->in_h * tr->scale_y;
}

/* The system-memory path's job: the frame (mapped by the streaming thread) is converted
 * into its slot of the batch, on whichever thread runs the batch. */
typedef struct {
  tfl_job job;
  GstTfliteFilter *self;
  pix_frame frame;
  const tfl_transform *tr;
  tfl_results *res;
} sysmem_job;

/* fit=auto: the model family's (Ultralytics YOLO: its grey letterbox), else stretch */
fit_mode gst_tflite_filter_fit(GstTfliteFilter *self)
{
  return self->fit == FIT_AUTO ? self->model.fit : self->fit;
}

static tfl_status sysmem_fill(tfl_job *job, tfl_interpreter *it, int slot)
{
  sysmem_job *j = (sysmem_job *)job;
  tfl_tensor in = tfl_tensor_slot(tfl_interpreter_input(it, 0), slot);
  pix_norm norm = j->self->model.norm;
  norm.pad = preprocess_fit_pad(gst_tflite_filter_fit(j->self));
  if (preprocess_frame(&j->frame, j->tr, &norm, &in) != 0) {
    g_strlcpy(job->error, "the model's input cannot take an image", sizeof job->error);
    return TFL_ERR_SHAPE;
  }
  return TFL_OK;
}

static tfl_status sysmem_consume(tfl_job *job, tfl_interpreter *it, int slot)
{
  sysmem_job *j = (sysmem_job *)job;
  return gst_tflite_filter_decode_slot(j->self, it, slot, j->tr, j->res, job->error, sizeof job->error);
}

static gboolean run_sysmem(GstTfliteFilter *self, GstBuffer *buf, const tfl_transform *trs, gint n, tfl_results *res)
{
  pix_frame frame_px = { 0 };
  gboolean known;
  frame_px.format = pix_format_of(GST_VIDEO_INFO_FORMAT(&self->info), &known);
  if (!known) {
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("Unsupported video format."), (NULL));
    return FALSE;
  }
  GstVideoFrame frame;
  if (!gst_video_frame_map(&frame, &self->info, buf, GST_MAP_READ)) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Could not map the video frame."), (NULL));
    return FALSE;
  }
  frame_px.width = GST_VIDEO_FRAME_WIDTH(&frame);
  frame_px.height = GST_VIDEO_FRAME_HEIGHT(&frame);
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&frame) && p < 3; p++) {
    frame_px.plane[p] = GST_VIDEO_FRAME_PLANE_DATA(&frame, p);
    frame_px.stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p);
  }
  if (GST_VIDEO_FRAME_FORMAT(&frame) == GST_VIDEO_FORMAT_YV12) {
    /* YV12 stores V before U: hand the planes over by component, as I420 */
    for (guint c = 1; c < 3; c++) {
      frame_px.plane[c] = GST_VIDEO_FRAME_COMP_DATA(&frame, c);
      frame_px.stride[c] = GST_VIDEO_FRAME_COMP_STRIDE(&frame, c);
    }
  }
  frame_px.yuv = gst_tflite_filter_yuv_of(&self->info);
  /* one job per region, handed over together so they run as one batch */
  sysmem_job *jobs = g_new0(sysmem_job, n);
  tfl_job **list = g_new(tfl_job *, n);
  for (gint i = 0; i < n; i++) {
    jobs[i] = (sysmem_job){ .self = self, .frame = frame_px, .tr = &trs[i], .res = &res[i] };
    jobs[i].job.fill = sysmem_fill;
    jobs[i].job.consume = sysmem_consume;
    jobs[i].job.host_outputs = TRUE;
    list[i] = &jobs[i].job;
  }
  tfl_status st = tfl_stream_run_many(self->stream, list, n);
  self->last_batch = n > 0 ? jobs[0].job.batch : 0;
  gst_video_frame_unmap(&frame);
  if (st != TFL_OK) {
    const char *why = "";
    for (gint i = 0; i < n && !why[0]; i++)
      if (jobs[i].job.status != TFL_OK) why = jobs[i].job.error;
    GST_ELEMENT_ERROR(self, LIBRARY, FAILED, ("Inference failed."), ("%s", why));
  }
  g_free(list);
  g_free(jobs);
  return st == TFL_OK;
}

static gboolean is_late(GstTfliteFilter *self, GstBuffer *buf)
{
  if (!self->qos || !GST_CLOCK_TIME_IS_VALID(self->earliest_time)) return FALSE;
  GstClockTime rt = gst_segment_to_running_time(&GST_BASE_TRANSFORM(self)->segment, GST_FORMAT_TIME,
                                                GST_BUFFER_PTS(buf));
  return GST_CLOCK_TIME_IS_VALID(rt) && rt < self->earliest_time;
}

gboolean gst_tflite_filter_run(GstTfliteFilter *self, GstBuffer *buf, const tfl_transform *trs, gint n,
                               tfl_results *res, GstBuffer **gl_mask, gint *queued)
{
  if (queued) *queued = -1;
  gint64 t0 = g_get_monotonic_time();
  if (self->gl) {
    GST_OBJECT_LOCK(self);
    gboolean readback = self->gl_readback;
    GST_OBJECT_UNLOCK(self);
    GError *err = NULL;
    if (!gst_tflite_filter_gl_run(self, buf, trs, n, readback, res, gl_mask, self->is_gl ? queued : NULL, &err)) {
      GST_ELEMENT_ERROR(self, LIBRARY, FAILED, ("GL inference failed."), ("%s", err ? err->message : "unknown"));
      g_clear_error(&err);
      return FALSE;
    }
  } else if (!run_sysmem(self, buf, trs, n, res)) {
    return FALSE;
  }
  self->last_latency_ms = (double)(g_get_monotonic_time() - t0) / 1000.0;
  GST_LOG_OBJECT(self, "inference of %d input(s) took %.3f ms", n, self->last_latency_ms);
  return TRUE;
}

void gst_tflite_filter_tensor_ids(GstTfliteFilter *self, GstTfliteMeta *meta, guint first)
{
  const GstTfliteModelInfo *mi = &self->model.info;
  if (!self->model.has_info) return;
  for (guint i = first; i < meta->tensors->len; i++) {
    GstTfliteTensor *t = &g_array_index(meta->tensors, GstTfliteTensor, i);
    if ((gint)t->index < mi->n_outputs && mi->output_ids[t->index]) t->id = g_quark_from_string(mi->output_ids[t->index]);
  }
}

/* A whole frame's results onto its meta: fresh ones (kept for the frames that skip
 * inference) or the kept ones again (res is filled with a copy). */
static void add_frame_results(GstTfliteFilter *self, GstTfliteMeta *meta, tfl_results *res, GstBuffer *gl_mask,
                              gboolean fresh)
{
  gint fw = GST_VIDEO_INFO_WIDTH(&self->info), fh = GST_VIDEO_INFO_HEIGHT(&self->info);
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
  const gfloat frame[4] = { 0, 0, (gfloat)fw, (gfloat)fh };
  gst_tflite_meta_add_results(meta, res, self->source, 0, frame, self->model.labels, gl_mask);
  gst_tflite_filter_tensor_ids(self, meta, t0);
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
                                    self->last_latency_ms, self->last_batch, self->gl ? "gl" : "cpu");
}

void gst_tflite_filter_add_run_results(GstTfliteFilter *self, GstBuffer *buf, tfl_results *res, GstBuffer *gl_mask)
{
  GstTfliteMeta *meta = gst_buffer_get_tflite_meta(buf);
  add_frame_results(self, meta, res, gl_mask, TRUE);
  tfl_results_clear(res);
  announce(self, buf, meta, TRUE);
}

static GstFlowReturn gst_tflite_filter_transform_ip(GstBaseTransform *trans, GstBuffer *buf)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(trans);
  if (!ensure_runtime(self, buf)) return GST_FLOW_ERROR;

  gint fw = GST_VIDEO_INFO_WIDTH(&self->info), fh = GST_VIDEO_INFO_HEIGHT(&self->info);
  guint interval = self->inference_interval ? self->inference_interval : 1;
  gboolean run = !self->have_last || (self->frame_count % interval == 0 && !is_late(self, buf));
  self->frame_count++;
  GST_OBJECT_LOCK(self);
  gboolean paused = self->paused_by_downstream;
  GST_OBJECT_UNLOCK(self);
  /* results reused, regions or none: the held frame's results come first */
  if ((!run || paused || self->regions) && !gst_tflite_queue_complete(self)) return GST_FLOW_ERROR;

  /* basetransform made the buffer writable (no pixel copy: memories are shared) */
  GstTfliteMeta *meta = gst_buffer_add_tflite_meta(buf, fw, fh);
  if (!meta) {
    GST_ELEMENT_ERROR(self, CORE, FAILED, ("Could not attach the results to the buffer."),
                      ("The buffer is not writable."));
    return GST_FLOW_ERROR;
  }
  if (self->regions) {
    if (!gst_tflite_filter_regions_frame(self, buf, meta, run)) return GST_FLOW_ERROR;
  } else if (paused) {
    /* a downstream element follows our objects from its own results: no inference, and
     * no stale results either */
    forget_last(self);
  } else {
    const tfl_graph *g = self->model.graph;
    const tfl_tensor *in = &g->tensors[g->inputs[0]];
    tfl_transform tr = preprocess_transform(fw, fh, in->dims[2], in->dims[1], gst_tflite_filter_fit(self));
    tfl_results res = { 0 };
    GstBuffer *gl_mask = NULL;
    if (run) {
      gint queued = -1;
      gint64 t0 = g_get_monotonic_time();
      if (!gst_tflite_filter_run(self, buf, &tr, 1, &res, &gl_mask, gst_tflite_queue_wanted(self) ? &queued : NULL) ||
          /* the held frame ran first: its results first */
          !gst_tflite_queue_complete(self)) {
        tfl_results_clear(&res);
        gst_clear_buffer(&gl_mask);
        return GST_FLOW_ERROR;
      }
      if (queued >= 0) {
        /* results a frame later: generate_output holds this frame (takes gl_mask) */
        gst_tflite_queue_submit(self, queued, &tr, gl_mask, t0);
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
  gboolean cpu = self->delegate_kind == GST_TFLITE_DELEGATE_CPU;
  gboolean automatic = self->delegate_kind == GST_TFLITE_DELEGATE_AUTO;
  GST_OBJECT_UNLOCK(self);
  g_clear_pointer(&self->gl_share_error, g_free);
  /* auto runs system-memory frames on the CPU: a pipeline with no GL element needs no
   * display (GL frames from a decoder added later bring their own context) */
  if (cpu || (automatic && !self->gl_display && !gst_tflite_pipeline_has_gl(GST_ELEMENT(self)))) {
    if (!cpu) self->gl_share_error = g_strdup("no GL element in the pipeline when it started");
    return;
  }
  if (!gst_gl_ensure_element_data(self, &self->gl_display, &self->app_context))
    self->gl_share_error = g_strdup("no GL display could be opened");
}

/* When a GL element asks for an app context (making its own GL context), or delegate=gl
 * needs a context of its own: the context to share with. Only then, so CPU pipelines
 * never make a GL context. */
static void join_gl_share_group(GstTfliteFilter *self)
{
  if (self->share_context || !self->gl_display) return;
  g_clear_pointer(&self->gl_share_error, g_free);
  GError *err = NULL;
  self->share_context = gst_tflite_gl_share_get(self->gl_display, self->app_context, &err);
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
  gst_clear_object(&self->app_context);
  gst_clear_object(&self->gl_display);
}

static GstStateChangeReturn gst_tflite_filter_change_state(GstElement *element, GstStateChange transition)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(element);
  if (transition == GST_STATE_CHANGE_NULL_TO_READY) {
    find_gl_display(self);
    /* delegate=gl runs on GL whatever the frames; with no GL at all it never could: fail
     * now, not at the first frame */
    GST_OBJECT_LOCK(self);
    gboolean gl = self->delegate_kind == GST_TFLITE_DELEGATE_GL;
    GST_OBJECT_UNLOCK(self);
    if (gl) join_gl_share_group(self);
    if (gl && !self->share_context) {
      GST_ELEMENT_ERROR(self, LIBRARY, INIT, ("delegate=gl, but no GL context with compute shaders can be made."),
                        ("%s", self->gl_share_error ? self->gl_share_error : "?"));
      leave_gl_share_group(self);
      return GST_STATE_CHANGE_FAILURE;
    }
  }
  GstStateChangeReturn ret = GST_ELEMENT_CLASS(gst_tflite_filter_parent_class)->change_state(element, transition);
  if (transition == GST_STATE_CHANGE_READY_TO_NULL) leave_gl_share_group(self);
  return ret;
}

static void gst_tflite_filter_set_context(GstElement *element, GstContext *context)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(element);
  gst_gl_handle_set_context(element, context, &self->gl_display, &self->app_context);
  GST_ELEMENT_CLASS(gst_tflite_filter_parent_class)->set_context(element, context);
}

static gboolean gst_tflite_filter_query(GstBaseTransform *trans, GstPadDirection direction, GstQuery *query)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(trans);
  /* GL elements asking for an app context get the shared one */
  const gchar *type = NULL;
  if (GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT && gst_query_parse_context_type(query, &type) &&
      !g_strcmp0(type, "gst.gl.app_context")) {
    join_gl_share_group(self);
    if (self->share_context &&
        gst_gl_handle_context_query(GST_ELEMENT(self), query, self->gl_display, NULL, self->share_context))
      return TRUE;
  }
  /* a drain (allocation changes) takes the held frame too */
  if (direction == GST_PAD_SINK && GST_QUERY_TYPE(query) == GST_QUERY_DRAIN &&
      gst_tflite_queue_drain(self) == GST_FLOW_ERROR)
    return FALSE;
  gboolean ok = GST_BASE_TRANSFORM_CLASS(gst_tflite_filter_parent_class)->query(trans, direction, query);
  if (ok && direction == GST_PAD_SRC && GST_QUERY_TYPE(query) == GST_QUERY_LATENCY) gst_tflite_queue_add_latency(self, query);
  return ok;
}

static gboolean gst_tflite_filter_sink_event(GstBaseTransform *trans, GstEvent *event)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(trans);
  /* a frame held by gl-queue-depth=2 goes before any serialized event (EOS, caps, a new
   * segment); a flush drops it */
  if (GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP) gst_tflite_queue_flush(self);
  else if (GST_EVENT_IS_SERIALIZED(event)) gst_tflite_queue_drain(self);
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
  /* another path, or other system-memory frames for the GL path's upload */
  if (self->stream && (is_gl != self->is_gl || (self->gl && !is_gl && !gst_video_info_is_equal(&info, &self->info))))
    release_runtime(self);
  if (is_gl != self->is_gl) self->runtime_failed = FALSE; /* another path may work */
  self->info = info;
  self->is_gl = is_gl;
  GST_DEBUG_OBJECT(self, "caps %" GST_PTR_FORMAT " (%s path)", incaps, is_gl ? "GL" : "system memory");
  /* System-memory frames: everything the runtime needs is known now (GL frames bring their
   * context with them), so a model the delegates refuse fails the negotiation, not the
   * first frame. */
  if (!is_gl && !ensure_runtime(self, NULL)) return FALSE;
  return TRUE;
}

static gboolean gst_tflite_filter_src_event(GstBaseTransform *trans, GstEvent *event)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(trans);
  if (gst_tflite_filter_regions_handle_event(self, event)) {
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
  GST_OBJECT_LOCK(self);
  gchar *from = self->regions_from && self->regions_from[0] ? g_strdup(self->regions_from) : NULL;
  GST_OBJECT_UNLOCK(self);
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
  g_free(from);
  return ok;
}

static gboolean gst_tflite_filter_start(GstBaseTransform *trans)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(trans);
  if (!check_regions_from(self)) return FALSE;
  self->frame_count = 0;
  self->earliest_time = GST_CLOCK_TIME_NONE;
  GST_OBJECT_LOCK(self);
  self->paused_by_downstream = FALSE;
  GST_OBJECT_UNLOCK(self);
  gchar *name = gst_object_get_name(GST_OBJECT(self));
  self->source = g_quark_from_string(name);
  g_free(name);
  /* load now so a missing or corrupt model fails the state change; the properties
   * read here need no second load at the first buffer */
  GST_OBJECT_LOCK(self);
  self->settings_changed = FALSE;
  GST_OBJECT_UNLOCK(self);
  self->runtime_failed = FALSE;
  return load_model(self);
}

static gboolean gst_tflite_filter_stop(GstBaseTransform *trans)
{
  gst_tflite_queue_flush(GST_TFLITE_FILTER(trans));
  release_runtime(GST_TFLITE_FILTER(trans));
  return TRUE;
}

/* ---- properties ---- */

static void gst_tflite_filter_set_property(GObject *object, guint prop_id, const GValue *value,
                                           GParamSpec *pspec)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(object);
  GstTfliteModelSettings *ms = &self->model_settings;
  GST_OBJECT_LOCK(self);
  switch (prop_id) {
  case PROP_MODEL: g_free(ms->model_path); ms->model_path = g_value_dup_string(value); break;
  case PROP_LABELS: g_free(ms->labels_path); ms->labels_path = g_value_dup_string(value); break;
  case PROP_DELEGATE: self->delegate_kind = g_value_get_enum(value); break;
  case PROP_THREADS: self->threads = g_value_get_int(value); break;
  case PROP_PRECISION: self->precision = g_value_get_enum(value); break;
  case PROP_CACHE_DIR: g_free(self->cache_dir); self->cache_dir = g_value_dup_string(value); break;
  case PROP_GL_PROFILE: {
    const gchar *name = g_value_get_string(value);
    gl_device_profile p = GL_PROFILE_NATIVE;
    if (name && *name && !gl_device_profile_parse(name, &p))
      GST_WARNING_OBJECT(self, "gl-profile \"%s\" is not one of %s; keeping %s", name, gl_device_profile_names(),
                         gl_device_profile_name(self->gl_profile));
    else
      self->gl_profile = p;
    break;
  }
  case PROP_DECODER: ms->decoder_kind = g_value_get_enum(value); break;
  case PROP_THRESHOLD: self->decoder_opts.threshold = g_value_get_float(value); break;
  case PROP_MAX_RESULTS: self->decoder_opts.max_results = g_value_get_int(value); break;
  case PROP_IOU_THRESHOLD: self->decoder_opts.iou_threshold = g_value_get_float(value); break;
  case PROP_CLASS_AGNOSTIC: self->decoder_opts.class_agnostic = g_value_get_boolean(value); break;
  case PROP_INFERENCE_INTERVAL: self->inference_interval = g_value_get_uint(value); break;
  case PROP_QOS: self->qos = g_value_get_boolean(value); break;
  case PROP_INPUT_MEAN:
    for (int c = 0; c < 3; c++) ms->norm_mean[c] = g_value_get_float(value);
    break;
  case PROP_INPUT_STD:
    for (int c = 0; c < 3; c++) ms->norm_std[c] = g_value_get_float(value);
    break;
  case PROP_FIT: self->fit = g_value_get_enum(value); break;
  case PROP_ANCHORS: self->decoder_opts.anchors = g_value_get_enum(value); break;
  case PROP_GL_READBACK: self->gl_readback = g_value_get_boolean(value); break;
  case PROP_MODEL_INSTANCE_ID: g_free(self->instance_id); self->instance_id = g_value_dup_string(value); break;
  case PROP_BATCH_WINDOW: self->batch_window_us = g_value_get_uint(value); break;
  case PROP_MAX_BATCH: self->max_batch = g_value_get_uint(value); break;
  case PROP_REGIONS_FROM: g_free(self->regions_from); self->regions_from = g_value_dup_string(value); break;
  case PROP_REGION_LABELS: g_free(self->region_labels); self->region_labels = g_value_dup_string(value); break;
  case PROP_MAX_REGIONS: self->max_regions = g_value_get_uint(value); break;
  case PROP_MIN_REGION_SIZE: self->min_region_size = g_value_get_uint(value); break;
  case PROP_TRACK_REGIONS: self->track_regions = g_value_get_boolean(value); break;
  case PROP_ENGINE_CONTEXT: self->engine_context = g_value_get_enum(value); break;
  case PROP_GL_QUEUE_DEPTH: self->gl_queue_depth = g_value_get_uint(value); break;
  case PROP_GL_START: self->gl_start = g_value_get_enum(value); break;
  case PROP_KEEP_TENSORS: self->keep_tensors = g_value_get_boolean(value); break;
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
  const GstTfliteModelSettings *ms = &self->model_settings;
  GST_OBJECT_LOCK(self);
  switch (prop_id) {
  case PROP_MODEL: g_value_set_string(value, ms->model_path); break;
  case PROP_LABELS: g_value_set_string(value, ms->labels_path); break;
  case PROP_DELEGATE: g_value_set_enum(value, self->delegate_kind); break;
  case PROP_THREADS: g_value_set_int(value, self->threads); break;
  case PROP_PRECISION: g_value_set_enum(value, self->precision); break;
  case PROP_CACHE_DIR: g_value_set_string(value, self->cache_dir); break;
  case PROP_GL_PROFILE: g_value_set_string(value, gl_device_profile_name(self->gl_profile)); break;
  case PROP_DECODER: g_value_set_enum(value, ms->decoder_kind); break;
  case PROP_THRESHOLD: g_value_set_float(value, self->decoder_opts.threshold); break;
  case PROP_MAX_RESULTS: g_value_set_int(value, self->decoder_opts.max_results); break;
  case PROP_IOU_THRESHOLD: g_value_set_float(value, self->decoder_opts.iou_threshold); break;
  case PROP_CLASS_AGNOSTIC: g_value_set_boolean(value, self->decoder_opts.class_agnostic); break;
  case PROP_INFERENCE_INTERVAL: g_value_set_uint(value, self->inference_interval); break;
  case PROP_QOS: g_value_set_boolean(value, self->qos); break;
  case PROP_INPUT_MEAN: g_value_set_float(value, ms->norm_mean[0]); break;
  case PROP_INPUT_STD: g_value_set_float(value, ms->norm_std[0]); break;
  case PROP_FIT: g_value_set_enum(value, self->fit); break;
  case PROP_ANCHORS: g_value_set_enum(value, self->decoder_opts.anchors); break;
  case PROP_LATENCY: g_value_set_double(value, self->last_latency_ms); break;
  case PROP_GL_READBACK: g_value_set_boolean(value, self->gl_readback); break;
  case PROP_MODEL_INSTANCE_ID: g_value_set_string(value, self->instance_id); break;
  case PROP_BATCH_WINDOW: g_value_set_uint(value, self->batch_window_us); break;
  case PROP_MAX_BATCH: g_value_set_uint(value, self->max_batch); break;
  case PROP_REGIONS_FROM: g_value_set_string(value, self->regions_from); break;
  case PROP_REGION_LABELS: g_value_set_string(value, self->region_labels); break;
  case PROP_MAX_REGIONS: g_value_set_uint(value, self->max_regions); break;
  case PROP_MIN_REGION_SIZE: g_value_set_uint(value, self->min_region_size); break;
  case PROP_TRACK_REGIONS: g_value_set_boolean(value, self->track_regions); break;
  case PROP_ENGINE_CONTEXT: g_value_set_enum(value, self->engine_context); break;
  case PROP_GL_QUEUE_DEPTH: g_value_set_uint(value, self->gl_queue_depth); break;
  case PROP_GL_START: g_value_set_enum(value, self->gl_start); break;
  case PROP_KEEP_TENSORS: g_value_set_boolean(value, self->keep_tensors); break;
  default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec); break;
  }
  GST_OBJECT_UNLOCK(self);
}

static void gst_tflite_filter_finalize(GObject *object)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(object);
  release_runtime(self);
  gst_tflite_model_settings_clear(&self->model_settings);
  g_free(self->cache_dir);
  g_free(self->instance_id);
  g_free(self->regions_from);
  g_free(self->software_gl);
  g_free(self->region_labels);
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
  trans_class->generate_output = gst_tflite_queue_generate_output;
  trans_class->start = gst_tflite_filter_start;
  trans_class->stop = gst_tflite_filter_stop;
  trans_class->query = gst_tflite_filter_query;
  element_class->change_state = gst_tflite_filter_change_state;
  element_class->set_context = gst_tflite_filter_set_context;

  GST_DEBUG_CATEGORY_GET(CAT_PERFORMANCE, "GST_PERFORMANCE");
  gst_tflite_enums_mark_as_plugin_api();
}

static void gst_tflite_filter_init(GstTfliteFilter *self)
{
  self->delegate_kind = DEFAULT_DELEGATE;
  self->threads = DEFAULT_THREADS;
  self->precision = DEFAULT_PRECISION;
  self->model_settings.decoder_kind = DEFAULT_DECODER;
  self->decoder_opts = tfl_decoder_defaults();
  self->decoder_opts.threshold = DEFAULT_THRESHOLD;
  self->decoder_opts.max_results = DEFAULT_MAX_RESULTS;
  self->decoder_opts.iou_threshold = DEFAULT_IOU;
  self->decoder_opts.anchors = DEFAULT_ANCHORS;
  self->inference_interval = DEFAULT_INTERVAL;
  self->qos = DEFAULT_QOS;
  self->fit = DEFAULT_FIT;
  self->gl_readback = DEFAULT_GL_READBACK;
  self->gl_queue_depth = DEFAULT_GL_QUEUE_DEPTH;
  self->submitted.queued = self->held.queued = -1;
  self->batch_window_us = DEFAULT_BATCH_WINDOW_US;
  self->max_batch = DEFAULT_MAX_BATCH;
  self->max_regions = DEFAULT_MAX_REGIONS;
  self->min_region_size = DEFAULT_MIN_REGION_SIZE;
  self->track_regions = DEFAULT_TRACK_REGIONS;
  self->engine_context = DEFAULT_ENGINE_CONTEXT;
  self->gl_start = DEFAULT_GL_START;
  self->keep_tensors = DEFAULT_KEEP_TENSORS;
  for (int c = 0; c < 3; c++)
    self->model_settings.norm_mean[c] = self->model_settings.norm_std[c] = GST_TFLITE_NORM_FROM_MODEL;
  self->earliest_time = GST_CLOCK_TIME_NONE;
  tfl_diag_init(&self->diag);
  self->diag.sink = log_sink;
  self->diag.user = self;
  gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
  /* QoS here means skipping inference, never dropping frames */
  gst_base_transform_set_qos_enabled(GST_BASE_TRANSFORM(self), FALSE);
}
