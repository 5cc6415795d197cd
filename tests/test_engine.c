/* test_engine.c - the shared engine (runtime/tfl_engine.h) under many threads: streams
 * attach, run frames and detach at once, frames are batched across streams, and every
 * frame's outputs must match the same frame run alone on a plain interpreter of the same
 * model: bit-identical for the reference kernels and 8-bit models, and for float models on
 * the fast path when not batched; batched float runs within the real-model suite's fp32 tolerance (1e-4 of max(1, range))
 * (oneDNN picks other blockings for N > 1, so sums round in another order).
 * Also run under ThreadSanitizer in CI (scripts/test.sh).
 *
 *   test_engine MODELS_DIR[:MODELS_DIR...] [MODEL.tflite,... [FRAMES]]
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/cpu/cpu_delegate.h"
#include "model_path.h"
#include "runtime/tfl_engine.h"
#include "runtime/tfl_loader.h"

#define THREADS 8
static int frames = 12; /* per thread; an optional argument (even) sets fewer */
#define INPUTS 5   /* distinct inputs, so batch slots carry different frames */

static int fails;

typedef struct {
  const char *name;
  char path[1024];
  size_t in_bytes, out_bytes;     /* output 0 */
  bool out_float;
  uint8_t *inputs[INPUTS];
  uint8_t *want[INPUTS];          /* output 0 of each input, run alone */
} model_case;

