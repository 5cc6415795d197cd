// tfliteoverlay: same sampling as ov_cairo.c's draw_mask: class masks nearest, probabilities
// bilinear between texel centres, both only inside the mask's rectangle.
// (ov_gl.c prepends the #version and precision lines for the context's API)
uniform sampler2D u_mask;
uniform sampler2D u_palette;
uniform vec4 u_rect;
uniform vec4 u_clip;
uniform ivec2 u_mask_size;
uniform int u_prob;
uniform float u_class_scale;
uniform float u_alpha;
out vec4 o_color;
float prob(ivec2 i) { return texelFetch(u_mask, i, 0).r; }
void main() {
  vec2 size = vec2(u_mask_size);
  vec2 u = (gl_FragCoord.xy - u_rect.xy) / u_rect.zw * size;
  if (u.x < 0.0 || u.y < 0.0 || u.x >= size.x || u.y >= size.y) discard;
  vec2 q = gl_FragCoord.xy;
  if (q.x < u_clip.x || q.y < u_clip.y || q.x >= u_clip.z || q.y >= u_clip.w) discard;
  if (u_prob == 0) {
    ivec2 i = min(ivec2(floor(u)), u_mask_size - 1);
    int cls = int(texelFetch(u_mask, i, 0).r * u_class_scale + 0.5);
    vec4 c = texelFetch(u_palette, ivec2(clamp(cls, 0, 255), 0), 0);
    if (c.a == 0.0) discard;
    o_color = vec4(c.rgb, u_alpha);
  } else {
    vec2 f = u - 0.5;
    vec2 f0 = floor(f);
    vec2 t = f - f0;
    ivec2 hi = u_mask_size - 1;
    ivec2 i0 = clamp(ivec2(f0), ivec2(0), hi);
    ivec2 i1 = clamp(ivec2(f0) + 1, ivec2(0), hi);
    float p = mix(mix(prob(i0), prob(ivec2(i1.x, i0.y)), t.x),
                  mix(prob(ivec2(i0.x, i1.y)), prob(i1), t.x), t.y);
    if (!(p > 0.0)) discard;
    vec4 c = texelFetch(u_palette, ivec2(1, 0), 0);
    o_color = vec4(c.rgb, u_alpha * min(p, 1.0));
  }
}
