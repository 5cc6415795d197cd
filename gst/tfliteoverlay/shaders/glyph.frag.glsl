// tfliteoverlay: label glyphs, the atlas texel's coverage in the text colour.
// (ov_gl.c prepends the #version and precision lines for the context's API)
uniform sampler2D u_atlas;
in vec2 v_texel;
in vec4 v_color;
out vec4 o_color;
void main() {
  float a = texelFetch(u_atlas, ivec2(v_texel), 0).r * v_color.a;
  if (a <= 0.0) discard;
  o_color = vec4(v_color.rgb, a);
}
