/* gl_layout.h - the delegate's one tensor layout, PHWC4, and the CPU converters used
 * at partition boundaries.
 *
 * Every tensor is viewed as 4-D BHWC (rank 1 [C] -> 1,1,1,C; rank 2 [B,C] -> B,1,1,C;
 * rank 3 [B,W,C] -> B,1,W,C), which keeps row-major element order. On the GPU it is
 * stored as [B][S][H][W] vec4s with S = ceil(C/4) slices; lanes past C are zero. A
 * vec4 is 4 floats (fp32) or 4 halves packed into a uvec2 (fp16: llvmpipe has no
 * 16-bit storage, so shaders use packHalf2x16/unpackHalf2x16).
 */
#ifndef GL_LAYOUT_H
#define GL_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/tfl_graph.h"

typedef struct { int b, h, w, c, s; } gl_shape;

/* false when the tensor has more than 4 dims. */
bool gl_shape_of(const tfl_tensor *t, gl_shape *out);
gl_shape gl_shape_make(int b, int h, int w, int c);
static inline size_t gl_shape_vec4s(gl_shape s) { return (size_t)s.b * s.s * s.h * s.w; }
static inline bool gl_shape_eq(gl_shape a, gl_shape b)
{
  return a.b == b.b && a.h == b.h && a.w == b.w && a.c == b.c;
}

/* The BHWC dim (0..3) that dim `axis` of a rank-`rank` tensor maps to; -1 if none. */
int gl_axis_4d(int rank, int axis);

/* Element i of tensor t (any type we read) as a real number, dequantized. */
float gl_tensor_real(const tfl_tensor *t, const void *data, size_t i);

/* Dense tensor data (t's type, row-major) -> PHWC4 floats (gl_shape_vec4s * 4, padded
 * lanes zero). */
void gl_to_phwc4(const tfl_tensor *t, const void *data, gl_shape sh, float *dst);
/* PHWC4 floats -> t's type (quantized with round-half-away and clamped). */
void gl_from_phwc4(const float *src, gl_shape sh, const tfl_tensor *t, void *data);

/* fp32 -> IEEE half (round to nearest even, as packHalf2x16); back: tfl_half_to_float. */
uint16_t gl_f32_to_f16(float f);
/* n floats -> storage: fp32 copies, fp16 converts (dst holds n*2 bytes). */
void gl_store_floats(const float *src, size_t n, bool fp16, void *dst);
void gl_load_floats(const void *src, size_t n, bool fp16, float *dst);

#endif
