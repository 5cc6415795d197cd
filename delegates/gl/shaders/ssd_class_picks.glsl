  // ssd_class_picks.glsl - SSD_CLASS_NMS's last step (gl_gen_ssd_detect.c): after the
  // greedy NMS (gl_gen_nms.c's steps; NK picks, their ranks in KR, the anchors in rank
  // order in SH), row gid.y of the selections: (probability, anchor) per pick of class
  // cls, best first, then (0, -1). MD is max_detections.
  int kept = NK;
  for (int k = t; k < MD; k += WG) {
    vec4 v = vec4(0.0, -1.0, 0.0, 0.0);
    if (k < kept) {
      int a = int(SH[KR[k]]);
      v = vec4(prob(I1_AT(ITEM, 0, a, cls)), float(a), 0.0, 0.0);
    }
    store_out(ITEM, gid.y, k, 0, v);
  }
