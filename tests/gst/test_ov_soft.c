/* test_ov_soft.c - tfliteoverlay's software renderer (gst/tfliteoverlay/ov_soft*.c) without
 * the element.
 *
 * 1. Kernels: the portable blend against its exact rational formula; every vector
 *    instruction set this CPU runs against the portable kernels, to the byte, on random
 *    rows (every tail length, all channel counts, NaN and out-of-range probabilities).
 * 2. The renderer: one scene (a class mask on an offset rectangle, then a probability mask;
 *    box edges, a rotated line, disks, a translucent label background, text) drawn on an
 *    odd-sized frame with padded strides in every layout and matrix, compared with a
 *    reference written here in double precision pixel by pixel (worst element), and every
 *    vector set against the portable output byte for byte. Pixels outside every shape must
 *    not change, padding bytes and RGBA's fourth byte never.
 * Runs in the unit suite, so also under ASan+UBSan (scripts/test.sh).
 */
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "gst/tfliteoverlay/ov_glyphs.h"
#include "gst/tfliteoverlay/ov_soft.h"

#define FW 97 /* odd: chroma planes have a half-covered last column and row */
#define FH 61
#define PAD 13 /* bytes after each row: must never change */

static guint32 rng = 12345;

static guint32 next(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return rng;
}

static gint rnd(gint lo, gint hi) /* lo..hi inclusive */
{
  return lo + (gint)(next() % (guint32)(hi - lo + 1));
}

static gfloat rndf(gfloat lo, gfloat hi)
{
  return lo + (hi - lo) * (gfloat)(next() & 0xffffff) / (gfloat)0x1000000;
}

/* ---- 1. kernels ---- */

/* The portable blend is dst + round((c - dst) * w / 32768), half up: exact in integers. */
static void blend_formula(void)
{
  const OvKernels *k = ov_kernels_get(OV_ISA_C);
  for (gint trial = 0; trial < 2000; trial++) {
    gint ch = (gint[]){ 1, 2, 4 }[trial % 3], n = rnd(1, 9);
    guint8 dst[40], before[40], color[40];
    guint16 w[10];
    for (gint i = 0; i < n * ch; i++) before[i] = dst[i] = (guint8)next(), color[i] = (guint8)next();
    for (gint i = 0; i < n; i++) w[i] = (guint16)(trial % 7 == 0 ? 0 : rnd(0, 1) ? OV_WEIGHT_ONE : rnd(0, OV_WEIGHT_ONE));
    k->blend_row(dst, 0, 1, color, w, n, ch);
    for (gint i = 0; i < n; i++)
      for (gint c = 0; c < ch; c++) {
        gint d = before[i * ch + c], want = d;
        if (c < 3 || ch != 4) want = (gint)floor(d + (color[i * ch + c] - d) * (gdouble)w[i] / 32768.0 + 0.5);
        CHECK(dst[i * ch + c] == want, "ch %d px %d byte %d: %d, want %d (d %d c %d w %d)", ch, i, c,
              dst[i * ch + c], want, d, color[i * ch + c], w[i]);
      }
  }
}

/* The weight of an opaque colour replaces the pixel by it exactly (|c - d| <= 255). */
static void opaque_weight(void)
{
  const OvKernels *k = ov_kernels_get(OV_ISA_C);
  guint8 dst[256], color[256];
  guint16 w[256];
  for (gint i = 0; i < 256; i++) dst[i] = (guint8)i, color[i] = (guint8)(255 - i), w[i] = OV_WEIGHT_ONE;
  k->blend_row(dst, 0, 1, color, w, 256, 1);
  for (gint i = 0; i < 256; i++) CHECK(dst[i] == 255 - i, "opaque: %d over %d gives %d", 255 - i, i, dst[i]);
}

static void monotone_columns(gint32 *i0, gint32 *i1, gfloat *t, gint n, gint texels)
{
  gfloat scale = rndf(0.3f, 12.0f), off = rndf(-3, 3); /* downsampling too: the gather path */
  for (gint x = 0; x < n; x++) {
    gfloat f = (x + 0.5f) / scale + off - 0.5f, f0 = floorf(f);
    gint i = (gint)f0;
    t[x] = f - f0;
    i0[x] = CLAMP(i, 0, texels - 1);
    i1[x] = CLAMP(i + 1, 0, texels - 1);
  }
}

