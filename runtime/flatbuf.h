/* flatbuf.h - a bounds-checked FlatBuffers reader for untrusted bytes.
 *
 * Checks what FlatBuffers' verifier checks, at the moment a value is read: every
 * uoffset lands inside the buffer, a table's vtable is 2-aligned, inside the buffer
 * and at least 4 bytes, a field lies inside its table's inline size, a vector's
 * length * element size fits, a string ends with a NUL inside the buffer.
 *
 * Errors are sticky: the first failure sets r->bad and a message naming the field
 * ("field 3 of table at 0x1a0: vector of 40000000 x 4 bytes runs past the end
 * (file has 1024 bytes)"); later reads return defaults/absent. The caller checks
 * fb_ok() after a group of reads and prefixes its own context ("tensor 12: ...").
 *
 * No recursion: callers walk a fixed schema path, so nesting depth is bounded by
 * their code; r->tables_left bounds the total number of tables opened (as the
 * verifier's max_tables), so a vector whose elements all point at one table cannot
 * make loading quadratic. Loads use memcpy, so byte alignment never matters for
 * safety; tables are still required to be 4-aligned, as the verifier does.
 *
 * The reader never owns the bytes; they must outlive it.
 */
#ifndef TFL_FLATBUF_H
#define TFL_FLATBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  const uint8_t *buf;
  size_t size;          /* < 2^31: FlatBuffers offsets are 32-bit */
  bool bad;             /* sticky error flag */
  long tables_left;     /* budget of tables opened */
  char msg[200];        /* first error */
} fb_reader;

/* A table: pos == 0 means absent (position 0 is never a valid table). */
typedef struct {
  fb_reader *r;
  uint32_t pos;         /* table start (its soffset to the vtable) */
  uint32_t vt;          /* vtable start */
  uint16_t vt_size;     /* vtable bytes */
  uint16_t t_size;      /* inline table bytes */
} fb_table;

/* A vector: data is the position of element 0; n == 0 also when absent. */
typedef struct {
  uint32_t data;
  uint32_t n;
  bool present;
} fb_vec;

/* size must be >= 8 and < 2^31; returns false (with r->msg) otherwise. */
bool fb_init(fb_reader *r, const uint8_t *buf, size_t size);
static inline bool fb_ok(const fb_reader *r) { return !r->bad; }
/* Records the first error (printf format); later calls are ignored. */
void fb_fail(fb_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The root table (uoffset at byte 0). */
bool fb_root(fb_reader *r, fb_table *out);
/* The 4-byte file identifier at bytes 4..7 equals `id`. */
bool fb_has_identifier(const fb_reader *r, const char id[4]);

/* Whether the field is present (non-zero vtable entry). */
bool fb_has(const fb_table *t, int id);

/* Scalar fields: the default when absent, or on a bad field (then r->bad). */
uint8_t fb_u8(const fb_table *t, int id, uint8_t def);
int8_t fb_i8(const fb_table *t, int id, int8_t def);
bool fb_bool(const fb_table *t, int id, bool def);
uint16_t fb_u16(const fb_table *t, int id, uint16_t def);
int32_t fb_i32(const fb_table *t, int id, int32_t def);
uint32_t fb_u32(const fb_table *t, int id, uint32_t def);
int64_t fb_i64(const fb_table *t, int id, int64_t def);
uint64_t fb_u64(const fb_table *t, int id, uint64_t def);
float fb_f32(const fb_table *t, int id, float def);

/* Sub-table field; false when absent or bad (out->pos == 0). */
bool fb_table_field(const fb_table *t, int id, fb_table *out);
/* Vector field of elem_size-byte elements; false when absent or bad (n == 0). */
bool fb_vec_field(const fb_table *t, int id, size_t elem_size, fb_vec *out);
/* String field: NUL-terminated pointer into the buffer, NULL when absent or bad. */
const char *fb_string_field(const fb_table *t, int id, uint32_t *len);

/* Elements of a vector already checked by fb_vec_field (i < v->n is the caller's). */
uint8_t fb_vec_u8(const fb_reader *r, const fb_vec *v, uint32_t i);
uint16_t fb_vec_u16(const fb_reader *r, const fb_vec *v, uint32_t i);
int32_t fb_vec_i32(const fb_reader *r, const fb_vec *v, uint32_t i);
int64_t fb_vec_i64(const fb_reader *r, const fb_vec *v, uint32_t i);
float fb_vec_f32(const fb_reader *r, const fb_vec *v, uint32_t i);
/* Element i of a vector of tables / strings (4-byte uoffsets). */
bool fb_vec_table(fb_reader *r, const fb_vec *v, uint32_t i, fb_table *out);
const char *fb_vec_string(fb_reader *r, const fb_vec *v, uint32_t i, uint32_t *len);
/* Pointer to element 0. */
static inline const uint8_t *fb_vec_bytes(const fb_reader *r, const fb_vec *v)
{
  return r->buf + v->data;
}

#endif
