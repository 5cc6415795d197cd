  // anchor_blend.glsl - ANCHOR_DETECTION after the greedy NMS (gl_gen_anchor_detect.c has
  // the scheme; NK leaders, their ranks in KR and boxes in KB, the nc candidates' anchors
  // in rank order in SH): 4. each candidate's leader into SH's upper bits (its own entry
  // only); 5. one invocation per slot of MD: the leader's box and KS keypoint slices (NKV
  // values) blended over the candidates it leads, weighted by probability; the slots'
  // scores into RS. Defines `kept`.
  int kept = NK;
  for (int r = t; r < nc; r += WG) {
    int a = int(SH[r]);
    vec4 b = box(a);
    int lead = -1;
    for (int k = 0; k < kept && lead < 0; k++)
      if (KR[k] == r || (KR[k] < r && overlaps(KB[k], b))) lead = k;
    SH[r] = uint(a) | (uint(lead + 1) << 16);
  }
  memoryBarrierShared();
  barrier();
  if (t < MD) {
    vec4 bx = vec4(0.0), kp[KS];
    for (int q = 0; q < KS; q++) kp[q] = vec4(0.0);
    float score = 0.0;
    if (t < kept) {
      int r0 = KR[t], a0 = int(SH[r0] & 0xffffu);
      float total = 0.0;
      for (int r = r0; r < nc; r++) {
        if (int(SH[r] >> 16) != t + 1) continue;
        int a = int(SH[r] & 0xffffu);
        float w = prob_of(a);
        total += w;
        bx += w * box(a);
        for (int q = 0; q < KS; q++) kp[q] += w * kps(a, q);
      }
      if (total > 0.0) {
        bx /= total;
        for (int q = 0; q < KS; q++) kp[q] /= total;
      } else {
        bx = KB[t];
        for (int q = 0; q < KS; q++) kp[q] = kps(a0, q);
      }
      score = prob_of(a0);
    }
    store_out(ITEM, 0, t, 0, bx);
    for (int q = 0; q < KS; q++) {
      vec4 v = kp[q];
      for (int l = 0; l < 4; l++) if (4 * q + l >= NKV) v[l] = 0.0;
      O1_ST(ITEM, 0, t, q, v);
    }
    RS[t] = score;
  }
  memoryBarrierShared();
  barrier();
