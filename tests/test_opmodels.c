/* test_opmodels - one single-op model (tests/opmodels/) against the real TensorFlow Lite.
 *
 *   test_opmodels CASE --dir tests/opmodels [--tol X]
 *
 * Loads models/CASE.tflite, feeds `gauss --seed 1` inputs (tests/golden.c, checked against
 * the golden's input hashes), runs it in reference mode (plain C kernels, one thread) and in
 * fast mode (two threads, XNNPACK), and compares every output value with golden/CASE.gauss.txt:
 * floats within 1e-5 x max(1, golden range) (or the golden's `lsb` for float outputs of
 * quantized chains), quantized and integer outputs within 1 LSB. `--tol X` sets the float
 * tolerance (a fraction of the golden range, default 1e-5): whole converted models
 * (tests/zoo, `--dir tests/zoo`) accumulate more rounding than one op and use 1e-4.
 * A case without a golden (the oracle cannot run it: NOTES.md) is checked fast-vs-reference
 * only. A case listed in DIR/refused.txt (TensorFlow Lite's kernels refuse it) must be refused
 * at load or prepare with the listed words (opmodels_refused_check). Exit status: 0 pass, 1 fail.
 *
 *   test_opmodels CASE --dir tests/opmodels --delegate gl [--precision fp16|fp32 ...]
 *
 * runs it on the GL delegate instead, once per precision given (default fp32; opmodels_gl.h;
 * 77: GL takes none of its nodes).
 */
#include "golden.h"
#include "opmodels_gl.h"

#include "delegates/cpu/cpu_delegate.h"
#include "runtime/tfl_interpreter.h"
#include "runtime/tfl_loader.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FLOAT_TOL 1e-5
#define QUANT_LSB 1.0

typedef struct {
  tfl_diag diag;       /* lives as long as the interpreter, which reports here */
  tfl_graph *g;
  tfl_delegate *cpu;   /* the interpreter's fallback */
  tfl_interpreter *it;
} run;

static void run_free(run *r)
{
  tfl_interpreter_free(r->it);
  if (r->cpu) r->cpu->destroy(r->cpu);
  tfl_graph_free(r->g);
  r->it = NULL;
  r->cpu = NULL;
  r->g = NULL;
}

/* Loads, prepares, feeds gauss inputs and invokes. Returns 0 or the number of failures. */
static int run_model(const char *path, const golden_case *gc, bool reference, run *r)
{
  const char *mode = reference ? "reference" : "fast";
  tfl_diag_init(&r->diag);
  tfl_status st = tfl_load_file(path, &r->g, &r->diag);
  if (st != TFL_OK) {
    printf("%s: FAIL: load: %s: %s\n", mode, tfl_status_name(st), r->diag.error);
    return 1;
  }
  cpu_delegate_options co = cpu_delegate_defaults();
  co.reference = reference;
  co.threads = reference ? 1 : 2;
  co.diag = &r->diag;
  r->cpu = cpu_delegate_create(&co);
  tfl_interp_options opt = tfl_interp_defaults();
  opt.fallback = r->cpu;
  opt.diag = &r->diag;
  st = r->cpu ? tfl_interpreter_create(r->g, &opt, &r->it) : TFL_ERR_NOMEM;
  if (st != TFL_OK) {
    printf("%s: FAIL: interpreter: %s: %s\n", mode, tfl_status_name(st), r->diag.error);
    return 1;
  }
  golden_rng rng;
  golden_rng_seed(&rng, 1);
  for (int i = 0; i < tfl_interpreter_input_count(r->it); i++) {
    tfl_tensor *t = tfl_interpreter_input(r->it, i);
    float scale = t->q.n > 0 ? t->q.scale[0] : 0;
    int32_t zp = t->q.n > 0 ? t->q.zero_point[0] : 0;
    if (!golden_fill_gauss(&rng, (int)t->type, scale, zp, t->data, tfl_tensor_count(t))) return 1;
    if (gc && i < gc->n_inputs && golden_fnv1a(t->data, t->bytes) != gc->input_hash[i]) {
      printf("%s: FAIL: input %d differs from the oracle's (hash)\n", mode, i);
      return 1;
    }
  }
  st = tfl_interpreter_invoke(r->it);
  if (st != TFL_OK) {
    printf("%s: FAIL: invoke: %s: %s\n", mode, tfl_status_name(st), r->diag.error);
    return 1;
  }
  return 0;
}

static double float_tol = FLOAT_TOL;

