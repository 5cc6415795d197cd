/* test_tp_json.c - the JSON serializer (tp_json.c), mask PNG (tp_mask.c), topic templates
 * and track events / change detection (tp_tracks.c) against hand-written expectations. */
#include <gst/gst.h>
#include <locale.h>
#include <math.h>
#include <png.h>
#include <string.h>

#include "../check.h"
#include "tp_json.h"
#include "tp_mask.h"
#include "tp_template.h"
#include "tp_tracks.h"

static GPtrArray *labels(void)
{
  GPtrArray *l = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(l, g_strdup("background"));
  g_ptr_array_add(l, g_strdup("person"));
  g_ptr_array_add(l, g_strdup("say \"hi\"\n\x01"));
  g_ptr_array_add(l, g_strdup("bad \xff utf8"));
  return l;
}

/* A frame with one object of each kind, fixed ids. */
static GstBuffer *frame(GPtrArray *lab, guint64 track)
{
  GstBuffer *buf = gst_buffer_new();
  GstTfliteMeta *m = gst_buffer_add_tflite_meta(buf, 640, 480);
  GQuark src = g_quark_from_static_string("det0");

  GstTfliteObject det = { .id = 11, .source = src, .kind = GST_TFLITE_OBJECT_DETECTION, .x = 10.5f, .y = 20,
                          .w = 30.25f, .h = 40, .class_id = 1, .score = 0.875f, .track_id = track, .roi_id = -1,
                          .labels = g_ptr_array_ref(lab) };
  det.n_keypoints = 2;
  det.keypoints = g_new(tfl_keypoint, 2);
  det.keypoints[0] = (tfl_keypoint){ 1.5f, 2.5f, 0.5f };
  det.keypoints[1] = (tfl_keypoint){ NAN, 4, -1 };
  gst_tflite_meta_add_object(m, &det);

  GstTfliteObject cls = { .id = 12, .parent_id = 11, .source = g_quark_from_static_string("cls0"),
                          .kind = GST_TFLITE_OBJECT_CLASSIFICATION, .x = 10.5f, .y = 20, .w = 30.25f, .h = 40,
                          .class_id = 2, .score = 0.5f, .roi_id = -1, .labels = g_ptr_array_ref(lab) };
  cls.n_classes = 2;
  cls.classes = g_new(tfl_class, 2);
  cls.classes[0] = (tfl_class){ 2, 0.5f };
  cls.classes[1] = (tfl_class){ 3, 0.25f };
  gst_tflite_meta_add_object(m, &cls);

  tfl_mask tm = { .kind = TFL_MASK_CLASSES, .width = 4, .height = 2, .n_classes = 3 };
  tm.classes = g_malloc(8);
  memcpy(tm.classes, (guint8[]){ 0, 0, 1, 1, 2, 2, 2, 2 }, 8);
  GstTfliteObject seg = { .id = 13, .source = g_quark_from_static_string("seg0"),
                          .kind = GST_TFLITE_OBJECT_SEGMENTATION, .w = 640, .h = 480, .class_id = -1, .score = -1,
                          .roi_id = -1, .labels = g_ptr_array_ref(lab), .mask = gst_tflite_mask_new(&tm, NULL) };
  gst_tflite_meta_add_object(m, &seg);
  return buf;
}

static const char *expected_det =
  "{\"id\":11,\"parent\":null,\"source\":\"det0\",\"kind\":\"detection\",\"track\":7,"
  "\"box\":{\"x\":10.5,\"y\":20,\"w\":30.25,\"h\":40},\"class_id\":1,\"label\":\"person\",\"score\":0.875,"
  "\"keypoints\":[{\"x\":1.5,\"y\":2.5,\"score\":0.5},{\"x\":null,\"y\":4,\"score\":null}]}";
static const char *expected_cls =
  "{\"id\":12,\"parent\":11,\"source\":\"cls0\",\"kind\":\"classification\",\"track\":null,"
  "\"box\":{\"x\":10.5,\"y\":20,\"w\":30.25,\"h\":40},\"class_id\":2,\"label\":\"say \\\"hi\\\"\\n\\u0001\","
  "\"score\":0.5,\"classes\":[{\"id\":2,\"label\":\"say \\\"hi\\\"\\n\\u0001\",\"score\":0.5},"
  "{\"id\":3,\"label\":\"bad \xef\xbf\xbd utf8\",\"score\":0.25}]}";
