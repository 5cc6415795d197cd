/* opmodels_gl.c - see opmodels_gl.h. */
#include "opmodels_gl.h"

#include "golden.h"

#include "delegates/cpu/cpu_delegate.h"
#include "delegates/gl/gl_delegate.h"
#include "delegates/gl/gl_plan.h"
#include "runtime/tfl_interpreter.h"
#include "runtime/tfl_loader.h"
#include "tests/gl_profile_env.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  tfl_diag diag;        /* outlives the interpreter and the delegates, which report here */
  tfl_graph *g;
  tfl_delegate *cpu, *gl;
  tfl_interpreter *it;
} gl_run;

static void gl_run_free(gl_run *r)
{
  tfl_interpreter_free(r->it);
  if (r->gl) r->gl->destroy(r->gl);
  if (r->cpu) r->cpu->destroy(r->cpu);
  tfl_graph_free(r->g);
  r->it = NULL;
  r->gl = r->cpu = NULL;
  r->g = NULL;
}

/* What the model holds besides float32 (into what, for the log): QUANT when a graph input
 * or output, or an activation inside, is 8/16-bit quantized (compared as TFLite rounds:
 * within one step of the output's scale); HYBRID when a float op reads 8-bit constant
 * weights (TFLite quantizes its input on the fly, GL computes in float: see hybrid_tol). */
enum { KIND_FLOAT = 0, KIND_QUANT = 1, KIND_HYBRID = 2 };
static int model_kind(const tfl_graph *g, char *what, size_t n)
{
  int kind = KIND_FLOAT;
  what[0] = 0;
  for (int i = 0; i < g->n_tensors; i++) {
    const tfl_tensor *t = &g->tensors[i];
    if (!t->is_const && t->q.n > 0 && t->type != TFL_TYPE_FLOAT32) {
      snprintf(what, n, "tensor %d (%s) is quantized %s", i, t->name ? t->name : "", tfl_type_name(t->type));
      kind |= KIND_QUANT;
      break;
    }
  }
  for (int i = 0; i < g->n_nodes; i++) {
    const tfl_node *nd = &g->nodes[i];
    if (nd->op == TFL_OP_DEQUANTIZE || nd->n_out < 1 || nd->out[0] < 0 ||
        g->tensors[nd->out[0]].type != TFL_TYPE_FLOAT32)
      continue;
    for (int k = 0; k < nd->n_in; k++) {
      const tfl_tensor *t = nd->in[k] >= 0 ? &g->tensors[nd->in[k]] : NULL;
      if (t && t->is_const && t->q.n > 0 && (t->type == TFL_TYPE_INT8 || t->type == TFL_TYPE_UINT8)) {
        size_t used = strlen(what);
        snprintf(what + used, n - used, "%snode %d (%s) is hybrid", used ? "; " : "", i, tfl_op_name(nd->op));
        return kind | KIND_HYBRID;
      }
    }
  }
  return kind;
}

/* Prints each node's placement ("gl", or "cpu" with the GL check's reason); returns the
 * nodes GL runs. it NULL: the interpreter could not be made, so every node is asked. */
static int report_nodes(const tfl_graph *g, const tfl_interpreter *it)
{
  int on_gl = 0, on_cpu = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    const tfl_node *n = &g->nodes[i];
    const char *d = it ? tfl_interpreter_node_delegate(it, i) : "?";
    if (n->dead || !d) continue;
    tfl_diag why;
    tfl_diag_init(&why);
    bool gl = it ? strcmp(d, "gl") == 0 : gl_plan_supports(g, i, &why);
    if (gl) {
      on_gl++;
      printf("  node %d (%s): gl\n", i, tfl_op_name(n->op));
      continue;
    }
    on_cpu++;
    if (it) gl_plan_supports(g, i, &why);
    printf("  node %d (%s): cpu: %s\n", i, tfl_op_name(n->op),
           why.error[0] ? why.error : "GL supports it, the partitioner left it to the CPU");
  }
  printf("gl: %d node(s) on GL, %d on CPU\n", on_gl, on_cpu);
  return on_gl;
}

