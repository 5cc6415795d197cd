/* tool_common.c - see tool_common.h */
#include "tool_common.h"

#include "delegates/cpu/cpu_delegate.h"
#include "delegates/gl/gl_delegate.h"
#include "image_file.h"
#include "runtime/tfl_file.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- flags ---------------------------------------------------------------- */

void tool_run_flags_init(tool_run_flags *f)
{
  f->delegate = TOOL_DEFAULT_DELEGATE;
  f->threads = TOOL_DEFAULT_THREADS;
  f->precision = NULL;
  f->cache_dir = NULL;
  f->profile = 0;
  f->no_onednn = false;
  f->gl_tuning = (gl_tuning){0};
  f->gl_profile = GL_PROFILE_NATIVE;
  /* TFL_LOG=info|debug|warning|error, read here in the tools only (the library takes
   * its verbosity from the caller's tfl_diag); TFL_GL_EGL_PLATFORM in tool_make_delegate */
  const char *env = getenv("TFL_LOG");
  if (!env || !tool_parse_log_level(env, &f->log)) f->log = TFL_LOG_WARNING;
}

bool tool_parse_log_level(const char *s, tfl_log_level *out)
{
  static const char *const names[] = {"error", "warning", "info", "debug"};
  for (int i = 0; i < 4; i++)
    if (strcmp(s, names[i]) == 0) {
      *out = (tfl_log_level)i;
      return true;
    }
  return false;
}

void tool_diag_init(tfl_diag *d, tfl_log_level level)
{
  tfl_diag_init(d);
  d->verbosity = level;
}

const char *tool_flag_value(int argc, char **argv, int *i)
{
  if (*i + 1 >= argc) {
    fprintf(stderr, "error: %s needs a value\n", argv[*i]);
    return NULL;
  }
  return argv[++*i];
}

bool tool_parse_int(const char *flag, const char *s, int min, int *out)
{
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || *s == '\0' || *end != '\0' || v < min || v > INT_MAX) {
    fprintf(stderr, "error: %s takes a whole number >= %d, not '%s'\n", flag, min, s);
    return false;
  }
  *out = (int)v;
  return true;
}

bool tool_int_flag(int argc, char **argv, int *i, int min, int *out)
{
  const char *flag = argv[*i], *v = tool_flag_value(argc, argv, i);
  return v && tool_parse_int(flag, v, min, out);
}

int tool_common_arg(tool_run_flags *f, int argc, char **argv, int *i, void (*usage)(FILE *))
{
  const int r = tool_run_flags_parse(f, argc, argv, i);
  if (r < 0) return 2;
  if (r > 0) return TOOL_ARG_TAKEN;
  if (strcmp(argv[*i], "--help") == 0 || strcmp(argv[*i], "-h") == 0) {
    usage(stdout);
    return 0;
  }
  return TOOL_ARG_OTHER;
}

bool tool_model_arg(const char *a, const char **model, void (*usage)(FILE *))
{
  if (a[0] == '-' || *model) {
    fprintf(stderr, "error: unexpected argument '%s'\n", a);
    usage(stderr);
    return false;
  }
  *model = a;
  return true;
}

int tool_run_flags_parse(tool_run_flags *f, int argc, char **argv, int *i)
{
  const char *a = argv[*i];
  if (strcmp(a, "--delegate") == 0) {
    const char *v = tool_flag_value(argc, argv, i);
    if (!v) return -1;
    if (strcmp(v, "cpu") != 0 && strcmp(v, "gl") != 0) {
      fprintf(stderr, "error: --delegate is cpu or gl, not '%s'\n", v);
      return -1;
    }
    f->delegate = v;
    return 1;
  }
  if (strcmp(a, "--precision") == 0) {
    const char *v = tool_flag_value(argc, argv, i);
    if (!v) return -1;
    if (strcmp(v, "fp16") != 0 && strcmp(v, "fp32") != 0 && strcmp(v, "bf16") != 0) {
      fprintf(stderr, "error: --precision is fp32, fp16 (gl) or bf16 (cpu), not '%s'\n", v);
      return -1;
    }
    f->precision = v;
    return 1;
  }
  if (strcmp(a, "--gl-profile") == 0) {
    const char *v = tool_flag_value(argc, argv, i);
    if (!v) return -1;
    if (!gl_device_profile_parse(v, &f->gl_profile)) {
      fprintf(stderr, "error: --gl-profile is one of %s, not '%s'\n", gl_device_profile_names(), v);
      return -1;
    }
    return 1;
  }
  if (strcmp(a, "--cache-dir") == 0) {
    const char *v = tool_flag_value(argc, argv, i);
    if (!v) return -1;
    f->cache_dir = v;
    return 1;
  }
  if (strcmp(a, "--no-onednn") == 0) {
    f->no_onednn = true;
    return 1;
  }
  if (strcmp(a, "--threads") == 0) {
    const char *v = tool_flag_value(argc, argv, i);
    return v && tool_parse_int("--threads", v, 1, &f->threads) ? 1 : -1;
  }
  int r = tool_gl_tuning_parse(&f->gl_tuning, argc, argv, i);
  if (r) return r;
  if (strcmp(a, "--log") == 0) {
    const char *v = tool_flag_value(argc, argv, i);
    if (!v) return -1;
    if (!tool_parse_log_level(v, &f->log)) {
      fprintf(stderr, "error: --log is error, warning, info or debug, not '%s'\n", v);
      return -1;
    }
    return 1;
  }
  return 0;
}

