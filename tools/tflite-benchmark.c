/* tflite-benchmark - what TensorFlow Lite's benchmark_model reports: init time,
 * first inference, steady-state latency (min / median / p90 / avg), arena bytes and
 * peak memory, on Gaussian input (the oracle's seed 1, as its `bench`). */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "tool_common.h"
#include "tool_litert_flags.h"
#include "tool_flops.h"

#define DEFAULT_RUNS 50
#define DEFAULT_WARMUP 1

static const tool_alias litert_flags[] = {
  { "--num_runs", TOOL_ALIAS_RENAME, "--runs" },
  { "--warmup_runs", TOOL_ALIAS_RENAME, "--warmup" },
  { "--enable_op_profiling", TOOL_ALIAS_SWITCH, "--profile" },
  { NULL, TOOL_ALIAS_RENAME, NULL },
};

static void usage(FILE *out)
{
  fprintf(out, "usage: tflite-benchmark MODEL [--delegate cpu|gl] [--threads N] [--runs N]\n"
               "  --runs N           timed runs after the first (default %d)\n"
               "  --warmup N         untimed runs after the first (default %d)\n"
               "  --profile          cpu: time each step (kernel node or XNNPACK subgraph) of the\n"
               "                     timed runs and print them, slowest first, with GFLOP/s\n"
               "  --profile-nodes    as --profile, one XNNPACK subgraph per node (fusions across\n"
               "                     nodes are lost: the sum is slower than a normal run)\n",
          DEFAULT_RUNS, DEFAULT_WARMUP);
  tool_run_flags_help(out);
  fprintf(out, "  --help             this text\n");
  tool_litert_help(out, litert_flags);
}

/* One row of the profile: a step (kernel node or XNNPACK subgraph). */
typedef struct {
  int node, span;
  double us, cpu_us, macs;
} prof_row;

static int cmp_row(const void *a, const void *b)
{
  const double x = ((const prof_row *)a)->us, y = ((const prof_row *)b)->us;
  return (x < y) - (x > y);
}

/* Per-step times of the timed runs, slowest first, then per op totals (steps of one
 * node only; XNNPACK subgraphs of several nodes are a row of their own). */
static void print_profile(const tool_model *m, int runs, double median_ms)
{
  const tfl_graph *g = m->graph;
  const cpu_profile *p = &m->profile;
  prof_row *rows = calloc((size_t)p->n_nodes + 1, sizeof *rows);
  double op_us[TFL_OP_COUNT] = {0}, op_macs[TFL_OP_COUNT] = {0}, sum = 0;
  int op_n[TFL_OP_COUNT] = {0}, n = 0;
  if (!rows) return;
  for (int i = 0; i < p->n_nodes; i++) {
    if (!p->span[i]) continue;
    prof_row r = {i, p->span[i], 1e3 * p->ms[i] / runs, p->cpu_ms ? 1e3 * p->cpu_ms[i] / runs : 0, 0};
    for (int k = i; k < i + r.span && k < g->n_nodes; k++) r.macs += tool_node_macs(g, k);
    rows[n++] = r;
    sum += r.us;
    if (r.span == 1) {
      op_us[g->nodes[i].op] += r.us;
      op_macs[g->nodes[i].op] += r.macs;
      op_n[g->nodes[i].op]++;
    }
  }
  qsort(rows, (size_t)n, sizeof *rows, cmp_row);
  printf("profile: %d steps, %.3f ms per run summed (median run %.3f ms)\n", n, sum / 1e3, median_ms);
  printf("  %6s %-28s %-15s %5s %10s %6s %9s %8s  %s\n", "node", "op", "kernel", "nodes", "us", "%", "MMAC",
         "GFLOP/s", "output shape (cpu us: the calling thread's CPU time)");
  for (int k = 0; k < n; k++) {
    const prof_row *r = &rows[k];
    const tfl_node *nd = &g->nodes[r->node];
    const tfl_tensor *y = nd->n_out > 0 && nd->out[0] >= 0 ? &g->tensors[nd->out[0]] : NULL;
    if (r->span > 1 && nd->n_out > 0) {
      const tfl_node *last = &g->nodes[r->node + r->span - 1];
      y = last->n_out > 0 && last->out[0] >= 0 ? &g->tensors[last->out[0]] : NULL;
    }
    char shape[96] = "";
    int len = 0;
    for (int d = 0; y && d < y->ndim && len < 48; d++)
      len += snprintf(shape + len, sizeof shape - (size_t)len, "%s%d", d ? "x" : "", (int)y->dims[d]);
    const tfl_tensor *x = nd->n_in > 0 && nd->in[0] >= 0 ? &g->tensors[nd->in[0]] : NULL;
    const tfl_tensor *w = nd->n_in > 1 && nd->in[1] >= 0 ? &g->tensors[nd->in[1]] : NULL;
    if (r->span == 1 && (nd->op == TFL_OP_CONV_2D || nd->op == TFL_OP_DEPTHWISE_CONV_2D) && x && w &&
        x->ndim == 4 && w->ndim == 4)
      snprintf(shape + len, sizeof shape - (size_t)len, " <- %dx%dx%d k%dx%d s%d", (int)x->dims[1],
               (int)x->dims[2], (int)x->dims[3], (int)w->dims[1], (int)w->dims[2], nd->p.conv.stride_h);
    printf("  %6d %-28s %-15s %5d %10.1f %5.1f%% %9.2f %8.1f  %s (cpu %.1f)\n", r->node,
           r->span > 1 ? "(XNNPACK subgraph)" : tfl_op_name(nd->op),
           p->kernel && p->kernel[r->node] ? p->kernel[r->node] : "-", r->span, r->us,
           sum > 0 ? 100 * r->us / sum : 0, r->macs / 1e6, r->us > 0 ? 2e-3 * r->macs / r->us : 0, shape,
           r->cpu_us);
  }
  printf("profile per op (single-node steps):\n");
  for (int op = 0; op < TFL_OP_COUNT; op++)
    if (op_n[op])
      printf("  %-28s %4d x %10.1f us %5.1f%% %8.1f GFLOP/s\n", tfl_op_name((tfl_op)op), op_n[op], op_us[op],
             sum > 0 ? 100 * op_us[op] / sum : 0, op_us[op] > 0 ? 2e-3 * op_macs[op] / op_us[op] : 0);
  free(rows);
}

