/* tp_publisher.c - the publisher thread's loop: send, spill, reconnect, report, poll. */
#include "tp_publisher.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tp_spill.h"

#define IDLE_POLL_MS 200
#define DROP_REPORT_MS 1000

struct tp_publisher {
  tp_transport *t;
  tp_queue *q;
  tp_spill *spill;
  tp_publisher_config cfg;
  tp_publisher_events ev;
  pthread_t thread;
  atomic_int running;

  pthread_mutex_t lock;            /* guards st and idle */
  pthread_cond_t idle_cond;
  tp_stats st;                     /* counters the publisher keeps (queue's are read live) */
  int idle;

  /* publisher thread only */
  tp_msg *retry_head, *retry_tail; /* to send again, by sequence number */
  tp_msg *fl_head, *fl_tail;       /* in flight, oldest first */
  tp_msg *next;                    /* taken for sending, not accepted yet */
  uint64_t n_retry, n_inflight;
  tp_state state;
  int attempts;
  int64_t next_attempt_ms;
  int problem_posted[TP_ERR_MESSAGE + 1];
  int64_t next_stats_ms, last_drop_report_ms;
  uint64_t reported_drops;
  int outage;                      /* a network failure was reported, no delivery since */
  int64_t outage_start_ms;
};

static int64_t now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- lists ---------------------------------------------------------------------- */

static void list_append(tp_msg **head, tp_msg **tail, tp_msg *m)
{
  m->next = NULL;
  m->prev = *tail;
  if (*tail) (*tail)->next = m;
  else *head = m;
  *tail = m;
}

static void list_remove(tp_msg **head, tp_msg **tail, tp_msg *m)
{
  if (m->prev) m->prev->next = m->next;
  else *head = m->next;
  if (m->next) m->next->prev = m->prev;
  else *tail = m->prev;
  m->next = m->prev = NULL;
}

/* Merges the sorted list `l` into the retry list (both by sequence number). */
static void retry_merge(tp_publisher *p, tp_msg *l)
{
  tp_msg *a = p->retry_head, *head = NULL, *tail = NULL;
  while (a || l) {
    tp_msg **src = !l || (a && a->seq < l->seq) ? &a : &l;
    tp_msg *m = *src;
    *src = m->next;
    list_append(&head, &tail, m);
  }
  p->retry_head = head;
  p->retry_tail = tail;
}

/* A message is done with: uncount it from the memory queue and free it. */
static void finish(tp_publisher *p, tp_msg *m)
{
  if (m->counted) tp_queue_release(p->q, m);
  tp_msg_free(m);
}

/* In-flight messages (and the one taken) go back to be sent again, in order. */
static void requeue_inflight(tp_publisher *p)
{
  tp_msg *l = NULL, *lt = NULL;
  uint64_t n = 0;
  while (p->fl_head) {
    tp_msg *m = p->fl_head;
    list_remove(&p->fl_head, &p->fl_tail, m);
    list_append(&l, &lt, m);
    n++;
  }
  p->n_inflight = 0;
  if (p->next) {
    list_append(&l, &lt, p->next);
    p->next = NULL;
  }
  uint64_t count = 0;
  for (tp_msg *m = l; m; m = m->next) count++;
  retry_merge(p, l);
  p->n_retry += count;
  pthread_mutex_lock(&p->lock);
  p->st.resent += n;
  pthread_mutex_unlock(&p->lock);
}

/* ---- transport events ----------------------------------------------------------- */

static void problem(tp_publisher *p, tp_status what, const char *detail)
{
  if (what != TP_ERR_MESSAGE && p->problem_posted[what]) return;
  p->problem_posted[what] = 1;
  if (p->ev.problem) p->ev.problem(p->ev.user, what, detail);
}

static int nothing_waits(tp_publisher *p)
{
  tp_queue_counts c = tp_queue_get_counts(p->q);
  return c.waiting == 0 && !p->next && p->n_retry == 0 && (!p->spill || tp_spill_count(p->spill) == 0);
}

