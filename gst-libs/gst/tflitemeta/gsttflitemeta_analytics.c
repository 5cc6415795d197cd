/* gsttflitemeta_analytics.c - a meta's objects in GStreamer's analytics metadata
 * (GstAnalyticsRelationMeta, gst-plugins-bad >= 1.24), and analytics results made by other
 * elements taken into the objects meta (so tfliteoverlay draws them).
 *
 * Mirrored: DETECTION -> object-detection mtd (label quark, box, confidence; an oriented
 * box, analytics >= 1.26: the oriented mtd, its unrotated box and clockwise rotation); its
 * CLASSIFICATION children -> a classification mtd related to the box (RELATE_TO both
 * ways; whole-frame classes alone); track_id -> a tracking mtd related to the box; a
 * DETECTION inside another -> CONTAIN / IS_PART_OF.
 * SEGMENTATION (analytics >= 1.26; a box's own mask too, located at its mask's rectangle and
 * related to the box) -> a semantic segmentation mtd whose mask is a GRAY8
 * buffer with a GstVideoMeta, located where the mask lies in the frame (the frame, or its
 * parent box, related to that box's mtd): CPU class maps are wrapped without a copy (the
 * buffer holds a ref of our mask), probabilities become ids 0/1 (>= 0.5) in a new buffer,
 * a GL-only class map is handed as its GL buffer (readers wait on its GstGLSyncMeta); a
 * GL-only probability mask is skipped (its texture holds probability * 255, not ids, and
 * we do not read GL memory back here). Region ids: the classes present; a classification
 * mtd related to the segmentation names them (one per region index, confidence -1).
 * Landmarks are not mirrored: neither 1.24 nor 1.26 has a keypoint mtd.
 * Built only when the build finds gstreamer-analytics-1.0; otherwise the calls do nothing. */
#include "gsttflitemeta.h"
#include "gsttflitemeta_views_priv.h"

#ifdef HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#include <gst/video/video.h>

#include <math.h>

#define IMPORTED_SOURCE "analytics"

static GQuark label_quark(const GstTfliteObject *o, gint class_id)
{
  const gchar *l = gst_tflite_object_label(o, class_id);
  if (l) return g_quark_from_string(l);
  gchar id[16];
  g_snprintf(id, sizeof id, "#%d", class_id);
  return class_id >= 0 ? g_quark_from_string(id) : 0;
}

static void relate(GstAnalyticsRelationMeta *r, guint a, guint b, GstAnalyticsRelTypes ab, GstAnalyticsRelTypes ba)
{
  gst_analytics_relation_meta_set_relation(r, ab, a, b);
  gst_analytics_relation_meta_set_relation(r, ba, b, a);
}

#ifdef HAVE_GST_ANALYTICS_SEGMENTATION
static void mask_unref(gpointer mask)
{
  gst_tflite_mask_unref(mask);
}

/* A GRAY8 buffer of region ids for `m` with its video meta, and the ids present (ids[256]
 * filled, count returned in *n_ids); NULL when the mask cannot be handed over. */
