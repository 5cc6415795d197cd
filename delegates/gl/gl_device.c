/* gl_device.c - the device's fill and workgroup size, measured (gl_device.h). */
#include "gl_device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gl_gen.h"
#include "gl_program.h"

#define CHAIN 256           /* dependent multiply-adds per invocation */
#define OUT_N 65536         /* floats written (indices wrap) */
#define MAX_N (1 << 22)

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static char *kernel_source(int wg)
{
  gl_str s = {0};
  gl_str_addf(&s,
              "#version 310 es\n"
              "layout(local_size_x = %d) in;\n"
              "precision highp float;\nprecision highp int;\n"
              "layout(std430, binding = 0) buffer Out { float o[]; };\n"
              "void main() {\n"
              "  uint i = gl_GlobalInvocationID.x;\n"
              "  float a = float(i) * 1.0e-6, m = 1.0001;\n"
              "  for (int k = 0; k < %d; k++) a = a * m + 1.0e-3;\n"
              "  o[i %% %uu] = a;\n"
              "}\n",
              wg, CHAIN, (unsigned)OUT_N);
  if (s.oom) gl_str_free(&s);
  return s.p;
}

typedef struct {
  gl_context *c;
  unsigned q[2];
} timer;

/* GPU milliseconds of one dispatch of n invocations (best of 3): timestamps when the
 * driver has them, else glFinish around it (includes the submission). */
static double time_dispatch(timer *t, int n, int wg)
{
  const gl_funcs *f = &t->c->f;
  GLuint groups = (GLuint)((n + wg - 1) / wg);
  /* never over the device's (profile's) workgroup count: 4M invocations of 64 are 65536 */
  if (t->c->max_wg_count[0] > 0 && groups > (GLuint)t->c->max_wg_count[0]) groups = (GLuint)t->c->max_wg_count[0];
  double best = 1e30;
  f->DispatchCompute(groups, 1, 1); /* warm */
  f->Finish();
  for (int r = 0; r < 3; r++) {
    double ms;
    if (t->c->QueryCounter) {
      GLuint64 a = 0, b = 0;
      t->c->QueryCounter(t->q[0], GL_TIMESTAMP_EXT);
      f->DispatchCompute(groups, 1, 1);
      t->c->QueryCounter(t->q[1], GL_TIMESTAMP_EXT);
      t->c->GetQueryObjectui64v(t->q[0], GL_QUERY_RESULT, &a);
      t->c->GetQueryObjectui64v(t->q[1], GL_QUERY_RESULT, &b);
      ms = (double)(b - a) / 1e6;
    } else {
      double t0 = now_ms();
      f->DispatchCompute(groups, 1, 1);
      f->Finish();
      ms = now_ms() - t0;
    }
    if (ms < best) best = ms;
  }
  return best;
}

static tfl_status measure(gl_context *c, gl_device_tuning *out, tfl_diag *diag)
{
  const gl_funcs *f = &c->f;
  int sizes[] = {32, 64, 128, 256};
  unsigned progs[4] = {0, 0, 0, 0};
  GLuint buf = 0;
  timer t = {c, {0, 0}};
  tfl_status st = TFL_OK;
  for (int i = 0; i < 4 && !st; i++) {
    if (sizes[i] > c->max_wg_invocations || (c->lim.wg_size[0] > 0 && sizes[i] > c->lim.wg_size[0])) continue;
    char *src = kernel_source(sizes[i]);
    if (!src) return tfl_fail(diag, TFL_ERR_NOMEM, "GL device measurement");
    st = gl_program_compile(c, src, "the device measurement", &progs[i], diag);
    free(src);
  }
  if (!st) {
    f->GenBuffers(1, &buf);
    f->BindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
    f->BufferData(GL_SHADER_STORAGE_BUFFER, OUT_N * sizeof(float), NULL, GL_DYNAMIC_COPY);
    f->BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buf);
    if (c->QueryCounter) f->GenQueries(2, t.q);
    st = gl_check(c, "the device measurement", diag);
  }
  if (!st) {
    /* fill: the first size whose doubling costs 1.6x: the device is busy from there on */
    f->UseProgram(progs[1]);
    int n = 256, fill = MAX_N;
    double prev = time_dispatch(&t, n, 64);
    for (; n < MAX_N; n *= 2) {
      double next = time_dispatch(&t, 2 * n, 64);
      if (next >= 1.6 * prev) {
        fill = n;
        break;
      }
      prev = next;
    }
    out->fill = fill;
    /* wg: the fastest at four times the fill */
    double best = 1e30;
    out->wg = 64;
    for (int i = 0; i < 4; i++) {
      if (!progs[i]) continue;
      f->UseProgram(progs[i]);
      double ms = time_dispatch(&t, fill * 4 < MAX_N ? fill * 4 : MAX_N, sizes[i]);
      if (ms < best * 0.97) best = ms, out->wg = sizes[i]; /* a larger size must win clearly */
    }
    st = gl_check(c, "the device measurement", diag);
  }
  f->UseProgram(0);
  for (int i = 0; i < 4; i++)
    if (progs[i]) f->DeleteProgram(progs[i]);
  if (buf) f->DeleteBuffers(1, &buf);
  if (t.q[0]) f->DeleteQueries(2, t.q);
  while (f->GetError() != GL_NO_ERROR) {
  }
  return st;
}

static void file_path(char *buf, size_t n, const char *dir, const gl_context *c)
{
  uint64_t h = gl_hash(GL_HASH_INIT, c->renderer, strlen(c->renderer));
  h = gl_hash(h, c->version, strlen(c->version));
  snprintf(buf, n, "%s/tflgl-device-%016llx.txt", dir, (unsigned long long)h);
}

void gl_device_tuning_get(gl_context *c, const char *cache_dir, gl_device_tuning *out, tfl_diag *diag)
{
  char path[4096];
  *out = (gl_device_tuning){GL_DEVICE_DEFAULT_FILL, GL_DEVICE_DEFAULT_WG, 0, c->max_wg_invocations, c->max_shared_bytes};
  if (cache_dir) {
    file_path(path, sizeof path, cache_dir, c);
    FILE *fp = fopen(path, "r");
    int fill = 0, wg = 0;
    bool ok = fp && fscanf(fp, "TFLGLDEV1 %d %d", &fill, &wg) == 2 && fill >= 1 && fill <= MAX_N && wg >= 1 &&
              wg <= c->max_wg_invocations;
    if (fp) fclose(fp);
    if (ok) {
      out->fill = fill;
      out->wg = wg;
      return;
    }
  }
  double t0 = now_ms();
  gl_device_tuning m = *out;
  if (measure(c, &m, diag) != TFL_OK) {
    tfl_logf(diag, TFL_LOG_WARNING, "GL: device measurement failed; fill %d, workgroup %d", out->fill, out->wg);
    return;
  }
  *out = m;
  out->measure_ms = now_ms() - t0;
  tfl_logf(diag, TFL_LOG_INFO, "GL: device fill %d invocations, workgroup %d (measured in %.1f ms)", out->fill, out->wg,
           out->measure_ms);
  if (!cache_dir) return;
  FILE *fp = fopen(path, "w");
  if (!fp || fprintf(fp, "TFLGLDEV1 %d %d\n", out->fill, out->wg) < 0)
    tfl_logf(diag, TFL_LOG_WARNING, "GL: cannot write %s", path);
  if (fp) fclose(fp);
}
