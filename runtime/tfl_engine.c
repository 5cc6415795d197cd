/* tfl_engine.c - see tfl_engine.h.
 *
 * Scheduling ("flat combining"): a caller queues its job, and if no batch is being run,
 * becomes the leader: it waits (at most window_us) until every recently active stream
 * has queued a frame or the batch is full, takes up to B jobs, and runs them (through
 * exec): fill each slot, one invoke, consume each slot. Then it marks them done, wakes
 * everyone, and the next caller still waiting leads the next batch. No thread of the
 * engine's own: the streams' threads do the work, one at a time.
 *
 * Runners: a batch-1 runner always (a lone frame never pays for empty slots, which on
 * the CPU cost as much as full ones), and, while several streams are active, one of B
 * frames (B a power of two); B grows with the active streams and the batch runner is
 * dropped when streams detach below half of it.
 */
#include "tfl_engine.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tfl_loader.h"
#include "tfl_passes.h"

/* A stream counts as active (worth waiting for) this long after its last frame, or four
 * runs' time when runs are slower than that. */
#define ACTIVE_NS (200 * 1000 * 1000LL)
#define MAX_BATCH_LIMIT 64

typedef struct {
  tfl_graph *g;
  tfl_interpreter *it;
  int batch;
} runner;

struct tfl_stream {
  tfl_engine *e;
  long long last_ns;           /* monotonic time of the last queued frame, 0: none yet */
  tfl_stream *next;
};

struct tfl_engine {
  tfl_engine_options o;
  char *path;
  tfl_diag own_diag;           /* when o.diag is NULL */
  tfl_diag run_diag;           /* the runner's: invoke errors, copied into the jobs */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  runner *one;                 /* batch 1 */
  runner *many;                /* batch > 1, or NULL */
  int batch_limit;             /* what the model allows: 1 once batching failed */
  long long run_ns;            /* how long the last run took */
  tfl_job *head, *tail;
  int queued;
  bool leading;
  tfl_stream *streams;
  int n_streams;
  unsigned long long runs, frames;
};

static long long now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static tfl_diag *diag_of(tfl_engine *e)
{
  return e->o.diag ? e->o.diag : &e->own_diag;
}

tfl_engine_options tfl_engine_defaults(void)
{
  return (tfl_engine_options){.max_batch = 8, .window_us = 1000};
}

/* ---- runners ------------------------------------------------------------------- */

static void runner_free(runner *r)
{
  if (!r) return;
  tfl_interpreter_free(r->it);
  tfl_graph_free(r->g);
  free(r);
}

/* Loads and compiles a runner of `batch` frames; NULL with the engine diag's error set. */
static runner *runner_new(tfl_engine *e, int batch)
{
  tfl_diag *d = diag_of(e);
  runner *r = calloc(1, sizeof *r);
  if (!r) {
    tfl_fail(d, TFL_ERR_NOMEM, "engine: runner");
    return NULL;
  }
  r->batch = batch;
  if (tfl_load_file(e->path, &r->g, d) != TFL_OK) goto fail;
  /* before the batch: an appended op's shapes follow it */
  if (e->o.edit_graph && e->o.edit_graph(r->g, e->o.edit_user, d) != TFL_OK) goto fail;
  if (batch > 1 && tfl_pass_set_batch(r->g, batch, d) != TFL_OK) goto fail;
  tfl_interp_options io = tfl_interp_defaults();
  io.delegate = e->o.accel;
  io.fallback = e->o.fallback;
  io.diag = &e->run_diag;
  if (tfl_interpreter_create(r->g, &io, &r->it) != TFL_OK) {
    tfl_fail(d, TFL_ERR_BACKEND, "%s", e->run_diag.error);
    goto fail;
  }
  return r;
fail:
  runner_free(r);
  return NULL;
}

typedef struct {
  tfl_engine *e;
  int batch;
  runner *made;
} make_call;

static void make_on_exec(void *arg)
{
  make_call *c = arg;
  c->made = runner_new(c->e, c->batch);
}

static void free_on_exec(void *arg)
{
  runner_free(arg);
}

static void exec_call(tfl_engine *e, void (*fn)(void *), void *arg)
{
  if (e->o.exec) e->o.exec(e->o.exec_user, fn, arg);
  else fn(arg);
}

/* Building or freeing a runner: on the exec thread, else on build_exec's. on_exec: the
 * caller is on the exec thread already (a run). */
