/* test_concurrency.c - many interpreters at once, on many threads (suite `concurrency`,
 * also run under ThreadSanitizer by scripts/test.sh).
 *
 *   --planner           --threads threads plan item sets at once (tfl_plan_offsets),
 *                       --plan-rounds times each (default 1000), every result compared
 *                       with the same set planned before the threads
 *   --ref M,M / --fast M,M / --gl M,M
 *                       every job (model x mode) is first run alone on the main thread;
 *                       then --threads N threads start together; thread i takes
 *                       --per-thread P jobs (default all) from job i on, and for each
 *                       loads the model, creates its own delegates and interpreter,
 *                       runs --invokes K invokes, compares every output with the
 *                       single-threaded one and frees it all.
 *                       ref: reference kernels; fast: XNNPACK on 2 threads; gl: a GL
 *                       delegate with its own headless EGL context (fp32) per thread.
 * The same configuration must give bit-identical outputs on any thread; a difference
 * is reported with the number of elements that differ and the worst one.
 * Models are looked up by name in --models DIR:DIR; a missing model is a failure.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/cpu/cpu_delegate.h"
#include "delegates/gl/gl_delegate.h"
#include "golden.h"
#include "model_path.h"
#include "runtime/tfl_interpreter.h"
#include "runtime/tfl_loader.h"
#include "runtime/tfl_planner.h"
#include "tests/gl_profile_env.h"

#define MAX_JOBS 32
#define MAX_OUT 8
#define MAX_THREADS 64

typedef enum { MODE_REF, MODE_FAST, MODE_GL } run_mode;
static const char *const mode_names[] = {"reference", "fast", "gl"};

/* One model in one mode, with the outputs of its single-threaded run. */
typedef struct {
  char name[128];
  char path[4096];
  run_mode mode;
  int n_out;
  size_t bytes[MAX_OUT];
  uint8_t *want[MAX_OUT];
} job;

/* What one thread creates, runs and frees. */
typedef struct {
  tfl_diag diag;
  tfl_graph *g;
  tfl_delegate *cpu, *gl;
  tfl_interpreter *it;
} instance;

static void close_instance(instance *x)
{
  tfl_interpreter_free(x->it);
  if (x->gl) x->gl->destroy(x->gl);
  if (x->cpu) x->cpu->destroy(x->cpu);
  tfl_graph_free(x->g);
  x->it = NULL;
  x->gl = x->cpu = NULL;
  x->g = NULL;
}

/* Fills every input with the same Gaussian values. Needed before each invoke: the
 * planner reuses an input's bytes once no node reads it any more. */
static bool fill_inputs(instance *x)
{
  golden_rng rng;
  golden_rng_seed(&rng, 1);
  for (int i = 0; i < tfl_interpreter_input_count(x->it); i++) {
    tfl_tensor *t = tfl_interpreter_input(x->it, i);
    float scale = t->q.n > 0 ? t->q.scale[0] : 0;
    int32_t zp = t->q.n > 0 ? t->q.zero_point[0] : 0;
    if (!golden_fill_gauss(&rng, (int)t->type, scale, zp, t->data, tfl_tensor_count(t))) {
      tfl_fail(&x->diag, TFL_ERR_UNSUPPORTED, "input %d: cannot fill type %s", i, tfl_type_name(t->type));
      return false;
    }
  }
  return true;
}

/* Loads j's model and makes its delegates and interpreter. False (message printed)
 * on failure. */
static bool open_instance(instance *x, const job *j, const char *who)
{
  memset(x, 0, sizeof *x);
  tfl_diag_init(&x->diag);
  if (tfl_load_file(j->path, &x->g, &x->diag) != TFL_OK) goto fail;
  cpu_delegate_options co = cpu_delegate_defaults();
  co.reference = j->mode == MODE_REF;
  co.threads = j->mode == MODE_FAST ? 2 : 1;
  co.diag = &x->diag;
  if (!(x->cpu = cpu_delegate_create(&co))) goto fail;
  tfl_interp_options o = tfl_interp_defaults();
  if (j->mode == MODE_GL) {
    gl_delegate_options go = gl_delegate_defaults();
    go.precision = GL_PRECISION_FP32;
    go.profile = gl_profile_from_env();
    go.diag = &x->diag;
    if (!(x->gl = gl_delegate_create(&go))) goto fail;
    o.delegate = x->gl;
  }
  o.fallback = x->cpu;
  o.diag = &x->diag;
  if (tfl_interpreter_create(x->g, &o, &x->it) != TFL_OK) goto fail;
  return true;
fail:
  printf("FAIL %s: %s %s: %s\n", who, j->name, mode_names[j->mode], x->diag.error);
  close_instance(x);
  return false;
}

