/* test_tfliteoverlay.c - tfliteoverlay drawn results, checked by pixels.
 *
 * A plain-colour frame gets a GstTfliteMeta written by hand (boxes, masks, labels), goes
 * through tfliteoverlay (system memory: every format it takes, RGBA-family, RGB, BGR, I420,
 * YV12, NV12, NV21, GRAY8 (luma only);
 * GL: glupload ! tfliteoverlay ! gldownload), and the pixels are checked where the metadata
 * says something is drawn and where it says nothing is. The expected values are worked out
 * here from the palette, the blend weight and (YUV) this test's own BT.601/709 conversion;
 * on YUV, luma at frame positions and chroma at its 2x2-subsampled positions. GL and
 * software outputs of the same input are compared within stated tolerances.
 * Needs GST_PLUGIN_PATH at the plugin and, for GL, GST_GL_WINDOW=egl-device.
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/gl/gl.h>
#include <gst/gl/gstglfuncs.h>
#include <gst/video/video.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gst/tflitemeta/gsttflitemeta.h>

#define W 160
#define H 120
/* the frame's colour: distinct channels catch a red/blue exchange */
#define BG_R 40
#define BG_G 80
#define BG_B 120

/* PASCAL VOC colours: class 3 (128,128,0), class 15 (192,128,128), class 1 (128,0,0) */
static const guint8 voc3[3] = { 128, 128, 0 };
static const guint8 voc15[3] = { 192, 128, 128 };
static const guint8 voc1[3] = { 128, 0, 0 };

/* every system-memory format; YUV ones in BT.601 limited range unless a test says otherwise */
static const gchar *formats[] = { "RGBA", "BGRx", "RGBx", "BGRA", "RGB", "BGR", "I420", "NV12", "YV12", "NV21", "GRAY8" };
#define N_RGB_FORMATS 6
#define DEFAULT_COLORIMETRY "bt601"

/* ---- frames ---- */

static gboolean is_yuv(const gchar *format)
{
  return g_str_equal(format, "I420") || g_str_equal(format, "NV12") || g_str_equal(format, "YV12") ||
         g_str_equal(format, "NV21") || g_str_equal(format, "GRAY8");
}

static gchar *caps_str_cm(const gchar *format, const gchar *colorimetry)
{
  if (is_yuv(format))
    return g_strdup_printf("video/x-raw,format=%s,width=%d,height=%d,framerate=30/1,colorimetry=%s", format,
                           W, H, colorimetry);
  return g_strdup_printf("video/x-raw,format=%s,width=%d,height=%d,framerate=30/1", format, W, H);
}

static gchar *caps_str(const gchar *format)
{
  return caps_str_cm(format, DEFAULT_COLORIMETRY);
}

static GstVideoInfo info_of(const gchar *format, const gchar *colorimetry)
{
  gchar *str = caps_str_cm(format, colorimetry);
  GstCaps *caps = gst_caps_from_string(str);
  GstVideoInfo info;
  fail_unless(gst_video_info_from_caps(&info, caps));
  gst_caps_unref(caps);
  g_free(str);
  return info;
}

/* This test's own Y'CbCr codes of an RGB colour: matrix BT.601 or BT.709, limited or full. */
static void yuv_of(const GstVideoInfo *info, const guint8 rgb[3], gdouble yuv[3])
{
  gboolean bt709 = info->colorimetry.matrix == GST_VIDEO_COLOR_MATRIX_BT709;
  gboolean full = info->colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255;
  gdouble kr = bt709 ? 0.2126 : 0.299, kb = bt709 ? 0.0722 : 0.114;
  gdouble r = rgb[0] / 255.0, g = rgb[1] / 255.0, b = rgb[2] / 255.0;
  gdouble ey = kr * r + (1 - kr - kb) * g + kb * b;
  gdouble pb = 0.5 * (b - ey) / (1 - kb), pr = 0.5 * (r - ey) / (1 - kr);
  yuv[0] = full ? 255 * ey : 16 + 219 * ey;
  yuv[1] = 128 + (full ? 255 : 224) * pb;
  yuv[2] = 128 + (full ? 255 : 224) * pr;
  for (gint i = 0; i < 3; i++) yuv[i] = floor(yuv[i] + 0.5);
}

static const guint8 bg_rgb[3] = { BG_R, BG_G, BG_B };

static GstBuffer *plain_frame_cm(const gchar *format, const gchar *colorimetry)
{
  GstVideoInfo info = info_of(format, colorimetry);
  GstBuffer *buf = gst_buffer_new_allocate(NULL, info.size, NULL);
  GstVideoFrame f;
  fail_unless(gst_video_frame_map(&f, &info, buf, GST_MAP_WRITE));
  if (is_yuv(format)) {
    gdouble yuv[3];
    yuv_of(&info, bg_rgb, yuv);
    /* by component: NV12's U and V interleave; GRAY8 has luma only */
    for (gint c = 0; c < (gint)GST_VIDEO_FRAME_N_COMPONENTS(&f); c++) {
      guint8 *d = GST_VIDEO_FRAME_COMP_DATA(&f, c);
      gint ps = GST_VIDEO_FRAME_COMP_PSTRIDE(&f, c), st = GST_VIDEO_FRAME_COMP_STRIDE(&f, c);
      for (gint y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT(&f, c); y++)
        for (gint x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH(&f, c); x++) d[y * st + x * ps] = (guint8)yuv[c];
    }
  } else {
    guint8 *d = GST_VIDEO_FRAME_PLANE_DATA(&f, 0);
    for (gint y = 0; y < H; y++)
      for (gint x = 0; x < W; x++) {
        gint ps = GST_VIDEO_FRAME_COMP_PSTRIDE(&f, 0); /* 4, or 3 for RGB and BGR */
        guint8 *p = d + y * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 0) + ps * x;
        memset(p, 255, ps);
        for (gint c = 0; c < 3; c++) p[GST_VIDEO_FRAME_COMP_POFFSET(&f, c)] = bg_rgb[c];
      }
  }
  gst_video_frame_unmap(&f);
  GST_BUFFER_PTS(buf) = 0;
  GST_BUFFER_DURATION(buf) = GST_SECOND / 30;
  return buf;
}

static GstBuffer *plain_frame(const gchar *format)
{
  return plain_frame_cm(format, DEFAULT_COLORIMETRY);
}

/* An output frame: RGB (RGBA-family) or its Y, U and V samples (YUV), plus what the test
 * needs to work out expected values. */
typedef struct {
  gboolean yuv;
  GstVideoInfo info;
  guint8 rgb[W * H * 3];
  guint8 y[W * H], u[(W / 2) * (H / 2)], v[(W / 2) * (H / 2)];
  guint8 alpha_byte_min; /* RGBA-family: smallest fourth byte (the input has 255 there) */
} Image;

