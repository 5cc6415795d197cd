// tfliteoverlay: the segmentation mask composited into the frame by a compute pass, one
// invocation per pixel of the mask's rectangle (u_origin, u_extent: the pixels the rectangle
// and its clip can cover, with a pixel of margin; the exact tests are the fragment pass's).
// Sampling and blending are mask.frag.glsl's with its fixed-function blend
// (SRC_ALPHA, ONE_MINUS_SRC_ALPHA on colour; the frame's alpha kept).
// (ov_gl_comp.c prepends the #version line, and for GLES the precisions and OV_ES: GLES 3.1
// allows no read-write rgba8 image, so there the frame is read through a sampler.)
layout(local_size_x = 16, local_size_y = 16) in;
#ifdef OV_ES
layout(rgba8, binding = 0) writeonly uniform highp image2D u_frame;
uniform sampler2D u_frame_read;
#define LOAD(p) texelFetch(u_frame_read, p, 0)
#else
layout(rgba8, binding = 0) uniform image2D u_frame;
#define LOAD(p) imageLoad(u_frame, p)
#endif
uniform sampler2D u_mask;
uniform sampler2D u_palette;
uniform ivec2 u_origin;
uniform ivec2 u_extent;
uniform vec4 u_rect;
uniform vec4 u_clip;
uniform ivec2 u_mask_size;
uniform int u_prob;
uniform float u_class_scale;
uniform float u_alpha;
float prob(ivec2 i) { return texelFetch(u_mask, i, 0).r; }
void main() {
  ivec2 g = ivec2(gl_GlobalInvocationID.xy);
  if (g.x >= u_extent.x || g.y >= u_extent.y) return;
  ivec2 p = u_origin + g;
  vec2 q = vec2(p) + 0.5; // the pixel's centre, as gl_FragCoord
  vec2 size = vec2(u_mask_size);
  vec2 u = (q - u_rect.xy) / u_rect.zw * size;
  if (u.x < 0.0 || u.y < 0.0 || u.x >= size.x || u.y >= size.y) return;
  if (q.x < u_clip.x || q.y < u_clip.y || q.x >= u_clip.z || q.y >= u_clip.w) return;
  vec3 color;
  float a;
  if (u_prob == 0) {
    ivec2 i = min(ivec2(floor(u)), u_mask_size - 1);
    int cls = int(texelFetch(u_mask, i, 0).r * u_class_scale + 0.5);
    vec4 c = texelFetch(u_palette, ivec2(clamp(cls, 0, 255), 0), 0);
    if (c.a == 0.0) return;
    color = c.rgb;
    a = u_alpha;
  } else {
    vec2 f = u - 0.5;
    vec2 f0 = floor(f);
    vec2 t = f - f0;
    ivec2 hi = u_mask_size - 1;
    ivec2 i0 = clamp(ivec2(f0), ivec2(0), hi);
    ivec2 i1 = clamp(ivec2(f0) + 1, ivec2(0), hi);
    float pr = mix(mix(prob(i0), prob(ivec2(i1.x, i0.y)), t.x),
                   mix(prob(ivec2(i0.x, i1.y)), prob(i1), t.x), t.y);
    if (!(pr > 0.0)) return;
    color = texelFetch(u_palette, ivec2(1, 0), 0).rgb;
    a = u_alpha * min(pr, 1.0);
  }
  vec4 d = LOAD(p);
  imageStore(u_frame, p, vec4(color * a + d.rgb * (1.0 - a), d.a));
}
