/* test_gl_api.c - the GL delegate's behaviour around the ops: errors (no context,
 * shader compile failure, out of memory), the own context's EGL platforms (each forced),
 * the program cache (miss, hit, corrupt and
 * foreign files), the caller's-context mode, and its device tensors: the texture input
 * against the CPU preprocessing of the same pixels (preprocess/preprocess.c) and against
 * an independent affine sampler (rotated crops, batch slots), and the mask export
 * against an argmax / sigmoid computed here. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <EGL/egl.h>

#include "delegates/gl/gl_context.h"
#include "delegates/gl/gl_program.h"
#include "gl_test_util.h"
#include "preprocess/preprocess.h"

#define CHECK_PRINTS_OK /* the log lists the passing checks too (renderers, platforms seen) */
#include "tests/check.h"

static void test_no_context(void)
{
  gl_delegate_options o = gl_delegate_defaults();
  o.use_current_context = true;
  tfl_diag diag;
  tfl_diag_init(&diag);
  o.diag = &diag;
  tfl_delegate *d = gl_delegate_create(&o);
  CHECK(!d && strstr(diag.error, "no EGL context is current"), "no current context: \"%s\"", diag.error);
  if (d) d->destroy(d);
}

/* One dispatch on c: out[i] = i * i + 7 over 64 invocations, read back and compared with
 * the same formula here (the context really computes, not only exists). */
static bool computes(gl_context *c, const char *name)
{
  static const char *src = "#version 310 es\nlayout(local_size_x = 64) in;\n"
                           "layout(std430, binding = 0) buffer O { uint v[]; } o;\n"
                           "void main() { uint i = gl_GlobalInvocationID.x; o.v[i] = i * i + 7u; }\n";
  tfl_diag diag;
  tfl_diag_init(&diag);
  unsigned prog = 0;
  if (gl_program_compile(c, src, name, &prog, &diag) != TFL_OK) {
    printf("     %s: %s\n", name, diag.error);
    return false;
  }
  GLuint buf = 0;
  c->f.GenBuffers(1, &buf);
  c->f.BindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
  c->f.BufferData(GL_SHADER_STORAGE_BUFFER, 64 * sizeof(GLuint), NULL, GL_DYNAMIC_READ);
  c->f.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buf);
  c->f.UseProgram(prog);
  c->f.DispatchCompute(1, 1, 1);
  c->f.MemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  const GLuint *v = c->f.MapBufferRange(GL_SHADER_STORAGE_BUFFER, 0, 64 * sizeof(GLuint), GL_MAP_READ_BIT);
  int bad = v ? 0 : 64;
  for (GLuint i = 0; v && i < 64; i++) bad += v[i] != i * i + 7u;
  if (v) c->f.UnmapBuffer(GL_SHADER_STORAGE_BUFFER);
  c->f.DeleteBuffers(1, &buf);
  c->f.DeleteProgram(prog);
  return bad == 0 && gl_check(c, name, &diag) == TFL_OK;
}

static bool any_render_node(void)
{
  char path[32];
  struct stat st;
  for (int minor = 128; minor <= 191; minor++) {
    snprintf(path, sizeof path, "/dev/dri/renderD%d", minor);
    if (stat(path, &st) == 0) return true;
  }
  return false;
}

/* Each EGL platform of the own context forced in turn (gl_egl_platform.h): device and
 * surfaceless work on Mesa; GBM needs a render node, and without one must fail naming
 * it; "none" must fail naming itself; auto takes the first that works. */
static void test_egl_platforms(void)
{
  bool node = any_render_node();
  for (int p = GL_EGL_AUTO; p <= GL_EGL_NONE; p++) {
    const char *name = gl_egl_platform_name((gl_egl_platform)p);
    bool must_work = p == GL_EGL_AUTO || p == GL_EGL_DEVICE || p == GL_EGL_SURFACELESS || (p == GL_EGL_GBM && node);
    tfl_diag diag;
    tfl_diag_init(&diag);
    gl_context *c = NULL;
    tfl_status st = gl_context_create(false, (gl_egl_platform)p, &c, &diag);
    if (must_work) {
      bool ok = st == TFL_OK && (p == GL_EGL_AUTO ? c->platform != GL_EGL_AUTO : c->platform == (gl_egl_platform)p);
      CHECK(ok && computes(c, name), "EGL platform %s: own context on %s (%s) computes%s%s", name,
            c ? gl_egl_platform_name(c->platform) : "-", c ? c->renderer : "-", st ? ": " : "", st ? diag.error : "");
    } else if (p == GL_EGL_GBM) {
      CHECK(st != TFL_OK && strstr(diag.error, "no DRM render node") && strstr(diag.error, "/dev/dri/renderD128"),
            "EGL platform gbm without a render node fails naming it: \"%s\" (the GBM success path needs one: not run here)",
            diag.error);
    } else {
      CHECK(st != TFL_OK && strstr(diag.error, "\"none\""), "EGL platform none makes no context: \"%s\"", diag.error);
    }
    gl_context_free(c);
  }
  gl_egl_platform parsed = GL_EGL_AUTO;
  CHECK(gl_egl_platform_parse("surfaceless", &parsed) && parsed == GL_EGL_SURFACELESS &&
            !gl_egl_platform_parse("wayland", &parsed) && parsed == GL_EGL_SURFACELESS,
        "TFL_GL_EGL_PLATFORM spellings: surfaceless parsed, wayland refused");
}

