/* gsttfliteengine.c - see gsttfliteengine.h */
#include "gsttfliteengine.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

#include "delegates/cpu/cpu_delegate.h"
#include "delegates/gl/gl_delegate.h"

GST_DEBUG_CATEGORY_EXTERN(gst_tflite_filter_debug);
#define GST_CAT_DEFAULT gst_tflite_filter_debug

struct _GstTfliteEngine {
  gint refcount;               /* guarded by registry_lock */
  guint64 id;
  /* the key, owned copies */
  gchar *model_path, *cache_dir, *instance_id;
  GStatBuf file;               /* identity of the model file when loaded */
  GstGLContext *gl_context;
  gboolean fp32;
  gint threads, max_batch, window_us;
  gboolean has_postprocess;
  tfl_decoder_options postprocess;
  tfl_decoder_kind postprocess_kind;
  /* what runs */
  tfl_diag diag;               /* the engine's log lines -> this debug category */
  GMutex warn_lock;            /* guards file_warnings (the GL thread logs too) */
  GPtrArray *file_warnings;    /* while the engine is made: warnings naming cache_dir,
                                  posted on the element that asked for it */
  tfl_delegate *cpu, *gl;
  tfl_engine *engine;
};

/* The process's engines; the lock also serializes creation, so two elements starting at
 * once make one engine. */
static GMutex registry_lock;
static GList *registry;
static guint64 last_id;

static void log_sink(tfl_log_level level, const char *msg, void *user)
{
  GstTfliteEngine *e = user;
  GstDebugLevel l = level == TFL_LOG_ERROR     ? GST_LEVEL_ERROR
                    : level == TFL_LOG_WARNING ? GST_LEVEL_WARNING
                    : level == TFL_LOG_INFO    ? GST_LEVEL_INFO
                                               : GST_LEVEL_DEBUG;
  GST_CAT_LEVEL_LOG(GST_CAT_DEFAULT, l, NULL, "engine %p (%s): %s", e, e->model_path, msg);
  /* a file the user named (the program cache) is unusable: the element says so */
  if (level == TFL_LOG_WARNING && e->cache_dir && *e->cache_dir && strstr(msg, e->cache_dir)) {
    g_mutex_lock(&e->warn_lock);
    if (e->file_warnings) g_ptr_array_add(e->file_warnings, g_strdup(msg));
    g_mutex_unlock(&e->warn_lock);
  }
}

static gboolean same_file(const GStatBuf *a, const GStatBuf *b)
{
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
         a->st_mtime == b->st_mtime;
}

static gboolean str_same(const gchar *a, const gchar *b)
{
  return g_strcmp0(a && *a ? a : NULL, b && *b ? b : NULL) == 0;
}

static gboolean same_postprocess(const GstTfliteEngine *e, const tfl_decoder_options *o, tfl_decoder_kind kind)
{
  if (!e->has_postprocess || !o) return !e->has_postprocess && !o;
  const tfl_decoder_options *a = &e->postprocess;
  return e->postprocess_kind == kind && a->threshold == o->threshold && a->max_results == o->max_results && a->iou_threshold == o->iou_threshold &&
         a->anchors == o->anchors && !memcmp(a->box_scale, o->box_scale, sizeof a->box_scale);
}

static gboolean matches(const GstTfliteEngine *e, const GstTfliteEngineKey *k, const GStatBuf *file)
{
  if (!same_file(&e->file, file) || !str_same(e->instance_id, k->instance_id)) return FALSE;
  if (!same_postprocess(e, k->postprocess, k->postprocess_kind)) return FALSE;
  if (e->threads != k->threads || e->max_batch != k->max_batch || e->window_us != k->window_us) return FALSE;
  if (!e->gl_context != !k->gl_context) return FALSE;
  if (!e->gl_context) return TRUE;
  /* a GL engine serves every context that shares textures with its own */
  return e->fp32 == k->fp32 && str_same(e->cache_dir, k->cache_dir) &&
         (e->gl_context == k->gl_context || gst_gl_context_can_share(e->gl_context, k->gl_context));
}

/* The engine's graphs get the post-processing the element's decoder expects. */
static tfl_status append_postprocess(tfl_graph *g, void *user, tfl_diag *diag)
{
  GstTfliteEngine *e = user;
  bool appended = false;
  tfl_status st = tfl_decoder_append_postprocess(e->postprocess_kind, g, &e->postprocess, &appended, diag);
  if (st == TFL_OK && !appended)
    return tfl_fail(diag, TFL_ERR_SHAPE, "engine: %s: its %s post-processing could not be appended",
                    e->model_path, tfl_decoder_kind_name(e->postprocess_kind));
  return st;
}

/* ---- running on the GL thread ---- */

typedef struct {
  void (*fn)(void *arg);
  void *arg;
} exec_call;

static void exec_tramp(GstGLContext *ctx, gpointer data)
{
  exec_call *c = data;
  c->fn(c->arg);
}

static void gl_exec(void *user, void (*fn)(void *arg), void *arg)
{
  exec_call c = { fn, arg };
  gst_gl_context_thread_add(GST_GL_CONTEXT(user), exec_tramp, &c);
}

static void make_gl_delegate(GstGLContext *ctx, gpointer data)
{
  GstTfliteEngine *e = data;
  gl_delegate_options o = gl_delegate_defaults();
  o.precision = e->fp32 ? GL_PRECISION_FP32 : GL_PRECISION_FP16;
  o.use_current_context = true;
  o.cache_dir = e->cache_dir;
  o.diag = &e->diag;
  e->gl = gl_delegate_create(&o);
}

