/* tfl_zip.h - one entry of the zip archive appended to a model file.
 *
 * TFLite metadata writers append their label files as a zip after the flatbuffer
 * (stored entries); Ultralytics' exporter appends `metadata.json` the same way but
 * deflated. The archive is found through its end-of-central-directory record at the end
 * of the bytes; every offset and size is checked against them (a model file is
 * untrusted input). Internal to runtime/.
 */
#ifndef TFL_ZIP_H
#define TFL_ZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The *why of an absent archive or entry (the others are malformed ones). */
#define TFL_ZIP_NO_ARCHIVE "no zip archive appended"
#define TFL_ZIP_NO_ENTRY "entry not found in the appended zip"

/* Finds entry `name` in the zip at the end of buf[0..size) and returns a malloc'd,
 * NUL-terminated copy of its contents (stored or deflated, at most max_bytes
 * uncompressed) in *out (the caller frees it) and its length in *len. False with *why
 * (a static sentence) when there is no archive, no such entry, or it is malformed,
 * larger than max_bytes or compressed by another method. */
bool tfl_zip_read(const uint8_t *buf, size_t size, const char *name, size_t max_bytes, char **out, size_t *len,
                  const char **why);

#endif