static void outage_over(tp_publisher *p)
{
  p->outage = 0;
  if (p->ev.outage) p->ev.outage(p->ev.user, 0, NULL, -1, now_ms() - p->outage_start_ms);
}

static void on_state(void *user, tp_state s, tp_status why, const char *detail)
{
  tp_publisher *p = user;
  tp_state was = p->state;
  p->state = s;
  int retry_ms = -1;
  pthread_mutex_lock(&p->lock);
  p->st.state = s;
  if (s == TP_STATE_CONNECTED) p->st.connects++;
  if (s == TP_STATE_DISCONNECTED && was == TP_STATE_CONNECTED) p->st.disconnects++;
  pthread_mutex_unlock(&p->lock);
  if (s == TP_STATE_CONNECTED) {
    p->attempts = 0;
    memset(p->problem_posted, 0, sizeof(p->problem_posted));
  }
  if (s == TP_STATE_DISCONNECTED && !p->t->ops->reconnects_itself) {
    requeue_inflight(p);
    /* exponential backoff; a refused login or certificate waits the longest */
    int64_t delay = p->cfg.reconnect_min_ms;
    for (int i = 0; i < p->attempts && delay < p->cfg.reconnect_max_ms; i++) delay *= 2;
    if (delay > p->cfg.reconnect_max_ms) delay = p->cfg.reconnect_max_ms;
    if (why == TP_ERR_AUTH || why == TP_ERR_TLS || why == TP_ERR_CONFIG) delay = p->cfg.reconnect_max_ms;
    p->attempts++;
    p->next_attempt_ms = now_ms() + delay;
    retry_ms = (int)delay;
  }
  if (p->ev.state) p->ev.state(p->ev.user, s, why, detail, retry_ms);
  if (s == TP_STATE_DISCONNECTED && why == TP_ERR_NETWORK && !p->outage) {
    p->outage = 1;
    p->outage_start_ms = now_ms();
    if (p->ev.outage) p->ev.outage(p->ev.user, 1, detail, retry_ms, 0);
  }
  if (s == TP_STATE_CONNECTED && p->outage && nothing_waits(p)) outage_over(p);
  if (why == TP_ERR_AUTH || why == TP_ERR_TLS || why == TP_ERR_CONFIG) problem(p, why, detail);
}

static void on_ack(void *user, uint64_t token, tp_ack a, const char *detail)
{
  tp_publisher *p = user;
  tp_msg *m = (tp_msg *)(uintptr_t)token;
  list_remove(&p->fl_head, &p->fl_tail, m);
  p->n_inflight--;
  if (a == TP_ACK_RETRY) {
    if (p->next) { /* the taken one is newer: keep the order */
      p->next->next = NULL;
      retry_merge(p, p->next);
      p->n_retry++;
      p->next = NULL;
    }
    m->next = NULL;
    retry_merge(p, m);
    p->n_retry++;
    pthread_mutex_lock(&p->lock);
    p->st.resent++;
    pthread_mutex_unlock(&p->lock);
    return;
  }
  pthread_mutex_lock(&p->lock);
  if (a == TP_ACK_OK) p->st.sent++;
  else p->st.failed++;
  pthread_mutex_unlock(&p->lock);
  if (a == TP_ACK_OK && p->outage) outage_over(p);
  if (a == TP_ACK_FAILED) {
    char text[512];
    snprintf(text, sizeof(text), "message %llu to '%s' was refused: %s", (unsigned long long)m->seq, m->topic,
             detail ? detail : "unknown error");
    problem(p, TP_ERR_MESSAGE, text);
  }
  finish(p, m);
}

static void on_log(void *user, int level, const char *line)
{
  tp_publisher *p = user;
  if (p->ev.log) p->ev.log(p->ev.user, level, line);
}

/* ---- the loop ------------------------------------------------------------------- */

