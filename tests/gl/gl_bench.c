/* gl_bench.c - the GL delegate on real models, everything docs/gl-performance.md's table
 * needs, from one run per model and configuration. Not a test: the GPU machine's numbers
 * come from it (tests/gl/bench_device.sh).
 *   gl_bench [--fp32] [--mask] [--postprocess] [--batch B] [--runs N] [--queued N] [--cache DIR|--no-cache]
 *            [--top K] [--dispatches]
 *            [--models DIRS] [--golden DIR --pictures DIR] [--dump DIR] [--gl-* ...] MODEL...
 * Per model:
 *   start-up: load, create (delegate + interpreter: context, plan, programs), first
 *             invoke, first result = create + first invoke (what a pipeline waits for);
 *   sync:     wall time of tfl_interpreter_invoke (upload, dispatches, wait, readback);
 *   queued:   --queued N invokes with the outputs left on the GPU and one wait at the
 *             end, per invoke (consecutive frames overlapping on the GPU);
 *   GPU:      per-dispatch timer queries (median of 5 invokes of their sum), GFLOP/s;
 *   error:    with --golden, the worst element of each output against the CPU delegate
 *             on the model's golden inputs (picture, Gaussian), as a fraction of the
 *             CPU output's range (the largest over outputs);
 *   --dump:   those inputs and the CPU's outputs as raw files for tests/gl/litert_bench.py
 *             (DIR/<model>.<case>.txt lists them).
 * --postprocess: a detector's anchor decoding and NMS (MediaPipe detectors, SSDs without
 *           TFLite_Detection_PostProcess) or a landmark model's decoding, appended to the
 *           graph (tfl_decoder_append_postprocess, the element's default options), so they
 *           run on the GPU and only the detections or the decoded landmarks come back (not
 *           with --golden).
 * --batch B: the model (after --postprocess's op is appended, the engine's order) given
 *           a batch of B frames (tfl_pass_set_batch), as tflitefilter runs several
 *           streams' frames in one invoke; times are per invoke (B frames). Prints where
 *           the appended post-processing ran (with --gl-cpu-postproc: the CPU). Not with
 *           --golden or --dump.
 * --mask:   segmentation (output 0 [1,H,W,C]): the sync invokes leave the outputs on
 *             the GPU and read back output 0's mask made on the GPU, one byte a pixel
 *             (into a host buffer, what tflitefilter gl-readback=true does), not the floats.
 * --dispatches: every dispatch's GPU time, in run order; --top K: the K slowest.
 * Without --cache the program cache is the delegate's default (the user's cache dir).
 * --gl-*: the delegate's tuning switches (tool_gl_tuning_help in tools/tool_common.h).
 * Last line per model:
 *   TABLE name prec load_ms create_ms first_ms first_result_ms cache median_ms min_ms
 *         p90_ms queued_ms gpu_ms dispatches barriers conv_layers GFLOP GFLOP/s_gpu
 *         err_picture err_gauss device_fill device_wg
 * (err -1: not checked). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "delegates/cpu/cpu_delegate.h"
#include "delegates/gl/gl_delegate.h"
#include "delegates/gl/gl_layout.h"
#include "runtime/tfl_interpreter.h"
#include "runtime/tfl_loader.h"
#include "runtime/tfl_passes.h"
#include "decoders/tfl_decoder.h"
#include "tests/gl/gl_model_check.h"
#include "tools/tool_common.h"
#include "tests/gl_profile_env.h"

#define MAX_D 1024

typedef struct {
  bool fp32, all, mask, postprocess;
  int runs, queued, top, batch;
  const char *cache, *golden, *pictures, *dump;
  gl_tuning tune;
} opts;

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

static int conv_layers(const tfl_graph *g)
{
  int n = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    tfl_op op = g->nodes[i].op;
    n += !g->nodes[i].dead && (op == TFL_OP_CONV_2D || op == TFL_OP_DEPTHWISE_CONV_2D || op == TFL_OP_TRANSPOSE_CONV ||
                               op == TFL_OP_CONV2D_TRANSPOSE_BIAS);
  }
  return n;
}

static void print_dims(FILE *f, const tfl_tensor *t)
{
  for (int d = 0; d < t->ndim; d++) fprintf(f, " %d", t->dims[d]);
  fprintf(f, "\n");
}

/* The case's inputs and the CPU's outputs (as float32 reals) for litert_bench.py. */
static void dump_case(const char *dir, const char *stem, const char *kind, tfl_interpreter *cpu)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.%s.txt", dir, stem, kind);
  FILE *m = fopen(path, "w");
  if (!m) {
    printf("  dump: cannot write %s\n", path);
    return;
  }
  for (int i = 0; i < tfl_interpreter_input_count(cpu); i++) {
    const tfl_tensor *t = tfl_interpreter_input(cpu, i);
    snprintf(path, sizeof path, "%s/%s.%s.in%d.bin", dir, stem, kind, i);
    FILE *f = fopen(path, "wb");
    if (f) fwrite(t->data, 1, t->bytes, f), fclose(f);
    fprintf(m, "in %d %s %s", i, tfl_type_name(t->type), t->name ? t->name : "?");
    print_dims(m, t);
  }
  for (int k = 0; k < tfl_interpreter_output_count(cpu); k++) {
    const tfl_tensor *t = tfl_interpreter_output(cpu, k);
    size_t n = tfl_tensor_count(t);
    float *v = malloc(sizeof(float) * (n ? n : 1));
    snprintf(path, sizeof path, "%s/%s.%s.out%d.bin", dir, stem, kind, k);
    FILE *f = v ? fopen(path, "wb") : NULL;
    for (size_t i = 0; v && i < n; i++) v[i] = gl_tensor_real(t, t->data, i);
    if (f) fwrite(v, sizeof(float), n, f), fclose(f);
    free(v);
    fprintf(m, "out %d float32 %s", k, t->name ? t->name : "?");
    print_dims(m, t);
  }
  fclose(m);
}

