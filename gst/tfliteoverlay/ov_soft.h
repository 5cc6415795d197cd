/* ov_soft.h - tfliteoverlay's system-memory path: draws a scene in place on a frame in
 * RGBA, BGRA, RGBx, BGRx, I420 or NV12, without converting the frame.
 *
 *   OvSoft *soft = ov_soft_new(ov_kernels_best());
 *   OvSoftFrame f;
 *   if (ov_soft_frame_from_video(&f, &mapped_frame)) ov_soft_draw(soft, &scene, font, &f);
 *   ov_soft_free(soft);
 *
 * What is drawn and how it is sampled is what the GL path's shaders do: the mask (class
 * colours nearest-neighbour, probabilities bilinear between texel centres, only inside the
 * mask's rectangle), then the shapes (antialiased by a one-pixel box filter), then the
 * glyphs of the texts, each blended over what is below. On YUV frames every colour is
 * converted to Y'CbCr once per scene (the frame's matrix and range) and each plane is drawn
 * at its own resolution: a chroma sample of I420/NV12 covers 2x2 frame pixels, so shapes are
 * drawn there at half scale, glyphs with their 2x2 coverage averaged, and the mask sampled
 * at the centre of the 2x2 block.
 *
 * Row kernels (ov_kernels.h) are picked per instruction set; every set gives the same bytes.
 * An OvSoft keeps scratch rows that grow with the widest frame seen: use one per thread
 * (the element's streaming thread).
 */
#ifndef OV_SOFT_H
#define OV_SOFT_H

#include <gst/video/video.h>

#include "ov_font.h"
#include "ov_kernels.h"
#include "ov_scene.h"

G_BEGIN_DECLS

typedef enum {
  OV_SOFT_PACKED, /* one plane, 4 bytes a pixel: R, G, B at rgb_offsets, byte 3 kept */
  OV_SOFT_I420,   /* Y plane, then U and V planes at half width and height (YV12 too) */
  OV_SOFT_NV12,   /* Y plane, then one UV plane (U first) at half width and height */
  OV_SOFT_PACKED3, /* one plane, 3 bytes a pixel (RGB, BGR): R, G, B at rgb_offsets */
  OV_SOFT_NV21,   /* NV12 with V first in the chroma plane */
  OV_SOFT_GRAY8,  /* luma only: colours drawn as their luma */
} OvSoftLayout;

typedef struct {
  OvSoftLayout layout;
  gint width, height;        /* frame pixels (the luma plane's size) */
  guint8 *planes[3];         /* borrowed, writable; PACKED(3) and GRAY8 use 1, NV12/NV21 2, I420 3 */
  gint strides[3];           /* bytes */
  gint rgb_offsets[3];       /* PACKED: byte of R, G and B in a pixel (0..2) */
  gdouble kr, kb;            /* YUV: luma weights of red and blue (BT.601 0.299, 0.114) */
  gboolean full_range;       /* YUV: 0..255 codes, else 16..235 (Y) and 16..240 (Cb, Cr) */
} OvSoftFrame;

typedef struct _OvSoft OvSoft;

/* A renderer using the kernels of isa; NULL when this CPU or build lacks isa. */
OvSoft *ov_soft_new(OvIsa isa);
void ov_soft_free(OvSoft *soft);
OvIsa ov_soft_isa(const OvSoft *soft);

/* Draws scene (built for frame->width x frame->height) on frame. The mask is skipped when
 * it has no CPU pixels (a GL texture only). */
void ov_soft_draw(OvSoft *soft, const OvScene *scene, OvFont *font, const OvSoftFrame *frame);

/* Whether ov_soft draws on this format. */
gboolean ov_soft_supports(GstVideoFormat format);

/* Describes a mapped frame (planes, strides, colorimetry); FALSE when its format is not
 * supported. The frame stays mapped while out is used. */
gboolean ov_soft_frame_from_video(OvSoftFrame *out, const GstVideoFrame *frame);

/* The Y'CbCr codes of an RGB colour on frame (a YUV layout), rounded and clamped. */
void ov_soft_rgb_to_yuv(const OvSoftFrame *frame, const guint8 rgb[3], guint8 yuv[3]);

G_END_DECLS

#endif
