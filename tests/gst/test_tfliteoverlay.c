/* test_tfliteoverlay.c - tfliteoverlay drawn results, checked by pixels.
 *
 * A plain-colour frame gets a GstTfliteMeta written by hand (boxes, masks, labels), goes
 * through tfliteoverlay (system memory: cairo; GL: glupload ! tfliteoverlay ! gldownload),
 * and the pixels are checked where the metadata says something is drawn and where it says
 * nothing is. The expected values are worked out by hand from the palette and the blend
 * weight. GL and cairo outputs of the same input are compared within stated tolerances.
 * Needs GST_PLUGIN_PATH at the plugin and, for GL, GST_GL_WINDOW=egl-device.
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/gl/gl.h>
#include <gst/gl/gstglfuncs.h>
#include <gst/video/video.h>
#include <stdlib.h>
#include <string.h>

#include "gst/tflitefilter/gsttflitemeta.h"

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

static const gchar *formats[] = { "RGBA", "BGRx", "RGBx", "BGRA" };

/* ---- frames ---- */

typedef struct {
  gint off[3]; /* byte offsets of R, G, B */
} Layout;

static Layout layout_of(const gchar *format)
{
  const GstVideoFormatInfo *fi = gst_video_format_get_info(gst_video_format_from_string(format));
  Layout l = { { GST_VIDEO_FORMAT_INFO_POFFSET(fi, 0), GST_VIDEO_FORMAT_INFO_POFFSET(fi, 1),
                 GST_VIDEO_FORMAT_INFO_POFFSET(fi, 2) } };
  return l;
}

static GstBuffer *plain_frame(const gchar *format)
{
  Layout l = layout_of(format);
  GstBuffer *buf = gst_buffer_new_and_alloc(W * H * 4);
  GstMapInfo map;
  gst_buffer_map(buf, &map, GST_MAP_WRITE);
  for (gint i = 0; i < W * H; i++) {
    guint8 *p = map.data + 4 * i;
    p[0] = p[1] = p[2] = p[3] = 255;
    p[l.off[0]] = BG_R;
    p[l.off[1]] = BG_G;
    p[l.off[2]] = BG_B;
  }
  gst_buffer_unmap(buf, &map);
  GST_BUFFER_PTS(buf) = 0;
  GST_BUFFER_DURATION(buf) = GST_SECOND / 30;
  return buf;
}

/* An output frame's pixels as RGB, row-major, W*H*3 bytes (caller frees). */
static guint8 *rgb_of(GstBuffer *buf, const gchar *format)
{
  Layout l = layout_of(format);
  guint8 *rgb = g_malloc(W * H * 3);
  GstMapInfo map;
  fail_unless(gst_buffer_map(buf, &map, GST_MAP_READ));
  fail_unless_equals_int((gint)map.size, W * H * 4);
  for (gint i = 0; i < W * H; i++)
    for (gint c = 0; c < 3; c++) rgb[3 * i + c] = map.data[4 * i + l.off[c]];
  gst_buffer_unmap(buf, &map);
  return rgb;
}

static const guint8 *px(const guint8 *rgb, gint x, gint y)
{
  return rgb + 3 * (y * W + x);
}

static gboolean is_bg(const guint8 *p)
{
  return p[0] == BG_R && p[1] == BG_G && p[2] == BG_B;
}

static void assert_rgb(const guint8 *rgb, gint x, gint y, const guint8 want[3], gint tol)
{
  const guint8 *p = px(rgb, x, y);
  for (gint c = 0; c < 3; c++)
    fail_unless(abs(p[c] - want[c]) <= tol, "pixel (%d,%d) is (%d,%d,%d), expected (%d,%d,%d) +-%d",
                x, y, p[0], p[1], p[2], want[0], want[1], want[2], tol);
}

static void assert_bg(const guint8 *rgb, gint x, gint y)
{
  const guint8 bg[3] = { BG_R, BG_G, BG_B };
  assert_rgb(rgb, x, y, bg, 0);
}

