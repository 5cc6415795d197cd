/* ov_soft.c - see ov_soft.h: the frame's planes, colours per plane, the drawing order. */
#include "ov_soft_priv.h"

#include <math.h>


OvSoft *ov_soft_new(OvIsa isa)
{
  const OvKernels *k = ov_kernels_get(isa);
  if (!k) return NULL;
  OvSoft *s = g_new0(OvSoft, 1);
  s->isa = isa;
  s->k = k;
  s->glyphs = g_array_new(FALSE, FALSE, sizeof(OvPlacedGlyph));
  s->shape_colors = g_array_new(FALSE, FALSE, sizeof(OvPlaneColor));
  return s;
}

static void free_rows(OvSoft *s)
{
  g_free(s->w);
  g_free(s->colors);
  g_free(s->colors2);
  g_free(s->i0);
  g_free(s->i1);
  g_free(s->t);
  g_free(s->h[0]);
  g_free(s->h[1]);
  g_free(s->run_x);
}

void ov_soft_free(OvSoft *s)
{
  if (!s) return;
  free_rows(s);
  g_array_unref(s->glyphs);
  g_array_unref(s->shape_colors);
  g_free(s->glyph_w);
  g_free(s);
}

OvIsa ov_soft_isa(const OvSoft *s)
{
  return s->isa;
}

/* Scratch rows for planes up to width pixels; they only grow. */
static void ensure_rows(OvSoft *s, gint width)
{
  if (width <= s->cap) return;
  free_rows(s);
  gsize n = (gsize)width + OV_ROW_SPARE;
  s->w = g_new0(guint16, n);
  s->colors = g_new0(guint8, 4 * n);
  s->colors2 = g_new0(guint8, 4 * n);
  s->i0 = g_new0(gint32, n);
  s->i1 = g_new0(gint32, n);
  s->t = g_new0(gfloat, n);
  s->h[0] = g_new0(gfloat, n);
  s->h[1] = g_new0(gfloat, n);
  s->run_x = g_new0(gint32, n);
  s->cap = width;
}

/* ---- colours ---- */

static guint8 code(gdouble v)
{
  return (guint8)CLAMP(floor(v + 0.5), 0.0, 255.0);
}

void ov_soft_rgb_to_yuv(const OvSoftFrame *f, const guint8 rgb[3], guint8 yuv[3])
{
  gdouble kr = f->kr, kb = f->kb, kg = 1.0 - kr - kb;
  gdouble y = kr * rgb[0] + kg * rgb[1] + kb * rgb[2];      /* 0..255 */
  gdouble cb = (rgb[2] - y) / (2.0 * (1.0 - kb));           /* -127.5..127.5 */
  gdouble cr = (rgb[0] - y) / (2.0 * (1.0 - kr));
  if (f->full_range) {
    yuv[0] = code(y);
    yuv[1] = code(128.0 + cb);
    yuv[2] = code(128.0 + cr);
  } else {
    yuv[0] = code(16.0 + y * 219.0 / 255.0);
    yuv[1] = code(128.0 + cb * 224.0 / 255.0);
    yuv[2] = code(128.0 + cr * 224.0 / 255.0);
  }
}

/* rgb as each plane of f writes it */
static void plane_color(const OvSoftFrame *f, const guint8 rgb[3], OvPlaneColor *out)
{
  memset(out, 0, sizeof *out);
  if (f->layout == OV_SOFT_PACKED) {
    for (gint c = 0; c < 3; c++) out->c[0][f->rgb_offsets[c]] = rgb[c];
    return;
  }
  guint8 yuv[3];
  ov_soft_rgb_to_yuv(f, rgb, yuv);
  out->c[0][0] = yuv[0];
  if (f->layout == OV_SOFT_NV12) {
    out->c[1][0] = yuv[1];
    out->c[1][1] = yuv[2];
  } else {
    out->c[1][0] = yuv[1];
    out->c[2][0] = yuv[2];
  }
}

/* ---- planes ---- */

void ov_plane_blend_const(OvSoft *s, const OvPlane *pl, gint y, gint rows, gint xa, gint n,
                          const OvPlaneColor *color, const guint16 *w, gint w_stride)
{
  s->k->blend_const(pl->data + (gsize)y * pl->stride + (gsize)xa * pl->ch, pl->stride, rows,
                    color->c[pl->index], w, w_stride, n, pl->ch);
  if (pl->twin)
    s->k->blend_const(pl->twin + (gsize)y * pl->twin_stride + (gsize)xa * pl->ch, pl->twin_stride, rows,
                      color->c[pl->index + 1], w, w_stride, n, pl->ch);
}

static gint planes_of(const OvSoftFrame *f, OvPlane pl[3])
{
  gint cw = (f->width + 1) / 2, chh = (f->height + 1) / 2;
  switch (f->layout) {
  case OV_SOFT_PACKED:
    pl[0] = (OvPlane){ f->planes[0], f->strides[0], f->width, f->height, 4, 1, 0, NULL, 0 };
    return 1;
  case OV_SOFT_I420: /* V drawn with U's weights */
    pl[0] = (OvPlane){ f->planes[0], f->strides[0], f->width, f->height, 1, 1, 0, NULL, 0 };
    pl[1] = (OvPlane){ f->planes[1], f->strides[1], cw, chh, 1, 2, 1, f->planes[2], f->strides[2] };
    return 2;
  case OV_SOFT_NV12:
    pl[0] = (OvPlane){ f->planes[0], f->strides[0], f->width, f->height, 1, 1, 0, NULL, 0 };
    pl[1] = (OvPlane){ f->planes[1], f->strides[1], cw, chh, 2, 2, 1, NULL, 0 };
    return 2;
  }
  return 0;
}