static void kernels_agree(OvIsa isa)
{
  const OvKernels *c = ov_kernels_get(OV_ISA_C), *v = ov_kernels_get(isa);
  enum { N = 150, ROWS = 3, SPARE = 16 };
  static guint8 a[ROWS * (4 * N + 7)], b[ROWS * (4 * N + 7)], color[4 * N];
  static guint16 w[ROWS * N + SPARE], wa[N + SPARE], wb[N + SPARE];
  static gfloat h0[N], h1[N], row[64], t[N], fa[N], fb[N];
  static gint32 i0[N], i1[N];
  for (gint trial = 0; trial < 3000; trial++) {
    gint ch = (gint[]){ 1, 2, 4 }[trial % 3], n = rnd(0, N), rows = rnd(1, ROWS);
    gint stride = n * ch + rnd(0, 7), wst = rnd(0, 1) ? n : 0;
    for (gsize i = 0; i < sizeof a; i++) a[i] = b[i] = (guint8)next();
    for (gint i = 0; i < 4 * N; i++) color[i] = (guint8)next();
    for (gint i = 0; i < ROWS * N; i++) w[i] = (guint16)(next() % 3 == 0 ? 0 : rnd(0, OV_WEIGHT_ONE));
    if (trial % 5 == 0) memset(w, 0, sizeof w); /* untouched rows */
    c->blend_row(a, stride, rows, color, w, n, ch);
    v->blend_row(b, stride, rows, color, w, n, ch);
    CHECK(memcmp(a, b, sizeof a) == 0, "%s blend_row ch %d n %d rows %d", ov_isa_name(isa), ch, n, rows);
    c->blend_const(a, stride, rows, color + 7, w, wst, n, ch);
    v->blend_const(b, stride, rows, color + 7, w, wst, n, ch);
    CHECK(memcmp(a, b, sizeof a) == 0, "%s blend_const ch %d n %d rows %d w_stride %d", ov_isa_name(isa), ch,
          n, rows, wst);

    OvKernelShape s = { rndf(-20, 180), rndf(-20, 20), 1, 0, rndf(0, 60), rndf(0.2f, 8), (gfloat)rnd(0, OV_WEIGHT_ONE), rnd(0, 3) == 0 };
    gfloat ang = rndf(0, 6.3f);
    if (trial % 4 == 1) ang = 0; /* axis-aligned, as box edges */
    s.dx = cosf(ang);
    s.dy = sinf(ang);
    gint x0 = rnd(-10, 100);
    gfloat yc = rnd(-25, 25) + 0.5f;
    c->shape_weights(wa, x0, n, yc, &s);
    v->shape_weights(wb, x0, n, yc, &s);
    CHECK(memcmp(wa, wb, sizeof(guint16) * n) == 0, "%s shape_weights n %d disk %d", ov_isa_name(isa), n, s.disk);

    for (gint i = 0; i < n; i++) {
      h0[i] = rndf(-0.5f, 1.5f);
      h1[i] = rndf(-0.5f, 1.5f);
      if (next() % 17 == 0) h0[i] = NAN;
      if (next() % 19 == 0) h1[i] = INFINITY;
    }
    gfloat tt = rndf(0, 1), scale = rndf(0, OV_WEIGHT_ONE);
    c->prob_weights(wa, h0, h1, tt, scale, n);
    v->prob_weights(wb, h0, h1, tt, scale, n);
    CHECK(memcmp(wa, wb, sizeof(guint16) * n) == 0, "%s prob_weights n %d", ov_isa_name(isa), n);

    gint texels = rnd(1, 64);
    for (gint i = 0; i < texels; i++) row[i] = rndf(-1, 2);
    monotone_columns(i0, i1, t, n, texels);
    c->lerp_gather(fa, row, i0, i1, t, n);
    v->lerp_gather(fb, row, i0, i1, t, n);
    CHECK(memcmp(fa, fb, sizeof(gfloat) * n) == 0, "%s lerp_gather n %d texels %d", ov_isa_name(isa), n, texels);
  }
}

/* ---- 2. the renderer against a reference ---- */

