/* gsttflitemeta.c - see gsttflitemeta.h */
#include "gsttflitemeta.h"

#include <gst/video/video.h>

#include <string.h>

GType gst_tflite_meta_api_get_type(void)
{
  static GType type;
  static const gchar *tags[] = { GST_META_TAG_VIDEO_STR, NULL };
  if (g_once_init_enter(&type)) {
    GType t = gst_meta_api_type_register("GstTfliteMetaAPI", tags);
    g_once_init_leave(&type, t);
  }
  return type;
}

static gboolean meta_init(GstMeta *meta, gpointer params, GstBuffer *buffer)
{
  GstTfliteMeta *m = (GstTfliteMeta *)meta;
  memset(&m->results, 0, sizeof m->results);
  m->labels = NULL;
  m->mask_texture = 0;
  m->gl_context = NULL;
  m->frame_width = m->frame_height = 0;
  return TRUE;
}

static void meta_free(GstMeta *meta, GstBuffer *buffer)
{
  GstTfliteMeta *m = (GstTfliteMeta *)meta;
  tfl_results_clear(&m->results);
  if (m->labels) g_ptr_array_unref(m->labels);
  if (m->gl_context) gst_object_unref(m->gl_context);
}

static gboolean meta_transform(GstBuffer *dest, GstMeta *meta, GstBuffer *buffer, GQuark type,
                               gpointer data)
{
  GstTfliteMeta *src = (GstTfliteMeta *)meta;
  /* results are in frame pixels: only plain copies keep them valid */
  if (!GST_META_TRANSFORM_IS_COPY(type)) return FALSE;
  GstTfliteMeta *dst =
    (GstTfliteMeta *)gst_buffer_add_meta(dest, GST_TFLITE_META_INFO, NULL);
  if (!dst) return FALSE;
  tfl_results_copy(&dst->results, &src->results);
  dst->labels = src->labels ? g_ptr_array_ref(src->labels) : NULL;
  dst->mask_texture = src->mask_texture;
  dst->gl_context = src->gl_context ? gst_object_ref(src->gl_context) : NULL;
  dst->frame_width = src->frame_width;
  dst->frame_height = src->frame_height;
  return TRUE;
}

const GstMetaInfo *gst_tflite_meta_get_info(void)
{
  static const GstMetaInfo *info;
  if (g_once_init_enter(&info)) {
    const GstMetaInfo *i = gst_meta_register(GST_TFLITE_META_API_TYPE, "GstTfliteMeta",
                                             sizeof(GstTfliteMeta), meta_init, meta_free,
                                             meta_transform);
    g_once_init_leave(&info, i);
  }
  return info;
}

GstTfliteMeta *gst_buffer_add_tflite_meta(GstBuffer *buffer, tfl_results *results,
                                          GPtrArray *labels, gint frame_width, gint frame_height)
{
  GstTfliteMeta *m = (GstTfliteMeta *)gst_buffer_add_meta(buffer, GST_TFLITE_META_INFO, NULL);
  if (!m) return NULL;
  m->results = *results;
  memset(results, 0, sizeof *results);
  m->labels = labels ? g_ptr_array_ref(labels) : NULL;
  m->frame_width = frame_width;
  m->frame_height = frame_height;
  return m;
}

const gchar *gst_tflite_meta_label(const GstTfliteMeta *meta, gint class_id)
{
  if (!meta->labels || class_id < 0 || (guint)class_id >= meta->labels->len) return NULL;
  return g_ptr_array_index(meta->labels, class_id);
}

static void add_keypoints(GValue *list, const tfl_keypoint *kp, int n)
{
  for (int k = 0; k < n; k++) {
    GValue v = G_VALUE_INIT;
    g_value_init(&v, GST_TYPE_STRUCTURE);
    GstStructure *s = gst_structure_new("keypoint", "x", G_TYPE_DOUBLE, (double)kp[k].x, "y",
                                        G_TYPE_DOUBLE, (double)kp[k].y, "score", G_TYPE_DOUBLE,
                                        (double)kp[k].score, NULL);
    gst_value_set_structure(&v, s);
    gst_structure_free(s);
    gst_value_list_append_and_take_value(list, &v);
  }
}

/* What a bus watch wants from a mask without the pixels: the share of the mask each
 * class covers (class masks), or the share at or above 0.5 (probability masks). */
