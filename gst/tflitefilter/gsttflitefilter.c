/**
 * SECTION:element-tflitefilter
 * @title: tflitefilter
 *
 * Runs a TensorFlow Lite model (.tflite) on each video frame and attaches the decoded
 * results (classes, boxes, masks, keypoints) to the buffer as #GstTfliteMeta; the
 * video itself passes through unchanged. GL frames (memory:GLMemory, RGBA) go
 * zero-copy into the GL compute delegate on GStreamer's GL thread; system-memory
 * frames go to the CPU delegate, converted, resized and normalized in one pass.
 *
 * After each inference an element message "tflite-results" carries the results; when
 * the model is loaded a "tflite-model" message says which decoder was picked and which
 * delegate runs how many nodes (ops that fell back to the CPU are listed).
 *
 * On the GL path a segmentation mask stays on the GPU: the meta carries it as a GL
 * texture (#GstTfliteMeta.mask_texture, drawn by tfliteoverlay) with its size, kind and
 * placement, and from the second inference on no output is read back, so the element
 * never waits for the GPU. Those frames' meta has no CPU mask pixels and their
 * "tflite-results" message no "mask-fraction" / "mask-areas" (it says "mask-gpu-only");
 * set #GstTfliteFilter:gl-readback for CPU pixels on every frame. Other decoders always
 * read their outputs back.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 filesrc location=astronaut.png ! pngdec ! videoconvert ! \
 *   video/x-raw,format=RGBA ! tflitefilter model=selfie_segmentation.tflite ! fakesink -m
 * ]|
 *
 * Since: 0.1
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gsttflitefilter.h"

#include <string.h>

#include "gsttflitefilter_gl.h"
#include "gsttflitemeta.h"
#include "runtime/tfl_loader.h"

GST_DEBUG_CATEGORY(gst_tflite_filter_debug);
#define GST_CAT_DEFAULT gst_tflite_filter_debug
/* slow-path hints (CPU fallbacks) go to GStreamer's performance category */
GST_DEBUG_CATEGORY_STATIC(CAT_PERFORMANCE);

#define DEFAULT_DELEGATE GST_TFLITE_DELEGATE_AUTO
#define DEFAULT_THREADS 1
#define MAX_THREADS 64
#define DEFAULT_PRECISION GST_TFLITE_PRECISION_FP16
#define DEFAULT_DECODER TFL_DECODER_AUTO
#define DEFAULT_THRESHOLD 0.5f
#define DEFAULT_MAX_RESULTS 10
#define DEFAULT_IOU 0.3f
#define DEFAULT_INTERVAL 1
#define DEFAULT_QOS TRUE
#define DEFAULT_FIT FIT_STRETCH
#define DEFAULT_ANCHORS TFL_ANCHORS_AUTO
#define DEFAULT_GL_READBACK FALSE
#define NORM_FROM_MODEL -1.0f

enum {
  PROP_0,
  PROP_MODEL,
  PROP_LABELS,
  PROP_DELEGATE,
  PROP_THREADS,
  PROP_PRECISION,
  PROP_CACHE_DIR,
  PROP_DECODER,
  PROP_THRESHOLD,
  PROP_MAX_RESULTS,
  PROP_IOU_THRESHOLD,
  PROP_INFERENCE_INTERVAL,
  PROP_QOS,
  PROP_INPUT_MEAN,
  PROP_INPUT_STD,
  PROP_FIT,
  PROP_ANCHORS,
  PROP_LATENCY,
  PROP_GL_READBACK,
};

#define SYSMEM_FORMATS "{ RGBA, RGBx, BGRx, BGRA, RGB, I420, NV12 }"
#define CAPS_STR                                                                       \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES("memory:GLMemory", "RGBA") ", texture-target=2D; " \
  GST_VIDEO_CAPS_MAKE(SYSMEM_FORMATS)

static GstStaticPadTemplate sink_template =
  GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS(CAPS_STR));
static GstStaticPadTemplate src_template =
  GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(CAPS_STR));

