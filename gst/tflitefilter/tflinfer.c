/* tflinfer.c - the inference object's life cycle (see tflinfer.h): the settings snapshot,
 * the model's policy, the shared engine and this stream on it, the GL or system-memory
 * path, the regions, and gl-start=cpu's handover. */
#include "tflinfer.h"

#include <string.h>

#include "gsttfliteengine.h"
#include "gsttflitemessages.h"
#include "tflinfer_gl.h"
#include "tflinfer_regions.h"
#include "tflinfer_start.h"

GST_DEBUG_CATEGORY(gst_tflite_infer_debug);
#define GST_CAT_DEFAULT gst_tflite_infer_debug
/* slow-path hints (CPU fallbacks) go to GStreamer's performance category */
GST_DEBUG_CATEGORY_STATIC(CAT_PERFORMANCE);

#define MAX_THREADS 64 /* as the element's 'threads' property */

/* ---- notices ---- */

static void notice_free(gpointer p)
{
  gst_tflite_notice_clear(p);
  g_free(p);
}

/* A warning for the element to post. */
static void warn(GstTfliteInfer *in, GQuark domain, gint code, const gchar *debug, const gchar *text)
{
  GstTfliteNotice *n = g_new0(GstTfliteNotice, 1);
  gst_tflite_notice_set(n, domain, code, debug, "%s", text);
  g_ptr_array_add(in->notices, n);
}

GPtrArray *gst_tflite_infer_take_notices(GstTfliteInfer *in)
{
  GPtrArray *a = in->notices;
  in->notices = g_ptr_array_new_with_free_func(notice_free);
  return a;
}

/* ---- life ---- */

/* The runtime's log lines go to this object's debug category, with the element as object
 * (so several elements stay apart in the log). */
static void log_sink(tfl_log_level level, const char *msg, void *user)
{
  GstDebugLevel l = GST_LEVEL_DEBUG;
  switch (level) {
  case TFL_LOG_ERROR: l = GST_LEVEL_ERROR; break;
  case TFL_LOG_WARNING: l = GST_LEVEL_WARNING; break;
  case TFL_LOG_INFO: l = GST_LEVEL_INFO; break;
  case TFL_LOG_DEBUG: l = GST_LEVEL_DEBUG; break;
  }
  GST_CAT_LEVEL_LOG(gst_tflite_infer_debug, l, user, "%s", msg);
}

void gst_tflite_infer_init(GstTfliteInfer *in, GstElement *owner)
{
  static gsize categories = 0;
  if (g_once_init_enter(&categories)) {
    GST_DEBUG_CATEGORY_INIT(gst_tflite_infer_debug, "tflinfer", 0, "tflitefilter's inference object");
    GST_DEBUG_CATEGORY_GET(CAT_PERFORMANCE, "GST_PERFORMANCE");
    g_once_init_leave(&categories, 1);
  }
  memset(in, 0, sizeof *in);
  in->owner = owner;
  tfl_diag_init(&in->diag);
  in->diag.sink = log_sink;
  in->diag.user = owner;
  gst_tflite_queue_init(&in->queue);
  in->notices = g_ptr_array_new_with_free_func(notice_free);
}

void gst_tflite_infer_finalize(GstTfliteInfer *in)
{
  gst_tflite_infer_release(in);
  gst_tflite_queue_flush(&in->queue);
  gst_tflite_settings_unref(in->cfg);
  in->cfg = NULL;
  g_clear_pointer(&in->software_gl, g_free);
  gst_clear_object(&in->warm_context);
  g_clear_pointer(&in->notices, g_ptr_array_unref);
  if (in->model_message) gst_structure_free(in->model_message);
  in->model_message = NULL;
}

