/* gl_gen_se.c - a squeeze-and-excite vector in one dispatch: global average pool of the
 * map (I0), one or two pointwise layers on the pooled vector with their activations,
 * in one workgroup of SE_WG invocations per batch. Four dispatches (pool, two tiny
 * convolutions, their barriers) become one; the multiply by the vector is inlined into
 * whoever reads it (gl_fuse.c).
 *   phase 1: lanes split (slice, pixel chunk), partial sums in shared memory, summed
 *            per slice into MID (the pooled means);
 *   phase 2: the first layer (if two), one output slice per lane, into HID;
 *   phase 3: the last layer, one output slice per lane, through store_out.
 * GLSL ES allows barrier() only at the top level of main, so the phases loop inside
 * and meet at barriers between them. */
#include <stdio.h>

#include "gl_gen.h"

#define SE_WG 128
#define SE_MAX_SLICES 512 /* pooled and hidden vectors in shared memory (8 KiB each) */

/* acc = sum over IS input slices of VEC[is] . WNAME weights of output slice j, then the
 * scale, bias and the node's own activation. */
static void emit_layer(gl_str *m, const tfl_node *n, const char *vec, const char *w, const char *bias, int is)
{
  gl_str_addf(m,
              "    ACC4 acc = vec4(0.0);\n"
              "    for (int i = 0; i < %d; i++) {\n"
              "      vec4 v = %s[i];\n"
              "      int wi = j * %d + i * 4;\n"
              "      acc += v.x * %s_LD(wi) + v.y * %s_LD(wi + 1) + v.z * %s_LD(wi + 2) + v.w * %s_LD(wi + 3);\n"
              "    }\n"
              "    acc = acc * %s_SC(j) + %s_LD(j);\n",
              is, vec, is * 4, w, w, w, w, w, bias);
  gl_act_stmt(n->op == TFL_OP_CONV_2D ? n->p.conv.act : n->p.fc.act, "acc", m);
}

tfl_status gl_gen_se(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  const tfl_graph *g = in->g;
  gl_shape x = in->in[0];
  bool two = in->n_chain >= 2;
  int m1 = 0;
  tfl_status st;
  if (two) {
    gl_shape h;
    gl_shape_of(&g->tensors[g->nodes[in->chain[1]].out[0]], &h);
    m1 = h.s;
    if ((st = gl_gen_pointwise_consts(g, in->chain[1], o, "W1", "B1", diag))) return st;
  }
  if ((st = gl_gen_pointwise_consts(g, in->node, o, "W", "BIAS", diag))) return st;
  if (x.s > SE_MAX_SLICES || m1 > SE_MAX_SLICES)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, in->node, "squeeze-excite over %d slices", x.s > m1 ? x.s : m1);
  o->grid[0] = SE_WG;
  o->grid[1] = 1;
  o->grid[2] = in->out.b;
  o->wg[0] = SE_WG;
  o->wg[1] = o->wg[2] = 1;
  o->whole_groups = true;
  gl_str_addf(&o->decls, "shared highp vec4 RED[%d];\nshared highp vec4 MID[%d];\n", SE_WG, x.s);
  if (two) gl_str_addf(&o->decls, "shared highp vec4 HID[%d];\n", m1);
  gl_str *m = &o->main;
  int chunks = x.s < SE_WG ? SE_WG / x.s : 1; /* lanes per slice */
  gl_str_addf(m, "  int t = gid.x, b = gid.z;\n  const int NP = %d;\n", x.h * x.w);
  if (chunks > 1)
    gl_str_addf(m,
                "  if (t < %d) {\n"
                "    ACC4 acc = vec4(0.0);\n"
                "    for (int q = t / %d; q < NP; q += %d) acc += I0_LD(b, q / %d, q %% %d, t %% %d);\n"
                "    RED[t] = acc;\n"
                "  }\n"
                "  memoryBarrierShared();\n  barrier();\n"
                "  if (t < %d) {\n"
                "    ACC4 acc = vec4(0.0);\n"
                "    for (int c = 0; c < %d; c++) acc += RED[t + c * %d];\n"
                "    MID[t] = acc * (1.0 / float(NP));\n"
                "  }\n",
                x.s * chunks, x.s, chunks, x.w, x.w, x.s, x.s, chunks, x.s);
  else
    gl_str_addf(m,
                "  for (int s = t; s < %d; s += %d) {\n"
                "    ACC4 acc = vec4(0.0);\n"
                "    for (int q = 0; q < NP; q++) acc += I0_LD(b, q / %d, q %% %d, s);\n"
                "    MID[s] = acc * (1.0 / float(NP));\n"
                "  }\n",
                x.s, SE_WG, x.w, x.w);
  gl_str_addf(m, "  memoryBarrierShared();\n  barrier();\n");
  const char *vec = "MID";
  int is = x.s;
  if (two) {
    const tfl_node *f1 = &g->nodes[in->chain[1]];
    gl_shape h;
    gl_shape_of(&g->tensors[f1->out[0]], &h);
    gl_str_addf(m, "  for (int j = t; j < %d; j += %d) {\n", m1, SE_WG);
    emit_layer(m, f1, "MID", "W1", "B1", x.s);
    for (int k = 2; k < in->n_chain; k++) { /* element-wise ops between the two layers */
      gl_str_addf(m, "    acc = ");
      if (!gl_eltwise_expr(&g->nodes[in->chain[k]], "acc", "acc", m))
        return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, in->chain[k], "not element-wise");
      gl_str_addf(m, ";\n");
    }
    if (h.c % 4) /* lanes past the hidden width stay zero whatever the activation made */
      gl_str_addf(m, "    if (j == %d) acc = vec4(%s);\n", m1 - 1,
                  (const char *[]){"", "acc.x, 0.0, 0.0, 0.0", "acc.xy, 0.0, 0.0", "acc.xyz, 0.0"}[h.c % 4]);
    gl_str_addf(m, "    HID[j] = acc;\n  }\n  memoryBarrierShared();\n  barrier();\n");
    vec = "HID";
    is = m1;
  }
  gl_str_addf(m, "  for (int j = t; j < O_S; j += %d) {\n", SE_WG);
  emit_layer(m, in->n, vec, "W", "BIAS", is);
  gl_str_addf(m, "    store_out(b, 0, 0, j, acc);\n  }\n");
  return TFL_OK;
}
