/* gl_gen_ssd_detect.c - the internal ops SSD_CLASS_NMS and SSD_DETECTION (an SSD's box
 * decoding, greedy NMS per class and the best picks over all classes, appended by
 * decoders/detection_op.c) on the GPU, so only the detections (a few hundred bytes) come
 * back, not the heads (1917 anchors x C class scores). The CPU kernels
 * (delegates/cpu/kernels/ssd_detection.c, postproc/ssd_detect.c) are the reference; their
 * order and arithmetic, in float. Any batch: workgroup row z is batch item ITEM
 * (gl_nms_batch), which reads and writes that item's values only.
 * SSD_CLASS_NMS: a workgroup of SSD_WG invocations per class c >= 1 (workgroup row c - 1),
 * as gl_gen_detect.c does for one class (GLSL ES allows no barrier() in a loop, so every
 * step with one is written out):
 *   1. each anchor whose raw class-c score reaches the threshold and whose box is finite
 *      (the CPU's candidates) puts its probability (float bits) into shared SH;
 *   2. the candidates' ranks by (probability down, anchor up), the CPU's sort order; SH
 *      then holds the anchors in that order;
 *   3. greedy NMS in chunks of SSD_WG candidates, up to max_detections;
 *   4. row c - 1 of the selections [B,C-1,D,2]: (probability, anchor) per pick, best
 *      first, then (0, -1).
 * SSD_DETECTION: one workgroup an item. Each pick's rank over all classes in the CPU's order
 * (probability down, class up, then the class's own order) is its place in its row plus,
 * in every other row, the picks before it there (counted from the row's head, which is
 * sorted, stopping at the first one after it or once the rank reaches D); picks ranked
 * below D go to shared slots. Then the slots: boxes [B,D,4] (decoded again from the
 * anchor), classes [B,D], scores [B,D], count [B]; empty slots 0. */
#include "gl_gen_nms.h"

#include "gl_shaders.h"
#include "postproc/anchor_detect.h"

#define SSD_WG 128               /* GLES 3.1 guarantees 128 invocations a workgroup */
#define SSD_MAX_ANCHORS 2560      /* shared: 4 bytes an anchor, 20 a detection and 20 an
                                     invocation: 14.5 KiB of the 16 KiB GLES guarantees */
#define SSD_MAX_DETECTIONS 100
#define SSD_MAX_CLASSES 65535    /* workgroups along y: GLES 3.1's minimum count; the batch
                                    items are along z (GL_NMS_MAX_ITEMS), each within its
                                    own limit: their product is the workgroup count only */

/* Shapes as tfl_validate.c checks them, within the limits above. */
tfl_status gl_check_ssd_detection(const tfl_graph *g, int node, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  const tfl_anchor_detection_params *p = &n->p.anchor_det;
  const bool merge = n->op == TFL_OP_SSD_DETECTION;
  if (n->n_in != 3 || n->n_out != (merge ? 4 : 1))
    return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "3 inputs and %d outputs", merge ? 4 : 1);
  const tfl_tensor *enc = &g->tensors[n->in[merge ? 1 : 0]], *y = &g->tensors[n->in[merge ? 0 : 1]];
  const tfl_tensor *an = &g->tensors[n->in[2]];
  const int md = p->max_detections;
  if (enc->ndim != 3 || enc->dims[0] < 1 || enc->dims[2] != 4 || an->ndim != 2 || an->dims[0] != enc->dims[1] ||
      an->dims[1] != 4 ||
      (merge ? y->ndim != 4 || y->dims[0] != enc->dims[0] || y->dims[2] != md || y->dims[3] != 2
             : y->ndim != 3 || y->dims[0] != enc->dims[0] || y->dims[1] != enc->dims[1] || y->dims[2] < 2))
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "heads not shaped [B,A,4], %s, anchors [A,4]",
                         merge ? "[B,C-1,D,2]" : "[B,A,C]");
  if (!an->is_const) return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "anchors are not constant");
  const int classes = merge ? y->dims[1] : y->dims[2] - 1;
  if (enc->dims[1] > SSD_MAX_ANCHORS || md < 1 || md > SSD_MAX_DETECTIONS || classes > SSD_MAX_CLASSES)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "%d anchors (at most %d), %d detections (at most %d), "
                         "%d classes (at most %d: a workgroup row along y a class, GLES 3.1's minimum count there)",
                         enc->dims[1], SSD_MAX_ANCHORS, md, SSD_MAX_DETECTIONS, classes, SSD_MAX_CLASSES);
  tfl_status st = gl_nms_check_batch(g, node, enc->dims[0], diag);
  if (st) return st;
  if (p->y_scale == 0 || p->x_scale == 0 || p->h_scale == 0 || p->w_scale == 0)
    return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "a box scale is 0");
  return TFL_OK;
}

