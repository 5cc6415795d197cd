/**
 * SECTION:element-tfliteoverlay
 * @title: tfliteoverlay
 *
 * Draws the results tflitefilter attached to each buffer (GstTfliteMeta): a segmentation
 * mask blended with a class palette, boxes with their label and score, keypoints and
 * skeletons, and the top classifications in the corner. The video is drawn on in place.
 *
 * Two paths, picked by the caps:
 * - `video/x-raw(memory:GLMemory)` RGBA: shaders draw straight into the frame's texture on
 *   GStreamer's GL thread; the frame is never copied or read back. Masks are composited by
 *   a compute pass over the mask's rectangle where the context has compute shaders (desktop
 *   GL 4.3; GLES 3.1 only on immutable textures), else by a fragment pass over the frame;
 *   `TFL_OVERLAY_GL_PATH` (`fragment`, `compute`) forces one, the read-only property
 *   `mask-path` tells which ran. Labels are glyphs rendered once with pango into a texture
 *   atlas.
 * - system memory RGBA, RGBx, BGRA, BGRx, I420 and NV12: our own vector code draws in place
 *   on the mapped frame, without converting it (upstream converters are only needed for
 *   other formats). The same glyph atlas is blitted for labels. On I420 and NV12 each
 *   colour is converted once per frame with the caps' matrix (BT.601, BT.709, ...) and
 *   range (limited or full), and chroma is drawn at its own resolution: a chroma sample
 *   stands for a 2x2 block of pixels (centre siting). The row kernels are picked at run
 *   time from what the CPU runs (AVX-512, AVX2, else portable C; all give the same
 *   pixels); the environment variable `TFL_OVERLAY_ISA` (`c`, `avx2`, `avx512`) forces one,
 *   for tests and benchmarks. Both paths sample the mask, cover shapes and place glyphs
 *   with the same formulas, so their outputs agree.
 *
 * The mask of a segmentation is blended with the palette's class colours (class masks,
 * nearest texel) or with class 1's colour weighted by the probability (probability masks,
 * bilinear), on the rectangle the results give it; then box outlines, keypoints and
 * skeleton lines (antialiased), then labels on filled backgrounds. The fourth byte of
 * RGBA/BGRA/RGBx/BGRx frames (alpha or padding) is never changed.
 *
 * A buffer without results passes untouched. Results that make no sense (a mask of another
 * size than the frame is scaled to its place; class ids without a label are drawn without
 * one; counts, pointers and coordinates are checked) never stop the stream.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=astronaut.png ! pngdec ! videoconvert ! glupload ! \
 *   tflitefilter model=deeplabv3_257_mv_gpu.tflite ! tfliteoverlay mask-alpha=0.6 ! \
 *   gldownload ! videoconvert ! pngenc ! filesink location=out.png
 * ]|
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=30 pattern=ball ! \
 *   video/x-raw,format=I420,width=1920,height=1080 ! \
 *   tflitefilter model=selfie_segmentation.tflite delegate=cpu ! tfliteoverlay ! \
 *   jpegenc ! avimux ! filesink location=out.avi
 * ]|
 *
 * Since: 0.1
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gsttfliteoverlay.h"

#include <gst/gl/gl.h>

#include <gst/tflitemeta/gsttflitemeta.h>
#include "ov_gl.h"
#include "ov_soft.h"

GST_DEBUG_CATEGORY(gst_tflite_overlay_debug); /* ov_gl.c logs here too */
#define GST_CAT_DEFAULT gst_tflite_overlay_debug
GST_DEBUG_CATEGORY_STATIC(CAT_PERFORMANCE);

