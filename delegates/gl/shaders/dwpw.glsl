  // dwpw.glsl - a depthwise convolution and the 1x1 convolution reading it in one
  // dispatch (gl_gen_dwpw.c has the scheme): one workgroup of DP_WG lanes per tile of
  // DP_TP output pixels and batch item. Phase 1 stores the depthwise output of the tile
  // (with its bias and activation) in DWS, DP_ROWS rows of DP_ISP vec4s; phase 2 takes
  // (block of DP_PXB pixels, output slice) pairs. The C side defines the depthwise's
  // window (DP_KH, DP_KW), strides (DP_SH, DP_SW), top and left padding (DP_PT, DP_PL),
  // dilations (DP_DH, DP_DW), its slices DP_IS, the map's pixels DP_HW, the blocks per
  // tile DP_NPB, the activations DP_DACT(v) (depthwise) and DP_ACT(v) (1x1), and the
  // block unrolled: DP_EACH_PX(M) is M(0) ... M(DP_PXB - 1) (a block's sums are an array
  // indexed by those constants).
#define DP_ZERO(j) a[j] = vec4(0.0);
#define DP_MAC(j) { vec4 v = DWS[r + j * ISP + i]; a[j] += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3; }
#define DP_STORE(j) if (pb * DP_PXB + j < TP && p0 + pb * DP_PXB + j < HW) { int f = p0 + pb * DP_PXB + j; ACC4 acc = a[j] * W_SC(os) + BIAS_LD(os); DP_ACT(acc) store_out(b, f / O_W, f % O_W, os, acc); }
  const int TP = DP_TP, ROWS = DP_ROWS, IS = DP_IS, ISP = DP_ISP, HW = DP_HW, WG = DP_WG;
  int lane = gid.x % WG, p0 = (gid.x / WG) * TP, b = gid.z;
  for (int it = lane; it < ROWS * IS; it += WG) {
    int q = it / IS, s = it % IS, f = p0 + q;
    ACC4 acc = vec4(0.0);
    if (q < TP && f < HW) {
      int y = f / O_W, x = f % O_W;
      for (int ky = 0; ky < DP_KH; ky++) {
        int iy = y * DP_SH - DP_PT + ky * DP_DH;
        if (iy < 0 || iy >= I0_H) continue;
        for (int kx = 0; kx < DP_KW; kx++) {
          int ix = x * DP_SW - DP_PL + kx * DP_DW;
          if (ix < 0 || ix >= I0_W) continue;
          acc += I0_LD(b, iy, ix, s) * DW_LD((s * DP_KH + ky) * DP_KW + kx);
        }
      }
      acc = acc * DW_SC(s) + DB_LD(s);
      DP_DACT(acc)
    }
    DWS[q * ISP + s] = acc;
  }
  memoryBarrierShared();
  barrier();
  for (int it = lane; it < DP_NPB * O_S; it += WG) {
    int pb = it % DP_NPB, os = it / DP_NPB, r = pb * DP_PXB * ISP, wb = os * IS * 4;
    ACC4 a[DP_PXB];
    DP_EACH_PX(DP_ZERO)
    for (int i = 0; i < IS; i++) {
      FLT4 w0 = W_LD(wb + i * 4), w1 = W_LD(wb + i * 4 + 1), w2 = W_LD(wb + i * 4 + 2), w3 = W_LD(wb + i * 4 + 3);
      DP_EACH_PX(DP_MAC)
    }
    DP_EACH_PX(DP_STORE)
  }