static void build_call(tfl_engine *e, bool on_exec, void (*fn)(void *), void *arg)
{
  if (!e->o.exec && e->o.build_exec) e->o.build_exec(e->o.build_user, fn, arg);
  else if (on_exec) fn(arg);
  else exec_call(e, fn, arg);
}

/* ---- create / free --------------------------------------------------------------- */

tfl_status tfl_engine_create(const tfl_engine_options *o, tfl_engine **out)
{
  *out = NULL;
  if (!o || !o->model_path || !o->fallback)
    return tfl_fail(o ? o->diag : NULL, TFL_ERR_ARG, "engine: a model path and a fallback delegate are required");
  if (o->max_batch < 1 || o->max_batch > MAX_BATCH_LIMIT || o->window_us < 0)
    return tfl_fail(o->diag, TFL_ERR_ARG, "engine: max_batch %d (1..%d), window %d us", o->max_batch,
                    MAX_BATCH_LIMIT, o->window_us);
  tfl_engine *e = calloc(1, sizeof *e);
  if (!e) return tfl_fail(o->diag, TFL_ERR_NOMEM, "engine");
  e->o = *o;
  tfl_diag_init(&e->own_diag);
  tfl_diag_init(&e->run_diag);
  /* the runner's log lines go where the engine's go */
  e->run_diag.sink = diag_of(e)->sink;
  e->run_diag.user = diag_of(e)->user;
  e->run_diag.verbosity = diag_of(e)->verbosity;
  e->path = strdup(o->model_path);
  e->batch_limit = o->window_us > 0 ? o->max_batch : 1;
  if (!e->path) {
    free(e);
    return tfl_fail(o->diag, TFL_ERR_NOMEM, "engine");
  }
  pthread_mutex_init(&e->mu, NULL);
  pthread_condattr_t ca; /* the batching window is measured on the monotonic clock */
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&e->cv, &ca);
  pthread_condattr_destroy(&ca);
  make_call c = { e, 1, NULL };
  build_call(e, false, make_on_exec, &c);
  if (!c.made) {
    tfl_status st = TFL_ERR_BACKEND;
    tfl_engine_free(e);
    return st;
  }
  e->one = c.made;
  *out = e;
  return TFL_OK;
}

void tfl_engine_free(tfl_engine *e)
{
  if (!e) return;
  if (e->one) build_call(e, false, free_on_exec, e->one);
  if (e->many) build_call(e, false, free_on_exec, e->many);
  pthread_cond_destroy(&e->cv);
  pthread_mutex_destroy(&e->mu);
  free(e->path);
  free(e);
}

tfl_stream *tfl_engine_attach(tfl_engine *e)
{
  tfl_stream *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->e = e;
  pthread_mutex_lock(&e->mu);
  s->next = e->streams;
  e->streams = s;
  e->n_streams++;
  pthread_mutex_unlock(&e->mu);
  return s;
}

void tfl_engine_detach(tfl_stream *s)
{
  if (!s) return;
  tfl_engine *e = s->e;
  pthread_mutex_lock(&e->mu);
  for (tfl_stream **p = &e->streams; *p; p = &(*p)->next)
    if (*p == s) {
      *p = s->next;
      break;
    }
  e->n_streams--;
  pthread_cond_broadcast(&e->cv); /* a leader may be waiting for this stream's frame */
  pthread_mutex_unlock(&e->mu);
  free(s);
}

/* ---- running ----------------------------------------------------------------------- */

static int pow2_at_least(int n)
{
  int p = 1;
  while (p < n) p *= 2;
  return p;
}

/* Streams that queued a frame lately: the ones worth waiting for. */
static int active_streams(tfl_engine *e, long long now)
{
  long long recent = 4 * e->run_ns > ACTIVE_NS ? 4 * e->run_ns : ACTIVE_NS;
  int n = 0;
  for (tfl_stream *s = e->streams; s; s = s->next) n += s->last_ns && now - s->last_ns < recent;
  return n;
}

typedef struct {
  tfl_engine *e;
  tfl_job *jobs[MAX_BATCH_LIMIT];
  int n;
  int want_batch;              /* the runner size to use, maybe a rebuild */
  int n_streams;               /* attached when the batch was gathered (read under e->mu:
                                  streams attach and detach while the batch runs) */
} batch_call;

static void job_fail(tfl_job *j, tfl_status st, const char *what, const char *msg)
{
  if (j->status != TFL_OK) return;
  j->status = st;
  /* msg may be j->error itself (the fill's or consume's own words): snprintf's source
   * and destination must not overlap (it emptied the message) */
  char text[sizeof j->error];
  snprintf(text, sizeof text, "%s%.400s", what, msg);
  memcpy(j->error, text, sizeof text);
}