G_DEFINE_TYPE(GstTfliteFilter, gst_tflite_filter, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE(tflitefilter, "tflitefilter", GST_RANK_NONE,
                                      GST_TYPE_TFLITE_FILTER,
                                      GST_DEBUG_CATEGORY_INIT(gst_tflite_filter_debug,
                                                              "tflitefilter", 0,
                                                              "TensorFlow Lite inference"));

/* ---- enum types for properties ---- */

static GType delegate_get_type(void)
{
  static GType t;
  static const GEnumValue values[] = {
    { GST_TFLITE_DELEGATE_AUTO, "GL for GL frames when available, else CPU", "auto" },
    { GST_TFLITE_DELEGATE_GL, "GL compute delegate (error if unavailable)", "gl" },
    { GST_TFLITE_DELEGATE_CPU, "CPU delegate", "cpu" },
    { 0, NULL, NULL },
  };
  if (g_once_init_enter(&t)) g_once_init_leave(&t, g_enum_register_static("GstTfliteDelegate", values));
  return t;
}

static GType precision_get_type(void)
{
  static GType t;
  static const GEnumValue values[] = {
    { GST_TFLITE_PRECISION_FP16, "16-bit float storage and math on the GPU", "fp16" },
    { GST_TFLITE_PRECISION_FP32, "32-bit float on the GPU", "fp32" },
    { 0, NULL, NULL },
  };
  if (g_once_init_enter(&t)) g_once_init_leave(&t, g_enum_register_static("GstTflitePrecision", values));
  return t;
}

static GType decoder_get_type(void)
{
  static GType t;
  static const GEnumValue values[] = {
    { TFL_DECODER_AUTO, "Pick from the model's output tensors", "auto" },
    { TFL_DECODER_NONE, "No decoding (raw inference only)", "none" },
    { TFL_DECODER_CLASSIFICATION, "Top-k classes", "classification" },
    { TFL_DECODER_DETECTION, "Boxes (SSD anchors, MediaPipe anchors, post-processed)", "detection" },
    { TFL_DECODER_SEGMENTATION, "Per-pixel class or probability mask", "segmentation" },
    { TFL_DECODER_POSE, "PoseNet keypoints", "pose" },
    { TFL_DECODER_LANDMARKS, "MediaPipe pose / hand / face landmarks", "landmarks" },
    { 0, NULL, NULL },
  };
  if (g_once_init_enter(&t)) g_once_init_leave(&t, g_enum_register_static("GstTfliteDecoder", values));
  return t;
}

static GType fit_get_type(void)
{
  static GType t;
  static const GEnumValue values[] = {
    { FIT_STRETCH, "Scale the whole frame to the input, aspect not kept", "stretch" },
    { FIT_LETTERBOX, "Whole frame, aspect kept, black bars", "letterbox" },
    { FIT_CROP, "Centre crop, aspect kept", "crop" },
    { 0, NULL, NULL },
  };
  if (g_once_init_enter(&t)) g_once_init_leave(&t, g_enum_register_static("GstTfliteFit", values));
  return t;
}

static GType anchors_get_type(void)
{
  static GType t;
  static const GEnumValue values[] = {
    { TFL_ANCHORS_AUTO, "From the model's anchor count and input size", "auto" },
    { TFL_ANCHORS_SSD_MOBILENET, "SSD MobileNet, 300x300, 1917 anchors", "ssd-mobilenet" },
    { TFL_ANCHORS_FACE_SHORT, "MediaPipe face detection, short range", "face-short" },
    { TFL_ANCHORS_FACE_FULL, "MediaPipe face detection, full range", "face-full" },
    { TFL_ANCHORS_POSE_DETECTION, "MediaPipe BlazePose person detector", "pose-detection" },
    { TFL_ANCHORS_PALM, "MediaPipe palm detector", "palm" },
    { 0, NULL, NULL },
  };
  if (g_once_init_enter(&t)) g_once_init_leave(&t, g_enum_register_static("GstTfliteAnchors", values));
  return t;
}

/* ---- runtime life cycle (streaming thread, or GL thread for the GL parts) ---- */

static void log_sink(tfl_log_level level, const char *msg, void *user)
{
  switch (level) {
  case TFL_LOG_ERROR: GST_ERROR("%s", msg); break;
  case TFL_LOG_WARNING: GST_WARNING("%s", msg); break;
  case TFL_LOG_INFO: GST_INFO("%s", msg); break;
  case TFL_LOG_DEBUG: GST_DEBUG("%s", msg); break;
  }
}

static GPtrArray *labels_from_text(const char *text)
{
  GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
  gchar **lines = g_strsplit(text, "\n", -1);
  guint n = g_strv_length(lines);
  while (n > 0 && lines[n - 1][0] == '\0') n--; /* trailing newline */
  for (guint i = 0; i < n; i++) g_ptr_array_add(a, g_strdup(g_strstrip(lines[i])));
  g_strfreev(lines);
  return a;
}

void gst_tflite_filter_release_runtime(GstTfliteFilter *self)
{
  gst_tflite_filter_gl_release(self); /* GL objects on the GL thread */
  tfl_interpreter_free(self->interp);
  self->interp = NULL;
  tfl_decoder_free(self->decoder);
  self->decoder = NULL;
  tfl_graph_free(self->graph);
  self->graph = NULL;
  if (self->labels) g_ptr_array_unref(self->labels);
  self->labels = NULL;
  tfl_results_clear(&self->last_results);
  self->have_last = FALSE;
}

static const char *dims_str(const tfl_tensor *t, char *buf, size_t size)
{
  size_t n = 0;
  buf[0] = '\0';
  for (int d = 0; d < t->ndim && n + 16 < size; d++)
    n += (size_t)g_snprintf(buf + n, size - n, "%s%d", d ? "," : "[", t->dims[d]);
  if (n + 2 < size) g_strlcat(buf, t->ndim ? "]" : "[]", size);
  return buf;
}

/* Loads the model, labels, normalization and decoder; the interpreter comes later
 * (build_interpreter), once caps say which path runs. */
static gboolean load_model(GstTfliteFilter *self)
{
  gchar *path, *labels_path;
  GST_OBJECT_LOCK(self);
  path = g_strdup(self->model_path);
  labels_path = g_strdup(self->labels_path);
  GST_OBJECT_UNLOCK(self);

  gboolean ok = FALSE;
  if (!path) {
    GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND, ("No model set."),
                      ("Set the 'model' property to a .tflite file."));
    goto out;
  }
  if (!g_file_test(path, G_FILE_TEST_IS_REGULAR)) {
    GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND, ("Model file \"%s\" does not exist.", path),
                      ("Set the 'model' property to a .tflite file."));
    goto out;
  }
  if (tfl_load_file(path, &self->graph) != TFL_OK) {
    GST_ELEMENT_ERROR(self, RESOURCE, OPEN_READ,
                      ("Could not load model \"%s\": not a valid .tflite file.", path),
                      ("%s", tfl_last_error()));
    goto out;
  }
  tfl_graph *g = self->graph;
  char dims[96];
  const tfl_tensor *in = g->n_inputs > 0 ? &g->tensors[g->inputs[0]] : NULL;
  if (!in || in->ndim != 4 || in->dims[0] != 1 || (in->dims[3] != 3 && in->dims[3] != 4) ||
      (in->type != TFL_TYPE_FLOAT32 && in->type != TFL_TYPE_UINT8 && in->type != TFL_TYPE_INT8)) {
    GST_ELEMENT_ERROR(self, STREAM, WRONG_TYPE, ("Model \"%s\" does not take an image.", path),
                      ("Its first input is %s %s; it must be [1, height, width, 3] float32, uint8 or int8.",
                       in ? tfl_type_name(in->type) : "missing", in ? dims_str(in, dims, sizeof dims) : ""));
    goto out;
  }

  /* labels: the property's file, else the model's embedded label file */
  if (labels_path) {
    gchar *text = NULL;
    GError *err = NULL;
    if (!g_file_get_contents(labels_path, &text, NULL, &err)) {
      GST_ELEMENT_ERROR(self, RESOURCE, OPEN_READ, ("Could not read labels \"%s\".", labels_path),
                        ("%s", err->message));
      g_clear_error(&err);
      goto out;
    }
    self->labels = labels_from_text(text);
    g_free(text);
  } else if (g->meta.labels) {
    self->labels = labels_from_text(g->meta.labels);
  }

  GST_OBJECT_LOCK(self);
  tfl_decoder_kind kind = self->decoder_kind;
  tfl_decoder_options opts = self->decoder_opts;
  GST_OBJECT_UNLOCK(self);
  char why[256] = "";
  if (kind == TFL_DECODER_AUTO) {
    kind = tfl_decoder_pick(g, why, sizeof why);
    GST_INFO_OBJECT(self, "decoder=auto picked '%s': %s", tfl_decoder_kind_name(kind), why);
  }

  /* normalization: the properties, else the model's metadata, else the range the
   * model family was trained with (tfl_decoder_input_range) */
  bool from_meta;
  pix_norm model_norm = preprocess_model_norm(g, kind, &from_meta);
  GST_OBJECT_LOCK(self);
  for (int c = 0; c < 3; c++) {
    self->norm.mean[c] = self->norm_mean[c] != NORM_FROM_MODEL ? self->norm_mean[c] : model_norm.mean[c];
    /* 0 would divide by 0 */
    self->norm.std[c] = self->norm_std[c] > 0.0f ? self->norm_std[c] : model_norm.std[c];
  }
  GST_OBJECT_UNLOCK(self);
  GST_INFO_OBJECT(self, "input normalization: (pixel - %g) / %g%s", self->norm.mean[0], self->norm.std[0],
                  from_meta ? " (model metadata)" : "");

  if (kind != TFL_DECODER_NONE && tfl_decoder_create(kind, g, &opts, &self->decoder) != TFL_OK) {
    GST_ELEMENT_ERROR(self, STREAM, WRONG_TYPE,
                      ("Model \"%s\" does not fit the '%s' decoder.", path, tfl_decoder_kind_name(kind)),
                      ("%s", tfl_last_error()));
    goto out;
  }
  ok = TRUE;