void tool_run_flags_help(FILE *out)
{
  fprintf(out,
          "  --delegate cpu|gl  where the graph runs (default %s); cpu = XNNPACK and our\n"
          "                     threaded kernels, gl = the OpenGL ES compute delegate\n",
          TOOL_DEFAULT_DELEGATE);
  tool_run_options_help(out);
}

void tool_run_options_help(FILE *out)
{
  fprintf(out,
          "  --precision P      cpu: fp32 or bf16 (where the CPU has AVX-512 BF16; default\n"
          "                     fp32); gl: fp16 or fp32 (default fp16)\n"
          "  --cache-dir DIR    GL program binary cache directory (default: $XDG_CACHE_HOME/gst-tflite;\n"
          "                     \"\": none)\n"
          "  --gl-profile NAME  GL: respect a board GPU's limits: native (default), gles31-min,\n"
          "                     mali-g610, v3d or adreno6xx (docs/boards.md)\n"
          "  --threads N        CPU threads (default %d)\n"
          "  --no-onednn        cpu: convolutions on XNNPACK instead of oneDNN (comparisons)\n"
          "  --log LEVEL        log lines printed: error, warning, info or debug\n"
          "                     (default: $TFL_LOG, else warning)\n",
          TOOL_DEFAULT_THREADS);
  tool_gl_tuning_help(out);
}

/* The value of flag argv[*i], an integer in 1..hi, into *out: 1, or -1 with the error
 * printed (`what` says what it must be). */
static int int_flag(int argc, char **argv, int *i, const char *what, int hi, int *out)
{
  const char *flag = argv[*i], *v = tool_flag_value(argc, argv, i);
  int n;
  char end;
  if (!v) return -1;
  if (sscanf(v, "%d%c", &n, &end) != 1 || n < 1 || n > hi) {
    fprintf(stderr, "error: %s is %s, not '%s'\n", flag, what, v);
    return -1;
  }
  *out = n;
  return 1;
}

int tool_gl_tuning_parse(gl_tuning *t, int argc, char **argv, int *i)
{
  const char *a = argv[*i];
  static const struct {
    const char *flag;
    size_t off;
  } switches[] = {
    {"--gl-no-fuse", offsetof(gl_tuning, no_fuse)},
    {"--gl-no-se", offsetof(gl_tuning, no_se)},
    {"--gl-no-dwpw", offsetof(gl_tuning, no_dwpw)},
    {"--gl-irb", offsetof(gl_tuning, irb)},
    {"--gl-no-reorder", offsetof(gl_tuning, no_reorder)},
    {"--gl-all-barriers", offsetof(gl_tuning, all_barriers)},
    {"--gl-const-fp32", offsetof(gl_tuning, const_fp32)},
    {"--gl-wide-residuals", offsetof(gl_tuning, wide_residuals)},
    {"--gl-half-activations", offsetof(gl_tuning, half_activations)},
    {"--gl-cpu-postproc", offsetof(gl_tuning, cpu_postproc)},
    {"--gl-mediump", offsetof(gl_tuning, mediump)},
  };
  for (size_t k = 0; k < sizeof switches / sizeof switches[0]; k++)
    if (strcmp(a, switches[k].flag) == 0) {
      *(bool *)((char *)t + switches[k].off) = true;
      return 1;
    }
  if (strcmp(a, "--gl-conv-tile") == 0) {
    const char *v = tool_flag_value(argc, argv, i);
    int px, sl;
    char end;
    if (!v) return -1;
    if (sscanf(v, "%dx%d%c", &px, &sl, &end) != 2 || px < 1 || px > 8 || sl < 1 || sl > 8) {
      fprintf(stderr, "error: --gl-conv-tile is PxS with P and S in 1..8, not '%s'\n", v);
      return -1;
    }
    t->conv_tile_px = px;
    t->conv_tile_slices = sl;
    return 1;
  }
  if (strcmp(a, "--gl-max-groups") == 0)
    return int_flag(argc, argv, i, "a workgroup count in 1..65535", 65535, &t->max_groups);
  if (strcmp(a, "--gl-max-shared") == 0)
    return int_flag(argc, argv, i, "a byte count in 1..65536", 65536, &t->max_shared);
  if (strcmp(a, "--gl-dwpw-tile") == 0) return int_flag(argc, argv, i, "a pixel count in 1..256", 256, &t->dwpw_tile);
  if (strcmp(a, "--gl-conv-fill") == 0)
    return int_flag(argc, argv, i, "an invocation count in 1..4194304", 1 << 22, &t->conv_fill);
  if (strcmp(a, "--gl-irb-tile") == 0) return int_flag(argc, argv, i, "a tile side in 1..16", 16, &t->irb_tile);
  if (strcmp(a, "--gl-se-wg") == 0) {
    int r = int_flag(argc, argv, i, "a power of two in 32..1024", 1024, &t->se_wg);
    if (r == 1 && (t->se_wg < 32 || (t->se_wg & (t->se_wg - 1)))) {
      fprintf(stderr, "error: --gl-se-wg is a power of two in 32..1024, not %d\n", t->se_wg);
      return -1;
    }
    return r;
  }
  if (strcmp(a, "--gl-conv-split") == 0) {
    const char *v = tool_flag_value(argc, argv, i);
    if (!v) return -1;
    if (strcmp(v, "auto") == 0) t->conv_split = GL_SPLIT_AUTO;
    else if (strcmp(v, "never") == 0) t->conv_split = GL_SPLIT_NEVER;
    else if (strcmp(v, "always") == 0) t->conv_split = GL_SPLIT_ALWAYS;
    else {
      fprintf(stderr, "error: --gl-conv-split is auto, never or always, not '%s'\n", v);
      return -1;
    }
    return 1;
  }
  return 0;
}

