/* gl_context.c - borrowing the current context or creating a headless EGL one. */
#include "gl_context.h"
#include "gl_egl_gbm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <EGL/egl.h>
#include <EGL/eglext.h>

#ifndef EGL_PLATFORM_SURFACELESS_MESA
#define EGL_PLATFORM_SURFACELESS_MESA 0x31DD
#endif

const char *gl_error_name(unsigned err)
{
  switch (err) {
  case GL_NO_ERROR: return "GL_NO_ERROR";
  case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
  case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
  case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
  case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
  case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
  }
  return "unknown GL error";
}

tfl_status gl_check(gl_context *c, const char *what, tfl_diag *diag)
{
  GLenum first = GL_NO_ERROR, e;
  int guard = 0;
  while ((e = c->f.GetError()) != GL_NO_ERROR && guard++ < 16)
    if (first == GL_NO_ERROR) first = e;
  if (first == GL_NO_ERROR) return TFL_OK;
  return tfl_fail(diag, first == GL_OUT_OF_MEMORY ? TFL_ERR_NOMEM : TFL_ERR_BACKEND, "GL: %s: %s (0x%04x)", what,
                   gl_error_name(first), first);
}

static tfl_status load_funcs(gl_context *c, tfl_diag *diag)
{
#define GL_FUNC_LOAD(type, name)                                                                   \
  c->f.name = (type)eglGetProcAddress("gl" #name);                                                 \
  if (!c->f.name) return tfl_fail(diag, TFL_ERR_BACKEND, "GL: entry point gl%s not found", #name);
  GL_FUNC_LIST(GL_FUNC_LOAD)
#undef GL_FUNC_LOAD
  return TFL_OK;
}

static void load_optional(gl_context *c)
{
  bool ext = false, par = false, oes = false;
  GLint n = 0;
  c->f.GetIntegerv(GL_NUM_EXTENSIONS, &n);
  const GLubyte *(GL_APIENTRYP get_stringi)(GLenum, GLuint) =
      (const GLubyte *(GL_APIENTRYP)(GLenum, GLuint))eglGetProcAddress("glGetStringi");
  for (GLint i = 0; get_stringi && i < n; i++) {
    const char *e = (const char *)get_stringi(GL_EXTENSIONS, (GLuint)i);
    ext = ext || (e && strcmp(e, "GL_EXT_disjoint_timer_query") == 0);
    par = par || (e && (!strcmp(e, "GL_KHR_parallel_shader_compile") || !strcmp(e, "GL_ARB_parallel_shader_compile")));
    oes = oes || (e && !strcmp(e, "GL_OES_EGL_image_external_essl3"));
  }
  c->oes_external = oes;
  /* programs compile on all the driver's threads (gl_programs_build starts them all
   * before waiting for any) */
  void (GL_APIENTRYP max_threads)(GLuint) = NULL;
  if (par) max_threads = (void (GL_APIENTRYP)(GLuint))eglGetProcAddress("glMaxShaderCompilerThreadsKHR");
  if (par && !max_threads) max_threads = (void (GL_APIENTRYP)(GLuint))eglGetProcAddress("glMaxShaderCompilerThreadsARB");
  if (max_threads) max_threads(0xFFFFFFFFu);
  c->parallel_compile = max_threads != NULL;
  if (c->is_gles && ext) {
    c->QueryCounter = (gl_query_counter_fn)eglGetProcAddress("glQueryCounterEXT");
    c->GetQueryObjectui64v = (gl_get_query_u64_fn)eglGetProcAddress("glGetQueryObjectui64vEXT");
  } else if (!c->is_gles) {
    c->QueryCounter = (gl_query_counter_fn)eglGetProcAddress("glQueryCounter");
    c->GetQueryObjectui64v = (gl_get_query_u64_fn)eglGetProcAddress("glGetQueryObjectui64v");
  }
  if (!c->QueryCounter || !c->GetQueryObjectui64v) c->QueryCounter = NULL, c->GetQueryObjectui64v = NULL;
  while (c->f.GetError() != GL_NO_ERROR) {
  }
}

/* Creates a GLES 3.1+ context on an initialized display; EGL_NO_CONTEXT on failure. */
static EGLContext make_context(EGLDisplay dpy, bool gles31)
{
  if (!eglBindAPI(EGL_OPENGL_ES_API)) return EGL_NO_CONTEXT;
  const char *exts = eglQueryString(dpy, EGL_EXTENSIONS);
  EGLConfig cfg = (EGLConfig)0; /* EGL_NO_CONFIG_KHR */
  if (!gl_egl_has_ext(exts, "EGL_KHR_no_config_context")) {
    EGLint attr[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT, EGL_SURFACE_TYPE, 0, EGL_NONE};
    EGLint n = 0;
    if (!eglChooseConfig(dpy, attr, &cfg, 1, &n) || n < 1) return EGL_NO_CONTEXT;
  }
  static const int versions[][2] = {{3, 2}, {3, 1}};
  for (int i = gles31 ? 1 : 0; i < 2; i++) {
    EGLint attr[] = {EGL_CONTEXT_MAJOR_VERSION, versions[i][0], EGL_CONTEXT_MINOR_VERSION, versions[i][1],
                     EGL_NONE};
    EGLContext ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, attr);
    if (ctx == EGL_NO_CONTEXT) continue;
    if (eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) return ctx;
    eglDestroyContext(dpy, ctx);
  }
  return EGL_NO_CONTEXT;
}

/* A context on dpy; on failure the reason in *diag, prefixed with the platform's name. */
static tfl_status try_display(gl_context *c, EGLDisplay dpy, gl_egl_platform p, bool gles31,
                              tfl_diag *diag)
{
  const char *name = gl_egl_platform_name(p);
  if (dpy == EGL_NO_DISPLAY) return tfl_fail(diag, TFL_ERR_BACKEND, "%s: no display (EGL error 0x%04x)", name, eglGetError());
  EGLint maj, min;
  if (!eglInitialize(dpy, &maj, &min))
    return tfl_fail(diag, TFL_ERR_BACKEND, "%s: eglInitialize failed (0x%04x)", name, eglGetError());
  /* no surface at all: compute only */
  if (!gl_egl_has_ext(eglQueryString(dpy, EGL_EXTENSIONS), "EGL_KHR_surfaceless_context"))
    return tfl_fail(diag, TFL_ERR_BACKEND, "%s: the display has no EGL_KHR_surfaceless_context", name);
  EGLContext ctx = make_context(dpy, gles31);
  if (ctx == EGL_NO_CONTEXT)
    return tfl_fail(diag, TFL_ERR_BACKEND, "%s: no GLES 3.1 context made current (0x%04x)", name, eglGetError());
  c->egl_display = dpy;
  c->egl_context = ctx;
  c->owned = true;
  c->platform = p;
  return TFL_OK;
}

static tfl_status try_device(gl_context *c, PFNEGLGETPLATFORMDISPLAYEXTPROC get_display, const char *cl, bool gles31,
                             tfl_diag *diag)
{
  PFNEGLQUERYDEVICESEXTPROC query_devices = (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
  if (!query_devices || !gl_egl_has_ext(cl, "EGL_EXT_platform_device"))
    return tfl_fail(diag, TFL_ERR_BACKEND, "device: no EGL_EXT_platform_device");
  EGLDeviceEXT devs[16];
  EGLint n = 0;
  if (!query_devices(16, devs, &n) || n < 1) return tfl_fail(diag, TFL_ERR_BACKEND, "device: eglQueryDevicesEXT found none");
  for (int i = 0; i < n; i++)
    if (try_display(c, get_display(EGL_PLATFORM_DEVICE_EXT, devs[i], NULL), GL_EGL_DEVICE, gles31, diag) == TFL_OK)
      return TFL_OK;
  return TFL_ERR_BACKEND; /* diag: the last device's failure */
}

static tfl_status try_surfaceless(gl_context *c, PFNEGLGETPLATFORMDISPLAYEXTPROC get_display, const char *cl,
                                  bool gles31, tfl_diag *diag)
{
  if (!gl_egl_has_ext(cl, "EGL_MESA_platform_surfaceless"))
    return tfl_fail(diag, TFL_ERR_BACKEND, "surfaceless: no EGL_MESA_platform_surfaceless");
  return try_display(c, get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL), GL_EGL_SURFACELESS,
                     gles31, diag);
}

static tfl_status try_gbm(gl_context *c, bool gles31, tfl_diag *diag)
{
  gl_egl_gbm *g;
  void *dpy;
  tfl_status st = gl_egl_gbm_open(&g, &dpy, diag);
  if (st != TFL_OK) return st;
  if ((st = try_display(c, (EGLDisplay)dpy, GL_EGL_GBM, gles31, diag)) != TFL_OK) {
    gl_egl_gbm_free(g);
    return st;
  }
  c->gbm = g;
  return TFL_OK;
}

/* The platform asked for, or with AUTO the device platform, surfaceless, then GBM; the
 * error names every platform tried and why each failed. */
static tfl_status create_headless(gl_context *c, gl_egl_platform want, bool gles31, tfl_diag *diag)
{
  if (want == GL_EGL_NONE)
    return tfl_fail(diag, TFL_ERR_BACKEND, "EGL: no own context (egl platform \"none\" forces every path off)");
  const char *cl = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
      (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
  if (!get_display)
    return tfl_fail(diag, TFL_ERR_BACKEND, "EGL: no eglGetPlatformDisplayEXT (client extensions: %s)", cl ? cl : "none");
  char why[sizeof diag->error] = "";
  size_t len = 0;
  for (int p = GL_EGL_DEVICE; p <= GL_EGL_GBM; p++) {
    if (want != GL_EGL_AUTO && want != (gl_egl_platform)p) continue;
    tfl_diag one;
    tfl_diag_init(&one);
    tfl_status st = p == GL_EGL_DEVICE        ? try_device(c, get_display, cl, gles31, &one)
                    : p == GL_EGL_SURFACELESS ? try_surfaceless(c, get_display, cl, gles31, &one)
                                              : try_gbm(c, gles31, &one);
    if (st == TFL_OK) return TFL_OK;
    if (len < sizeof why) len += (size_t)snprintf(why + len, sizeof why - len, "%s%s", len ? "; " : "", one.error);
  }
  return tfl_fail(diag, TFL_ERR_BACKEND, "EGL: no own GLES 3.1 context (platform %s): %s", gl_egl_platform_name(want),
                  why);
}

static tfl_status query_limits(gl_context *c, tfl_diag *diag)
{
  const char *ver = (const char *)c->f.GetString(GL_VERSION);
  const char *ren = (const char *)c->f.GetString(GL_RENDERER);
  if (!ver) return tfl_fail(diag, TFL_ERR_BACKEND, "GL: glGetString(GL_VERSION) returned NULL (no usable context)");
  snprintf(c->version, sizeof c->version, "%s", ver);
  snprintf(c->renderer, sizeof c->renderer, "%s", ren ? ren : "?");
  c->is_gles = strncmp(ver, "OpenGL ES", 9) == 0;
  const char *p = ver;
  while (*p && (*p < '0' || *p > '9')) p++;
  if (sscanf(p, "%d.%d", &c->major, &c->minor) != 2)
    return tfl_fail(diag, TFL_ERR_BACKEND, "GL: cannot parse GL_VERSION \"%s\"", ver);
  bool ok = c->is_gles ? (c->major > 3 || (c->major == 3 && c->minor >= 1))
                       : (c->major > 4 || (c->major == 4 && c->minor >= 3));
  if (!ok)
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "GL: \"%s\" has no compute shaders (need GLES 3.1 or GL 4.3)", ver);
  GLint v = 0;
  c->f.GetIntegerv(GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT, &v);
  c->ssbo_offset_align = v > 0 ? v : 256;
  v = 0;
  c->f.GetIntegerv(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &v);
  c->max_ssbo_bytes = v > 0 ? (long long)(unsigned)v : (1ll << 27);
  c->f.GetIntegerv(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, &c->max_wg_invocations);
  c->f.GetIntegerv(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, &c->max_shared_bytes);
  for (int i = 0; i < 3; i++) c->f.GetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, (GLuint)i, &c->max_wg_count[i]);
  gl_limits *l = &c->lim;
  l->ssbo_bytes = c->max_ssbo_bytes;
  l->wg_invocations = c->max_wg_invocations;
  l->shared_bytes = c->max_shared_bytes;
  for (int i = 0; i < 3; i++) {
    l->wg_count[i] = c->max_wg_count[i];
    c->f.GetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_SIZE, (GLuint)i, &l->wg_size[i]);
  }
  c->f.GetIntegerv(GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS, &l->ssbo_blocks);
  c->f.GetIntegerv(GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS, &l->ssbo_bindings);
  c->f.GetIntegerv(GL_MAX_COMPUTE_TEXTURE_IMAGE_UNITS, &l->texture_units);
  c->f.GetIntegerv(GL_MAX_COMPUTE_IMAGE_UNIFORMS, &l->image_uniforms);
  c->f.GetIntegerv(GL_MAX_COMPUTE_UNIFORM_COMPONENTS, &l->uniform_components);
  return gl_check(c, "querying compute limits", diag);
}

