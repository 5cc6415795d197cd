/* tflite-overlay-bench - time tfliteoverlay's software renderer on one core: per frame, the
 * scene built from a GstTfliteMeta (ov_scene_build) and drawn in place (ov_soft_draw), for
 * each pixel format and instruction set asked for.
 *
 * The meta is what a segmentation model plus a detector leave: a full-frame mask (a
 * 257x257 class mask like deeplab's with 4 classes in blobs, or a 256x256 probability
 * mask like selfie segmentation's with a soft-edged person) and N labelled, scored boxes.
 * Three cases are timed: the mask alone, the boxes alone, both. Each case prints the median
 * and the fastest, over the frames, of the thread's CPU time per frame (after one untimed
 * frame); on a busy machine the fastest is the better estimate of an idle one. */
#include <glib.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gst/tfliteoverlay/ov_font.h"
#include "gst/tfliteoverlay/ov_scene.h"
#include "gst/tfliteoverlay/ov_soft.h"

#define DEFAULT_SIZE "1920x1080"
#define DEFAULT_FORMATS "RGBA,BGRx,I420,NV12"
#define DEFAULT_ISAS "all"
#define DEFAULT_BOXES 20
#define DEFAULT_FRAMES 200
#define DEFAULT_MASK "classes"

typedef struct {
  gint width, height, boxes, frames;
  gboolean cold;
  gchar *formats, *isas, *mask;
} Options;

static const gchar *labels[] = { "background", "person", "bicycle", "car", "dog", "cat", "bird" };

static double now_s(clockid_t clock)
{
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* the mask of the meta: classes in blobs, or a soft-edged probability ellipse */
static void make_mask(tfl_results *r, gboolean prob)
{
  gint n = prob ? 256 : 257;
  r->mask.kind = prob ? TFL_MASK_PROB : TFL_MASK_CLASSES;
  r->mask.width = r->mask.height = n;
  r->mask.n_classes = prob ? 1 : 21;
  if (prob) r->mask.prob = g_malloc(sizeof(float) * n * n);
  else r->mask.classes = g_malloc((gsize)n * n);
  for (gint y = 0; y < n; y++)
    for (gint x = 0; x < n; x++) {
      gdouble dx = (x - n * 0.5) / (n * 0.25), dy = (y - n * 0.55) / (n * 0.4);
      gdouble d = sqrt(dx * dx + dy * dy);
      if (prob) {
        r->mask.prob[y * n + x] = (float)CLAMP((1.1 - d) * 5.0, 0.0, 1.0);
      } else {
        guint8 c = d < 1 ? 15 : 0;
        if (x < n / 5 && y > n / 2) c = 3;
        if (x > n * 4 / 5 && y < n / 3) c = 8;
        r->mask.classes[y * n + x] = c;
      }
    }
}

static void add_boxes(tfl_results *r, gint count, gint width, gint height)
{
  r->boxes = g_new0(tfl_box, count);
  r->n_boxes = count;
  GRand *rand = g_rand_new_with_seed(7);
  for (gint i = 0; i < count; i++) {
    tfl_box *b = &r->boxes[i];
    b->w = (float)g_rand_double_range(rand, 0.05, 0.3) * width;
    b->h = (float)g_rand_double_range(rand, 0.05, 0.3) * height;
    b->x = (float)g_rand_double_range(rand, 0, width - b->w);
    b->y = (float)g_rand_double_range(rand, 0, height - b->h);
    b->class_id = 1 + i % (G_N_ELEMENTS(labels) - 1);
    b->score = (float)g_rand_double_range(rand, 0.3, 1.0);
  }
  g_rand_free(rand);
}

static GstBuffer *meta_buffer(const Options *o, gboolean mask, gboolean boxes)
{
  GstBuffer *buf = gst_buffer_new();
  GstTfliteMeta *meta = gst_buffer_add_tflite_meta(buf, o->width, o->height);
  tfl_results r = { 0 };
  if (mask) make_mask(&r, g_strcmp0(o->mask, "prob") == 0);
  if (boxes) add_boxes(&r, o->boxes, o->width, o->height);
  GPtrArray *l = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; i < G_N_ELEMENTS(labels); i++) g_ptr_array_add(l, g_strdup(labels[i]));
  const gfloat frame[4] = { 0, 0, (gfloat)o->width, (gfloat)o->height };
  gst_tflite_meta_add_results(meta, &r, g_quark_from_static_string("bench"), 0, frame, l, NULL);
  g_ptr_array_unref(l);
  return buf;
}

