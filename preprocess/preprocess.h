/* preprocess.h - frame pixels to a model input tensor in one pass: color conversion,
 * crop/letterbox/rotated region, bilinear resize (half-pixel centers) and normalization, with no
 * intermediate frame copy. Plain C, no GStreamer: the element maps the frame and
 * passes plane pointers. The GL delegate's texture-input shader does the same math. */
#ifndef TFL_PREPROCESS_H
#define TFL_PREPROCESS_H

#include <stdbool.h>
#include <stdint.h>

#include "policy/tfl_model_kind.h"
#include "policy/tfl_transform.h"
#include "runtime/tfl_graph.h"

typedef enum {
  PIX_RGBA, PIX_RGBX, PIX_BGRX, PIX_BGRA, PIX_RGB, PIX_I420, PIX_NV12,
  PIX_BGR,
  PIX_NV21,  /* NV12 with V before U */
  PIX_YUY2,  /* packed 4:2:2: Y0 U Y1 V */
  PIX_UYVY,  /* packed 4:2:2: U Y0 V Y1 */
  PIX_GRAY8, /* luma only: R = G = B */
} pix_format;

/* How a YUV (or GRAY8) frame's values map to RGB: the matrix's luma weights of red and
 * blue (BT.601 0.299/0.114, BT.709 0.2126/0.0722; both 0 means BT.601) and the range
 * (limited: Y 16..235, U/V 16..240; full: 0..255). Ignored for RGB formats. */
typedef struct {
  float kr, kb;
  bool full_range;
} pix_yuv;

/* The YUV -> RGB (0..255) coefficients of c: {ys, y0, rv, gu, gv, bu} with
 * R = ys (Y - y0) + rv (V - 128), G = ys (Y - y0) - gu (U - 128) - gv (V - 128),
 * B = ys (Y - y0) + bu (U - 128), each clamped to 0..255; GRAY8 is ys (Y - y0). The GL
 * texture-input shader takes the same six numbers. */
void preprocess_yuv_coefficients(const pix_yuv *c, float k[6]);

typedef struct {
  pix_format format;
  int width, height;
  const uint8_t *plane[3]; /* I420: Y, U, V (YV12 is I420 with the U and V planes passed so) */
  int stride[3];
  pix_yuv yuv;
} pix_frame;

typedef enum {
  FIT_STRETCH,    /* the whole frame, aspect ratio not kept */
  FIT_LETTERBOX,  /* the whole frame, aspect kept, black bars */
  FIT_CROP,       /* the centre, aspect kept, edges cut */
  FIT_LETTERBOX_GREY, /* the whole frame, aspect kept, centred, grey bars (pixel 114):
                         Ultralytics' letterbox, what YOLO models are trained and run on */
  FIT_AUTO,       /* the model family's fit (preprocess_model_fit), else stretch */
} fit_mode;

/* input = (pixel - mean) / std per channel, pixel in 0..255 (RGB order). */
typedef struct {
  float mean[3], std[3];
  float pad;      /* the pixel value (0..255, every channel) of input pixels outside the
                     frame, e.g. letterbox bars: 0, or preprocess_fit_pad's */
} pix_norm;

/* The fit a model family was trained with (tfl_family.h: Ultralytics YOLO -> its grey
 * letterbox, its classifiers -> crop), FIT_STRETCH when the family says nothing. Never
 * FIT_AUTO. */
fit_mode preprocess_model_fit(const tfl_graph *g, tfl_decoder_kind kind);
/* The bars' pixel value of a fit: 114 for FIT_LETTERBOX_GREY, else 0. */
float preprocess_fit_pad(fit_mode fit);

/* The normalization a model expects when nothing overrides it: its metadata's
 * mean/std (per channel, the last one repeated), else the input range its family was
 * trained with (tfl_family_input_range: lo..hi as mean = -lo * std, std = 255/(hi-lo)).
 * *from_metadata (may be NULL) says which. tflitefilter and the evaluation tools both
 * start from this, then apply their own overrides. */
pix_norm preprocess_model_norm(const tfl_graph *g, tfl_decoder_kind kind, bool *from_metadata);

/* Where the model input lies in the frame, for mapping results back (FIT_AUTO: as
 * FIT_STRETCH; resolve it with preprocess_model_fit first). */
tfl_transform preprocess_transform(int frame_w, int frame_h, int in_w, int in_h, fit_mode fit);

/* Writes the NHWC input tensor `t` (float32: normalized; uint8: the pixel value;
 * int8: the pixel value - 128). Input pixel centre (u+0.5, v+0.5) samples the frame at
 * tr's affine image of it, bilinearly with half-pixel centres; outside the frame the
 * pixel is norm->pad (letterbox bars, the part of a rotated region beyond the frame edge).
 * t must be [1, H, W, 3] (or 4 channels: the 4th gets 255 normalized).
 * Returns 0, or -1 when the tensor type/shape cannot take an image. */
int preprocess_frame(const pix_frame *f, const tfl_transform *tr, const pix_norm *norm,
                     tfl_tensor *t);

#endif
