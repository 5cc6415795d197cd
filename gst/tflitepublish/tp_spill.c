/* tp_spill.c - the spill ring file: pread/pwrite at offsets modulo the capacity. */
#include "tp_spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/tfl_file.h"

#define SPILL_MAGIC 0x54505331u /* "TPS1" */
#define HEADER_BYTES 24
#define MIN_CAPACITY 4096

struct tp_spill {
  int fd;
  char *path;
  uint64_t capacity;
  uint64_t head;   /* offset of the oldest record */
  uint64_t used;   /* bytes from head to the end of the newest record */
  uint64_t count;
};

typedef struct {
  uint32_t magic, topic_len, key_len, payload_len;
  uint64_t seq;
} header;

tp_spill *tp_spill_open(const char *path, uint64_t capacity, char *err, size_t errlen)
{
  if (capacity < MIN_CAPACITY) {
    snprintf(err, errlen, "spill file capacity %llu bytes is below the minimum of %d", (unsigned long long)capacity,
             MIN_CAPACITY);
    return NULL;
  }
  /* tfl_file: a link under the name is refused, not written through; a FIFO or device
   * is refused without blocking; a regular file left by an earlier run is emptied */
  tfl_diag d;
  tfl_diag_init(&d);
  int fd = tfl_file_open_scratch(path, "spill file", 0600, &d);
  if (fd < 0) {
    snprintf(err, errlen, "cannot create %s", d.error);
    return NULL;
  }
  tp_spill *sp = calloc(1, sizeof(*sp));
  char *p = strdup(path);
  if (!sp || !p) {
    free(sp);
    free(p);
    close(fd);
    unlink(path);
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  sp->fd = fd;
  sp->path = p;
  sp->capacity = capacity;
  return sp;
}

void tp_spill_close(tp_spill *sp)
{
  if (!sp) return;
  close(sp->fd);
  unlink(sp->path);
  free(sp->path);
  free(sp);
}

/* len bytes at ring offset off (wrapping); 0 or -1 with errno set */
static int ring_io(tp_spill *sp, int write, uint64_t off, void *buf, size_t len)
{
  uint8_t *b = buf;
  off %= sp->capacity;
  while (len) {
    size_t chunk = len;
    if (off + chunk > sp->capacity) chunk = (size_t)(sp->capacity - off);
    ssize_t r = write ? pwrite(sp->fd, b, chunk, (off_t)off) : pread(sp->fd, b, chunk, (off_t)off);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      if (r == 0) errno = EIO; /* short read: the file was changed under us */
      return -1;
    }
    b += r;
    len -= (size_t)r;
    off = (off + (uint64_t)r) % sp->capacity;
  }
  return 0;
}

static uint64_t record_bytes(const header *h)
{
  return HEADER_BYTES + (uint64_t)h->topic_len + h->key_len + h->payload_len;
}

static int read_header(tp_spill *sp, header *h)
{
  uint8_t raw[HEADER_BYTES];
  if (ring_io(sp, 0, sp->head, raw, sizeof(raw)) < 0) return -1;
  memcpy(&h->magic, raw, 4);
  memcpy(&h->topic_len, raw + 4, 4);
  memcpy(&h->key_len, raw + 8, 4);
  memcpy(&h->payload_len, raw + 12, 4);
  memcpy(&h->seq, raw + 16, 8);
  if (h->magic != SPILL_MAGIC || record_bytes(h) > sp->used) {
    errno = EILSEQ;
    return -1;
  }
  return 0;
}

static void reset(tp_spill *sp, uint64_t *lost)
{
  if (lost) *lost += sp->count;
  sp->head = sp->used = sp->count = 0;
}

static int fail(tp_spill *sp, uint64_t *lost, char *err, size_t errlen, const char *what)
{
  snprintf(err, errlen, "spill file '%s': %s failed: %s; %llu queued messages lost", sp->path, what,
           strerror(errno), (unsigned long long)sp->count);
  reset(sp, lost);
  return -1;
}

static int drop_head(tp_spill *sp)
{
  header h;
  if (read_header(sp, &h) < 0) return -1;
  uint64_t n = record_bytes(&h);
  sp->head = (sp->head + n) % sp->capacity;
  sp->used -= n;
  sp->count--;
  return 0;
}

int tp_spill_append(tp_spill *sp, const tp_msg *m, tp_drop_policy policy, uint64_t *lost, char *err,
                    size_t errlen)
{
  header h = { SPILL_MAGIC, m->topic_len, m->key_len, m->payload_len, m->seq };
  uint64_t need = record_bytes(&h);
  int dropped = 0;
  if (need > sp->capacity) return 1;
  if (sp->used + need > sp->capacity && policy == TP_DROP_NEWEST) return 1;
  while (sp->used + need > sp->capacity) {
    if (drop_head(sp) < 0) return fail(sp, lost, err, errlen, "reading a record header");
    dropped++;
  }
  uint8_t raw[HEADER_BYTES];
  memcpy(raw, &h.magic, 4);
  memcpy(raw + 4, &h.topic_len, 4);
  memcpy(raw + 8, &h.key_len, 4);
  memcpy(raw + 12, &h.payload_len, 4);
  memcpy(raw + 16, &h.seq, 8);
  uint64_t off = sp->head + sp->used;
  if (ring_io(sp, 1, off, raw, HEADER_BYTES) < 0 ||
      ring_io(sp, 1, off + HEADER_BYTES, m->topic, m->topic_len) < 0 ||
      ring_io(sp, 1, off + HEADER_BYTES + m->topic_len, m->key, m->key_len) < 0 ||
      ring_io(sp, 1, off + HEADER_BYTES + m->topic_len + m->key_len, m->payload, m->payload_len) < 0)
    return fail(sp, lost, err, errlen, "writing");
  sp->used += need;
  sp->count++;
  return dropped;
}

tp_msg *tp_spill_shift(tp_spill *sp, uint64_t *lost, char *err, size_t errlen)
{
  if (!sp->count) return NULL;
  header h;
  if (read_header(sp, &h) < 0) {
    fail(sp, lost, err, errlen, "reading a record header");
    return NULL;
  }
  size_t body = (size_t)h.topic_len + h.key_len + h.payload_len;
  char *buf = malloc(body + 1);
  if (!buf || ring_io(sp, 0, sp->head + HEADER_BYTES, buf, body) < 0) {
    if (!buf) errno = ENOMEM;
    free(buf);
    fail(sp, lost, err, errlen, "reading a record");
    return NULL;
  }
  tp_msg *m = tp_msg_new(h.seq, buf, h.topic_len, h.key_len ? buf + h.topic_len : NULL, h.key_len,
                         buf + h.topic_len + h.key_len, h.payload_len);
  free(buf);
  if (!m) {
    errno = ENOMEM;
    fail(sp, lost, err, errlen, "allocating a message");
    return NULL;
  }
  uint64_t n = record_bytes(&h);
  sp->head = (sp->head + n) % sp->capacity;
  sp->used -= n;
  if (--sp->count == 0) sp->head = sp->used = 0;
  return m;
}

uint64_t tp_spill_count(const tp_spill *sp)
{
  return sp->count;
}

uint64_t tp_spill_bytes(const tp_spill *sp)
{
  return sp->used;
}
