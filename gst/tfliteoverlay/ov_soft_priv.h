/* ov_soft_priv.h - what the software renderer's files share (not for the element). */
#ifndef OV_SOFT_PRIV_H
#define OV_SOFT_PRIV_H

#include "ov_glyphs.h"
#include "ov_soft.h"

G_BEGIN_DECLS

/* One plane of the frame, drawn on by itself; I420's V plane is the twin of its U plane
 * (same geometry), drawn with the same weights in the same pass. */
typedef struct {
  guint8 *data;
  gint stride, width, height;  /* bytes; plane pixels */
  gint ch;                     /* bytes a pixel: 1 (Y, U, V), 2 (UV), 3 (RGB, BGR), 4 (RGBA-family) */
  gint scale;                  /* frame pixels per plane pixel, each way: 1 or 2 */
  gint index;                  /* this plane's bytes in an OvPlaneColor */
  guint8 *twin;                /* or NULL; its bytes in an OvPlaneColor are index + 1 */
  gint twin_stride;
} OvPlane;

/* A scene colour as each plane writes it (packed: in the frame's byte order). */
typedef struct {
  guint8 c[3][4];
} OvPlaneColor;

struct _OvSoft {
  OvIsa isa;
  const OvKernels *k;
  const OvKernels *k_c;         /* the portable kernels, for 3-byte pixels */
  gint cap;                    /* scratch rows hold this many pixels */
  guint16 *w;                  /* a row of blend weights */
  guint8 *colors, *colors2;    /* a row of colours, 4 bytes a pixel (colors2: the twin's) */
  gint32 *i0, *i1;             /* mask columns: nearest texel, or the two bilinear ones */
  gfloat *t;                   /* bilinear weight of i1 */
  gfloat *h[2];                /* probability rows interpolated across */
  gint hj[2];                  /* mask row each h holds, -1: none */
  OvPlaneColor palette[256];   /* the mask's class colours */
  guint16 palette_w[256];      /* their weights (0: class not drawn) */
  guint8 pattern_color[2][256][64]; /* a class's plane (and twin) colour over 16 pixels */
  guint16 pattern_w[256][16];  /* its weight, 16 times */
  gint32 *run_x;               /* class masks: first pixel of each run of one mask column */
  GArray *glyphs;              /* OvPlacedGlyph scratch */
  guint16 *glyph_w;            /* one glyph's weights, a block of glyph_cap (+ spare) */
  gsize glyph_cap;
  GArray *shape_colors;        /* OvPlaneColor of each shape, then of each glyph */
};

/* The scene's mask on one plane (palette and palette_w already converted). */
void ov_soft_mask(OvSoft *soft, const OvMask *mask, const OvPlane *plane);
/* One shape on one plane. */
void ov_soft_shape(OvSoft *soft, const OvShape *shape, const OvPlane *plane, const OvPlaneColor *color);
/* One glyph bitmap of atlas (OV_ATLAS_SIZE wide) on one plane. */
void ov_soft_glyph(OvSoft *soft, const OvPlacedGlyph *glyph, const guint8 *atlas,
                   const OvPlane *plane, const OvPlaneColor *color);

/* The kernels that take pl's pixel size. */
const OvKernels *ov_plane_kernels(const OvSoft *soft, const OvPlane *plane);

/* rows rows of the plane (and its twin) from (xa, y), n pixels wide, blended with one
 * colour by weights w (row r: w + r * w_stride). */
void ov_plane_blend_const(OvSoft *soft, const OvPlane *plane, gint y, gint rows, gint xa, gint n,
                          const OvPlaneColor *color, const guint16 *w, gint w_stride);

#define OV_ROW_SPARE 16 /* pixels past the end of scratch rows: kernels may write one vector there */

/* Q15 weight of an 8-bit alpha */
static inline guint16 ov_weight_of_alpha(guint a)
{
  return (guint16)((a * OV_WEIGHT_ONE + 127) / 255);
}

G_END_DECLS

#endif
