/* flexbuf.c - see flexbuf.h.
 *
 * Layout facts used (FlexBuffers): the last byte is the root's byte width, the one
 * before it the root's packed type (type << 2 | log2 width). A map value is an
 * offset back to its values; before the values sit, each one map-width wide, the
 * offset back to the keys vector, the keys' byte width and the entry count. After
 * the values come one packed-type byte per value. Keys are offsets back to
 * NUL-terminated strings; the keys vector is preceded by its own count.
 */
#include "flexbuf.h"

#include <string.h>

enum {
  FXB_NULL = 0, FXB_INT = 1, FXB_UINT = 2, FXB_FLOAT = 3,
  FXB_INDIRECT_INT = 6, FXB_INDIRECT_UINT = 7, FXB_INDIRECT_FLOAT = 8,
  FXB_MAP = 9, FXB_BOOL = 26,
};

static bool valid_width(unsigned w) { return w == 1 || w == 2 || w == 4 || w == 8; }

/* Reads a w-byte unsigned integer at pos, checking bounds. */
static bool rd_uint(const uint8_t *buf, size_t size, size_t pos, unsigned w, uint64_t *out)
{
  if (!valid_width(w) || pos > size || size - pos < w) return false;
  uint64_t v = 0;
  for (unsigned i = 0; i < w; i++) v |= (uint64_t)buf[pos + i] << (8 * i);
  *out = v;
  return true;
}

static bool rd_int(const uint8_t *buf, size_t size, size_t pos, unsigned w, int64_t *out)
{
  uint64_t u;
  if (!rd_uint(buf, size, pos, w, &u)) return false;
  if (w < 8 && (u >> (8 * w - 1)) & 1) u |= ~(uint64_t)0 << (8 * w); /* sign-extend */
  memcpy(out, &u, 8);
  return true;
}

static bool rd_float(const uint8_t *buf, size_t size, size_t pos, unsigned w, double *out)
{
  uint64_t u;
  if ((w != 4 && w != 8) || !rd_uint(buf, size, pos, w, &u)) return false;
  if (w == 4) {
    uint32_t b = (uint32_t)u;
    float f;
    memcpy(&f, &b, 4);
    *out = f;
  } else {
    memcpy(out, &u, 8);
  }
  return true;
}

/* Position `off` bytes before `pos`, or false if that leaves the buffer. */
static bool back(size_t pos, uint64_t off, size_t *out)
{
  if (off > pos) return false;
  *out = pos - (size_t)off;
  return true;
}

bool fxb_root_map(const uint8_t *buf, size_t size, fxb_map *out, const char **why)
{
  const char *dummy;
  if (!why) why = &dummy;
  memset(out, 0, sizeof *out);
  if (!buf || size < 3) {
    *why = "FlexBuffer shorter than 3 bytes";
    return false;
  }
  unsigned root_w = buf[size - 1];
  uint8_t packed = buf[size - 2];
  if (!valid_width(root_w) || size - 2 < root_w) {
    *why = "FlexBuffer root width invalid";
    return false;
  }
  if ((packed >> 2) != FXB_MAP) {
    *why = "FlexBuffer root is not a map";
    return false;
  }
  size_t root = size - 2 - root_w;
  uint64_t off;
  size_t values;
  unsigned w = 1u << (packed & 3);
  if (!rd_uint(buf, size, root, root_w, &off) || !back(root, off, &values)) {
    *why = "FlexBuffer map offset points outside the buffer";
    return false;
  }
  /* header: keys offset, keys width, count; each w bytes, just before the values */
  size_t hdr;
  uint64_t keys_off, kw, n;
  if (!back(values, 3 * (uint64_t)w, &hdr) || !rd_uint(buf, size, hdr, w, &keys_off) ||
      !rd_uint(buf, size, hdr + w, w, &kw) || !rd_uint(buf, size, hdr + 2 * w, w, &n)) {
    *why = "FlexBuffer map header outside the buffer";
    return false;
  }
  /* values and their type bytes must fit */
  if (n > size || n * (w + 1) > size - values) {
    *why = "FlexBuffer map entries run past the end";
    return false;
  }
  size_t keys;
  uint64_t kn;
  if (!valid_width((unsigned)kw) || !back(hdr, keys_off, &keys) || keys < kw ||
      !rd_uint(buf, size, keys - kw, (unsigned)kw, &kn) || kn != n || n * kw > size - keys) {
    *why = "FlexBuffer map keys invalid";
    return false;
  }
  out->buf = buf;
  out->size = size;
  out->values = values;
  out->n = (uint32_t)n;
  out->width = (uint8_t)w;
  out->keys = keys;
  out->key_width = (uint8_t)kw;
  return true;
}

/* Key i equals `key` (a NUL-terminated string inside the buffer). */
static bool key_is(const fxb_map *m, uint32_t i, const char *key)
{
  size_t at = m->keys + (size_t)i * m->key_width, s;
  uint64_t off;
  if (!rd_uint(m->buf, m->size, at, m->key_width, &off) || !back(at, off, &s)) return false;
  size_t klen = strlen(key);
  if (m->size - s < klen + 1) return false;
  return memcmp(m->buf + s, key, klen) == 0 && m->buf[s + klen] == 0;
}

typedef struct { int kind; int64_t i; uint64_t u; double f; } value;

static bool lookup(const fxb_map *m, const char *key, value *v)
{
  if (!m->buf) return false;
  for (uint32_t i = 0; i < m->n; i++) {
    if (!key_is(m, i, key)) continue;
    size_t pos = m->values + (size_t)i * m->width;
    uint8_t packed = m->buf[m->values + (size_t)m->n * m->width + i];
    unsigned type = packed >> 2, w = m->width;
    if (type == FXB_INDIRECT_INT || type == FXB_INDIRECT_UINT || type == FXB_INDIRECT_FLOAT) {
      uint64_t off;
      if (!rd_uint(m->buf, m->size, pos, w, &off) || !back(pos, off, &pos)) return false;
      w = 1u << (packed & 3);
      type = type - FXB_INDIRECT_INT + FXB_INT;
    }
    v->kind = (int)type;
    switch (type) {
    case FXB_INT: return rd_int(m->buf, m->size, pos, w, &v->i);
    case FXB_UINT:
    case FXB_BOOL: return rd_uint(m->buf, m->size, pos, w, &v->u);
    case FXB_FLOAT: return rd_float(m->buf, m->size, pos, w, &v->f);
    }
    return false;
  }
  return false;
}

bool fxb_get_int(const fxb_map *m, const char *key, int64_t *out)
{
  value v;
  if (!lookup(m, key, &v)) return false;
  if (v.kind == FXB_INT) *out = v.i;
  else if (v.kind == FXB_FLOAT) {
    if (!(v.f > -9.2e18 && v.f < 9.2e18)) return false;
    *out = (int64_t)v.f;
  } else {
    if (v.u > INT64_MAX) return false;
    *out = (int64_t)v.u;
  }
  return true;
}

bool fxb_get_float(const fxb_map *m, const char *key, double *out)
{
  value v;
  if (!lookup(m, key, &v)) return false;
  if (v.kind == FXB_FLOAT) *out = v.f;
  else if (v.kind == FXB_INT) *out = (double)v.i;
  else *out = (double)v.u;
  return true;
}

bool fxb_get_bool(const fxb_map *m, const char *key, bool *out)
{
  value v;
  if (!lookup(m, key, &v)) return false;
  if (v.kind == FXB_FLOAT) *out = v.f != 0;
  else if (v.kind == FXB_INT) *out = v.i != 0;
  else *out = v.u != 0;
  return true;
}