void gst_tflite_infer_release(GstTfliteInfer *in)
{
  gst_tflite_infer_stop_gl_start(in);
  /* a held frame's read-back lives in the GL path's state: completed before, when it can
   * be (the element does so at a rebuild and at serialized events), else dropped here */
  if (gst_tflite_queue_drop_held(&in->queue))
    GST_WARNING_OBJECT(in->owner, "the runtime goes: the held frame is dropped without results");
  gst_tflite_regions_free(in->regions);
  in->regions = NULL;
  gst_tflite_infer_gl_free(in->gl);
  in->gl = NULL;
  tfl_engine_detach(in->stream);
  in->stream = NULL;
  gst_tflite_engine_unref(in->engine);
  in->engine = NULL;
  tfl_decoder_free(in->decoder);
  in->decoder = NULL;
  gst_tflite_model_clear(&in->model);
}

void gst_tflite_infer_set_settings(GstTfliteInfer *in, const GstTfliteSettings *cfg)
{
  gst_tflite_infer_release(in);
  in->failed = FALSE;
  const GstTfliteSettings *old = in->cfg;
  in->cfg = gst_tflite_settings_ref(cfg);
  gst_tflite_settings_unref(old);
}

void gst_tflite_infer_set_info(GstTfliteInfer *in, const GstVideoInfo *info, gboolean is_gl)
{
  /* another path, or other system-memory frames for the GL path's upload */
  if (in->stream && (is_gl != in->is_gl || (in->gl && !is_gl && !gst_video_info_is_equal(info, &in->info))))
    gst_tflite_infer_release(in);
  if (is_gl != in->is_gl) in->failed = FALSE; /* another path may work */
  in->info = *info;
  in->is_gl = is_gl;
}

/* ---- the model ---- */

gboolean gst_tflite_infer_load_model(GstTfliteInfer *in, GstTfliteNotice *fail)
{
  const GstTfliteModelSettings *s = &in->cfg->model;
  tfl_decoder_options opts = in->cfg->decoder_opts;
  gboolean keep = in->cfg->keep_tensors;
  /* the policy posts its own errors and warnings on the element */
  gboolean ok = gst_tflite_model_load(in->owner, s, &in->diag, &in->model);
  in->tensors_out = ok && (keep || in->model.decoder_kind == TFL_DECODER_TENSORS);
  /* a MediaPipe detector's anchor decoding and NMS, a landmark model's decoding run in the
   * graph, on its delegate: the engine appends the same op to its graphs
   * (GstTfliteEngineKey.postprocess). Not with keep-tensors: the tensors handed on are the
   * model's own outputs. */
  bool appended = false;
  if (ok && !keep &&
      tfl_decoder_append_postprocess(in->model.decoder_kind, in->model.graph, &opts, &appended, &in->diag) != TFL_OK) {
    gst_tflite_notice_set(fail, GST_CORE_ERROR, GST_CORE_ERROR_FAILED, in->diag.error,
                          "Could not add the post-processing to model \"%s\".", s->model_path);
    gst_tflite_model_clear(&in->model);
    ok = FALSE;
  }
  in->fit = in->cfg->fit == FIT_AUTO ? in->model.fit : in->cfg->fit;
  in->postprocess_in_graph = appended;
  in->postprocess_opts = opts;
  if (ok && in->model.decoder_kind != TFL_DECODER_NONE &&
      tfl_decoder_create(in->model.decoder_kind, in->model.graph, &opts, &in->decoder, &in->diag) != TFL_OK) {
    gst_tflite_notice_set(fail, GST_STREAM_ERROR, GST_STREAM_ERROR_WRONG_TYPE, in->diag.error,
                          "Model \"%s\" does not fit the '%s' decoder.", s->model_path,
                          tfl_decoder_kind_name(in->model.decoder_kind));
    gst_tflite_model_clear(&in->model);
    ok = FALSE;
  }
  return ok;
}

typedef struct {
  GstTfliteInfer *in;
  const GstStructure *extra;
} model_message;

