/* gl_tune.h - the GL delegate's tuning in one place: a constant table of the numbers
 * (workgroup sizes, tiles, thresholds for fusing, splitting and picking a kernel
 * variant) and the functions that turn it, the device as measured (gl_device.h) and the
 * delegate's switches (gl_tuning, gl_delegate.h) into choices. The planner and the
 * fusion passes call these; the generators never do: they get the choices as plain
 * values (gl_gen_tile, gl_gen.h) before they run. */
#ifndef GL_TUNE_H
#define GL_TUNE_H

#include <stdbool.h>

#include "gl_delegate.h"
#include "gl_gen.h"
#include "gl_layout.h"

typedef struct {
  /* workgroups of plain dispatches (gl_tune_workgroup) */
  int wg_cap[3];              /* per axis: x, y, and z (the GLES 3.1 minimum of
                                 GL_MAX_COMPUTE_WORK_GROUP_SIZE[2]) */
  int default_wg;             /* invocations without a measured preferred size */
  long default_fill;          /* invocations that fill the device without a measurement */
  /* convolutions (gl_tune_conv) */
  int conv_fill_div;          /* their tiles keep the device's fill / this many invocations */
  int conv_px_wide_w, conv_px_wide;  /* output width >= ..: pixels per tile */
  int conv_px_mid_w, conv_px_mid;
  int conv_sl_many_s, conv_sl_many_reduce, conv_sl_many; /* slices >= .. and taps >= ..:
                                 slices per tile */
  int conv_sl_some_s, conv_sl_some;
  int conv_tile_max;          /* pixels and slices per tile at most (also an inlined
                                 producer's slice group) */
  int conv_split_fill_div;    /* outputs <= the convolutions' fill / this many ... */
  int conv_split_min_reduce;  /* ... with at least this many vec4 taps: split the
                                 reduction over a workgroup */
  int conv_split_wg;          /* that workgroup */
  int conv_wide_min_pixels;   /* one-pixel tiles over at least this many pixels ... */
  int conv_wide_min_slices;   /* ... and output slices keep 32-bit weights */
  /* tiled fused kernels: depthwise + 1x1 (gl_gen_dwpw.c), inverted residual blocks
   * (gl_gen_irb.c) */
  int tile_fill_div;          /* lanes in flight: the device's fill / this many */
  int tile_wg_min, tile_wg_max; /* their workgroup, clamped from the device's */
  int tile_shared_vec4;       /* shared highp vec4s they use at most (16 KiB: what GLES
                                 3.1 guarantees; the depthwise + 1x1 kernel less where the
                                 device has less) */
  int proj_max_pxb;           /* pixels per block of the 1x1 part (both kernels) */
  int dwpw_max_slices;        /* depthwise slices one pixel may have to be fused */
  int irb_min_chunk;          /* expanded slices per chunk below which a tile shrinks */
  int irb_max_chunks;         /* chunks written out (bounds shader length, compile time) */
  int irb_max_side;           /* tile rows and columns searched */
  int irb_win_block;          /* window pixels per lane of the expansion */
  double irb_max_recompute;   /* expanded pixels computed per pixel of the expanded map */
  int irb_max_items;          /* projection items per lane (registers) */
  /* squeeze-and-excite in one workgroup (gl_gen_se.c) */
  int se_min_wg, se_max_wg;
  /* inlining producers into consumers (gl_fuse.c) */
  int fuse_max_recompute;     /* producer loads x consumer reads per element */
  int fuse_max_depth;         /* functions inside functions */
  /* reductions over a plane in one workgroup (gl_gen_pool.c) */
  int reduce_wg;
} gl_tune_table;

/* The table (static const; measured where docs/gl-performance.md says). */
const gl_tune_table *gl_tune_table_get(void);

/* The device's fill, the table's default where there is none (NULL or 0). */
long gl_tune_fill(const gl_device_tuning *dev);

/* The workgroup of a plain dispatch: `total` invocations at most (0: the table's
 * default), x first (consecutive x are consecutive addresses in PHWC4). */
void gl_tune_workgroup(const int grid[3], int total, int wg[3]);

/* The convolution tile (px output pixels along x times sl slices per invocation) for an
 * output shape and `reduce` vec4 taps per output; in_cost > 1: input 0 is computed by an
 * inlined producer. */
void gl_tune_conv(gl_shape out, int reduce, int in_cost, const gl_tuning *tune, const gl_device_tuning *dev, int *px,
                  int *sl);
/* true: split each output's reduction over a workgroup (few outputs, long reductions) */
bool gl_tune_conv_split(gl_shape out, int reduce, const gl_tuning *tune, const gl_device_tuning *dev);

/* The squeeze-excite workgroup for a pool over pool_slices and a hidden vector of
 * hidden_slices (0: one layer): a power of two as large as the device's invocations and
 * shared memory allow (tune->se_wg caps it); 0 when shared memory cannot hold it. */
int gl_tune_se_wg(int pool_slices, int hidden_slices, const gl_tuning *tune, const gl_device_tuning *dev);

/* Whether a depthwise output of `slices` slices may be fused with its 1x1 reader. */
bool gl_tune_dwpw_fits(int slices, const gl_device_tuning *dev);

/* Whether an inverted residual block (depthwise node dw_node, expanded map e, output y)
 * has a tile on the device: shared memory, lanes, halos not too costly. */
bool gl_tune_irb_fits(const tfl_graph *g, int dw_node, gl_shape e, gl_shape y, const gl_tuning *tune,
                      const gl_device_tuning *dev);

/* Fills in->tile, the choices the generator of in's dispatch reads (all other fields of
 * in set). Generators that find a zero there (nothing fits) report it. */
void gl_tune_dispatch(gl_gen_in *in, const gl_tuning *tune, const gl_device_tuning *dev);

#endif