static Image *image_of(GstBuffer *buf, const gchar *format, const gchar *colorimetry)
{
  Image *img = g_new0(Image, 1);
  img->yuv = is_yuv(format);
  img->info = info_of(format, colorimetry);
  GstVideoFrame f;
  fail_unless(gst_video_frame_map(&f, &img->info, buf, GST_MAP_READ));
  img->alpha_byte_min = 255;
  for (gint y = 0; y < H; y++)
    for (gint x = 0; x < W; x++) {
      if (img->yuv) {
        img->y[y * W + x] = GST_VIDEO_FRAME_COMP_DATA(&f, 0)[y * GST_VIDEO_FRAME_COMP_STRIDE(&f, 0) + x];
        if (x < W / 2 && y < H / 2)
          for (gint c = 1; c < (gint)GST_VIDEO_FRAME_N_COMPONENTS(&f); c++)
            (c == 1 ? img->u : img->v)[y * (W / 2) + x] =
              GST_VIDEO_FRAME_COMP_DATA(&f, c)[y * GST_VIDEO_FRAME_COMP_STRIDE(&f, c) + x * GST_VIDEO_FRAME_COMP_PSTRIDE(&f, c)];
        continue;
      }
      gint ps = GST_VIDEO_FRAME_COMP_PSTRIDE(&f, 0);
      const guint8 *p = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA(&f, 0) + y * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 0) + ps * x;
      for (gint c = 0; c < 3; c++) img->rgb[3 * (y * W + x) + c] = p[GST_VIDEO_FRAME_COMP_POFFSET(&f, c)];
      if (ps == 4) img->alpha_byte_min = MIN(img->alpha_byte_min, p[3]);
    }
  gst_video_frame_unmap(&f);
  return img;
}

/* The RGB of an RGBA-family image. */
static const guint8 *px(const Image *img, gint x, gint y)
{
  fail_if(img->yuv);
  return img->rgb + 3 * (y * W + x);
}

/* Whether the pixel (its luma, on YUV) is the background's. */
static gboolean is_bg(const Image *img, gint x, gint y)
{
  if (img->yuv) {
    gdouble yuv[3];
    yuv_of(&img->info, bg_rgb, yuv);
    return img->y[y * W + x] == yuv[0];
  }
  const guint8 *p = px(img, x, y);
  return p[0] == BG_R && p[1] == BG_G && p[2] == BG_B;
}

/* The background blended with color at weight a, each channel rounded, in the image's
 * codes: RGB, or Y', Cb, Cr (blending is linear, so done on the codes). */
static void blended_codes(const Image *img, const guint8 color[3], gdouble a, gdouble out[3])
{
  gdouble b[3], c[3];
  if (img->yuv) {
    yuv_of(&img->info, bg_rgb, b);
    yuv_of(&img->info, color, c);
  } else {
    for (gint i = 0; i < 3; i++) b[i] = bg_rgb[i], c[i] = color[i];
  }
  for (gint i = 0; i < 3; i++) out[i] = floor(b[i] * (1 - a) + c[i] * a + 0.5);
}

/* Pixel (x, y) is the background blended with color at weight a (tol levels): on YUV its
 * luma, and the chroma sample of its 2x2 block (only where the whole block is alike). */
static void assert_blend(const Image *img, gint x, gint y, const guint8 color[3], gdouble a, gint tol)
{
  gdouble want[3];
  blended_codes(img, color, a, want);
  gint got[3];
  if (img->yuv) {
    got[0] = img->y[y * W + x];
    got[1] = img->u[(y / 2) * (W / 2) + x / 2];
    got[2] = img->v[(y / 2) * (W / 2) + x / 2];
  } else {
    for (gint c = 0; c < 3; c++) got[c] = px(img, x, y)[c];
  }
  for (gint c = 0; c < (GST_VIDEO_INFO_N_COMPONENTS(&img->info) == 1 ? 1 : 3); c++) /* GRAY8: luma */
    fail_unless(fabs(got[c] - want[c]) <= tol, "%s pixel (%d,%d) is (%d,%d,%d), expected (%g,%g,%g) +-%d",
                img->yuv ? "YUV" : "RGB", x, y, got[0], got[1], got[2], want[0], want[1], want[2], tol);
}

static void assert_rgb(const Image *img, gint x, gint y, const guint8 want[3], gint tol)
{
  assert_blend(img, x, y, want, 1.0, tol);
}

static void assert_bg(const Image *img, gint x, gint y)
{
  assert_blend(img, x, y, bg_rgb, 0.0, 0);
}

/* The frame is untouched: every pixel and chroma sample the background's. */
static void assert_untouched(const Image *img)
{
  for (gint y = 0; y < H; y++)
    for (gint x = 0; x < W; x++) assert_bg(img, x, y);
  if (!img->yuv) fail_unless_equals_int(img->alpha_byte_min, 255);
}

/* ---- metadata ---- */

static GPtrArray *labels4(void)
{
  GPtrArray *l = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(l, g_strdup("background"));
  g_ptr_array_add(l, g_strdup("cat"));
  g_ptr_array_add(l, g_strdup("bird"));
  g_ptr_array_add(l, g_strdup("person"));
  return l;
}

static void add_box(tfl_results *r, gfloat x, gfloat y, gfloat w, gfloat h, gint class_id, gfloat score)
{
  r->boxes = realloc(r->boxes, sizeof(tfl_box) * (r->n_boxes + 1));
  tfl_box b = { x, y, w, h, class_id, score, 0, NULL };
  r->boxes[r->n_boxes++] = b;
}

/* A class mask of mw x mh placed at (fx, fy, fw, fh), class value(x, y) per texel. */
static void set_class_mask(tfl_results *r, gint mw, gint mh, gfloat fx, gfloat fy, gfloat fw,
                           gfloat fh, guint8 (*value)(gint, gint))
{
  r->mask.kind = TFL_MASK_CLASSES;
  r->mask.width = mw;
  r->mask.height = mh;
  r->mask.n_classes = 21;
  r->mask.classes = malloc(mw * mh);
  for (gint y = 0; y < mh; y++)
    for (gint x = 0; x < mw; x++) r->mask.classes[y * mw + x] = value(x, y);
  r->mask.frame_x = fx;
  r->mask.frame_y = fy;
  r->mask.frame_w = fw;
  r->mask.frame_h = fh;
}

static void set_prob_mask(tfl_results *r, gint mw, gint mh, gfloat p)
{
  r->mask.kind = TFL_MASK_PROB;
  r->mask.width = mw;
  r->mask.height = mh;
  r->mask.n_classes = 1;
  r->mask.prob = malloc(sizeof(gfloat) * mw * mh);
  for (gint i = 0; i < mw * mh; i++) r->mask.prob[i] = p;
  r->mask.frame_w = W;
  r->mask.frame_h = H;
}

static GstBuffer *frame_with_cm(const gchar *format, const gchar *colorimetry, tfl_results *r,
                                GPtrArray *labels)
{
  GstBuffer *buf = plain_frame_cm(format, colorimetry);
  GstTfliteMeta *meta = gst_buffer_add_tflite_meta(buf, W, H);
  fail_unless(meta != NULL);
  const gfloat frame[4] = { 0, 0, W, H };
  gst_tflite_meta_add_results(meta, r, g_quark_from_static_string("test"), 0, frame, labels, NULL);
  return buf;
}

static GstBuffer *frame_with(const gchar *format, tfl_results *r, GPtrArray *labels)
{
  return frame_with_cm(format, DEFAULT_COLORIMETRY, r, labels);
}

/* ---- running the element ---- */

/* tfliteoverlay's mask-path after the last frame a harness here drew ("" when no mask). */
static gchar last_mask_path[16];

/* A buffer probe run_full puts on the overlay's sink pad, when set. */
static GstPadProbeCallback overlay_probe;

/* The tfliteoverlay in h (the element, or one in its bin), a reference; NULL if none. */
static GstElement *overlay_in(GstHarness *h)
{
  GstElement *ov = NULL;
  if (GST_IS_BIN(h->element)) {
    GstIterator *it = gst_bin_iterate_all_by_element_factory_name(GST_BIN(h->element), "tfliteoverlay");
    GValue v = G_VALUE_INIT;
    if (gst_iterator_next(it, &v) == GST_ITERATOR_OK) ov = g_value_dup_object(&v);
    g_value_unset(&v);
    gst_iterator_free(it);
  } else {
    ov = gst_object_ref(h->element);
  }
  return ov;
}