out:
  g_free(path);
  g_free(labels_path);
  return ok;
}

/* Posts "tflite-model": decoder, node counts per delegate, partitions, CPU fallbacks. */
static void post_model_message(GstTfliteFilter *self, const char *delegate_name)
{
  const tfl_graph *g = tfl_interpreter_graph(self->interp);
  int n_gl = 0, n_cpu = 0;
  GString *fallback = g_string_new(NULL);
  for (int i = 0; i < g->n_nodes; i++) {
    const char *d = tfl_interpreter_node_delegate(self->interp, i);
    if (!d) continue;
    if (!strcmp(d, "cpu")) {
      n_cpu++;
      if (self->accel) {
        const char *name = tfl_op_name(g->nodes[i].op);
        if (!strstr(fallback->str, name)) g_string_append_printf(fallback, "%s%s", fallback->len ? "," : "", name);
      }
    } else {
      n_gl++;
    }
  }
  int parts = tfl_interpreter_partition_count(self->interp);
  GST_INFO_OBJECT(self, "delegate %s: %d GL nodes, %d CPU nodes, %d partitions%s%s", delegate_name,
                  n_gl, n_cpu, parts, fallback->len ? "; CPU fallback: " : "", fallback->str);
  if (self->accel && n_cpu > 0)
    GST_CAT_WARNING_OBJECT(CAT_PERFORMANCE, self,
                           "model split into %d partitions: ops %s run on the CPU (slow)", parts,
                           fallback->str);
  GstStructure *s = gst_structure_new(
    "tflite-model", "model", G_TYPE_STRING, self->model_path, "decoder", G_TYPE_STRING,
    self->decoder ? tfl_decoder_kind_name(tfl_decoder_get_kind(self->decoder)) : "none",
    "delegate", G_TYPE_STRING, delegate_name, "gl-nodes", G_TYPE_INT, n_gl, "cpu-nodes",
    G_TYPE_INT, n_cpu, "partitions", G_TYPE_INT, parts, "cpu-fallback-ops", G_TYPE_STRING,
    fallback->str, "arena-bytes", G_TYPE_UINT64, (guint64)tfl_interpreter_arena_bytes(self->interp),
    NULL);
  gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), s));
  g_string_free(fallback, TRUE);
}

