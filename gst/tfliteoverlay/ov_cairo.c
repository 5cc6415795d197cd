/* ov_cairo.c - see ov_cairo.h
 *
 * Cairo's ARGB32 is a native-endian 32-bit word: on little-endian machines its bytes are
 * B, G, R, A, i.e. GStreamer's BGRA (and RGB24 is BGRx). An RGBA or RGBx frame is the same
 * bytes with red and blue exchanged, and OVER compositing treats each channel alike, so we
 * draw on it directly with every source colour's red and blue exchanged. Text is
 * antialiased in gray (ov_font), never per subpixel, so that exchange stays exact. Where no
 * direct view exists (big-endian machines) we draw on a transparent scratch surface and
 * composite it onto the frame.
 */
#include "ov_cairo.h"

#include <math.h>
#include <string.h>

gboolean ov_cairo_supports(GstVideoFormat format)
{
  return format == GST_VIDEO_FORMAT_RGBA || format == GST_VIDEO_FORMAT_RGBx ||
         format == GST_VIDEO_FORMAT_BGRA || format == GST_VIDEO_FORMAT_BGRx;
}

/* ---- mask: the same sampling as the GL path's fragment shader ---- */

typedef struct {
  guint8 *pixels;
  gint stride, width, height;
  gint off[3];   /* byte offsets of R, G, B in a pixel */
} Frame;

static void blend_px(guint8 *px, const gint off[3], const guint8 rgb[3], gfloat a)
{
  for (gint c = 0; c < 3; c++) {
    gfloat v = px[off[c]] * (1 - a) + rgb[c] * a;
    px[off[c]] = (guint8)(v + 0.5f);
  }
}

static void draw_mask(const OvMask *m, Frame *f)
{
  if (m->kind == TFL_MASK_CLASSES ? !m->classes : !m->prob) return; /* GL texture only */
  gint *col = g_new(gint, f->width);
  gfloat *colt = g_new(gfloat, f->width);
  for (gint x = 0; x < f->width; x++) {
    gfloat u = (x + 0.5f - m->x) / m->w * m->width;
    col[x] = (u >= 0 && u < m->width) ? (gint)floorf(u) : -1;
    colt[x] = u - 0.5f;
  }
  for (gint y = 0; y < f->height; y++) {
    gfloat v = (y + 0.5f - m->y) / m->h * m->height;
    if (!(v >= 0 && v < m->height)) continue;
    guint8 *row = f->pixels + (gsize)y * f->stride;
    if (m->kind == TFL_MASK_CLASSES) {
      const guint8 *mrow = m->classes + (gsize)(gint)floorf(v) * m->width;
      for (gint x = 0; x < f->width; x++) {
        if (col[x] < 0) continue;
        const guint8 *c = m->colors[mrow[col[x]]];
        if (c[3]) blend_px(row + 4 * x, f->off, c, m->alpha);
      }
      continue;
    }
    /* probability: bilinear between texel centres, clamped at the edges */
    gfloat fv = v - 0.5f, v0f = floorf(fv), tv = fv - v0f;
    gint v0 = CLAMP((gint)v0f, 0, m->height - 1), v1 = CLAMP((gint)v0f + 1, 0, m->height - 1);
    const gfloat *r0 = m->prob + (gsize)v0 * m->width, *r1 = m->prob + (gsize)v1 * m->width;
    for (gint x = 0; x < f->width; x++) {
      if (col[x] < 0) continue;
      gfloat u0f = floorf(colt[x]), tu = colt[x] - u0f;
      gint u0 = CLAMP((gint)u0f, 0, m->width - 1), u1 = CLAMP((gint)u0f + 1, 0, m->width - 1);
      gfloat p = (r0[u0] * (1 - tu) + r0[u1] * tu) * (1 - tv) + (r1[u0] * (1 - tu) + r1[u1] * tu) * tv;
      if (!(p > 0)) continue; /* also NaN */
      blend_px(row + 4 * x, f->off, m->colors[1], m->alpha * MIN(p, 1.0f));
    }
  }
  g_free(col);
  g_free(colt);
}

/* ---- shapes and text ---- */

static void set_color(cairo_t *cr, const guint8 rgba[4], gboolean swap_rb)
{
  gdouble r = rgba[0] / 255.0, g = rgba[1] / 255.0, b = rgba[2] / 255.0;
  cairo_set_source_rgba(cr, swap_rb ? b : r, g, swap_rb ? r : b, rgba[3] / 255.0);
}

