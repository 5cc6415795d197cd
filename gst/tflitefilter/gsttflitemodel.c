/* gsttflitemodel.c - see gsttflitemodel.h */
#include "gsttflitemodel.h"

#include <string.h>

#include "policy/tfl_family.h"
#include "runtime/tfl_file.h"
#include "runtime/tfl_loader.h"
#include "runtime/tfl_passes.h"

GST_DEBUG_CATEGORY_EXTERN(gst_tflite_filter_debug);
#define GST_CAT_DEFAULT gst_tflite_filter_debug

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

static const char *dims_str(const tfl_tensor *t, char *buf, size_t size)
{
  size_t n = 0;
  buf[0] = '\0';
  for (int d = 0; d < t->ndim && n + 16 < size; d++)
    n += (size_t)g_snprintf(buf + n, size - n, "%s%d", d ? "," : "[", t->dims[d]);
  if (n + 2 < size) g_strlcat(buf, t->ndim ? "]" : "[]", size);
  return buf;
}

static gboolean takes_image(GstElement *element, const char *path, const tfl_graph *g)
{
  char dims[96];
  const tfl_tensor *in = g->n_inputs > 0 ? &g->tensors[g->inputs[0]] : NULL;
  if (in && in->ndim == 4 && in->dims[0] == 1 && (in->dims[3] == 3 || in->dims[3] == 4) &&
      (in->type == TFL_TYPE_FLOAT32 || in->type == TFL_TYPE_UINT8 || in->type == TFL_TYPE_INT8))
    return TRUE;
  GST_ELEMENT_ERROR(element, STREAM, WRONG_TYPE, ("Model \"%s\" does not take an image.", path),
                    ("Its first input is %s %s; it must be [1, height, width, 3] float32, uint8 or int8.",
                     in ? tfl_type_name(in->type) : "missing", in ? dims_str(in, dims, sizeof dims) : ""));
  return FALSE;
}

/* The property's file, else the .modelinfo's, else the model's embedded label file, else
 * none. */
static gboolean read_labels(GstElement *element, const GstTfliteModelSettings *settings, const GstTfliteModel *m,
                            GPtrArray **out)
{
  *out = NULL;
  const tfl_graph *g = m->graph;
  GstTfliteModelSettings from_info = *settings;
  if (!settings->labels_path && m->has_info) from_info.labels_path = m->info.labels_path;
  const GstTfliteModelSettings *s = &from_info;
  if (!s->labels_path) {
    if (g->meta.labels) *out = labels_from_text(g->meta.labels);
    return TRUE;
  }
  /* a regular file of bounded size: /dev/zero or a FIFO must not hang the state change */
  char *text = NULL;
  size_t len = 0;
  tfl_diag d;
  tfl_diag_init(&d);
  if (tfl_file_read(s->labels_path, "labels", GST_TFLITE_LABELS_MAX_BYTES, &text, &len, &d) != TFL_OK) {
    GST_ELEMENT_ERROR(element, RESOURCE, OPEN_READ, ("Could not read labels \"%s\".", s->labels_path),
                      ("%s", d.error));
    return FALSE;
  }
  *out = labels_from_text(text);
  free(text);
  return TRUE;
}

/* The properties, else the model's (preprocess_model_norm: its metadata, else the range
 * its family was trained with). */
static void pick_norm(GstElement *element, const GstTfliteModelSettings *s, GstTfliteModel *m)
{
  bool from_meta;
  /* decoder=tensors: the input the recognized family was trained with all the same */
  tfl_decoder_kind k = m->decoder_kind == TFL_DECODER_TENSORS && m->family ? m->family->decoder : m->decoder_kind;
  pix_norm model_norm = preprocess_model_norm(m->graph, k, &from_meta);
  if (m->has_info && m->info.has_ranges)
    for (int c = 0; c < 3; c++) {
      model_norm.mean[c] = m->info.mean[c];
      model_norm.std[c] = m->info.std[c];
    }
  for (int c = 0; c < 3; c++) {
    m->norm.mean[c] = s->norm_mean[c] != GST_TFLITE_NORM_FROM_MODEL ? s->norm_mean[c] : model_norm.mean[c];
    /* 0 would divide by 0 */
    m->norm.std[c] = s->norm_std[c] > 0.0f ? s->norm_std[c] : model_norm.std[c];
  }
  m->fit = preprocess_model_fit(m->graph, k);
  GST_INFO_OBJECT(element, "input normalization: (pixel - %g) / %g%s; fit=auto is %s", m->norm.mean[0],
                  m->norm.std[0], m->has_info && m->info.has_ranges ? " (.modelinfo ranges)"
                                  : from_meta ? " (model metadata)" : "",
                  m->fit == FIT_LETTERBOX_GREY ? "letterbox-grey" : m->fit == FIT_CROP ? "crop" : m->fit == FIT_LETTERBOX ? "letterbox" : "stretch");
}

