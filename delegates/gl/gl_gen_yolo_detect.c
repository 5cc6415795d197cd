/* gl_gen_yolo_detect.c - the internal op YOLO_DETECTION (an Ultralytics YOLO head to its
 * kept boxes, appended by decoders/yolo_op.c) on the GPU, so only the kept boxes come
 * back (a few hundred bytes), not the head (YOLOv8n at 640: 84 x 8400 floats). The CPU
 * kernel (delegates/cpu/kernels/yolo_detection.c, postproc/yolo_detect.c) is the
 * reference: its order and arithmetic, in float. One workgroup of YD_WG invocations per
 * batch item (workgroup row z: gl_nms_batch; GLSL ES allows no barrier() in a loop, so
 * every step with one is written out).
 * Anchor-free and YOLOv5 heads:
 *   1. each box's best class and score (the first of equal scores; YOLOv5: objectness >
 *      threshold, times it) and, when that score > threshold, a candidate in shared CS
 *      (score) and CI (box | class << 16); past YD_MAX_CANDIDATES of them (a frame at
 *      Ultralytics' predict threshold 0.25 has tens), the best ones: those above a cut
 *      found by two histograms of the scores' bits, the cut's bucket (scores within 2^13
 *      ulps, 0.1 %, of each other) dropped. The NMS then gives the CPU's boxes whenever it
 *      reaches max_detections within them (else the first of the CPU's: a prefix);
 *   2. each candidate's rank by (score down, box up), the CPU's sort order (nms_sort);
 *      CS and CI then hold them in that order;
 *   3. greedy NMS in chunks of YD_WG candidates as gl_gen_nms.c's gl_nms_keep, a kept box
 *      suppressing only its own class (or every class: agnostic), up to max_detections;
 * end-to-end heads: invocation 0 takes the rows whose score > threshold and whose box
 * is finite, in order, up to max_detections;
 *   4. the rows [B,D,6+E] (tfl_graph.h: corners in input pixels, score, class, extra
 *      values), empty rows score and class -1. */
#include "gl_gen_nms.h"

#define YD_WG 128                /* GLES 3.1 guarantees 128 invocations a workgroup */
#define YD_MAX_CANDIDATES 1024   /* shared: 8 bytes a candidate, 24 a detection, 24 an
                                    invocation and a 2 KiB histogram: 15.4 KiB of the
                                    16 KiB GLES guarantees */
#define YD_MAX_DETECTIONS 100
#define YD_MAX_BOXES 65535       /* a box index and a class share a uint */

tfl_status gl_check_yolo_detection(const tfl_graph *g, int node, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  const tfl_yolo_detection_params *p = &n->p.yolo_det;
  if (n->n_in != 1 || n->n_out != 1) return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "1 input and 1 output");
  const tfl_tensor *x = &g->tensors[n->in[0]];
  if (x->type != TFL_TYPE_FLOAT32 || x->ndim != 3)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "head %s with %d dims, expected float32 [B, boxes, values]",
                         tfl_type_name(x->type), x->ndim);
  const int boxes = p->values_first ? x->dims[2] : x->dims[1];
  if (boxes > YD_MAX_BOXES || p->n_classes > YD_MAX_BOXES || p->max_detections < 1 ||
      p->max_detections > YD_MAX_DETECTIONS)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "%d boxes, %d classes (at most %d each), %d detections "
                         "(at most %d)", boxes, p->n_classes, YD_MAX_BOXES, p->max_detections, YD_MAX_DETECTIONS);
  return gl_nms_check_batch(g, node, x->dims[0], diag);
}

