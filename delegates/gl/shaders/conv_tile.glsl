  // conv_tile.glsl - CONV_2D and FULLY_CONNECTED, an output tile of CV_PX pixels along x
  // times CV_SL slices per invocation (gl_gen_conv.c; the tuning, gl_tune_conv, picks the
  // tile): each input vec4 loaded serves CV_SL slices, each weight vec4 CV_PX pixels.
  // Window taps outside the input read a clamped pixel times a 0 mask, so the unrolled
  // tile has no branches. The C side defines the window (CV_KH, CV_KW), strides (CV_SH,
  // CV_SW), top and left padding (CV_PT, CV_PL), dilations (CV_DH, CV_DW), the tile
  // (CV_PX, CV_SL, and CV_SG: the output's groups of CV_SL slices), CV_ACT(v) (the fused
  // activation) and the tile unrolled as lists: CV_EACH_PX(M, j) is M(0, j) ... M(CV_PX - 1,
  // j), CV_EACH_SL(M) is M(0) ... M(CV_SL - 1). GLSL has no token pasting, so the tile's
  // values are arrays indexed by those constants (registers, as separate variables are).
#define CV_A(q, j) a[(j) * CV_PX + (q)]
#define CV_ZERO(q, j) CV_A(q, j) = vec4(0.0);
#define CV_INIT(j) os[j] = min(s0 + j, O_S - 1); CV_EACH_PX(CV_ZERO, j)
#define CV_PIXEL(q, j) ix[q] = (x0 + q) * CV_SW - CV_PL + kx * CV_DW; m[q] = ix[q] >= 0 && ix[q] < I0_W ? FLT(1.0) : FLT(0.0); ix[q] = clamp(ix[q], 0, I0_W - 1);
#define CV_WBASE(j) w[j] = ((os[j] * CV_KH + ky) * CV_KW + kx) * I0_S * 4;
#define CV_LOAD(q, j) v[q] = I0_LD(b, iy, ix[q], is) * m[q];
#define CV_MAC(q, j) CV_A(q, j) += v[q].x * k0 + v[q].y * k1 + v[q].z * k2 + v[q].w * k3;
#define CV_SLICE(j) { int wi = w[j] + is * 4; FLT4 k0 = W_LD(wi), k1 = W_LD(wi + 1), k2 = W_LD(wi + 2), k3 = W_LD(wi + 3); CV_EACH_PX(CV_MAC, j) }
#define CV_STORE(q, j) { ACC4 r = CV_A(q, j) * W_SC(os[j]) + BIAS_LD(os[j]); CV_ACT(r) if (x0 + q < O_W && s0 + j < O_S) store_out(b, y, x0 + q, s0 + j, r); }
#define CV_STORE_ROW(j) CV_EACH_PX(CV_STORE, j)
  int x0 = gid.x * CV_PX, y = gid.y, s0 = (gid.z % CV_SG) * CV_SL, b = gid.z / CV_SG;
  int os[CV_SL];
  ACC4 a[CV_SL * CV_PX];
  CV_EACH_SL(CV_INIT)
  for (int ky = 0; ky < CV_KH; ky++) {
    int iy = y * CV_SH - CV_PT + ky * CV_DH;
    if (iy < 0 || iy >= I0_H) continue;
    for (int kx = 0; kx < CV_KW; kx++) {
      int ix[CV_PX];
      FLT m[CV_PX];
      CV_EACH_PX(CV_PIXEL, 0)
      int w[CV_SL];
      CV_EACH_SL(CV_WBASE)
      for (int is = 0; is < I0_S; is++) {
        FLT4 v[CV_PX];
        CV_EACH_PX(CV_LOAD, 0)
        CV_EACH_SL(CV_SLICE)
      }
    }
  }
  CV_EACH_SL(CV_STORE_ROW)
