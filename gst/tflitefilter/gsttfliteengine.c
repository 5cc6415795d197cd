/* gsttfliteengine.c - see gsttfliteengine.h */
#define _GNU_SOURCE /* sched_getaffinity */
#include "gsttfliteengine.h"

#include <sched.h>
#include <unistd.h>

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

#include "delegates/cpu/cpu_delegate.h"
#include "policy/tfl_family.h"
#include "delegates/gl/gl_delegate.h"
#include "runtime/tfl_passes.h"

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
  gint gl_profile;
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
  gboolean made;               /* guarded by registry_lock: creation ended (engine set, or
                                  failed: failure says why) */
  gchar *failure;
};

/* The process's engines, those being made included: an engine is made without the lock
 * (a GL compile can take seconds, and other models' elements go on meanwhile); an element
 * asking for one being made waits for it (registry_made), so two elements starting at
 * once make one engine. */
static GMutex registry_lock;
static GCond registry_made;
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
         a->class_agnostic == o->class_agnostic &&
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
  return e->fp32 == k->fp32 && e->gl_profile == k->gl_profile && str_same(e->cache_dir, k->cache_dir) &&
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

/* Each runner's graph as the element sees the model: an NCHW input made NHWC (the
 * preprocessing writes NHWC; gsttflitemodel.c does the same to its own graph), an input
 * size the file leaves open given its family's, then the decoder's post-processing
 * appended. */
