/* crop_ref.h - the tests' own crop of a picture, written apart from the code it checks
 * (preprocess/preprocess.c and the GL texture-input shader): a region given by
 * three corners, walked edge by edge, each input pixel centre sampled bilinearly from the
 * picture (half-pixel centres, clamped to the edge, 0 outside the picture). */
#ifndef CROP_REF_H
#define CROP_REF_H

#include <stdint.h>

typedef struct {
  double x, y;
} crop_pt;

/* The region's top-left, top-right and bottom-left corners (in its own axes) in picture
 * pixels; out gets W*H*3 values 0..255 (RGB, row-major). `pic` has `channels` bytes per
 * pixel (3 or 4), rows of `stride` bytes. */
void crop_ref(const uint8_t *pic, int width, int height, int channels, int stride, crop_pt tl, crop_pt tr,
              crop_pt bl, int W, int H, double *out);

/* The corners of a rectangle of size w x h centred at (cx, cy) and turned clockwise on
 * screen by `angle` radians: its right edge points along (cos, sin), its down edge along
 * (-sin, cos). */
void crop_ref_corners(double cx, double cy, double w, double h, double angle, crop_pt *tl, crop_pt *tr,
                      crop_pt *bl);

#endif
