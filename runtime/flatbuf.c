/* flatbuf.c - see flatbuf.h. All arithmetic on positions is done in uint64_t so a
 * hostile offset cannot wrap around. */
#include "flatbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define FB_MAX_TABLES 10000000L

void fb_fail(fb_reader *r, const char *fmt, ...)
{
  if (r->bad) return;
  r->bad = true;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->msg, sizeof r->msg, fmt, ap);
  va_end(ap);
}

static uint16_t rd16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

bool fb_init(fb_reader *r, const uint8_t *buf, size_t size)
{
  memset(r, 0, sizeof *r);
  r->buf = buf;
  r->size = size;
  r->tables_left = FB_MAX_TABLES;
  if (size < 8) {
    fb_fail(r, "file has %zu bytes, too short for a flatbuffer", size);
    return false;
  }
  if (size >= ((size_t)1 << 31)) {
    /* Larger files keep their weights outside the flatbuffer (Buffer.offset);
     * the flatbuffer part itself is still < 2 GiB, so read only that much. */
    r->size = ((size_t)1 << 31) - 1;
  }
  return true;
}

bool fb_has_identifier(const fb_reader *r, const char id[4])
{
  return r->size >= 8 && memcmp(r->buf + 4, id, 4) == 0;
}

/* Opens the table at `pos`, validating it and its vtable. */
static bool table_at(fb_reader *r, uint64_t pos, fb_table *out)
{
  memset(out, 0, sizeof *out);
  out->r = r;
  if (r->bad) return false;
  if (--r->tables_left < 0) {
    fb_fail(r, "more than %ld tables opened (limit)", FB_MAX_TABLES);
    return false;
  }
  if (pos == 0 || pos + 4 > r->size) {
    fb_fail(r, "table at 0x%llx outside the file (%zu bytes)", (unsigned long long)pos, r->size);
    return false;
  }
  if (pos % 4) {
    fb_fail(r, "table at 0x%llx is not 4-byte aligned", (unsigned long long)pos);
    return false;
  }
  int32_t soff;
  uint32_t u = rd32(r->buf + pos);
  memcpy(&soff, &u, 4);
  int64_t vt = (int64_t)pos - (int64_t)soff;
  if (vt < 0 || (uint64_t)vt + 4 > r->size) {
    fb_fail(r, "table at 0x%llx: vtable at %lld outside the file (%zu bytes)",
            (unsigned long long)pos, (long long)vt, r->size);
    return false;
  }
  if (vt % 2) {
    fb_fail(r, "table at 0x%llx: vtable at 0x%llx is not 2-byte aligned",
            (unsigned long long)pos, (long long)vt);
    return false;
  }
  uint16_t vt_size = rd16(r->buf + vt);
  uint16_t t_size = rd16(r->buf + vt + 2);
  if (vt_size < 4 || vt_size % 2 || (uint64_t)vt + vt_size > r->size) {
    fb_fail(r, "table at 0x%llx: vtable size %u invalid or past the end of the file",
            (unsigned long long)pos, vt_size);
    return false;
  }
  if (t_size < 4 || pos + t_size > r->size) {
    fb_fail(r, "table at 0x%llx: inline size %u invalid or past the end of the file",
            (unsigned long long)pos, t_size);
    return false;
  }
  out->pos = (uint32_t)pos;
  out->vt = (uint32_t)vt;
  out->vt_size = vt_size;
  out->t_size = t_size;
  return true;
}

bool fb_root(fb_reader *r, fb_table *out)
{
  return table_at(r, rd32(r->buf), out);
}

/* Offset of field `id` inside the table, 0 when absent; checks it fits `sz` bytes. */
static uint32_t field_off(const fb_table *t, int id, size_t sz)
{
  if (!t->pos || t->r->bad || id < 0) return 0;
  uint32_t e = 4 + 2 * (uint32_t)id;
  if (e + 2 > t->vt_size) return 0;
  uint16_t off = rd16(t->r->buf + t->vt + e);
  if (!off) return 0;
  if (off < 4 || off + sz > t->t_size) {
    fb_fail(t->r, "field %d of table at 0x%x: %zu bytes at offset %u do not fit its %u-byte table",
            id, t->pos, sz, off, t->t_size);
    return 0;
  }
  return off;
}

bool fb_has(const fb_table *t, int id)
{
  if (!t->pos || id < 0) return false;
  uint32_t e = 4 + 2 * (uint32_t)id;
  if (e + 2 > t->vt_size) return false;
  return rd16(t->r->buf + t->vt + e) != 0;
}

#define SCALAR_GETTER(name, type)                            \
  type name(const fb_table *t, int id, type def)             \
  {                                                          \
    uint32_t off = field_off(t, id, sizeof(type));           \
    if (!off) return def;                                    \
    type v;                                                  \
    memcpy(&v, t->r->buf + t->pos + off, sizeof v);          \
    return v;                                                \
  }

