// texture_input.glsl - the texture-input shader's fixed part (gl_gen_texture.c): samples
// the frame through samplers with texelFetch, converts its format to RGB, crops,
// letterboxes and resizes bilinearly with half-pixel centres, normalizes and stores the
// PHWC4 input tensor. The C side puts before it:
//   TEX_SAMPLER        sampler2D, or samplerExternalOES for an external image
//   FMT_*              tfl_gl_layout's values
//   OUT_W, OUT_H       the model input's width and height
//   STA(i, v)          the arena store of vec4 i
//   IN_FLOAT           float input: (pixel - mean) / std; else an 8-bit grid:
//   Q_OFF Q_LO Q_HI    the rounded pixel minus Q_OFF, clamped to [Q_LO, Q_HI] ...
//   Q_ZP Q_SC          ... and dequantized
//   ZERO_W             three channels: lane w of the vec4 is 0
// Per-frame values are uniforms (gl_gen_texture.c lists them).
layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;
precision highp float;
precision highp int;
layout(binding = 0) uniform highp TEX_SAMPLER tex;
layout(binding = 1) uniform highp sampler2D tex1;
layout(binding = 2) uniform highp sampler2D tex2;
layout(location = 5) uniform int fmt;
layout(location = 6) uniform vec4 yk0;
layout(location = 7) uniform vec2 yk1;
layout(location = 0) uniform vec4 xf;
layout(location = 1) uniform vec4 mean;
layout(location = 2) uniform vec4 sd;
layout(location = 3) uniform ivec4 size;
layout(location = 4) uniform vec4 shift;

// a texel in 0..255; the same formula and clamping as preprocess.c's fetch_rgb
vec4 t8(highp sampler2D s, ivec2 p) { return floor(texelFetch(s, p, 0) * 255.0 + 0.5); }
// unit 0 by name: an external sampler is no sampler2D argument
vec4 t0(ivec2 p) { return floor(texelFetch(tex, p, 0) * 255.0 + 0.5); }
vec4 yuv(float Y, float U, float V) {
  float c = yk0.x * (Y - yk0.y), d = U - 128.0, e = V - 128.0;
  return clamp(vec4(c + yk0.z * e, c - yk0.w * d - yk1.x * e, c + yk1.y * d, 255.0), 0.0, 255.0);
}
// pixel (x, y) of the frame as RGBA 0..255, whatever its format
vec4 px(int x, int y) {
  ivec2 p = ivec2(x, y), h = p / 2;
  if (fmt == FMT_RGBA) return t0(p);
  if (fmt == FMT_BGRA) return t0(p).bgra;
  if (fmt == FMT_GRAY) return vec4(clamp(vec3(yk0.x * (t0(p).r - yk0.y)), 0.0, 255.0), 255.0);
  if (fmt == FMT_I420) return yuv(t0(p).r, t8(tex1, h).r, t8(tex2, h).r);
  if (fmt == FMT_NV12) { vec2 c = t8(tex1, h).rg; return yuv(t0(p).r, c.x, c.y); }
  if (fmt == FMT_NV21) { vec2 c = t8(tex1, h).rg; return yuv(t0(p).r, c.y, c.x); }
  ivec2 e = ivec2(x & ~1, y), o = ivec2(min(x | 1, size.x - 1), y);
  if (fmt == FMT_YUY2) return yuv(t0(p).r, t0(e).g, t0(o).g);
  return yuv(t0(p).g, t0(e).r, t0(o).r);
}

void main() {
  ivec2 g = ivec2(gl_GlobalInvocationID.xy);
  if (g.x >= OUT_W || g.y >= OUT_H) return;
  // model-input pixel g samples frame point xf * (g + 0.5) + shift; outside the frame
  // it is the pad value
  vec2 c = vec2(g) + 0.5;
  float fx = xf.x * c.x + xf.y * c.y + shift.x, fy = xf.z * c.x + xf.w * c.y + shift.y;
  vec4 rgb = vec4(shift.z);
  if (fx >= 0.0 && fx < float(size.x) && fy >= 0.0 && fy < float(size.y)) {
    float sx = clamp(fx - 0.5, 0.0, float(size.x - 1)), sy = clamp(fy - 0.5, 0.0, float(size.y - 1));
    int x0 = int(sx), y0 = int(sy), x1 = min(x0 + 1, size.x - 1), y1 = min(y0 + 1, size.y - 1);
    float wx = sx - float(x0), wy = sy - float(y0);
    rgb = (1.0 - wy) * ((1.0 - wx) * px(x0, y0) + wx * px(x1, y0)) +
          wy * ((1.0 - wx) * px(x0, y1) + wx * px(x1, y1));
  }
  rgb.w = 255.0;
#ifdef IN_FLOAT
  vec4 v = (rgb - mean) / sd;
#else
  vec4 q = clamp(floor(rgb + 0.5) - Q_OFF, vec4(Q_LO), vec4(Q_HI));
  vec4 v = (q - Q_ZP) * Q_SC;
#endif
#ifdef ZERO_W
  v.w = 0.0;
#endif
  STA(size.z + g.y * OUT_W + g.x, v);
}