typedef struct {
  OvSoftLayout layout;
  const gchar *name;
  gint rgb[3];          /* packed: byte offsets */
  gboolean bt709, full; /* YUV */
} Case;

static const Case cases[] = {
  { OV_SOFT_PACKED, "RGBA", { 0, 1, 2 }, 0, 0 }, { OV_SOFT_PACKED, "BGRx", { 2, 1, 0 }, 0, 0 },
  { OV_SOFT_I420, "I420 bt601", { 0 }, 0, 0 },   { OV_SOFT_I420, "I420 bt709 full", { 0 }, 1, 1 },
  { OV_SOFT_NV12, "NV12 bt709", { 0 }, 1, 0 },   { OV_SOFT_NV12, "NV12 bt601 full", { 0 }, 0, 1 },
};

/* This test's own Y'CbCr: normalised E'Y, E'Pb, E'Pr, then quantised. */
static void to_yuv(const Case *c, const guint8 rgb[3], gdouble out[3])
{
  const gdouble kr = c->bt709 ? 0.2126 : 0.299, kb = c->bt709 ? 0.0722 : 0.114;
  gdouble r = rgb[0] / 255.0, g = rgb[1] / 255.0, b = rgb[2] / 255.0;
  gdouble ey = kr * r + (1 - kr - kb) * g + kb * b, pb = (b - ey) / (2 - 2 * kb), pr = (r - ey) / (2 - 2 * kr);
  out[0] = c->full ? 255 * ey : 16 + 219 * ey;
  out[1] = c->full ? 128 + 255 * pb : 128 + 224 * pb;
  out[2] = c->full ? 128 + 255 * pr : 128 + 224 * pr;
  for (gint i = 0; i < 3; i++) out[i] = CLAMP(floor(out[i] + 0.5), 0, 255);
}

typedef struct {
  gint ch[3];   /* per plane: frame bytes a pixel */
  gint n;
  gint w[3], h[3], scale[3], stride[3];
  guint8 *data[3];
} Frame;

static void frame_alloc(Frame *f, const Case *c)
{
  memset(f, 0, sizeof *f);
  gint cw = (FW + 1) / 2, chh = (FH + 1) / 2;
  if (c->layout == OV_SOFT_PACKED) {
    f->n = 1;
    f->ch[0] = 4, f->w[0] = FW, f->h[0] = FH, f->scale[0] = 1;
  } else {
    f->n = c->layout == OV_SOFT_I420 ? 3 : 2;
    f->ch[0] = 1, f->w[0] = FW, f->h[0] = FH, f->scale[0] = 1;
    for (gint p = 1; p < f->n; p++)
      f->ch[p] = c->layout == OV_SOFT_NV12 ? 2 : 1, f->w[p] = cw, f->h[p] = chh, f->scale[p] = 2;
  }
  for (gint p = 0; p < f->n; p++) {
    f->stride[p] = f->w[p] * f->ch[p] + PAD;
    f->data[p] = g_malloc((gsize)f->stride[p] * f->h[p]);
    for (gint i = 0; i < f->stride[p] * f->h[p]; i++) f->data[p][i] = (guint8)(i * 7 + p * 50); /* not flat */
  }
}

static void frame_copy(Frame *dst, const Frame *src)
{
  *dst = *src;
  for (gint p = 0; p < src->n; p++) dst->data[p] = g_memdup2(src->data[p], (gsize)src->stride[p] * src->h[p]);
}

static void frame_free(Frame *f)
{
  for (gint p = 0; p < f->n; p++) g_free(f->data[p]);
}

static OvSoftFrame soft_frame(const Frame *f, const Case *c)
{
  OvSoftFrame s = { c->layout, FW, FH, { NULL }, { 0 }, { 0 }, c->bt709 ? 0.2126 : 0.299, c->bt709 ? 0.0722 : 0.114, c->full };
  for (gint p = 0; p < f->n; p++) s.planes[p] = f->data[p], s.strides[p] = f->stride[p];
  if (c->layout == OV_SOFT_NV12) s.planes[2] = f->data[1] + 1, s.strides[2] = f->stride[1];
  memcpy(s.rgb_offsets, c->rgb, sizeof s.rgb_offsets);
  return s;
}