/* Loads and prepares the model: on GL (with the CPU reference as fallback) when gl, else
 * on the CPU reference alone. 0, or 1 with a FAIL line printed. */
static int open_run(const char *path, bool gl, bool fp16, gl_run *r)
{
  const char *mode = gl ? "gl" : "cpu reference";
  tfl_diag_init(&r->diag);
  tfl_status st = tfl_load_file(path, &r->g, &r->diag);
  if (st != TFL_OK) {
    printf("%s: FAIL: load: %s: %s\n", mode, tfl_status_name(st), r->diag.error);
    return 1;
  }
  cpu_delegate_options co = cpu_delegate_defaults();
  co.reference = true;
  co.threads = 1;
  co.diag = &r->diag;
  r->cpu = cpu_delegate_create(&co);
  if (!r->cpu) {
    printf("%s: FAIL: cpu delegate: %s\n", mode, r->diag.error);
    return 1;
  }
  if (gl) {
    gl_delegate_options go = gl_delegate_defaults();
    go.precision = fp16 ? GL_PRECISION_FP16 : GL_PRECISION_FP32;
    go.profile = gl_profile_from_env();
    go.diag = &r->diag;
    r->gl = gl_delegate_create(&go);
    if (!r->gl) {
      printf("%s: FAIL: gl delegate: %s\n", mode, r->diag.error);
      return 1;
    }
  }
  tfl_interp_options opt = tfl_interp_defaults();
  opt.delegate = r->gl;
  opt.fallback = r->cpu;
  opt.diag = &r->diag;
  st = tfl_interpreter_create(r->g, &opt, &r->it);
  if (st != TFL_OK) {
    printf("%s: FAIL: interpreter: %s: %s\n", mode, tfl_status_name(st), r->diag.error);
    r->it = NULL;
    return 1;
  }
  return 0;
}

/* Feeds `gauss --seed 1` inputs (checked against the golden's hashes when gc) and invokes.
 * 0, or 1 with a FAIL line printed. */
static int feed_invoke(const golden_case *gc, gl_run *r, const char *mode)
{
  golden_rng rng;
  golden_rng_seed(&rng, 1);
  for (int i = 0; i < tfl_interpreter_input_count(r->it); i++) {
    tfl_tensor *t = tfl_interpreter_input(r->it, i);
    float scale = t->q.n > 0 ? t->q.scale[0] : 0;
    int32_t zp = t->q.n > 0 ? t->q.zero_point[0] : 0;
    if (!golden_fill_gauss(&rng, (int)t->type, scale, zp, t->data, tfl_tensor_count(t))) {
      printf("%s: FAIL: input %d (%s): no gauss fill for %s\n", mode, i, t->name ? t->name : "",
             tfl_type_name(t->type));
      return 1;
    }
    if (gc && i < gc->n_inputs && golden_fnv1a(t->data, t->bytes) != gc->input_hash[i]) {
      printf("%s: FAIL: input %d (%s) differs from the oracle's (hash)\n", mode, i, t->name ? t->name : "");
      return 1;
    }
  }
  tfl_status st = tfl_interpreter_invoke(r->it);
  if (st != TFL_OK) {
    printf("%s: FAIL: invoke: %s: %s\n", mode, tfl_status_name(st), r->diag.error);
    return 1;
  }
  return 0;
}

/* |w| of 8-bit weight tensor w, element i, as a real */
static double weight_abs(const tfl_tensor *w, size_t i, size_t ch)
{
  int32_t q = w->type == TFL_TYPE_INT8 ? ((const int8_t *)w->data)[i] : ((const uint8_t *)w->data)[i];
  int c = w->q.n > 1 ? (int)ch : 0;
  return fabs((double)(q - w->q.zero_point[c]) * w->q.scale[c]);
}

/* How far TFLite's hybrid kernels may be from the float product GL computes: they quantize
 * the float input to int8 on the fly (scale max|x| / 127 per row), so each input is off by
 * up to half a step and an output by half a step times the sum of |weights| feeding it.
 * Sum over the hybrid nodes reading a graph input (the single-op models); 0 when none. */
