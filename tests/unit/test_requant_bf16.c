/* test_requant_bf16.c - the two helpers of the oneDNN path, each path against the other
 * and against independent arithmetic:
 *   - requant_rows: AVX-512 and portable outputs equal, bit for bit, to the reference
 *     kernels' scalar cpu_requant_fp32 on random int32 sums (small, large, near the int32
 *     limits), channel counts that leave vector tails, uint8 and int8, clamped ranges, with
 *     and without the shifted-weights correction (per pixel);
 *   - bf16 conversion: native (AVX-512 BF16) and portable equal on 4M random bit patterns
 *     (NaNs, infinities, denormals included), and hand-checked roundings (ties to even,
 *     carries into the exponent, overflow to infinity, denormals to zero).
 * The vector paths are checked where the CPU has them; the portable ones everywhere. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../delegates/cpu/cpu_features.h"
#include "../../delegates/cpu/cpu_util.h"
#include "../../delegates/cpu/kernels/bf16.h"
#include "../../delegates/cpu/kernels/requant_rows.h"

static int failures;
static uint32_t rng = 2463534242u;

static uint32_t next(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return rng;
}

static void check_requant(const cpu_features *f)
{
  static const int channels[] = {1, 7, 16, 17, 33, 64, 100};
  for (size_t ci = 0; ci < sizeof channels / sizeof channels[0]; ci++) {
    for (int u8 = 0; u8 <= 1; u8++) {
      const int C = channels[ci], P = 23;
      int32_t *acc = malloc(sizeof(int32_t) * (size_t)(C * P)), *bias = malloc(sizeof(int32_t) * (size_t)C);
      float *scale = malloc(sizeof(float) * (size_t)C);
      uint8_t *a = malloc((size_t)(C * P)), *b = malloc((size_t)(C * P));
      for (int c = 0; c < C; c++) {
        bias[c] = (int32_t)(next() % 200001) - 100000;
        scale[c] = cpu_requant_scale(0.02f, 0.001f + 1e-5f * (float)c, 0.05f + 0.01f * (float)(next() % 7));
      }
      for (int i = 0; i < C * P; i++) {
        const uint32_t k = next() % 10;
        acc[i] = k < 6 ? (int32_t)(next() % 40001) - 20000 /* around the zero point */
                 : k < 9 ? (int32_t)next() >> 4                /* large: clamped */
                         : (int32_t)next();                   /* anything */
        if (i == 3) acc[i] = INT32_MAX - 200000; /* wraps with the bias like int32 lanes */
      }
      /* the shifted-weights correction: one window sum per pixel */
      int32_t *corr = malloc(sizeof(int32_t) * (size_t)P), *k = malloc(sizeof(int32_t) * (size_t)C);
      for (int i = 0; i < P; i++) corr[i] = (int32_t)(next() % 20001) - 10000;
      for (int c = 0; c < C; c++) k[c] = (int32_t)(next() % 256) - 127;
      const bool with_corr = C != 16;
      cpu_requant_rows r = {C, bias, with_corr ? k : NULL, scale, u8 ? 131 : -9, u8 ? 3 : -120, u8 ? 250 : 100,
                            u8 != 0};
      if (C == 7) r.bias = NULL;
      cpu_requant_rows_run(&r, acc, corr, a, (size_t)P, false);
      if (f->avx512) cpu_requant_rows_run(&r, acc, corr, b, (size_t)P, true);
      for (int i = 0; i < C * P; i++) {
        const int c = i % C;
        uint32_t usum = (uint32_t)acc[i] + (uint32_t)(r.bias ? bias[c] : 0);
        if (with_corr) usum += (uint32_t)k[c] * (uint32_t)corr[i / C];
        const int32_t sum = (int32_t)usum;
        const int32_t want = cpu_requant_fp32(sum, scale[c], r.zero_point, r.lo, r.hi);
        const int32_t ga = u8 ? a[i] : (int8_t)a[i], gb = u8 ? b[i] : (int8_t)b[i];
        if (ga != want || (f->avx512 && gb != want)) {
          fprintf(stderr, "FAIL requant C=%d %s [%d]: acc %d -> portable %d, avx512 %d, scalar %d\n", C,
                  u8 ? "u8" : "i8", i, acc[i], ga, f->avx512 ? gb : -999, want);
          failures++;
          break;
        }
      }
      free(acc), free(bias), free(scale), free(a), free(b), free(corr), free(k);
    }
  }
}