/* The code of channel k of plane p for an RGB colour (packed: byte k). */
static gdouble code_of(const Case *c, gint p, gint k, const guint8 rgb[3])
{
  if (c->layout == OV_SOFT_PACKED) {
    for (gint i = 0; i < 3; i++)
      if (c->rgb[i] == k) return rgb[i];
    return -1; /* byte 3: kept */
  }
  gdouble yuv[3];
  to_yuv(c, rgb, yuv);
  if (p == 0) return yuv[0];
  if (c->layout == OV_SOFT_NV12) return yuv[1 + k];
  return yuv[p];
}

static gdouble clamp01(gdouble v)
{
  return v < 0 ? 0 : v > 1 ? 1 : v;
}

/* Coverage of the plane pixel centred at (x, y) (plane pixels) by a shape at that scale. */
static gdouble shape_cover(const OvShape *sh, gdouble s, gdouble x, gdouble y)
{
  gdouble x0 = sh->x0 / s, y0 = sh->y0 / s, x1 = sh->x1 / s, y1 = sh->y1 / s, hw = sh->half_width / s;
  if (sh->kind == OV_SHAPE_DISK) return clamp01(hw + 0.5 - hypot(x - x0, y - y0));
  gdouble dx = x1 - x0, dy = y1 - y0, len = hypot(dx, dy);
  if (len > 1e-6) dx /= len, dy /= len;
  else dx = 1, dy = 0;
  gdouble lx = x - (x0 + x1) / 2, ly = y - (y0 + y1) / 2;
  gdouble along = lx * dx + ly * dy, across = -lx * dy + ly * dx;
  return clamp01(len / 2 + sh->cap / s + 0.5 - fabs(along)) * clamp01(hw + 0.5 - fabs(across));
}

/* Mask sample at frame point (fx, fy): *a the weight (0: not drawn), *cls its colour class. */
static void mask_sample(const OvMask *m, gdouble fx, gdouble fy, gdouble *a, gint *cls)
{
  gdouble u = (fx - m->x) / m->w * m->width, v = (fy - m->y) / m->h * m->height;
  *a = 0;
  *cls = 1;
  if (u < 0 || v < 0 || u >= m->width || v >= m->height) return;
  if (m->kind == TFL_MASK_CLASSES) {
    *cls = m->classes[MIN((gint)v, m->height - 1) * m->width + MIN((gint)u, m->width - 1)];
    *a = m->colors[*cls][3] ? m->alpha : 0;
    return;
  }
  gdouble fu = u - 0.5, fv = v - 0.5, tu = fu - floor(fu), tv = fv - floor(fv);
  gint u0 = CLAMP((gint)floor(fu), 0, m->width - 1), u1 = CLAMP((gint)floor(fu) + 1, 0, m->width - 1);
  gint v0 = CLAMP((gint)floor(fv), 0, m->height - 1), v1 = CLAMP((gint)floor(fv) + 1, 0, m->height - 1);
  const gfloat *p = m->prob;
  gdouble top = p[v0 * m->width + u0] * (1 - tu) + p[v0 * m->width + u1] * tu;
  gdouble bot = p[v1 * m->width + u0] * (1 - tu) + p[v1 * m->width + u1] * tu;
  gdouble pr = top * (1 - tv) + bot * tv;
  *a = pr > 0 ? m->alpha * MIN(pr, 1.0) : 0;
}

/* Glyph coverage (0..1) of the plane pixel (px, py): the mean over its frame pixels. */
static gdouble glyph_cover(const OvPlacedGlyph *g, const guint8 *atlas, gint s, gint px, gint py)
{
  gdouble sum = 0;
  for (gint fy = py * s; fy < (py + 1) * s; fy++)
    for (gint fx = px * s; fx < (px + 1) * s; fx++) {
      gint bx = fx - g->x, by = fy - g->y;
      if (bx >= 0 && by >= 0 && bx < g->w && by < g->h) sum += atlas[(g->ay + by) * OV_ATLAS_SIZE + g->ax + bx];
    }
  return sum / (255.0 * s * s);
}

static gdouble over(gdouble v, gdouble c, gdouble a)
{
  return floor(v + (c - v) * a + 0.5);
}

