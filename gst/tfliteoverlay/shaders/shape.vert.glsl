// tfliteoverlay: boxes, lines and disks as instanced quads (one instance per shape);
// the ends, half width, cap and kind come per instance, u_size is the frame in pixels.
// (ov_gl.c prepends the #version and precision lines for the context's API)
uniform vec2 u_size;
layout(location = 0) in vec4 a_ends;  // x0 y0 x1 y1
layout(location = 1) in vec4 a_params;  // half width, cap, kind
layout(location = 2) in vec4 a_color;
out vec2 v_local;
out vec2 v_half;
out vec4 v_color;
out float v_disk;
void main() {
  vec2 corner = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1)) * 2.0 - 1.0;
  vec2 dir = vec2(1.0, 0.0);
  vec2 centre = a_ends.xy;
  vec2 half_size = vec2(a_params.x);
  v_disk = a_params.z;
  if (a_params.z < 0.5) {
    vec2 d = a_ends.zw - a_ends.xy;
    float len = length(d);
    if (len > 1e-6) dir = d / len;
    centre = 0.5 * (a_ends.xy + a_ends.zw);
    half_size = vec2(0.5 * len + a_params.y, a_params.x);
  }
  // one pixel of margin for the antialiased edge
  vec2 local = corner * (half_size + 1.0);
  vec2 pos = centre + dir * local.x + vec2(-dir.y, dir.x) * local.y;
  gl_Position = vec4(pos / u_size * 2.0 - 1.0, 0.0, 1.0);
  v_local = local;
  v_half = half_size;
  v_color = a_color;
}
