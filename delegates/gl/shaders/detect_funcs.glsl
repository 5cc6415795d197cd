// detect_funcs.glsl - TFLite_Detection_PostProcess's score access (gl_gen_detect.c): class
// c's score of anchor i in I1 (NC classes from OFF, the background skipped)
float score(int i, int c) { return I1_AT(0, 0, i, OFF + c); }
// the class after (ps, pc) in the order (score down, class up): the next of an anchor's
// top classes
int next_class(int a, float ps, int pc, out float bs) {
  int bc = -1; bs = 0.0;
  for (int c = 0; c < NC; c++) {
    float s = score(a, c);
    bool after = pc < 0 || s < ps || (s == ps && c > pc);
    if (after && (bc < 0 || s > bs)) { bc = c; bs = s; }
  }
  return bc;
}