void tool_gl_tuning_help(FILE *out)
{
  fprintf(out,
          "  --gl-conv-tile PxS  GL: force the convolution tile, P output pixels x S output\n"
          "                     slices per invocation, 1..8 each (default: tuning table)\n"
          "  --gl-conv-split M   GL: split a conv output's reduction over a workgroup: auto,\n"
          "                     never or always (default auto)\n"
          "  --gl-conv-fill N    GL: convolution tiles keep at least N invocations, reductions\n"
          "                     split under N/4 outputs (default: the device's fill / 16)\n"
          "  --gl-no-fuse        GL: every node its own dispatch (default: fuse element-wise ops)\n"
          "  --gl-no-se          GL: a squeeze-excite chain (pool, 1x1 layers) in separate dispatches\n"
          "                     (default: one dispatch)\n"
          "  --gl-no-dwpw        GL: a depthwise conv and the 1x1 conv reading it in two dispatches\n"
          "                     (default: one, the depthwise output in shared memory)\n"
          "  --gl-dwpw-tile N    GL: output pixels per workgroup of those dispatches, 1..256\n"
          "                     (default: tuning, at most what shared memory holds)\n"
          "  --gl-irb            GL: with such a pair, the 1x1 expansion before it: the whole\n"
          "                     inverted residual block in one dispatch (default off)\n"
          "  --gl-irb-tile N     GL: N x N output pixels per workgroup of those, 1..16\n"
          "  --gl-se-wg N        GL: at most N invocations (32..1024, a power of two) in a\n"
          "                     squeeze-excite workgroup (default: what the device allows)\n"
          "  --gl-mediump        GL fp16: values mediump (fp16 arithmetic where the GPU has it)\n"
          "  --gl-max-groups N   GL: take N workgroups per dimension as the device's limit\n"
          "                     (dispatches over it are split; tests)\n"
          "  --gl-max-shared B   GL: take B bytes of shared memory as the limit (kernels over\n"
          "                     it stay on the CPU; tests)\n"
          "  --gl-no-reorder     GL: dispatches in graph order (default: by dependency level)\n"
          "  --gl-all-barriers   GL: a barrier before every dispatch (default: only on conflicts)\n"
          "  --gl-const-fp32     GL fp16: keep constants 32-bit (default: 16-bit weights)\n"
          "  --gl-half-activations GL fp16: store activations as halves where safe-ish\n"
          "                     (default off: 32-bit, see delegates/gl/gl_precision.c)\n"
          "  --gl-wide-residuals GL fp16 with --gl-half-activations: residual sums 32-bit\n"
          "  --gl-cpu-postproc   GL: TFLite_Detection_PostProcess on the CPU (default: GPU)\n"
          "  env TFL_GL_EGL_PLATFORM=auto|device|surfaceless|gbm|none: the GL context's EGL\n"
          "                     platform (default auto: device, surfaceless, then GBM)\n");
}

/* ---- model + interpreter ---------------------------------------------------- */

