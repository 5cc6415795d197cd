/* ov_kernels.h - the row kernels of tfliteoverlay's software renderer, per instruction set.
 *
 * The renderer (ov_soft.c) works row by row: it computes a row of blend weights (a mask
 * row, a shape's coverage, a glyph's coverage) and blends a colour into one plane row
 * with it. Those two steps are the kernels here. Every instruction set computes the same
 * integer and float operations in the same order, so all of them give the same bytes as
 * the portable C; the unit test checks that on random rows.
 *
 * Blend weights are Q15: 0 keeps the pixel, 32767 replaces it (almost) by the colour:
 *   dst = dst + round((colour - dst) * w / 32768)      (round half up; vpmulhrsw)
 * A plane row holds `ch` bytes per pixel: 1 (a Y, U or V plane), 2 (NV12's UV) or 4
 * (RGBA-family: bytes 0-2 blended, byte 3 - alpha or padding - kept).
 *
 * Kernel tables are static constants; any thread may use them.
 */
#ifndef OV_KERNELS_H
#define OV_KERNELS_H

#include <stdint.h>

typedef enum {
  OV_ISA_C,       /* portable C, everywhere */
  OV_ISA_AVX2,    /* x86-64 AVX2 */
  OV_ISA_AVX512,  /* x86-64 AVX-512 F, BW, VL */
  OV_ISA_COUNT,
} OvIsa;

#define OV_WEIGHT_ONE 32767 /* Q15 weight of an opaque colour */

/* A thick segment or a disk in plane pixels (the GL path's shape shader, same formula):
 * coverage of the pixel centred at p, with l = p - centre,
 *   segment: clamp(hx + 0.5 - |l.dir|) * clamp(hy + 0.5 - |l.normal|)
 *   disk:    clamp(hx + 0.5 - |l|)
 * times `weight` (Q15 colour alpha), rounded. */
typedef struct {
  float cx, cy;    /* centre */
  float dx, dy;    /* unit direction (segments) */
  float hx, hy;    /* half length along dir (cap included) and half width; disk: radius in hx */
  float weight;    /* Q15 weight of full coverage */
  int disk;
} OvKernelShape;

typedef struct {
  const char *name;
  /* rows rows of dst (stride bytes apart), pixel i of each blended with color[i*ch + c] by
   * w[i]; n pixels a row */
  void (*blend_row)(uint8_t *dst, int stride, int rows, const uint8_t *color, const uint16_t *w,
                    int n, int ch);
  /* rows rows of dst blended with one colour (color[0..ch-1]); row r uses the weights
   * w + r * w_stride (w_stride 0: the same weights on every row) */
  void (*blend_const)(uint8_t *dst, int stride, int rows, const uint8_t color[4], const uint16_t *w,
                      int w_stride, int n, int ch);
  /* w[i] = coverage of pixel (x0 + i, row centre yc) by shape, n pixels; w has room for 16
   * more, which vector kernels may fill with the next pixels' weights */
  void (*shape_weights)(uint16_t *w, int x0, int n, float yc, const OvKernelShape *shape);
  /* a probability mask row: p = h0[i]*(1-t) + h1[i]*t; w[i] = p > 0 ? round(min(p,1)*scale) : 0
   * (NaN gives 0) */
  void (*prob_weights)(uint16_t *w, const float *h0, const float *h1, float t, float scale, int n);
  /* out[i] = row[i0[i]]*(1-t[i]) + row[i1[i]]*t[i]: a mask row interpolated across; i0 and
   * i1 grow along the row (never decrease) and i0[i] <= i1[i] */
  void (*lerp_gather)(float *out, const float *row, const int32_t *i0, const int32_t *i1,
                      const float *t, int n);
} OvKernels;

/* The kernels of isa; NULL when this build or this CPU lacks it. */
const OvKernels *ov_kernels_get(OvIsa isa);
/* The fastest instruction set this CPU runs (checked with cpuid once). */
OvIsa ov_kernels_best(void);
/* "c", "avx2", "avx512" */
const char *ov_isa_name(OvIsa isa);
/* From a name as above; OV_ISA_COUNT when unknown. */
OvIsa ov_isa_from_name(const char *name);

/* Per instruction set (ov_kernels_avx2.c, ov_kernels_avx512.c, built on x86-64 with
 * OV_HAVE_AVX2 / OV_HAVE_AVX512 defined); call them only where the CPU runs that set. */
const OvKernels *ov_kernels_avx2(void);
const OvKernels *ov_kernels_avx512(void);

/* The portable kernels, also used by the vector ones for row tails. */
void ov_blend_row_c(uint8_t *dst, int stride, int rows, const uint8_t *color, const uint16_t *w,
                    int n, int ch);
void ov_blend_const_c(uint8_t *dst, int stride, int rows, const uint8_t color[4], const uint16_t *w,
                      int w_stride, int n, int ch);
void ov_shape_weights_c(uint16_t *w, int x0, int n, float yc, const OvKernelShape *shape);
void ov_prob_weights_c(uint16_t *w, const float *h0, const float *h1, float t, float scale, int n);
void ov_lerp_gather_c(float *out, const float *row, const int32_t *i0, const int32_t *i1,
                      const float *t, int n);

#endif
