  // yolo_scan.glsl - YOLO_DETECTION's first dispatch, an invocation a box: its best class
  // and score into the node's scratch slot (score, class), class -1 when it is no
  // candidate (yolo_funcs.glsl has the declarations)
  int i = gid.x, cls;
  float sc = best(i, cls);
  SC_ST(ITEM * NB + i, cls >= 0 && sc > THR ? vec2(sc, float(cls)) : vec2(0.0, -1.0));
