/* test_tflitemeta.c - the meta library on its own: objects by element and by parent, and
 * their mirror in GStreamer's GstVideoRegionOfInterestMeta (regions, parameter
 * structures, ids, parents, tracking), written by hand and checked field by field.
 */
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

#include <gst/tflitemeta/gsttflitemeta.h>

#define FW 200
#define FH 100

static GPtrArray *labels(void)
{
  GPtrArray *l = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(l, g_strdup("person"));
  g_ptr_array_add(l, g_strdup("cat"));
  g_ptr_array_add(l, g_strdup(""));
  return l;
}

static GstTfliteObject object(GstTfliteObjectKind kind, const gchar *source, guint64 parent)
{
  GstTfliteObject o = { 0 };
  o.kind = kind;
  o.source = g_quark_from_string(source);
  o.parent_id = parent;
  o.class_id = -1;
  o.score = -1.0f;
  o.roi_id = -1;
  return o;
}

static tfl_keypoint *points(guint n, gfloat x0, gfloat y0)
{
  tfl_keypoint *k = malloc(sizeof *k * n);
  for (guint i = 0; i < n; i++) k[i] = (tfl_keypoint){ x0 + 10.0f * i, y0 + 5.0f * i, 0.5f + 0.1f * i };
  return k;
}

static tfl_class *classes(guint n, gint first)
{
  tfl_class *c = malloc(sizeof *c * n);
  for (guint i = 0; i < n; i++) c[i] = (tfl_class){ first + (gint)i, 0.9f - 0.2f * i };
  return c;
}

static GstVideoRegionOfInterestMeta *roi(GstBuffer *b, gint id)
{
  GstVideoRegionOfInterestMeta *r = gst_buffer_get_video_region_of_interest_meta_id(b, id);
  fail_unless(r != NULL, "no region %d", id);
  return r;
}

static gint count_params(GstVideoRegionOfInterestMeta *r, const gchar *name)
{
  gint n = 0;
  for (GList *l = r->params; l; l = l->next) n += gst_structure_has_name(l->data, name);
  return n;
}

static gdouble get_d(const GstStructure *s, const gchar *f)
{
  gdouble d = -1;
  fail_unless(gst_structure_get_double(s, f, &d), "%s has no double %s", gst_structure_get_name(s), f);
  return d;
}

/* A person box with three keypoints and a classification child, a landmarks child, a
 * whole-frame classification and landmarks that belong to no box. */
static GstBuffer *make_buffer(guint64 *box_id)
{
  GstBuffer *b = gst_buffer_new();
  GstTfliteMeta *m = gst_buffer_add_tflite_meta(b, FW, FH);
  GPtrArray *l = labels();
  GstTfliteObject box = object(GST_TFLITE_OBJECT_DETECTION, "det", 0);
  box.x = 20, box.y = 10, box.w = 100, box.h = 50, box.class_id = 0, box.score = 0.8f;
  box.keypoints = points(3, 30, 20);
  box.n_keypoints = 3;
  box.labels = g_ptr_array_ref(l);
  *box_id = gst_tflite_meta_add_object(m, &box)->id;

  GstTfliteObject cls = object(GST_TFLITE_OBJECT_CLASSIFICATION, "cls", *box_id);
  cls.classes = classes(2, 1);
  cls.n_classes = 2;
  cls.class_id = 1, cls.score = 0.9f;
  cls.labels = g_ptr_array_ref(l);
  gst_tflite_meta_add_object(m, &cls);

  GstTfliteObject lm = object(GST_TFLITE_OBJECT_LANDMARKS, "lm", *box_id);
  lm.keypoints = points(4, -10, 40); /* the first point lies left of the frame */
  lm.n_keypoints = 4;
  gst_tflite_meta_add_object(m, &lm);

  GstTfliteObject whole = object(GST_TFLITE_OBJECT_CLASSIFICATION, "cls", 0);
  whole.x = whole.y = 0, whole.w = FW, whole.h = FH;
  whole.classes = classes(1, 2); /* label "": shown by id */
  whole.n_classes = 1;
  whole.labels = g_ptr_array_ref(l);
  gst_tflite_meta_add_object(m, &whole);

  GstTfliteObject pose = object(GST_TFLITE_OBJECT_LANDMARKS, "pose", 0);
  pose.keypoints = points(2, 150, 60);
  pose.n_keypoints = 2;
  gst_tflite_meta_add_object(m, &pose);
  g_ptr_array_unref(l);
  return b;
}

