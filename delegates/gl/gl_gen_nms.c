/* gl_gen_nms.c - see gl_gen_nms.h */
#include "gl_gen_nms.h"

#include <math.h>

void gl_nms_decls(gl_str *dc, float iou_threshold)
{
  gl_str_addf(dc, "shared uint SH[N];\nshared vec4 KB[MD];\nshared int KR[MD];\n"
                  "shared vec4 CB[WG];\nshared bool CO[WG];\nshared uint NA;\nshared int NK;\n");
  gl_nms_iou(dc, iou_threshold);
  gl_str_addf(dc, "float sh(int i) { return uintBitsToFloat(SH[i]); }\n");
}

void gl_nms_iou(gl_str *dc, float iou_threshold)
{
  gl_str_addf(dc, "float iou(vec4 a, vec4 b) {\n"
                  "  float aa = (a.z - a.x) * (a.w - a.y), ab = (b.z - b.x) * (b.w - b.y);\n"
                  "  if (aa <= 0.0 || ab <= 0.0) return 0.0;\n"
                  "  float ih = max(min(a.z, b.z) - max(a.x, b.x), 0.0), iw = max(min(a.w, b.w) - max(a.y, b.y), 0.0);\n"
                  "  float inter = ih * iw;\n  return inter / (aa + ab - inter);\n}\n"
                  "bool overlaps(vec4 a, vec4 b) { return iou(a, b) > ");
  gl_str_float(dc, iou_threshold);
  gl_str_addf(dc, "; }\n");
}

void gl_nms_rank(gl_str *m, int chunks)
{
  gl_str_addf(m, "  int rk[%d];\n"
                 "  for (int q = 0; q < %d; q++) {\n"
                 "    int i = t + q * WG;\n"
                 "    rk[q] = -1;\n"
                 "    if (i >= N || sh(i) == OUT) continue;\n"
                 "    float s = sh(i);\n"
                 "    int r = 0;\n"
                 "    for (int j = 0; j < N; j++) { float v = sh(j); r += (v > s || (v == s && j < i)) ? 1 : 0; }\n"
                 "    rk[q] = r;\n"
                 "  }\n"
                 "  memoryBarrierShared();\n  barrier();\n"
                 "  for (int q = 0; q < %d; q++) if (rk[q] >= 0) SH[rk[q]] = uint(t + q * WG);\n"
                 "  memoryBarrierShared();\n  barrier();\n"
                 "  int nc = int(NA);\n",
              chunks, chunks, chunks);
}

void gl_nms_keep(gl_str *m, int chunks, int wg)
{
  for (int c = 0; c < chunks; c++)
    gl_str_addf(m, "  {\n    int idx = %d + t, start = NK;\n    CO[t] = false;\n"
                   "    if (idx < nc && start < MD) {\n"
                   "      vec4 b = box(int(SH[idx]));\n"
                   "      bool ok = true;\n"
                   "      for (int k = 0; k < start; k++) ok = ok && !overlaps(KB[k], b);\n"
                   "      CB[t] = b;\n      CO[t] = ok;\n    }\n"
                   "    memoryBarrierShared();\n    barrier();\n"
                   "    if (t == 0) {\n"
                   "      int kept = start;\n"
                   "      for (int j = 0; j < WG && %d + j < nc && kept < MD; j++) {\n"
                   "        if (!CO[j]) continue;\n"
                   "        bool ok = true;\n"
                   "        for (int k = start; k < kept; k++) ok = ok && !overlaps(KB[k], CB[j]);\n"
                   "        if (ok) { KB[kept] = CB[j]; KR[kept] = %d + j; kept++; }\n      }\n"
                   "      NK = kept;\n    }\n"
                   "    memoryBarrierShared();\n    barrier();\n  }\n",
                c * wg, c * wg, c * wg);
}