/* Worst element over the GL-made outputs against a CPU run, golden case `kind`; -1
 * when it cannot be checked. */
static double check_case(const opts *o, const char *path, const char *stem, const char *kind, tfl_interpreter *gl)
{
  golden_case gc;
  if (!glm_read_case(o->golden, stem, kind, &gc)) return -1;
  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_graph *cg = NULL;
  tfl_interpreter *cpu_it = NULL;
  tfl_delegate *cpu = cpu_delegate_create(&(cpu_delegate_options){.threads = 1, .use_xnnpack = true, .diag = &diag});
  double worst = -1;
  tfl_interp_options io = tfl_interp_defaults();
  io.fallback = cpu;
  io.diag = &diag;
  if (cpu && !tfl_load_file(path, &cg, &diag) && !tfl_interpreter_create(cg, &io, &cpu_it) &&
      glm_fill(&gc, o->pictures, stem, cpu_it, gl) && !tfl_interpreter_invoke(cpu_it) && !tfl_interpreter_invoke(gl)) {
    int cmp[64], n = glm_compared(gl, cmp, 64, false);
    worst = 0;
    for (int k = 0; k < n; k++) {
      glm_err e = glm_compare(&cg->tensors[cmp[k]], &tfl_interpreter_graph(gl)->tensors[cmp[k]]);
      if (!(e.worst / e.range <= worst)) worst = e.worst / e.range;
    }
    if (o->dump) dump_case(o->dump, stem, kind, cpu_it);
  } else {
    printf("  check %s: %s\n", kind, diag.error);
  }
  tfl_interpreter_free(cpu_it);
  tfl_graph_free(cg);
  if (cpu) cpu->destroy(cpu);
  golden_free(&gc);
  return worst;
}