/* Runs jobs[0..n) on runner r: fill each slot, one invoke, consume each slot. */
static void run_on(tfl_engine *e, runner *r, tfl_job **jobs, int n)
{
  bool any = false;
  for (int k = 0; k < n; k++) {
    tfl_job *j = jobs[k];
    j->batch = n;
    tfl_status st = j->fill(j, r->it, k);
    if (st != TFL_OK) job_fail(j, st, "", j->error[0] ? j->error : "filling the input failed");
    any = any || st == TFL_OK;
  }
  if (!any) return;
  tfl_status st = tfl_interpreter_invoke(r->it);
  pthread_mutex_lock(&e->mu); /* tfl_engine_get_info reads the counts on any thread */
  e->runs++;
  e->frames += (unsigned long long)n;
  pthread_mutex_unlock(&e->mu);
  for (int k = 0; k < n; k++) {
    tfl_job *j = jobs[k];
    if (st != TFL_OK) job_fail(j, st, "inference: ", e->run_diag.error);
    if (j->status != TFL_OK) continue;
    tfl_status cs = j->consume(j, r->it, k);
    if (cs != TFL_OK) job_fail(j, cs, "", j->error[0] ? j->error : "reading the outputs failed");
  }
}

/* The batched runner replaced by r (NULL: none), under e->mu so that tfl_engine_get_info
 * never reads a runner being freed; the old one is freed after. Only the exec thread of
 * the running batch writes e->many, so it reads it unlocked. */
static void swap_many(tfl_engine *e, runner *r)
{
  pthread_mutex_lock(&e->mu);
  runner *old = e->many;
  e->many = r;
  pthread_mutex_unlock(&e->mu);
  if (old) build_call(e, true, free_on_exec, old);
}

/* On the exec thread: the runner for the batch (built or dropped as needed), then runs. */
static void run_batch_on_exec(void *arg)
{
  batch_call *c = arg;
  tfl_engine *e = c->e;
  if (e->many && c->want_batch < e->many->batch && 2 * c->n_streams <= e->many->batch) {
    tfl_logf(diag_of(e), TFL_LOG_INFO, "engine: %d streams left, batches of %d dropped", c->n_streams, e->many->batch);
    swap_many(e, NULL);
  }
  if (c->n > 1 && (!e->many || e->many->batch < c->want_batch)) {
    make_call mc = { e, c->want_batch, NULL };
    build_call(e, true, make_on_exec, &mc);
    runner *r = mc.made;
    if (r) {
      tfl_logf(diag_of(e), TFL_LOG_INFO, "engine: batches of up to %d frames", c->want_batch);
      swap_many(e, r);
    } else {
      /* the model cannot run batched: one frame per run from now on, no more waiting */
      tfl_logf(diag_of(e), TFL_LOG_INFO, "engine: frames run one at a time (a batch of %d failed: %s)", c->want_batch,
               diag_of(e)->error);
      pthread_mutex_lock(&e->mu);
      e->batch_limit = 1;
      pthread_mutex_unlock(&e->mu);
    }
  }
  bool host = false;
  for (int k = 0; k < c->n; k++) host = host || c->jobs[k]->host_outputs;
  long long t0 = now_ns();
  if (c->n > 1 && e->many) {
    tfl_interpreter_set_outputs_host(e->many->it, host);
    for (int first = 0; first < c->n; first += e->many->batch) {
      int n = c->n - first < e->many->batch ? c->n - first : e->many->batch;
      run_on(e, n > 1 ? e->many : e->one, c->jobs + first, n);
    }
  } else {
    tfl_interpreter_set_outputs_host(e->one->it, host);
    for (int k = 0; k < c->n; k++) run_on(e, e->one, c->jobs + k, 1);
  }
  long long took = now_ns() - t0;
  pthread_mutex_lock(&e->mu);
  e->run_ns = took;
  pthread_mutex_unlock(&e->mu);
}

