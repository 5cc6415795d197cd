  // transpose_conv.glsl - TRANSPOSE_CONV and MediaPipe's Convolution2DTransposeBias at
  // output vec4 (x, y, s) of batch item b (declared before it; gl_gen_conv.c): the sum over
  // the input pixels whose window covers (y, x). The C side defines the input object's
  // macros as TP_H, TP_W, TP_S, TP_LD (TRANSPOSE_CONV's input is I2), the window (TP_KH,
  // TP_KW), strides (TP_SH, TP_SW), the padding before (TP_PH, TP_PW) and TP_ACT(v), the
  // fused activation (empty for Convolution2DTransposeBias).
  ACC4 acc = vec4(0.0);
  for (int ky = 0; ky < TP_KH; ky++) {
    int ty = y + TP_PH - ky;
    if (ty < 0 || ty % TP_SH != 0) continue;
    int iy = ty / TP_SH;
    if (iy >= TP_H) continue;
    for (int kx = 0; kx < TP_KW; kx++) {
      int tx = x + TP_PW - kx;
      if (tx < 0 || tx % TP_SW != 0) continue;
      int ix = tx / TP_SW;
      if (ix >= TP_W) continue;
      int wb = ((s * TP_KH + ky) * TP_KW + kx) * TP_S * 4;
      for (int is = 0; is < TP_S; is++) {
        FLT4 v = TP_LD(b, iy, ix, is);
        int wi = wb + is * 4;
        acc += v.x * W_LD(wi) + v.y * W_LD(wi + 1) + v.z * W_LD(wi + 2) + v.w * W_LD(wi + 3);
      }
    }
  }
  acc = acc * W_SC(s) + BIAS_LD(s);
  TP_ACT(acc)
  store_out(b, y, x, s, acc);
