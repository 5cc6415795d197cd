// tfliteoverlay: the segmentation mask composited into the frame by a compute pass, one
// invocation per pixel of the mask's rectangle (u_origin, u_extent: the pixels the rectangle
// and its clip can cover, with a pixel of margin; the exact tests are the fragment pass's).
// Sampling is mask_sample.glsl's (ov_mask_at), blending mask.frag.glsl's fixed-function blend
// (SRC_ALPHA, ONE_MINUS_SRC_ALPHA on colour; the frame's alpha kept).
// (ov_gl_comp.c prepends the #version line, for GLES the precisions and OV_ES, then
// mask_sample.glsl. GLES 3.1 allows no read-write rgba8 image, so there the frame is read
// through a sampler.)
layout(local_size_x = 16, local_size_y = 16) in;
#ifdef OV_ES
layout(rgba8, binding = 0) writeonly uniform highp image2D u_frame;
uniform sampler2D u_frame_read;
#define LOAD(p) texelFetch(u_frame_read, p, 0)
#else
layout(rgba8, binding = 0) uniform image2D u_frame;
#define LOAD(p) imageLoad(u_frame, p)
#endif
uniform ivec2 u_origin;
uniform ivec2 u_extent;
void main() {
  ivec2 g = ivec2(gl_GlobalInvocationID.xy);
  if (g.x >= u_extent.x || g.y >= u_extent.y) return;
  ivec2 p = u_origin + g;
  vec3 color;
  float a;
  if (!ov_mask_at(vec2(p) + 0.5, color, a)) return; // the pixel's centre, as gl_FragCoord
  vec4 d = LOAD(p);
  imageStore(u_frame, p, vec4(color * a + d.rgb * (1.0 - a), d.a));
}
