/* appsink-meta.c - embedding tflitefilter in an application: results read from GstTfliteMeta.
 *
 * Builds `PICTURE ! decode ! tflitefilter ! appsink`, pulls each buffer from the appsink and
 * prints what tflitefilter attached: top classes, boxes (with keypoints), poses and the mask's
 * size and coverage. Link the meta library (tflitemeta_dep in meson); no plugin headers
 * beyond gsttflitemeta.h are needed.
 *
 *   GST_PLUGIN_PATH=build/gst build/pipelines/appsink-meta MODEL.tflite PICTURE.png
 *       [--frames N] [--gl] [--labels FILE] [--threshold T]
 *
 * --frames N repeats the picture N times (imagefreeze), as a video would; --gl puts the frames
 * in GL memory (glupload) so the GL delegate runs; the meta is read the same way (only the
 * mask may then also be a GL texture, gst_tflite_mask_texture()).
 */
#include <gst/gst.h>
#include <gst/app/gstappsink.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/tflitemeta/gsttflitemeta.h>

static void print_keypoints(const tfl_keypoint *k, int n)
{
  for (int i = 0; i < n; i++)
    printf("      keypoint %2d: (%.1f, %.1f) score %.2f\n", i, k[i].x, k[i].y, k[i].score);
}

/* Share of mask pixels that are foreground: class != 0, or probability > 0.5; -1 when the
 * mask lives only on the GPU. */
static double mask_coverage(const GstTfliteMask *m)
{
  size_t n = (size_t)m->width * (size_t)m->height, fg = 0;
  if (n == 0 || (!m->classes && !m->prob)) return -1.0;
  for (size_t i = 0; i < n; i++) {
    if (m->kind == TFL_MASK_CLASSES) fg += m->classes && m->classes[i] != 0;
    else if (m->kind == TFL_MASK_PROB) fg += m->prob && m->prob[i] > 0.5f;
  }
  return (double)fg / (double)n;
}

static const char *kind_name(GstTfliteObjectKind k)
{
  switch (k) {
  case GST_TFLITE_OBJECT_DETECTION: return "detection";
  case GST_TFLITE_OBJECT_CLASSIFICATION: return "classification";
  case GST_TFLITE_OBJECT_LANDMARKS: return "landmarks";
  case GST_TFLITE_OBJECT_SEGMENTATION: return "segmentation";
  }
  return "?";
}

static void print_meta(guint frame, const GstTfliteMeta *meta)
{
  printf("frame %u (%dx%d): %u objects\n", frame, meta->frame_width, meta->frame_height,
         gst_tflite_meta_n_objects(meta));
  for (guint i = 0; i < gst_tflite_meta_n_objects(meta); i++) {
    const GstTfliteObject *o = gst_tflite_meta_get_object(meta, i);
    const gchar *label = gst_tflite_object_label(o, o->class_id);
    printf("  #%" G_GUINT64_FORMAT " %s from %s (parent %" G_GUINT64_FORMAT "): %s (class %d) %.3f at x %.1f y %.1f,"
           " %.1f x %.1f\n", o->id, kind_name(o->kind), g_quark_to_string(o->source), o->parent_id,
           label ? label : "-", o->class_id, o->score, o->x, o->y, o->w, o->h);
    for (guint k = 1; k < o->n_classes; k++) {
      const gchar *l = gst_tflite_object_label(o, o->classes[k].class_id);
      printf("      class %d %s: %.3f\n", o->classes[k].class_id, l ? l : "-", o->classes[k].score);
    }
    print_keypoints(o->keypoints, (int)o->n_keypoints);
    if (o->mask) {
      double cov = mask_coverage(o->mask);
      printf("      mask %dx%d, %d classes, %s", o->mask->width, o->mask->height, o->mask->n_classes,
             gst_tflite_mask_texture(o->mask, NULL) ? "a GL texture" : "CPU pixels only");
      if (cov >= 0) printf(", %.1f%% foreground", 100.0 * cov);
      printf("\n");
    }
  }
}

static int usage(const char *argv0)
{
  fprintf(stderr, "usage: %s MODEL.tflite PICTURE.png [--frames N] [--gl] [--labels FILE] "
          "[--threshold T]\n", argv0);
  return 2;
}

int main(int argc, char **argv)
{
  gst_init(&argc, &argv);
  if (argc < 3) return usage(argv[0]);
  const char *model = argv[1], *picture = argv[2], *labels = NULL;
  double threshold = -1.0; /* < 0: tflitefilter's default */
  int frames = 1;
  gboolean gl = FALSE;
  for (int i = 3; i < argc; i++) {
    if (!strcmp(argv[i], "--gl")) gl = TRUE;
    else if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--labels") && i + 1 < argc) labels = argv[++i];
    else if (!strcmp(argv[i], "--threshold") && i + 1 < argc) threshold = atof(argv[++i]);
    else return usage(argv[0]);
  }
  if (frames < 1) {
    fprintf(stderr, "--frames must be at least 1, not %d\n", frames);
    return 2;
  }

  /* Elements by name so that the paths need no quoting inside a launch string. */
  GError *err = NULL;
  gchar *desc = g_strdup_printf(
    "filesrc name=src ! decodebin ! imagefreeze num-buffers=%d ! videoconvert ! "
    "video/x-raw,format=RGBA ! %s tflitefilter name=filter ! appsink name=sink sync=false",
    frames, gl ? "glupload !" : "");
  GstElement *pipeline = gst_parse_launch(desc, &err);
  g_free(desc);
  if (!pipeline) {
    fprintf(stderr, "pipeline: %s (is GST_PLUGIN_PATH set to the build's gst/ folder?)\n",
            err ? err->message : "unknown error");
    g_clear_error(&err);
    return 1;
  }
  GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  GstElement *filter = gst_bin_get_by_name(GST_BIN(pipeline), "filter");
  GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  g_object_set(src, "location", picture, NULL);
  g_object_set(filter, "model", model, NULL);
  if (labels) g_object_set(filter, "labels", labels, NULL);
  if (threshold >= 0.0) g_object_set(filter, "threshold", (gfloat)threshold, NULL);

  int rc = 0;
  guint n = 0;
  if (gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) rc = 1;
  while (rc == 0) {
    /* NULL at EOS or on an error; the bus tells which */
    GstSample *sample = gst_app_sink_pull_sample(GST_APP_SINK(sink));
    if (!sample) break;
    GstBuffer *buf = gst_sample_get_buffer(sample);
    const GstTfliteMeta *meta = buf ? gst_buffer_get_tflite_meta(buf) : NULL;
    if (meta) print_meta(n, meta);
    else printf("frame %u: no GstTfliteMeta\n", n);
    gst_sample_unref(sample);
    n++;
  }

  GstBus *bus = gst_element_get_bus(pipeline);
  GstMessage *msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
  if (msg) {
    GError *e = NULL;
    gchar *dbg = NULL;
    gst_message_parse_error(msg, &e, &dbg);
    fprintf(stderr, "error from %s: %s\n%s\n", GST_OBJECT_NAME(GST_MESSAGE_SRC(msg)), e->message,
            dbg ? dbg : "");
    g_clear_error(&e);
    g_free(dbg);
    gst_message_unref(msg);
    rc = 1;
  }
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(src);
  gst_object_unref(filter);
  gst_object_unref(sink);
  gst_object_unref(pipeline);
  if (rc == 0 && n == 0) {
    fprintf(stderr, "no frames came out\n");
    rc = 1;
  }
  return rc;
}