void gl_nms_center_size_box(gl_str *dc, const char *enc, const char *item, const char *anchors, const float scale[4])
{
  gl_str_addf(dc, "vec4 box(int i) {\n  vec4 e = %s_LD(%s, 0, i, 0), a = %s_LD(i, 0, 0, 0);\n  float yc = e.x / ", enc,
              item, anchors);
  gl_str_float(dc, scale[0]);
  gl_str_addf(dc, " * a.z + a.x, xc = e.y / ");
  gl_str_float(dc, scale[1]);
  gl_str_addf(dc, " * a.w + a.y;\n  float hh = 0.5 * exp(e.z / ");
  gl_str_float(dc, scale[2]);
  gl_str_addf(dc, ") * a.z, hw = 0.5 * exp(e.w / ");
  gl_str_float(dc, scale[3]);
  gl_str_addf(dc, ") * a.w;\n  return vec4(yc - hh, xc - hw, yc + hh, xc + hw);\n}\n");
}

void gl_nms_prob(gl_str *dc, bool prob_scores)
{
  if (prob_scores) gl_str_addf(dc, "float prob(float v) { return v; }\n");
  else gl_str_addf(dc, "float prob(float v) { return 1.0 / (1.0 + exp(-clamp(v, -100.0, 100.0))); }\n");
}

void gl_nms_candidates(gl_str *m, const char *score, float raw_thr)
{
  gl_str_addf(m, "  if (t == 0) { NA = 0u; NK = 0; }\n"
                 "  memoryBarrierShared();\n  barrier();\n"
                 "  for (int i = t; i < N; i += WG) {\n"
                 "    float v = %s;\n"
                 "    bool keep = v >= ", score);
  if (isinf(raw_thr)) /* GLSL ES has no infinite literal */
    gl_str_addf(m, "%s", raw_thr > 0 ? "uintBitsToFloat(0x7f800000u)" : "uintBitsToFloat(0xff800000u)");
  else gl_str_float(m, raw_thr);
  gl_str_addf(m, ";\n"
                 "    if (keep) {\n      vec4 b = box(i);\n      float s = b.x + b.y + b.z + b.w;\n"
                 "      keep = !isnan(s) && !isinf(s);\n    }\n"
                 "    SH[i] = floatBitsToUint(keep ? prob(v) : OUT);\n    if (keep) atomicAdd(NA, 1u);\n  }\n"
                 "  memoryBarrierShared();\n  barrier();\n");
}

tfl_status gl_nms_check_batch(const tfl_graph *g, int node, int batch, tfl_diag *diag)
{
  if (batch <= GL_NMS_MAX_ITEMS) return TFL_OK;
  return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "a batch of %d (at most %d: a workgroup row along z an "
                       "item, GLES 3.1's minimum count there)", batch, GL_NMS_MAX_ITEMS);
}

void gl_nms_batch(gl_gen_out *o, int batch)
{
  o->grid[2] = batch;
  o->wg[2] = 1;
  if (batch == 1) gl_str_addf(&o->decls, "#define ITEM 0\n");
  else gl_str_addf(&o->decls, "#define ITEM int(gl_WorkGroupID.z)\n");
}

void gl_nms_store_count(gl_gen_out *o, const char *obj, int batch, const char *count)
{
  gl_str *m = &o->main;
  o->lane_stores = batch > 1;
  if (batch == 1) {
    gl_str_addf(m, "  if (t == 0) %s_ST(0, 0, 0, 0, vec4(%s, 0.0, 0.0, 0.0));\n", obj, count);
    return;
  }
  /* the items' counts share vec4s: one channel each, beside other workgroups' */
  gl_str_addf(m, "  if (t == 0) %s_STL(0, 0, 0, ITEM, %s);\n", obj, count);
  if (batch % 4)
    gl_str_addf(m, "  if (t > 0 && t <= %d && ITEM == %d) %s_STL(0, 0, 0, %d + t, 0.0);\n", 4 - batch % 4,
                batch - 1, obj, batch - 1);
}