/* Deterministic input bytes: floats in -1..1 or 8-bit values. */
static void make_input(const tfl_tensor *t, unsigned seed, uint8_t *out)
{
  size_t n = tfl_tensor_count(t);
  for (size_t i = 0; i < n; i++) {
    seed = seed * 1103515245u + 12345u;
    if (t->type == TFL_TYPE_FLOAT32) ((float *)out)[i] = (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
    else out[i] = (uint8_t)(seed >> 16);
  }
}

/* Reference outputs: a plain interpreter, one frame at a time. */
static int prepare_case(model_case *m, const char *dirs, cpu_delegate_options co)
{
  char dir[1024];
  const char *p = dirs;
  bool found = false;
  while (*p && !found) {
    size_t k = strcspn(p, ":");
    snprintf(dir, sizeof dir, "%.*s", (int)k, p);
    found = test_find_model(dir, m->name, m->path, sizeof m->path);
    p += k + (p[k] == ':');
  }
  if (!found) {
    printf("FAIL: model %s not found in %s\n", m->name, dirs);
    return 1;
  }
  tfl_diag d;
  tfl_diag_init(&d);
  tfl_graph *g;
  co.diag = &d;
  tfl_delegate *cpu = cpu_delegate_create(&co);
  tfl_interpreter *it = NULL;
  tfl_interp_options o = tfl_interp_defaults();
  o.fallback = cpu;
  o.diag = &d;
  if (tfl_load_file(m->path, &g, &d) != TFL_OK || tfl_interpreter_create(g, &o, &it) != TFL_OK) {
    printf("FAIL: %s: %s\n", m->name, d.error);
    return 1;
  }
  tfl_tensor *x = tfl_interpreter_input(it, 0), *y = tfl_interpreter_output(it, 0);
  m->in_bytes = x->bytes;
  m->out_bytes = y->bytes;
  m->out_float = y->type == TFL_TYPE_FLOAT32;
  for (int i = 0; i < INPUTS; i++) {
    m->inputs[i] = malloc(m->in_bytes);
    m->want[i] = malloc(m->out_bytes);
    make_input(x, 1000u + (unsigned)i, m->inputs[i]);
    memcpy(x->data, m->inputs[i], m->in_bytes);
    tfl_interpreter_invoke(it);
    memcpy(m->want[i], y->data, m->out_bytes);
  }
  tfl_interpreter_free(it);
  tfl_graph_free(g);
  cpu->destroy(cpu);
  return 0;
}

typedef struct {
  tfl_job job;
  const model_case *m;
  int input;
  uint8_t *got;
} frame_job;

static tfl_status fill(tfl_job *j, tfl_interpreter *it, int slot)
{
  frame_job *f = (frame_job *)j;
  tfl_tensor x = tfl_tensor_slot(tfl_interpreter_input(it, 0), slot);
  if (x.bytes != f->m->in_bytes) return TFL_ERR_SHAPE;
  memcpy(x.data, f->m->inputs[f->input], x.bytes);
  return TFL_OK;
}

static tfl_status consume(tfl_job *j, tfl_interpreter *it, int slot)
{
  frame_job *f = (frame_job *)j;
  tfl_tensor y = tfl_tensor_slot(tfl_interpreter_output(it, 0), slot);
  if (y.bytes != f->m->out_bytes) return TFL_ERR_SHAPE;
  memcpy(f->got, y.data, y.bytes);
  return TFL_OK;
}

typedef struct {
  tfl_engine *e;
  const model_case *m;
  int id;
  bool reference;
  int wrong, failed, batched;
  atomic_int *done;
} worker;

/* Worst element of a float output against max(1, its range): the real-model suite's fp32
 * scale (test_models.c), so 1e-4 is its tolerance. */
static double worst_share(const float *got, const float *want, size_t n)
{
  float lo = want[0], hi = want[0];
  double worst = 0;
  for (size_t i = 0; i < n; i++) {
    lo = want[i] < lo ? want[i] : lo;
    hi = want[i] > hi ? want[i] : hi;
    const double d = got[i] > want[i] ? (double)got[i] - want[i] : (double)want[i] - got[i];
    worst = d > worst ? d : worst;
  }
  return worst / (hi - lo > 1.0f ? (double)(hi - lo) : 1.0);
}

static void *work(void *arg)
{
  worker *w = arg;
  uint8_t *got = malloc(w->m->out_bytes);
  /* every worker detaches and attaches again midway: streams come and go while others run */
  for (int round = 0; round < 2; round++) {
    tfl_stream *s = tfl_engine_attach(w->e);
    for (int f = 0; f < frames / 2; f++) {
      frame_job j = { .job = { .fill = fill, .consume = consume, .host_outputs = true }, .m = w->m,
                      .input = (w->id + f + round) % INPUTS, .got = got };
      if (tfl_stream_run(s, &j.job) != TFL_OK) {
        w->failed++;
        printf("  worker %d: %s\n", w->id, j.job.error);
        continue;
      }
      w->batched += j.job.batch > 1;
      const uint8_t *want = w->m->want[j.input];
      if (w->m->out_float && !w->reference && j.job.batch > 1)
        w->wrong += worst_share((const float *)got, (const float *)want, w->m->out_bytes / 4) > 1e-4;
      else
        w->wrong += memcmp(got, want, w->m->out_bytes) != 0;
    }
    tfl_engine_detach(s);
  }
  free(got);
  atomic_fetch_add(w->done, 1);
  return NULL;
}

static void run_case(model_case *m, bool reference, int window_us)
{
  tfl_diag d;
  tfl_diag_init(&d);
  cpu_delegate_options co = cpu_delegate_defaults();
  co.threads = reference ? 1 : 2;
  co.reference = reference;
  co.diag = &d;
  tfl_delegate *cpu = cpu_delegate_create(&co);
  tfl_engine_options o = tfl_engine_defaults();
  o.model_path = m->path;
  o.fallback = cpu;
  o.window_us = window_us;
  o.diag = &d;
  tfl_engine *e;
  if (tfl_engine_create(&o, &e) != TFL_OK) {
    printf("FAIL %s: engine: %s\n", m->name, d.error);
    fails++;
    cpu->destroy(cpu);
    return;
  }
  atomic_int done = 0;
  worker w[THREADS];
  pthread_t th[THREADS];
  for (int i = 0; i < THREADS; i++) {
    w[i] = (worker){ .e = e, .m = m, .id = i, .reference = reference, .done = &done };
    pthread_create(&th[i], NULL, work, &w[i]);
  }
  int wrong = 0, failed = 0, batched = 0;
  for (int i = 0; i < THREADS; i++) {
    pthread_join(th[i], NULL);
    wrong += w[i].wrong;
    failed += w[i].failed;
    batched += w[i].batched;
  }
  tfl_engine_info info;
  tfl_engine_get_info(e, &info);
  bool ok = !wrong && !failed && info.streams == 0 && info.frames == (unsigned long long)THREADS * (unsigned long long)frames &&
            (window_us == 0 ? batched == 0 : true);
  printf("%s %s (%s, window %d us): %d threads x %d frames, %d wrong, %d failed, %d batched, %llu runs, %llu frames\n",
         ok ? "ok  " : "FAIL", m->name, reference ? "reference" : "fast", window_us, THREADS, frames, wrong, failed,
         batched, info.runs, info.frames);
  fails += !ok;
  tfl_engine_free(e);
  cpu->destroy(cpu);
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODELS_DIR[:MODELS_DIR...] [MODEL.tflite,... [FRAMES]]\n", argv[0]);
    return 2;
  }
  if (argc > 3) frames = atoi(argv[3]) / 2 * 2;
  if (frames < 2) frames = 2;
  model_case cases[] = { { .name = "selfie_segmentation.tflite" }, { .name = "face_detection_short_range.tflite" },
                         { .name = "mobilenet_v2_1.0_224_quant.tflite" } };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    /* an optional list picks fewer models (the ThreadSanitizer run: its instrumented
     * reference kernels are ~10x slower) */
    if (argc > 2 && !strstr(argv[2], cases[c].name)) continue;
    for (int mode = 0; mode < 2; mode++) {
      cpu_delegate_options co = cpu_delegate_defaults();
      co.reference = mode == 0;
      co.threads = mode == 0 ? 1 : 2;
      if (prepare_case(&cases[c], argv[1], co)) {
        fails++;
        continue;
      }
      run_case(&cases[c], mode == 0, 2000);
      if (mode) run_case(&cases[c], false, 0);
      for (int i = 0; i < INPUTS; i++) {
        free(cases[c].inputs[i]);
        free(cases[c].want[i]);
      }
    }
  }
  printf("%d failure(s)\n", fails);
  return fails != 0;
}