/* decls: sizes, the shared arrays, a head value, a box, IoU, a row's value */
static void yd_decls(gl_str *dc, const tfl_yolo_detection_params *p, int boxes)
{
  gl_str_addf(dc, "#define NB %d\n#define NC %d\n#define FC %d\n#define MD %d\n#define CAP %d\n#define WG %d\n"
                  "#define EO %d\n#define ROW %d\n",
              boxes, p->n_classes, p->head == 1 ? 5 : 4, p->max_detections, YD_MAX_CANDIDATES, YD_WG,
              p->extra_offset, 6 + p->n_extra);
  gl_str_addf(dc, "shared float CS[CAP];\nshared uint CI[CAP];\nshared uint NA;\nshared int NK;\n"
                  "shared uint HIST[512];\nshared uint B1, ABOVE, CUT;\n"
                  "shared vec4 KB[MD];\nshared int KL[MD];\nshared int KR[MD];\n"
                  "shared vec4 CB[WG];\nshared int CL[WG];\nshared bool CO[WG];\n");
  gl_str_addf(dc, "const float THR = ");
  gl_str_float(dc, p->threshold);
  gl_str_addf(dc, ", SX = ");
  gl_str_float(dc, p->scale_x);
  gl_str_addf(dc, ", SY = ");
  gl_str_float(dc, p->scale_y);
  gl_str_addf(dc, ";\n");
  gl_nms_iou(dc, p->iou_threshold);
  /* value v of box i */
  if (p->values_first) gl_str_addf(dc, "float val(int i, int v) { return I0_AT(ITEM, 0, v, i); }\n");
  else gl_str_addf(dc, "float val(int i, int v) { return I0_AT(ITEM, 0, i, v); }\n");
  /* (ymin, xmin, ymax, xmax) in input pixels, as pp_yolo_detect computes it */
  gl_str_addf(dc, "vec4 box(int i) {\n"
                  "  float cx = val(i, 0) * SX, cy = val(i, 1) * SY;\n"
                  "  float hw = val(i, 2) * SX * 0.5, hh = val(i, 3) * SY * 0.5;\n"
                  "  return vec4(cy - hh, cx - hw, cy + hh, cx + hw);\n}\n"
                  "bool same(int a, int b) { return %s; }\n", p->agnostic ? "true" : "a == b");
  /* box i's best class and score (the first of equal scores; YOLOv5: objectness >
   * threshold, times it), as pp_yolo_detect; cls -1 when it is no candidate at any
   * threshold */
  gl_str_addf(dc, "float best(int i, out int cls) {\n"
                  "  float obj = 1.0, sc = 0.0;\n  cls = -1;\n"
                  "  if (FC == 5) { obj = val(i, 4); if (!(obj > THR)) return 0.0; }\n"
                  "  for (int c = 0; c < NC; c++) {\n"
                  "    float s = val(i, FC + c) * obj;\n"
                  "    if (cls < 0 || s > sc) { cls = c; sc = s; }\n"
                  "  }\n  return sc;\n}\n");
  /* value e of a row: the corners c, score, class, then extra value e - 6 of box i */
  gl_str_addf(dc, "float rowval(int i, vec4 c, float sc, float cl, int e) {\n"
                  "  if (e < 4) return c[e];\n  if (e == 4) return sc;\n  if (e == 5) return cl;\n"
                  "  if (i < 0) return 0.0;\n"
                  "  int j = e - 6;\n  float v = val(i, EO + j);\n");
  if (p->kpt_dim > 0)
    gl_str_addf(dc, "  int m = j %% %d;\n  return m == 0 ? v * SX : m == 1 ? v * SY : v;\n}\n", p->kpt_dim);
  else gl_str_addf(dc, "  return v;\n}\n");
}

/* 1: candidates, the best YD_MAX_CANDIDATES of them: past that many (with a threshold >=
 * 0, so that the scores' bits order as the scores), two histograms of the candidates'
 * score bits (512 buckets of bits 30..22, then of bits 21..13 within the bucket where the
 * count from the top passes the limit) give the cut: the candidates of the buckets above;
 * 2: their ranks */
/* the bucket where the count from the top (starting at %s) passes CAP, into b, and the
 * count above it into acc */
#define YD_WALK "uint acc = %s;\n    int b = 511;\n    for (; b > 0 && acc + HIST[b] <= uint(CAP); b--) acc += HIST[b];\n"