double tool_now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The accelerator delegate named by --delegate: NULL for cpu (the fallback CPU
 * delegate runs everything). Adding a delegate is one more branch here. */
static bool tool_make_delegate(const tool_run_flags *f, tfl_diag *diag, tfl_delegate **out)
{
  *out = NULL;
  if (strcmp(f->delegate, "cpu") == 0) return true;
  if (strcmp(f->delegate, "gl") == 0) {
    /* own headless EGL context: the tools have no caller context */
    gl_delegate_options o = gl_delegate_defaults();
    if (f->precision && strcmp(f->precision, "bf16") == 0) {
      fprintf(stderr, "error: --precision bf16 is for --delegate cpu (gl: fp16 or fp32)\n");
      return false;
    }
    o.precision = f->precision && strcmp(f->precision, "fp32") == 0 ? GL_PRECISION_FP32 : GL_PRECISION_FP16;
    o.cache_dir = f->cache_dir;
    o.tuning = f->gl_tuning;
    o.profile = f->gl_profile;
    o.diag = diag;
    /* the own context's EGL platform: boards whose EGL has one path only, and tests */
    const char *plat = getenv("TFL_GL_EGL_PLATFORM");
    if (plat && *plat && !gl_egl_platform_parse(plat, &o.egl_platform)) {
      fprintf(stderr, "error: TFL_GL_EGL_PLATFORM=%s: expected auto, device, surfaceless, gbm or none\n", plat);
      return false;
    }
    *out = gl_delegate_create(&o);
    if (!*out) {
      fprintf(stderr, "error: --delegate gl: %s\n", diag->error);
      return false;
    }
    return true;
  }
  fprintf(stderr, "error: unknown delegate '%s'\n", f->delegate);
  return false;
}

bool tool_model_load(tool_model *m, const char *path, const tool_run_flags *f)
{
  memset(m, 0, sizeof *m);
  tool_diag_init(&m->diag, f->log);
  double t0 = tool_now_ms();
  tfl_status s = tfl_load_file(path, &m->graph, &m->diag);
  m->load_ms = tool_now_ms() - t0;
  if (s != TFL_OK) {
    fprintf(stderr, "error: loading %s: %s (%s)\n", path, m->diag.error, tfl_status_name(s));
    return false;
  }
  return true;
}

bool tool_model_prepare(tool_model *m, const char *path, const tool_run_flags *f, bool reference)
{
  cpu_delegate_options co = cpu_delegate_defaults();
  co.reference = reference;
  co.threads = reference ? 1 : f->threads;
  co.diag = &m->diag;
  co.use_onednn = !f->no_onednn;
  if (f->precision && strcmp(f->precision, "bf16") == 0) co.precision = CPU_PRECISION_BF16;
  if (f->precision && strcmp(f->precision, "fp16") == 0 && strcmp(f->delegate, "cpu") == 0) {
    fprintf(stderr, "error: --precision fp16 is for --delegate gl (cpu: fp32 or bf16)\n");
    tool_model_close(m);
    return false;
  }
  if (f->profile && !reference) {
    const int n = m->graph->n_nodes;
    m->profile.n_nodes = n;
    m->profile.ms = calloc((size_t)n + 1, sizeof *m->profile.ms);
    m->profile.cpu_ms = calloc((size_t)n + 1, sizeof *m->profile.cpu_ms);
    m->profile.span = calloc((size_t)n + 1, sizeof *m->profile.span);
    m->profile.kernel = calloc((size_t)n + 1, sizeof *m->profile.kernel);
    if (!m->profile.ms || !m->profile.cpu_ms || !m->profile.span || !m->profile.kernel) {
      fprintf(stderr, "error: out of memory for the profile of %d nodes\n", n);
      tool_model_close(m);
      return false;
    }
    co.profile = &m->profile;
    co.xnn_one_node = f->profile > 1;
  }
  m->cpu = cpu_delegate_create(&co);
  if (!m->cpu) {
    fprintf(stderr, "error: CPU delegate: %s\n", m->diag.error);
    tool_model_close(m);
    return false;
  }
  tfl_interp_options o = tfl_interp_defaults();
  o.diag = &m->diag;
  o.fallback = m->cpu;
  if (!reference) {
    if (!tool_make_delegate(f, &m->diag, &m->delegate)) {
      tool_model_close(m);
      return false;
    }
    o.delegate = m->delegate;
  }
  double t0 = tool_now_ms();
  tfl_status s = tfl_interpreter_create(m->graph, &o, &m->it);
  m->init_ms = tool_now_ms() - t0;
  if (s != TFL_OK) {
    fprintf(stderr, "error: preparing %s: %s (%s)\n", path, m->diag.error, tfl_status_name(s));
    tool_model_close(m);
    return false;
  }
  return true;
}

