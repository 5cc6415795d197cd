/* gl_tune.c - the tuning table and the choices made from it (gl_tune.h). Every number
 * that trades speed on a device lives in `table`; where one was measured,
 * docs/gl-performance.md has the run. */
#include "gl_tune.h"

#include "gl_limits.h"

static const gl_tune_table table = {
    /* x 16, y 8 (consecutive x are consecutive addresses in PHWC4); z at most 64, the
     * GLES 3.1 minimum of GL_MAX_COMPUTE_WORK_GROUP_SIZE[2] (NVIDIA's) */
    .wg_cap = {16, 8, 64},
    .default_wg = 128,
    .default_fill = 16384,
    /* 1/16: on the H200 (fill 1M) keeping 65536 invocations was the best of 4096..1M
     * over seven models (Round 5); at the full fill deeplab's 33x33x256 layer split its
     * reduction and ran 20% slower */
    .conv_fill_div = 16,
    .conv_px_wide_w = 16, .conv_px_wide = 4,
    .conv_px_mid_w = 4, .conv_px_mid = 2,
    .conv_sl_many_s = 8, .conv_sl_many_reduce = 8, .conv_sl_many = 4,
    .conv_sl_some_s = 2, .conv_sl_some = 2,
    .conv_tile_max = 8,
    /* a workgroup per output pays off once each of its 64 lanes gets at least 2 taps */
    .conv_split_fill_div = 4,
    .conv_split_min_reduce = 128,
    .conv_split_wg = 64,
    /* H200, per layer (Round 5): deeplab's 33x33 layers of 64+ channels 10-35% faster
     * with 32-bit weights; maps of 10x10 and 19x19 or 6 output slices slower */
    .conv_wide_min_pixels = 1024,
    .conv_wide_min_slices = 16,
    /* each lane of the tiled kernels does a whole reduction, far more than the fill
     * kernel's chain: an eighth of the fill. H100 (fill 1M, workgroup 128): a map of
     * 1089 pixels gets tiles of 2, one of 22500 tiles of 22, the best of tiles 1..64
     * within 10% per layer; llvmpipe's small fill gives the largest tiles, fastest on
     * its few cores */
    .tile_fill_div = 8,
    .tile_wg_min = 32, .tile_wg_max = 128,
    .tile_shared_vec4 = 1024,
    .proj_max_pxb = 4,
    .dwpw_max_slices = 256, /* one pixel's depthwise output in shared memory: 4 KiB */
    .irb_min_chunk = 4,
    .irb_max_chunks = 12,   /* llvmpipe's compile time grows with the barriers */
    .irb_max_side = 32,
    .irb_win_block = 4,
    .irb_max_recompute = 2.0,
    .irb_max_items = 4,
    /* beyond 1024 the trees only grow: 64 K vec4 loads (selfie's largest pool) are 64
     * per lane at 1024 */
    .se_min_wg = 32, .se_max_wg = 1024,
    /* work ratios, not a GPU's numbers */
    .fuse_max_recompute = 40,
    .fuse_max_depth = 3,
    .reduce_wg = 128,
};

const gl_tune_table *gl_tune_table_get(void)
{
  return &table;
}

