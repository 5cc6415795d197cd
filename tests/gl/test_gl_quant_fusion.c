/* test_gl_quant_fusion.c - the GL fusion passes (delegates/gl/gl_fuse*.c) on full-integer
 * int8 models made by the TensorFlow Lite converter (tests/gl/quant/make_quant_models.py),
 * against the native TensorFlow Lite's outputs (the goldens beside them):
 *   - every node on GL, and the passes took what --expect says (gl_delegate_stats:
 *     fused, inlined, se, remapped, paired, dwpw, irb), so the pass under test fired (or,
 *     for the float-only passes, stayed off);
 *   - each output within --lsb (max) and --mean-lsb (mean) of the golden, in LSB of the
 *     int8 output: GL computes in float and rounds every stored quantized tensor to its
 *     grid (ties to even) where TFLite requantizes with fixed-point multipliers, so a value
 *     near a tie can land one step away, and a step in one tensor can move the next by
 *     about a step;
 *   - with --unfused N: the same model planned without fusion (gl_tuning.no_fuse) gives
 *     outputs within N LSB of the fused plan: a fusion pass changes where values are
 *     computed, not what is stored (the squeeze-excite dispatch once skipped its
 *     intermediate tensors' rounding and saturation: MobileNetV3 int8 moved by tens of LSB);
 *     with --no-se too, the plan compared is the default one less the squeeze-excite pass
 *     (gl_tuning.no_se): on a whole network the shaders it shares with the fused plan come
 *     from the program cache, where the unfused plan compiles a hundred new ones.
 * Usage: test_gl_quant_fusion --dir DIR [--pictures DIR] [--case gauss|picture] [--fp16]
 *        [--gl-irb] [--expect KEY=N]... [--lsb N] [--mean-lsb X] [--unfused N [--no-se]] NAME */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/cpu/cpu_delegate.h"
#include "delegates/gl/gl_delegate.h"
#include "runtime/tfl_interpreter.h"
#include "runtime/tfl_loader.h"
#include "tests/gl/gl_model_check.h"

#define MAX_OUT 8
#define MAX_EXPECT 8

typedef struct {
  tfl_diag diag; /* outlives the interpreter and delegates, which report here */
  tfl_graph *g;
  tfl_delegate *cpu, *gl;
  tfl_interpreter *it;
} qrun;

static void qrun_free(qrun *r)
{
  tfl_interpreter_free(r->it);
  if (r->gl) r->gl->destroy(r->gl);
  if (r->cpu) r->cpu->destroy(r->cpu);
  tfl_graph_free(r->g);
  memset(r, 0, sizeof *r);
}

static const char *const stat_names[] = {"fused", "inlined", "se", "remapped", "paired", "dwpw", "irb"};

static int stat_of(const gl_delegate_stats *s, int k)
{
  const int v[] = {s->fused, s->inlined, s->se, s->remapped, s->paired, s->dwpw, s->irb};
  return v[k];
}

/* Loads `path`, runs it on GL (the CPU reference as fallback) on the golden case's input;
 * 0, or 1 with a FAIL line. */
