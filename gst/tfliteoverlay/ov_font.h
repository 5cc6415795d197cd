/* ov_font.h - one font for tfliteoverlay: text metrics, and glyphs rendered once with
 * pango/cairo into an 8-bit coverage atlas that the GL path uploads as a texture.
 *
 * Both drawing paths measure text here, so labels are laid out identically; the cairo path
 * then draws the text with pango itself, the GL path draws one textured quad per glyph.
 * Not thread-safe: the element uses it from its streaming thread, and from the GL thread
 * only while the streaming thread waits on that GL call.
 */
#ifndef OV_FONT_H
#define OV_FONT_H

#include <glib.h>
#include <pango/pangocairo.h>

G_BEGIN_DECLS

#define OV_ATLAS_SIZE 512 /* atlas width and height, texels */

typedef struct {
  gint x, y, w, h;   /* bitmap rectangle in the atlas (w or h 0: nothing to draw) */
  gint ox, oy;       /* bitmap offset from the pen position at the top of the line */
  gdouble advance;   /* pen advance, pixels */
} OvGlyph;

typedef struct {
  PangoFontMap *fontmap;       /* owned: our own, so no thread's default map is shared */
  PangoContext *context;       /* owned */
  PangoFontDescription *desc;  /* owned */
  gint line_height;            /* pixels */
  GHashTable *glyphs;          /* gunichar -> index + 1 into glyph_list */
  GArray *glyph_list;          /* OvGlyph */
  guint8 *atlas;               /* OV_ATLAS_SIZE^2 coverage bytes, row-major */
  gint shelf_x, shelf_y, shelf_h;
  guint generation;            /* bumped whenever atlas bytes change (GL re-uploads) */
  guint resets;                /* bumped whenever the atlas is emptied */
  guint serial;                /* unique per font ever made: tells fonts at one address apart */
} OvFont;

/* A font from a pango description string ("Sans Bold 12"); NULL or "" gives the default. */
OvFont *ov_font_new(const gchar *description);
void ov_font_free(OvFont *font);

/* The glyph of c, rendered into the atlas on first use. A glyph that does not fit in a
 * full atlas empties the atlas first and bumps `resets` (glyphs fetched before are stale). */
OvGlyph ov_font_glyph(OvFont *font, gunichar c);

/* Width in pixels of a UTF-8 string drawn glyph by glyph. */
gdouble ov_font_text_width(OvFont *font, const gchar *text);

G_END_DECLS

#endif
