/* gl_program.c - compile, link, and the glGetProgramBinary cache. */
#include "gl_program.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/tfl_file.h"

uint64_t gl_hash(uint64_t h, const void *data, size_t n)
{
  const uint8_t *p = data;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) { /* 8 bytes a step: model files are tens of MB */
    uint64_t w;
    memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  for (; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

/* Starts compiling and linking src; the status is read by finish_program. Drivers with
 * GL_KHR_parallel_shader_compile (gl_context.c asks for all their threads) work on the
 * programs started before the first status query in parallel. 0 on failure. */
static unsigned start_program(gl_context *c, const char *src, unsigned *shader)
{
  const gl_funcs *f = &c->f;
  GLuint sh = f->CreateShader(GL_COMPUTE_SHADER);
  *shader = sh;
  if (!sh) return 0;
  f->ShaderSource(sh, 1, &src, NULL);
  f->CompileShader(sh);
  GLuint p = f->CreateProgram();
  f->AttachShader(p, sh);
  f->ProgramParameteri(p, GL_PROGRAM_BINARY_RETRIEVABLE_HINT, GL_TRUE);
  f->LinkProgram(p);
  return p;
}

/* Waits for p, frees its shader, says why it failed. */
static tfl_status finish_program(gl_context *c, unsigned p, unsigned sh, const char *src, const char *label,
                                 tfl_diag *diag)
{
  const gl_funcs *f = &c->f;
  if (!p) return gl_check(c, "glCreateShader", diag) ? TFL_ERR_BACKEND : tfl_fail(diag, TFL_ERR_BACKEND, "GL: glCreateShader failed");
  GLint ok = 0, linked = 0;
  char log[1024] = "";
  f->GetShaderiv(sh, GL_COMPILE_STATUS, &ok);
  if (!ok) f->GetShaderInfoLog(sh, sizeof log, NULL, log);
  f->DetachShader(p, sh);
  f->DeleteShader(sh);
  if (!ok) {
    tfl_logf(diag, TFL_LOG_DEBUG, "GL: failing source of %s:\n%s", label, src);
    return tfl_fail(diag, TFL_ERR_BACKEND, "GL: compiling the shader of %s failed: %s", label, log);
  }
  f->GetProgramiv(p, GL_LINK_STATUS, &linked);
  if (!linked) {
    f->GetProgramInfoLog(p, sizeof log, NULL, log);
    return tfl_fail(diag, TFL_ERR_BACKEND, "GL: linking the program of %s failed: %s", label, log);
  }
  return gl_check(c, label, diag);
}

tfl_status gl_program_compile(gl_context *c, const char *src, const char *label, unsigned *prog, tfl_diag *diag)
{
  unsigned sh = 0, p = start_program(c, src, &sh);
  tfl_status st = finish_program(c, p, sh, src, label, diag);
  if (st && p) c->f.DeleteProgram(p);
  *prog = st ? 0 : p;
  return st;
}

static const char MAGIC[8] = {'T', 'F', 'L', 'G', 'L', 'P', 'C', '1'};

static void cache_path(char *buf, size_t n, const char *dir, uint64_t key)
{
  snprintf(buf, n, "%s/tflgl-%016llx.bin", dir, (unsigned long long)key);
}

/* 1: all programs loaded; 0: no file; -1: file unusable (warned); -2: the path is not a
 * regular file (warned; not written either). */
static int cache_load(gl_context *c, const char *path, uint64_t key, int n, unsigned *progs, tfl_diag *diag)
{
  struct stat sb;
  if (stat(path, &sb) != 0) return 0;
  /* a FIFO, directory or device under the cache's name: opening it could block forever */
  tfl_diag open_diag;
  tfl_diag_init(&open_diag);
  FILE *fp = tfl_file_fopen_read(path, "GL program cache", SIZE_MAX, &open_diag);
  if (!fp) {
    tfl_logf(diag, TFL_LOG_WARNING, "%s; not used", open_diag.error[0] ? open_diag.error : path);
    return S_ISREG(sb.st_mode) ? -1 : -2;
  }
  const gl_funcs *f = &c->f;
  char magic[8];
  uint64_t k = 0;
  uint32_t cnt = 0;
  const char *why = NULL;
  int loaded = 0;
  void *buf = NULL;
  if (fread(magic, 1, 8, fp) != 8 || memcmp(magic, MAGIC, 8) || fread(&k, 8, 1, fp) != 1 || fread(&cnt, 4, 1, fp) != 1)
    why = "not a program cache file";
  else if (k != key || cnt != (uint32_t)n)
    why = "written for another model, option set or driver";
  for (; !why && loaded < n; loaded++) {
    uint32_t fmt, len;
    if (fread(&fmt, 4, 1, fp) != 1 || fread(&len, 4, 1, fp) != 1 || len == 0 || len > (64u << 20)) {
      why = "truncated";
      break;
    }
    free(buf);
    buf = malloc(len);
    if (!buf || fread(buf, 1, len, fp) != len) {
      why = "truncated";
      break;
    }
    GLuint p = f->CreateProgram();
    f->ProgramBinary(p, fmt, buf, (GLsizei)len);
    GLint ok = 0;
    f->GetProgramiv(p, GL_LINK_STATUS, &ok);
    while (f->GetError() != GL_NO_ERROR) ok = 0;
    if (!ok) {
      f->DeleteProgram(p);
      why = "the driver rejects its binaries";
      break;
    }
    progs[loaded] = p;
  }
  free(buf);
  fclose(fp);
  if (!why) return 1;
  for (int i = 0; i < loaded; i++) {
    f->DeleteProgram(progs[i]);
    progs[i] = 0;
  }
  tfl_logf(diag, TFL_LOG_WARNING, "GL program cache %s: %s; recompiling", path, why);
  return -1;
}

/* Appends n bytes to a growing buffer; false on OOM. */
static bool put(uint8_t **buf, size_t *len, size_t *cap, const void *p, size_t n)
{
  if (*len + n > *cap) {
    size_t nc = (*cap ? *cap * 2 : 65536) + n;
    uint8_t *nb = realloc(*buf, nc);
    if (!nb) return false;
    *buf = nb;
    *cap = nc;
  }
  memcpy(*buf + *len, p, n);
  *len += n;
  return true;
}

/* The file is written whole to a unique temporary name and renamed (tfl_file_replace):
 * pipelines or processes saving the same programs at once never mix their bytes. */
static void cache_save(gl_context *c, const char *path, uint64_t key, int n, const unsigned *progs, tfl_diag *diag)
{
  const gl_funcs *f = &c->f;
  uint8_t *out = NULL;
  size_t len = 0, cap = 0;
  uint32_t cnt = (uint32_t)n;
  bool ok = put(&out, &len, &cap, MAGIC, 8) && put(&out, &len, &cap, &key, 8) && put(&out, &len, &cap, &cnt, 4);
  void *buf = NULL;
  for (int i = 0; ok && i < n; i++) {
    GLint blen = 0;
    f->GetProgramiv(progs[i], GL_PROGRAM_BINARY_LENGTH, &blen);
    void *nb = blen > 0 ? realloc(buf, (size_t)blen) : NULL;
    if (!nb) {
      ok = false;
      break;
    }
    buf = nb;
    GLenum fmt = 0;
    GLsizei got = 0;
    f->GetProgramBinary(progs[i], blen, &got, &fmt, buf);
    uint32_t fm = fmt, ln = (uint32_t)got;
    ok = got > 0 && put(&out, &len, &cap, &fm, 4) && put(&out, &len, &cap, &ln, 4) &&
         put(&out, &len, &cap, buf, (size_t)got);
  }
  free(buf);
  while (f->GetError() != GL_NO_ERROR) {
  }
  tfl_diag why;
  tfl_diag_init(&why);
  if (!ok)
    tfl_logf(diag, TFL_LOG_WARNING, "GL program cache %s: not saved (the driver gives no program binaries)", path);
  else if (tfl_file_replace(path, "GL program cache", out, len, &why) != TFL_OK)
    tfl_logf(diag, TFL_LOG_WARNING, "%s", why.error);
  free(out);
}

/* Debugging: with TFLGL_DUMP_SHADERS=DIR each source is written to
 * DIR/tflgl-<key>-<n>-<i>.comp (key before the sources are mixed in: the same model and
 * options give the same names), so two builds' shaders can be compared
 * (scripts/glsl_same.py). */
static void dump_sources(uint64_t key, char *const *srcs, int n, tfl_diag *diag)
{
  const char *dir = getenv("TFLGL_DUMP_SHADERS");
  if (!dir || !*dir) return;
  for (int i = 0; i < n; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/tflgl-%016llx-%d-%d.comp", dir, (unsigned long long)key, n, i);
    tfl_diag why;
    tfl_diag_init(&why);
    if (tfl_file_replace(path, "TFLGL_DUMP_SHADERS source", srcs[i], strlen(srcs[i]), &why) != TFL_OK) {
      tfl_logf(diag, TFL_LOG_WARNING, "%s", why.error);
      return;
    }
  }
}

tfl_status gl_programs_build(gl_context *c, const char *cache_dir, uint64_t key, char *const *srcs,
                             const char *const *labels, int n, unsigned *progs, gl_cache_result *result, tfl_diag *diag)
{
  dump_sources(key, srcs, n, diag);
  for (int i = 0; i < n; i++) {
    progs[i] = 0;
    key = gl_hash(key, srcs[i], strlen(srcs[i]));
  }
  *result = GL_CACHE_OFF;
  char path[4096];
  if (cache_dir) {
    cache_path(path, sizeof path, cache_dir, key);
    int r = cache_load(c, path, key, n, progs, diag);
    if (r == 1) {
      *result = GL_CACHE_HIT;
      return TFL_OK;
    }
    *result = r == 0 ? GL_CACHE_MISS : GL_CACHE_CORRUPT;
    if (r == -2) cache_dir = NULL; /* not ours to replace */
  }
  unsigned *sh = calloc((size_t)n + 1, sizeof *sh);
  if (!sh) return tfl_fail(diag, TFL_ERR_NOMEM, "GL: %d programs", n);
  for (int i = 0; i < n; i++) progs[i] = start_program(c, srcs[i], &sh[i]); /* all started, then waited for */
  tfl_status st = TFL_OK;
  for (int i = 0; i < n; i++) { /* every shader freed, the first failure reported */
    tfl_status s1 = finish_program(c, progs[i], sh[i], srcs[i], labels[i], st ? NULL : diag);
    if (!st) st = s1;
  }
  free(sh);
  if (st) {
    for (int j = 0; j < n; j++) {
      if (progs[j]) c->f.DeleteProgram(progs[j]);
      progs[j] = 0;
    }
    return st;
  }
  if (cache_dir) cache_save(c, path, key, n, progs, diag);
  return TFL_OK;
}