static const char *expected_seg =
  "{\"id\":13,\"parent\":null,\"source\":\"seg0\",\"kind\":\"segmentation\",\"track\":null,"
  "\"box\":{\"x\":0,\"y\":0,\"w\":640,\"h\":480},\"class_id\":null,\"label\":null,\"score\":null,"
  "\"mask\":{\"type\":\"classes\",\"width\":4,\"height\":2,\"areas\":[{\"id\":0,\"label\":\"background\","
  "\"fraction\":0.25},{\"id\":1,\"label\":\"person\",\"fraction\":0.25},{\"id\":2,\"label\":\"say \\\"hi\\\"\\n"
  "\\u0001\",\"fraction\":0.5}]}}";

static void test_objects(GPtrArray *lab)
{
  GstBuffer *buf = frame(lab, 7);
  GstTfliteMeta *m = gst_buffer_get_tflite_meta(buf);
  const char *want[] = { expected_det, expected_cls, expected_seg };
  for (guint i = 0; i < 3; i++) {
    GString *s = g_string_new(NULL);
    tp_json_object(s, gst_tflite_meta_get_object(m, i), TP_MASK_SUMMARY);
    CHECK(g_str_equal(s->str, want[i]), "object %u:\n got  %s\n want %s", i, s->str, want[i]);
    g_string_free(s, TRUE);
  }
  /* no mask member with TP_MASK_NONE */
  GString *s = g_string_new(NULL);
  tp_json_object(s, gst_tflite_meta_get_object(m, 2), TP_MASK_NONE);
  CHECK(!strstr(s->str, "\"mask\""), "mask=none still has a mask: %s", s->str);
  g_string_free(s, TRUE);
  gst_buffer_unref(buf);
}

static void test_frame(GPtrArray *lab)
{
  GstBuffer *buf = frame(lab, 7);
  tp_frame_info fi = { .camera = "cam \"1\"", .stream = "s", .seq = 5, .frame = 4, .pts = 40 * GST_MSECOND,
                       .running_time = GST_CLOCK_TIME_NONE, .duration = GST_CLOCK_TIME_NONE,
                       .wall_time_us = 1700000000123456LL, .width = 640, .height = 480 };
  GString *s = g_string_new(NULL);
  tp_json_frame(s, &fi, gst_buffer_get_tflite_meta(buf), TP_MASK_SUMMARY);
  GString *want = g_string_new(
    "{\"schema\":\"gst-tflite/objects\",\"version\":1,\"type\":\"frame\",\"camera\":\"cam \\\"1\\\"\","
    "\"stream\":\"s\",\"seq\":5,\"frame\":4,\"pts_ns\":40000000,\"running_time_ns\":null,"
    "\"wall_time_us\":1700000000123456,\"wall_time\":\"2023-11-14T22:13:20.123456Z\",\"duration_ns\":null,"
    "\"width\":640,\"height\":480,\"objects\":[");
  g_string_append_printf(want, "%s,%s,%s]}", expected_det, expected_cls, expected_seg);
  CHECK(g_str_equal(s->str, want->str), "frame:\n got  %s\n want %s", s->str, want->str);
  /* an empty frame */
  g_string_truncate(s, 0);
  tp_json_frame(s, &fi, NULL, TP_MASK_SUMMARY);
  CHECK(g_str_has_suffix(s->str, "\"objects\":[]}"), "empty frame: %s", s->str);
  g_string_free(want, TRUE);
  g_string_free(s, TRUE);
  gst_buffer_unref(buf);
}