GST_START_TEST(test_objects_by_source_and_parent)
{
  guint64 box_id;
  GstBuffer *b = make_buffer(&box_id);
  GstTfliteMeta *m = gst_buffer_get_tflite_meta(b);
  fail_unless_equals_int(gst_tflite_meta_n_objects(m), 5);
  gint n = 0;
  for (gint i = gst_tflite_meta_next_object(m, -1, 0, box_id); i >= 0; i = gst_tflite_meta_next_object(m, i, 0, box_id))
    n++;
  fail_unless_equals_int(n, 2); /* the classification and the landmarks of the box */
  gint i = gst_tflite_meta_next_object(m, -1, g_quark_from_string("cls"), G_MAXUINT64);
  fail_unless(i == 1 && gst_tflite_meta_next_object(m, i, g_quark_from_string("cls"), G_MAXUINT64) == 3);
  fail_unless(gst_tflite_meta_find_object(m, box_id)->kind == GST_TFLITE_OBJECT_DETECTION);
  const GstTfliteObject *o = gst_tflite_meta_get_object(m, 1);
  fail_unless(o->id != box_id && o->id > 0);
  fail_unless_equals_string(gst_tflite_object_label(o, 1), "cat");
  fail_unless(gst_tflite_object_label(o, 2) == NULL); /* empty label: none */
  gst_buffer_unref(b);
}
GST_END_TEST;

GST_START_TEST(test_regions_mirror_objects)
{
  guint64 box_id;
  GstBuffer *b = make_buffer(&box_id);
  GstTfliteMeta *m = gst_buffer_get_tflite_meta(b);
  /* a region someone else put there first: ours count after it */
  GstVideoRegionOfInterestMeta *other = gst_buffer_add_video_region_of_interest_meta(b, "theirs", 0, 0, 5, 5);
  other->id = 7;
  /* the box, the frame (whole-frame classification), the parentless landmarks */
  fail_unless_equals_int(gst_tflite_meta_sync_rois(m, b), 3);
  fail_unless_equals_int(gst_buffer_get_n_meta(b, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE), 4);

  GstVideoRegionOfInterestMeta *box = roi(b, 8);
  fail_unless_equals_string(g_quark_to_string(box->roi_type), "person");
  fail_unless(box->x == 20 && box->y == 10 && box->w == 100 && box->h == 50 && box->parent_id == 0);
  GstStructure *det = gst_video_region_of_interest_meta_get_param(box, "detection");
  fail_unless(det != NULL);
  fail_unless(fabs(get_d(det, "confidence") - 0.8) < 1e-6);
  fail_unless(fabs(get_d(det, "x_min") - 0.1) < 1e-6 && fabs(get_d(det, "y_min") - 0.1) < 1e-6);
  fail_unless(fabs(get_d(det, "x_max") - 0.6) < 1e-6 && fabs(get_d(det, "y_max") - 0.6) < 1e-6);
  gint id;
  guint64 oid;
  fail_unless(gst_structure_get_int(det, "label_id", &id) && id == 0);
  fail_unless_equals_string(gst_structure_get_string(det, "label"), "person");
  fail_unless(gst_structure_get_uint64(det, "object_id", &oid) && oid == box_id);
  fail_unless_equals_string(gst_structure_get_string(det, "source"), "det");

  /* two classification results, best first; the box's own keypoints and its landmarks child */
  fail_unless_equals_int(count_params(box, "classification"), 2);
  GstStructure *c = gst_video_region_of_interest_meta_get_param(box, "classification");
  fail_unless_equals_string(gst_structure_get_string(c, "label"), "cat");
  fail_unless(gst_structure_get_int(c, "rank", &id) && id == 0);
  fail_unless(fabs(get_d(c, "confidence") - 0.9) < 1e-6);
  fail_unless_equals_int(count_params(box, "landmarks"), 2);
  GstStructure *lm = NULL;
  for (GList *l = box->params; l; l = l->next)
    if (gst_structure_has_name(l->data, "landmarks") &&
        !g_strcmp0(gst_structure_get_string(l->data, "source"), "lm"))
      lm = l->data;
  fail_unless(lm != NULL);
  const GValue *pts = gst_structure_get_value(lm, "points");
  const GValue *sc = gst_structure_get_value(lm, "scores");
  fail_unless(GST_VALUE_HOLDS_ARRAY(pts) && gst_value_array_get_size(pts) == 8 && gst_value_array_get_size(sc) == 4);
  /* x, y pairs over the frame size, not clamped: -10 / 200 */
  fail_unless(fabs(g_value_get_double(gst_value_array_get_value(pts, 0)) + 0.05) < 1e-6);
  fail_unless(fabs(g_value_get_double(gst_value_array_get_value(pts, 3)) - 0.45) < 1e-6);
  fail_unless(fabs(g_value_get_double(gst_value_array_get_value(sc, 1)) - 0.6) < 1e-6);

  /* the frame region carries the whole-frame class, shown by id ("" label) */
  GstVideoRegionOfInterestMeta *frame = roi(b, m->frame_roi_id);
  fail_unless(frame->x == 0 && frame->y == 0 && frame->w == FW && frame->h == FH);
  c = gst_video_region_of_interest_meta_get_param(frame, "classification");
  fail_unless(c && gst_structure_get_int(c, "label_id", &id) && id == 2);

  /* parentless landmarks: a region spanning the points */
  GstVideoRegionOfInterestMeta *pose = NULL;
  for (gint r = 9; r <= 10; r++)
    if (roi(b, r)->id != m->frame_roi_id) pose = roi(b, r);
  fail_unless(pose && pose->x == 150 && pose->y == 60 && pose->w == 10 && pose->h == 5);
  fail_unless_equals_string(g_quark_to_string(pose->roi_type), "landmarks");
  gst_buffer_unref(b);
}
GST_END_TEST;

