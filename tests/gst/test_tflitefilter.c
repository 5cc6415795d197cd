/* test_tflitefilter.c - the tflitefilter element end to end (gst-check).
 *
 * Real models on real pictures, on both paths: results checked against the real
 * TensorFlow Lite (../shared/oracle). The expected values below were decoded from the
 * oracle's raw outputs by our own Python (argmax, pixel counts, landmark scaling), not by
 * the element's decoders; the command that made each is given beside it.
 *
 * Environment (meson sets it, tests/meson.build): GST_PLUGIN_PATH (the plugin's build
 * dir), GST_GL_WINDOW=egl-device for the GL cases; TFL_MODEL_DIRS (':'-separated folders;
 * a name is found as DIR/NAME, DIR/ * /NAME or DIR/ * /package/NAME), TFL_PICTURES,
 * TFL_OPMODELS (single-op models) and TFL_REGRESS (tests/fuzz/regress). A missing model or
 * picture fails the test that needs it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include <glib/gstdio.h>
#include <gst/allocators/gstdmabuf.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/gl/gl.h>
#include <gst/gl/egl/gsteglimage.h>
#include <gst/gl/gstglfuncs.h>
#include <gst/video/video.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipe_util.h"

#include <gst/tflitemeta/gsttflitemeta.h>

#define MV1 "mobilenet_v1_0.25_224.tflite"
#define MV2Q "mobilenet_v2_1.0_224_quant.tflite"
#define DEEPLAB "deeplabv3_257_mv_gpu.tflite"
#define SELFIE "selfie_segmentation.tflite"
#define POSE_LM "pose_landmark_lite.tflite"
#define FACE_DET "face_detection_short_range.tflite"
#define SSD_OIDV4 "object_detection_ssd_mobilenetv2_oidv4_fp16.tflite"

/* ---- finding files ---- */

static gchar *find_in(const gchar *dir, const gchar *name)
{
  gchar *p = g_build_filename(dir, name, NULL);
  if (g_file_test(p, G_FILE_TEST_IS_REGULAR)) return p;
  g_free(p);
  GDir *d = g_dir_open(dir, 0, NULL);
  if (!d) return NULL;
  const gchar *sub;
  gchar *found = NULL;
  while (!found && (sub = g_dir_read_name(d))) {
    gchar *a = g_build_filename(dir, sub, name, NULL);
    gchar *b = g_build_filename(dir, sub, "package", name, NULL);
    if (g_file_test(a, G_FILE_TEST_IS_REGULAR)) found = g_strdup(a);
    else if (g_file_test(b, G_FILE_TEST_IS_REGULAR)) found = g_strdup(b);
    g_free(a);
    g_free(b);
  }
  g_dir_close(d);
  return found;
}

/* A folder meson names in the environment; the test fails without it. */
static const gchar *env_dir(const gchar *var)
{
  const gchar *v = g_getenv(var);
  fail_unless(v && *v, "%s is not set (meson sets it)", var);
  return v;
}

/* The model's path; the test fails when it is missing. */
static gchar *model_path(const gchar *name)
{
  const gchar *dirs = env_dir("TFL_MODEL_DIRS");
  gchar **list = g_strsplit(dirs, ":", -1);
  gchar *p = NULL;
  for (gchar **d = list; *d && !p; d++) p = find_in(*d, name);
  g_strfreev(list);
  fail_unless(p != NULL, "model %s not found in %s (models/fetch.sh, ../shared/models)", name, dirs);
  return p;
}

static gchar *picture(const gchar *name)
{
  gchar *p = g_build_filename(env_dir("TFL_PICTURES"), name, NULL);
  fail_unless(g_file_test(p, G_FILE_TEST_IS_REGULAR), "picture %s missing (tests/fetch_pictures.sh)", p);
  return p;
}

#define NEED_MODEL(var, name) gchar *var = model_path(name)

/* ---- running a pipeline to its end ---- */

typedef struct {
  GPtrArray *results;      /* GstStructure "tflite-results", in order */
  GstStructure *model;     /* "tflite-model" */
  gchar *error, *debug;    /* first error from the filter */
  GstCaps *caps;           /* the filter's sink caps at EOS */
} run_out;

static void run_out_clear(run_out *o)
{
  if (o->results) g_ptr_array_unref(o->results);
  if (o->model) gst_structure_free(o->model);
  g_free(o->error);
  g_free(o->debug);
  if (o->caps) gst_caps_unref(o->caps);
  memset(o, 0, sizeof *o);
}

/* Runs `desc` (an element named "f" is the filter) until EOS or an error. */
/* run_pipeline with a buffer probe on the filter's source pad (NULL: none). */
static void run_pipeline_probe(const gchar *desc, run_out *o, GstPadProbeCallback probe, gpointer data)
{
  memset(o, 0, sizeof *o);
  o->results = g_ptr_array_new_with_free_func((GDestroyNotify)gst_structure_free);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch(desc, &err);
  fail_unless(pipe != NULL && err == NULL, "pipeline \"%s\": %s", desc, err ? err->message : "?");
  g_clear_error(&err);
  GstElement *f = gst_bin_get_by_name(GST_BIN(pipe), "f");
  fail_unless(f != NULL);
  if (probe) {
    GstPad *src = gst_element_get_static_pad(f, "src");
    gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_BUFFER, probe, data, NULL);
    gst_object_unref(src);
  }
  GstBus *bus = gst_element_get_bus(pipe);
  gst_element_set_state(pipe, GST_STATE_PLAYING);
  for (gboolean done = FALSE; !done;) {
    GstMessage *m = gst_bus_timed_pop_filtered(bus, 300 * GST_SECOND,
                                               GST_MESSAGE_ERROR | GST_MESSAGE_EOS | GST_MESSAGE_ELEMENT);
    fail_unless(m != NULL, "pipeline \"%s\" timed out", desc);
    switch (GST_MESSAGE_TYPE(m)) {
    case GST_MESSAGE_ERROR: {
      GError *e = NULL;
      gchar *dbg = NULL;
      gst_message_parse_error(m, &e, &dbg);
      if (!o->error) {
        o->error = g_strdup_printf("%s: %s", GST_OBJECT_NAME(GST_MESSAGE_SRC(m)), e->message);
        o->debug = dbg;
        dbg = NULL;
      }
      g_clear_error(&e);
      g_free(dbg);
      done = TRUE;
      break;
    }
    case GST_MESSAGE_EOS: {
      GstPad *pad = gst_element_get_static_pad(f, "sink");
      o->caps = gst_pad_get_current_caps(pad);
      gst_object_unref(pad);
      done = TRUE;
      break;
    }
    default: {
      const GstStructure *s = gst_message_get_structure(m);
      if (s && gst_structure_has_name(s, "tflite-results"))
        g_ptr_array_add(o->results, gst_structure_copy(s));
      else if (s && gst_structure_has_name(s, "tflite-model") && !o->model)
        o->model = gst_structure_copy(s);
      break;
    }
    }
    gst_message_unref(m);
  }
  gst_element_set_state(pipe, GST_STATE_NULL);
  gst_object_unref(bus);
  gst_object_unref(f);
  gst_object_unref(pipe);
}

static void run_pipeline(const gchar *desc, run_out *o)
{
  run_pipeline_probe(desc, o, NULL, NULL);
}

/* A picture through the filter once; `gl` puts glupload before it. */
static void run_picture(const gchar *pic, const gchar *model, const gchar *props, gboolean gl,
                        run_out *o)
{
  gchar *p = picture(pic);
  gchar *desc = g_strdup_printf("filesrc location=%s ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! "
                                "%s tflitefilter name=f model=%s %s %s ! fakesink",
                                p, gl ? "glupload !" : "", model, gl ? "delegate=gl" : "", props ? props : "");
  run_pipeline(desc, o);
  fail_unless(o->error == NULL, "%s: %s (%s)", desc, o->error, o->debug);
  fail_unless(o->results->len == 1, "%s: %u results", desc, o->results->len);
  fail_unless(o->model != NULL);
  const gchar *delegate = gst_structure_get_string(o->model, "delegate");
  fail_unless(!g_strcmp0(delegate, gl ? "gl" : "cpu"), "delegate %s", delegate);
  g_free(desc);
  g_free(p);
}

/* ---- reading the results message ---- */

static const GstStructure *list_item(const GstStructure *s, const gchar *field, guint i)
{
  const GValue *l = gst_structure_get_value(s, field);
  if (!l || !GST_VALUE_HOLDS_LIST(l) || i >= gst_value_list_get_size(l)) return NULL;
  return gst_value_get_structure(gst_value_list_get_value(l, i));
}

static gdouble dbl(const GstStructure *s, const gchar *field)
{
  gdouble v = NAN;
  fail_unless(s && gst_structure_get_double(s, field, &v), "no field %s", field);
  return v;
}

static gint top_class(const GstStructure *res, gdouble *score)
{
  const GstStructure *c = list_item(res, "classes", 0);
  fail_unless(c != NULL, "no class");
  gint id = -1;
  gst_structure_get_int(c, "id", &id);
  *score = dbl(c, "score");
  return id;
}

static gdouble mask_area(const GstStructure *res, gint class_id)
{
  for (guint i = 0;; i++) {
    const GstStructure *a = list_item(res, "mask-areas", i);
    if (!a) return 0.0;
    gint id;
    if (gst_structure_get_int(a, "id", &id) && id == class_id) return dbl(a, "fraction");
  }
}

static void keypoint(const GstStructure *res, guint k, gdouble *x, gdouble *y)
{
  const GstStructure *pose = list_item(res, "poses", 0);
  fail_unless(pose != NULL, "no pose");
  const GstStructure *kp = list_item(pose, "keypoints", k);
  fail_unless(kp != NULL, "no keypoint %u", k);
  *x = dbl(kp, "x");
  *y = dbl(kp, "y");
}

/* ---- caps negotiation ---- */