#define DEFAULT_MASK_ALPHA 0.5
#define DEFAULT_PALETTE OV_PALETTE_PASCAL_VOC
#define DEFAULT_LINE_WIDTH 3.0
#define MAX_LINE_WIDTH 64.0
#define DEFAULT_FONT "Sans Bold 12"
#define DEFAULT_SHOW_LABELS TRUE
#define DEFAULT_SHOW_SCORES TRUE
#define DEFAULT_DRAW_KEYPOINTS TRUE
#define DEFAULT_CLASSES ""
#define DEFAULT_KEYPOINT_THRESHOLD 0.3

enum {
  PROP_0,
  PROP_MASK_ALPHA,
  PROP_PALETTE,
  PROP_LINE_WIDTH,
  PROP_FONT,
  PROP_SHOW_LABELS,
  PROP_SHOW_SCORES,
  PROP_DRAW_KEYPOINTS,
  PROP_CLASSES,
  PROP_KEYPOINT_THRESHOLD,
  PROP_MASK_PATH,
};

/* mask-path's values, indexed by MaskPath */
typedef enum { MASK_PATH_NONE, MASK_PATH_FRAGMENT, MASK_PATH_COMPUTE, MASK_PATH_CPU } MaskPath;
static const gchar *const mask_path_names[] = { "", "fragment", "compute", "cpu" };

/* every format ov_soft draws on in place; packed 4:2:2 (YUY2, UYVY) is not among them
 * (a pixel's chroma is shared with its neighbour inside one byte group) */
#define CAPS_STR                                                                       \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES("memory:GLMemory", "RGBA") ", texture-target=2D; " \
  GST_VIDEO_CAPS_MAKE("{ RGBA, RGBx, BGRA, BGRx, RGB, BGR, I420, YV12, NV12, NV21, GRAY8 }")

static GstStaticPadTemplate sink_template =
  GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS(CAPS_STR));
static GstStaticPadTemplate src_template =
  GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(CAPS_STR));