bool tool_model_open(tool_model *m, const char *path, const tool_run_flags *f, bool reference)
{
  return tool_model_load(m, path, f) && tool_model_prepare(m, path, f, reference);
}

void tool_model_close(tool_model *m)
{
  if (m->it) tfl_interpreter_free(m->it);
  if (m->delegate && m->delegate->destroy) m->delegate->destroy(m->delegate);
  if (m->cpu) m->cpu->destroy(m->cpu);
  if (m->graph) tfl_graph_free(m->graph);
  free(m->profile.ms);
  free(m->profile.cpu_ms);
  free(m->profile.span);
  free((void *)m->profile.kernel);
  memset(m, 0, sizeof *m);
}

/* ---- Gaussian inputs ------------------------------------------------------- */

void tool_gauss_init(tool_gauss *g, uint32_t seed)
{
  g->state = seed;
}

static double mulberry32(tool_gauss *g)
{
  g->state += 0x6d2b79f5u;
  uint32_t t = g->state;
  t = (t ^ (t >> 15)) * (t | 1u);
  t ^= t + (t ^ (t >> 7)) * (t | 61u);
  return (double)(t ^ (t >> 14)) / 4294967296.0;
}

double tool_gauss_next(tool_gauss *g)
{
  double u1 = mulberry32(g);
  if (u1 == 0) u1 = 1e-12;  /* as the oracle's `uniform() || 1e-12` */
  const double u2 = mulberry32(g);
  return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* JavaScript's Math.round: half rounds up. */
static double js_round(double v)
{
  return floor(v + 0.5);
}

static bool int_range(tfl_type t, double *lo, double *hi)
{
  switch (t) {
  case TFL_TYPE_UINT8: *lo = 0; *hi = 255; return true;
  case TFL_TYPE_INT8: *lo = -128; *hi = 127; return true;
  case TFL_TYPE_INT32: *lo = -2147483648.0; *hi = 2147483647.0; return true;
  case TFL_TYPE_FLOAT32:
  case TFL_TYPE_FLOAT16:
  case TFL_TYPE_INT64:
  case TFL_TYPE_STRING:
  case TFL_TYPE_COMPLEX64:
  case TFL_TYPE_BOOL:
  case TFL_TYPE_INT16:
  case TFL_TYPE_COUNT:
    break;
  }
  return false;
}

static void store_int(tfl_tensor *t, size_t i, double v)
{
  switch (t->type) {
  case TFL_TYPE_UINT8: ((uint8_t *)t->data)[i] = (uint8_t)v; break;
  case TFL_TYPE_INT8: ((int8_t *)t->data)[i] = (int8_t)v; break;
  case TFL_TYPE_INT32: ((int32_t *)t->data)[i] = (int32_t)v; break;
  case TFL_TYPE_FLOAT32:
  case TFL_TYPE_FLOAT16:
  case TFL_TYPE_INT64:
  case TFL_TYPE_STRING:
  case TFL_TYPE_COMPLEX64:
  case TFL_TYPE_BOOL:
  case TFL_TYPE_INT16:
  case TFL_TYPE_COUNT:
    break;
  }
}

bool tool_fill_gauss(tfl_interpreter *it, uint32_t seed, tool_dist dist)
{
  tool_gauss g;
  tool_gauss_init(&g, seed);
  for (int k = 0; k < tfl_interpreter_input_count(it); k++) {
    tfl_tensor *t = tfl_interpreter_input(it, k);
    double lo = 0, hi = 0;
    const bool is_float = t->type == TFL_TYPE_FLOAT32;
    if (!is_float && !int_range(t->type, &lo, &hi)) {
      fprintf(stderr, "error: input %d is %s: Gaussian inputs need float32, uint8, int8 or int32\n",
              k, tool_type_name(t->type));
      return false;
    }
    if (dist == TOOL_DIST_DIFF && t->type == TFL_TYPE_INT32) {
      fprintf(stderr, "error: --dist diff: int32 input %d is not supported\n", k);
      return false;
    }
    const size_t n = tfl_tensor_count(t);
    for (size_t i = 0; i < n; i++) {
      if (dist == TOOL_DIST_DIFF) {
        double u;
        do u = 0.5 + tool_gauss_next(&g) / 3; while (u < 0 || u >= 1);
        if (is_float) ((float *)t->data)[i] = (float)(-1.0 + 2.0 * u);
        else store_int(t, i, trunc(lo + (hi - lo) * u));
      } else if (is_float) {
        ((float *)t->data)[i] = (float)tool_gauss_next(&g);
      } else {
        const double z = tool_gauss_next(&g);
        const double v = t->q.n ? z / (double)t->q.scale[0] + t->q.zero_point[0] : z;
        store_int(t, i, fmin(hi, fmax(lo, js_round(v))));
      }
    }
  }
  return true;
}

bool tool_fill_file(tfl_interpreter *it, int i, const char *path)
{
  tfl_tensor *t = tfl_interpreter_input(it, i);
  if (!t) {
    fprintf(stderr, "error: %s: the model has %d inputs\n", path, tfl_interpreter_input_count(it));
    return false;
  }
  /* tfl_file: a regular file only (a FIFO would block the tool) */
  tfl_diag d;
  tfl_diag_init(&d);
  size_t size = 0;
  int fd = tfl_file_open_read(path, "input file", &size, &d);
  if (fd < 0) {
    fprintf(stderr, "error: %s\n", d.error);
    return false;
  }
  if (size != t->bytes) {
    fprintf(stderr, "error: %s: %zu bytes, input %d (%s) needs %zu\n", path, size, i, tool_type_name(t->type),
            t->bytes);
    close(fd);
    return false;
  }
  size_t got = 0;
  while (got < t->bytes) {
    ssize_t r = read(fd, (char *)t->data + got, t->bytes - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  close(fd);
  if (got != t->bytes) fprintf(stderr, "error: %s: short read\n", path);
  return got == t->bytes;
}

/* ---- pictures -------------------------------------------------------------- */

bool tool_parse_norm(const char *s, double *lo, double *hi)
{
  char *end;
  *lo = strtod(s, &end);
  if (end == s || *end != ',') goto bad;
  const char *b = end + 1;
  *hi = strtod(b, &end);
  if (end == b || *end != '\0') goto bad;
  return true;
bad:
  fprintf(stderr, "error: --norm takes LO,HI (e.g. -1,1), not '%s'\n", s);
  return false;
}

bool tool_fill_image(tfl_interpreter *it, const char *path, double lo, double hi)
{
  if (tfl_interpreter_input_count(it) != 1) {
    fprintf(stderr, "error: --image needs a model with one input (it has %d)\n",
            tfl_interpreter_input_count(it));
    return false;
  }
  tfl_tensor *t = tfl_interpreter_input(it, 0);
  if (t->ndim != 4 || t->dims[3] != 3 ||
      (t->type != TFL_TYPE_FLOAT32 && t->type != TFL_TYPE_UINT8 && t->type != TFL_TYPE_INT8)) {
    fprintf(stderr, "error: --image needs an NHWC float32/uint8/int8 input with 3 channels\n");
    return false;
  }
  int in_w, in_h;
  char err[512];
  uint8_t *px = image_file_load_rgb(path, &in_w, &in_h, err, sizeof err);
  if (!px) {
    fprintf(stderr, "error: %s\n", err);
    return false;
  }
  const int out_h = t->dims[1], out_w = t->dims[2];
  const double sx = (double)in_w / out_w, sy = (double)in_h / out_h;
  /* the oracle's order of operations (image.mjs), so values match it bit for bit */
  for (int y = 0; y < out_h; y++) {
    const double fy = fmin(fmax((y + 0.5) * sy - 0.5, 0), in_h - 1);
    const int y0 = (int)floor(fy), y1 = y0 + 1 < in_h ? y0 + 1 : in_h - 1;
    const double wy = fy - y0;
    for (int x = 0; x < out_w; x++) {
      const double fx = fmin(fmax((x + 0.5) * sx - 0.5, 0), in_w - 1);
      const int x0 = (int)floor(fx), x1 = x0 + 1 < in_w ? x0 + 1 : in_w - 1;
      const double wx = fx - x0;
      for (int c = 0; c < 3; c++) {
        const double p00 = px[((size_t)y0 * in_w + x0) * 3 + c], p01 = px[((size_t)y0 * in_w + x1) * 3 + c];
        const double p10 = px[((size_t)y1 * in_w + x0) * 3 + c], p11 = px[((size_t)y1 * in_w + x1) * 3 + c];
        const double top = p00 * (1 - wx) + p01 * wx;
        const double bottom = p10 * (1 - wx) + p11 * wx;
        const float v = (float)(top * (1 - wy) + bottom * wy);  /* the oracle keeps float32 */
        const size_t i = ((size_t)y * out_w + x) * 3 + c;
        if (t->type == TFL_TYPE_FLOAT32)
          ((float *)t->data)[i] = (float)(lo + (double)v / 255 * (hi - lo));
        else if (t->type == TFL_TYPE_UINT8)
          ((uint8_t *)t->data)[i] = (uint8_t)js_round(v);
        else
          ((int8_t *)t->data)[i] = (int8_t)(js_round(v) - 128);
      }
    }
  }
  free(px);
  return true;
}

/* ---- outputs in the oracle's format ------------------------------------------ */

const char *tool_type_name(tfl_type t)
{
  switch (t) {
  case TFL_TYPE_FLOAT32: return "float32";
  case TFL_TYPE_FLOAT16: return "float16";
  case TFL_TYPE_INT32: return "int32";
  case TFL_TYPE_UINT8: return "uint8";
  case TFL_TYPE_INT64: return "int64";
  case TFL_TYPE_STRING: return "string";
  case TFL_TYPE_COMPLEX64: return "complex64";
  case TFL_TYPE_BOOL: return "bool";
  case TFL_TYPE_INT16: return "int16";
  case TFL_TYPE_INT8: return "int8";
  case TFL_TYPE_COUNT: break;
  }
  return "unknown";
}

/* SHA-256 (FIPS 180-4), for the model checksum the oracle also records. */
static void sha256_block(uint32_t h[8], const uint8_t *p)
{
  static const uint32_t k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
  uint32_t w[64];
  for (int i = 0; i < 16; i++)
    w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
  for (int i = 16; i < 64; i++) {
    const uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
  for (int i = 0; i < 64; i++) {
    const uint32_t t1 = hh + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
    const uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
  }
#undef ROR
  h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

/* Hex SHA-256 of a file into out[65]; "" when unreadable. */
static void sha256_file(const char *path, char out[65])
{
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  out[0] = '\0';
  tfl_diag d;
  tfl_diag_init(&d);
  FILE *f = tfl_file_fopen_read(path, "model", SIZE_MAX, &d);
  if (!f) return;
  uint8_t buf[128];
  uint64_t total = 0;
  size_t n;
  while ((n = fread(buf, 1, 64, f)) == 64) {
    sha256_block(h, buf);
    total += 64;
  }
  fclose(f);
  total += n;
  memset(buf + n, 0, sizeof buf - n);
  buf[n] = 0x80;
  const size_t blocks = n + 9 > 64 ? 2 : 1;
  for (int i = 0; i < 8; i++) buf[blocks * 64 - 1 - i] = (uint8_t)((total * 8) >> (8 * i));
  for (size_t b = 0; b < blocks; b++) sha256_block(h, buf + 64 * b);
  for (int i = 0; i < 8; i++) snprintf(out + 8 * i, 9, "%08x", h[i]);
}

static void json_string(FILE *f, const char *s)
{
  fputc('"', f);
  for (; s && *s; s++) {
    const unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

double tool_element(const tfl_tensor *t, size_t i)
{
  switch (t->type) {
  case TFL_TYPE_FLOAT32: return ((const float *)t->data)[i];
  case TFL_TYPE_INT32: return ((const int32_t *)t->data)[i];
  case TFL_TYPE_UINT8: return ((const uint8_t *)t->data)[i];
  case TFL_TYPE_INT8: return ((const int8_t *)t->data)[i];
  case TFL_TYPE_INT64: return (double)((const int64_t *)t->data)[i];
  case TFL_TYPE_INT16: return ((const int16_t *)t->data)[i];
  case TFL_TYPE_BOOL: return ((const uint8_t *)t->data)[i];
  case TFL_TYPE_COMPLEX64: return ((const float *)t->data)[i];
  case TFL_TYPE_FLOAT16:
  case TFL_TYPE_STRING:
  case TFL_TYPE_COUNT:
    break;
  }
  return NAN;
}

size_t tool_value_count(const tfl_tensor *t)
{
  return tfl_tensor_count(t) * (t->type == TFL_TYPE_COMPLEX64 ? 2 : 1);
}

bool tool_mkdir_p(const char *dir)
{
  char path[4096];
  if (!dir[0] || snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
    fprintf(stderr, "error: output folder '%s': empty or too long\n", dir);
    return false;
  }
  /* each prefix ending before a '/', then the whole path */
  for (char *p = path + 1;; p++) {
    const bool end = *p == '\0';
    if (!end && *p != '/') continue;
    *p = '\0';
    struct stat st;
    if (mkdir(path, 0777) != 0 && !(errno == EEXIST && stat(path, &st) == 0 && S_ISDIR(st.st_mode))) {
      const int e = errno == EEXIST ? ENOTDIR : errno;
      fprintf(stderr, "error: creating output folder %s: %s: %s\n", dir, path, strerror(e));
      return false;
    }
    if (end) return true;
    *p = '/';
  }
}

/* Writes the tensor's bytes to dir/<prefix>_<i>.bin. */
static bool write_bin(const char *dir, const char *prefix, int i, const tfl_tensor *t)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/%s_%d.bin", dir, prefix, i);
  /* a tensor of no elements may have no data (NULL): tfl_file_replace writes no byte
   * of it; replaced whole, a link under the name is replaced, not written through */
  tfl_diag d;
  tfl_diag_init(&d);
  bool ok = tfl_file_replace(path, "tensor file", t->data, t->bytes, &d) == TFL_OK;
  if (!ok) fprintf(stderr, "error: writing %s\n", d.error);
  return ok;
}

bool tool_write_inputs(tfl_interpreter *it, const char *dir)
{
  if (!tool_mkdir_p(dir)) return false;
  for (int i = 0; i < tfl_interpreter_input_count(it); i++)
    if (!write_bin(dir, "input", i, tfl_interpreter_input(it, i))) return false;
  return true;
}

/* Writes the JSON entry of dir/<prefix>_<i>.bin (statistics of t's values). */
static void write_entry(FILE *js, const char *prefix, int i, const tfl_tensor *t)
{
  char file[64];
  snprintf(file, sizeof file, "%s_%d.bin", prefix, i);
  const size_t n = tool_value_count(t);
  double mn = INFINITY, mx = -INFINITY, sum = 0;
  for (size_t k = 0; k < n; k++) {
    const double v = tool_element(t, k);
    mn = fmin(mn, v);
    mx = fmax(mx, v);
    sum += v;
  }
  fprintf(js, "  {\n   \"index\": %d,\n   \"name\": ", i);
  json_string(js, t->name ? t->name : "");
  fprintf(js, ",\n   \"dtype\": \"%s\",\n   \"shape\": [", tool_type_name(t->type));
  for (int d = 0; d < t->ndim; d++) fprintf(js, "%s%d", d ? ", " : "", (int)t->dims[d]);
  fprintf(js, "],\n   \"tflite_type\": \"%s\",\n   \"quantization\": ", tool_type_name(t->type));
  if (t->q.n > 0) {
    fprintf(js, "{\n    \"scale\": [");
    for (int q = 0; q < t->q.n; q++) fprintf(js, "%s%.9g", q ? ", " : "", t->q.scale[q]);
    fprintf(js, "],\n    \"zero_point\": [");
    for (int q = 0; q < t->q.n; q++) fprintf(js, "%s%d", q ? ", " : "", (int)t->q.zero_point[q]);
    fprintf(js, "],\n    \"quantized_dimension\": %d\n   }", t->q.axis);
  } else {
    fprintf(js, "null");
  }
  if (n > 0 && isfinite(mn) && isfinite(mx) && isfinite(sum))
    fprintf(js, ",\n   \"file\": \"%s\",\n   \"min\": %.9g,\n   \"max\": %.9g,\n   \"mean\": %.17g\n  }",
            file, mn, mx, sum / (double)n);
  else  /* JSON has no NaN/Infinity: such stats are null */
    fprintf(js, ",\n   \"file\": \"%s\",\n   \"min\": null,\n   \"max\": null,\n   \"mean\": null\n  }",
            file);
}

bool tool_write_outputs(tfl_interpreter *it, const char *model_path, const char *dir,
                        const char *source_json, void *const *fed)
{
  char path[4096], sha[65];
  snprintf(path, sizeof path, "%s/outputs.json", dir);
  /* built in memory and replaced whole (tfl_file) */
  char *text = NULL;
  size_t text_len = 0;
  FILE *js = open_memstream(&text, &text_len);
  if (!js) {
    fprintf(stderr, "error: writing %s: out of memory\n", path);
    return false;
  }
  sha256_file(model_path, sha);
  const char *base = strrchr(model_path, '/');
  fprintf(js, "{\n \"runtime\": \"gst-tflite runtime\",\n \"model\": ");
  json_string(js, base ? base + 1 : model_path);
  fprintf(js, ",\n \"sha256\": \"%s\",\n \"source\": %s,\n \"inputs\": [\n", sha, source_json);
  for (int i = 0; i < tfl_interpreter_input_count(it); i++) {
    if (i) fprintf(js, ",\n");
    tfl_tensor t = *tfl_interpreter_input(it, i);
    if (fed) t.data = fed[i];
    write_entry(js, "input", i, &t);
  }
  fprintf(js, "\n ],\n \"outputs\": [\n");
  bool ok = true;
  for (int i = 0; ok && i < tfl_interpreter_output_count(it); i++) {
    if (i) fprintf(js, ",\n");
    ok = write_bin(dir, "output", i, tfl_interpreter_output(it, i));
    if (ok) write_entry(js, "output", i, tfl_interpreter_output(it, i));
  }
  fprintf(js, "\n ]\n}\n");
  if (fclose(js) != 0) {
    fprintf(stderr, "error: writing %s: out of memory\n", path);
    ok = false;
  }
  tfl_diag d;
  tfl_diag_init(&d);
  if (ok && tfl_file_replace(path, "outputs file", text, text_len, &d) != TFL_OK) {
    fprintf(stderr, "error: writing %s\n", d.error);
    ok = false;
  }
  free(text);
  return ok;
}