GST_START_TEST(test_caps_sysmem)
{
  NEED_MODEL(model, MV1);
  static const gchar *formats[] = { "RGBA", "RGBx", "BGRx", "BGRA", "RGB", "BGR", "I420",
                                    "YV12", "NV12", "NV21", "YUY2", "UYVY", "GRAY8" };
  for (guint i = 0; i < G_N_ELEMENTS(formats); i++) {
    gchar *desc = g_strdup_printf("tflitefilter model=%s threshold=0 max-results=1", model);
    GstHarness *h = gst_harness_new_parse(desc);
    gchar *caps = g_strdup_printf("video/x-raw,format=%s,width=64,height=48,framerate=30/1", formats[i]);
    gst_harness_set_src_caps_str(h, caps);
    GstVideoInfo info;
    GstCaps *c = gst_caps_from_string(caps);
    fail_unless(gst_video_info_from_caps(&info, c));
    GstBuffer *in = gst_harness_create_buffer(h, GST_VIDEO_INFO_SIZE(&info));
    gst_buffer_memset(in, 0, 0x80, GST_VIDEO_INFO_SIZE(&info));
    GstBuffer *out = gst_harness_push_and_pull(h, in);
    fail_unless(out == in, "%s: not processed in place", formats[i]);
    GstTfliteMeta *meta = gst_buffer_get_tflite_meta(out);
    fail_unless(meta != NULL, "%s: no meta", formats[i]);
    fail_unless_equals_int(gst_tflite_meta_n_objects(meta), 1);
    const GstTfliteObject *o = gst_tflite_meta_get_object(meta, 0);
    fail_unless(o->kind == GST_TFLITE_OBJECT_CLASSIFICATION);
    fail_unless_equals_int(o->n_classes, 1);
    fail_unless_equals_int(meta->frame_width, 64);
    GstCaps *cur = gst_pad_get_current_caps(h->sinkpad);
    fail_unless(gst_caps_is_equal(cur, c), "%s: caps changed", formats[i]);
    gst_caps_unref(cur);
    gst_caps_unref(c);
    gst_buffer_unref(out);
    gst_harness_teardown(h);
    g_free(caps);
    g_free(desc);
  }
  /* formats outside the template are refused */
  GstElement *f = gst_element_factory_make("tflitefilter", NULL);
  GstPad *sink = gst_element_get_static_pad(f, "sink");
  GstCaps *y444 = gst_caps_from_string("video/x-raw,format=Y444,width=64,height=48,framerate=30/1");
  GstCaps *glrgba = gst_caps_from_string(
    "video/x-raw(memory:GLMemory),format=RGBA,width=64,height=48,framerate=30/1,texture-target=2D");
  GstCaps *oes = gst_caps_from_string(
    "video/x-raw(memory:GLMemory),format=RGBA,width=64,height=48,framerate=30/1,texture-target=external-oes");
  GstCaps *oes_nv12 = gst_caps_from_string(
    "video/x-raw(memory:GLMemory),format=NV12,width=64,height=48,framerate=30/1,texture-target=external-oes");
  GstCaps *rect = gst_caps_from_string(
    "video/x-raw(memory:GLMemory),format=RGBA,width=64,height=48,framerate=30/1,texture-target=rectangle");
  GstCaps *dmabuf = gst_caps_from_string("video/x-raw(memory:DMABuf),format=NV12,width=64,height=48,framerate=30/1");
  fail_if(gst_pad_query_accept_caps(sink, y444));
  fail_unless(gst_pad_query_accept_caps(sink, glrgba));
  fail_unless(gst_pad_query_accept_caps(sink, oes));
  fail_if(gst_pad_query_accept_caps(sink, oes_nv12)); /* glupload's external images are RGBA */
  fail_if(gst_pad_query_accept_caps(sink, rect));
  fail_unless(gst_pad_query_accept_caps(sink, dmabuf));
  gst_caps_unref(y444);
  gst_caps_unref(glrgba);
  gst_caps_unref(oes);
  gst_caps_unref(oes_nv12);
  gst_caps_unref(rect);
  gst_caps_unref(dmabuf);
  gst_object_unref(sink);
  gst_object_unref(f);
  g_free(model);
}
GST_END_TEST;

GST_START_TEST(test_caps_gl)
{
  NEED_MODEL(model, MV1);
  gchar *desc = g_strdup_printf("videotestsrc num-buffers=2 ! video/x-raw,format=RGBA,width=64,height=48 ! "
                                "glupload ! tflitefilter name=f model=%s delegate=gl threshold=0 ! fakesink", model);
  run_out o;
  run_pipeline(desc, &o);
  fail_unless(o.error == NULL, "%s (%s)", o.error, o.debug);
  fail_unless(o.caps != NULL);
  GstCapsFeatures *feat = gst_caps_get_features(o.caps, 0);
  fail_unless(gst_caps_features_contains(feat, GST_CAPS_FEATURE_MEMORY_GL_MEMORY), "caps %" GST_PTR_FORMAT, o.caps);
  fail_unless_equals_string(gst_structure_get_string(o.model, "delegate"), "gl");
  fail_unless_equals_int(o.results->len, 2);
  run_out_clear(&o);
  g_free(desc);
  g_free(model);
}
GST_END_TEST;

/* ---- results against the real TensorFlow Lite ---- */

/* oracle run mobilenet_v1_0.25_224.tflite --image chelsea.png --norm -1,1:
 * argmax 286 ("Egyptian cat"), 0.6555954 */
GST_START_TEST(test_classification)
{
  NEED_MODEL(model, MV1);
  run_out o;
  gdouble score;
  run_picture("chelsea.png", model, NULL, FALSE, &o);
  fail_unless_equals_int(top_class(g_ptr_array_index(o.results, 0), &score), 286);
  fail_unless(fabs(score - 0.6555954) < 0.002, "score %f", score);
  run_out_clear(&o);
  g_free(model);

  /* 8-bit model, labels from its metadata. oracle run mobilenet_v2_1.0_224_quant.tflite
   * --image chelsea.png: argmax 286 = 196 at scale 1/256 (0.765625) */
  NEED_MODEL(quant, MV2Q);
  run_picture("chelsea.png", quant, NULL, FALSE, &o);
  const GstStructure *res = g_ptr_array_index(o.results, 0);
  fail_unless_equals_int(top_class(res, &score), 286);
  fail_unless(fabs(score - 0.765625) <= 1.0 / 256 + 1e-6, "score %f", score);
  fail_unless_equals_string(gst_structure_get_string(list_item(res, "classes", 0), "label"), "Egyptian cat");
  run_out_clear(&o);
  g_free(quant);
}
GST_END_TEST;

/* DMABuf frames on the CPU path (issue 29): no element makes DMABuf memory without a
 * camera or a hardware decoder here, so the frame is chelsea.png's RGBA pixels in a memfd
 * wrapped by the dmabuf allocator (an fd the element maps with mmap, as it would a V4L2
 * buffer). The result is test_classification's oracle value, the buffer passes through
 * as the same dmabuf memory (no copy). */
GST_START_TEST(test_dmabuf_cpu)
{
  NEED_MODEL(model, MV1);
  gchar *pic = picture("chelsea.png"), *png = NULL;
  gsize png_len = 0;
  fail_unless(g_file_get_contents(pic, &png, &png_len, NULL), "%s", pic);
  GstHarness *dec = gst_harness_new_parse("pngdec ! videoconvert ! capsfilter caps=video/x-raw,format=RGBA");
  gst_harness_set_src_caps_str(dec, "image/png");
  GstBuffer *rgba = gst_harness_push_and_pull(dec, gst_buffer_new_wrapped(png, png_len));
  fail_unless(rgba != NULL);
  GstCaps *dcaps = gst_pad_get_current_caps(dec->sinkpad);
  GstVideoInfo info;
  fail_unless(gst_video_info_from_caps(&info, dcaps));
  gst_caps_unref(dcaps);
  gsize size = GST_VIDEO_INFO_SIZE(&info);
  fail_unless_equals_int(gst_buffer_get_size(rgba), size);

  int fd = memfd_create("tfl-dmabuf", MFD_CLOEXEC);
  fail_unless(fd >= 0 && ftruncate(fd, (off_t)size) == 0);
  guint8 *dst = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  fail_unless(dst != MAP_FAILED);
  gst_buffer_extract(rgba, 0, dst, size);
  munmap(dst, size);
  GstAllocator *alloc = gst_dmabuf_allocator_new();
  GstBuffer *in = gst_buffer_new();
  gst_buffer_append_memory(in, gst_dmabuf_allocator_alloc(alloc, fd, size)); /* owns fd */

  gchar *desc = g_strdup_printf("tflitefilter model=%s", model);
  GstHarness *h = gst_harness_new_parse(desc);
  gchar *caps = g_strdup_printf("video/x-raw(memory:DMABuf),format=RGBA,width=%d,height=%d,framerate=0/1",
                                GST_VIDEO_INFO_WIDTH(&info), GST_VIDEO_INFO_HEIGHT(&info));
  gst_harness_set_src_caps_str(h, caps);
  GstBuffer *out = gst_harness_push_and_pull(h, in);
  fail_unless(out == in, "not processed in place");
  GstMemory *mem = gst_buffer_peek_memory(out, 0);
  fail_unless(gst_buffer_n_memory(out) == 1 && gst_is_dmabuf_memory(mem) && gst_dmabuf_memory_get_fd(mem) == fd,
              "the frame left as other memory than its dmabuf");
  GstTfliteMeta *meta = gst_buffer_get_tflite_meta(out);
  fail_unless(meta != NULL && gst_tflite_meta_n_objects(meta) >= 1, "no classification");
  const GstTfliteObject *o = gst_tflite_meta_get_object(meta, 0);
  fail_unless_equals_int(o->class_id, 286);
  fail_unless(fabs(o->score - 0.6555954) < 0.002, "score %f", o->score);
  GstCaps *cur = gst_pad_get_current_caps(h->sinkpad);
  GstCapsFeatures *feat = gst_caps_get_features(cur, 0);
  fail_unless(gst_caps_features_contains(feat, GST_CAPS_FEATURE_MEMORY_DMABUF), "caps %" GST_PTR_FORMAT, cur);
  gst_caps_unref(cur);
  gst_buffer_unref(out);
  gst_harness_teardown(h);
  gst_object_unref(alloc);
  gst_buffer_unref(rgba);
  gst_harness_teardown(dec);
  g_free(caps);
  g_free(desc);
  g_free(pic);
  g_free(model);
}
GST_END_TEST;

/* oracle run deeplabv3_257_mv_gpu.tflite --image astronaut.png --norm -1,1: argmax per
 * pixel gives person (15) on 30460 of 66049 pixels; oracle run selfie_segmentation.tflite
 * --image astronaut.png --norm 0,1: 35717 of 65536 pixels >= 0.5 */
GST_START_TEST(test_segmentation)
{
  NEED_MODEL(model, DEEPLAB);
  run_out o;
  gchar *dir = g_path_get_dirname(model);
  gchar *labels = g_build_filename(dir, "pascal_voc_labels_21.txt", NULL);
  g_free(dir);
  gchar *props = g_file_test(labels, G_FILE_TEST_EXISTS) ? g_strdup_printf("labels=%s", labels) : g_strdup("");
  run_picture("astronaut.png", model, props, FALSE, &o);
  const GstStructure *res = g_ptr_array_index(o.results, 0);
  gdouble person = mask_area(res, 15);
  fail_unless(fabs(person - 30460.0 / 66049.0) < 0.002, "person %f", person);
  gint w = 0;
  gst_structure_get_int(res, "mask-width", &w);
  fail_unless_equals_int(w, 257);
  run_out_clear(&o);
  g_free(props);
  g_free(labels);
  g_free(model);

  NEED_MODEL(selfie, SELFIE);
  run_picture("astronaut.png", selfie, NULL, FALSE, &o);
  gdouble fg = dbl(g_ptr_array_index(o.results, 0), "mask-fraction");
  fail_unless(fabs(fg - 35717.0 / 65536.0) < 0.002, "foreground %f", fg);
  run_out_clear(&o);
  g_free(selfie);
}
GST_END_TEST;

/* oracle run pose_landmark_lite.tflite --image astronaut.png --norm 0,1: landmarks
 * (input pixels of 256x256, times 2 for the 512x512 frame): nose (223.1, 125.5), left
 * shoulder (267.3, 178.9), right shoulder (148.4, 180.6), hips (239.7, 285.1) and
 * (170.3, 282.1) */
static const struct {
  guint k;
  gdouble x, y;
} pose_expect[] = {
  { 0, 223.13, 125.52 }, { 11, 267.29, 178.94 }, { 12, 148.39, 180.64 },
  { 23, 239.68, 285.13 }, { 24, 170.28, 282.10 },
};

static void check_pose(const GstStructure *res, gdouble tol)
{
  for (guint i = 0; i < G_N_ELEMENTS(pose_expect); i++) {
    gdouble x, y;
    keypoint(res, pose_expect[i].k, &x, &y);
    fail_unless(fabs(x - pose_expect[i].x) < tol && fabs(y - pose_expect[i].y) < tol,
                "keypoint %u at (%.1f, %.1f), expected (%.1f, %.1f)", pose_expect[i].k, x, y,
                pose_expect[i].x, pose_expect[i].y);
  }
}

GST_START_TEST(test_landmarks)
{
  NEED_MODEL(model, POSE_LM);
  run_out o;
  run_picture("astronaut.png", model, NULL, FALSE, &o);
  check_pose(g_ptr_array_index(o.results, 0), 1.5);
  run_out_clear(&o);
  g_free(model);
}
GST_END_TEST;

