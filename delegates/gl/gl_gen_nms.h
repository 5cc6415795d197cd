/* gl_gen_nms.h - GLSL shared by the workgroup NMS generators (gl_gen_detect.c,
 * gl_gen_anchor_detect.c, gl_gen_ssd_detect.c): candidates ranked by (score down, anchor up), the CPU's sort
 * order (postproc/nms.c), then greedy NMS in chunks of WG candidates (GLSL ES allows no
 * barrier() in a loop, so each chunk is a written-out block): every invocation checks its
 * candidate against the boxes kept before the chunk, then invocation 0 walks the chunk in
 * order against the ones it kept within it, up to MD.
 * A batch (the detectors' ops): workgroup row z of the grid is batch item ITEM, which
 * reads and writes its own item's values only (gl_nms_batch).
 * The body defines N, WG, MD and OUT (a score below every candidate's), int t (the
 * invocation) and vec4 box(int anchor); these declare and use, in shared memory, SH[N]
 * (each anchor's score bits, then the anchors in rank order), KB[MD] and KR[MD] (the kept
 * boxes and their ranks), CB[WG] and CO[WG] (a chunk), NA (candidates) and NK (kept). */
#ifndef GL_GEN_NMS_H
#define GL_GEN_NMS_H

#include "gl_gen.h"

/* The shared arrays, iou(a, b) (postproc/box.c's pp_box_iou), overlaps(a, b) (IoU above
 * iou_threshold) and sh(i) (SH[i] as a float). */
void gl_nms_decls(gl_str *dc, float iou_threshold);
/* iou(a, b) and overlaps(a, b) alone (gl_gen_yolo_detect.c keeps its own arrays). */
void gl_nms_iou(gl_str *dc, float iou_threshold);
/* float prob(float v): a raw score's probability (postproc/anchor_detect.h: a logit
 * clipped to +-100 through a sigmoid, or v itself when prob_scores). */
void gl_nms_prob(gl_str *dc, bool prob_scores);
/* The candidates: with NA and NK zeroed, SH[i] = anchor i's prob(v) (float bits) when its
 * raw score v (the GLSL expression `score` of int i) reaches raw_thr (+-inf allowed) and
 * box(i) is finite, else OUT; NA counts them. Needs prob and box declared. */
void gl_nms_candidates(gl_str *m, const char *score, float raw_thr);
/* Ranks the candidates (SH[i] != OUT) and puts the anchors in rank order into SH; leaves
 * `int nc` (how many) declared. chunks = ceil(N / WG). */
void gl_nms_rank(gl_str *m, int chunks);
/* Greedy NMS over SH[0..nc): KB, KR and NK. wg: the value of WG. */
void gl_nms_keep(gl_str *m, int chunks, int wg);
/* vec4 box(int i): anchor i's corner box (ymin, xmin, ymax, xmax) from TF's center-size
 * coder (postproc/box.h) with scales y, x, h, w, its encodings from item `item` (a GLSL
 * int expression) of object `enc` ([B,A,4]) and its anchor from object `anchors`
 * ([A,4]). The CPU decodes in double and rounds the centre and half sizes to float; here
 * in float (IEEE: an ulp or two). */
void gl_nms_center_size_box(gl_str *dc, const char *enc, const char *item, const char *anchors, const float scale[4]);

/* The most batch items: workgroup rows along z, GLES 3.1's minimum count there. */
#define GL_NMS_MAX_ITEMS 65535
/* Refuses a batch of more items than GL_NMS_MAX_ITEMS (the node's error, in diag). */
tfl_status gl_nms_check_batch(const tfl_graph *g, int node, int batch, tfl_diag *diag);
/* A batch of `batch` items, a workgroup row (z) each: grid[2] and wg[2], and ITEM (the
 * item, an int usable in any function: 0 at batch 1, so that code and dispatch are the
 * batch-1 ones) into decls. */
void gl_nms_batch(gl_gen_out *o, int batch);
/* Invocation 0 (int t) of item ITEM stores `count` (a GLSL float) into the count output
 * `obj` ([B]: item b is channel b of one row) in o's body; at batch > 1 the items share
 * its vec4s, so each stores its own channel (lane stores, gl_gen_out.lane_stores) and
 * the last item zeroes the lanes past B. */
void gl_nms_store_count(gl_gen_out *o, const char *obj, int batch, const char *count);

#endif
