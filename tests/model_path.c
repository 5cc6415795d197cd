/* model_path.c - see model_path.h */
#include "model_path.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static bool is_file(const char *p)
{
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

bool test_find_model(const char *dir, const char *name, char *out, size_t n)
{
  snprintf(out, n, "%s/%s", dir, name);
  if (is_file(out)) return true;
  DIR *d = opendir(dir);
  if (!d) return false;
  struct dirent *e;
  bool found = false;
  while (!found && (e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    snprintf(out, n, "%s/%s/%s", dir, e->d_name, name);
    if (is_file(out)) found = true;
    else {
      snprintf(out, n, "%s/%s/package/%s", dir, e->d_name, name);
      found = is_file(out);
    }
  }
  closedir(d);
  return found;
}

bool test_model_dirs(int argc, char **argv, const char **shared, const char **npm)
{
  if (argc < 3) {
    fprintf(stderr, "usage: %s SHARED_MODELS_DIR NPM_MODELS_DIR (meson gives both)\n", argv[0]);
    return false;
  }
  const char *env = getenv("TFL_SHARED_MODELS");
  *shared = env && *env ? env : argv[1];
  *npm = argv[2];
  return true;
}
