/* first_result.c - time to the first results of a pipeline (scripts/bench_first_result.sh).
 *
 *   gst_first_result [--after-gl N] [--timeout S] 'PIPELINE with a tflitefilter name=f'
 *
 * Sets the pipeline to PLAYING and times, from that call, the "tflite-results" messages of
 * the filter "f" as they are posted (a sync handler: the streaming thread's clock, not the
 * bus reader's): the first one, and the first whose delegate is "gl". It stops N frames
 * (default 10) after the first GL result, at EOS, at an error or after S seconds (default
 * 300), and prints one line:
 *   first_ms F first_gl_ms G cpu_frames C gl_start_ms S max_gap_ms M frames N
 * (G "-" without a GL result; C and S from the second "tflite-model" message of
 * gl-start=cpu, "-" without one; M the longest time between two results, e.g. a frames'
 * GL thread held up; from the first result on). Exit status 1 after an error. */
#include <gst/gst.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  GMutex lock;
  gint64 playing_us;
  gint64 first_us, first_gl_us, last_us, max_gap_us;
  guint frames, gl_frames;
  guint64 cpu_frames;
  gdouble gl_start_ms;
  gboolean have_switch;
} timing;

static GstBusSyncReply on_message(GstBus *bus, GstMessage *m, gpointer data)
{
  timing *t = data;
  const GstStructure *s = gst_message_get_structure(m);
  if (GST_MESSAGE_TYPE(m) != GST_MESSAGE_ELEMENT || !s || g_strcmp0(GST_OBJECT_NAME(GST_MESSAGE_SRC(m)), "f"))
    return GST_BUS_PASS;
  gint64 now = g_get_monotonic_time();
  g_mutex_lock(&t->lock);
  if (gst_structure_has_name(s, "tflite-results")) {
    gboolean gl = !g_strcmp0(gst_structure_get_string(s, "delegate"), "gl");
    if (!t->frames) t->first_us = now;
    else if (now - t->last_us > t->max_gap_us) t->max_gap_us = now - t->last_us;
    if (gl && !t->gl_frames) t->first_gl_us = now;
    t->last_us = now;
    t->frames++;
    t->gl_frames += gl;
  } else if (gst_structure_has_name(s, "tflite-model") && gst_structure_has_field(s, "cpu-frames")) {
    t->have_switch = gst_structure_get_uint64(s, "cpu-frames", &t->cpu_frames) &&
                     gst_structure_get_double(s, "gl-start-ms", &t->gl_start_ms);
  }
  g_mutex_unlock(&t->lock);
  return GST_BUS_PASS;
}

static void print_ms(const char *name, gboolean have, gdouble ms)
{
  if (have) printf("%s %.1f ", name, ms);
  else printf("%s - ", name);
}

int main(int argc, char **argv)
{
  guint after_gl = 10, timeout_s = 300;
  int i = 1;
  for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
    if (!strcmp(argv[i], "--after-gl")) after_gl = (guint)atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--timeout")) timeout_s = (guint)atoi(argv[i + 1]);
    else break;
  }
  if (i != argc - 1) {
    fprintf(stderr, "usage: %s [--after-gl N] [--timeout S] 'PIPELINE with a tflitefilter name=f'\n", argv[0]);
    return 2;
  }
  gst_init(NULL, NULL);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch(argv[i], &err);
  if (!pipe || err) {
    fprintf(stderr, "pipeline: %s\n", err ? err->message : "?");
    return 2;
  }
  timing t = { 0 };
  g_mutex_init(&t.lock);
  GstBus *bus = gst_element_get_bus(pipe);
  gst_bus_set_sync_handler(bus, on_message, &t, NULL);
  t.playing_us = g_get_monotonic_time();
  gst_element_set_state(pipe, GST_STATE_PLAYING);
  gint64 end = t.playing_us + (gint64)timeout_s * G_USEC_PER_SEC;
  int status = 0;
  for (;;) {
    g_mutex_lock(&t.lock);
    gboolean enough = t.gl_frames > after_gl;
    g_mutex_unlock(&t.lock);
    if (enough || g_get_monotonic_time() > end) break;
    GstMessage *m = gst_bus_timed_pop_filtered(bus, 20 * GST_MSECOND, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
    if (!m) continue;
    if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR) {
      gchar *dbg = NULL;
      gst_message_parse_error(m, &err, &dbg);
      fprintf(stderr, "error from %s: %s (%s)\n", GST_OBJECT_NAME(GST_MESSAGE_SRC(m)), err->message, dbg ? dbg : "");
      g_clear_error(&err);
      g_free(dbg);
      status = 1;
    }
    gst_message_unref(m);
    break;
  }
  gst_element_set_state(pipe, GST_STATE_NULL);
  g_mutex_lock(&t.lock);
  print_ms("first_ms", t.frames > 0, (gdouble)(t.first_us - t.playing_us) / 1000.0);
  print_ms("first_gl_ms", t.gl_frames > 0, (gdouble)(t.first_gl_us - t.playing_us) / 1000.0);
  if (t.have_switch) printf("cpu_frames %" G_GUINT64_FORMAT " ", t.cpu_frames);
  else printf("cpu_frames - ");
  print_ms("gl_start_ms", t.have_switch, t.gl_start_ms);
  print_ms("max_gap_ms", t.frames > 1, (gdouble)t.max_gap_us / 1000.0);
  printf("frames %u\n", t.frames);
  g_mutex_unlock(&t.lock);
  gst_object_unref(bus);
  gst_object_unref(pipe);
  return status;
}