static void test_compile_error(gl_context *c)
{
  unsigned prog = 0;
  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_status s = gl_program_compile(c, "#version 310 es\nlayout(local_size_x = 1) in;\nvoid main() { undefined_thing = 1; }\n",
                                    "node 3 (TEST)", &prog, &diag);
  CHECK(s == TFL_ERR_BACKEND && strstr(diag.error, "node 3 (TEST)") && strstr(diag.error, "undefined_thing"),
        "compile failure: \"%s\"", diag.error);
}

static void test_out_of_memory(gl_context *c)
{
  unsigned buf;
  c->f.GenBuffers(1, &buf);
  c->f.BindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
  c->f.BufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)1 << 46, NULL, GL_DYNAMIC_COPY);
  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_status s = gl_check(c, "allocating 64 TiB", &diag);
  CHECK(s == TFL_ERR_NOMEM || s == TFL_ERR_BACKEND, "huge buffer: %s \"%s\"", tfl_status_name(s), diag.error);
  c->f.DeleteBuffers(1, &buf);
}

/* A small conv graph; `k` changes the filter size (and so the programs). */
static void conv_graph(op_runner *r, int k)
{
  unsigned seed = 99;
  float v[4 * 5 * 5 * 3];
  op_runner_init(r, TFL_OP_CONV_2D);
  glt_fill(v, 1 * 6 * 6 * 3, -1, 1, &seed);
  int x = op_runner_tensor(r, TFL_TYPE_FLOAT32, 4, (int32_t[]){1, 6, 6, 3}, v, false);
  glt_fill(v, (size_t)4 * k * k * 3, -1, 1, &seed);
  int w = op_runner_tensor(r, TFL_TYPE_FLOAT32, 4, (int32_t[]){4, k, k, 3}, v, true);
  glt_fill(v, 4, -1, 1, &seed);
  int b = op_runner_tensor(r, TFL_TYPE_FLOAT32, 1, (int32_t[]){4}, v, true);
  int y = op_runner_tensor(r, TFL_TYPE_FLOAT32, 4, (int32_t[]){1, 6, 6, 4}, NULL, false);
  op_runner_io(r, (int[]){x, w, b}, 3, (int[]){y}, 1);
  r->node.p.conv = (tfl_conv_params){TFL_PAD_SAME, 1, 1, 1, 1, 0, TFL_ACT_NONE};
}

/* Warnings of one delegate, kept to check what they name. */
typedef struct {
  char text[2048];
} warnings;

static void keep_warning(tfl_log_level level, const char *msg, void *user)
{
  warnings *w = user;
  if (level != TFL_LOG_WARNING) return;
  size_t n = strlen(w->text);
  snprintf(w->text + n, sizeof w->text - n, "%s\n", msg);
}

static int cache_run_warn(const char *dir, int k, const char *what, int want, warnings *w)
{
  gl_delegate_options o = gl_delegate_defaults();
  o.cache_dir = dir;
  o.precision = GL_PRECISION_FP32;
  tfl_diag diag;
  tfl_diag_init(&diag);
  if (w) {
    diag.sink = keep_warning;
    diag.user = w;
    o.diag = &diag;
  }
  tfl_delegate *d = gl_delegate_create(&o);
  op_runner r;
  conv_graph(&r, k);
  if (w) { /* the partition's warnings (the cache's among them) */
    r.diag.sink = keep_warning;
    r.diag.user = w;
  }
  char name[96];
  snprintf(name, sizeof name, "cache %s", what);
  int bad = glt_compare(name, &r, d, 1e-4f);
  gl_delegate_stats st;
  gl_delegate_get_stats(d, &st);
  static const char *names[] = {"off", "miss", "hit", "corrupt"};
  /* want -1: a miss or a hit (writers racing: whoever finishes first saves) */
  bool ok = want < 0 ? st.cache == 1 || st.cache == 2 : st.cache == want;
  CHECK(!bad && ok, "cache %s: %s (want %s), programs in %.1f ms", what, names[st.cache],
        want < 0 ? "miss or hit" : names[want],
        st.compile_ms);
  op_runner_free(&r);
  d->destroy(d);
  return st.cache;
}

static int cache_run(const char *dir, int k, const char *what, int want)
{
  return cache_run_warn(dir, k, what, want, NULL);
}

/* Several delegates building the same programs at once, each saving the cache file. */
typedef struct {
  const char *dir;
  int cache;
} writer;

static void *write_cache(void *arg)
{
  writer *wr = arg;
  wr->cache = cache_run(wr->dir, 4, "concurrent writer", -1);
  return NULL;
}

/* The single cache file in dir (there is one per model/options/driver/program set). */
static int cache_file(const char *dir, char *path, size_t n)
{
  DIR *dp = opendir(dir);
  int count = 0;
  struct dirent *e;
  while (dp && (e = readdir(dp)))
    if (strncmp(e->d_name, "tflgl-", 6) == 0 && strncmp(e->d_name, "tflgl-device-", 13) != 0) { /* not gl_device.h's */
      snprintf(path, n, "%s/%s", dir, e->d_name);
      count++;
    }
  if (dp) closedir(dp);
  return count;
}

