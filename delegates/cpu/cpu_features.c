/* cpu_features.c - see cpu_features.h. CPUID leaves 1 and 7 (sub-leaves 0 and 1), and
 * XGETBV: an instruction set counts only when the OS saves its registers. On arm64 the
 * kernel's HWCAP bits (set only for what it supports). */
#include "cpu_features.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>

static bool bit(unsigned v, int b)
{
  return (v >> b) & 1u;
}

static unsigned long long xcr0(void)
{
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return ((unsigned long long)hi << 32) | lo;
}
#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_SVE
#define HWCAP_SVE (1UL << 22) /* <asm/hwcap.h> */
#endif
#ifndef HWCAP_ASIMDDP
#define HWCAP_ASIMDDP (1UL << 20)
#endif
#endif

cpu_features cpu_features_detect(void)
{
  cpu_features f = cpu_features_none();
#if defined(__x86_64__) && defined(__GNUC__)
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !bit(c, 27) /* OSXSAVE */) return f;
  const unsigned long long x = xcr0();
  const bool os_avx = (x & 0x6) == 0x6;       /* XMM, YMM state */
  const bool os_avx512 = (x & 0xe6) == 0xe6;  /* and opmask, ZMM state */
  const bool fma = bit(c, 12), avx = bit(c, 28);
  if (!os_avx || !avx || !__get_cpuid_count(7, 0, &a, &b, &c, &d)) return f;
  const unsigned max_sub = a;
  f.avx2_fma = fma && bit(b, 5);
  f.avx512 = os_avx512 && f.avx2_fma && bit(b, 16) /* F */ && bit(b, 17) /* DQ */ &&
             bit(b, 30) /* BW */ && bit(b, 31) /* VL */;
  f.avx512_vnni = f.avx512 && bit(c, 11);
  f.avx512_vbmi = f.avx512 && bit(c, 1);
  if (max_sub >= 1 && __get_cpuid_count(7, 1, &a, &b, &c, &d)) {
    f.avx_vnni = f.avx2_fma && bit(a, 4);
    f.avx512_bf16 = f.avx512 && bit(a, 5);
  }
#elif defined(__aarch64__) && defined(__linux__)
  const unsigned long hw = getauxval(AT_HWCAP);
  f.sve = (hw & HWCAP_SVE) != 0;
  f.dotprod = (hw & HWCAP_ASIMDDP) != 0;
#endif
  return f;
}