/* Leader, with e->mu held: gathers a batch, runs it unlocked, marks it done. */
static void lead(tfl_engine *e)
{
  e->leading = true;
  long long now = now_ns();
  int active = active_streams(e, now);
  /* frames to run together: one per active stream, or more queued at once (regions) */
  int need = e->queued > active ? e->queued : active;
  int want = e->batch_limit > 1 && need > 1 ? pow2_at_least(need < e->batch_limit ? need : e->batch_limit) : 1;
  if (want > e->batch_limit) want = e->batch_limit;
  if (e->many && want < e->many->batch && want > 1) want = e->many->batch; /* no rebuild for a lull */
  if (want > 1 && e->queued < active) {
    long long deadline = now + (long long)e->o.window_us * 1000LL;
    struct timespec ts = { (time_t)(deadline / 1000000000LL), (long)(deadline % 1000000000LL) };
    while (e->queued < active && e->queued < want) {
      if (pthread_cond_timedwait(&e->cv, &e->mu, &ts) == ETIMEDOUT) break;
      active = active_streams(e, now_ns());
    }
  }
  batch_call c = { e, { 0 }, 0, want, e->n_streams };
  while (e->head && c.n < want && c.n < MAX_BATCH_LIMIT) {
    tfl_job *j = e->head;
    e->head = j->next;
    if (!e->head) e->tail = NULL;
    e->queued--;
    c.jobs[c.n++] = j;
  }
  pthread_mutex_unlock(&e->mu);
  exec_call(e, run_batch_on_exec, &c);
  pthread_mutex_lock(&e->mu);
  for (int k = 0; k < c.n; k++) c.jobs[k]->done = true;
  e->leading = false;
  pthread_cond_broadcast(&e->cv);
}

tfl_status tfl_stream_run(tfl_stream *s, tfl_job *j)
{
  return tfl_stream_run_many(s, &j, 1);
}

static bool all_done(tfl_job **jobs, int n)
{
  for (int k = 0; k < n; k++)
    if (!jobs[k]->done) return false;
  return true;
}

tfl_status tfl_stream_run_many(tfl_stream *s, tfl_job **jobs, int n)
{
  tfl_engine *e = s->e;
  if (n <= 0) return TFL_OK;
  pthread_mutex_lock(&e->mu);
  s->last_ns = now_ns();
  for (int k = 0; k < n; k++) {
    tfl_job *j = jobs[k];
    j->status = TFL_OK;
    j->error[0] = '\0';
    j->done = false;
    j->next = NULL;
    j->batch = 0;
    if (e->tail) e->tail->next = j;
    else e->head = j;
    e->tail = j;
    e->queued++;
  }
  pthread_cond_broadcast(&e->cv); /* a gathering leader may be waiting for these frames */
  while (!all_done(jobs, n)) {
    if (!e->leading) lead(e);
    else pthread_cond_wait(&e->cv, &e->mu);
  }
  pthread_mutex_unlock(&e->mu);
  for (int k = 0; k < n; k++)
    if (jobs[k]->status != TFL_OK) return jobs[k]->status;
  return TFL_OK;
}

/* ---- info ------------------------------------------------------------------------- */

void tfl_engine_get_info(tfl_engine *e, tfl_engine_info *out)
{
  pthread_mutex_lock(&e->mu);
  runner *r = e->many ? e->many : e->one;
  *out = (tfl_engine_info){ r->batch, e->batch_limit, e->n_streams, tfl_interpreter_arena_bytes(r->it), e->runs,
                            e->frames };
  pthread_mutex_unlock(&e->mu);
}

typedef struct {
  tfl_engine *e;
  void (*fn)(const tfl_interpreter *it, void *user);
  void *user;
} inspect_call;

static void inspect_on_exec(void *arg)
{
  inspect_call *c = arg;
  c->fn(c->e->one->it, c->user);
}

tfl_status tfl_engine_inspect(tfl_engine *e, void (*fn)(const tfl_interpreter *it, void *user), void *user)
{
  /* the leader flag keeps batches (and runner rebuilds) out while fn looks */
  pthread_mutex_lock(&e->mu);
  while (e->leading) pthread_cond_wait(&e->cv, &e->mu);
  e->leading = true;
  pthread_mutex_unlock(&e->mu);
  inspect_call c = { e, fn, user };
  exec_call(e, inspect_on_exec, &c);
  pthread_mutex_lock(&e->mu);
  e->leading = false;
  pthread_cond_broadcast(&e->cv);
  pthread_mutex_unlock(&e->mu);
  return TFL_OK;
}

tfl_tensor tfl_tensor_slot(const tfl_tensor *t, int slot)
{
  tfl_tensor v = *t;
  if (t->ndim < 1 || t->dims[0] < 1) return v;
  size_t per = t->bytes / (size_t)t->dims[0];
  v.dims[0] = 1;
  v.bytes = per;
  v.data = t->data ? (uint8_t *)t->data + per * (size_t)slot : NULL;
  return v;
}