/* Element i of an output as a double, for reporting differences. */
static double element(const tfl_tensor *t, const uint8_t *data, size_t i)
{
  switch (t->type) {
  case TFL_TYPE_FLOAT32: return ((const float *)(const void *)data)[i];
  case TFL_TYPE_UINT8: return data[i];
  case TFL_TYPE_INT8: return ((const int8_t *)data)[i];
  case TFL_TYPE_INT32: return ((const int32_t *)(const void *)data)[i];
  default: return data[i * tfl_type_size(t->type)];
  }
}

/* Invokes k times; each time every output must equal j->want byte for byte. Returns
 * the number of mismatching outputs (each reported with its worst element). */
static int run_and_compare(instance *x, const job *j, int invokes, const char *who)
{
  int bad = 0;
  for (int k = 0; k < invokes; k++) {
    if (!fill_inputs(x) || tfl_interpreter_invoke(x->it) != TFL_OK) {
      printf("FAIL %s: %s %s: invoke %d: %s\n", who, j->name, mode_names[j->mode], k, tfl_interpreter_last_error(x->it));
      return bad + 1;
    }
    for (int o = 0; o < j->n_out; o++) {
      const tfl_tensor *t = tfl_interpreter_output(x->it, o);
      if (t->bytes == j->bytes[o] && memcmp(t->data, j->want[o], t->bytes) == 0) continue;
      size_t n = tfl_tensor_count(t), differ = 0, at = 0;
      double worst = 0;
      for (size_t i = 0; t->bytes == j->bytes[o] && i < n; i++) {
        double e = fabs(element(t, t->data, i) - element(t, j->want[o], i));
        if (e != 0 || element(t, t->data, i) != element(t, t->data, i)) differ++;
        if (!(e <= worst)) { /* NaN counts as worst */
          worst = e;
          at = i;
        }
      }
      printf("FAIL %s: %s %s: invoke %d output %d differs from the single-threaded run: %zu of %zu "
             "elements, worst |difference| %g at %zu (%zu vs %zu bytes)\n",
             who, j->name, mode_names[j->mode], k, o, differ, n, worst, at, t->bytes, j->bytes[o]);
      bad++;
    }
  }
  return bad;
}

/* ---- the threads -------------------------------------------------------------- */

typedef struct {
  int index;
  const job *jobs;
  int n_jobs, per_thread;
  int invokes;
  pthread_barrier_t *start;
  int failures;
} worker;

static void *work(void *arg)
{
  worker *w = arg;
  char who[32];
  snprintf(who, sizeof who, "thread %d", w->index);
  pthread_barrier_wait(w->start); /* all threads load and create at the same moment */
  for (int k = 0; k < w->per_thread; k++) {
    const job *j = &w->jobs[(w->index + k) % w->n_jobs];
    instance x;
    if (!open_instance(&x, j, who)) {
      w->failures++;
      continue;
    }
    w->failures += run_and_compare(&x, j, w->invokes, who);
    close_instance(&x);
  }
  return NULL;
}

/* Runs the jobs on n threads at once; returns the failures. */
static int run_threads(const job *jobs, int n_jobs, int per_thread, int n_threads, int invokes)
{
  pthread_t tid[MAX_THREADS];
  worker w[MAX_THREADS];
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, (unsigned)n_threads);
  int started = 0, failures = 0;
  for (int i = 0; i < n_threads; i++) {
    w[i] = (worker){i, jobs, n_jobs, per_thread, invokes, &start, 0};
    if (pthread_create(&tid[i], NULL, work, &w[i]) != 0) {
      printf("FAIL: cannot start thread %d\n", i);
      return failures + 1; /* the started ones wait at the barrier forever: give up */
    }
    started++;
  }
  for (int i = 0; i < started; i++) {
    pthread_join(tid[i], NULL);
    failures += w[i].failures;
  }
  pthread_barrier_destroy(&start);
  return failures;
}

