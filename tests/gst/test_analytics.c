/* test_analytics.c - the GStreamer >= 1.24 part (built only where the build finds
 * gstreamer-analytics-1.0; scripts/analytics_stage.sh runs it in a Debian 13 root with
 * GStreamer 1.26): our objects in GstAnalyticsRelationMeta, GStreamer's own
 * objectdetectionoverlay drawing them, tfliteoverlay drawing another element's.
 * Env: GST_PLUGIN_PATH, TFL_MODEL_DIRS, TFL_PICTURES.
 */
#include <gst/analytics/analytics.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <math.h>

#include "gst/tflitefilter/gsttflitemeta.h"
#include "pipe_util.h"

/* face detector -> tracker: the face is an object-detection mtd labelled "face" on the
 * face's box, related to a tracking mtd with the object's track id. */
GST_START_TEST(test_detection_and_tracking_mtd)
{
  gchar *pic = pipe_picture("astronaut.png"), *det = pipe_model("face_detection_short_range.tflite");
  gchar *desc = g_strdup_printf("filesrc location=\"%s\" ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! "
                                "tflitefilter name=det model=\"%s\" ! tflitetracker min-hits=1 ! appsink name=sink",
                                pic, det);
  pipe_run r;
  pipe_run_launch(desc, 60, &r);
  fail_unless(r.error == NULL, "%s", r.error);
  GstBuffer *b = g_ptr_array_index(r.buffers, 0);
  GstTfliteMeta *m = gst_buffer_get_tflite_meta(b);
  const GstTfliteObject *face = gst_tflite_meta_get_object(m, 0);
  fail_unless(face && face->track_id && face->analytics_id);
  GstAnalyticsRelationMeta *rm = gst_buffer_get_analytics_relation_meta(b);
  fail_unless(rm != NULL, "no analytics meta");
  gpointer state = NULL;
  GstAnalyticsODMtd od;
  guint n = 0;
  while (gst_analytics_relation_meta_iterate(rm, &state, gst_analytics_od_mtd_get_mtd_type(), &od)) {
    gint x, y, w, h;
    gfloat c;
    fail_unless(gst_analytics_od_mtd_get_location(&od, &x, &y, &w, &h, &c));
    fail_unless_equals_string(g_quark_to_string(gst_analytics_od_mtd_get_obj_type(&od)), "face");
    fail_unless(abs(x - 179) <= 3 && abs(y - 81) <= 3 && abs(w - 93) <= 3 && abs(h - 93) <= 3 && c > 0.8f,
                "face at (%d,%d %dx%d) %.2f", x, y, w, h, c);
    gpointer rs = NULL;
    GstAnalyticsTrackingMtd trk;
    fail_unless(gst_analytics_relation_meta_get_direct_related(rm, od.id, GST_ANALYTICS_REL_TYPE_RELATE_TO,
                                                               gst_analytics_tracking_mtd_get_mtd_type(), &rs, &trk));
    guint64 id;
    GstClockTime first, last;
    gboolean lost;
    fail_unless(gst_analytics_tracking_mtd_get_info(&trk, &id, &first, &last, &lost) && id == face->track_id);
    n++;
  }
  fail_unless_equals_int(n, 1);
  pipe_run_clear(&r);
  g_free(desc);
  g_free(det);
  g_free(pic);
}
GST_END_TEST;

/* SSD -> classifier on its box: the box's classification mtd is related to it. */
GST_START_TEST(test_classification_mtd_related)
{
  gchar *pic = pipe_picture("chelsea.png"), *ssd = pipe_model("coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite");
  gchar *cls = pipe_model("mobilenet_v1_0.25_224.tflite"), *l1 = pipe_model("coco_labelmap_91.txt");
  gchar *l2 = pipe_model("imagenet_labels_1001.txt");
  gchar *desc = g_strdup_printf("filesrc location=\"%s\" ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! "
                                "tflitefilter name=ssd model=\"%s\" labels=\"%s\" ! tflitefilter name=cls model=\"%s\" "
                                "labels=\"%s\" regions-from=ssd ! appsink name=sink",
                                pic, ssd, l1, cls, l2);
  pipe_run r;
  pipe_run_launch(desc, 60, &r);
  fail_unless(r.error == NULL, "%s", r.error);
  GstAnalyticsRelationMeta *rm = gst_buffer_get_analytics_relation_meta(g_ptr_array_index(r.buffers, 0));
  fail_unless(rm != NULL);
  gpointer state = NULL;
  GstAnalyticsODMtd od;
  fail_unless(gst_analytics_relation_meta_iterate(rm, &state, gst_analytics_od_mtd_get_mtd_type(), &od));
  fail_unless_equals_string(g_quark_to_string(gst_analytics_od_mtd_get_obj_type(&od)), "cat");
  gpointer rs = NULL;
  GstAnalyticsClsMtd c;
  fail_unless(gst_analytics_relation_meta_get_direct_related(rm, od.id, GST_ANALYTICS_REL_TYPE_RELATE_TO,
                                                             gst_analytics_cls_mtd_get_mtd_type(), &rs, &c));
  const gchar *best = g_quark_to_string(gst_analytics_cls_mtd_get_quark(&c, 0));
  fail_unless(!g_strcmp0(best, "Egyptian cat") || !g_strcmp0(best, "tabby") || !g_strcmp0(best, "tiger cat"),
              "the cat's box classified as %s", best);
  pipe_run_clear(&r);
  g_free(desc);
  g_free(pic);
  g_free(ssd);
  g_free(cls);
  g_free(l1);
  g_free(l2);
}
GST_END_TEST;

