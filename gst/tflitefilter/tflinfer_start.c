/* tflinfer_start.c - see tflinfer_start.h */
#include "tflinfer_start.h"

#include <gst/gl/gl.h>
#include <gst/gl/gstglfuncs.h>

#include "gsttfliteglshare.h"
#include "tflinfer_gl.h"

GST_DEBUG_CATEGORY_EXTERN(gst_tflite_infer_debug);
#define GST_CAT_DEFAULT gst_tflite_infer_debug

typedef struct _GstTfliteGlStarter GstTfliteGlStarter;

struct _GstTfliteGlStarter {
  GstElement *owner;           /* borrowed (engine warnings): the thread is joined before it goes */
  GstTfliteEngineKey *key;     /* the GL engine's */
  gboolean on_frames_context;
  gboolean warmed;             /* compiled on a context of its own first (the thread's) */
  /* the trial inference: the model's input size and normalization, the mask it exports */
  gint in_w, in_h;
  pix_norm norm;
  gboolean mask;
  gint mask_w, mask_h;
  gboolean logits;
  guint64 first_frame;         /* the element's frame count when it started */
  GstGLContext *warm_context;  /* the element's (tflinfer.h), or the one warm_up got */
  GThread *thread;
  GMutex lock;
  gboolean cancelled, done;    /* guarded by lock */
  /* the outcome: the thread's until done, then the streaming thread's */
  GstTfliteEngine *engine;
  tfl_stream *stream;
  GError *error;
  gdouble warm_ms, make_ms, trial_ms;
};

static gboolean cancelled(GstTfliteGlStarter *st)
{
  g_mutex_lock(&st->lock);
  gboolean c = st->cancelled;
  g_mutex_unlock(&st->lock);
  return c;
}

static gdouble ms_since(gint64 t0)
{
  return (gdouble)(g_get_monotonic_time() - t0) / 1000.0;
}

/* ---- one inference on a blank frame (the GL thread runs the job) ---- */

typedef struct {
  tfl_job job;
  GstTfliteGlStarter *st;
  const GstGLFuncs *gl;        /* the engine's context's */
  guint textures[2];           /* the frame and the mask, made on the GL thread */
  tfl_delegate *delegate;      /* the engine's GL delegate: the buffers' */
  tfl_buffer *images[2];       /* the textures as the runtime's image buffers */
  tfl_diag diag;               /* their errors */
} trial_job;

/* A zeroed w x h texture on the current context. Not made by the element's gl_start
 * (gsttfliteglelement.h): it lives for one trial inference on this thread, on the engine's
 * context, or in warm_up on a context in no share group, where a texture of the element's
 * context (the share group's) cannot be read; gl_start runs before the model's input and
 * mask sizes are known. */
static guint blank_texture(const GstGLFuncs *f, GLenum internal, GLenum format, gint w, gint h)
{
  guint name = 0;
  gpointer zeros = g_malloc0((gsize)w * (gsize)h * 4);
  f->GenTextures(1, &name);
  f->BindTexture(GL_TEXTURE_2D, name);
  f->TexImage2D(GL_TEXTURE_2D, 0, (GLint)internal, w, h, 0, format, GL_UNSIGNED_BYTE, zeros);
  f->TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  f->TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  f->BindTexture(GL_TEXTURE_2D, 0);
  g_free(zeros);
  return name;
}

static tfl_status trial_fill(tfl_job *job, tfl_interpreter *it, int slot)
{
  trial_job *j = (trial_job *)job;
  GstTfliteGlStarter *st = j->st;
  j->textures[0] = blank_texture(j->gl, GL_RGBA8, GL_RGBA, st->in_w, st->in_h);
  tfl_transform tr = preprocess_transform(st->in_w, st->in_h, st->in_w, st->in_h, FIT_STRETCH);
  GstTfliteGlFrame frame = { .texture = j->textures[0], .layout = TFL_IMAGE_RGBA };
  if (!j->images[0] && tfl_buffer_new(j->delegate, TFL_BUFFER_IMAGE, 0, &j->diag, &j->images[0]) != TFL_OK) {
    g_strlcpy(job->error, j->diag.error, sizeof job->error);
    return TFL_ERR_BACKEND;
  }
  return gst_tflite_infer_gl_bind_frame(job, it, j->images[0], &j->diag, slot, &frame, st->in_w, st->in_h, &tr,
                                        &st->norm);
}

