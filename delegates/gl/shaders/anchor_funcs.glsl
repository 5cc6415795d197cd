// anchor_funcs.glsl - ANCHOR_DETECTION's decoders (gl_gen_anchor_detect.c): anchor a's box
// and keypoints from the regressors I0 and the anchors I2 ((y centre, x centre, h, w); raw:
// x, y, w, h), scaled by SCL (y, x, h, w scales, defined before it).
vec4 box(int a) {
  vec4 r = I0_LD(ITEM, 0, a, 0), an = I2_LD(a, 0, 0, 0);
  float xc = r.x / SCL.y * an.w + an.y, yc = r.y / SCL.x * an.z + an.x;
  float w = r.z / SCL.w * an.w, h = r.w / SCL.z * an.z;
  return vec4(yc - 0.5 * h, xc - 0.5 * w, yc + 0.5 * h, xc + 0.5 * w);
}
// keypoint slice q (x, y, x, y) from the regressors' slice q + 1
vec4 kps(int a, int q) {
  vec4 r = I0_LD(ITEM, 0, a, q + 1), an = I2_LD(a, 0, 0, 0);
  return r / SCL.yxyx * an.wzwz + an.yxyx;
}
