/* gl_gen_irb.c - an inverted residual block in one dispatch: the 1x1 expansion, the
 * depthwise convolution reading it and the 1x1 projection reading that (gl_fuse.c picks
 * the blocks). Neither the expanded map nor the depthwise output goes through the
 * arena; the price is the expansion recomputed on the halo that neighbouring tiles
 * share.
 *
 * One workgroup per rectangular tile of TH x TW output pixels and batch. The expanded
 * channels (96..960) do not fit in shared memory for the tile's input window, so they
 * go in chunks of CS slices, each chunk in three phases spread over the lanes:
 *   A: the expansion of the chunk's slices at every pixel of the input window into
 *      ESH (lanes take (block of win_block window pixels, slice), slices fastest, so
 *      each weight vec4 loaded serves the block); window pixels outside the input
 *      hold 0, the depthwise convolution's zero padding of the expanded map;
 *   B: the depthwise convolution of those slices at the tile's pixels, from ESH, with
 *      its bias and activation, into DSH (rows padded by one vec4 against bank
 *      conflicts);
 *   C: lane (pixel block, output slice) adds the chunk's part of the projection for
 *      its PXB pixels to sums it keeps in registers over all chunks.
 * Barriers after A and after B (the next chunk's A writes ESH only after B read it,
 * its B writes DSH only after C read it). GLSL ES 3.1 allows no barrier() inside any
 * control flow, loops included, so the chunk loop is written out (the tuning table
 * bounds it); the loops inside a chunk get bounds the compiler cannot see (`+ z`, z is
 * 0) so they stay loops. After the last chunk the sums go through store_out (the
 * projection's fused ops: a residual add, an activation).
 *
 * The tile, CS, the chunks and the workgroup come from the tuning (gl_tune.c, in
 * in->tile): the least expansion work per output pixel among tiles of up to an eighth
 * of the device's fill in invocations, larger where halos cost too much; shared memory
 * (16 KiB: ESH window x CS, DSH tile x (CS + 1)) sets CS. The body is shaders/irb_setup.glsl,
 * irb_chunk.glsl (once per chunk) and irb_store.glsl; this file sizes the tile and
 * defines their parameters. */
#include "gl_gen.h"

#include "gl_shaders.h"
#include "runtime/tfl_padding.h"

