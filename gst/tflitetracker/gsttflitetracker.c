/**
 * SECTION:element-tflitetracker
 * @title: tflitetracker
 *
 * Gives the objects of upstream tflitefilters stable ids across frames (SORT-style: each
 * track's box moves at constant velocity, detections are assigned to the predicted boxes
 * by overlap, a track is confirmed after #GstTfliteTracker:min-hits matches and kept
 * through #GstTfliteTracker:max-age frames without one). It sets each tracked
 * DETECTION object's track_id (and the "tracking" parameter of its
 * GstVideoRegionOfInterestMeta). On frames where the detector did not run
 * (inference-interval, QoS: objects whose age is > 0) boxes and their children move to
 * the predicted place instead of repeating an old one; when a confirmed track misses its
 * detection, a predicted DETECTION object of this element bridges the gap for up to
 * #GstTfliteTracker:predict-frames frames, so boxes neither blink nor jump.
 *
 * An element message "tflite-track" is posted when an object enters (its track is
 * confirmed) and when it leaves (dropped after max-age misses): fields event ("enter" or
 * "leave"), track-id, label, x, y, width, height (frame pixels), active (tracks now),
 * total (entered so far), timestamp. docs/bus-messages.md lists them.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 -m filesrc location=people.mp4 ! decodebin ! videoconvert ! \
 *   tflitefilter name=det model=ssd.tflite labels=coco.txt ! \
 *   tflitetracker source=det labels=person ! tfliteoverlay ! autovideosink
 * ]|
 *
 * Since: 0.1
 */
#include "gsttflitetracker.h"

#include <string.h>

#include <gst/tflitemeta/gsttflitemeta.h>
#include "gst/tflitefilter/gsttflitenames.h"

GST_DEBUG_CATEGORY_STATIC(gst_tflite_tracker_debug);
#define GST_CAT_DEFAULT gst_tflite_tracker_debug

#define DEFAULT_IOU 0.3f
#define DEFAULT_MIN_HITS 3
#define DEFAULT_MAX_AGE 30
#define DEFAULT_PREDICT_FRAMES 5

enum { PROP_0, PROP_SOURCE, PROP_LABELS, PROP_IOU, PROP_MIN_HITS, PROP_MAX_AGE, PROP_PREDICT_FRAMES };

static GstStaticPadTemplate sink_template =
  GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS("video/x-raw(ANY)"));
static GstStaticPadTemplate src_template =
  GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS("video/x-raw(ANY)"));

G_DEFINE_TYPE(GstTfliteTracker, gst_tflite_tracker, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE(tflitetracker, "tflitetracker", GST_RANK_NONE, GST_TYPE_TFLITE_TRACKER,
                                      GST_DEBUG_CATEGORY_INIT(gst_tflite_tracker_debug, "tflitetracker", 0,
                                                              "Object tracking across frames"));

/* What a track was last seen as, for its predicted objects and its messages. */
typedef struct {
  gint class_id;
  GPtrArray *labels;  /* ref or NULL */
} track_info;

static void track_info_free(gpointer p)
{
  track_info *i = p;
  if (i->labels) g_ptr_array_unref(i->labels);
  g_free(i);
}

static const gchar *label_of(const track_info *i)
{
  if (!i || !i->labels || i->class_id < 0 || (guint)i->class_id >= i->labels->len) return "";
  return g_ptr_array_index(i->labels, i->class_id);
}

static gboolean wanted(GstTfliteTracker *self, const GstTfliteObject *o)
{
  if (o->kind != GST_TFLITE_OBJECT_DETECTION || o->parent_id != 0 || o->source == self->own) return FALSE;
  if (self->source_q && o->source != self->source_q) return FALSE;
  return gst_tflite_object_class_in(o, self->label_list);
}

/* Moves an object found on an older frame, and its children, by (dx, dy). */
static void shift(GstTfliteMeta *meta, GstTfliteObject *o, gfloat dx, gfloat dy)
{
  o->x += dx, o->y += dy;
  for (guint k = 0; k < o->n_keypoints; k++) o->keypoints[k].x += dx, o->keypoints[k].y += dy;
  for (guint i = 0; i < gst_tflite_meta_n_objects(meta); i++) {
    GstTfliteObject *c = gst_tflite_meta_get_object_writable(meta, i);
    if (c->parent_id != o->id) continue;
    c->x += dx, c->y += dy;
    for (guint k = 0; k < c->n_keypoints; k++) c->keypoints[k].x += dx, c->keypoints[k].y += dy;
  }
}

static void post_event(GstTfliteTracker *self, const sort_track *k, const gchar *what, GstClockTime pts)
{
  track_info *info = g_hash_table_lookup(self->info, &k->id);
  guint active = 0;
  for (int i = 0; i < sort_tracker_count(self->sort); i++) {
    const sort_track *t = sort_tracker_track(self->sort, i);
    active += t->confirmed && t->event != SORT_LEFT;
  }
  GstStructure *s = gst_structure_new("tflite-track", "event", G_TYPE_STRING, what, "track-id", G_TYPE_UINT64, k->id,
                                      "label", G_TYPE_STRING, label_of(info), "x", G_TYPE_DOUBLE, (gdouble)k->box.x, "y",
                                      G_TYPE_DOUBLE, (gdouble)k->box.y, "width", G_TYPE_DOUBLE, (gdouble)k->box.w,
                                      "height", G_TYPE_DOUBLE, (gdouble)k->box.h, "active", G_TYPE_UINT, active, "total",
                                      G_TYPE_UINT64, (guint64)sort_tracker_entered(self->sort), "timestamp",
                                      G_TYPE_UINT64, (guint64)pts, NULL);
  GST_DEBUG_OBJECT(self, "track %" G_GUINT64_FORMAT " %s (%s), %u active", k->id, what, label_of(info), active);
  gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), s));
}

