/* test_analytics.c - the GStreamer >= 1.24 part (built only where the build finds
 * gstreamer-analytics-1.0; scripts/analytics_stage.sh runs it in a Debian 13 root with
 * GStreamer 1.26): our objects in GstAnalyticsRelationMeta, GStreamer's own
 * objectdetectionoverlay drawing them, tfliteoverlay drawing another element's; on
 * GStreamer >= 1.26 our segmentation masks as segmentation mtds (deeplab's class map,
 * selfie segmentation's thresholded probability), pixel by pixel; the trained YOLO task
 * models' oriented boxes as oriented mtds and instance masks as segmentation mtds of their
 * boxes, against Ultralytics' predict.
 * Env: GST_PLUGIN_PATH, TFL_MODEL_DIRS, TFL_PICTURES, TFL_YOLO.
 */
#include <gst/analytics/analytics.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/gl/gl.h>
#include <gst/video/video.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gst/tflitemeta/gsttflitemeta.h>
#include "pipe_util.h"

/* Runs picture `pic_name` (`frames` times, through glupload when `gl`) into `chain` (the
 * elements up to the appsink) and fails the test on an error. */
static void run_picture(const gchar *pic_name, guint frames, gboolean gl, const gchar *chain, pipe_run *r)
{
  gchar *pic = pipe_picture(pic_name);
  gchar *freeze = frames > 1 ? g_strdup_printf("imagefreeze num-buffers=%u !", frames) : g_strdup("");
  gchar *desc = g_strdup_printf("filesrc location=\"%s\" ! pngdec ! %s videoconvert ! video/x-raw,format=RGBA ! %s "
                                "%s ! appsink name=sink",
                                pic, freeze, gl ? "glupload !" : "", chain);
  pipe_run_launch(desc, 240, r);
  fail_unless(r->error == NULL, "%s: %s", desc, r->error);
  fail_unless_equals_int(r->buffers->len, MAX(frames, 1));
  g_free(desc);
  g_free(freeze);
  g_free(pic);
}

/* face detector -> tracker: the face is an object-detection mtd labelled "face" on the
 * face's box, related to a tracking mtd with the object's track id. */
GST_START_TEST(test_detection_and_tracking_mtd)
{
  gchar *det = pipe_model("face_detection_short_range.tflite");
  gchar *chain = g_strdup_printf("tflitefilter name=det model=\"%s\" ! tflitetracker min-hits=1", det);
  pipe_run r;
  run_picture("astronaut.png", 1, FALSE, chain, &r);
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
  g_free(chain);
  g_free(det);
}
GST_END_TEST;