static void print_profile(const tfl_graph *g, gl_dispatch_profile *pr, int np, const opts *o)
{
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
  for (int pass = 0; pass < 2; pass++)
    for (int t = 0; t < (pass ? o->top : o->all ? np : 0) && t < MAX_D; t++) {
      int i = t; /* pass 0: run order; pass 1: the slowest left */
      if (pass) {
        i = -1;
        for (int j = 0; j < np && j < MAX_D; j++)
          if (pr[j].ms >= 0 && (i < 0 || pr[j].ms > pr[i].ms)) i = j;
        if (i < 0) break;
      }
      const tfl_tensor *y = &g->tensors[g->nodes[pr[i].node].out[0]];
      printf("    %c%-3d node %4d %-24s +%d %8.4f ms %8.1f GFLOP/s  out [%d,%d,%d,%d]\n", pass ? '#' : 'D', i, pr[i].node,
             pr[i].op, pr[i].fused, pr[i].ms, pr[i].ms > 0 ? pr[i].flops / 1e6 / pr[i].ms : 0, y->dims[0],
             y->ndim > 1 ? y->dims[1] : 1, y->ndim > 2 ? y->dims[2] : 1, y->ndim > 3 ? y->dims[3] : 1);
      if (pass) pr[i].ms = -1;
    }
}