/* The face detector's box lies on the astronaut's face: checked by looking at the
 * picture (face about x 180..270, y 80..175 of 512x512). */
GST_START_TEST(test_detection)
{
  NEED_MODEL(model, FACE_DET);
  run_out o;
  run_picture("astronaut.png", model, NULL, FALSE, &o);
  const GstStructure *box = list_item(g_ptr_array_index(o.results, 0), "boxes", 0);
  fail_unless(box != NULL, "no face");
  gdouble cx = dbl(box, "x") + dbl(box, "width") / 2, cy = dbl(box, "y") + dbl(box, "height") / 2;
  fail_unless(fabs(cx - 225) < 15 && fabs(cy - 127) < 15, "face centre (%.0f, %.0f)", cx, cy);
  fail_unless(dbl(box, "width") > 70 && dbl(box, "width") < 130, "face width %f", dbl(box, "width"));
  fail_unless(dbl(box, "score") > 0.8);
  run_out_clear(&o);
  g_free(model);
}
GST_END_TEST;

/* An Ultralytics YOLO LiteRT export as `export(format="litert")` writes it, with no
 * property but the thresholds: fit=auto letterboxes it the Ultralytics way, the names in its
 * metadata.json are the labels, and its two boxes are where Ultralytics' predict puts them
 * (tests/data/yolo/yolov8_shapes-0.25.predict: square 0.942 at 83.0 46.2 171.3 117.2,
 * square 0.527 at 81.3 47.2 152.5 107.3). On GL frames: the same within the GL / CPU
 * difference (the texture shader pads with grey 114 too). */
static void run_yolo(gboolean gl, const gchar *props, run_out *o)
{
  gchar *dir = g_build_filename(env_dir("TFL_YOLO"), NULL);
  gchar *desc = g_strdup_printf("filesrc location=%s/picture.rgb ! rawvideoparse width=320 height=240 format=rgb "
                                "framerate=1/1 ! videoconvert ! video/x-raw,format=RGBA ! %s tflitefilter name=f "
                                "model=%s/yolov8_shapes.tflite %s %s ! fakesink",
                                dir, gl ? "glupload !" : "", dir, gl ? "delegate=gl" : "", props);
  run_pipeline(desc, o);
  fail_unless(o->error == NULL, "%s: %s (%s)", desc, o->error, o->debug);
  fail_unless(o->results->len == 1, "%s: %u results", desc, o->results->len);
  g_free(desc);
  g_free(dir);
}

GST_START_TEST(test_yolo)
{
  static const double want[2][5] = { { 0.9419833, 83.00825, 46.1852, 171.3093, 117.1978 },
                                     { 0.527221, 81.2838, 47.18431, 152.4868, 107.2999 } };
  for (int gl = 0; gl < 2; gl++) {
    run_out o;
    run_yolo(gl, "threshold=0.25 iou-threshold=0.7", &o);
    const GstStructure *res = g_ptr_array_index(o.results, 0);
    fail_unless(list_item(res, "boxes", 2) == NULL, "more than two boxes");
    /* the YOLO_DETECTION appended to the graph runs where the model does: all on the GPU */
    gint cpu_nodes = -1;
    gst_structure_get_int(o.model, "cpu-nodes", &cpu_nodes);
    fail_unless(!gl || cpu_nodes == 0, "%d nodes on the CPU (%s)", cpu_nodes,
                gst_structure_get_string(o.model, "cpu-fallback-ops"));
    double worst = 0;
    for (int i = 0; i < 2; i++) {
      const GstStructure *b = list_item(res, "boxes", i);
      fail_unless(b != NULL, "box %d missing (gl %d)", i, gl);
      fail_unless(!g_strcmp0(gst_structure_get_string(b, "label"), "square"), "label %s",
                  gst_structure_get_string(b, "label"));
      const double tol = gl ? 2.0 : 0.1, got[5] = { dbl(b, "score"), dbl(b, "x"), dbl(b, "y"),
                                                     dbl(b, "x") + dbl(b, "width"), dbl(b, "y") + dbl(b, "height") };
      fail_unless(fabs(got[0] - want[i][0]) < (gl ? 0.02 : 0.002), "box %d score %f (gl %d)", i, got[0], gl);
      for (int k = 1; k < 5; k++) {
        fail_unless(fabs(got[k] - want[i][k]) < tol, "box %d coordinate %d: %f, Ultralytics %f (gl %d)", i, k, got[k],
                    want[i][k], gl);
        worst = MAX(worst, fabs(got[k] - want[i][k]));
      }
    }
    g_print("test_yolo %s: 2 boxes, max error %.3f px against Ultralytics' predict\n", gl ? "GL" : "CPU", worst);
    run_out_clear(&o);
  }
}
GST_END_TEST;

/* EfficientDet-Lite and MoveNet look-alikes (tests/data/families/make_families.py) with
 * no property at all: the family picks the decoder, the fit (MoveNet: black letterbox),
 * the input range, the input size a file leaves open (MultiPose: 256) and the labels
 * (EfficientDet: its metadata's, class k = line k); the
 * results against LiteRT's outputs decoded in Python on the same picture (*.expected;
 * the element's own resize instead of TensorFlow's, hence the tolerance). */
static int read_expected(const gchar *dir, const gchar *name, gboolean labelled, double rows[][56], gchar labels[][16])
{
  gchar *path = g_strdup_printf("%s/%s.expected", dir, name), *text = NULL;
  fail_unless(g_file_get_contents(path, &text, NULL, NULL), "%s missing", path);
  gchar **lines = g_strsplit(text, "\n", -1);
  int n = 0;
  for (gchar **l = lines; *l && **l && n < 32; l++, n++) {
    gchar *p = *l, *e;
    if (labelled) {
      g_ascii_strtoll(p, &e, 10);
      p = e + 1;
      e = strchr(p, ' ');
      fail_unless(e != NULL, "%s: bad line %s", path, *l);
      g_snprintf(labels[n], 16, "%.*s", (int)(e - p), p);
      p = e;
    }
    for (int k = 0; k < 56; k++, p = e) {
      rows[n][k] = g_ascii_strtod(p, &e);
      if (e == p) break;
    }
  }
  g_strfreev(lines);
  g_free(text);
  g_free(path);
  return n;
}

static void run_family(const gchar *name, gboolean gl, run_out *o)
{
  const gchar *dir = env_dir("TFL_FAMILIES");
  gchar *desc = g_strdup_printf("filesrc location=%s/picture.rgb ! rawvideoparse width=320 height=240 format=rgb "
                                "framerate=1/1 ! videoconvert ! video/x-raw,format=RGBA ! %s tflitefilter name=f "
                                "model=%s/%s.tflite %s ! fakesink", dir, gl ? "glupload !" : "", dir, name,
                                gl ? "delegate=gl" : "");
  run_pipeline(desc, o);
  fail_unless(o->error == NULL, "%s: %s (%s)", desc, o->error, o->debug);
  fail_unless(o->results->len == 1 && o->model != NULL, "%s: %u results", desc, o->results->len);
  g_free(desc);
}

GST_START_TEST(test_families)
{
  static const gchar *movenets[] = { "movenet_lightning", "movenet_thunder", "movenet_multipose",
                                     "movenet_multipose_open" };
  double want[32][56];
  gchar labels[32][16];
  for (int gl = 0; gl < 2; gl++) {
    const double tol = gl ? 2.0 : 1.0;
    for (guint m = 0; m < G_N_ELEMENTS(movenets); m++) {
      run_out o;
      run_family(movenets[m], gl, &o);
      fail_unless(!g_strcmp0(gst_structure_get_string(o.model, "decoder"), "pose"), "%s: decoder %s", movenets[m],
                  gst_structure_get_string(o.model, "decoder"));
      const int n = read_expected(env_dir("TFL_FAMILIES"), movenets[m], FALSE, want, labels);
      const GstStructure *res = g_ptr_array_index(o.results, 0);
      fail_unless(n > 0 && list_item(res, "poses", (guint)n) == NULL, "%s: more poses than LiteRT's %d", movenets[m], n);
      double worst = 0;
      for (int i = 0; i < n; i++) {
        const GstStructure *p = list_item(res, "poses", (guint)i);
        fail_unless(p != NULL, "%s: pose %d missing (gl %d)", movenets[m], i, gl);
        fail_unless(fabs(dbl(p, "score") - want[i][0]) < 0.02, "%s pose %d: score %f, LiteRT %f", movenets[m], i,
                    dbl(p, "score"), want[i][0]);
        const double box[4] = { dbl(p, "x"), dbl(p, "y"), dbl(p, "width"), dbl(p, "height") };
        for (int k = 0; k < 4; k++) worst = MAX(worst, fabs(box[k] - want[i][1 + k]));
        for (guint k = 0; k < 17; k++) {
          const GstStructure *kp = list_item(p, "keypoints", k);
          fail_unless(kp != NULL, "%s: keypoint %u missing", movenets[m], k);
          worst = MAX(worst, MAX(fabs(dbl(kp, "x") - want[i][5 + 3 * k]), fabs(dbl(kp, "y") - want[i][6 + 3 * k])));
        }
      }
      fail_unless(worst < tol, "%s: %f px from LiteRT (gl %d)", movenets[m], worst, gl);
      GST_INFO("%s gl %d: %d poses, %.3f px from LiteRT", movenets[m], gl, n, worst);
      run_out_clear(&o);
    }
    /* the top 10 (max-results) of LiteRT's boxes (its file has those over a threshold
     * above 10th best), all over the default 0.5; each
     * against LiteRT's box of the same label and score nearest to it (8-bit scores tie,
     * and ties may fall in another order) */
    run_out o;
    run_family("efficientdet_lite0", gl, &o);
    fail_unless(!g_strcmp0(gst_structure_get_string(o.model, "decoder"), "detection"), "decoder %s",
                gst_structure_get_string(o.model, "decoder"));
    const int n = read_expected(env_dir("TFL_FAMILIES"), "efficientdet_lite0", TRUE, want, labels);
    const GstStructure *res = g_ptr_array_index(o.results, 0);
    fail_unless(n >= 10 && list_item(res, "boxes", 10) == NULL, "more than max-results boxes");
    double worst = 0;
    for (int i = 0; i < 10; i++) {
      const GstStructure *b = list_item(res, "boxes", (guint)i);
      fail_unless(b != NULL, "box %d missing (gl %d)", i, gl);
      fail_unless(!g_strcmp0(gst_structure_get_string(b, "label"), labels[i]), "box %d: label %s, LiteRT's %s", i,
                  gst_structure_get_string(b, "label"), labels[i]);
      fail_unless(fabs(dbl(b, "score") - want[i][0]) < 0.02, "box %d: score %f, LiteRT %f", i, dbl(b, "score"),
                  want[i][0]);
      const double got[4] = { dbl(b, "x"), dbl(b, "y"), dbl(b, "width"), dbl(b, "height") };
      double best = G_MAXDOUBLE;
      for (int j = 0; j < n; j++) {
        if (g_strcmp0(gst_structure_get_string(b, "label"), labels[j]) || fabs(dbl(b, "score") - want[j][0]) >= 0.02)
          continue;
        double d = 0;
        for (int k = 0; k < 4; k++) d = MAX(d, fabs(got[k] - want[j][1 + k]));
        best = MIN(best, d);
      }
      worst = MAX(worst, best);
    }
    /* 8-bit box encodings: the two resizes' small differences move a box by a quantum */
    fail_unless(worst < 2.0, "efficientdet_lite0: %f px from LiteRT (gl %d)", worst, gl);
    GST_INFO("efficientdet_lite0 gl %d: %.3f px from LiteRT", gl, worst);
    run_out_clear(&o);
  }
}
GST_END_TEST;