static void post_model_on_exec(const tfl_interpreter *it, void *user)
{
  model_message *m = user;
  GstTfliteInfer *in = m->in;
  gst_tflite_post_model_message(in->owner, in->cfg->model.model_path,
                                in->decoder ? tfl_decoder_kind_name(tfl_decoder_get_kind(in->decoder)) : "none",
                                in->gl ? "gl" : "cpu", it, in->gl != NULL, gst_tflite_engine_id(in->engine),
                                CAT_PERFORMANCE, m->extra);
}

/* The "tflite-model" message is due, with the fields of extra (taken): the element posts
 * it after the warnings that came before it (gst_tflite_infer_post_model). */
static void model_ready(GstTfliteInfer *in, GstStructure *extra)
{
  if (in->model_message) gst_structure_free(in->model_message);
  in->model_message = extra;
}

void gst_tflite_infer_post_model(GstTfliteInfer *in)
{
  GstStructure *extra = in->model_message;
  in->model_message = NULL;
  if (!extra || !in->engine) {
    if (extra) gst_structure_free(extra);
    return;
  }
  model_message m = { in, extra };
  tfl_engine_inspect(gst_tflite_engine_runtime(in->engine), post_model_on_exec, &m);
  gst_structure_free(extra);
}

/* ---- the engine ---- */

/* The engine key on gl_context (NULL: the CPU): a copy (gst_tflite_engine_key_free). */
static GstTfliteEngineKey *engine_key(GstTfliteInfer *in, GstGLContext *gl_context)
{
  const GstTfliteSettings *c = in->cfg; /* the model's own snapshot: never the live properties */
  gint threads = c->threads > 0 ? c->threads : gst_tflite_engine_auto_threads(MAX_THREADS);
  GstTfliteEngineKey k = { c->model.model_path, gl_context, c->precision == GST_TFLITE_PRECISION_FP32,
                           threads, c->cache_dir, c->instance_id, (gint)c->max_batch,
                           (gint)c->batch_window_us, in->postprocess_in_graph ? &in->postprocess_opts : NULL,
                           in->model.decoder_kind };
  k.gl_profile = c->gl_profile;
  return gst_tflite_engine_key_copy(&k);
}

/* The GL engine could not be made (err: why): with delegate=gl an error and FALSE, else a
 * warning (the CPU runs the model) and TRUE. */
static gboolean gl_unavailable(GstTfliteInfer *in, const GError *err, GstTfliteNotice *fail)
{
  const gchar *why = err ? err->message : "unknown GL failure";
  if (in->cfg->delegate_kind == GST_TFLITE_DELEGATE_GL) {
    gst_tflite_notice_set(fail, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, why, "The GL delegate is not available.");
    return FALSE;
  }
  warn(in, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, why, "GL delegate unavailable; running on the CPU.");
  return TRUE;
}

/* The GL path's state (in->gl) for the GL engine; FALSE with *fail set. */
static gboolean make_gl_path(GstTfliteInfer *in, GstTfliteNotice *fail)
{
  GError *err = NULL;
  if ((in->gl = gst_tflite_infer_gl_new(in, &err))) return TRUE;
  gst_tflite_notice_set(fail, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, err ? err->message : "?",
                        "Could not set up the GL path.");
  g_clear_error(&err);
  return FALSE;
}

/* The GL context the GL engine runs on (ref); *frames: it is the frames' own (whose
 * thread also serves the pipeline's other GL elements). NULL with *err set when there is
 * none. */