static void spill_problem(tp_publisher *p, const char *err, uint64_t lost)
{
  pthread_mutex_lock(&p->lock);
  p->st.dropped_spill += lost;
  pthread_mutex_unlock(&p->lock);
  if (p->ev.problem) p->ev.problem(p->ev.user, TP_ERR_CONFIG, err);
}

/* The oldest message not yet handed over, or NULL. */
static tp_msg *take_next(tp_publisher *p)
{
  if (p->next) return p->next;
  tp_msg *m = NULL;
  if (p->retry_head) {
    m = p->retry_head;
    list_remove(&p->retry_head, &p->retry_tail, m);
    p->n_retry--;
  } else if (p->spill && tp_spill_count(p->spill)) {
    char err[512];
    uint64_t lost = 0;
    m = tp_spill_shift(p->spill, &lost, err, sizeof(err));
    if (!m) spill_problem(p, err, lost);
  }
  if (!m && (m = tp_queue_pop(p->q))) m->counted = 1;
  p->next = m;
  return m;
}

/* Hands messages over while the transport takes them; 1 when it stopped taking them. */
static int send_some(tp_publisher *p)
{
  if (p->state != TP_STATE_CONNECTED && !p->t->ops->reconnects_itself) return 1;
  tp_msg *m;
  while ((m = take_next(p))) {
    char err[512];
    /* in flight before the call: a transport may acknowledge inside publish (MQTT QoS 0
     * is written at once), and the ack frees the message */
    p->next = NULL;
    list_append(&p->fl_head, &p->fl_tail, m);
    p->n_inflight++;
    tp_status s = p->t->ops->publish(p->t, m, (uint64_t)(uintptr_t)m, err, sizeof(err));
    if (s == TP_OK) continue;
    /* not taken: back to being the next one (unless a broken connection already moved
     * everything in flight, this one included, to the retry list) */
    if (p->n_inflight && p->fl_tail == m) {
      list_remove(&p->fl_head, &p->fl_tail, m);
      p->n_inflight--;
      p->next = m;
    }
    if (s == TP_ERR_MESSAGE) {
      p->next = NULL;
      pthread_mutex_lock(&p->lock);
      p->st.failed++;
      pthread_mutex_unlock(&p->lock);
      problem(p, TP_ERR_MESSAGE, err);
      finish(p, m);
      continue;
    }
    return 1; /* TP_AGAIN, or the connection just broke */
  }
  return 0;
}

/* While the broker is away (or too slow) move the memory queue's messages to the spill
 * file, oldest first: they are newer than everything already there. */
static void spill_some(tp_publisher *p)
{
  tp_queue_counts c = tp_queue_get_counts(p->q);
  int over_half = c.waiting + c.held > p->cfg.max_messages / 2 || c.bytes > p->cfg.max_bytes / 2;
  if (p->state == TP_STATE_CONNECTED && !over_half) return;
  tp_msg *m;
  while ((m = tp_queue_pop(p->q))) {
    char err[512];
    uint64_t lost = 0;
    int dropped = tp_spill_append(p->spill, m, p->cfg.drop, &lost, err, sizeof(err));
    tp_queue_release(p->q, m);
    tp_msg_free(m);
    if (dropped < 0) {
      spill_problem(p, err, lost + 1);
      return;
    }
    pthread_mutex_lock(&p->lock);
    p->st.dropped_spill += (uint64_t)dropped;
    pthread_mutex_unlock(&p->lock);
  }
}

static tp_stats snapshot(tp_publisher *p)
{
  tp_queue_counts c = tp_queue_get_counts(p->q);
  pthread_mutex_lock(&p->lock);
  tp_stats s = p->st;
  pthread_mutex_unlock(&p->lock);
  s.pushed = c.pushed;
  s.dropped_queue = c.dropped;
  s.queued = c.waiting + c.held;
  s.queued_bytes = c.bytes;
  return s;
}

