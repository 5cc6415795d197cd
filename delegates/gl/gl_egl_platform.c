/* gl_egl_platform.c - see gl_egl_platform.h */
#include "gl_egl_platform.h"

#include <string.h>

static const char *const names[] = {"auto", "device", "surfaceless", "gbm", "none"};

const char *gl_egl_platform_name(gl_egl_platform p)
{
  return (unsigned)p < sizeof names / sizeof names[0] ? names[p] : "?";
}

bool gl_egl_platform_parse(const char *s, gl_egl_platform *out)
{
  for (unsigned i = 0; s && i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(s, names[i])) {
      *out = (gl_egl_platform)i;
      return true;
    }
  return false;
}

bool gl_egl_has_ext(const char *list, const char *name)
{
  size_t n = strlen(name);
  for (const char *p = list; p && (p = strstr(p, name)); p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0)) return true;
  return false;
}
