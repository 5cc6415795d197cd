/* test_fuzz_gl_regress.c - every input that was a finding of fuzz_gl (regress-gl/), through
 * the same code (fuzz_gl_model.h) in the normal and ASan builds: GL must agree with the CPU
 * reference on each (or either refuses it) and, under the sanitizers, run clean.
 *
 * Usage: test_fuzz_gl_regress DIR...   (every regular file of each DIR; an empty DIR fails)
 * The program cache goes to a new folder under $TMPDIR (or /tmp), removed at the end.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../check.h"
#include "fuzz_gl_model.h"
#include "runtime/tfl_status.h"

static int replay(fuzz_gl *f, const char *dir)
{
  DIR *d = opendir(dir);
  CHECK(d != NULL, "%s: %s", dir, strerror(errno));
  if (!d) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (e->d_name[0] == '.' || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
    FILE *in = fopen(path, "rb");
    CHECK(in != NULL, "%s: %s", path, strerror(errno));
    if (!in) continue;
    size_t size = (size_t)st.st_size;
    uint8_t *data = malloc(size ? size : 1);
    size_t got = data ? fread(data, 1, size, in) : 0;
    fclose(in);
    CHECK(data && got == size, "%s: cannot read", path);
    if (data && got == size) {
      bool differ = false;
      char msg[1024];
      tfl_status s = fuzz_gl_run(f, data, size, &differ, msg, sizeof msg);
      printf("%s: %s %s\n", e->d_name, differ ? "GL DISAGREES:" : tfl_status_name(s), msg);
      CHECK(!differ, "%s: %s", path, msg);
      n++;
    }
    free(data);
  }
  closedir(d);
  return n;
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: test_fuzz_gl_regress DIR...\n");
    return 2;
  }
  const char *tmp = getenv("TMPDIR");
  char cache[4096];
  snprintf(cache, sizeof cache, "%s/fuzz_gl_regress-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(cache)) {
    perror("mkdtemp");
    return 1;
  }
  char why[512];
  fuzz_gl *f = fuzz_gl_open(cache, why, sizeof why);
  CHECK(f != NULL, "%s", why);
  for (int i = 1; f && i < argc; i++) CHECK(replay(f, argv[i]) > 0, "%s: no inputs", argv[i]);
  fuzz_gl_close(f);
  /* the cache's files, then its folder */
  DIR *d = opendir(cache);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    char p[sizeof cache + 2 + sizeof e->d_name];
    snprintf(p, sizeof p, "%s/%s", cache, e->d_name);
    if (e->d_name[0] != '.') unlink(p);
  }
  if (d) closedir(d);
  rmdir(cache);
  printf("%d failures\n", failures);
  return failures ? 1 : 0;
}