/* Builds the CPU interpreter (system-memory path, or GL path fallback). */
static gboolean build_cpu_interpreter(GstTfliteFilter *self)
{
  tfl_interp_options o = tfl_interp_defaults();
  GST_OBJECT_LOCK(self);
  o.threads = self->threads;
  GST_OBJECT_UNLOCK(self);
  if (tfl_interpreter_create(self->graph, &o, &self->interp) != TFL_OK) {
    GST_ELEMENT_ERROR(self, LIBRARY, INIT, ("Could not prepare model \"%s\" for the CPU.", self->model_path),
                      ("%s", tfl_last_error()));
    return FALSE;
  }
  post_model_message(self, "cpu");
  return TRUE;
}

static gboolean ensure_runtime(GstTfliteFilter *self, GstBuffer *buf)
{
  GST_OBJECT_LOCK(self);
  gboolean changed = self->settings_changed;
  self->settings_changed = FALSE;
  GstTfliteDelegate want = self->delegate_kind;
  GST_OBJECT_UNLOCK(self);
  if (changed) gst_tflite_filter_release_runtime(self);
  if (self->interp) return TRUE;
  if (!self->graph && !load_model(self)) return FALSE;

  if (!self->is_gl && want == GST_TFLITE_DELEGATE_GL) {
    GST_ELEMENT_ERROR(self, LIBRARY, INIT, ("delegate=gl needs GL frames, but these are in system memory."),
                      ("Put glupload before tflitefilter (caps video/x-raw(memory:GLMemory), RGBA), "
                       "or use delegate=auto or cpu."));
    return FALSE;
  }
  if (self->is_gl && want != GST_TFLITE_DELEGATE_CPU) {
    GError *err = NULL;
    if (gst_tflite_filter_gl_setup(self, buf, &err)) {
      post_model_message(self, "gl");
      return TRUE;
    }
    if (want == GST_TFLITE_DELEGATE_GL) {
      GST_ELEMENT_ERROR(self, LIBRARY, INIT, ("The GL delegate is not available."),
                        ("%s", err ? err->message : "unknown GL failure"));
      g_clear_error(&err);
      return FALSE;
    }
    GST_ELEMENT_WARNING(self, LIBRARY, INIT, ("GL delegate unavailable; running on the CPU."),
                        ("%s", err ? err->message : "unknown GL failure"));
    g_clear_error(&err);
    /* the failed attempt may have rewritten the graph: start from a fresh load */
    gst_tflite_filter_release_runtime(self);
    if (!load_model(self)) return FALSE;
  }
  return build_cpu_interpreter(self);
}

/* ---- per frame ---- */