static void remember(GstTfliteTracker *self, guint64 id, const GstTfliteObject *o)
{
  track_info *info = g_hash_table_lookup(self->info, &id);
  if (!info) {
    info = g_new0(track_info, 1);
    guint64 *key = g_new(guint64, 1);
    *key = id;
    g_hash_table_insert(self->info, key, info);
  }
  info->class_id = o->class_id;
  if (o->labels && info->labels != o->labels) {
    if (info->labels) g_ptr_array_unref(info->labels);
    info->labels = g_ptr_array_ref(o->labels);
  }
}

static GstFlowReturn gst_tflite_tracker_transform_ip(GstBaseTransform *trans, GstBuffer *buf)
{
  GstTfliteTracker *self = GST_TFLITE_TRACKER(trans);
  GstVideoMeta *vm = gst_buffer_get_video_meta(buf);
  GstTfliteMeta *meta = gst_buffer_get_tflite_meta(buf);
  if (!meta) meta = gst_buffer_add_tflite_meta(buf, vm ? (gint)vm->width : 0, vm ? (gint)vm->height : 0);
  if (!meta) {
    GST_ELEMENT_ERROR(self, CORE, FAILED, ("Could not attach the tracks to the buffer."), ("Not writable."));
    return GST_FLOW_ERROR;
  }
  if (!self->sort) {
    GST_OBJECT_LOCK(self);
    sort_options o = sort_defaults();
    o.iou_threshold = self->iou_threshold;
    o.min_hits = (int)self->min_hits;
    o.max_age = (int)self->max_age;
    self->source_q = self->source && self->source[0] ? g_quark_from_string(self->source) : 0;
    g_strfreev(self->label_list);
    self->label_list = self->labels && self->labels[0] ? g_strsplit(self->labels, ",", -1) : NULL;
    for (gchar **l = self->label_list; l && *l; l++) g_strstrip(*l);
    GST_OBJECT_UNLOCK(self);
    self->sort = sort_tracker_new(&o);
    if (!self->sort) return GST_FLOW_ERROR;
  }
  /* the detections: top-level boxes of the chosen element */
  GArray *idx = g_array_new(FALSE, FALSE, sizeof(guint));
  for (guint i = 0; i < gst_tflite_meta_n_objects(meta); i++)
    if (wanted(self, gst_tflite_meta_get_object(meta, i))) g_array_append_val(idx, i);
  guint n = idx->len;
  sort_box *dets = g_new0(sort_box, n + 1);
  gint *assign = g_new0(gint, n + 1);
  gboolean fresh = n == 0;
  for (guint d = 0; d < n; d++) {
    const GstTfliteObject *o = gst_tflite_meta_get_object(meta, g_array_index(idx, guint, d));
    dets[d] = (sort_box){ o->x, o->y, o->w, o->h, o->class_id };
    fresh = fresh || o->age == 0;
  }
  if (sort_tracker_step(self->sort, dets, (int)n, fresh, assign) != 0) {
    g_array_unref(idx);
    g_free(dets);
    g_free(assign);
    GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, ("Out of memory."), (NULL));
    return GST_FLOW_ERROR;
  }
  for (guint d = 0; d < n; d++) {
    if (assign[d] < 0) continue;
    const sort_track *k = sort_tracker_track(self->sort, assign[d]);
    GstTfliteObject *o = gst_tflite_meta_get_object_writable(meta, g_array_index(idx, guint, d));
    if (o->age > 0) {
      /* an old frame's box: where the track predicts it now */
      shift(meta, o, k->box.x - o->x, k->box.y - o->y);
      o->w = k->box.w, o->h = k->box.h;
    }
    if (k->confirmed) o->track_id = k->id;
    remember(self, k->id, o);
  }
  /* confirmed tracks that missed their detection on a fresh frame: predicted boxes */
  for (int i = 0; fresh && i < sort_tracker_count(self->sort); i++) {
    const sort_track *k = sort_tracker_track(self->sort, i);
    if (!k->confirmed || k->matched || k->event == SORT_LEFT || k->misses > (int)self->predict_frames) continue;
    track_info *info = g_hash_table_lookup(self->info, &k->id);
    GstTfliteObject o = { 0 };
    o.kind = GST_TFLITE_OBJECT_DETECTION;
    o.source = self->own;
    o.x = k->box.x, o.y = k->box.y, o.w = k->box.w, o.h = k->box.h;
    o.class_id = info ? info->class_id : k->class_id;
    o.score = -1.0f;
    o.roi_id = -1;
    o.track_id = k->id;
    o.age = (guint)k->misses;
    o.labels = info && info->labels ? g_ptr_array_ref(info->labels) : NULL;
    gst_tflite_meta_add_object(meta, &o);
  }
  for (int i = 0; i < sort_tracker_count(self->sort); i++) {
    const sort_track *k = sort_tracker_track(self->sort, i);
    if (k->event == SORT_ENTERED) post_event(self, k, "enter", GST_BUFFER_PTS(buf));
    if (k->event == SORT_LEFT && k->confirmed) post_event(self, k, "leave", GST_BUFFER_PTS(buf));
    if (k->event == SORT_LEFT) g_hash_table_remove(self->info, &k->id);
  }
  gst_tflite_meta_sync_rois(meta, buf);
  g_array_unref(idx);
  g_free(dets);
  g_free(assign);
  return GST_FLOW_OK;
}