/* Draws scene on f pixel by pixel, channel by channel, in double precision. */
static void reference(Frame *f, const Case *c, const OvScene *scene, GArray *glyphs, const guint8 *atlas)
{
  const OvMask *m = &scene->mask;
  for (gint p = 0; p < f->n; p++)
    for (gint py = 0; py < f->h[p]; py++)
      for (gint px = 0; px < f->w[p]; px++)
        for (gint k = 0; k < f->ch[p]; k++) {
          guint8 *b = f->data[p] + py * f->stride[p] + px * f->ch[p] + k;
          static const guint8 white[3] = { 255, 255, 255 };
          if (code_of(c, p, k, white) < 0) continue; /* RGBA's fourth byte */
          gdouble v = *b, s = f->scale[p], cx = px + 0.5, cy = py + 0.5;
          if (m->on) {
            gdouble a;
            gint cls;
            mask_sample(m, cx * s, cy * s, &a, &cls);
            if (a > 0) v = over(v, code_of(c, p, k, m->colors[cls]), a);
          }
          for (guint i = 0; i < scene->instances->len; i++) { /* boxes' own masks, inside the box */
            const OvMask *im = &g_array_index(scene->instances, OvMask, i);
            gdouble a, fx = cx * s, fy = cy * s;
            gint cls;
            if (fx < im->clip_x0 || fx >= im->clip_x1 || fy < im->clip_y0 || fy >= im->clip_y1) continue;
            mask_sample(im, fx, fy, &a, &cls);
            if (a > 0) v = over(v, code_of(c, p, k, im->colors[1]), a);
          }
          for (guint i = 0; i < scene->shapes->len; i++) {
            const OvShape *sh = &g_array_index(scene->shapes, OvShape, i);
            gdouble a = shape_cover(sh, s, cx, cy) * sh->rgba[3] / 255.0;
            if (a > 0) v = over(v, code_of(c, p, k, sh->rgba), a);
          }
          for (guint i = 0; i < glyphs->len; i++) {
            const OvPlacedGlyph *g = &g_array_index(glyphs, OvPlacedGlyph, i);
            gdouble a = glyph_cover(g, atlas, (gint)s, px, py) * g->rgba[3] / 255.0;
            if (a > 0) v = over(v, code_of(c, p, k, g->rgba), a);
          }
          *b = (guint8)v;
        }
}

static void add_shape(OvScene *s, gfloat x0, gfloat y0, gfloat x1, gfloat y1, gfloat hw, gfloat cap,
                      OvShapeKind kind, guint8 r, guint8 g, guint8 b, guint8 a)
{
  OvShape sh = { x0, y0, x1, y1, hw, cap, (gfloat)kind, 0, { r, g, b, a } };
  g_array_append_val(s->shapes, sh);
}

static guint8 mask_classes[9 * 7];
static gfloat mask_prob[6 * 5];
static gfloat instance_prob[5 * 4];

