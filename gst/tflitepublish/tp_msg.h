/* tp_msg.h - one message on its way to a broker: topic, key, payload and a sequence number.
 *
 * A message is one allocation (header and bytes together) so it moves between the
 * streaming thread, the queue, the spill file and the transport without copies. Plain C.
 * Ownership: whoever holds the pointer frees it with tp_msg_free.
 */
#ifndef TP_MSG_H
#define TP_MSG_H

#include <stddef.h>
#include <stdint.h>

typedef struct tp_msg {
  struct tp_msg *next, *prev;  /* the one list the message is on */
  int counted;             /* publisher: it still counts against the memory queue's limits */
  uint64_t seq;            /* order of creation in its element, from 1 */
  uint32_t topic_len;      /* bytes, without the terminating NUL */
  uint32_t key_len;        /* 0: no key */
  uint32_t payload_len;
  char *topic;             /* NUL-terminated, inside this allocation */
  char *key;               /* NUL-terminated (empty when key_len is 0) */
  char *payload;           /* NUL-terminated (JSON text), inside this allocation */
} tp_msg;

/* Copies the three byte strings; NULL on allocation failure. `key` may be NULL. */
tp_msg *tp_msg_new(uint64_t seq, const char *topic, size_t topic_len, const char *key, size_t key_len,
                   const char *payload, size_t payload_len);
void tp_msg_free(tp_msg *m);
/* What the message counts against the queue's byte limit. */
size_t tp_msg_size(const tp_msg *m);

#endif
