/* ssd_anchors.h - SSD anchor boxes, normalized to the model input (0..1).
 *
 * One generator covers both TF Object Detection's multiple-grid anchors (SSD
 * MobileNet) and MediaPipe's SsdAnchorsCalculator: per layer a grid of
 * ceil(input / stride) cells, anchors centred at (cell + offset) / cells, one anchor
 * per aspect ratio at the layer's scale (plus one at the geometric mean of this and
 * the next layer's scale when interp_ratio > 0); consecutive layers with the same
 * stride share one grid. Anchor order: layer, row, column, anchor of the cell.
 *
 *   const ssd_anchor_options *o = ssd_anchor_preset(TFL_ANCHORS_FACE_SHORT);
 *   int n = ssd_anchor_count(o);  ssd_anchor a[n];  ssd_anchors_generate(o, a, n);
 */
#ifndef SSD_ANCHORS_H
#define SSD_ANCHORS_H

#include <stdbool.h>

#include "tfl_decoder.h"

#define SSD_MAX_LAYERS 8
#define SSD_MAX_RATIOS 8

typedef struct {
  float yc, xc, h, w;  /* centre and size, normalized */
} ssd_anchor;

typedef struct {
  int num_layers;
  float min_scale, max_scale;
  int in_w, in_h;                  /* input size the strides refer to */
  float offset_x, offset_y;        /* anchor centre within its cell (0.5: middle) */
  int strides[SSD_MAX_LAYERS];
  int n_ratios;
  float ratios[SSD_MAX_RATIOS];
  bool reduce_lowest;              /* layer 0: (0.1, 1), (scale, 2), (scale, 0.5) only */
  float interp_ratio;              /* > 0: extra anchor at sqrt(scale * next scale) */
  bool fixed_size;                 /* every anchor 1 x 1 (MediaPipe's face/pose/palm) */
} ssd_anchor_options;

/* The options of a preset; NULL for TFL_ANCHORS_AUTO. */
const ssd_anchor_options *ssd_anchor_preset(tfl_anchor_kind kind);

/* Anchors the options produce; -1 when the options are invalid. */
int ssd_anchor_count(const ssd_anchor_options *o);

/* Writes the anchors to out (room for max); returns how many were written (the
 * count), -1 when the options are invalid or max is too small. */
int ssd_anchors_generate(const ssd_anchor_options *o, ssd_anchor *out, int max);

#endif
