  // conv_split.glsl - a convolution's output vec4 (x, y, s) of batch item b summed by a
  // workgroup of CV_WG lanes (gl_gen_conv.c, few outputs with long reductions): lane t
  // takes every CV_WG-th of the CV_KH x CV_KW x I0_S taps, skipping taps outside the
  // input; the C side adds the tree over the lanes' sums and the bias. It defines CV_WG,
  // the window (CV_KH, CV_KW), strides (CV_SH, CV_SW), top and left padding (CV_PT,
  // CV_PL) and dilations (CV_DH, CV_DW).
  int t = gid.x, y = gid.y / O_W, x = gid.y % O_W, s = gid.z % O_S, b = gid.z / O_S;
  highp vec4 acc = vec4(0.0);
  for (int k = t; k < CV_KH * CV_KW * I0_S; k += CV_WG) {
    int is = k % I0_S, tap = k / I0_S, ky = tap / CV_KW, kx = tap % CV_KW;
    int iy = y * CV_SH - CV_PT + ky * CV_DH, ix = x * CV_SW - CV_PL + kx * CV_DW;
    if (iy < 0 || iy >= I0_H || ix < 0 || ix >= I0_W) continue;
    FLT4 v = I0_LD(b, iy, ix, is);
    int wi = ((s * CV_KH + ky) * CV_KW + kx) * I0_S * 4 + is * 4;
    acc += vec4(v.x * W_LD(wi) + v.y * W_LD(wi + 1) + v.z * W_LD(wi + 2) + v.w * W_LD(wi + 3));
  }
