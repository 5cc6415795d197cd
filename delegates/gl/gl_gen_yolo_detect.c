/* gl_gen_yolo_detect.c - the internal op YOLO_DETECTION (an Ultralytics YOLO head to its
 * kept boxes, appended by decoders/yolo_op.c) on the GPU, so only the kept boxes come
 * back (a few hundred bytes), not the head (YOLOv8n at 640: 84 x 8400 floats). The CPU
 * kernel (delegates/cpu/kernels/yolo_detection.c, postproc/yolo_detect.c) is the
 * reference: its order and arithmetic, in float.
 * Anchor-free and YOLOv5 heads, two dispatches:
 *   0. the scan, an invocation a box over many workgroups (gl_gen_out.pre): each box's
 *      best class and score (the first of equal scores; YOLOv5: objectness > threshold,
 *      times it) into the node's scratch slot (score, class), class -1 when the score is
 *      not > threshold; on a big head (8400 x 80) this is nearly all the work, which one
 *      workgroup did alone before;
 * then one workgroup of YD_WG invocations per batch item (workgroup row z: gl_nms_batch;
 * GLSL ES allows no barrier() in a loop, so every step with one is written out), reading
 * a slot a box:
 *   1. the candidates into shared CS (score) and CI (box | class << 16), in any order
 *      (step 2 orders them); past YD_MAX_CANDIDATES of them (a frame at
 *      Ultralytics' predict threshold 0.25 has tens), the best ones: those above a cut
 *      found by two histograms of the scores' bits, the cut's bucket (scores within 2^13
 *      ulps, 0.1 %, of each other) dropped. The NMS then gives the CPU's boxes whenever it
 *      reaches max_detections within them (else the first of the CPU's: a prefix);
 *   2. each candidate's rank by (score down, box up), the CPU's sort order (nms_sort);
 *      CS and CI then hold them in that order;
 *   3. greedy NMS in chunks of YD_WG candidates as gl_gen_nms.c's gl_nms_keep, a kept box
 *      suppressing only its own class (or every class: agnostic), up to max_detections;
 * end-to-end heads (one dispatch): invocation 0 takes the rows whose score > threshold
 * and whose box is finite, in order, up to max_detections;
 *   4. the rows [B,D,6+E] (tfl_graph.h: corners in input pixels, score, class, extra
 *      values), empty rows score and class -1.
 * The bodies are shaders/yolo_funcs.glsl, yolo_scan.glsl and yolo_detect.glsl; this file
 * checks the op and defines their sizes and switches. */
#include "gl_gen_nms.h"

#include "gl_shaders.h"

#define YD_WG 128                /* GLES 3.1 guarantees 128 invocations a workgroup */
#define YD_MAX_CANDIDATES 1024   /* shared: 8 bytes a candidate, 24 a detection, 24 an
                                    invocation and a 2 KiB histogram: 15.4 KiB of the
                                    16 KiB GLES guarantees */
#define YD_MAX_DETECTIONS 100
#define YD_MAX_BOXES 65535       /* a box index and a class share a uint */
#define YD_SCAN_WG 64            /* the scan's workgroup: many of them on a big head */
#define YD_MAX_SCRATCH (1 << 24) /* batch x boxes: GLSL int slot indices, 128 MiB at most */

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
  if ((long)x->dims[0] * boxes > YD_MAX_SCRATCH)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "batch %d x %d boxes, more than %d", x->dims[0], boxes,
                         YD_MAX_SCRATCH);
  return gl_nms_check_batch(g, node, x->dims[0], diag);
}

/* decls: sizes and switches, THR SX SY, IoU (gl_gen_nms.c), then shaders/yolo_funcs.glsl */
static void yd_decls(gl_str *dc, const tfl_yolo_detection_params *p, int boxes)
{
  gl_str_addf(dc, "#define NB %d\n#define NC %d\n#define FC %d\n#define MD %d\n#define CAP %d\n#define WG %d\n"
                  "#define EO %d\n#define ROW %d\n#define YD_KPT %d\n#define YD_CHUNKS %d\n",
              boxes, p->n_classes, p->head == 1 ? 5 : 4, p->max_detections, YD_MAX_CANDIDATES, YD_WG,
              p->extra_offset, 6 + p->n_extra, p->kpt_dim > 0 ? p->kpt_dim : 0, YD_MAX_CANDIDATES / YD_WG);
  if (p->values_first) gl_str_addf(dc, "#define YD_VALUES_FIRST\n");
  if (p->agnostic) gl_str_addf(dc, "#define YD_AGNOSTIC\n");
  if (p->head == 2) gl_str_addf(dc, "#define YD_E2E\n");
  gl_unroll_list(dc, "YD_EACH_CHUNK", YD_MAX_CANDIDATES / YD_WG, false);
  gl_str_addf(dc, "const float THR = ");
  gl_str_float(dc, p->threshold);
  gl_str_addf(dc, ", SX = ");
  gl_str_float(dc, p->scale_x);
  gl_str_addf(dc, ", SY = ");
  gl_str_float(dc, p->scale_y);
  gl_str_addf(dc, ";\n");
  gl_nms_iou(dc, p->iou_threshold);
  gl_str_addf(dc, "%s", yolo_funcs); /* shaders/yolo_funcs.glsl */
}

tfl_status gl_gen_yolo_detection(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  const tfl_graph *g = in->g;
  const tfl_node *n = in->n;
  const tfl_yolo_detection_params *p = &n->p.yolo_det;
  const tfl_tensor *x = &g->tensors[n->in[0]];
  const int boxes = p->values_first ? x->dims[2] : x->dims[1];
  (void)diag;
  o->grid[0] = YD_WG;
  o->grid[1] = 1;
  o->wg[0] = YD_WG;
  o->wg[1] = 1;
  o->whole_groups = true;
  gl_nms_batch(o, x->dims[0]);
  yd_decls(&o->decls, p, boxes);
  if (p->head != 2) {
    /* the scan (NB x NC values) in a first dispatch, an invocation a box over many
     * workgroups; the workgroup then reads one slot a box */
    o->scratch = (size_t)x->dims[0] * (size_t)boxes;
    o->pre_grid[0] = boxes;
    o->pre_grid[1] = 1;
    o->pre_wg[0] = YD_SCAN_WG;
    o->pre_wg[1] = 1;
    o->pre_wg[2] = 1;
    o->pre_grid[2] = x->dims[0];
    gl_str_addf(&o->pre, "%s", yolo_scan); /* shaders/yolo_scan.glsl */
  }
  gl_str_addf(&o->main, "%s", yolo_detect); /* shaders/yolo_detect.glsl */
  return TFL_OK;
}