/* A scene touching every feature; prob: a probability mask instead of classes. */
static void make_scene(OvScene *s, gboolean prob)
{
  ov_scene_init(s);
  s->width = FW;
  s->height = FH;
  OvMask *m = &s->mask;
  m->on = TRUE;
  m->x = 6.5f, m->y = 3.25f, m->w = 80.3f, m->h = 50.6f;
  m->alpha = 0.6f;
  for (gint c = 0; c < 256; c++) {
    m->colors[c][0] = (guint8)(c * 40), m->colors[c][1] = (guint8)(255 - c * 30), m->colors[c][2] = (guint8)(c * 90);
    m->colors[c][3] = c % 4 ? 255 : 0; /* classes 0, 4, 8: not drawn */
  }
  if (prob) {
    m->kind = TFL_MASK_PROB, m->width = 6, m->height = 5, m->prob = mask_prob;
    for (gint i = 0; i < 30; i++) mask_prob[i] = (gfloat)((i * 37) % 13) / 9.0f - 0.2f; /* < 0 and > 1 too */
    mask_prob[7] = NAN;
  } else {
    m->kind = TFL_MASK_CLASSES, m->width = 9, m->height = 7, m->classes = mask_classes;
    for (gint i = 0; i < 63; i++) mask_classes[i] = (guint8)((i * 5) % 11);
  }
  /* a box's own mask (instance segmentation): a probability grid reaching past the box,
   * drawn in the box's colour inside the box only */
  OvMask im;
  memset(&im, 0, sizeof im);
  im.on = TRUE, im.kind = TFL_MASK_PROB, im.width = 5, im.height = 4, im.prob = instance_prob;
  for (gint i = 0; i < 20; i++) instance_prob[i] = (gfloat)((i * 7) % 11) / 10.0f;
  im.x = 17.3f, im.y = 11.6f, im.w = 58.4f, im.h = 37.1f, im.alpha = 0.7f;
  im.colors[1][0] = 250, im.colors[1][1] = 40, im.colors[1][2] = 10, im.colors[1][3] = 255;
  im.clipped = TRUE, im.clip_x0 = 20.3f, im.clip_y0 = 14.7f, im.clip_x1 = 70.6f, im.clip_y1 = 44.2f;
  g_array_append_val(s->instances, im);
  /* a box as ov_scene makes it, at fractional coordinates */
  gfloat bx0 = 20.3f, by0 = 14.7f, bx1 = 70.6f, by1 = 44.2f, hw = 1.5f;
  add_shape(s, bx0, by0, bx1, by0, hw, hw, OV_SHAPE_SEGMENT, 250, 40, 10, 255);
  add_shape(s, bx0, by1, bx1, by1, hw, hw, OV_SHAPE_SEGMENT, 250, 40, 10, 255);
  add_shape(s, bx0, by0, bx0, by1, hw, 0, OV_SHAPE_SEGMENT, 250, 40, 10, 255);
  add_shape(s, bx1, by0, bx1, by1, hw, 0, OV_SHAPE_SEGMENT, 250, 40, 10, 255);
  add_shape(s, 5, 55, 90, 20.5f, 2.2f, 2.2f, OV_SHAPE_SEGMENT, 30, 200, 90, 255); /* a skeleton line */
  add_shape(s, 60.2f, 50.7f, 60.2f, 50.7f, 4.1f, 0, OV_SHAPE_DISK, 240, 240, 60, 255);
  add_shape(s, 95.5f, 2, 95.5f, 2, 3, 0, OV_SHAPE_DISK, 10, 10, 250, 255); /* off the right edge */
  add_shape(s, 30, 51, 75, 51, 5, 0, OV_SHAPE_SEGMENT, 0, 0, 0, 160); /* a translucent label background */
  OvText t = { 31, 47, g_strdup("Ag 0.87"), { 255, 255, 255, 255 } };
  g_array_append_val(s->texts, t);
  OvText t2 = { -3, 1, g_strdup("cut"), { 20, 240, 240, 200 } }; /* partly off the frame */
  g_array_append_val(s->texts, t2);
}

/* Every byte outside the planes' pixels (padding) and RGBA's fourth byte unchanged. */
static void check_kept(const Frame *a, const Frame *before, const Case *c)
{
  for (gint p = 0; p < a->n; p++)
    for (gint y = 0; y < a->h[p]; y++) {
      const guint8 *ra = a->data[p] + y * a->stride[p], *rb = before->data[p] + y * a->stride[p];
      gint used = a->w[p] * a->ch[p];
      CHECK(memcmp(ra + used, rb + used, PAD) == 0, "%s plane %d row %d: padding written", c->name, p, y);
      if (c->layout == OV_SOFT_PACKED)
        for (gint x = 0; x < a->w[p]; x++) CHECK(ra[4 * x + 3] == rb[4 * x + 3], "%s: byte 3 of (%d,%d) written", c->name, x, y);
    }
}

