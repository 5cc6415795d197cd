/* bf16.h - float32 to bfloat16, rounded to nearest even, as AVX-512 BF16's vcvtneps2bf16
 * does it (input denormals count as zero, NaNs stay NaN, quiet): the native instruction
 * where the CPU has it (the caller says, cpu_features), the same bits in portable C
 * otherwise. bfloat16 values are stored as uint16_t (the float's top half). */
#ifndef CPU_BF16_H
#define CPU_BF16_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t cpu_bf16_from_f32(float f)
{
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u); /* quiet NaN */
  if ((u & 0x7f800000u) == 0) u &= 0x80000000u;                              /* denormal: 0 */
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

static inline float cpu_bf16_to_f32(uint16_t h)
{
  const uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* y[i] = bf16(x[i]) for n values. native: vcvtneps2bf16 (only if the CPU has AVX-512 BF16). */
void cpu_bf16_convert(const float *x, uint16_t *y, size_t n, bool native);

#endif