/* Decodes a grey PNG with libpng (an independent reader) and compares its pixels. */
static void test_png(GPtrArray *lab)
{
  GstBuffer *buf = frame(lab, 0);
  const GstTfliteObject *seg = gst_tflite_meta_get_object(gst_buffer_get_tflite_meta(buf), 2);
  GString *s = g_string_new(NULL);
  tp_json_object(s, seg, TP_MASK_PNG);
  const char *p = strstr(s->str, "\"png\":\"");
  CHECK(p != NULL, "no png member: %s", s->str);
  if (p) {
    p += 7;
    gchar *b64 = g_strndup(p, (gsize)(strchr(p, '"') - p));
    gsize len = 0;
    guchar *png = g_base64_decode(b64, &len);
    png_image img = { .version = PNG_IMAGE_VERSION };
    CHECK(png_image_begin_read_from_memory(&img, png, len), "PNG not readable: %s", img.message);
    CHECK(img.width == 4 && img.height == 2, "PNG is %ux%u", img.width, img.height);
    img.format = PNG_FORMAT_GRAY;
    guint8 px[8] = { 0 };
    CHECK(png_image_finish_read(&img, NULL, px, 4, NULL), "PNG decode: %s", img.message);
    CHECK(memcmp(px, seg->mask->classes, 8) == 0, "PNG pixels differ from the mask");
    png_image_free(&img);
    g_free(png);
    g_free(b64);
  }
  g_string_free(s, TRUE);

  /* probability masks: bytes are round(p * 255), the area is the share >= 0.5 */
  tfl_mask pm = { .kind = TFL_MASK_PROB, .width = 2, .height = 2 };
  pm.prob = g_new(float, 4);
  memcpy(pm.prob, (float[]){ 0.f, 0.49f, 0.5f, 1.f }, sizeof(float) * 4);
  GstTfliteMask *mask = gst_tflite_mask_new(&pm, NULL);
  const gchar *why = NULL;
  guint8 *bytes = tp_mask_bytes(mask, &why);
  CHECK(bytes && bytes[0] == 0 && bytes[1] == 125 && bytes[2] == 128 && bytes[3] == 255, "prob bytes %d %d %d %d",
        bytes ? bytes[0] : -1, bytes ? bytes[1] : -1, bytes ? bytes[2] : -1, bytes ? bytes[3] : -1);
  g_free(bytes);
  GstTfliteObject o = { .id = 1, .kind = GST_TFLITE_OBJECT_SEGMENTATION, .class_id = -1, .score = -1, .mask = mask };
  s = g_string_new(NULL);
  tp_json_object(s, &o, TP_MASK_SUMMARY);
  CHECK(strstr(s->str, "\"type\":\"probability\"") && strstr(s->str, "\"fraction\":0.5}"), "prob mask: %s", s->str);
  g_string_free(s, TRUE);
  gst_tflite_mask_unref(mask);
  gst_buffer_unref(buf);
}

static void test_numbers(void)
{
  GString *s = g_string_new(NULL);
  double v[] = { 0.0, -1.25, 1e-9, 123456789.0, INFINITY, NAN, 0.1 };
  const char *want = "0 -1.25 1e-09 1.234568e+08 null null 0.1 ";
  for (gsize i = 0; i < G_N_ELEMENTS(v); i++) {
    tp_json_number(s, v[i]);
    g_string_append_c(s, ' ');
  }
  CHECK(g_str_equal(s->str, want), "numbers: '%s' want '%s'", s->str, want);
  /* a locale with a decimal comma must not leak into JSON (when it is installed) */
  if (setlocale(LC_NUMERIC, "de_DE.UTF-8") || setlocale(LC_NUMERIC, "fr_FR.UTF-8")) {
    g_string_truncate(s, 0);
    tp_json_number(s, 0.5);
    CHECK(g_str_equal(s->str, "0.5"), "decimal comma locale: %s", s->str);
    setlocale(LC_NUMERIC, "C");
  }
  g_string_free(s, TRUE);
}

