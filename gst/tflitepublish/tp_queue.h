/* tp_queue.h - the bounded in-memory queue between the streaming thread and the publisher.
 *
 * The streaming thread pushes (never blocks beyond a short mutex hold, never waits for
 * room: when a limit is reached a message is dropped, the oldest waiting one or the new
 * one by policy, and counted). The publisher thread pops; a popped message stays
 * "held" (counted against the limits) until the publisher releases it, so messages handed
 * to a transport but not yet acknowledged still take their room. Plain C, thread-safe.
 *
 * wake_fd becomes readable after a push, so the publisher can sleep in poll() on it next
 * to its sockets; tp_queue_clear_wake empties it.
 */
#ifndef TP_QUEUE_H
#define TP_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "tp_msg.h"

typedef enum {
  TP_DROP_OLDEST, /* make room by dropping the oldest waiting message */
  TP_DROP_NEWEST, /* refuse the new message */
} tp_drop_policy;

typedef struct tp_queue tp_queue;

typedef struct {
  uint64_t waiting, held;          /* messages */
  uint64_t bytes;                  /* waiting + held */
  uint64_t pushed, dropped;        /* totals since creation */
} tp_queue_counts;

/* Limits: messages and bytes held in memory (waiting + held); 0 is refused. NULL when out of
 * memory or out of file descriptors. */
tp_queue *tp_queue_new(size_t max_messages, size_t max_bytes, tp_drop_policy policy);
/* Frees the waiting messages (held ones belong to the publisher). */
void tp_queue_free(tp_queue *q);

/* Streaming thread: takes ownership of m. Returns how many messages were dropped (0 or 1;
 * the dropped one may be m itself). */
unsigned tp_queue_push(tp_queue *q, tp_msg *m);
/* Publisher: the oldest waiting message, now held; NULL when none waits. */
tp_msg *tp_queue_pop(tp_queue *q);
/* Publisher: a held message is done with (sent, moved to the spill file or dropped); the
 * caller still frees it. */
void tp_queue_release(tp_queue *q, const tp_msg *m);
/* Publisher: counts a held message that it gave up on (say, a permanent send failure). */
void tp_queue_count_drop(tp_queue *q);

tp_queue_counts tp_queue_get_counts(tp_queue *q);
int tp_queue_wake_fd(const tp_queue *q);
void tp_queue_clear_wake(tp_queue *q);
/* Wakes the publisher without a message (to stop it, or to flush). */
void tp_queue_wake(tp_queue *q);

#endif