static void test_cache(void)
{
  char dir[] = "/tmp/tflgl-cache-XXXXXX";
  if (!mkdtemp(dir)) {
    CHECK(0, "mkdtemp");
    return;
  }
  char path[512];
  cache_run(dir, 3, "first run", 1);
  CHECK(cache_file(dir, path, sizeof path) == 1, "one cache file written");
  cache_run(dir, 3, "second run", 2);
  /* corrupt: flip bytes in the middle of the binary */
  FILE *f = fopen(path, "r+b");
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 24, SEEK_SET);
  for (long i = 24; i < size; i++) fputc(0x5a, f);
  fclose(f);
  cache_run(dir, 3, "corrupt file", 3);
  cache_run(dir, 3, "rewritten after corruption", 2);
  /* foreign: a valid header with another key under this file's name */
  f = fopen(path, "r+b");
  fseek(f, 8, SEEK_SET);
  fputc(0x77, f);
  fclose(f);
  cache_run(dir, 3, "foreign file", 3);
  /* a changed model misses cleanly (a second file) */
  cache_run(dir, 5, "changed model", 1);
  CHECK(cache_file(dir, path, sizeof path) == 2, "a second cache file for the changed model");

  /* a FIFO under the cache file's name: opening it for reading would wait for a writer
   * forever; it is named in a warning, neither read nor replaced */
  char dir2[] = "/tmp/tflgl-cache-XXXXXX";
  CHECK(mkdtemp(dir2) != NULL, "mkdtemp");
  cache_run(dir2, 3, "first run in a second directory", 1);
  char fifo[512];
  CHECK(cache_file(dir2, fifo, sizeof fifo) == 1, "one cache file written");
  unlink(fifo);
  CHECK(mkfifo(fifo, 0600) == 0, "mkfifo %s", fifo);
  warnings w = {""};
  cache_run_warn(dir2, 3, "FIFO as the cache file", 3, &w);
  struct stat sb;
  CHECK(stat(fifo, &sb) == 0 && S_ISFIFO(sb.st_mode), "the FIFO is left alone");
  CHECK(strstr(w.text, fifo) && strstr(w.text, "FIFO"), "the warning names the FIFO: %s", w.text);
  CHECK(cache_file(dir2, path, sizeof path) == 1, "no temporary file left beside the FIFO");
  unlink(fifo);
  rmdir(dir2);

  /* concurrent writers: each writes a unique temporary file and renames it; the file
   * left is whole (a hit), and no temporary file remains */
  pthread_t th[4];
  writer wr[4];
  for (int i = 0; i < 4; i++) {
    wr[i] = (writer){dir, 0};
    pthread_create(&th[i], NULL, write_cache, &wr[i]);
  }
  for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
  int files = cache_file(dir, path, sizeof path);
  cache_run(dir, 4, "after concurrent writers", 2);
  CHECK(cache_file(dir, path, sizeof path) == files && files <= 3, "%d cache files, no temporary ones left", files);
  DIR *dp = opendir(dir);
  struct dirent *e;
  while (dp && (e = readdir(dp))) {
    if (e->d_name[0] == '.') continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    unlink(path);
  }
  if (dp) closedir(dp);
  rmdir(dir);
}

/* ---- the device tuning file (gl_device.c) ---------------------------------------
 * Each case runs this program again as a child (`--tuning DIR LOAD`): a delegate of its
 * own on DIR, one conv graph, its tuning and warnings printed. A child that does not end
 * within CHILD_S seconds is killed and fails the case (an open that waits on a FIFO). */
#define CHILD_S 120

static volatile int spin_stop; /* the child's load threads: spin until main is done */

static void *spin(void *arg)
{
  volatile double x = 1.0;
  while (!spin_stop) x = x * 1.0000001 + 1e-9;
  (void)arg;
  return NULL;
}

static void print_warning(tfl_log_level level, const char *msg, void *user)
{
  (void)user;
  if (level <= TFL_LOG_WARNING) printf("warning: %s\n", msg);
  else if (getenv("TFLGL_TEST_DEBUG")) printf("debug: %s\n", msg);
}

static int tuning_child(const char *dir, int load)
{
  pthread_t th[8];
  for (int i = 0; i < load && i < 8; i++) pthread_create(&th[i], NULL, spin, NULL);
  gl_delegate_options o = gl_delegate_defaults();
  o.cache_dir = dir;
  o.precision = GL_PRECISION_FP32;
  tfl_diag diag;
  tfl_diag_init(&diag);
  diag.sink = print_warning;
  o.diag = &diag;
  tfl_delegate *d = gl_delegate_create(&o);
  if (!d) {
    printf("no delegate: %s\n", diag.error);
    return 1;
  }
  op_runner r;
  conv_graph(&r, 3);
  r.diag.sink = print_warning;
  int bad = glt_compare("tuning child", &r, d, 1e-4f);
  gl_delegate_stats st;
  gl_delegate_get_stats(d, &st);
  printf("TUNING %d %d %.1f %d\n", st.device_fill, st.device_wg, st.device_ms, st.cache);
  op_runner_free(&r);
  d->destroy(d);
  spin_stop = 1;
  for (int i = 0; i < load && i < 8; i++) pthread_join(th[i], NULL);
  return bad != 0;
}

typedef struct {
  pid_t pid;
  char out[512];
} child;

static bool child_start(child *ch, const char *dir, int load, int k)
{
  snprintf(ch->out, sizeof ch->out, "%s.child%d.txt", dir, k);
  char loads[16];
  snprintf(loads, sizeof loads, "%d", load);
  fflush(stdout); /* or the child's freopen writes this process's pending output again */
  ch->pid = fork();
  if (ch->pid == 0) {
    if (!freopen(ch->out, "w", stdout)) _exit(3);
    execl("/proc/self/exe", "test_gl_api", "--tuning", dir, loads, (char *)NULL);
    _exit(3);
  }
  return ch->pid > 0;
}

/* Waits up to CHILD_S for the child (killed after); its output in text, its tuning in
 * fill/wg/ms. False when it hung, failed or printed no tuning. */
