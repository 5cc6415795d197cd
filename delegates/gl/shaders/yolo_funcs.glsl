// yolo_funcs.glsl - YOLO_DETECTION's declarations (gl_gen_yolo_detect.c has the scheme):
// the workgroup's shared arrays, a head value, a box, a row's value. The C side defines
// the boxes NB, classes NC, the first class value FC, MD (max_detections), CAP (the
// candidates kept), the workgroup WG, the extra values' offset EO, the row's values ROW,
// THR, SX, SY (threshold, box scales), overlaps() (gl_gen_nms.c), and YD_VALUES_FIRST
// (head [B, values, boxes]), YD_AGNOSTIC (NMS over all classes), YD_KPT (values a
// keypoint, 0: none).
#ifndef FIRST_PASS
// the workgroup's (the scan's dispatch has none)
shared float CS[CAP];
shared uint CI[CAP];
shared uint NA;
shared int NK;
shared uint HIST[512];
shared uint PRE, ABOVE;
shared vec4 KB[MD];
shared int KL[MD];
shared int KR[MD];
shared vec4 CB[WG];
shared int CL[WG];
shared bool CO[WG];
#endif
// value v of box i
#ifdef YD_VALUES_FIRST
float val(int i, int v) { return I0_AT(ITEM, 0, v, i); }
#else
float val(int i, int v) { return I0_AT(ITEM, 0, i, v); }
#endif
// (ymin, xmin, ymax, xmax) in input pixels, as pp_yolo_detect computes it
vec4 box(int i) {
  float cx = val(i, 0) * SX, cy = val(i, 1) * SY;
  float hw = val(i, 2) * SX * 0.5, hh = val(i, 3) * SY * 0.5;
  return vec4(cy - hh, cx - hw, cy + hh, cx + hw);
}
#ifdef YD_AGNOSTIC
bool same(int a, int b) { return true; }
#else
bool same(int a, int b) { return a == b; }
#endif
// box i's best class and score (the first of equal scores; YOLOv5: objectness >
// threshold, times it), as pp_yolo_detect; cls -1 when it is no candidate at any threshold
float best(int i, out int cls) {
  float obj = 1.0, sc = 0.0;
  cls = -1;
  if (FC == 5) { obj = val(i, 4); if (!(obj > THR)) return 0.0; }
  for (int c = 0; c < NC; c++) {
    float s = val(i, FC + c) * obj;
    if (cls < 0 || s > sc) { cls = c; sc = s; }
  }
  return sc;
}
// value e of a row: the corners c, score, class, then extra value e - 6 of box i
float rowval(int i, vec4 c, float sc, float cl, int e) {
  if (e < 4) return c[e];
  if (e == 4) return sc;
  if (e == 5) return cl;
  if (i < 0) return 0.0;
  int j = e - 6;
  float v = val(i, EO + j);
#if YD_KPT > 0
  int m = j % YD_KPT;
  return m == 0 ? v * SX : m == 1 ? v * SY : v;
#else
  return v;
#endif
}
