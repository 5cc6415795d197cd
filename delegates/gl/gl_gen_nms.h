/* gl_gen_nms.h - GLSL shared by the one-workgroup NMS generators (gl_gen_detect.c,
 * gl_gen_anchor_detect.c): candidates ranked by (score down, anchor up), the CPU's sort
 * order (postproc/nms.c), then greedy NMS in chunks of WG candidates (GLSL ES allows no
 * barrier() in a loop, so each chunk is a written-out block): every invocation checks its
 * candidate against the boxes kept before the chunk, then invocation 0 walks the chunk in
 * order against the ones it kept within it, up to MD.
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
/* Ranks the candidates (SH[i] != OUT) and puts the anchors in rank order into SH; leaves
 * `int nc` (how many) declared. chunks = ceil(N / WG). */
void gl_nms_rank(gl_str *m, int chunks);
/* Greedy NMS over SH[0..nc): KB, KR and NK. wg: the value of WG. */
void gl_nms_keep(gl_str *m, int chunks, int wg);

#endif