/* The decoder the property names, else the family table's (policy/tfl_family.h): a
 * known model silently, a guess from output shapes with a warning naming it. */
static void pick_decoder(GstElement *element, const GstTfliteModelSettings *s, GstTfliteModel *m)
{
  char why[256] = "";
  tfl_family_match match;
  m->family = tfl_family_identify(m->graph, &match, why, sizeof why);
  m->decoder_kind = s->decoder_kind;
  if (m->decoder_kind != TFL_DECODER_AUTO) {
    /* the user knows better (decoder=tensors keeps the family for the input it takes) */
    if (m->family && m->family->decoder != m->decoder_kind && m->decoder_kind != TFL_DECODER_TENSORS) m->family = NULL;
    return;
  }
  m->decoder_kind = m->family ? m->family->decoder : TFL_DECODER_NONE;
  /* a .modelinfo's tensor ids say it (GStreamer's tensor decoders' ids) */
  const gchar *id = NULL;
  tfl_decoder_kind from_info = m->has_info ? gst_tflite_modelinfo_decoder(&m->info, &id) : TFL_DECODER_AUTO;
  if (from_info != TFL_DECODER_AUTO) {
    if (m->family && m->family->decoder != from_info) m->family = NULL;
    m->decoder_kind = from_info;
    GST_INFO_OBJECT(element, "decoder=auto: tensor id '%s' in %s, decoder '%s'", id, m->info.path,
                    tfl_decoder_kind_name(from_info));
    return;
  }
  switch (match) {
  case TFL_FAMILY_KNOWN:
    GST_INFO_OBJECT(element, "decoder=auto: %s, decoder '%s'", why, tfl_decoder_kind_name(m->decoder_kind));
    break;
  case TFL_FAMILY_GUESS:
    GST_ELEMENT_WARNING(element, STREAM, DECODE, ("decoder=auto %s.", why),
                        ("\"%s\" is not a model family we know; set the 'decoder' property to choose.",
                         s->model_path));
    break;
  case TFL_FAMILY_NONE:
    GST_ELEMENT_WARNING(element, STREAM, DECODE, ("decoder=auto found no decoder: %s.", why),
                        ("\"%s\" gives no results; set the 'decoder' property to choose one.", s->model_path));
    break;
  }
}

/* A label file that does not fit the model's classes is a warning (classes past its end
 * show their id); a single-class detector without labels gets its class's name. */
static void check_labels(GstElement *element, const GstTfliteModelSettings *s, GstTfliteModel *m)
{
  if (!m->labels && m->family && m->family->label) {
    m->labels = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(m->labels, g_strdup(m->family->label));
    return;
  }
  int classes = tfl_family_class_count(m->graph, m->decoder_kind);
  if (!m->labels || classes < 0 || (int)m->labels->len == classes) return;
  GST_ELEMENT_WARNING(element, RESOURCE, READ,
                      ("Label file \"%s\" has %u labels but the model gives %d classes.",
                       s->labels_path ? s->labels_path : "(embedded in the model)", m->labels->len, classes),
                      ("%s", (int)m->labels->len < classes ? "Classes past the end of the file show their id (#N)."
                                                            : "The extra labels are never used."));
}