static void update_shared(tp_publisher *p)
{
  /* p->lock around the queue's counts: a push (made under p->lock) cannot slip between
   * reading them and declaring the publisher idle */
  pthread_mutex_lock(&p->lock);
  tp_queue_counts c = tp_queue_get_counts(p->q);
  int idle = c.waiting == 0 && c.held == 0 && !p->next && p->n_retry == 0 && p->n_inflight == 0 &&
             (!p->spill || tp_spill_count(p->spill) == 0);
  p->st.in_flight = p->n_inflight;
  p->st.spilled = p->spill ? tp_spill_count(p->spill) : 0;
  p->st.spill_bytes = p->spill ? tp_spill_bytes(p->spill) : 0;
  p->idle = idle;
  if (idle) pthread_cond_broadcast(&p->idle_cond);
  pthread_mutex_unlock(&p->lock);
}

static void report(tp_publisher *p, int64_t now)
{
  if (!p->ev.stats) return;
  tp_stats s = snapshot(p);
  uint64_t drops = s.dropped_queue + s.dropped_spill + s.failed;
  int due = p->cfg.stats_interval_ms > 0 && now >= p->next_stats_ms;
  int drop_due = drops != p->reported_drops && now - p->last_drop_report_ms >= DROP_REPORT_MS;
  if (!due && !drop_due) return;
  if (drop_due) p->last_drop_report_ms = now;
  p->reported_drops = drops;
  if (p->cfg.stats_interval_ms > 0) p->next_stats_ms = now + p->cfg.stats_interval_ms;
  p->ev.stats(p->ev.user, &s);
}

static void *run(void *arg)
{
  tp_publisher *p = arg;
  int fd = tp_queue_wake_fd(p->q);
  while (atomic_load(&p->running)) {
    int64_t now = now_ms();
    if (p->state == TP_STATE_DISCONNECTED && !p->t->ops->reconnects_itself && now >= p->next_attempt_ms) {
      char err[512];
      if (p->ev.state) p->ev.state(p->ev.user, TP_STATE_CONNECTING, TP_OK, NULL, -1);
      p->state = TP_STATE_CONNECTING;
      pthread_mutex_lock(&p->lock);
      p->st.state = TP_STATE_CONNECTING;
      pthread_mutex_unlock(&p->lock);
      tp_status s = p->t->ops->connect(p->t, err, sizeof(err));
      if (s != TP_OK) {
        p->state = TP_STATE_CONNECTING; /* so that on_state reports the fall */
        on_state(p, TP_STATE_DISCONNECTED, s, err);
      }
    }
    int blocked = send_some(p);
    if (blocked && p->spill) spill_some(p);
    update_shared(p);
    report(p, now);
    int timeout = IDLE_POLL_MS;
    if (!blocked && p->next) timeout = 0;
    if (p->state == TP_STATE_DISCONNECTED && !p->t->ops->reconnects_itself) {
      int64_t until = p->next_attempt_ms - now_ms();
      if (until < timeout) timeout = until < 0 ? 0 : (int)until;
    }
    p->t->ops->poll(p->t, fd, timeout);
    tp_queue_clear_wake(p->q);
  }
  return NULL;
}

/* ---- API ------------------------------------------------------------------------ */