SCALAR_GETTER(fb_u8, uint8_t)
SCALAR_GETTER(fb_i8, int8_t)
SCALAR_GETTER(fb_u16, uint16_t)
SCALAR_GETTER(fb_i32, int32_t)
SCALAR_GETTER(fb_u32, uint32_t)
SCALAR_GETTER(fb_i64, int64_t)
SCALAR_GETTER(fb_u64, uint64_t)
SCALAR_GETTER(fb_f32, float)

bool fb_bool(const fb_table *t, int id, bool def)
{
  return fb_u8(t, id, def ? 1 : 0) != 0;
}

/* Follows the uoffset stored at absolute position `at`; 0 on failure. */
static uint64_t follow(fb_reader *r, uint64_t at, int id)
{
  uint64_t target = at + rd32(r->buf + at);
  if (target >= r->size) {
    fb_fail(r, "field %d: offset to 0x%llx points outside the file (%zu bytes)", id,
            (unsigned long long)target, r->size);
    return 0;
  }
  return target;
}

bool fb_table_field(const fb_table *t, int id, fb_table *out)
{
  memset(out, 0, sizeof *out);
  out->r = t->r;
  uint32_t off = field_off(t, id, 4);
  if (!off) return false;
  uint64_t target = follow(t->r, (uint64_t)t->pos + off, id);
  if (!target) return false;
  return table_at(t->r, target, out);
}

/* Validates a vector whose length field sits at `pos`. */
static bool vec_at(fb_reader *r, uint64_t pos, size_t elem, int id, fb_vec *out)
{
  memset(out, 0, sizeof *out);
  if (pos % 4 || pos + 4 > r->size) {
    fb_fail(r, "field %d: vector at 0x%llx misaligned or outside the file", id,
            (unsigned long long)pos);
    return false;
  }
  uint32_t n = rd32(r->buf + pos);
  if ((uint64_t)n * elem > r->size - pos - 4) {
    fb_fail(r, "field %d: vector of %u x %zu bytes at 0x%llx runs past the end (file has %zu bytes)",
            id, n, elem, (unsigned long long)pos, r->size);
    return false;
  }
  out->data = (uint32_t)pos + 4;
  out->n = n;
  out->present = true;
  return true;
}

bool fb_vec_field(const fb_table *t, int id, size_t elem_size, fb_vec *out)
{
  memset(out, 0, sizeof *out);
  uint32_t off = field_off(t, id, 4);
  if (!off) return false;
  uint64_t target = follow(t->r, (uint64_t)t->pos + off, id);
  if (!target) return false;
  return vec_at(t->r, target, elem_size, id, out);
}

static const char *string_at(fb_reader *r, uint64_t pos, int id, uint32_t *len)
{
  fb_vec v;
  if (!vec_at(r, pos, 1, id, &v)) return NULL;
  if ((uint64_t)v.data + v.n >= r->size || r->buf[v.data + v.n] != 0) {
    fb_fail(r, "field %d: string of %u bytes at 0x%llx has no NUL terminator inside the file", id,
            v.n, (unsigned long long)pos);
    return NULL;
  }
  if (len) *len = v.n;
  return (const char *)r->buf + v.data;
}

const char *fb_string_field(const fb_table *t, int id, uint32_t *len)
{
  if (len) *len = 0;
  uint32_t off = field_off(t, id, 4);
  if (!off) return NULL;
  uint64_t target = follow(t->r, (uint64_t)t->pos + off, id);
  if (!target) return NULL;
  return string_at(t->r, target, id, len);
}

uint8_t fb_vec_u8(const fb_reader *r, const fb_vec *v, uint32_t i) { return r->buf[v->data + i]; }
uint16_t fb_vec_u16(const fb_reader *r, const fb_vec *v, uint32_t i)
{
  return rd16(r->buf + v->data + 2 * (size_t)i);
}
int32_t fb_vec_i32(const fb_reader *r, const fb_vec *v, uint32_t i)
{
  int32_t x;
  memcpy(&x, r->buf + v->data + 4 * (size_t)i, 4);
  return x;
}
int64_t fb_vec_i64(const fb_reader *r, const fb_vec *v, uint32_t i)
{
  int64_t x;
  memcpy(&x, r->buf + v->data + 8 * (size_t)i, 8);
  return x;
}
float fb_vec_f32(const fb_reader *r, const fb_vec *v, uint32_t i)
{
  float x;
  memcpy(&x, r->buf + v->data + 4 * (size_t)i, 4);
  return x;
}

bool fb_vec_table(fb_reader *r, const fb_vec *v, uint32_t i, fb_table *out)
{
  memset(out, 0, sizeof *out);
  out->r = r;
  if (r->bad || i >= v->n) return false;
  uint64_t at = (uint64_t)v->data + 4 * (uint64_t)i;
  uint64_t target = follow(r, at, -1);
  if (!target) return false;
  return table_at(r, target, out);
}

const char *fb_vec_string(fb_reader *r, const fb_vec *v, uint32_t i, uint32_t *len)
{
  if (len) *len = 0;
  if (r->bad || i >= v->n) return NULL;
  uint64_t at = (uint64_t)v->data + 4 * (uint64_t)i;
  uint64_t target = follow(r, at, -1);
  if (!target) return NULL;
  return string_at(r, target, -1, len);
}