static bool child_wait(child *ch, char *text, size_t n, int *fill, int *wg, double *ms, double *secs)
{
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int status = 0;
  bool done = false;
  for (;;) {
    if (waitpid(ch->pid, &status, WNOHANG) == ch->pid) {
      done = true;
      break;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (t1.tv_sec - t0.tv_sec > CHILD_S) break;
    usleep(20000);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  *secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
  if (!done) {
    kill(ch->pid, SIGKILL);
    waitpid(ch->pid, &status, 0);
  }
  text[0] = '\0';
  FILE *f = fopen(ch->out, "r");
  size_t got = f ? fread(text, 1, n - 1, f) : 0;
  text[got] = '\0';
  if (f) fclose(f);
  unlink(ch->out);
  const char *t = strstr(text, "TUNING ");
  int cache = 0;
  bool ok = done && WIFEXITED(status) && WEXITSTATUS(status) == 0 && t &&
            sscanf(t, "TUNING %d %d %lf %d", fill, wg, ms, &cache) == 4;
  return ok;
}

/* The one tflgl-device-*.txt in dir (path), or 0 files. */
static int device_file(const char *dir, char *path, size_t n)
{
  DIR *dp = opendir(dir);
  int count = 0;
  struct dirent *e;
  while (dp && (e = readdir(dp)))
    if (strncmp(e->d_name, "tflgl-device-", 13) == 0) {
      snprintf(path, n, "%s/%s", dir, e->d_name);
      count++;
    }
  if (dp) closedir(dp);
  return count;
}

/* Program cache files (tflgl-<key>.bin) in dir. */
static int program_files(const char *dir)
{
  char path[512];
  return cache_file(dir, path, sizeof path);
}

static void rm_dir(const char *dir)
{
  DIR *dp = opendir(dir);
  struct dirent *e;
  char path[1024];
  while (dp && (e = readdir(dp))) {
    if (e->d_name[0] == '.') continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    unlink(path);
  }
  if (dp) closedir(dp);
  rmdir(dir);
}

static void test_device_tuning(void)
{
  char text[8192], name[512];
  int fill = 0, wg = 0;
  double ms = 0, secs = 0;
  child ch;

  /* the file's name for this driver, from a cold run */
  char cold[] = "/tmp/tflgl-tuning-XXXXXX";
  CHECK(mkdtemp(cold) != NULL, "mkdtemp");
  bool ok = child_start(&ch, cold, 0, 0) && child_wait(&ch, text, sizeof text, &fill, &wg, &ms, &secs);
  CHECK(ok && ms > 0 && device_file(cold, name, sizeof name) == 1, "cold run: measured fill %d, wg %d in %.0f ms (%.1f s)",
        fill, wg, ms, secs);
  const char *base = strrchr(name, '/');
  base = base ? base + 1 : "tflgl-device-unknown.txt";

  /* a published file (values no measurement here gives) is used as it is, not measured
   * again nor rewritten */
  char pub_dir[] = "/tmp/tflgl-tuning-XXXXXX", pub[1024];
  CHECK(mkdtemp(pub_dir) != NULL, "mkdtemp");
  snprintf(pub, sizeof pub, "%s/%s", pub_dir, base);
  FILE *pf = fopen(pub, "w");
  if (pf) fputs("TFLGLDEV1 3000 96\n", pf);
  if (pf) fclose(pf);
  ok = child_start(&ch, pub_dir, 0, 0) && child_wait(&ch, text, sizeof text, &fill, &wg, &ms, &secs);
  char line[64] = "";
  pf = fopen(pub, "r");
  if (pf && !fgets(line, sizeof line, pf)) line[0] = '\0';
  if (pf) fclose(pf);
  CHECK(ok && fill == 3000 && wg == 96 && ms == 0 && !strcmp(line, "TFLGLDEV1 3000 96\n"),
        "a published tuning is used (fill %d, wg %d, measured in %.0f ms), the file unchanged", fill, wg, ms);
  rm_dir(pub_dir);

  /* a FIFO at the file's name: no hang; a warning names it; measured instead; left alone */
  char fifo_dir[] = "/tmp/tflgl-tuning-XXXXXX", path[1024];
  CHECK(mkdtemp(fifo_dir) != NULL, "mkdtemp");
  snprintf(path, sizeof path, "%s/%s", fifo_dir, base);
  CHECK(mkfifo(path, 0600) == 0, "mkfifo %s", path);
  ok = child_start(&ch, fifo_dir, 0, 0) && child_wait(&ch, text, sizeof text, &fill, &wg, &ms, &secs);
  struct stat sb;
  CHECK(ok && ms > 0, "FIFO as the tuning file: the run ends in %.1f s (limit %d), measured (fill %d, wg %d)", secs,
        CHILD_S, fill, wg);
  CHECK(strstr(text, path) && strstr(text, "FIFO"), "the warning names the FIFO: %.300s", text);
  CHECK(stat(path, &sb) == 0 && S_ISFIFO(sb.st_mode), "the FIFO is left alone");
  rm_dir(fifo_dir);

  /* a link at the file's name (to a file that is no tuning): never written through */
  char link_dir[] = "/tmp/tflgl-tuning-XXXXXX", victim[1100];
  CHECK(mkdtemp(link_dir) != NULL, "mkdtemp");
  snprintf(path, sizeof path, "%s/%s", link_dir, base);
  snprintf(victim, sizeof victim, "%s.victim", link_dir);
  FILE *f = fopen(victim, "w");
  if (f) fputs("precious\n", f);
  if (f) fclose(f);
  CHECK(symlink(victim, path) == 0, "symlink %s", path);
  ok = child_start(&ch, link_dir, 0, 0) && child_wait(&ch, text, sizeof text, &fill, &wg, &ms, &secs);
  char back[64] = "";
  f = fopen(victim, "r");
  if (f && !fgets(back, sizeof back, f)) back[0] = '\0';
  if (f) fclose(f);
  CHECK(ok && !strcmp(back, "precious\n"), "link as the tuning file: its target unchanged (%.8s)", back);
  CHECK(lstat(path, &sb) == 0 && S_ISREG(sb.st_mode), "the link replaced by a tuning file of the cache dir's own");
  unlink(victim);
  rm_dir(link_dir);

  /* two processes on a cold cache dir, one under load (2 spinning threads): one tuning
   * file, both use it, and both build (and cache) the same programs */
  char race[] = "/tmp/tflgl-tuning-XXXXXX";
  CHECK(mkdtemp(race) != NULL, "mkdtemp");
  child a, b;
  char ta[8192], tb[8192];
  int fa = 0, wa = 0, fb = 0, wb = 0;
  double ma = 0, mb = 0, sa = 0, sbs = 0;
  bool oka = child_start(&a, race, 2, 1), okb = child_start(&b, race, 0, 2);
  oka = oka && child_wait(&a, ta, sizeof ta, &fa, &wa, &ma, &sa);
  okb = okb && child_wait(&b, tb, sizeof tb, &fb, &wb, &mb, &sbs);
  int ff = 0, fw = 0;
  f = device_file(race, name, sizeof name) == 1 ? fopen(name, "r") : NULL;
  bool parsed = f && fscanf(f, "TFLGLDEV1 %d %d", &ff, &fw) == 2;
  if (f) fclose(f);
  CHECK(oka && okb && parsed && fa == ff && wa == fw && fb == ff && wb == fw,
        "two processes (one loaded, measured in %.0f ms; one not, %.0f ms): file %d/%d, loaded used %d/%d, other %d/%d",
        ma, mb, ff, fw, fa, wa, fb, wb);
  CHECK(program_files(race) == 1, "one program cache file for both (%d)", program_files(race));
  rm_dir(race);
  rm_dir(cold);
}

/* ADD(x, 0) with x fed by the texture: the output is the input tensor the shader made. */
static void test_texture(gl_context *c, tfl_type type, fit_mode fit)
{
  const int TW = 37, TH = 23, IW = 16, IH = 12;
  uint8_t *px = malloc((size_t)TW * TH * 4);
  for (int i = 0; i < TW * TH * 4; i++) px[i] = (uint8_t)((i * 37 + (i / 4) * 11) & 0xff);
  unsigned tex;
  c->f.GenTextures(1, &tex);
  c->f.BindTexture(GL_TEXTURE_2D, tex);
  c->f.TexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, TW, TH);
  c->f.TexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, TW, TH, GL_RGBA, GL_UNSIGNED_BYTE, px);
  c->f.TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);

  gl_delegate_options o = gl_delegate_defaults();
  o.use_current_context = true; /* the caller's context: ours, current on this thread */
  o.texture_input = true;
  o.precision = GL_PRECISION_FP32;
  tfl_diag diag; /* the delegate's errors; the partition's go to r.diag */
  tfl_diag_init(&diag);
  o.diag = &diag;
  tfl_delegate *d = gl_delegate_create(&o);
  op_runner r;
  int32_t gin[1];
  int y;
  int x = glt_texture_add_graph(&r, type, IH, IW, gin, &y);

  tfl_transform tr = preprocess_transform(TW, TH, IW, IH, fit);
  pix_norm norm = {{127.5f, 120.0f, 100.0f}, {127.5f, 60.0f, 50.0f}};
  tfl_image_desc ti = {.handle = tex, .width = TW, .height = TH,
                       .affine = {tr.scale_x, 0, tr.off_x, 0, tr.scale_y, tr.off_y}};
  for (int ch = 0; ch < 3; ch++) {
    ti.mean[ch] = norm.mean[ch];
    ti.std[ch] = norm.std[ch];
  }
  tfl_status s = glt_run_gl_ext(&r, d, x, &ti, 1, NULL);
  tfl_tensor want = r.tensors[x];
  want.data = calloc(1, want.bytes);
  pix_frame f = {PIX_RGBA, TW, TH, {px, NULL, NULL}, {TW * 4, 0, 0}};
  preprocess_frame(&f, &tr, &norm, &want);
  double worst = 0;
  size_t n = tfl_tensor_count(&want);
  for (size_t i = 0; i < n; i++) {
    double e = type == TFL_TYPE_FLOAT32 ? (double)((float *)want.data)[i] - ((float *)r.tensors[y].data)[i]
                                        : (double)((uint8_t *)want.data)[i] - ((uint8_t *)r.tensors[y].data)[i];
    if (e < 0) e = -e;
    if (e > worst) worst = e;
  }
  double tol = type == TFL_TYPE_FLOAT32 ? 1e-4 : 1.0; /* uint8: rounding of a bilinear mix may differ by 1 */
  CHECK(s == TFL_OK && worst <= tol, "texture %dx%d -> %s [1,%d,%d,3] %s: max difference from CPU preprocessing %.3g%s%s",
        TW, TH, tfl_type_name(type), IH, IW, fit == FIT_LETTERBOX ? "letterbox" : fit == FIT_CROP ? "crop" : "stretch",
        worst, s ? ": " : "", s ? (diag.error[0] ? diag.error : r.diag.error) : "");
  free(want.data);
  op_runner_free(&r);
  d->destroy(d);
  c->f.DeleteTextures(1, &tex);
  free(px);
}

