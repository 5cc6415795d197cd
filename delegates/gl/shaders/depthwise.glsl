  // depthwise.glsl - DEPTHWISE_CONV_2D at output vec4 (x, y, s) of batch item b (declared
  // before it; gl_gen_conv.c). Weights: a group of DW_KH x DW_KW vec4s per output slice.
  // The C side defines the window (DW_KH, DW_KW), strides (DW_SH, DW_SW), top and left
  // padding (DW_PT, DW_PL), dilations (DW_DH, DW_DW), the depth multiplier DW_MULT and
  // DW_ACT(v), the fused activation. Taps outside the input are skipped.
  ACC4 acc = vec4(0.0);
#if DW_MULT != 1
  // input channel of output lane k: (s * 4 + k) / DW_MULT
  ivec4 ic = (ivec4(s * 4) + ivec4(0, 1, 2, 3)) / DW_MULT;
  ivec4 isl = ic / 4, iln = ic % 4;
#endif
  for (int ky = 0; ky < DW_KH; ky++) {
    int iy = y * DW_SH - DW_PT + ky * DW_DH;
    if (iy < 0 || iy >= I0_H) continue;
    for (int kx = 0; kx < DW_KW; kx++) {
      int ix = x * DW_SW - DW_PL + kx * DW_DW;
      if (ix < 0 || ix >= I0_W) continue;
#if DW_MULT == 1
      FLT4 v = I0_LD(b, iy, ix, s);
#else
      FLT4 v;
      for (int k = 0; k < 4; k++) v[k] = I0_LD(b, iy, ix, min(isl[k], I0_S - 1))[iln[k]];
#endif
      acc += v * W_LD((s * DW_KH + ky) * DW_KW + kx);
    }
  }
  acc = acc * W_SC(s) + BIAS_LD(s);
  DW_ACT(acc)
  store_out(b, y, x, s, acc);