/* median and fastest CPU ms per frame of building and drawing meta's scene */
static void time_case(const Options *o, GstVideoFormat format, OvIsa isa, GstBuffer *metabuf,
                      double *median_ms, double *min_ms)
{
  GstVideoInfo info;
  gst_video_info_set_format(&info, format, (guint)o->width, (guint)o->height);
  GstBuffer *frame_buf = gst_buffer_new_allocate(NULL, info.size, NULL);
  GstMapInfo map;
  gst_buffer_map(frame_buf, &map, GST_MAP_WRITE);
  for (gsize i = 0; i < map.size; i++) map.data[i] = (guint8)(i * 2654435761u >> 24); /* not flat */
  gst_buffer_unmap(frame_buf, &map);
  GstVideoFrame vf;
  gst_video_frame_map(&vf, &info, frame_buf, GST_MAP_READWRITE);
  OvSoftFrame f;
  ov_soft_frame_from_video(&f, &vf);

  OvSettings s = { 0.5, 3.0, 0.3, OV_PALETTE_PASCAL_VOC, TRUE, TRUE, TRUE, NULL };
  OvFont *font = ov_font_new(NULL);
  OvScene scene;
  ov_scene_init(&scene);
  OvSoft *soft = ov_soft_new(isa);
  const GstTfliteMeta *meta = gst_buffer_get_tflite_meta(metabuf);
  double *cpu = g_new(double, o->frames);
  gsize evict_size = 64u << 20;
  guint8 *evict = o->cold ? g_malloc(evict_size) : NULL;
  for (gint i = -1; i < o->frames; i++) { /* frame -1: glyphs rendered, rows allocated */
    if (evict) memset(evict, i & 255, evict_size); /* the frame leaves the caches, as a new one would */
    double c0 = now_s(CLOCK_THREAD_CPUTIME_ID);
    if (ov_scene_build(&scene, meta, o->width, o->height, &s, font)) ov_soft_draw(soft, &scene, font, &f);
    double c1 = now_s(CLOCK_THREAD_CPUTIME_ID);
    if (i >= 0) cpu[i] = (c1 - c0) * 1e3;
  }
  g_free(evict);
  qsort(cpu, (gsize)o->frames, sizeof *cpu, cmp_double);
  *median_ms = cpu[o->frames / 2];
  *min_ms = cpu[0];
  g_free(cpu);
  ov_soft_free(soft);
  ov_scene_clear(&scene);
  ov_font_free(font);
  gst_video_frame_unmap(&vf);
  gst_buffer_unref(frame_buf);
}