static gboolean fill_input_from_sysmem(GstTfliteFilter *self, GstBuffer *buf, const tfl_transform *tr)
{
  GstVideoFrame frame;
  if (!gst_video_frame_map(&frame, &self->info, buf, GST_MAP_READ)) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Could not map the video frame."), (NULL));
    return FALSE;
  }
  pix_frame f = { 0 };
  switch (GST_VIDEO_INFO_FORMAT(&self->info)) {
  case GST_VIDEO_FORMAT_RGBA: f.format = PIX_RGBA; break;
  case GST_VIDEO_FORMAT_RGBx: f.format = PIX_RGBX; break;
  case GST_VIDEO_FORMAT_BGRx: f.format = PIX_BGRX; break;
  case GST_VIDEO_FORMAT_BGRA: f.format = PIX_BGRA; break;
  case GST_VIDEO_FORMAT_RGB: f.format = PIX_RGB; break;
  case GST_VIDEO_FORMAT_I420: f.format = PIX_I420; break;
  case GST_VIDEO_FORMAT_NV12: f.format = PIX_NV12; break;
  default:
    gst_video_frame_unmap(&frame);
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("Unsupported video format."), (NULL));
    return FALSE;
  }
  f.width = GST_VIDEO_FRAME_WIDTH(&frame);
  f.height = GST_VIDEO_FRAME_HEIGHT(&frame);
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&frame) && p < 3; p++) {
    f.plane[p] = GST_VIDEO_FRAME_PLANE_DATA(&frame, p);
    f.stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p);
  }
  int rc = preprocess_frame(&f, tr, &self->norm, tfl_interpreter_input(self->interp, 0));
  gst_video_frame_unmap(&frame);
  if (rc != 0) {
    GST_ELEMENT_ERROR(self, STREAM, WRONG_TYPE, ("The model's input cannot take an image."), (NULL));
    return FALSE;
  }
  return TRUE;
}

static gboolean decode_outputs(GstTfliteFilter *self, const tfl_transform *tr, tfl_results *res)
{
  if (!self->decoder) return TRUE;
  int n = tfl_interpreter_output_count(self->interp);
  const tfl_tensor *outs[16];
  if (n > 16) n = 16;
  for (int i = 0; i < n; i++) outs[i] = tfl_interpreter_output(self->interp, i);
  if (tfl_decoder_run(self->decoder, outs, n, tr, res) != TFL_OK) {
    GST_ELEMENT_ERROR(self, STREAM, DECODE, ("Could not decode the model's outputs."),
                      ("%s", tfl_last_error()));
    return FALSE;
  }
  return TRUE;
}

static void post_results(GstTfliteFilter *self, GstBuffer *buf, GstTfliteMeta *meta)
{
  GstStructure *s = gst_tflite_meta_to_structure(meta);
  gst_structure_set(s, "timestamp", G_TYPE_UINT64, GST_BUFFER_PTS(buf), "latency-ms", G_TYPE_DOUBLE,
                    self->last_latency_ms, NULL);
  if (self->accel && self->gl_frame_no_pixels)
    gst_structure_set(s, "mask-gpu-only", G_TYPE_BOOLEAN, TRUE, NULL);
  gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), s));
}

static gboolean is_late(GstTfliteFilter *self, GstBuffer *buf)
{
  if (!self->qos || !GST_CLOCK_TIME_IS_VALID(self->earliest_time)) return FALSE;
  GstClockTime rt = gst_segment_to_running_time(&GST_BASE_TRANSFORM(self)->segment, GST_FORMAT_TIME,
                                                GST_BUFFER_PTS(buf));
  return GST_CLOCK_TIME_IS_VALID(rt) && rt < self->earliest_time;
}

static GstFlowReturn gst_tflite_filter_transform_ip(GstBaseTransform *trans, GstBuffer *buf)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(trans);
  if (!ensure_runtime(self, buf)) return GST_FLOW_ERROR;

  const tfl_tensor *in = tfl_interpreter_input(self->interp, 0);
  tfl_transform tr = preprocess_transform(GST_VIDEO_INFO_WIDTH(&self->info),
                                          GST_VIDEO_INFO_HEIGHT(&self->info), in->dims[2],
                                          in->dims[1], self->fit);
  guint interval = self->inference_interval ? self->inference_interval : 1;
  gboolean run = !self->have_last || (self->frame_count % interval == 0 && !is_late(self, buf));
  self->frame_count++;

  tfl_results res = { 0 };
  if (run) {
    gint64 t0 = g_get_monotonic_time();
    if (self->accel) {
      GError *err = NULL;
      if (!gst_tflite_filter_gl_infer(self, buf, &tr, &err)) {
        GST_ELEMENT_ERROR(self, LIBRARY, FAILED, ("GL inference failed."),
                          ("%s", err ? err->message : "unknown"));
        g_clear_error(&err);
        return GST_FLOW_ERROR;
      }
    } else {
      if (!fill_input_from_sysmem(self, buf, &tr)) return GST_FLOW_ERROR;
      if (tfl_interpreter_invoke(self->interp) != TFL_OK) {
        GST_ELEMENT_ERROR(self, LIBRARY, FAILED, ("Inference failed."), ("%s", tfl_last_error()));
        return GST_FLOW_ERROR;
      }
    }
    self->last_latency_ms = (double)(g_get_monotonic_time() - t0) / 1000.0;
    GST_LOG_OBJECT(self, "inference took %.3f ms", self->last_latency_ms);
    /* a mask left on the GPU has no pixels to decode: its geometry only */
    gboolean gpu_only = self->accel && gst_tflite_filter_gl_mask_without_pixels(self, &tr, &res);
    if (!gpu_only && !decode_outputs(self, &tr, &res)) return GST_FLOW_ERROR;
    tfl_results_clear(&self->last_results);
    tfl_results_copy(&self->last_results, &res);
    self->have_last = TRUE;
  } else {
    tfl_results_copy(&res, &self->last_results);
  }

  GstTfliteMeta *meta = gst_buffer_add_tflite_meta(buf, &res, self->labels,
                                                   GST_VIDEO_INFO_WIDTH(&self->info),
                                                   GST_VIDEO_INFO_HEIGHT(&self->info));
  if (self->accel) gst_tflite_filter_gl_attach_mask(self, meta);
  if (run) post_results(self, buf, meta);
  return GST_FLOW_OK;
}

