/* ov_soft_shape.c - shapes and glyphs on one plane.
 *
 * A shape's coverage is the GL path's shape shader: a one-pixel box filter across the
 * edges of a rotated rectangle or a disk, evaluated at pixel centres. Each plane row only
 * visits the pixels whose centres lie inside the shape grown by half a pixel (where the
 * coverage is above 0), so a long diagonal skeleton line costs its area, not its bounding
 * box. On a chroma plane (scale 2) the shape is drawn at half size, which box-filters it
 * over the 2x2 frame pixels each chroma sample stands for. */
#include "ov_soft_priv.h"

#include <math.h>

/* The shape in plane pixels. */
static OvKernelShape plane_shape(const OvShape *sh, gint scale)
{
  const gfloat inv = 1.0f / (gfloat)scale;
  OvKernelShape k = { 0 };
  k.weight = (gfloat)ov_weight_of_alpha(sh->rgba[3]);
  if (sh->kind == OV_SHAPE_DISK) {
    k.disk = 1;
    k.cx = sh->x0 * inv;
    k.cy = sh->y0 * inv;
    k.dx = 1;
    k.hx = k.hy = sh->half_width * inv;
    return k;
  }
  gfloat dx = sh->x1 - sh->x0, dy = sh->y1 - sh->y0, len = sqrtf(dx * dx + dy * dy);
  k.dx = 1;
  k.dy = 0;
  if (len > 1e-6f) {
    k.dx = dx / len;
    k.dy = dy / len;
  }
  k.cx = 0.5f * (sh->x0 + sh->x1) * inv;
  k.cy = 0.5f * (sh->y0 + sh->y1) * inv;
  k.hx = (0.5f * len + sh->cap) * inv;
  k.hy = sh->half_width * inv;
  return k;
}

/* Narrows [*lo, *hi] to the x where |(x - cx) * a + b| < r. */
static void slab(gfloat a, gfloat b, gfloat r, gfloat cx, gfloat *lo, gfloat *hi)
{
  if (fabsf(a) < 1e-6f) {
    if (fabsf(b) >= r) *hi = *lo - 1; /* never inside on this row */
    return;
  }
  gfloat x0 = cx + (-r - b) / a, x1 = cx + (r - b) / a;
  *lo = MAX(*lo, MIN(x0, x1));
  *hi = MIN(*hi, MAX(x0, x1));
}

/* The x (continuous) on row centre yc where the coverage can be above 0; empty: hi < lo. */
static void row_span(const OvKernelShape *k, gfloat yc, gfloat *lo, gfloat *hi)
{
  gfloat ly = yc - k->cy;
  *lo = -G_MAXFLOAT;
  *hi = G_MAXFLOAT;
  if (k->disk) {
    gfloat r = k->hx + 0.5f, d2 = r * r - ly * ly;
    if (d2 <= 0) {
      *hi = *lo - 1;
      return;
    }
    gfloat d = sqrtf(d2);
    *lo = k->cx - d;
    *hi = k->cx + d;
    return;
  }
  /* along: (x - cx) dx + ly dy; across: ly dx - (x - cx) dy */
  slab(k->dx, ly * k->dy, k->hx + 0.5f, k->cx, lo, hi);
  slab(-k->dy, ly * k->dx, k->hy + 0.5f, k->cx, lo, hi);
}

/* An axis-aligned segment's coverage is (factor of x) * (factor of y): rows with the same
 * y factor have the same weights. The y factor, computed as the kernel does. */
static gfloat y_factor(const OvKernelShape *k, gfloat yc)
{
  gfloat ly = yc - k->cy;
  gfloat v = k->dy == 0 ? (k->hy + 0.5f) - fabsf(ly * k->dx) : (k->hx + 0.5f) - fabsf(ly * k->dy);
  return v > 0.0f ? (v < 1.0f ? v : 1.0f) : 0.0f;
}

/* The pixels [*xa, *xb) of the row centred at yc that the shape may cover; FALSE: none. */
static gboolean row_pixels(const OvKernelShape *k, gfloat yc, gint width, gint *xa, gint *xb)
{
  gfloat lo, hi;
  row_span(k, yc, &lo, &hi);
  if (hi < lo) return FALSE;
  /* pixel x has its centre at x + 0.5; one pixel of slack each way, the kernel gives 0 */
  *xa = (gint)MAX(0.0f, floorf(lo - 1.5f));
  *xb = (gint)MIN((gfloat)width, ceilf(hi + 1.0f));
  return *xb > *xa;
}

