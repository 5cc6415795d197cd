/* test_gl_models.c - real models on the GL delegate against the CPU delegate, on the
 * inputs of the model's two golden cases (tests/data/golden: a picture, and Gaussian
 * noise): per compared tensor, the WORST element's |gl - cpu| / (CPU output range)
 * must stay within 1e-4 (fp32) or 1e-2 (fp16), and the GL nodes must form one
 * partition. A model that cannot be found is a failure.
 *   test_gl_models [--fp16] [--cache DIR] [--golden DIR] [--pictures DIR] [--models DIRS]
 *                  [--upto K] [--profile] [--expect-split] [--expect-refused TEXT]
 *                  [--refuse-every K] [--refuse-op NAME] MODEL...
 * --expect-split (with --gl-max-groups N): some dispatch ran in parts; --expect-refused
 * TEXT (with --gl-max-shared B or $TFL_GL_PROFILE): some node was left to the CPU with a
 * reason containing TEXT (then more than one GL partition is fine). --refuse-every K /
 * --refuse-op NAME: those nodes left to the CPU, at least two GL partitions expected
 * (the CPU and GL runs' outputs compared as ever). $TFL_GL_PROFILE:
 * the device profile (tests/gl_profile_env.h).
 * Quantized models run in float on GL (rounding to each tensor's grid) while the CPU
 * runs integer kernels: a requantization may round the other way, and one flip of a
 * logit before a sigmoid moves the score by about 6 of its quanta, so their outputs
 * get the fp16 tolerance plus QUANT_STEPS output quanta. No tolerance is tighter than
 * twice the real TFLite's own FMA/non-FMA disagreement on that output (the golden's
 * spread; the CPU and GL may each be that far from exact): pose_landmark's
 * segmentation logits differ there by up to 3e-4 of their range. An fp32 output still over
 * its tolerance goes to the reference kernels (gl_as_exact_as_cpu below). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "delegates/cpu/cpu_delegate.h"
#include "delegates/gl/gl_delegate.h"
#include "delegates/gl/gl_layout.h"
#include "runtime/tfl_interpreter.h"
#include "runtime/tfl_loader.h"
#include "tests/gl/gl_model_check.h"
#include "tests/golden.h"
#include "tools/tool_common.h"
#include "tests/gl_profile_env.h"

#define QUANT_STEPS 8

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

typedef struct {
  tfl_diag diag;       /* lives as long as the interpreter */
  tfl_graph *g;
  tfl_delegate *cpu;   /* the interpreter's fallback */
  tfl_interpreter *it;
  double init_ms;
} run;

static int open_run_kernels(const char *path, tfl_delegate *d, bool reference, run *r)
{
  memset(r, 0, sizeof *r);
  tfl_diag_init(&r->diag);
  if (tfl_load_file(path, &r->g, &r->diag)) {
    printf("FAIL %s: load: %s\n", path, r->diag.error);
    return 1;
  }
  r->cpu = cpu_delegate_create(&(cpu_delegate_options){.threads = 1, .use_xnnpack = !reference, .reference = reference,
                                                          .diag = &r->diag});
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
  return 0;
}

static int open_run(const char *path, tfl_delegate *d, run *r)
{
  return open_run_kernels(path, d, false, r);
}

static void close_run(run *r)
{
  tfl_interpreter_free(r->it);
  tfl_graph_free(r->g);
  if (r->cpu) r->cpu->destroy(r->cpu);
}

static const char *golden_dir = "tests/data/golden", *picture_dir = "tests/data/pictures";

/* The golden output named like tensor t, NULL if none. */
static const golden_output *golden_of(const golden_case *gc, const tfl_tensor *t)
{
  for (int i = 0; t->name && i < gc->n_outputs; i++)
    if (gc->outputs[i].name && !strcmp(gc->outputs[i].name, t->name)) return &gc->outputs[i];
  return NULL;
}

/* --upto K: only nodes below K go to GL (bisecting a mismatch) */
static int upto = -1;
/* --refuse-every K: nodes whose index is K-1 mod K stay on the CPU, --refuse-op NAME:
 * nodes of that op do (tfl_op_name): the graph runs as many GL partitions with CPU
 * nodes between them, as a small GPU's limits would split it */
