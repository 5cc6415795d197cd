/* test_tp_queue.c - the memory queue, the spill ring file and the publisher thread (with a
 * scripted in-process transport whose broker the test takes away and brings back):
 * limits, drop policies, order, resending after a broken connection, counts. */
#include <poll.h>
#include <stdio.h>
#include <sys/stat.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../check.h"
#include "tp_publisher.h"
#include "tp_queue.h"
#include "tp_spill.h"

static tp_msg *msg(uint64_t seq, size_t payload)
{
  char *p = malloc(payload + 1);
  for (size_t i = 0; i < payload; i++) p[i] = (char)('a' + (seq + i) % 26);
  tp_msg *m = tp_msg_new(seq, "t/x", 3, "key", 3, p, payload);
  free(p);
  return m;
}

static int payload_ok(const tp_msg *m)
{
  for (uint32_t i = 0; i < m->payload_len; i++)
    if (m->payload[i] != (char)('a' + (m->seq + i) % 26)) return 0;
  return !strcmp(m->topic, "t/x") && m->key_len == 3 && !strcmp(m->key, "key");
}

static void sleep_ms(int ms)
{
  struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
  nanosleep(&ts, NULL);
}

/* ---- queue -------------------------------------------------------------------- */

static void test_queue(void)
{
  tp_queue *q = tp_queue_new(3, 1 << 20, TP_DROP_OLDEST);
  unsigned dropped = 0;
  for (uint64_t s = 1; s <= 5; s++) dropped += tp_queue_push(q, msg(s, 10));
  CHECK(dropped == 2, "drop-oldest dropped %u, want 2", dropped);
  for (uint64_t want = 3; want <= 5; want++) {
    tp_msg *m = tp_queue_pop(q);
    CHECK(m && m->seq == want, "pop %llu, want %llu", m ? (unsigned long long)m->seq : 0ULL,
          (unsigned long long)want);
    if (m) {
      tp_queue_release(q, m);
      tp_msg_free(m);
    }
  }
  CHECK(tp_queue_pop(q) == NULL, "queue should be empty");
  /* a held (popped) message keeps its room: only waiting ones are dropped */
  tp_queue_push(q, msg(10, 10));
  tp_msg *held = tp_queue_pop(q);
  for (uint64_t s = 11; s <= 14; s++) tp_queue_push(q, msg(s, 10));
  tp_queue_counts c = tp_queue_get_counts(q);
  CHECK(c.waiting == 2 && c.held == 1, "waiting %llu held %llu, want 2 and 1", (unsigned long long)c.waiting,
        (unsigned long long)c.held);
  tp_msg *m = tp_queue_pop(q);
  CHECK(m && m->seq == 13, "after drops the oldest waiting is %llu, want 13", m ? (unsigned long long)m->seq : 0ULL);
  tp_queue_release(q, m);
  tp_msg_free(m);
  tp_queue_release(q, held);
  tp_msg_free(held);
  tp_queue_free(q);

  q = tp_queue_new(3, 1 << 20, TP_DROP_NEWEST);
  dropped = 0;
  for (uint64_t s = 1; s <= 5; s++) dropped += tp_queue_push(q, msg(s, 10));
  m = tp_queue_pop(q);
  CHECK(dropped == 2 && m && m->seq == 1, "drop-newest: dropped %u, first %llu", dropped,
        m ? (unsigned long long)m->seq : 0ULL);
  tp_queue_release(q, m);
  tp_msg_free(m);
  tp_queue_free(q);

  /* the byte limit: 100-byte payloads (+6 topic/key) in 350 bytes: 3 fit */
  q = tp_queue_new(1000, 350, TP_DROP_OLDEST);
  for (uint64_t s = 1; s <= 6; s++) tp_queue_push(q, msg(s, 100));
  c = tp_queue_get_counts(q);
  CHECK(c.waiting == 3 && c.bytes == 318 && c.dropped == 3, "byte limit: waiting %llu bytes %llu dropped %llu",
        (unsigned long long)c.waiting, (unsigned long long)c.bytes, (unsigned long long)c.dropped);
  /* a message larger than the whole limit is dropped, not queued */
  CHECK(tp_queue_push(q, msg(7, 400)) >= 1, "oversized message accepted");
  tp_queue_free(q);
}

/* ---- spill ring ----------------------------------------------------------------- */