/* class-agnostic: one NMS over all classes, as Ultralytics' agnostic_nms. At conf 0.05 and
 * IoU 0.3 the model's five boxes keep a square and a triangle either way, but another
 * triangle (tests/data/yolo/yolov8_shapes-0.05-iou0.3[-agnostic].predict, make_agnostic.py):
 * the one overlapping the square goes when the square suppresses across classes. CPU and
 * GL (the YOLO_DETECTION on the GPU). */
GST_START_TEST(test_yolo_agnostic)
{
  for (int agnostic = 0; agnostic < 2; agnostic++) {
    gchar *path = g_strdup_printf("%s/yolov8_shapes-0.05-iou0.3%s.predict", env_dir("TFL_YOLO"),
                                  agnostic ? "-agnostic" : ""), *text = NULL;
    fail_unless(g_file_get_contents(path, &text, NULL, NULL), "cannot read %s", path);
    gchar **lines = g_strsplit(text, "\n", -1);
    gchar *props = g_strdup_printf("threshold=0.05 iou-threshold=0.3 class-agnostic=%s", agnostic ? "true" : "false");
    for (int gl = 0; gl < 2; gl++) {
      run_out o;
      run_yolo(gl, props, &o);
      const GstStructure *res = g_ptr_array_index(o.results, 0);
      guint n = 0;
      for (; lines[n] && lines[n][0]; n++) {
        gint cls;
        gdouble w[5];
        fail_unless(sscanf(lines[n], "%d %lf %lf %lf %lf %lf", &cls, &w[0], &w[1], &w[2], &w[3], &w[4]) == 6);
        const GstStructure *b = list_item(res, "boxes", n);
        fail_unless(b != NULL, "box %u missing (agnostic %d, gl %d)", n, agnostic, gl);
        gint id = -1;
        gst_structure_get_int(b, "id", &id);
        const gdouble got[5] = { dbl(b, "score"), dbl(b, "x"), dbl(b, "y"), dbl(b, "x") + dbl(b, "width"),
                                 dbl(b, "y") + dbl(b, "height") };
        fail_unless_equals_int(id, cls);
        fail_unless(fabs(got[0] - w[0]) < (gl ? 0.02 : 0.002), "box %u score %f, Ultralytics %f", n, got[0], w[0]);
        for (int k = 1; k < 5; k++)
          fail_unless(fabs(got[k] - w[k]) < (gl ? 2.0 : 0.1), "box %u coordinate %d: %f, Ultralytics %f (agnostic %d, "
                      "gl %d)", n, k, got[k], w[k], agnostic, gl);
      }
      fail_unless(n == 2 && list_item(res, "boxes", n) == NULL, "more boxes than Ultralytics' %u", n);
      run_out_clear(&o);
    }
    g_free(props);
    g_strfreev(lines);
    g_free(text);
    g_free(path);
  }
}
GST_END_TEST;

/* A SEGMENTATION object's mask as a probe saw it: where it lies in the frame, its texels. */
typedef struct {
  guint64 id;
  gfloat x, y, w, h;
  gint width, height;
  gfloat *prob;
} grabbed_mask;

static void grabbed_mask_clear(gpointer p)
{
  g_free(((grabbed_mask *)p)->prob);
}

/* The frames' probability masks (one frame here; probes only copy: the checks run on the test's
 * thread). */
static GstPadProbeReturn grab_masks(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  (void)pad;
  GArray *masks = data;
  GstTfliteMeta *m = gst_buffer_get_tflite_meta(GST_PAD_PROBE_INFO_BUFFER(info));
  for (guint i = 0; m && i < gst_tflite_meta_n_objects(m); i++) {
    const GstTfliteObject *o = gst_tflite_meta_get_object(m, i);
    if (o->kind != GST_TFLITE_OBJECT_SEGMENTATION || !o->mask || !o->mask->prob) continue;
    const gsize n = (gsize)o->mask->width * (gsize)o->mask->height;
    grabbed_mask g = { o->id, o->x, o->y, o->w, o->h, o->mask->width, o->mask->height,
                       g_memdup2(o->mask->prob, n * sizeof(gfloat)) };
    g_array_append_val(masks, g);
  }
  return GST_PAD_PROBE_OK;
}

static gdouble logit(gfloat p)
{
  const gdouble q = CLAMP((gdouble)p, 1e-7, 1 - 1e-7);
  return log(q / (1 - q));
}

/* IoU of a box's mask (the probabilities read bilinearly at each frame pixel's centre
 * inside the box, > 0.5) with predict's frame mask `bits` (bit-packed rows of fw). */
static gdouble mask_iou(const grabbed_mask *g, const gdouble box[4], const guint8 *bits, gint fw, gint fh)
{
  const gint row = (fw + 7) / 8;
  guint inter = 0, uni = 0;
  for (gint py = 0; py < fh; py++)
    for (gint px = 0; px < fw; px++) {
      gboolean ours = FALSE;
      if (px + 0.5 >= box[0] && px + 0.5 < box[2] && py + 0.5 >= box[1] && py + 0.5 < box[3]) {
        const gdouble gu = (px + 0.5 - g->x) / g->w * g->width - 0.5, gv = (py + 0.5 - g->y) / g->h * g->height - 0.5;
        const gint u0 = (gint)floor(gu), v0 = (gint)floor(gv);
        const gdouble tu = gu - u0, tv = gv - v0;
#define GM_TEXEL(a, b) logit(g->prob[(gsize)CLAMP(b, 0, g->height - 1) * (gsize)g->width + (gsize)CLAMP(a, 0, g->width - 1)])
        const gdouble p = (1 - tv) * ((1 - tu) * GM_TEXEL(u0, v0) + tu * GM_TEXEL(u0 + 1, v0)) +
                          tv * ((1 - tu) * GM_TEXEL(u0, v0 + 1) + tu * GM_TEXEL(u0 + 1, v0 + 1));
#undef GM_TEXEL
        ours = p > 0.0;
      }
      const gboolean theirs = (bits[py * row + px / 8] >> (7 - px % 8)) & 1;
      inter += ours && theirs;
      uni += ours || theirs;
    }
  return uni ? (gdouble)inter / uni : 0.0;
}

/* The trained segmentation, pose and oriented-box models (fp32) through the element with
 * only the thresholds set, CPU and GL, against Ultralytics' predict on the same file and
 * picture (tests/data/yolo/tasks.txt, *.predict: class score x1 y1 x2 y2, then 17 x (x y
 * visibility) or cx cy w h angle): every box, its label, within 0.1 px on the CPU and 2
 * px on GL (its fp16 arithmetic), keypoints alike, angles within 2 degrees; a segment
 * model's boxes each carry their own mask (mask-fraction > 0), predict's mask of that box
 * (*.masks, bit-packed frame masks) at IoU >= 0.9 (on GL: YOLO_DETECTION on the GPU keeps
 * the boxes and their coefficients, the decoder builds the masks from those and the
 * prototypes). */
static void check_task(const gchar *dir, const gchar *line, gboolean gl)
{
  gchar model[128], task[16], picture[128], expected[128];
  gint w, h, n;
  gfloat conf, iou;
  fail_unless(sscanf(line, "%127s %15s %127s %d %d %f %f %127s %d", model, task, picture, &w, &h, &conf, &iou,
                     expected, &n) == 9, "tasks.txt: %s", line);
  if (g_str_has_suffix(model, "_int8.tflite")) return; /* test_yolo_tasks has those */
  gchar *desc = g_strdup_printf("filesrc location=%s/%s ! rawvideoparse width=%d height=%d format=rgb framerate=1/1 ! "
                                "videoconvert ! video/x-raw,format=RGBA ! %s tflitefilter name=f model=%s/%s "
                                "threshold=%.9g iou-threshold=%g %s ! fakesink",
                                dir, picture, w, h, gl ? "glupload !" : "", dir, model, conf, iou,
                                gl ? "delegate=gl" : "");
  run_out o;
  GArray *masks = g_array_new(FALSE, TRUE, sizeof(grabbed_mask));
  g_array_set_clear_func(masks, grabbed_mask_clear);
  const gboolean seg = !strcmp(task, "segment");
  run_pipeline_probe(desc, &o, seg ? grab_masks : NULL, masks);
  fail_unless(o.error == NULL, "%s: %s (%s)", desc, o.error, o.debug);
  fail_unless(o.results->len == 1, "%s: %u results", desc, o.results->len);
  const GstStructure *res = g_ptr_array_index(o.results, 0);
  gchar *bits = NULL;
  gsize n_bits = 0;
  gdouble worst_iou = 1.0;
  if (seg) {
    gchar *mpath = g_strdup_printf("%s/%s.masks", dir, expected);
    fail_unless(g_file_get_contents(mpath, &bits, &n_bits, NULL), "%s", mpath);
    fail_unless(n_bits == (gsize)n * ((w + 7) / 8) * h, "%s: %zu bytes for %d masks", mpath, n_bits, n);
    g_free(mpath);
  }
  gchar *path = g_strdup_printf("%s/%s.predict", dir, expected), *text = NULL;
  fail_unless(g_file_get_contents(path, &text, NULL, NULL), "%s", path);
  gchar **lines = g_strsplit(text, "\n", -1);
  const gdouble tol = gl ? 2.0 : 0.1;
  gint k = 0;
  for (; lines[k] && lines[k][0]; k++) {
    gdouble v[64];
    gint nv = 0;
    gchar *p = lines[k], *e;
    for (gdouble x; nv < 64 && (x = g_ascii_strtod(p, &e), e != p); p = e) v[nv++] = x;
    /* Ultralytics' best first; ours too (equal scores aside, which these pictures lack) */
    const GstStructure *b = list_item(res, "boxes", (guint)k);
    fail_unless(b != NULL, "%s: box %d missing (gl %d)", expected, k, gl);
    gint id = -1;
    gst_structure_get_int(b, "id", &id);
    fail_unless(id == (gint)v[0], "%s: box %d class %d, Ultralytics %g", expected, k, id, v[0]);
    fail_unless(fabs(dbl(b, "score") - v[1]) < (gl ? 0.02 : 0.002), "%s: box %d score %f, Ultralytics %f", expected,
                k, dbl(b, "score"), v[1]);
    const gdouble got[4] = { dbl(b, "x"), dbl(b, "y"), dbl(b, "x") + dbl(b, "width"), dbl(b, "y") + dbl(b, "height") };
    for (gint c = 0; c < 4; c++) {
      const gdouble want = CLAMP(v[2 + c], 0, c % 2 ? h : w);
      fail_unless(fabs(got[c] - want) < tol, "%s: box %d coordinate %d: %f, Ultralytics %f (gl %d)", expected, k, c,
                  got[c], want, gl);
    }
    if (!strcmp(task, "pose")) {
      fail_unless(nv == 6 + 51, "%s: %d values", expected, nv);
      for (guint q = 0; q < 17; q++) {
        const GstStructure *kp = list_item(b, "keypoints", q);
        fail_unless(kp != NULL, "%s: keypoint %u missing", expected, q);
        fail_unless(fabs(dbl(kp, "x") - v[6 + 3 * q]) < tol && fabs(dbl(kp, "y") - v[7 + 3 * q]) < tol,
                    "%s: keypoint %u (%f, %f), Ultralytics (%f, %f) (gl %d)", expected, q, dbl(kp, "x"),
                    dbl(kp, "y"), v[6 + 3 * q], v[7 + 3 * q], gl);
      }
    } else if (!strcmp(task, "obb")) {
      fail_unless(nv == 11, "%s: %d values", expected, nv);
      fail_unless(fabs(dbl(b, "center-x") - v[6]) < tol && fabs(dbl(b, "center-y") - v[7]) < tol &&
                  fabs(dbl(b, "rotated-width") - v[8]) < tol && fabs(dbl(b, "rotated-height") - v[9]) < tol,
                  "%s: box %d rotated (%f %f %f %f), Ultralytics (%f %f %f %f) (gl %d)", expected, k,
                  dbl(b, "center-x"), dbl(b, "center-y"), dbl(b, "rotated-width"), dbl(b, "rotated-height"), v[6],
                  v[7], v[8], v[9], gl);
      fail_unless(fabs(dbl(b, "angle") - v[10]) * 180 / G_PI < 2.0, "%s: box %d angle %f, Ultralytics %f (gl %d)",
                  expected, k, dbl(b, "angle"), v[10], gl);
    } else {
      fail_unless(gst_structure_has_field(b, "mask-fraction") && dbl(b, "mask-fraction") > 0,
                  "%s: box %d has no mask of its own", expected, k);
      guint64 mid = 0;
      fail_unless(gst_structure_get_uint64(b, "mask-object-id", &mid), "%s: box %d: no mask-object-id", expected, k);
      const grabbed_mask *g = NULL;
      for (guint i = 0; i < masks->len && !g; i++)
        if (g_array_index(masks, grabbed_mask, i).id == mid) g = &g_array_index(masks, grabbed_mask, i);
      fail_unless(g != NULL, "%s: box %d: its mask not in the buffer's meta (gl %d)", expected, k, gl);
      fail_unless(k < n, "%s: box %d past predict's %d", expected, k, n);
      const gdouble iou = mask_iou(g, got, (const guint8 *)bits + (gsize)k * ((w + 7) / 8) * h, w, h);
      worst_iou = MIN(worst_iou, iou);
    }
  }
  if (seg) {
    g_print("%s (gl %d): %d boxes' masks against predict's: IoU >= %.3f\n", expected, gl, k, worst_iou);
    fail_unless(worst_iou >= 0.9, "%s: a box's mask is predict's at IoU %.3f (gl %d)", expected, worst_iou, gl);
  }
  g_free(bits);
  g_array_unref(masks);
  fail_unless(k == n && list_item(res, "boxes", (guint)k) == NULL, "%s: %d boxes expected (gl %d)", expected, n, gl);
  g_strfreev(lines);
  g_free(text);
  g_free(path);
  run_out_clear(&o);
  g_free(desc);
}

