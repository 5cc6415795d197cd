/* tfl_half.h - IEEE half (float16) bits to float, exact: the loader's folding, both
 * delegates' tensor reads and the GL host path share it, so they agree bit for bit. */
#ifndef TFL_HALF_H
#define TFL_HALF_H

#include <stdint.h>
#include <string.h>

static inline float tfl_half_to_float(uint16_t h)
{
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, bits;
  if (e == 0) { /* zero or subnormal: m * 2^-24, exact in float (no per-value ldexpf) */
    float v = (float)m * 0x1p-24f;
    return sign ? -v : v;
  }
  if (e == 31) bits = sign | 0x7f800000u | (m << 13); /* inf, or NaN with its payload */
  else bits = sign | ((e - 15 + 127) << 23) | (m << 13);
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

#endif