/* source names an element, but detections may also come from an application that adds
 * objects under that name (or from a pipeline feeding this one through appsrc): a name
 * not in the pipeline is a warning, and the tracker keeps going. */
static void check_source(GstTfliteTracker *self)
{
  GST_OBJECT_LOCK(self);
  gchar *source = self->source && self->source[0] ? g_strdup(self->source) : NULL;
  GST_OBJECT_UNLOCK(self);
  if (!source) return;
  gchar *known = NULL, *kind = NULL;
  GstTfliteNameCheck c = gst_tflite_check_element_name(GST_ELEMENT(self), source, &known, &kind);
  if (c == GST_TFLITE_NAME_MISSING)
    GST_ELEMENT_WARNING(self, RESOURCE, NOT_FOUND,
                        ("source=\"%s\": the pipeline has no element of that name; only objects added under that "
                         "name are tracked.", source),
                        ("Elements that make objects: %s.", known));
  else if (c == GST_TFLITE_NAME_WRONG_KIND)
    GST_ELEMENT_WARNING(self, RESOURCE, NOT_FOUND,
                        ("source=\"%s\" names an element that makes no objects (%s); it should name a "
                         "tflitefilter.", source, kind),
                        ("Elements that make objects: %s.", known));
  g_free(known);
  g_free(kind);
  g_free(source);
}

static gboolean gst_tflite_tracker_start(GstBaseTransform *trans)
{
  GstTfliteTracker *self = GST_TFLITE_TRACKER(trans);
  check_source(self);
  gchar *name = gst_object_get_name(GST_OBJECT(self));
  self->own = g_quark_from_string(name);
  g_free(name);
  return TRUE;
}

static gboolean gst_tflite_tracker_stop(GstBaseTransform *trans)
{
  GstTfliteTracker *self = GST_TFLITE_TRACKER(trans);
  sort_tracker_free(self->sort);
  self->sort = NULL;
  g_hash_table_remove_all(self->info);
  return TRUE;
}