/* Runs j once on this thread and keeps its outputs. */
static bool baseline(job *j, int invokes)
{
  instance x;
  if (!open_instance(&x, j, "single thread")) return false;
  bool ok = true;
  for (int k = 0; k < invokes && ok; k++) ok = fill_inputs(&x) && tfl_interpreter_invoke(x.it) == TFL_OK;
  if (!ok) printf("FAIL single thread: %s %s: %s\n", j->name, mode_names[j->mode], tfl_interpreter_last_error(x.it));
  j->n_out = tfl_interpreter_output_count(x.it);
  if (j->n_out > MAX_OUT) j->n_out = MAX_OUT;
  for (int o = 0; ok && o < j->n_out; o++) {
    const tfl_tensor *t = tfl_interpreter_output(x.it, o);
    j->bytes[o] = t->bytes;
    j->want[o] = malloc(t->bytes ? t->bytes : 1);
    if (j->want[o]) memcpy(j->want[o], t->data, t->bytes);
    ok = j->want[o] != NULL;
  }
  close_instance(&x);
  return ok;
}

/* ---- the planner ---------------------------------------------------------------- */

#define PLAN_SETS 4
#define PLAN_ITEMS 300

typedef struct {
  int n;
  tfl_plan_item items[PLAN_ITEMS];
  size_t want_off[PLAN_ITEMS], want_arena;
} plan_set;

typedef struct {
  plan_set sets[PLAN_SETS];
  int rounds;
  pthread_barrier_t *start;
  int failures;
} plan_worker;

static void make_set(plan_set *s, uint32_t seed)
{
  golden_rng r;
  golden_rng_seed(&r, seed);
  s->n = 50 + (int)(golden_rng_uniform(&r) * (PLAN_ITEMS - 50));
  for (int i = 0; i < s->n; i++) {
    int first = (int)(golden_rng_uniform(&r) * 200);
    s->items[i] = (tfl_plan_item){(size_t)(golden_rng_uniform(&r) * 100000), first,
                                  first + (int)(golden_rng_uniform(&r) * 30)};
  }
  tfl_diag d;
  tfl_diag_init(&d);
  s->want_arena = tfl_plan_offsets(s->items, s->n, 64, s->want_off, &d);
}

static void *plan_work(void *arg)
{
  plan_worker *w = arg;
  tfl_diag d;
  tfl_diag_init(&d);
  size_t off[PLAN_ITEMS];
  pthread_barrier_wait(w->start);
  for (int k = 0; k < w->rounds; k++) {
    const plan_set *s = &w->sets[k % PLAN_SETS];
    size_t arena = tfl_plan_offsets(s->items, s->n, 64, off, &d);
    if (arena != s->want_arena || memcmp(off, s->want_off, sizeof(size_t) * (size_t)s->n) != 0) w->failures++;
  }
  return NULL;
}

/* n threads plan different sets at once, again and again. */
static int test_planner(int n_threads, int rounds)
{
  plan_worker *w = calloc((size_t)n_threads, sizeof *w); /* ~50 KiB each: not on the stack */
  pthread_t tid[MAX_THREADS];
  if (!w) return 1;
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, (unsigned)n_threads);
  for (int i = 0; i < n_threads; i++) {
    for (int s = 0; s < PLAN_SETS; s++) make_set(&w[i].sets[s], 1000u * (unsigned)i + (unsigned)s + 1);
    w[i].rounds = rounds;
    w[i].start = &start;
    w[i].failures = 0;
  }
  for (int i = 0; i < n_threads; i++) pthread_create(&tid[i], NULL, plan_work, &w[i]);
  int failures = 0;
  for (int i = 0; i < n_threads; i++) {
    pthread_join(tid[i], NULL);
    if (w[i].failures) printf("FAIL planner thread %d: %d of %d plans differ from the single-threaded ones\n", i,
                              w[i].failures, rounds);
    failures += w[i].failures;
  }
  pthread_barrier_destroy(&start);
  free(w);
  printf("%s planner: %d threads x %d plans of 50..%d items\n", failures ? "FAIL" : "ok  ", n_threads, rounds,
         PLAN_ITEMS);
  return failures;
}

/* ---- main --------------------------------------------------------------------- */