static double process_cpu_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
  if (tool_litert_args(&argc, &argv, litert_flags)) return 2;
  tool_run_flags flags;
  tool_run_flags_init(&flags);
  const char *model = NULL;
  int runs = DEFAULT_RUNS, warmup = DEFAULT_WARMUP;
  for (int i = 1; i < argc; i++) {
    const int r = tool_common_arg(&flags, argc, argv, &i, usage);
    if (r == TOOL_ARG_TAKEN) continue;
    if (r != TOOL_ARG_OTHER) return r;
    const char *a = argv[i];
    if (strcmp(a, "--profile") == 0 || strcmp(a, "--profile-nodes") == 0) {
      flags.profile = strcmp(a, "--profile") == 0 ? 1 : 2;
    } else if (strcmp(a, "--runs") == 0 || strcmp(a, "--warmup") == 0) {
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
  double first = 0, warm_sum = 0, cpu0 = 0;
  for (int k = -1 - warmup; ok && k < runs; k++) {
    if (k == 0 && m.profile.ms) { /* the profile covers the timed runs only */
      memset(m.profile.ms, 0, sizeof *m.profile.ms * (size_t)m.profile.n_nodes);
      memset(m.profile.cpu_ms, 0, sizeof *m.profile.cpu_ms * (size_t)m.profile.n_nodes);
    }
    if (k == 0) cpu0 = process_cpu_ms();
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
  const double cpu_ms = ok ? (process_cpu_ms() - cpu0) / runs : 0;
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
    /* CPU time of the whole process (every thread, spinning included): at 1 thread it is
     * the run's own work, which other processes on a busy machine do not stretch */
    printf("cpu time: %.3f ms per run\n", cpu_ms);
    printf("arena: %zu bytes\n", tfl_interpreter_arena_bytes(m.it));
    const double macs = tool_graph_macs(m.graph);
    printf("multiply-adds: %.0f (%.1f GFLOP/s at the median)\n", macs, 2e-6 * macs / ms[runs / 2]);
    printf("peak RSS: %.1f MB\n", (double)ru.ru_maxrss / 1024.0);
    if (m.profile.ms) print_profile(&m, runs, ms[runs / 2]);
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
