  // irb_chunk.glsl - one chunk of an inverted residual block: expanded slices IR_C0 ..
  // IR_C0 + IR_N - 1 (irb_setup.glsl has the parameters and the macros).
  // A: the expansion at the input window's pixels into ESH, IR_WB pixels a lane (clamped
  // into the input, 0 outside: the depthwise's zero padding of the expanded map)
  for (int it = lane; it < WBL * CS; it += WG) {
    int q0 = (it / CS) * IR_WB, j = it % CS, s = min(IR_C0 + j, ES - 1);
    int wy[IR_WB], wx[IR_WB];
    bool win[IR_WB];
    ACC4 e[IR_WB];
    IR_EACH_WIN(IR_WPIX)
    for (int i = 0; i < nis; i++) {
      int wi = (s * I0_S + i) * 4;
      FLT4 w0 = EW_LD(wi), w1 = EW_LD(wi + 1), w2 = EW_LD(wi + 2), w3 = EW_LD(wi + 3);
      IR_EACH_WIN(IR_EMAC)
    }
    IR_EACH_WIN(IR_ESTORE)
  }
  memoryBarrierShared();
  barrier();
  // B: the depthwise convolution at the tile's pixels from ESH into DSH
  for (int it = lane; it < ROWS * CS; it += WG) {
    int q = it / CS, j = it % CS, s = IR_C0 + j, ty = q / TW, tx = q % TW;
    ACC4 acc = vec4(0.0);
    if (q < TP && s < ES && oy0 + ty < O_H && ox0 + tx < O_W) {
      for (int ky = 0; ky < nkh; ky++)
        for (int kx = 0; kx < nkw; kx++)
          acc += ESH[((ty * IR_SH + ky * IR_DH) * WW + tx * IR_SW + kx * IR_DW) * CS + j] * DW_LD((s * IR_KH + ky) * IR_KW + kx);
      acc = acc * DW_SC(s) + DB_LD(s);
      IR_DACT(acc)
    }
    DSH[q * CSP + j] = acc;
  }
  memoryBarrierShared();
  barrier();
  // C: the chunk's part of the projection, into the lane's sums
  IR_EACH_ITEM(IR_PROJ)
