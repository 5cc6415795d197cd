/* publish_feed.c - drives one tflitepublish with synthetic frames for the broker tests.
 *
 * Each frame carries a GstTfliteMeta: detection track 1 (always there, with a
 * classification child and keypoints), detection track 2 (there in frames 20-39, 60-79,
 * ...: it enters and leaves) and an 8x8 class mask. Frames are pushed through a GstHarness
 * at --fps (0: as fast as possible) and the time each push takes on this thread (the
 * streaming thread) is measured. Bus messages are printed as JSON lines on stdout; at the
 * end a {"eos_stats":...} line gives the `stats` property read right after EOS and a
 * {"feed":"done",...} line the push-time statistics.
 *
 * Usage: publish_feed [--frames N] [--fps F] [--timing FILE] [--linger-ms MS] [prop=value ...]
 * Exit status: 0 after the run, 2 when the element would not start (its error is printed).
 */
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/tflitemeta/gsttflitemeta.h>

#define W 64
#define H 48

static void json_string(GString *o, const gchar *s)
{
  g_string_append_c(o, '"');
  for (; s && *s; s++) {
    if (*s == '"' || *s == '\\') g_string_append_printf(o, "\\%c", *s);
    else if ((guchar)*s < 0x20) g_string_append_printf(o, "\\u%04x", *s);
    else g_string_append_c(o, *s);
  }
  g_string_append_c(o, '"');
}

static gboolean field(GQuark q, const GValue *v, gpointer data)
{
  GString *o = data;
  g_string_append_c(o, ',');
  json_string(o, g_quark_to_string(q));
  g_string_append_c(o, ':');
  if (G_VALUE_HOLDS_UINT64(v)) g_string_append_printf(o, "%" G_GUINT64_FORMAT, g_value_get_uint64(v));
  else if (G_VALUE_HOLDS_INT(v)) g_string_append_printf(o, "%d", g_value_get_int(v));
  else if (G_VALUE_HOLDS_BOOLEAN(v)) g_string_append(o, g_value_get_boolean(v) ? "true" : "false");
  else if (G_VALUE_HOLDS_STRING(v)) json_string(o, g_value_get_string(v));
  else {
    gchar *s = gst_value_serialize(v);
    json_string(o, s);
    g_free(s);
  }
  return TRUE;
}

static void print_bus(GstBus *bus)
{
  GstMessage *m;
  while ((m = gst_bus_pop(bus))) {
    GString *o = g_string_new("{\"t_us\":");
    g_string_append_printf(o, "%" G_GINT64_FORMAT, g_get_monotonic_time());
    const GstStructure *s = gst_message_get_structure(m);
    if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ELEMENT && s) {
      g_string_append(o, ",\"bus\":");
      json_string(o, gst_structure_get_name(s));
      gst_structure_foreach(s, field, o);
    } else if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR || GST_MESSAGE_TYPE(m) == GST_MESSAGE_WARNING ||
               GST_MESSAGE_TYPE(m) == GST_MESSAGE_INFO) {
      GError *err = NULL;
      gchar *dbg = NULL;
      if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR) gst_message_parse_error(m, &err, &dbg);
      else if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_WARNING) gst_message_parse_warning(m, &err, &dbg);
      else gst_message_parse_info(m, &err, &dbg);
      g_string_append_printf(o, ",\"bus\":\"%s\",\"text\":",
                             GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR     ? "error"
                             : GST_MESSAGE_TYPE(m) == GST_MESSAGE_WARNING ? "warning"
                                                                          : "info");
      json_string(o, err->message);
      g_string_append(o, ",\"debug\":");
      json_string(o, dbg ? dbg : "");
      g_error_free(err);
      g_free(dbg);
    } else {
      g_string_free(o, TRUE);
      gst_message_unref(m);
      continue;
    }
    g_string_append_c(o, '}');
    printf("%s\n", o->str);
    fflush(stdout);
    g_string_free(o, TRUE);
    gst_message_unref(m);
  }
}

static GPtrArray *labels;

