/* ov_soft_mask.c - the segmentation mask on one plane, sampled as the GL path's shader
 * does: at each pixel's centre (in frame pixels), class masks nearest, probability masks
 * bilinear between texel centres (clamped at the edges), only inside the mask's rectangle.
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

/* Colours and weights of mask row j across [xa, xb); FALSE when every weight is 0. */
static gboolean expand_classes(OvSoft *s, const OvMask *m, const OvPlane *pl, gint j, gint xa, gint xb)
{
  const guint8 *row = m->classes + (gsize)j * m->width;
  guint any = 0;
  for (gint x = xa, o = 0; x < xb; x++, o++) {
    guint c = row[s->i0[x]];
    memcpy(s->colors + o * pl->ch, s->palette[c].c[pl->index], 4); /* scratch has 4 spare bytes */
    s->w[o] = s->palette_w[c];
    any |= s->palette_w[c];
  }
  return any != 0;
}

static void draw_classes(OvSoft *s, const OvMask *m, const OvPlane *pl, gint xa, gint xb, gint ya, gint yb)
{
  for (gint x = xa; x < xb; x++)
    s->i0[x] = nearest(mask_coord(x, pl->scale, m->x, m->w, m->width), m->width);
  gint last = -1;
  gboolean any = FALSE;
  for (gint y = ya; y < yb; y++) {
    gint j = nearest(mask_coord(y, pl->scale, m->y, m->h, m->height), m->height);
    if (j != last) any = expand_classes(s, m, pl, j, xa, xb);
    last = j;
    if (any) s->k->blend_row(pl->data + (gsize)y * pl->stride + (gsize)xa * pl->ch, s->colors, s->w, xb - xa, pl->ch);
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
  const guint8 *color = s->palette[1].c[pl->index];
  for (gint y = ya; y < yb; y++) {
    gint32 j0, j1;
    gfloat t;
    bilinear(mask_coord(y, pl->scale, m->y, m->h, m->height), m->height, &j0, &j1, &t);
    const gfloat *h0 = prob_row(s, m, j0, j1, xa, xb), *h1 = prob_row(s, m, j1, j0, xa, xb);
    s->k->prob_weights(s->w, h0, h1, t, scale, xb - xa);
    s->k->blend_const(pl->data + (gsize)y * pl->stride + (gsize)xa * pl->ch, color, s->w, xb - xa, pl->ch);
  }
}

void ov_soft_mask(OvSoft *s, const OvMask *m, const OvPlane *pl)
{
  gboolean classes = m->kind == TFL_MASK_CLASSES;
  if (classes ? !m->classes : !m->prob) return; /* a GL texture only */
  gint xa, xb, ya, yb;
  covered_span(pl->width, pl->scale, m->x, m->w, m->width, &xa, &xb);
  covered_span(pl->height, pl->scale, m->y, m->h, m->height, &ya, &yb);
  if (xa >= xb || ya >= yb) return;
  if (classes) draw_classes(s, m, pl, xa, xb, ya, yb);
  else draw_prob(s, m, pl, xa, xb, ya, yb);
}
