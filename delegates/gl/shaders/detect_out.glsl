  // detect_out.glsl - TFLite_Detection_PostProcess's outputs after the greedy NMS
  // (gl_gen_nms.c's steps: NK kept, their ranks in KR, boxes in KB): four slots (a vec4
  // of classes and of scores) per invocation and turn, NDET slots of PER classes a
  // detection (NCAT of them used), the count
  int kept = NK;
  if (t == 0) O3_ST(0, 0, 0, 0, vec4(float(kept), 0.0, 0.0, 0.0));
  for (int q = t; q < (NDET + 3) / 4; q += WG) {
    vec4 cls = vec4(0.0), scs = vec4(0.0);
    for (int l = 0; l < 4; l++) {
      int slot = 4 * q + l, r = slot / PER, k = slot - r * PER;
      if (slot >= NDET) break;
      bool used = r < kept && k < NCAT;
      store_out(0, 0, slot, 0, used ? KB[r] : vec4(0.0));
      if (!used) continue;
      float ps = 0.0, s = 0.0; int pc = -1;
      for (int j = 0; j <= k; j++) { pc = next_class(int(SH[KR[r]]), ps, pc, s); ps = s; }
      cls[l] = float(pc);
      scs[l] = s;
    }
    O1_ST(0, 0, 0, q, cls);
    O2_ST(0, 0, 0, q, scs);
  }