/* ---- rotated crops into batch slots ---- */

/* Texel (x, y) of the RGBA test texture, 0..255, clamped to the edge. */
static float texel(const uint8_t *px, int w, int h, int x, int y, int ch)
{
  x = x < 0 ? 0 : x >= w ? w - 1 : x;
  y = y < 0 ? 0 : y >= h ? h - 1 : y;
  return px[((size_t)y * w + x) * 4 + ch];
}

/* tfl_image_desc's documented sampling, written out independently of the shader and of
 * preprocess.c: point (fx, fy), half-pixel centres, bilinear, 0 outside. */
static float sample(const uint8_t *px, int w, int h, float fx, float fy, int ch)
{
  if (fx < 0 || fy < 0 || fx >= w || fy >= h) return 0.0f;
  float sx = fx - 0.5f, sy = fy - 0.5f;
  if (sx < 0) sx = 0;
  if (sy < 0) sy = 0;
  if (sx > w - 1) sx = (float)(w - 1);
  if (sy > h - 1) sy = (float)(h - 1);
  int x0 = (int)sx, y0 = (int)sy;
  float ax = sx - (float)x0, ay = sy - (float)y0;
  return (1 - ay) * ((1 - ax) * texel(px, w, h, x0, y0, ch) + ax * texel(px, w, h, x0 + 1, y0, ch)) +
         ay * ((1 - ax) * texel(px, w, h, x0, y0 + 1, ch) + ax * texel(px, w, h, x0 + 1, y0 + 1, ch));
}

