/* test_tfl_file.c - runtime/tfl_file.c, the one door for files a user, a property or a
 * cache names: FIFOs refused without blocking, links not written through, size limits,
 * atomic replace, and first-writer-wins publishing (several processes at once). Files are
 * made and checked here with plain POSIX calls. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime/tfl_file.h"

#define CHECK_PRINTS_OK /* the log lists the passing checks too */
#include "check.h"

static char dir[] = "/tmp/tfl-file-XXXXXX";

static const char *at(const char *name)
{
  static char buf[8][512];
  static int k;
  k = (k + 1) % 8;
  snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
  return buf[k];
}

static void put(const char *path, const char *text)
{
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) printf("FAIL writing %s\n", path);
  if (fd >= 0) close(fd);
}

/* The file's text ("" if unreadable). */
static const char *get(const char *path)
{
  static char buf[256];
  buf[0] = '\0';
  int fd = open(path, O_RDONLY | O_NONBLOCK);
  if (fd < 0) return buf;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  buf[n > 0 ? n : 0] = '\0';
  close(fd);
  return buf;
}

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Entries in dir whose name starts with prefix (temporary files left behind show here). */
static int count(const char *prefix)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  while (d && (e = readdir(d)))
    if (!strncmp(e->d_name, prefix, strlen(prefix))) n++;
  if (d) closedir(d);
  return n;
}

static void test_reads(void)
{
  tfl_diag d;
  const char *fifo = at("fifo");
  mkfifo(fifo, 0600);
  double t0 = now_s();
  size_t size = 0;
  tfl_diag_init(&d);
  int fd = tfl_file_open_read(fifo, "labels", &size, &d);
  CHECK(fd < 0 && strstr(d.error, fifo) && strstr(d.error, "FIFO"), "read: a FIFO refused: %s", d.error);
  tfl_diag_init(&d);
  FILE *f = tfl_file_fopen_read(fifo, "annotations", 1 << 20, &d);
  CHECK(!f && strstr(d.error, "FIFO") && now_s() - t0 < 5, "stream: a FIFO refused at once: %s", d.error);
  put(at("ten"), "0123456789");
  tfl_diag_init(&d);
  f = tfl_file_fopen_read(at("ten"), "annotations", 9, &d);
  CHECK(!f && strstr(d.error, "10 bytes") && strstr(d.error, "limit of 9"), "stream: over the limit: %s", d.error);
  tfl_diag_init(&d);
  f = tfl_file_fopen_read(at("ten"), "annotations", 10, &d);
  char buf[16] = "";
  size_t got = f ? fread(buf, 1, sizeof buf, f) : 0;
  if (f) fclose(f);
  CHECK(got == 10 && !memcmp(buf, "0123456789", 10), "stream: a file at the limit reads whole (%zu bytes)", got);
  tfl_diag_init(&d);
  f = tfl_file_fopen_read(at("missing"), "annotations", 10, &d);
  CHECK(!f && strstr(d.error, "does not exist"), "stream: a missing file named: %s", d.error);
}

static void test_scratch(void)
{
  tfl_diag d;
  /* an old spill file is emptied; a new one is made with the mode asked for */
  put(at("spill"), "old contents");
  tfl_diag_init(&d);
  int fd = tfl_file_open_scratch(at("spill"), "spill file", 0600, &d);
  struct stat st;
  CHECK(fd >= 0 && fstat(fd, &st) == 0 && st.st_size == 0, "scratch: an existing file emptied: %s", d.error);
  CHECK(fd >= 0 && write(fd, "ab", 2) == 2 && pread(fd, (char[2]){0}, 2, 0) == 2, "scratch: read-write");
  if (fd >= 0) close(fd);
  tfl_diag_init(&d);
  fd = tfl_file_open_scratch(at("spill-new"), "spill file", 0600, &d);
  CHECK(fd >= 0 && stat(at("spill-new"), &st) == 0 && (st.st_mode & 0777) == 0600, "scratch: created 0600");
  if (fd >= 0) close(fd);
  /* a link under the name: refused, its target untouched */
  put(at("precious"), "keep me");
  symlink(at("precious"), at("spill-link"));
  tfl_diag_init(&d);
  fd = tfl_file_open_scratch(at("spill-link"), "spill file", 0600, &d);
  CHECK(fd < 0 && strstr(d.error, "symbolic link") && !strcmp(get(at("precious")), "keep me"),
        "scratch: a link refused, target unchanged: %s", d.error);
  /* a FIFO: refused at once (no reader, no writer) */
  double t0 = now_s();
  tfl_diag_init(&d);
  fd = tfl_file_open_scratch(at("fifo"), "spill file", 0600, &d);
  CHECK(fd < 0 && strstr(d.error, "FIFO") && now_s() - t0 < 5, "scratch: a FIFO refused at once: %s", d.error);
  tfl_diag_init(&d);
  fd = tfl_file_open_scratch("/dev/null", "spill file", 0600, &d);
  CHECK(fd < 0 && strstr(d.error, "character device"), "scratch: a device refused: %s", d.error);
}