static void test_templates(void)
{
  gchar *err = NULL;
  gchar *t = tp_template_expand("cameras/{camera}/{stream}/{kind}", "door", "s1", "objects", &err);
  CHECK(t && g_str_equal(t, "cameras/door/s1/objects"), "expand: %s", t ? t : err);
  g_free(t);
  t = tp_template_expand("x/{camra}", "door", "s1", "objects", &err);
  CHECK(!t && err && strstr(err, "{camra}"), "unknown placeholder not named: %s", err ? err : "(none)");
  g_clear_pointer(&err, g_free);
  t = tp_template_expand("x/{camera", "door", "s1", "objects", &err);
  CHECK(!t && err, "unclosed brace accepted");
  g_clear_pointer(&err, g_free);
  gchar *why = tp_topic_check_mqtt("a/+/b");
  CHECK(why != NULL, "MQTT wildcard accepted");
  g_free(why);
  why = tp_topic_check_mqtt("cameras/door/objects");
  CHECK(why == NULL, "good MQTT topic refused: %s", why);
  g_free(why);
  why = tp_topic_check_kafka("cameras/door");
  CHECK(why != NULL, "Kafka topic with '/' accepted");
  g_free(why);
  why = tp_topic_check_kafka("tflite-objects.v1_x");
  CHECK(why == NULL, "good Kafka topic refused: %s", why);
  g_free(why);
}

static void test_tracks(GPtrArray *lab)
{
  tp_tracks *t = tp_tracks_new();
  /* frames: track 7, track 7, none, track 9 then EOS */
  guint64 tracks[] = { 7, 7, 0, 9 };
  const char *want[] = { "enter 7", "", "leave 7 lost 2", "enter 9" };
  for (gsize f = 0; f < G_N_ELEMENTS(tracks); f++) {
    GstBuffer *buf = frame(lab, tracks[f]);
    GPtrArray *ev = tp_track_events_new();
    tp_tracks_update(t, gst_buffer_get_tflite_meta(buf), f * GST_SECOND, TP_MASK_NONE, ev);
    GString *got = g_string_new(NULL);
    for (guint i = 0; i < ev->len; i++) {
      const tp_track_event *e = g_ptr_array_index(ev, i);
      g_string_append_printf(got, "%s%s %" G_GUINT64_FORMAT, i ? "; " : "", e->enter ? "enter" : "leave", e->track_id);
      if (!e->enter) g_string_append_printf(got, " %s %" G_GUINT64_FORMAT, e->reason, e->frames_seen);
      CHECK(e->object_json && g_str_has_prefix(e->object_json, "{\"id\":11"), "event object: %s", e->object_json);
    }
    CHECK(g_str_equal(got->str, want[f]), "frame %zu events '%s', want '%s'", f, got->str, want[f]);
    g_string_free(got, TRUE);
    g_ptr_array_unref(ev);
    gst_buffer_unref(buf);
  }
  GPtrArray *ev = tp_track_events_new();
  tp_tracks_end(t, ev);
  CHECK(ev->len == 1 && !((tp_track_event *)ev->pdata[0])->enter &&
          g_str_equal(((tp_track_event *)ev->pdata[0])->reason, "eos"),
        "EOS should make one leave event, got %u", ev->len);
  g_ptr_array_unref(ev);

  /* changes: first frame changes, same objects do not, another track does, empty does */
  GstBuffer *a = frame(lab, 7), *b = frame(lab, 7), *c = frame(lab, 8);
  CHECK(tp_tracks_changed(t, gst_buffer_get_tflite_meta(a)), "first frame is a change");
  CHECK(!tp_tracks_changed(t, gst_buffer_get_tflite_meta(b)), "same objects counted as a change");
  CHECK(tp_tracks_changed(t, gst_buffer_get_tflite_meta(c)), "new track id not a change");
  CHECK(tp_tracks_changed(t, NULL), "objects gone not a change");
  CHECK(!tp_tracks_changed(t, NULL), "still nothing counted as a change");
  gst_buffer_unref(a);
  gst_buffer_unref(b);
  gst_buffer_unref(c);
  tp_tracks_free(t);
}

int main(int argc, char **argv)
{
  gst_init(&argc, &argv);
  GPtrArray *lab = labels();
  test_objects(lab);
  test_frame(lab);
  test_png(lab);
  test_numbers();
  test_templates();
  test_tracks(lab);
  g_ptr_array_unref(lab);
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures != 0;
}
