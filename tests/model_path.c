/* model_path.c - see model_path.h */
#include "model_path.h"

#include <dirent.h>
#include <stdio.h>
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
