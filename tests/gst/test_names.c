/* test_names.c - properties that name another element (issue 28): regions-from with a
 * name the pipeline lacks fails the state change, naming what was asked and what
 * exists; tflitetracker's source posts a warning and keeps going.
 * Env (meson): GST_PLUGIN_PATH, TFL_MODEL_DIRS.
 */
#include <gst/check/gstcheck.h>

#include "pipe_util.h"

/* One small frame through a face detector named det and `tail`. */
static void run_with(const gchar *tail, pipe_run *r)
{
  gchar *model = pipe_model("face_detection_short_range.tflite");
  gchar *desc = g_strdup_printf("videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=128,height=128 ! "
                                "tflitefilter name=det model=\"%s\" delegate=cpu ! %s ! appsink name=sink",
                                model, tail);
  pipe_run_launch(desc, 60, r);
  g_free(desc);
  g_free(model);
}

static gboolean has(const gchar *text, const gchar *part)
{
  return text && strstr(text, part);
}

GST_START_TEST(test_regions_from_typo)
{
  gchar *model = pipe_model("face_detection_short_range.tflite");
  gchar *tail = g_strdup_printf("tflitefilter name=lm model=\"%s\" delegate=cpu regions-from=dett", model);
  pipe_run r;
  run_with(tail, &r);
  fail_unless(r.error != NULL, "regions-from=dett ran");
  fail_unless(has(r.error, "regions-from=\"dett\"") && has(r.error, "no element of that name"), "%s", r.error);
  fail_unless(has(r.error, "make objects: det."), "%s", r.error);
  fail_unless_equals_int(r.buffers->len, 0);
  pipe_run_clear(&r);
  g_free(tail);
  g_free(model);
}
GST_END_TEST;

/* A name that exists but makes no objects (the sink) is as wrong. */
GST_START_TEST(test_regions_from_wrong_kind)
{
  gchar *model = pipe_model("face_detection_short_range.tflite");
  gchar *tail = g_strdup_printf("tflitefilter name=lm model=\"%s\" delegate=cpu regions-from=sink", model);
  pipe_run r;
  run_with(tail, &r);
  fail_unless(has(r.error, "regions-from=\"sink\" names an element that makes no objects (appsink)"), "%s", r.error);
  pipe_run_clear(&r);
  g_free(tail);
  g_free(model);
}
GST_END_TEST;

/* The right name: no error, no warning. */
GST_START_TEST(test_regions_from_right)
{
  gchar *model = pipe_model("face_detection_short_range.tflite");
  gchar *tail = g_strdup_printf("tflitefilter name=lm model=\"%s\" delegate=cpu regions-from=det", model);
  pipe_run r;
  run_with(tail, &r);
  fail_unless(r.error == NULL, "%s", r.error);
  fail_unless_equals_int(pipe_run_count_warnings(&r, "regions-from"), 0);
  fail_unless_equals_int(r.buffers->len, 1);
  pipe_run_clear(&r);
  g_free(tail);
  g_free(model);
}
GST_END_TEST;

/* The tracker warns once and passes the frame on; the right name is quiet. */
GST_START_TEST(test_tracker_source)
{
  pipe_run r;
  run_with("tflitetracker source=dett", &r);
  fail_unless(r.error == NULL, "%s", r.error);
  fail_unless_equals_int(pipe_run_count_warnings(&r, "source=\"dett\": the pipeline has no element of that name"), 1);
  fail_unless_equals_int(r.buffers->len, 1);
  pipe_run_clear(&r);
  run_with("tflitetracker source=det", &r);
  fail_unless(r.error == NULL, "%s", r.error);
  fail_unless_equals_int(pipe_run_count_warnings(&r, "source="), 0);
  pipe_run_clear(&r);
}
GST_END_TEST;

static Suite *names_suite(void)
{
  Suite *s = suite_create("names");
  TCase *tc = tcase_create("names");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_regions_from_typo);
  tcase_add_test(tc, test_regions_from_wrong_kind);
  tcase_add_test(tc, test_regions_from_right);
  tcase_add_test(tc, test_tracker_source);
  suite_add_tcase(s, tc);
  return s;
}

GST_CHECK_MAIN(names);