GST_START_TEST(test_yolo_tasks)
{
  const gchar *dir = env_dir("TFL_YOLO");
  gchar *path = g_build_filename(dir, "tasks.txt", NULL), *text = NULL;
  fail_unless(g_file_get_contents(path, &text, NULL, NULL), "%s", path);
  gchar **lines = g_strsplit(text, "\n", -1);
  gint runs = 0;
  for (gint i = 0; lines[i]; i++) {
    if (!lines[i][0] || lines[i][0] == '#') continue;
    for (gint gl = 0; gl < 2; gl++) check_task(dir, lines[i], gl);
    runs++;
  }
  fail_unless(runs == 6, "%d runs in %s", runs, path);
  g_strfreev(lines);
  g_free(text);
  g_free(path);
}
GST_END_TEST;

/* ---- the GL path ---- */

/* The first box of a CPU and of a GL run: the same class, within the models' GL / CPU
 * difference (a pixel or two, a hundredth of score). Returns the GL one. */
static const GstStructure *same_first_box(const run_out *cpu, const run_out *gl)
{
  const GstStructure *a = list_item(g_ptr_array_index(cpu->results, 0), "boxes", 0);
  const GstStructure *b = list_item(g_ptr_array_index(gl->results, 0), "boxes", 0);
  fail_unless(a != NULL && b != NULL, "no box (cpu %p, gl %p)", a, b);
  gint ca = -1, cb = -2;
  gst_structure_get_int(a, "id", &ca);
  gst_structure_get_int(b, "id", &cb);
  fail_unless_equals_int(cb, ca);
  static const char *const keys[] = { "x", "y", "width", "height" };
  for (int i = 0; i < 4; i++)
    fail_unless(fabs(dbl(a, keys[i]) - dbl(b, keys[i])) < 2.0, "%s: CPU %f GL %f", keys[i], dbl(a, keys[i]),
                dbl(b, keys[i]));
  fail_unless(fabs(dbl(a, "score") - dbl(b, "score")) < 0.01, "score CPU %f GL %f", dbl(a, "score"), dbl(b, "score"));
  return b;
}

/* The face detector on GL frames: its anchor decoding and weighted NMS run on the GPU
 * (ANCHOR_DETECTION appended to the graph); the face as the CPU finds it, within the
 * models' GL / CPU difference (a pixel or two), with its keypoints. */
GST_START_TEST(test_gl_detection)
{
  NEED_MODEL(model, FACE_DET);
  run_out cpu, gl;
  run_picture("astronaut.png", model, NULL, FALSE, &cpu);
  run_picture("astronaut.png", model, NULL, TRUE, &gl);
  const GstStructure *b = same_first_box(&cpu, &gl);
  fail_unless(list_item(b, "keypoints", 5) != NULL, "the GL face has no 6 keypoints");
  run_out_clear(&cpu);
  run_out_clear(&gl);
  g_free(model);
}
GST_END_TEST;

/* ---- external-OES frames (issue 29) ----
 * No element makes them without a DMABuf producer, so a probe before the filter swaps
 * each 2D frame for an external-OES texture sharing its storage (an EGLImage of it, on
 * the frames' context), as glupload's DMABuf import would hand it over. The caps still
 * say 2D: the element reads the target from the memory, as it must for either caps. */
#ifndef GL_TEXTURE_EXTERNAL_OES
#define GL_TEXTURE_EXTERNAL_OES 0x8D65
#endif

typedef struct {
  GstBuffer *in, *out;
  GstEGLImage *image;
  guint tex;
} oes_swap;

static void oes_free_gl(GstGLContext *ctx, gpointer data)
{
  oes_swap *s = data;
  ctx->gl_vtable->DeleteTextures(1, &s->tex);
}

static void oes_free(gpointer data)
{
  oes_swap *s = data;
  if (s->tex) gst_gl_context_thread_add(s->image->context, oes_free_gl, s);
  gst_egl_image_unref(s->image);
  gst_buffer_unref(s->in);
  g_free(s);
}

static void oes_make(GstGLContext *ctx, gpointer data)
{
  oes_swap *s = data;
  GstGLMemory *mem = (GstGLMemory *)gst_buffer_peek_memory(s->in, 0);
  s->image = gst_egl_image_from_texture(ctx, mem, NULL);
  if (!s->image || !ctx->gl_vtable->EGLImageTargetTexture2D) return;
  const GstGLFuncs *gl = ctx->gl_vtable;
  gl->GenTextures(1, &s->tex);
  gl->BindTexture(GL_TEXTURE_EXTERNAL_OES, s->tex);
  gl->EGLImageTargetTexture2D(GL_TEXTURE_EXTERNAL_OES, gst_egl_image_get_image(s->image));
  gl->BindTexture(GL_TEXTURE_EXTERNAL_OES, 0);
  gl->Finish();
  /* desktop GL has no external target: leave no error behind for the filter's GL checks */
  while (gl->GetError() != GL_NO_ERROR) {
  }
  GstVideoInfo info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_RGBA, (guint)gst_gl_memory_get_texture_width(mem),
                            (guint)gst_gl_memory_get_texture_height(mem));
  GstGLVideoAllocationParams *p = gst_gl_video_allocation_params_new_wrapped_texture(
    ctx, NULL, &info, 0, NULL, GST_GL_TEXTURE_TARGET_EXTERNAL_OES, GST_GL_RGBA, s->tex, s, oes_free);
  GstAllocator *alloc = GST_ALLOCATOR(gst_gl_memory_allocator_get_default(ctx));
  GstMemory *ext = (GstMemory *)gst_gl_base_memory_alloc(GST_GL_BASE_MEMORY_ALLOCATOR(alloc),
                                                         (GstGLAllocationParams *)p);
  gst_gl_allocation_params_free((GstGLAllocationParams *)p);
  gst_object_unref(alloc);
  s->out = gst_buffer_new();
  gst_buffer_append_memory(s->out, ext);
  gst_buffer_copy_into(s->out, s->in, GST_BUFFER_COPY_METADATA, 0, -1);
}

static GstPadProbeReturn swap_to_oes(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  (void)pad;
  (void)data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER(info);
  GstMemory *mem = gst_buffer_peek_memory(buf, 0);
  fail_unless(gst_is_gl_memory(mem));
  /* glupload fills its textures lazily, at their first GL map: before the EGLImage */
  GstMapInfo mi;
  fail_unless(gst_memory_map(mem, &mi, GST_MAP_READ | GST_MAP_GL));
  gst_memory_unmap(mem, &mi);
  oes_swap *s = g_new0(oes_swap, 1);
  s->in = buf; /* the probe's reference: kept until the external texture goes */
  gst_gl_context_thread_add(((GstGLBaseMemory *)mem)->context, oes_make, s);
  fail_unless(s->out != NULL, "no external-OES texture of the frame (EGLImage %p)", (void *)s->image);
  GST_PAD_PROBE_INFO_DATA(info) = s->out;
  return GST_PAD_PROBE_OK;
}

/* MV1 on chelsea.png as external-OES frames: on a GLES context the same result as the 2D
 * frames' (bit for bit: the same shader math, only the sampler differs) and the oracle's
 * class; on a context without GL_OES_EGL_image_external_essl3 (desktop GL) an error that
 * names the extension. */
GST_START_TEST(test_gl_external_oes)
{
  NEED_MODEL(mv1, MV1);
  gchar *p = picture("chelsea.png");
  gchar *desc = g_strdup_printf("filesrc location=%s ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! glupload ! "
                                "identity name=f ! tflitefilter model=%s delegate=gl ! fakesink", p, mv1);
  run_out two, ext;
  gdouble s2, se;
  run_picture("chelsea.png", mv1, NULL, TRUE, &two);
  run_pipeline_probe(desc, &ext, swap_to_oes, NULL);
  const gchar *api = g_getenv("GST_GL_API");
  if (ext.error && (!api || !g_str_has_prefix(api, "gles"))) {
    GST_INFO("external-OES on desktop GL: %s (%s)", ext.error, ext.debug);
    fail_unless(strstr(ext.error, "GL_OES_EGL_image_external_essl3") || (ext.debug && strstr(ext.debug, "GL_OES_EGL_image_external_essl3")),
                "%s (%s)", ext.error, ext.debug);
  } else {
    fail_unless(ext.error == NULL, "%s (%s)", ext.error, ext.debug);
    fail_unless_equals_int(ext.results->len, 1);
    GST_INFO("external-OES results %" GST_PTR_FORMAT, g_ptr_array_index(ext.results, 0));
    fail_unless_equals_int(top_class(g_ptr_array_index(ext.results, 0), &se), 286);
    fail_unless_equals_int(top_class(g_ptr_array_index(two.results, 0), &s2), 286);
    fail_unless(se == s2, "external-OES score %.9f, 2D %.9f", se, s2);
    fail_unless(fabs(se - 0.6555954) < 0.02, "score %f (oracle 0.6556)", se);
  }
  run_out_clear(&two);
  run_out_clear(&ext);
  g_free(desc);
  g_free(p);
  g_free(mv1);
}
GST_END_TEST;

/* An SSD without TFLite_Detection_PostProcess on GL frames: its box decoding and NMS per
 * class run on the GPU (SSD_CLASS_NMS + SSD_DETECTION appended to the graph); the same
 * object as the CPU finds, within the models' GL / CPU difference. */
GST_START_TEST(test_gl_ssd_detection)
{
  NEED_MODEL(model, SSD_OIDV4);
  run_out cpu, gl;
  run_picture("astronaut.png", model, NULL, FALSE, &cpu);
  run_picture("astronaut.png", model, NULL, TRUE, &gl);
  same_first_box(&cpu, &gl);
  run_out_clear(&cpu);
  run_out_clear(&gl);
  g_free(model);
}
GST_END_TEST;