static void draw_shape(cairo_t *cr, const OvShape *s)
{
  if (s->kind == OV_SHAPE_DISK) {
    cairo_new_path(cr);
    cairo_arc(cr, s->x0, s->y0, s->half_width, 0, 2 * G_PI);
    cairo_fill(cr);
    return;
  }
  gdouble dx = s->x1 - s->x0, dy = s->y1 - s->y0, len = sqrt(dx * dx + dy * dy);
  if (len > 1e-6) {
    dx /= len;
    dy /= len;
  } else {
    dx = 1;
    dy = 0;
  }
  gdouble nx = -dy * s->half_width, ny = dx * s->half_width;
  gdouble ax = s->x0 - dx * s->cap, ay = s->y0 - dy * s->cap;
  gdouble bx = s->x1 + dx * s->cap, by = s->y1 + dy * s->cap;
  cairo_new_path(cr);
  cairo_move_to(cr, ax + nx, ay + ny);
  cairo_line_to(cr, bx + nx, by + ny);
  cairo_line_to(cr, bx - nx, by - ny);
  cairo_line_to(cr, ax - nx, ay - ny);
  cairo_close_path(cr);
  cairo_fill(cr);
}

static void draw_vectors(const OvScene *scene, cairo_surface_t *surface, OvFont *font,
                         gboolean swap_rb)
{
  cairo_t *cr = cairo_create(surface);
  for (guint i = 0; i < scene->shapes->len; i++) {
    const OvShape *s = &g_array_index(scene->shapes, OvShape, i);
    set_color(cr, s->rgba, swap_rb);
    draw_shape(cr, s);
  }
  PangoLayout *layout = pango_layout_new(font->context);
  pango_layout_set_font_description(layout, font->desc);
  for (guint i = 0; i < scene->texts->len; i++) {
    const OvText *t = &g_array_index(scene->texts, OvText, i);
    set_color(cr, t->rgba, swap_rb);
    pango_layout_set_text(layout, t->text, -1);
    cairo_move_to(cr, t->x, t->y);
    pango_cairo_show_layout(cr, layout);
  }
  g_object_unref(layout);
  cairo_destroy(cr);
  cairo_surface_flush(surface);
}

/* Composites a premultiplied ARGB32 scratch surface onto the frame. */
static void composite_scratch(cairo_surface_t *s, Frame *f)
{
  const guint8 *src = cairo_image_surface_get_data(s);
  gint sstride = cairo_image_surface_get_stride(s);
  for (gint y = 0; y < f->height; y++) {
    const guint32 *srow = (const guint32 *)(src + (gsize)y * sstride);
    guint8 *drow = f->pixels + (gsize)y * f->stride;
    for (gint x = 0; x < f->width; x++) {
      guint32 p = srow[x];
      guint a = p >> 24;
      if (!a) continue;
      guint rgb[3] = { (p >> 16) & 255, (p >> 8) & 255, p & 255 };
      for (gint c = 0; c < 3; c++) {
        guint8 *d = drow + 4 * x + f->off[c];
        *d = (guint8)(rgb[c] + (*d * (255 - a) + 127) / 255);
      }
    }
  }
}

void ov_cairo_draw(const OvScene *scene, GstVideoFrame *frame, OvFont *font)
{
  GstVideoFormat format = GST_VIDEO_FRAME_FORMAT(frame);
  const GstVideoFormatInfo *finfo = frame->info.finfo;
  Frame f = { GST_VIDEO_FRAME_PLANE_DATA(frame, 0), GST_VIDEO_FRAME_PLANE_STRIDE(frame, 0),
              GST_VIDEO_FRAME_WIDTH(frame), GST_VIDEO_FRAME_HEIGHT(frame),
              { GST_VIDEO_FORMAT_INFO_POFFSET(finfo, GST_VIDEO_COMP_R),
                GST_VIDEO_FORMAT_INFO_POFFSET(finfo, GST_VIDEO_COMP_G),
                GST_VIDEO_FORMAT_INFO_POFFSET(finfo, GST_VIDEO_COMP_B) } };
  if (!ov_cairo_supports(format)) return;
  if (scene->mask.on) draw_mask(&scene->mask, &f);
  if (!scene->shapes->len && !scene->texts->len) return;

  gboolean has_alpha = format == GST_VIDEO_FORMAT_RGBA || format == GST_VIDEO_FORMAT_BGRA;
  gboolean swap_rb = format == GST_VIDEO_FORMAT_RGBA || format == GST_VIDEO_FORMAT_RGBx;
  if (G_BYTE_ORDER == G_LITTLE_ENDIAN && f.stride % 4 == 0) {
    cairo_surface_t *s = cairo_image_surface_create_for_data(
      f.pixels, has_alpha ? CAIRO_FORMAT_ARGB32 : CAIRO_FORMAT_RGB24, f.width, f.height, f.stride);
    draw_vectors(scene, s, font, swap_rb);
    cairo_surface_destroy(s);
    return;
  }
  cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, f.width, f.height);
  draw_vectors(scene, s, font, FALSE);
  composite_scratch(s, &f);
  cairo_surface_destroy(s);
}
