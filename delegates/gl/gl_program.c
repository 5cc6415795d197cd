/* gl_program.c - compile, link, and the glGetProgramBinary cache. */
#include "gl_program.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

tfl_status gl_program_compile(gl_context *c, const char *src, const char *label, unsigned *prog, tfl_diag *diag)
{
  const gl_funcs *f = &c->f;
  *prog = 0;
  GLuint sh = f->CreateShader(GL_COMPUTE_SHADER);
  if (!sh) return gl_check(c, "glCreateShader", diag) ? TFL_ERR_BACKEND : tfl_fail(diag, TFL_ERR_BACKEND, "GL: glCreateShader failed");
  f->ShaderSource(sh, 1, &src, NULL);
  f->CompileShader(sh);
  GLint ok = 0;
  f->GetShaderiv(sh, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[1024] = "";
    f->GetShaderInfoLog(sh, sizeof log, NULL, log);
    f->DeleteShader(sh);
    tfl_logf(diag, TFL_LOG_DEBUG, "GL: failing source of %s:\n%s", label, src);
    return tfl_fail(diag, TFL_ERR_BACKEND, "GL: compiling the shader of %s failed: %s", label, log);
  }
  GLuint p = f->CreateProgram();
  f->AttachShader(p, sh);
  f->ProgramParameteri(p, GL_PROGRAM_BINARY_RETRIEVABLE_HINT, GL_TRUE);
  f->LinkProgram(p);
  f->DetachShader(p, sh);
  f->DeleteShader(sh);
  f->GetProgramiv(p, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[1024] = "";
    f->GetProgramInfoLog(p, sizeof log, NULL, log);
    f->DeleteProgram(p);
    return tfl_fail(diag, TFL_ERR_BACKEND, "GL: linking the program of %s failed: %s", label, log);
  }
  tfl_status st = gl_check(c, label, diag);
  if (st) {
    f->DeleteProgram(p);
    return st;
  }
  *prog = p;
  return TFL_OK;
}

static const char MAGIC[8] = {'T', 'F', 'L', 'G', 'L', 'P', 'C', '1'};

static void cache_path(char *buf, size_t n, const char *dir, uint64_t key)
{
  snprintf(buf, n, "%s/tflgl-%016llx.bin", dir, (unsigned long long)key);
}

/* 1: all programs loaded; 0: no file; -1: file unusable (warned). */
static int cache_load(gl_context *c, const char *path, uint64_t key, int n, unsigned *progs, tfl_diag *diag)
{
  FILE *fp = fopen(path, "rb");
  if (!fp) return 0;
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

static void cache_save(gl_context *c, const char *path, uint64_t key, int n, const unsigned *progs, tfl_diag *diag)
{
  const gl_funcs *f = &c->f;
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
  FILE *fp = fopen(tmp, "wb");
  if (!fp) {
    tfl_logf(diag, TFL_LOG_WARNING, "GL program cache: cannot write %s: %s", tmp, strerror(errno));
    return;
  }
  uint32_t cnt = (uint32_t)n;
  bool ok = fwrite(MAGIC, 1, 8, fp) == 8 && fwrite(&key, 8, 1, fp) == 1 && fwrite(&cnt, 4, 1, fp) == 1;
  void *buf = NULL;
  for (int i = 0; ok && i < n; i++) {
    GLint len = 0;
    f->GetProgramiv(progs[i], GL_PROGRAM_BINARY_LENGTH, &len);
    void *nb = len > 0 ? realloc(buf, (size_t)len) : NULL;
    if (!nb) {
      ok = false;
      break;
    }
    buf = nb;
    GLenum fmt = 0;
    GLsizei got = 0;
    f->GetProgramBinary(progs[i], len, &got, &fmt, buf);
    uint32_t fm = fmt, ln = (uint32_t)got;
    ok = got > 0 && fwrite(&fm, 4, 1, fp) == 1 && fwrite(&ln, 4, 1, fp) == 1 && fwrite(buf, 1, (size_t)got, fp) == (size_t)got;
  }
  free(buf);
  while (f->GetError() != GL_NO_ERROR) {
  }
  if (fclose(fp) != 0) ok = false;
  if (!ok || rename(tmp, path) != 0) {
    unlink(tmp);
    tfl_logf(diag, TFL_LOG_WARNING, "GL program cache: could not save %s (driver gives no binaries?)", path);
  }
}

tfl_status gl_programs_build(gl_context *c, const char *cache_dir, uint64_t key, char *const *srcs,
                             const char *const *labels, int n, unsigned *progs, gl_cache_result *result, tfl_diag *diag)
{
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
  }
  for (int i = 0; i < n; i++) {
    tfl_status st = gl_program_compile(c, srcs[i], labels[i], &progs[i], diag);
    if (st) {
      for (int j = 0; j < i; j++) {
        c->f.DeleteProgram(progs[j]);
        progs[j] = 0;
      }
      return st;
    }
  }
  if (cache_dir) cache_save(c, path, key, n, progs, diag);
  return TFL_OK;
}