tp_publisher *tp_publisher_new(tp_transport *t, const tp_publisher_config *cfg, const tp_publisher_events *ev,
                               char *err, size_t errlen)
{
  tp_publisher *p = calloc(1, sizeof(*p));
  if (!p) {
    t->ops->close(t, 0);
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  p->cfg = *cfg;
  p->cfg.spill_path = NULL;
  p->ev = *ev;
  p->t = t;
  p->state = TP_STATE_DISCONNECTED;
  p->st.state = TP_STATE_DISCONNECTED;
  t->sink = (tp_sink){ p, on_state, on_ack, on_log };
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->idle_cond, NULL);
  p->q = tp_queue_new(cfg->max_messages, cfg->max_bytes, cfg->drop);
  if (!p->q) {
    snprintf(err, errlen, "cannot make the message queue (limits %zu messages, %zu bytes)", cfg->max_messages,
             cfg->max_bytes);
    goto fail;
  }
  if (cfg->spill_path && !(p->spill = tp_spill_open(cfg->spill_path, cfg->spill_max_bytes, err, errlen)))
    goto fail;
  /* Kafka's client connects in the background: start it now */
  if (t->ops->reconnects_itself) {
    tp_status s = t->ops->connect(t, err, errlen);
    if (s != TP_OK) goto fail;
    p->state = p->st.state = TP_STATE_CONNECTING;
  }
  atomic_store(&p->running, 1);
  if (pthread_create(&p->thread, NULL, run, p) != 0) {
    snprintf(err, errlen, "cannot start the publisher thread");
    goto fail;
  }
  return p;
fail:
  t->ops->close(t, 0);
  tp_spill_close(p->spill);
  tp_queue_free(p->q);
  pthread_cond_destroy(&p->idle_cond);
  pthread_mutex_destroy(&p->lock);
  free(p);
  return NULL;
}

unsigned tp_publisher_push(tp_publisher *p, tp_msg *m)
{
  pthread_mutex_lock(&p->lock);
  p->idle = 0;
  unsigned dropped = tp_queue_push(p->q, m);
  pthread_mutex_unlock(&p->lock);
  return dropped;
}

int tp_publisher_flush(tp_publisher *p, int timeout_ms)
{
  struct timespec end;
  clock_gettime(CLOCK_REALTIME, &end);
  end.tv_sec += timeout_ms / 1000;
  end.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
  if (end.tv_nsec >= 1000000000L) {
    end.tv_sec++;
    end.tv_nsec -= 1000000000L;
  }
  tp_queue_wake(p->q);
  pthread_mutex_lock(&p->lock);
  int rc = 0;
  while (!p->idle && rc == 0) rc = pthread_cond_timedwait(&p->idle_cond, &p->lock, &end);
  int idle = p->idle;
  pthread_mutex_unlock(&p->lock);
  return idle;
}

tp_stats tp_publisher_get_stats(tp_publisher *p)
{
  return snapshot(p);
}

static uint64_t free_list(tp_publisher *p, tp_msg *m)
{
  uint64_t n = 0;
  for (tp_msg *next; m; m = next) {
    next = m->next;
    finish(p, m);
    n++;
  }
  return n;
}

void tp_publisher_free(tp_publisher *p, int flush_ms)
{
  if (!p) return;
  atomic_store(&p->running, 0);
  tp_queue_wake(p->q);
  pthread_join(p->thread, NULL);
  /* the transport's last acks (and purge reports) arrive during close, on this thread */
  p->t->ops->close(p->t, flush_ms);
  uint64_t unsent = free_list(p, p->fl_head) + free_list(p, p->retry_head);
  p->fl_head = p->retry_head = NULL;
  if (p->next) unsent += free_list(p, p->next);
  p->next = NULL;
  tp_msg *m;
  while ((m = tp_queue_pop(p->q))) {
    m->counted = 1;
    finish(p, m);
    unsent++;
  }
  if (p->spill) unsent += tp_spill_count(p->spill);
  pthread_mutex_lock(&p->lock);
  p->st.unsent = unsent;
  p->st.in_flight = 0;
  pthread_mutex_unlock(&p->lock);
  if (p->ev.stats) {
    tp_stats s = snapshot(p);
    s.queued = s.spilled = s.queued_bytes = s.spill_bytes = 0;
    p->ev.stats(p->ev.user, &s);
  }
  tp_spill_close(p->spill);
  tp_queue_free(p->q);
  pthread_cond_destroy(&p->idle_cond);
  pthread_mutex_destroy(&p->lock);
  free(p);
}
