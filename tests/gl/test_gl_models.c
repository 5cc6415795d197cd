/* test_gl_models.c - real models on the GL delegate against the CPU delegate, on the
 * same deterministic input: per output, avg |gl - cpu| / (output range) must stay
 * under 1e-4 (fp32) or 1e-2 (fp16), and the GL nodes must form one partition.
 *   test_gl_models [--fp16] [--cache DIR] MODEL.tflite...
 * Quantized models run in float on GL while the CPU runs integer kernels, so their
 * outputs are compared with the fp16 tolerance and one output quantum of slack. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "delegates/cpu/cpu_delegate.h"
#include "delegates/gl/gl_delegate.h"
#include "delegates/gl/gl_layout.h"
#include "tools/tool_common.h"
#include "runtime/tfl_interpreter.h"
#include "runtime/tfl_loader.h"

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void fill_input(tfl_tensor *t, unsigned seed)
{
  size_t n = tfl_tensor_count(t);
  for (size_t i = 0; i < n; i++) {
    seed = seed * 1103515245u + 12345u;
    unsigned r = (seed >> 8) & 0xffff;
    switch (t->type) {
    case TFL_TYPE_FLOAT32: ((float *)t->data)[i] = (float)r / 32768.0f - 1.0f; break;
    case TFL_TYPE_UINT8: ((uint8_t *)t->data)[i] = (uint8_t)(r >> 8); break;
    case TFL_TYPE_INT8: ((int8_t *)t->data)[i] = (int8_t)(r >> 8); break;
    default: memset(t->data, 0, t->bytes); return;
    }
  }
}

typedef struct {
  tfl_diag diag;       /* lives as long as the interpreter */
  tfl_graph *g;
  tfl_delegate *cpu;   /* the interpreter's fallback */
  tfl_interpreter *it;
  double init_ms;
} run;

static int open_run(const char *path, tfl_delegate *d, run *r)
{
  memset(r, 0, sizeof *r);
  tfl_diag_init(&r->diag);
  if (tfl_load_file(path, &r->g, &r->diag)) {
    printf("FAIL %s: load: %s\n", path, r->diag.error);
    return 1;
  }
  r->cpu = cpu_delegate_create(&(cpu_delegate_options){.threads = 1, .use_xnnpack = true, .diag = &r->diag});
  if (!r->cpu) {
    printf("FAIL %s: CPU delegate: %s\n", path, r->diag.error);
    return 1;
  }
  tfl_interp_options o = tfl_interp_defaults();
  o.delegate = d;
  o.fallback = r->cpu;
  o.diag = &r->diag;
  double t0 = now_ms();
  if (tfl_interpreter_create(r->g, &o, &r->it)) {
    printf("FAIL %s: interpreter%s: %s\n", path, d ? " (gl)" : "", r->diag.error);
    return 1;
  }
  r->init_ms = now_ms() - t0;
  for (int i = 0; i < tfl_interpreter_input_count(r->it); i++) fill_input(tfl_interpreter_input(r->it, i), 777u + (unsigned)i);
  return 0;
}

static void close_run(run *r)
{
  tfl_interpreter_free(r->it);
  if (r->cpu) r->cpu->destroy(r->cpu);
  tfl_graph_free(r->g);
}

/* --upto K: only nodes below K go to GL (bisecting a mismatch) */
static int upto = -1;
static bool profile;
static gl_tuning tune; /* --gl-* switches (tools/tool_common.h) */
static tfl_delegate inner;
static bool supports_upto(void *ctx, const tfl_graph *g, int node)
{
  return (upto < 0 || node < upto) && inner.supports(ctx, g, node);
}