static void render_case(const Case *c, gboolean prob, OvFont *font)
{
  OvScene scene;
  make_scene(&scene, prob);
  GArray *glyphs = g_array_new(FALSE, FALSE, sizeof(OvPlacedGlyph));
  ov_glyphs_place(&scene, font, glyphs);
  CHECK(glyphs->len >= 8, "%u glyphs placed", glyphs->len);

  Frame before, want, got;
  frame_alloc(&before, c);
  frame_copy(&want, &before);
  frame_copy(&got, &before);
  reference(&want, c, &scene, glyphs, font->atlas);
  OvSoft *soft = ov_soft_new(OV_ISA_C);
  OvSoftFrame sf = soft_frame(&got, c);
  ov_soft_draw(soft, &scene, font, &sf);
  ov_soft_free(soft);
  check_kept(&got, &before, c);

  /* worst element against the reference: weights are Q15 and each layer rounds, so one
   * level per layer at most (a mask, a shape and a glyph can stack) */
  gint worst = 0, off1 = 0, changed = 0, total = 0;
  for (gint p = 0; p < got.n; p++)
    for (gint y = 0; y < got.h[p]; y++)
      for (gint i = 0; i < got.w[p] * got.ch[p]; i++) {
        gint o = y * got.stride[p] + i, d = abs(got.data[p][o] - want.data[p][o]);
        worst = MAX(worst, d);
        off1 += d > 1;
        changed += got.data[p][o] != before.data[p][o];
        total++;
        if (d > 2) CHECK(d <= 2, "%s%s plane %d byte %d of row %d: %d, reference %d", c->name, prob ? " prob" : "", p, i, y,
                         got.data[p][o], want.data[p][o]);
      }
  CHECK(off1 * 200 <= total, "%s%s: %d of %d bytes more than 1 level from the reference", c->name, prob ? " prob" : "", off1, total);
  CHECK(changed * 10 > total, "%s%s: only %d of %d bytes drawn", c->name, prob ? " prob" : "", changed, total);
  printf("%-16s %-7s worst %d, %d bytes > 1 off, %d of %d drawn\n", c->name, prob ? "prob" : "classes", worst, off1,
         changed, total);

  /* every vector set gives the portable bytes */
  for (gint isa = OV_ISA_C + 1; isa < OV_ISA_COUNT; isa++) {
    OvSoft *v = ov_soft_new((OvIsa)isa);
    if (!v) continue;
    Frame vf;
    frame_copy(&vf, &before);
    OvSoftFrame s2 = soft_frame(&vf, c);
    ov_soft_draw(v, &scene, font, &s2);
    for (gint p = 0; p < vf.n; p++)
      CHECK(memcmp(vf.data[p], got.data[p], (gsize)vf.stride[p] * vf.h[p]) == 0, "%s%s plane %d: %s differs from c",
            c->name, prob ? " prob" : "", p, ov_isa_name((OvIsa)isa));
    frame_free(&vf);
    ov_soft_free(v);
  }
  frame_free(&before);
  frame_free(&want);
  frame_free(&got);
  g_array_unref(glyphs);
  ov_scene_clear(&scene);
}

/* A renderer sized for a small frame, then a wider one: its rows grow. */
static void rows_grow(OvFont *font)
{
  OvScene scene;
  make_scene(&scene, FALSE);
  OvSoft *soft = ov_soft_new(ov_kernels_best());
  for (gint w = 8; w <= 2 * FW; w *= 3) {
    scene.width = w;
    guint8 *px = g_malloc0((gsize)w * FH * 4);
    OvSoftFrame f = { OV_SOFT_PACKED, w, FH, { px }, { 4 * w }, { 0, 1, 2 }, 0, 0, FALSE };
    ov_soft_draw(soft, &scene, font, &f);
    g_free(px);
  }
  ov_soft_free(soft);
  ov_scene_clear(&scene);
}

int main(void)
{
  printf("instruction sets here:");
  for (gint isa = 0; isa < OV_ISA_COUNT; isa++)
    printf(" %s%s", ov_isa_name((OvIsa)isa), ov_kernels_get((OvIsa)isa) ? "" : " (not on this CPU: not checked)");
  printf("; best %s\n", ov_isa_name(ov_kernels_best()));
  CHECK(ov_kernels_get(OV_ISA_C) != NULL, "no portable kernels");
  CHECK(ov_isa_from_name("avx512") == OV_ISA_AVX512 && ov_isa_from_name("sse9") == OV_ISA_COUNT, "names");
  blend_formula();
  opaque_weight();
  for (gint isa = OV_ISA_C + 1; isa < OV_ISA_COUNT; isa++)
    if (ov_kernels_get((OvIsa)isa)) kernels_agree((OvIsa)isa);

  OvFont *font = ov_font_new(NULL);
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    render_case(&cases[i], FALSE, font);
    render_case(&cases[i], TRUE, font);
  }
  rows_grow(font);
  ov_font_free(font);
  FcFini(); /* fontconfig's caches, which pango leaves to the process */
  printf("%s\n", failures ? "FAILED" : "ok");
  return failures != 0;
}