static void destroy_gl_delegate(GstGLContext *ctx, gpointer data)
{
  tfl_delegate *d = data;
  d->destroy(d);
}

/* ---- life cycle ---- */

static void engine_free(GstTfliteEngine *e)
{
  tfl_engine_free(e->engine); /* runs on the GL thread through exec */
  if (e->gl) gst_gl_context_thread_add(e->gl_context, destroy_gl_delegate, e->gl);
  if (e->cpu) e->cpu->destroy(e->cpu);
  if (e->gl_context) gst_object_unref(e->gl_context);
  g_free(e->model_path);
  g_free(e->cache_dir);
  g_free(e->instance_id);
  if (e->file_warnings) g_ptr_array_unref(e->file_warnings);
  g_mutex_clear(&e->warn_lock);
  g_free(e);
}

static GstTfliteEngine *engine_new(const GstTfliteEngineKey *k, const GStatBuf *file, GError **err)
{
  GstTfliteEngine *e = g_new0(GstTfliteEngine, 1);
  e->refcount = 1;
  e->model_path = g_strdup(k->model_path);
  e->cache_dir = g_strdup(k->cache_dir);
  e->instance_id = g_strdup(k->instance_id);
  e->file = *file;
  e->gl_context = k->gl_context ? gst_object_ref(k->gl_context) : NULL;
  e->fp32 = k->fp32;
  e->threads = k->threads;
  e->max_batch = k->max_batch;
  e->window_us = k->window_us;
  e->has_postprocess = k->postprocess != NULL;
  if (k->postprocess) e->postprocess = *k->postprocess;
  e->postprocess_kind = k->postprocess_kind;
  g_mutex_init(&e->warn_lock);
  e->file_warnings = g_ptr_array_new_with_free_func(g_free);
  tfl_diag_init(&e->diag);
  e->diag.sink = log_sink;
  e->diag.user = e;

  cpu_delegate_options co = cpu_delegate_defaults();
  co.threads = k->threads;
  co.diag = &e->diag;
  if (!(e->cpu = cpu_delegate_create(&co))) goto fail;
  if (e->gl_context) {
    gst_gl_context_thread_add(e->gl_context, make_gl_delegate, e);
    if (!e->gl) goto fail;
  }
  tfl_engine_options o = tfl_engine_defaults();
  o.model_path = e->model_path;
  o.accel = e->gl;
  o.fallback = e->cpu;
  o.max_batch = k->max_batch;
  o.window_us = k->window_us;
  o.diag = &e->diag;
  if (e->has_postprocess) {
    o.edit_graph = append_postprocess;
    o.edit_user = e;
  }
  if (e->gl_context) {
    o.exec = gl_exec;
    o.exec_user = e->gl_context;
  }
  if (tfl_engine_create(&o, &e->engine) != TFL_OK) goto fail;
  return e;
fail:
  g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, "%s", e->diag.error[0] ? e->diag.error : "out of memory");
  engine_free(e);
  return NULL;
}

/* The file warnings of the engine's creation, as element warnings of its first user. */
static void post_file_warnings(GstTfliteEngine *e, GstElement *who)
{
  g_mutex_lock(&e->warn_lock);
  GPtrArray *w = e->file_warnings;
  e->file_warnings = NULL;
  g_mutex_unlock(&e->warn_lock);
  for (guint i = 0; w && i < w->len; i++)
    GST_ELEMENT_WARNING(who, RESOURCE, WRITE, ("%s", (const gchar *)g_ptr_array_index(w, i)),
                        ("cache-dir is %s", e->cache_dir));
  if (w) g_ptr_array_unref(w);
}

GstTfliteEngine *gst_tflite_engine_get(const GstTfliteEngineKey *k, GstElement *who, GError **err)
{
  GStatBuf file;
  if (g_stat(k->model_path, &file) != 0) {
    g_set_error(err, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND, "%s: %s", k->model_path, g_strerror(errno));
    return NULL;
  }
  g_mutex_lock(&registry_lock);
  GstTfliteEngine *e = NULL;
  for (GList *l = registry; l && !e; l = l->next)
    if (matches(l->data, k, &file)) e = l->data;
  if (e) {
    e->refcount++;
    GST_INFO_OBJECT(who, "sharing engine %p of %s (%d users)", e, k->model_path, e->refcount);
  } else if ((e = engine_new(k, &file, err))) {
    registry = g_list_prepend(registry, e);
    e->id = ++last_id;
    GST_INFO_OBJECT(who, "new engine %p of %s (%s)", e, k->model_path, k->gl_context ? "GL" : "CPU");
  }
  g_mutex_unlock(&registry_lock);
  if (e) post_file_warnings(e, who);
  return e;
}

void gst_tflite_engine_unref(GstTfliteEngine *e)
{
  if (!e) return;
  g_mutex_lock(&registry_lock);
  gboolean last = --e->refcount == 0;
  if (last) registry = g_list_remove(registry, e);
  g_mutex_unlock(&registry_lock);
  if (last) engine_free(e);
}

tfl_engine *gst_tflite_engine_runtime(GstTfliteEngine *e)
{
  return e->engine;
}

GstGLContext *gst_tflite_engine_gl_context(GstTfliteEngine *e)
{
  return e->gl_context;
}

guint64 gst_tflite_engine_id(GstTfliteEngine *e)
{
  return e->id;
}

gint gst_tflite_engine_users(GstTfliteEngine *e)
{
  g_mutex_lock(&registry_lock);
  gint n = e->refcount;
  g_mutex_unlock(&registry_lock);
  return n;
}
