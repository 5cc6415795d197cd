/* tp_publisher.h - the publisher thread: queue -> (spill file) -> transport, with reconnects.
 *
 *   tp_publisher *p = tp_publisher_new (transport, &cfg, &events, err, n);  // starts it
 *   tp_publisher_push (p, msg);        // streaming thread: never waits on the network
 *   tp_publisher_flush (p, 5000);      // e.g. at EOS: wait until all is delivered
 *   tp_publisher_free (p, 2000);       // stops the thread, closes the transport
 *
 * Order: messages leave in the order they were pushed: messages to send again (their
 * connection broke before the broker acknowledged them) first, then the spill file, then
 * the memory queue. While the broker is away the memory queue fills up to its limits;
 * with a spill file the oldest messages move there instead. Past the limits messages are
 * dropped (oldest or newest, by policy) and counted.
 *
 * The events are called on the publisher thread (and, for the last stats, on the thread
 * calling tp_publisher_free). Plain C.
 */
#ifndef TP_PUBLISHER_H
#define TP_PUBLISHER_H

#include <stdint.h>

#include "tp_queue.h"
#include "tp_transport.h"

typedef struct {
  size_t max_messages, max_bytes;   /* memory queue, messages in flight included */
  tp_drop_policy drop;
  const char *spill_path;           /* NULL: no spill file */
  uint64_t spill_max_bytes;
  int reconnect_min_ms, reconnect_max_ms;  /* backoff: min, doubling up to max */
  int stats_interval_ms;            /* 0: stats only when something was dropped */
} tp_publisher_config;

typedef struct {
  tp_state state;
  uint64_t pushed;          /* messages given to tp_publisher_push */
  uint64_t sent;            /* acknowledged (QoS 0: written) */
  uint64_t queued;          /* in memory now (waiting, in flight, to send again) */
  uint64_t queued_bytes;
  uint64_t spilled;         /* in the spill file now */
  uint64_t spill_bytes;
  uint64_t in_flight;       /* handed to the transport, not yet acknowledged */
  uint64_t dropped_queue;   /* dropped: memory queue full */
  uint64_t dropped_spill;   /* dropped: spill file full or failing */
  uint64_t failed;          /* refused by the broker or the client for good */
  uint64_t unsent;          /* still queued when the publisher stopped */
  uint64_t resent;          /* sent again after a connection broke */
  uint64_t connects, disconnects;
} tp_stats;

typedef struct {
  void *user;
  /* the connection changed; when down, retry_ms says when the next attempt is (-1: the
   * client retries by itself) */
  void (*state)(void *user, tp_state state, tp_status why, const char *detail, int retry_ms);
  /* periodic counts, and soon after anything was dropped */
  void (*stats)(void *user, const tp_stats *stats);
  /* a configuration error (TP_ERR_AUTH/TLS/CONFIG: posted once per kind until a connection
   * succeeds), a message refused for good (TP_ERR_MESSAGE) or a spill file failure */
  void (*problem)(void *user, tp_status what, const char *detail);
  /* the client library's log lines (syslog levels); any thread; may be NULL */
  void (*log)(void *user, int level, const char *line);
  /* An outage: down=1 at the first network failure (detail, retry_ms as for state), however
   * many failed tries follow; down=0 when it is over (down_ms: how long), that is at the
   * first message delivered after it, or at a connection when nothing waits to be sent (a
   * reopened file or a TCP connection alone proves nothing). May be NULL. */
  void (*outage)(void *user, int down, const char *detail, int retry_ms, int64_t down_ms);
} tp_publisher_events;

typedef struct tp_publisher tp_publisher;

/* Takes the transport (also on failure). NULL with err set when the queue or spill file
 * cannot be made or the thread cannot start. */
tp_publisher *tp_publisher_new(tp_transport *t, const tp_publisher_config *cfg, const tp_publisher_events *ev,
                               char *err, size_t errlen);
/* Any thread: queues m (taken). Returns how many messages were dropped to make room. */
unsigned tp_publisher_push(tp_publisher *p, tp_msg *m);
/* Any thread but the publisher's: waits up to timeout_ms until nothing is queued, spilled
 * or in flight. Returns 1 when all was delivered, 0 on timeout. */
int tp_publisher_flush(tp_publisher *p, int timeout_ms);
tp_stats tp_publisher_get_stats(tp_publisher *p);
/* Stops the thread, gives the transport flush_ms to deliver what it holds, reports the
 * last stats and frees everything (what is left is counted in `unsent`). */
void tp_publisher_free(tp_publisher *p, int flush_ms);

#endif
