/* gl_gen_texture.c - the texture-input shader: samples an RGBA8 texture through a
 * sampler with texelFetch (GStreamer's textures cannot be bound as images under
 * GLES), crops/letterboxes/resizes bilinearly with half-pixel centres and normalizes,
 * writing the PHWC4 input tensor. The same math as the CPU preprocessing
 * (preprocess/preprocess.c): outside the texture the pixel is the pad value; float inputs
 * get (pixel - mean) / std, 8-bit inputs the rounded pixel (int8: minus 128),
 * dequantized because the GPU works in float. The fixed part is
 * shaders/texture_input.glsl; this file adds the defines. Per-frame values are uniforms:
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

#include "gl_shaders.h"

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
  /* what varies: the sampler type, the formats' values, sizes, the arena store and the
   * normalization; shaders/texture_input.glsl has the rest */
  gl_str_addf(&s, "#version 310 es\n%s#define TEX_SAMPLER %s\n",
              external ? "#extension GL_OES_EGL_image_external_essl3 : require\n" : "",
              external ? "samplerExternalOES" : "sampler2D");
  gl_str_addf(&s, "#define FMT_RGBA %d\n#define FMT_BGRA %d\n#define FMT_GRAY %d\n#define FMT_I420 %d\n"
                  "#define FMT_NV12 %d\n#define FMT_NV21 %d\n#define FMT_YUY2 %d\n#define OUT_W %d\n#define OUT_H %d\n",
              TFL_IMAGE_RGBA, TFL_IMAGE_BGRA, TFL_IMAGE_GRAY, TFL_IMAGE_I420, TFL_IMAGE_NV12, TFL_IMAGE_NV21, TFL_IMAGE_YUY2, W, H);
  if (fp16 && wide) /* 32-bit floats in the halves' arena (gl_plan.h) */
    gl_str_addf(&s, "layout(std430, binding = 0) buffer Arena { uvec2 A[]; };\n"
                    "#define STA(i, v) (A[%zu + 2 * (i)] = floatBitsToUint((v).xy), A[%zu + 2 * (i) + 1] = floatBitsToUint((v).zw))\n",
                out_off, out_off);
  else if (fp16)
    gl_str_addf(&s, "layout(std430, binding = 0) buffer Arena { uvec2 A[]; };\n"
                    "#define STA(i, v) A[%zu + (i)] = uvec2(packHalf2x16((v).xy), packHalf2x16((v).zw))\n", out_off);
  else
    gl_str_addf(&s, "layout(std430, binding = 0) buffer Arena { vec4 A[]; };\n#define STA(i, v) A[%zu + (i)] = (v)\n", out_off);
  if (t->type == TFL_TYPE_FLOAT32) {
    gl_str_addf(&s, "#define IN_FLOAT 1\n");
  } else { /* the rounded pixel (int8: minus 128) on the input's grid, dequantized */
    bool i8 = t->type == TFL_TYPE_INT8;
    gl_str_addf(&s, "#define Q_OFF %s\n#define Q_LO %s\n#define Q_HI %s\n#define Q_ZP ", i8 ? "128.0" : "0.0",
                i8 ? "-128.0" : "0.0", i8 ? "127.0" : "255.0");
    gl_str_float(&s, t->q.n ? (float)t->q.zero_point[0] : 0.0f);
    gl_str_addf(&s, "\n#define Q_SC ");
    gl_str_float(&s, t->q.n ? t->q.scale[0] : 1.0f);
    gl_str_addf(&s, "\n");
  }
  if (C == 3) gl_str_addf(&s, "#define ZERO_W 1\n");
  gl_str_addf(&s, "%s", texture_input);
  if (s.oom) {
    gl_str_free(&s);
    return NULL;
  }
  return s.p;
}
