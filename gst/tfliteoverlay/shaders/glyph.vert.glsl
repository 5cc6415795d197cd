// tfliteoverlay: label glyphs as instanced quads cut from the font atlas.
// (ov_gl.c prepends the #version and precision lines for the context's API)
uniform vec2 u_size;
layout(location = 0) in vec4 a_dst;
layout(location = 1) in vec4 a_src;
layout(location = 2) in vec4 a_color;
out vec2 v_texel;
out vec4 v_color;
void main() {
  vec2 t = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1));
  vec2 pos = mix(a_dst.xy, a_dst.zw, t);
  gl_Position = vec4(pos / u_size * 2.0 - 1.0, 0.0, 1.0);
  v_texel = mix(a_src.xy, a_src.zw, t);
  v_color = a_color;
}
