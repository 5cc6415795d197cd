  // anchor_scores.glsl - ANCHOR_DETECTION's scores [B,D] from RS (anchor_blend.glsl)
  if (t < (MD + 3) / 4) {
    vec4 v = vec4(0.0);
    for (int l = 0; l < 4; l++) if (4 * t + l < MD) v[l] = RS[4 * t + l];
    O2_ST(ITEM, 0, 0, t, v);
  }