static int bench(const char *path, const opts *o)
{
  const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  char stem[256];
  snprintf(stem, sizeof stem, "%.*s", (int)(strstr(name, ".tflite") ? strstr(name, ".tflite") - name : (long)strlen(name)),
           name);
  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_graph *g = NULL;
  tfl_interpreter *it = NULL;
  double t0 = now_ms();
  if (tfl_load_file(path, &g, &diag)) {
    printf("FAIL %s: %s\n", name, diag.error);
    return 1;
  }
  double load = now_ms() - t0;
  char why[256];
  bool appended = false;
  tfl_decoder_options dopt = tfl_decoder_defaults();
  if (o->postprocess &&
      tfl_decoder_append_postprocess(tfl_decoder_pick(g, why, sizeof why), g, &dopt, &appended, &diag)) {
    printf("FAIL %s: %s\n", name, diag.error);
    tfl_graph_free(g);
    return 1;
  }
  if (o->batch > 1 && tfl_pass_set_batch(g, o->batch, &diag)) {
    printf("FAIL %s: %s\n", name, diag.error);
    tfl_graph_free(g);
    return 1;
  }
  size_t out_bytes = 0;
  for (int i = 0; i < g->n_outputs; i++) out_bytes += g->tensors[g->outputs[i]].bytes;
  gl_delegate_options go = gl_delegate_defaults();
  go.precision = o->fp32 ? GL_PRECISION_FP32 : GL_PRECISION_FP16;
  go.cache_dir = o->cache;
  go.tuning = o->tune;
  go.profile = gl_profile_from_env();
  go.diag = &diag;
  t0 = now_ms();
  tfl_delegate *d = gl_delegate_create(&go);
  const double t_ctx = now_ms(); /* the GL context: an application's own in a pipeline */
  tfl_delegate *cpu = cpu_delegate_create(&(cpu_delegate_options){.threads = 1, .use_xnnpack = true, .diag = &diag});
  const double t_cpu = now_ms();
  tfl_interp_options io = tfl_interp_defaults();
  io.delegate = d;
  io.fallback = cpu;
  io.diag = &diag;
  if (!d || !cpu || tfl_interpreter_create(g, &io, &it)) {
    printf("FAIL %s: %s\n", name, diag.error);
    if (cpu) cpu->destroy(cpu);
    if (d) d->destroy(d);
    tfl_graph_free(g);
    return 1;
  }
  double create = now_ms() - t0, ctx_ms = t_ctx - t0, cpu_ms = t_cpu - t_ctx, interp_ms = now_ms() - t_cpu;
  for (int i = 0; i < tfl_interpreter_input_count(it); i++) fill(tfl_interpreter_input(it, i), 777u + (unsigned)i);
  gl_delegate_stats st;
  gl_delegate_get_stats(d, &st);
  double *ms = malloc(sizeof(double) * (size_t)o->runs);
  gl_dispatch_profile *pr = malloc(sizeof *pr * MAX_D);
  int fail = !ms || !pr;
  t0 = now_ms();
  fail |= tfl_interpreter_invoke(it) != TFL_OK;
  double first = now_ms() - t0;
  const tfl_tensor *o0 = tfl_interpreter_output(it, 0);
  tfl_buffer *bytes = NULL;
  tfl_export mx = {.convert = TFL_CONVERT_CLASS_U8};
  if (o->mask) { /* the segmentation's bytes, not its floats */
    if (!o0 || o0->ndim != 4 ||
        tfl_buffer_new(NULL, TFL_BUFFER_HOST, (size_t)o0->dims[1] * (size_t)o0->dims[2], NULL, &bytes) != TFL_OK) {
      printf("FAIL %s: --mask needs a [1,H,W,C] output 0\n", name);
      fail = 1;
    } else {
      tfl_interpreter_set_outputs_host(it, false);
    }
  }
  for (int k = 0; k < 10 && !fail; k++)
    fail |= tfl_interpreter_invoke(it) != TFL_OK || (bytes && tfl_interpreter_export_output(it, 0, &mx, bytes) != TFL_OK);
  for (int k = 0; k < o->runs && !fail; k++) {
    t0 = now_ms();
    fail |= tfl_interpreter_invoke(it) != TFL_OK || (bytes && tfl_interpreter_export_output(it, 0, &mx, bytes) != TFL_OK);
    ms[k] = now_ms() - t0;
  }
  tfl_buffer_free(bytes);
  if (o->mask) tfl_interpreter_set_outputs_host(it, true);
  double queued = 0;
  if (!fail && o->queued > 0) { /* outputs stay on the GPU: invokes do not wait for it */
    tfl_interpreter_set_outputs_host(it, false);
    t0 = now_ms();
    for (int k = 0; k < o->queued && !fail; k++) fail |= tfl_interpreter_invoke(it) != TFL_OK;
    fail |= gl_delegate_finish(d) != TFL_OK;
    queued = (now_ms() - t0) / o->queued;
    tfl_interpreter_set_outputs_host(it, true);
  }
  if (fail) {
    printf("FAIL %s: invoke: %s\n", name, diag.error);
    goto out;
  }
  qsort(ms, (size_t)o->runs, sizeof *ms, cmp_double);
  gl_delegate_get_stats(d, &st); /* the last invoke's CPU phases */
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
  double err_pic = -1, err_gauss = -1;
  if (o->golden) {
    err_pic = check_case(o, path, stem, "picture", it);
    err_gauss = check_case(o, path, stem, "gauss", it);
  }
  const char *cache = (const char *[]){"off", "miss", "hit", "corrupt"}[st.cache & 3];
  int runs = o->runs, convs = conv_layers(g);
  printf("model %s (%s): renderer \"%s\" (%s), device fill %d, workgroup %d%s\n", name, o->fp32 ? "fp32" : "fp16",
         st.renderer, st.version, st.device_fill, st.device_wg, st.device_ms > 0 ? " (measured now)" : "");
  printf("  %d conv layers -> %d dispatches (%.2f per layer; %d fused, %d aliased, %d barriers)\n", convs, st.dispatches,
         convs ? (double)st.dispatches / convs : 0, st.fused, st.aliased, st.barriers);
  printf("  start-up: load %.1f ms, create %.1f ms (programs %.1f ms, cache %s, device measured in %.1f ms), first invoke "
         "%.1f ms, first result %.1f ms\n",
         load, create, st.compile_ms, cache, st.device_ms, first, create + first);
  printf("  create: GL delegate (its context) %.1f ms, CPU fallback %.1f ms, interpreter %.1f ms (of which programs "
         "%.1f, device measure %.1f; the rest plans, generates and uploads the weights)\n",
         ctx_ms, cpu_ms, interp_ms, st.compile_ms, st.device_ms);
  printf("  sync %d runs: min %.3f median %.3f p90 %.3f ms; queued %d: %.3f ms each\n", runs, ms[0], ms[runs / 2],
         ms[runs * 9 / 10], o->queued, queued);
  printf("  GPU %.3f ms (sum of %d dispatch timers), %.3f GFLOP, %.1f GFLOP/s, %.2f us/dispatch\n", gpu[2], np, fl / 1e9,
         gpu[2] > 0 ? fl / 1e6 / gpu[2] : 0, np ? gpu[2] * 1e3 / np : 0);
  printf("  last invoke CPU: upload %.3f ms, submit %.3f ms, wait + readback %.3f ms\n", st.upload_ms, st.submit_ms,
         st.readback_ms);
  printf("  outputs read back: %zu bytes%s", out_bytes, appended ? " (post-processing appended" : "");
  if (appended) {
    const char *who = tfl_interpreter_node_delegate(it, g->n_nodes - 1);
    printf(", on %s)", who ? who : "nothing");
  }
  printf(", batch %d\n", o->batch > 1 ? o->batch : 1);
  if (o->golden) printf("  worst element vs the CPU: picture %.3g, gauss %.3g of range\n", err_pic, err_gauss);
  print_profile(g, pr, np, o);
  printf("TABLE %s %s %.1f %.1f %.1f %.1f %s %.3f %.3f %.3f %.3f %.3f %d %d %d %.3f %.1f %.3g %.3g %d %d\n", stem,
         o->fp32 ? "fp32" : "fp16", load, create, first, create + first, cache, ms[runs / 2], ms[0], ms[runs * 9 / 10],
         queued, gpu[2], st.dispatches, st.barriers, convs, fl / 1e9, gpu[2] > 0 ? fl / 1e6 / gpu[2] : 0, err_pic,
         err_gauss, st.device_fill, st.device_wg);
out:
  free(pr);
  free(ms);
  tfl_interpreter_free(it);
  cpu->destroy(cpu);
  tfl_graph_free(g);
  d->destroy(d);
  return fail;
}

