/* flexbuf.h - a small bounds-checked FlexBuffers reader for custom-op options.
 *
 * Custom ops (TFLite_Detection_PostProcess, PosenetDecoderOp) keep their options in
 * a FlexBuffer whose root is a map of scalars. This reader opens that root map and
 * looks keys up; it reads int, uint, float and bool values (inline or indirect) and
 * converts between them as FlexBuffers' AsInt64/AsDouble do. Nested maps and
 * vectors are not followed (no recursion). Every read is checked against the
 * buffer; a malformed value reads as "missing".
 *
 * The bytes are borrowed: they must outlive the map.
 */
#ifndef TFL_FLEXBUF_H
#define TFL_FLEXBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  const uint8_t *buf;
  size_t size;
  size_t values;     /* position of value 0 */
  uint32_t n;        /* entries */
  uint8_t width;     /* byte width of values and of the map's header fields */
  size_t keys;       /* position of key offset 0 */
  uint8_t key_width;
} fxb_map;

/* Opens the root map; false (with a reason in `why`, if given) when the buffer is
 * not a FlexBuffer whose root is a map. */
bool fxb_root_map(const uint8_t *buf, size_t size, fxb_map *out, const char **why);

/* Value of `key`: true when present and numeric (int/uint/float/bool). */
bool fxb_get_int(const fxb_map *m, const char *key, int64_t *out);
bool fxb_get_float(const fxb_map *m, const char *key, double *out);
bool fxb_get_bool(const fxb_map *m, const char *key, bool *out);

#endif
