/* ov_soft_priv.h - what the software renderer's files share (not for the element). */
#ifndef OV_SOFT_PRIV_H
#define OV_SOFT_PRIV_H

#include "ov_glyphs.h"
#include "ov_soft.h"

G_BEGIN_DECLS

/* One plane of the frame, drawn on by itself. */
typedef struct {
  guint8 *data;
  gint stride, width, height;  /* bytes; plane pixels */
  gint ch;                     /* bytes a pixel: 1 (Y, U, V), 2 (UV), 4 (RGBA-family) */
  gint scale;                  /* frame pixels per plane pixel, each way: 1 or 2 */
  gint index;                  /* this plane's bytes in an OvPlaneColor */
} OvPlane;

/* A scene colour as each plane writes it (packed: in the frame's byte order). */
typedef struct {
  guint8 c[3][4];
} OvPlaneColor;

struct _OvSoft {
  OvIsa isa;
  const OvKernels *k;
  gint cap;                    /* scratch rows hold this many pixels */
  guint16 *w;                  /* a row of blend weights */
  guint8 *colors;              /* a row of colours, 4 bytes a pixel */
  gint32 *i0, *i1;             /* mask columns: nearest texel, or the two bilinear ones */
  gfloat *t;                   /* bilinear weight of i1 */
  gfloat *h[2];                /* probability rows interpolated across */
  gint hj[2];                  /* mask row each h holds, -1: none */
  OvPlaneColor palette[256];   /* the mask's class colours */
  guint16 palette_w[256];      /* their weights (0: class not drawn) */
  GArray *glyphs;              /* OvPlacedGlyph scratch */
  GArray *shape_colors;        /* OvPlaneColor of each shape, then of each glyph */
};

/* The scene's mask on one plane (palette and palette_w already converted). */
void ov_soft_mask(OvSoft *soft, const OvMask *mask, const OvPlane *plane);
/* One shape on one plane, in the plane's colour bytes. */
void ov_soft_shape(OvSoft *soft, const OvShape *shape, const OvPlane *plane, const guint8 color[4]);
/* One glyph bitmap of atlas (OV_ATLAS_SIZE wide) on one plane. */
void ov_soft_glyph(OvSoft *soft, const OvPlacedGlyph *glyph, const guint8 *atlas,
                   const OvPlane *plane, const guint8 color[4]);

/* Q15 weight of an 8-bit alpha */
static inline guint16 ov_weight_of_alpha(guint a)
{
  return (guint16)((a * OV_WEIGHT_ONE + 127) / 255);
}

G_END_DECLS

#endif