/* The mask's colours in the frame's planes (a probability mask uses only class 1's). */
static void mask_palette(OvSoft *s, const OvSoftFrame *f, const OvMask *m)
{
  const gint first = m->kind == TFL_MASK_PROB ? 1 : 0, last = m->kind == TFL_MASK_PROB ? 1 : 255;
  for (gint c = first; c <= last; c++) {
    plane_color(f, m->colors[c], &s->palette[c]);
    s->palette_w[c] = m->colors[c][3] ? (guint16)(m->alpha * OV_WEIGHT_ONE + 0.5f) : 0;
  }
}

void ov_soft_draw(OvSoft *s, const OvScene *scene, OvFont *font, const OvSoftFrame *f)
{
  if (f->width <= 0 || f->height <= 0) return;
  OvPlane planes[3];
  gint n = planes_of(f, planes);
  ensure_rows(s, f->width);

  const OvMask *m = &scene->mask;
  if (scene->texts->len) ov_glyphs_place(scene, font, s->glyphs);
  else g_array_set_size(s->glyphs, 0);

  /* every colour converted once; glyph colours follow the shapes' */
  guint ns = scene->shapes->len, ng = s->glyphs->len;
  g_array_set_size(s->shape_colors, ns + ng);
  OvPlaneColor *pc = (OvPlaneColor *)(gpointer)s->shape_colors->data;
  for (guint i = 0; i < ns; i++) plane_color(f, g_array_index(scene->shapes, OvShape, i).rgba, &pc[i]);
  for (guint i = 0; i < ng; i++) plane_color(f, g_array_index(s->glyphs, OvPlacedGlyph, i).rgba, &pc[ns + i]);

  /* plane by plane: each plane's rows stay in cache while everything is drawn on them */
  for (gint p = 0; p < n; p++) {
    const OvPlane *pl = &planes[p];
    if (m->on) {
      mask_palette(s, f, m);
      ov_soft_mask(s, m, pl);
    }
    for (guint i = 0; i < scene->instances->len; i++) {
      const OvMask *im = &g_array_index(scene->instances, OvMask, i);
      mask_palette(s, f, im);
      ov_soft_mask(s, im, pl);
    }
    for (guint i = 0; i < ns; i++) ov_soft_shape(s, &g_array_index(scene->shapes, OvShape, i), pl, &pc[i]);
    for (guint i = 0; i < ng; i++)
      ov_soft_glyph(s, &g_array_index(s->glyphs, OvPlacedGlyph, i), font->atlas, pl, &pc[ns + i]);
  }
}

/* ---- frames ---- */

gboolean ov_soft_supports(GstVideoFormat format)
{
  switch (format) {
  case GST_VIDEO_FORMAT_RGBA:
  case GST_VIDEO_FORMAT_BGRA:
  case GST_VIDEO_FORMAT_RGBx:
  case GST_VIDEO_FORMAT_BGRx:
  case GST_VIDEO_FORMAT_I420:
  case GST_VIDEO_FORMAT_NV12:
    return TRUE;
  default:
    return FALSE;
  }
}

gboolean ov_soft_frame_from_video(OvSoftFrame *out, const GstVideoFrame *frame)
{
  GstVideoFormat format = GST_VIDEO_FRAME_FORMAT(frame);
  if (!ov_soft_supports(format)) return FALSE;
  memset(out, 0, sizeof *out);
  out->width = GST_VIDEO_FRAME_WIDTH(frame);
  out->height = GST_VIDEO_FRAME_HEIGHT(frame);
  const GstVideoFormatInfo *fi = frame->info.finfo;
  if (GST_VIDEO_FORMAT_INFO_IS_RGB(fi)) {
    out->layout = OV_SOFT_PACKED;
    out->planes[0] = GST_VIDEO_FRAME_PLANE_DATA(frame, 0);
    out->strides[0] = GST_VIDEO_FRAME_PLANE_STRIDE(frame, 0);
    for (gint c = 0; c < 3; c++) out->rgb_offsets[c] = GST_VIDEO_FORMAT_INFO_POFFSET(fi, c);
    return TRUE;
  }
  out->layout = format == GST_VIDEO_FORMAT_NV12 ? OV_SOFT_NV12 : OV_SOFT_I420;
  /* by component: Y, then U (NV12: the UV pair starts at U), then V */
  for (gint c = 0; c < 3; c++) {
    out->planes[c] = GST_VIDEO_FRAME_COMP_DATA(frame, c);
    out->strides[c] = GST_VIDEO_FRAME_COMP_STRIDE(frame, c);
  }
  const GstVideoColorimetry *cm = &frame->info.colorimetry;
  if (!gst_video_color_matrix_get_Kr_Kb(cm->matrix, &out->kr, &out->kb)) {
    /* no YUV matrix in the caps: GStreamer's own default, BT.709 above SD heights */
    gst_video_color_matrix_get_Kr_Kb(out->height > 576 ? GST_VIDEO_COLOR_MATRIX_BT709
                                                       : GST_VIDEO_COLOR_MATRIX_BT601,
                                     &out->kr, &out->kb);
  }
  out->full_range = cm->range == GST_VIDEO_COLOR_RANGE_0_255;
  return TRUE;
}
