/* tfl_zip.c - see tfl_zip.h */
#include "tfl_zip.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define ZIP_STORED 0
#define ZIP_DEFLATE 8

static uint32_t le16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t le32(const uint8_t *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Raw deflate (no zlib header, as zip stores it) of src into a buffer of exactly usize
 * bytes + a NUL; false when the stream is bad or does not give usize bytes. */
static bool inflate_exact(const uint8_t *src, size_t csize, size_t usize, char *dst)
{
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK) return false;
  z.next_in = (Bytef *)(uintptr_t)src;
  z.avail_in = (uInt)csize;
  z.next_out = (Bytef *)dst;
  z.avail_out = (uInt)usize;
  const int rc = inflate(&z, Z_FINISH);
  const bool ok = rc == Z_STREAM_END && z.total_out == usize;
  inflateEnd(&z);
  return ok;
}

bool tfl_zip_read(const uint8_t *buf, size_t size, const char *name, size_t max_bytes, char **out, size_t *len,
                  const char **why)
{
  *out = NULL;
  *len = 0;
  if (size < 22) { *why = TFL_ZIP_NO_ARCHIVE; return false; }
  /* end of central directory: 22 bytes + a comment of up to 65535 bytes */
  size_t lo = size > 22 + 65535 ? size - 22 - 65535 : 0, eocd = 0;
  bool found = false;
  for (size_t p = size - 22 + 1; p-- > lo;) {
    if (le32(buf + p) == 0x06054b50u && p + 22 + le16(buf + p + 20) == size) {
      eocd = p;
      found = true;
      break;
    }
  }
  if (!found) { *why = TFL_ZIP_NO_ARCHIVE; return false; }
  uint32_t n = le16(buf + eocd + 10);
  uint32_t cd_size = le32(buf + eocd + 12), cd_off = le32(buf + eocd + 16);
  if (cd_size > eocd) { *why = "zip central directory larger than the file"; return false; }
  /* the archive may have been appended: trust the directory's position, not cd_off */
  size_t cd = eocd - cd_size;
  int64_t shift = (int64_t)cd - (int64_t)cd_off;
  size_t nlen = strlen(name), p = cd;
  for (uint32_t i = 0; i < n; i++) {
    if (p + 46 > eocd || le32(buf + p) != 0x02014b50u) {
      *why = "zip central directory entry malformed";
      return false;
    }
    uint32_t method = le16(buf + p + 10), csize = le32(buf + p + 20), usize = le32(buf + p + 24);
    uint32_t fn = le16(buf + p + 28), ex = le16(buf + p + 30), cm = le16(buf + p + 32);
    uint32_t local = le32(buf + p + 42);
    if (p + 46 + (size_t)fn + ex + cm > eocd) {
      *why = "zip central directory entry runs past its end";
      return false;
    }
    if (fn == nlen && memcmp(buf + p + 46, name, nlen) == 0) {
      if (method != ZIP_STORED && method != ZIP_DEFLATE) {
        *why = "zip entry compressed by a method other than store or deflate";
        return false;
      }
      if (method == ZIP_STORED && csize != usize) {
        *why = "stored zip entry whose sizes differ";
        return false;
      }
      if (usize > max_bytes) {
        *why = "zip entry larger than allowed";
        return false;
      }
      int64_t lh = (int64_t)local + shift;
      if (lh < 0 || (uint64_t)lh + 30 > size || le32(buf + lh) != 0x04034b50u) {
        *why = "zip local header outside the file";
        return false;
      }
      uint64_t start = (uint64_t)lh + 30 + le16(buf + lh + 26) + le16(buf + lh + 28);
      if (start > size || csize > size - start) {
        *why = "zip entry data outside the file";
        return false;
      }
      char *d = malloc((size_t)usize + 1);
      if (!d) { *why = "out of memory"; return false; }
      if (method == ZIP_STORED) {
        memcpy(d, buf + start, usize);
      } else if (!inflate_exact(buf + start, csize, usize, d)) {
        free(d);
        *why = "deflated zip entry does not inflate to its recorded size";
        return false;
      }
      d[usize] = 0;
      *out = d;
      *len = usize;
      return true;
    }
    p += 46 + (size_t)fn + ex + cm;
  }
  *why = TFL_ZIP_NO_ENTRY;
  return false;
}
