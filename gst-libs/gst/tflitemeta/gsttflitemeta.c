/* gsttflitemeta.c - see gsttflitemeta.h */
#include "gsttflitemeta.h"
#include "gsttflitemeta_tensors_priv.h"

#include <gst/gl/gl.h>
#include <gst/video/video.h>

#include <string.h>

/* ---- masks ---------------------------------------------------------------------- */

/**
 * gst_tflite_mask_new: (skip)
 *
 * C only (plain C arrays); see gsttflitemeta.h.
 */
GstTfliteMask *gst_tflite_mask_new(tfl_mask *m, GstBuffer *gl_buffer)
{
  GstTfliteMask *mask = g_new0(GstTfliteMask, 1);
  mask->refcount = 1;
  mask->kind = m->kind;
  mask->width = m->width;
  mask->height = m->height;
  mask->n_classes = m->n_classes;
  mask->classes = m->classes;
  mask->prob = m->prob;
  m->classes = NULL;
  m->prob = NULL;
  mask->gl_buffer = gl_buffer ? gst_buffer_ref(gl_buffer) : NULL;
  return mask;
}

/**
 * gst_tflite_mask_ref: (skip)
 *
 * C only (plain C arrays); see gsttflitemeta.h.
 */
GstTfliteMask *gst_tflite_mask_ref(GstTfliteMask *mask)
{
  g_atomic_int_inc(&mask->refcount);
  return mask;
}

/**
 * gst_tflite_mask_unref: (skip)
 *
 * C only (plain C arrays); see gsttflitemeta.h.
 */
void gst_tflite_mask_unref(GstTfliteMask *mask)
{
  if (!mask || !g_atomic_int_dec_and_test(&mask->refcount)) return;
  /* a GL mask goes back to its pool here, on whatever thread frees the last buffer */
  if (mask->gl_buffer) gst_buffer_unref(mask->gl_buffer);
  free(mask->classes); /* tfl_results arrays are malloc'd by the decoders */
  free(mask->prob);
  g_free(mask);
}

guint gst_tflite_mask_texture(const GstTfliteMask *mask, gpointer *gl_context)
{
  if (gl_context) *gl_context = NULL;
  if (!mask || !mask->gl_buffer || gst_buffer_n_memory(mask->gl_buffer) < 1) return 0;
  GstMemory *mem = gst_buffer_peek_memory(mask->gl_buffer, 0);
  if (!gst_is_gl_memory(mem)) return 0;
  if (gl_context) *gl_context = ((GstGLBaseMemory *)mem)->context;
  return gst_gl_memory_get_texture_id((GstGLMemory *)mem);
}

/* ---- objects -------------------------------------------------------------------- */

const gchar *gst_tflite_object_label(const GstTfliteObject *obj, gint class_id)
{
  if (!obj || !obj->labels || class_id < 0 || (guint)class_id >= obj->labels->len) return NULL;
  const gchar *l = g_ptr_array_index(obj->labels, class_id);
  return l && l[0] ? l : NULL;
}

/**
 * gst_tflite_object_class_in:
 * @obj: an object
 * @wanted: (array zero-terminated=1) (nullable): labels or "#id"s
 *
 * Returns: whether @obj's class is one of @wanted (all when @wanted is NULL)
 */
gboolean gst_tflite_object_class_in(const GstTfliteObject *obj, gchar **wanted)
{
  if (!wanted) return TRUE;
  const gchar *label = gst_tflite_object_label(obj, obj->class_id);
  gchar id[16];
  g_snprintf(id, sizeof id, "#%d", obj->class_id);
  for (gchar **l = wanted; *l; l++)
    if ((label && !g_ascii_strcasecmp(label, *l)) || !strcmp(id, *l)) return TRUE;
  return FALSE;
}

/**
 * gst_tflite_object_get_keypoint:
 * @obj: an object
 * @index: which keypoint
 * @x: (out): frame pixels
 * @y: (out): frame pixels
 * @score: (out): 0..1, < 0 when the model gives none
 *
 * Returns: FALSE when @index is out of range
 */
