/* gl_gen_detect.c - TFLite_Detection_PostProcess (an SSD's box decoding with its anchors
 * and non-maximum suppression) on the GPU, so that a detector's few-KB results, not its
 * heads (an SSD's 1917 x 91 scores), come back to the CPU. The CPU kernel
 * (delegates/cpu/kernels/detection_postprocess.c) is the reference; fast NMS only
 * (use_regular_nms false; regular NMS stays on the CPU).
 * One workgroup of DET_WG invocations:
 *   1. each anchor's best class score (below the score threshold: out) into shared SC;
 *   2. max_detections rounds (unrolled: GLES allows no barrier in a loop): the best
 *      remaining anchor by a workgroup reduction (ties to the lower index, as the CPU
 *      sorts), then every remaining anchor whose box overlaps it by more than the IoU
 *      threshold leaves (boxes decoded where needed, never stored);
 *   3. invocation 0 writes the outputs: boxes [1,D,4], classes [1,D], scores [1,D],
 *      count [1] (D = max_detections x max_classes_per_detection; empty slots 0).
 * Inputs: I0 box encodings [1,N,>=4], I1 class scores [1,N,C], I2 anchors [N,4]. */
#include "gl_gen.h"

#define DET_WG 128
#define DET_MAX_ANCHORS 3072 /* shared floats: 12 KiB + the reduction's 1 KiB */
#define DET_MAX_DETECTIONS 100

tfl_status gl_check_detection(const tfl_graph *g, int node, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  const tfl_detection_params *p = &n->p.detection;
  if (n->n_in != 3 || n->n_out != 4) return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "3 inputs and 4 outputs");
  const tfl_tensor *bx = &g->tensors[n->in[0]], *sc = &g->tensors[n->in[1]], *an = &g->tensors[n->in[2]];
  if (bx->ndim != 3 || bx->dims[0] != 1 || bx->dims[2] < 4 || sc->ndim != 3 || sc->dims[1] != bx->dims[1] ||
      an->ndim != 2 || an->dims[0] != bx->dims[1] || an->dims[1] != 4)
    return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "boxes, scores or anchors shaped unlike an SSD's");
  if (!an->is_const) return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "anchors are not constant");
  if (p->use_regular_nms) return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "regular NMS runs on the CPU");
  if (bx->dims[1] > DET_MAX_ANCHORS || p->max_detections < 1 || p->max_detections > DET_MAX_DETECTIONS ||
      p->max_classes_per_detection < 1 || p->num_classes < 1 || p->num_classes > sc->dims[2])
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "%d anchors, %d detections of %d classes", bx->dims[1],
                         p->max_detections, p->max_classes_per_detection);
  if (!(p->nms_iou_threshold > 0.0f && p->nms_iou_threshold <= 1.0f) || p->y_scale == 0 || p->x_scale == 0 ||
      p->h_scale == 0 || p->w_scale == 0)
    return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "IoU threshold or box scales");
  size_t d = (size_t)p->max_detections * (size_t)p->max_classes_per_detection;
  for (int k = 0; k < 4; k++)
    if (tfl_tensor_count(&g->tensors[n->out[k]]) < (k == 0 ? 4 * d : k == 3 ? 1 : d))
      return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "output %d too small", k);
  return TFL_OK;
}

/* One round of the selection: the best remaining anchor into SEL[r], then suppression. */
static void emit_round(gl_str *m, int r, float iou)
{
  gl_str_addf(m,
              "  best = OUT; bi = N;\n"
              "  for (int i = t; i < N; i += WG) if (SC[i] > best) { best = SC[i]; bi = i; }\n"
              "  RS[t] = best; RI[t] = bi;\n"
              "  memoryBarrierShared();\n  barrier();\n");
  for (int k = DET_WG / 2; k > 0; k /= 2)
    gl_str_addf(m,
                "  if (t < %d && (RS[t + %d] > RS[t] || (RS[t + %d] == RS[t] && RI[t + %d] < RI[t]))) "
                "{ RS[t] = RS[t + %d]; RI[t] = RI[t + %d]; }\n"
                "  memoryBarrierShared();\n  barrier();\n",
                k, k, k, k, k, k);
  gl_str_addf(m, "  bi = RI[0];\n  if (t == 0) SEL[%d] = RS[0] > OUT ? bi : -1;\n", r);
  gl_str_addf(m, "  if (RS[0] > OUT) {\n    vec4 bb = box(bi);\n    for (int i = t; i < N; i += WG)\n"
                 "      if (SC[i] > OUT && (i == bi || iou(bb, box(i)) > ");
  gl_str_float(m, iou);
  gl_str_addf(m, ")) SC[i] = OUT;\n  }\n  memoryBarrierShared();\n  barrier();\n");
}