/* Keeps the mask-path of the tfliteoverlay in h. */
static void record_mask_path(GstHarness *h)
{
  GstElement *ov = overlay_in(h);
  gchar *path = NULL;
  if (ov) g_object_get(ov, "mask-path", &path, NULL);
  g_strlcpy(last_mask_path, path ? path : "", sizeof last_mask_path);
  g_free(path);
  if (ov) gst_object_unref(ov);
}

/* The GL mask composites, forced in turn with TFL_OVERLAY_GL_PATH. */
static const gchar *const gl_paths[] = { "fragment", "compute" };

static void use_gl_path(gint k)
{
  g_setenv("TFL_OVERLAY_GL_PATH", gl_paths[k], TRUE);
}

/* The last frame's masks took path k. Under GLES the compute pass binds only textures of
 * immutable storage as images and GstGLMemory's are mutable, so there both are fragment. */
static void assert_gl_path(gint k)
{
  const gchar *api = g_getenv("GST_GL_API");
  const gchar *want = api && g_str_has_prefix(api, "gles") ? "fragment" : gl_paths[k];
  fail_unless(strcmp(last_mask_path, want) == 0, "TFL_OVERLAY_GL_PATH=%s: masks composited by '%s', expected '%s'",
              gl_paths[k], last_mask_path, want);
}

/* Pushes buf (format in_format, colorimetry cm) through "launch" (tfliteoverlay with
 * properties, or a bin) and returns the output frame, of format out_format. Takes buf. */