GST_START_TEST(test_regions_added_once_and_tracking)
{
  guint64 box_id;
  GstBuffer *b = make_buffer(&box_id);
  GstTfliteMeta *m = gst_buffer_get_tflite_meta(b);
  gst_tflite_meta_sync_rois(m, b);
  fail_unless_equals_int(gst_tflite_meta_sync_rois(m, b), 0);
  GstVideoRegionOfInterestMeta *box = roi(b, 1);
  fail_unless_equals_int(count_params(box, "classification"), 2);
  fail_unless(gst_video_region_of_interest_meta_get_param(box, "tracking") == NULL);

  /* a tracker sets the id: "tracking" appears, then follows a change */
  ((GstTfliteObject *)gst_tflite_meta_find_object(m, box_id))->track_id = 42;
  gst_tflite_meta_sync_rois(m, b);
  guint64 t = 0;
  fail_unless(gst_structure_get_uint64(gst_video_region_of_interest_meta_get_param(box, "tracking"), "id", &t) && t == 42);
  ((GstTfliteObject *)gst_tflite_meta_find_object(m, box_id))->track_id = 43;
  gst_tflite_meta_sync_rois(m, b);
  fail_unless_equals_int(count_params(box, "tracking"), 1);
  gst_structure_get_uint64(gst_video_region_of_interest_meta_get_param(box, "tracking"), "id", &t);
  fail_unless_equals_int((gint)t, 43);

  /* a second element classifies the box later: its results join the same region */
  GstTfliteObject more = object(GST_TFLITE_OBJECT_CLASSIFICATION, "second", box_id);
  more.classes = classes(1, 0);
  more.n_classes = 1;
  gst_tflite_meta_add_object(m, &more);
  fail_unless_equals_int(gst_tflite_meta_sync_rois(m, b), 0);
  fail_unless_equals_int(count_params(box, "classification"), 3);

  /* a copy (a writable buffer behind a tee) keeps both metas and their ids */
  GstBuffer *copy = gst_buffer_copy(b);
  GstTfliteMeta *cm = gst_buffer_get_tflite_meta(copy);
  fail_unless(cm && cm->frame_roi_id == m->frame_roi_id);
  fail_unless_equals_int(gst_tflite_meta_sync_rois(cm, copy), 0);
  fail_unless_equals_int(gst_buffer_get_n_meta(copy, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE), 3);
  fail_unless(gst_tflite_meta_find_object(cm, box_id)->roi_id == 1);
  gst_buffer_unref(copy);
  gst_buffer_unref(b);
}
GST_END_TEST;

GST_START_TEST(test_segmentation_region)
{
  GstBuffer *b = gst_buffer_new();
  GstTfliteMeta *m = gst_buffer_add_tflite_meta(b, FW, FH);
  tfl_results r = { 0 };
  r.mask.kind = TFL_MASK_CLASSES;
  r.mask.width = 4, r.mask.height = 2, r.mask.n_classes = 21;
  r.mask.classes = calloc(8, 1);
  r.mask.frame_x = 0, r.mask.frame_y = 0, r.mask.frame_w = FW, r.mask.frame_h = FH;
  const gfloat frame[4] = { 0, 0, FW, FH };
  fail_unless_equals_int(gst_tflite_meta_add_results(m, &r, g_quark_from_string("seg"), 0, frame, NULL, NULL), 1);
  fail_unless_equals_int(gst_tflite_meta_sync_rois(m, b), 1);
  GstStructure *s = gst_video_region_of_interest_meta_get_param(roi(b, 1), "segmentation");
  gint w = 0, c = 0;
  fail_unless(s && gst_structure_get_int(s, "mask_width", &w) && w == 4 && gst_structure_get_int(s, "classes", &c) &&
              c == 21);
  fail_unless(fabs(get_d(s, "x_max") - 1.0) < 1e-6);
  gst_buffer_unref(b);
}
GST_END_TEST;

/* YOLO's task results as tflitefilter adds them: a box's own mask becomes a SEGMENTATION
 * child of its DETECTION (the mask's rectangle, the pixels handed over), described in the
 * box's bus entry and on the box's region; an oriented box keeps its rotated box in the
 * object, the bus entry and the region's "detection" parameters; skeleton edges stay. */