static GstBuffer *mask_buffer(GstTfliteMask *m, guint ids[256], gsize *n_ids)
{
  gsize n = (gsize)m->width * (gsize)m->height;
  GstBuffer *buf = NULL;
  const guint8 *px = NULL;
  *n_ids = 0;
  if (m->kind == TFL_MASK_CLASSES && m->classes) {
    /* our pixels, read-only, kept alive by the buffer's ref of the mask */
    buf = gst_buffer_new_wrapped_full(GST_MEMORY_FLAG_READONLY, m->classes, n, 0, n, gst_tflite_mask_ref(m),
                                      mask_unref);
    px = m->classes;
  } else if (m->kind == TFL_MASK_PROB && m->prob) {
    guint8 *bin = g_malloc(n);
    for (gsize i = 0; i < n; i++) bin[i] = m->prob[i] >= 0.5f;
    buf = gst_buffer_new_wrapped(bin, n);
    px = bin;
  } else if (m->kind == TFL_MASK_CLASSES && m->gl_buffer) {
    /* GL only: the R8 texture holds the class ids; the ids present are not known
     * without reading it back, so every class of the model is listed */
    GstVideoMeta *vm = gst_buffer_get_video_meta(m->gl_buffer);
    if (!vm || vm->format != GST_VIDEO_FORMAT_GRAY8) return NULL;
    for (gint c = 0; c < m->n_classes && c < 256; c++) ids[(*n_ids)++] = (guint)c;
    return gst_buffer_ref(m->gl_buffer);
  } else {
    return NULL;
  }
  /* rows are packed: the stride is the width (gst_buffer_add_video_meta would pad to 4) */
  gsize offset = 0;
  gint stride = m->width;
  gst_buffer_add_video_meta_full(buf, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_GRAY8, (guint)m->width,
                                 (guint)m->height, 1, &offset, &stride);
  gboolean seen[256] = { FALSE };
  for (gsize i = 0; i < n; i++) seen[px[i]] = TRUE;
  for (guint c = 0; c < 256; c++)
    if (seen[c]) ids[(*n_ids)++] = c;
  return buf;
}

/* The segmentation mtd of SEGMENTATION object `o` (and a classification mtd naming its
 * regions); FALSE when the mask cannot be handed over. */
static gboolean add_segmentation(GstAnalyticsRelationMeta *r, GstTfliteObject *o, const GstTfliteObject *p)
{
  guint ids[256];
  gsize n_ids;
  if (!o->mask || o->mask->width <= 0 || o->mask->height <= 0) return FALSE;
  GstBuffer *buf = mask_buffer(o->mask, ids, &n_ids);
  if (!buf) return FALSE;
  gint x0 = (gint)lroundf(o->x), y0 = (gint)lroundf(o->y);
  gint x1 = (gint)lroundf(o->x + o->w), y1 = (gint)lroundf(o->y + o->h);
  GstAnalyticsSegmentationMtd seg;
  /* the mtd takes the buffer */
  if (!gst_analytics_relation_meta_add_segmentation_mtd(r, buf, GST_SEGMENTATION_TYPE_SEMANTIC, n_ids, ids, x0, y0,
                                                        (guint)MAX(x1 - x0, 0), (guint)MAX(y1 - y0, 0), &seg)) {
    gst_buffer_unref(buf);
    return FALSE;
  }
  o->analytics_id = seg.id + 1;
  if (p && p->analytics_id)
    relate(r, p->analytics_id - 1, seg.id, GST_ANALYTICS_REL_TYPE_RELATE_TO, GST_ANALYTICS_REL_TYPE_RELATE_TO);
  /* class names by region index (a probability mask's ids 0/1 are not classes) */
  if (o->mask->kind != TFL_MASK_CLASSES || !o->labels || n_ids == 0) return TRUE;
  gfloat conf[256];
  GQuark q[256];
  for (gsize k = 0; k < n_ids; k++) {
    conf[k] = -1.0f;
    q[k] = label_quark(o, (gint)ids[k]);
  }
  GstAnalyticsClsMtd cls;
  if (gst_analytics_relation_meta_add_cls_mtd(r, n_ids, conf, q, &cls))
    relate(r, seg.id, cls.id, GST_ANALYTICS_REL_TYPE_RELATE_TO, GST_ANALYTICS_REL_TYPE_RELATE_TO);
  return TRUE;
}
#endif

