/* tp_file.c - the file transport: each message as one JSON line, appended to a file (or
 * written to standard output), for fleets that collect files rather than run a broker.
 *
 * The file is opened through tfl_file (a regular file; a symbolic link is not followed).
 * With max_bytes set, a line that would take the file past it first rotates the file:
 * path.(N-1) -> path.N, ..., path -> path.1 (rename(2) moves links, never their targets),
 * and a new path is started, so the files hold at most (N + 1) x max_bytes (a single
 * longer line gets a file of its own). A failed write is a broken "connection": the
 * partial line is cut off, the publisher keeps the message and reopens with backoff, and
 * the element posts its outage warning naming the file and the reason (a full disk). */
#include "tp_transport.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "runtime/tfl_file.h"

typedef struct {
  tp_transport base;
  char *path;                 /* NULL: standard output */
  uint64_t max_bytes;         /* 0: no rotation */
  int max_files;
  char *rotated;              /* scratch for "path.N" names, made once */
  size_t rotated_len;
  int fd;                     /* -1: closed */
  uint64_t size;              /* bytes in the current file */
  tp_state state;
} file_tp;

static void set_state(file_tp *f, tp_state s, tp_status why, const char *detail)
{
  if (f->state == s) return;
  f->state = s;
  if (f->base.sink.state) f->base.sink.state(f->base.sink.user, s, why, detail);
}

static void close_file(file_tp *f)
{
  if (f->fd >= 0 && f->path) close(f->fd);
  f->fd = -1;
}

/* Opens (or reopens) the file. A path that cannot be opened at start fails the start
 * (tp_file_new); later (after a rotation or a failed write) it is retried with backoff. */
static tp_status open_file(file_tp *f, char *err, size_t errlen)
{
  close_file(f);
  if (!f->path) {
    f->fd = STDOUT_FILENO;
    f->size = 0;
    return TP_OK;
  }
  tfl_diag d;
  tfl_diag_init(&d);
  size_t size = 0;
  int fd = tfl_file_open_append(f->path, "results file", &size, &d);
  if (fd < 0) {
    snprintf(err, errlen, "%s", d.error);
    return TP_ERR_NETWORK;
  }
  f->fd = fd;
  f->size = size;
  return TP_OK;
}

static const char *rotated_name(file_tp *f, int n)
{
  snprintf(f->rotated, f->rotated_len, "%s.%d", f->path, n);
  return f->rotated;
}

/* Shifts the numbered files up by one (the oldest is overwritten) and moves the current
 * file to path.1. A missing numbered file is fine (fewer rotations so far). */
static int rotate(file_tp *f, char *err, size_t errlen)
{
  close_file(f);
  char *older = malloc(f->rotated_len);
  if (!older) {
    snprintf(err, errlen, "results file %s: out of memory rotating it", f->path);
    return -1;
  }
  for (int n = f->max_files; n >= 2; n--) {
    snprintf(older, f->rotated_len, "%s.%d", f->path, n - 1);
    if (rename(older, rotated_name(f, n)) != 0 && errno != ENOENT) {
      snprintf(err, errlen, "results file %s: cannot rotate %s to %s: %s", f->path, older, f->rotated,
               strerror(errno));
      free(older);
      return -1;
    }
  }
  free(older);
  if (rename(f->path, rotated_name(f, 1)) != 0 && errno != ENOENT) {
    snprintf(err, errlen, "results file %s: cannot rotate it to %s: %s", f->path, f->rotated, strerror(errno));
    return -1;
  }
  return 0;
}

static tp_status file_connect(tp_transport *t, char *err, size_t errlen)
{
  file_tp *f = (file_tp *)t;
  if (f->fd < 0) {
    tp_status s = open_file(f, err, errlen);
    if (s != TP_OK) return s;
  }
  set_state(f, TP_STATE_CONNECTED, TP_OK, NULL);
  return TP_OK;
}

