/* gl_gen_texture.c - the texture-input shader: samples an RGBA8 texture through a
 * sampler with texelFetch (GStreamer's textures cannot be bound as images under
 * GLES), crops/letterboxes/resizes bilinearly with half-pixel centres and normalizes,
 * writing the PHWC4 input tensor. The same math as the CPU preprocessing
 * (preprocess/preprocess.c): outside the texture the pixel is the pad value; float inputs
 * get (pixel - mean) / std, 8-bit inputs the rounded pixel (int8: minus 128),
 * dequantized because the GPU works in float. Per-frame values are uniforms:
 *   location 0: vec4 (a0, a1, a3, a4), the affine's linear part   1: vec4 mean   2: vec4 std
 *   location 3: ivec4 (texture width, height, first vec4 of the batch slot, 0)
 *   location 4: vec4 (a2, a5, pad, 0), the affine's offset and the bars' pixel value;
 *   location 5: int, the frame's tfl_image_layout   6, 7: vec4 (ys, y0, rv, gu), vec2 (gv, bu),
 *   the YUV -> RGB coefficients (tfl_image_desc.yuv); samplers on texture units 0 (the frame, or
 *   its luma) and 1, 2 (chroma planes). The frame's format is converted here, per texel
 *   fetched, so a YUV frame costs no pass of its own.
 * Model-input pixel (x, y) samples texture point a * (x + 0.5, y + 0.5) + offset (tfl_image_desc).
 * external: unit 0 is a GL_TEXTURE_EXTERNAL_OES texture (samplerExternalOES, from
 * GL_OES_EGL_image_external_essl3), read as RGBA (tfl_image_desc.external). */
#include "gl_texture.h"

#include <stdlib.h>

tfl_status gl_texture_check(const tfl_tensor *t, tfl_diag *diag)
{
  if (t->ndim != 4 || t->dims[0] < 1 || (t->dims[3] != 3 && t->dims[3] != 4))
    return tfl_fail(diag, TFL_ERR_SHAPE, "GL texture input: tensor \"%s\" must be [B,H,W,3|4]", t->name ? t->name : "?");
  if (t->type != TFL_TYPE_FLOAT32 && t->type != TFL_TYPE_UINT8 && t->type != TFL_TYPE_INT8)
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "GL texture input: tensor \"%s\" is %s (float32, uint8 or int8 only)",
                     t->name ? t->name : "?", tfl_type_name(t->type));
  return TFL_OK;
}