static GstGLContext *gl_engine_context(GstTfliteInfer *in, GstBuffer *buf, const GstTfliteGlShare *share,
                                       gboolean *frames, GError **err)
{
  *frames = FALSE;
  /* system-memory frames with delegate=gl: the element's own context (the share group's)
   * runs the model, and the frames are uploaded */
  if (!in->is_gl) {
    if (share->share_context) return gst_object_ref(share->share_context);
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, "no GL context of the element's own: %s",
                share->share_error ? share->share_error : "the element did not join a GL display");
    return NULL;
  }
  GstGLContext *ctx = gst_tflite_infer_gl_context(buf, err);
  if (!ctx) return NULL;
  /* frames in the share group: the engine runs on the shared context, whose thread is
   * the engine's alone; else on the frames' own context */
  gboolean own = in->cfg->engine_context == GST_TFLITE_ENGINE_CONTEXT_SHARED;
  gboolean shared = own && share->share_context &&
                    (ctx == share->share_context || gst_gl_context_can_share(ctx, share->share_context));
  /* the element's own context could not be made: the frames' context runs the engine */
  if (own && !share->share_context && share->share_error)
    warn(in, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, share->share_error,
         "engine-context=shared, but the element has no GL context of its own: the engine runs on the frames' GL "
         "context.");
  GST_DEBUG_OBJECT(in->owner, "frames on %" GST_PTR_FORMAT "%s", ctx, shared ? ", engine on the shared context" : "");
  if (!shared) {
    *frames = TRUE;
    return ctx;
  }
  gst_object_unref(ctx);
  return gst_object_ref(share->share_context);
}

/* The GL engine (in->engine), or with gl-start=cpu, unless it is made already, its start
 * in the background (in->gl_starter) while the CPU runs the first frames. With no GL
 * engine: FALSE with *fail set, TRUE after a warning (the CPU runs it). */
static gboolean make_gl_engine(GstTfliteInfer *in, GstBuffer *buf, const GstTfliteGlShare *share,
                               GstTfliteNotice *fail)
{
  GError *err = NULL;
  gboolean frames;
  GstGLContext *ctx = gl_engine_context(in, buf, share, &frames, &err);
  if (ctx) {
    GstTfliteEngineKey *key = engine_key(in, ctx);
    gboolean background = in->cfg->gl_start == GST_TFLITE_GL_START_CPU;
    if (background && !(in->engine = gst_tflite_engine_find(key, NULL)) &&
        !gst_tflite_infer_start_gl(in, key, frames, &err)) {
      GST_WARNING_OBJECT(in->owner, "no background GL start (%s): the first frame waits for the GL engine",
                         err->message);
      g_clear_error(&err);
    }
    if (!in->engine && !in->gl_starter) in->engine = gst_tflite_engine_get(key, in->owner, &err);
    gst_tflite_engine_key_free(key);
    gst_object_unref(ctx);
  }
  gboolean ok = in->engine || in->gl_starter || gl_unavailable(in, err, fail);
  g_clear_error(&err);
  return ok;
}

/* delegate=auto on GL frames: a software renderer (no GPU) runs the model many times
 * slower than the CPU delegate (deeplab: 15x), so the CPU runs it, the frames downloaded
 * once each; a warning (once) and the "tflite-model" message say so. */
static gboolean software_gl(GstTfliteInfer *in, GstBuffer *buf)
{
  g_clear_pointer(&in->software_gl, g_free);
  /* tests of GL fallbacks on machines with no GPU */
  if (!g_strcmp0(g_getenv("GST_TFLITE_SOFTWARE_GL"), "1")) return FALSE;
  GstGLContext *ctx = buf ? gst_tflite_infer_gl_context(buf, NULL) : NULL;
  if (!ctx) return FALSE;
  in->software_gl = gst_tflite_infer_gl_software_renderer(ctx);
  gst_object_unref(ctx);
  if (!in->software_gl) return FALSE;
  if (!in->warned_software_gl) {
    gchar *text = g_strdup_printf("The GL renderer \"%s\" is software (no GPU): delegate=auto runs the model on the "
                                  "CPU (delegate=gl forces GL).", in->software_gl);
    warn(in, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS, NULL, text);
    g_free(text);
  }
  in->warned_software_gl = TRUE;
  return TRUE;
}