static Image *run_full(const gchar *launch, const gchar *in_format, const gchar *cm, const gchar *out_format,
                       GstBuffer *buf)
{
  GstHarness *h = gst_harness_new_parse(launch);
  if (overlay_probe) {
    GstElement *ov = overlay_in(h);
    fail_unless(ov != NULL);
    GstPad *sink = gst_element_get_static_pad(ov, "sink");
    gst_pad_add_probe(sink, GST_PAD_PROBE_TYPE_BUFFER, overlay_probe, NULL, NULL);
    gst_object_unref(sink);
    gst_object_unref(ov);
  }
  gchar *caps = caps_str_cm(in_format, cm);
  gst_harness_set_src_caps_str(h, caps);
  g_free(caps);
  fail_unless_equals_int(gst_harness_push(h, buf), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull(h);
  fail_unless(out != NULL);
  Image *img = image_of(out, out_format, cm);
  gst_buffer_unref(out);
  record_mask_path(h);
  gst_harness_teardown(h);
  return img;
}

static Image *run(const gchar *launch, const gchar *format, GstBuffer *buf)
{
  return run_full(launch, format, DEFAULT_COLORIMETRY, format, buf);
}

#define PLAIN "tfliteoverlay show-labels=false show-scores=false"
#define GL_BIN(x) "glupload ! " x " ! gldownload"

/* ---- system memory, every format ---- */

GST_START_TEST(test_no_meta_untouched)
{
  for (guint f = 0; f < G_N_ELEMENTS(formats); f++) {
    Image *img = run("tfliteoverlay", formats[f], plain_frame(formats[f]));
    assert_untouched(img);
    g_free(img);
  }
}
GST_END_TEST;

GST_START_TEST(test_empty_results_untouched)
{
  for (guint f = 0; f < G_N_ELEMENTS(formats); f++) {
    tfl_results r = { 0 };
    Image *img = run("tfliteoverlay", formats[f], frame_with(formats[f], &r, NULL));
    assert_untouched(img);
    g_free(img);
  }
}
GST_END_TEST;

/* Box (40,30)-(100,80), line width 4: its outline covers x in [38,42] (left edge) etc.
 * Pixel centres 1.5 px or more inside the band are fully covered: exactly the colour. On
 * YUV the chroma samples checked stand for 2x2 blocks wholly inside or outside the band. */
static void check_box(const Image *img, gint tol)
{
  assert_rgb(img, 40, 55, voc3, tol);   /* left edge */
  assert_rgb(img, 100, 55, voc3, tol);  /* right edge */
  assert_rgb(img, 70, 30, voc3, tol);   /* top edge */
  assert_rgb(img, 70, 80, voc3, tol);   /* bottom edge */
  assert_rgb(img, 38, 28, voc3, tol);   /* corner, covered by the square cap */
  assert_bg(img, 70, 55);               /* inside */
  assert_bg(img, 44, 55);               /* just inside the left edge band */
  assert_bg(img, 34, 55);               /* just outside */
  assert_bg(img, 10, 100);              /* far away */
  gint changed = 0;
  for (gint y = 0; y < H; y++)
    for (gint x = 0; x < W; x++) changed += !is_bg(img, x, y);
  /* outline area: (64 x 54) - (56 x 46) = 880 px, plus antialiased fringes */
  fail_unless(changed >= 860 && changed <= 1200, "%d pixels changed", changed);
}

GST_START_TEST(test_box_edge)
{
  for (guint f = 0; f < G_N_ELEMENTS(formats); f++) {
    tfl_results r = { 0 };
    add_box(&r, 40, 30, 60, 50, 3, 0.9f);
    Image *img = run(PLAIN " line-width=4", formats[f], frame_with(formats[f], &r, NULL));
    check_box(img, 0);
    if (!img->yuv) fail_unless_equals_int(img->alpha_byte_min, 255); /* the fourth byte is kept */
    g_free(img);
  }
}
GST_END_TEST;

static guint8 left_half_15(gint x, gint y)
{
  return x < 2 ? 15 : 0;
}

GST_START_TEST(test_mask_blended)
{
  for (guint f = 0; f < G_N_ELEMENTS(formats); f++) {
    tfl_results r = { 0 };
    set_class_mask(&r, 4, 3, 0, 0, W, H, left_half_15); /* left half person, right background */
    Image *img = run("tfliteoverlay mask-alpha=0.5", formats[f], frame_with(formats[f], &r, NULL));
    for (gint y = 0; y < H; y += 7) {
      for (gint x = 0; x < W / 2; x += 3) assert_blend(img, x, y, voc15, 0.5, 1);
      for (gint x = W / 2; x < W; x += 3) assert_bg(img, x, y);
    }
    g_free(img);
  }
}
GST_END_TEST;

static guint8 all_15(gint x, gint y)
{
  return 15;
}

/* A 5x7 mask placed on the bottom-right quarter: scaled there, nowhere else. */
GST_START_TEST(test_mask_other_size)
{
  const gchar *fmts[] = { "RGBA", "NV12" };
  for (guint f = 0; f < G_N_ELEMENTS(fmts); f++) {
    tfl_results r = { 0 };
    set_class_mask(&r, 5, 7, W / 2, H / 2, W / 2, H / 2, all_15);
    Image *img = run("tfliteoverlay mask-alpha=0.75", fmts[f], frame_with(fmts[f], &r, NULL));
    for (gint y = 0; y < H; y++)
      for (gint x = 0; x < W; x++) {
        if (x >= W / 2 && y >= H / 2) assert_blend(img, x, y, voc15, 0.75, 1);
        else assert_bg(img, x, y);
      }
    g_free(img);
  }
}
GST_END_TEST;

GST_START_TEST(test_prob_mask)
{
  const gchar *fmts[] = { "BGRx", "I420" };
  for (guint f = 0; f < G_N_ELEMENTS(fmts); f++) {
    tfl_results r = { 0 };
    set_prob_mask(&r, 8, 6, 1.0f);
    Image *img = run("tfliteoverlay mask-alpha=0.5", fmts[f], frame_with(fmts[f], &r, NULL));
    for (gint y = 0; y < H; y += 5)
      for (gint x = 0; x < W; x += 5) assert_blend(img, x, y, voc1, 0.5, 1);
    g_free(img);

    tfl_results z = { 0 };
    set_prob_mask(&z, 8, 6, 0.0f);
    img = run("tfliteoverlay mask-alpha=0.5", fmts[f], frame_with(fmts[f], &z, NULL));
    assert_untouched(img);
    g_free(img);
  }
}
GST_END_TEST;

/* YOLO's task results, through the meta as tflitefilter adds them: box 0 (class 3,
 * (40,30)-(100,80)) with its own mask of probability 1 on a grid reaching 10 px past the
 * box; box 1 (class 1) an oriented box turned 45 degrees, centre (120,60), 50 x 12; box 2
 * (class 1) two keypoints joined by a skeleton edge from (20,100) to (60,100). */
static const int32_t one_edge[2] = { 0, 1 };
static void yolo_task_results(tfl_results *r)
{
  add_box(r, 40, 30, 60, 50, 3, 0.9f);
  tfl_box_mask *m = &r->boxes[0].mask;
  m->width = 4, m->height = 4;
  m->prob = malloc(16 * sizeof(float));
  for (int i = 0; i < 16; i++) m->prob[i] = 1.0f;
  m->frame_x = 30, m->frame_y = 20, m->frame_w = 80, m->frame_h = 70;
  add_box(r, 95.7f, 35.7f, 48.6f, 48.6f, 1, 0.8f);
  r->boxes[1].oriented = true;
  r->boxes[1].rbox = (tfl_rbox){ 120, 60, 50, 12, (float)(M_PI / 4) };
  add_box(r, 18, 98, 44, 4, 1, 0.7f);
  tfl_box *b = &r->boxes[2];
  b->n_keypoints = 2;
  b->keypoints = malloc(2 * sizeof(tfl_keypoint));
  b->keypoints[0] = (tfl_keypoint){ 20, 100, 0.9f };
  b->keypoints[1] = (tfl_keypoint){ 60, 100, 0.9f };
  b->n_edges = 1;
  b->edges = one_edge;
}

static void check_yolo_tasks(const Image *img)
{
  /* the mask inside its box in the box's colour; the grid outside the box untouched */
  assert_blend(img, 70, 55, voc3, 0.5, 2);
  assert_blend(img, 50, 70, voc3, 0.5, 2);
  assert_bg(img, 34, 55);
  assert_bg(img, 70, 24);
  assert_bg(img, 105, 84);
  /* the rotated outline: the middle of a long side drawn, the bounds' corners not */
  fail_if(is_bg(img, 120 + 4, 60 - 4), "the rotated box's side is not drawn");
  assert_bg(img, 142, 37);
  assert_bg(img, 141, 82);
  /* the skeleton edge between the keypoints */
  fail_if(is_bg(img, 40, 100), "the skeleton edge is not drawn");
}

GST_START_TEST(test_gl_yolo_tasks)
{
  for (gint k = 0; k < (gint)G_N_ELEMENTS(gl_paths); k++) {
    use_gl_path(k);
    tfl_results r = { 0 };
    yolo_task_results(&r);
    Image *img = run(GL_BIN(PLAIN " mask-alpha=0.5 line-width=2"), "RGBA", frame_with("RGBA", &r, NULL));
    assert_gl_path(k);
    check_yolo_tasks(img);
    g_free(img);
  }
}
GST_END_TEST;

GST_START_TEST(test_yolo_tasks)
{
  const gchar *fmts[] = { "BGRx", "I420" };
  for (guint f = 0; f < G_N_ELEMENTS(fmts); f++) {
    tfl_results r = { 0 };
    yolo_task_results(&r);
    Image *img = run(PLAIN " mask-alpha=0.5 line-width=2", fmts[f], frame_with(fmts[f], &r, NULL));
    check_yolo_tasks(img);
    g_free(img);
  }
}
GST_END_TEST;

/* The label "person 0.90" sits on a filled rectangle above the box at (40,50): inside that
 * rectangle some pixels are the box colour (background) and some are text. */
static void check_label(const Image *img)
{
  gint bgcol = 0, text = 0;
  gdouble olive[3], white[3];
  static const guint8 w3[3] = { 255, 255, 255 };
  blended_codes(img, voc3, 1.0, olive);
  blended_codes(img, w3, 1.0, white);
  for (gint y = 0; y < 48; y++)
    for (gint x = 38; x < 120; x++) {
      if (img->yuv) {
        gint l = img->y[y * W + x];
        if (l == olive[0]) bgcol++;
        else if (l > (olive[0] + white[0]) / 2) text++; /* white text on olive */
        continue;
      }
      const guint8 *p = px(img, x, y);
      if (p[0] == voc3[0] && p[1] == voc3[1] && p[2] == voc3[2]) bgcol++;
      else if (!is_bg(img, x, y) && p[1] > 160) text++;
    }
  fail_unless(bgcol > 200, "label background: %d pixels", bgcol);
  fail_unless(text > 30, "label text: %d pixels", text);
  assert_bg(img, 150, 10); /* right of the label */
}

GST_START_TEST(test_label_text)
{
  for (guint f = 0; f < G_N_ELEMENTS(formats); f++) {
    tfl_results r = { 0 };
    add_box(&r, 40, 50, 60, 50, 3, 0.9f);
    GPtrArray *labels = labels4();
    Image *img = run("tfliteoverlay line-width=4", formats[f], frame_with(formats[f], &r, labels));
    g_ptr_array_unref(labels);
    check_label(img);
    g_free(img);
  }
}
GST_END_TEST;

/* Chroma at its own resolution: a vertical edge of line width 8 centred on x = 41 covers
 * frame columns [37, 45). Chroma column c stands for frame columns 2c and 2c+1, so 19 to
 * 21 are fully covered (the box colour exactly), 18 and 22 half (their blocks straddle
 * the band's ends: half the colour), 17 and 23 not at all; luma follows the frame columns. */
GST_START_TEST(test_chroma_sites)
{
  const gchar *fmts[] = { "I420", "NV12" };
  for (guint f = 0; f < G_N_ELEMENTS(fmts); f++) {
    tfl_results r = { 0 };
    add_box(&r, 41, 20, 80, 70, 3, 0.9f);
    Image *img = run(PLAIN " line-width=8", fmts[f], frame_with(fmts[f], &r, NULL));
    gdouble full[3], half[3], bg[3];
    blended_codes(img, voc3, 1.0, full);
    blended_codes(img, voc3, 0.5, half);
    blended_codes(img, bg_rgb, 0.0, bg);
    const gint cy = 27; /* chroma row: frame rows 54, 55, mid-edge */
    for (gint cx = 16; cx <= 24; cx++) {
      const gdouble *want = cx >= 19 && cx <= 21 ? full : cx == 18 || cx == 22 ? half : bg;
      gint u = img->u[cy * (W / 2) + cx], v = img->v[cy * (W / 2) + cx];
      fail_unless(fabs(u - want[1]) <= 1 && fabs(v - want[2]) <= 1,
                  "%s chroma (%d,%d) is (%d,%d), expected (%g,%g)", fmts[f], cx, cy, u, v, want[1], want[2]);
    }
    for (gint x = 34; x <= 48; x++) {
      const gdouble *want = x >= 37 && x < 45 ? full : bg;
      fail_unless(fabs(img->y[54 * W + x] - want[0]) <= 1, "%s luma (%d,54) is %d, expected %g", fmts[f], x,
                  img->y[54 * W + x], want[0]);
    }
    g_free(img);
  }
}
GST_END_TEST;

/* The caps' colorimetry picks the matrix and range of the blend colours. */
GST_START_TEST(test_colorimetry)
{
  const gchar *cms[] = { "bt601", "bt709", "1:4:0:0" /* full-range BT.601 (JPEG) */, "1:3:5:1" };
  for (guint c = 0; c < G_N_ELEMENTS(cms); c++)
    for (gint f = N_RGB_FORMATS; f < (gint)G_N_ELEMENTS(formats); f++) {
      tfl_results r = { 0 };
      set_class_mask(&r, 4, 3, 0, 0, W, H, all_15);
      Image *img = run_full("tfliteoverlay mask-alpha=1.0", formats[f], cms[c], formats[f],
                            frame_with_cm(formats[f], cms[c], &r, NULL));
      for (gint y = 1; y < H; y += 13)
        for (gint x = 1; x < W; x += 11) assert_rgb(img, x, y, voc15, 1);
      g_free(img);
    }
}
GST_END_TEST;

/* Class filter: only "cat" (class 1) is drawn. */
GST_START_TEST(test_classes_filter)
{
  tfl_results r = { 0 };
  add_box(&r, 40, 30, 60, 50, 3, 0.9f); /* person: filtered out */
  GPtrArray *labels = labels4();
  Image *img = run(PLAIN " classes=cat,7", "RGBA", frame_with("RGBA", &r, labels));
  assert_untouched(img);
  g_free(img);
  tfl_results r2 = { 0 };
  add_box(&r2, 40, 30, 60, 50, 3, 0.9f);
  img = run(PLAIN " line-width=4 classes=\" Person \"", "RGBA", frame_with("RGBA", &r2, labels));
  check_box(img, 0);
  g_free(img);
  g_ptr_array_unref(labels);
}
GST_END_TEST;

/* Nonsense results: nothing crashes, what is sound is still drawn. */
GST_START_TEST(test_bad_metadata)
{
  const gchar *fmts[] = { "RGBA", "I420" };
  for (guint f = 0; f < G_N_ELEMENTS(fmts); f++) {
    tfl_results r = { 0 };
    add_box(&r, 40, 30, 60, 50, 3, 0.9f);
    add_box(&r, 10, 10, 20, 20, 999, 0.5f);      /* class id outside the labels */
    add_box(&r, NAN, 10, 20, 20, 1, 0.5f);       /* not a number */
    add_box(&r, 10, 10, -5, 1e30f, 1, INFINITY); /* negative and huge */
    add_box(&r, -1e9f, -1e9f, 2e9f, 2e9f, -1, -1); /* far off-frame */
    r.poses = calloc(1, sizeof(tfl_pose));
    r.n_poses = 1;
    static const int32_t edges[] = { 0, 1, 1, 57, -3, 0 };
    r.poses[0].n_keypoints = 2;
    r.poses[0].keypoints = calloc(2, sizeof(tfl_keypoint));
    r.poses[0].keypoints[1].x = NAN;
    r.poses[0].edges = edges;
    r.poses[0].n_edges = 3;
    r.poses[0].class_id = -1;
    r.classes = calloc(2, sizeof(tfl_class));
    r.n_classes = 2;
    r.classes[0].class_id = 12345;
    r.classes[1].class_id = -7;
    r.mask.kind = TFL_MASK_CLASSES; /* a mask without pixels */
    r.mask.width = 10;
    r.mask.height = 10;
    GPtrArray *labels = labels4();
    Image *img = run("tfliteoverlay line-width=4", fmts[f], frame_with(fmts[f], &r, labels));
    assert_rgb(img, 40, 55, voc3, 0); /* the sound box */
    g_free(img);

    tfl_results m = { 0 }; /* a mask placed nowhere: spread over the frame */
    set_class_mask(&m, 3, 2, NAN, 0, -1, 0, all_15);
    img = run("tfliteoverlay", fmts[f], frame_with(fmts[f], &m, labels));
    assert_blend(img, 5, 5, voc15, 0.5, 1);
    assert_blend(img, W - 5, H - 5, voc15, 0.5, 1);
    g_free(img);
    g_ptr_array_unref(labels);
  }
}
GST_END_TEST;

/* The portable kernels in the element (TFL_OVERLAY_ISA=c) draw what the fastest set draws. */
GST_START_TEST(test_isa_override)
{
  for (guint f = 0; f < G_N_ELEMENTS(formats); f++) {
    Image *img[2];
    for (gint k = 0; k < 2; k++) {
      if (k == 0) g_setenv("TFL_OVERLAY_ISA", "c", TRUE);
      else g_unsetenv("TFL_OVERLAY_ISA");
      tfl_results r = { 0 };
      set_class_mask(&r, 4, 3, 3.5f, 2.5f, 150, 110, left_half_15);
      add_box(&r, 40, 50, 60, 50, 3, 0.9f);
      GPtrArray *labels = labels4();
      img[k] = run("tfliteoverlay line-width=3.3", formats[f], frame_with(formats[f], &r, labels));
      g_ptr_array_unref(labels);
    }
    fail_unless(memcmp(img[0], img[1], sizeof(Image)) == 0, "%s: portable and vector kernels differ", formats[f]);
    check_label(img[0]);
    g_free(img[0]);
    g_free(img[1]);
  }
}
GST_END_TEST;

/* ---- GL path ---- */

static gboolean have_gl(void)
{
  GstElement *e = gst_element_factory_make("glupload", NULL);
  if (!e) return FALSE;
  gst_object_unref(e);
  return TRUE;
}

/* Differences between two RGB images: the share of pixels differing by more than `big` in
 * some channel, and the mean absolute difference. */
static void diff(const Image *a, const Image *b, gint big, gdouble *share, gdouble *mean)
{
  gint64 sum = 0;
  gint n = 0;
  for (gint i = 0; i < W * H; i++) {
    gint m = 0;
    for (gint c = 0; c < 3; c++) {
      gint d = abs(a->rgb[3 * i + c] - b->rgb[3 * i + c]);
      sum += d;
      m = MAX(m, d);
    }
    n += m > big;
  }
  *share = (gdouble)n / (W * H);
  *mean = (gdouble)sum / (W * H * 3);
}

GST_START_TEST(test_gl_box_mask_label)
{
  if (!have_gl()) return;
  tfl_results r = { 0 };
  add_box(&r, 40, 30, 60, 50, 3, 0.9f);
  Image *img = run(GL_BIN(PLAIN " line-width=4"), "RGBA", frame_with("RGBA", &r, NULL));
  check_box(img, 1);
  g_free(img);

  for (gint k = 0; k < (gint)G_N_ELEMENTS(gl_paths); k++) {
    use_gl_path(k);
    tfl_results m = { 0 };
    set_class_mask(&m, 5, 7, W / 2, H / 2, W / 2, H / 2, all_15);
    img = run(GL_BIN("tfliteoverlay mask-alpha=0.75"), "RGBA", frame_with("RGBA", &m, NULL));
    assert_gl_path(k);
    for (gint y = 0; y < H; y++)
      for (gint x = 0; x < W; x++) {
        if (x >= W / 2 && y >= H / 2) assert_blend(img, x, y, voc15, 0.75, 1);
        else assert_bg(img, x, y);
      }
    fail_unless_equals_int(img->alpha_byte_min, 255);
    g_free(img);
  }
  /* a bad value: no GL renderer, so the CPU draws (the element warns, naming the value) */
  g_setenv("TFL_OVERLAY_GL_PATH", "vertex", TRUE);
  tfl_results m = { 0 };
  set_class_mask(&m, 5, 7, W / 2, H / 2, W / 2, H / 2, all_15);
  img = run(GL_BIN("tfliteoverlay mask-alpha=0.75"), "RGBA", frame_with("RGBA", &m, NULL));
  fail_unless(strcmp(last_mask_path, "cpu") == 0, "TFL_OVERLAY_GL_PATH=vertex: masks by '%s'", last_mask_path);
  assert_blend(img, W - 1, H - 1, voc15, 0.75, 1);
  assert_bg(img, 0, 0);
  g_free(img);
  g_unsetenv("TFL_OVERLAY_GL_PATH");

  tfl_results l = { 0 };
  add_box(&l, 40, 50, 60, 50, 3, 0.9f);
  GPtrArray *labels = labels4();
  img = run(GL_BIN("tfliteoverlay line-width=4"), "RGBA", frame_with("RGBA", &l, labels));
  g_ptr_array_unref(labels);
  check_label(img);
  g_free(img);

  img = run(GL_BIN("tfliteoverlay"), "RGBA", plain_frame("RGBA"));
  assert_untouched(img);
  g_free(img);
}
GST_END_TEST;

/* ---- a mask handed over as a GL texture (what tflitefilter's GL path does) ---- */

typedef struct {
  const GstTfliteMask *mask;
  GstBuffer *gl;
} TexJob;

static void fill_mask_texture(GstGLContext *ctx, gpointer data)
{
  TexJob *job = data;
  const GstGLFuncs *gl = ctx->gl_vtable;
  GstGLMemory *mem = (GstGLMemory *)gst_buffer_peek_memory(job->gl, 0);
  gl->BindTexture(GL_TEXTURE_2D, gst_gl_memory_get_texture_id(mem));
  gl->PixelStorei(GL_UNPACK_ALIGNMENT, 1);
  gl->TexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, job->mask->width, job->mask->height, GL_RED, GL_UNSIGNED_BYTE,
                    job->mask->classes);
  gl->PixelStorei(GL_UNPACK_ALIGNMENT, 4);
  gl->BindTexture(GL_TEXTURE_2D, 0);
  GstGLSyncMeta *sync = gst_buffer_get_gl_sync_meta(job->gl);
  if (sync) gst_gl_sync_meta_set_sync_point(sync, ctx);
}