/* ---- negotiation and state ---- */

static gboolean gst_tflite_filter_set_caps(GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(trans);
  GstVideoInfo info;
  if (!gst_video_info_from_caps(&info, incaps)) {
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("Could not parse caps %" GST_PTR_FORMAT, incaps), (NULL));
    return FALSE;
  }
  GstCapsFeatures *f = gst_caps_get_features(incaps, 0);
  gboolean is_gl = f && gst_caps_features_contains(f, "memory:GLMemory");
  if (self->interp && is_gl != self->is_gl) gst_tflite_filter_release_runtime(self);
  self->info = info;
  self->is_gl = is_gl;
  GST_DEBUG_OBJECT(self, "caps %" GST_PTR_FORMAT " (%s path)", incaps, is_gl ? "GL" : "system memory");
  return TRUE;
}

static gboolean gst_tflite_filter_src_event(GstBaseTransform *trans, GstEvent *event)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(trans);
  if (GST_EVENT_TYPE(event) == GST_EVENT_QOS) {
    GstClockTimeDiff diff;
    GstClockTime ts;
    gst_event_parse_qos(event, NULL, NULL, &diff, &ts);
    GST_OBJECT_LOCK(self);
    /* skip inference on frames due before ts + 2*diff: we are that late */
    self->earliest_time = diff > 0 ? ts + 2 * diff : GST_CLOCK_TIME_NONE;
    GST_OBJECT_UNLOCK(self);
  }
  return GST_BASE_TRANSFORM_CLASS(gst_tflite_filter_parent_class)->src_event(trans, event);
}

static gboolean gst_tflite_filter_start(GstBaseTransform *trans)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(trans);
  tfl_set_log_sink(log_sink, NULL);
  self->frame_count = 0;
  self->earliest_time = GST_CLOCK_TIME_NONE;
  /* load now so a missing or corrupt model fails the state change; the properties
   * read here need no second load at the first buffer */
  GST_OBJECT_LOCK(self);
  self->settings_changed = FALSE;
  GST_OBJECT_UNLOCK(self);
  return load_model(self);
}

static gboolean gst_tflite_filter_stop(GstBaseTransform *trans)
{
  gst_tflite_filter_release_runtime(GST_TFLITE_FILTER(trans));
  return TRUE;
}

/* ---- properties ---- */

static void gst_tflite_filter_set_property(GObject *object, guint prop_id, const GValue *value,
                                           GParamSpec *pspec)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(object);
  GST_OBJECT_LOCK(self);
  switch (prop_id) {
  case PROP_MODEL: g_free(self->model_path); self->model_path = g_value_dup_string(value); break;
  case PROP_LABELS: g_free(self->labels_path); self->labels_path = g_value_dup_string(value); break;
  case PROP_DELEGATE: self->delegate_kind = g_value_get_enum(value); break;
  case PROP_THREADS: self->threads = g_value_get_int(value); break;
  case PROP_PRECISION: self->precision = g_value_get_enum(value); break;
  case PROP_CACHE_DIR: g_free(self->cache_dir); self->cache_dir = g_value_dup_string(value); break;
  case PROP_DECODER: self->decoder_kind = g_value_get_enum(value); break;
  case PROP_THRESHOLD: self->decoder_opts.threshold = g_value_get_float(value); break;
  case PROP_MAX_RESULTS: self->decoder_opts.max_results = g_value_get_int(value); break;
  case PROP_IOU_THRESHOLD: self->decoder_opts.iou_threshold = g_value_get_float(value); break;
  case PROP_INFERENCE_INTERVAL: self->inference_interval = g_value_get_uint(value); break;
  case PROP_QOS: self->qos = g_value_get_boolean(value); break;
  case PROP_INPUT_MEAN:
    for (int c = 0; c < 3; c++) self->norm_mean[c] = g_value_get_float(value);
    break;
  case PROP_INPUT_STD:
    for (int c = 0; c < 3; c++) self->norm_std[c] = g_value_get_float(value);
    break;
  case PROP_FIT: self->fit = g_value_get_enum(value); break;
  case PROP_ANCHORS: self->decoder_opts.anchors = g_value_get_enum(value); break;
  case PROP_GL_READBACK: self->gl_readback = g_value_get_boolean(value); break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    GST_OBJECT_UNLOCK(self);
    return;
  }
  /* every setting but the per-frame ones needs the runtime rebuilt */
  if (prop_id != PROP_INFERENCE_INTERVAL && prop_id != PROP_QOS && prop_id != PROP_GL_READBACK)
    self->settings_changed = TRUE;
  GST_OBJECT_UNLOCK(self);
}

