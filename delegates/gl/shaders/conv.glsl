  // conv.glsl - CONV_2D and FULLY_CONNECTED at output vec4 (x, y, s) of batch item b
  // (declared before it) in a plain loop: the body of a convolution inlined into its
  // consumer (gl_gen_conv.c, in->fn). The C side defines the window (CV_KH, CV_KW),
  // strides (CV_SH, CV_SW), top and left padding (CV_PT, CV_PL), dilations (CV_DH, CV_DW)
  // and CV_ACT(v), the fused activation. Taps outside the input are skipped.
  ACC4 acc = vec4(0.0);
  for (int ky = 0; ky < CV_KH; ky++) {
    int iy = y * CV_SH - CV_PT + ky * CV_DH;
    if (iy < 0 || iy >= I0_H) continue;
    for (int kx = 0; kx < CV_KW; kx++) {
      int ix = x * CV_SW - CV_PL + kx * CV_DW;
      if (ix < 0 || ix >= I0_W) continue;
      int wb = ((s * CV_KH + ky) * CV_KW + kx) * I0_S * 4;
      for (int is = 0; is < I0_S; is++) {
        FLT4 v = I0_LD(b, iy, ix, is);
        int wi = wb + is * 4;
        acc += v.x * W_LD(wi) + v.y * W_LD(wi + 1) + v.z * W_LD(wi + 2) + v.w * W_LD(wi + 3);
      }
    }
  }
  acc = acc * W_SC(s) + BIAS_LD(s);
  CV_ACT(acc)
  store_out(b, y, x, s, acc);