static int run_gl(const char *path, const char *stem, const golden_case *gc, const char *pictures, bool fp16,
                  gl_tuning tune, qrun *r, gl_delegate_stats *st)
{
  tfl_diag_init(&r->diag);
  if (tfl_load_file(path, &r->g, &r->diag)) {
    printf("FAIL %s: load: %s\n", stem, r->diag.error);
    return 1;
  }
  cpu_delegate_options co = cpu_delegate_defaults();
  co.reference = true;
  co.threads = 1;
  co.diag = &r->diag;
  gl_delegate_options go = gl_delegate_defaults();
  go.precision = fp16 ? GL_PRECISION_FP16 : GL_PRECISION_FP32;
  go.tuning = tune;
  go.diag = &r->diag;
  r->cpu = cpu_delegate_create(&co);
  r->gl = r->cpu ? gl_delegate_create(&go) : NULL;
  if (!r->gl) {
    printf("FAIL %s: delegates: %s\n", stem, r->diag.error);
    return 1;
  }
  tfl_interp_options o = tfl_interp_defaults();
  o.delegate = r->gl;
  o.fallback = r->cpu;
  o.diag = &r->diag;
  if (tfl_interpreter_create(r->g, &o, &r->it)) {
    printf("FAIL %s: interpreter: %s\n", stem, r->diag.error);
    return 1;
  }
  int on_cpu = 0;
  for (int i = 0; i < r->g->n_nodes; i++) {
    const char *d = tfl_interpreter_node_delegate(r->it, i);
    if (d && strcmp(d, "gl") != 0) {
      tfl_diag why;
      tfl_diag_init(&why);
      gl_delegate_why(r->gl, r->g, i, &why);
      printf("FAIL %s: node %d (%s) on %s: %s\n", stem, i, tfl_op_name(r->g->nodes[i].op), d, why.error);
      on_cpu++;
    }
  }
  if (on_cpu) return 1; /* the passes under test must see the whole graph */
  if (!glm_fill(gc, pictures, stem, r->it, NULL)) return 1;
  if (tfl_interpreter_invoke(r->it)) {
    printf("FAIL %s: invoke: %s\n", stem, r->diag.error);
    return 1;
  }
  gl_delegate_get_stats(r->gl, st);
  return 0;
}

static double raw_at(const tfl_tensor *t, size_t i)
{
  return t->type == TFL_TYPE_INT8 ? ((const int8_t *)t->data)[i] : ((const uint8_t *)t->data)[i];
}