static double hybrid_tol(gl_run *r)
{
  const tfl_graph *g = tfl_interpreter_graph(r->it);
  double tol = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    const tfl_node *nd = &g->nodes[i];
    int xi = nd->op == TFL_OP_TRANSPOSE_CONV ? 2 : 0; /* TRANSPOSE_CONV: output shape, weights, input */
    if (nd->dead || nd->n_in <= xi || nd->in[xi] < 0 || nd->in[1] < 0) continue;
    const tfl_tensor *x = &g->tensors[nd->in[xi]], *w = &g->tensors[nd->in[1]];
    if (x->type != TFL_TYPE_FLOAT32 || !w->is_const || w->q.n < 1 || !w->data ||
        (w->type != TFL_TYPE_INT8 && w->type != TFL_TYPE_UINT8))
      continue;
    const float *xv = NULL;
    size_t nx = 0;
    for (int k = 0; k < tfl_interpreter_input_count(r->it); k++)
      if (g->inputs[k] == nd->in[xi]) {
        xv = tfl_interpreter_input(r->it, k)->data;
        nx = tfl_tensor_count(x);
      }
    double xmax = 0;
    for (size_t k = 0; k < nx; k++) xmax = fabs(xv[k]) > xmax ? fabs(xv[k]) : xmax;
    /* output channels: dim 0 (FC, CONV_2D, TRANSPOSE_CONV: OHWI), last dim (DEPTHWISE: 1HWC) */
    bool last = nd->op == TFL_OP_DEPTHWISE_CONV_2D;
    size_t n = tfl_tensor_count(w), chans = (size_t)(last ? w->dims[w->ndim - 1] : w->dims[0]);
    double worst = 0;
    for (size_t c = 0; c < chans; c++) {
      double sum = 0;
      for (size_t k = 0; k < n / chans; k++) {
        size_t at = last ? k * chans + c : c * (n / chans) + k;
        sum += weight_abs(w, at, c);
      }
      worst = sum > worst ? sum : worst;
    }
    tol += 0.5 * (xmax / 127.0) * worst;
  }
  return tol;
}

/* The node writing tensor t, or NULL. */
static const tfl_node *producer(const tfl_graph *g, int t)
{
  for (int i = 0; i < g->n_nodes; i++)
    if (!g->nodes[i].dead && g->nodes[i].n_out > 0 && g->nodes[i].out[0] == t) return &g->nodes[i];
  return NULL;
}

/* A float output DEQUANTIZE makes of a per-tensor quantized tensor: the tolerance in real
 * units. One step of that tensor (TFLite requantizes with fixed-point multipliers, GL in
 * float: they differ by a step at ties), except after a QUANTIZE of fp32 values on fp32
 * storage, which GL rounds as LiteRT does (x * (1/scale), half to even): exact, *exact set.
 * 0 for other outputs (the golden's own lsb, if any, applies). */
static double dequant_step(const tfl_graph *g, int t, bool fp16, bool *exact)
{
  *exact = false;
  const tfl_node *d = producer(g, t);
  if (!d || d->op != TFL_OP_DEQUANTIZE || d->in[0] < 0) return 0;
  const tfl_tensor *x = &g->tensors[d->in[0]];
  if (x->q.n != 1 || x->is_const) return 0;
  const tfl_node *q = producer(g, d->in[0]);
  *exact = !fp16 && q && q->op == TFL_OP_QUANTIZE && q->in[0] >= 0 && g->tensors[q->in[0]].type == TFL_TYPE_FLOAT32;
  return x->q.scale[0];
}