static void add_mask_summary(GstStructure *out, const GstTfliteMeta *meta)
{
  const tfl_mask *m = &meta->results.mask;
  size_t n = (size_t)m->width * (size_t)m->height;
  if (n == 0) return;
  if (m->kind == TFL_MASK_PROB && m->prob) {
    size_t fg = 0;
    for (size_t i = 0; i < n; i++) fg += m->prob[i] >= 0.5f;
    gst_structure_set(out, "mask-fraction", G_TYPE_DOUBLE, (double)fg / (double)n, NULL);
    return;
  }
  if (m->kind != TFL_MASK_CLASSES || !m->classes) return;
  size_t count[256] = { 0 };
  for (size_t i = 0; i < n; i++) count[m->classes[i]]++;
  GValue list = G_VALUE_INIT;
  g_value_init(&list, GST_TYPE_LIST);
  for (int c = 0; c < 256; c++) {
    if (!count[c]) continue;
    const gchar *label = gst_tflite_meta_label(meta, c);
    GValue v = G_VALUE_INIT;
    g_value_init(&v, GST_TYPE_STRUCTURE);
    GstStructure *s = gst_structure_new("mask-class", "id", G_TYPE_INT, c, "label", G_TYPE_STRING,
                                        label ? label : "", "fraction", G_TYPE_DOUBLE,
                                        (double)count[c] / (double)n, NULL);
    gst_value_set_structure(&v, s);
    gst_structure_free(s);
    gst_value_list_append_and_take_value(&list, &v);
  }
  gst_structure_take_value(out, "mask-areas", &list);
}

GstStructure *gst_tflite_meta_to_structure(const GstTfliteMeta *meta)
{
  const tfl_results *r = &meta->results;
  GstStructure *out = gst_structure_new_empty("tflite-results");
  GValue classes = G_VALUE_INIT, boxes = G_VALUE_INIT, poses = G_VALUE_INIT;
  g_value_init(&classes, GST_TYPE_LIST);
  g_value_init(&boxes, GST_TYPE_LIST);
  g_value_init(&poses, GST_TYPE_LIST);
  for (int i = 0; i < r->n_classes; i++) {
    const gchar *label = gst_tflite_meta_label(meta, r->classes[i].class_id);
    GValue v = G_VALUE_INIT;
    g_value_init(&v, GST_TYPE_STRUCTURE);
    GstStructure *s = gst_structure_new("class", "id", G_TYPE_INT, r->classes[i].class_id,
                                        "label", G_TYPE_STRING, label ? label : "", "score",
                                        G_TYPE_DOUBLE, (double)r->classes[i].score, NULL);
    gst_value_set_structure(&v, s);
    gst_structure_free(s);
    gst_value_list_append_and_take_value(&classes, &v);
  }
  for (int i = 0; i < r->n_boxes; i++) {
    const tfl_box *b = &r->boxes[i];
    const gchar *label = gst_tflite_meta_label(meta, b->class_id);
    GValue kps = G_VALUE_INIT, v = G_VALUE_INIT;
    g_value_init(&kps, GST_TYPE_LIST);
    add_keypoints(&kps, b->keypoints, b->n_keypoints);
    GstStructure *s = gst_structure_new("box", "id", G_TYPE_INT, b->class_id, "label",
                                        G_TYPE_STRING, label ? label : "", "score", G_TYPE_DOUBLE,
                                        (double)b->score, "x", G_TYPE_DOUBLE, (double)b->x, "y",
                                        G_TYPE_DOUBLE, (double)b->y, "width", G_TYPE_DOUBLE,
                                        (double)b->w, "height", G_TYPE_DOUBLE, (double)b->h, NULL);
    gst_structure_take_value(s, "keypoints", &kps);
    g_value_init(&v, GST_TYPE_STRUCTURE);
    gst_value_set_structure(&v, s);
    gst_structure_free(s);
    gst_value_list_append_and_take_value(&boxes, &v);
  }
  for (int i = 0; i < r->n_poses; i++) {
    GValue kps = G_VALUE_INIT, v = G_VALUE_INIT;
    g_value_init(&kps, GST_TYPE_LIST);
    add_keypoints(&kps, r->poses[i].keypoints, r->poses[i].n_keypoints);
    GstStructure *s = gst_structure_new("pose", "score", G_TYPE_DOUBLE, (double)r->poses[i].score,
                                        NULL);
    gst_structure_take_value(s, "keypoints", &kps);
    g_value_init(&v, GST_TYPE_STRUCTURE);
    gst_value_set_structure(&v, s);
    gst_structure_free(s);
    gst_value_list_append_and_take_value(&poses, &v);
  }
  gst_structure_take_value(out, "classes", &classes);
  gst_structure_take_value(out, "boxes", &boxes);
  gst_structure_take_value(out, "poses", &poses);
  if (r->mask.kind != TFL_MASK_NONE) {
    gst_structure_set(out, "mask-width", G_TYPE_INT, r->mask.width, "mask-height", G_TYPE_INT,
                      r->mask.height, "mask-classes", G_TYPE_INT, r->mask.n_classes, NULL);
    add_mask_summary(out, meta);
  }
  return out;
}
