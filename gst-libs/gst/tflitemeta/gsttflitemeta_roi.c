/* gsttflitemeta_roi.c - a meta's objects mirrored as GStreamer's standard
 * GstVideoRegionOfInterestMeta, so applications and other frameworks (DL Streamer's
 * conventions, any language through GstVideo's bindings) read them without our library.
 *
 * Each region holds parameter structures:
 *   detection      confidence, label_id, label, x_min, y_min, x_max, y_max (0..1),
 *                  object_id, source
 *   classification label, label_id, confidence, rank (0 = best), object_id, source
 *                  (one per class result, best first)
 *   landmarks      points (x0, y0, x1, y1, ... 0..1), scores, label_id, object_id, source
 *   segmentation   mask_width, mask_height, classes, x_min..y_max, object_id, source
 *   tracking       id (the tracker's id, stable across frames)
 * Region ids count from 1 in each buffer (after any region already there); parent_id is
 * the parent's region id, 0 for none. docs/objects.md lists all of it. */
#include "gsttflitemeta.h"
#include "gsttflitemeta_views_priv.h"

#include <gst/video/video.h>

#include <stdio.h>

#define FRAME_ROI_TYPE "frame"

static gint next_roi_id(GstBuffer *buffer)
{
  gpointer state = NULL;
  GstMeta *m;
  gint max = 0;
  while ((m = gst_buffer_iterate_meta_filtered(buffer, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)))
    max = MAX(max, ((GstVideoRegionOfInterestMeta *)m)->id);
  return max + 1;
}

static gdouble norm(gfloat v, gint size)
{
  return size > 0 ? CLAMP((gdouble)v / size, 0.0, 1.0) : 0.0;
}

/* object_id and source: which of our objects a structure came from */
static void set_origin(GstStructure *s, const GstTfliteObject *o)
{
  gst_structure_set(s, "object_id", G_TYPE_UINT64, o->id, "source", G_TYPE_STRING,
                    o->source ? g_quark_to_string(o->source) : "", NULL);
}

static void set_box(GstStructure *s, const GstTfliteMeta *meta, gfloat x, gfloat y, gfloat w, gfloat h)
{
  gst_structure_set(s, "x_min", G_TYPE_DOUBLE, norm(x, meta->frame_width), "y_min", G_TYPE_DOUBLE,
                    norm(y, meta->frame_height), "x_max", G_TYPE_DOUBLE, norm(x + w, meta->frame_width), "y_max",
                    G_TYPE_DOUBLE, norm(y + h, meta->frame_height), NULL);
}

static void append_double(GValue *array, gdouble d)
{
  GValue v = G_VALUE_INIT;
  g_value_init(&v, G_TYPE_DOUBLE);
  g_value_set_double(&v, d);
  gst_value_array_append_and_take_value(array, &v);
}

static GstStructure *landmarks_param(const GstTfliteMeta *meta, const GstTfliteObject *o)
{
  GValue points = G_VALUE_INIT, scores = G_VALUE_INIT;
  g_value_init(&points, GST_TYPE_ARRAY);
  g_value_init(&scores, GST_TYPE_ARRAY);
  for (guint k = 0; k < o->n_keypoints; k++) {
    /* not clamped: a landmark may lie beyond the frame edge (a person partly outside) */
    append_double(&points, meta->frame_width > 0 ? o->keypoints[k].x / meta->frame_width : 0.0);
    append_double(&points, meta->frame_height > 0 ? o->keypoints[k].y / meta->frame_height : 0.0);
    append_double(&scores, o->keypoints[k].score);
  }
  GstStructure *s = gst_structure_new("landmarks", "label_id", G_TYPE_INT,
                                      o->kind == GST_TFLITE_OBJECT_LANDMARKS ? o->class_id : -1, NULL);
  gst_structure_take_value(s, "points", &points);
  gst_structure_take_value(s, "scores", &scores);
  set_origin(s, o);
  return s;
}

static gchar *roi_type_of(const GstTfliteObject *o)
{
  const gchar *label = gst_tflite_object_label(o, o->class_id);
  if (label) return g_strdup(label);
  if (o->class_id >= 0) return g_strdup_printf("#%d", o->class_id);
  return g_strdup(o->kind == GST_TFLITE_OBJECT_LANDMARKS ? "landmarks" : "object");
}