static void yd_candidates(gl_str *m, int chunks)
{
  gl_str_addf(m, "  for (int k = t; k < 512; k += WG) HIST[k] = 0u;\n"
                 "  memoryBarrierShared();\n  barrier();\n"
                 "  for (int i = t; i < NB; i += WG) {\n"
                 "    int cls;\n    float sc = best(i, cls);\n"
                 "    if (cls < 0 || !(sc > THR)) continue;\n"
                 "    atomicAdd(NA, 1u);\n"
                 "    if (THR >= 0.0) atomicAdd(HIST[floatBitsToUint(sc) >> 22], 1u);\n"
                 "  }\n"
                 "  memoryBarrierShared();\n  barrier();\n"
                 "  bool over = NA > uint(CAP) && THR >= 0.0;\n"
                 "  if (t == 0 && over) {\n    ");
  gl_str_addf(m, YD_WALK, "0u");
  gl_str_addf(m, "    B1 = uint(b);\n    ABOVE = acc;\n  }\n"
                 "  memoryBarrierShared();\n  barrier();\n"
                 "  for (int k = t; k < 512; k += WG) HIST[k] = 0u;\n"
                 "  memoryBarrierShared();\n  barrier();\n"
                 "  for (int i = t; over && i < NB; i += WG) {\n"
                 "    int cls;\n    float sc = best(i, cls);\n"
                 "    uint u = floatBitsToUint(sc);\n"
                 "    if (cls >= 0 && sc > THR && (u >> 22) == B1) atomicAdd(HIST[(u >> 13) & 511u], 1u);\n"
                 "  }\n"
                 "  memoryBarrierShared();\n  barrier();\n"
                 "  if (t == 0) {\n    NA = 0u;\n    CUT = 0u;\n"
                 "    if (over) {\n      ");
  gl_str_addf(m, YD_WALK, "ABOVE");
  gl_str_addf(m, "      CUT = (B1 << 22) | (uint(b) << 13) | 0x1fffu;\n    }\n  }\n"
                 "  memoryBarrierShared();\n  barrier();\n"
                 "  for (int i = t; i < NB; i += WG) {\n"
                 "    int cls;\n    float sc = best(i, cls);\n"
                 "    if (cls < 0 || !(sc > THR) || (over && floatBitsToUint(sc) <= CUT)) continue;\n"
                 "    uint slot = atomicAdd(NA, 1u);\n"
                 "    if (slot < uint(CAP)) { CS[slot] = sc; CI[slot] = uint(i) | (uint(cls) << 16); }\n"
                 "  }\n"
                 "  memoryBarrierShared();\n  barrier();\n");
  gl_str_addf(m, "  int nc = min(int(NA), CAP);\n"
                 "  int rk[%d];\n  float rs[%d];\n  uint ri[%d];\n"
                 "  for (int q = 0; q < %d; q++) {\n"
                 "    int i = t + q * WG;\n"
                 "    rk[q] = -1;\n"
                 "    if (i >= nc) continue;\n"
                 "    float s = CS[i];\n    uint bi = CI[i] & 0xffffu;\n"
                 "    int r = 0;\n"
                 "    for (int j = 0; j < nc; j++) {\n"
                 "      float v = CS[j];\n"
                 "      r += (v > s || (v == s && (CI[j] & 0xffffu) < bi)) ? 1 : 0;\n"
                 "    }\n"
                 "    rk[q] = r;\n    rs[q] = s;\n    ri[q] = CI[i];\n"
                 "  }\n"
                 "  memoryBarrierShared();\n  barrier();\n"
                 "  for (int q = 0; q < %d; q++) if (rk[q] >= 0) { CS[rk[q]] = rs[q]; CI[rk[q]] = ri[q]; }\n"
                 "  memoryBarrierShared();\n  barrier();\n",
              chunks, chunks, chunks, chunks, chunks);
}