static void gst_tflite_filter_get_property(GObject *object, guint prop_id, GValue *value,
                                           GParamSpec *pspec)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(object);
  GST_OBJECT_LOCK(self);
  switch (prop_id) {
  case PROP_MODEL: g_value_set_string(value, self->model_path); break;
  case PROP_LABELS: g_value_set_string(value, self->labels_path); break;
  case PROP_DELEGATE: g_value_set_enum(value, self->delegate_kind); break;
  case PROP_THREADS: g_value_set_int(value, self->threads); break;
  case PROP_PRECISION: g_value_set_enum(value, self->precision); break;
  case PROP_CACHE_DIR: g_value_set_string(value, self->cache_dir); break;
  case PROP_DECODER: g_value_set_enum(value, self->decoder_kind); break;
  case PROP_THRESHOLD: g_value_set_float(value, self->decoder_opts.threshold); break;
  case PROP_MAX_RESULTS: g_value_set_int(value, self->decoder_opts.max_results); break;
  case PROP_IOU_THRESHOLD: g_value_set_float(value, self->decoder_opts.iou_threshold); break;
  case PROP_INFERENCE_INTERVAL: g_value_set_uint(value, self->inference_interval); break;
  case PROP_QOS: g_value_set_boolean(value, self->qos); break;
  case PROP_INPUT_MEAN: g_value_set_float(value, self->norm_mean[0]); break;
  case PROP_INPUT_STD: g_value_set_float(value, self->norm_std[0]); break;
  case PROP_FIT: g_value_set_enum(value, self->fit); break;
  case PROP_ANCHORS: g_value_set_enum(value, self->decoder_opts.anchors); break;
  case PROP_LATENCY: g_value_set_double(value, self->last_latency_ms); break;
  case PROP_GL_READBACK: g_value_set_boolean(value, self->gl_readback); break;
  default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec); break;
  }
  GST_OBJECT_UNLOCK(self);
}

static void gst_tflite_filter_finalize(GObject *object)
{
  GstTfliteFilter *self = GST_TFLITE_FILTER(object);
  gst_tflite_filter_release_runtime(self);
  g_free(self->model_path);
  g_free(self->labels_path);
  g_free(self->cache_dir);
  G_OBJECT_CLASS(gst_tflite_filter_parent_class)->finalize(object);
}