/* The pixels of one RGBA frame of `desc`; NULL-terminated by the caller's free. */
static guint8 *frame_of(const gchar *desc, gsize *size)
{
  pipe_run r;
  pipe_run_launch(desc, 60, &r);
  fail_unless(r.error == NULL, "%s", r.error);
  GstMapInfo m;
  gst_buffer_map(g_ptr_array_index(r.buffers, 0), &m, GST_MAP_READ);
  guint8 *px = g_memdup2(m.data, m.size);
  *size = m.size;
  gst_buffer_unmap(g_ptr_array_index(r.buffers, 0), &m);
  pipe_run_clear(&r);
  return px;
}

/* GStreamer's own objectdetectionoverlay draws our face: the face box's outline changes
 * pixels compared with the same frame without the overlay. */
GST_START_TEST(test_objectdetectionoverlay_draws_ours)
{
  gchar *pic = pipe_picture("astronaut.png"), *det = pipe_model("face_detection_short_range.tflite");
  gchar *with = g_strdup_printf("filesrc location=\"%s\" ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! "
                                "tflitefilter model=\"%s\" ! objectdetectionoverlay ! videoconvert ! "
                                "video/x-raw,format=RGBA ! appsink name=sink", pic, det);
  gchar *without = g_strdup_printf("filesrc location=\"%s\" ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! "
                                   "appsink name=sink", pic);
  gsize n1, n2;
  guint8 *a = frame_of(with, &n1), *b = frame_of(without, &n2);
  fail_unless(n1 == n2 && n1 == 512 * 512 * 4);
  /* the box (179,81 93x93): along its top and left edges, inside the frame */
  guint changed = 0, total = 0;
  for (gint x = 185; x < 265; x++, total++) {
    gint y = 81;
    gboolean diff = FALSE;
    for (gint dy = -2; dy <= 2; dy++) diff = diff || memcmp(a + ((y + dy) * 512 + x) * 4, b + ((y + dy) * 512 + x) * 4, 3);
    changed += diff;
  }
  fail_unless(changed > total / 2, "objectdetectionoverlay changed %u of %u pixels along the face box's top", changed,
              total);
  /* and not far from it */
  guint far = 0;
  for (gint x = 0; x < 100; x++) far += memcmp(a + (500 * 512 + x) * 4, b + (500 * 512 + x) * 4, 3) != 0;
  fail_unless_equals_int(far, 0);
  g_print("objectdetectionoverlay drew our face box: %u of %u pixels along its top edge\n", changed, total);
  g_free(a);
  g_free(b);
  g_free(with);
  g_free(without);
  g_free(det);
  g_free(pic);
}
GST_END_TEST;

/* Another element's detection (a "dog" od mtd, no GstTfliteMeta) drawn by tfliteoverlay. */
GST_START_TEST(test_tfliteoverlay_draws_others)
{
  GstHarness *h = gst_harness_new("tfliteoverlay");
  gst_harness_set_src_caps_str(h, "video/x-raw,format=RGBA,width=160,height=120,framerate=30/1");
  GstBuffer *buf = gst_buffer_new_and_alloc(160 * 120 * 4);
  gst_buffer_memset(buf, 0, 30, 160 * 120 * 4);
  GstAnalyticsRelationMeta *rm = gst_buffer_add_analytics_relation_meta(buf);
  GstAnalyticsODMtd od;
  fail_unless(gst_analytics_relation_meta_add_od_mtd(rm, g_quark_from_string("dog"), 40, 30, 60, 50, 0.7f, &od));
  GstBuffer *out = gst_harness_push_and_pull(h, buf);
  GstTfliteMeta *m = gst_buffer_get_tflite_meta(out);
  fail_unless(m && gst_tflite_meta_n_objects(m) == 1);
  const GstTfliteObject *o = gst_tflite_meta_get_object(m, 0);
  fail_unless_equals_string(gst_tflite_object_label(o, o->class_id), "dog");
  GstMapInfo map;
  gst_buffer_map(out, &map, GST_MAP_READ);
  guint drawn = 0;
  for (gint x = 45; x < 95; x++) drawn += map.data[(80 * 160 + x) * 4] != 30; /* bottom edge, y = 30 + 50 */
  fail_unless(drawn > 40, "%u of 50 pixels of the dog's bottom edge drawn", drawn);
  gst_buffer_unmap(out, &map);
  gst_buffer_unref(out);
  gst_harness_teardown(h);
}
GST_END_TEST;

static Suite *analytics_suite(void)
{
  Suite *s = suite_create("analytics");
  TCase *tc = tcase_create("general");
  tcase_set_timeout(tc, 300);
  suite_add_tcase(s, tc);
  tcase_add_test(tc, test_detection_and_tracking_mtd);
  tcase_add_test(tc, test_classification_mtd_related);
  tcase_add_test(tc, test_objectdetectionoverlay_draws_ours);
  tcase_add_test(tc, test_tfliteoverlay_draws_others);
  return s;
}

GST_CHECK_MAIN(analytics);