static int check_golden(const golden_case *gc, gl_run *r, double tol, bool fp16)
{
  int fails = 0;
  if (tfl_interpreter_output_count(r->it) != gc->n_outputs) {
    printf("gl: FAIL: %d outputs, golden has %d\n", tfl_interpreter_output_count(r->it), gc->n_outputs);
    return 1;
  }
  for (int o = 0; o < gc->n_outputs; o++) {
    const golden_output *go = &gc->outputs[o];
    const tfl_tensor *t = tfl_interpreter_output(r->it, o);
    bool shape_ok = (int)t->type == go->type && t->ndim == go->ndim;
    for (int d = 0; shape_ok && d < t->ndim; d++) shape_ok = t->dims[d] == go->dims[d];
    if (!shape_ok) {
      printf("gl: FAIL output %d (%s): %s with %d dims, golden %s with %d dims\n", o, t->name ? t->name : "",
             tfl_type_name(t->type), t->ndim, golden_type_name(go->type), go->ndim);
      fails++;
      continue;
    }
    golden_output g1 = *go;
    bool exact;
    double step = dequant_step(tfl_interpreter_graph(r->it), tfl_interpreter_graph(r->it)->outputs[o], fp16, &exact);
    /* on top of the step, the rounding of the real value: fp16 storage 2^-11 of it, fp32 a few ulps */
    double mag = fabs(go->max) > fabs(go->min) ? fabs(go->max) : fabs(go->min);
    if (g1.lsb < step) g1.lsb = step;
    if (exact) g1.lsb = 0; /* a QUANTIZE -> DEQUANTIZE round trip: the float tolerance */
    if (g1.lsb > 0) g1.lsb += mag * (fp16 ? 1.0 / 2048 : 1.0 / (1 << 20));
    golden_result res = golden_compare(&g1, t->data, tol, 1.0, false);
    double range = go->max - go->min;
    printf("gl: %s output %d (%s, %zu values): max_err %.3g = %.3g of max(1, range) (tol %.3g) at %s %zu\n",
           res.ok ? "ok  " : "FAIL", o, t->name ? t->name : "", go->count, res.max_err,
           res.max_err / (range > 1 ? range : 1), res.tol, res.worst_index == go->count ? "mean" : "element",
           res.worst_index == go->count ? 0 : res.worst_index);
    if (!res.ok) fails++;
  }
  return fails;
}

/* Element i of an output as a real number (8-bit: its integer, the raw unit). */
static double value_at(const tfl_tensor *t, size_t i)
{
  switch (t->type) {
  case TFL_TYPE_FLOAT32: return ((const float *)t->data)[i];
  case TFL_TYPE_INT8: return ((const int8_t *)t->data)[i];
  case TFL_TYPE_UINT8: return ((const uint8_t *)t->data)[i];
  default: return NAN;
  }
}

/* No golden: GL against the CPU reference, floats within tol x max(1, reference range),
 * 8-bit outputs within one step. */
static int check_reference(gl_run *ref, gl_run *gl, double tol)
{
  int fails = 0;
  for (int o = 0; o < tfl_interpreter_output_count(ref->it); o++) {
    const tfl_tensor *a = tfl_interpreter_output(ref->it, o), *b = tfl_interpreter_output(gl->it, o);
    size_t n = tfl_tensor_count(a);
    bool q8 = a->type == TFL_TYPE_INT8 || a->type == TFL_TYPE_UINT8;
    if ((a->type != TFL_TYPE_FLOAT32 && !q8) || b->type != a->type || n != tfl_tensor_count(b)) {
      printf("gl: FAIL output %d (%s): %s, GL %s: not comparable\n", o, a->name ? a->name : "",
             tfl_type_name(a->type), tfl_type_name(b->type));
      fails++;
      continue;
    }
    double lo = INFINITY, hi = -INFINITY, max_err = 0;
    size_t worst = 0;
    for (size_t i = 0; i < n; i++) {
      double x = value_at(a, i), y = value_at(b, i);
      lo = x < lo ? x : lo;
      hi = x > hi ? x : hi;
      double e = fabs(x - y);
      if (!(e <= max_err)) {
        max_err = isnan(e) ? INFINITY : e;
        worst = i;
      }
    }
    double scale = hi - lo > 1 ? hi - lo : 1, lim = q8 ? 1.0 : tol * scale;
    bool ok = max_err <= lim && isfinite(lo) && isfinite(hi);
    printf("gl: %s output %d (%s, %zu values) vs cpu reference: max_err %.3g = %.3g of max(1, range) (tol %.3g) "
           "at element %zu\n",
           ok ? "ok  " : "FAIL", o, a->name ? a->name : "", n, max_err, max_err / scale, lim, worst);
    fails += !ok;
  }
  return fails;
}

/* Models the real TensorFlow Lite's kernels refuse (tests/opmodels/refused.txt: NAME and
 * the words our refusal must contain): true with the words in want. */