static GstVideoRegionOfInterestMeta *add_roi(GstBuffer *buffer, const gchar *type, gfloat x, gfloat y, gfloat w,
                                             gfloat h, const GstTfliteMeta *meta, gint *next_id, gint parent_id)
{
  /* frame pixels to the meta's unsigned ints, clamped to the frame */
  gfloat x0 = CLAMP(x, 0.0f, (gfloat)meta->frame_width), y0 = CLAMP(y, 0.0f, (gfloat)meta->frame_height);
  gfloat x1 = CLAMP(x + w, x0, (gfloat)meta->frame_width), y1 = CLAMP(y + h, y0, (gfloat)meta->frame_height);
  GstVideoRegionOfInterestMeta *roi = gst_buffer_add_video_region_of_interest_meta(
    buffer, type, (guint)(x0 + 0.5f), (guint)(y0 + 0.5f), (guint)(x1 - x0 + 0.5f), (guint)(y1 - y0 + 0.5f));
  if (!roi) return NULL;
  roi->id = (*next_id)++;
  roi->parent_id = parent_id;
  return roi;
}

static GstVideoRegionOfInterestMeta *frame_roi(GstTfliteMeta *meta, GstBuffer *buffer, gint *next_id, guint *added)
{
  GstVideoRegionOfInterestMeta *roi =
    meta->frame_roi_id > 0 ? gst_buffer_get_video_region_of_interest_meta_id(buffer, meta->frame_roi_id) : NULL;
  if (roi) return roi;
  roi = add_roi(buffer, FRAME_ROI_TYPE, 0, 0, (gfloat)meta->frame_width, (gfloat)meta->frame_height, meta, next_id,
                0);
  if (roi) {
    meta->frame_roi_id = roi->id;
    (*added)++;
  }
  return roi;
}

/* The region `o` adds its parameters to: its parent's, or the frame's. */
static GstVideoRegionOfInterestMeta *owner_roi(GstTfliteMeta *meta, GstBuffer *buffer, const GstTfliteObject *o,
                                               gint *next_id, guint *added)
{
  const GstTfliteObject *p = gst_tflite_meta_find_object(meta, o->parent_id);
  GstVideoRegionOfInterestMeta *roi =
    p && p->roi_id > 0 ? gst_buffer_get_video_region_of_interest_meta_id(buffer, p->roi_id) : NULL;
  return roi ? roi : frame_roi(meta, buffer, next_id, added);
}

static gint parent_roi_id(const GstTfliteMeta *meta, const GstTfliteObject *o)
{
  const GstTfliteObject *p = gst_tflite_meta_find_object(meta, o->parent_id);
  return p && p->roi_id > 0 ? p->roi_id : 0;
}

/* A region of its own: detections, and landmarks that belong to no box. */
static GstVideoRegionOfInterestMeta *own_roi(GstTfliteMeta *meta, GstBuffer *buffer, const GstTfliteObject *o,
                                             gint *next_id)
{
  gfloat x = o->x, y = o->y, w = o->w, h = o->h;
  if (o->kind == GST_TFLITE_OBJECT_LANDMARKS && o->n_keypoints > 0) {
    /* the box the points span */
    gfloat x0 = G_MAXFLOAT, y0 = G_MAXFLOAT, x1 = -G_MAXFLOAT, y1 = -G_MAXFLOAT;
    for (guint k = 0; k < o->n_keypoints; k++) {
      x0 = MIN(x0, o->keypoints[k].x), x1 = MAX(x1, o->keypoints[k].x);
      y0 = MIN(y0, o->keypoints[k].y), y1 = MAX(y1, o->keypoints[k].y);
    }
    x = x0, y = y0, w = x1 - x0, h = y1 - y0;
  }
  gchar *type = roi_type_of(o);
  GstVideoRegionOfInterestMeta *roi = add_roi(buffer, type, x, y, w, h, meta, next_id, parent_roi_id(meta, o));
  g_free(type);
  if (!roi) return NULL;
  if (o->kind == GST_TFLITE_OBJECT_DETECTION) {
    const gchar *label = gst_tflite_object_label(o, o->class_id);
    GstStructure *s = gst_structure_new("detection", "confidence", G_TYPE_DOUBLE, (gdouble)o->score, "label_id",
                                        G_TYPE_INT, o->class_id, "label", G_TYPE_STRING, label ? label : "", NULL);
    set_box(s, meta, o->x, o->y, o->w, o->h);
    if (o->oriented) /* the rotated box (frame pixels), the region being its bounds */
      gst_structure_set(s, "center_x", G_TYPE_DOUBLE, (gdouble)o->rbox.cx, "center_y", G_TYPE_DOUBLE,
                        (gdouble)o->rbox.cy, "rotated_width", G_TYPE_DOUBLE, (gdouble)o->rbox.w, "rotated_height",
                        G_TYPE_DOUBLE, (gdouble)o->rbox.h, "rotation", G_TYPE_DOUBLE, (gdouble)o->rbox.angle, NULL);
    set_origin(s, o);
    gst_video_region_of_interest_meta_add_param(roi, s);
  }
  if (o->n_keypoints > 0) gst_video_region_of_interest_meta_add_param(roi, landmarks_param(meta, o));
  return roi;
}

