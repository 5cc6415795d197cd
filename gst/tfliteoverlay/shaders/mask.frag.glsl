// tfliteoverlay: a segmentation mask drawn by the fragment pass (blending does the mix);
// ov_mask_at is mask_sample.glsl's.
// (ov_gl.c prepends the #version and precision lines for the context's API, then mask_sample.glsl)
out vec4 o_color;
void main() {
  vec3 c;
  float a;
  if (!ov_mask_at(gl_FragCoord.xy, c, a)) discard;
  o_color = vec4(c, a);
}