static bool refused_case(const char *dir, const char *name, char *want, size_t n)
{
  char path[4096], line[512];
  snprintf(path, sizeof path, "%s/refused.txt", dir);
  FILE *f = fopen(path, "r");
  if (!f) return false;
  bool found = false;
  size_t len = strlen(name);
  while (!found && fgets(line, sizeof line, f)) {
    if (line[0] == '#' || strncmp(line, name, len) != 0 || line[len] != ' ') continue;
    snprintf(want, n, "%s", line + len + 1);
    want[strcspn(want, "\n")] = 0;
    found = true;
  }
  fclose(f);
  return found;
}

int opmodels_refused_check(const char *name, const char *dir, const char *mode, bool gl, bool fp16, bool *listed)
{
  char want[256];
  *listed = refused_case(dir, name, want, sizeof want);
  if (!*listed) return 0;
  char model[4096];
  snprintf(model, sizeof model, "%s/models/%s.tflite", dir, name);
  gl_run r = {0};
  tfl_diag_init(&r.diag);
  tfl_status st = tfl_load_file(model, &r.g, &r.diag);
  int status = 0;
  if (st == TFL_OK) {
    /* the load took it: preparing it (passes, validation at PREPARE) must refuse */
    tfl_graph_free(r.g);
    r.g = NULL;
    status = open_run(model, gl, fp16, &r) == 0;
  }
  bool named = strstr(r.diag.error, want) != NULL;
  printf("%s: %s: TensorFlow Lite's kernels refuse it; ours: %s (want \"%s\")\n", name, mode,
         r.diag.error[0] ? r.diag.error : "accepted", want);
  gl_run_free(&r);
  return status || !named;
}

int opmodels_gl_run(const char *name, const char *dir, bool fp16, bool float_only)
{
  const double tol = fp16 ? 1e-2 : 1e-4;
  char model[4096], golden[4096], what[256];
  bool listed;
  int refused = opmodels_refused_check(name, dir, fp16 ? "gl fp16" : "gl fp32", true, fp16, &listed);
  if (listed) {
    printf("%s: %s\n", name, refused ? "FAIL" : "ok (refused)");
    return refused;
  }
  snprintf(model, sizeof model, "%s/models/%s.tflite", dir, name);
  snprintf(golden, sizeof golden, "%s/golden/%s.gauss.txt", dir, name);
  golden_case gc;
  bool have_golden = access(golden, R_OK) == 0;
  if (have_golden && !golden_read(golden, &gc)) return 1;
  printf("%s: gl %s against %s\n", name, fp16 ? "fp16" : "fp32",
         have_golden ? gc.runtime : "the cpu reference (no oracle golden, see NOTES.md)");

  int status = 0, kind = KIND_FLOAT;
  gl_run gl = {0}, ref = {0};
  tfl_diag ld;
  tfl_diag_init(&ld);
  tfl_status st = tfl_load_file(model, &gl.g, &ld);
  if (st != TFL_OK) {
    printf("gl: FAIL: load: %s: %s\n", tfl_status_name(st), ld.error);
    status = 1;
    goto done;
  }
  kind = model_kind(gl.g, what, sizeof what);
  /* GL's check takes none of the loaded nodes: skipped before a GL context is made (the
   * suite's time; every node's reason is printed) */
  int takes = 0;
  for (int i = 0; i < gl.g->n_nodes && !takes; i++) {
    tfl_diag why;
    tfl_diag_init(&why);
    takes = !gl.g->nodes[i].dead && gl_plan_supports(gl.g, i, &why);
  }
  if (!takes) {
    report_nodes(gl.g, NULL);
    printf("%s: skipped: GL takes none of its nodes\n", name);
    status = OPMODELS_GL_SKIP;
    goto done;
  }
  tfl_graph_free(gl.g);
  gl.g = NULL;
  if (kind != KIND_FLOAT && float_only) {
    /* whole models: one step of rounding difference per op accumulates (counted as skipped) */
    printf("%s: skipped on gl: %s (--float-only: whole quantized models are not compared)\n", name, what);
    status = OPMODELS_GL_SKIP;
    goto done;
  }
  if (kind != KIND_FLOAT) printf("%s: %s\n", name, what);
  if (open_run(model, true, fp16, &gl)) {
    /* a model GL takes nothing of is skipped even where the CPU cannot run it either */
    if (gl.g && report_nodes(gl.g, NULL) == 0) {
      printf("%s: skipped: GL takes none of its nodes\n", name);
      status = OPMODELS_GL_SKIP;
    } else {
      status = 1;
    }
    goto done;
  }
  if (report_nodes(tfl_interpreter_graph(gl.it), gl.it) == 0) {
    printf("%s: skipped: GL takes none of its nodes\n", name);
    status = OPMODELS_GL_SKIP;
    goto done;
  }
  if (feed_invoke(have_golden ? &gc : NULL, &gl, "gl")) {
    status = 1;
    goto done;
  }
  double ftol = tol;
  if (kind & KIND_HYBRID) {
    /* as a fraction of max(1, range), the unit of ftol: the golden's range or the reference's */
    double h = hybrid_tol(&gl), range = 1;
    for (int o = 0; have_golden && o < gc.n_outputs; o++)
      range = gc.outputs[o].max - gc.outputs[o].min > range ? gc.outputs[o].max - gc.outputs[o].min : range;
    printf("gl: hybrid: TFLite's on-the-fly input quantization allows %.3g (%.3g of max(1, range))\n", h, h / range);
    ftol = h / range > ftol ? h / range : ftol;
  }
  if (have_golden) {
    status = check_golden(&gc, &gl, ftol, fp16) != 0;
  } else {
    status = open_run(model, false, false, &ref) || feed_invoke(NULL, &ref, "cpu reference") ||
             check_reference(&ref, &gl, ftol) != 0;
  }
done:
  gl_run_free(&gl);
  gl_run_free(&ref);
  if (have_golden) golden_free(&gc);
  printf("%s: %s\n", name, status == 1 ? "FAIL" : status == OPMODELS_GL_SKIP ? "skipped" : "ok");
  return status;
}

