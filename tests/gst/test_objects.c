/* test_objects.c - objects end to end through tflitefilter (issue 14): decoder choice
 * that says what it guessed, label files that do not fit, single-class detectors'
 * names, and the GstVideoRegionOfInterestMeta every buffer carries.
 * Env (meson): GST_PLUGIN_PATH, TFL_MODEL_DIRS, TFL_PICTURES, TFL_OPMODELS.
 */
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

#include "gst/tflitefilter/gsttflitemeta.h"
#include "pipe_util.h"

static gchar *picture_pipeline(const gchar *pic, const gchar *filter_props)
{
  gchar *p = pipe_picture(pic);
  gchar *d = g_strdup_printf("filesrc location=\"%s\" ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! "
                             "tflitefilter name=f %s ! appsink name=sink",
                             p, filter_props);
  g_free(p);
  return d;
}

/* A 91-line COCO label file on a 1001-class ImageNet model: a warning saying both counts;
 * classes past the file show no label (the overlay prints their id). */
GST_START_TEST(test_label_count_warning)
{
  gchar *model = pipe_model("mobilenet_v1_0.25_224.tflite"), *labels = pipe_model("coco_labelmap_91.txt");
  gchar *props = g_strdup_printf("model=\"%s\" labels=\"%s\"", model, labels);
  gchar *desc = picture_pipeline("chelsea.png", props);
  pipe_run r;
  pipe_run_launch(desc, 60, &r);
  fail_unless(r.error == NULL, "%s", r.error);
  fail_unless_equals_int(pipe_run_count_warnings(&r, "has 91 labels but the model gives 1001 classes"), 1);
  fail_unless_equals_int(r.buffers->len, 1);
  GstTfliteMeta *m = gst_buffer_get_tflite_meta(g_ptr_array_index(r.buffers, 0));
  const GstTfliteObject *o = gst_tflite_meta_get_object(m, 0);
  /* chelsea: tabby/Egyptian cat, ids 282..286, past the 91 labels */
  fail_unless(o && o->kind == GST_TFLITE_OBJECT_CLASSIFICATION && o->class_id > 90);
  fail_unless(gst_tflite_object_label(o, o->class_id) == NULL);
  pipe_run_clear(&r);
  g_free(desc);
  g_free(props);
  g_free(model);
  g_free(labels);
}
GST_END_TEST;

/* The matching label file: no warning. */
GST_START_TEST(test_label_count_fits)
{
  gchar *model = pipe_model("mobilenet_v1_0.25_224.tflite"), *labels = pipe_model("imagenet_labels_1001.txt");
  gchar *props = g_strdup_printf("model=\"%s\" labels=\"%s\"", model, labels);
  gchar *desc = picture_pipeline("chelsea.png", props);
  pipe_run r;
  pipe_run_launch(desc, 60, &r);
  fail_unless(r.error == NULL, "%s", r.error);
  fail_unless_equals_int(pipe_run_count_warnings(&r, "labels"), 0);
  pipe_run_clear(&r);
  g_free(desc);
  g_free(props);
  g_free(model);
  g_free(labels);
}
GST_END_TEST;

/* decoder=auto on a model no row knows: a warning naming what it saw. */
GST_START_TEST(test_no_decoder_warning)
{
  gchar *model = g_build_filename(g_getenv("TFL_OPMODELS"), "conv_3x3_s1_same_relu.tflite", NULL);
  fail_unless(g_file_test(model, G_FILE_TEST_IS_REGULAR), "%s missing", model);
  gchar *props = g_strdup_printf("model=\"%s\"", model);
  gchar *desc = picture_pipeline("chelsea.png", props);
  pipe_run r;
  pipe_run_launch(desc, 60, &r);
  fail_unless(r.error == NULL, "%s", r.error);
  fail_unless_equals_int(pipe_run_count_warnings(&r, "decoder=auto found no decoder"), 1);
  fail_unless_equals_int(pipe_run_count_warnings(&r, "[1,6,7,4]"), 1);
  pipe_run_clear(&r);
  g_free(desc);
  g_free(props);
  g_free(model);
}
GST_END_TEST;

/* A known model: no warning; a single-class detector names its class. */
GST_START_TEST(test_known_family_named_class)
{
  gchar *model = pipe_model("face_detection_short_range.tflite");
  gchar *props = g_strdup_printf("model=\"%s\"", model);
  gchar *desc = picture_pipeline("astronaut.png", props);
  pipe_run r;
  pipe_run_launch(desc, 60, &r);
  fail_unless(r.error == NULL, "%s", r.error);
  fail_unless_equals_int(pipe_run_count_warnings(&r, "decoder"), 0);
  GstTfliteMeta *m = gst_buffer_get_tflite_meta(g_ptr_array_index(r.buffers, 0));
  const GstTfliteObject *o = gst_tflite_meta_get_object(m, 0);
  fail_unless(o && o->kind == GST_TFLITE_OBJECT_DETECTION);
  fail_unless_equals_string(gst_tflite_object_label(o, o->class_id), "face");
  pipe_run_clear(&r);
  g_free(desc);
  g_free(props);
  g_free(model);
}
GST_END_TEST;

static Suite *objects_suite(void)
{
  Suite *s = suite_create("objects");
  TCase *tc = tcase_create("decoders");
  tcase_set_timeout(tc, 300);
  suite_add_tcase(s, tc);
  tcase_add_test(tc, test_label_count_warning);
  tcase_add_test(tc, test_label_count_fits);
  tcase_add_test(tc, test_no_decoder_warning);
  tcase_add_test(tc, test_known_family_named_class);
  return s;
}

GST_CHECK_MAIN(objects);
