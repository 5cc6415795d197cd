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

void ov_soft_shape(OvSoft *s, const OvShape *sh, const OvPlane *pl, const guint8 color[4])
{
  OvKernelShape k = plane_shape(sh, pl->scale);
  if (k.weight <= 0) return;
  /* rows: the shape's bounding box (its extent across each axis, plus the fringe) */
  gfloat ext = k.disk ? k.hx : fabsf(k.dy) * k.hx + fabsf(k.dx) * k.hy;
  gint ya = MAX(0, (gint)floorf(k.cy - ext - 1)), yb = MIN(pl->height, (gint)ceilf(k.cy + ext + 1));
  for (gint y = ya; y < yb; y++) {
    gfloat yc = (gfloat)y + 0.5f, lo, hi;
    row_span(&k, yc, &lo, &hi);
    if (hi < lo) continue;
    /* pixel x has its centre at x + 0.5; one pixel of slack each way, the kernel gives 0 */
    gint xa = (gint)MAX(0.0f, floorf(lo - 1.5f)), xb = (gint)MIN((gfloat)pl->width, ceilf(hi + 1.0f));
    if (xb <= xa) continue;
    s->k->shape_weights(s->w, xa, xb - xa, yc, &k);
    s->k->blend_const(pl->data + (gsize)y * pl->stride + (gsize)xa * pl->ch, color, s->w, xb - xa, pl->ch);
  }
}

void ov_soft_glyph(OvSoft *s, const OvPlacedGlyph *g, const guint8 *atlas, const OvPlane *pl,
                   const guint8 color[4])
{
  const guint tw = ov_weight_of_alpha(g->rgba[3]);
  const gint sc = pl->scale;
  /* plane pixels touched by the bitmap */
  gint xa = MAX(0, g->x >= 0 ? g->x / sc : -((-g->x + sc - 1) / sc));
  gint ya = MAX(0, g->y >= 0 ? g->y / sc : -((-g->y + sc - 1) / sc));
  gint xb = MIN(pl->width, (g->x + g->w + sc - 1) / sc), yb = MIN(pl->height, (g->y + g->h + sc - 1) / sc);
  if (xb <= xa || yb <= ya) return;
  for (gint y = ya; y < yb; y++) {
    for (gint x = xa; x < xb; x++) {
      /* coverage summed over the frame pixels of this plane pixel that the bitmap covers */
      guint sum = 0;
      for (gint fy = y * sc; fy < (y + 1) * sc; fy++) {
        gint by = fy - g->y;
        if (by < 0 || by >= g->h) continue;
        const guint8 *arow = atlas + (gsize)(g->ay + by) * OV_ATLAS_SIZE + g->ax;
        for (gint fx = x * sc; fx < (x + 1) * sc; fx++) {
          gint bx = fx - g->x;
          if (bx >= 0 && bx < g->w) sum += arow[bx];
        }
      }
      guint full = 255u * (guint)(sc * sc);
      s->w[x - xa] = (guint16)((sum * tw + full / 2) / full);
    }
    s->k->blend_const(pl->data + (gsize)y * pl->stride + (gsize)xa * pl->ch, color, s->w, xb - xa, pl->ch);
  }
}