gboolean gst_tflite_object_get_keypoint(const GstTfliteObject *obj, guint index, gfloat *x, gfloat *y, gfloat *score)
{
  if (!obj || index >= obj->n_keypoints) return FALSE;
  *x = obj->keypoints[index].x;
  *y = obj->keypoints[index].y;
  *score = obj->keypoints[index].score;
  return TRUE;
}

/**
 * gst_tflite_object_get_class:
 * @obj: a CLASSIFICATION object
 * @index: rank, 0 = best
 * @class_id: (out): index into the labels
 * @score: (out): 0..1
 *
 * Returns: FALSE when @index is out of range
 */
gboolean gst_tflite_object_get_class(const GstTfliteObject *obj, guint index, gint *class_id, gfloat *score)
{
  if (!obj || index >= obj->n_classes) return FALSE;
  *class_id = obj->classes[index].class_id;
  *score = obj->classes[index].score;
  return TRUE;
}

/**
 * gst_tflite_object_get_source:
 * @obj: an object
 *
 * Returns: (transfer none): the name of the element that made @obj
 */
const gchar *gst_tflite_object_get_source(const GstTfliteObject *obj)
{
  return obj && obj->source ? g_quark_to_string(obj->source) : "";
}

guint64 gst_tflite_object_new_id(void)
{
  /* process-wide so ids stay unique when several elements add to one buffer */
  static guint64 next = 0;
  static GMutex lock;
  g_mutex_lock(&lock);
  guint64 id = ++next;
  g_mutex_unlock(&lock);
  return id;
}

static void object_clear(GstTfliteObject *o)
{
  free(o->classes);
  if (o->keypoints) free(o->keypoints);
  gst_tflite_mask_unref(o->mask);
  if (o->labels) g_ptr_array_unref(o->labels);
  memset(o, 0, sizeof *o);
}

/* Deep copy; FALSE on OOM (dst is then cleared). */
static gboolean object_copy(GstTfliteObject *dst, const GstTfliteObject *src)
{
  *dst = *src;
  dst->classes = NULL;
  dst->keypoints = NULL;
  if (src->n_classes) {
    dst->classes = malloc(sizeof *src->classes * src->n_classes);
    if (!dst->classes) goto oom;
    memcpy(dst->classes, src->classes, sizeof *src->classes * src->n_classes);
  }
  if (src->n_keypoints) {
    dst->keypoints = malloc(sizeof *src->keypoints * src->n_keypoints);
    if (!dst->keypoints) goto oom;
    memcpy(dst->keypoints, src->keypoints, sizeof *src->keypoints * src->n_keypoints);
  }
  if (dst->mask) gst_tflite_mask_ref(dst->mask);
  if (dst->labels) g_ptr_array_ref(dst->labels);
  return TRUE;
oom:
  free(dst->classes);
  memset(dst, 0, sizeof *dst);
  return FALSE;
}

/* ---- the meta ------------------------------------------------------------------- */

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
  m->frame_width = m->frame_height = 0;
  m->frame_roi_id = 0;
  m->objects = g_array_new(FALSE, TRUE, sizeof(GstTfliteObject));
  m->tensors = gst_tflite_tensors_array_new();
  return TRUE;
}

static void meta_free(GstMeta *meta, GstBuffer *buffer)
{
  GstTfliteMeta *m = (GstTfliteMeta *)meta;
  for (guint i = 0; i < m->objects->len; i++) object_clear(&g_array_index(m->objects, GstTfliteObject, i));
  g_array_free(m->objects, TRUE);
  gst_tflite_tensors_array_free(m->tensors);
}