G_DEFINE_TYPE(GstTfliteOverlay, gst_tflite_overlay, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE(tfliteoverlay, "tfliteoverlay", GST_RANK_NONE, GST_TYPE_TFLITE_OVERLAY);

GType gst_tflite_overlay_palette_get_type(void)
{
  static GType type;
  static const GEnumValue values[] = {
    { OV_PALETTE_PASCAL_VOC, "PASCAL VOC colour map (deeplab's 21 classes)", "pascal-voc" },
    { OV_PALETTE_CITYSCAPES, "Cityscapes-like colours (19, repeating)", "cityscapes" },
    { OV_PALETTE_RAINBOW, "Hues spaced by the golden angle, for any number of classes", "rainbow" },
    { 0, NULL, NULL },
  };
  if (g_once_init_enter(&type)) {
    GType t = g_enum_register_static("GstTfliteOverlayPalette", values);
    g_once_init_leave(&type, t);
  }
  return type;
}

/* ---- GL renderer life cycle (gsttfliteglelement.h: on the frames' context's thread) ---- */

typedef struct {
  GstTfliteOverlay *self;
  guint texture, format;   /* the frame's, and its GL internal format */
  gboolean ok;
  gchar *error;
} GlCall;

static gboolean gl_start(GstTfliteGlElement *glel, GstGLContext *ctx, gchar **error)
{
  GstTfliteOverlay *self = glel->user;
  self->gl = ov_gl_new(ctx, error);
  return self->gl != NULL;
}

static void gl_stop(GstTfliteGlElement *glel, GstGLContext *ctx)
{
  GstTfliteOverlay *self = glel->user;
  ov_gl_free(self->gl);
  self->gl = NULL;
}

static void gl_draw(GstGLContext *ctx, gpointer data)
{
  GlCall *c = data;
  GstTfliteOverlay *self = c->self;
  c->ok = ov_gl_draw(self->gl, c->texture, c->format, GST_VIDEO_INFO_WIDTH(&self->info),
                     GST_VIDEO_INFO_HEIGHT(&self->info), &self->scene, self->font, &c->error);
  OvGlPath path = ov_gl_last_path(self->gl);
  if (path != OV_GL_PATH_NONE)
    g_atomic_int_set(&self->mask_path, path == OV_GL_PATH_COMPUTE ? MASK_PATH_COMPUTE : MASK_PATH_FRAGMENT);
}

/* The renderer for ctx (the frames'), made at its first frame; FALSE when GL cannot draw
 * here (said once per context). */
static gboolean ensure_gl(GstTfliteOverlay *self, GstGLContext *ctx)
{
  gboolean tried = self->glel.context == ctx;
  gchar *error = NULL;
  gboolean ok = gst_tflite_gl_element_start(&self->glel, ctx, &error);
  if (!ok && !tried)
    GST_ELEMENT_WARNING(self, LIBRARY, INIT,
                        ("Cannot draw with GL; drawing on the CPU with a copy of each frame."),
                        ("%s", error ? error : "unknown GL failure"));
  g_free(error);
  return ok;
}

/* ---- drawing ---- */

/* The software renderer, made on first use: the fastest instruction set of this CPU, or
 * the one TFL_OVERLAY_ISA names (c, avx2, avx512: for tests and benchmarks). */
static OvSoft *ensure_soft(GstTfliteOverlay *self)
{
  if (self->soft) return self->soft;
  OvIsa isa = ov_kernels_best();
  const gchar *force = g_getenv("TFL_OVERLAY_ISA");
  if (force && *force) {
    OvIsa want = ov_isa_from_name(force);
    if (want != OV_ISA_COUNT && ov_kernels_get(want)) isa = want;
    else GST_WARNING_OBJECT(self, "TFL_OVERLAY_ISA=%s is not an instruction set this CPU runs "
                            "(c, avx2, avx512): using %s", force, ov_isa_name(isa));
  }
  self->soft = ov_soft_new(isa);
  GST_INFO_OBJECT(self, "software renderer: %s kernels", ov_isa_name(isa));
  return self->soft;
}

static GstFlowReturn draw_cpu(GstTfliteOverlay *self, GstBuffer *buf)
{
  GstVideoFrame frame;
  OvSoftFrame target;
  if (!gst_video_frame_map(&frame, &self->info, buf, GST_MAP_READWRITE)) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Cannot map the video frame for drawing."), (NULL));
    return GST_FLOW_ERROR;
  }
  if (self->scene.mask.on && !self->scene.mask.classes && !self->scene.mask.prob &&
      !self->warned_texture_mask) {
    GST_WARNING_OBJECT(self, "the mask is a GL texture only: not drawn on system memory");
    self->warned_texture_mask = TRUE;
  }
  if (!ov_soft_frame_from_video(&target, &frame)) { /* the caps allow no other format */
    gst_video_frame_unmap(&frame);
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("Cannot draw on %s frames.",
                      gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&self->info))), (NULL));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  ov_soft_draw(ensure_soft(self), &self->scene, self->font, &target);
  if (self->scene.mask.on || self->scene.instances->len) g_atomic_int_set(&self->mask_path, MASK_PATH_CPU);
  gst_video_frame_unmap(&frame);
  return GST_FLOW_OK;
}

