  // ssd_detection_out.glsl - SSD_DETECTION's outputs from the slots (ssd_detection.glsl):
  // boxes (decoded again from the anchor), classes, scores; empty slots 0.
  for (int k = t; k < MD; k += WG) {
    vec4 bx = vec4(0.0);
    if (k < kept) { int e = SLOT[k], row = e / MD; bx = box(int(pick(row, e - row * MD).y)); }
    store_out(ITEM, 0, k, 0, bx);
  }
  for (int q = t; q < (MD + 3) / 4; q += WG) {
    vec4 cls = vec4(0.0), scs = vec4(0.0);
    for (int l = 0; l < 4; l++) {
      int k = 4 * q + l;
      if (k >= kept) break;
      int e = SLOT[k], row = e / MD;
      cls[l] = float(row + 1);
      scs[l] = pick(row, e - row * MD).x;
    }
    O1_ST(ITEM, 0, 0, q, cls);
    O2_ST(ITEM, 0, 0, q, scs);
  }