/* Adds a job per name in the comma-separated list. False (printed) when a model is missing. */
static bool add_jobs(job *jobs, int *n, const char *list, run_mode mode, const char *dirs)
{
  bool ok = true;
  for (const char *p = list; *p && *n < MAX_JOBS;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    job *j = &jobs[*n];
    memset(j, 0, sizeof *j);
    snprintf(j->name, sizeof j->name, "%.*s", (int)len, p);
    j->mode = mode;
    char file[160];
    snprintf(file, sizeof file, "%s.tflite", j->name);
    bool found = false;
    for (const char *d = dirs; d && *d && !found;) {
      const char *de = strchr(d, ':');
      char dir[4096];
      size_t dl = de ? (size_t)(de - d) : strlen(d);
      snprintf(dir, sizeof dir, "%.*s", (int)dl, d);
      found = test_find_model(dir, file, j->path, sizeof j->path);
      d = de ? de + 1 : d + dl;
    }
    if (found) (*n)++;
    else {
      printf("FAIL: model %s not found in %s\n", file, dirs ? dirs : "(no --models)");
      ok = false;
    }
    p = e ? e + 1 : p + len;
  }
  return ok;
}

int main(int argc, char **argv)
{
  const char *dirs = NULL, *lists[3] = {NULL, NULL, NULL};
  int threads = 16, gl_threads = 4, invokes = 3, per_thread = MAX_JOBS, plan_rounds = 1000, failures = 0;
  bool planner = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--planner")) planner = true;
    else if (!strcmp(a, "--models") && v) dirs = argv[++i];
    else if (!strcmp(a, "--threads") && v) threads = atoi(argv[++i]);
    else if (!strcmp(a, "--gl-threads") && v) gl_threads = atoi(argv[++i]);
    else if (!strcmp(a, "--invokes") && v) invokes = atoi(argv[++i]);
    else if (!strcmp(a, "--per-thread") && v) per_thread = atoi(argv[++i]);
    else if (!strcmp(a, "--plan-rounds") && v) plan_rounds = atoi(argv[++i]);
    else if (!strcmp(a, "--ref") && v) lists[MODE_REF] = argv[++i];
    else if (!strcmp(a, "--fast") && v) lists[MODE_FAST] = argv[++i];
    else if (!strcmp(a, "--gl") && v) lists[MODE_GL] = argv[++i];
    else {
      printf("usage: test_concurrency [--planner] [--plan-rounds R] [--models DIRS] [--threads N] [--gl-threads N] "
             "[--invokes K] [--per-thread P] [--ref M,M] [--fast M,M] [--gl M,M]\n");
      return 2;
    }
  }
  if (threads < 1 || threads > MAX_THREADS || gl_threads < 1 || gl_threads > MAX_THREADS || invokes < 1 ||
      per_thread < 1) {
    printf("FAIL: threads 1..%d, invokes and per-thread >= 1\n", MAX_THREADS);
    return 2;
  }
  if (planner) failures += test_planner(threads, plan_rounds);

  /* CPU jobs and GL jobs run as separate phases, each with its thread count */
  for (int phase = 0; phase < 2; phase++) {
    job jobs[MAX_JOBS];
    int n = 0;
    bool ok = true;
    for (int m = 0; m < 3; m++)
      if (lists[m] && (m == MODE_GL) == (phase == 1)) ok = add_jobs(jobs, &n, lists[m], (run_mode)m, dirs) && ok;
    if (!ok) failures++;
    if (!n) continue;
    int nt = phase ? gl_threads : threads, single = 0;
    for (int k = 0; k < n; k++)
      if (!baseline(&jobs[k], invokes)) single++;
    if (single) {
      failures += single;
    } else {
      int per = per_thread < n ? per_thread : n;
      int f = run_threads(jobs, n, per, nt, invokes);
      printf("%s %d threads at once, each: %d model runs (load, create, %d invokes, compare, free) of", f ? "FAIL" : "ok  ",
             nt, per, invokes);
      for (int k = 0; k < n; k++) printf("%s %s %s", k ? "," : ":", jobs[k].name, mode_names[jobs[k].mode]);
      printf("\n");
      failures += f;
    }
    for (int k = 0; k < n; k++)
      for (int o = 0; o < jobs[k].n_out; o++) free(jobs[k].want[o]);
  }
  printf("%d failure(s)\n", failures);
  return failures != 0;
}
