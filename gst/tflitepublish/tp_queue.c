/* tp_queue.c - bounded FIFO of messages with count and byte limits; one mutex. */
#include "tp_queue.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct tp_queue {
  pthread_mutex_t lock;
  tp_msg *head, *tail;             /* waiting, oldest first */
  uint64_t n_waiting, n_held, bytes;
  uint64_t pushed, dropped;
  size_t max_messages, max_bytes;
  tp_drop_policy policy;
  int wake_fd;                     /* eventfd */
};

tp_queue *tp_queue_new(size_t max_messages, size_t max_bytes, tp_drop_policy policy)
{
  if (max_messages == 0 || max_bytes == 0) return NULL;
  tp_queue *q = calloc(1, sizeof(*q));
  if (!q) return NULL;
  q->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (q->wake_fd < 0) {
    free(q);
    return NULL;
  }
  pthread_mutex_init(&q->lock, NULL);
  q->max_messages = max_messages;
  q->max_bytes = max_bytes;
  q->policy = policy;
  return q;
}

void tp_queue_free(tp_queue *q)
{
  if (!q) return;
  for (tp_msg *m = q->head, *next; m; m = next) {
    next = m->next;
    tp_msg_free(m);
  }
  close(q->wake_fd);
  pthread_mutex_destroy(&q->lock);
  free(q);
}

void tp_queue_wake(tp_queue *q)
{
  uint64_t one = 1;
  /* EAGAIN only when the counter is about to overflow: it is readable then anyway */
  ssize_t r = write(q->wake_fd, &one, sizeof(one));
  (void)r;
}

void tp_queue_clear_wake(tp_queue *q)
{
  uint64_t v;
  ssize_t r = read(q->wake_fd, &v, sizeof(v));
  (void)r;
}

int tp_queue_wake_fd(const tp_queue *q)
{
  return q->wake_fd;
}

static int over_limit(const tp_queue *q, size_t add_bytes)
{
  return q->n_waiting + q->n_held + 1 > q->max_messages || q->bytes + add_bytes > q->max_bytes;
}

unsigned tp_queue_push(tp_queue *q, tp_msg *m)
{
  size_t size = tp_msg_size(m);
  unsigned dropped = 0;
  pthread_mutex_lock(&q->lock);
  q->pushed++;
  /* Drop-oldest makes room from the waiting messages only: held ones are in a transport's
   * hands. One new message may need several old ones gone (the byte limit). */
  while (q->policy == TP_DROP_OLDEST && q->head && over_limit(q, size)) {
    tp_msg *old = q->head;
    q->head = old->next;
    if (!q->head) q->tail = NULL;
    q->n_waiting--;
    q->bytes -= tp_msg_size(old);
    q->dropped++;
    dropped++;
    tp_msg_free(old);
  }
  if (over_limit(q, size)) {
    q->dropped++;
    pthread_mutex_unlock(&q->lock);
    tp_msg_free(m);
    return dropped + 1;
  }
  m->next = NULL;
  if (q->tail) q->tail->next = m;
  else q->head = m;
  q->tail = m;
  q->n_waiting++;
  q->bytes += size;
  pthread_mutex_unlock(&q->lock);
  tp_queue_wake(q);
  return dropped;
}

tp_msg *tp_queue_pop(tp_queue *q)
{
  pthread_mutex_lock(&q->lock);
  tp_msg *m = q->head;
  if (m) {
    q->head = m->next;
    if (!q->head) q->tail = NULL;
    m->next = NULL;
    q->n_waiting--;
    q->n_held++;
  }
  pthread_mutex_unlock(&q->lock);
  return m;
}

void tp_queue_release(tp_queue *q, const tp_msg *m)
{
  pthread_mutex_lock(&q->lock);
  q->n_held--;
  q->bytes -= tp_msg_size(m);
  pthread_mutex_unlock(&q->lock);
}

void tp_queue_count_drop(tp_queue *q)
{
  pthread_mutex_lock(&q->lock);
  q->dropped++;
  pthread_mutex_unlock(&q->lock);
}

tp_queue_counts tp_queue_get_counts(tp_queue *q)
{
  pthread_mutex_lock(&q->lock);
  tp_queue_counts c = { q->n_waiting, q->n_held, q->bytes, q->pushed, q->dropped };
  pthread_mutex_unlock(&q->lock);
  return c;
}
