  // ssd_detection.glsl - SSD_DETECTION (gl_gen_ssd_detect.c has the scheme), one workgroup
  // of WG lanes an item: each of the R rows' picks (pick(row, i): probability, anchor;
  // anchor -1 past the row's picks) ranked over all rows in the CPU's order, those ranked
  // below MD into SLOT; NV counts the picks. Defines `kept`; the C side then stores the
  // count and ssd_detection_out.glsl the slots.
  int t = gid.x;
  for (int k = t; k < MD; k += WG) SLOT[k] = -1;
  if (t == 0) NV = 0u;
  memoryBarrierShared();
  barrier();
  for (int e = t; e < R * MD; e += WG) {
    int row = e / MD, i = e - row * MD;
    vec4 v = pick(row, i);
    if (v.y < 0.0) continue;
    atomicAdd(NV, 1u);
    int rank = i;
    for (int r = 0; r < R && rank < MD; r++) {
      if (r == row) continue;
      for (int j = 0; j < MD && rank < MD; j++) {
        vec4 u = pick(r, j);
        if (u.y < 0.0 || !(u.x > v.x || (u.x == v.x && r < row))) break;
        rank++;
      }
    }
    if (rank < MD) SLOT[rank] = e;
  }
  memoryBarrierShared();
  barrier();
  int kept = min(int(NV), MD);
