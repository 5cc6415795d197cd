/* tflite-benchmark - what TensorFlow Lite's benchmark_model reports: init time,
 * first inference, steady-state latency (min / median / p90 / avg), arena bytes and
 * peak memory, on Gaussian input (the oracle's seed 1, as its `bench`). */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "tool_common.h"

#define DEFAULT_RUNS 50
#define DEFAULT_WARMUP 1

static void usage(FILE *out)
{
  fprintf(out, "usage: tflite-benchmark MODEL [--delegate cpu|gl] [--threads N] [--runs N]\n"
               "  --runs N           timed runs after the first (default %d)\n"
               "  --warmup N         untimed runs after the first (default %d)\n",
          DEFAULT_RUNS, DEFAULT_WARMUP);
  tool_run_flags_help(out);
  fprintf(out, "  --help             this text\n");
}

static int cmp_double(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
  tool_run_flags flags;
  tool_run_flags_init(&flags);
  const char *model = NULL;
  int runs = DEFAULT_RUNS, warmup = DEFAULT_WARMUP;
  for (int i = 1; i < argc; i++) {
    const int r = tool_common_arg(&flags, argc, argv, &i, usage);
    if (r == TOOL_ARG_TAKEN) continue;
    if (r != TOOL_ARG_OTHER) return r;
    const char *a = argv[i];
    if (strcmp(a, "--runs") == 0 || strcmp(a, "--warmup") == 0) {
      if (!tool_int_flag(argc, argv, &i, a[2] == 'r' ? 1 : 0, a[2] == 'r' ? &runs : &warmup))
        return 2;
    } else if (!tool_model_arg(a, &model, usage)) {
      return 2;
    }
  }
  if (!model) {
    usage(stderr);
    return 2;
  }
  tool_model m;
  if (!tool_model_open(&m, model, &flags, false)) return 1;
  double *ms = malloc(sizeof(double) * (size_t)runs);
  bool ok = ms && tool_fill_gauss(m.it, 1, TOOL_DIST_NORMAL);
  double first = 0, warm_sum = 0;
  for (int k = -1 - warmup; ok && k < runs; k++) {
    const double t0 = tool_now_ms();
    tfl_status s = tfl_interpreter_invoke(m.it);
    const double dt = tool_now_ms() - t0;
    if (s != TFL_OK) {
      fprintf(stderr, "error: running %s: %s\n", model, m.diag.error);
      ok = false;
    } else if (k == -1 - warmup) {
      first = dt;
    } else if (k < 0) {
      warm_sum += dt;
    } else {
      ms[k] = dt;
    }
  }
  if (ok) {
    double sum = 0;
    for (int k = 0; k < runs; k++) sum += ms[k];
    qsort(ms, (size_t)runs, sizeof *ms, cmp_double);
    const int p90 = (int)(0.9 * runs) < runs ? (int)(0.9 * runs) : runs - 1;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("model: %s\n", model);
    printf("delegate: %s, threads: %d, partitions: %d\n", flags.delegate, flags.threads,
           tfl_interpreter_partition_count(m.it));
    printf("load: %.3f ms\n", m.load_ms);
    printf("init: %.3f ms\n", m.init_ms);
    printf("first inference: %.3f ms\n", first);
    printf("runs: %d  min: %.3f ms  median: %.3f ms  p90: %.3f ms  avg: %.3f ms\n", runs, ms[0],
           ms[runs / 2], ms[p90], sum / runs);
    printf("arena: %zu bytes\n", tfl_interpreter_arena_bytes(m.it));
    printf("peak RSS: %.1f MB\n", (double)ru.ru_maxrss / 1024.0);
    /* the line benchmark_model prints, in its units (microseconds) */
    printf("Inference timings in us: Init: %.0f, First inference: %.0f, Warmup (avg): %.2f, "
           "Inference (avg): %.2f\n",
           m.init_ms * 1e3, first * 1e3, warmup ? warm_sum / warmup * 1e3 : first * 1e3,
           sum / runs * 1e3);
    printf("Peak memory footprint (MB): overall=%.3f\n", (double)ru.ru_maxrss / 1024.0);
  }
  free(ms);
  tool_model_close(&m);
  return ok ? 0 : 1;
}