guint gst_tflite_meta_analytics_object(GstTfliteMeta *meta, GstBuffer *buffer, gpointer *relation, GstTfliteObject *o)
{
  GstAnalyticsRelationMeta *r = *relation;
  guint added = 0;
  const GstTfliteObject *p = gst_tflite_meta_find_object(meta, o->parent_id);
  gboolean mirrored = o->kind == GST_TFLITE_OBJECT_DETECTION || o->kind == GST_TFLITE_OBJECT_CLASSIFICATION;
#ifdef HAVE_GST_ANALYTICS_SEGMENTATION
  mirrored = mirrored || o->kind == GST_TFLITE_OBJECT_SEGMENTATION;
#endif
  if (!r) r = gst_buffer_get_analytics_relation_meta(buffer);
  if (!r && mirrored && !o->analytics_id) r = gst_buffer_add_analytics_relation_meta(buffer);
  *relation = r;
  if (!r) return 0;
  if (o->kind == GST_TFLITE_OBJECT_DETECTION && !o->analytics_id) {
    GstAnalyticsODMtd od;
    gboolean ok;
#ifdef HAVE_GST_ANALYTICS_ORIENTED
    if (o->oriented && isfinite(o->rbox.cx + o->rbox.cy + o->rbox.w + o->rbox.h + o->rbox.angle)) {
      /* the box before rotation (top-left, size) and its clockwise turn about its centre, in [0, 2 pi) */
      gfloat turn = fmodf(o->rbox.angle, 2.0f * (gfloat)G_PI);
      if (turn < 0) turn += 2.0f * (gfloat)G_PI;
      ok = gst_analytics_relation_meta_add_oriented_od_mtd(
        r, label_quark(o, o->class_id), (gint)lroundf(o->rbox.cx - o->rbox.w / 2), (gint)lroundf(o->rbox.cy - o->rbox.h / 2),
        (gint)lroundf(o->rbox.w), (gint)lroundf(o->rbox.h), turn, o->score < 0 ? 1.0f : o->score, &od);
    } else
#endif
      ok = gst_analytics_relation_meta_add_od_mtd(r, label_quark(o, o->class_id), (gint)o->x, (gint)o->y, (gint)o->w,
                                                  (gint)o->h, o->score < 0 ? 1.0f : o->score, &od);
    if (!ok) return added;
    o->analytics_id = od.id + 1;
    added++;
    if (p && p->kind == GST_TFLITE_OBJECT_DETECTION && p->analytics_id)
      relate(r, p->analytics_id - 1, od.id, GST_ANALYTICS_REL_TYPE_CONTAIN, GST_ANALYTICS_REL_TYPE_IS_PART_OF);
  } else if (o->kind == GST_TFLITE_OBJECT_CLASSIFICATION && !o->analytics_id && o->n_classes > 0) {
    gfloat *conf = g_new(gfloat, o->n_classes);
    GQuark *q = g_new(GQuark, o->n_classes);
    for (guint k = 0; k < o->n_classes; k++) {
      conf[k] = o->classes[k].score;
      q[k] = label_quark(o, o->classes[k].class_id);
    }
    GstAnalyticsClsMtd cls;
    if (gst_analytics_relation_meta_add_cls_mtd(r, o->n_classes, conf, q, &cls)) {
      o->analytics_id = cls.id + 1;
      added++;
      if (p && p->analytics_id)
        relate(r, p->analytics_id - 1, cls.id, GST_ANALYTICS_REL_TYPE_RELATE_TO, GST_ANALYTICS_REL_TYPE_RELATE_TO);
    }
    g_free(conf);
    g_free(q);
  }
#ifdef HAVE_GST_ANALYTICS_SEGMENTATION
  if (o->kind == GST_TFLITE_OBJECT_SEGMENTATION && !o->analytics_id && add_segmentation(r, o, p)) added++;
#endif
  if (o->kind == GST_TFLITE_OBJECT_DETECTION && o->analytics_id && o->track_id && o->analytics_track != o->track_id) {
    GstAnalyticsTrackingMtd trk;
    if (gst_analytics_relation_meta_add_tracking_mtd(r, o->track_id, GST_CLOCK_TIME_NONE, &trk)) {
      relate(r, o->analytics_id - 1, trk.id, GST_ANALYTICS_REL_TYPE_RELATE_TO, GST_ANALYTICS_REL_TYPE_RELATE_TO);
      o->analytics_track = o->track_id;
      added++;
    }
  }
  return added;
}

