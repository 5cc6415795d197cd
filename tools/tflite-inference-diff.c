/* tflite-inference-diff - compares a delegate with the single-threaded reference
 * kernels on the same random inputs, as TensorFlow Lite's inference diff tool:
 * per run and output, the mean absolute difference of the raw output values;
 * then per output its average over runs (avg_error) and standard deviation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tool_common.h"

#define DEFAULT_RUNS 50
#define DEFAULT_SEED 1

static void usage(FILE *out)
{
  fprintf(out, "usage: tflite-inference-diff MODEL [--delegate cpu|gl] [--threads N] [--runs N]\n"
               "  --runs N           runs, each on new inputs (default %d)\n"
               "  --seed S           Gaussian seed of the first run; run k uses S+k (default %d)\n"
               "  --dist normal|diff N(0,1) inputs, or inference-diff's [-1,1) / 0..255 (default normal)\n",
          DEFAULT_RUNS, DEFAULT_SEED);
  tool_run_flags_help(out);
  fprintf(out, "  --help             this text\n");
}

int main(int argc, char **argv)
{
  tool_run_flags flags;
  tool_run_flags_init(&flags);
  const char *model = NULL;
  int runs = DEFAULT_RUNS, seed = DEFAULT_SEED;
  tool_dist dist = TOOL_DIST_NORMAL;
  for (int i = 1; i < argc; i++) {
    const int r = tool_common_arg(&flags, argc, argv, &i, usage);
    if (r == TOOL_ARG_TAKEN) continue;
    if (r != TOOL_ARG_OTHER) return r;
    const char *a = argv[i], *v;
    if (strcmp(a, "--runs") == 0 || strcmp(a, "--seed") == 0) {
      if (!tool_int_flag(argc, argv, &i, a[2] == 'r' ? 1 : 0, a[2] == 'r' ? &runs : &seed))
        return 2;
    } else if (strcmp(a, "--dist") == 0) {
      if (!(v = tool_flag_value(argc, argv, &i))) return 2;
      if (strcmp(v, "normal") == 0) dist = TOOL_DIST_NORMAL;
      else if (strcmp(v, "diff") == 0) dist = TOOL_DIST_DIFF;
      else {
        fprintf(stderr, "error: --dist is normal or diff, not '%s'\n", v);
        return 2;
      }
    } else if (!tool_model_arg(a, &model, usage)) {
      return 2;
    }
  }
  if (!model) {
    usage(stderr);
    return 2;
  }
  tool_model ref, test;
  if (!tool_model_open(&ref, model, &flags, true)) return 1;
  if (!tool_model_open(&test, model, &flags, false)) {
    tool_model_close(&ref);
    return 1;
  }
  const int n_out = tfl_interpreter_output_count(ref.it);
  double *sum = calloc((size_t)n_out + 1, sizeof(double)), *sum2 = calloc((size_t)n_out + 1, sizeof(double));
  double *max_abs = calloc((size_t)n_out + 1, sizeof(double));
  double *lo = malloc(sizeof(double) * ((size_t)n_out + 1)), *hi = malloc(sizeof(double) * ((size_t)n_out + 1));
  for (int o = 0; lo && hi && o < n_out; o++) {
    lo[o] = INFINITY;
    hi[o] = -INFINITY;
  }
  double ref_ms = 0, test_ms = 0;
  bool ok = sum && sum2 && max_abs && lo && hi && n_out == tfl_interpreter_output_count(test.it);
  for (int r = 0; ok && r < runs; r++) {
    ok = tool_fill_gauss(ref.it, (uint32_t)(seed + r), dist);
    for (int i = 0; ok && i < tfl_interpreter_input_count(ref.it); i++) {
      const tfl_tensor *a = tfl_interpreter_input(ref.it, i);
      tfl_tensor *b = tfl_interpreter_input(test.it, i);
      memcpy(b->data, a->data, a->bytes);
    }
    double t0 = tool_now_ms();
    tfl_status s = ok ? tfl_interpreter_invoke(ref.it) : TFL_OK;
    const char *why = ref.diag.error;
    ref_ms += tool_now_ms() - t0;
    if (s == TFL_OK && ok) {
      t0 = tool_now_ms();
      s = tfl_interpreter_invoke(test.it);
      why = test.diag.error;
      test_ms += tool_now_ms() - t0;
    }
    if (s != TFL_OK) {
      fprintf(stderr, "error: running %s: %s\n", model, why);
      ok = false;
    }
    for (int o = 0; ok && o < n_out; o++) {
      const tfl_tensor *a = tfl_interpreter_output(ref.it, o), *b = tfl_interpreter_output(test.it, o);
      const size_t n = tool_value_count(a);
      double e = 0;
      for (size_t i = 0; i < n; i++) {
        const double va = tool_element(a, i), d = fabs(va - tool_element(b, i));
        e += d;
        if (va < lo[o]) lo[o] = va;
        if (va > hi[o]) hi[o] = va;
        if (d > max_abs[o]) max_abs[o] = d;
      }
      e = n ? e / (double)n : 0;
      sum[o] += e;
      sum2[o] += e * e;
    }
  }
  if (ok) {
    printf("Num evaluation runs: %d\n", runs);
    printf("Reference inference latency: avg=%.0f(us)\n", ref_ms / runs * 1e3);
    printf("Test inference latency (%s, %d threads, %s): avg=%.0f(us)\n", flags.delegate, flags.threads,
           flags.precision ? flags.precision : "default precision", test_ms / runs * 1e3);
    for (int o = 0; o < n_out; o++) {
      const double avg = sum[o] / runs;
      const double var = sum2[o] / runs - avg * avg;
      printf("OutputDiff[%d]: avg_error=%g, std_dev=%g\n", o, avg, var > 0 ? sqrt(var) : 0.0);
    }
    /* the worst element, also as a share of the reference's range over all runs: what a
     * reduced precision (--precision bf16, GL fp16) costs */
    for (int o = 0; o < n_out; o++)
      printf("OutputMaxAbs[%d]: %g (%.3g%% of the reference range %g..%g)\n", o, max_abs[o],
             hi[o] > lo[o] ? 100 * max_abs[o] / (hi[o] - lo[o]) : 0.0, lo[o], hi[o]);
  }
  free(sum);
  free(sum2);
  free(max_abs);
  free(lo);
  free(hi);
  tool_model_close(&test);
  tool_model_close(&ref);
  return ok ? 0 : 1;
}
