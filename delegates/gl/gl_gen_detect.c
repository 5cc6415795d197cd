/* gl_gen_detect.c - TFLite_Detection_PostProcess (an SSD's box decoding with its anchors
 * and non-maximum suppression) on the GPU, so that a detector's few-KB results, not its
 * heads (an SSD's 1917 x 91 scores), come back to the CPU. The CPU kernel
 * (delegates/cpu/kernels/detection_postprocess.c, postproc/) is the reference; fast NMS
 * only (use_regular_nms false; regular NMS stays on the CPU).
 * One workgroup of DET_WG invocations, the code's size independent of max_detections
 * (GLSL ES allows no barrier() in a loop, so every step with one is written out):
 *   1. each anchor's best class score into shared SH (float bits; below the score
 *      threshold: out), a count K of those in;
 *   2. each candidate's rank by (score down, anchor up), the CPU's sort order, counted
 *      against all others; SH then holds the anchors in that order;
 *   3. greedy NMS in chunks of DET_WG candidates (one written-out block per chunk):
 *      every invocation checks its candidate against the boxes kept before the chunk
 *      (decoded where needed, in float), then invocation 0 walks the chunk in order
 *      against the boxes it kept within it, up to max_detections;
 *   4. the outputs, a vec4 of slots per invocation: boxes [1,D,4], classes [1,D],
 *      scores [1,D] (each kept anchor's top max_classes_per_detection classes, ties to
 *      the lower class), count [1]; D = max_detections x max_classes_per_detection,
 *      empty slots 0.
 * Inputs: I0 box encodings [1,N,>=4], I1 class scores [1,N,C], I2 anchors [N,4].
 * Steps 1 and 4 are shaders/detect_*.glsl, 2 and 3 gl_gen_nms.c's. */
#include "gl_gen_nms.h"

#include "gl_shaders.h"

#define DET_WG 128              /* GLES 3.1 guarantees 128 invocations a workgroup */
#define DET_MAX_ANCHORS 2560     /* shared: 4 bytes an anchor, 20 a detection and 20 an
                                    invocation: 14.5 KiB of the 16 KiB GLES guarantees */
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

tfl_status gl_gen_detection(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  const tfl_graph *g = in->g;
  const tfl_node *n = in->n;
  const tfl_detection_params *p = &n->p.detection;
  const tfl_tensor *sc = &g->tensors[n->in[1]];
  int na = g->tensors[n->in[0]].dims[1], nc = p->num_classes, off = sc->dims[2] - nc;
  int ncat = p->max_classes_per_detection < nc ? p->max_classes_per_detection : nc;
  int per = p->max_classes_per_detection, d = p->max_detections * per, md = p->max_detections;
  int chunks = (na + DET_WG - 1) / DET_WG;
  (void)diag;
  o->grid[0] = DET_WG;
  o->grid[1] = o->grid[2] = 1;
  o->wg[0] = DET_WG;
  o->wg[1] = o->wg[2] = 1;
  o->whole_groups = true;
  gl_str *dc = &o->decls;
  gl_str_addf(dc, "#define N %d\n#define WG %d\n#define NC %d\n#define OFF %d\n#define MD %d\n#define PER %d\n"
                  "#define NCAT %d\n#define NDET %d\n#define OUT -3.0e38\n",
              na, DET_WG, nc, off, md, per, ncat, d);
  gl_nms_decls(dc, p->nms_iou_threshold);
  gl_nms_center_size_box(dc, "I0", "0", "I2", (const float[4]){p->y_scale, p->x_scale, p->h_scale, p->w_scale});
  gl_str_addf(dc, "#define DET_THR ");
  gl_str_float(dc, p->nms_score_threshold);
  gl_str_addf(dc, "\n%s", detect_funcs); /* shaders/detect_funcs.glsl */
  gl_str *m = &o->main;
  /* 1: best class score per anchor */
  gl_str_addf(m, "%s", detect_scores); /* shaders/detect_scores.glsl */
  /* 2: ranks, then the anchors in rank order; 3: greedy NMS */
  gl_nms_rank(m, chunks);
  gl_nms_keep(m, chunks, DET_WG);
  /* 4: outputs */
  gl_str_addf(m, "%s", detect_out); /* shaders/detect_out.glsl */
  return TFL_OK;
}
