/* gl_egl_platform.h - which EGL platform the delegate's own headless context comes from.
 *
 * AUTO tries the EGL device platform (one display per GPU or software device), then
 * Mesa's surfaceless platform, then GBM on a DRM render node (what vendor EGLs such as
 * Rockchip's libmali offer). The others force one path (tests, boards); NONE makes no
 * own context at all (tests of the callers' fallbacks). Plain data, no GL, no EGL.
 */
#ifndef GL_EGL_PLATFORM_H
#define GL_EGL_PLATFORM_H

#include <stdbool.h>

typedef enum {
  GL_EGL_AUTO = 0,
  GL_EGL_DEVICE,
  GL_EGL_SURFACELESS,
  GL_EGL_GBM,
  GL_EGL_NONE,
} gl_egl_platform;

/* "auto", "device", "surfaceless", "gbm", "none" (the spelling of TFL_GL_EGL_PLATFORM). */
const char *gl_egl_platform_name(gl_egl_platform p);
/* false (and *out untouched) for any other string. */
bool gl_egl_platform_parse(const char *s, gl_egl_platform *out);
/* Whether the space-separated extension list (may be NULL) holds name exactly. */
bool gl_egl_has_ext(const char *list, const char *name);

#endif