static int refuse_every;
static const char *refuse_op;
static bool profile;
static gl_tuning tune; /* --gl-* switches (tools/tool_common.h) */
static bool expect_split;            /* --expect-split */
static const char *expect_refused;   /* --expect-refused TEXT */
static tfl_delegate inner;
static bool supports_upto(void *ctx, const tfl_graph *g, int node)
{
  if (refuse_every > 0 && node % refuse_every == refuse_every - 1) return false;
  if (refuse_op && !strcmp(tfl_op_name(g->nodes[node].op), refuse_op)) return false;
  return (upto < 0 || node < upto) && inner.supports(ctx, g, node);
}

/* An fp32 output over the tolerance may be ill-conditioned (pose_landmark_heavy's
 * segmentation logits: our XNNPACK/oneDNN path and native TensorFlow Lite also differ from
 * exact kernels by ~2e-4 of the range there: float sums in another order move it that
 * much). Then the plain C reference kernels arbitrate: how far the CPU fast path is from
 * them on either golden case measures the output's conditioning, and GL must be no farther
 * from them than 1.5x that (and within 1e-3). */
static const char *model_path;

/* The reference kernels on both golden cases: cw, the worst |fast - reference| / range of
 * tensor over them, and gw, GL's gl_t against the reference on case `kind` (the one GL
 * ran). false when a run fails. One reference run per case. */
static bool reference_deviations(const char *stem, const char *kind, int tensor, const tfl_tensor *gl_t, double *cw,
                                 double *gw)
{
  const char *kinds[] = {"picture", "gauss"};
  bool ok = true;
  *cw = 0;
  *gw = -1;
  for (int k = 0; k < 2 && ok; k++) {
    golden_case gc;
    run fast, ref;
    if (!glm_read_case(golden_dir, stem, kinds[k], &gc)) return false;
    ok = open_run_kernels(model_path, NULL, false, &fast) == 0 && open_run_kernels(model_path, NULL, true, &ref) == 0 &&
         glm_fill(&gc, picture_dir, stem, fast.it, ref.it) && tfl_interpreter_invoke(fast.it) == TFL_OK &&
         tfl_interpreter_invoke(ref.it) == TFL_OK;
    if (ok) {
      const tfl_tensor *r = &tfl_interpreter_graph(ref.it)->tensors[tensor];
      glm_err e = glm_compare(r, &tfl_interpreter_graph(fast.it)->tensors[tensor]);
      if (e.worst / e.range > *cw) *cw = e.worst / e.range;
      if (!strcmp(kinds[k], kind)) {
        glm_err g = glm_compare(r, gl_t);
        *gw = g.worst / g.range;
      }
    }
    close_run(&fast);
    close_run(&ref);
    golden_free(&gc);
  }
  return ok && *gw >= 0;
}

static bool gl_as_exact_as_cpu(const char *stem, const char *kind, int tensor, const tfl_tensor *gl_t, char *msg,
                               size_t cap)
{
  double cw, gw;
  if (!reference_deviations(stem, kind, tensor, gl_t, &cw, &gw)) {
    snprintf(msg, cap, "FAIL: the reference kernels could not arbitrate");
    return false;
  }
  const bool ok = gw <= 1.5 * cw && gw <= 1e-3;
  snprintf(msg, cap, "%s: against the reference kernels: gl %.3g of range; cpu fast path up to %.3g on the golden "
           "cases (gl must be <= 1.5x that, <= 1e-3)", ok ? "ok  " : "FAIL", gw, cw);
  return ok;
}

