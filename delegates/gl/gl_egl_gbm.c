/* gl_egl_gbm.c - see gl_egl_gbm.h */
#include "gl_egl_gbm.h"
#include "gl_egl_platform.h"

#include <stdlib.h>

#include <EGL/egl.h>
#include <EGL/eglext.h>

#ifdef TFL_HAVE_GBM
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gbm.h>

#ifndef EGL_PLATFORM_GBM_KHR
#define EGL_PLATFORM_GBM_KHR 0x31D7 /* = EGL_PLATFORM_GBM_MESA */
#endif

struct gl_egl_gbm {
  int fd;
  struct gbm_device *dev;
  EGLDisplay dpy;
};

/* DRM render nodes take minors 128..191 */
enum { RENDER_FIRST = 128, RENDER_LAST = 191 };

/* The platform display of a GBM device: EGL 1.5's entry point, else the EXT one. */
static EGLDisplay gbm_display(struct gbm_device *dev)
{
  PFNEGLGETPLATFORMDISPLAYPROC core = (PFNEGLGETPLATFORMDISPLAYPROC)eglGetProcAddress("eglGetPlatformDisplay");
  if (core) return core(EGL_PLATFORM_GBM_KHR, dev, NULL);
  PFNEGLGETPLATFORMDISPLAYEXTPROC ext = (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
  return ext ? ext(EGL_PLATFORM_GBM_KHR, dev, NULL) : EGL_NO_DISPLAY;
}

tfl_status gl_egl_gbm_open(gl_egl_gbm **out, void **egl_display, tfl_diag *diag)
{
  *out = NULL;
  *egl_display = EGL_NO_DISPLAY;
  const char *cl = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (!gl_egl_has_ext(cl, "EGL_KHR_platform_gbm") && !gl_egl_has_ext(cl, "EGL_MESA_platform_gbm"))
    return tfl_fail(diag, TFL_ERR_BACKEND, "gbm: the EGL library has no GBM platform (client extensions: %s)",
                    cl ? cl : "none");
  char path[32], last[160] = "";
  int found = 0;
  for (int minor = RENDER_FIRST; minor <= RENDER_LAST; minor++) {
    snprintf(path, sizeof path, "/dev/dri/renderD%d", minor);
    /* a character device, not a regular file: opened here, not through tfl_file */
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
      if (errno != ENOENT) found++, snprintf(last, sizeof last, "%s: %s", path, strerror(errno));
      continue;
    }
    found++;
    struct gbm_device *dev = gbm_create_device(fd);
    EGLDisplay dpy = dev ? gbm_display(dev) : EGL_NO_DISPLAY;
    if (dpy == EGL_NO_DISPLAY) {
      snprintf(last, sizeof last, "%s: %s", path, dev ? "no EGL display for its GBM device" : "gbm_create_device failed");
      if (dev) gbm_device_destroy(dev);
      close(fd);
      continue;
    }
    gl_egl_gbm *g = malloc(sizeof *g);
    if (!g) {
      gbm_device_destroy(dev);
      close(fd);
      return tfl_fail(diag, TFL_ERR_NOMEM, "EGL GBM device");
    }
    *g = (gl_egl_gbm){fd, dev, dpy};
    *out = g;
    *egl_display = dpy;
    return TFL_OK;
  }
  if (!found)
    return tfl_fail(diag, TFL_ERR_BACKEND, "gbm: no DRM render node (/dev/dri/renderD%d..renderD%d do not exist)",
                    RENDER_FIRST, RENDER_LAST);
  return tfl_fail(diag, TFL_ERR_BACKEND, "gbm: no usable render node (%d found; last: %s)", found, last);
}

void gl_egl_gbm_free(gl_egl_gbm *g)
{
  if (!g) return;
  eglTerminate(g->dpy);
  gbm_device_destroy(g->dev);
  close(g->fd);
  free(g);
}

#else /* no libgbm at build time */

tfl_status gl_egl_gbm_open(gl_egl_gbm **out, void **egl_display, tfl_diag *diag)
{
  *out = NULL;
  *egl_display = EGL_NO_DISPLAY;
  return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "gbm: this build has no libgbm (meson found no 'gbm' dependency)");
}

void gl_egl_gbm_free(gl_egl_gbm *g)
{
  (void)g;
}

#endif