/* Replaces the meta's CPU class mask by a GRAY8 GL texture from a pool on the frame's GL
 * context, with no CPU pixels left: what tflitefilter's GL path hands over. */
static GstPadProbeReturn mask_to_texture(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER(info);
  GstTfliteMeta *meta = gst_buffer_get_tflite_meta(buf);
  GstMemory *mem = gst_buffer_peek_memory(buf, 0);
  fail_unless(meta && gst_is_gl_memory(mem));
  GstTfliteObject *o = &g_array_index(meta->objects, GstTfliteObject, 0);
  fail_unless(o->kind == GST_TFLITE_OBJECT_SEGMENTATION && o->mask);
  GstGLContext *ctx = ((GstGLBaseMemory *)mem)->context;
  GstVideoInfo vi;
  gst_video_info_set_format(&vi, GST_VIDEO_FORMAT_GRAY8, (guint)o->mask->width, (guint)o->mask->height);
  GstCaps *caps = gst_video_info_to_caps(&vi);
  gst_caps_set_features(caps, 0, gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_GL_MEMORY, NULL));
  GstBufferPool *pool = gst_gl_buffer_pool_new(ctx);
  GstStructure *config = gst_buffer_pool_get_config(pool);
  gst_buffer_pool_config_set_params(config, caps, (guint)vi.size, 0, 0);
  gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_GL_SYNC_META);
  fail_unless(gst_buffer_pool_set_config(pool, config) && gst_buffer_pool_set_active(pool, TRUE));
  gst_caps_unref(caps);
  TexJob job = { o->mask, NULL };
  fail_unless(gst_buffer_pool_acquire_buffer(pool, &job.gl, NULL) == GST_FLOW_OK);
  gst_gl_context_thread_add(ctx, fill_mask_texture, &job);
  tfl_mask m = { o->mask->kind, o->mask->width, o->mask->height, o->mask->n_classes, NULL, NULL, 0, 0, 0, 0 };
  gst_tflite_mask_unref(o->mask);
  o->mask = gst_tflite_mask_new(&m, job.gl);
  fail_unless(gst_tflite_mask_texture(o->mask, NULL) != 0);
  gst_buffer_unref(job.gl);
  gst_buffer_pool_set_active(pool, FALSE);
  gst_object_unref(pool); /* the mask's buffer keeps it alive */
  return GST_PAD_PROBE_OK;
}

