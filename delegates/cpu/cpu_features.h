/* cpu_features.h - the instruction sets this CPU has, for kernels chosen at run time.
 * Every fast kernel also has a portable path; tests pass a cpu_features with everything
 * off to cover it on any machine. Reads CPUID (x86-64) or the kernel's HWCAP bits (arm64)
 * only: no state, any thread. */
#ifndef CPU_FEATURES_H
#define CPU_FEATURES_H

#include <stdbool.h>

typedef struct {
  bool avx2_fma;     /* AVX2 + FMA (x86-64-v3) */
  bool avx512;       /* AVX-512 F, BW, DQ, VL (x86-64-v4) */
  bool avx512_vnni;  /* AVX-512 VNNI: vpdpbusd, u8 x s8 dot products */
  bool avx512_bf16;  /* AVX-512 BF16: vdpbf16ps, vcvtneps2bf16 */
  bool avx_vnni;     /* AVX-VNNI: the 256-bit VEX form of the dot products */
  bool avx512_vbmi;  /* AVX-512 VBMI: vpermi2b, byte table lookups */
  bool sve;          /* arm64 SVE (getauxval(AT_HWCAP)): oneDNN's only arm64 JIT convolutions */
  bool dotprod;      /* arm64 dot products (ARMv8.2 SDOT/UDOT: Cortex-A76, A78, Neoverse; not A53/A72) */
} cpu_features;

/* What this CPU has (all false off x86-64 and arm64). */
cpu_features cpu_features_detect(void);
/* Everything off: the portable paths. */
static inline cpu_features cpu_features_none(void)
{
  return (cpu_features){false, false, false, false, false, false, false, false};
}

#endif