void ov_soft_shape(OvSoft *s, const OvShape *sh, const OvPlane *pl, const OvPlaneColor *color)
{
  OvKernelShape k = plane_shape(sh, pl->scale);
  if (k.weight <= 0) return;
  /* rows: the shape's bounding box (its extent across each axis, plus the fringe) */
  gfloat ext = k.disk ? k.hx : fabsf(k.dy) * k.hx + fabsf(k.dx) * k.hy;
  gint ya = MAX(0, (gint)floorf(k.cy - ext - 1)), yb = MIN(pl->height, (gint)ceilf(k.cy + ext + 1));
  gint xa, xb;
  if (!k.disk && (k.dx == 0 || k.dy == 0)) {
    /* axis-aligned: the same span on every row it touches, and rows with the same y
     * factor have the same weights, so runs of them are one kernel call */
    for (gint y = ya; y < yb;) {
      gfloat f = y_factor(&k, (gfloat)y + 0.5f);
      gint y1 = y + 1;
      while (y1 < yb && y_factor(&k, (gfloat)y1 + 0.5f) == f) y1++;
      if (f > 0 && row_pixels(&k, (gfloat)y + 0.5f, pl->width, &xa, &xb)) {
        s->k->shape_weights(s->w, xa, xb - xa, (gfloat)y + 0.5f, &k);
        ov_plane_blend_const(s, pl, y, y1 - y, xa, xb - xa, color, s->w, 0);
      }
      y = y1;
    }
    return;
  }
  for (gint y = ya; y < yb; y++) {
    gfloat yc = (gfloat)y + 0.5f;
    if (!row_pixels(&k, yc, pl->width, &xa, &xb)) continue;
    s->k->shape_weights(s->w, xa, xb - xa, yc, &k);
    ov_plane_blend_const(s, pl, y, 1, xa, xb - xa, color, s->w, 0);
  }
}

/* Weights of one plane row of a glyph: its coverage (averaged over the 2x2 frame pixels of
 * a chroma sample) times the text's weight tw. */
static void glyph_row(guint16 *w, const OvPlacedGlyph *g, const guint8 *atlas, gint sc, gint y,
                      gint xa, gint xb, guint tw)
{
  if (sc == 1) {
    const guint8 *arow = atlas + (gsize)(g->ay + y - g->y) * OV_ATLAS_SIZE + g->ax;
    for (gint x = xa; x < xb; x++) w[x - xa] = (guint16)((arow[x - g->x] * tw + 127) / 255);
    return;
  }
  for (gint x = xa; x < xb; x++) {
    guint sum = 0;
    for (gint fy = 2 * y; fy < 2 * y + 2; fy++) {
      gint by = fy - g->y;
      if (by < 0 || by >= g->h) continue;
      const guint8 *arow = atlas + (gsize)(g->ay + by) * OV_ATLAS_SIZE + g->ax;
      for (gint fx = 2 * x; fx < 2 * x + 2; fx++) {
        gint bx = fx - g->x;
        if (bx >= 0 && bx < g->w) sum += arow[bx];
      }
    }
    w[x - xa] = (guint16)((sum * tw + 510) / 1020);
  }
}

void ov_soft_glyph(OvSoft *s, const OvPlacedGlyph *g, const guint8 *atlas, const OvPlane *pl,
                   const OvPlaneColor *color)
{
  const guint tw = ov_weight_of_alpha(g->rgba[3]);
  const gint sc = pl->scale;
  /* plane pixels touched by the bitmap */
  gint xa = MAX(0, g->x >= 0 ? g->x / sc : -((-g->x + sc - 1) / sc));
  gint ya = MAX(0, g->y >= 0 ? g->y / sc : -((-g->y + sc - 1) / sc));
  gint xb = MIN(pl->width, (g->x + g->w + sc - 1) / sc), yb = MIN(pl->height, (g->y + g->h + sc - 1) / sc);
  if (xb <= xa || yb <= ya) return;
  /* the glyph's weights as one block, blended in one call */
  gint n = xb - xa, rows = yb - ya;
  if ((gsize)n * rows > s->glyph_cap) {
    g_free(s->glyph_w);
    s->glyph_cap = (gsize)n * rows;
    s->glyph_w = g_new(guint16, s->glyph_cap + OV_ROW_SPARE);
  }
  for (gint y = ya; y < yb; y++) glyph_row(s->glyph_w + (gsize)(y - ya) * n, g, atlas, sc, y, xa, xb, tw);
  ov_plane_blend_const(s, pl, ya, rows, xa, n, color, s->glyph_w, n);
}