static gboolean make_runtime(GstTfliteInfer *in, GstBuffer *buf, const GstTfliteGlShare *share,
                             GstTfliteNotice *fail)
{
  GstTfliteDelegate want = in->cfg->delegate_kind;
  if (!in->model.graph && !gst_tflite_infer_load_model(in, fail)) return FALSE;

  if (in->is_gl && want == GST_TFLITE_DELEGATE_AUTO && software_gl(in, buf)) want = GST_TFLITE_DELEGATE_CPU;
  if (((in->is_gl && want != GST_TFLITE_DELEGATE_CPU) || want == GST_TFLITE_DELEGATE_GL) &&
      !make_gl_engine(in, buf, share, fail))
    return FALSE;
  gboolean gl = in->engine != NULL;
  if (!in->engine) {
    GError *err = NULL;
    GstTfliteEngineKey *k = engine_key(in, NULL);
    in->engine = gst_tflite_engine_get(k, in->owner, &err);
    gst_tflite_engine_key_free(k);
    if (!in->engine) {
      gst_tflite_notice_set(fail, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, err ? err->message : "unknown failure",
                            "Could not prepare model \"%s\" for the CPU.", in->cfg->model.model_path);
      g_clear_error(&err);
      return FALSE;
    }
  }
  if (!(in->stream = tfl_engine_attach(gst_tflite_engine_runtime(in->engine)))) {
    gst_tflite_notice_set(fail, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, NULL, "Out of memory.");
    return FALSE;
  }
  if (gl && !make_gl_path(in, fail)) return FALSE;
  if (in->cfg->regions_from && in->cfg->regions_from[0]) in->regions = gst_tflite_regions_new(in);
  /* gl-start=cpu: this message says CPU; another one follows when GL takes over */
  GstStructure *extra =
    in->gl_starter ? gst_structure_new("gl-start", "gl-start-pending", G_TYPE_BOOLEAN, TRUE, NULL) : NULL;
  if (!extra) extra = gst_structure_new_empty("extra");
  gst_structure_set(extra, "threads", G_TYPE_INT, gst_tflite_engine_threads(in->engine), NULL);
  if (in->software_gl) gst_structure_set(extra, "software-gl-renderer", G_TYPE_STRING, in->software_gl, NULL);
  model_ready(in, extra);
  return TRUE;
}

/* gl-start=cpu: once the background start ended, onto the GL engine (its model message
 * says so, with the time it took); on failure a warning (the CPU goes on) or, with
 * delegate=gl, FALSE. TRUE while it still runs. */
static gboolean switch_to_gl(GstTfliteInfer *in, GstTfliteNotice *fail)
{
  GstTfliteGlStartOutcome o;
  if (!gst_tflite_infer_gl_start_done(in, &o)) return TRUE;
  if (!o.engine) {
    gboolean ok = gl_unavailable(in, o.error, fail);
    g_clear_error(&o.error);
    return ok;
  }
  /* between two frames: nothing is held on the CPU engine (only GL frames are queued) */
  tfl_engine_detach(in->stream);
  gst_tflite_engine_unref(in->engine);
  in->engine = o.engine;
  in->stream = o.stream;
  if (!make_gl_path(in, fail)) return FALSE;
  GstStructure *extra = gst_structure_new("gl-start", "cpu-frames", G_TYPE_UINT64, o.cpu_frames, "gl-start-ms",
                                          G_TYPE_DOUBLE, o.ms, NULL);
  model_ready(in, extra);
  return TRUE;
}

gboolean gst_tflite_infer_prepare(GstTfliteInfer *in, GstBuffer *buf, const GstTfliteGlShare *share,
                                  GstTfliteNotice *fail)
{
  if (in->stream && in->gl_starter && !switch_to_gl(in, fail)) {
    /* delegate=gl and no GL engine: no more frames on the CPU */
    gst_tflite_infer_release(in);
    in->failed = TRUE;
    return FALSE;
  }
  if (in->stream) return TRUE;
  if (in->failed) return FALSE;
  if (make_runtime(in, buf, share, fail)) return TRUE;
  in->failed = TRUE;
  return FALSE;
}
