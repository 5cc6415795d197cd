/* test_formats.c - frames in every format cameras and decoders give (issue 28), on both
 * paths, against the same frame converted to RGBA by GStreamer's videoconvert first.
 *
 * The reference is independent of our conversion: the picture is put into format F (with
 * a given colorimetry) by videoconvert, then either goes into tflitefilter as F, or is
 * turned back into RGBA by videoconvert (REF_RGBA) and goes in as RGBA. Both runs must give the same
 * results within the model's tolerance (mobilenet's top score within 0.02, as between the
 * GL and CPU paths; the face box within 1 px). Errors this catches, each tried by breaking
 * the conversion on purpose: BT.709 read as BT.601 (score 0.033 off on I420), full range
 * read as limited (0.028 on GRAY8), NV21's chroma read as NV12's (0.18).
 *
 * Env (meson): GST_PLUGIN_PATH, GST_GL_WINDOW=egl-device, TFL_MODEL_DIRS, TFL_PICTURES.
 */
#include <gst/check/gstcheck.h>
#include <math.h>

#include "pipe_util.h"

#define MV1 "mobilenet_v1_0.25_224.tflite"
#define FACE_DET "face_detection_short_range.tflite"

/* The reference decoder: videoconvert with nearest chroma (as the element samples it),
 * through 16 bits a channel: its direct 8-bit paths (I420 to RGBA, ...) use coarse fixed
 * coefficients, 3 levels darker on average than the BT.601 formula and the original
 * picture; the 16-bit path is within 2.3 levels of the formula (chelsea.png, I420 bt601). */
#define REF_RGBA                                                                              \
  "videoconvert chroma-mode=none dither=none ! video/x-raw,format=RGBA64_LE ! videoconvert " \
  "dither=none ! video/x-raw,format=RGBA !"

typedef struct {
  const gchar *format;
  const gchar *colorimetry; /* NULL: the caps' default */
} fmt_case;

/* every format the system-memory path takes, YUV ones in several colorimetries
 * (1:4:0:0 is full-range BT.601, 1:3:5:1 full-range BT.709) */
static const fmt_case cpu_cases[] = {
  { "RGBx", NULL },           { "BGRx", NULL },      { "BGRA", NULL },      { "RGB", NULL },
  { "BGR", NULL },            { "GRAY8", NULL },     { "I420", "bt601" },   { "I420", "bt709" },
  { "I420", "1:4:0:0" },      { "YV12", "bt709" },   { "NV12", "bt601" },   { "NV12", "1:3:5:1" },
  { "NV21", "bt709" },        { "YUY2", "bt601" },   { "YUY2", "bt709" },   { "YUY2", "1:4:0:0" },
  { "UYVY", "bt709" },        { "UYVY", "1:3:5:1" },
};

static gchar *caps_of(const fmt_case *c)
{
  return c->colorimetry ? g_strdup_printf("video/x-raw,format=%s,colorimetry=%s", c->format, c->colorimetry)
                        : g_strdup_printf("video/x-raw,format=%s", c->format);
}

/* The picture in format c through the filter (`direct`), or turned back into RGBA by
 * videoconvert first; `upload` puts glupload before the filter (the GL path). Returns the
 * frame's "tflite-results" (a copy) after checking which delegate ran. */
static GstStructure *run_head(const gchar *head, const gchar *model, const gchar *props, gboolean direct,
                              gboolean upload)
{
  gchar *desc = g_strdup_printf("%s ! %s %s tflitefilter name=f model=\"%s\" %s %s ! appsink name=sink sync=false",
                                head, direct ? "" : REF_RGBA, upload ? "glupload !" : "", model,
                                upload ? "delegate=gl" : "", props);
  pipe_run r;
  pipe_run_launch(desc, 120, &r);
  fail_unless(r.error == NULL, "%s: %s", desc, r.error);
  const GstStructure *m = pipe_run_message(&r, "tflite-model", "f", 0);
  fail_unless(m != NULL, "%s: no tflite-model message", desc);
  fail_unless_equals_string(gst_structure_get_string(m, "delegate"), upload ? "gl" : "cpu");
  const GstStructure *res = pipe_run_message(&r, "tflite-results", "f", 0);
  fail_unless(res != NULL, "%s: no results", desc);
  GstStructure *out = gst_structure_copy(res);
  pipe_run_clear(&r);
  g_free(desc);
  return out;
}