char *gl_texture_source(const tfl_tensor *t, size_t out_off, bool fp16, bool wide, bool external)
{
  gl_str s = {0};
  int H = t->dims[1], W = t->dims[2], C = t->dims[3];
  gl_str_addf(&s, "#version 310 es\n%s"
                  "layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;\n"
                  "precision highp float;\nprecision highp int;\n"
                  "layout(binding = 0) uniform highp %s tex;\n"
                  "layout(binding = 1) uniform highp sampler2D tex1;\n"
                  "layout(binding = 2) uniform highp sampler2D tex2;\n"
                  "layout(location = 5) uniform int fmt;\n"
                  "layout(location = 6) uniform vec4 yk0;\n"
                  "layout(location = 7) uniform vec2 yk1;\n"
                  "layout(location = 0) uniform vec4 xf;\n"
                  "layout(location = 1) uniform vec4 mean;\n"
                  "layout(location = 2) uniform vec4 sd;\n"
                  "layout(location = 3) uniform ivec4 size;\n"
                  "layout(location = 4) uniform vec4 shift;\n",
              external ? "#extension GL_OES_EGL_image_external_essl3 : require\n" : "",
              external ? "samplerExternalOES" : "sampler2D");
  if (fp16 && wide) /* 32-bit floats in the halves' arena (gl_plan.h) */
    gl_str_addf(&s, "layout(std430, binding = 0) buffer Arena { uvec2 A[]; };\n"
                    "#define STA(i, v) (A[%zu + 2 * (i)] = floatBitsToUint((v).xy), A[%zu + 2 * (i) + 1] = floatBitsToUint((v).zw))\n",
                out_off, out_off);
  else if (fp16)
    gl_str_addf(&s, "layout(std430, binding = 0) buffer Arena { uvec2 A[]; };\n"
                    "#define STA(i, v) A[%zu + (i)] = uvec2(packHalf2x16((v).xy), packHalf2x16((v).zw))\n", out_off);
  else
    gl_str_addf(&s, "layout(std430, binding = 0) buffer Arena { vec4 A[]; };\n#define STA(i, v) A[%zu + (i)] = (v)\n", out_off);
  /* tfl_image_layout's values; the same formula and clamping as preprocess.c's fetch_rgb */
  gl_str_addf(&s, "vec4 t8(highp sampler2D s, ivec2 p) { return floor(texelFetch(s, p, 0) * 255.0 + 0.5); }\n"
                  /* unit 0 by name: an external sampler is no sampler2D argument */
                  "vec4 t0(ivec2 p) { return floor(texelFetch(tex, p, 0) * 255.0 + 0.5); }\n"
                  "vec4 yuv(float Y, float U, float V) {\n"
                  "  float c = yk0.x * (Y - yk0.y), d = U - 128.0, e = V - 128.0;\n"
                  "  return clamp(vec4(c + yk0.z * e, c - yk0.w * d - yk1.x * e, c + yk1.y * d, 255.0), 0.0, 255.0);\n"
                  "}\n"
                  "vec4 px(int x, int y) {\n"
                  "  ivec2 p = ivec2(x, y), h = p / 2;\n"
                  "  if (fmt == %d) return t0(p);\n"
                  "  if (fmt == %d) return t0(p).bgra;\n"
                  "  if (fmt == %d) return vec4(clamp(vec3(yk0.x * (t0(p).r - yk0.y)), 0.0, 255.0), 255.0);\n"
                  "  if (fmt == %d) return yuv(t0(p).r, t8(tex1, h).r, t8(tex2, h).r);\n"
                  "  if (fmt == %d) { vec2 c = t8(tex1, h).rg; return yuv(t0(p).r, c.x, c.y); }\n"
                  "  if (fmt == %d) { vec2 c = t8(tex1, h).rg; return yuv(t0(p).r, c.y, c.x); }\n"
                  "  ivec2 e = ivec2(x & ~1, y), o = ivec2(min(x | 1, size.x - 1), y);\n"
                  "  if (fmt == %d) return yuv(t0(p).r, t0(e).g, t0(o).g);\n"
                  "  return yuv(t0(p).g, t0(e).r, t0(o).r);\n"
                  "}\n",
              TFL_IMAGE_RGBA, TFL_IMAGE_BGRA, TFL_IMAGE_GRAY, TFL_IMAGE_I420, TFL_IMAGE_NV12, TFL_IMAGE_NV21, TFL_IMAGE_YUY2);
  gl_str_addf(&s, "void main() {\n"
                  "  ivec2 g = ivec2(gl_GlobalInvocationID.xy);\n"
                  "  if (g.x >= %d || g.y >= %d) return;\n"
                  "  vec2 c = vec2(g) + 0.5;\n"
                  "  float fx = xf.x * c.x + xf.y * c.y + shift.x, fy = xf.z * c.x + xf.w * c.y + shift.y;\n"
                  "  vec4 rgb = vec4(shift.z);\n"
                  "  if (fx >= 0.0 && fx < float(size.x) && fy >= 0.0 && fy < float(size.y)) {\n"
                  "    float sx = clamp(fx - 0.5, 0.0, float(size.x - 1)), sy = clamp(fy - 0.5, 0.0, float(size.y - 1));\n"
                  "    int x0 = int(sx), y0 = int(sy), x1 = min(x0 + 1, size.x - 1), y1 = min(y0 + 1, size.y - 1);\n"
                  "    float wx = sx - float(x0), wy = sy - float(y0);\n"
                  "    rgb = (1.0 - wy) * ((1.0 - wx) * px(x0, y0) + wx * px(x1, y0)) +\n"
                  "          wy * ((1.0 - wx) * px(x0, y1) + wx * px(x1, y1));\n"
                  "  }\n"
                  "  rgb.w = 255.0;\n",
              W, H);
  if (t->type == TFL_TYPE_FLOAT32) {
    gl_str_addf(&s, "  vec4 v = (rgb - mean) / sd;\n");
  } else {
    float sc = t->q.n ? t->q.scale[0] : 1.0f;
    float zp = t->q.n ? (float)t->q.zero_point[0] : 0.0f;
    bool i8 = t->type == TFL_TYPE_INT8;
    gl_str_addf(&s, "  vec4 q = clamp(floor(rgb + 0.5)%s, vec4(%s), vec4(%s));\n  vec4 v = (q - ", i8 ? " - 128.0" : "",
                i8 ? "-128.0" : "0.0", i8 ? "127.0" : "255.0");
    gl_str_float(&s, zp);
    gl_str_addf(&s, ") * ");
    gl_str_float(&s, sc);
    gl_str_addf(&s, ";\n");
  }
  if (C == 3) gl_str_addf(&s, "  v.w = 0.0;\n");
  gl_str_addf(&s, "  STA(size.z + g.y * %d + g.x, v);\n}\n", W);
  if (s.oom) {
    gl_str_free(&s);
    return NULL;
  }
  return s.p;
}