static void test_spill(const char *dir)
{
  char path[512], err[256];
  snprintf(path, sizeof(path), "%s/spill-test.ring", dir);
  tp_spill *sp = tp_spill_open(path, 4096, err, sizeof(err));
  CHECK(sp != NULL, "open: %s", err);
  if (!sp) return;
  /* interleaved appends and shifts wrap the ring many times; order and bytes survive */
  uint64_t next_in = 1, next_out = 1, lost = 0;
  for (int round = 0; round < 200; round++) {
    for (int k = 0; k < 3; k++) {
      tp_msg *m = msg(next_in++, 50 + (size_t)(round * 7 % 300));
      CHECK(tp_spill_append(sp, m, TP_DROP_NEWEST, &lost, err, sizeof(err)) == 0, "append %llu refused",
            (unsigned long long)m->seq);
      tp_msg_free(m);
    }
    for (int k = 0; k < 3; k++) {
      tp_msg *m = tp_spill_shift(sp, &lost, err, sizeof(err));
      CHECK(m && m->seq == next_out && payload_ok(m), "shift %llu: got %llu", (unsigned long long)next_out,
            m ? (unsigned long long)m->seq : 0ULL);
      next_out++;
      tp_msg_free(m);
    }
  }
  CHECK(tp_spill_count(sp) == 0 && tp_spill_bytes(sp) == 0, "ring not empty at the end");
  /* full ring, drop-oldest: what stays is the newest, contiguous */
  int dropped = 0;
  for (uint64_t s = 1; s <= 100; s++) {
    tp_msg *m = msg(s, 100);
    dropped += tp_spill_append(sp, m, TP_DROP_OLDEST, &lost, err, sizeof(err));
    tp_msg_free(m);
  }
  uint64_t n = tp_spill_count(sp);
  CHECK(n > 0 && (uint64_t)dropped + n == 100, "drop-oldest: %d dropped + %llu kept != 100", dropped,
        (unsigned long long)n);
  for (uint64_t want = 101 - n; want <= 100; want++) {
    tp_msg *m = tp_spill_shift(sp, &lost, err, sizeof(err));
    CHECK(m && m->seq == want && payload_ok(m), "kept %llu, want %llu", m ? (unsigned long long)m->seq : 0ULL,
          (unsigned long long)want);
    tp_msg_free(m);
  }
  /* drop-newest keeps the oldest; a record larger than the ring is refused */
  dropped = 0;
  for (uint64_t s = 1; s <= 100; s++) {
    tp_msg *m = msg(s, 100);
    dropped += tp_spill_append(sp, m, TP_DROP_NEWEST, &lost, err, sizeof(err));
    tp_msg_free(m);
  }
  tp_msg *first = tp_spill_shift(sp, &lost, err, sizeof(err));
  CHECK(first && first->seq == 1 && dropped > 0, "drop-newest: first %llu, dropped %d",
        first ? (unsigned long long)first->seq : 0ULL, dropped);
  tp_msg_free(first);
  tp_msg *big = msg(1000, 5000);
  CHECK(tp_spill_append(sp, big, TP_DROP_OLDEST, &lost, err, sizeof(err)) == 1, "oversized record accepted");
  tp_msg_free(big);
  CHECK(lost == 0, "no I/O error expected, %llu lost", (unsigned long long)lost);
  tp_spill_close(sp);
  CHECK(access(path, F_OK) != 0, "spill file not removed at close");
  CHECK(tp_spill_open("/nonexistent-dir/x", 1 << 20, err, sizeof(err)) == NULL && strstr(err, "nonexistent"),
        "bad spill path: error should name it: %s", err);

  /* a FIFO under the spill file's name: refused at once, named (a blocking open of it
   * would hang the publisher); a link: refused, its target neither emptied nor written */
  char fifo[4096], link_path[4096], target[4096];
  snprintf(fifo, sizeof fifo, "%s/spill-fifo", dir);
  snprintf(link_path, sizeof link_path, "%s/spill-link", dir);
  snprintf(target, sizeof target, "%s/spill-target", dir);
  unlink(fifo);
  unlink(link_path);
  CHECK(mkfifo(fifo, 0600) == 0, "mkfifo %s", fifo);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  CHECK(tp_spill_open(fifo, 1 << 20, err, sizeof(err)) == NULL && strstr(err, fifo) && strstr(err, "FIFO"),
        "FIFO as the spill file: %s", err);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  CHECK(t1.tv_sec - t0.tv_sec < 5, "FIFO refused in %ld s", (long)(t1.tv_sec - t0.tv_sec));
  FILE *tf = fopen(target, "w");
  if (tf) fputs("not the publisher's", tf);
  if (tf) fclose(tf);
  CHECK(symlink(target, link_path) == 0, "symlink %s", link_path);
  CHECK(tp_spill_open(link_path, 1 << 20, err, sizeof(err)) == NULL && strstr(err, "symbolic link"),
        "link as the spill file: %s", err);
  char back[64] = "";
  tf = fopen(target, "r");
  if (tf && !fgets(back, sizeof back, tf)) back[0] = '\0';
  if (tf) fclose(tf);
  CHECK(!strcmp(back, "not the publisher's"), "the link's target unchanged: '%s'", back);
  unlink(fifo);
  unlink(link_path);
  unlink(target);
}

