/* ov_soft_mask.c - the segmentation mask on one plane, sampled as the GL path's shader
 * does: at each pixel's centre (in frame pixels), class masks nearest, probability masks
 * bilinear between texel centres (clamped at the edges), only inside the mask's rectangle
 * and its clip rectangle (a box's own mask: the box).
 *
 * A mask is much smaller than the frame, so the work per texel row is done once: a class
 * row is expanded to a row of colours and weights reused by every plane row it covers;
 * a probability row is interpolated across once and kept while the two rows the current
 * plane row lies between are in use. */
#include "ov_soft_priv.h"

#include <math.h>
#include <string.h>

/* Mask coordinate of the centre of plane pixel i along one axis. */
static gfloat mask_coord(gint i, gint scale, gfloat origin, gfloat extent, gint texels)
{
  gfloat centre = ((gfloat)i + 0.5f) * (gfloat)scale;
  return (centre - origin) / extent * (gfloat)texels;
}

static gboolean inside(gfloat u, gint texels)
{
  return u >= 0.0f && u < (gfloat)texels; /* also FALSE for NaN */
}

/* The plane pixels [*a, *b) whose centres fall inside the mask along one axis. */
static void covered_span(gint n, gint scale, gfloat origin, gfloat extent, gint texels, gint *a,
                         gint *b)
{
  *a = n;
  *b = 0;
  for (gint i = 0; i < n; i++) {
    if (!inside(mask_coord(i, scale, origin, extent, texels), texels)) continue;
    if (*a == n) *a = i;
    *b = i + 1;
  }
}

/* [*a, *b) narrowed to the plane pixels whose centres lie in [lo, hi) (frame pixels). */
static void clip_span(gint scale, gfloat lo, gfloat hi, gint *a, gint *b)
{
  if (!(lo <= hi)) { /* NaN or empty */
    *b = *a;
    return;
  }
  const gfloat s = (gfloat)scale;
  const gfloat first = ceilf(lo / s - 0.5f), end = ceilf(hi / s - 0.5f);
  if (first > (gfloat)*a) *a = first >= (gfloat)*b ? *b : (gint)first;
  if (end < (gfloat)*b) *b = end <= (gfloat)*a ? *a : (gint)end;
}

static gint nearest(gfloat u, gint texels)
{
  gint i = (gint)floorf(u);
  return i < texels - 1 ? i : texels - 1;
}

/* The two texels around u (between centres) and the weight of the second. */
static void bilinear(gfloat u, gint texels, gint32 *i0, gint32 *i1, gfloat *t)
{
  gfloat f = u - 0.5f, f0 = floorf(f);
  gint i = (gint)f0;
  *t = f - f0;
  *i0 = CLAMP(i, 0, texels - 1);
  *i1 = CLAMP(i + 1, 0, texels - 1);
}

/* Class colours and weights repeated over 16 pixels, so a run of pixels of one class
 * (rarely longer) is filled with two fixed-size copies (the scratch rows have 16 spare
 * pixels for the last). */
static void build_patterns(OvSoft *s, const OvPlane *pl)
{
  for (gint c = 0; c < 256; c++) {
    for (gint t = 0; t < (pl->twin ? 2 : 1); t++)
      for (gint b = 0; b < 16 * pl->ch; b++)
        s->pattern_color[t][c][b] = s->palette[c].c[pl->index + t][b % pl->ch];
    for (gint i = 0; i < 16; i++) s->pattern_w[c][i] = s->palette_w[c];
  }
}

/* Runs of plane pixels in [xa, xb) that sample the same mask column: s->run_x[r] is the
 * first pixel of run r (relative to xa), s->i1[r] its column; returns the number of runs. */
static gint build_runs(OvSoft *s, gint xa, gint xb)
{
  gint n = 0;
  for (gint x = xa; x < xb; x++) {
    if (x > xa && s->i0[x] == s->i0[x - 1]) continue;
    s->run_x[n] = x - xa;
    s->i1[n] = s->i0[x];
    n++;
  }
  s->run_x[n] = xb - xa;
  return n;
}