int main(int argc, char **argv)
{
  const char *dir = NULL, *pictures = "tests/data/pictures", *kind = "gauss", *name = NULL;
  bool fp16 = false, no_se = false;
  gl_tuning tune = {0};
  double max_lsb = 1, mean_lsb = 0.1;
  int unfused = -1, n_expect = 0, expect_key[MAX_EXPECT], expect_val[MAX_EXPECT];
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--fp16")) fp16 = true;
    else if (!strcmp(a, "--gl-irb")) tune.irb = true;
    else if (!strcmp(a, "--no-se")) no_se = true;
    else if (v && !strcmp(a, "--dir")) dir = v, i++;
    else if (v && !strcmp(a, "--pictures")) pictures = v, i++;
    else if (v && !strcmp(a, "--case")) kind = v, i++;
    else if (v && !strcmp(a, "--lsb")) max_lsb = atof(v), i++;
    else if (v && !strcmp(a, "--mean-lsb")) mean_lsb = atof(v), i++;
    else if (v && !strcmp(a, "--unfused")) unfused = atoi(v), i++;
    else if (v && !strcmp(a, "--expect") && n_expect < MAX_EXPECT) {
      const char *eq = strchr(v, '=');
      int k = -1;
      for (int s = 0; eq && s < (int)(sizeof stat_names / sizeof *stat_names); s++)
        if (strlen(stat_names[s]) == (size_t)(eq - v) && !strncmp(v, stat_names[s], (size_t)(eq - v))) k = s;
      if (k < 0) {
        fprintf(stderr, "--expect %s: want KEY=N, KEY one of fused inlined se remapped paired dwpw irb\n", v);
        return 2;
      }
      expect_key[n_expect] = k;
      expect_val[n_expect++] = atoi(eq + 1);
      i++;
    } else if (a[0] != '-' && !name) name = a;
    else {
      fprintf(stderr, "unknown or incomplete argument %s\n", a);
      return 2;
    }
  }
  if (!dir || !name) {
    fprintf(stderr, "usage: test_gl_quant_fusion --dir DIR [--pictures DIR] [--case gauss|picture] [--fp16] "
                    "[--gl-irb] [--expect KEY=N]... [--lsb N] [--mean-lsb X] [--unfused N [--no-se]] NAME\n");
    return 2;
  }
  char path[4096], gdir[4096];
  snprintf(path, sizeof path, "%s/models/%s.tflite", dir, name);
  snprintf(gdir, sizeof gdir, "%s/golden", dir);
  golden_case gc;
  if (!glm_read_case(gdir, name, kind, &gc)) return 1; /* a missing model or golden fails */
  const char *prec = fp16 ? "fp16" : "fp32";
  int fail = 0;
  qrun fused = {0}, plain = {0};
  gl_delegate_stats st, st_plain;
  fail = run_gl(path, name, &gc, pictures, fp16, tune, &fused, &st);
  for (int e = 0; !fail && e < n_expect; e++) {
    int got = stat_of(&st, expect_key[e]);
    printf("%s %s: %s %d (expected %d)\n", name, prec, stat_names[expect_key[e]], got, expect_val[e]);
    if (got != expect_val[e]) {
      printf("FAIL %s %s: pass %s took %d, expected %d\n", name, prec, stat_names[expect_key[e]], got, expect_val[e]);
      fail = 1;
    }
  }
  if (!fail && unfused >= 0) {
    gl_tuning t2 = tune;
    if (no_se) t2.no_se = true;
    else t2.no_fuse = true;
    fail = run_gl(path, name, &gc, pictures, fp16, t2, &plain, &st_plain);
    if (!fail)
      printf("%s %s: %d dispatches, %d %s\n", name, prec, st.dispatches, st_plain.dispatches,
             no_se ? "without the squeeze-excite pass" : "unfused");
  }
  int n_out = fail ? 0 : tfl_interpreter_output_count(fused.it);
  if (!fail && n_out != gc.n_outputs) {
    printf("FAIL %s: %d outputs, the golden has %d\n", name, n_out, gc.n_outputs);
    fail = 1, n_out = 0;
  }
  for (int o = 0; o < n_out; o++) {
    const tfl_tensor *t = tfl_interpreter_output(fused.it, o);
    const golden_output *go = &gc.outputs[o];
    if ((t->type != TFL_TYPE_INT8 && t->type != TFL_TYPE_UINT8) || (int)t->type != go->type ||
        tfl_tensor_count(t) != go->count || !go->stride) {
      printf("FAIL %s output %d: %s with %zu values, the golden %s with %zu (8-bit outputs only)\n", name, o,
             tfl_type_name(t->type), tfl_tensor_count(t), golden_type_name(go->type), go->count);
      fail = 1;
      continue;
    }
    /* against LiteRT at the golden's samples */
    double worst = 0, sum = 0, sa = 0, sb = 0, sab = 0, saa = 0, sbb = 0;
    size_t at = 0;
    for (size_t s = 0; s < go->n_samples; s++) {
      double a = raw_at(t, s * go->stride), b = go->samples[s], d = fabs(a - b);
      if (d > worst) worst = d, at = s * go->stride;
      sum += d, sa += a, sb += b, sab += a * b, saa += a * a, sbb += b * b;
    }
    double n = (double)go->n_samples, mean = n > 0 ? sum / n : 0;
    double cov = sab - sa * sb / n, va = saa - sa * sa / n, vb = sbb - sb * sb / n;
    double corr = va > 0 && vb > 0 ? cov / sqrt(va * vb) : 1.0;
    bool ok = worst <= max_lsb && mean <= mean_lsb;
    printf("%s %s: %s output %d (%zu samples) against LiteRT: max %.0f LSB at %zu, mean %.3f LSB, correlation %.4f "
           "(tol max %.0f, mean %.2f)\n",
           ok ? "ok  " : "FAIL", name, prec, o, go->n_samples, worst, at, mean, corr, max_lsb, mean_lsb);
    fail |= !ok;
    if (unfused < 0 || !plain.it) continue;
    /* fused against unfused, every element */
    const tfl_tensor *u = tfl_interpreter_output(plain.it, o);
    double uw = 0;
    size_t uat = 0, cnt = tfl_tensor_count(t);
    for (size_t i = 0; i < cnt; i++) {
      double d = fabs(raw_at(t, i) - raw_at(u, i));
      if (d > uw) uw = d, uat = i;
    }
    ok = uw <= unfused;
    printf("%s %s: %s output %d against the %s plan: max %.0f LSB at %zu (tol %d)\n", ok ? "ok  " : "FAIL", name,
           prec, o, no_se ? "no-squeeze-excite" : "unfused", uw, uat, unfused);
    fail |= !ok;
  }
  qrun_free(&plain);
  qrun_free(&fused);
  golden_free(&gc);
  printf("%s %s: %s\n", name, prec, fail ? "FAIL" : "ok");
  return fail;
}