int main(int argc, char **argv)
{
  opts o = {.runs = 100, .queued = 100, .pictures = "tests/data/pictures"};
  int fails = 0;
  const char *dirs = NULL;
  char buf[4096];
  for (int i = 1; i < argc; i++) {
    int r = tool_gl_tuning_parse(&o.tune, argc, argv, &i);
    if (r < 0) return 2;
    if (r > 0) continue;
    if (!strcmp(argv[i], "--fp32")) o.fp32 = true;
    else if (!strcmp(argv[i], "--mask")) o.mask = true;
    else if (!strcmp(argv[i], "--postprocess")) o.postprocess = true;
    else if (!strcmp(argv[i], "--batch") && i + 1 < argc) o.batch = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--fp16")) o.fp32 = false;
    else if (!strcmp(argv[i], "--runs") && i + 1 < argc) o.runs = atoi(argv[++i]) > 0 ? atoi(argv[i]) : 1;
    else if (!strcmp(argv[i], "--queued") && i + 1 < argc) o.queued = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--top") && i + 1 < argc) o.top = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--dispatches")) o.all = true;
    else if (!strcmp(argv[i], "--cache") && i + 1 < argc) o.cache = argv[++i];
    else if (!strcmp(argv[i], "--no-cache")) o.cache = "";
    else if (!strcmp(argv[i], "--models") && i + 1 < argc) dirs = argv[++i];
    else if (!strcmp(argv[i], "--golden") && i + 1 < argc) o.golden = argv[++i];
    else if (!strcmp(argv[i], "--pictures") && i + 1 < argc) o.pictures = argv[++i];
    else if (!strcmp(argv[i], "--dump") && i + 1 < argc) o.dump = argv[++i];
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
      if (o.batch > 1 && (o.golden || o.dump)) {
        printf("FAIL %s: --batch %d with --golden or --dump (their cases are one frame)\n", path, o.batch);
        return 2;
      }
      fails += bench(path, &o);
    }
  }
  return fails != 0;
}