static GstStructure *run_case(const gchar *pic, const gchar *model, const fmt_case *c, gboolean direct,
                              gboolean upload)
{
  gchar *p = pipe_picture(pic), *caps = caps_of(c);
  gchar *head = g_strdup_printf("filesrc location=\"%s\" ! pngdec ! videoconvert ! %s", p, caps);
  GstStructure *out = run_head(head, model, "", direct, upload);
  g_free(head);
  g_free(caps);
  g_free(p);
  return out;
}

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

/* mobilenet's top class on chelsea: the same class, its score within `tol` */
static void same_class(const fmt_case *c, gboolean upload, gdouble tol, gdouble *worst)
{
  gchar *model = pipe_model(MV1);
  GstStructure *a = run_case("chelsea.png", model, c, TRUE, upload);
  GstStructure *b = run_case("chelsea.png", model, c, FALSE, upload);
  const GstStructure *ca = list_item(a, "classes", 0), *cb = list_item(b, "classes", 0);
  fail_unless(ca && cb, "%s %s: no class", c->format, c->colorimetry);
  gint ia = -1, ib = -2;
  gst_structure_get_int(ca, "id", &ia);
  gst_structure_get_int(cb, "id", &ib);
  gdouble sa = dbl(ca, "score"), sb = dbl(cb, "score");
  fail_unless(ia == ib, "%s %s (gl %d): class %d, as RGBA %d", c->format, c->colorimetry, upload, ia, ib);
  fail_unless(fabs(sa - sb) < tol, "%s %s (gl %d): score %f, as RGBA %f", c->format, c->colorimetry, upload, sa, sb);
  *worst = MAX(*worst, fabs(sa - sb));
  gst_structure_free(a);
  gst_structure_free(b);
  g_free(model);
}

/* the face detector on astronaut: the first box within `tol` pixels, score within 0.01 */
static void same_face(const fmt_case *c, gboolean upload, gdouble tol, gdouble *worst)
{
  gchar *model = pipe_model(FACE_DET);
  GstStructure *a = run_case("astronaut.png", model, c, TRUE, upload);
  GstStructure *b = run_case("astronaut.png", model, c, FALSE, upload);
  const GstStructure *ba = list_item(a, "boxes", 0), *bb = list_item(b, "boxes", 0);
  fail_unless(ba && bb, "%s %s (gl %d): no face", c->format, c->colorimetry, upload);
  static const gchar *keys[] = { "x", "y", "width", "height" };
  for (guint k = 0; k < G_N_ELEMENTS(keys); k++) {
    gdouble d = fabs(dbl(ba, keys[k]) - dbl(bb, keys[k]));
    fail_unless(d < tol, "%s %s (gl %d): box %s %f, as RGBA %f", c->format, c->colorimetry, upload, keys[k],
                dbl(ba, keys[k]), dbl(bb, keys[k]));
    *worst = MAX(*worst, d);
  }
  fail_unless(fabs(dbl(ba, "score") - dbl(bb, "score")) < 0.01, "%s %s (gl %d): score %f, as RGBA %f", c->format,
              c->colorimetry, upload, dbl(ba, "score"), dbl(bb, "score"));
  gst_structure_free(a);
  gst_structure_free(b);
  g_free(model);
}

/* The CPU path: each format converted in the one preprocessing pass. Tolerances: the two
 * runs differ only by rounding (videoconvert's integer matrix to 8 bits, ours in float). */
GST_START_TEST(test_cpu_formats)
{
  gdouble worst_score = 0.0, worst_px = 0.0;
  for (guint i = 0; i < G_N_ELEMENTS(cpu_cases); i++) {
    same_class(&cpu_cases[i], FALSE, 0.02, &worst_score);
    same_face(&cpu_cases[i], FALSE, 1.0, &worst_px);
  }
  g_print("CPU formats: worst score difference %f, worst box difference %f px\n", worst_score, worst_px);
}
GST_END_TEST;

/* The GL path: glupload gives each format as its plane textures, converted in the
 * texture-input shader (no glcolorconvert pass); against RGBA textures of the same frame.
 * Tolerances as between the GL and CPU paths (test_tflitefilter). */
