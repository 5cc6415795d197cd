/* gl_device.c - the device's fill and workgroup size, measured (gl_device.h). */
#include "gl_device.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "gl_gen.h"
#include "gl_program.h"
#include "gl_tune.h"
#include "runtime/tfl_file.h"

#define CHAIN 256           /* dependent multiply-adds per invocation */
#define OUT_N 65536         /* floats written (indices wrap) */
#define MAX_N (1 << 22)
#define REPS 5              /* timings per dispatch size; the least counts (load only adds) */
#define KNEE 1.6            /* a doubling that costs this much more: the device is full */
#define CONFIRM 4           /* extra rounds of timings for a doubling within 15% of KNEE */
#define WG_MARGIN 0.9       /* another workgroup size must beat the default's time by 10% */

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

/* GPU milliseconds of one dispatch of n invocations, the least of REPS: other work on
 * the machine can only make a dispatch slower, so the minimum is the device's own time.
 * Timestamps when the driver has them, else glFinish around it (with the submission). */
static double time_dispatch(timer *t, int n, int wg)
{
  const gl_funcs *f = &t->c->f;
  GLuint groups = (GLuint)((n + wg - 1) / wg);
  /* never over the device's (profile's) workgroup count: 4M invocations of 64 are 65536 */
  if (t->c->max_wg_count[0] > 0 && groups > (GLuint)t->c->max_wg_count[0]) groups = (GLuint)t->c->max_wg_count[0];
  double best = 1e30;
  f->DispatchCompute(groups, 1, 1); /* warm */
  f->Finish();
  for (int r = 0; r < REPS; r++) {
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
    /* fill: the first size whose doubling costs KNEE times more: the device is busy from
     * there on. A doubling near the threshold is timed again (both sizes, in turn), so
     * a burst of other work during one timing does not decide it. */
    f->UseProgram(progs[1]);
    int n = 256, fill = MAX_N;
    double prev = time_dispatch(&t, n, 64);
    for (; n < MAX_N; n *= 2) {
      double next = time_dispatch(&t, 2 * n, 64);
      /* near the threshold: both sizes timed again, in turn, the least of each kept */
      for (int r = 0; r < CONFIRM && next >= KNEE * prev * 0.85 && next <= KNEE * prev * 1.15; r++) {
        double p2 = time_dispatch(&t, n, 64), n2 = time_dispatch(&t, 2 * n, 64);
        prev = p2 < prev ? p2 : prev;
        next = n2 < next ? n2 : next;
      }
      tfl_logf(diag, TFL_LOG_DEBUG, "GL: device timing: %d invocations %.4f ms, %d: %.4f ms", n, prev, 2 * n, next);
      if (next >= KNEE * prev) {
        fill = n;
        break;
      }
      prev = next;
    }
    out->fill = fill;
    /* wg: the default unless another size is clearly faster at four times the fill; the
     * default and the best other are timed in turn twice, the least of each counting */
    int grid = fill * 4 < MAX_N ? fill * 4 : MAX_N, def = -1, alt = -1;
    double ms[4] = {1e30, 1e30, 1e30, 1e30};
    for (int i = 0; i < 4; i++) {
      if (!progs[i]) continue;
      if (sizes[i] == gl_tune_table_get()->default_wg) def = i;
      f->UseProgram(progs[i]);
      ms[i] = time_dispatch(&t, grid, sizes[i]);
    }
    if (def < 0) /* the default is above the driver's limit: the largest size it takes */
      for (int i = 0; i < 4; i++)
        if (progs[i]) def = i;
    for (int i = 0; i < 4; i++)
      if (progs[i] && i != def && (alt < 0 || ms[i] < ms[alt])) alt = i;
    out->wg = def >= 0 ? sizes[def] : gl_tune_table_get()->default_wg;
    for (int r = 0; def >= 0 && alt >= 0 && r < 2; r++) {
      int pair[2] = {def, alt};
      for (int k = 0; k < 2; k++) {
        f->UseProgram(progs[pair[k]]);
        double m = time_dispatch(&t, grid, sizes[pair[k]]);
        if (m < ms[pair[k]]) ms[pair[k]] = m;
      }
    }
    if (def >= 0 && alt >= 0 && ms[alt] < WG_MARGIN * ms[def]) out->wg = sizes[alt];
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

/* "TFLGLDEV1 fill wg" within the device's limits; false otherwise. */
static bool parse(const char *text, const gl_context *c, int *fill, int *wg)
{
  return sscanf(text, "TFLGLDEV1 %d %d", fill, wg) == 2 && *fill >= 1 && *fill <= MAX_N && *wg >= 1 &&
         *wg <= c->max_wg_invocations;
}

/* 1: read into out; 0: nothing has the name; -1: unusable (not a tuning file: replaced
 * after measuring); -2: not a regular file (a FIFO, directory, ...: warned, left alone). */
static int load(const char *path, const gl_context *c, gl_device_tuning *out, tfl_diag *diag)
{
  struct stat lst;
  int lerr = lstat(path, &lst) == 0 ? 0 : errno;
  if (lerr == ENOENT) return 0;
  tfl_diag why;
  tfl_diag_init(&why);
  char *text = NULL;
  size_t len = 0;
  int fill = 0, wg = 0;
  /* tfl_file: a FIFO under the name is refused without waiting for a writer */
  if (tfl_file_read(path, "GL device tuning", 256, &text, &len, &why) != TFL_OK) {
    struct stat st;
    /* a link that leads nowhere is not ours to replace either */
    bool odd = (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) || (!lerr && S_ISLNK(lst.st_mode));
    tfl_logf(diag, TFL_LOG_WARNING, "%s; measuring the device%s", why.error, odd ? ", the name left alone" : "");
    return odd ? -2 : -1;
  }
  bool ok = parse(text, c, &fill, &wg);
  free(text);
  if (!ok) {
    tfl_logf(diag, TFL_LOG_WARNING, "GL device tuning %s: not a tuning file for this device; measuring it again", path);
    return -1;
  }
  out->fill = fill;
  out->wg = wg;
  return 1;
}

/* Writes the measured tuning. The first writer wins (tfl_file_publish): processes
 * starting together on an empty cache directory all end with the tuning of the first
 * one to finish, and so build (and cache) the same programs. */
static void save(const char *path, int state, const gl_context *c, gl_device_tuning *out, tfl_diag *diag)
{
  char line[64];
  int n = snprintf(line, sizeof line, "TFLGLDEV1 %d %d\n", out->fill, out->wg);
  tfl_diag why;
  tfl_diag_init(&why);
  bool won = false;
  tfl_status st = state == 0 ? tfl_file_publish(path, "GL device tuning", line, (size_t)n, &won, &why)
                             : tfl_file_replace(path, "GL device tuning", line, (size_t)n, &why);
  if (st) {
    tfl_logf(diag, TFL_LOG_WARNING, "%s", why.error);
    return;
  }
  if (state != 0 || won) return;
  gl_device_tuning theirs = *out;
  if (load(path, c, &theirs, diag) == 1) {
    tfl_logf(diag, TFL_LOG_INFO, "GL: %s was published first (fill %d, workgroup %d); using it", path, theirs.fill,
             theirs.wg);
    out->fill = theirs.fill;
    out->wg = theirs.wg;
  }
}

void gl_device_tuning_get(gl_context *c, const char *cache_dir, gl_device_tuning *out, tfl_diag *diag)
{
  char path[4096];
  const gl_tune_table *tt = gl_tune_table_get(); /* the defaults without a measurement */
  *out = (gl_device_tuning){(int)tt->default_fill, tt->default_wg, 0, c->max_wg_invocations, c->max_shared_bytes};
  int state = -2;
  if (cache_dir) {
    file_path(path, sizeof path, cache_dir, c);
    state = load(path, c, out, diag);
    if (state == 1) return;
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
  if (state != -2) save(path, state, c, out, diag);
}
