/* gl_cache_dir.c - the program cache's default home: the user's cache directory
 * (XDG Base Directory: $XDG_CACHE_HOME, else $HOME/.cache), subdirectory gst-tflite,
 * created with mode 0700 when missing. */
#include "gl_cache_dir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* mkdir -p for the last two components (the cache home may not exist yet). */
static bool make_dir(const char *path)
{
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *s = buf + 1; *s; s++)
    if (*s == '/') {
      *s = 0;
      if (mkdir(buf, 0700) != 0 && errno != EEXIST) return false;
      *s = '/';
    }
  return mkdir(buf, 0700) == 0 || errno == EEXIST;
}

char *gl_cache_default_dir(tfl_diag *diag)
{
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  char path[4096];
  if (xdg && xdg[0] == '/') snprintf(path, sizeof path, "%s/gst-tflite", xdg);
  else if (home && home[0] == '/') snprintf(path, sizeof path, "%s/.cache/gst-tflite", home);
  else return NULL;
  if (!make_dir(path)) {
    tfl_logf(diag, TFL_LOG_WARNING, "GL: no program cache: cannot create %s: %s", path, strerror(errno));
    return NULL;
  }
  return strdup(path);
}
