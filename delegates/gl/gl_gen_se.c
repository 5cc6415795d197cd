/* gl_gen_se.c - a squeeze-and-excite vector in one dispatch: global average pool of the
 * map (I0), one or two pointwise layers on the pooled vector with their activations,
 * in one workgroup per batch item. Four dispatches (pool, two tiny convolutions, their
 * barriers) become one; the multiply by the vector is inlined into whoever reads it
 * (gl_fuse.c).
 *
 * One workgroup does all of it, so what bounds it is memory latency: the workgroup is
 * as large as the device and its shared memory allow (gl_tune_se_wg; up to 1024
 * invocations, a power of two), every lane keeps several loads in flight, and no lane
 * walks a long dependent chain alone:
 *   phase 1: lanes split (slice, pixel chunk); a slice's chunks are neighbouring lanes
 *            on neighbouring pixels (PHWC4 keeps a slice's pixels together: coalesced),
 *            four accumulators per lane; partial sums in RED, summed per slice by a tree
 *            into MID (the pooled means);
 *   phase 2: the first layer (if two) into HID, phase 3: the last layer through
 *            store_out; each output slice's dot product split over K lanes (input slices
 *            divided among them), partial sums in RED, a tree per output slice.
 * GLSL ES allows barrier() only at the top level of main, so every tree step is written
 * out (the split is known here) between top-level barriers, its work guarded by ifs. */
#include <stdio.h>

#include "gl_gen.h"

#define SE_UNROLL 4             /* independent loads per lane and pool iteration (the
                                   accumulators a0..a3 below) */

/* "if (t < n) " where lanes past n idle (none: every lane works). */
static void emit_lanes_if(gl_str *m, int n, int wg)
{
  if (n < wg) gl_str_addf(m, "if (t < %d) ", n);
}

/* Sums each of `segs` segments of `len` consecutive RED entries (segment e at e * len;
 * lanes t < segs * len) by a tree down to two entries per segment, each step between
 * barriers; the caller adds the last pair (tree_last). len need not be a power of two:
 * missing partners count as zeros. */
static void emit_tree(gl_str *m, int segs, int len, int wg)
{
  int p2 = 1;
  while (p2 < len) p2 *= 2;
  for (int h = p2 / 2; h >= 2; h /= 2) {
    gl_str_addf(m, "  if (");
    if (segs * len < wg) gl_str_addf(m, "t < %d && ", segs * len);
    gl_str_addf(m, "t %% %d < %d", len, h);
    if (p2 != len) gl_str_addf(m, " && t %% %d + %d < %d", len, h, len);
    gl_str_addf(m, ") RED[t] += RED[t + %d];\n  memoryBarrierShared();\n  barrier();\n", h);
  }
}

/* The sum of segment e (a GLSL expression) after emit_tree. */
static void tree_last(gl_str *m, const char *e, int len)
{
  if (len >= 2) gl_str_addf(m, "RED[%s * %d] + RED[%s * %d + 1]", e, len, e, len);
  else gl_str_addf(m, "RED[%s]", e);
}

/* a0..a3 = the sums of slice s of I0 over pixels q0, q0 + c, q0 + 2c, ... (q0 a GLSL
 * expression), SE_UNROLL loads in flight: pixel q goes to a((q - q0) / c % 4) while four
 * fit, the tail to a0. The caller adds ((a0 + a1) + (a2 + a3)). */
static void emit_pixel_sums(gl_str *m, gl_shape x, const char *q0, int c)
{
  int np = x.h * x.w;
  gl_str_addf(m,
              "    ACC4 a0 = vec4(0.0), a1 = vec4(0.0), a2 = vec4(0.0), a3 = vec4(0.0);\n"
              "    int q = %s;\n"
              "    for (; q + %d < %d; q += %d) {\n",
              q0, (SE_UNROLL - 1) * c, np, SE_UNROLL * c);
  gl_str_addf(m, "      a0 += I0_LD(b, q / %d, q %% %d, s);\n", x.w, x.w);
  for (int k = 1; k < SE_UNROLL; k++)
    gl_str_addf(m, "      a%d += I0_LD(b, (q + %d) / %d, (q + %d) %% %d, s);\n", k, k * c, x.w, k * c, x.w);
  if (c == 1) gl_str_addf(m, "    }\n    for (; q < %d; q++) a0 += I0_LD(b, q / %d, q %% %d, s);\n", np, x.w, x.w);
  else gl_str_addf(m, "    }\n    for (; q < %d; q += %d) a0 += I0_LD(b, q / %d, q %% %d, s);\n", np, c, x.w, x.w);
}