/* ---- a scripted transport ------------------------------------------------------- */

typedef struct {
  tp_transport base;
  pthread_mutex_t lock;
  int up;                /* the "broker" is reachable (test thread sets it) */
  int connected, connecting;
  uint64_t pending_tok[64];
  uint64_t pending_seq[64];
  int n_pending;
  uint64_t *delivered;   /* acknowledged seqs, in order */
  size_t n_delivered, cap;
  int max_inflight;
  int ack_in_publish;    /* acknowledge inside publish, as MQTT QoS 0 does */
} fake;

static void deliver(fake *f, uint64_t seq)
{
  pthread_mutex_lock(&f->lock);
  if (f->n_delivered == f->cap) {
    f->cap = f->cap ? f->cap * 2 : 1024;
    f->delivered = realloc(f->delivered, f->cap * sizeof(uint64_t));
  }
  f->delivered[f->n_delivered++] = seq;
  pthread_mutex_unlock(&f->lock);
}

static tp_status fake_connect(tp_transport *t, char *err, size_t n)
{
  fake *f = (fake *)t;
  pthread_mutex_lock(&f->lock);
  int up = f->up;
  f->connecting = up;
  pthread_mutex_unlock(&f->lock);
  if (!up) {
    snprintf(err, n, "connection refused");
    return TP_ERR_NETWORK;
  }
  return TP_OK;
}

static tp_status fake_publish(tp_transport *t, const tp_msg *m, uint64_t token, char *err, size_t n)
{
  fake *f = (fake *)t;
  if (!f->connected || f->n_pending >= f->max_inflight) return TP_AGAIN;
  if (f->ack_in_publish) {
    deliver(f, m->seq);
    f->base.sink.ack(f->base.sink.user, token, TP_ACK_OK, NULL); /* frees m */
    return TP_OK;
  }
  f->pending_tok[f->n_pending] = token;
  f->pending_seq[f->n_pending++] = m->seq;
  return TP_OK;
}

static void fake_poll(tp_transport *t, int wake_fd, int timeout_ms)
{
  fake *f = (fake *)t;
  struct pollfd p = { .fd = wake_fd, .events = POLLIN };
  poll(&p, 1, timeout_ms < 2 ? timeout_ms : 2);
  pthread_mutex_lock(&f->lock);
  int up = f->up;
  pthread_mutex_unlock(&f->lock);
  if (f->connected && !up) {
    f->connected = 0;
    f->n_pending = 0; /* unacknowledged: the publisher sends them again */
    f->base.sink.state(f->base.sink.user, TP_STATE_DISCONNECTED, TP_ERR_NETWORK, "broker went away");
    return;
  }
  if (f->connecting && !up) {
    f->connecting = 0;
    f->base.sink.state(f->base.sink.user, TP_STATE_DISCONNECTED, TP_ERR_NETWORK, "connection refused");
    return;
  }
  if (f->connecting && up) {
    f->connecting = 0;
    f->connected = 1;
    f->base.sink.state(f->base.sink.user, TP_STATE_CONNECTED, TP_OK, NULL);
  }
  /* acknowledge half of what is pending (the rest stays in flight a while) */
  int ack = (f->n_pending + 1) / 2;
  for (int i = 0; i < ack; i++) {
    deliver(f, f->pending_seq[0]);
    uint64_t tok = f->pending_tok[0];
    memmove(f->pending_tok, f->pending_tok + 1, (size_t)(f->n_pending - 1) * sizeof(uint64_t));
    memmove(f->pending_seq, f->pending_seq + 1, (size_t)(f->n_pending - 1) * sizeof(uint64_t));
    f->n_pending--;
    f->base.sink.ack(f->base.sink.user, tok, TP_ACK_OK, NULL);
  }
}