GST_START_TEST(test_gl_mask_texture)
{
  if (!have_gl()) return;
  for (gint k = 0; k < (gint)G_N_ELEMENTS(gl_paths); k++) {
  use_gl_path(k);
  tfl_results m = { 0 };
  set_class_mask(&m, 4, 3, 0, 0, W, H, left_half_15);
  GstHarness *h = gst_harness_new_parse(GL_BIN("tfliteoverlay name=ov mask-alpha=0.5"));
  GstElement *ov = gst_bin_get_by_name(GST_BIN(h->element), "ov");
  GstPad *sink = gst_element_get_static_pad(ov, "sink");
  gst_pad_add_probe(sink, GST_PAD_PROBE_TYPE_BUFFER, mask_to_texture, NULL, NULL);
  gst_object_unref(sink);
  gst_object_unref(ov);
  gchar *caps = caps_str("RGBA");
  gst_harness_set_src_caps_str(h, caps);
  g_free(caps);
  fail_unless_equals_int(gst_harness_push(h, frame_with("RGBA", &m, NULL)), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull(h);
  Image *img = image_of(out, "RGBA", DEFAULT_COLORIMETRY);
  gst_buffer_unref(out);
  record_mask_path(h);
  gst_harness_teardown(h);
  assert_gl_path(k);
  for (gint y = 0; y < H; y += 7) {
    for (gint x = 0; x < W / 2; x += 3) assert_blend(img, x, y, voc15, 0.5, 1);
    for (gint x = W / 2; x < W; x += 3) assert_bg(img, x, y);
  }
  g_free(img);
  }
  g_unsetenv("TFL_OVERLAY_GL_PATH");
}
GST_END_TEST;

static guint8 stripes(gint x, gint y)
{
  return (guint8)((x + 2 * y) % 4 == 0 ? 0 : (x + y) % 21);
}

/* Everything at once: a class mask of odd size on an offset rectangle, boxes, keypoints,
 * a skeleton, labels. */
static void busy_results(tfl_results *r)
{
  memset(r, 0, sizeof *r);
  set_class_mask(r, 13, 9, 5.5f, 3.25f, 140, 100, stripes);
  add_box(r, 20.3f, 40.7f, 70.2f, 50.1f, 1, 0.75f);
  add_box(r, 90, 20, 50, 60, 2, 0.5f);
  r->boxes[1].n_keypoints = 2;
  r->boxes[1].keypoints = calloc(2, sizeof(tfl_keypoint));
  r->boxes[1].keypoints[0] = (tfl_keypoint){ 100, 30, 0.9f };
  r->boxes[1].keypoints[1] = (tfl_keypoint){ 130, 70, -1 };
  r->poses = calloc(1, sizeof(tfl_pose));
  r->n_poses = 1;
  static const int32_t edges[] = { 0, 1, 1, 2 };
  r->poses[0].n_keypoints = 3;
  r->poses[0].keypoints = calloc(3, sizeof(tfl_keypoint));
  r->poses[0].keypoints[0] = (tfl_keypoint){ 30, 100, 0.8f };
  r->poses[0].keypoints[1] = (tfl_keypoint){ 60, 110, 0.8f };
  r->poses[0].keypoints[2] = (tfl_keypoint){ 75, 70, 0.8f };
  r->poses[0].edges = edges;
  r->poses[0].n_edges = 2;
  r->poses[0].class_id = -1;
}

/* ---- a frame texture of immutable storage: GLES's compute pass needs one ---- */

typedef void(GSTGLAPI *TexStorage2DFn)(GLenum target, GLsizei levels, GLenum format, GLsizei w, GLsizei h);

/* An RGBA8 texture of immutable storage (glTexStorage2D), W x H of the background colour. */
static void make_immutable(GstGLContext *ctx, gpointer data)
{
  guint *tex = data;
  const GstGLFuncs *gl = ctx->gl_vtable;
  TexStorage2DFn storage = gst_gl_context_get_proc_address(ctx, "glTexStorage2D");
  fail_unless(storage != NULL);
  guint8 *px = g_malloc(W * H * 4);
  for (gint i = 0; i < W * H; i++) px[4 * i] = BG_R, px[4 * i + 1] = BG_G, px[4 * i + 2] = BG_B, px[4 * i + 3] = 255;
  gl->GenTextures(1, tex);
  gl->BindTexture(GL_TEXTURE_2D, *tex);
  storage(GL_TEXTURE_2D, 1, GL_RGBA8, W, H);
  gl->TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  gl->TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  gl->TexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, px);
  GLint immutable = 0;
  gl->GetTexParameteriv(GL_TEXTURE_2D, 0x912F /* GL_TEXTURE_IMMUTABLE_FORMAT */, &immutable);
  gl->BindTexture(GL_TEXTURE_2D, 0);
  g_free(px);
  fail_unless(immutable && gl->GetError() == GL_NO_ERROR);
}