/* Phase 1: MID[s] = mean over the map's pixels of slice s of I0, on the grid of the
 * pool's output tensor `pooled` when that is quantized (as the integer model stores it). */
static void emit_pool(gl_str *m, gl_shape x, const tfl_tensor *pooled, int wg)
{
  int np = x.h * x.w;
  gl_str_addf(m, "  int t = gid.x, b = gid.z;\n");
  if (x.s > wg) { /* more slices than lanes: a lane per slice, its pixels in turn */
    gl_str_addf(m, "  for (int s = t; s < %d; s += %d) {\n", x.s, wg);
    emit_pixel_sums(m, x, "0", 1);
    gl_str_addf(m, "    vec4 mid_ = ((a0 + a1) + (a2 + a3)) * (1.0 / float(%d));\n", np);
    gl_quant_stmt(pooled, "mid_", "vec4", m);
    gl_str_addf(m, "    MID[s] = mid_;\n  }\n");
  } else {
    int c = wg / x.s < np ? wg / x.s : np; /* lanes per slice */
    gl_str_addf(m, "  ");
    emit_lanes_if(m, x.s * c, wg);
    gl_str_addf(m, "{\n    int s = t / %d;\n", c);
    char q0[32];
    snprintf(q0, sizeof q0, "t %% %d", c);
    emit_pixel_sums(m, x, q0, c);
    gl_str_addf(m, "    RED[t] = (a0 + a1) + (a2 + a3);\n  }\n  memoryBarrierShared();\n  barrier();\n");
    emit_tree(m, x.s, c, wg);
    gl_str_addf(m, "  if (t < %d) {\n    vec4 mid_ = (", x.s);
    tree_last(m, "t", c);
    gl_str_addf(m, ") * (1.0 / float(%d));\n", np);
    gl_quant_stmt(pooled, "mid_", "vec4", m);
    gl_str_addf(m, "    MID[t] = mid_;\n  }\n");
  }
  gl_str_addf(m, "  memoryBarrierShared();\n  barrier();\n");
}

/* acc += VEC[i] . W weights of output slice j, for input slices i = i0, i0 + step, ... */
static void emit_dot(gl_str *m, const char *vec, const char *w, int is, const char *i0, int step)
{
  gl_str_addf(m,
              "    for (int i = %s; i < %d; i += %d) {\n"
              "      vec4 v = %s[i];\n"
              "      int wi = j * %d + i * 4;\n"
              "      acc += v.x * %s_LD(wi) + v.y * %s_LD(wi + 1) + v.z * %s_LD(wi + 2) + v.w * %s_LD(wi + 3);\n"
              "    }\n",
              i0, is, step, vec, is * 4, w, w, w, w);
}

/* Opens a block in which lane t computes `acc` of output slice j (of os) of a pointwise
 * layer on VEC (is slices): scale, bias and the node's activation applied. The caller
 * adds its use of acc and closes the block ("  }\n"). Split over K lanes per output
 * slice where the workgroup has room (K a power of two, at most the input slices). */