static int clampi(int v, int lo, int hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

long gl_tune_fill(const gl_device_tuning *dev)
{
  return dev && dev->fill > 0 ? dev->fill : table.default_fill;
}

void gl_tune_workgroup(const int grid[3], int total, int wg[3])
{
  int budget = total > 0 ? total : table.default_wg;
  for (int a = 0; a < 3; a++) {
    int w = 1;
    while (w * 2 <= table.wg_cap[a] && w * 2 <= budget && w < grid[a]) w *= 2;
    wg[a] = w;
    budget /= w;
  }
}

/* The invocations a convolution's tiles keep. The device's fill is measured with one
 * dependent chain per lane (gl_device.c); a tile's lane runs many independent ones, so
 * fewer lanes fill the device. */
static long conv_fill(const gl_tuning *tune, const gl_device_tuning *dev)
{
  if (tune->conv_fill > 0) return tune->conv_fill;
  long f = gl_tune_fill(dev) / table.conv_fill_div;
  return f > 1 ? f : 1;
}

void gl_tune_conv(gl_shape out, int reduce, int in_cost, const gl_tuning *tune, const gl_device_tuning *dev, int *px,
                  int *sl)
{
  /* Bigger tiles reuse loads more but leave fewer invocations: keep at least the
   * convolutions' share of the device's fill (conv_fill), below which it idles.
   * Short reductions gain little.
   * An input computed by an inlined producer (in_cost loads an element) is recomputed
   * once per slice group: then the tile covers all output slices (up to the maximum). */
  const gl_tune_table *t = &table;
  long fill = conv_fill(tune, dev);
  int p = out.w >= t->conv_px_wide_w ? t->conv_px_wide : out.w >= t->conv_px_mid_w ? t->conv_px_mid : 1;
  int s = in_cost > 1 ? (out.s < t->conv_tile_max ? out.s : t->conv_tile_max)
          : out.s >= t->conv_sl_many_s && reduce >= t->conv_sl_many_reduce ? t->conv_sl_many
          : out.s >= t->conv_sl_some_s                                      ? t->conv_sl_some
                                                                             : 1;
  for (;;) {
    long inv = (long)out.b * out.h * ((out.w + p - 1) / p) * ((out.s + s - 1) / s);
    if (inv >= fill || (p == 1 && (s == 1 || in_cost > 1))) break;
    if ((p >= s || in_cost > 1) && p > 1) p /= 2;
    else s /= 2;
  }
  if (tune->conv_tile_px > 0) p = tune->conv_tile_px;
  if (tune->conv_tile_slices > 0) s = tune->conv_tile_slices;
  *px = clampi(p, 1, t->conv_tile_max);
  *sl = clampi(s, 1, t->conv_tile_max);
}

bool gl_tune_conv_split(gl_shape out, int reduce, const gl_tuning *tune, const gl_device_tuning *dev)
{
  if (tune->conv_split != GL_SPLIT_AUTO) return tune->conv_split == GL_SPLIT_ALWAYS;
  /* outputs a fraction of the convolutions' fill leave most of the device idle */
  long fill = conv_fill(tune, dev);
  return (long)out.b * out.h * out.w * out.s <= fill / table.conv_split_fill_div &&
         reduce >= table.conv_split_min_reduce;
}

int gl_tune_se_wg(int pool_slices, int hidden_slices, const gl_tuning *tune, const gl_device_tuning *dev)
{
  int max_wg = dev && dev->max_wg > 0 ? dev->max_wg : gl_limits_gles31.wg_invocations;
  long shared = dev && dev->max_shared > 0 ? dev->max_shared : gl_limits_gles31.shared_bytes;
  long room = shared / 16 - pool_slices - hidden_slices; /* highp vec4s left for RED */
  int cap = tune && tune->se_wg > 0 && tune->se_wg < table.se_max_wg ? tune->se_wg : table.se_max_wg;
  int wg = 1;
  while (wg * 2 <= cap && wg * 2 <= max_wg && wg * 2 <= room) wg *= 2;
  return wg >= table.se_min_wg ? wg : 0;
}

/* The workgroup of the tiled fused kernels: the device's preferred size, clamped. */
static int tile_wg(const gl_device_tuning *dev)
{
  return clampi(dev && dev->wg > 0 ? dev->wg : table.default_wg, table.tile_wg_min, table.tile_wg_max);
}

bool gl_tune_dwpw_fits(int slices, const gl_device_tuning *dev)
{
  if (slices > table.dwpw_max_slices) return false;
  /* one pixel's depthwise output (+1 vec4 of padding) in the shared memory there is */
  return !(dev && dev->max_shared > 0 && (slices + 1) * 16 > dev->max_shared);
}

/* Depthwise + 1x1 (gl_gen_dwpw.c): is depthwise slices, hw output pixels, b batch. Tiles
 * of few pixels keep many workgroups in flight; large ones reuse each weight vec4 of
 * the 1x1 part over more pixels. */
static void tune_dwpw(int is, int hw, int b, const gl_tuning *tune, const gl_device_tuning *dev, gl_gen_tile *t)
{
  int isp = is + 1, wg = tile_wg(dev);
  /* the GLES 3.1 minimum, or less where the device (profile, test switch) has less */
  int budget = dev && dev->max_shared > 0 && dev->max_shared / 16 < table.tile_shared_vec4 ? dev->max_shared / 16
                                                                                          : table.tile_shared_vec4;
  t->wg = wg;
  int rows_max = budget / isp;
  if (rows_max < 1) return; /* tp 0: the generator reports it */
  long fill = gl_tune_fill(dev);
  long want = ((long)hw * b * wg * table.tile_fill_div + fill - 1) / fill;
  if (tune->dwpw_tile > 0) want = tune->dwpw_tile;
  if (want < rows_max) rows_max = (int)(want < 1 ? 1 : want);
  int pxb = rows_max < table.proj_max_pxb ? rows_max : table.proj_max_pxb;
  int npb = (rows_max + pxb - 1) / pxb, tp = rows_max;
  if (npb * pxb * isp > budget) npb = rows_max / pxb, tp = npb * pxb;
  if (tp > hw) {
    tp = hw;
    npb = (tp + pxb - 1) / pxb;
  }
  t->tp = tp, t->pxb = pxb, t->npb = npb;
}

/* An inverted residual block's tile geometry and what it costs in shared memory and
 * lanes (gl_gen_irb.c has the phases). */
typedef struct {
  int th, tw, win;         /* tile, its input window's pixels */
  int rows;                /* DSH rows: blocks of pixels */
  int cs, nch;             /* expanded slices per chunk, chunks */
  int items;               /* projection (block, output slice) items per lane */
} irb_tile;

static void irb_tile_fill(irb_tile *t, int th, int tw, int kh, int kw, int sh, int sw, int dh, int dw, int es, int os,
                          int wg)
{
  t->th = th, t->tw = tw;
  int wh = (th - 1) * sh + (kh - 1) * dh + 1, ww = (tw - 1) * sw + (kw - 1) * dw + 1;
  t->win = wh * ww;
  int tp = th * tw, pxb = tp < table.proj_max_pxb ? tp : table.proj_max_pxb, npb = (tp + pxb - 1) / pxb;
  t->rows = npb * pxb;
  /* ESH: win * cs, DSH: rows * (cs + 1) */
  int cs = (table.tile_shared_vec4 - t->rows) / (t->win + t->rows);
  t->cs = cs < es ? cs : es;
  t->nch = t->cs > 0 ? (es + t->cs - 1) / t->cs : 0;
  if (t->nch > 0) t->cs = (es + t->nch - 1) / t->nch; /* chunks of even size */
  t->items = (npb * os + wg - 1) / wg;
}

/* Whether a tile fits: shared memory for chunks of irb_min_chunk slices (or all), a
 * few projection sums per lane (registers), a bounded shader. */
static bool irb_tile_ok(const irb_tile *t, int es)
{
  int min_chunk = es < table.irb_min_chunk ? es : table.irb_min_chunk;
  return t->cs >= min_chunk && t->items <= table.irb_max_items && t->nch <= table.irb_max_chunks;
}

/* Among tiles of at most `want` pixels that fit, the one computing the fewest
 * expanded pixels per output pixel (window over tile, partial tiles at the map's edges
 * counted whole), then the one with the fewest chunks; false if none fits. */
static bool irb_pick(int oh, int ow, int kh, int kw, int sh, int sw, int dh, int dw, int es, int os, long want, int wg,
                     irb_tile *t, double *cost_out)
{
  double best = 0;
  bool found = false;
  for (int th = 1; th <= oh && th <= table.irb_max_side; th++)
    for (int tw = 1; tw <= ow && tw <= table.irb_max_side && (long)th * tw <= (want > 1 ? want : 1); tw++) {
      irb_tile c;
      irb_tile_fill(&c, th, tw, kh, kw, sh, sw, dh, dw, es, os, wg);
      if (!irb_tile_ok(&c, es)) continue;
      double cost = (double)c.win * ((oh + th - 1) / th) * ((ow + tw - 1) / tw) / ((double)oh * ow);
      if (!found || cost < best * 0.99 || (cost < best * 1.01 && c.nch < t->nch)) {
        *t = c;
        best = cost;
        found = true;
      }
    }
  *cost_out = best / (sh * sw); /* against the unfused expansion's own pixels */
  return found;
}

/* The tile for block (expansion's output e, depthwise node dw_node, output y): tiles of
 * an eighth of the device's fill in invocations (as the depthwise + 1x1 kernel), larger
 * where the expansion would otherwise be computed more than irb_max_recompute times over
 * (halos); false if no tile gets there. tune->irb_tile (the side) forces the tile,
 * halos whatever they cost. */
static bool irb_plan(const tfl_graph *g, int dw_node, gl_shape e, gl_shape y, const gl_tuning *tune,
                     const gl_device_tuning *dev, irb_tile *t)
{
  const tfl_node *n = &g->nodes[dw_node];
  const tfl_tensor *w = &g->tensors[n->in[1]];
  const tfl_conv_params *c = &n->p.conv;
  int wg = tile_wg(dev);
  long fill = gl_tune_fill(dev);
  long want = ((long)y.h * y.w * y.b * wg * table.tile_fill_div + fill - 1) / fill;
  if (tune->irb_tile > 0) want = (long)tune->irb_tile * tune->irb_tile;
  if (want < 1) want = 1;
  for (;; want *= 2) {
    double cost;
    bool ok = irb_pick(y.h, y.w, w->dims[1], w->dims[2], c->stride_h, c->stride_w, c->dilation_h, c->dilation_w, e.s,
                       y.s, want, wg, t, &cost);
    if (ok && (cost <= table.irb_max_recompute || tune->irb_tile > 0)) return true;
    if (want >= (long)y.h * y.w) return false;
  }
}

bool gl_tune_irb_fits(const tfl_graph *g, int dw_node, gl_shape e, gl_shape y, const gl_tuning *tune,
                      const gl_device_tuning *dev)
{
  irb_tile t;
  return irb_plan(g, dw_node, e, y, tune, dev, &t);
}

void gl_tune_dispatch(gl_gen_in *in, const gl_tuning *tune, const gl_device_tuning *dev)
{
  const tfl_graph *g = in->g;
  gl_gen_tile *t = &in->tile;
  *t = (gl_gen_tile){.split_wg = table.conv_split_wg, .win_block = table.irb_win_block, .reduce_wg = table.reduce_wg};
  if (in->n_chain) { /* squeeze-excite (gl_gen_se.c): the pooled map, the hidden vector */
    gl_shape h = {0};
    if (in->n_chain >= 2) gl_shape_of(&g->tensors[g->nodes[in->chain[1]].out[0]], &h);
    t->wg = gl_tune_se_wg(in->in[0].s, h.s, tune, dev);
    return;
  }
  if (in->expand >= 0) { /* inverted residual block (gl_gen_irb.c) */
    gl_shape e;
    gl_shape_of(&g->tensors[g->nodes[in->expand].out[0]], &e);
    irb_tile it;
    t->wg = tile_wg(dev);
    if (irb_plan(g, in->pre, e, in->out, tune, dev, &it))
      t->th = it.th, t->tw = it.tw, t->cs = it.cs, t->nch = it.nch, t->items = it.items, t->pxb = table.proj_max_pxb;
    return;
  }
  if (in->pre >= 0) { /* depthwise + 1x1 (gl_gen_dwpw.c): the depthwise output's shape */
    gl_shape d;
    gl_shape_of(&g->tensors[g->nodes[in->pre].out[0]], &d);
    tune_dwpw(d.s, d.h * d.w, in->out.b, tune, dev, t);
    return;
  }
  int kh = 1, kw = 1;
  if (in->n->op == TFL_OP_CONV_2D) {
    const tfl_tensor *w = &g->tensors[in->n->in[1]];
    kh = w->dims[1], kw = w->dims[2];
  } else if (in->n->op != TFL_OP_FULLY_CONNECTED) {
    return;
  }
  gl_shape out = in->out;
  int reduce = kh * kw * in->in[0].s;
  gl_tune_conv(out, reduce, in->in_cost[0], tune, dev, &t->conv_px, &t->conv_sl);
  t->conv_split = gl_tune_conv_split(out, reduce, tune, dev);
  t->conv_wide = t->conv_px == 1 && in->in_cost[0] <= 1 &&
                 (long)out.b * out.h * out.w >= table.conv_wide_min_pixels && out.s >= table.conv_wide_min_slices;
}
