/* tfl_file.c - see tfl_file.h. */
#include "tfl_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a non-regular file is, for the message. */
static const char *kind_of(mode_t m)
{
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  return "not a regular file";
}

static tfl_status stat_fail(const char *path, const char *what, int err, tfl_diag *diag)
{
  if (err == ENOENT) return tfl_fail(diag, TFL_ERR_IO, "%s %s: does not exist", what, path);
  return tfl_fail(diag, TFL_ERR_IO, "%s %s: %s", what, path, strerror(err));
}

static tfl_status check_mode(const char *path, const char *what, mode_t m, tfl_diag *diag)
{
  if (S_ISREG(m)) return TFL_OK;
  return tfl_fail(diag, TFL_ERR_IO, "%s %s: is %s, not a file", what, path, kind_of(m));
}

tfl_status tfl_file_check(const char *path, const char *what, tfl_diag *diag)
{
  if (!path || !*path) return tfl_fail(diag, TFL_ERR_ARG, "%s: no path given", what);
  struct stat st;
  if (stat(path, &st) != 0) return stat_fail(path, what, errno, diag);
  return check_mode(path, what, st.st_mode, diag);
}

/* After an O_NONBLOCK open: the descriptor must be a regular file (closed and -1 if
 * not); regular files never block, so reads and writes from here on are plain. */
static int finish_open(int fd, const char *path, const char *what, size_t *size, tfl_diag *diag)
{
  struct stat st;
  if (fstat(fd, &st) != 0) {
    stat_fail(path, what, errno, diag);
    close(fd);
    return -1;
  }
  if (check_mode(path, what, st.st_mode, diag) != TFL_OK) {
    close(fd);
    return -1;
  }
  (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  *size = (size_t)st.st_size;
  return fd;
}

int tfl_file_open_read(const char *path, const char *what, size_t *size, tfl_diag *diag)
{
  if (tfl_file_check(path, what, diag) != TFL_OK) return -1;
  /* O_NONBLOCK: a FIFO swapped in after the check must not block the open */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    stat_fail(path, what, errno, diag);
    return -1;
  }
  return finish_open(fd, path, what, size, diag);
}

/* Says why a write-side open (O_NOFOLLOW | O_NONBLOCK) failed. */
static void write_open_fail(const char *path, const char *what, int err, tfl_diag *diag)
{
  struct stat lst;
  if (err == ELOOP && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
    tfl_fail(diag, TFL_ERR_IO, "%s %s: is a symbolic link, not followed for writing", what, path);
  else if ((err == ENXIO || err == EISDIR) && stat(path, &lst) == 0)
    check_mode(path, what, lst.st_mode, diag);
  else
    tfl_fail(diag, TFL_ERR_IO, "%s %s: cannot open for writing: %s", what, path, strerror(err));
}

int tfl_file_open_append(const char *path, const char *what, size_t *size, tfl_diag *diag)
{
  if (!path || !*path) {
    tfl_fail(diag, TFL_ERR_ARG, "%s: no path given", what);
    return -1;
  }
  /* O_NOFOLLOW: a link in the last component fails (ELOOP) instead of being written
   * through; O_NONBLOCK: a FIFO without a reader fails (ENXIO) instead of waiting */
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (fd < 0) {
    write_open_fail(path, what, errno, diag);
    return -1;
  }
  return finish_open(fd, path, what, size, diag);
}

int tfl_file_open_scratch(const char *path, const char *what, int mode, tfl_diag *diag)
{
  if (!path || !*path) {
    tfl_fail(diag, TFL_ERR_ARG, "%s: no path given", what);
    return -1;
  }
  /* no O_TRUNC: a device or FIFO under the name must be refused before anything is
   * done to it; O_RDWR opens a FIFO without waiting, and finish_open refuses it */
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK, (mode_t)mode);
  if (fd < 0) {
    write_open_fail(path, what, errno, diag);
    return -1;
  }
  size_t size = 0;
  fd = finish_open(fd, path, what, &size, diag);
  if (fd >= 0 && ftruncate(fd, 0) != 0) {
    tfl_fail(diag, TFL_ERR_IO, "%s %s: cannot empty it: %s", what, path, strerror(errno));
    close(fd);
    return -1;
  }
  return fd;
}

FILE *tfl_file_fopen_read(const char *path, const char *what, size_t max_bytes, tfl_diag *diag)
{
  size_t size = 0;
  int fd = tfl_file_open_read(path, what, &size, diag);
  if (fd < 0) return NULL;
  if (size > max_bytes) {
    close(fd);
    tfl_fail(diag, TFL_ERR_IO, "%s %s: %zu bytes, more than the limit of %zu", what, path, size, max_bytes);
    return NULL;
  }
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    tfl_fail(diag, TFL_ERR_NOMEM, "%s %s: %s", what, path, strerror(errno));
    close(fd);
  }
  return f;
}

