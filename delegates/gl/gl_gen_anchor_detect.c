/* gl_gen_anchor_detect.c - the internal op ANCHOR_DETECTION (a MediaPipe detector's
 * anchor decoding and weighted NMS, appended by decoders/detection_op.c) on the GPU, so
 * only the detections (a few hundred bytes) come back, not the heads (BlazeFace full
 * range: 2304 x 17 floats). The CPU kernel (delegates/cpu/kernels/anchor_detection.c,
 * postproc/anchor_detect.c) is the reference; its order and arithmetic, in float.
 * One workgroup of AD_WG invocations per batch item (workgroup row z: gl_nms_batch; GLSL
 * ES allows no barrier() in a loop, so every step with one is written out):
 *   1. each anchor's probability (a logit clipped to +-100 through a sigmoid) into shared
 *      SH (float bits) when its raw score reaches the threshold and its box is finite
 *      (the CPU's candidates); a count K of those;
 *   2. each candidate's rank by (probability down, anchor up), the CPU's sort order;
 *      SH then holds the anchors in that order;
 *   3. the leaders: greedy NMS in chunks of AD_WG candidates as gl_gen_detect.c does (a
 *      candidate leads when no earlier leader overlaps it more than the IoU threshold),
 *      up to max_detections: the CPU's weighted NMS picks the same ones;
 *   4. each candidate joins the first leader, in rank order, ranked at or before it that
 *      overlaps it (itself when it leads): whom the CPU's leader absorbs it into; the
 *      leader's number goes to SH's upper 16 bits;
 *   5. one invocation per leader sums its members in rank order (the CPU's order):
 *      probability-weighted box and keypoints, divided by the weights' total (the
 *      leader's own when the total is 0), and writes its slot; the others zero theirs.
 * Inputs: I0 regressors [B,A,4+2k], I1 scores [B,A,1], I2 anchors [A,4].
 * Outputs: boxes [B,D,4], keypoints [B,D,2k], scores [B,D], count [B]; D = max_detections. */
#include "gl_gen_nms.h"

#include "gl_shaders.h"


#include "postproc/anchor_detect.h"

#define AD_WG 128              /* GLES 3.1 guarantees 128 invocations a workgroup */
#define AD_MAX_ANCHORS 2560     /* shared: 4 bytes an anchor, 24 a detection and 20 an
                                   invocation: 15.3 KiB of the 16 KiB GLES guarantees */
#define AD_MAX_DETECTIONS 100   /* one invocation per leader */

tfl_status gl_check_anchor_detection(const tfl_graph *g, int node, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  const tfl_anchor_detection_params *p = &n->p.anchor_det;
  if (n->n_in != 3 || n->n_out != 4) return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "3 inputs and 4 outputs");
  const tfl_tensor *r = &g->tensors[n->in[0]], *sc = &g->tensors[n->in[1]], *an = &g->tensors[n->in[2]];
  if (r->ndim != 3 || r->dims[0] < 1 || r->dims[2] < 6 || (r->dims[2] - 4) % 2 || sc->ndim != 3 ||
      sc->dims[0] != r->dims[0] || sc->dims[1] != r->dims[1] || sc->dims[2] != 1 || an->ndim != 2 ||
      an->dims[0] != r->dims[1] || an->dims[1] != 4)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "heads not shaped [B,A,4+2k], [B,A,1], anchors [A,4]");
  tfl_status st = gl_nms_check_batch(g, node, r->dims[0], diag);
  if (st) return st;
  if (!an->is_const) return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "anchors are not constant");
  if (r->dims[1] > AD_MAX_ANCHORS || p->max_detections < 1 || p->max_detections > AD_MAX_DETECTIONS)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "%d anchors (at most %d), %d detections (at most %d)",
                         r->dims[1], AD_MAX_ANCHORS, p->max_detections, AD_MAX_DETECTIONS);
  if (p->y_scale == 0 || p->x_scale == 0 || p->h_scale == 0 || p->w_scale == 0)
    return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "a box scale is 0");
  return TFL_OK;
}

/* decls: the box scales, shaders/anchor_funcs.glsl (the decoders), the probability */
static void ad_functions(gl_str *dc, const tfl_anchor_detection_params *p)
{
  gl_str_addf(dc, "const vec4 SCL = vec4(");
  gl_str_float(dc, p->y_scale);
  gl_str_addf(dc, ", ");
  gl_str_float(dc, p->x_scale);
  gl_str_addf(dc, ", ");
  gl_str_float(dc, p->h_scale);
  gl_str_addf(dc, ", ");
  gl_str_float(dc, p->w_scale);
  gl_str_addf(dc, ");\n%s", anchor_funcs); /* shaders/anchor_funcs.glsl */
  gl_nms_prob(dc, p->prob_scores);
  gl_str_addf(dc, "float prob_of(int a) { return prob(I1_AT(ITEM, 0, a, 0)); }\n");
}

tfl_status gl_gen_anchor_detection(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  const tfl_graph *g = in->g;
  const tfl_node *n = in->n;
  const tfl_anchor_detection_params *p = &n->p.anchor_det;
  const int batch = g->tensors[n->in[0]].dims[0], na = g->tensors[n->in[0]].dims[1];
  const int nk = (g->tensors[n->in[0]].dims[2] - 4) / 2;
  const int md = p->max_detections, chunks = (na + AD_WG - 1) / AD_WG, ks = (2 * nk + 3) / 4;
  const float thr = pp_anchor_raw_threshold(p->score_threshold, p->prob_scores);
  (void)diag;
  o->grid[0] = AD_WG;
  o->grid[1] = 1;
  o->wg[0] = AD_WG;
  o->wg[1] = 1;
  o->whole_groups = true;
  gl_str *dc = &o->decls;
  gl_nms_batch(o, batch);
  gl_str_addf(dc, "#define N %d\n#define WG %d\n#define MD %d\n#define KS %d\n#define NKV %d\n#define OUT -3.0e38\n",
              na, AD_WG, md, ks, 2 * nk);
  gl_nms_decls(dc, p->iou_threshold);
  gl_str_addf(dc, "shared float RS[MD];\n"); /* the slots' scores */
  ad_functions(dc, p);
  gl_str *m = &o->main;
  /* 1: candidates */
  gl_str_addf(m, "  int t = gid.x;\n");
  gl_nms_candidates(m, "I1_AT(ITEM, 0, i, 0)", thr);
  /* 2: ranks, then the anchors in rank order; 3: the leaders */
  gl_nms_rank(m, chunks);
  gl_nms_keep(m, chunks, AD_WG);
  /* 4: each candidate's leader; 5: the slots */
  gl_str_addf(m, "%s", anchor_blend); /* shaders/anchor_blend.glsl */
  gl_nms_store_count(o, "O3", batch, "float(kept)");
  gl_str_addf(m, "%s", anchor_scores); /* shaders/anchor_scores.glsl */
  return TFL_OK;
}