static gboolean meta_transform(GstBuffer *dest, GstMeta *meta, GstBuffer *buffer, GQuark type,
                               gpointer data)
{
  GstTfliteMeta *src = (GstTfliteMeta *)meta;
  /* coordinates are frame pixels: only plain copies keep them valid */
  if (!GST_META_TRANSFORM_IS_COPY(type)) return FALSE;
  GstTfliteMeta *dst = gst_buffer_get_tflite_meta(dest);
  if (!dst) dst = gst_buffer_add_tflite_meta(dest, src->frame_width, src->frame_height);
  if (!dst) return FALSE;
  /* the region metas travel with their own transform, keeping their ids */
  if (!dst->frame_roi_id) dst->frame_roi_id = src->frame_roi_id;
  for (guint i = 0; i < src->objects->len; i++) {
    GstTfliteObject o;
    if (!object_copy(&o, &g_array_index(src->objects, GstTfliteObject, i))) return FALSE;
    g_array_append_val(dst->objects, o);
  }
  gst_tflite_tensors_array_append(dst->tensors, src->tensors);
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

/**
 * gst_buffer_add_tflite_meta: (skip)
 *
 * C only (plain C arrays); see gsttflitemeta.h.
 */
GstTfliteMeta *gst_buffer_add_tflite_meta(GstBuffer *buffer, gint frame_width, gint frame_height)
{
  g_return_val_if_fail(GST_IS_BUFFER(buffer), NULL);
  GstTfliteMeta *m = gst_buffer_get_tflite_meta(buffer);
  if (!m) {
    if (!gst_buffer_is_writable(buffer)) return NULL;
    m = (GstTfliteMeta *)gst_buffer_add_meta(buffer, GST_TFLITE_META_INFO, NULL);
    if (!m) return NULL;
  }
  if (m->frame_width <= 0 || m->frame_height <= 0) {
    m->frame_width = frame_width;
    m->frame_height = frame_height;
  }
  return m;
}

/**
 * gst_tflite_buffer_get_meta:
 * @buffer: a buffer
 *
 * Returns: (transfer none) (nullable): the buffer's #GstTfliteMeta
 */
GstTfliteMeta *gst_tflite_buffer_get_meta(GstBuffer *buffer)
{
  return buffer ? gst_buffer_get_tflite_meta(buffer) : NULL;
}

guint gst_tflite_meta_n_objects(const GstTfliteMeta *meta)
{
  return meta ? meta->objects->len : 0;
}

const GstTfliteObject *gst_tflite_meta_get_object(const GstTfliteMeta *meta, guint index)
{
  if (!meta || index >= meta->objects->len) return NULL;
  return &g_array_index(meta->objects, GstTfliteObject, index);
}

/**
 * gst_tflite_meta_get_object_writable: (skip)
 *
 * C only: writable access for elements that update objects (trackers).
 */
GstTfliteObject *gst_tflite_meta_get_object_writable(GstTfliteMeta *meta, guint index)
{
  if (!meta || index >= meta->objects->len) return NULL;
  return &g_array_index(meta->objects, GstTfliteObject, index);
}

const GstTfliteObject *gst_tflite_meta_find_object(const GstTfliteMeta *meta, guint64 id)
{
  for (guint i = 0; meta && id && i < meta->objects->len; i++)
    if (g_array_index(meta->objects, GstTfliteObject, i).id == id)
      return &g_array_index(meta->objects, GstTfliteObject, i);
  return NULL;
}

gint gst_tflite_meta_next_object(const GstTfliteMeta *meta, gint from, GQuark source, guint64 parent_id)
{
  if (!meta) return -1;
  for (guint i = from < 0 ? 0 : (guint)from + 1; i < meta->objects->len; i++) {
    const GstTfliteObject *o = &g_array_index(meta->objects, GstTfliteObject, i);
    if ((source == 0 || o->source == source) && (parent_id == G_MAXUINT64 || o->parent_id == parent_id))
      return (gint)i;
  }
  return -1;
}

/**
 * gst_tflite_meta_add_object: (skip)
 *
 * C only (plain C arrays); see gsttflitemeta.h.
 */
GstTfliteObject *gst_tflite_meta_add_object(GstTfliteMeta *meta, GstTfliteObject *obj)
{
  if (!obj->id) obj->id = gst_tflite_object_new_id();
  g_array_append_val(meta->objects, *obj);
  memset(obj, 0, sizeof *obj);
  return &g_array_index(meta->objects, GstTfliteObject, meta->objects->len - 1);
}

static GstTfliteObject new_object(GstTfliteObjectKind kind, GQuark source, guint64 parent_id, const gfloat area[4],
                                  GPtrArray *labels)
{
  GstTfliteObject o = { 0 };
  o.kind = kind;
  o.source = source;
  o.parent_id = parent_id;
  o.x = area[0];
  o.y = area[1];
  o.w = area[2];
  o.h = area[3];
  o.class_id = -1;
  o.score = -1.0f;
  o.roi_id = -1;
  o.labels = labels ? g_ptr_array_ref(labels) : NULL;
  return o;
}

/**
 * gst_tflite_meta_add_results: (skip)
 *
 * C only (plain C arrays); see gsttflitemeta.h.
 */
guint gst_tflite_meta_add_results(GstTfliteMeta *meta, tfl_results *r, GQuark source, guint64 parent_id,
                                  const gfloat area[4], GPtrArray *labels, GstBuffer *gl_mask)
{
  guint added = 0;
  for (int i = 0; i < r->n_boxes; i++) {
    tfl_box *b = &r->boxes[i];
    GstTfliteObject o = new_object(GST_TFLITE_OBJECT_DETECTION, source, parent_id, (gfloat[4]){ b->x, b->y, b->w, b->h },
                                   labels);
    o.class_id = b->class_id;
    o.score = b->score;
    o.n_keypoints = b->n_keypoints > 0 ? (guint)b->n_keypoints : 0;
    o.keypoints = b->keypoints;
    o.n_edges = b->n_edges > 0 && b->edges ? (guint)b->n_edges : 0;
    o.edges = o.n_edges ? b->edges : NULL;
    o.oriented = b->oriented;
    o.rbox = b->rbox;
    b->keypoints = NULL;
    b->n_keypoints = 0;
    const guint64 box_id = gst_tflite_meta_add_object(meta, &o)->id;
    added++;
    if (b->mask.prob && b->mask.width > 0 && b->mask.height > 0) {
      /* the box's own mask: a child of the box, so readers find it by its parent */
      const tfl_box_mask *bm = &b->mask;
      GstTfliteObject seg = new_object(GST_TFLITE_OBJECT_SEGMENTATION, source, box_id,
                                       (gfloat[4]){ bm->frame_x, bm->frame_y, bm->frame_w, bm->frame_h }, labels);
      tfl_mask m = { .kind = TFL_MASK_PROB, .width = bm->width, .height = bm->height, .n_classes = 2,
                     .prob = bm->prob };
      seg.mask = gst_tflite_mask_new(&m, NULL);
      b->mask.prob = NULL;
      gst_tflite_meta_add_object(meta, &seg);
      added++;
    }
  }
  if (r->n_classes > 0) {
    GstTfliteObject o = new_object(GST_TFLITE_OBJECT_CLASSIFICATION, source, parent_id, area, labels);
    o.n_classes = (guint)r->n_classes;
    o.classes = r->classes;
    o.class_id = r->classes[0].class_id;
    o.score = r->classes[0].score;
    r->classes = NULL;
    r->n_classes = 0;
    gst_tflite_meta_add_object(meta, &o);
    added++;
  }
  for (int i = 0; i < r->n_poses; i++) {
    tfl_pose *p = &r->poses[i];
    GstTfliteObject o = new_object(GST_TFLITE_OBJECT_LANDMARKS, source, parent_id, p->has_box ? p->box : area, labels);
    o.class_id = p->class_id;
    o.score = p->score;
    o.n_keypoints = p->n_keypoints > 0 ? (guint)p->n_keypoints : 0;
    o.keypoints = p->keypoints;
    o.n_edges = p->n_edges > 0 ? (guint)p->n_edges : 0;
    o.edges = p->edges;
    p->keypoints = NULL;
    p->n_keypoints = 0;
    gst_tflite_meta_add_object(meta, &o);
    added++;
  }
  if (r->mask.kind != TFL_MASK_NONE) {
    const tfl_mask *m = &r->mask;
    gfloat where[4] = { m->frame_x, m->frame_y, m->frame_w, m->frame_h };
    GstTfliteObject o = new_object(GST_TFLITE_OBJECT_SEGMENTATION, source, parent_id,
                                   m->frame_w > 0 && m->frame_h > 0 ? where : area, labels);
    o.mask = gst_tflite_mask_new(&r->mask, gl_mask);
    gst_tflite_meta_add_object(meta, &o);
    added++;
  }
  gst_tflite_meta_add_tensors(meta, r, source, parent_id);
  tfl_results_clear(r);
  return added;
}
