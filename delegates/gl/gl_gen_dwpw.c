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
 * pixels (the last block, the map's end) hold zeros. The body is shaders/dwpw.glsl; this
 * file sizes the tile and defines its parameters. */
#include "gl_gen.h"

#include "gl_shaders.h"
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
  /* never inlined into a consumer, so it may declare (shaders/dwpw.glsl reads these) */
  gl_str *dc = &o->decls;
  gl_str_addf(dc,
              "#define DP_TP %d\n#define DP_ROWS %d\n#define DP_IS %d\n#define DP_ISP %d\n#define DP_HW %d\n"
              "#define DP_WG %d\n#define DP_NPB %d\n#define DP_PXB %d\n",
              tp, rows, is, isp, hw, wg, npb, pxb);
  gl_str_addf(dc,
              "#define DP_KH %d\n#define DP_KW %d\n#define DP_SH %d\n#define DP_SW %d\n#define DP_PT %d\n"
              "#define DP_PL %d\n#define DP_DH %d\n#define DP_DW %d\n",
              kh, kw, dp->stride_h, dp->stride_w, pt, pl, dp->dilation_h, dp->dilation_w);
  gl_unroll_list(dc, "DP_EACH_PX", pxb, false);
  gl_act_macro(dp->act, "DP_DACT", dc);
  gl_act_macro(in->n->p.conv.act, "DP_ACT", dc);
  gl_str_addf(&o->main, "%s", dwpw); /* shaders/dwpw.glsl */
  return TFL_OK;
}
