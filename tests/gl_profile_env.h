/* gl_profile_env.h - the GL device profile the tests run under: $TFL_GL_PROFILE
 * ("gles31-min", "mali-g610", "v3d", "adreno6xx"; unset or empty: native), so one
 * build runs its GL suites as on a board's GPU (meson test --setup gles31-min). A name
 * that is not a profile stops the test: a typo must not test the native limits. */
#ifndef GL_PROFILE_ENV_H
#define GL_PROFILE_ENV_H

#include <stdio.h>
#include <stdlib.h>

#include "delegates/gl/gl_delegate.h"

static inline gl_device_profile gl_profile_from_env(void)
{
  const char *s = getenv("TFL_GL_PROFILE");
  gl_device_profile p = GL_PROFILE_NATIVE;
  if (s && *s && !gl_device_profile_parse(s, &p)) {
    fprintf(stderr, "TFL_GL_PROFILE=%s is not one of %s\n", s, gl_device_profile_names());
    exit(2);
  }
  return p;
}

#endif