/* 3: greedy NMS, chunk by chunk (gl_nms_keep with the class test) */
static void yd_keep(gl_str *m, int chunks)
{
  for (int c = 0; c < chunks; c++)
    gl_str_addf(m, "  {\n    int idx = %d + t, start = NK;\n    CO[t] = false;\n"
                   "    if (idx < nc && start < MD) {\n"
                   "      vec4 b = box(int(CI[idx] & 0xffffu));\n"
                   "      int cl = int(CI[idx] >> 16);\n"
                   "      bool ok = true;\n"
                   "      for (int k = 0; k < start; k++) ok = ok && !(same(KL[k], cl) && overlaps(KB[k], b));\n"
                   "      CB[t] = b;\n      CL[t] = cl;\n      CO[t] = ok;\n    }\n"
                   "    memoryBarrierShared();\n    barrier();\n"
                   "    if (t == 0) {\n"
                   "      int kept = start;\n"
                   "      for (int j = 0; j < WG && %d + j < nc && kept < MD; j++) {\n"
                   "        if (!CO[j]) continue;\n"
                   "        bool ok = true;\n"
                   "        for (int k = start; k < kept; k++) ok = ok && !(same(KL[k], CL[j]) && overlaps(KB[k], CB[j]));\n"
                   "        if (ok) { KB[kept] = CB[j]; KL[kept] = CL[j]; KR[kept] = %d + j; kept++; }\n      }\n"
                   "      NK = kept;\n    }\n"
                   "    memoryBarrierShared();\n    barrier();\n  }\n",
                c * YD_WG, c * YD_WG, c * YD_WG);
}

tfl_status gl_gen_yolo_detection(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  const tfl_graph *g = in->g;
  const tfl_node *n = in->n;
  const tfl_yolo_detection_params *p = &n->p.yolo_det;
  const tfl_tensor *x = &g->tensors[n->in[0]];
  const int boxes = p->values_first ? x->dims[2] : x->dims[1], chunks = YD_MAX_CANDIDATES / YD_WG;
  (void)diag;
  o->grid[0] = YD_WG;
  o->grid[1] = 1;
  o->wg[0] = YD_WG;
  o->wg[1] = 1;
  o->whole_groups = true;
  gl_nms_batch(o, x->dims[0]);
  yd_decls(&o->decls, p, boxes);
  gl_str *m = &o->main;
  gl_str_addf(m, "  int t = gid.x;\n"
                 "  if (t == 0) { NA = 0u; NK = 0; }\n"
                 "  memoryBarrierShared();\n  barrier();\n");
  if (p->head == 2) {
    gl_str_addf(m, "  if (t == 0) {\n"
                   "    int k = 0;\n"
                   "    for (int i = 0; i < NB && k < MD; i++) {\n"
                   "      float s = val(i, 0) + val(i, 1) + val(i, 2) + val(i, 3);\n"
                   "      if (!(val(i, 4) > THR) || isnan(s) || isinf(s)) continue;\n"
                   "      CI[k] = uint(i);\n      k++;\n"
                   "    }\n"
                   "    NK = k;\n  }\n"
                   "  memoryBarrierShared();\n  barrier();\n");
  } else {
    yd_candidates(m, chunks);
    yd_keep(m, chunks);
  }
  /* 4: one row an invocation */
  gl_str_addf(m, "  int kept = NK;\n"
                 "  for (int k = t; k < MD; k += WG) {\n"
                 "    int i = -1;\n    vec4 c = vec4(0.0);\n    float sc = -1.0, cl = -1.0;\n"
                 "    if (k < kept) {\n");
  if (p->head == 2)
    gl_str_addf(m, "      i = int(CI[k]);\n"
                   "      c = vec4(val(i, 0) * SX, val(i, 1) * SY, val(i, 2) * SX, val(i, 3) * SY);\n"
                   "      sc = val(i, 4);\n      cl = val(i, 5);\n");
  else
    gl_str_addf(m, "      uint e = CI[KR[k]];\n"
                   "      i = int(e & 0xffffu);\n"
                   "      c = KB[k].yxwz;\n"
                   "      sc = CS[KR[k]];\n      cl = float(e >> 16);\n");
  gl_str_addf(m, "    }\n"
                 "    for (int s = 0; s < O_S; s++) {\n"
                 "      vec4 v = vec4(0.0);\n"
                 "      for (int l = 0; l < 4; l++) if (4 * s + l < ROW) v[l] = rowval(i, c, sc, cl, 4 * s + l);\n"
                 "      store_out(ITEM, 0, k, s, v);\n"
                 "    }\n"
                 "  }\n");
  return TFL_OK;
}