static void gst_tflite_tracker_set_property(GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstTfliteTracker *self = GST_TFLITE_TRACKER(object);
  GST_OBJECT_LOCK(self);
  switch (prop_id) {
  case PROP_SOURCE: g_free(self->source); self->source = g_value_dup_string(value); break;
  case PROP_LABELS: g_free(self->labels); self->labels = g_value_dup_string(value); break;
  case PROP_IOU: self->iou_threshold = g_value_get_float(value); break;
  case PROP_MIN_HITS: self->min_hits = g_value_get_uint(value); break;
  case PROP_MAX_AGE: self->max_age = g_value_get_uint(value); break;
  case PROP_PREDICT_FRAMES: self->predict_frames = g_value_get_uint(value); break;
  default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec); break;
  }
  GST_OBJECT_UNLOCK(self);
}

static void gst_tflite_tracker_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstTfliteTracker *self = GST_TFLITE_TRACKER(object);
  GST_OBJECT_LOCK(self);
  switch (prop_id) {
  case PROP_SOURCE: g_value_set_string(value, self->source); break;
  case PROP_LABELS: g_value_set_string(value, self->labels); break;
  case PROP_IOU: g_value_set_float(value, self->iou_threshold); break;
  case PROP_MIN_HITS: g_value_set_uint(value, self->min_hits); break;
  case PROP_MAX_AGE: g_value_set_uint(value, self->max_age); break;
  case PROP_PREDICT_FRAMES: g_value_set_uint(value, self->predict_frames); break;
  default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec); break;
  }
  GST_OBJECT_UNLOCK(self);
}

static void gst_tflite_tracker_finalize(GObject *object)
{
  GstTfliteTracker *self = GST_TFLITE_TRACKER(object);
  sort_tracker_free(self->sort);
  g_hash_table_unref(self->info);
  g_free(self->source);
  g_free(self->labels);
  g_strfreev(self->label_list);
  G_OBJECT_CLASS(gst_tflite_tracker_parent_class)->finalize(object);
}

static void gst_tflite_tracker_class_init(GstTfliteTrackerClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY;
  gobject_class->set_property = gst_tflite_tracker_set_property;
  gobject_class->get_property = gst_tflite_tracker_get_property;
  gobject_class->finalize = gst_tflite_tracker_finalize;
  g_object_class_install_property(gobject_class, PROP_SOURCE,
    g_param_spec_string("source", "Source", "Name of the element whose detections are tracked (NULL: every element's)",
                        NULL, rw));
  g_object_class_install_property(gobject_class, PROP_LABELS,
    g_param_spec_string("labels", "Labels", "Comma-separated labels (or #class ids) to track; NULL: all", NULL, rw));
  g_object_class_install_property(gobject_class, PROP_IOU,
    g_param_spec_float("iou-threshold", "IoU threshold",
                       "Least overlap (0..1) of a detection with a track's predicted box to continue it", 0.0f, 1.0f,
                       DEFAULT_IOU, rw));
  g_object_class_install_property(gobject_class, PROP_MIN_HITS,
    g_param_spec_uint("min-hits", "Min hits", "Detections in a row before a track gets its id and enters", 1, 1000,
                      DEFAULT_MIN_HITS, rw));
  g_object_class_install_property(gobject_class, PROP_MAX_AGE,
    g_param_spec_uint("max-age", "Max age",
                      "Frames a track keeps its id without a detection (occlusion) before it leaves", 0, 100000,
                      DEFAULT_MAX_AGE, rw));
  g_object_class_install_property(gobject_class, PROP_PREDICT_FRAMES,
    g_param_spec_uint("predict-frames", "Predict frames",
                      "Frames a missed detection is bridged by a predicted box (0: none)", 0, 100000,
                      DEFAULT_PREDICT_FRAMES, rw));
  gst_element_class_set_static_metadata(element_class, "TensorFlow Lite object tracker", "Filter/Analyzer/Video",
                                        "Stable ids for detected objects across frames, enter and leave messages",
                                        "gst-tflite developers");
  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &src_template);
  /* not passthrough: transform_ip gets a writable buffer (metadata copied, pixels shared) */
  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_ip = gst_tflite_tracker_transform_ip;
  trans_class->start = gst_tflite_tracker_start;
  trans_class->stop = gst_tflite_tracker_stop;
}

static void gst_tflite_tracker_init(GstTfliteTracker *self)
{
  self->iou_threshold = DEFAULT_IOU;
  self->min_hits = DEFAULT_MIN_HITS;
  self->max_age = DEFAULT_MAX_AGE;
  self->predict_frames = DEFAULT_PREDICT_FRAMES;
  self->info = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, track_info_free);
  gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
}