/* A workgroup per row y and batch item (z). */
static void one_workgroup(gl_gen_out *o, int groups_y, int batch)
{
  o->grid[0] = SSD_WG;
  o->grid[1] = groups_y;
  o->wg[0] = SSD_WG;
  o->wg[1] = 1;
  o->whole_groups = true;
  gl_nms_batch(o, batch);
}

static const float *scales(const tfl_anchor_detection_params *p, float s[4])
{
  s[0] = p->y_scale;
  s[1] = p->x_scale;
  s[2] = p->h_scale;
  s[3] = p->w_scale;
  return s;
}

tfl_status gl_gen_ssd_class_nms(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  const tfl_graph *g = in->g;
  const tfl_node *n = in->n;
  const tfl_anchor_detection_params *p = &n->p.anchor_det;
  const int batch = g->tensors[n->in[0]].dims[0], na = g->tensors[n->in[0]].dims[1];
  const int nc = g->tensors[n->in[1]].dims[2], chunks = (na + SSD_WG - 1) / SSD_WG;
  float s[4];
  (void)diag;
  one_workgroup(o, nc - 1, batch);
  gl_str *dc = &o->decls;
  gl_str_addf(dc, "#define N %d\n#define WG %d\n#define MD %d\n#define OUT -3.0e38\n", na, SSD_WG,
              p->max_detections);
  gl_nms_decls(dc, p->iou_threshold);
  gl_nms_center_size_box(dc, "I0", "ITEM", "I2", scales(p, s));
  gl_nms_prob(dc, p->prob_scores);
  gl_str *m = &o->main;
  /* 1: candidates of this workgroup's class */
  gl_str_addf(m, "  int t = gid.x, cls = gid.y + 1;\n");
  gl_nms_candidates(m, "I1_AT(ITEM, 0, i, cls)", pp_anchor_raw_threshold(p->score_threshold, p->prob_scores));
  /* 2: ranks, then the anchors in rank order; 3: greedy NMS */
  gl_nms_rank(m, chunks);
  gl_nms_keep(m, chunks, SSD_WG);
  /* 4: the class's row of picks */
  gl_str_addf(m, "%s", ssd_class_picks); /* shaders/ssd_class_picks.glsl */
  return TFL_OK;
}

tfl_status gl_gen_ssd_detection(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  const tfl_graph *g = in->g;
  const tfl_node *n = in->n;
  const tfl_anchor_detection_params *p = &n->p.anchor_det;
  float s[4];
  (void)diag;
  one_workgroup(o, 1, g->tensors[n->in[0]].dims[0]);
  gl_str *dc = &o->decls;
  gl_str_addf(dc, "#define R %d\n#define WG %d\n#define MD %d\n"
                  "shared int SLOT[MD];\nshared uint NV;\n"
                  /* pick i of row r: (probability, anchor) */
                  "vec4 pick(int r, int i) { return I0_LD(ITEM, r, i, 0); }\n",
              g->tensors[n->in[0]].dims[1], SSD_WG, p->max_detections);
  gl_nms_center_size_box(dc, "I1", "ITEM", "I2", scales(p, s));
  gl_str_addf(&o->main, "%s", ssd_detection); /* shaders/ssd_detection.glsl */
  gl_nms_store_count(o, "O3", g->tensors[n->in[0]].dims[0], "float(kept)");
  gl_str_addf(&o->main, "%s", ssd_detection_out); /* shaders/ssd_detection_out.glsl */
  return TFL_OK;
}