tfl_status gl_gen_detection(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  const tfl_graph *g = in->g;
  const tfl_node *n = in->n;
  const tfl_detection_params *p = &n->p.detection;
  const tfl_tensor *sc = &g->tensors[n->in[1]];
  int na = g->tensors[n->in[0]].dims[1], nc = p->num_classes, off = sc->dims[2] - nc;
  int ncat = p->max_classes_per_detection < nc ? p->max_classes_per_detection : nc;
  int d = p->max_detections * p->max_classes_per_detection;
  (void)diag;
  o->grid[0] = DET_WG;
  o->grid[1] = o->grid[2] = 1;
  o->wg[0] = DET_WG;
  o->wg[1] = o->wg[2] = 1;
  o->whole_groups = true;
  gl_str *dc = &o->decls;
  gl_str_addf(dc, "#define N %d\n#define WG %d\n#define NC %d\n#define OFF %d\n#define OUT -3.0e38\n", na, DET_WG, nc, off);
  gl_str_addf(dc, "shared float SC[N];\nshared float RS[WG];\nshared int RI[WG];\nshared int SEL[%d];\n",
              p->max_detections);
  /* the CPU decodes in double; here in float (IEEE: differences of an ulp or two) */
  gl_str_addf(dc, "vec4 box(int i) {\n  vec4 e = I0_LD(0, 0, i, 0), a = I2_LD(i, 0, 0, 0);\n  float yc = e.x / ");
  gl_str_float(dc, p->y_scale);
  gl_str_addf(dc, " * a.z + a.x, xc = e.y / ");
  gl_str_float(dc, p->x_scale);
  gl_str_addf(dc, " * a.w + a.y;\n  float hh = 0.5 * exp(e.z / ");
  gl_str_float(dc, p->h_scale);
  gl_str_addf(dc, ") * a.z, hw = 0.5 * exp(e.w / ");
  gl_str_float(dc, p->w_scale);
  gl_str_addf(dc, ") * a.w;\n  return vec4(yc - hh, xc - hw, yc + hh, xc + hw);\n}\n"
                  "float iou(vec4 a, vec4 b) {\n"
                  "  float aa = (a.z - a.x) * (a.w - a.y), ab = (b.z - b.x) * (b.w - b.y);\n"
                  "  if (aa <= 0.0 || ab <= 0.0) return 0.0;\n"
                  "  float ih = max(min(a.z, b.z) - max(a.x, b.x), 0.0), iw = max(min(a.w, b.w) - max(a.y, b.y), 0.0);\n"
                  "  float inter = ih * iw;\n  return inter / (aa + ab - inter);\n}\n"
                  "float score(int i, int c) { return I1_AT(0, 0, i, OFF + c); }\n");
  gl_str *m = &o->main;
  gl_str_addf(m, "  int t = gid.x;\n  float best; int bi;\n"
                 "  for (int i = t; i < N; i += WG) {\n"
                 "    float s = score(i, 0);\n"
                 "    for (int c = 1; c < NC; c++) s = max(s, score(i, c));\n"
                 "    SC[i] = s >= ");
  gl_str_float(m, p->nms_score_threshold);
  gl_str_addf(m, " ? s : OUT;\n  }\n  memoryBarrierShared();\n  barrier();\n");
  for (int r = 0; r < p->max_detections; r++) emit_round(m, r, p->nms_iou_threshold);
  /* the outputs, by one invocation: a few hundred values */
  gl_str_addf(m,
              "  if (t == 0) {\n"
              "    for (int slot = 0; slot < %d; slot++) store_out(0, 0, slot, 0, vec4(0.0)); /* empty slots: 0 */\n"
              "    for (int s = 0; s < %d; s++) { O1_ST(0, 0, 0, s, vec4(0.0)); O2_ST(0, 0, 0, s, vec4(0.0)); }\n"
              "    int count = 0;\n"
              "    for (int r = 0; r < %d; r++) {\n"
              "      int a = SEL[r];\n"
              "      if (a < 0) break;\n"
              "      count++;\n"
              "      vec4 bb = box(a);\n"
              "      int taken[%d];\n"
              "      for (int k = 0; k < %d; k++) {\n" /* top classes, ties to the lower index */
              "        int bc = -1; float bs = 0.0;\n"
              "        for (int c = 0; c < NC; c++) {\n"
              "          bool used = false;\n"
              "          for (int j = 0; j < k; j++) used = used || taken[j] == c;\n"
              "          float s = score(a, c);\n"
              "          if (!used && (bc < 0 || s > bs)) { bc = c; bs = s; }\n"
              "        }\n"
              "        taken[k] = bc;\n"
              "        int slot = r * %d + k;\n"
              "        vec4 lane = vec4(equal(ivec4(0, 1, 2, 3), ivec4(slot %% 4)));\n"
              "        store_out(0, 0, slot, 0, bb);\n"
              "        O1_ST(0, 0, 0, slot / 4, O1_LD(0, 0, 0, slot / 4) * (1.0 - lane) + lane * float(bc));\n"
              "        O2_ST(0, 0, 0, slot / 4, O2_LD(0, 0, 0, slot / 4) * (1.0 - lane) + lane * bs);\n"
              "      }\n"
              "    }\n"
              "    O3_ST(0, 0, 0, 0, vec4(float(count), 0.0, 0.0, 0.0));\n"
              "  }\n",
              d, (d + 3) / 4, p->max_detections, ncat, ncat, p->max_classes_per_detection);
  return TFL_OK;
}