static void test_replace_link(void)
{
  tfl_diag d;
  put(at("target"), "target text");
  symlink(at("target"), at("out.json"));
  tfl_diag_init(&d);
  tfl_status s = tfl_file_replace(at("out.json"), "results", "new", 3, &d);
  struct stat st;
  CHECK(s == TFL_OK && lstat(at("out.json"), &st) == 0 && S_ISREG(st.st_mode) && !strcmp(get(at("out.json")), "new") &&
            !strcmp(get(at("target")), "target text"),
        "replace: a link under the name is replaced, its target unchanged");
  tfl_diag_init(&d);
  s = tfl_file_replace(at("fifo"), "results", "new", 3, &d);
  CHECK(s != TFL_OK && strstr(d.error, "FIFO"), "replace: a FIFO left alone: %s", d.error);
}

static void test_publish(void)
{
  tfl_diag d;
  bool won = false;
  tfl_diag_init(&d);
  tfl_status s = tfl_file_publish(at("tuning"), "tuning", "first\n", 6, &won, &d);
  CHECK(s == TFL_OK && won && !strcmp(get(at("tuning")), "first\n"), "publish: the first writer publishes");
  tfl_diag_init(&d);
  s = tfl_file_publish(at("tuning"), "tuning", "second\n", 7, &won, &d);
  CHECK(s == TFL_OK && !won && !strcmp(get(at("tuning")), "first\n"), "publish: a second writer does not replace it");
  /* a link (dangling or not) under the name: not written through */
  put(at("victim"), "victim text");
  symlink(at("victim"), at("tuning-link"));
  symlink(at("nowhere"), at("tuning-dangling"));
  tfl_diag_init(&d);
  s = tfl_file_publish(at("tuning-link"), "tuning", "x\n", 2, &won, &d);
  CHECK(s == TFL_OK && !won && !strcmp(get(at("victim")), "victim text"), "publish: a link's target unchanged");
  tfl_diag_init(&d);
  s = tfl_file_publish(at("tuning-dangling"), "tuning", "x\n", 2, &won, &d);
  struct stat st;
  CHECK(s == TFL_OK && !won && stat(at("nowhere"), &st) != 0, "publish: a dangling link's target not created");
  CHECK(count("tuning.") == 0, "publish: no temporary file left");

  /* 8 processes at once: exactly one wins, and the file is its text, whole */
  enum { N = 8 };
  pid_t pid[N];
  for (int i = 0; i < N; i++) {
    if ((pid[i] = fork()) == 0) {
      char text[64];
      int n = snprintf(text, sizeof text, "writer %d %0*d\n", i, 40, i);
      tfl_diag cd;
      tfl_diag_init(&cd);
      bool w = false;
      tfl_status cs = tfl_file_publish(at("race"), "tuning", text, (size_t)n, &w, &cd);
      _exit(cs != TFL_OK ? 2 : w ? 1 : 0);
    }
  }
  int winners = 0, errors = 0, winner = -1;
  for (int i = 0; i < N; i++) {
    int status = 0;
    waitpid(pid[i], &status, 0);
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 2;
    if (rc == 1) winners++, winner = i;
    if (rc == 2) errors++;
  }
  char want[64];
  snprintf(want, sizeof want, "writer %d %0*d\n", winner, 40, winner);
  CHECK(winners == 1 && errors == 0 && !strcmp(get(at("race")), want), "publish: %d processes, %d winner, file \"%.9s\"",
        N, winners, get(at("race")));
  CHECK(count("race.") == 0, "publish: no temporary file left by the racing processes");
}

int main(void)
{
  if (!mkdtemp(dir)) {
    printf("FAIL mkdtemp\n");
    return 1;
  }
  test_reads();
  test_scratch();
  test_replace_link();
  test_publish();
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (e->d_name[0] != '.') unlink(at(e->d_name));
  if (d) closedir(d);
  rmdir(dir);
  printf("%d failure(s)\n", failures);
  return failures != 0;
}