static GstFlowReturn draw_gl(GstTfliteOverlay *self, GstBuffer *buf)
{
  GstMemory *mem = gst_buffer_n_memory(buf) ? gst_buffer_peek_memory(buf, 0) : NULL;
  if (!mem || !gst_is_gl_memory(mem)) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("GL caps, but the buffer holds no GL memory."), (NULL));
    return GST_FLOW_ERROR;
  }
  GstGLContext *ctx = ((GstGLBaseMemory *)mem)->context;
  if (!ensure_gl(self, ctx)) {
    if (!self->warned_gl_fallback)
      GST_CAT_WARNING_OBJECT(CAT_PERFORMANCE, self, "GL frames drawn on the CPU: each frame is "
                             "downloaded and uploaded again");
    self->warned_gl_fallback = TRUE;
    return draw_cpu(self, buf);
  }
  /* READ too: pending system-memory contents are uploaded before we draw on top */
  GstVideoFrame frame;
  if (!gst_video_frame_map(&frame, &self->info, buf, GST_MAP_READWRITE | GST_MAP_GL)) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Cannot map the GL frame for drawing."), (NULL));
    return GST_FLOW_ERROR;
  }
  GstGLSyncMeta *sync = gst_buffer_get_gl_sync_meta(buf);
  if (sync) gst_gl_sync_meta_wait(sync, ctx); /* the producer's commands first */
  GlCall c = { self, *(guint *)frame.data[0], ((GstGLMemory *)mem)->tex_format, FALSE, NULL };
  gst_gl_context_thread_add(ctx, gl_draw, &c);
  gst_video_frame_unmap(&frame);
  if (!c.ok) {
    GST_ELEMENT_ERROR(self, LIBRARY, FAILED, ("Drawing the overlay with GL failed."),
                      ("%s", c.error ? c.error : "unknown GL failure"));
    g_free(c.error);
    return GST_FLOW_ERROR;
  }
  if (!sync) sync = gst_buffer_add_gl_sync_meta(ctx, buf);
  if (sync) gst_gl_sync_meta_set_sync_point(sync, ctx);
  return GST_FLOW_OK;
}

static GstFlowReturn gst_tflite_overlay_transform_ip(GstBaseTransform *trans, GstBuffer *buf)
{
  GstTfliteOverlay *self = GST_TFLITE_OVERLAY(trans);
  /* GStreamer >= 1.24: detections other elements put in analytics metadata are drawn too */
  GstTfliteMeta *meta = gst_tflite_meta_import_analytics(buf, GST_VIDEO_INFO_WIDTH(&self->info),
                                                         GST_VIDEO_INFO_HEIGHT(&self->info));
  if (!meta) return GST_FLOW_OK;

  /* a snapshot of the properties for this frame */
  GST_OBJECT_LOCK(self);
  OvSettings s = self->settings;
  s.classes = g_strdupv(self->settings.classes);
  gboolean font_changed = self->font_changed || !self->font;
  gchar *font_desc = font_changed ? g_strdup(self->font_desc) : NULL;
  self->font_changed = FALSE;
  GST_OBJECT_UNLOCK(self);
  if (font_changed) {
    ov_font_free(self->font);
    self->font = ov_font_new(font_desc);
    g_free(font_desc);
  }

  GstFlowReturn ret = GST_FLOW_OK;
  gboolean any = ov_scene_build(&self->scene, meta, GST_VIDEO_INFO_WIDTH(&self->info),
                                GST_VIDEO_INFO_HEIGHT(&self->info), &s, self->font);
  GST_LOG_OBJECT(self, "%u shapes, %u texts, mask %s (%dx%d, texture %u)", self->scene.shapes->len,
                 self->scene.texts->len, self->scene.mask.on ? "on" : "off", self->scene.mask.width,
                 self->scene.mask.height, self->scene.mask.texture);
  if (any) ret = self->is_gl ? draw_gl(self, buf) : draw_cpu(self, buf);
  g_strfreev(s.classes);
  return ret;
}

static gboolean gst_tflite_overlay_set_caps(GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps)
{
  GstTfliteOverlay *self = GST_TFLITE_OVERLAY(trans);
  if (!gst_video_info_from_caps(&self->info, incaps)) {
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("Cannot read the video caps."),
                      ("%" GST_PTR_FORMAT, incaps));
    return FALSE;
  }
  GstCapsFeatures *f = gst_caps_get_features(incaps, 0);
  self->is_gl = f && gst_caps_features_contains(f, GST_CAPS_FEATURE_MEMORY_GL_MEMORY);
  /* GL frames: the pipeline's display, which our neighbours' queries then find here too */
  if (self->is_gl && !self->glel.display && !gst_tflite_gl_element_ensure_display(&self->glel))
    GST_WARNING_OBJECT(self, "GL caps, but no GL display found or opened");
  GST_DEBUG_OBJECT(self, "caps %" GST_PTR_FORMAT " (%s path)", incaps,
                   self->is_gl ? "GL" : "system memory");
  return TRUE;
}