static void fake_close(tp_transport *t, int flush_ms)
{
  (void)t;
  (void)flush_ms; /* the test reads the fake after the publisher is gone */
}

static const tp_transport_ops fake_ops = { "fake", 0, fake_connect, fake_publish, fake_poll, fake_close };

static fake *fake_new(void)
{
  fake *f = calloc(1, sizeof(*f));
  f->base.ops = &fake_ops;
  pthread_mutex_init(&f->lock, NULL);
  f->up = 1;
  f->max_inflight = 16;
  return f;
}

static void set_up(fake *f, int up)
{
  pthread_mutex_lock(&f->lock);
  f->up = up;
  pthread_mutex_unlock(&f->lock);
}

typedef struct {
  tp_stats last;
  int n_stats, n_up, n_down;
} observed;

static void ev_state(void *user, tp_state s, tp_status why, const char *detail, int retry_ms)
{
  observed *o = user;
  if (s == TP_STATE_CONNECTED) o->n_up++;
  if (s == TP_STATE_DISCONNECTED) o->n_down++;
}

static void ev_stats(void *user, const tp_stats *s)
{
  observed *o = user;
  o->last = *s;
  o->n_stats++;
}

static tp_publisher *start(fake *f, observed *o, size_t max_messages, const char *spill)
{
  tp_publisher_config cfg = { max_messages, 1 << 24, TP_DROP_OLDEST, spill, 1 << 20, 5, 20, 0 };
  tp_publisher_events ev = { o, ev_state, ev_stats, NULL, NULL, NULL };
  char err[256];
  tp_publisher *p = tp_publisher_new(&f->base, &cfg, &ev, err, sizeof(err));
  CHECK(p != NULL, "publisher: %s", err);
  return p;
}

/* delivered must be exactly `from`..`to` in order */
static void check_delivered(const char *what, fake *f, uint64_t from, uint64_t to)
{
  int ok = f->n_delivered == to - from + 1;
  for (size_t i = 0; ok && i < f->n_delivered; i++) ok = f->delivered[i] == from + i;
  CHECK(ok, "%s: %zu delivered, want %llu..%llu in order (first %llu, last %llu)", what, f->n_delivered,
        (unsigned long long)from, (unsigned long long)to,
        f->n_delivered ? (unsigned long long)f->delivered[0] : 0ULL,
        f->n_delivered ? (unsigned long long)f->delivered[f->n_delivered - 1] : 0ULL);
}

static void fake_free(fake *f)
{
  free(f->delivered);
  pthread_mutex_destroy(&f->lock);
  free(f);
}

static void test_publisher_outage(void)
{
  fake *f = fake_new();
  observed o = { 0 };
  tp_publisher *p = start(f, &o, 1000, NULL);
  if (!p) return;
  for (int i = 0; i < 500 && tp_publisher_get_stats(p).state != TP_STATE_CONNECTED; i++) sleep_ms(2);
  for (uint64_t s = 1; s <= 100; s++) tp_publisher_push(p, msg(s, 20));
  for (int i = 0; i < 500 && tp_publisher_get_stats(p).sent == 0; i++) sleep_ms(1);
  set_up(f, 0); /* mid-stream: some of the 100 are in flight, unacknowledged */
  for (uint64_t s = 101; s <= 400; s++) tp_publisher_push(p, msg(s, 20));
  sleep_ms(100); /* several reconnect attempts fail */
  tp_stats mid = tp_publisher_get_stats(p);
  CHECK(mid.state == TP_STATE_DISCONNECTED && mid.queued > 0, "during the outage: state %d queued %llu", mid.state,
        (unsigned long long)mid.queued);
  set_up(f, 1);
  CHECK(tp_publisher_flush(p, 5000), "flush after the outage timed out");
  tp_stats s = tp_publisher_get_stats(p);
  CHECK(s.sent == 400 && s.dropped_queue == 0 && s.queued == 0, "sent %llu dropped %llu queued %llu",
        (unsigned long long)s.sent, (unsigned long long)s.dropped_queue, (unsigned long long)s.queued);
  CHECK(s.connects == 2 && s.disconnects == 1, "connects %llu disconnects %llu", (unsigned long long)s.connects,
        (unsigned long long)s.disconnects);
  tp_publisher_free(p, 0);
  check_delivered("outage", f, 1, 400);
  CHECK(o.n_down >= 2, "reconnect attempts during the outage: %d", o.n_down);
  fake_free(f);
}