static void gst_tflite_filter_class_init(GstTfliteFilterClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = gst_tflite_filter_set_property;
  gobject_class->get_property = gst_tflite_filter_get_property;
  gobject_class->finalize = gst_tflite_filter_finalize;

  g_object_class_install_property(gobject_class, PROP_MODEL,
    g_param_spec_string("model", "Model", "Path of the .tflite model file", NULL, rw));
  g_object_class_install_property(gobject_class, PROP_LABELS,
    g_param_spec_string("labels", "Labels",
                        "Label file, one label per line, line N = class N "
                        "(default: the label file embedded in the model's metadata)", NULL, rw));
  g_object_class_install_property(gobject_class, PROP_DELEGATE,
    g_param_spec_enum("delegate", "Delegate", "Where the model runs", delegate_get_type(),
                      DEFAULT_DELEGATE, rw));
  g_object_class_install_property(gobject_class, PROP_THREADS,
    g_param_spec_int("threads", "Threads", "CPU threads for the CPU delegate", 1, MAX_THREADS,
                     DEFAULT_THREADS, rw));
  g_object_class_install_property(gobject_class, PROP_PRECISION,
    g_param_spec_enum("precision", "Precision", "GL delegate float precision",
                      precision_get_type(), DEFAULT_PRECISION, rw));
  g_object_class_install_property(gobject_class, PROP_CACHE_DIR,
    g_param_spec_string("cache-dir", "Cache directory",
                        "Directory for compiled GL programs (NULL: no disk cache)", NULL, rw));
  g_object_class_install_property(gobject_class, PROP_DECODER,
    g_param_spec_enum("decoder", "Decoder", "How the model's outputs are turned into results",
                      decoder_get_type(), DEFAULT_DECODER, rw));
  g_object_class_install_property(gobject_class, PROP_THRESHOLD,
    g_param_spec_float("threshold", "Threshold", "Minimum score (0..1) of a reported result", 0.0f,
                       1.0f, DEFAULT_THRESHOLD, rw));
  g_object_class_install_property(gobject_class, PROP_MAX_RESULTS,
    g_param_spec_int("max-results", "Max results", "Most classes, boxes or poses per frame", 1,
                     1000, DEFAULT_MAX_RESULTS, rw));
  g_object_class_install_property(gobject_class, PROP_IOU_THRESHOLD,
    g_param_spec_float("iou-threshold", "IoU threshold",
                       "Non-max suppression: boxes overlapping more than this (0..1) are merged",
                       0.0f, 1.0f, DEFAULT_IOU, rw));
  g_object_class_install_property(gobject_class, PROP_INFERENCE_INTERVAL,
    g_param_spec_uint("inference-interval", "Inference interval",
                      "Run the model on every Nth frame; others reuse the last results", 1, 1000,
                      DEFAULT_INTERVAL, rw));
  g_object_class_override_property(gobject_class, PROP_QOS, "qos");
  g_object_class_install_property(gobject_class, PROP_INPUT_MEAN,
    g_param_spec_float("input-mean", "Input mean",
                       "Float inputs get (pixel - mean) / std, pixel 0..255 (-1: from the model's "
                       "metadata, else by model family: 0 for MediaPipe landmark, selfie and palm "
                       "models (input 0..1), 127.5 for the others (input -1..1))", -1.0f, 255.0f,
                       NORM_FROM_MODEL, rw));
  g_object_class_install_property(gobject_class, PROP_INPUT_STD,
    g_param_spec_float("input-std", "Input std",
                       "Divisor of the input normalization (-1: from the model's metadata, else by "
                       "model family: 255 where input-mean is 0, else 127.5)",
                       -1.0f, 65535.0f, NORM_FROM_MODEL, rw));
  g_object_class_install_property(gobject_class, PROP_FIT,
    g_param_spec_enum("fit", "Fit", "How the frame is fitted to the model's input size",
                      fit_get_type(), DEFAULT_FIT, rw));
  g_object_class_install_property(gobject_class, PROP_ANCHORS,
    g_param_spec_enum("anchors", "Anchors", "Anchor layout for detectors with raw box outputs",
                      anchors_get_type(), DEFAULT_ANCHORS, rw));
  g_object_class_install_property(gobject_class, PROP_LATENCY,
    g_param_spec_double("latency", "Latency",
                        "Duration of the last inference in milliseconds (a GL inference whose "
                        "mask stays on the GPU: the time to submit it, the GPU finishes later)",
                        0, G_MAXDOUBLE, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property(gobject_class, PROP_GL_READBACK,
    g_param_spec_boolean("gl-readback", "GL readback",
                         "GL path, segmentation: also read the mask back to the CPU on every "
                         "frame (meta mask pixels, mask-fraction / mask-areas in every message, "
                         "one CPU-GPU sync per frame). FALSE: the mask stays a GL texture after "
                         "the first inference, for GL consumers such as tfliteoverlay",
                         DEFAULT_GL_READBACK, rw));

  gst_element_class_set_static_metadata(element_class, "TensorFlow Lite filter",
    "Filter/Analyzer/Video", "Runs a .tflite model on video frames and attaches the results as meta",
    "gst-tflite developers");
  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &src_template);

  trans_class->passthrough_on_same_caps = TRUE;
  trans_class->transform_ip_on_passthrough = TRUE;
  trans_class->transform_ip = gst_tflite_filter_transform_ip;
  trans_class->set_caps = gst_tflite_filter_set_caps;
  trans_class->src_event = gst_tflite_filter_src_event;
  trans_class->start = gst_tflite_filter_start;
  trans_class->stop = gst_tflite_filter_stop;

  GST_DEBUG_CATEGORY_GET(CAT_PERFORMANCE, "GST_PERFORMANCE");
  gst_type_mark_as_plugin_api(delegate_get_type(), 0);
  gst_type_mark_as_plugin_api(precision_get_type(), 0);
  gst_type_mark_as_plugin_api(decoder_get_type(), 0);
  gst_type_mark_as_plugin_api(fit_get_type(), 0);
  gst_type_mark_as_plugin_api(anchors_get_type(), 0);
}

static void gst_tflite_filter_init(GstTfliteFilter *self)
{
  self->delegate_kind = DEFAULT_DELEGATE;
  self->threads = DEFAULT_THREADS;
  self->precision = DEFAULT_PRECISION;
  self->decoder_kind = DEFAULT_DECODER;
  self->decoder_opts = tfl_decoder_defaults();
  self->decoder_opts.threshold = DEFAULT_THRESHOLD;
  self->decoder_opts.max_results = DEFAULT_MAX_RESULTS;
  self->decoder_opts.iou_threshold = DEFAULT_IOU;
  self->decoder_opts.anchors = DEFAULT_ANCHORS;
  self->inference_interval = DEFAULT_INTERVAL;
  self->qos = DEFAULT_QOS;
  self->fit = DEFAULT_FIT;
  self->gl_readback = DEFAULT_GL_READBACK;
  for (int c = 0; c < 3; c++) self->norm_mean[c] = self->norm_std[c] = NORM_FROM_MODEL;
  self->earliest_time = GST_CLOCK_TIME_NONE;
  gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
  /* QoS here means skipping inference, never dropping frames */
  gst_base_transform_set_qos_enabled(GST_BASE_TRANSFORM(self), FALSE);
}