/* The write failed: cut the partial line off (a regular file) and go "down". */
static void write_failed(file_tp *f, int e, size_t done)
{
  char detail[512];
  if (f->path) {
    /* best effort: if the cut fails too, a reader meets one line without its end */
    int cut = done ? ftruncate(f->fd, (off_t)f->size) : 0;
    (void)cut;
    snprintf(detail, sizeof(detail), "results file %s: write failed: %s", f->path, strerror(e));
    close_file(f);
  } else {
    snprintf(detail, sizeof(detail), "standard output: write failed: %s", strerror(e));
  }
  set_state(f, TP_STATE_DISCONNECTED, TP_ERR_NETWORK, detail);
}

static tp_status file_publish(tp_transport *t, const tp_msg *m, uint64_t token, char *err, size_t errlen)
{
  file_tp *f = (file_tp *)t;
  if (f->state != TP_STATE_CONNECTED) return TP_AGAIN;
  uint64_t line = (uint64_t)m->payload_len + 1;
  if (f->path && f->max_bytes && f->size > 0 && f->size + line > f->max_bytes) {
    if (rotate(f, err, errlen) != 0 || open_file(f, err, errlen) != TP_OK) {
      close_file(f);
      set_state(f, TP_STATE_DISCONNECTED, TP_ERR_NETWORK, err);
      return TP_AGAIN;
    }
  }
  /* one writev of line and newline: with O_APPEND other writers' lines never interleave */
  struct iovec iov[2] = { { (void *)m->payload, m->payload_len }, { "\n", 1 } };
  size_t done = 0;
  while (done < line) {
    size_t skip = done;
    int i = 0;
    while (i < 2 && skip >= iov[i].iov_len) skip -= iov[i++].iov_len;
    struct iovec part[2];
    int n = 0;
    for (; i < 2; i++, skip = 0)
      part[n++] = (struct iovec){ (char *)iov[i].iov_base + skip, iov[i].iov_len - skip };
    ssize_t w = writev(f->fd, part, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      write_failed(f, w < 0 ? errno : EIO, done);
      return TP_AGAIN;
    }
    done += (size_t)w;
  }
  f->size += line;
  f->base.sink.ack(f->base.sink.user, token, TP_ACK_OK, NULL);
  return TP_OK;
}

static void file_poll(tp_transport *t, int wake_fd, int timeout_ms)
{
  (void)t;
  /* nothing arrives from a file: only the publisher's wake-up (new messages, stop) */
  struct pollfd p = { .fd = wake_fd, .events = POLLIN };
  (void)poll(&p, 1, timeout_ms);
}

static void file_close(tp_transport *t, int flush_ms)
{
  (void)flush_ms; /* every line was written when it was acknowledged */
  file_tp *f = (file_tp *)t;
  close_file(f);
  free(f->path);
  free(f->rotated);
  free(f);
}

static const tp_transport_ops file_ops = {
  .name = "file",
  .reconnects_itself = 0,
  .connect = file_connect,
  .publish = file_publish,
  .poll = file_poll,
  .close = file_close,
};

tp_transport *tp_file_new(const tp_file_config *cfg, const tp_sink *sink, char *err, size_t errlen)
{
  if (cfg->max_files < 1 || cfg->max_files > 1000) {
    snprintf(err, errlen, "max-files %d out of range (1-1000)", cfg->max_files);
    return NULL;
  }
  file_tp *f = calloc(1, sizeof(*f));
  if (!f) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  f->base.ops = &file_ops;
  f->base.sink = *sink;
  f->fd = -1;
  f->state = TP_STATE_DISCONNECTED;
  f->max_bytes = cfg->max_bytes;
  f->max_files = cfg->max_files;
  int to_stdout = !cfg->path || !*cfg->path || strcmp(cfg->path, "-") == 0;
  if (!to_stdout) {
    f->path = strdup(cfg->path);
    f->rotated_len = strlen(cfg->path) + 16; /* ".N" with N <= 1000 */
    f->rotated = malloc(f->rotated_len);
    if (!f->path || !f->rotated) {
      snprintf(err, errlen, "out of memory");
      file_close(&f->base, 0);
      return NULL;
    }
  }
  /* open now: a path that cannot be written fails the start, with its reason */
  if (open_file(f, err, errlen) != TP_OK) {
    file_close(&f->base, 0);
    return NULL;
  }
  return &f->base;
}