static void gst_tflite_overlay_set_context(GstElement *element, GstContext *context)
{
  GstTfliteOverlay *self = GST_TFLITE_OVERLAY(element);
  gst_tflite_gl_element_set_context(&self->glel, context);
  GST_ELEMENT_CLASS(gst_tflite_overlay_parent_class)->set_context(element, context);
}

/* Neighbours asking for the display, or for the context the frames are drawn on, get ours
 * (as a GL base filter answers them). */
static gboolean gst_tflite_overlay_query(GstBaseTransform *trans, GstPadDirection direction, GstQuery *query)
{
  GstTfliteOverlay *self = GST_TFLITE_OVERLAY(trans);
  if (gst_tflite_gl_element_query(&self->glel, query, NULL, TRUE))
    return TRUE;
  return GST_BASE_TRANSFORM_CLASS(gst_tflite_overlay_parent_class)->query(trans, direction, query);
}

static gboolean gst_tflite_overlay_stop(GstBaseTransform *trans)
{
  GstTfliteOverlay *self = GST_TFLITE_OVERLAY(trans);
  gst_tflite_gl_element_clear(&self->glel);
  ov_soft_free(self->soft);
  self->soft = NULL;
  ov_scene_clear(&self->scene);
  ov_scene_init(&self->scene);
  ov_font_free(self->font);
  self->font = NULL;
  self->warned_gl_fallback = self->warned_texture_mask = FALSE;
  return TRUE;
}

/* ---- properties ---- */

static gchar **parse_classes(const gchar *list)
{
  if (!list) return NULL;
  gchar **tokens = g_strsplit(list, ",", -1);
  GPtrArray *out = g_ptr_array_new();
  for (gchar **t = tokens; *t; t++) {
    gchar *s = g_strstrip(*t);
    if (*s) g_ptr_array_add(out, g_strdup(s));
  }
  g_strfreev(tokens);
  if (!out->len) {
    g_ptr_array_free(out, TRUE);
    return NULL;
  }
  g_ptr_array_add(out, NULL);
  return (gchar **)g_ptr_array_free(out, FALSE);
}

static void gst_tflite_overlay_set_property(GObject *object, guint prop_id, const GValue *value,
                                            GParamSpec *pspec)
{
  GstTfliteOverlay *self = GST_TFLITE_OVERLAY(object);
  GST_OBJECT_LOCK(self);
  switch (prop_id) {
  case PROP_MASK_ALPHA:
    self->settings.mask_alpha = g_value_get_double(value);
    break;
  case PROP_PALETTE:
    self->settings.palette = g_value_get_enum(value);
    break;
  case PROP_LINE_WIDTH:
    self->settings.line_width = g_value_get_double(value);
    break;
  case PROP_FONT:
    g_free(self->font_desc);
    self->font_desc = g_value_dup_string(value);
    self->font_changed = TRUE;
    break;
  case PROP_SHOW_LABELS:
    self->settings.show_labels = g_value_get_boolean(value);
    break;
  case PROP_SHOW_SCORES:
    self->settings.show_scores = g_value_get_boolean(value);
    break;
  case PROP_DRAW_KEYPOINTS:
    self->settings.draw_keypoints = g_value_get_boolean(value);
    break;
  case PROP_CLASSES:
    g_strfreev(self->settings.classes);
    self->settings.classes = parse_classes(g_value_get_string(value));
    break;
  case PROP_KEYPOINT_THRESHOLD:
    self->settings.keypoint_threshold = g_value_get_double(value);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    break;
  }
  GST_OBJECT_UNLOCK(self);
}

