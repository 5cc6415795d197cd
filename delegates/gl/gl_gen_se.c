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
 * out (the split is known here) between top-level barriers, its work guarded by ifs.
 * The body is shaders/se.glsl; this file sizes the splits and defines its parameters, the
 * trees and the statements between the layers. */
#include "gl_gen.h"

#include "gl_shaders.h"

/* Sums each of `segs` segments of `len` consecutive RED entries (segment e at e * len;
 * lanes t < segs * len) by a tree down to two entries per segment, each step between
 * barriers; se.glsl adds the last pair. len need not be a power of two:
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

/* Lanes per output slice of a pointwise layer of os output slices on is input slices:
 * a power of two, at most is, while the workgroup has room. */
static int layer_lanes(int is, int os, int wg)
{
  int k = 1;
  while (k * 2 * os <= wg && k * 2 <= is) k *= 2;
  return k;
}

/* "#define NAME <the tree's steps>" (empty where no step is needed). */
static void define_tree(gl_str *dc, const char *name, int segs, int len, int wg)
{
  gl_str t = {0};
  emit_tree(&t, segs, len, wg);
  gl_define_flat(dc, name, &t);
  gl_str_free(&t);
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
  /* never inlined into a consumer, so it may declare (shaders/se.glsl reads these) */
  gl_str *dc = &o->decls;
  int np = x.h * x.w, c = wg / x.s < np ? wg / x.s : np; /* pool: lanes per slice */
  gl_str_addf(dc, "#define SE_WG %d\n#define SE_XS %d\n#define SE_XW %d\n#define SE_NP %d\n", wg, x.s, x.w, np);
  if (x.s > wg) {
    gl_str_addf(dc, "#define SE_POOL_LOOP\n");
  } else {
    gl_str_addf(dc, "#define SE_C %d\n", c);
    define_tree(dc, "SE_TREE0", x.s, c, wg);
  }
  gl_str q = {0};
  gl_quant_stmt(&g->tensors[g->nodes[in->chain[0]].out[0]], "mid_", "vec4", &q);
  gl_define_flat(dc, "SE_POOL_Q", &q);
  gl_str_free(&q);
  int is = x.s;
  if (two) {
    const tfl_node *l1 = &g->nodes[in->chain[1]];
    int k1 = layer_lanes(x.s, h.s, wg);
    gl_str_addf(dc, "#define SE_TWO\n#define SE_IS1 %d\n#define SE_OS1 %d\n#define SE_K1 %d\n", x.s, h.s, k1);
    if (k1 > 1) define_tree(dc, "SE_TREE1", h.s, k1, wg);
    gl_act_macro(l1->op == TFL_OP_CONV_2D ? l1->p.conv.act : l1->p.fc.act, "SE_ACT1", dc);
    /* every tensor between the layers on its integer grid where quantized: the integer
     * model rounds and saturates each (unclamped, the excitation drifted by tens of LSB
     * on MobileNetV3 int8) */
    gl_str hid = {0};
    gl_quant_stmt(&g->tensors[l1->out[0]], "acc", "vec4", &hid);
    for (int k = 2; k < in->n_chain; k++) { /* element-wise ops between the two layers */
      gl_str_addf(&hid, "    acc = ");
      if (!gl_eltwise_expr(&g->nodes[in->chain[k]], "acc", "acc", &hid)) {
        gl_str_free(&hid);
        return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, in->chain[k], "not element-wise");
      }
      gl_str_addf(&hid, ";\n");
      gl_quant_stmt(&g->tensors[g->nodes[in->chain[k]].out[0]], "acc", "vec4", &hid);
    }
    if (h.c % 4) /* lanes past the hidden width stay zero whatever the activation made */
      gl_str_addf(&hid, "    if (j == %d) acc = vec4(%s);\n", h.s - 1,
                  (const char *[]){"", "acc.x, 0.0, 0.0, 0.0", "acc.xy, 0.0, 0.0", "acc.xyz, 0.0"}[h.c % 4]);
    gl_define_flat(dc, "SE_HID", &hid);
    gl_str_free(&hid);
    is = h.s;
  }
  int k2 = layer_lanes(is, in->out.s, wg);
  gl_str_addf(dc, "#define SE_VEC %s\n#define SE_IS2 %d\n#define SE_OS2 %d\n#define SE_K2 %d\n", two ? "HID" : "MID", is,
              in->out.s, k2);
  if (k2 > 1) define_tree(dc, "SE_TREE2", in->out.s, k2, wg);
  gl_act_macro(in->n->op == TFL_OP_CONV_2D ? in->n->p.conv.act : in->n->p.fc.act, "SE_ACT2", dc);
  gl_str_addf(&o->main, "%s", se); /* shaders/se.glsl */
  return TFL_OK;
}
