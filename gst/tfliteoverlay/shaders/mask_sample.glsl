// tfliteoverlay: where a segmentation mask covers a frame pixel and with what colour and
// weight; shared by mask.frag.glsl and mask.comp.glsl (each program's source is the
// version line, this file, then the program's own file). Same sampling as ov_soft_mask.c:
// class masks nearest, probabilities bilinear between texel centres, both only inside the
// mask's rectangle and its clip.
uniform sampler2D u_mask;
uniform sampler2D u_palette;
uniform vec4 u_rect;
uniform vec4 u_clip;
uniform ivec2 u_mask_size;
uniform int u_prob;
uniform float u_class_scale;
uniform float u_alpha;
float ov_prob(ivec2 i) { return texelFetch(u_mask, i, 0).r; }
// q: the pixel's centre in frame pixels; false where the mask draws nothing there.
bool ov_mask_at(vec2 q, out vec3 color, out float a) {
  color = vec3(0.0);
  a = 0.0;
  vec2 size = vec2(u_mask_size);
  vec2 u = (q - u_rect.xy) / u_rect.zw * size;
  if (u.x < 0.0 || u.y < 0.0 || u.x >= size.x || u.y >= size.y) return false;
  if (q.x < u_clip.x || q.y < u_clip.y || q.x >= u_clip.z || q.y >= u_clip.w) return false;
  if (u_prob == 0) {
    ivec2 i = min(ivec2(floor(u)), u_mask_size - 1);
    int cls = int(texelFetch(u_mask, i, 0).r * u_class_scale + 0.5);
    vec4 c = texelFetch(u_palette, ivec2(clamp(cls, 0, 255), 0), 0);
    if (c.a == 0.0) return false;
    color = c.rgb;
    a = u_alpha;
    return true;
  }
  vec2 f = u - 0.5;
  vec2 f0 = floor(f);
  vec2 t = f - f0;
  ivec2 hi = u_mask_size - 1;
  ivec2 i0 = clamp(ivec2(f0), ivec2(0), hi);
  ivec2 i1 = clamp(ivec2(f0) + 1, ivec2(0), hi);
  float p = mix(mix(ov_prob(i0), ov_prob(ivec2(i1.x, i0.y)), t.x),
                mix(ov_prob(ivec2(i0.x, i1.y)), ov_prob(i1), t.x), t.y);
  if (!(p > 0.0)) return false;
  color = texelFetch(u_palette, ivec2(1, 0), 0).rgb;
  a = u_alpha * min(p, 1.0);
  return true;
}
