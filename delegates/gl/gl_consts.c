/* gl_consts.c - constant formats in the constant buffer (gl_consts.h). */
#include "gl_consts.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gl_layout.h"

size_t gl_const_units(gl_const_fmt f, size_t n_vec4, int group, bool half_buf)
{
  if (!half_buf) return n_vec4;
  if (f == GL_CONST_HALF) return n_vec4;
  if (f == GL_CONST_FLOAT || group < 1) return 2 * n_vec4;
  return n_vec4 + 2 * ((n_vec4 + (size_t)group - 1) / (size_t)group);
}

/* One lane of one group: the 16-bit integers and the scale that gives them back. */
static void encode_lane(const float *src, size_t n, float step, int16_t *k, float *scale)
{
  float mx = 0;
  for (size_t i = 0; i < n; i++) mx = fmaxf(mx, fabsf(src[i * 4]));
  *scale = 0;
  if (!(mx > 0) || !isfinite(mx)) {
    for (size_t i = 0; i < n; i++) k[i * 4] = 0;
    return;
  }
  if (step > 0 && mx / step <= 32767.0f) {
    /* integer grid: k = q * m with q = w / step, decoded as k / 32767 * (step * 32767 / m) */
    float m = floorf(32767.0f / roundf(mx / step));
    for (size_t i = 0; i < n; i++) k[i * 4] = (int16_t)(roundf(src[i * 4] / step) * m);
    *scale = step * 32767.0f / m;
    return;
  }
  for (size_t i = 0; i < n; i++) {
    float q = roundf(src[i * 4] / mx * 32767.0f);
    k[i * 4] = (int16_t)(q > 32767.0f ? 32767.0f : q < -32767.0f ? -32767.0f : q);
  }
  *scale = mx;
}

static size_t n_groups_of(size_t n_vec4, int group)
{
  return (n_vec4 + (size_t)group - 1) / (size_t)group;
}

/* Values of a group's block rounded to halves and back, ROUND at a time: the hardware
 * conversions where the CPU has them (a model's weights are millions of values). */
enum { ROUND = 256 };

gl_const_fmt gl_const_choose(const float *src, size_t n_vec4, int group, const float *step)
{
  if (group < 1) return GL_CONST_HALF;
  double worst[2] = {0, 0}; /* squared relative error of a channel: halves, snorm */
  uint16_t halves[ROUND];
  float back[ROUND];
  for (size_t gi = 0; gi < n_groups_of(n_vec4, group); gi++) {
    size_t lo = gi * (size_t)group, n = n_vec4 - lo < (size_t)group ? n_vec4 - lo : (size_t)group;
    const float *block = src + lo * 4; /* n vec4s: lane l of vec4 i at block[i * 4 + l] */
    float mx[4] = {0, 0, 0, 0};
    for (int l = 0; l < 4; l++) {
      if (step && step[gi * 4 + l] > 0) return GL_CONST_SNORM;
      for (size_t i = 0; i < n; i++) mx[l] = fmaxf(mx[l], fabsf(block[i * 4 + l]));
    }
    /* per lane, in the order of its values: e2[l][0] halves, e2[l][1] snorm */
    double e2[4][2] = {{0}}, w2[4] = {0};
    for (size_t at = 0; at < n * 4; at += ROUND) {
      size_t len = n * 4 - at < ROUND ? n * 4 - at : ROUND;
      gl_store_floats(block + at, len, true, halves);
      gl_load_floats(halves, len, true, back);
      for (size_t j = 0; j < len; j++) {
        int l = (int)((at + j) % 4);
        double x = block[at + j], h = back[j];
        double q = mx[l] > 0 ? roundf(block[at + j] / mx[l] * 32767.0f) / 32767.0 * mx[l] : 0;
        e2[l][0] += (x - h) * (x - h);
        e2[l][1] += (x - q) * (x - q);
        w2[l] += x * x;
      }
    }
    for (int l = 0; l < 4; l++)
      for (int f = 0; f < 2; f++)
        if (w2[l] > 0 && e2[l][f] / w2[l] > worst[f]) worst[f] = e2[l][f] / w2[l];
  }
  return worst[1] < worst[0] ? GL_CONST_SNORM : GL_CONST_HALF;
}

void gl_const_encode(gl_const_fmt f, const float *src, size_t n_vec4, int group, const float *step, bool half_buf,
                     void *dst)
{
  if (half_buf && f == GL_CONST_HALF) {
    gl_store_floats(src, n_vec4 * 4, true, dst);
    return;
  }
  if (!half_buf || f == GL_CONST_FLOAT || group < 1) { /* floats as they are */
    memcpy(dst, src, n_vec4 * 4 * sizeof(float));
    return;
  }
  int16_t *k = dst; /* unit i = 4 int16: lanes x y (first uint) z w (second) */
  float *scales = (float *)((char *)dst + n_vec4 * 8);
  size_t n_groups = (n_vec4 + (size_t)group - 1) / (size_t)group;
  for (size_t gi = 0; gi < n_groups; gi++) {
    size_t lo = gi * (size_t)group, n = n_vec4 - lo < (size_t)group ? n_vec4 - lo : (size_t)group;
    for (int l = 0; l < 4; l++)
      encode_lane(src + lo * 4 + l, n, step ? step[gi * 4 + l] : 0, k + lo * 4 + l, &scales[gi * 4 + l]);
  }
}

void gl_const_macros(gl_str *s, const char *name, gl_const_fmt f, size_t at, size_t n_vec4, bool half_buf)
{
  if (!half_buf) {
    gl_str_addf(s, "#define %s_LD(i) K[%zu + (i)]\n#define %s_SC(g) vec4(1.0)\n", name, at, name);
  } else if (f == GL_CONST_HALF) {
    gl_str_addf(s, "#define %s_LD(i) vec4(unpackHalf2x16(K[%zu + (i)].x), unpackHalf2x16(K[%zu + (i)].y))\n"
                   "#define %s_SC(g) vec4(1.0)\n",
                name, at, at, name);
  } else if (f == GL_CONST_FLOAT) {
    gl_str_addf(s, "#define %s_LD(i) vec4(uintBitsToFloat(K[%zu + 2 * (i)]), uintBitsToFloat(K[%zu + 2 * (i) + 1]))\n"
                   "#define %s_SC(g) vec4(1.0)\n",
                name, at, at, name);
  } else {
    size_t sc = at + n_vec4;
    gl_str_addf(s, "#define %s_LD(i) vec4(unpackSnorm2x16(K[%zu + (i)].x), unpackSnorm2x16(K[%zu + (i)].y))\n"
                   "#define %s_SC(g) vec4(uintBitsToFloat(K[%zu + 2 * (g)]), uintBitsToFloat(K[%zu + 2 * (g) + 1]))\n",
                name, at, at, name, sc, sc);
  }
}
