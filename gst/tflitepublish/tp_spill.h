/* tp_spill.h - a fixed-size ring file for messages that do not fit in memory.
 *
 * When the broker is away longer than the memory queue lasts, the publisher moves the
 * oldest waiting messages here and, once connected, sends from here first, so the order
 * of messages is kept. The file is a ring of `capacity` bytes: appending to a full ring
 * drops the oldest record (or the new one, by policy); nothing is ever compacted or
 * rewritten. The file is created empty (truncated) on open and removed on close: it bridges
 * outages, it is not a store across restarts.
 *
 * Records: a 24-byte header (magic, topic, key and payload lengths, sequence number),
 * then the bytes; a record may wrap around the end of the file.
 * Plain C; one thread (the publisher) uses a tp_spill.
 */
#ifndef TP_SPILL_H
#define TP_SPILL_H

#include <stddef.h>
#include <stdint.h>

#include "tp_msg.h"
#include "tp_queue.h"

typedef struct tp_spill tp_spill;

/* NULL with a sentence in err when the file cannot be created or the capacity is too
 * small (under 4 KiB). */
tp_spill *tp_spill_open(const char *path, uint64_t capacity, char *err, size_t errlen);
/* Closes and removes the file. */
void tp_spill_close(tp_spill *sp);

/* Appends a copy of m (the caller keeps m). Returns the number of records dropped to make
 * room, the new one included when it was refused; -1 on an I/O error (err says which; the
 * ring is then emptied, the records in it lost and counted in *lost). */
int tp_spill_append(tp_spill *sp, const tp_msg *m, tp_drop_policy policy, uint64_t *lost, char *err,
                    size_t errlen);
/* The oldest record as a new message (caller frees), removed from the ring; NULL when
 * empty or on an I/O error (then err is set and the ring emptied, *lost counted). */
tp_msg *tp_spill_shift(tp_spill *sp, uint64_t *lost, char *err, size_t errlen);

uint64_t tp_spill_count(const tp_spill *sp);
uint64_t tp_spill_bytes(const tp_spill *sp);   /* bytes of records, headers included */

#endif