static void emit_layer(gl_str *m, const tfl_node *n, const char *vec, const char *w, const char *bias, int is, int os,
                       int wg)
{
  int k = 1;
  while (k * 2 * os <= wg && k * 2 <= is) k *= 2;
  if (k == 1) {
    gl_str_addf(m, "  for (int j = t; j < %d; j += %d) {\n    ACC4 acc = vec4(0.0);\n", os, wg);
    emit_dot(m, vec, w, is, "0", 1);
  } else {
    gl_str_addf(m, "  ");
    emit_lanes_if(m, os * k, wg);
    gl_str_addf(m, "{\n    int j = t / %d;\n    ACC4 acc = vec4(0.0);\n", k);
    char i0[32];
    snprintf(i0, sizeof i0, "t %% %d", k);
    emit_dot(m, vec, w, is, i0, k);
    gl_str_addf(m, "    RED[t] = acc;\n  }\n  memoryBarrierShared();\n  barrier();\n");
    emit_tree(m, os, k, wg);
    gl_str_addf(m, "  if (t < %d) {\n    int j = t;\n    ACC4 acc = ", os);
    tree_last(m, "j", k);
    gl_str_addf(m, ";\n");
  }
  gl_str_addf(m, "    acc = acc * %s_SC(j) + %s_LD(j);\n", w, bias);
  gl_act_stmt(n->op == TFL_OP_CONV_2D ? n->p.conv.act : n->p.fc.act, "acc", m);
}

tfl_status gl_gen_se(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  const tfl_graph *g = in->g;
  gl_shape x = in->in[0];
  bool two = in->n_chain >= 2;
  gl_shape h = {0};
  tfl_status st;
  if (two) {
    gl_shape_of(&g->tensors[g->nodes[in->chain[1]].out[0]], &h);
    if ((st = gl_gen_pointwise_consts(g, in->chain[1], o, "W1", "B1", diag))) return st;
  }
  if ((st = gl_gen_pointwise_consts(g, in->node, o, "W", "BIAS", diag))) return st;
  int wg = in->tile.wg; /* the tuning's (gl_tune.c): device and shared memory */
  if (wg < 1)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, in->node, "squeeze-excite over %d and %d slices: shared memory",
                         x.s, h.s);
  o->grid[0] = wg;
  o->grid[1] = 1;
  o->grid[2] = in->out.b;
  o->wg[0] = wg;
  o->wg[1] = o->wg[2] = 1;
  o->whole_groups = true;
  gl_str_addf(&o->decls, "shared highp vec4 RED[%d];\nshared highp vec4 MID[%d];\n", wg, x.s);
  if (two) gl_str_addf(&o->decls, "shared highp vec4 HID[%d];\n", h.s);
  gl_str *m = &o->main;
  emit_pool(m, x, &g->tensors[g->nodes[in->chain[0]].out[0]], wg);
  const char *vec = "MID";
  int is = x.s;
  if (two) {
    /* every tensor between the layers on its integer grid where quantized: the integer
     * model rounds and saturates each (unclamped, the excitation drifted by tens of LSB
     * on MobileNetV3 int8) */
    emit_layer(m, &g->nodes[in->chain[1]], "MID", "W1", "B1", x.s, h.s, wg);
    gl_quant_stmt(&g->tensors[g->nodes[in->chain[1]].out[0]], "acc", "vec4", m);
    for (int k = 2; k < in->n_chain; k++) { /* element-wise ops between the two layers */
      gl_str_addf(m, "    acc = ");
      if (!gl_eltwise_expr(&g->nodes[in->chain[k]], "acc", "acc", m))
        return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, in->chain[k], "not element-wise");
      gl_str_addf(m, ";\n");
      gl_quant_stmt(&g->tensors[g->nodes[in->chain[k]].out[0]], "acc", "vec4", m);
    }
    if (h.c % 4) /* lanes past the hidden width stay zero whatever the activation made */
      gl_str_addf(m, "    if (j == %d) acc = vec4(%s);\n", h.s - 1,
                  (const char *[]){"", "acc.x, 0.0, 0.0, 0.0", "acc.xy, 0.0, 0.0", "acc.xyz, 0.0"}[h.c % 4]);
    gl_str_addf(m, "    HID[j] = acc;\n  }\n  memoryBarrierShared();\n  barrier();\n");
    vec = "HID";
    is = h.s;
  }
  emit_layer(m, in->n, vec, "W", "BIAS", is, in->out.s, wg);
  gl_str_addf(m, "    store_out(b, 0, 0, j, acc);\n  }\n");
  return TFL_OK;
}