/* One golden case: both runs invoked on its inputs, every compared tensor checked. */
static int check_run(const char *name, const char *stem, const char *kind, const golden_case *gc, bool fp16, run *cpu,
                     run *gl)
{
  if (!glm_fill(gc, picture_dir, stem, cpu->it, gl->it)) return 1;
  double t0 = now_ms();
  tfl_status s1 = tfl_interpreter_invoke(cpu->it);
  double t1 = now_ms();
  tfl_status s2 = tfl_interpreter_invoke(gl->it);
  double t2 = now_ms();
  if (s1 || s2) {
    printf("FAIL %s %s: invoke: %s\n", name, kind, s1 ? cpu->diag.error : gl->diag.error);
    return 1;
  }
  bool quant = false;
  for (int i = 0; i < tfl_interpreter_input_count(gl->it); i++)
    quant = quant || tfl_interpreter_input(gl->it, i)->type != TFL_TYPE_FLOAT32;
  double tol = fp16 || quant ? 1e-2 : 1e-4;
  int cmp[64], fail = 0;
  const tfl_graph *g = tfl_interpreter_graph(gl->it), *cg = tfl_interpreter_graph(cpu->it);
  int n_cmp = glm_compared(gl->it, cmp, 64, upto >= 0);
  for (int k = 0; k < n_cmp; k++) {
    if (!glm_intact(cg, cmp[k])) continue; /* the CPU run's plan reused its bytes */
    tfl_tensor *a = &cg->tensors[cmp[k]], *b = &g->tensors[cmp[k]];
    size_t n = tfl_tensor_count(a);
    glm_err r = glm_compare(a, b);
    double worst = r.worst, range = r.range;
    size_t at = r.at;
    double slack = quant && a->q.n ? QUANT_STEPS * a->q.scale[0] / range : 0;
    const golden_output *go = golden_of(gc, a);
    double t = go && 2 * go->spread / range > tol ? 2 * go->spread / range : tol; /* each run may be off by it */
    bool bad = !(worst / range <= t + slack);
    char arbiter[256] = "";
    if (bad && !fp16 && !quant && a->type == TFL_TYPE_FLOAT32 && model_path)
      bad = !gl_as_exact_as_cpu(stem, kind, cmp[k], b, arbiter, sizeof arbiter);
    char quanta[48] = "";
    if (slack > 0) snprintf(quanta, sizeof quanta, " + %d quanta (worst %.1f quanta)", QUANT_STEPS, worst / a->q.scale[0]);
    printf("%s %s %s %-7s tensor %d \"%s\": worst %.3g of range %.3g at %zu (cpu %.6g gl %.6g), mean %.3g, tol %.0e%s\n",
           bad ? "FAIL" : "ok  ", name, fp16 ? "fp16" : "fp32", kind, cmp[k], a->name ? a->name : "", worst / range, range,
           at, n ? gl_tensor_real(a, a->data, at) : 0.0, n ? gl_tensor_real(b, b->data, at) : 0.0,
           r.mean / range, t, quanta);
    if (arbiter[0]) printf("     %s\n", arbiter);
    fail |= bad;
  }
  printf("     %s %s: cpu %.0f ms, gl %.0f ms\n", name, kind, t1 - t0, t2 - t1);
  return fail;
}

/* Golden case `kind` (picture, gauss) of the model. */
static int check_case(const char *name, const char *stem, const char *kind, bool fp16, run *cpu, run *gl)
{
  golden_case gc;
  if (!glm_read_case(golden_dir, stem, kind, &gc)) return 1;
  int fail = check_run(name, stem, kind, &gc, fp16, cpu, gl);
  golden_free(&gc);
  return fail;
}