static int check_golden(const golden_case *gc, run *r, const char *mode)
{
  int fails = 0;
  if (tfl_interpreter_output_count(r->it) != gc->n_outputs) {
    printf("%s: FAIL: %d outputs, golden has %d\n", mode, tfl_interpreter_output_count(r->it), gc->n_outputs);
    return 1;
  }
  for (int o = 0; o < gc->n_outputs; o++) {
    const golden_output *go = &gc->outputs[o];
    const tfl_tensor *t = tfl_interpreter_output(r->it, o);
    bool shape_ok = (int)t->type == go->type && t->ndim == go->ndim;
    for (int d = 0; shape_ok && d < t->ndim; d++) shape_ok = t->dims[d] == go->dims[d];
    if (!shape_ok) {
      printf("%s: FAIL output %d: %s with %d dims, golden %s with %d dims\n", mode, o,
             tfl_type_name(t->type), t->ndim, golden_type_name(go->type), go->ndim);
      fails++;
      continue;
    }
    golden_result res = golden_compare(go, t->data, float_tol, QUANT_LSB, false);
    printf("%s: %s output %d (%s, %zu values): max_err %.3g (tol %.3g) at %s %zu\n", mode,
           res.ok ? "ok  " : "FAIL", o, golden_type_name(go->type), go->count, res.max_err, res.tol,
           res.worst_index == go->count ? "mean" : "element",
           res.worst_index == go->count ? 0 : res.worst_index);
    if (!res.ok) fails++;
  }
  return fails;
}

/* Without a golden: fast mode must agree with the reference. */
static int check_fast_vs_reference(run *ref, run *fast)
{
  int fails = 0;
  for (int o = 0; o < tfl_interpreter_output_count(ref->it); o++) {
    const tfl_tensor *a = tfl_interpreter_output(ref->it, o), *b = tfl_interpreter_output(fast->it, o);
    if (a->type != b->type || a->bytes != b->bytes) {
      printf("FAIL output %d: reference and fast disagree on type or size\n", o);
      fails++;
      continue;
    }
    double max_err = 0;
    size_t n = tfl_tensor_count(a);
    bool finite = true;
    for (size_t i = 0; i < n && a->type == TFL_TYPE_FLOAT32; i++) {
      double x = ((const float *)a->data)[i], y = ((const float *)b->data)[i];
      finite = finite && isfinite(x);
      if (fabs(x - y) > max_err || y != y) max_err = y != y ? INFINITY : fabs(x - y);
    }
    if (a->type != TFL_TYPE_FLOAT32 && memcmp(a->data, b->data, a->bytes) != 0) max_err = INFINITY;
    bool ok = finite && max_err <= 1e-5;
    printf("%s output %d: fast vs reference max_err %.3g%s\n", ok ? "ok  " : "FAIL", o, max_err,
           finite ? "" : " (reference not finite)");
    if (!ok) fails++;
  }
  return fails;
}

int main(int argc, char **argv)
{
  int gl_status;
  if (opmodels_gl_cli(argc, argv, &gl_status)) return gl_status; /* --delegate gl (opmodels_gl.h) */
  const char *name = NULL, *dir = "tests/opmodels";
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) dir = argv[++i];
    else if (strcmp(argv[i], "--tol") == 0 && i + 1 < argc) {
      char *end;
      float_tol = strtod(argv[++i], &end);
      if (*end || !(float_tol > 0)) {
        fprintf(stderr, "test_opmodels: --tol wants a positive number, not '%s'\n", argv[i]);
        return 2;
      }
    } else if (!name) name = argv[i];
  }
  if (!name) {
    fprintf(stderr, "usage: test_opmodels CASE [--dir tests/opmodels] [--tol X]\n");
    return 2;
  }
  bool listed;
  int refused = opmodels_refused_check(name, dir, "cpu", false, false, &listed);
  if (listed) { /* TFLite's kernels refuse it (refused.txt): ours must too */
    printf("%s: %s\n", name, refused ? "FAIL" : "ok (refused)");
    return refused;
  }
  char model[4096], golden[4096];
  snprintf(model, sizeof model, "%s/models/%s.tflite", dir, name);
  snprintf(golden, sizeof golden, "%s/golden/%s.gauss.txt", dir, name);
  golden_case gc;
  bool have_golden = access(golden, R_OK) == 0;
  if (have_golden && !golden_read(golden, &gc)) return 1;
  printf("%s: %s\n", name, have_golden ? gc.runtime : "no oracle golden (see NOTES.md): fast vs reference");

  int fails = 0;
  run ref = { 0 }, fast = { 0 };
  int ref_fail = run_model(model, have_golden ? &gc : NULL, true, &ref);
  int fast_fail = run_model(model, have_golden ? &gc : NULL, false, &fast);
  fails += ref_fail + fast_fail;
  if (have_golden) {
    if (!ref_fail) fails += check_golden(&gc, &ref, "reference");
    if (!fast_fail) fails += check_golden(&gc, &fast, "fast");
  } else if (!ref_fail && !fast_fail) {
    fails += check_fast_vs_reference(&ref, &fast);
  }
  run_free(&ref);
  run_free(&fast);
  if (have_golden) golden_free(&gc);
  printf("%s: %s\n", name, fails ? "FAIL" : "ok");
  return fails ? 1 : 0;
}
