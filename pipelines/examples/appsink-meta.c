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
 * mask may then also be a GL texture, meta->mask_texture).
 */
#include <gst/gst.h>
#include <gst/app/gstappsink.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gst/tflitefilter/gsttflitemeta.h"

static void print_keypoints(const tfl_keypoint *k, int n)
{
  for (int i = 0; i < n; i++)
    printf("      keypoint %2d: (%.1f, %.1f) score %.2f\n", i, k[i].x, k[i].y, k[i].score);
}

/* Share of mask pixels that are foreground: class != 0, or probability > 0.5. */
static double mask_coverage(const tfl_mask *m)
{
  size_t n = (size_t)m->width * (size_t)m->height, fg = 0;
  if (n == 0) return 0.0;
  for (size_t i = 0; i < n; i++) {
    if (m->kind == TFL_MASK_CLASSES) fg += m->classes && m->classes[i] != 0;
    else if (m->kind == TFL_MASK_PROB) fg += m->prob && m->prob[i] > 0.5f;
  }
  return (double)fg / (double)n;
}

static void print_meta(guint frame, const GstTfliteMeta *meta)
{
  const tfl_results *r = &meta->results;
  printf("frame %u (%dx%d): %d classes, %d boxes, %d poses%s\n", frame, meta->frame_width,
         meta->frame_height, r->n_classes, r->n_boxes, r->n_poses,
         r->mask.kind != TFL_MASK_NONE ? ", a mask" : "");
  for (int i = 0; i < r->n_classes; i++) {
    const gchar *label = gst_tflite_meta_label(meta, r->classes[i].class_id);
    printf("  class %d %s: %.3f\n", r->classes[i].class_id, label ? label : "-", r->classes[i].score);
  }
  for (int i = 0; i < r->n_boxes; i++) {
    const tfl_box *b = &r->boxes[i];
    const gchar *label = gst_tflite_meta_label(meta, b->class_id);
    printf("  box %s (class %d) %.3f at x %.1f y %.1f, %.1f x %.1f\n", label ? label : "-",
           b->class_id, b->score, b->x, b->y, b->w, b->h);
    print_keypoints(b->keypoints, b->n_keypoints);
  }
  for (int i = 0; i < r->n_poses; i++) {
    printf("  pose %d: score %.3f, %d keypoints, %d skeleton edges\n", i, r->poses[i].score,
           r->poses[i].n_keypoints, r->poses[i].n_edges);
    print_keypoints(r->poses[i].keypoints, r->poses[i].n_keypoints);
  }
  if (r->mask.kind != TFL_MASK_NONE)
    printf("  mask %dx%d, %d classes, %s, %.1f%% foreground, placed at (%.0f, %.0f) %.0fx%.0f\n",
           r->mask.width, r->mask.height, r->mask.n_classes,
           meta->mask_texture ? "also a GL texture" : "CPU pixels", 100.0 * mask_coverage(&r->mask),
           r->mask.frame_x, r->mask.frame_y, r->mask.frame_w, r->mask.frame_h);
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
