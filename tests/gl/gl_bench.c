/* gl_bench.c - the GL delegate's speed on real models: init (cold or from the program
 * cache), wall latency per invoke (upload, dispatches, readback), GPU time per
 * dispatch from timer queries, dispatch count, achieved GFLOP/s. Not a test: the
 * numbers in docs/gl-performance.md come from it (on the GPU machine).
 *   gl_bench [--fp32] [--runs N] [--cache DIR] [--top K] [--models DIRS] [--gl-* ...] MODEL...
 * --gl-* are the delegate's tuning switches (tool_gl_tuning_help in tools/tool_common.h):
 * --gl-conv-tile PxS, --gl-conv-split auto|never|always, --gl-no-fuse, --gl-no-reorder,
 * --gl-all-barriers, --gl-const-fp32, --gl-wide-residuals.
 * Last line per model: "TABLE name prec init_ms cache median_ms min_ms gpu_ms dispatches
 * GFLOP GFLOP/s". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "delegates/cpu/cpu_delegate.h"
#include "delegates/gl/gl_delegate.h"
#include "runtime/tfl_interpreter.h"
#include "runtime/tfl_loader.h"
#include "tools/tool_common.h"

#define MAX_D 1024

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void fill(tfl_tensor *t, unsigned seed)
{
  size_t n = tfl_tensor_count(t);
  for (size_t i = 0; i < n; i++) {
    seed = seed * 1103515245u + 12345u;
    unsigned r = (seed >> 8) & 0xffff;
    if (t->type == TFL_TYPE_FLOAT32) ((float *)t->data)[i] = (float)r / 32768.0f - 1.0f;
    else if (t->type == TFL_TYPE_UINT8 || t->type == TFL_TYPE_INT8) ((uint8_t *)t->data)[i] = (uint8_t)(r >> 8);
  }
}

typedef struct {
  const char *op;
  int n;
  double ms, flops;
} op_sum;

static int by_ms(const void *a, const void *b)
{
  double x = ((const op_sum *)a)->ms, y = ((const op_sum *)b)->ms;
  return (x < y) - (x > y);
}

static int bench(const char *path, bool fp32, int runs, const char *cache, int top, const gl_tuning *tune)
{
  const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  gl_delegate_options o = gl_delegate_defaults();
  o.precision = fp32 ? GL_PRECISION_FP32 : GL_PRECISION_FP16;
  o.cache_dir = cache;
  o.tuning = *tune;
  tfl_diag diag;
  tfl_diag_init(&diag);
  o.diag = &diag;
  tfl_delegate *d = gl_delegate_create(&o);
  tfl_graph *g = NULL;
  tfl_interpreter *it = NULL;
  if (!d || tfl_load_file(path, &g, &diag)) {
    printf("FAIL %s: %s\n", name, diag.error);
    if (d) d->destroy(d);
    return 1;
  }
  tfl_delegate *cpu = cpu_delegate_create(&(cpu_delegate_options){.threads = 1, .use_xnnpack = true, .diag = &diag});
  tfl_interp_options io = tfl_interp_defaults();
  io.delegate = d;
  io.fallback = cpu;
  io.diag = &diag;
  double t0 = now_ms();
  if (!cpu || tfl_interpreter_create(g, &io, &it)) {
    printf("FAIL %s: %s\n", name, diag.error);
    if (cpu) cpu->destroy(cpu);
    tfl_graph_free(g);
    d->destroy(d);
    return 1;
  }
  double init = now_ms() - t0;
  for (int i = 0; i < tfl_interpreter_input_count(it); i++) fill(tfl_interpreter_input(it, i), 777u + (unsigned)i);
  gl_delegate_stats st;
  gl_delegate_get_stats(d, &st);
  double *ms = malloc(sizeof(double) * (size_t)runs);
  int fail = 0;
  t0 = now_ms();
  fail |= tfl_interpreter_invoke(it) != TFL_OK;
  double first = now_ms() - t0;
  for (int k = 0; k < 10 && !fail; k++) fail |= tfl_interpreter_invoke(it) != TFL_OK;
  for (int k = 0; k < runs && !fail; k++) {
    t0 = now_ms();
    fail |= tfl_interpreter_invoke(it) != TFL_OK;
    ms[k] = now_ms() - t0;
  }
  if (fail) {
    printf("FAIL %s: invoke: %s\n", name, diag.error);
    goto out;
  }
  qsort(ms, (size_t)runs, sizeof *ms, cmp_double);
  gl_delegate_get_stats(d, &st); /* the last invoke's CPU phases */
  /* GPU times: median over 5 profiled invokes of the per-invoke sum */
  gl_dispatch_profile *pr = malloc(sizeof *pr * MAX_D);
  double gpu[5], fl = 0;
  int np = 0;
  gl_delegate_set_profiling(d, true);
  for (int k = 0; k < 5; k++) {
    tfl_interpreter_invoke(it);
    np = gl_delegate_get_profile(d, pr, MAX_D);
    gpu[k] = 0;
    fl = 0;
    for (int i = 0; i < np && i < MAX_D; i++) gpu[k] += pr[i].ms, fl += pr[i].flops;
  }
  gl_delegate_set_profiling(d, false);
  qsort(gpu, 5, sizeof *gpu, cmp_double);
  printf("model %s (%s): renderer \"%s\" (%s)\n", name, fp32 ? "fp32" : "fp16", st.renderer, st.version);
  printf("  partitions %d, dispatches %d (%d fused, %d aliased, %d barriers), init %.1f ms (programs %.1f ms, cache %s)\n",
         st.partitions, st.dispatches, st.fused, st.aliased, st.barriers, init, st.compile_ms,
         (const char *[]){"off", "miss", "hit", "corrupt"}[st.cache & 3]);
  printf("  first %.3f ms; %d runs: min %.3f median %.3f p90 %.3f ms; GPU %.3f ms, %.3f GFLOP, %.1f GFLOP/s "
         "(%.2f%% of 64.5 TFLOP/s), %.2f us/dispatch\n",
         first, runs, ms[0], ms[runs / 2], ms[runs * 9 / 10], gpu[2], fl / 1e9, gpu[2] > 0 ? fl / 1e6 / gpu[2] : 0,
         gpu[2] > 0 ? fl / 1e6 / gpu[2] / 645.0 : 0, np ? gpu[2] * 1e3 / np : 0);
  printf("  last invoke CPU: upload %.3f ms, submit %.3f ms, wait + readback %.3f ms\n", st.upload_ms, st.submit_ms,
         st.readback_ms);
  /* by op type, then the largest dispatches */
  op_sum sums[64];
  int ns = 0;
  for (int i = 0; i < np && i < MAX_D; i++) {
    int k = 0;
    while (k < ns && strcmp(sums[k].op, pr[i].op)) k++;
    if (k == ns && ns < 64) sums[ns++] = (op_sum){pr[i].op, 0, 0, 0};
    if (k < ns) sums[k].n++, sums[k].ms += pr[i].ms, sums[k].flops += pr[i].flops;
  }
  qsort(sums, (size_t)ns, sizeof *sums, by_ms);
  for (int k = 0; k < ns; k++)
    printf("    %-26s x%-3d %8.3f ms %8.1f GFLOP/s\n", sums[k].op, sums[k].n, sums[k].ms,
           sums[k].ms > 0 ? sums[k].flops / 1e6 / sums[k].ms : 0);
  for (int t = 0; t < top; t++) {
    int best = -1;
    for (int i = 0; i < np && i < MAX_D; i++)
      if (pr[i].ms >= 0 && (best < 0 || pr[i].ms > pr[best].ms)) best = i;
    if (best < 0) break;
    const tfl_tensor *y = &g->tensors[g->nodes[pr[best].node].out[0]];
    printf("    #%-3d node %4d %-24s +%d %8.4f ms %8.1f GFLOP/s  out [%d,%d,%d,%d]\n", best, pr[best].node, pr[best].op,
           pr[best].fused, pr[best].ms, pr[best].ms > 0 ? pr[best].flops / 1e6 / pr[best].ms : 0, y->dims[0],
           y->ndim > 1 ? y->dims[1] : 1, y->ndim > 2 ? y->dims[2] : 1, y->ndim > 3 ? y->dims[3] : 1);
    pr[best].ms = -1;
  }
  printf("TABLE %s %s %.1f %s %.3f %.3f %.3f %d %.3f %.1f\n", name, fp32 ? "fp32" : "fp16", init,
         (const char *[]){"off", "miss", "hit", "corrupt"}[st.cache & 3], ms[runs / 2], ms[0], gpu[2], st.dispatches,
         fl / 1e9, gpu[2] > 0 ? fl / 1e6 / gpu[2] : 0);
  free(pr);
