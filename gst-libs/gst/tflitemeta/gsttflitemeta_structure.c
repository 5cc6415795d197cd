/* gsttflitemeta_structure.c - a meta's objects as the "tflite-results" GstStructure of
 * tflitefilter's bus messages (fields listed in docs/bus-messages.md). */
#include "gsttflitemeta.h"

static void add_keypoints(GValue *list, const tfl_keypoint *kp, guint n)
{
  for (guint k = 0; k < n; k++) {
    GValue v = G_VALUE_INIT;
    g_value_init(&v, GST_TYPE_STRUCTURE);
    GstStructure *s = gst_structure_new("keypoint", "x", G_TYPE_DOUBLE, (double)kp[k].x, "y", G_TYPE_DOUBLE,
                                        (double)kp[k].y, "score", G_TYPE_DOUBLE, (double)kp[k].score, NULL);
    gst_value_set_structure(&v, s);
    gst_structure_free(s);
    gst_value_list_append_and_take_value(list, &v);
  }
}

static void append_structure(GValue *list, GstStructure *s)
{
  GValue v = G_VALUE_INIT;
  g_value_init(&v, GST_TYPE_STRUCTURE);
  gst_value_set_structure(&v, s);
  gst_structure_free(s);
  gst_value_list_append_and_take_value(list, &v);
}

/* ids every object entry carries */
static void set_ids(GstStructure *s, const GstTfliteObject *o)
{
  gst_structure_set(s, "object-id", G_TYPE_UINT64, o->id, "parent-id", G_TYPE_UINT64, o->parent_id, "track-id",
                    G_TYPE_UINT64, o->track_id, "age", G_TYPE_UINT, o->age, NULL);
}

/* What a bus watch wants from a mask without its pixels: the share of the mask each class
 * covers (class masks), or the share at or above 0.5 (probability masks). A mask that
 * lives only on the GPU has no CPU pixels: "mask-gpu-only" says so. */
static void add_mask(GstStructure *out, const GstTfliteObject *o)
{
  const GstTfliteMask *m = o->mask;
  gst_structure_set(out, "mask-width", G_TYPE_INT, m->width, "mask-height", G_TYPE_INT, m->height, "mask-classes",
                    G_TYPE_INT, m->n_classes, "mask-object-id", G_TYPE_UINT64, o->id, NULL);
  gsize n = (gsize)m->width * (gsize)m->height;
  if (n == 0) return;
  if (!m->classes && !m->prob) {
    gst_structure_set(out, "mask-gpu-only", G_TYPE_BOOLEAN, TRUE, NULL);
    return;
  }
  if (m->kind == TFL_MASK_PROB && m->prob) {
    gsize fg = 0;
    for (gsize i = 0; i < n; i++) fg += m->prob[i] >= 0.5f;
    gst_structure_set(out, "mask-fraction", G_TYPE_DOUBLE, (double)fg / (double)n, NULL);
    return;
  }
  if (m->kind != TFL_MASK_CLASSES || !m->classes) return;
  gsize count[256] = { 0 };
  for (gsize i = 0; i < n; i++) count[m->classes[i]]++;
  GValue list = G_VALUE_INIT;
  g_value_init(&list, GST_TYPE_LIST);
  for (gint c = 0; c < 256; c++) {
    if (!count[c]) continue;
    const gchar *label = gst_tflite_object_label(o, c);
    append_structure(&list, gst_structure_new("mask-class", "id", G_TYPE_INT, c, "label", G_TYPE_STRING,
                                              label ? label : "", "fraction", G_TYPE_DOUBLE,
                                              (double)count[c] / (double)n, NULL));
  }
  gst_structure_take_value(out, "mask-areas", &list);
}