/* Puts the frame (the plain background) in an immutable texture of the same context,
 * wrapped as GstGLMemory (the texture outlives the test: wrapped memory does not free it). */
static GstPadProbeReturn frame_to_immutable(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  GstBuffer *buf = gst_buffer_make_writable(GST_PAD_PROBE_INFO_BUFFER(info));
  GST_PAD_PROBE_INFO_DATA(info) = buf;
  GstMemory *mem = gst_buffer_peek_memory(buf, 0);
  fail_unless(gst_is_gl_memory(mem));
  GstGLContext *ctx = ((GstGLBaseMemory *)mem)->context;
  guint tex = 0;
  gst_gl_context_thread_add(ctx, make_immutable, &tex);
  GstVideoInfo vi = info_of("RGBA", DEFAULT_COLORIMETRY);
  GstGLVideoAllocationParams *params = gst_gl_video_allocation_params_new_wrapped_texture(
    ctx, NULL, &vi, 0, NULL, GST_GL_TEXTURE_TARGET_2D, GST_GL_RGBA, tex, NULL, NULL);
  GstGLBaseMemoryAllocator *alloc = GST_GL_BASE_MEMORY_ALLOCATOR(gst_allocator_find(GST_GL_MEMORY_ALLOCATOR_NAME));
  GstMemory *wrapped = (GstMemory *)gst_gl_base_memory_alloc(alloc, (GstGLAllocationParams *)params);
  fail_unless(wrapped != NULL);
  gst_gl_allocation_params_free((GstGLAllocationParams *)params);
  gst_object_unref(alloc);
  gst_buffer_replace_all_memory(buf, wrapped);
  return GST_PAD_PROBE_OK;
}

/* r drawn on RGBA (through launch, an overlay with properties) by the software renderer and
 * by each GL mask path: each GL output against the software's within the tolerances below
 * (both sample the mask, cover shapes and place glyphs with the same formulas), the two GL
 * outputs against each other within one level (the same blend, rounded by the blender or by
 * the image store), the frame's alpha kept. Takes r's contents. */
static void check_gl_matches_soft(const gchar *what, const gchar *launch, tfl_results *r, GPtrArray *labels,
                                  gdouble max_mean, GstPadProbeCallback probe)
{
  tfl_results copy;
  Image *gpu[G_N_ELEMENTS(gl_paths)];
  for (gint k = 0; k < (gint)G_N_ELEMENTS(gl_paths); k++) {
    use_gl_path(k);
    tfl_results_copy(&copy, r);
    gchar *gl = g_strdup_printf(GL_BIN("%s"), launch);
    overlay_probe = probe;
    gpu[k] = run(gl, "RGBA", frame_with("RGBA", &copy, labels));
    overlay_probe = NULL;
    g_free(gl);
    if (probe == frame_to_immutable) /* the compute pass binds these under GLES too */
      fail_unless(strcmp(last_mask_path, gl_paths[k]) == 0, "%s: masks composited by '%s', expected '%s'", what,
                  last_mask_path, gl_paths[k]);
    else
      assert_gl_path(k);
    fail_unless_equals_int(gpu[k]->alpha_byte_min, 255);
  }
  g_unsetenv("TFL_OVERLAY_GL_PATH");
  Image *cpu = run(launch, "RGBA", frame_with("RGBA", r, labels));
  fail_unless(strcmp(last_mask_path, "cpu") == 0, "%s: the software renderer drew no mask", what);
  gint drawn = 0;
  for (gint i = 0; i < W * H; i++) drawn += !is_bg(cpu, i % W, i / W);
  fail_unless(drawn > W * H / 20, "%s: only %d pixels drawn", what, drawn);
  for (gint k = 0; k < (gint)G_N_ELEMENTS(gl_paths); k++) {
    gdouble share, mean, share2, mean2;
    diff(cpu, gpu[k], 24, &share, &mean);
    diff(cpu, gpu[k], 2, &share2, &mean2);
    GST_INFO("%s, GL %s vs software: %.2f%% pixels differ by > 24, %.2f%% by > 2, mean abs difference %.3f",
             what, gl_paths[k], 100 * share, 100 * share2, mean);
    fail_unless(share == 0, "%s, %s: %.2f%% of the pixels differ by more than 24", what, gl_paths[k], 100 * share);
    fail_unless(share2 < 0.005, "%s, %s: %.2f%% of the pixels differ by more than 2", what, gl_paths[k], 100 * share2);
    fail_unless(mean < max_mean, "%s, %s: mean absolute difference %.3f", what, gl_paths[k], mean);
  }
  gdouble share, mean;
  diff(gpu[0], gpu[1], 1, &share, &mean);
  GST_INFO("%s, GL fragment vs compute: %.3f%% pixels differ by > 1, mean abs difference %.4f", what, 100 * share, mean);
  fail_unless(share == 0, "%s: %.3f%% of the pixels differ by more than 1 between the GL paths", what, 100 * share);
  g_free(cpu);
  for (gint k = 0; k < (gint)G_N_ELEMENTS(gl_paths); k++) g_free(gpu[k]);
}

/* The GL paths and the software path on RGBA agree on a class mask with everything else. */
GST_START_TEST(test_gl_matches_soft)
{
  if (!have_gl()) return;
  GPtrArray *labels = labels4();
  tfl_results r;
  busy_results(&r);
  check_gl_matches_soft("class mask, boxes, keypoints, labels", "tfliteoverlay", &r, labels, 0.1, NULL);
  g_ptr_array_unref(labels);
}
GST_END_TEST;

/* A probability mask of 11 x 7 texels, 0 on a diagonal band, else rising from 0.05 to 1,
 * on an offset rectangle reaching past the frame's right edge. */