GST_START_TEST(test_gl_formats)
{
  gdouble worst_score = 0.0, worst_px = 0.0;
  for (guint i = 0; i < G_N_ELEMENTS(cpu_cases); i++) {
    same_class(&cpu_cases[i], TRUE, 0.02, &worst_score);
    same_face(&cpu_cases[i], TRUE, 2.0, &worst_px);
  }
  g_print("GL formats: worst score difference %f, worst box difference %f px\n", worst_score, worst_px);
}
GST_END_TEST;

/* A decoder's own frames: jpegdec gives I420 in full-range BT.601 (JPEG's colorimetry),
 * straight into the filter on both paths, against the same frames made RGBA. */
GST_START_TEST(test_decoded_jpeg)
{
  gchar *model = pipe_model(MV1), *p = pipe_picture("rocket.jpg");
  gchar *head = g_strdup_printf("filesrc location=\"%s\" ! jpegdec", p);
  for (gint gl = 0; gl < 2; gl++) {
    /* threshold=0: the top class whatever its score */
    GstStructure *a = run_head(head, model, "threshold=0", TRUE, gl), *b = run_head(head, model, "threshold=0", FALSE, gl);
    const GstStructure *ca = list_item(a, "classes", 0), *cb = list_item(b, "classes", 0);
    fail_unless(ca && cb, "no class (gl %d)", gl);
    gint ia = -1, ib = -2;
    gst_structure_get_int(ca, "id", &ia);
    gst_structure_get_int(cb, "id", &ib);
    fail_unless(ia == ib, "jpegdec (gl %d): class %d, as RGBA %d", gl, ia, ib);
    fail_unless(fabs(dbl(ca, "score") - dbl(cb, "score")) < 0.02, "jpegdec (gl %d): score %f, as RGBA %f", gl,
                dbl(ca, "score"), dbl(cb, "score"));
    gst_structure_free(a);
    gst_structure_free(b);
  }
  g_free(head);
  g_free(p);
  g_free(model);
}
GST_END_TEST;

/* tfliteoverlay after the filter in every format the filter takes: the formats it draws on
 * link and run; packed 4:2:2 (YUY2, UYVY) is refused by its caps (the link fails). */
GST_START_TEST(test_overlay_formats)
{
  gchar *model = pipe_model(FACE_DET), *pic = pipe_picture("astronaut.png");
  static const gchar *drawn[] = { "RGBA", "RGBx", "BGRx", "BGRA", "RGB", "BGR", "GRAY8", "I420", "YV12", "NV12", "NV21" };
  for (guint i = 0; i < G_N_ELEMENTS(drawn); i++) {
    gchar *desc = g_strdup_printf("filesrc location=\"%s\" ! pngdec ! videoconvert ! video/x-raw,format=%s ! "
                                  "tflitefilter name=f model=\"%s\" ! tfliteoverlay ! appsink name=sink",
                                  pic, drawn[i], model);
    pipe_run r;
    pipe_run_launch(desc, 60, &r);
    fail_unless(r.error == NULL, "%s: %s", drawn[i], r.error);
    fail_unless_equals_int(r.buffers->len, 1);
    pipe_run_clear(&r);
    g_free(desc);
  }
  GstElement *ov = gst_element_factory_make("tfliteoverlay", NULL);
  fail_unless(ov != NULL);
  GstPad *sink = gst_element_get_static_pad(ov, "sink");
  static const gchar *refused[] = { "YUY2", "UYVY" };
  for (guint i = 0; i < G_N_ELEMENTS(refused); i++) {
    gchar *str = g_strdup_printf("video/x-raw,format=%s,width=64,height=48,framerate=30/1", refused[i]);
    GstCaps *c = gst_caps_from_string(str);
    fail_if(gst_pad_query_accept_caps(sink, c), "tfliteoverlay takes %s", refused[i]);
    gst_caps_unref(c);
    g_free(str);
  }
  gst_object_unref(sink);
  gst_object_unref(ov);
  g_free(pic);
  g_free(model);
}
GST_END_TEST;

static Suite *formats_suite(void)
{
  Suite *s = suite_create("formats");
  TCase *tc = tcase_create("cpu");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_cpu_formats);
  tcase_add_test(tc, test_overlay_formats);
  tcase_add_test(tc, test_gl_formats);
  tcase_add_test(tc, test_decoded_jpeg);
  suite_add_tcase(s, tc);
  return s;
}

GST_CHECK_MAIN(formats);