static int check_model(const char *path, bool fp16, const char *cache)
{
  gl_delegate_options o = gl_delegate_defaults();
  o.precision = fp16 ? GL_PRECISION_FP16 : GL_PRECISION_FP32;
  o.cache_dir = cache;
  o.tuning = tune;
  tfl_diag diag;
  tfl_diag_init(&diag);
  o.diag = &diag;
  tfl_delegate *d = gl_delegate_create(&o);
  if (!d) {
    printf("FAIL %s: %s\n", path, diag.error);
    return 1;
  }
  inner = *d;
  tfl_delegate wrapped = *d;
  wrapped.supports = supports_upto;
  run cpu = {0}, gl = {0};
  int fail = open_run(path, NULL, &cpu);
  if (!fail) fail = open_run(path, &wrapped, &gl);
  if (fail) {
    close_run(&cpu);
    close_run(&gl);
    d->destroy(d);
    return 1;
  }
  const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  int gl_parts = 0, cpu_nodes = 0;
  const tfl_graph *g = tfl_interpreter_graph(gl.it);
  for (int i = 0; i < g->n_nodes; i++) {
    const char *dn = tfl_interpreter_node_delegate(gl.it, i);
    if (dn && strcmp(dn, "cpu") == 0) cpu_nodes++;
  }
  gl_delegate_stats st;
  gl_delegate_get_stats(d, &st);
  gl_parts = st.partitions;
  /* the switches reach the generated plan */
  if (tune.no_fuse && st.fused != 0) {
    printf("FAIL %s: --gl-no-fuse, yet %d nodes fused\n", name, st.fused);
    fail = 1;
  }
  if (tune.all_barriers && st.barriers != st.dispatches - st.partitions) {
    printf("FAIL %s: --gl-all-barriers, yet %d barriers for %d dispatches\n", name, st.barriers, st.dispatches);
    fail = 1;
  }
  double t0 = now_ms();
  tfl_status s1 = tfl_interpreter_invoke(cpu.it);
  double t1 = now_ms();
  tfl_status s2 = tfl_interpreter_invoke(gl.it);
  double t2 = now_ms();
  if (s1 || s2) {
    printf("FAIL %s: invoke: %s\n", name, s1 ? cpu.diag.error : gl.diag.error);
    fail = 1;
  }
  bool quant = false;
  for (int i = 0; i < tfl_interpreter_input_count(gl.it); i++)
    quant = quant || tfl_interpreter_input(gl.it, i)->type != TFL_TYPE_FLOAT32;
  float tol = fp16 || quant ? 1e-2f : 1e-4f;
  /* compared: graph outputs made by GL, and GL tensors that CPU nodes read (the
   * inputs of custom post-processing, whose own outputs amplify tiny differences) */
  int cmp[64], n_cmp = 0;
  const tfl_graph *cg = tfl_interpreter_graph(cpu.it);
  /* --upto: the graph outputs whoever made them (the CPU arena reuses intermediates'
   * memory, so only outputs stay comparable) */
  for (int i = 0; upto < 0 && i < g->n_nodes; i++) {
    const char *dn = tfl_interpreter_node_delegate(gl.it, i);
    if (!dn || strcmp(dn, "cpu") != 0) continue;
    for (int k = 0; k < g->nodes[i].n_in && n_cmp < 64; k++) {
      int t = g->nodes[i].in[k];
      if (t >= 0 && g->tensors[t].producer >= 0 && tfl_interpreter_node_delegate(gl.it, g->tensors[t].producer) &&
          strcmp(tfl_interpreter_node_delegate(gl.it, g->tensors[t].producer), "gl") == 0)
        cmp[n_cmp++] = t;
    }
  }
  for (int k = 0; k < g->n_outputs && n_cmp < 64; k++) {
    int t = g->outputs[k];
    if (g->tensors[t].producer >= 0 &&
        (upto >= 0 || strcmp(tfl_interpreter_node_delegate(gl.it, g->tensors[t].producer), "gl") == 0))
      cmp[n_cmp++] = t;
  }
  for (int k = 0; !fail && k < n_cmp; k++) {
    tfl_tensor *a = &cg->tensors[cmp[k]], *b = &g->tensors[cmp[k]];
    size_t n = tfl_tensor_count(a);
    double sum = 0, lo = INFINITY, hi = -INFINITY, worst = 0;
    for (size_t i = 0; i < n; i++) {
      double x = gl_tensor_real(a, a->data, i), y = gl_tensor_real(b, b->data, i);
      lo = fmin(lo, x);
      hi = fmax(hi, x);
      double e = fabs(x - y);
      sum += e;
      if (!(e <= worst)) worst = isnan(e) ? INFINITY : e;
    }
    double range = hi - lo > 0 ? hi - lo : 1.0;
    double avg = n ? sum / (double)n / range : 0;
    double slack = quant && a->q.n ? a->q.scale[0] / range : 0;
    bool bad = !(avg <= tol + slack);
    printf("%s %s %s tensor %d \"%s\": avg error %.3g of range %.3g (max %.3g), tol %.0e\n", bad ? "FAIL" : "ok  ", name,
           fp16 ? "fp16" : "fp32", cmp[k], a->name ? a->name : "", avg, range, worst / range, tol);
    fail |= bad;
  }
  printf("     %s: %d GL partition(s), %d CPU node(s), %d dispatches (%d fused, %d aliased), init %.0f ms "
         "(programs %.0f ms, cache %d), cpu %.0f ms, gl %.0f ms\n",
         name, gl_parts, cpu_nodes, st.dispatches, st.fused, st.aliased, gl.init_ms, st.compile_ms, st.cache, t1 - t0,
         t2 - t1);
  if (profile) { /* a second, warm invoke with per-dispatch GPU times */
    gl_delegate_set_profiling(d, true);
    double w0 = now_ms();
    tfl_interpreter_invoke(gl.it);
    double w1 = now_ms();
    gl_dispatch_profile pr[512];
    int np = gl_delegate_get_profile(d, pr, 512);
    double sum = 0, fl = 0;
    for (int i = 0; i < np && i < 512; i++) sum += pr[i].ms, fl += pr[i].flops;
    printf("     profile: %d dispatches, GPU %.2f ms (wall %.2f ms), %.3f GFLOP, %.2f GFLOP/s\n", np, sum, w1 - w0, fl / 1e9,
           sum > 0 ? fl / 1e6 / sum : 0);
    for (int i = 0; i < np && i < 512; i++)
      if (pr[i].ms > 0.1 * sum / 4) /* the larger ones */
        printf("       node %4d %-22s +%d fused %8.3f ms %8.3f GFLOP/s\n", pr[i].node, pr[i].op, pr[i].fused, pr[i].ms,
               pr[i].ms > 0 ? pr[i].flops / 1e6 / pr[i].ms : 0);
  }
  if (gl_parts != 1) {
    printf("FAIL %s: %d GL partitions, expected 1\n", name, gl_parts);
    fail = 1;
  }
  close_run(&gl);
  close_run(&cpu);
  d->destroy(d);
  return fail;
}

