/* gl_consts.h - how constant objects sit in the constant buffer (binding 1).
 *
 * The buffer is `vec4 K[]` in fp32 mode and `uvec2 K[]` in fp16 mode; a "unit" is one
 * element (16 or 8 bytes). Formats:
 *   GL_CONST_FLOAT  32-bit floats: one unit a vec4 (fp32 buffer) or two (fp16 buffer).
 *                   Biases, constant operands, LSTM weights: few bytes, kept exact.
 *   GL_CONST_HALF   fp16 buffer only: halves, one unit a vec4.
 *   GL_CONST_SNORM  fp16 buffer only: weights whose lanes are output channels, as 16-bit
 *                   normalized integers (one unit a vec4), followed by one 32-bit scale
 *                   vec4 per group of `group` vec4s (an output slice). Per channel
 *                   scaling keeps about 16 bits of a channel's largest weights where
 *                   halves keep 11, but fewer of its small ones. Weights on an integer
 *                   grid (quantized models) are stored as exact multiples of their step.
 * Weights take whichever 16-bit format loses less on them (gl_const_choose): on
 * mobilenet's 1001-way softmax, halves everywhere left a worst element of 1.5e-2 and
 * SNORM everywhere 7e-4; on selfie_segmentation halves 2.5e-4 and SNORM 3.6e-3.
 * Shader macros for object N (gl_const_macros): N_LD(i), the i-th vec4 as stored
 * (SNORM: the normalized value); N_SC(g), the scale vec4 of group g (vec4(1.0) for
 * FLOAT). A generator multiplies sums of N_LD products by N_SC of the output slice. */
#ifndef GL_CONSTS_H
#define GL_CONSTS_H

#include <stdbool.h>
#include <stddef.h>

#include "gl_gen.h"

typedef enum { GL_CONST_FLOAT, GL_CONST_HALF, GL_CONST_SNORM } gl_const_fmt;

/* Units taken by n_vec4 values (`group` vec4s a scale group) in a buffer of halves
 * (half_buf) or floats. */
size_t gl_const_units(gl_const_fmt f, size_t n_vec4, int group, bool half_buf);
/* Writes them at dst (gl_const_units * unit bytes). step: NULL, or per group and lane
 * (group index * 4 + lane) the grid step of integer-valued weights, 0 where unknown. */
void gl_const_encode(gl_const_fmt f, const float *src, size_t n_vec4, int group, const float *step, bool half_buf,
                     void *dst);
/* The 16-bit format for weights (fp16 buffer): SNORM for integer grids (exact), else
 * the one with the smaller worst relative error of an output channel's weight vector
 * (|w - stored| / |w| over the channel's weights). */
gl_const_fmt gl_const_choose(const float *src, size_t n_vec4, int group, const float *step);
/* The N_LD / N_SC macros for an object at unit `at` of the bound buffer. */
void gl_const_macros(gl_str *s, const char *name, gl_const_fmt f, size_t at, size_t n_vec4, bool half_buf);

#endif
