  // detect_scores.glsl - TFLite_Detection_PostProcess's step 1 (gl_gen_detect.c): each of
  // the N anchors' best class score into SH (float bits; below DET_THR, the score
  // threshold: OUT), the count of those in into NA
  int t = gid.x;
  if (t == 0) { NA = 0u; NK = 0; }
  memoryBarrierShared();
  barrier();
  for (int i = t; i < N; i += WG) {
    float s = score(i, 0);
    for (int c = 1; c < NC; c++) s = max(s, score(i, c));
    bool keep = s >= DET_THR;
    SH[i] = floatBitsToUint(keep ? s : OUT);
    if (keep) atomicAdd(NA, 1u);
  }
  memoryBarrierShared();
  barrier();