static void prob_gradient_results(tfl_results *r)
{
  memset(r, 0, sizeof *r);
  const gint mw = 11, mh = 7;
  r->mask.kind = TFL_MASK_PROB;
  r->mask.width = mw;
  r->mask.height = mh;
  r->mask.n_classes = 1;
  r->mask.prob = malloc(sizeof(gfloat) * mw * mh);
  for (gint y = 0; y < mh; y++)
    for (gint x = 0; x < mw; x++)
      r->mask.prob[y * mw + x] = (x - y == 2) ? 0.0f : 0.05f + 0.95f * (gfloat)(x + y) / (mw + mh - 2);
  r->mask.frame_x = 12.5f;
  r->mask.frame_y = 7.25f;
  r->mask.frame_w = 170;
  r->mask.frame_h = 95.5f;
}

/* YOLO's task results plus a fourth box (class 2) whose own mask, a probability gradient,
 * overlaps box 0's mask and reaches past its own box: clipped, and blended over box 0's. */
static void two_instance_masks(tfl_results *r)
{
  memset(r, 0, sizeof *r);
  yolo_task_results(r);
  add_box(r, 60, 50, 50, 40, 2, 0.85f);
  tfl_box_mask *m = &r->boxes[r->n_boxes - 1].mask;
  m->width = 5, m->height = 3;
  m->prob = malloc(15 * sizeof(float));
  for (int i = 0; i < 15; i++) m->prob[i] = 0.2f + 0.05f * (float)i;
  m->frame_x = 52.5f, m->frame_y = 41, m->frame_w = 66, m->frame_h = 57.5f;
}

/* Probability masks, and boxes' own masks (clipped to the box, overlapping), at two
 * mask-alpha values: the GL paths and the software path agree. */
GST_START_TEST(test_gl_prob_instances_match_soft)
{
  if (!have_gl()) return;
  tfl_results r;
  prob_gradient_results(&r);
  /* a looser mean here: most drawn pixels are fractional blends, where the fragment pass
   * (its blender takes the weight in 8 bits) is one level off the software's rounding on
   * about one in seven (measured 0.112 on llvmpipe; the compute pass: 0.001) */
  check_gl_matches_soft("probability mask, alpha 0.6", "tfliteoverlay mask-alpha=0.6", &r, NULL, 0.25, NULL);
  two_instance_masks(&r);
  check_gl_matches_soft("instance masks, alpha 0.9", PLAIN " mask-alpha=0.9 line-width=2", &r, NULL, 0.25, NULL);
}
GST_END_TEST;

/* Frames in immutable textures: the compute pass runs under GLES as well (its frame read
 * through a sampler, GLES having no read-write rgba8 image), and agrees with the software
 * and the fragment pass, overlapping instance masks included. */
GST_START_TEST(test_gl_immutable_frame)
{
  if (!have_gl()) return;
  tfl_results r;
  busy_results(&r);
  GPtrArray *labels = labels4();
  check_gl_matches_soft("immutable frame, class mask", "tfliteoverlay", &r, labels, 0.1, frame_to_immutable);
  g_ptr_array_unref(labels);
  two_instance_masks(&r);
  check_gl_matches_soft("immutable frame, instance masks", PLAIN " mask-alpha=0.9 line-width=2", &r, NULL, 0.25,
                        frame_to_immutable);
}
GST_END_TEST;

/* I420 and NV12 drawn in place against the GL path's RGBA taken to the same format by
 * videoconvert: luma within the conversions' rounding everywhere; chroma, drawn here at
 * half resolution and there subsampled after drawing, alike but where a 2x2 block
 * straddles a colour edge (this class mask has one every 11 pixels). */
GST_START_TEST(test_gl_matches_soft_yuv)
{
  if (!have_gl()) return;
  for (gint f = N_RGB_FORMATS; f < (gint)G_N_ELEMENTS(formats); f++) {
    GPtrArray *labels = labels4();
    tfl_results r, copy;
    busy_results(&r);
    tfl_results_copy(&copy, &r);
    gchar *gl = g_strdup_printf(GL_BIN("tfliteoverlay") " ! videoconvert ! capsfilter caps=video/x-raw,format=%s,"
                                "colorimetry=" DEFAULT_COLORIMETRY, formats[f]);
    Image *cpu = run("tfliteoverlay", formats[f], frame_with(formats[f], &r, labels));
    Image *gpu = run_full(gl, "RGBA", DEFAULT_COLORIMETRY, formats[f], frame_with("RGBA", &copy, labels));
    g_free(gl);
    g_ptr_array_unref(labels);
    gint worst_y = 0, big = 0, drawn = 0;
    gint64 sum = 0;
    for (gint i = 0; i < W * H; i++) worst_y = MAX(worst_y, abs(cpu->y[i] - gpu->y[i]));
    for (gint i = 0; i < W * H / 4; i++) {
      gint d = MAX(abs(cpu->u[i] - gpu->u[i]), abs(cpu->v[i] - gpu->v[i]));
      big += d > 24;
      sum += d;
    }
    for (gint i = 0; i < W * H; i++) drawn += !is_bg(cpu, i % W, i / W);
    gdouble share = (gdouble)big / (W * H / 4), mean = (gdouble)sum / (W * H / 4);
    GST_INFO("%s vs GL: luma worst %d; chroma %.2f%% samples > 24 apart, mean %.3f", formats[f], worst_y,
             100 * share, mean);
    fail_unless(drawn > W * H / 2, "%s: only %d pixels drawn", formats[f], drawn);
    fail_unless(worst_y <= 2, "%s: luma %d levels from GL's", formats[f], worst_y);
    fail_unless(share < 0.05, "%s: %.2f%% of the chroma samples differ by more than 24", formats[f], 100 * share);
    fail_unless(mean < 3.0, "%s: chroma mean absolute difference %.3f", formats[f], mean);
    g_free(cpu);
    g_free(gpu);
  }
}
GST_END_TEST;

static Suite *tfliteoverlay_suite(void)
{
  Suite *s = suite_create("tfliteoverlay");
  TCase *cpu = tcase_create("sysmem");
  /* eleven formats, each through a fresh harness (about 0.6 s each on an idle machine) */
  tcase_set_timeout(cpu, 120);
  tcase_add_test(cpu, test_no_meta_untouched);
  tcase_add_test(cpu, test_empty_results_untouched);
  tcase_add_test(cpu, test_box_edge);
  tcase_add_test(cpu, test_mask_blended);
  tcase_add_test(cpu, test_mask_other_size);
  tcase_add_test(cpu, test_prob_mask);
  tcase_add_test(cpu, test_yolo_tasks);
  tcase_add_test(cpu, test_label_text);
  tcase_add_test(cpu, test_classes_filter);
  tcase_add_test(cpu, test_bad_metadata);
  tcase_add_test(cpu, test_chroma_sites);
  tcase_add_test(cpu, test_colorimetry);
  tcase_add_test(cpu, test_isa_override);
  suite_add_tcase(s, cpu);
  TCase *gl = tcase_create("gl");
  tcase_set_timeout(gl, 120);
  tcase_add_test(gl, test_gl_box_mask_label);
  tcase_add_test(gl, test_gl_yolo_tasks);
  tcase_add_test(gl, test_gl_matches_soft);
  tcase_add_test(gl, test_gl_prob_instances_match_soft);
  tcase_add_test(gl, test_gl_immutable_frame);
  tcase_add_test(gl, test_gl_matches_soft_yuv);
  tcase_add_test(gl, test_gl_mask_texture);
  suite_add_tcase(s, gl);
  return s;
}

GST_CHECK_MAIN(tfliteoverlay);
