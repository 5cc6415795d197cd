/* ov_scene.c - see ov_scene.h */
#include "ov_scene.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define OV_LABEL_PAD 2            /* pixels between a label's text and its background edge */
#define OV_MAX_CLASS_LINES 5      /* classification results listed in the corner */
#define OV_MIN_BOX_LUMA 60        /* darker palette colours are replaced by white for lines */
#define OV_COORD_LIMIT 4.0f       /* coordinates are clamped to this many frame sizes away */
#define OV_MAX_MASK_PIXELS (16 * 1024 * 1024)

/* Cityscapes' 19 training classes, in their usual colours. */
static const guint8 cityscapes[19][3] = {
  { 128, 64, 128 }, { 244, 35, 232 }, { 70, 70, 70 },    { 102, 102, 156 }, { 190, 153, 153 },
  { 153, 153, 153 }, { 250, 170, 30 }, { 220, 220, 0 },  { 107, 142, 35 },  { 152, 251, 152 },
  { 70, 130, 180 },  { 220, 20, 60 },  { 255, 0, 0 },    { 0, 0, 142 },     { 0, 0, 70 },
  { 0, 60, 100 },    { 0, 80, 100 },   { 0, 0, 230 },    { 119, 11, 32 },
};

void ov_palette_color(OvPalette palette, gint class_id, guint8 rgb[3])
{
  guint id = class_id < 0 ? 0u : (guint)class_id;
  switch (palette) {
  case OV_PALETTE_PASCAL_VOC: {
    /* PASCAL VOC's map: the id's bits, three at a time, fill r, g, b from the top bit down */
    guint r = 0, g = 0, b = 0, c = id & 255;
    for (gint shift = 7; shift >= 0; shift--, c >>= 3) {
      r |= (c & 1) << shift;
      g |= ((c >> 1) & 1) << shift;
      b |= ((c >> 2) & 1) << shift;
    }
    rgb[0] = (guint8)r;
    rgb[1] = (guint8)g;
    rgb[2] = (guint8)b;
    return;
  }
  case OV_PALETTE_CITYSCAPES:
    memcpy(rgb, cityscapes[id % G_N_ELEMENTS(cityscapes)], 3);
    return;
  case OV_PALETTE_RAINBOW: {
    /* hues spaced by the golden angle stay apart for any number of classes */
    gdouble h = fmod(id * 0.618033988749895, 1.0) * 6.0, f = h - floor(h);
    guint8 v = 255, p = 40, q = (guint8)(255 - 215 * f), t = (guint8)(40 + 215 * f);
    const guint8 rows[6][3] = { { v, t, p }, { q, v, p }, { p, v, t },
                                { p, q, v }, { t, p, v }, { v, p, q } };
    memcpy(rgb, rows[(gint)h % 6], 3);
    return;
  }
  }
  rgb[0] = rgb[1] = rgb[2] = 255;
}

gboolean ov_class_selected(const OvSettings *s, gint class_id, const gchar *label)
{
  if (!s->classes || !s->classes[0]) return TRUE;
  for (gchar **t = s->classes; *t; t++) {
    gchar *end = NULL;
    gint64 id = g_ascii_strtoll(*t, &end, 10);
    if (end != *t && *end == '\0') {
      if (id == class_id) return TRUE;
    } else if (label && g_ascii_strcasecmp(*t, label) == 0) {
      return TRUE;
    }
  }
  return FALSE;
}

void ov_scene_init(OvScene *scene)
{
  memset(scene, 0, sizeof *scene);
  scene->shapes = g_array_new(FALSE, FALSE, sizeof(OvShape));
  scene->texts = g_array_new(FALSE, FALSE, sizeof(OvText));
  scene->instances = g_array_new(FALSE, FALSE, sizeof(OvMask));
}

static void scene_reset(OvScene *scene)
{
  for (guint i = 0; i < scene->texts->len; i++) g_free(g_array_index(scene->texts, OvText, i).text);
  g_array_set_size(scene->texts, 0);
  g_array_set_size(scene->shapes, 0);
  g_array_set_size(scene->instances, 0);
  memset(&scene->mask, 0, sizeof scene->mask);
}