int opmodels_gl_main(const char *name, const char *dir, const char *const *precision, int n, bool float_only)
{
  bool failed = false, all_skipped = true;
  for (int i = 0; i < n; i++) {
    int st = opmodels_gl_run(name, dir, strcmp(precision[i], "fp16") == 0, float_only);
    failed = failed || st == 1;
    all_skipped = all_skipped && st == OPMODELS_GL_SKIP;
  }
  return failed ? 1 : all_skipped ? OPMODELS_GL_SKIP : 0;
}

bool opmodels_gl_cli(int argc, char **argv, int *status)
{
  const char *name = NULL, *dir = "tests/opmodels", *delegate = "cpu", *precision[2] = {"fp32", NULL};
  int n_prec = 0;
  bool bad = false, float_only = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool valued = !strcmp(a, "--dir") || !strcmp(a, "--delegate") || !strcmp(a, "--precision") || !strcmp(a, "--tol");
    if (valued && i + 1 >= argc) {
      bad = true;
    } else if (!strcmp(a, "--dir")) {
      dir = argv[++i];
    } else if (!strcmp(a, "--delegate")) {
      delegate = argv[++i];
    } else if (!strcmp(a, "--precision")) {
      bad = bad || n_prec == 2 || (strcmp(argv[i + 1], "fp16") && strcmp(argv[i + 1], "fp32"));
      precision[n_prec < 2 ? n_prec++ : 1] = argv[++i];
    } else if (!strcmp(a, "--float-only")) {
      float_only = true;
    } else if (valued) {
      i++;
    } else if (!name) {
      name = a;
    }
  }
  if (strcmp(delegate, "gl") != 0) {
    if (strcmp(delegate, "cpu") == 0 && n_prec == 0) return false;
    bad = true;
  }
  if (bad || !name) {
    fprintf(stderr, "usage: test_opmodels CASE [--dir tests/opmodels] --delegate gl [--precision fp16|fp32 ...] "
                    "[--float-only]\n");
    *status = 2;
    return true;
  }
  *status = opmodels_gl_main(name, dir, precision, n_prec ? n_prec : 1, float_only);
  return true;
}