static unsigned make_texture(gl_context *c, const uint8_t *px, int w, int h)
{
  unsigned tex;
  c->f.GenTextures(1, &tex);
  c->f.BindTexture(GL_TEXTURE_2D, tex);
  c->f.TexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, w, h);
  c->f.TexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px);
  c->f.TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  return tex;
}

/* Two textures into the two slots of a [2,IH,IW,3] input: slot 0 a rotated, scaled crop
 * (as a region transform makes), slot 1 a plain stretch. */
static void test_texture_slots(gl_context *c)
{
  const int TW = 41, TH = 29, IW = 12, IH = 10;
  uint8_t *pa = malloc((size_t)TW * TH * 4), *pb = malloc((size_t)TW * TH * 4);
  for (int i = 0; i < TW * TH * 4; i++) {
    pa[i] = (uint8_t)((i * 53 + (i / 4) * 7) & 0xff);
    pb[i] = (uint8_t)((i * 29 + (i / 4) * 13 + 5) & 0xff);
  }
  unsigned ta = make_texture(c, pa, TW, TH), tb = make_texture(c, pb, TW, TH);
  gl_delegate_options o = gl_delegate_defaults();
  o.use_current_context = true;
  o.precision = GL_PRECISION_FP32;
  tfl_diag diag;
  tfl_diag_init(&diag);
  o.diag = &diag;
  tfl_delegate *d = gl_delegate_create(&o);
  op_runner r;
  op_runner_init(&r, TFL_OP_ADD);
  int x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){2, IH, IW, 3}, NULL, false);
  int z = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){1}, NULL, true);
  int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){2, IH, IW, 3}, NULL, false);
  op_runner_io(&r, (int[]){x, z}, 2, (int[]){y}, 1);
  int32_t gin[1] = {x};
  r.graph.inputs = gin;
  r.graph.n_inputs = 1;
  /* slot 0: 35 degrees about the texture centre, 2.1 texture pixels per input pixel */
  float a = 35.0f * 3.14159265f / 180.0f, sc = 2.1f, cx = TW / 2.0f, cy = TH / 2.0f;
  float m[6] = {sc * cosf(a), -sc * sinf(a), 0, sc * sinf(a), sc * cosf(a), 0};
  m[2] = cx - (m[0] * IW / 2.0f + m[1] * IH / 2.0f);
  m[5] = cy - (m[3] * IW / 2.0f + m[4] * IH / 2.0f);
  tfl_image_desc b[2] = {
    {0, ta, TW, TH, {m[0], m[1], m[2], m[3], m[4], m[5]}, {10, 20, 30}, {2, 3, 4}, 0, TFL_IMAGE_RGBA, {0}, {0}, false},
    {1, tb, TW, TH, {(float)TW / IW, 0, 0, 0, (float)TH / IH, 0}, {0, 0, 0}, {255, 255, 255}, 0, TFL_IMAGE_RGBA, {0}, {0},
     false},
  };
  tfl_status s = glt_run_gl_ext(&r, d, x, b, 2, NULL);
  double worst = 0;
  const float *got = r.tensors[y].data;
  for (int k = 0; k < 2 && !s; k++)
    for (int v = 0; v < IH; v++)
      for (int u = 0; u < IW; u++)
        for (int ch = 0; ch < 3; ch++) {
          const tfl_image_desc *e = &b[k];
          float fu = u + 0.5f, fv = v + 0.5f;
          float fx = e->affine[0] * fu + e->affine[1] * fv + e->affine[2];
          float fy = e->affine[3] * fu + e->affine[4] * fv + e->affine[5];
          float want = (sample(k ? pb : pa, TW, TH, fx, fy, ch) - e->mean[ch]) / e->std[ch];
          double err = fabs((double)want - got[(((size_t)k * IH + v) * IW + u) * 3 + ch]);
          if (err > worst) worst = err;
        }
  CHECK(s == TFL_OK && worst <= 1e-3, "two textures into slots of [2,%d,%d,3], slot 0 rotated 35 deg and scaled: max "
        "difference from an independent sampler %.3g%s%s", IH, IW, worst, s ? ": " : "", s ? r.diag.error : "");
  op_runner_free(&r);
  d->destroy(d);
  c->f.DeleteTextures(1, &ta);
  c->f.DeleteTextures(1, &tb);
  free(pa);
  free(pb);
}

