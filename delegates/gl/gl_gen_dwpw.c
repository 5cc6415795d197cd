/* gl_gen_dwpw.c - a depthwise convolution and the 1x1 convolution reading it (an inverted
 * residual block's depthwise and projection) in one dispatch. The depthwise output of a
 * tile of TP output pixels is computed into shared memory and consumed there, so it never
 * goes through the arena: one dispatch, one barrier and one round trip of the expanded
 * map fewer per block (gl_fuse.c picks the pairs).
 *
 * One workgroup per tile (pixels in row-major order over the output map) and batch:
 *   phase 1: lanes take (pixel, slice) pairs of the tile, slices fastest (neighbouring
 *            lanes read neighbouring input vec4s), and store the depthwise output with
 *            its bias and activation in DWS (rows padded by one vec4 against bank
 *            conflicts);
 *   phase 2: lanes take (pixel block, output slice) pairs, blocks fastest (lanes of one
 *            output slice read the same weights); a block is PXB pixels, so each
 *            weight vec4 loaded serves PXB pixels. The sums go through store_out (the
 *            1x1 convolution's fused ops: a residual add, an activation).
 * Unlike inlining a depthwise into its consumer as a function (gl_fuse.c), nothing is
 * computed twice: a 1x1 convolution needs no neighbours. Rows of DWS past the tile's
 * pixels (the last block, the map's end) hold zeros. */
#include "gl_gen.h"

#include "runtime/tfl_padding.h"

tfl_status gl_gen_dwpw(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  const tfl_graph *g = in->g;
  const tfl_node *dw = &g->nodes[in->pre];
  const tfl_conv_params *dp = &dw->p.conv;
  const tfl_tensor *dwt = &g->tensors[dw->in[1]];
  int kh = dwt->dims[1], kw = dwt->dims[2];
  gl_shape x = in->in[0], d;
  gl_shape_of(&g->tensors[dw->out[0]], &d);
  if (d.h != in->out.h || d.w != in->out.w || d.s != x.s)
    return gl_node_error(diag, TFL_ERR_SHAPE, g, in->node, "depthwise output %dx%dx%d before a 1x1 convolution", d.h,
                         d.w, d.c);
  tfl_status st;
  if ((st = gl_gen_depthwise_consts(g, in->pre, o, "DW", "DB", diag))) return st;
  if ((st = gl_gen_pointwise_consts(g, in->node, o, "W", "BIAS", diag))) return st;

  /* tile and workgroup: the tuning (gl_tune.c) sizes them for the device's fill and
   * the shared memory there is */
  int is = d.s, isp = is + 1, hw = d.h * d.w;
  int wg = in->tile.wg, tp = in->tile.tp, pxb = in->tile.pxb, npb = in->tile.npb;
  if (tp < 1 || pxb < 1 || npb < 1 || wg < 1)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, in->pre, "depthwise of %d slices in shared memory", is);
  int rows = npb * pxb, tiles = (hw + tp - 1) / tp;
  int pt = tfl_conv_pad_before(dp->padding, x.h, kh, dp->stride_h, dp->dilation_h, d.h);
  int pl = tfl_conv_pad_before(dp->padding, x.w, kw, dp->stride_w, dp->dilation_w, d.w);

  o->grid[0] = tiles * wg;
  o->grid[1] = 1;
  o->grid[2] = in->out.b;
  o->wg[0] = wg;
  o->wg[1] = o->wg[2] = 1;
  o->whole_groups = true;
  gl_str_addf(&o->decls, "shared highp vec4 DWS[%d];\n", rows * isp);
  gl_str *m = &o->main;
  gl_str_addf(m,
              "  const int TP = %d, ROWS = %d, IS = %d, ISP = %d, HW = %d, WG = %d;\n"
              "  int lane = gid.x %% WG, p0 = (gid.x / WG) * TP, b = gid.z;\n"
              "  for (int it = lane; it < ROWS * IS; it += WG) {\n"
              "  int q = it / IS, s = it %% IS, f = p0 + q;\n"
              "  ACC4 acc = vec4(0.0);\n"
              "  if (q < TP && f < HW) {\n"
              "  int y = f / O_W, x = f %% O_W;\n",
              tp, rows, is, isp, hw, wg);
  gl_emit_window_open(m, kh, kw, dp->stride_h, dp->stride_w, pt, pl, dp->dilation_h, dp->dilation_w);
  gl_str_addf(m,
              "      acc += I0_LD(b, iy, ix, s) * DW_LD((s * %d + ky) * %d + kx);\n"
              "    }\n"
              "  }\n"
              "  acc = acc * DW_SC(s) + DB_LD(s);\n",
              kh, kw);
  gl_act_stmt(dp->act, "acc", m);
  gl_str_addf(m,
              "  }\n"
              "  DWS[q * ISP + s] = acc;\n"
              "  }\n"
              "  memoryBarrierShared();\n  barrier();\n"
              "  for (int it = lane; it < %d * O_S; it += WG) {\n"
              "    int pb = it %% %d, os = it / %d, r = pb * %d * ISP, wb = os * IS * 4;\n",
              npb, npb, npb, pxb);
  for (int j = 0; j < pxb; j++) gl_str_addf(m, "    ACC4 a%d = vec4(0.0);\n", j);
  gl_str_addf(m,
              "    for (int i = 0; i < IS; i++) {\n"
              "      FLT4 w0 = W_LD(wb + i * 4), w1 = W_LD(wb + i * 4 + 1), w2 = W_LD(wb + i * 4 + 2), "
              "w3 = W_LD(wb + i * 4 + 3);\n");
  for (int j = 0; j < pxb; j++)
    gl_str_addf(m,
                "      { vec4 v = DWS[r + %d * ISP + i]; a%d += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3; }\n", j,
                j);
  gl_str_addf(m, "    }\n");
  for (int j = 0; j < pxb; j++) {
    gl_str_addf(m,
                "    if (pb * %d + %d < TP && p0 + pb * %d + %d < HW) {\n"
                "      int f = p0 + pb * %d + %d;\n"
                "      ACC4 acc = a%d * W_SC(os) + BIAS_LD(os);\n",
                pxb, j, pxb, j, pxb, j, j);
    gl_act_stmt(in->n->p.conv.act, "acc", m);
    gl_str_addf(m, "      store_out(b, f / O_W, f %% O_W, os, acc);\n    }\n");
  }
  gl_str_addf(m, "  }\n");
  return TFL_OK;
}