GstStructure *gst_tflite_meta_to_structure(const GstTfliteMeta *meta, GQuark source)
{
  GstStructure *out = gst_structure_new_empty("tflite-results");
  GValue classes = G_VALUE_INIT, boxes = G_VALUE_INIT, poses = G_VALUE_INIT;
  g_value_init(&classes, GST_TYPE_LIST);
  g_value_init(&boxes, GST_TYPE_LIST);
  g_value_init(&poses, GST_TYPE_LIST);
  for (gint i = gst_tflite_meta_next_object(meta, -1, source, G_MAXUINT64); i >= 0;
       i = gst_tflite_meta_next_object(meta, i, source, G_MAXUINT64)) {
    const GstTfliteObject *o = gst_tflite_meta_get_object(meta, (guint)i);
    switch (o->kind) {
    case GST_TFLITE_OBJECT_CLASSIFICATION:
      for (guint k = 0; k < o->n_classes; k++) {
        const gchar *label = gst_tflite_object_label(o, o->classes[k].class_id);
        GstStructure *s = gst_structure_new("class", "id", G_TYPE_INT, o->classes[k].class_id, "label",
                                            G_TYPE_STRING, label ? label : "", "score", G_TYPE_DOUBLE,
                                            (double)o->classes[k].score, NULL);
        set_ids(s, o);
        append_structure(&classes, s);
      }
      break;
    case GST_TFLITE_OBJECT_DETECTION: {
      const gchar *label = gst_tflite_object_label(o, o->class_id);
      GValue kps = G_VALUE_INIT;
      g_value_init(&kps, GST_TYPE_LIST);
      add_keypoints(&kps, o->keypoints, o->n_keypoints);
      GstStructure *s = gst_structure_new("box", "id", G_TYPE_INT, o->class_id, "label", G_TYPE_STRING,
                                          label ? label : "", "score", G_TYPE_DOUBLE, (double)o->score, "x",
                                          G_TYPE_DOUBLE, (double)o->x, "y", G_TYPE_DOUBLE, (double)o->y, "width",
                                          G_TYPE_DOUBLE, (double)o->w, "height", G_TYPE_DOUBLE, (double)o->h, NULL);
      gst_structure_take_value(s, "keypoints", &kps);
      if (o->oriented)
        gst_structure_set(s, "center-x", G_TYPE_DOUBLE, (double)o->rbox.cx, "center-y", G_TYPE_DOUBLE,
                          (double)o->rbox.cy, "rotated-width", G_TYPE_DOUBLE, (double)o->rbox.w, "rotated-height",
                          G_TYPE_DOUBLE, (double)o->rbox.h, "angle", G_TYPE_DOUBLE, (double)o->rbox.angle, NULL);
      /* its own mask (instance segmentation): the share of the mask at or above 0.5 */
      for (gint c = gst_tflite_meta_next_object(meta, -1, 0, o->id); c >= 0;
           c = gst_tflite_meta_next_object(meta, c, 0, o->id)) {
        const GstTfliteObject *m = gst_tflite_meta_get_object(meta, (guint)c);
        if (m->kind != GST_TFLITE_OBJECT_SEGMENTATION || m->source != o->source || !m->mask || !m->mask->prob)
          continue;
        gsize n = (gsize)m->mask->width * (gsize)m->mask->height, fg = 0;
        for (gsize k = 0; k < n; k++) fg += m->mask->prob[k] >= 0.5f;
        gst_structure_set(s, "mask-width", G_TYPE_INT, m->mask->width, "mask-height", G_TYPE_INT, m->mask->height,
                          "mask-fraction", G_TYPE_DOUBLE, n ? (double)fg / (double)n : 0.0, "mask-object-id",
                          G_TYPE_UINT64, m->id, NULL);
        break;
      }
      set_ids(s, o);
      append_structure(&boxes, s);
      break;
    }
    case GST_TFLITE_OBJECT_LANDMARKS: {
      GValue kps = G_VALUE_INIT;
      g_value_init(&kps, GST_TYPE_LIST);
      add_keypoints(&kps, o->keypoints, o->n_keypoints);
      /* x, y, width, height: the person's box, or the area the pose model saw */
      GstStructure *s = gst_structure_new("pose", "score", G_TYPE_DOUBLE, (double)o->score, "id", G_TYPE_INT,
                                          o->class_id, "x", G_TYPE_DOUBLE, (double)o->x, "y", G_TYPE_DOUBLE,
                                          (double)o->y, "width", G_TYPE_DOUBLE, (double)o->w, "height", G_TYPE_DOUBLE,
                                          (double)o->h, NULL);
      gst_structure_take_value(s, "keypoints", &kps);
      set_ids(s, o);
      append_structure(&poses, s);
      break;
    }
    case GST_TFLITE_OBJECT_SEGMENTATION: {
      /* a box's own mask (made with the box) is described in the box's entry */
      const GstTfliteObject *p = o->parent_id ? gst_tflite_meta_find_object(meta, o->parent_id) : NULL;
      if (o->mask && !(p && p->kind == GST_TFLITE_OBJECT_DETECTION && p->source == o->source)) add_mask(out, o);
      break;
    }
    }
  }
  gst_structure_take_value(out, "classes", &classes);
  gst_structure_take_value(out, "boxes", &boxes);
  gst_structure_take_value(out, "poses", &poses);
  return out;
}
