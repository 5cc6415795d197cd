/* tfl_file.h - opening, reading and replacing the files a user names (models, label
 * files, caches), which are untrusted like their contents.
 *
 * A path must name a regular file: a directory, FIFO, socket or device gives an error
 * saying which it is, before anything could block on it (opening a FIFO for reading waits
 * for a writer; /dev/zero never ends). Reads are bounded by a size limit. Writes go to a
 * unique temporary file beside the target and are renamed over it, so concurrent writers
 * (several pipelines of one process, several processes) never mix their bytes and a
 * reader sees the old file or the new one, whole.
 *
 *   int fd = tfl_file_open_read(path, "model", &size, diag);     // or -1, message in diag
 *   tfl_file_read(path, "labels", 16 << 20, &text, &len, diag);   // NUL-terminated copy
 *   tfl_file_replace(path, "program cache", bytes, n, diag);      // atomic
 *   int fd = tfl_file_open_append(path, "results file", &size, diag); // log-style writes
 *   FILE *f = tfl_file_fopen_read(path, "annotations", 1 << 30, diag); // a bounded stream
 *   int fd = tfl_file_open_scratch(path, "spill file", 0600, diag);     // emptied, read-write
 *   tfl_file_publish(path, "device tuning", bytes, n, &won, diag);      // first writer wins
 *
 * Every message names the path and what it is for ("labels /tmp: is a directory, not a
 * file"). No global state; any thread may call.
 */
#ifndef TFL_FILE_H
#define TFL_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tfl_status.h"

/* Checks that `path` names an existing regular file (following symbolic links), without
 * opening it. TFL_ERR_IO with a sentence otherwise. `what` names the file's role. */
tfl_status tfl_file_check(const char *path, const char *what, tfl_diag *diag);

/* Opens a regular file for reading (never blocks: see above); its size in *size. Returns
 * the descriptor (the caller closes it) or -1 with the message in diag. */
int tfl_file_open_read(const char *path, const char *what, size_t *size, tfl_diag *diag);

/* Reads a whole regular file of at most max_bytes into a malloc'd, NUL-terminated buffer
 * (*data, freed by the caller; *len excludes the NUL). TFL_ERR_IO naming the path (and the
 * limit, for a larger file). */
tfl_status tfl_file_read(const char *path, const char *what, size_t max_bytes, char **data, size_t *len,
                         tfl_diag *diag);

/* Writes `len` bytes to a unique temporary file in path's directory and renames it over
 * `path`. An existing `path` that is not a regular file is left alone (error). */
tfl_status tfl_file_replace(const char *path, const char *what, const void *data, size_t len, tfl_diag *diag);

/* Opens (creating it 0644 if missing) a regular file for appending; its current size in
 * *size. A symbolic link is refused, not followed (a writer must not be pointed at another
 * file), as is anything but a regular file; a FIFO never blocks the open. Returns the
 * descriptor (blocking, close-on-exec; the caller closes it) or -1 with the message. */
int tfl_file_open_append(const char *path, const char *what, size_t *size, tfl_diag *diag);

/* tfl_file_open_read as a stdio stream ("rb"), refused when the file is larger than
 * max_bytes; the caller fcloses it. NULL with the message in diag. */
FILE *tfl_file_fopen_read(const char *path, const char *what, size_t max_bytes, tfl_diag *diag);

/* Opens a scratch file for reading and writing, emptied (created with `mode` if missing):
 * a symbolic link is refused, not followed, and anything but a regular file is refused
 * without blocking, as for tfl_file_open_append. Returns the descriptor or -1. */
int tfl_file_open_scratch(const char *path, const char *what, int mode, tfl_diag *diag);

/* First writer wins: `data` goes to a unique temporary file beside `path`, which is then
 * hard-linked to `path` only if nothing (file, link, FIFO, ...) has that name; a reader
 * sees no file or the whole one. *published is false, and TFL_OK returned, when something
 * was there first (left as it is). */
tfl_status tfl_file_publish(const char *path, const char *what, const void *data, size_t len, bool *published,
                            tfl_diag *diag);

#endif