static const int32_t two_points[2] = { 0, 1 };
GST_START_TEST(test_yolo_task_objects)
{
  GstBuffer *b = gst_buffer_new();
  GstTfliteMeta *m = gst_buffer_add_tflite_meta(b, FW, FH);
  tfl_results r = { 0 };
  r.n_boxes = 2;
  r.boxes = calloc(2, sizeof(tfl_box));
  r.boxes[0] = (tfl_box){ .x = 10, .y = 20, .w = 30, .h = 40, .class_id = 1, .score = 0.9f };
  tfl_box_mask *bm = &r.boxes[0].mask;
  bm->width = 2, bm->height = 2, bm->frame_x = 5, bm->frame_y = 15, bm->frame_w = 40, bm->frame_h = 50;
  bm->prob = malloc(4 * sizeof(float));
  bm->prob[0] = 0.9f, bm->prob[1] = 0.2f, bm->prob[2] = 0.7f, bm->prob[3] = 0.1f;
  r.boxes[0].n_keypoints = 2;
  r.boxes[0].keypoints = points(2, 12, 22);
  r.boxes[0].n_edges = 1;
  r.boxes[0].edges = two_points;
  r.boxes[1] = (tfl_box){ .x = 50, .y = 10, .w = 20, .h = 20, .class_id = 0, .score = 0.8f, .oriented = true,
                          .rbox = { 60, 20, 24, 8, 0.785f } };
  const gfloat frame[4] = { 0, 0, FW, FH };
  fail_unless_equals_int(gst_tflite_meta_add_results(m, &r, g_quark_from_string("yolo"), 0, frame, NULL, NULL), 3);
  fail_unless(r.boxes == NULL, "the results are taken");
  const GstTfliteObject *box = gst_tflite_meta_get_object(m, 0), *seg = gst_tflite_meta_get_object(m, 1);
  const GstTfliteObject *obb = gst_tflite_meta_get_object(m, 2);
  fail_unless(box->kind == GST_TFLITE_OBJECT_DETECTION && box->n_edges == 1 && box->edges == two_points);
  fail_unless(seg->kind == GST_TFLITE_OBJECT_SEGMENTATION && seg->parent_id == box->id && seg->mask &&
              seg->mask->kind == TFL_MASK_PROB && seg->mask->width == 2 && seg->mask->prob[2] == 0.7f);
  fail_unless(seg->x == 5 && seg->y == 15 && seg->w == 40 && seg->h == 50, "the mask lies where its grid lies");
  fail_unless(obb->oriented && obb->rbox.cx == 60 && obb->rbox.angle == 0.785f && obb->x == 50);
  /* the bus entry */
  GstStructure *st = gst_tflite_meta_to_structure(m, 0);
  const GValue *boxes = gst_structure_get_value(st, "boxes");
  fail_unless(boxes && gst_value_list_get_size(boxes) == 2);
  const GstStructure *b0 = gst_value_get_structure(gst_value_list_get_value(boxes, 0));
  const GstStructure *b1 = gst_value_get_structure(gst_value_list_get_value(boxes, 1));
  fail_unless(fabs(get_d(b0, "mask-fraction") - 0.5) < 1e-9, "two of four texels >= 0.5");
  fail_unless(!gst_structure_has_field(st, "mask-width"), "a box's own mask is in the box's entry");
  fail_unless(fabs(get_d(b1, "angle") - 0.785) < 1e-6 && fabs(get_d(b1, "rotated-width") - 24) < 1e-6);
  gst_structure_free(st);
  /* the regions */
  gst_tflite_meta_sync_rois(m, b);
  GstVideoRegionOfInterestMeta *r0 = roi(b, box->roi_id), *r1 = roi(b, obb->roi_id);
  fail_unless(r0 && count_params(r0, "segmentation") == 1, "the mask on its box's region");
  GstStructure *det = r1 ? gst_video_region_of_interest_meta_get_param(r1, "detection") : NULL;
  fail_unless(det && fabs(get_d(det, "rotation") - 0.785) < 1e-6 && fabs(get_d(det, "center_x") - 60) < 1e-6);
  gst_buffer_unref(b);
}
GST_END_TEST;

static Suite *tflitemeta_suite(void)
{
  Suite *s = suite_create("tflitemeta");
  TCase *tc = tcase_create("general");
  suite_add_tcase(s, tc);
  tcase_add_test(tc, test_objects_by_source_and_parent);
  tcase_add_test(tc, test_regions_mirror_objects);
  tcase_add_test(tc, test_regions_added_once_and_tracking);
  tcase_add_test(tc, test_segmentation_region);
  tcase_add_test(tc, test_yolo_task_objects);
  return s;
}

GST_CHECK_MAIN(tflitemeta);
