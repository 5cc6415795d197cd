/* test_fuzz_regress.c - every input that ever crashed a fuzz target, and the seed corpus,
 * through the fuzz targets' own code (fuzz_model.h), in the normal and sanitizer builds.
 *
 * Usage: test_fuzz_regress REGRESS_DIR [CORPUS_DIR...]
 *        test_fuzz_regress --show FILE...   (one expect.txt line per file, as it runs now:
 *                                            add_regress.sh uses it for new crashers)
 *
 * REGRESS_DIR/expect.txt has one line per regression input:
 *     FILE  STATUS  TEXT...
 * STATUS is what fuzz_run must return (TFL_OK, TFL_ERR_FORMAT, ...) and TEXT a part of its
 * error message that names the problem ("-" for none). Every other file in REGRESS_DIR must
 * be listed, so no crasher is added without its expectation. Files in the corpus folders
 * must load and run without a crash (their status is printed, not checked): under
 * ASan+UBSan, a memory error, undefined behaviour or leak fails the test.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../check.h"
#include "fuzz_model.h"

static uint8_t *read_file(const char *path, size_t *size)
{
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  uint8_t *buf = NULL;
  size_t cap = 0, n = 0;
  for (;;) {
    if (n == cap) {
      cap = cap ? cap * 2 : 65536;
      uint8_t *nb = realloc(buf, cap);
      if (!nb) break;
      buf = nb;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  fclose(f);
  *size = n;
  return buf ? buf : malloc(1);
}

static const char *status_names[] = {"TFL_OK", "TFL_ERR_IO", "TFL_ERR_FORMAT", "TFL_ERR_UNSUPPORTED",
                                     "TFL_ERR_SHAPE", "TFL_ERR_NOMEM", "TFL_ERR_ARG", "TFL_ERR_BACKEND"};

static const char *status_str(tfl_status s)
{
  return (unsigned)s < sizeof status_names / sizeof status_names[0] ? status_names[s] : "?";
}

/* Runs one regression input against its expect.txt line. */
static void check_one(const char *dir, const char *file, const char *want_status, const char *want_text)
{
  char path[4096], msg[600];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  size_t n = 0;
  uint8_t *data = read_file(path, &n);
  CHECK(data != NULL, "%s: cannot read: %s", path, strerror(errno));
  if (!data) return;
  (void)fuzz_load(data, n, NULL, 0);
  tfl_status st = fuzz_run(data, n, msg, sizeof msg);
  free(data);
  printf("%-44s %-20s %s\n", file, status_str(st), msg);
  CHECK(strcmp(status_str(st), want_status) == 0, "%s: %s (%s), expected %s", file, status_str(st), msg,
        want_status);
  CHECK(strcmp(want_text, "-") == 0 || strstr(msg, want_text) != NULL, "%s: message '%s' lacks '%s'", file, msg,
        want_text);
}

/* Reads expect.txt, checks each line, and that every file of dir is listed. */
static int run_regressions(const char *dir)
{
  char path[4096], line[1024];
  snprintf(path, sizeof path, "%s/expect.txt", dir);
  FILE *f = fopen(path, "r");
  CHECK(f != NULL, "%s: %s", path, strerror(errno));
  if (!f) return 0;
  char (*listed)[256] = NULL;
  int n_listed = 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    if (!line[0] || line[0] == '#') continue;
    char file[256], status[64];
    int used = 0;
    if (sscanf(line, "%255s %63s %n", file, status, &used) < 2 || !line[used]) {
      CHECK(0, "%s: bad line '%s'", path, line);
      continue;
    }
    void *nl = realloc(listed, sizeof *listed * (size_t)(n_listed + 1));
    if (!nl) break;
    listed = nl;
    snprintf(listed[n_listed++], sizeof listed[0], "%s", file);
    check_one(dir, file, status, line + used);
  }
  fclose(f);
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (e->d_name[0] == '.' || strcmp(e->d_name, "expect.txt") == 0) continue;
    bool found = false;
    for (int i = 0; i < n_listed && !found; i++) found = strcmp(listed[i], e->d_name) == 0;
    CHECK(found, "%s/%s is not listed in expect.txt", dir, e->d_name);
  }
  if (d) closedir(d);
  free(listed);
  return n_listed;
}

/* Every file of a corpus folder through both targets; no status expected. */
static int replay(const char *dir)
{
  DIR *d = opendir(dir);
  CHECK(d != NULL, "%s: %s", dir, strerror(errno));
  if (!d) return 0;
  int n = 0, ok = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
    size_t size = 0;
    uint8_t *data = read_file(path, &size);
    CHECK(data != NULL, "%s: cannot read", path);
    if (!data) continue;
    (void)fuzz_load(data, size, NULL, 0);
    ok += fuzz_run(data, size, NULL, 0) == TFL_OK;
    n++;
    free(data);
  }
  closedir(d);
  printf("%s: %d inputs, %d ran\n", dir, n, ok);
  return n;
}

/* Prints "NAME STATUS MESSAGE" for each file: what expect.txt would say today. */
static int show(int argc, char **argv)
{
  for (int i = 2; i < argc; i++) {
    size_t n = 0;
    uint8_t *data = read_file(argv[i], &n);
    if (!data) {
      fprintf(stderr, "%s: cannot read: %s\n", argv[i], strerror(errno));
      return 1;
    }
    char msg[600];
    (void)fuzz_load(data, n, NULL, 0);
    tfl_status st = fuzz_run(data, n, msg, sizeof msg);
    free(data);
    const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
    /* the message without the interpreter's partition prefix: it names the node anyway */
    const char *m = strstr(msg, "): node ") ? strstr(msg, "): node ") + 3 : msg;
    printf("%s %s %s\n", base, status_str(st), st == TFL_OK ? "-" : m);
  }
  return 0;
}

int main(int argc, char **argv)
{
  if (argc > 1 && strcmp(argv[1], "--show") == 0) return show(argc, argv);
  if (argc < 2) {
    fprintf(stderr, "usage: test_fuzz_regress REGRESS_DIR [CORPUS_DIR...]\n");
    return 2;
  }
  int n = run_regressions(argv[1]);
  CHECK(n > 0, "no regression inputs in %s", argv[1]);
  for (int i = 2; i < argc; i++) CHECK(replay(argv[i]) > 0, "%s: no inputs", argv[i]);
  printf("%d regression inputs, %d failures\n", n, failures);
  return failures ? 1 : 0;
}