/* ---- the mask export ---- */

typedef struct {
  gl_context *c;
  int out_tensor, w, h, slot;
  bool logits;
  uint8_t *bytes; /* read back from the texture */
  uint8_t *host;  /* exported into a host buffer */
  bool other_differs; /* slot 0's host bytes are not slot 1's */
  bool bad_refused;   /* a wrong size, a host buffer too small: TFL_ERR_ARG */
  int buffer_diff;    /* bytes of the device buffer export, fenced and mapped, unlike host's; -1: none */
  bool small_refused; /* a device buffer too small for the mask: TFL_ERR_ARG */
} mask_case;
static mask_case *current_mask;

static tfl_status export_and_read(op_runner *r, tfl_delegate *d, void *state)
{
  mask_case *mc = current_mask;
  gl_context *c = mc->c;
  unsigned tex, fbo;
  c->f.GenTextures(1, &tex);
  c->f.BindTexture(GL_TEXTURE_2D, tex);
  c->f.TexStorage2D(GL_TEXTURE_2D, 1, GL_R8, mc->w, mc->h);
  size_t row = (size_t)(mc->w + 3) / 4 * 4, dense = (size_t)mc->w * mc->h;
  tfl_buffer *img = NULL, *host = NULL, *other = NULL, *dev = NULL, *small = NULL;
  tfl_export e = {mc->slot, mc->logits ? TFL_CONVERT_SIGMOID_CLASS_U8 : TFL_CONVERT_CLASS_U8, 0};
  tfl_status s = tfl_buffer_new(d, TFL_BUFFER_IMAGE, 0, &r->diag, &img);
  if (!s) s = tfl_buffer_import(img, &(tfl_image_desc){.handle = tex, .width = mc->w, .height = mc->h});
  if (!s) s = d->export_output(d->ctx, state, mc->out_tensor, &e, img);
  /* the same mask into host memory: must be the texture's bytes, rows unpadded */
  if (!s) s = tfl_buffer_new(NULL, TFL_BUFFER_HOST, dense, &r->diag, &host);
  if (!s) s = d->export_output(d->ctx, state, mc->out_tensor, &e, host);
  const void *hp = NULL;
  if (!s && !(s = tfl_buffer_map(host, &hp))) memcpy(mc->host, hp, dense);
  /* and once more for the other slot, which must not reuse slot 1's bytes */
  tfl_export eo = e;
  eo.slot = 1 - mc->slot;
  const void *op = NULL;
  if (!s) s = tfl_buffer_new(NULL, TFL_BUFFER_HOST, dense, &r->diag, &other);
  if (!s) s = d->export_output(d->ctx, state, mc->out_tensor, &eo, other);
  if (!s && !(s = tfl_buffer_map(other, &op))) mc->other_differs = memcmp(op, mc->host, dense) != 0;
  /* into a device buffer (rows padded to 4 bytes) from byte 8, fenced, mapped afterwards:
   * the host bytes again */
  tfl_export ed = e;
  ed.offset = 8;
  if (!s) s = tfl_buffer_new(d, TFL_BUFFER_DEVICE, 8 + row * mc->h, &r->diag, &dev);
  if (!s) s = d->export_output(d->ctx, state, mc->out_tensor, &ed, dev);
  if (!s) s = tfl_buffer_fence(dev);
  const uint8_t *m = NULL;
  if (!s) s = tfl_buffer_map(dev, (const void **)&m);
  mc->buffer_diff = m ? 0 : -1;
  for (int y = 0; m && y < mc->h; y++)
    for (int i = 0; i < mc->w; i++) mc->buffer_diff += m[8 + y * row + i] != mc->host[y * mc->w + i];
  if (dev) tfl_buffer_unmap(dev);
  if (!s) s = tfl_buffer_new(d, TFL_BUFFER_DEVICE, 8 + row * mc->h - 1, &r->diag, &small);
  mc->small_refused = !s && d->export_output(d->ctx, state, mc->out_tensor, &ed, small) == TFL_ERR_ARG;
  /* a host buffer too small, a picture of the wrong size: refused */
  tfl_buffer *tiny = NULL;
  mc->bad_refused = !s && tfl_buffer_new(NULL, TFL_BUFFER_HOST, dense - 1, &r->diag, &tiny) == TFL_OK &&
                    d->export_output(d->ctx, state, mc->out_tensor, &e, tiny) == TFL_ERR_ARG;
  mc->bad_refused = mc->bad_refused &&
                    tfl_buffer_import(img, &(tfl_image_desc){.handle = tex, .width = mc->w + 1, .height = mc->h}) == TFL_OK &&
                    d->export_output(d->ctx, state, mc->out_tensor, &e, img) == TFL_ERR_ARG;
  tfl_buffer_free(tiny);
  tfl_buffer_free(small);
  tfl_buffer_free(dev);
  tfl_buffer_free(other);
  tfl_buffer_free(host);
  tfl_buffer_free(img);
  if (s) return s;
  /* read the R8 texture back through a framebuffer (GLES has no glGetTexImage) */
  PFNGLGENFRAMEBUFFERSPROC gen = (PFNGLGENFRAMEBUFFERSPROC)eglGetProcAddress("glGenFramebuffers");
  PFNGLBINDFRAMEBUFFERPROC bind = (PFNGLBINDFRAMEBUFFERPROC)eglGetProcAddress("glBindFramebuffer");
  PFNGLFRAMEBUFFERTEXTURE2DPROC attach = (PFNGLFRAMEBUFFERTEXTURE2DPROC)eglGetProcAddress("glFramebufferTexture2D");
  PFNGLREADPIXELSPROC readpx = (PFNGLREADPIXELSPROC)eglGetProcAddress("glReadPixels");
  PFNGLDELETEFRAMEBUFFERSPROC del = (PFNGLDELETEFRAMEBUFFERSPROC)eglGetProcAddress("glDeleteFramebuffers");
  gen(1, &fbo);
  bind(GL_FRAMEBUFFER, fbo);
  attach(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
  uint8_t *rgba = malloc((size_t)mc->w * mc->h * 4);
  readpx(0, 0, mc->w, mc->h, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
  for (int i = 0; i < mc->w * mc->h; i++) mc->bytes[i] = rgba[4 * i];
  free(rgba);
  bind(GL_FRAMEBUFFER, 0);
  del(1, &fbo);
  c->f.DeleteTextures(1, &tex);
  return c->f.GetError() == GL_NO_ERROR ? TFL_OK : TFL_ERR_BACKEND;
}

/* ADD(x, 0) makes a [2,H,W,C] output from host values; slot 1 is exported as a mask. */
static void test_mask_export(gl_context *c, int C, bool logits, gl_precision prec)
{
  const int W = 13, H = 7; /* odd width: the rows of bytes are padded */
  gl_delegate_options o = gl_delegate_defaults();
  o.use_current_context = true;
  o.precision = prec;
  tfl_delegate *d = gl_delegate_create(&o);
  op_runner r;
  op_runner_init(&r, TFL_OP_ADD);
  size_t n = (size_t)2 * H * W * C;
  float *v = malloc(n * sizeof *v);
  unsigned seed = 7;
  glt_fill(v, n, logits ? -6.0f : 0.0f, logits ? 6.0f : 1.0f, &seed);
  int x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){2, H, W, C}, v, false);
  int z = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){1}, NULL, true);
  int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){2, H, W, C}, NULL, false);
  op_runner_io(&r, (int[]){x, z}, 2, (int[]){y}, 1);
  mask_case mc = {c, y, W, H, 1, logits, malloc((size_t)W * H), malloc((size_t)W * H), false, false, -1, false};
  current_mask = &mc;
  tfl_status s = glt_run_gl_ext(&r, d, -1, NULL, 0, export_and_read);
  int wrong = 0, worst = 0, host_diff = 0;
  for (int i = 0; i < W * H && !s; i++) {
    host_diff += mc.host[i] != mc.bytes[i];
    const float *px = v + ((size_t)H * W + i) * C; /* slot 1 */
    int want;
    if (C == 1) {
      float p = logits ? 1.0f / (1.0f + expf(-px[0])) : px[0];
      want = (int)lrintf(p * 255.0f);
      int e = abs(want - mc.bytes[i]);
      if (e > worst) worst = e;
    } else {
      want = 0;
      for (int k = 1; k < C; k++)
        if (px[k] > px[want]) want = k;
      wrong += want != mc.bytes[i];
    }
  }
  /* fp16 storage may flip an argmax between two near-equal scores: none expected here */
  CHECK(s == TFL_OK && wrong == 0 && worst <= (prec == GL_PRECISION_FP16 ? 2 : 1) && host_diff == 0 &&
            mc.other_differs && mc.bad_refused && mc.buffer_diff == 0 && mc.small_refused,
        "mask export, %d channel%s%s, %s, slot 1 of 2, %dx%d: %d wrong classes, worst probability %d/255, "
        "%d host bytes unlike the texture's, slot 0 %s, bad host masks %s, %d GL-buffer bytes unlike the host's "
        "(-1: unmapped), a small buffer %s%s%s",
        C, C > 1 ? "s" : "", logits ? " (logits)" : "", prec == GL_PRECISION_FP16 ? "fp16" : "fp32", W, H, wrong, worst,
        host_diff, mc.other_differs ? "differs" : "SAME as slot 1", mc.bad_refused ? "refused" : "ACCEPTED",
        mc.buffer_diff, mc.small_refused ? "refused" : "ACCEPTED", s ? ": " : "", s ? r.diag.error : "");
  free(mc.bytes);
  free(mc.host);
  free(v);
  op_runner_free(&r);
  d->destroy(d);
}