/* The mask export of a segmentation too (its program is made at its first use). */
static tfl_status trial_consume(tfl_job *job, tfl_interpreter *it, int slot)
{
  trial_job *j = (trial_job *)job;
  GstTfliteGlStarter *st = j->st;
  if (!st->mask) return TFL_OK;
  j->textures[1] = blank_texture(j->gl, GL_R8, GL_RED, st->mask_w, st->mask_h);
  tfl_image_desc x = { .handle = j->textures[1], .width = st->mask_w, .height = st->mask_h };
  tfl_export e = { .slot = slot, .convert = st->logits ? TFL_CONVERT_SIGMOID_CLASS_U8 : TFL_CONVERT_CLASS_U8 };
  tfl_status s = j->images[1] ? TFL_OK : tfl_buffer_new(j->delegate, TFL_BUFFER_IMAGE, 0, &j->diag, &j->images[1]);
  if (s == TFL_OK) s = tfl_buffer_import(j->images[1], &x);
  if (s != TFL_OK) {
    g_strlcpy(job->error, j->diag.error, sizeof job->error);
    return s;
  }
  s = tfl_interpreter_export_output(it, 0, &e, j->images[1]);
  if (s != TFL_OK) g_strlcpy(job->error, tfl_interpreter_last_error(it), sizeof job->error);
  return s;
}

static void delete_textures(GstGLContext *ctx, gpointer data)
{
  trial_job *j = data;
  for (guint i = 0; i < G_N_ELEMENTS(j->images); i++) tfl_buffer_free(j->images[i]);
  for (guint i = 0; i < G_N_ELEMENTS(j->textures); i++)
    if (j->textures[i]) ctx->gl_vtable->DeleteTextures(1, &j->textures[i]);
}

/* Runs the model once on s as the element's first GL frame would (texture input, outputs
 * read back, the mask exported): programs a driver compiles at their first dispatch
 * (llvmpipe compiles every shader then) are compiled here, not on a frame. */
static gboolean trial_run(GstTfliteGlStarter *st, GstTfliteEngine *e, tfl_stream *s, GError **err)
{
  GstGLContext *ctx = gst_tflite_engine_gl_context(e);
  trial_job j = { .st = st, .gl = ctx->gl_vtable, .delegate = gst_tflite_engine_gl_delegate(e) };
  tfl_diag_init(&j.diag);
  j.job.fill = trial_fill;
  j.job.consume = trial_consume;
  j.job.host_outputs = TRUE;
  tfl_status r = tfl_stream_run(s, &j.job);
  gst_gl_context_thread_add(ctx, delete_textures, &j);
  if (r != TFL_OK)
    g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_FAILED, "the first GL inference failed: %s", j.job.error);
  return r == TFL_OK;
}

/* ---- the thread ---- */

/* Makes the engine once on a GL context of its own, runs it once and frees it: the
 * driver's and our program cache are then warm for the engine on the frames' context.
 * FALSE with *err set when the model cannot run on GL; a context that cannot be made is
 * no error (the engine is then compiled on the frames' context). */
static gboolean warm_up(GstTfliteGlStarter *st, GError **err)
{
  GstGLDisplay *display = gst_gl_context_get_display(st->key->gl_context);
  /* one context per display, kept by the elements across restarts: a context made for
   * each start was a new GL thread each time, and the engine it compiled left its memory
   * in that thread's glibc arena (RSS grew with every restart) */
  if (st->warm_context) {
    GstGLDisplay *had = gst_gl_context_get_display(st->warm_context);
    if (had != display) gst_clear_object(&st->warm_context);
    gst_object_unref(had);
  }
  GError *ctx_err = NULL;
  if (!st->warm_context) st->warm_context = gst_tflite_gl_share_get_apart(display, &ctx_err);
  gst_object_unref(display);
  GstGLContext *ctx = st->warm_context ? gst_object_ref(st->warm_context) : NULL;
  if (!ctx) {
    GST_INFO_OBJECT(st->owner, "no GL context to compile on first (%s): compiling on the frames' context",
                    ctx_err ? ctx_err->message : "?");
    g_clear_error(&ctx_err);
    return TRUE;
  }
  GstTfliteEngineKey k = *st->key;
  k.gl_context = ctx;
  GstTfliteEngine *e = gst_tflite_engine_make_private(&k, err);
  gboolean ok = e != NULL;
  if (e) {
    tfl_stream *s = tfl_engine_attach(gst_tflite_engine_runtime(e));
    ok = s && trial_run(st, e, s, err);
    tfl_engine_detach(s);
    gst_tflite_engine_unref(e);
  }
  gst_object_unref(ctx);
  return ok;
}

