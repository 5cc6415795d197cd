/* tsan_gst_sync.c - LD_PRELOADed (after libtsan) into the GStreamer tests that run under
 * ThreadSanitizer (scripts/test.sh): makes GLib's locks and hand-overs, and GstGL's, visible
 * to TSan.
 *
 * Debian's GLib is not instrumented, and on Linux its GMutex and GCond are futexes and
 * atomics, not pthread calls TSan intercepts. A value our code writes under
 * GST_OBJECT_LOCK on one thread and reads under it on another then looks like a race,
 * in our own code, where no suppression may hide it. These wrappers stand in front of
 * GLib's functions for every caller outside libglib (our plugin, the test, GStreamer's
 * libraries and elements: they call through the PLT) and tell TSan what the lock does:
 * a release before unlocking, an acquire after locking. The same for GThreadPool's
 * hand-over (its queue is GLib's internal lock): what the pusher wrote before
 * g_thread_pool_push happens before the pool's function runs on that item (GStreamer's
 * streaming tasks, the engine maker thread). GRecMutex (a pad's stream lock) and GRWLock
 * are pthread objects, but tests/tsan.supp ignores what libglib calls (called_from_lib),
 * pthread locks included, so they are annotated here too. GLib's own internal calls do not
 * come here (they are bound inside the library). gst_gl_context_thread_add hands a call
 * to the GL thread through GLib's main-context queue: what the caller wrote happens
 * before the call runs there (the way back is a GMutex and GCond, seen above). Built in the TSan build (so it needs libtsan, which
 * the test loads anyway); its only accesses are to its own pointers, atomically. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

/* libtsan's annotation entry points (the process runs with libtsan loaded) */
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);

typedef int gboolean_t; /* GLib's gboolean, without GLib's headers */
typedef long long gint64_t;

/* GLib's function NAME, looked up past this library; resolved at each process's first call
 * (GLib may lock before this library's constructors ran), the pointer stored atomically. */
static void *real_in(void **slot, const char *name, const char *lib)
{
  void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (!f) {
    f = dlsym(RTLD_NEXT, name);
    /* a library loaded with a plugin (RTLD_LOCAL) is not in the global scope: ask it */
    void *h = !f && lib ? dlopen(lib, RTLD_LAZY | RTLD_NOLOAD) : NULL;
    if (h) f = dlsym(h, name);
    if (!f) {
      fprintf(stderr, "tsan_gst_sync: %s not found after this library (is %s loaded?)\n", name, lib ? lib : "GLib");
      abort();
    }
    __atomic_store_n(slot, f, __ATOMIC_RELEASE);
  }
  return f;
}

static void *real(void **slot, const char *name)
{
  return real_in(slot, name, NULL);
}

static void *mutex_lock_fn, *mutex_unlock_fn, *mutex_trylock_fn, *cond_wait_fn, *cond_wait_until_fn;

void g_mutex_lock(void *mutex)
{
  ((void (*)(void *))real(&mutex_lock_fn, "g_mutex_lock"))(mutex);
  __tsan_acquire(mutex);
}

gboolean_t g_mutex_trylock(void *mutex)
{
  gboolean_t got = ((gboolean_t(*)(void *))real(&mutex_trylock_fn, "g_mutex_trylock"))(mutex);
  if (got) __tsan_acquire(mutex);
  return got;
}

void g_mutex_unlock(void *mutex)
{
  __tsan_release(mutex);
  ((void (*)(void *))real(&mutex_unlock_fn, "g_mutex_unlock"))(mutex);
}

/* GRecMutex: TSan's annotations count recursion (each acquire and release is one event) */
static void *rec_lock_fn, *rec_unlock_fn, *rec_trylock_fn;

void g_rec_mutex_lock(void *rec_mutex)
{
  ((void (*)(void *))real(&rec_lock_fn, "g_rec_mutex_lock"))(rec_mutex);
  __tsan_acquire(rec_mutex);
}

gboolean_t g_rec_mutex_trylock(void *rec_mutex)
{
  gboolean_t got = ((gboolean_t(*)(void *))real(&rec_trylock_fn, "g_rec_mutex_trylock"))(rec_mutex);
  if (got) __tsan_acquire(rec_mutex);
  return got;
}

void g_rec_mutex_unlock(void *rec_mutex)
{
  __tsan_release(rec_mutex);
  ((void (*)(void *))real(&rec_unlock_fn, "g_rec_mutex_unlock"))(rec_mutex);
}

/* a wait unlocks the mutex and locks it again before it returns */
void g_cond_wait(void *cond, void *mutex)
{
  __tsan_release(mutex);
  ((void (*)(void *, void *))real(&cond_wait_fn, "g_cond_wait"))(cond, mutex);
  __tsan_acquire(mutex);
}

gboolean_t g_cond_wait_until(void *cond, void *mutex, gint64_t end_time)
{
  __tsan_release(mutex);
  gboolean_t r =
      ((gboolean_t(*)(void *, void *, gint64_t))real(&cond_wait_until_fn, "g_cond_wait_until"))(cond, mutex, end_time);
  __tsan_acquire(mutex);
  return r;
}

/* ---- GThreadPool: push releases the item, the pool's function acquires it ---- */

typedef void (*pool_func)(void *data, void *user_data);

typedef struct {
  pool_func func;
  void *user_data;
} pool_wrap;

static void pool_tramp(void *data, void *wrap)
{
  pool_wrap *w = wrap;
  __tsan_acquire(data);
  w->func(data, w->user_data);
}

static void *pool_new_fn, *pool_push_fn;

/* The wrap is never freed: a pool lives as long as the process in these tests (GStreamer's
 * task pool, the engine maker), and TSan runs without LeakSanitizer. */
void *g_thread_pool_new(pool_func func, void *user_data, int max_threads, gboolean_t exclusive, void **error)
{
  pool_wrap *w = malloc(sizeof *w);
  if (!w) abort();
  w->func = func;
  w->user_data = user_data;
  return ((void *(*)(pool_func, void *, int, gboolean_t, void **))real(&pool_new_fn, "g_thread_pool_new"))(
      pool_tramp, w, max_threads, exclusive, error);
}

gboolean_t g_thread_pool_push(void *pool, void *data, void **error)
{
  __tsan_release(data);
  return ((gboolean_t(*)(void *, void *, void **))real(&pool_push_fn, "g_thread_pool_push"))(pool, data, error);
}

/* ---- GstGL: the caller's writes happen before its call runs on the GL thread ---- */

typedef void (*gl_thread_func)(void *context, void *data);

typedef struct {
  gl_thread_func func;
  void *data;
} gl_call;

static void gl_tramp(void *context, void *call)
{
  gl_call *c = call;
  __tsan_acquire(c);
  c->func(context, c->data);
}

static void *gl_thread_add_fn;

/* synchronous: the call is on this stack until the GL thread has run it */
void gst_gl_context_thread_add(void *context, gl_thread_func func, void *data)
{
  gl_call c = {func, data};
  __tsan_release(&c);
  ((void (*)(void *, gl_thread_func, void *))real_in(&gl_thread_add_fn, "gst_gl_context_thread_add",
                                                                      "libgstgl-1.0.so.0"))(context, gl_tramp,
                                                                                                   &c);
}