static void add_classifications(GstVideoRegionOfInterestMeta *roi, const GstTfliteObject *o)
{
  for (guint k = 0; k < o->n_classes; k++) {
    const gchar *label = gst_tflite_object_label(o, o->classes[k].class_id);
    GstStructure *s = gst_structure_new("classification", "label", G_TYPE_STRING, label ? label : "", "label_id",
                                        G_TYPE_INT, o->classes[k].class_id, "confidence", G_TYPE_DOUBLE,
                                        (gdouble)o->classes[k].score, "rank", G_TYPE_INT, (gint)k, NULL);
    set_origin(s, o);
    gst_video_region_of_interest_meta_add_param(roi, s);
  }
}

static void add_segmentation(GstVideoRegionOfInterestMeta *roi, const GstTfliteMeta *meta, const GstTfliteObject *o)
{
  const GstTfliteMask *m = o->mask;
  GstStructure *s = gst_structure_new("segmentation", "mask_width", G_TYPE_INT, m ? m->width : 0, "mask_height",
                                      G_TYPE_INT, m ? m->height : 0, "classes", G_TYPE_INT, m ? m->n_classes : 0,
                                      NULL);
  set_box(s, meta, o->x, o->y, o->w, o->h);
  set_origin(s, o);
  gst_video_region_of_interest_meta_add_param(roi, s);
}

/* The tracker's id on the object's own region, replaced when it changes. */
static void sync_tracking(GstBuffer *buffer, const GstTfliteObject *o)
{
  if (!o->track_id || o->roi_id <= 0) return;
  if (o->kind != GST_TFLITE_OBJECT_DETECTION && !(o->kind == GST_TFLITE_OBJECT_LANDMARKS && !o->parent_id)) return;
  GstVideoRegionOfInterestMeta *roi = gst_buffer_get_video_region_of_interest_meta_id(buffer, o->roi_id);
  if (!roi) return;
  GstStructure *s = gst_video_region_of_interest_meta_get_param(roi, "tracking");
  if (s) gst_structure_set(s, "id", G_TYPE_UINT64, o->track_id, NULL);
  else gst_video_region_of_interest_meta_add_param(roi, gst_structure_new("tracking", "id", G_TYPE_UINT64, o->track_id,
                                                                           NULL));
}

/* One object's region (or parameters on its owner's): 1 when a region was added. */
static guint roi_object(GstTfliteMeta *meta, GstBuffer *buffer, GstTfliteObject *o, gint *next_id)
{
  if (o->roi_id > 0) {
    sync_tracking(buffer, o);
    return 0;
  }
  GstVideoRegionOfInterestMeta *roi = NULL;
  guint added = 0;
  switch (o->kind) {
  case GST_TFLITE_OBJECT_DETECTION:
    if ((roi = own_roi(meta, buffer, o, next_id))) added++;
    break;
  case GST_TFLITE_OBJECT_LANDMARKS:
    if (parent_roi_id(meta, o) > 0) {
      roi = owner_roi(meta, buffer, o, next_id, &added);
      if (roi) gst_video_region_of_interest_meta_add_param(roi, landmarks_param(meta, o));
    } else if ((roi = own_roi(meta, buffer, o, next_id))) {
      added++;
    }
    break;
  case GST_TFLITE_OBJECT_CLASSIFICATION:
    if ((roi = owner_roi(meta, buffer, o, next_id, &added))) add_classifications(roi, o);
    break;
  case GST_TFLITE_OBJECT_SEGMENTATION:
    if ((roi = owner_roi(meta, buffer, o, next_id, &added))) add_segmentation(roi, meta, o);
    break;
  }
  if (roi) {
    o->roi_id = roi->id;
    sync_tracking(buffer, o);
  }
  return added;
}

/* One pass over the objects builds both views of each (its region, its analytics mtd);
 * then the tensors. */
guint gst_tflite_meta_sync_rois(GstTfliteMeta *meta, GstBuffer *buffer)
{
  g_return_val_if_fail(meta && GST_IS_BUFFER(buffer), 0);
  g_return_val_if_fail(gst_buffer_is_writable(buffer), 0);
  gint next_id = next_roi_id(buffer);
  guint added = 0;
  gpointer relation = NULL;
  for (guint i = 0; i < meta->objects->len; i++) {
    GstTfliteObject *o = &g_array_index(meta->objects, GstTfliteObject, i);
    added += roi_object(meta, buffer, o, &next_id);
    gst_tflite_meta_analytics_object(meta, buffer, &relation, o);
  }
  gst_tflite_meta_sync_tensors(meta, buffer);
  return added;
}