static gpointer starter_thread(gpointer data)
{
  GstTfliteGlStarter *st = data;
  GError *err = NULL;
  gint64 t0 = g_get_monotonic_time();
  /* another element makes or made this engine: no compile of ours, it is shared */
  gboolean being_made = FALSE;
  GstTfliteEngine *known = gst_tflite_engine_find(st->key, &being_made);
  st->warmed = st->on_frames_context && !known && !being_made;
  gst_tflite_engine_unref(known);
  if (st->warmed) warm_up(st, &err);
  st->warm_ms = ms_since(t0);

  GstTfliteEngine *e = NULL;
  tfl_stream *s = NULL;
  gint64 t1 = g_get_monotonic_time();
  if (!err && !cancelled(st)) e = gst_tflite_engine_get(st->key, st->owner, &err);
  st->make_ms = ms_since(t1);
  gint64 t2 = g_get_monotonic_time();
  if (e && !cancelled(st)) {
    s = tfl_engine_attach(gst_tflite_engine_runtime(e));
    if (!s) g_set_error(&err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, "out of memory");
    else trial_run(st, e, s, &err);
  }
  st->trial_ms = ms_since(t2);
  if (err) {
    tfl_engine_detach(s);
    s = NULL;
    gst_tflite_engine_unref(e);
    e = NULL;
  }
  g_mutex_lock(&st->lock);
  st->engine = e;
  st->stream = s;
  st->error = err;
  st->done = TRUE;
  g_mutex_unlock(&st->lock);
  return NULL;
}

static void starter_free(GstTfliteGlStarter *st)
{
  tfl_engine_detach(st->stream);
  gst_tflite_engine_unref(st->engine);
  g_clear_error(&st->error);
  gst_tflite_engine_key_free(st->key);
  gst_clear_object(&st->warm_context);
  g_mutex_clear(&st->lock);
  g_free(st);
}

/* ---- the streaming thread's side ---- */

gboolean gst_tflite_infer_start_gl(GstTfliteInfer *self, const GstTfliteEngineKey *key, gboolean on_frames_context,
                                    GError **err)
{
  g_return_val_if_fail(self->gl_starter == NULL && key->gl_context != NULL, FALSE);
  GstTfliteGlStarter *st = g_new0(GstTfliteGlStarter, 1);
  st->owner = self->owner;
  st->key = gst_tflite_engine_key_copy(key);
  st->on_frames_context = on_frames_context;
  const tfl_graph *g = self->model.graph;
  const tfl_tensor *in = &g->tensors[g->inputs[0]];
  st->in_w = in->dims[2];
  st->in_h = in->dims[1];
  st->norm = self->model.norm;
  st->mask = gst_tflite_infer_gl_mask_size(self, &st->mask_w, &st->mask_h, &st->logits);
  st->first_frame = self->frames;
  st->warm_context = self->warm_context ? gst_object_ref(self->warm_context) : NULL;
  g_mutex_init(&st->lock);
  if (!(st->thread = g_thread_try_new("tflite-gl-start", starter_thread, st, err))) {
    starter_free(st);
    return FALSE;
  }
  GST_INFO_OBJECT(self->owner, "making the GL engine in the background%s; the first frames run on the CPU",
                  on_frames_context ? " (compiled on a context of its own first)" : "");
  self->gl_starter = st;
  return TRUE;
}

gboolean gst_tflite_infer_gl_start_done(GstTfliteInfer *self, GstTfliteGlStartOutcome *out)
{
  GstTfliteGlStarter *st = self->gl_starter;
  g_mutex_lock(&st->lock);
  gboolean done = st->done;
  g_mutex_unlock(&st->lock);
  if (!done) return FALSE;
  g_thread_join(st->thread);
  self->gl_starter = NULL;
  if (st->warm_context) gst_object_replace((GstObject **)&self->warm_context, (GstObject *)st->warm_context);
  *out = (GstTfliteGlStartOutcome){ st->engine, st->stream, st->error, self->frames - st->first_frame,
                                    st->warm_ms + st->make_ms + st->trial_ms };
  if (st->engine) {
    gchar *warm = st->warmed ? g_strdup_printf("compiling on a context of its own %.1f ms, ", st->warm_ms) : NULL;
    GST_INFO_OBJECT(self->owner,
                    "GL engine ready after %.1f ms (%sthe engine %.1f ms, its first inference %.1f ms); %" G_GUINT64_FORMAT
                    " frames ran on the CPU, the next runs on GL",
                    out->ms, warm ? warm : "", st->make_ms, st->trial_ms, out->cpu_frames);
    g_free(warm);
  } else {
    GST_INFO_OBJECT(self->owner, "the GL engine failed after %.1f ms: %s", out->ms,
                    st->error ? st->error->message : "?");
  }
  st->engine = NULL;
  st->stream = NULL;
  st->error = NULL;
  starter_free(st);
  return TRUE;
}

void gst_tflite_infer_stop_gl_start(GstTfliteInfer *self)
{
  GstTfliteGlStarter *st = self->gl_starter;
  if (!st) return;
  self->gl_starter = NULL;
  g_mutex_lock(&st->lock);
  st->cancelled = TRUE;
  g_mutex_unlock(&st->lock);
  gint64 t0 = g_get_monotonic_time();
  g_thread_join(st->thread);
  if (st->warm_context) gst_object_replace((GstObject **)&self->warm_context, (GstObject *)st->warm_context);
  GST_DEBUG_OBJECT(self->owner, "background GL start stopped (waited %.1f ms for it)", ms_since(t0));
  starter_free(st);
}