static tfl_status edit_graph(tfl_graph *g, void *user, tfl_diag *diag)
{
  GstTfliteEngine *e = user;
  tfl_pass_nhwc_input(g, 0);
  bool sized;
  tfl_status st = tfl_family_size_input(g, &sized, diag);
  if (st != TFL_OK) return st;
  return e->has_postprocess ? append_postprocess(g, user, diag) : TFL_OK;
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
  o.profile = (gl_device_profile)e->gl_profile;
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

/* ---- the maker thread ----
 *
 * Engines are made and freed on one thread that lives as long as the process (started
 * with the first engine), not on the streaming thread that asks: glibc gives each thread
 * an arena, and the model's weights, packed weights and activation arenas freed at NULL
 * stay in the arena of the thread that made them. Streaming threads come from GStreamer's
 * pool in any order, so every NULL<->PLAYING cycle left an engine's worth in another arena
 * (RSS grew with the cycles until every arena held one); made on one thread they reuse
 * one arena's free memory. (The GL delegate's own allocations are made on its context's
 * thread, through the engine's exec.) */
typedef struct {
  void (*fn)(gpointer arg);
  gpointer arg;
  GMutex lock;
  GCond done_cond;
  gboolean done;
} maker_job;

static GMutex maker_lock;
static GThreadPool *maker;
static GPrivate on_maker_thread;

static void maker_run(gpointer data, gpointer unused)
{
  maker_job *j = data;
  g_private_set(&on_maker_thread, GINT_TO_POINTER(1));
  j->fn(j->arg);
  g_mutex_lock(&j->lock);
  j->done = TRUE;
  g_cond_signal(&j->done_cond);
  g_mutex_unlock(&j->lock);
}

/* fn(arg) on the maker thread, waiting for it; directly when called from it (an engine
 * freed while one is made) or when the thread cannot be started. */
static void on_maker(void (*fn)(gpointer), gpointer arg)
{
  g_mutex_lock(&maker_lock);
  /* exclusive, one thread: started now and kept, so its arena is the engines' */
  if (!maker) maker = g_thread_pool_new(maker_run, NULL, 1, TRUE, NULL);
  GThreadPool *pool = maker;
  g_mutex_unlock(&maker_lock);
  if (!pool || g_private_get(&on_maker_thread)) {
    fn(arg);
    return;
  }
  maker_job j = { fn, arg };
  g_mutex_init(&j.lock);
  g_cond_init(&j.done_cond);
  if (!g_thread_pool_push(pool, &j, NULL)) {
    fn(arg);
  } else {
    g_mutex_lock(&j.lock);
    while (!j.done) g_cond_wait(&j.done_cond, &j.lock);
    g_mutex_unlock(&j.lock);
  }
  g_mutex_clear(&j.lock);
  g_cond_clear(&j.done_cond);
}

static void maker_exec(void *user, void (*fn)(void *arg), void *arg)
{
  on_maker(fn, arg);
}

/* ---- life cycle ---- */

static void engine_free_now(gpointer data)
{
  GstTfliteEngine *e = data;
  tfl_engine_free(e->engine); /* runs on the GL thread through exec */
  if (e->gl) gst_gl_context_thread_add(e->gl_context, destroy_gl_delegate, e->gl);
  if (e->cpu) e->cpu->destroy(e->cpu);
  if (e->gl_context) gst_object_unref(e->gl_context);
  g_free(e->model_path);
  g_free(e->cache_dir);
  g_free(e->instance_id);
  if (e->file_warnings) g_ptr_array_unref(e->file_warnings);
  g_mutex_clear(&e->warn_lock);
  g_free(e->failure);
  g_free(e);
}

static void engine_free(GstTfliteEngine *e)
{
  on_maker(engine_free_now, e);
}

static GstTfliteEngine *engine_alloc(const GstTfliteEngineKey *k, const GStatBuf *file)
{
  GstTfliteEngine *e = g_new0(GstTfliteEngine, 1);
  e->refcount = 1;
  e->model_path = g_strdup(k->model_path);
  e->cache_dir = g_strdup(k->cache_dir);
  e->instance_id = g_strdup(k->instance_id);
  e->file = *file;
  e->gl_context = k->gl_context ? gst_object_ref(k->gl_context) : NULL;
  e->fp32 = k->fp32;
  e->gl_profile = k->gl_profile;
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
  return e;
}

typedef struct {
  GstTfliteEngine *e;
  GError **err;
  gboolean ok;
} make_call;

static gboolean engine_make_now(GstTfliteEngine *e, GError **err);

static void make_tramp(gpointer data)
{
  make_call *c = data;
  c->ok = engine_make_now(c->e, c->err);
}

/* Loads and compiles e's model on the maker thread; FALSE with *err set (e is then freed by
 * its last unref). */
static gboolean engine_make(GstTfliteEngine *e, GError **err)
{
  make_call c = { e, err, FALSE };
  on_maker(make_tramp, &c);
  return c.ok;
}

static gboolean engine_make_now(GstTfliteEngine *e, GError **err)
{
  cpu_delegate_options co = cpu_delegate_defaults();
  co.threads = e->threads;
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
  o.max_batch = e->max_batch;
  o.window_us = e->window_us;
  o.diag = &e->diag;
  o.edit_graph = edit_graph;
  o.edit_user = e;
  if (e->gl_context) {
    o.exec = gl_exec;
    o.exec_user = e->gl_context;
  } else {
    o.build_exec = maker_exec;
  }
  if (tfl_engine_create(&o, &e->engine) != TFL_OK) goto fail;
  return TRUE;
fail:
  g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, "%s", e->diag.error[0] ? e->diag.error : "out of memory");
  return FALSE;
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

/* The model file's identity (an engine is shared only for the same file); FALSE with
 * *err set when it cannot be read. */
static gboolean stat_model(const GstTfliteEngineKey *k, GStatBuf *file, GError **err)
{
  if (g_stat(k->model_path, file) == 0) return TRUE;
  g_set_error(err, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND, "%s: %s", k->model_path, g_strerror(errno));
  return FALSE;
}

/* The registry's engine for key (made or being made), or NULL. registry_lock held. */
static GstTfliteEngine *find(const GstTfliteEngineKey *k, const GStatBuf *file)
{
  for (GList *l = registry; l; l = l->next)
    if (matches(l->data, k, file)) return l->data;
  return NULL;
}

/* Drops a ref; TRUE when it was the last (the caller frees e, outside the lock).
 * registry_lock held. */
static gboolean drop_ref(GstTfliteEngine *e)
{
  gboolean last = --e->refcount == 0;
  if (last) registry = g_list_remove(registry, e);
  return last;
}

GstTfliteEngine *gst_tflite_engine_get(const GstTfliteEngineKey *k, GstElement *who, GError **err)
{
  GStatBuf file;
  if (!stat_model(k, &file, err)) return NULL;
  g_mutex_lock(&registry_lock);
  GstTfliteEngine *e = find(k, &file);
  if (e) {
    e->refcount++;
    while (!e->made) g_cond_wait(&registry_made, &registry_lock);
    if (e->engine) {
      GST_INFO_OBJECT(who, "sharing engine %p of %s (%d users)", e, k->model_path, e->refcount);
    } else {
      /* the element making it failed: so do its waiters, with its reason */
      g_set_error(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, "%s", e->failure);
      gboolean last = drop_ref(e);
      g_mutex_unlock(&registry_lock);
      if (last) engine_free(e);
      return NULL;
    }
    g_mutex_unlock(&registry_lock);
  } else {
    e = engine_alloc(k, &file);
    e->id = ++last_id;
    registry = g_list_prepend(registry, e);
    g_mutex_unlock(&registry_lock);
    gboolean ok = engine_make(e, err);
    g_mutex_lock(&registry_lock);
    e->made = TRUE;
    if (!ok) {
      e->failure = g_strdup(e->diag.error[0] ? e->diag.error : "out of memory");
      registry = g_list_remove(registry, e); /* the next element tries again */
    }
    g_cond_broadcast(&registry_made);
    gboolean last = !ok && drop_ref(e);
    g_mutex_unlock(&registry_lock);
    if (!ok) {
      if (last) engine_free(e);
      return NULL;
    }
    GST_INFO_OBJECT(who, "new engine %p of %s (%s)", e, k->model_path, k->gl_context ? "GL" : "CPU");
  }
  post_file_warnings(e, who);
  return e;
}

GstTfliteEngine *gst_tflite_engine_find(const GstTfliteEngineKey *k, gboolean *being_made)
{
  GStatBuf file;
  if (being_made) *being_made = FALSE;
  if (g_stat(k->model_path, &file) != 0) return NULL;
  g_mutex_lock(&registry_lock);
  GstTfliteEngine *e = find(k, &file);
  if (e && !e->made) {
    if (being_made) *being_made = TRUE;
    e = NULL;
  } else if (e) {
    e->refcount++;
  }
  g_mutex_unlock(&registry_lock);
  return e;
}

GstTfliteEngine *gst_tflite_engine_make_private(const GstTfliteEngineKey *k, GError **err)
{
  GStatBuf file;
  if (!stat_model(k, &file, err)) return NULL;
  GstTfliteEngine *e = engine_alloc(k, &file);
  e->made = TRUE;
  if (!engine_make(e, err)) {
    engine_free(e);
    return NULL;
  }
  return e;
}

void gst_tflite_engine_unref(GstTfliteEngine *e)
{
  if (!e) return;
  g_mutex_lock(&registry_lock);
  gboolean last = drop_ref(e);
  g_mutex_unlock(&registry_lock);
  if (last) engine_free(e);
}

GstTfliteEngineKey *gst_tflite_engine_key_copy(const GstTfliteEngineKey *k)
{
  GstTfliteEngineKey *c = g_new(GstTfliteEngineKey, 1);
  *c = *k;
  c->model_path = g_strdup(k->model_path);
  c->cache_dir = g_strdup(k->cache_dir);
  c->instance_id = g_strdup(k->instance_id);
  c->gl_context = k->gl_context ? gst_object_ref(k->gl_context) : NULL;
  c->postprocess = k->postprocess ? g_memdup2(k->postprocess, sizeof *k->postprocess) : NULL;
  return c;
}

void gst_tflite_engine_key_free(GstTfliteEngineKey *k)
{
  if (!k) return;
  g_free((gchar *)k->model_path);
  g_free((gchar *)k->cache_dir);
  g_free((gchar *)k->instance_id);
  if (k->gl_context) gst_object_unref(k->gl_context);
  g_free((tfl_decoder_options *)k->postprocess);
  g_free(k);
}

tfl_engine *gst_tflite_engine_runtime(GstTfliteEngine *e)
{
  return e->engine;
}

GstGLContext *gst_tflite_engine_gl_context(GstTfliteEngine *e)
{
  return e->gl_context;
}

struct tfl_delegate *gst_tflite_engine_gl_delegate(GstTfliteEngine *e)
{
  return e->gl;
}

guint64 gst_tflite_engine_id(GstTfliteEngine *e)
{
  return e->id;
}

gint gst_tflite_engine_threads(GstTfliteEngine *e)
{
  return e->threads;
}

gint gst_tflite_engine_auto_threads(gint max)
{
  cpu_set_t set;
  /* the process's (its main thread's, as taskset sets it), not the calling streaming
   * thread's, which a pool may have made under another mask */
  gint n = sched_getaffinity(getpid(), sizeof set, &set) == 0 ? CPU_COUNT(&set) : (gint)g_get_num_processors();
  return CLAMP(n, 1, max);
}

gint gst_tflite_engine_users(GstTfliteEngine *e)
{
  g_mutex_lock(&registry_lock);
  gint n = e->refcount;
  g_mutex_unlock(&registry_lock);
  return n;
}