GST_START_TEST(test_gl_matches_cpu)
{
  NEED_MODEL(mv1, MV1);
  run_out cpu, gl;
  gdouble s_cpu, s_gl;
  run_picture("chelsea.png", mv1, NULL, FALSE, &cpu);
  run_picture("chelsea.png", mv1, NULL, TRUE, &gl);
  fail_unless_equals_int(top_class(g_ptr_array_index(gl.results, 0), &s_gl),
                         top_class(g_ptr_array_index(cpu.results, 0), &s_cpu));
  fail_unless(fabs(s_gl - s_cpu) < 0.02, "score GL %f CPU %f", s_gl, s_cpu);
  run_out_clear(&cpu);
  run_out_clear(&gl);
  g_free(mv1);

  NEED_MODEL(selfie, SELFIE);
  run_picture("astronaut.png", selfie, NULL, FALSE, &cpu);
  run_picture("astronaut.png", selfie, "gl-readback=true", TRUE, &gl);
  gdouble f_cpu = dbl(g_ptr_array_index(cpu.results, 0), "mask-fraction");
  gdouble f_gl = dbl(g_ptr_array_index(gl.results, 0), "mask-fraction");
  fail_unless(fabs(f_gl - f_cpu) < 0.005, "mask GL %f CPU %f", f_gl, f_cpu);
  run_out_clear(&cpu);
  run_out_clear(&gl);
  g_free(selfie);

  NEED_MODEL(pose, POSE_LM);
  run_picture("astronaut.png", pose, NULL, TRUE, &gl);
  check_pose(g_ptr_array_index(gl.results, 0), 4.0);
  run_out_clear(&gl);
  g_free(pose);
}
GST_END_TEST;

/* The pose landmarks on GL frames: decoded on the GPU (LANDMARK_DECODE appended to the
 * graph, only its row read back), every one of the 33 points where the CPU puts it, within
 * 0.1 px (llvmpipe: 0.00034 px, the GL / CPU difference of the model and of the frame's
 * scaling). */
GST_START_TEST(test_gl_landmarks)
{
  NEED_MODEL(model, POSE_LM);
  run_out cpu, gl;
  run_picture("astronaut.png", model, NULL, FALSE, &cpu);
  run_picture("astronaut.png", model, NULL, TRUE, &gl);
  const GstStructure *a = list_item(g_ptr_array_index(cpu.results, 0), "poses", 0);
  const GstStructure *b = list_item(g_ptr_array_index(gl.results, 0), "poses", 0);
  fail_unless(a != NULL && b != NULL, "no pose (cpu %p, gl %p)", a, b);
  gdouble worst = 0;
  for (guint k = 0; k < 33; k++) {
    gdouble xa, ya, xb, yb;
    keypoint(g_ptr_array_index(cpu.results, 0), k, &xa, &ya);
    keypoint(g_ptr_array_index(gl.results, 0), k, &xb, &yb);
    worst = MAX(worst, MAX(fabs(xa - xb), fabs(ya - yb)));
  }
  GST_INFO("worst keypoint GL / CPU: %f px", worst);
  fail_unless(worst < 0.1, "a keypoint %f px from the CPU's", worst);
  fail_unless(fabs(dbl(a, "score") - dbl(b, "score")) < 0.01, "score CPU %f GL %f", dbl(a, "score"), dbl(b, "score"));
  run_out_clear(&cpu);
  run_out_clear(&gl);
  g_free(model);
}
GST_END_TEST;

/* GstGLMemory drawn by a GL element carries NEED_DOWNLOAD until someone maps it for the
 * CPU; still set after the filter means the filter never read the frame on the CPU. */
typedef struct {
  gint seen_in, seen_out, need_download_in, need_download_out, with_texture, control_cleared;
} map_watch;

/* (probes only count: the checks run on the test's thread) */
static gboolean need_download(GstBuffer *buf)
{
  GstMemory *mem = gst_buffer_peek_memory(buf, 0);
  return gst_is_gl_memory(mem) && GST_MEMORY_FLAG_IS_SET(mem, GST_GL_BASE_MEMORY_TRANSFER_NEED_DOWNLOAD);
}

static GstPadProbeReturn watch_in(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  map_watch *w = data;
  w->seen_in++;
  w->need_download_in += need_download(GST_PAD_PROBE_INFO_BUFFER(info));
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn watch_out(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  map_watch *w = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER(info);
  w->seen_out++;
  w->need_download_out += need_download(buf);
  GstTfliteMeta *meta = gst_buffer_get_tflite_meta(buf);
  gint k = meta ? gst_tflite_meta_next_object(meta, -1, 0, G_MAXUINT64) : -1;
  const GstTfliteObject *o = k >= 0 ? gst_tflite_meta_get_object(meta, (guint)k) : NULL;
  gpointer ctx = NULL;
  w->with_texture += o && o->mask && gst_tflite_mask_texture(o->mask, &ctx) && ctx;
  /* the control: a CPU map does clear the flag, so the check above can see one */
  if (w->seen_out == 1) {
    GstMapInfo map;
    GstMemory *mem = gst_buffer_peek_memory(buf, 0);
    if (gst_memory_map(mem, &map, GST_MAP_READ)) {
      gst_memory_unmap(mem, &map);
      w->control_cleared = !need_download(buf);
    }
  }
  return GST_PAD_PROBE_OK;
}

GST_START_TEST(test_gl_no_cpu_map)
{
  NEED_MODEL(model, SELFIE);
  gchar *desc = g_strdup_printf("gltestsrc num-buffers=3 ! "
                                "video/x-raw(memory:GLMemory),format=RGBA,width=320,height=240 ! "
                                "tflitefilter name=f model=%s delegate=gl ! fakesink", model);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch(desc, &err);
  fail_unless(pipe != NULL && err == NULL, "%s", err ? err->message : "no pipeline");
  GstElement *f = gst_bin_get_by_name(GST_BIN(pipe), "f");
  GstPad *sink = gst_element_get_static_pad(f, "sink"), *src = gst_element_get_static_pad(f, "src");
  map_watch w = { 0 };
  gst_pad_add_probe(sink, GST_PAD_PROBE_TYPE_BUFFER, watch_in, &w, NULL);
  gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_BUFFER, watch_out, &w, NULL);
  gst_element_set_state(pipe, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus(pipe);
  GstMessage *m = gst_bus_timed_pop_filtered(bus, 300 * GST_SECOND, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless(m && GST_MESSAGE_TYPE(m) == GST_MESSAGE_EOS, "no EOS");
  gst_message_unref(m);
  gst_element_set_state(pipe, GST_STATE_NULL);
  fail_unless_equals_int(w.seen_in, 3);
  fail_unless_equals_int(w.need_download_in, 3); /* gltestsrc drew them on the GPU */
  fail_unless_equals_int(w.seen_out, 3);
  fail_unless_equals_int(w.need_download_out, 3);
  fail_unless_equals_int(w.with_texture, 3);     /* the mask stayed a texture too */
  fail_unless(w.control_cleared, "a CPU map left NEED_DOWNLOAD set: the check would be blind");
  gst_object_unref(bus);
  gst_object_unref(sink);
  gst_object_unref(src);
  gst_object_unref(f);
  gst_object_unref(pipe);
  g_free(desc);
  g_free(model);
}
GST_END_TEST;

/* The mask left on the GPU (gl-readback=false, the default): the first inference reads
 * back (full message), later ones carry the mask's geometry only, and tfliteoverlay draws
 * those frames from the texture exactly as the first one (whose meta the CPU decoder
 * made: same size, kind and placement). gl-readback=true: every frame has CPU pixels. */
static GstPadProbeReturn grab_frame(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  GPtrArray *frames = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER(info);
  gpointer bytes = NULL;
  gsize size = 0;
  gst_buffer_extract_dup(buf, 0, gst_buffer_get_size(buf), &bytes, &size);
  g_ptr_array_add(frames, g_bytes_new_take(bytes, size));
  return GST_PAD_PROBE_OK;
}

/* 3 frames of the same picture; the results messages in *o, the drawn frames in `frames`
 * (tfliteoverlay then gldownload) when not NULL. */
static void run_frozen(const gchar *model, const gchar *props, run_out *o, GPtrArray *frames)
{
  gchar *p = picture("astronaut.png");
  gchar *desc = g_strdup_printf(
    "filesrc location=%s ! pngdec ! imagefreeze num-buffers=3 ! videoconvert ! "
    "video/x-raw,format=RGBA ! glupload ! tflitefilter name=f model=%s delegate=gl %s ! %s fakesink name=sink",
    p, model, props, frames ? "tfliteoverlay mask-alpha=0.6 ! gldownload ! video/x-raw,format=RGBA !" : "");
  memset(o, 0, sizeof *o);
  o->results = g_ptr_array_new_with_free_func((GDestroyNotify)gst_structure_free);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch(desc, &err);
  fail_unless(pipe != NULL && err == NULL, "%s", err ? err->message : "no pipeline");
  GstElement *sink = gst_bin_get_by_name(GST_BIN(pipe), "sink");
  GstPad *pad = gst_element_get_static_pad(sink, "sink");
  if (frames) gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, grab_frame, frames, NULL);
  GstBus *bus = gst_element_get_bus(pipe);
  gst_element_set_state(pipe, GST_STATE_PLAYING);
  for (gboolean done = FALSE; !done;) {
    GstMessage *m = gst_bus_timed_pop_filtered(bus, 300 * GST_SECOND,
                                               GST_MESSAGE_ERROR | GST_MESSAGE_EOS | GST_MESSAGE_ELEMENT);
    fail_unless(m != NULL, "pipeline \"%s\" timed out", desc);
    if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR) {
      GError *e = NULL;
      gst_message_parse_error(m, &e, NULL);
      fail("%s: %s", desc, e->message);
    }
    done = GST_MESSAGE_TYPE(m) == GST_MESSAGE_EOS;
    const GstStructure *s = gst_message_get_structure(m);
    if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ELEMENT && s && gst_structure_has_name(s, "tflite-results"))
      g_ptr_array_add(o->results, gst_structure_copy(s));
    gst_message_unref(m);
  }
  gst_element_set_state(pipe, GST_STATE_NULL);
  fail_unless_equals_int(o->results->len, 3);
  gst_object_unref(bus);
  gst_object_unref(pad);
  gst_object_unref(sink);
  gst_object_unref(pipe);
  g_free(desc);
  g_free(p);
}

/* ---- raw tensors kept beside a decoder ---- */

typedef struct {
  GPtrArray *tensors;      /* GBytes: the first tensor of each frame */
  guint frames, with_mask; /* frames seen; frames with a SEGMENTATION object */
} tensor_grab;

static GstPadProbeReturn grab_tensor(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  tensor_grab *g = data;
  GstTfliteMeta *m = gst_buffer_get_tflite_meta(GST_PAD_PROBE_INFO_BUFFER(info));
  g->frames++;
  for (guint i = 0; m && i < gst_tflite_meta_n_objects(m); i++)
    if (gst_tflite_meta_get_object(m, i)->kind == GST_TFLITE_OBJECT_SEGMENTATION) g->with_mask++;
  const GstTfliteTensor *t = m ? gst_tflite_meta_get_tensor(m, 0) : NULL;
  if (t) {
    gsize size;
    gconstpointer data_ = gst_tflite_tensor_get_data(t, &size);
    g_ptr_array_add(g->tensors, g_bytes_new(data_, size));
  }
  return GST_PAD_PROBE_OK;
}

/* `frames` frames of the astronaut at 256x256 through `front` (ending before the filter)
 * and tflitefilter `props`; the tensors and masks seen after it. */