void ov_scene_clear(OvScene *scene)
{
  if (!scene->shapes) return;
  scene_reset(scene);
  g_array_unref(scene->shapes);
  g_array_unref(scene->texts);
  g_array_unref(scene->instances);
  memset(scene, 0, sizeof *scene);
}

/* ---- building ---- */

typedef struct {
  OvScene *scene;
  const OvSettings *s;
  OvFont *font;
  const GstTfliteMeta *meta;
  gfloat sx, sy;   /* meta frame pixels -> this frame's pixels */
} Builder;

static gboolean finite_xy(gfloat x, gfloat y)
{
  return isfinite(x) && isfinite(y);
}

static gfloat clampf(gfloat v, gfloat lo, gfloat hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

static void map_point(const Builder *b, gfloat x, gfloat y, gfloat *ox, gfloat *oy)
{
  gfloat w = (gfloat)b->scene->width, h = (gfloat)b->scene->height;
  *ox = clampf(x * b->sx, -OV_COORD_LIMIT * w, (1 + OV_COORD_LIMIT) * w);
  *oy = clampf(y * b->sy, -OV_COORD_LIMIT * h, (1 + OV_COORD_LIMIT) * h);
}

static void line_color(const Builder *b, gint class_id, guint8 rgba[4])
{
  ov_palette_color(b->s->palette, class_id, rgba);
  if (0.299 * rgba[0] + 0.587 * rgba[1] + 0.114 * rgba[2] < OV_MIN_BOX_LUMA)
    rgba[0] = rgba[1] = rgba[2] = 255;
  rgba[3] = 255;
}

/* A tracked object keeps one colour (its track id's), others their class's; children
 * (landmarks, classes of a box) take their parent's, so each reads as part of it. */
static void object_color(const Builder *b, const GstTfliteObject *o, gint fallback, guint8 rgba[4])
{
  const GstTfliteObject *p = o->parent_id ? gst_tflite_meta_find_object(b->meta, o->parent_id) : NULL;
  if (p && p->kind == GST_TFLITE_OBJECT_DETECTION) o = p;
  if (o->kind == GST_TFLITE_OBJECT_DETECTION && o->track_id) line_color(b, (gint)(o->track_id % 1000) + 1, rgba);
  else if (o->kind == GST_TFLITE_OBJECT_DETECTION) line_color(b, o->class_id, rgba);
  else line_color(b, fallback, rgba);
}

static void add_segment(Builder *b, gfloat x0, gfloat y0, gfloat x1, gfloat y1, gfloat half_width,
                        gfloat cap, const guint8 rgba[4])
{
  OvShape sh = { x0, y0, x1, y1, half_width, cap, OV_SHAPE_SEGMENT, 0, { 0 } };
  memcpy(sh.rgba, rgba, 4);
  g_array_append_val(b->scene->shapes, sh);
}

static void add_disk(Builder *b, gfloat x, gfloat y, gfloat radius, const guint8 rgba[4])
{
  OvShape sh = { x, y, x, y, radius, 0, OV_SHAPE_DISK, 0, { 0 } };
  memcpy(sh.rgba, rgba, 4);
  g_array_append_val(b->scene->shapes, sh);
}

static void add_rect(Builder *b, gfloat x, gfloat y, gfloat w, gfloat h, const guint8 rgba[4])
{
  add_segment(b, x, y + h / 2, x + w, y + h / 2, h / 2, 0, rgba);
}

static gfloat line_half_width(const Builder *b)
{
  return (gfloat)(b->s->line_width / 2);
}

static gfloat keypoint_radius(const Builder *b)
{
  return (gfloat)MAX(2.0, b->s->line_width * 1.25);
}

/* "label 0.87", "label", "0.87" or NULL as the settings ask; unlabeled classes show
 * their id ("#17 0.87") so a result without a label file still says which class it is. */
static gchar *label_text(const Builder *b, const GstTfliteObject *o, gint class_id, gfloat score)
{
  const gchar *label = b->s->show_labels ? gst_tflite_object_label(o, class_id) : NULL;
  if (label && !g_utf8_validate(label, -1, NULL)) label = NULL;
  gboolean score_ok = b->s->show_scores && isfinite(score) && score >= 0;
  if (label && *label && score_ok) return g_strdup_printf("%s %.2f", label, score);
  if (label && *label) return g_strdup(label);
  if (b->s->show_labels && (!label || !*label) && class_id >= 0) {
    if (score_ok) return g_strdup_printf("#%d %.2f", class_id, score);
    return g_strdup_printf("#%d", class_id);
  }
  if (score_ok) return g_strdup_printf("%.2f", score);
  return NULL;
}

/* A label on a filled background whose top-left is (x, y), whole pixels; takes text. */
static void add_label(Builder *b, gfloat x, gfloat y, gchar *text, const guint8 bg[4])
{
  gfloat tw = (gfloat)ceil(ov_font_text_width(b->font, text));
  gfloat bw = tw + 2 * OV_LABEL_PAD, bh = (gfloat)(b->font->line_height + 2 * OV_LABEL_PAD);
  add_rect(b, x, y, bw, bh, bg);
  OvText t = { x + OV_LABEL_PAD, y + OV_LABEL_PAD, text, { 255, 255, 255, 255 } };
  if (0.299 * bg[0] + 0.587 * bg[1] + 0.114 * bg[2] > 150) t.rgba[0] = t.rgba[1] = t.rgba[2] = 0;
  g_array_append_val(b->scene->texts, t);
}

static gboolean keypoint_visible(const Builder *b, const tfl_keypoint *k)
{
  if (!finite_xy(k->x, k->y)) return FALSE;
  return k->score < 0 || k->score >= b->s->keypoint_threshold; /* < 0: the model gives none */
}

static void add_keypoints(Builder *b, const tfl_keypoint *kps, gint n, const guint8 rgba[4])
{
  if (!b->s->draw_keypoints || !kps) return;
  for (gint k = 0; k < n; k++) {
    if (!keypoint_visible(b, &kps[k])) continue;
    gfloat x, y;
    map_point(b, kps[k].x, kps[k].y, &x, &y);
    add_disk(b, x, y, keypoint_radius(b), rgba);
  }
}

/* The skeleton of o's keypoints: its edges whose two ends are visible. */
static void add_edges(Builder *b, const GstTfliteObject *o, gfloat hw, const guint8 rgba[4])
{
  if (!b->s->draw_keypoints || !o->keypoints) return;
  const gint n = (gint)o->n_keypoints;
  for (guint e = 0; o->edges && e < o->n_edges; e++) {
    gint a = o->edges[2 * e], z = o->edges[2 * e + 1];
    if (a < 0 || z < 0 || a >= n || z >= n) continue;
    if (!keypoint_visible(b, &o->keypoints[a]) || !keypoint_visible(b, &o->keypoints[z])) continue;
    gfloat x0, y0, x1, y1;
    map_point(b, o->keypoints[a].x, o->keypoints[a].y, &x0, &y0);
    map_point(b, o->keypoints[z].x, o->keypoints[z].y, &x1, &y1);
    add_segment(b, x0, y0, x1, y1, hw, hw, rgba);
  }
}

/* An oriented box's outline: its four sides between the rotated corners (mapped to this
 * frame), square caps closing the corners. */
static void add_rotated_box(Builder *b, const tfl_rbox *r, gfloat hw, const guint8 rgba[4])
{
  const gfloat co = cosf(r->angle), si = sinf(r->angle);
  const gfloat ux = 0.5f * r->w * co, uy = 0.5f * r->w * si, vx = -0.5f * r->h * si, vy = 0.5f * r->h * co;
  const gfloat sx[4] = { 1, 1, -1, -1 }, sy[4] = { -1, 1, 1, -1 };
  gfloat px[4], py[4];
  for (gint k = 0; k < 4; k++)
    map_point(b, r->cx + sx[k] * ux + sy[k] * vx, r->cy + sx[k] * uy + sy[k] * vy, &px[k], &py[k]);
  for (gint k = 0; k < 4; k++) add_segment(b, px[k], py[k], px[(k + 1) % 4], py[(k + 1) % 4], hw, hw, rgba);
}

/* Loops over the meta's objects of kind k_, in order (`continue` goes to the next one). */
#define FOR_OBJECTS(b, k_, o)                                               \
  for (guint i_ = 0; i_ < gst_tflite_meta_n_objects((b)->meta); i_++)       \
    for (const GstTfliteObject *o = gst_tflite_meta_get_object((b)->meta, i_); o && o->kind == (k_); o = NULL)

static gboolean box_drawn(const Builder *b, const GstTfliteObject *o)
{
  return ov_class_selected(b->s, o->class_id, gst_tflite_object_label(o, o->class_id)) && finite_xy(o->x, o->y) &&
         finite_xy(o->w, o->h) && o->w >= 0 && o->h >= 0;
}

static void build_boxes(Builder *b)
{
  gfloat hw = line_half_width(b);
  /* outlines and keypoints first, labels on top of every outline */
  FOR_OBJECTS(b, GST_TFLITE_OBJECT_DETECTION, o) {
    if (!box_drawn(b, o)) continue;
    gfloat x0, y0, x1, y1;
    map_point(b, o->x, o->y, &x0, &y0);
    map_point(b, o->x + o->w, o->y + o->h, &x1, &y1);
    guint8 c[4];
    object_color(b, o, o->class_id, c);
    if (o->oriented && finite_xy(o->rbox.cx, o->rbox.cy) && finite_xy(o->rbox.w, o->rbox.h) &&
        isfinite(o->rbox.angle)) {
      add_rotated_box(b, &o->rbox, hw, c);
    } else {
      /* four edges with square caps cover the corners like a mitred stroke */
      add_segment(b, x0, y0, x1, y0, hw, hw, c);
      add_segment(b, x0, y1, x1, y1, hw, hw, c);
      add_segment(b, x0, y0, x0, y1, hw, 0, c);
      add_segment(b, x1, y0, x1, y1, hw, 0, c);
    }
    if (o->n_keypoints > 0) {
      add_edges(b, o, hw, c);
      add_keypoints(b, o->keypoints, (gint)o->n_keypoints, c);
    }
  }
  FOR_OBJECTS(b, GST_TFLITE_OBJECT_DETECTION, o) {
    if (!box_drawn(b, o)) continue;
    gchar *text = label_text(b, o, o->class_id, o->score);
    if (o->track_id && b->s->show_labels) {
      /* the tracker's id: the same object on every frame */
      gchar *t = g_strdup_printf("%s%sid %" G_GUINT64_FORMAT, text ? text : "", text ? " " : "", o->track_id);
      g_free(text);
      text = t;
    }
    if (!text) continue;
    gfloat x0, y0;
    map_point(b, o->x, o->y, &x0, &y0);
    gfloat lh = (gfloat)(b->font->line_height + 2 * OV_LABEL_PAD);
    /* above the box's outer edge; inside it when that leaves the frame */
    gfloat lx = floorf(x0 - hw), ly = floorf(y0 - hw - lh);
    if (ly < 0) ly = floorf(y0 + hw);
    gfloat lw = (gfloat)ceil(ov_font_text_width(b->font, text)) + 2 * OV_LABEL_PAD;
    if (lx + lw > b->scene->width) lx = b->scene->width - lw;
    if (lx < 0) lx = 0;
    guint8 c[4];
    object_color(b, o, o->class_id, c);
    add_label(b, lx, ly, text, c);
  }
}

/* The classes of a box (a classifier run on its region): under the box, inside the
 * frame, in the box's colour, best class of each child classification. */
static void build_child_classes(Builder *b)
{
  gfloat hw = line_half_width(b), lh = (gfloat)(b->font->line_height + 2 * OV_LABEL_PAD);
  FOR_OBJECTS(b, GST_TFLITE_OBJECT_DETECTION, box) {
    if (!box_drawn(b, box)) continue;
    gfloat x0, y1;
    map_point(b, box->x, box->y + box->h, &x0, &y1);
    gfloat y = floorf(y1 + hw);
    for (gint i = gst_tflite_meta_next_object(b->meta, -1, 0, box->id); i >= 0;
         i = gst_tflite_meta_next_object(b->meta, i, 0, box->id)) {
      const GstTfliteObject *c = gst_tflite_meta_get_object(b->meta, (guint)i);
      if (c->kind != GST_TFLITE_OBJECT_CLASSIFICATION || c->n_classes == 0) continue;
      if (!ov_class_selected(b->s, c->classes[0].class_id, gst_tflite_object_label(c, c->classes[0].class_id)))
        continue;
      gchar *text = label_text(b, c, c->classes[0].class_id, c->classes[0].score);
      if (!text) continue;
      gfloat lw = (gfloat)ceil(ov_font_text_width(b->font, text)) + 2 * OV_LABEL_PAD;
      gfloat lx = floorf(x0 - hw), ly = y + lh > b->scene->height ? b->scene->height - lh : y;
      if (lx + lw > b->scene->width) lx = b->scene->width - lw;
      if (lx < 0) lx = 0;
      guint8 col[4];
      object_color(b, c, c->classes[0].class_id, col);
      add_label(b, lx, ly, text, col);
      y += lh;
    }
  }
}

static void build_poses(Builder *b)
{
  if (!b->s->draw_keypoints) return;
  gfloat hw = line_half_width(b);
  gint index = 0;
  FOR_OBJECTS(b, GST_TFLITE_OBJECT_LANDMARKS, o) {
    index++;
    if (o->class_id >= 0 && !ov_class_selected(b->s, o->class_id, gst_tflite_object_label(o, o->class_id)))
      continue;
    if (o->n_keypoints == 0 || !o->keypoints) continue;
    gint n = (gint)o->n_keypoints;
    guint8 c[4];
    object_color(b, o, o->class_id >= 0 ? o->class_id : index, c);
    add_edges(b, o, hw, c);
    add_keypoints(b, o->keypoints, n, c);
  }
}

static void build_classes(Builder *b)
{
  static const guint8 bg[4] = { 0, 0, 0, 160 };
  gfloat y = 4;
  gint lines = 0;
  FOR_OBJECTS(b, GST_TFLITE_OBJECT_CLASSIFICATION, o) {
    /* a box's classes go under the box (build_child_classes) */
    const GstTfliteObject *p = o->parent_id ? gst_tflite_meta_find_object(b->meta, o->parent_id) : NULL;
    if (p && p->kind == GST_TFLITE_OBJECT_DETECTION) continue;
    for (guint i = 0; i < o->n_classes && lines < OV_MAX_CLASS_LINES; i++) {
      const tfl_class *c = &o->classes[i];
      if (!ov_class_selected(b->s, c->class_id, gst_tflite_object_label(o, c->class_id))) continue;
      gchar *text = label_text(b, o, c->class_id, c->score);
      if (!text) continue;
      add_label(b, 4, y, text, bg);
      y += b->font->line_height + 2 * OV_LABEL_PAD + 2;
      lines++;
    }
  }
}

/* Whether segmentation o is a box's own mask: made with its parent box (same source). */
static const GstTfliteObject *instance_parent(const Builder *b, const GstTfliteObject *o)
{
  const GstTfliteObject *p = o->parent_id ? gst_tflite_meta_find_object(b->meta, o->parent_id) : NULL;
  return p && p->kind == GST_TFLITE_OBJECT_DETECTION && p->source == o->source && o->mask &&
             o->mask->kind == TFL_MASK_PROB ? p : NULL;
}

/* om for segmentation obj's mask, placed in this frame; FALSE when it cannot be drawn. */
static gboolean fill_mask(Builder *b, const GstTfliteObject *obj, OvMask *om)
{
  const GstTfliteMask *m = obj->mask;
  if (m->kind != TFL_MASK_CLASSES && m->kind != TFL_MASK_PROB) return FALSE;
  if (m->width <= 0 || m->height <= 0 || (gint64)m->width * m->height > OV_MAX_MASK_PIXELS) return FALSE;
  if (b->s->mask_alpha <= 0) return FALSE;
  const guint8 *classes = m->kind == TFL_MASK_CLASSES ? m->classes : NULL;
  const gfloat *prob = m->kind == TFL_MASK_PROB ? m->prob : NULL;
  gpointer gl_context = NULL;
  guint texture = gst_tflite_mask_texture(m, &gl_context);
  if (!classes && !prob && !texture) return FALSE;
  gfloat x = obj->x, y = obj->y, w = obj->w, h = obj->h;
  if (!finite_xy(x, y) || !finite_xy(w, h) || w <= 0 || h <= 0) { /* unplaced: the whole frame */
    x = y = 0;
    w = b->meta->frame_width > 0 ? b->meta->frame_width : b->scene->width;
    h = b->meta->frame_height > 0 ? b->meta->frame_height : b->scene->height;
  }
  map_point(b, x, y, &om->x, &om->y);
  gfloat x1, y1;
  map_point(b, x + w, y + h, &x1, &y1);
  om->w = x1 - om->x;
  om->h = y1 - om->y;
  if (om->w <= 0 || om->h <= 0) return FALSE;
  om->kind = m->kind;
  om->width = m->width;
  om->height = m->height;
  om->classes = classes;
  om->prob = prob;
  om->texture = texture;
  om->gl_context = gl_context;
  om->gl_buffer = texture ? m->gl_buffer : NULL;
  om->alpha = (gfloat)CLAMP(b->s->mask_alpha, 0.0, 1.0);
  return TRUE;
}

/* The frame mask: the meta's first segmentation that is no box's own mask. */
static void build_mask(Builder *b)
{
  const GstTfliteObject *obj = NULL;
  FOR_OBJECTS(b, GST_TFLITE_OBJECT_SEGMENTATION, o) {
    if (!obj && o->mask && !instance_parent(b, o)) obj = o;
  }
  if (!obj) return;
  OvMask *om = &b->scene->mask;
  if (!fill_mask(b, obj, om)) return;
  const GstTfliteMask *m = obj->mask;
  for (gint c = 0; c < 256; c++) {
    ov_palette_color(b->s->palette, c, om->colors[c]);
    /* class 0 of an argmax mask is the background: left as it is */
    gboolean drawn = (m->kind == TFL_MASK_PROB || c > 0) && ov_class_selected(b->s, c, gst_tflite_object_label(obj, c));
    om->colors[c][3] = drawn ? 255 : 0;
  }
  om->on = m->kind == TFL_MASK_PROB ? om->colors[1][3] != 0 : TRUE;
}

/* The boxes' own masks: each in its box's colour, inside its box, for the boxes drawn. */
static void build_instances(Builder *b)
{
  FOR_OBJECTS(b, GST_TFLITE_OBJECT_SEGMENTATION, o) {
    const GstTfliteObject *p = instance_parent(b, o);
    if (!p || !box_drawn(b, p)) continue;
    OvMask om;
    memset(&om, 0, sizeof om);
    if (!fill_mask(b, o, &om)) continue;
    object_color(b, p, p->class_id, om.colors[1]);
    om.colors[1][3] = 255;
    map_point(b, p->x, p->y, &om.clip_x0, &om.clip_y0);
    map_point(b, p->x + p->w, p->y + p->h, &om.clip_x1, &om.clip_y1);
    om.clipped = TRUE;
    om.on = TRUE;
    g_array_append_val(b->scene->instances, om);
  }
}

gboolean ov_scene_build(OvScene *scene, const GstTfliteMeta *meta, gint width, gint height,
                        const OvSettings *settings, OvFont *font)
{
  scene_reset(scene);
  scene->width = width;
  scene->height = height;
  scene->line_height = font->line_height;
  if (!meta || width <= 0 || height <= 0) return FALSE;
  Builder b = { scene, settings, font, meta, 1, 1 };
  /* results are in the pixels of the frame tflitefilter saw; follow a later size change */
  if (meta->frame_width > 0 && meta->frame_height > 0) {
    b.sx = (gfloat)width / meta->frame_width;
    b.sy = (gfloat)height / meta->frame_height;
  }
  build_mask(&b);
  build_instances(&b);
  build_boxes(&b);
  build_poses(&b);
  build_child_classes(&b);
  build_classes(&b);
  return scene->mask.on || scene->instances->len > 0 || scene->shapes->len > 0 || scene->texts->len > 0;
}