static void add_det(GstTfliteMeta *meta, guint64 track, guint frame, gboolean child)
{
  GstTfliteObject d = { .source = g_quark_from_static_string("feed"), .kind = GST_TFLITE_OBJECT_DETECTION,
                        .x = (gfloat)(frame % 20), .y = 5, .w = 20, .h = 30, .class_id = 1, .score = 0.9f,
                        .track_id = track, .roi_id = -1, .labels = g_ptr_array_ref(labels) };
  d.n_keypoints = 2;
  d.keypoints = g_new(tfl_keypoint, 2);
  d.keypoints[0] = (tfl_keypoint){ d.x + 5, 10, 0.8f };
  d.keypoints[1] = (tfl_keypoint){ d.x + 15, 10, -1 };
  guint64 id = gst_tflite_meta_add_object(meta, &d)->id;
  if (!child) return;
  GstTfliteObject c = { .parent_id = id, .source = g_quark_from_static_string("feed-cls"),
                        .kind = GST_TFLITE_OBJECT_CLASSIFICATION, .x = d.x, .y = 5, .w = 20, .h = 30, .class_id = 2,
                        .score = 0.7f, .roi_id = -1, .labels = g_ptr_array_ref(labels) };
  c.n_classes = 2;
  c.classes = g_new(tfl_class, 2);
  c.classes[0] = (tfl_class){ 2, 0.7f };
  c.classes[1] = (tfl_class){ 0, 0.2f };
  gst_tflite_meta_add_object(meta, &c);
}

static GstBuffer *make_frame(guint i, GstClockTime period)
{
  GstBuffer *b = gst_buffer_new_allocate(NULL, W * H, NULL);
  gst_buffer_memset(b, 0, (guint8)i, W * H);
  GST_BUFFER_PTS(b) = i * period;
  GST_BUFFER_DURATION(b) = period;
  GstTfliteMeta *meta = gst_buffer_add_tflite_meta(b, W, H);
  add_det(meta, 1, i, TRUE);
  if ((i / 20) % 2 == 1) add_det(meta, 2, i, FALSE);
  tfl_mask tm = { .kind = TFL_MASK_CLASSES, .width = 8, .height = 8, .n_classes = 3 };
  tm.classes = g_malloc(64);
  for (int p = 0; p < 64; p++) tm.classes[p] = (guint8)((p + i) % 3);
  GstTfliteObject seg = { .source = g_quark_from_static_string("feed-seg"), .kind = GST_TFLITE_OBJECT_SEGMENTATION,
                          .w = W, .h = H, .class_id = -1, .score = -1, .roi_id = -1,
                          .labels = g_ptr_array_ref(labels), .mask = gst_tflite_mask_new(&tm, NULL) };
  gst_tflite_meta_add_object(meta, &seg);
  return b;
}