/* lim clamped to the profile's, the older fields following it */
static void apply_profile(gl_context *c, gl_device_profile p)
{
  c->profile = p;
  gl_limits_clamp(&c->lim, gl_profile_limits(p));
  c->max_ssbo_bytes = c->lim.ssbo_bytes;
  c->max_wg_invocations = c->lim.wg_invocations;
  c->max_shared_bytes = c->lim.shared_bytes;
  for (int i = 0; i < 3; i++) c->max_wg_count[i] = c->lim.wg_count[i];
}

tfl_status gl_context_create(bool use_current, gl_egl_platform platform, gl_context **out, tfl_diag *diag)
{
  return gl_context_create_for(use_current, platform, GL_PROFILE_NATIVE, out, diag);
}

tfl_status gl_context_create_for(bool use_current, gl_egl_platform platform, gl_device_profile profile, gl_context **out,
                                 tfl_diag *diag)
{
  *out = NULL;
  gl_context *c = calloc(1, sizeof *c);
  if (!c) return tfl_fail(diag, TFL_ERR_NOMEM, "GL context");
  tfl_status st;
  if (use_current) {
    if (eglGetCurrentContext() == EGL_NO_CONTEXT) {
      free(c);
      return tfl_fail(diag, TFL_ERR_BACKEND, "GL: use_current_context is set but no EGL context is current on this thread");
    }
    c->egl_display = eglGetCurrentDisplay();
    c->egl_context = eglGetCurrentContext();
  } else if ((st = create_headless(c, platform, profile == GL_PROFILE_GLES31_MIN, diag)) != TFL_OK) {
    free(c);
    return st;
  }
  if ((st = load_funcs(c, diag)) != TFL_OK || (st = query_limits(c, diag)) != TFL_OK) {
    gl_context_free(c);
    return st;
  }
  apply_profile(c, profile);
  if ((st = gl_limits_check_base(&c->lim, diag)) != TFL_OK) {
    tfl_fail_prefix(diag, st, "%s (profile %s)", c->renderer, gl_device_profile_name(profile));
    gl_context_free(c);
    return st;
  }
  load_optional(c);
  tfl_logf(diag, TFL_LOG_INFO, "GL: %s context%s%s, %s, %s, profile %s", c->owned ? "own headless" : "caller's",
           c->owned ? " on EGL platform " : "", c->owned ? gl_egl_platform_name(c->platform) : "", c->version,
           c->renderer, gl_device_profile_name(profile));
  *out = c;
  return TFL_OK;
}

tfl_status gl_context_bind(gl_context *c, tfl_diag *diag)
{
  if (eglGetCurrentContext() == (EGLContext)c->egl_context) return TFL_OK;
  if (!c->owned)
    return tfl_fail(diag, TFL_ERR_BACKEND, "GL: the delegate's context is not current on this thread");
  if (!eglMakeCurrent((EGLDisplay)c->egl_display, EGL_NO_SURFACE, EGL_NO_SURFACE, (EGLContext)c->egl_context))
    return tfl_fail(diag, TFL_ERR_BACKEND, "EGL: eglMakeCurrent failed (0x%04x)", eglGetError());
  return TFL_OK;
}

void gl_context_free(gl_context *c)
{
  if (!c) return;
  if (c->owned) {
    EGLDisplay dpy = (EGLDisplay)c->egl_display;
    if (eglGetCurrentContext() == (EGLContext)c->egl_context)
      eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    /* no eglTerminate of a device or surfaceless display: every context of the process
     * on it shares it */
    eglDestroyContext(dpy, (EGLContext)c->egl_context);
    gl_egl_gbm_free(c->gbm); /* the GBM display is this context's alone */
  }
  free(c);
}
