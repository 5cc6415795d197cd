/* ov_glyphs.h - a scene's texts as glyphs placed on the frame: where each inked glyph's
 * atlas bitmap goes. The GL path draws one textured quad per placed glyph, the software
 * path blits the same bitmaps, so both put every glyph on the same pixels.
 * Streaming thread (or the GL thread while the streaming thread waits), like OvFont. */
#ifndef OV_GLYPHS_H
#define OV_GLYPHS_H

#include "ov_font.h"
#include "ov_scene.h"

G_BEGIN_DECLS

typedef struct {
  gint x, y;          /* frame pixel of the bitmap's top-left */
  gint ax, ay, w, h;  /* bitmap rectangle in font->atlas */
  guint8 rgba[4];     /* the text's colour */
} OvPlacedGlyph;

/* Fills out (an array of OvPlacedGlyph, emptied first) with the inked glyphs of every text
 * of scene, pen positions as ov_font measures them. The atlas rectangles are valid until
 * the font renders another glyph. */
void ov_glyphs_place(const OvScene *scene, OvFont *font, GArray *out);

G_END_DECLS

#endif
