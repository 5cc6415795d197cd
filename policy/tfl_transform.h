/* tfl_transform.h - where a model's input lies in a frame: the one mapping preprocessing
 * fills the input through and decoders map results back through. Plain C. */
#ifndef TFL_TRANSFORM_H
#define TFL_TRANSFORM_H

#include <stdbool.h>

/* Maps model-input coordinates back to the frame: a 2x3 affine, so a region may be
 * cropped, letterboxed, scaled and rotated (MediaPipe's landmark models run on rotated
 * regions). Model-input pixel (u, v) is frame pixel
 *   x = u * scale_x + v * shear_x + off_x
 *   y = u * shear_y + v * scale_y + off_y
 * Without rotation the shears are 0 (a plain crop/letterbox: scale + offset); a region
 * rotated by angle a (clockwise on screen) and scaled by s puts s*cos(a) into the scales
 * and -s*sin(a), s*sin(a) into the shears (tfl_region.h builds those). Pixel centres are
 * at +0.5 in both spaces. */
typedef struct {
  int in_w, in_h;           /* model input size */
  float frame_w, frame_h;   /* frame size in pixels */
  float scale_x, scale_y, off_x, off_y;
  float shear_x, shear_y;   /* last so {in_w, in_h, fw, fh, sx, sy, ox, oy} still reads */
} tfl_transform;

/* Model-input point (u, v) -> frame point (*x, *y). */
void tfl_transform_point(const tfl_transform *tr, float u, float v, float *x, float *y);
/* The axis-aligned frame box (x, y, w, h) holding the model-input rectangle
 * [u0, u1] x [v0, v1] (its four mapped corners), not clamped. */
void tfl_transform_bounds(const tfl_transform *tr, float u0, float v0, float u1, float v1, float box[4]);
/* Frame point -> model-input point; false when the transform is singular. */
bool tfl_transform_invert_point(const tfl_transform *tr, float x, float y, float *u, float *v);

#endif