guint gst_tflite_meta_sync_analytics(GstTfliteMeta *meta, GstBuffer *buffer)
{
  g_return_val_if_fail(meta && GST_IS_BUFFER(buffer) && gst_buffer_is_writable(buffer), 0);
  gpointer relation = NULL;
  guint added = 0;
  for (guint i = 0; i < meta->objects->len; i++)
    added += gst_tflite_meta_analytics_object(meta, buffer, &relation, &g_array_index(meta->objects, GstTfliteObject, i));
  return added;
}

/* Whether an object already stands for analytics mtd `id`. */
static gboolean known(const GstTfliteMeta *meta, guint id)
{
  for (guint i = 0; i < gst_tflite_meta_n_objects(meta); i++)
    if (gst_tflite_meta_get_object(meta, i)->analytics_id == id + 1) return TRUE;
  return FALSE;
}

GstTfliteMeta *gst_tflite_meta_import_analytics(GstBuffer *buffer, gint frame_width, gint frame_height)
{
  GstTfliteMeta *meta = gst_buffer_get_tflite_meta(buffer);
  GstAnalyticsRelationMeta *r = gst_buffer_get_analytics_relation_meta(buffer);
  if (!r || !gst_buffer_is_writable(buffer)) return meta;
  if (!meta) meta = gst_buffer_add_tflite_meta(buffer, frame_width, frame_height);
  if (!meta) return NULL;
  gpointer state = NULL;
  GstAnalyticsODMtd od;
  while (gst_analytics_relation_meta_iterate(r, &state, gst_analytics_od_mtd_get_mtd_type(), &od)) {
    if (known(meta, od.id)) continue;
    gint x, y, w, h;
    gfloat conf;
    if (!gst_analytics_od_mtd_get_location(&od, &x, &y, &w, &h, &conf)) continue;
    GstTfliteObject o = { 0 };
    o.kind = GST_TFLITE_OBJECT_DETECTION;
    o.source = g_quark_from_static_string(IMPORTED_SOURCE);
    o.x = (gfloat)x, o.y = (gfloat)y, o.w = (gfloat)w, o.h = (gfloat)h;
    o.score = conf;
    o.roi_id = -1;
    o.analytics_id = od.id + 1;
    GQuark type = gst_analytics_od_mtd_get_obj_type(&od);
    o.class_id = type ? 0 : -1;
    if (type) {
      o.labels = g_ptr_array_new_with_free_func(g_free);
      g_ptr_array_add(o.labels, g_strdup(g_quark_to_string(type)));
    }
    gpointer rs = NULL;
    GstAnalyticsTrackingMtd trk;
    if (gst_analytics_relation_meta_get_direct_related(r, od.id, GST_ANALYTICS_REL_TYPE_ANY,
                                                       gst_analytics_tracking_mtd_get_mtd_type(), &rs, &trk)) {
      guint64 id;
      GstClockTime first, last;
      gboolean lost;
      if (gst_analytics_tracking_mtd_get_info(&trk, &id, &first, &last, &lost)) {
        o.track_id = id;
        o.analytics_track = id;
      }
    }
    gst_tflite_meta_add_object(meta, &o);
  }
  return meta;
}

#else

guint gst_tflite_meta_analytics_object(GstTfliteMeta *meta, GstBuffer *buffer, gpointer *relation, GstTfliteObject *o)
{
  return 0;
}

guint gst_tflite_meta_sync_analytics(GstTfliteMeta *meta, GstBuffer *buffer)
{
  return 0;
}

GstTfliteMeta *gst_tflite_meta_import_analytics(GstBuffer *buffer, gint frame_width, gint frame_height)
{
  return gst_buffer_get_tflite_meta(buffer);
}

#endif
