/* ov_font.c - see ov_font.h */
#include "ov_font.h"

#include <string.h>

#define OV_DEFAULT_FONT "Sans Bold 12"
#define OV_GLYPH_PAD 1 /* empty texels around each glyph so neighbours never bleed */

static PangoLayout *layout_for(OvFont *font, const gchar *text, gint len)
{
  PangoLayout *layout = pango_layout_new(font->context);
  pango_layout_set_font_description(layout, font->desc);
  pango_layout_set_text(layout, text, len);
  return layout;
}

OvFont *ov_font_new(const gchar *description)
{
  static gint serials;
  OvFont *font = g_new0(OvFont, 1);
  font->serial = (guint)g_atomic_int_add(&serials, 1);
  font->fontmap = pango_cairo_font_map_new();
  font->context = pango_font_map_create_context(font->fontmap);
  /* gray antialiasing: subpixel (RGB-ordered) coverage would depend on the frame's byte
   * order, and the atlas has one channel; no hinting of metrics keeps widths scale-free */
  cairo_font_options_t *fo = cairo_font_options_create();
  cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
  cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
  pango_cairo_context_set_font_options(font->context, fo);
  cairo_font_options_destroy(fo);
  font->desc = pango_font_description_from_string(description && *description ? description
                                                                               : OV_DEFAULT_FONT);
  if (pango_font_description_get_size(font->desc) <= 0)
    pango_font_description_set_size(font->desc, 12 * PANGO_SCALE);
  PangoLayout *layout = layout_for(font, "Ag", -1);
  PangoRectangle logical;
  pango_layout_get_pixel_extents(layout, NULL, &logical);
  font->line_height = MAX(logical.height, 1);
  g_object_unref(layout);
  font->glyphs = g_hash_table_new(g_direct_hash, g_direct_equal);
  font->glyph_list = g_array_new(FALSE, TRUE, sizeof(OvGlyph));
  font->atlas = g_malloc0(OV_ATLAS_SIZE * OV_ATLAS_SIZE);
  return font;
}

void ov_font_free(OvFont *font)
{
  if (!font) return;
  g_hash_table_unref(font->glyphs);
  g_array_unref(font->glyph_list);
  g_free(font->atlas);
  pango_font_description_free(font->desc);
  g_object_unref(font->context);
  g_object_unref(font->fontmap);
  g_free(font);
}

static void atlas_reset(OvFont *font)
{
  g_hash_table_remove_all(font->glyphs);
  g_array_set_size(font->glyph_list, 0);
  memset(font->atlas, 0, OV_ATLAS_SIZE * OV_ATLAS_SIZE);
  font->shelf_x = font->shelf_y = font->shelf_h = 0;
  font->resets++;
  font->generation++;
}

/* Finds room for a w x h bitmap on the shelves; FALSE when the atlas is full. */
static gboolean atlas_place(OvFont *font, gint w, gint h, gint *x, gint *y)
{
  if (w > OV_ATLAS_SIZE || h > OV_ATLAS_SIZE) return FALSE;
  if (font->shelf_x + w > OV_ATLAS_SIZE) { /* next shelf */
    font->shelf_y += font->shelf_h;
    font->shelf_x = 0;
    font->shelf_h = 0;
  }
  if (font->shelf_y + h > OV_ATLAS_SIZE) return FALSE;
  *x = font->shelf_x;
  *y = font->shelf_y;
  font->shelf_x += w;
  font->shelf_h = MAX(font->shelf_h, h);
  return TRUE;
}

/* Renders c with pango into a scratch A8 surface and copies it into the atlas. */
static OvGlyph render_glyph(OvFont *font, gunichar c)
{
  gchar utf8[8];
  gint len = g_unichar_to_utf8(c, utf8);
  PangoLayout *layout = layout_for(font, utf8, len);
  PangoRectangle ink, logical;
  pango_layout_get_pixel_extents(layout, &ink, NULL);
  pango_layout_get_extents(layout, NULL, &logical); /* pango units: fractional advance */
  OvGlyph g = { 0 };
  g.advance = (gdouble)logical.width / PANGO_SCALE;
  if (ink.width <= 0 || ink.height <= 0) goto out; /* a space: advance only */

  gint w = ink.width + 2 * OV_GLYPH_PAD, h = ink.height + 2 * OV_GLYPH_PAD;
  cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_A8, w, h);
  cairo_t *cr = cairo_create(s);
  cairo_move_to(cr, -ink.x + OV_GLYPH_PAD, -ink.y + OV_GLYPH_PAD);
  pango_cairo_show_layout(cr, layout);
  cairo_destroy(cr);
  cairo_surface_flush(s);

  gint x, y;
  if (!atlas_place(font, w, h, &x, &y)) {
    atlas_reset(font);
    if (!atlas_place(font, w, h, &x, &y)) { /* larger than the atlas: draw nothing */
      cairo_surface_destroy(s);
      goto out;
    }
  }
  const guint8 *src = cairo_image_surface_get_data(s);
  gint stride = cairo_image_surface_get_stride(s);
  for (gint r = 0; r < h; r++) memcpy(font->atlas + (gsize)(y + r) * OV_ATLAS_SIZE + x, src + (gsize)r * stride, w);
  cairo_surface_destroy(s);
  g.x = x;
  g.y = y;
  g.w = w;
  g.h = h;
  g.ox = ink.x - OV_GLYPH_PAD;
  g.oy = ink.y - OV_GLYPH_PAD;
  font->generation++;
out:
  g_object_unref(layout);
  return g;
}

OvGlyph ov_font_glyph(OvFont *font, gunichar c)
{
  guint idx = GPOINTER_TO_UINT(g_hash_table_lookup(font->glyphs, GUINT_TO_POINTER(c)));
  if (idx) return g_array_index(font->glyph_list, OvGlyph, idx - 1);
  OvGlyph g = render_glyph(font, c);
  g_array_append_val(font->glyph_list, g);
  g_hash_table_insert(font->glyphs, GUINT_TO_POINTER(c), GUINT_TO_POINTER(font->glyph_list->len));
  return g;
}

gdouble ov_font_text_width(OvFont *font, const gchar *text)
{
  gdouble w = 0;
  if (!text || !g_utf8_validate(text, -1, NULL)) return 0;
  for (const gchar *p = text; *p; p = g_utf8_next_char(p)) w += ov_font_glyph(font, g_utf8_get_char(p)).advance;
  return w;
}