static void gst_tflite_overlay_get_property(GObject *object, guint prop_id, GValue *value,
                                            GParamSpec *pspec)
{
  GstTfliteOverlay *self = GST_TFLITE_OVERLAY(object);
  GST_OBJECT_LOCK(self);
  switch (prop_id) {
  case PROP_MASK_ALPHA:
    g_value_set_double(value, self->settings.mask_alpha);
    break;
  case PROP_PALETTE:
    g_value_set_enum(value, self->settings.palette);
    break;
  case PROP_LINE_WIDTH:
    g_value_set_double(value, self->settings.line_width);
    break;
  case PROP_FONT:
    g_value_set_string(value, self->font_desc);
    break;
  case PROP_SHOW_LABELS:
    g_value_set_boolean(value, self->settings.show_labels);
    break;
  case PROP_SHOW_SCORES:
    g_value_set_boolean(value, self->settings.show_scores);
    break;
  case PROP_DRAW_KEYPOINTS:
    g_value_set_boolean(value, self->settings.draw_keypoints);
    break;
  case PROP_CLASSES:
    g_value_take_string(value, self->settings.classes ? g_strjoinv(",", self->settings.classes)
                                                      : g_strdup(DEFAULT_CLASSES));
    break;
  case PROP_KEYPOINT_THRESHOLD:
    g_value_set_double(value, self->settings.keypoint_threshold);
    break;
  case PROP_MASK_PATH:
    g_value_set_string(value, mask_path_names[g_atomic_int_get(&self->mask_path)]);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    break;
  }
  GST_OBJECT_UNLOCK(self);
}

static void gst_tflite_overlay_finalize(GObject *object)
{
  GstTfliteOverlay *self = GST_TFLITE_OVERLAY(object);
  gst_tflite_gl_element_clear(&self->glel);
  ov_soft_free(self->soft);
  ov_scene_clear(&self->scene);
  ov_font_free(self->font);
  g_free(self->font_desc);
  g_strfreev(self->settings.classes);
  G_OBJECT_CLASS(gst_tflite_overlay_parent_class)->finalize(object);
}