/* Colours and weights of mask row j across the runs; FALSE when every weight is 0. */
static gboolean expand_classes(OvSoft *s, const OvMask *m, const OvPlane *pl, gint j, gint runs)
{
  /* locals: the copies below could alias *s, which would reload every pointer */
  const guint8 *restrict row = m->classes + (gsize)j * m->width;
  const gint32 *restrict run_x = s->run_x, *restrict run_col = s->i1;
  guint8 *restrict colors = s->colors, *restrict colors2 = s->colors2;
  guint16 *restrict w = s->w;
  const gint ch = pl->ch;
  const gboolean twin = pl->twin != NULL;
  guint any = 0;
  for (gint r = 0; r < runs; r++) {
    guint c = row[run_col[r]];
    gint x = run_x[r], end = run_x[r + 1];
    const guint8 *pc = s->pattern_color[0][c], *pc2 = s->pattern_color[1][c];
    const guint16 *pw = s->pattern_w[c];
    any |= pw[0];
    for (gint o = x; o < end; o += 16) { /* constant sizes: a few vector stores */
      memcpy(w + o, pw, 32);
      if (ch == 1) {
        memcpy(colors + o, pc, 16);
        if (twin) memcpy(colors2 + o, pc2, 16);
      } else if (ch == 2) {
        memcpy(colors + 2 * o, pc, 32);
      } else {
        memcpy(colors + 4 * o, pc, 64);
      }
    }
  }
  return any != 0;
}

static void draw_classes(OvSoft *s, const OvMask *m, const OvPlane *pl, gint xa, gint xb, gint ya, gint yb)
{
  for (gint x = xa; x < xb; x++)
    s->i0[x] = nearest(mask_coord(x, pl->scale, m->x, m->w, m->width), m->width);
  gint runs = build_runs(s, xa, xb);
  build_patterns(s, pl);
  /* plane rows sampling the same mask row share one expansion and one kernel call */
  for (gint y = ya; y < yb;) {
    gint j = nearest(mask_coord(y, pl->scale, m->y, m->h, m->height), m->height), y1 = y + 1;
    while (y1 < yb && nearest(mask_coord(y1, pl->scale, m->y, m->h, m->height), m->height) == j) y1++;
    if (expand_classes(s, m, pl, j, runs)) {
      s->k->blend_row(pl->data + (gsize)y * pl->stride + (gsize)xa * pl->ch, pl->stride, y1 - y,
                      s->colors, s->w, xb - xa, pl->ch);
      if (pl->twin)
        s->k->blend_row(pl->twin + (gsize)y * pl->twin_stride + (gsize)xa * pl->ch, pl->twin_stride,
                        y1 - y, s->colors2, s->w, xb - xa, pl->ch);
    }
    y = y1;
  }
}

/* Probability row j interpolated across, kept in one of two slots (not the one holding
 * row `keep`). */
static const gfloat *prob_row(OvSoft *s, const OvMask *m, gint j, gint keep, gint xa, gint xb)
{
  for (gint i = 0; i < 2; i++)
    if (s->hj[i] == j) return s->h[i];
  gint slot = s->hj[0] == keep ? 1 : 0;
  s->k->lerp_gather(s->h[slot], m->prob + (gsize)j * m->width, s->i0 + xa, s->i1 + xa, s->t + xa, xb - xa);
  s->hj[slot] = j;
  return s->h[slot];
}

static void draw_prob(OvSoft *s, const OvMask *m, const OvPlane *pl, gint xa, gint xb, gint ya, gint yb)
{
  for (gint x = xa; x < xb; x++)
    bilinear(mask_coord(x, pl->scale, m->x, m->w, m->width), m->width, &s->i0[x], &s->i1[x], &s->t[x]);
  s->hj[0] = s->hj[1] = -1;
  const gfloat scale = m->alpha * (gfloat)OV_WEIGHT_ONE;
  for (gint y = ya; y < yb; y++) {
    gint32 j0, j1;
    gfloat t;
    bilinear(mask_coord(y, pl->scale, m->y, m->h, m->height), m->height, &j0, &j1, &t);
    const gfloat *h0 = prob_row(s, m, j0, j1, xa, xb), *h1 = prob_row(s, m, j1, j0, xa, xb);
    s->k->prob_weights(s->w, h0, h1, t, scale, xb - xa);
    ov_plane_blend_const(s, pl, y, 1, xa, xb - xa, &s->palette[1], s->w, 0);
  }
}

void ov_soft_mask(OvSoft *s, const OvMask *m, const OvPlane *pl)
{
  gboolean classes = m->kind == TFL_MASK_CLASSES;
  if (classes ? !m->classes : !m->prob) return; /* a GL texture only */
  gint xa, xb, ya, yb;
  covered_span(pl->width, pl->scale, m->x, m->w, m->width, &xa, &xb);
  covered_span(pl->height, pl->scale, m->y, m->h, m->height, &ya, &yb);
  if (m->clipped) {
    clip_span(pl->scale, m->clip_x0, m->clip_x1, &xa, &xb);
    clip_span(pl->scale, m->clip_y0, m->clip_y1, &ya, &yb);
  }
  if (xa >= xb || ya >= yb) return;
  if (classes) draw_classes(s, m, pl, xa, xb, ya, yb);
  else draw_prob(s, m, pl, xa, xb, ya, yb);
}