out:
  free(ms);
  tfl_interpreter_free(it);
  cpu->destroy(cpu);
  tfl_graph_free(g);
  d->destroy(d);
  return fail;
}

int main(int argc, char **argv)
{
  bool fp32 = false;
  int runs = 100, top = 0, fails = 0;
  const char *cache = NULL, *dirs = NULL;
  char buf[4096];
  gl_tuning tune = {0};
  for (int i = 1; i < argc; i++) {
    int r = tool_gl_tuning_parse(&tune, argc, argv, &i);
    if (r < 0) return 2;
    if (r > 0) continue;
    if (!strcmp(argv[i], "--fp32")) fp32 = true;
    else if (!strcmp(argv[i], "--fp16")) fp32 = false;
    else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]) > 0 ? atoi(argv[i]) : 1;
    else if (!strcmp(argv[i], "--top") && i + 1 < argc) top = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--cache") && i + 1 < argc) cache = argv[++i];
    else if (!strcmp(argv[i], "--models") && i + 1 < argc) dirs = argv[++i];
    else {
      const char *path = argv[i];
      if (!strchr(path, '/') && dirs) { /* NAME: first DIR/NAME.tflite that opens */
        for (const char *dp = dirs; *dp;) {
          const char *e = strchr(dp, ':');
          size_t len = e ? (size_t)(e - dp) : strlen(dp);
          snprintf(buf, sizeof buf, "%.*s/%s.tflite", (int)len, dp, argv[i]);
          FILE *f = fopen(buf, "rb");
          if (f) {
            fclose(f);
            path = buf;
            break;
          }
          dp = e ? e + 1 : dp + len;
        }
      }
      fails += bench(path, fp32, runs, cache, top, &tune);
    }
  }
  return fails != 0;
}