/* SSD -> classifier on its box: the box's classification mtd is related to it. */
GST_START_TEST(test_classification_mtd_related)
{
  gchar *ssd = pipe_model("coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite");
  gchar *cls = pipe_model("mobilenet_v1_0.25_224.tflite"), *l1 = pipe_model("coco_labelmap_91.txt");
  gchar *l2 = pipe_model("imagenet_labels_1001.txt");
  gchar *chain = g_strdup_printf("tflitefilter name=ssd model=\"%s\" labels=\"%s\" ! "
                                 "tflitefilter name=cls model=\"%s\" labels=\"%s\" regions-from=ssd",
                                 ssd, l1, cls, l2);
  pipe_run r;
  run_picture("chelsea.png", 1, FALSE, chain, &r);
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
  g_free(chain);
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

#if defined(HAVE_GST_ANALYTICS_ORIENTED) && defined(HAVE_GST_ANALYTICS_SEGMENTATION)
/* The trained tiny YOLO models of make_yolo_tasks.py on their held-out picture (raw RGB,
 * 160 x 120) at the threshold of Ultralytics' predict reference, and that reference's
 * lines (class score x1 y1 x2 y2 [cx cy w h angle]); fails the test on an error. */
static gchar **yolo_task_run(const gchar *model, const gchar *picture, const gchar *conf, const gchar *expected,
                             pipe_run *r)
{
  const gchar *dir = g_getenv("TFL_YOLO");
  fail_unless(dir != NULL, "TFL_YOLO not set");
  gchar *desc = g_strdup_printf("filesrc location=\"%s/%s\" ! rawvideoparse width=160 height=120 format=rgb "
                                "framerate=1/1 ! videoconvert ! video/x-raw,format=RGBA ! tflitefilter "
                                "model=\"%s/%s\" threshold=%s iou-threshold=0.7 ! appsink name=sink",
                                dir, picture, dir, model, conf);
  pipe_run_launch(desc, 120, r);
  fail_unless(r->error == NULL, "%s: %s", desc, r->error);
  fail_unless(r->buffers->len >= 1);
  gchar *path = g_strdup_printf("%s/%s.predict", dir, expected), *text = NULL;
  fail_unless(g_file_get_contents(path, &text, NULL, NULL), "cannot read %s", path);
  gchar **lines = g_strsplit(g_strstrip(text), "\n", -1);
  g_free(text);
  g_free(path);
  g_free(desc);
  return lines;
}

/* Oriented boxes (yolov8_obb.tflite, 3 classes): each of Ultralytics' predict's 5 rotated
 * boxes (yolov8_obb-0.07086.predict, xywhr) is an oriented object-detection mtd with the
 * class name of the model's metadata, its unrotated box (integers) within 1 px of predict's
 * and its clockwise rotation within 2 degrees (modulo pi: a rectangle turned by pi is
 * itself); no other object-detection mtd. */
GST_START_TEST(test_yolo_oriented_mtd)
{
  static const gchar *names[] = { "red", "green", "blue" };
  pipe_run r;
  gchar **lines = yolo_task_run("yolov8_obb.tflite", "tasks_obb.rgb", "0.0708590448", "yolov8_obb-0.07086", &r);
  GstAnalyticsRelationMeta *rm = gst_buffer_get_analytics_relation_meta(g_ptr_array_index(r.buffers, 0));
  fail_unless(rm != NULL, "no analytics meta");
  guint n_lines = g_strv_length(lines), n_od = 0;
  fail_unless_equals_int(n_lines, 5);
  gboolean *used = g_new0(gboolean, n_lines);
  gfloat worst_px = 0, worst_deg = 0;
  gpointer state = NULL;
  GstAnalyticsODMtd od;
  while (gst_analytics_relation_meta_iterate(rm, &state, gst_analytics_od_mtd_get_mtd_type(), &od)) {
    gint x, y, w, h;
    gfloat rot, conf;
    fail_unless(gst_analytics_od_mtd_get_oriented_location(&od, &x, &y, &w, &h, &rot, &conf));
    n_od++;
    /* predict's box nearest to this one's centre */
    gdouble best = G_MAXDOUBLE, v[11] = { 0 };
    guint bl = 0;
    for (guint l = 0; l < n_lines; l++) {
      gdouble t[11];
      fail_unless(sscanf(lines[l], "%lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", &t[0], &t[1], &t[2], &t[3], &t[4],
                         &t[5], &t[6], &t[7], &t[8], &t[9], &t[10]) == 11, "bad line %s", lines[l]);
      const gdouble d = hypot(x + w / 2.0 - t[6], y + h / 2.0 - t[7]);
      if (d < best) best = d, bl = l, memcpy(v, t, sizeof v);
    }
    fail_unless(!used[bl], "two mtds on predict's box %u", bl);
    used[bl] = TRUE;
    fail_unless_equals_string(g_quark_to_string(gst_analytics_od_mtd_get_obj_type(&od)), names[(gint)v[0]]);
    fail_unless(fabsf(conf - (gfloat)v[1]) < 0.02f, "confidence %.3f, predict's %.3f", conf, v[1]);
    worst_px = MAX(worst_px, (gfloat)MAX(MAX(fabs(x - (v[6] - v[8] / 2)), fabs(y - (v[7] - v[9] / 2))),
                                          MAX(fabs(w - v[8]), fabs(h - v[9]))));
    gdouble turn = fmod(fabs(rot - v[10]), G_PI);
    worst_deg = MAX(worst_deg, (gfloat)(MIN(turn, G_PI - turn) * 180.0 / G_PI));
  }
  fail_unless_equals_int(n_od, 5);
  fail_unless(worst_px <= 1.0f, "oriented mtd boxes off predict's by %.2f px", worst_px);
  fail_unless(worst_deg <= 2.0f, "oriented mtd rotations off predict's by %.3f degrees", worst_deg);
  g_print("YOLO oriented boxes as oriented mtds: %u, within %.2f px (integers) and %.4f degrees of predict\n", n_od,
          worst_px, worst_deg);
  g_free(used);
  g_strfreev(lines);
  pipe_run_clear(&r);
}
GST_END_TEST;

/* Instance segmentation (yolov8_seg.tflite): each of predict's 3 boxes is an
 * object-detection mtd with its class name, related to a segmentation mtd holding that
 * box's own mask: a GRAY8 buffer (video meta) of ids 0/1 located where our mask lies in
 * the frame, equal to our mask (probability >= 0.5) pixel by pixel; and read through the
 * mtd alone (each frame pixel in the box sampled from the mtd's mask at its place), it
 * is Ultralytics' predict mask (yolov8_seg-0.2582.masks, bit-packed frame masks) at IoU
 * >= 0.8 (0.848 here: the mtd holds the prototype grid's 1/4 resolution, read here by the
 * nearest texel, where predict upsamples the logits). */
GST_START_TEST(test_yolo_box_segmentation_mtd)
{
  static const gchar *names[] = { "square", "disc", "triangle" };
  pipe_run r;
  gchar **lines = yolo_task_run("yolov8_seg.tflite", "tasks_seg.rgb", "0.258208036", "yolov8_seg-0.2582", &r);
  const gchar *dir = g_getenv("TFL_YOLO");
  gchar *path = g_strdup_printf("%s/yolov8_seg-0.2582.masks", dir), *bits = NULL;
  gsize n_bits = 0;
  const gint fw = 160, fh = 120, row = (fw + 7) / 8;
  fail_unless(g_file_get_contents(path, &bits, &n_bits, NULL), "cannot read %s", path);
  guint n_lines = g_strv_length(lines), n_od = 0;
  fail_unless_equals_int(n_lines, 3);
  fail_unless_equals_int(n_bits, (gsize)n_lines * fh * row);
  GstBuffer *b = g_ptr_array_index(r.buffers, 0);
  GstTfliteMeta *m = gst_buffer_get_tflite_meta(b);
  GstAnalyticsRelationMeta *rm = gst_buffer_get_analytics_relation_meta(b);
  fail_unless(m != NULL && rm != NULL, "no meta");
  gdouble worst_iou = 1.0;
  gpointer state = NULL;
  GstAnalyticsODMtd od;
  while (gst_analytics_relation_meta_iterate(rm, &state, gst_analytics_od_mtd_get_mtd_type(), &od)) {
    gint x, y, w, h;
    gfloat conf;
    fail_unless(gst_analytics_od_mtd_get_location(&od, &x, &y, &w, &h, &conf));
    n_od++;
    gdouble best = G_MAXDOUBLE, v[6] = { 0 };
    guint bl = 0;
    for (guint l = 0; l < n_lines; l++) {
      gdouble t[6];
      fail_unless(sscanf(lines[l], "%lf %lf %lf %lf %lf %lf", &t[0], &t[1], &t[2], &t[3], &t[4], &t[5]) == 6);
      const gdouble d = fabs(x - t[2]) + fabs(y - t[3]) + fabs(x + w - t[4]) + fabs(y + h - t[5]);
      if (d < best) best = d, bl = l, memcpy(v, t, sizeof v);
    }
    fail_unless(best < 8.0, "mtd box (%d,%d %dx%d) is not one of predict's", x, y, w, h);
    fail_unless_equals_string(g_quark_to_string(gst_analytics_od_mtd_get_obj_type(&od)), names[(gint)v[0]]);
    /* its segmentation mtd, and our SEGMENTATION object behind it */
    gpointer rs = NULL;
    GstAnalyticsSegmentationMtd seg;
    fail_unless(gst_analytics_relation_meta_get_direct_related(rm, od.id, GST_ANALYTICS_REL_TYPE_RELATE_TO,
                                                               gst_analytics_segmentation_mtd_get_mtd_type(), &rs, &seg),
                "box %u has no segmentation mtd", bl);
    const GstTfliteObject *o = NULL;
    for (guint i = 0; i < gst_tflite_meta_n_objects(m) && !o; i++)
      if (gst_tflite_meta_get_object(m, i)->analytics_id == seg.id + 1) o = gst_tflite_meta_get_object(m, i);
    fail_unless(o && o->kind == GST_TFLITE_OBJECT_SEGMENTATION && o->mask && o->mask->prob, "box %u: no mask object", bl);
    gint mx, my;
    guint mw, mh;
    GstBuffer *mb = gst_analytics_segmentation_mtd_get_mask(&seg, &mx, &my, &mw, &mh);
    fail_unless(mb != NULL);
    fail_unless(mx == (gint)lroundf(o->x) && my == (gint)lroundf(o->y) && mw > 0 && mh > 0,
                "mask at (%d,%d %ux%u), ours at (%.1f,%.1f %.1fx%.1f)", mx, my, mw, mh, o->x, o->y, o->w, o->h);
    GstVideoMeta *vm = gst_buffer_get_video_meta(mb);
    const GstTfliteMask *mask = o->mask;
    fail_unless(vm && vm->format == GST_VIDEO_FORMAT_GRAY8 && (gint)vm->width == mask->width &&
                (gint)vm->height == mask->height, "mask video meta");
    GstMapInfo map;
    fail_unless(gst_buffer_map(mb, &map, GST_MAP_READ));
    guint wrong = 0;
    for (gint yy = 0; yy < mask->height; yy++)
      for (gint xx = 0; xx < mask->width; xx++)
        wrong += map.data[vm->offset[0] + (gsize)yy * vm->stride[0] + xx] !=
                 (mask->prob[(gsize)yy * mask->width + xx] >= 0.5f);
    fail_unless(wrong == 0, "box %u: %u mask pixels differ from ours", bl, wrong);
    /* the mtd's mask over the frame, inside the box, against predict's */
    const guint8 *want = (const guint8 *)bits + (gsize)bl * fh * row;
    guint inter = 0, uni = 0;
    for (gint py = 0; py < fh; py++)
      for (gint px = 0; px < fw; px++) {
        gboolean ours = FALSE;
        /* inside the box: its location is in whole pixels, truncated (up to 1 px short) */
        if (px >= x && px <= x + w && py >= y && py <= y + h) {
          const gint u = (gint)floor((px + 0.5 - mx) * vm->width / mw), t = (gint)floor((py + 0.5 - my) * vm->height / mh);
          ours = u >= 0 && t >= 0 && u < (gint)vm->width && t < (gint)vm->height &&
                 map.data[vm->offset[0] + (gsize)t * vm->stride[0] + u];
        }
        const gboolean theirs = (want[py * row + px / 8] >> (7 - px % 8)) & 1;
        inter += ours && theirs;
        uni += ours || theirs;
      }
    gst_buffer_unmap(mb, &map);
    gst_buffer_unref(mb);
    fail_unless(uni > 0);
    worst_iou = MIN(worst_iou, (gdouble)inter / uni);
  }
  fail_unless_equals_int(n_od, 3);
  fail_unless(worst_iou >= 0.8, "a box's segmentation mtd is predict's mask at IoU %.3f", worst_iou);
  g_print("YOLO instance masks as segmentation mtds of their boxes: %u, IoU >= %.3f with predict's masks\n", n_od,
          worst_iou);
  g_free(bits);
  g_free(path);
  g_strfreev(lines);
  pipe_run_clear(&r);
}
GST_END_TEST;
#endif

#ifdef HAVE_GST_ANALYTICS_SEGMENTATION
/* The one SEGMENTATION object of `pic` through `model` (CPU), and its segmentation mtd:
 * the mtd's mask (a GRAY8 buffer with a video meta) equals our mask pixel by pixel (class
 * ids, or probability >= 0.5 as 0/1), lies on the whole frame, and lists exactly the ids
 * present, named by a related classification mtd when the model has labels. Returns how
 * many mask pixels have id `count_id`. */
static guint check_segmentation(const gchar *pic_name, const gchar *model_name, const gchar *labels_name,
                                guint count_id)
{
  gchar *model = pipe_model(model_name), *labels = labels_name ? pipe_model(labels_name) : NULL;
  gchar *chain = g_strdup_printf("tflitefilter model=\"%s\" %s%s%s", model, labels ? "labels=\"" : "",
                                 labels ? labels : "", labels ? "\"" : "");
  pipe_run r;
  run_picture(pic_name, 1, FALSE, chain, &r);
  GstBuffer *b = g_ptr_array_index(r.buffers, 0);
  GstTfliteMeta *m = gst_buffer_get_tflite_meta(b);
  fail_unless(m != NULL);
  const GstTfliteObject *o = NULL;
  for (guint i = 0; i < gst_tflite_meta_n_objects(m); i++)
    if (gst_tflite_meta_get_object(m, i)->kind == GST_TFLITE_OBJECT_SEGMENTATION) o = gst_tflite_meta_get_object(m, i);
  fail_unless(o && o->mask && o->analytics_id, "no mirrored segmentation object");
  const GstTfliteMask *mask = o->mask;
  fail_unless(mask->classes || mask->prob, "the mask has no CPU pixels");

  GstAnalyticsRelationMeta *rm = gst_buffer_get_analytics_relation_meta(b);
  fail_unless(rm != NULL, "no analytics meta");
  GstAnalyticsSegmentationMtd seg;
  gpointer state = NULL;
  fail_unless(gst_analytics_relation_meta_iterate(rm, &state, gst_analytics_segmentation_mtd_get_mtd_type(), &seg));
  fail_unless_equals_int(seg.id + 1, o->analytics_id);
  gint x, y;
  guint w, h;
  GstBuffer *mb = gst_analytics_segmentation_mtd_get_mask(&seg, &x, &y, &w, &h);
  fail_unless(mb != NULL);
  fail_unless(x == 0 && y == 0 && (gint)w == m->frame_width && (gint)h == m->frame_height,
              "mask at (%d,%d %ux%u) on a %dx%d frame", x, y, w, h, m->frame_width, m->frame_height);
  GstVideoMeta *vm = gst_buffer_get_video_meta(mb);
  fail_unless(vm && vm->format == GST_VIDEO_FORMAT_GRAY8 && (gint)vm->width == mask->width &&
              (gint)vm->height == mask->height, "mask video meta");
  GstMapInfo map;
  fail_unless(gst_buffer_map(mb, &map, GST_MAP_READ));
  /* a class map is our pixels, not a copy */
  if (mask->classes) fail_unless(map.data == mask->classes, "the class map was copied");
  guint wrong = 0, count = 0;
  gint worst = 0;
  gboolean present[256] = { FALSE };
  for (gint yy = 0; yy < mask->height; yy++)
    for (gint xx = 0; xx < mask->width; xx++) {
      gsize i = (gsize)yy * mask->width + xx;
      gint want = mask->classes ? mask->classes[i] : mask->prob[i] >= 0.5f;
      gint got = map.data[vm->offset[0] + (gsize)yy * vm->stride[0] + xx];
      wrong += got != want;
      worst = MAX(worst, abs(got - want));
      present[want] = TRUE;
      count += want == (gint)count_id;
    }
  fail_unless(wrong == 0, "%u of %d mask pixels differ (worst by %d)", wrong, mask->width * mask->height, worst);
  gsize n_present = 0;
  for (guint c = 0; c < 256; c++) {
    gsize idx;
    n_present += present[c];
    fail_unless_equals_int(gst_analytics_segmentation_mtd_get_region_index(&seg, &idx, c), present[c]);
  }
  fail_unless_equals_int(gst_analytics_segmentation_mtd_get_region_count(&seg), n_present);
  /* with labels, a classification mtd names each region index */
  gpointer rs = NULL;
  GstAnalyticsClsMtd cls;
  gboolean named = gst_analytics_relation_meta_get_direct_related(rm, seg.id, GST_ANALYTICS_REL_TYPE_RELATE_TO,
                                                                  gst_analytics_cls_mtd_get_mtd_type(), &rs, &cls);
  fail_unless_equals_int(named, o->labels != NULL && mask->classes != NULL);
  for (gsize k = 0; named && k < n_present; k++) {
    guint id = gst_analytics_segmentation_mtd_get_region_id(&seg, k);
    fail_unless_equals_string(g_quark_to_string(gst_analytics_cls_mtd_get_quark(&cls, k)),
                              gst_tflite_object_label(o, (gint)id));
  }
  gst_buffer_unmap(mb, &map);
  gst_buffer_unref(mb);
  pipe_run_clear(&r);
  g_free(chain);
  g_free(labels);
  g_free(model);
  return count;
}

/* deeplab (class map, 257x257, PASCAL VOC labels naming the regions): every pixel of the
 * mtd's mask equals ours; the person
 * area agrees with the real TensorFlow Lite run (oracle run deeplabv3_257_mv_gpu.tflite
 * --image astronaut.png --norm -1,1: person (15) on 30460 of 66049 pixels). */
GST_START_TEST(test_segmentation_mtd_classes)
{
  guint person = check_segmentation("astronaut.png", "deeplabv3_257_mv_gpu.tflite", "pascal_voc_labels_21.txt", 15);
  fail_unless(fabs(person / 66049.0 - 30460.0 / 66049.0) < 0.002, "person on %u pixels", person);
}
GST_END_TEST;

/* selfie segmentation (probability): the mask is 0/1 at 0.5; oracle run
 * selfie_segmentation.tflite --image astronaut.png --norm 0,1: 35717 of 65536 >= 0.5. */
GST_START_TEST(test_segmentation_mtd_probability)
{
  guint fg = check_segmentation("astronaut.png", "selfie_segmentation.tflite", NULL, 1);
  fail_unless(fabs(fg / 65536.0 - 35717.0 / 65536.0) < 0.002, "foreground on %u pixels", fg);
}
GST_END_TEST;

/* deeplab on the GL path (gl-readback=false): the first frame reads back (CPU class map,
 * wrapped as above), the second leaves its class map on the GPU and the mtd's mask is that
 * GL buffer itself (GRAY8 video meta, the model's 21 classes as region ids); read back
 * here (after its sync meta), it matches the first frame's CPU map on the same picture
 * (GPU and CPU arithmetic differ, so argmax ties may flip: at most 0.5% of pixels). */
GST_START_TEST(test_segmentation_mtd_gl)
{
  gchar *model = pipe_model("deeplabv3_257_mv_gpu.tflite");
  gchar *chain = g_strdup_printf("tflitefilter model=\"%s\" delegate=gl", model);
  pipe_run r;
  run_picture("astronaut.png", 2, TRUE, chain, &r);
  const GstTfliteMask *masks[2] = { NULL, NULL };
  GstBuffer *mbufs[2] = { NULL, NULL };
  for (guint f = 0; f < 2; f++) {
    GstBuffer *b = g_ptr_array_index(r.buffers, f);
    GstTfliteMeta *m = gst_buffer_get_tflite_meta(b);
    fail_unless(m != NULL);
    for (guint i = 0; i < gst_tflite_meta_n_objects(m); i++)
      if (gst_tflite_meta_get_object(m, i)->kind == GST_TFLITE_OBJECT_SEGMENTATION)
        masks[f] = gst_tflite_meta_get_object(m, i)->mask;
    fail_unless(masks[f] != NULL, "frame %u: no mask", f);
    GstAnalyticsRelationMeta *rm = gst_buffer_get_analytics_relation_meta(b);
    fail_unless(rm != NULL, "frame %u: no analytics meta", f);
    GstAnalyticsSegmentationMtd seg;
    gpointer state = NULL;
    fail_unless(gst_analytics_relation_meta_iterate(rm, &state, gst_analytics_segmentation_mtd_get_mtd_type(), &seg),
                "frame %u: no segmentation mtd", f);
    gint x, y;
    guint w, h;
    mbufs[f] = gst_analytics_segmentation_mtd_get_mask(&seg, &x, &y, &w, &h);
    fail_unless(x == 0 && y == 0 && w == 512 && h == 512, "frame %u: mask at (%d,%d %ux%u)", f, x, y, w, h);
    if (f == 1) fail_unless_equals_int(gst_analytics_segmentation_mtd_get_region_count(&seg), 21);
  }
  fail_unless(masks[0]->classes != NULL, "the first frame must read back");
  fail_unless(masks[1]->classes == NULL && masks[1]->gl_buffer != NULL, "the second mask must stay on the GPU");
  fail_unless(mbufs[1] == masks[1]->gl_buffer, "the GL mask was not handed as its GL buffer");
  fail_unless(gst_is_gl_memory(gst_buffer_peek_memory(mbufs[1], 0)));
  GstVideoMeta *vm = gst_buffer_get_video_meta(mbufs[1]);
  fail_unless(vm && vm->format == GST_VIDEO_FORMAT_GRAY8 && vm->width == 257 && vm->height == 257);
  GstGLSyncMeta *sync = gst_buffer_get_gl_sync_meta(mbufs[1]);
  if (sync) gst_gl_sync_meta_wait_cpu(sync, ((GstGLBaseMemory *)gst_buffer_peek_memory(mbufs[1], 0))->context);
  GstMapInfo map;
  fail_unless(gst_buffer_map(mbufs[1], &map, GST_MAP_READ));
  guint differ = 0;
  for (gint yy = 0; yy < 257; yy++)
    for (gint xx = 0; xx < 257; xx++)
      differ += map.data[vm->offset[0] + (gsize)yy * vm->stride[0] + xx] != masks[0]->classes[yy * 257 + xx];
  gst_buffer_unmap(mbufs[1], &map);
  fail_unless(differ <= 66049 / 200, "%u of 66049 GPU mask pixels differ from the CPU's", differ);
  g_print("GL segmentation mask handed as its GL buffer: %u of 66049 pixels differ from the CPU map\n", differ);
  gst_buffer_unref(mbufs[0]);
  gst_buffer_unref(mbufs[1]);
  pipe_run_clear(&r);
  g_free(chain);
  g_free(model);
}
GST_END_TEST;
#endif

#ifdef HAVE_GST_TENSOR_META
/* decoder=tensors (and keep-tensors beside the detector): the raw outputs in GStreamer's
 * GstTensorMeta too, id the tensor's name, GStreamer's type and row-major dims, the same
 * bytes as our meta's (read through the meta library's C accessors). */
GST_START_TEST(test_tensor_meta)
{
  gchar *det = pipe_model("face_detection_short_range.tflite");
  static const char *const props[] = { "decoder=tensors", "keep-tensors=true" };
  for (guint p = 0; p < G_N_ELEMENTS(props); p++) {
    gchar *chain = g_strdup_printf("tflitefilter model=\"%s\" %s", det, props[p]);
    pipe_run r;
    run_picture("astronaut.png", 1, FALSE, chain, &r);
    GstBuffer *b = g_ptr_array_index(r.buffers, 0);
    GstTfliteMeta *m = gst_buffer_get_tflite_meta(b);
    GstTensorMeta *tm = gst_buffer_get_tensor_meta(b);
    fail_unless(m && tm, "%s: our meta %p, GstTensorMeta %p", props[p], m, tm);
    fail_unless_equals_int(gst_tflite_meta_n_tensors(m), 2);
    fail_unless_equals_int(tm->num_tensors, 2);
    static const char *const names[] = { "regressors", "classificators" };
    static const gsize dims[2][3] = { { 1, 896, 16 }, { 1, 896, 1 } };
    for (guint i = 0; i < 2; i++) {
      const GstTfliteTensor *t = gst_tflite_meta_get_tensor(m, i);
      const GstTensor *g = tm->tensors[i];
      fail_unless_equals_string(gst_tflite_tensor_get_name(t), names[i]);
      fail_unless_equals_string(g_quark_to_string(g->id), names[i]);
      fail_unless(g->data_type == GST_TENSOR_DATA_TYPE_FLOAT32 && g->dims_order == GST_TENSOR_DIM_ORDER_ROW_MAJOR);
      fail_unless_equals_int(g->num_dims, 3);
      for (guint d = 0; d < 3; d++) fail_unless_equals_int(g->dims[d], dims[i][d]);
      gsize size;
      const gfloat *ours = gst_tflite_tensor_get_data(t, &size);
      fail_unless_equals_int(size, 896 * dims[i][2] * sizeof(gfloat));
      GstMapInfo map;
      fail_unless(gst_buffer_map(g->data, &map, GST_MAP_READ));
      fail_unless(map.size == size && memcmp(map.data, ours, size) == 0, "%s: the bytes differ", names[i]);
      gst_buffer_unmap(g->data, &map);
      gboolean nonzero = FALSE;
      for (gsize k = 0; k < size / sizeof(gfloat); k++) nonzero |= ours[k] != 0.0f;
      fail_unless(nonzero, "%s: all zero", names[i]);
    }
    /* keep-tensors: the detector's box is an object-detection mtd as well */
    GstAnalyticsRelationMeta *rm = gst_buffer_get_analytics_relation_meta(b);
    gpointer state = NULL;
    GstAnalyticsODMtd od;
    gboolean has_box = rm && gst_analytics_relation_meta_iterate(rm, &state, gst_analytics_od_mtd_get_mtd_type(), &od);
    fail_unless(has_box == (p == 1), "%s: a box mtd %d", props[p], has_box);
    pipe_run_clear(&r);
    g_free(chain);
  }
  g_free(det);
}
GST_END_TEST;
#endif

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
#if defined(HAVE_GST_ANALYTICS_ORIENTED) && defined(HAVE_GST_ANALYTICS_SEGMENTATION)
  tcase_add_test(tc, test_yolo_oriented_mtd);
  tcase_add_test(tc, test_yolo_box_segmentation_mtd);
#endif
#ifdef HAVE_GST_ANALYTICS_SEGMENTATION
  tcase_add_test(tc, test_segmentation_mtd_classes);
  tcase_add_test(tc, test_segmentation_mtd_probability);
  tcase_add_test(tc, test_segmentation_mtd_gl);
#endif
#ifdef HAVE_GST_TENSOR_META
  tcase_add_test(tc, test_tensor_meta);
#endif
  return s;
}

GST_CHECK_MAIN(analytics);
