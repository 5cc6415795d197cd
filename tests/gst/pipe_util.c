/* pipe_util.c - see pipe_util.h */
#include "pipe_util.h"

#include <gst/app/gstappsink.h>
#include <gst/check/gstcheck.h>

static GstFlowReturn on_sample(GstAppSink *sink, gpointer user)
{
  GstSample *s = gst_app_sink_pull_sample(sink);
  if (!s) return GST_FLOW_ERROR;
  g_ptr_array_add(user, gst_buffer_ref(gst_sample_get_buffer(s)));
  gst_sample_unref(s);
  return GST_FLOW_OK;
}

void pipe_run_launch(const gchar *desc, guint timeout_s, pipe_run *out)
{
  memset(out, 0, sizeof *out);
  out->buffers = g_ptr_array_new_with_free_func((GDestroyNotify)gst_buffer_unref);
  out->messages = g_ptr_array_new_with_free_func((GDestroyNotify)gst_message_unref);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch(desc, &err);
  fail_unless(pipe && !err, "pipeline \"%s\": %s", desc, err ? err->message : "?");
  GstElement *sink = gst_bin_get_by_name(GST_BIN(pipe), "sink");
  if (sink) {
    GstAppSinkCallbacks cb = { .new_sample = on_sample };
    gst_app_sink_set_callbacks(GST_APP_SINK(sink), &cb, out->buffers, NULL);
    gst_object_unref(sink);
  }
  GstBus *bus = gst_element_get_bus(pipe);
  gst_element_set_state(pipe, GST_STATE_PLAYING);
  gint64 end = g_get_monotonic_time() + (gint64)timeout_s * G_USEC_PER_SEC;
  for (;;) {
    GstMessage *m = gst_bus_timed_pop(bus, 100 * GST_MSECOND);
    if (!m) {
      fail_unless(g_get_monotonic_time() < end, "pipeline \"%s\" did not end within %u s", desc, timeout_s);
      continue;
    }
    GstMessageType t = GST_MESSAGE_TYPE(m);
    if (t == GST_MESSAGE_ERROR && !out->error) {
      GError *e = NULL;
      gchar *dbg = NULL;
      gst_message_parse_error(m, &e, &dbg);
      out->error = g_strdup_printf("%s (%s)", e->message, dbg ? dbg : "");
      g_clear_error(&e);
      g_free(dbg);
    }
    if (t == GST_MESSAGE_ELEMENT || t == GST_MESSAGE_WARNING || t == GST_MESSAGE_ERROR)
      g_ptr_array_add(out->messages, gst_message_ref(m));
    gst_message_unref(m);
    if (t == GST_MESSAGE_EOS || t == GST_MESSAGE_ERROR) break;
  }
  gst_element_set_state(pipe, GST_STATE_NULL);
  gst_object_unref(bus);
  gst_object_unref(pipe);
}

void pipe_run_clear(pipe_run *r)
{
  if (r->buffers) g_ptr_array_unref(r->buffers);
  if (r->messages) g_ptr_array_unref(r->messages);
  g_free(r->error);
  memset(r, 0, sizeof *r);
}

const GstStructure *pipe_run_message(const pipe_run *r, const gchar *name, const gchar *source, guint i)
{
  for (guint k = 0; k < r->messages->len; k++) {
    GstMessage *m = g_ptr_array_index(r->messages, k);
    const GstStructure *s = gst_message_get_structure(m);
    if (GST_MESSAGE_TYPE(m) != GST_MESSAGE_ELEMENT || !s || !gst_structure_has_name(s, name)) continue;
    if (source && g_strcmp0(GST_OBJECT_NAME(GST_MESSAGE_SRC(m)), source)) continue;
    if (i-- == 0) return s;
  }
  return NULL;
}

guint pipe_run_count_warnings(const pipe_run *r, const gchar *text)
{
  guint n = 0;
  for (guint k = 0; k < r->messages->len; k++) {
    GstMessage *m = g_ptr_array_index(r->messages, k);
    if (GST_MESSAGE_TYPE(m) != GST_MESSAGE_WARNING) continue;
    GError *e = NULL;
    gchar *dbg = NULL;
    gst_message_parse_warning(m, &e, &dbg);
    n += strstr(e->message, text) || (dbg && strstr(dbg, text));
    g_clear_error(&e);
    g_free(dbg);
  }
  return n;
}

gchar *pipe_model(const gchar *name)
{
  const gchar *dirs = g_getenv("TFL_MODEL_DIRS");
  fail_unless(dirs != NULL, "TFL_MODEL_DIRS is not set");
  gchar **list = g_strsplit(dirs, ":", -1);
  gchar *found = NULL;
  for (gchar **d = list; *d && !found; d++) {
    gchar *p = g_build_filename(*d, name, NULL);
    if (g_file_test(p, G_FILE_TEST_IS_REGULAR)) found = p;
    else g_free(p);
  }
  g_strfreev(list);
  fail_unless(found != NULL, "model %s not found in %s", name, dirs);
  return found;
}

gchar *pipe_picture(const gchar *name)
{
  const gchar *dir = g_getenv("TFL_PICTURES");
  fail_unless(dir != NULL, "TFL_PICTURES is not set");
  gchar *p = g_build_filename(dir, name, NULL);
  fail_unless(g_file_test(p, G_FILE_TEST_IS_REGULAR), "picture %s missing", p);
  return p;
}

void pipe_filter_imagefreeze_race(void)
{
  gst_check_clear_log_filter();
  gst_check_add_log_filter("GStreamer", G_LOG_LEVEL_CRITICAL,
                           g_regex_new("^_gst_util_uint64_scale: assertion 'denom != 0' failed$", 0, 0, NULL),
                           NULL, NULL, NULL);
}
