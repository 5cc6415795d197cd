// tfliteoverlay: coverage of the pixel by the shape, approximated by a one-pixel box filter.
// (ov_gl.c prepends the #version and precision lines for the context's API)
in vec2 v_local;
in vec2 v_half;
in vec4 v_color;
in float v_disk;
out vec4 o_color;
void main() {
  float a;
  if (v_disk > 0.5)
    a = clamp(v_half.x + 0.5 - length(v_local), 0.0, 1.0);
  else
    a = clamp(v_half.x + 0.5 - abs(v_local.x), 0.0, 1.0) *
        clamp(v_half.y + 0.5 - abs(v_local.y), 0.0, 1.0);
  if (a <= 0.0) discard;
  o_color = vec4(v_color.rgb, v_color.a * a);
}