/* A transport that acknowledges inside publish (MQTT QoS 0 writes at once). */
static void test_publisher_ack_in_publish(void)
{
  fake *f = fake_new();
  f->ack_in_publish = 1;
  observed o = { 0 };
  tp_publisher *p = start(f, &o, 1000, NULL);
  if (!p) return;
  for (uint64_t s = 1; s <= 500; s++) tp_publisher_push(p, msg(s, 20));
  CHECK(tp_publisher_flush(p, 5000), "flush timed out");
  tp_stats s = tp_publisher_get_stats(p);
  tp_publisher_free(p, 0);
  CHECK(s.sent == 500 && s.in_flight == 0 && s.queued == 0, "acked in publish: sent %llu in flight %llu queued %llu",
        (unsigned long long)s.sent, (unsigned long long)s.in_flight, (unsigned long long)s.queued);
  check_delivered("acked in publish", f, 1, 500);
  fake_free(f);
}

static void test_publisher_limits(void)
{
  fake *f = fake_new();
  observed o = { 0 };
  set_up(f, 0);
  tp_publisher *p = start(f, &o, 50, NULL);
  if (!p) return;
  for (uint64_t s = 1; s <= 200; s++) tp_publisher_push(p, msg(s, 20));
  set_up(f, 1);
  CHECK(tp_publisher_flush(p, 5000), "flush timed out");
  tp_stats s = tp_publisher_get_stats(p);
  tp_publisher_free(p, 0);
  CHECK(s.dropped_queue == 150 && s.sent == 50, "limit 50: dropped %llu sent %llu", (unsigned long long)s.dropped_queue,
        (unsigned long long)s.sent);
  check_delivered("drop-oldest keeps the newest", f, 151, 200);
  CHECK(o.last.dropped_queue == 150, "the last stats event says %llu dropped", (unsigned long long)o.last.dropped_queue);
  fake_free(f);
}

static void test_publisher_spill(const char *dir)
{
  char path[512];
  snprintf(path, sizeof(path), "%s/spill-publisher.ring", dir);
  fake *f = fake_new();
  observed o = { 0 };
  set_up(f, 0);
  tp_publisher *p = start(f, &o, 20, path);
  if (!p) return;
  for (uint64_t s = 1; s <= 500; s++) {
    /* a producer the publisher keeps up with: it moves them to the file as they come (on a
     * busy machine the memory queue of 20 could otherwise fill first and drop, rightly) */
    for (int i = 0; i < 1000 && tp_publisher_get_stats(p).queued >= 15; i++) sleep_ms(1);
    tp_publisher_push(p, msg(s, 30));
  }
  sleep_ms(50);
  tp_stats mid = tp_publisher_get_stats(p);
  CHECK(mid.spilled > 400, "spilled during the outage: %llu", (unsigned long long)mid.spilled);
  set_up(f, 1);
  CHECK(tp_publisher_flush(p, 5000), "flush timed out");
  tp_stats s = tp_publisher_get_stats(p);
  tp_publisher_free(p, 0);
  CHECK(s.dropped_queue + s.dropped_spill == 0 && s.sent == 500, "spill: dropped %llu+%llu sent %llu",
        (unsigned long long)s.dropped_queue, (unsigned long long)s.dropped_spill, (unsigned long long)s.sent);
  check_delivered("spill keeps order", f, 1, 500);
  fake_free(f);
}

static void test_publisher_unsent(void)
{
  fake *f = fake_new();
  observed o = { 0 };
  set_up(f, 0);
  tp_publisher *p = start(f, &o, 100, NULL);
  if (!p) return;
  for (uint64_t s = 1; s <= 10; s++) tp_publisher_push(p, msg(s, 20));
  CHECK(!tp_publisher_flush(p, 50), "flush with the broker away should time out");
  tp_publisher_free(p, 0);
  CHECK(o.last.unsent == 10 && o.last.sent == 0, "at free: unsent %llu sent %llu", (unsigned long long)o.last.unsent,
        (unsigned long long)o.last.sent);
  fake_free(f);
}

int main(int argc, char **argv)
{
  const char *dir = argc > 1 ? argv[1] : ".";
  test_queue();
  test_spill(dir);
  test_publisher_outage();
  test_publisher_ack_in_publish();
  test_publisher_limits();
  test_publisher_spill(dir);
  test_publisher_unsent();
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures != 0;
}