static void check_bf16(const cpu_features *f)
{
  /* hand-checked: value -> expected bf16 bits */
  static const struct {
    uint32_t in;
    uint16_t out;
  } cases[] = {
    {0x3f800000u, 0x3f80}, /* 1.0 */
    {0x3f808000u, 0x3f80}, /* 1 + 2^-8: a tie, to even (down) */
    {0x3f818000u, 0x3f82}, /* 1 + 3 * 2^-8: a tie, to even (up) */
    {0x3f808001u, 0x3f81}, /* just above the tie: up */
    {0x3f7fffffu, 0x3f80}, /* rounds up into the next exponent */
    {0x7f7fffffu, 0x7f80}, /* largest float: overflows to infinity */
    {0x00000001u, 0x0000}, /* denormal: zero */
    {0x807fffffu, 0x8000}, /* negative denormal: -0 */
    {0x7f800000u, 0x7f80}, /* infinity */
    {0x7f800001u, 0x7fc0}, /* signalling NaN: quiet */
    {0xffc00000u, 0xffc0}, /* quiet NaN */
  };
  const size_t nc = sizeof cases / sizeof cases[0];
  float x[16];
  uint16_t y[16], z[16];
  for (size_t i = 0; i < nc; i++) memcpy(&x[i], &cases[i].in, 4);
  cpu_bf16_convert(x, y, nc, false);
  if (f->avx512_bf16) cpu_bf16_convert(x, z, nc, true);
  for (size_t i = 0; i < nc; i++)
    if (y[i] != cases[i].out || (f->avx512_bf16 && z[i] != cases[i].out)) {
      fprintf(stderr, "FAIL bf16 %08x: portable %04x, native %04x, expected %04x\n", cases[i].in, y[i],
              f->avx512_bf16 ? z[i] : 0, cases[i].out);
      failures++;
    }
  /* back and forth: a bf16 value converts to itself */
  if (cpu_bf16_from_f32(cpu_bf16_to_f32(0x4049)) != 0x4049) {
    fprintf(stderr, "FAIL bf16 round trip\n");
    failures++;
  }
  if (!f->avx512_bf16) return;
  const size_t n = (size_t)1 << 22;
  float *v = malloc(n * 4);
  uint16_t *a = malloc(n * 2), *b = malloc(n * 2);
  for (size_t i = 0; i < n; i++) {
    const uint32_t u = next();
    memcpy(&v[i], &u, 4);
  }
  for (size_t len = 1; len < 40; len++) { /* tails */
    cpu_bf16_convert(v, a, len, false);
    cpu_bf16_convert(v, b, len, true);
    if (memcmp(a, b, len * 2) != 0) {
      fprintf(stderr, "FAIL bf16 length %zu: native and portable differ\n", len);
      failures++;
    }
  }
  cpu_bf16_convert(v, a, n, false);
  cpu_bf16_convert(v, b, n, true);
  for (size_t i = 0; i < n; i++)
    if (a[i] != b[i]) {
      uint32_t u;
      memcpy(&u, &v[i], 4);
      fprintf(stderr, "FAIL bf16 %08x: portable %04x, native %04x\n", u, a[i], b[i]);
      failures++;
      break;
    }
  free(v), free(a), free(b);
}

int main(void)
{
  const cpu_features f = cpu_features_detect();
  check_requant(&f);
  check_bf16(&f);
  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("OK: requant (portable%s) and bf16 conversion (portable%s)\n", f.avx512 ? " + AVX-512" : "",
         f.avx512_bf16 ? " + AVX-512 BF16" : "");
  return 0;
}
