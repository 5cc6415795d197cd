/* gl_gen_mask.c - the mask-export shader (see gl_texture.h): a segmentation output in
 * the arena (PHWC4, fp16 or fp32) becomes one byte per pixel - the argmax class (C > 1),
 * or the probability * 255 (C == 1, a sigmoid first for logits) - four bytes to a uint,
 * rows padded to 4 bytes, in the buffer at binding 3: the layout glTexSubImage2D reads
 * from a pixel-unpack buffer with GL_UNPACK_ALIGNMENT 4. One invocation per 4 pixels.
 *   location 0: int, the first vec4 of the batch slot   1: int, sigmoid (0/1) */
#include "gl_texture.h"

char *gl_mask_source(gl_shape sh, size_t off, bool fp16)
{
  gl_str s = {0};
  gl_str_addf(&s, "#version 310 es\n"
                  "layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;\n"
                  "precision highp float;\nprecision highp int;\n"
                  "#define W %d\n#define H %d\n#define C %d\n#define S %d\n#define OFF %zu\n"
                  "layout(location = 0) uniform int slot;\n"
                  "layout(location = 1) uniform int sigm;\n"
                  "layout(std430, binding = 3) writeonly buffer Bytes { uint bytes[]; };\n",
              sh.w, sh.h, sh.c, sh.s, off);
  if (fp16)
    gl_str_addf(&s, "layout(std430, binding = 0) readonly buffer Arena { uvec2 A[]; };\n"
                    "vec4 ld(int i) { uvec2 q = A[OFF + slot + i]; "
                    "return vec4(unpackHalf2x16(q.x), unpackHalf2x16(q.y)); }\n");
  else
    gl_str_addf(&s, "layout(std430, binding = 0) readonly buffer Arena { vec4 A[]; };\n"
                    "vec4 ld(int i) { return A[OFF + slot + i]; }\n");
  gl_str_addf(&s, "uint value(int x, int y) {\n"
                  "  if (C == 1) {\n"
                  "    float v = ld(y * W + x).x;\n"
                  "    if (sigm != 0) v = 1.0 / (1.0 + exp(-v));\n"
                  "    return uint(clamp(v, 0.0, 1.0) * 255.0 + 0.5);\n"
                  "  }\n"
                  "  float best = -3.0e38; int cls = 0;\n"
                  "  for (int sl = 0; sl < S; sl++) {\n"
                  "    vec4 q = ld((sl * H + y) * W + x);\n"
                  "    for (int k = 0; k < 4; k++)\n"
                  "      if (4 * sl + k < C && q[k] > best) { best = q[k]; cls = 4 * sl + k; }\n"
                  "  }\n"
                  "  return uint(cls);\n"
                  "}\n"
                  "void main() {\n"
                  "  int qx = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);\n"
                  "  const int ROW = (W + 3) / 4;\n"
                  "  if (qx >= ROW || y >= H) return;\n"
                  "  uint word = 0u;\n"
                  "  for (int k = 0; k < 4; k++)\n"
                  "    if (4 * qx + k < W) word |= value(4 * qx + k, y) << uint(8 * k);\n"
                  "  bytes[y * ROW + qx] = word;\n"
                  "}\n");
  if (s.oom) {
    gl_str_free(&s);
    return NULL;
  }
  return s.p;
}
