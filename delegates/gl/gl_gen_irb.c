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
 * (16 KiB: ESH window x CS, DSH tile x (CS + 1)) sets CS. */
#include <stdio.h>

#include "gl_gen.h"

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
  gl_str *m = &o->main;
  gl_str_addf(m,
              "  const int WBL = %d;\n"
              "  const int TH = %d, TW = %d, WW = %d, WIN = %d, TP = %d, ROWS = %d, CS = %d, CSP = %d, ES = %d, "
              "NPB = %d, WG = %d;\n"
              "  int lane = gid.x %% WG, tile = gid.x / WG, b = gid.z;\n"
              "  int oy0 = (tile / %d) * TH, ox0 = (tile %% %d) * TW;\n"
              "  int iy0 = oy0 * %d - %d, ix0 = ox0 * %d - %d;\n"
              "  int z = min(gid.y, 0), nis = I0_S + z, nkh = %d + z, nkw = %d + z;\n",
              (t.win + tl->win_block - 1) / tl->win_block, t.th, t.tw, t.ww, t.win, t.tp, t.rows, t.cs, csp, es, t.npb, wg, tx, tx, dp->stride_h, pt, dp->stride_w, pl, kh, kw);
  /* projection item k of this lane: block pbk, output slice osk (clamped for lanes
   * without one, which compute and store nothing) */
  for (int k = 0; k < t.items; k++) {
    gl_str_addf(m,
                "  int pb%d = (lane + %d) %% NPB, os%d = min((lane + %d) / NPB, O_S - 1), wb%d = os%d * ES * 4;\n"
                "  bool pj%d = lane + %d < NPB * O_S;\n",
                k, k * wg, k, k * wg, k, k, k, k * wg);
    for (int j = 0; j < t.pxb; j++) gl_str_addf(m, "  ACC4 a%d_%d = vec4(0.0);\n", k, j);
  }
  for (int c = 0; c < t.nch; c++) {
    int c0 = c * t.cs, n = es - c0 < t.cs ? es - c0 : t.cs;
    gl_str_addf(m,
                "  for (int it = lane; it < WBL * CS; it += WG) {\n"
                "    int q0 = (it / CS) * %d, j = it %% CS, s = min(%d + j, ES - 1);\n",
                tl->win_block, c0);
    /* window pixels q0 + k: clamped into the input, masked after the sums */
    for (int k = 0; k < tl->win_block; k++)
      gl_str_addf(m,
                  "    int y%d = iy0 + (q0 + %d) / WW, x%d = ix0 + (q0 + %d) %% WW;\n"
                  "    bool in%d = q0 + %d < WIN && y%d >= 0 && y%d < I0_H && x%d >= 0 && x%d < I0_W;\n"
                  "    y%d = clamp(y%d, 0, I0_H - 1); x%d = clamp(x%d, 0, I0_W - 1);\n"
                  "    ACC4 e%d = vec4(0.0);\n",
                  k, k, k, k, k, k, k, k, k, k, k, k, k, k, k);
    gl_str_addf(m,
                "    for (int i = 0; i < nis; i++) {\n"
                "      int wi = (s * I0_S + i) * 4;\n"
                "      FLT4 w0 = EW_LD(wi), w1 = EW_LD(wi + 1), w2 = EW_LD(wi + 2), w3 = EW_LD(wi + 3);\n");
    for (int k = 0; k < tl->win_block; k++)
      gl_str_addf(m, "      { FLT4 v = I0_LD(b, y%d, x%d, i); e%d += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3; }\n", k, k,
                  k);
    gl_str_addf(m, "    }\n");
    for (int k = 0; k < tl->win_block; k++) {
      char v[16];
      snprintf(v, sizeof v, "e%d", k);
      gl_str_addf(m, "    e%d = e%d * EW_SC(s) + EB_LD(s);\n", k, k);
      gl_act_stmt(ex->p.conv.act, v, m);
      gl_str_addf(m,
                  "    if (q0 + %d < WIN) ESH[(q0 + %d) * CS + j] = in%d && %d + j < ES ? e%d : vec4(0.0);\n", k, k, k,
                  c0, k);
    }
    gl_str_addf(m,
                "  }\n"
                "  memoryBarrierShared();\n  barrier();\n"
                "  for (int it = lane; it < ROWS * CS; it += WG) {\n"
                "    int q = it / CS, j = it %% CS, s = %d + j, ty = q / TW, tx = q %% TW;\n"
                "    ACC4 acc = vec4(0.0);\n"
                "    if (q < TP && s < ES && oy0 + ty < O_H && ox0 + tx < O_W) {\n"
                "      for (int ky = 0; ky < nkh; ky++)\n"
                "        for (int kx = 0; kx < nkw; kx++)\n"
                "          acc += ESH[((ty * %d + ky * %d) * WW + tx * %d + kx * %d) * CS + j] * DW_LD((s * %d + ky) * %d + kx);\n"
                "      acc = acc * DW_SC(s) + DB_LD(s);\n",
                c0, dp->stride_h, dp->dilation_h, dp->stride_w, dp->dilation_w, kh, kw);
    gl_act_stmt(dp->act, "acc", m);
    gl_str_addf(m,
                "    }\n"
                "    DSH[q * CSP + j] = acc;\n"
                "  }\n"
                "  memoryBarrierShared();\n  barrier();\n");
    for (int k = 0; k < t.items; k++) {
      gl_str_addf(m,
                  "  if (pj%d) {\n"
                  "    for (int i = 0; i < %d + z; i++) {\n"
                  "      int wi = wb%d + (%d + i) * 4, r = pb%d * %d * CSP + i;\n"
                  "      FLT4 w0 = W_LD(wi), w1 = W_LD(wi + 1), w2 = W_LD(wi + 2), w3 = W_LD(wi + 3);\n",
                  k, n, k, c0, k, t.pxb);
      for (int j = 0; j < t.pxb; j++)
        gl_str_addf(m, "      { vec4 v = DSH[r + %d * CSP]; a%d_%d += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3; }\n", j,
                    k, j);
      gl_str_addf(m, "    }\n  }\n");
    }
  }
  for (int k = 0; k < t.items; k++)
    for (int j = 0; j < t.pxb; j++) {
      gl_str_addf(m,
                  "  if (pj%d && pb%d * %d + %d < TP) {\n"
                  "    int q = pb%d * %d + %d, y = oy0 + q / TW, x = ox0 + q %% TW;\n"
                  "    if (y < O_H && x < O_W) {\n"
                  "      ACC4 acc = a%d_%d * W_SC(os%d) + BIAS_LD(os%d);\n",
                  k, k, t.pxb, j, k, t.pxb, j, k, j, k, k);
      gl_act_stmt(in->n->p.conv.act, "acc", m);
      gl_str_addf(m, "      store_out(b, y, x, os%d, acc);\n    }\n  }\n", k);
    }
  return TFL_OK;
}
