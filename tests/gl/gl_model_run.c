/* gl_model_run.c - see gl_model_run.h. */
#include "gl_model_run.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "delegates/cpu/cpu_delegate.h"
#include "delegates/gl/gl_delegate.h"
#include "runtime/tfl_loader.h"
#include "tests/gl/gl_model_check.h"
#include "tests/gl_profile_env.h"

int glm_open_run(const char *path, tfl_delegate *d, bool append, const tfl_decoder_options *dopt, glm_run *r)
{
  memset(r, 0, sizeof *r);
  tfl_diag_init(&r->diag);
  tfl_interp_options o = tfl_interp_defaults();
  char why[256];
  if (tfl_load_file(path, &r->g, &r->diag) ||
      !(r->cpu = cpu_delegate_create(&(cpu_delegate_options){.threads = 1, .use_xnnpack = true, .diag = &r->diag})))
    goto fail;
  o.delegate = d;
  o.fallback = r->cpu;
  o.diag = &r->diag;
  tfl_decoder_kind k = tfl_decoder_pick(r->g, why, sizeof why);
  const tfl_decoder_options opt = dopt ? *dopt : tfl_decoder_defaults();
  bool appended = false;
  if (append && (tfl_decoder_append_postprocess(k, r->g, &opt, &appended, &r->diag) || !appended)) {
    if (!r->diag.error[0])
      snprintf(r->diag.error, sizeof r->diag.error, "no post-processing op appended (%s)", tfl_decoder_kind_name(k));
    goto fail;
  }
  if (tfl_interpreter_create(r->g, &o, &r->it) || tfl_decoder_create(k, r->g, &opt, &r->dec, &r->diag)) goto fail;
  return 0;
fail:
  printf("FAIL %s%s%s: %s\n", path, d ? " (gl)" : "", append ? " (post-processing appended)" : "", r->diag.error);
  return 1;
}

void glm_close_run(glm_run *r)
{
  tfl_decoder_free(r->dec);
  tfl_interpreter_free(r->it);
  tfl_graph_free(r->g);
  if (r->cpu) r->cpu->destroy(r->cpu);
  memset(r, 0, sizeof *r);
}

void glm_stem(const char *path, char *stem, size_t n)
{
  const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  const char *dot = strstr(name, ".tflite");
  snprintf(stem, n, "%.*s", (int)(dot ? dot - name : (long)strlen(name)), name);
}

tfl_delegate *glm_gl_delegate(bool fp16, tfl_diag *diag, const char *path)
{
  gl_delegate_options o = gl_delegate_defaults();
  o.precision = fp16 ? GL_PRECISION_FP16 : GL_PRECISION_FP32;
  o.profile = gl_profile_from_env();
  tfl_diag_init(diag);
  o.diag = diag;
  tfl_delegate *d = gl_delegate_create(&o);
  if (!d) printf("FAIL %s: %s\n", path, diag->error);
  return d;
}

int glm_check_model_arg(const char *arg, const char *dirs, bool fp16, int (*check)(const char *path, bool fp16))
{
  char buf[4096];
  const char *path = glm_find_model(arg, dirs, buf, sizeof buf);
  if (path) return check(path, fp16);
  printf("FAIL %s: not found in %s (models/fetch.sh, ../shared/models)\n", arg, dirs ? dirs : "(no --models)");
  return 1;
}

int glm_check_models(int argc, char **argv, glm_options *o, int earlier, int (*check)(const char *path, bool fp16))
{
  int fails = earlier, n = 0;
  for (int i = 1; i < argc; i++) {
    if (glm_take_option(argc, argv, &i, o)) continue;
    n++;
    fails += glm_check_model_arg(argv[i], o->models, o->fp16, check);
  }
  printf("%d model(s), %d failure(s)\n", n, fails);
  return fails != 0 || n == 0;
}

glm_options glm_default_options(int argc, char **argv)
{
  glm_options o = {false, NULL, "tests/data/golden", "tests/data/pictures"};
  for (int i = 1; i < argc; i++) o.fp16 = o.fp16 || !strcmp(argv[i], "--fp16");
  return o;
}

bool glm_take_option(int argc, char **argv, int *i, glm_options *o)
{
  const char *a = argv[*i];
  const char **value = !strcmp(a, "--models") ? &o->models : !strcmp(a, "--golden") ? &o->golden
                       : !strcmp(a, "--pictures")                        ? &o->pictures
                                                                         : NULL;
  if (!strcmp(a, "--fp16")) {
    o->fp16 = true;
    return true;
  }
  if (!value || *i + 1 >= argc) return false;
  *value = argv[++*i];
  return true;
}

bool glm_same_box(const tfl_box *a, const tfl_box *b)
{
  if (memcmp(&a->x, &b->x, sizeof(float)) || memcmp(&a->y, &b->y, sizeof(float)) || memcmp(&a->w, &b->w, sizeof(float)) ||
      memcmp(&a->h, &b->h, sizeof(float)) || memcmp(&a->score, &b->score, sizeof(float)) || a->class_id != b->class_id ||
      a->n_keypoints != b->n_keypoints)
    return false;
  for (int k = 0; k < a->n_keypoints; k++)
    if (memcmp(&a->keypoints[k].x, &b->keypoints[k].x, sizeof(float)) ||
        memcmp(&a->keypoints[k].y, &b->keypoints[k].y, sizeof(float)))
      return false;
  return true;
}

double glm_now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void glm_batch_item(const float *reg, const float *sc, size_t nr, size_t ns, int row, bool prob, int b, float *reg_b,
                    float *sc_b)
{
  for (size_t i = 0; i < nr; i++) {
    const bool size = i % (size_t)row == 2 || i % (size_t)row == 3;
    reg_b[i] = b == 0 ? reg[i] : b == 2 ? reg[i] + 2.0f : size ? reg[i] : -reg[i];
  }
  for (size_t i = 0; i < ns; i++) {
    const float v = sc[i];
    sc_b[i] = b == 0 ? v : b == 2 ? (prob ? v + 0.25f * (1.0f - v) : v + 0.75f) : (prob ? 1.0f - v : -v);
  }
}

double glm_worst(double worst, const float *got, const float *want, size_t n, double rel)
{
  for (size_t i = 0; i < n; i++) {
    const double e = fabs((double)got[i] - want[i]) - rel * fabs((double)want[i]);
    worst = !(e <= worst) ? (isnan(e) ? INFINITY : e) : worst;
  }
  return worst;
}
