  // pool.glsl - AVERAGE_POOL_2D, MAX_POOL_2D and L2_POOL_2D at output vec4 (x, y, s) of
  // batch item b (declared before it), the body of main() up to the activation.
  // gl_gen_pool.c defines the window PL_KH x PL_KW, strides PL_SH PL_SW, top and left
  // padding PL_PT PL_PL, and one of PL_AVG, PL_L2, PL_MAX. Taps outside the input are
  // skipped (TFLite's convention: averages count only the pixels inside).
#ifdef PL_MAX
  ACC4 acc = vec4(-65000.0);
#else
  ACC4 acc = vec4(0.0);
#endif
  int cnt = 0;
  for (int ky = 0; ky < PL_KH; ky++) {
    int iy = y * PL_SH - PL_PT + ky;
    if (iy < 0 || iy >= I0_H) continue;
    for (int kx = 0; kx < PL_KW; kx++) {
      int ix = x * PL_SW - PL_PL + kx;
      if (ix < 0 || ix >= I0_W) continue;
      FLT4 v = I0_LD(b, iy, ix, s);
#ifdef PL_AVG
      acc += v;
#endif
#ifdef PL_L2
      acc += vec4(v) * vec4(v);
#endif
#ifdef PL_MAX
      acc = max(acc, v);
#endif
      cnt++;
    }
  }
#ifdef PL_AVG
  acc = acc / float(max(cnt, 1));
#endif
#ifdef PL_L2
  acc = cnt > 0 ? sqrt(acc / float(cnt)) : vec4(0.0);
#endif
