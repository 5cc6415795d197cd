/* ov_glyphs.c - see ov_glyphs.h */
#include "ov_glyphs.h"

static void place(const OvScene *scene, OvFont *font, GArray *out)
{
  g_array_set_size(out, 0);
  for (guint i = 0; i < scene->texts->len; i++) {
    const OvText *t = &g_array_index(scene->texts, OvText, i);
    if (!g_utf8_validate(t->text, -1, NULL)) continue;
    gdouble pen = t->x;
    for (const gchar *p = t->text; *p; p = g_utf8_next_char(p)) {
      OvGlyph g = ov_font_glyph(font, g_utf8_get_char(p));
      if (g.w > 0 && g.h > 0) {
        /* whole pixels: the bitmap is copied, never resampled */
        OvPlacedGlyph pg = { (gint)(pen + 0.5) + g.ox, (gint)t->y + g.oy, g.x, g.y, g.w, g.h,
                             { t->rgba[0], t->rgba[1], t->rgba[2], t->rgba[3] } };
        g_array_append_val(out, pg);
      }
      pen += g.advance;
    }
  }
}

void ov_glyphs_place(const OvScene *scene, OvFont *font, GArray *out)
{
  guint resets = font->resets;
  place(scene, font, out);
  if (font->resets != resets) place(scene, font, out); /* the atlas was emptied midway */
}