int main(int argc, char **argv)
{
  Options o = { .boxes = DEFAULT_BOXES, .frames = DEFAULT_FRAMES };
  gchar *size = NULL;
  GOptionEntry entries[] = {
    { "size", 0, 0, G_OPTION_ARG_STRING, &size, "frame size (default " DEFAULT_SIZE ")", "WxH" },
    { "formats", 0, 0, G_OPTION_ARG_STRING, &o.formats,
      "comma-separated pixel formats: RGBA, BGRA, RGBx, BGRx, I420, NV12 (default " DEFAULT_FORMATS ")", "LIST" },
    { "isa", 0, 0, G_OPTION_ARG_STRING, &o.isas,
      "comma-separated instruction sets: c, avx2, avx512, or all this CPU runs (default " DEFAULT_ISAS ")", "LIST" },
    { "mask", 0, 0, G_OPTION_ARG_STRING, &o.mask,
      "classes (257x257 class mask) or prob (256x256 probability mask) (default " DEFAULT_MASK ")", "KIND" },
    { "boxes", 0, 0, G_OPTION_ARG_INT, &o.boxes, "labelled boxes (default 20)", "N" },
    { "frames", 0, 0, G_OPTION_ARG_INT, &o.frames, "timed frames per case (default 200)", "N" },
    { "cold", 0, 0, G_OPTION_ARG_NONE, &o.cold,
      "evict the caches before each frame (64 MiB written), as a fresh camera or decoder frame is (default off)", NULL },
    { NULL },
  };
  GOptionContext *ctx = g_option_context_new("- time tfliteoverlay's software renderer per format and instruction set");
  g_option_context_add_main_entries(ctx, entries, NULL);
  GError *err = NULL;
  gst_init(&argc, &argv);
  if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
    fprintf(stderr, "tflite-overlay-bench: %s\n", err->message);
    return 2;
  }
  g_option_context_free(ctx);
  if (!size) size = g_strdup(DEFAULT_SIZE);
  if (!o.formats) o.formats = g_strdup(DEFAULT_FORMATS);
  if (!o.isas) o.isas = g_strdup(DEFAULT_ISAS);
  if (!o.mask) o.mask = g_strdup(DEFAULT_MASK);
  if (sscanf(size, "%dx%d", &o.width, &o.height) != 2 || o.width <= 0 || o.height <= 0 ||
      o.width > 16384 || o.height > 16384) {
    fprintf(stderr, "tflite-overlay-bench: --size must be WxH (at most 16384 each), not '%s'\n", size);
    return 2;
  }
  if (o.frames < 1 || o.boxes < 0 || o.boxes > 1000 ||
      (g_strcmp0(o.mask, "classes") != 0 && g_strcmp0(o.mask, "prob") != 0)) {
    fprintf(stderr, "tflite-overlay-bench: --frames >= 1, --boxes 0..1000, --mask classes|prob\n");
    return 2;
  }
  gchar **formats = g_strsplit(o.formats, ",", -1), **isas = g_strsplit(o.isas, ",", -1);
  GArray *isa_list = g_array_new(FALSE, FALSE, sizeof(OvIsa));
  for (gchar **t = isas; *t; t++) {
    if (g_strcmp0(*t, "all") == 0) {
      for (OvIsa i = 0; i < OV_ISA_COUNT; i++)
        if (ov_kernels_get(i)) g_array_append_val(isa_list, i);
      continue;
    }
    OvIsa i = ov_isa_from_name(*t);
    if (i == OV_ISA_COUNT || !ov_kernels_get(i)) {
      fprintf(stderr, "tflite-overlay-bench: this CPU or build does not run instruction set '%s'\n", *t);
      return 2;
    }
    g_array_append_val(isa_list, i);
  }

  GstBuffer *cases[3] = { meta_buffer(&o, TRUE, FALSE), meta_buffer(&o, FALSE, TRUE), meta_buffer(&o, TRUE, TRUE) };
  printf("%dx%d, %s mask, %d labelled boxes, %s frames; CPU ms a frame (thread time), median / fastest of %d\n",
         o.width, o.height, o.mask, o.boxes, o.cold ? "cold" : "cached", o.frames);
  printf("%-6s %-7s %16s %16s %16s\n", "format", "isa", "mask", "boxes", "mask+boxes");
  for (gchar **fmt = formats; *fmt; fmt++) {
    GstVideoFormat format = gst_video_format_from_string(*fmt);
    if (!ov_soft_supports(format)) {
      fprintf(stderr, "tflite-overlay-bench: format '%s' is not one tfliteoverlay draws on\n", *fmt);
      return 2;
    }
    for (guint k = 0; k < isa_list->len; k++) {
      OvIsa isa = g_array_index(isa_list, OvIsa, k);
      printf("%-6s %-7s", *fmt, ov_isa_name(isa));
      for (gint c = 0; c < 3; c++) {
        double med, fast;
        time_case(&o, format, isa, cases[c], &med, &fast);
        printf("   %6.3f / %5.3f", med, fast);
      }
      printf("\n");
      fflush(stdout);
    }
  }
  for (gint c = 0; c < 3; c++) gst_buffer_unref(cases[c]);
  g_array_unref(isa_list);
  g_strfreev(formats);
  g_strfreev(isas);
  g_free(size);
  g_free(o.formats);
  g_free(o.isas);
  g_free(o.mask);
  return 0;
}