gboolean gst_tflite_model_load(GstElement *element, const GstTfliteModelSettings *s, tfl_diag *diag, GstTfliteModel *m)
{
  memset(m, 0, sizeof *m);
  const gchar *path = s->model_path;
  if (!path) {
    GST_ELEMENT_ERROR(element, RESOURCE, NOT_FOUND, ("No model set."), ("Set the 'model' property to a .tflite file."));
    return FALSE;
  }
  /* says what the path is when it is no file: missing, a directory, a FIFO, a device */
  if (tfl_file_check(path, "model", diag) != TFL_OK) {
    const char *is = strstr(diag->error, ": is ");
    if (g_str_has_suffix(diag->error, "does not exist"))
      GST_ELEMENT_ERROR(element, RESOURCE, NOT_FOUND, ("Model file \"%s\" does not exist.", path),
                        ("Set the 'model' property to a .tflite file."));
    else
      GST_ELEMENT_ERROR(element, RESOURCE, OPEN_READ, ("Model \"%s\" %s.", path, is ? is + 2 : "cannot be read"),
                        ("%s. Set the 'model' property to a .tflite file.", diag->error));
    return FALSE;
  }
  tfl_status ls = tfl_load_file(path, &m->graph, diag);
  if (ls == TFL_ERR_UNSUPPORTED) {
    /* a valid file with something we lack (an operator, a type): name it in the message
     * itself, where gst-launch and the application see it */
    GST_ELEMENT_ERROR(element, RESOURCE, OPEN_READ,
                      ("Could not load model \"%s\": it uses what this plugin cannot run: %s.", path, diag->error),
                      ("tflite-inspect --ops lists the operators and types each delegate runs."));
    goto fail;
  }
  if (ls != TFL_OK) {
    GST_ELEMENT_ERROR(element, RESOURCE, OPEN_READ,
                      ("Could not load model \"%s\": not a valid .tflite file (%s).", path, diag->error),
                      ("%s", diag->error));
    goto fail;
  }
  /* a PyTorch-style NCHW input: the preprocessing writes NHWC, the transpose goes (the
   * engine's graphs get the same edit: gsttfliteengine.c) */
  if (tfl_pass_nhwc_input(m->graph, 0)) GST_INFO_OBJECT(element, "NCHW input: frames are written NHWC, its TRANSPOSE skipped");
  /* an input whose size the file leaves open gets its family's (the engine's graphs too) */
  bool sized = false;
  if (tfl_family_size_input(m->graph, &sized, diag) != TFL_OK) {
    GST_ELEMENT_ERROR(element, RESOURCE, OPEN_READ, ("Model \"%s\" cannot run.", path), ("%s", diag->error));
    goto fail;
  }
  if (sized) {
    const tfl_tensor *in = &m->graph->tensors[m->graph->inputs[0]];
    GST_INFO_OBJECT(element, "input size open in the file: %dx%d, its family's", in->dims[2], in->dims[1]);
  }
  /* the rest of the model's checks (shapes, value ranges) now, not at the first frame: a
   * bad model fails the state change */
  if (tfl_graph_prepare(m->graph, diag) != TFL_OK) {
    GST_ELEMENT_ERROR(element, RESOURCE, OPEN_READ, ("Model \"%s\" cannot run.", path), ("%s", diag->error));
    goto fail;
  }
  /* a .modelinfo beside the model describes what its file does not say */
  GError *err = NULL;
  m->has_info = gst_tflite_modelinfo_load(path, m->graph, &m->info, &err);
  if (err) {
    GST_ELEMENT_ERROR(element, RESOURCE, SETTINGS, ("Model description for \"%s\" is wrong: %s", path, err->message),
                      ("The .modelinfo format: docs/bring-your-own-model.md."));
    g_clear_error(&err);
    goto fail;
  }
  if (m->has_info) GST_INFO_OBJECT(element, "model description %s", m->info.path);
  if (!takes_image(element, path, m->graph) || !read_labels(element, s, m, &m->labels)) goto fail;
  pick_decoder(element, s, m);
  check_labels(element, s, m);
  pick_norm(element, s, m);
  return TRUE;
fail:
  gst_tflite_model_clear(m);
  return FALSE;
}

void gst_tflite_model_clear(GstTfliteModel *m)
{
  tfl_graph_free(m->graph);
  if (m->labels) g_ptr_array_unref(m->labels);
  gst_tflite_modelinfo_clear(&m->info);
  memset(m, 0, sizeof *m);
}

void gst_tflite_model_settings_clear(GstTfliteModelSettings *s)
{
  g_free(s->model_path);
  g_free(s->labels_path);
  memset(s, 0, sizeof *s);
}