/* NAME (no '/' or ".tflite") is looked up in the colon-separated dirs; NULL if absent. */
static const char *find_model(const char *arg, const char *dirs, char *buf, size_t n)
{
  if (strchr(arg, '/') || strstr(arg, ".tflite")) return arg;
  for (const char *d = dirs; d && *d;) {
    const char *e = strchr(d, ':');
    size_t len = e ? (size_t)(e - d) : strlen(d);
    snprintf(buf, n, "%.*s/%s.tflite", (int)len, d, arg);
    FILE *f = fopen(buf, "rb");
    if (f) {
      fclose(f);
      return buf;
    }
    d = e ? e + 1 : d + len;
  }
  return NULL;
}

int main(int argc, char **argv)
{
  bool fp16 = false;
  const char *cache = NULL, *dirs = NULL;
  int fails = 0, n = 0, missing = 0;
  char buf[4096];
  for (int i = 1; i < argc; i++) {
    int r = tool_gl_tuning_parse(&tune, argc, argv, &i);
    if (r < 0) return 2;
    if (r > 0) continue;
    if (!strcmp(argv[i], "--fp16")) fp16 = true;
    else if (!strcmp(argv[i], "--cache") && i + 1 < argc) cache = argv[++i];
    else if (!strcmp(argv[i], "--upto") && i + 1 < argc) upto = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--profile")) profile = true;
    else if (!strcmp(argv[i], "--models") && i + 1 < argc) dirs = argv[++i];
    else {
      const char *path = find_model(argv[i], dirs, buf, sizeof buf);
      if (!path) {
        printf("SKIP %s: not found in %s\n", argv[i], dirs ? dirs : "(no --models)");
        missing++;
        continue;
      }
      fails += check_model(path, fp16, cache);
      n++;
    }
  }
  if (missing && !n) return 77; /* meson: skipped */
  printf("%d model(s), %d failure(s)\n", n, fails);
  return fails != 0;
}