int main(int argc, char **argv)
{
  if (argc == 4 && !strcmp(argv[1], "--tuning")) return tuning_child(argv[2], atoi(argv[3]));
  test_no_context();
  test_egl_platforms();
  gl_context *c;
  tfl_diag diag;
  tfl_diag_init(&diag);
  if (gl_context_create(false, GL_EGL_AUTO, &c, &diag)) {
    printf("FAIL: no headless context: %s\n", diag.error);
    return 1;
  }
  printf("     %s, %s\n", c->version, c->renderer);
  test_compile_error(c);
  test_out_of_memory(c);
  test_texture(c, TFL_TYPE_FLOAT32, FIT_LETTERBOX);
  test_texture(c, TFL_TYPE_FLOAT32, FIT_CROP);
  test_texture(c, TFL_TYPE_FLOAT32, FIT_STRETCH);
  test_texture(c, TFL_TYPE_UINT8, FIT_LETTERBOX);
  test_texture_slots(c);
  test_mask_export(c, 1, false, GL_PRECISION_FP32);
  test_mask_export(c, 1, true, GL_PRECISION_FP32);
  test_mask_export(c, 1, true, GL_PRECISION_FP16);
  test_mask_export(c, 21, false, GL_PRECISION_FP32);
  test_mask_export(c, 5, false, GL_PRECISION_FP16);
  test_cache();
  test_device_tuning();
  gl_context_free(c);
  printf("%d failure(s)\n", failures);
  return failures != 0;
}
