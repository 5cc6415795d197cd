/* ov_kernels.c - the portable row kernels and the choice of instruction set (see ov_kernels.h).
 *
 * Built with -ffp-contract=off, like the vector files: a fused multiply-add rounds once
 * where the others round twice, and the instruction sets must agree to the byte. */
#include "ov_kernels.h"

#include <math.h>
#include <string.h>

/* round((c - d) * w / 32768), half up, without shifting a negative number */
static inline int blend_px(int d, int c, int w)
{
  return d + (((c - d) * w + (1 << 14) + (1 << 23)) >> 15) - (1 << 8);
}

void ov_blend_row_c(uint8_t *dst, int stride, int rows, const uint8_t *color, const uint16_t *w,
                    int n, int ch)
{
  int used = ch == 4 ? 3 : ch;
  for (int r = 0; r < rows; r++, dst += stride)
    for (int i = 0; i < n; i++) {
      if (!w[i]) continue;
      for (int c = 0; c < used; c++) dst[i * ch + c] = (uint8_t)blend_px(dst[i * ch + c], color[i * ch + c], w[i]);
    }
}

void ov_blend_const_c(uint8_t *dst, int stride, int rows, const uint8_t color[4], const uint16_t *w,
                      int w_stride, int n, int ch)
{
  int used = ch == 4 ? 3 : ch;
  for (int r = 0; r < rows; r++, dst += stride, w += w_stride)
    for (int i = 0; i < n; i++) {
      if (!w[i]) continue;
      for (int c = 0; c < used; c++) dst[i * ch + c] = (uint8_t)blend_px(dst[i * ch + c], color[c], w[i]);
    }
}

/* NaN gives 0, as the vector max(v, 0) does */
static inline float clamp01(float v)
{
  return v > 0.0f ? (v < 1.0f ? v : 1.0f) : 0.0f;
}

void ov_shape_weights_c(uint16_t *w, int x0, int n, float yc, const OvKernelShape *s)
{
  const float hx = s->hx + 0.5f, hy = s->hy + 0.5f, ly = yc - s->cy;
  for (int i = 0; i < n; i++) {
    float lx = ((float)(x0 + i) + 0.5f) - s->cx, a;
    if (s->disk) {
      a = clamp01(hx - sqrtf(lx * lx + ly * ly));
    } else {
      float along = lx * s->dx + ly * s->dy, across = ly * s->dx - lx * s->dy;
      a = clamp01(hx - fabsf(along)) * clamp01(hy - fabsf(across));
    }
    w[i] = (uint16_t)(int)(a * s->weight + 0.5f);
  }
}

void ov_prob_weights_c(uint16_t *w, const float *h0, const float *h1, float t, float scale, int n)
{
  const float u = 1.0f - t;
  for (int i = 0; i < n; i++) {
    float p = h0[i] * u + h1[i] * t;
    w[i] = p > 0.0f ? (uint16_t)(int)((p < 1.0f ? p : 1.0f) * scale + 0.5f) : 0;
  }
}

void ov_lerp_gather_c(float *out, const float *row, const int32_t *i0, const int32_t *i1,
                      const float *t, int n)
{
  for (int i = 0; i < n; i++) out[i] = row[i0[i]] * (1.0f - t[i]) + row[i1[i]] * t[i];
}

static const OvKernels kernels_c = {
  "c", ov_blend_row_c, ov_blend_const_c, ov_shape_weights_c, ov_prob_weights_c, ov_lerp_gather_c,
};

static const char *const isa_names[OV_ISA_COUNT] = { "c", "avx2", "avx512" };
_Static_assert(sizeof isa_names / sizeof isa_names[0] == OV_ISA_COUNT, "one name per instruction set");

/* Whether this CPU (and its OS, which must save the wider registers) runs isa. */
static int cpu_runs(OvIsa isa)
{
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  switch (isa) {
  case OV_ISA_C:
    return 1;
  case OV_ISA_AVX2:
    return __builtin_cpu_supports("avx2");
  case OV_ISA_AVX512:
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl");
  case OV_ISA_COUNT:
    return 0;
  }
  return 0;
#else
  return isa == OV_ISA_C;
#endif
}

const OvKernels *ov_kernels_get(OvIsa isa)
{
  if (isa < 0 || isa >= OV_ISA_COUNT || !cpu_runs(isa)) return NULL;
  switch (isa) {
  case OV_ISA_C:
    return &kernels_c;
  case OV_ISA_AVX2:
#ifdef OV_HAVE_AVX2
    return ov_kernels_avx2();
#else
    return NULL; /* not built: not an x86-64 compiler */
#endif
  case OV_ISA_AVX512:
#ifdef OV_HAVE_AVX512
    return ov_kernels_avx512();
#else
    return NULL;
#endif
  case OV_ISA_COUNT:
    return NULL;
  }
  return NULL;
}

OvIsa ov_kernels_best(void)
{
  for (int isa = OV_ISA_COUNT - 1; isa > OV_ISA_C; isa--)
    if (ov_kernels_get((OvIsa)isa)) return (OvIsa)isa;
  return OV_ISA_C;
}

const char *ov_isa_name(OvIsa isa)
{
  return isa >= 0 && isa < OV_ISA_COUNT ? isa_names[isa] : "?";
}

OvIsa ov_isa_from_name(const char *name)
{
  for (int isa = 0; name && isa < OV_ISA_COUNT; isa++)
    if (strcmp(name, isa_names[isa]) == 0) return (OvIsa)isa;
  return OV_ISA_COUNT;
}
