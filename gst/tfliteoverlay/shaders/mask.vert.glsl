// tfliteoverlay: a segmentation mask drawn over its rectangle of the frame.
// (ov_gl.c prepends the #version and precision lines for the context's API)
void main() {
  vec2 p = vec2(float((gl_VertexID & 1) * 4), float((gl_VertexID >> 1) * 4)) - 1.0;
  gl_Position = vec4(p, 0.0, 1.0);
}