static void print_profile(tfl_delegate *d, run *gl)
{
  gl_delegate_set_profiling(d, true);
  double w0 = now_ms();
  tfl_interpreter_invoke(gl->it);
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

static int check_model(const char *path, bool fp16, const char *cache)
{
  gl_delegate_options o = gl_delegate_defaults();
  o.precision = fp16 ? GL_PRECISION_FP16 : GL_PRECISION_FP32;
  o.cache_dir = cache;
  o.tuning = tune;
  o.profile = gl_profile_from_env();
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
  model_path = path;
  int fail = open_run(path, NULL, &cpu);
  if (!fail) fail = open_run(path, &wrapped, &gl);
  if (fail) {
    close_run(&cpu);
    close_run(&gl);
    d->destroy(d);
    return 1;
  }
  const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  char stem[256];
  snprintf(stem, sizeof stem, "%.*s", (int)(strstr(name, ".tflite") ? strstr(name, ".tflite") - name : (long)strlen(name)),
           name);
  int cpu_nodes = 0;
  const tfl_graph *g = tfl_interpreter_graph(gl.it);
  for (int i = 0; i < g->n_nodes; i++) {
    const char *dn = tfl_interpreter_node_delegate(gl.it, i);
    if (dn && strcmp(dn, "cpu") == 0) cpu_nodes++;
  }
  gl_delegate_stats st;
  gl_delegate_get_stats(d, &st);
  /* the switches reach the generated plan */
  if (tune.no_fuse && st.fused != 0) {
    printf("FAIL %s: --gl-no-fuse, yet %d nodes fused\n", name, st.fused);
    fail = 1;
  }
  if (tune.all_barriers && st.barriers != st.dispatches - st.partitions) {
    printf("FAIL %s: --gl-all-barriers, yet %d barriers for %d dispatches\n", name, st.barriers, st.dispatches);
    fail = 1;
  }
  fail |= check_case(name, stem, "picture", fp16, &cpu, &gl);
  fail |= check_case(name, stem, "gauss", fp16, &cpu, &gl);
  printf("     %s: %d GL partition(s), %d CPU node(s), %d dispatches (%d fused, %d aliased), init %.0f ms "
         "(programs %.0f ms, cache %d)\n",
         name, st.partitions, cpu_nodes, st.dispatches, st.fused, st.aliased, gl.init_ms, st.compile_ms, st.cache);
  if (profile) print_profile(d, &gl);
  /* --expect-split: some dispatch went over --gl-max-groups and ran in parts */
  if (expect_split && st.split == 0) {
    printf("FAIL %s: --expect-split, yet no dispatch was split (--gl-max-groups %d)\n", name, tune.max_groups);
    fail = 1;
  }
  if (expect_split) printf("     %s: %d dispatches split in parts of at most %d workgroups\n", name, st.split, tune.max_groups);
  /* --expect-refused TEXT: nodes the limits keep on the CPU, each with its reason */
  int refused = 0;
  for (int i = 0; expect_refused && i < g->n_nodes; i++) {
    tfl_diag why;
    tfl_diag_init(&why);
    if (gl_delegate_why(d, g, i, &why) || !strstr(why.error, expect_refused)) continue;
    if (refused++ < 3) printf("     refused: %s\n", why.error);
    const char *dn = tfl_interpreter_node_delegate(gl.it, i);
    if (!dn || strcmp(dn, "cpu") != 0) {
      printf("FAIL %s: node %d refused (%s) yet run by %s\n", name, i, why.error, dn ? dn : "nobody");
      fail = 1;
    }
  }
  if (expect_refused && !refused) {
    printf("FAIL %s: --expect-refused '%s', yet no node was refused for it\n", name, expect_refused);
    fail = 1;
  }
  const bool refusing = refuse_every > 0 || refuse_op;
  if (refusing && (st.partitions < 2 || cpu_nodes < 1)) {
    printf("FAIL %s: refusing nodes, yet %d GL partition(s) and %d CPU node(s)\n", name, st.partitions, cpu_nodes);
    fail = 1;
  }
  if (st.partitions != 1 && !expect_refused && !refusing) {
    printf("FAIL %s: %d GL partitions, expected 1\n", name, st.partitions);
    fail = 1;
  }
  close_run(&gl);
  close_run(&cpu);
  d->destroy(d);
  return fail;
}

int main(int argc, char **argv)
{
  bool fp16 = false;
  const char *cache = NULL, *dirs = NULL;
  int fails = 0, n = 0, n_models = 0;
  char buf[4096];
  const char **models = calloc((size_t)argc, sizeof *models);
  if (!models) return 2;
  for (int i = 1; i < argc; i++) { /* options anywhere, then the models */
    int r = tool_gl_tuning_parse(&tune, argc, argv, &i);
    if (r < 0) return 2;
    if (r > 0) continue;
    if (!strcmp(argv[i], "--fp16")) fp16 = true;
    else if (!strcmp(argv[i], "--cache") && i + 1 < argc) cache = argv[++i];
    else if (!strcmp(argv[i], "--upto") && i + 1 < argc) upto = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--profile")) profile = true;
    else if (!strcmp(argv[i], "--expect-split")) expect_split = true;
    else if (!strcmp(argv[i], "--refuse-every") && i + 1 < argc) refuse_every = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--refuse-op") && i + 1 < argc) refuse_op = argv[++i];
    else if (!strcmp(argv[i], "--expect-refused") && i + 1 < argc) expect_refused = argv[++i];
    else if (!strcmp(argv[i], "--models") && i + 1 < argc) dirs = argv[++i];
    else if (!strcmp(argv[i], "--golden") && i + 1 < argc) golden_dir = argv[++i];
    else if (!strcmp(argv[i], "--pictures") && i + 1 < argc) picture_dir = argv[++i];
    else models[n_models++] = argv[i];
  }
  /* a detection post-process on the GPU turns a rounding of its inputs into another kept
   * box: here it runs on the CPU and its inputs are compared; test_gl_postproc runs it on
   * the GPU alone, on identical inputs */
  tune.cpu_postproc = true;
  for (; n < n_models; n++) {
    const char *path = glm_find_model(models[n], dirs, buf, sizeof buf);
    if (!path) {
      printf("FAIL %s: not found in %s (models/fetch.sh, ../shared/models)\n", models[n], dirs ? dirs : "(no --models)");
      fails++;
      continue;
    }
    fails += check_model(path, fp16, cache);
  }
  free(models);
  printf("%d model(s), %d failure(s)\n", n, fails);
  return fails != 0;
}
