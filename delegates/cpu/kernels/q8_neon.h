/* q8_neon.h - what the arm64 NEON 8-bit kernels (conv_q8_neon.c, dwconv_q8_neon.c) share:
 * the reference's requantization (cpu_requant_fp32) on 8 channels at once, and input bytes
 * less their zero point widened to int16. NEON is part of every aarch64 CPU: no run-time
 * check. Private to delegates/cpu/kernels/; empty off aarch64.
 *
 * Exactness: the int32 sums are the reference's (integer multiply-adds wrap modulo 2^32 in
 * any order); the requantization converts to float (scvtf: nearest, ties to even, as C's
 * conversion), multiplies by the same float32 scale (one rounding, no fused multiply-add),
 * clamps, and rounds ties to even (fcvtns, as lrintf in the default mode). */
#ifndef CPU_Q8_NEON_H
#define CPU_Q8_NEON_H

#if defined(__aarch64__)
#include <arm_neon.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* What the requantization of one node needs, in registers' terms. */
typedef struct {
  float flo, fhi;  /* the activation range less the output zero point, as float */
  int32_t zp;      /* output zero point */
  bool is_u8;
} q8n_out;

/* 8 sums (lo: channels 0-3, hi: 4-7) -> 8 stored bytes at y; nc < 8 stores the first nc. */
static inline void q8n_store8(const q8n_out *o, int32x4_t lo, int32x4_t hi, const float *scale, uint8_t *y, int nc)
{
  const float32x4_t flo = vdupq_n_f32(o->flo), fhi = vdupq_n_f32(o->fhi);
  float32x4_t f0 = vmulq_f32(vcvtq_f32_s32(lo), vld1q_f32(scale));
  float32x4_t f1 = vmulq_f32(vcvtq_f32_s32(hi), vld1q_f32(scale + 4));
  f0 = vminq_f32(vmaxq_f32(f0, flo), fhi);
  f1 = vminq_f32(vmaxq_f32(f1, flo), fhi);
  const int32x4_t zp = vdupq_n_s32(o->zp);
  const int32x4_t q0 = vaddq_s32(vcvtnq_s32_f32(f0), zp), q1 = vaddq_s32(vcvtnq_s32_f32(f1), zp);
  const int16x8_t q = vcombine_s16(vqmovn_s32(q0), vqmovn_s32(q1)); /* in range: exact */
  const uint8x8_t b = o->is_u8 ? vqmovun_s16(q) : vreinterpret_u8_s8(vqmovn_s16(q));
  if (nc >= 8) {
    vst1_u8(y, b);
    return;
  }
  uint8_t tmp[8];
  vst1_u8(tmp, b);
  memcpy(y, tmp, (size_t)nc);
}

/* 8 stored bytes less the zero point zx, as int16 (the difference fits: zero points lie in
 * the storage type's range). */
static inline int16x8_t q8n_widen(const uint8_t *x, bool is_u8, int32_t zx)
{
  const uint8x8_t v = vld1_u8(x);
  if (is_u8) return vreinterpretq_s16_u16(vsubl_u8(v, vdup_n_u8((uint8_t)zx)));
  return vsubl_s8(vreinterpret_s8_u8(v), vdup_n_s8((int8_t)zx));
}

/* The same for the first n < 8 bytes; the others as if they held the zero point (0). */
static inline int16x8_t q8n_widen_part(const uint8_t *x, int n, bool is_u8, int32_t zx)
{
  uint8_t tmp[8];
  memset(tmp, (int)(uint8_t)zx, sizeof tmp);
  memcpy(tmp, x, (size_t)n);
  return q8n_widen(tmp, is_u8, zx);
}
#endif

#endif