static int cmp_i64(const void *a, const void *b)
{
  gint64 x = *(const gint64 *)a, y = *(const gint64 *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
  gst_init(&argc, &argv);
  guint frames = 100;
  double fps = 0;
  const char *timing_path = NULL;
  int linger_ms = 0;
  GstElement *el = gst_element_factory_make("tflitepublish", NULL);
  if (el) gst_object_ref_sink(el);
  if (!el) {
    fprintf(stderr, "publish_feed: no tflitepublish element (GST_PLUGIN_PATH?)\n");
    return 1;
  }
  for (int a = 1; a < argc; a++) {
    if (!strcmp(argv[a], "--frames") && a + 1 < argc) frames = (guint)atoi(argv[++a]);
    else if (!strcmp(argv[a], "--fps") && a + 1 < argc) fps = atof(argv[++a]);
    else if (!strcmp(argv[a], "--timing") && a + 1 < argc) timing_path = argv[++a];
    else if (!strcmp(argv[a], "--linger-ms") && a + 1 < argc) linger_ms = atoi(argv[++a]);
    else if (strchr(argv[a], '=')) {
      gchar **kv = g_strsplit(argv[a], "=", 2);
      gst_util_set_object_arg(G_OBJECT(el), kv[0], kv[1]);
      g_strfreev(kv);
    } else {
      fprintf(stderr, "publish_feed: unknown argument %s\n", argv[a]);
      return 1;
    }
  }
  labels = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(labels, g_strdup("background"));
  g_ptr_array_add(labels, g_strdup("person"));
  g_ptr_array_add(labels, g_strdup("hat"));

  GstBus *bus = gst_bus_new();
  gst_element_set_bus(el, bus);
  if (gst_element_set_state(el, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    print_bus(bus);
    gst_element_set_state(el, GST_STATE_NULL);
    gst_object_unref(el);
    gst_object_unref(bus);
    return 2;
  }
  GstHarness *h = gst_harness_new_with_element(el, "sink", "src");
  gst_harness_set_src_caps_str(h, "video/x-raw,format=GRAY8,width=64,height=48,framerate=30/1");
  GstClockTime period = fps > 0 ? (GstClockTime)(GST_SECOND / fps) : GST_SECOND / 30;
  gint64 *dur = g_new(gint64, frames ? frames : 1);
  FILE *timing = timing_path ? fopen(timing_path, "w") : NULL;
  gint64 t0 = g_get_monotonic_time();
  for (guint i = 0; i < frames; i++) {
    if (fps > 0) {
      gint64 due = t0 + (gint64)(i * 1e6 / fps);
      while (g_get_monotonic_time() < due) {
        print_bus(bus);
        gint64 left = due - g_get_monotonic_time();
        if (left > 0) g_usleep((gulong)MIN(left, 5000));
      }
    }
    GstBuffer *b = make_frame(i, period);
    gint64 start = g_get_monotonic_time();
    GstFlowReturn r = gst_harness_push(h, b);
    gint64 end = g_get_monotonic_time();
    dur[i] = end - start;
    if (timing) fprintf(timing, "%" G_GINT64_FORMAT " %" G_GINT64_FORMAT "\n", start, dur[i]);
    if (r != GST_FLOW_OK) {
      fprintf(stderr, "publish_feed: push %u: %s\n", i, gst_flow_get_name(r));
      break;
    }
    gst_buffer_unref(gst_harness_pull(h));
    print_bus(bus);
  }
  if (timing) fclose(timing);
  gint64 eos_start = g_get_monotonic_time();
  gst_harness_push_event(h, gst_event_new_eos());
  gint64 eos_us = g_get_monotonic_time() - eos_start;
  print_bus(bus);
  /* the `stats` property right after EOS went through (what an application reads on EOS) */
  GstStructure *st = NULL;
  g_object_get(el, "stats", &st, NULL);
  GString *o = g_string_new("{\"eos_stats\":\"yes\"");
  if (st) gst_structure_foreach(st, field, o);
  g_string_append_c(o, '}');
  printf("%s\n", o->str);
  fflush(stdout);
  g_string_free(o, TRUE);
  if (st) gst_structure_free(st);
  for (gint64 end = g_get_monotonic_time() + linger_ms * 1000; g_get_monotonic_time() < end; g_usleep(10000))
    print_bus(bus);
  gst_harness_teardown(h); /* stop: the last stats (with "unsent") */
  gst_object_unref(el);
  print_bus(bus);
  qsort(dur, frames, sizeof(gint64), cmp_i64);
  printf("{\"feed\":\"done\",\"frames\":%u,\"push_us\":{\"median\":%" G_GINT64_FORMAT ",\"p99\":%" G_GINT64_FORMAT
         ",\"max\":%" G_GINT64_FORMAT "},\"eos_us\":%" G_GINT64_FORMAT ",\"run_us\":%" G_GINT64_FORMAT "}\n",
         frames, frames ? dur[frames / 2] : 0, frames ? dur[frames * 99 / 100] : 0, frames ? dur[frames - 1] : 0,
         eos_us, eos_start + eos_us - t0);
  g_free(dur);
  gst_object_unref(bus);
  g_ptr_array_unref(labels);
  return 0;
}