static void run_tensors(const gchar *front, guint frames, const gchar *model, const gchar *props, tensor_grab *g)
{
  gchar *p = picture("astronaut.png");
  gchar *desc = g_strdup_printf("filesrc location=%s ! pngdec ! imagefreeze num-buffers=%u ! videoconvert ! "
                                "videoscale ! video/x-raw,format=RGBA,width=256,height=256 ! %s tflitefilter name=f "
                                "model=%s %s ! fakesink name=sink",
                                p, frames, front, model, props);
  GstElement *pipe = gst_parse_launch(desc, NULL);
  fail_unless(pipe != NULL, "%s", desc);
  GstElement *sink = gst_bin_get_by_name(GST_BIN(pipe), "sink");
  GstPad *pad = gst_element_get_static_pad(sink, "sink");
  memset(g, 0, sizeof *g);
  g->tensors = g_ptr_array_new_with_free_func((GDestroyNotify)g_bytes_unref);
  gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, grab_tensor, g, NULL);
  GstBus *bus = gst_element_get_bus(pipe);
  gst_element_set_state(pipe, GST_STATE_PLAYING);
  GstMessage *m = gst_bus_timed_pop_filtered(bus, 300 * GST_SECOND, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless(m && GST_MESSAGE_TYPE(m) == GST_MESSAGE_EOS, "%s: no EOS", desc);
  gst_message_unref(m);
  gst_element_set_state(pipe, GST_STATE_NULL);
  gst_object_unref(bus);
  gst_object_unref(pad);
  gst_object_unref(sink);
  gst_object_unref(pipe);
  g_free(desc);
  g_free(p);
}

/* keep-tensors on the GL path with a mask texture (the outputs come back anyway, every
 * frame, queued with gl-queue-depth=2): the segmentation objects and the raw output, which
 * matches the CPU delegate's on the same frame. Read through the meta library's C calls. */
GST_START_TEST(test_gl_keep_tensors)
{
  NEED_MODEL(model, "selfie_segmentation.tflite");
  tensor_grab cpu, gl;
  run_tensors("", 1, model, "delegate=cpu keep-tensors=true", &cpu);
  fail_unless(cpu.frames == 1 && cpu.with_mask == 1 && cpu.tensors->len == 1);
  gsize n;
  const gfloat *want = g_bytes_get_data(g_ptr_array_index(cpu.tensors, 0), &n);
  fail_unless_equals_int(n, 256 * 256 * sizeof(gfloat));
  /* llvmpipe is slow: depth 2 only (its first frame is read back at once, the second
   * queued); depth 1 and GL frames without a mask: tests/gst/test_tensors.py */
  static const char *const depth[] = { "gl-queue-depth=2" };
  for (guint d = 0; d < G_N_ELEMENTS(depth); d++) {
    gchar *props = g_strdup_printf("delegate=gl keep-tensors=true precision=fp32 %s", depth[d]);
    run_tensors("glupload !", 2, model, props, &gl);
    fail_unless(gl.frames == 2 && gl.with_mask == 2 && gl.tensors->len == 2, "%s: %u frames, %u masks, %u tensors",
                depth[d], gl.frames, gl.with_mask, gl.tensors->len);
    for (guint f = 0; f < 2; f++) {
      gsize size;
      const gfloat *got = g_bytes_get_data(g_ptr_array_index(gl.tensors, f), &size);
      fail_unless_equals_int(size, n);
      gfloat err = 0;
      for (gsize i = 0; i < n / sizeof(gfloat); i++) err = MAX(err, fabsf(got[i] - want[i]));
      fail_unless(err < 2e-3f, "%s frame %u: GL tensor differs from the CPU's by %g", depth[d], f, err);
    }
    g_ptr_array_unref(gl.tensors);
    g_free(props);
  }
  g_ptr_array_unref(cpu.tensors);
  g_free(model);
}
GST_END_TEST;

static gboolean gpu_only(const GstStructure *s)
{
  gboolean v = FALSE;
  return gst_structure_get_boolean(s, "mask-gpu-only", &v) && v;
}

GST_START_TEST(test_gl_mask_stays_on_gpu)
{
  NEED_MODEL(model, SELFIE);
  run_out o;
  GPtrArray *frames = g_ptr_array_new_with_free_func((GDestroyNotify)g_bytes_unref);
  run_frozen(model, "", &o, frames);
  const GstStructure *first = g_ptr_array_index(o.results, 0);
  fail_if(gpu_only(first), "the first inference must read back");
  gdouble f0 = dbl(first, "mask-fraction");
  fail_unless(f0 > 0.1 && f0 < 0.9, "mask-fraction %f", f0);
  for (guint i = 1; i < 3; i++) {
    const GstStructure *s = g_ptr_array_index(o.results, i);
    gint w = 0, h = 0, c = 0;
    fail_unless(gpu_only(s), "frame %u: mask read back", i);
    fail_if(gst_structure_has_field(s, "mask-fraction"), "frame %u: CPU mask fraction", i);
    fail_unless(gst_structure_get_int(s, "mask-width", &w) && gst_structure_get_int(s, "mask-height", &h) &&
                gst_structure_get_int(s, "mask-classes", &c));
    fail_unless(w == 256 && h == 256 && c == 2, "frame %u: mask %dx%d, %d classes", i, w, h, c);
  }
  /* drawn from the texture alike: frame 0 (CPU-decoded meta) and frame 2 (geometry only) */
  fail_unless_equals_int(frames->len, 3);
  GBytes *a = g_ptr_array_index(frames, 0), *b = g_ptr_array_index(frames, 2);
  fail_unless(g_bytes_get_size(a) == g_bytes_get_size(b) && g_bytes_get_size(a) == 512 * 512 * 4);
  const guint8 *pa = g_bytes_get_data(a, NULL), *pb = g_bytes_get_data(b, NULL);
  gsize differ = 0;
  for (gsize i = 0; i < g_bytes_get_size(a); i++) differ += abs((int)pa[i] - (int)pb[i]) > 1;
  fail_unless(differ == 0, "%" G_GSIZE_FORMAT " bytes differ between frame 0 and frame 2", differ);
  run_out_clear(&o);
  g_ptr_array_unref(frames);

  /* gl-readback=true: CPU pixels on every frame, the same fraction each time */
  run_frozen(model, "gl-readback=true", &o, NULL);
  for (guint i = 0; i < 3; i++) {
    const GstStructure *s = g_ptr_array_index(o.results, i);
    fail_if(gpu_only(s), "frame %u: gl-readback=true left the mask on the GPU", i);
    gdouble f = dbl(s, "mask-fraction");
    fail_unless(fabs(f - f0) < 0.005, "frame %u: mask-fraction %f, first run %f", i, f, f0);
  }
  run_out_clear(&o);
  g_free(model);

  /* deeplab, gl-readback=true: frame 0 decodes the floats on the CPU, frames 1 and 2 the
   * classes the GPU made (one byte a pixel): the same person area (the oracle's 30460 of
   * 66049 pixels, as test_segmentation) */
  NEED_MODEL(deeplab, DEEPLAB);
  run_frozen(deeplab, "gl-readback=true", &o, NULL);
  gdouble p0 = mask_area(g_ptr_array_index(o.results, 0), 15);
  for (guint i = 0; i < 3; i++) {
    const GstStructure *s = g_ptr_array_index(o.results, i);
    fail_if(gpu_only(s), "deeplab frame %u: gl-readback=true left the mask on the GPU", i);
    gdouble p = mask_area(s, 15);
    fail_unless(fabs(p - 30460.0 / 66049.0) < 0.002 && fabs(p - p0) < 0.0005, "deeplab frame %u: person %f, frame 0 %f",
                i, p, p0);
  }
  run_out_clear(&o);
  g_free(deeplab);
}
GST_END_TEST;

/* ---- life cycle ---- */