/* The background blended with colour at weight a, as a GL or cairo blend rounds it. */
static void blended(const guint8 color[3], gdouble a, guint8 out[3])
{
  const guint8 bg[3] = { BG_R, BG_G, BG_B };
  for (gint c = 0; c < 3; c++) out[c] = (guint8)(bg[c] * (1 - a) + color[c] * a + 0.5);
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

static GstBuffer *frame_with(const gchar *format, tfl_results *r, GPtrArray *labels)
{
  GstBuffer *buf = plain_frame(format);
  GstTfliteMeta *meta = gst_buffer_add_tflite_meta(buf, W, H);
  fail_unless(meta != NULL);
  const gfloat frame[4] = { 0, 0, W, H };
  gst_tflite_meta_add_results(meta, r, g_quark_from_static_string("test"), 0, frame, labels, NULL);
  return buf;
}

/* ---- running the element ---- */

static gchar *caps_str(const gchar *format)
{
  return g_strdup_printf("video/x-raw,format=%s,width=%d,height=%d,framerate=30/1", format, W, H);
}

/* Pushes buf through "launch" (tfliteoverlay, with properties, or a GL bin); takes buf,
 * returns the output frame as RGB. */
static guint8 *run(const gchar *launch, const gchar *format, GstBuffer *buf)
{
  GstHarness *h = gst_harness_new_parse(launch);
  gchar *caps = caps_str(format);
  gst_harness_set_src_caps_str(h, caps);
  g_free(caps);
  fail_unless_equals_int(gst_harness_push(h, buf), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull(h);
  fail_unless(out != NULL);
  guint8 *rgb = rgb_of(out, format);
  gst_buffer_unref(out);
  gst_harness_teardown(h);
  return rgb;
}

#define PLAIN "tfliteoverlay show-labels=false show-scores=false"
#define GL_BIN(x) "glupload ! " x " ! gldownload"

/* ---- system memory (cairo) ---- */

GST_START_TEST(test_no_meta_untouched)
{
  for (guint f = 0; f < G_N_ELEMENTS(formats); f++) {
    guint8 *rgb = run("tfliteoverlay", formats[f], plain_frame(formats[f]));
    for (gint y = 0; y < H; y++)
      for (gint x = 0; x < W; x++) assert_bg(rgb, x, y);
    g_free(rgb);
  }
}
GST_END_TEST;

GST_START_TEST(test_empty_results_untouched)
{
  for (guint f = 0; f < G_N_ELEMENTS(formats); f++) {
    tfl_results r = { 0 };
    guint8 *rgb = run("tfliteoverlay", formats[f], frame_with(formats[f], &r, NULL));
    for (gint y = 0; y < H; y++)
      for (gint x = 0; x < W; x++) assert_bg(rgb, x, y);
    g_free(rgb);
  }
}
GST_END_TEST;

/* Box (40,30)-(100,80), line width 4: its outline covers x in [38,42] (left edge) etc.
 * Pixel centres 1.5 px or more inside the band are fully covered: exactly the colour. */
static void check_box(const guint8 *rgb, gint tol)
{
  assert_rgb(rgb, 40, 55, voc3, tol);   /* left edge */
  assert_rgb(rgb, 100, 55, voc3, tol);  /* right edge */
  assert_rgb(rgb, 70, 30, voc3, tol);   /* top edge */
  assert_rgb(rgb, 70, 80, voc3, tol);   /* bottom edge */
  assert_rgb(rgb, 39, 29, voc3, tol);   /* corner, covered by the square cap */
  assert_bg(rgb, 70, 55);               /* inside */
  assert_bg(rgb, 44, 55);               /* just inside the left edge band */
  assert_bg(rgb, 36, 55);               /* just outside */
  assert_bg(rgb, 10, 100);              /* far away */
  gint changed = 0;
  for (gint y = 0; y < H; y++)
    for (gint x = 0; x < W; x++) changed += !is_bg(px(rgb, x, y));
  /* outline area: (64 x 54) - (56 x 46) = 880 px, plus antialiased fringes */
  fail_unless(changed >= 860 && changed <= 1200, "%d pixels changed", changed);
}

GST_START_TEST(test_box_edge)
{
  for (guint f = 0; f < G_N_ELEMENTS(formats); f++) {
    tfl_results r = { 0 };
    add_box(&r, 40, 30, 60, 50, 3, 0.9f);
    guint8 *rgb = run(PLAIN " line-width=4", formats[f], frame_with(formats[f], &r, NULL));
    check_box(rgb, 0);
    g_free(rgb);
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
    guint8 *rgb = run("tfliteoverlay mask-alpha=0.5", formats[f], frame_with(formats[f], &r, NULL));
    guint8 want[3];
    blended(voc15, 0.5, want);
    for (gint y = 0; y < H; y += 7) {
      for (gint x = 0; x < W / 2; x += 3) assert_rgb(rgb, x, y, want, 1);
      for (gint x = W / 2; x < W; x += 3) assert_bg(rgb, x, y);
    }
    g_free(rgb);
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
  tfl_results r = { 0 };
  set_class_mask(&r, 5, 7, W / 2, H / 2, W / 2, H / 2, all_15);
  guint8 *rgb = run("tfliteoverlay mask-alpha=0.75", "RGBA", frame_with("RGBA", &r, NULL));
  guint8 want[3];
  blended(voc15, 0.75, want);
  for (gint y = 0; y < H; y++)
    for (gint x = 0; x < W; x++) {
      if (x >= W / 2 && y >= H / 2) assert_rgb(rgb, x, y, want, 1);
      else assert_bg(rgb, x, y);
    }
  g_free(rgb);
}
GST_END_TEST;

GST_START_TEST(test_prob_mask)
{
  tfl_results r = { 0 };
  set_prob_mask(&r, 8, 6, 1.0f);
  guint8 *rgb = run("tfliteoverlay mask-alpha=0.5", "BGRx", frame_with("BGRx", &r, NULL));
  guint8 want[3];
  blended(voc1, 0.5, want);
  for (gint y = 0; y < H; y += 5)
    for (gint x = 0; x < W; x += 5) assert_rgb(rgb, x, y, want, 1);
  g_free(rgb);

  tfl_results z = { 0 };
  set_prob_mask(&z, 8, 6, 0.0f);
  rgb = run("tfliteoverlay mask-alpha=0.5", "BGRx", frame_with("BGRx", &z, NULL));
  for (gint y = 0; y < H; y++)
    for (gint x = 0; x < W; x++) assert_bg(rgb, x, y);
  g_free(rgb);
}
GST_END_TEST;

/* The label "person 0.90" sits on a filled rectangle above the box at (40,50): inside that
 * rectangle some pixels are the box colour (background) and some are text. */
static void check_label(const guint8 *rgb)
{
  gint bgcol = 0, text = 0;
  for (gint y = 0; y < 48; y++)
    for (gint x = 38; x < 120; x++) {
      const guint8 *p = px(rgb, x, y);
      if (p[0] == voc3[0] && p[1] == voc3[1] && p[2] == voc3[2]) bgcol++;
      else if (!is_bg(p) && p[1] > 160) text++; /* white text on olive */
    }
  fail_unless(bgcol > 200, "label background: %d pixels", bgcol);
  fail_unless(text > 30, "label text: %d pixels", text);
  assert_bg(rgb, 150, 10); /* right of the label */
}

GST_START_TEST(test_label_text)
{
  for (guint f = 0; f < G_N_ELEMENTS(formats); f++) {
    tfl_results r = { 0 };
    add_box(&r, 40, 50, 60, 50, 3, 0.9f);
    GPtrArray *labels = labels4();
    guint8 *rgb = run("tfliteoverlay line-width=4", formats[f], frame_with(formats[f], &r, labels));
    g_ptr_array_unref(labels);
    check_label(rgb);
    g_free(rgb);
  }
}
GST_END_TEST;

/* Class filter: only "cat" (class 1) is drawn. */
GST_START_TEST(test_classes_filter)
{
  tfl_results r = { 0 };
  add_box(&r, 40, 30, 60, 50, 3, 0.9f); /* person: filtered out */
  GPtrArray *labels = labels4();
  guint8 *rgb = run(PLAIN " classes=cat,7", "RGBA", frame_with("RGBA", &r, labels));
  for (gint y = 0; y < H; y++)
    for (gint x = 0; x < W; x++) assert_bg(rgb, x, y);
  g_free(rgb);
  tfl_results r2 = { 0 };
  add_box(&r2, 40, 30, 60, 50, 3, 0.9f);
  rgb = run(PLAIN " line-width=4 classes=\" Person \"", "RGBA", frame_with("RGBA", &r2, labels));
  check_box(rgb, 0);
  g_free(rgb);
  g_ptr_array_unref(labels);
}
GST_END_TEST;

/* Nonsense results: nothing crashes, what is sound is still drawn. */
GST_START_TEST(test_bad_metadata)
{
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
  guint8 *rgb = run("tfliteoverlay line-width=4", "RGBA", frame_with("RGBA", &r, labels));
  assert_rgb(rgb, 40, 55, voc3, 0); /* the sound box */
  g_free(rgb);

  tfl_results m = { 0 }; /* a mask placed nowhere: spread over the frame */
  set_class_mask(&m, 3, 2, NAN, 0, -1, 0, all_15);
  rgb = run("tfliteoverlay", "BGRA", frame_with("BGRA", &m, labels));
  guint8 want[3];
  blended(voc15, 0.5, want);
  assert_rgb(rgb, 5, 5, want, 1);
  assert_rgb(rgb, W - 5, H - 5, want, 1);
  g_free(rgb);
  g_ptr_array_unref(labels);
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

/* Differences between two RGB frames: the share of pixels differing by more than `big` in
 * some channel, and the mean absolute difference. */
static void diff(const guint8 *a, const guint8 *b, gint big, gdouble *share, gdouble *mean)
{
  gint64 sum = 0;
  gint n = 0;
  for (gint i = 0; i < W * H; i++) {
    gint m = 0;
    for (gint c = 0; c < 3; c++) {
      gint d = abs(a[3 * i + c] - b[3 * i + c]);
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
  guint8 *rgb = run(GL_BIN(PLAIN " line-width=4"), "RGBA", frame_with("RGBA", &r, NULL));
  check_box(rgb, 1);
  g_free(rgb);

  tfl_results m = { 0 };
  set_class_mask(&m, 5, 7, W / 2, H / 2, W / 2, H / 2, all_15);
  rgb = run(GL_BIN("tfliteoverlay mask-alpha=0.75"), "RGBA", frame_with("RGBA", &m, NULL));
  guint8 want[3];
  blended(voc15, 0.75, want);
  for (gint y = 0; y < H; y++)
    for (gint x = 0; x < W; x++) {
      if (x >= W / 2 && y >= H / 2) assert_rgb(rgb, x, y, want, 1);
      else assert_bg(rgb, x, y);
    }
  g_free(rgb);

  tfl_results l = { 0 };
  add_box(&l, 40, 50, 60, 50, 3, 0.9f);
  GPtrArray *labels = labels4();
  rgb = run(GL_BIN("tfliteoverlay line-width=4"), "RGBA", frame_with("RGBA", &l, labels));
  g_ptr_array_unref(labels);
  check_label(rgb);
  g_free(rgb);

  rgb = run(GL_BIN("tfliteoverlay"), "RGBA", plain_frame("RGBA"));
  for (gint y = 0; y < H; y++)
    for (gint x = 0; x < W; x++) assert_bg(rgb, x, y);
  g_free(rgb);
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
  guint8 *rgb = rgb_of(out, "RGBA");
  gst_buffer_unref(out);
  gst_harness_teardown(h);
  guint8 want[3];
  blended(voc15, 0.5, want);
  for (gint y = 0; y < H; y += 7) {
    for (gint x = 0; x < W / 2; x += 3) assert_rgb(rgb, x, y, want, 1);
    for (gint x = W / 2; x < W; x += 3) assert_bg(rgb, x, y);
  }
  g_free(rgb);
}
GST_END_TEST;

static guint8 stripes(gint x, gint y)
{
  return (guint8)((x + 2 * y) % 4 == 0 ? 0 : (x + y) % 21);
}

/* Everything at once, drawn by both paths: they agree within a tolerance (antialiasing and
 * glyph placement differ slightly at edges). */
GST_START_TEST(test_gl_matches_cairo)
{
  if (!have_gl()) return;
  GPtrArray *labels = labels4();
  tfl_results r = { 0 };
  set_class_mask(&r, 13, 9, 5.5f, 3.25f, 140, 100, stripes);
  add_box(&r, 20.3f, 40.7f, 70.2f, 50.1f, 1, 0.75f);
  add_box(&r, 90, 20, 50, 60, 2, 0.5f);
  r.boxes[1].n_keypoints = 2;
  r.boxes[1].keypoints = calloc(2, sizeof(tfl_keypoint));
  r.boxes[1].keypoints[0] = (tfl_keypoint){ 100, 30, 0.9f };
  r.boxes[1].keypoints[1] = (tfl_keypoint){ 130, 70, -1 };
  r.poses = calloc(1, sizeof(tfl_pose));
  r.n_poses = 1;
  static const int32_t edges[] = { 0, 1, 1, 2 };
  r.poses[0].n_keypoints = 3;
  r.poses[0].keypoints = calloc(3, sizeof(tfl_keypoint));
  r.poses[0].keypoints[0] = (tfl_keypoint){ 30, 100, 0.8f };
  r.poses[0].keypoints[1] = (tfl_keypoint){ 60, 110, 0.8f };
  r.poses[0].keypoints[2] = (tfl_keypoint){ 75, 70, 0.8f };
  r.poses[0].edges = edges;
  r.poses[0].n_edges = 2;
  r.poses[0].class_id = -1;
  tfl_results copy;
  tfl_results_copy(&copy, &r);

  guint8 *cpu = run("tfliteoverlay", "RGBA", frame_with("RGBA", &r, labels));
  guint8 *gpu = run(GL_BIN("tfliteoverlay"), "RGBA", frame_with("RGBA", &copy, labels));
  g_ptr_array_unref(labels);
  gdouble share, mean;
  diff(cpu, gpu, 24, &share, &mean);
  GST_INFO("GL vs cairo: %.2f%% pixels differ by > 24, mean abs difference %.3f", 100 * share, mean);
  fail_unless(share < 0.02, "%.2f%% of the pixels differ by more than 24", 100 * share);
  fail_unless(mean < 1.5, "mean absolute difference %.3f", mean);
  g_free(cpu);
  g_free(gpu);
}
GST_END_TEST;

static Suite *tfliteoverlay_suite(void)
{
  Suite *s = suite_create("tfliteoverlay");
  TCase *cpu = tcase_create("cairo");
  tcase_add_test(cpu, test_no_meta_untouched);
  tcase_add_test(cpu, test_empty_results_untouched);
  tcase_add_test(cpu, test_box_edge);
  tcase_add_test(cpu, test_mask_blended);
  tcase_add_test(cpu, test_mask_other_size);
  tcase_add_test(cpu, test_prob_mask);
  tcase_add_test(cpu, test_label_text);
  tcase_add_test(cpu, test_classes_filter);
  tcase_add_test(cpu, test_bad_metadata);
  suite_add_tcase(s, cpu);
  TCase *gl = tcase_create("gl");
  tcase_set_timeout(gl, 120);
  tcase_add_test(gl, test_gl_box_mask_label);
  tcase_add_test(gl, test_gl_matches_cairo);
  tcase_add_test(gl, test_gl_mask_texture);
  suite_add_tcase(s, gl);
  return s;
}

GST_CHECK_MAIN(tfliteoverlay);