static void gst_tflite_overlay_class_init(GstTfliteOverlayClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING;

  GST_DEBUG_CATEGORY_INIT(gst_tflite_overlay_debug, "tfliteoverlay", 0, "tfliteoverlay");
  GST_DEBUG_CATEGORY_GET(CAT_PERFORMANCE, "GST_PERFORMANCE");

  gobject_class->set_property = gst_tflite_overlay_set_property;
  gobject_class->get_property = gst_tflite_overlay_get_property;
  gobject_class->finalize = gst_tflite_overlay_finalize;

  g_object_class_install_property(gobject_class, PROP_MASK_ALPHA,
    g_param_spec_double("mask-alpha", "Mask alpha",
                        "Opacity of the segmentation mask's colours (0: mask not drawn, 1: opaque); "
                        "probability masks scale it by the probability",
                        0.0, 1.0, DEFAULT_MASK_ALPHA, rw));
  g_object_class_install_property(gobject_class, PROP_PALETTE,
    g_param_spec_enum("palette", "Palette",
                      "Colours of classes, for the mask (class 0 of an argmax mask is the "
                      "background, left undrawn; a probability mask uses class 1's colour) and "
                      "for boxes (too dark colours drawn white)",
                      GST_TYPE_TFLITE_OVERLAY_PALETTE, DEFAULT_PALETTE, rw));
  g_object_class_install_property(gobject_class, PROP_LINE_WIDTH,
    g_param_spec_double("line-width", "Line width",
                        "Width of box outlines and skeleton lines, in frame pixels", 0.5,
                        MAX_LINE_WIDTH, DEFAULT_LINE_WIDTH, rw));
  g_object_class_install_property(gobject_class, PROP_FONT,
    g_param_spec_string("font", "Font",
                        "Pango font description of labels, e.g. \"Sans Bold 12\" (size in points "
                        "at 96 dpi)", DEFAULT_FONT, rw));
  g_object_class_install_property(gobject_class, PROP_SHOW_LABELS,
    g_param_spec_boolean("show-labels", "Show labels", "Write the class label of boxes and "
                         "classifications", DEFAULT_SHOW_LABELS, rw));
  g_object_class_install_property(gobject_class, PROP_SHOW_SCORES,
    g_param_spec_boolean("show-scores", "Show scores", "Write the score (0..1) of boxes and "
                         "classifications", DEFAULT_SHOW_SCORES, rw));
  g_object_class_install_property(gobject_class, PROP_DRAW_KEYPOINTS,
    g_param_spec_boolean("draw-keypoints", "Draw keypoints", "Draw keypoints (of boxes and poses) "
                         "and pose skeletons", DEFAULT_DRAW_KEYPOINTS, rw));
  g_object_class_install_property(gobject_class, PROP_CLASSES,
    g_param_spec_string("classes", "Classes",
                        "Comma-separated class names (as in the labels, any case) or class ids to "
                        "draw; empty: every class", DEFAULT_CLASSES, rw));
  g_object_class_install_property(gobject_class, PROP_KEYPOINT_THRESHOLD,
    g_param_spec_double("keypoint-threshold", "Keypoint threshold",
                        "Keypoints scored below this (0..1) are not drawn, nor their skeleton "
                        "lines; keypoints without a score always are",
                        0.0, 1.0, DEFAULT_KEYPOINT_THRESHOLD, rw));
  g_object_class_install_property(gobject_class, PROP_MASK_PATH,
    g_param_spec_string("mask-path", "Mask path",
                        "How the last frame with masks had them composited: \"compute\" (GL compute "
                        "pass, desktop GL 4.3 / GLES 3.1 with immutable frame textures), \"fragment\" "
                        "(GL fragment pass), \"cpu\"; empty before. Environment variable "
                        "TFL_OVERLAY_GL_PATH=fragment|compute|auto forces the GL one", "",
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_set_static_metadata(element_class, "TFLite results overlay", "Filter/Effect/Video",
    "Draws tflitefilter's results (masks, boxes, keypoints, labels) on the video, with GL shaders "
    "on GL memory (RGBA) and with its own vector code on system memory (RGBA-family, RGB, BGR, GRAY8, I420, "
    "YV12, NV12, NV21; not packed 4:2:2)", "gst-tflite");
  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &src_template);
  gst_type_mark_as_plugin_api(GST_TYPE_TFLITE_OVERLAY_PALETTE, 0);

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_ip_on_passthrough = FALSE;
  trans_class->transform_ip = gst_tflite_overlay_transform_ip;
  trans_class->set_caps = gst_tflite_overlay_set_caps;
  trans_class->stop = gst_tflite_overlay_stop;
  trans_class->query = gst_tflite_overlay_query;
  element_class->set_context = gst_tflite_overlay_set_context;
}

static void gst_tflite_overlay_init(GstTfliteOverlay *self)
{
  self->settings.mask_alpha = DEFAULT_MASK_ALPHA;
  self->settings.palette = DEFAULT_PALETTE;
  self->settings.line_width = DEFAULT_LINE_WIDTH;
  self->settings.keypoint_threshold = DEFAULT_KEYPOINT_THRESHOLD;
  self->settings.show_labels = DEFAULT_SHOW_LABELS;
  self->settings.show_scores = DEFAULT_SHOW_SCORES;
  self->settings.draw_keypoints = DEFAULT_DRAW_KEYPOINTS;
  self->settings.classes = NULL;
  self->font_desc = g_strdup(DEFAULT_FONT);
  self->font_changed = TRUE;
  ov_scene_init(&self->scene);
  gst_tflite_gl_element_init(&self->glel, GST_ELEMENT(self), gl_start, gl_stop, self);
  gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
}