tfl_status gl_gen_irb(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  const tfl_graph *g = in->g;
  const tfl_node *ex = &g->nodes[in->expand], *dw = &g->nodes[in->pre];
  const tfl_conv_params *dp = &dw->p.conv;
  const tfl_tensor *dwt = &g->tensors[dw->in[1]];
  int kh = dwt->dims[1], kw = dwt->dims[2];
  gl_shape x = in->in[0], e, d;
  gl_shape_of(&g->tensors[ex->out[0]], &e);
  gl_shape_of(&g->tensors[dw->out[0]], &d);
  if (e.h != x.h || e.w != x.w || d.s != e.s || d.h != in->out.h || d.w != in->out.w)
    return gl_node_error(diag, TFL_ERR_SHAPE, g, in->node, "expansion %dx%dx%d, depthwise %dx%dx%d before a 1x1 convolution",
                         e.h, e.w, e.c, d.h, d.w, d.c);
  tfl_status st;
  if ((st = gl_gen_pointwise_consts(g, in->expand, o, "EW", "EB", diag))) return st;
  if ((st = gl_gen_depthwise_consts(g, in->pre, o, "DW", "DB", diag))) return st;
  if ((st = gl_gen_pointwise_consts(g, in->node, o, "W", "BIAS", diag))) return st;

  const gl_gen_tile *tl = &in->tile;
  int es = e.s, wg = tl->wg;
  if (tl->th < 1 || tl->tw < 1 || tl->pxb < 1 || tl->cs < 1 || wg < 1)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, in->node, "inverted residual block of %d expanded slices, %d output slices",
                         es, in->out.s);
  /* the tile's geometry: input window, pixel blocks of the projection, shared rows */
  struct {
    int th, tw, ww, win, tp, pxb, npb, rows, cs, nch, items;
  } t = {.th = tl->th, .tw = tl->tw, .cs = tl->cs, .nch = tl->nch, .items = tl->items};
  t.ww = (t.tw - 1) * dp->stride_w + (kw - 1) * dp->dilation_w + 1;
  t.win = ((t.th - 1) * dp->stride_h + (kh - 1) * dp->dilation_h + 1) * t.ww;
  t.tp = t.th * t.tw;
  t.pxb = t.tp < tl->pxb ? t.tp : tl->pxb;
  t.npb = (t.tp + t.pxb - 1) / t.pxb;
  t.rows = t.npb * t.pxb;
  int tx = (d.w + t.tw - 1) / t.tw, ty = (d.h + t.th - 1) / t.th, csp = t.cs + 1;
  int pt = tfl_conv_pad_before(dp->padding, x.h, kh, dp->stride_h, dp->dilation_h, d.h);
  int pl = tfl_conv_pad_before(dp->padding, x.w, kw, dp->stride_w, dp->dilation_w, d.w);

  o->grid[0] = tx * ty * wg;
  o->grid[1] = 1;
  o->grid[2] = in->out.b;
  o->wg[0] = wg;
  o->wg[1] = o->wg[2] = 1;
  o->whole_groups = true;
  gl_str_addf(&o->decls, "shared highp vec4 ESH[%d];\nshared highp vec4 DSH[%d];\n", t.win * t.cs, t.rows * csp);
  /* never inlined into a consumer, so it may declare (shaders/irb_*.glsl read these) */
  gl_str *dc = &o->decls;
  gl_str_addf(dc,
              "#define IR_WBL %d\n#define IR_TH %d\n#define IR_TW %d\n#define IR_WW %d\n#define IR_WIN %d\n"
              "#define IR_TP %d\n#define IR_ROWS %d\n#define IR_CS %d\n#define IR_CSP %d\n#define IR_ES %d\n"
              "#define IR_NPB %d\n#define IR_WG %d\n#define IR_TX %d\n#define IR_WB %d\n#define IR_PXB %d\n"
              "#define IR_ITEMS %d\n",
              (t.win + tl->win_block - 1) / tl->win_block, t.th, t.tw, t.ww, t.win, t.tp, t.rows, t.cs, csp, es, t.npb,
              wg, tx, tl->win_block, t.pxb, t.items);
  gl_str_addf(dc,
              "#define IR_KH %d\n#define IR_KW %d\n#define IR_SH %d\n#define IR_SW %d\n#define IR_PT %d\n"
              "#define IR_PL %d\n#define IR_DH %d\n#define IR_DW %d\n",
              kh, kw, dp->stride_h, dp->stride_w, pt, pl, dp->dilation_h, dp->dilation_w);
  gl_unroll_list(dc, "IR_EACH_ITEM", t.items, false);
  gl_unroll_list(dc, "IR_EACH_WIN", tl->win_block, false);
  gl_unroll_list(dc, "IR_EACH_PX", t.pxb, true);
  gl_act_macro(ex->p.conv.act, "IR_EACT", dc);
  gl_act_macro(dp->act, "IR_DACT", dc);
  gl_act_macro(in->n->p.conv.act, "IR_ACT", dc);
  gl_str *m = &o->main;
  gl_str_addf(m, "%s", irb_setup); /* shaders/irb_setup.glsl */
  for (int c = 0; c < t.nch; c++) { /* written out: no barrier() inside a loop */
    int c0 = c * t.cs, n = es - c0 < t.cs ? es - c0 : t.cs;
    gl_str_addf(m, "#define IR_C0 %d\n#define IR_N %d\n%s#undef IR_C0\n#undef IR_N\n", c0, n, irb_chunk);
  }
  gl_str_addf(m, "%s", irb_store); /* shaders/irb_store.glsl */
  return TFL_OK;
}