GST_START_TEST(test_state_cycles)
{
  NEED_MODEL(model, MV1);
  gchar *desc = g_strdup_printf("videotestsrc ! video/x-raw,format=RGBA,width=64,height=48 ! "
                                "tflitefilter name=f model=%s ! fakesink", model);
  GstElement *pipe = gst_parse_launch(desc, NULL);
  fail_unless(pipe != NULL);
  GstBus *bus = gst_element_get_bus(pipe);
  for (int i = 0; i < 100; i++) {
    fail_unless(gst_element_set_state(pipe, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
    fail_unless(gst_element_get_state(pipe, NULL, NULL, 30 * GST_SECOND) == GST_STATE_CHANGE_SUCCESS,
                "cycle %d: no PLAYING", i);
    fail_unless(gst_element_set_state(pipe, GST_STATE_NULL) == GST_STATE_CHANGE_SUCCESS);
  }
  GstMessage *m = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
  fail_unless(m == NULL, "an error on the bus");
  gst_object_unref(bus);
  gst_object_unref(pipe);
  g_free(desc);
  g_free(model);
}
GST_END_TEST;

/* ---- bad inputs: each a GST_ELEMENT_ERROR from the filter naming the problem ---- */

static void expect_error(const gchar *source, const gchar *model, const gchar *props, const gchar *words)
{
  gchar *desc = g_strdup_printf("%s ! tflitefilter name=f %s%s %s ! fakesink", source,
                                model ? "model=" : "", model ? model : "", props ? props : "");
  run_out o;
  run_pipeline(desc, &o);
  fail_unless(o.error != NULL, "%s: no error", desc);
  fail_unless(g_str_has_prefix(o.error, "f: "), "error from the wrong element: %s", o.error);
  gchar *all = g_strdup_printf("%s %s", o.error, o.debug ? o.debug : "");
  fail_unless(strstr(all, words) != NULL, "error \"%s\" does not say \"%s\"", all, words);
  g_free(all);
  run_out_clear(&o);
  g_free(desc);
}

#define SYSMEM_SRC "videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=64,height=48"

GST_START_TEST(test_bad_inputs)
{
  expect_error(SYSMEM_SRC, NULL, NULL, "No model set");
  expect_error(SYSMEM_SRC, "/nonexistent/model.tflite", NULL, "does not exist");

  NEED_MODEL(model, MV1);
  /* a real model cut to a third */
  gchar *data = NULL, *tmp = NULL;
  gsize len = 0;
  fail_unless(g_file_get_contents(model, &data, &len, NULL));
  gint fd = g_file_open_tmp("tflitefilter-XXXXXX.tflite", &tmp, NULL);
  fail_unless(fd >= 0);
  close(fd);
  fail_unless(g_file_set_contents(tmp, data, (gssize)(len / 3), NULL));
  expect_error(SYSMEM_SRC, tmp, NULL, "not a valid .tflite file");
  g_unlink(tmp);
  g_free(tmp);
  g_free(data);

  g_free(model);

  /* a valid model with an operator we lack: the message itself names it (not only the
   * debug line), and says it is no broken file */
  gchar *unsup = g_build_filename(env_dir("TFL_REGRESS"), "hand_unsupported_custom_op.tflite", NULL);
  fail_unless(g_file_test(unsup, G_FILE_TEST_IS_REGULAR), "%s missing", unsup);
  gchar *desc = g_strdup_printf("%s ! tflitefilter name=f model=%s ! fakesink", SYSMEM_SRC, unsup);
  run_out uo;
  run_pipeline(desc, &uo);
  fail_unless(uo.error && strstr(uo.error, "custom op 'MyFancyOp' is not supported") &&
                  !strstr(uo.error, "not a valid"),
              "error \"%s\" does not name the operator", uo.error ? uo.error : "(none)");
  run_out_clear(&uo);
  g_free(desc);
  g_free(unsup);

  /* a model whose input is a [2, 8] matrix */
  gchar *op = g_build_filename(env_dir("TFL_OPMODELS"), "softmax_2d.tflite", NULL);
  fail_unless(g_file_test(op, G_FILE_TEST_IS_REGULAR), "%s missing", op);
  expect_error(SYSMEM_SRC, op, NULL, "does not take an image");
  g_free(op);
}
GST_END_TEST;

/* A PyTorch-style model (NCHW input [1,3,6,8], then TRANSPOSE to NHWC): refused before as
 * "does not take an image"; now both paths run it, the frames written NHWC. */
GST_START_TEST(test_nchw_input)
{
  gchar *model = g_build_filename(env_dir("TFL_OPMODELS"), "transpose_nchw_conv_1x1.tflite", NULL);
  fail_unless(g_file_test(model, G_FILE_TEST_IS_REGULAR), "%s missing", model);
  const gchar *paths[] = {"", "glupload ! "}, *delegates[] = {"", "delegate=gl"};
  for (guint i = 0; i < G_N_ELEMENTS(paths); i++) {
    gchar *desc = g_strdup_printf("videotestsrc num-buffers=2 ! video/x-raw,format=RGBA,width=64,height=48 ! "
                                  "%stflitefilter name=f model=%s %s decoder=none ! fakesink", paths[i], model,
                                  delegates[i]);
    run_out o;
    run_pipeline(desc, &o);
    fail_unless(o.error == NULL, "%s: %s (%s)", desc, o.error, o.debug ? o.debug : "");
    run_out_clear(&o);
    g_free(desc);
  }
  g_free(model);
}
GST_END_TEST;

/* ---- files that are no files, and configuration errors at the state change ---- */

/* READY -> PAUSED fails at once (no frame needed) with an error from the filter naming
 * the problem; the pipeline, set back to NULL, ends. */
static void expect_state_change_fails(const gchar *props, const gchar *words)
{
  gchar *desc = g_strdup_printf(SYSMEM_SRC " ! tflitefilter name=f %s ! fakesink", props);
  GstElement *pipe = gst_parse_launch(desc, NULL);
  fail_unless(pipe != NULL);
  GstBus *bus = gst_element_get_bus(pipe);
  fail_unless_equals_int(gst_element_set_state(pipe, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
  GstMessage *m = gst_bus_timed_pop_filtered(bus, 10 * GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless(m != NULL, "%s: no error message", desc);
  fail_unless(!g_strcmp0(GST_OBJECT_NAME(GST_MESSAGE_SRC(m)), "f"), "error from %s", GST_OBJECT_NAME(GST_MESSAGE_SRC(m)));
  GError *e = NULL;
  gchar *dbg = NULL;
  gst_message_parse_error(m, &e, &dbg);
  gchar *all = g_strdup_printf("%s %s", e->message, dbg ? dbg : "");
  fail_unless(strstr(all, words) != NULL, "%s: error \"%s\" does not say \"%s\"", desc, all, words);
  g_free(all);
  g_clear_error(&e);
  g_free(dbg);
  gst_message_unref(m);
  fail_unless_equals_int(gst_element_set_state(pipe, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  gst_object_unref(bus);
  gst_object_unref(pipe);
  g_free(desc);
}

GST_START_TEST(test_bad_files)
{
  NEED_MODEL(model, MV1);
  gchar *dir = g_dir_make_tmp("tflitefilter-files-XXXXXX", NULL);
  fail_unless(dir != NULL);
  gchar *fifo = g_build_filename(dir, "fifo", NULL), *big = g_build_filename(dir, "big.txt", NULL);
  fail_unless(mkfifo(fifo, 0600) == 0);
  /* a sparse file just over the labels limit (16 MiB) */
  FILE *f = fopen(big, "w");
  fail_unless(f && fseek(f, (16l << 20) + 1, SEEK_SET) == 0 && fputc('\n', f) != EOF && fclose(f) == 0);
  gchar *p;

  p = g_strdup_printf("model=%s", dir);
  expect_state_change_fails(p, "is a directory");
  g_free(p);
  /* opening a FIFO for reading waits for a writer: it must be refused before */
  p = g_strdup_printf("model=%s", fifo);
  expect_state_change_fails(p, "FIFO");
  g_free(p);
  expect_state_change_fails("model=/dev/null", "character device");

  p = g_strdup_printf("model=%s labels=/dev/zero", model);
  expect_state_change_fails(p, "character device");
  g_free(p);
  p = g_strdup_printf("model=%s labels=%s", model, dir);
  expect_state_change_fails(p, "is a directory");
  g_free(p);
  p = g_strdup_printf("model=%s labels=%s", model, fifo);
  expect_state_change_fails(p, "FIFO");
  g_free(p);
  p = g_strdup_printf("model=%s labels=%s", model, big);
  expect_state_change_fails(p, "more than the limit");
  g_free(p);
  p = g_strdup_printf("model=%s labels=%s/none.txt", model, dir);
  expect_state_change_fails(p, "does not exist");
  g_free(p);

  /* a model the CPU kernels refuse (float input, uint8 weights): at the caps negotiation */
  gchar *hybrid = g_build_filename(env_dir("TFL_REGRESS"), "hand_image_conv_uint8_weights_float_input.tflite", NULL);
  expect_error(SYSMEM_SRC, hybrid, NULL, "float input with UINT8 filter");
  g_free(hybrid);

  /* a model that loads and takes an image, but whose transposed convolution's stride
   * (input rows x stride) fails the shape rules: refused before the first frame */
  gchar *bad = g_build_filename(env_dir("TFL_REGRESS"), "hand_image_tconv_stride_huge.tflite", NULL);
  p = g_strdup_printf("model=%s", bad);
  expect_state_change_fails(p, "stride 4194304");
  g_free(p);
  g_free(bad);

  g_unlink(fifo);
  g_unlink(big);
  g_rmdir(dir);
  g_free(fifo);
  g_free(big);
  g_free(dir);
  g_free(model);
}
GST_END_TEST;

/* One-frame pipelines with a configuration error, many times: each posts the filter's
 * error and ends (a delegate=gl error on the first buffer once hung 2 runs in 13). */
GST_START_TEST(test_config_errors_end)
{
  for (int i = 0; i < 20; i++) {
    run_out o;
    run_pipeline(SYSMEM_SRC " ! tflitefilter name=f model=/nonexistent.tflite ! fakesink", &o);
    fail_unless(o.error && strstr(o.error, "does not exist"), "run %d: %s", i, o.error);
    run_out_clear(&o);
  }
}
GST_END_TEST;

/* ---- delegate=gl on system-memory frames: uploaded by the element ---- */

static void run_sysmem_gl(const gchar *pic, const gchar *model, const gchar *format, const gchar *delegate,
                          run_out *o)
{
  gchar *p = picture(pic);
  gchar *desc = g_strdup_printf("filesrc location=%s ! pngdec ! videoconvert ! video/x-raw,format=%s ! "
                                "tflitefilter name=f model=%s delegate=%s ! fakesink", p, format, model, delegate);
  run_pipeline(desc, o);
  fail_unless(o->error == NULL, "%s: %s (%s)", desc, o->error, o->debug);
  fail_unless(o->results->len == 1, "%s: %u results", desc, o->results->len);
  fail_unless_equals_string(gst_structure_get_string(o->model, "delegate"), delegate);
  fail_unless(o->caps && !gst_caps_features_contains(gst_caps_get_features(o->caps, 0),
                                                     GST_CAPS_FEATURE_MEMORY_GL_MEMORY), "frames stay in system memory");
  g_free(desc);
  g_free(p);
}

GST_START_TEST(test_gl_sysmem)
{
  NEED_MODEL(mv1, MV1);
  /* the upload gives each format's planes as textures, read by the texture-input shader */
  static const gchar *formats[] = { "RGBA", "I420", "BGRx", "YUY2", "UYVY", "NV21", "YV12", "GRAY8", "RGB" };
  for (guint i = 0; i < G_N_ELEMENTS(formats); i++) {
    run_out cpu, gl;
    gdouble s_cpu, s_gl;
    run_sysmem_gl("chelsea.png", mv1, formats[i], "cpu", &cpu);
    run_sysmem_gl("chelsea.png", mv1, formats[i], "gl", &gl);
    fail_unless_equals_int(top_class(g_ptr_array_index(gl.results, 0), &s_gl),
                           top_class(g_ptr_array_index(cpu.results, 0), &s_cpu));
    fail_unless(fabs(s_gl - s_cpu) < 0.02, "%s: score GL %f CPU %f", formats[i], s_gl, s_cpu);
    run_out_clear(&cpu);
    run_out_clear(&gl);
  }
  g_free(mv1);

  /* a segmentation mask comes back to the CPU (no textures in system-memory buffers) */
  NEED_MODEL(selfie, SELFIE);
  run_out cpu, gl;
  run_sysmem_gl("astronaut.png", selfie, "RGBA", "cpu", &cpu);
  run_sysmem_gl("astronaut.png", selfie, "RGBA", "gl", &gl);
  gdouble f_cpu = dbl(g_ptr_array_index(cpu.results, 0), "mask-fraction");
  gdouble f_gl = dbl(g_ptr_array_index(gl.results, 0), "mask-fraction");
  fail_unless(f_cpu > 0.05 && fabs(f_gl - f_cpu) < 0.005, "mask GL %f CPU %f", f_gl, f_cpu);
  run_out_clear(&cpu);
  run_out_clear(&gl);
  g_free(selfie);
}
GST_END_TEST;

static Suite *tflitefilter_suite(void)
{
  Suite *s = suite_create("tflitefilter");
  TCase *cpu = tcase_create("cpu"), *gl = tcase_create("gl"), *life = tcase_create("life");
  tcase_set_timeout(cpu, 300);
  tcase_set_timeout(gl, 600);
  tcase_set_timeout(life, 300);
  tcase_add_checked_fixture(cpu, pipe_filter_imagefreeze_race, NULL);
  tcase_add_checked_fixture(gl, pipe_filter_imagefreeze_race, NULL);
  tcase_add_checked_fixture(life, pipe_filter_imagefreeze_race, NULL);
  suite_add_tcase(s, cpu);
  suite_add_tcase(s, gl);
  suite_add_tcase(s, life);
  tcase_add_test(cpu, test_caps_sysmem);
  tcase_add_test(cpu, test_classification);
  tcase_add_test(cpu, test_dmabuf_cpu);
  tcase_add_test(cpu, test_segmentation);
  tcase_add_test(cpu, test_landmarks);
  tcase_add_test(cpu, test_detection);
  tcase_add_test(cpu, test_yolo);
  tcase_add_test(gl, test_families);
  tcase_add_test(cpu, test_yolo_tasks);
  tcase_add_test(cpu, test_yolo_agnostic);
  tcase_add_test(gl, test_caps_gl);
  tcase_add_test(gl, test_gl_matches_cpu);
  tcase_add_test(gl, test_gl_external_oes);
  tcase_add_test(gl, test_gl_detection);
  tcase_add_test(gl, test_gl_ssd_detection);
  tcase_add_test(gl, test_gl_landmarks);
  tcase_add_test(gl, test_gl_no_cpu_map);
  tcase_add_test(gl, test_gl_mask_stays_on_gpu);
  tcase_add_test(gl, test_gl_sysmem);
  tcase_add_test(gl, test_gl_keep_tensors);
  tcase_add_test(life, test_state_cycles);
  tcase_add_test(life, test_bad_inputs);
  tcase_add_test(life, test_nchw_input);
  tcase_add_test(life, test_bad_files);
  tcase_add_test(life, test_config_errors_end);
  return s;
}

int main(int argc, char **argv)
{
  gst_check_init(&argc, &argv);
  /* it deinitializes GStreamer at the end: with GST_TRACERS=leaks, objects still alive
   * are reported then and fail the run */
  return gst_check_run_suite(tflitefilter_suite(), "tflitefilter", __FILE__);
}