tfl_status tfl_file_read(const char *path, const char *what, size_t max_bytes, char **data, size_t *len,
                         tfl_diag *diag)
{
  *data = NULL;
  *len = 0;
  size_t size = 0;
  int fd = tfl_file_open_read(path, what, &size, diag);
  if (fd < 0) return TFL_ERR_IO;
  if (size > max_bytes) {
    close(fd);
    return tfl_fail(diag, TFL_ERR_IO, "%s %s: %zu bytes, more than the limit of %zu", what, path, size, max_bytes);
  }
  char *buf = malloc(size + 1);
  if (!buf) {
    close(fd);
    return tfl_fail(diag, TFL_ERR_NOMEM, "%s %s: %zu bytes", what, path, size);
  }
  /* the file may have grown since fstat: read at most `size`, and what is there */
  size_t got = 0;
  while (got < size) {
    ssize_t r = read(fd, buf + got, size - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      int err = errno;
      free(buf);
      close(fd);
      return tfl_fail(diag, TFL_ERR_IO, "%s %s: read failed: %s", what, path, strerror(err));
    }
    if (r == 0) break;
    got += (size_t)r;
  }
  close(fd);
  buf[got] = '\0';
  *data = buf;
  *len = got;
  return TFL_OK;
}

/* Writes data to a new unique file beside path (*tmp, malloc'd; the caller renames or
 * links it, then unlinks and frees it). */
static tfl_status write_temp(const char *path, const char *what, const void *data, size_t len, char **tmp_out,
                             tfl_diag *diag)
{
  *tmp_out = NULL;
  size_t n = strlen(path) + 16;
  char *tmp = malloc(n);
  if (!tmp) return tfl_fail(diag, TFL_ERR_NOMEM, "%s %s: temporary name", what, path);
  /* mkstemp: a name no other writer (thread or process) has, created exclusively */
  snprintf(tmp, n, "%s.XXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    int err = errno;
    free(tmp);
    return tfl_fail(diag, TFL_ERR_IO, "%s %s: cannot create a temporary file beside it: %s", what, path,
                    strerror(err));
  }
  const char *p = data;
  size_t done = 0;
  int err = 0;
  while (done < len && !err) {
    ssize_t w = write(fd, p + done, len - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) err = w < 0 ? errno : EIO;
    else done += (size_t)w;
  }
  /* mkstemp makes the file 0600; a cache is as readable as the directory's other files */
  if (!err && fchmod(fd, 0644) != 0) err = errno;
  if (close(fd) != 0 && !err) err = errno;
  if (err) {
    unlink(tmp);
    free(tmp);
    return tfl_fail(diag, TFL_ERR_IO, "%s %s: could not write: %s", what, path, strerror(err));
  }
  *tmp_out = tmp;
  return TFL_OK;
}

tfl_status tfl_file_replace(const char *path, const char *what, const void *data, size_t len, tfl_diag *diag)
{
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
    return tfl_fail(diag, TFL_ERR_IO, "%s %s: is %s, not replaced", what, path, kind_of(st.st_mode));
  char *tmp = NULL;
  tfl_status s = write_temp(path, what, data, len, &tmp, diag);
  if (s) return s;
  /* rename replaces a symbolic link itself, never the file it points to */
  if (rename(tmp, path) != 0) {
    int err = errno;
    unlink(tmp);
    free(tmp);
    return tfl_fail(diag, TFL_ERR_IO, "%s %s: could not write: %s", what, path, strerror(err));
  }
  free(tmp);
  return TFL_OK;
}

tfl_status tfl_file_publish(const char *path, const char *what, const void *data, size_t len, bool *published,
                            tfl_diag *diag)
{
  *published = false;
  if (!path || !*path) return tfl_fail(diag, TFL_ERR_ARG, "%s: no path given", what);
  char *tmp = NULL;
  tfl_status s = write_temp(path, what, data, len, &tmp, diag);
  if (s) return s;
  /* link fails with EEXIST when anything has the name (a dangling link too), so of
   * writers racing exactly one wins, and its file appears whole */
  if (link(tmp, path) == 0)
    *published = true;
  else if (errno != EEXIST)
    s = tfl_fail(diag, TFL_ERR_IO, "%s %s: could not publish: %s", what, path, strerror(errno));
  unlink(tmp);
  free(tmp);
  return s;
}
