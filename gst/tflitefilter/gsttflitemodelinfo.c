/* gsttflitemodelinfo.c - see gsttflitemodelinfo.h */
#include "gsttflitemodelinfo.h"

#include <string.h>

#define INFO_GROUP "modelinfo"

/* GStreamer's GstTensorDataType names of the types a .tflite tensor has */
static const struct {
  const char *name;
  tfl_type type;
} type_names[] = {
  { "float32", TFL_TYPE_FLOAT32 }, { "float16", TFL_TYPE_FLOAT16 }, { "int32", TFL_TYPE_INT32 },
  { "uint8", TFL_TYPE_UINT8 },     { "int64", TFL_TYPE_INT64 },     { "int16", TFL_TYPE_INT16 },
  { "int8", TFL_TYPE_INT8 },
};

/* GStreamer's tensor decoders' ids (gst-plugins-bad gst/tensordecoders) and ours for them */
static const struct {
  const char *id;
  tfl_decoder_kind kind;
} id_decoders[] = {
  { "classification-generic-out", TFL_DECODER_CLASSIFICATION },
  { "classification-generic-softmaxed-out", TFL_DECODER_CLASSIFICATION },
  { "ssd-mobilenet-v1-variant-1-out-boxes", TFL_DECODER_DETECTION },
  { "ssd-mobilenet-v1-variant-1-out-scores", TFL_DECODER_DETECTION },
  { "ssd-mobilenet-v1-variant-1-out-classes", TFL_DECODER_DETECTION },
  { "generic-variant-1-out-count", TFL_DECODER_DETECTION },
  { "yolo-v8-out", TFL_DECODER_DETECTION },
  { "yolo-v8-segmentation-out-detections", TFL_DECODER_DETECTION },
  { "yolo-v8-segmentation-out-protos", TFL_DECODER_DETECTION },
  { "yolo-v8-obb-out", TFL_DECODER_DETECTION },
  { "yolo-26-end2end-out", TFL_DECODER_DETECTION },
};

static gboolean fail(GError **err, const gchar *path, const gchar *group, const gchar *key, const gchar *fmt, ...)
  G_GNUC_PRINTF(5, 6);
static gboolean fail(GError **err, const gchar *path, const gchar *group, const gchar *key, const gchar *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  gchar *what = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_set_error(err, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS, "%s: [%s]%s%s: %s", path, group,
              key ? " " : "", key ? key : "", what);
  g_free(what);
  return FALSE;
}

static gchar *find_file(const gchar *model_path)
{
  gchar *p = g_strconcat(model_path, ".modelinfo", NULL);
  if (g_file_test(p, G_FILE_TEST_EXISTS)) return p;
  g_free(p);
  const gchar *base = strrchr(model_path, '/');
  const gchar *dot = strrchr(base ? base : model_path, '.');
  if (!dot) return NULL;
  gchar *stem = g_strndup(model_path, (gsize)(dot - model_path));
  p = g_strconcat(stem, ".modelinfo", NULL);
  g_free(stem);
  if (g_file_test(p, G_FILE_TEST_EXISTS)) return p;
  g_free(p);
  return NULL;
}

static gboolean check_version(GKeyFile *kf, const gchar *path, GError **err)
{
  if (!g_key_file_has_group(kf, INFO_GROUP))
    return fail(err, path, INFO_GROUP, NULL, "missing (it holds version=1.x)");
  gchar *v = g_key_file_get_string(kf, INFO_GROUP, "version", NULL);
  gchar *end = NULL;
  gint64 major = v ? g_ascii_strtoll(v, &end, 10) : 0;
  gboolean ok = v && end != v && major == 1 && *end == '.' && g_ascii_isdigit(end[1]);
  if (!ok) fail(err, path, INFO_GROUP, "version", "'%s': this reader takes version 1.x", v ? v : "(missing)");
  g_free(v);
  return ok;
}

/* Graph tensor index of group `name` (dir: inputs or outputs): by its name, else the k-th
 * group of that direction is the k-th tensor; -1 when neither exists. *pos: its position. */
static int find_tensor(const tfl_graph *g, gboolean input, const gchar *name, int k, int *pos)
{
  int n = input ? g->n_inputs : g->n_outputs;
  const int *ids = input ? g->inputs : g->outputs;
  for (int i = 0; i < n; i++)
    if (g->tensors[ids[i]].name && !strcmp(g->tensors[ids[i]].name, name)) return ids[*pos = i];
  if (k < n) return ids[*pos = k];
  return -1;
}

static gboolean check_dims(GKeyFile *kf, const gchar *path, const gchar *group, const tfl_tensor *t, gboolean input,
                           GError **err)
{
  if (!g_key_file_has_key(kf, group, "dims", NULL)) return TRUE;
  gsize n = 0;
  GError *e = NULL;
  gint *d = g_key_file_get_integer_list(kf, group, "dims", &n, &e);
  if (!d) {
    gchar *raw = g_key_file_get_value(kf, group, "dims", NULL);
    fail(err, path, group, "dims", "'%s' is not a list of integers", raw ? raw : "");
    g_free(raw);
    g_clear_error(&e);
    return FALSE;
  }
  /* an input may be described as the file has it, NCHW, where frames are written NHWC */
  static const int nchw[4] = { 0, 3, 1, 2 };
  gboolean same = n == (gsize)t->ndim, as_nchw = input && n == 4 && t->ndim == 4;
  for (gsize i = 0; i < n && (same || as_nchw); i++) {
    if (d[i] < 0) continue;
    same = same && d[i] == t->dims[i];
    as_nchw = as_nchw && d[i] == t->dims[nchw[i]];
  }
  gboolean ok = same || as_nchw;
  if (!ok) {
    GString *want = g_string_new(NULL), *have = g_string_new(NULL);
    for (gsize i = 0; i < n; i++) g_string_append_printf(want, "%s%d", i ? "," : "", d[i]);
    for (int i = 0; i < t->ndim; i++) g_string_append_printf(have, "%s%d", i ? "," : "", t->dims[i]);
    fail(err, path, group, "dims", "%s, but the model's tensor '%s' is [%s]", want->str, t->name ? t->name : "",
         have->str);
    g_string_free(want, TRUE);
    g_string_free(have, TRUE);
  }
  g_free(d);
  return ok;
}

/* ranges=min,max or min,max;min,max;min,max: pixels 0..255 onto [min, max] per channel in
 * the tensor's own values (a quantized input's stored integers, as GStreamer reads it:
 * 0,255 on a uint8 input passes the pixels through). As the real value the preprocessing
 * makes, (pixel - mean) / std, with q = p * (max - min) / 255 + min and real = (q - zp) * s:
 * std = 255 / ((max - min) * s), mean = -(min - zp) * 255 / (max - min). */
static gboolean read_ranges(GKeyFile *kf, const gchar *path, const gchar *group, const tfl_tensor *t,
                            GstTfliteModelInfo *mi, GError **err)
{
  gboolean q = t->q.n > 0 && t->type != TFL_TYPE_FLOAT32 && t->type != TFL_TYPE_FLOAT16;
  gdouble s = q ? t->q.scale[0] : 1.0, zp = q && t->q.zero_point ? t->q.zero_point[0] : 0.0;
  gchar *raw = g_key_file_get_value(kf, group, "ranges", NULL);
  if (!raw) return TRUE;
  gchar **pairs = g_strsplit(raw, ";", -1);
  guint n = g_strv_length(pairs);
  gboolean ok = n == 1 || n == 3 || n == 4;
  for (guint c = 0; ok && c < 3; c++) {
    gchar **mm = g_strsplit(pairs[n == 1 ? 0 : c], ",", -1);
    gchar *e0 = NULL, *e1 = NULL;
    gdouble lo = g_strv_length(mm) == 2 ? g_ascii_strtod(mm[0], &e0) : 0;
    gdouble hi = g_strv_length(mm) == 2 ? g_ascii_strtod(mm[1], &e1) : 0;
    ok = g_strv_length(mm) == 2 && e0 != mm[0] && e1 != mm[1] && !*g_strchug(e0) && !*g_strchug(e1) && hi > lo;
    if (ok) {
      mi->std[c] = (gfloat)(255.0 / ((hi - lo) * s));
      mi->mean[c] = (gfloat)((zp - lo) * 255.0 / (hi - lo)) + 0.0f; /* + 0: no -0 in logs */
    }
    g_strfreev(mm);
  }
  if (!ok)
    fail(err, path, group, "ranges", "'%s': expected min,max (max > min), once or per channel separated by ';'", raw);
  mi->has_ranges = ok;
  g_strfreev(pairs);
  g_free(raw);
  return ok;
}

static gboolean read_tensor(GKeyFile *kf, const gchar *path, const gchar *group, const tfl_graph *g, int counts[2],
                            GstTfliteModelInfo *mi, GError **err)
{
  gchar *dir = g_key_file_get_string(kf, group, "dir", NULL);
  gboolean input = !g_strcmp0(dir, "input");
  if (!input && g_strcmp0(dir, "output")) {
    fail(err, path, group, "dir", "'%s': expected input or output", dir ? dir : "(missing)");
    g_free(dir);
    return FALSE;
  }
  g_free(dir);
  int pos = -1, ti = find_tensor(g, input, group, counts[input]++, &pos);
  if (ti < 0)
    return fail(err, path, group, NULL, "the model has no %s tensor of that name, nor a %s number %d (it has %d)",
                input ? "input" : "output", input ? "input" : "output", counts[input], input ? g->n_inputs : g->n_outputs);
  const tfl_tensor *t = &g->tensors[ti];
  gchar *type = g_key_file_get_string(kf, group, "type", NULL);
  const char *have = NULL;
  for (guint i = 0; i < G_N_ELEMENTS(type_names); i++)
    if (type_names[i].type == t->type) have = type_names[i].name;
  if (!type || g_strcmp0(type, have)) {
    fail(err, path, group, "type", "'%s', but the model's tensor '%s' is %s", type ? type : "(missing)",
         t->name ? t->name : "", have ? have : tfl_type_name(t->type));
    g_free(type);
    return FALSE;
  }
  g_free(type);
  if (!check_dims(kf, path, group, t, input, err)) return FALSE;
  if (input) return pos != 0 || read_ranges(kf, path, group, t, mi, err);
  gchar *id = g_key_file_get_string(kf, group, "id", NULL);
  if (id && !id[0]) g_clear_pointer(&id, g_free);
  /* an oriented-box head reads like a detection head with one more class: only
   * Ultralytics' metadata (task obb) tells the angle column apart */
  if (id && !strcmp(id, "yolo-v8-obb-out") && strcmp(g->meta.ultralytics.task, "obb")) {
    fail(err, path, group, "id", "'%s': the model has no Ultralytics metadata with task 'obb' (the angle column "
         "cannot be told from a class without it): export it with Ultralytics' exporter", id);
    g_free(id);
    return FALSE;
  }
  g_free(mi->output_ids[pos]);
  mi->output_ids[pos] = id;
  return TRUE;
}

gboolean gst_tflite_modelinfo_load(const gchar *model_path, const tfl_graph *g, GstTfliteModelInfo *out,
                                   GError **err)
{
  memset(out, 0, sizeof *out);
  gchar *path = find_file(model_path);
  if (!path) return FALSE;
  out->path = path;
  out->n_outputs = g->n_outputs;
  out->output_ids = g_new0(gchar *, (gsize)g->n_outputs + 1);
  GKeyFile *kf = g_key_file_new();
  g_key_file_set_list_separator(kf, ',');
  GError *e = NULL;
  gboolean ok = g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, &e);
  if (!ok) {
    g_set_error(err, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS, "%s: %s", path, e->message);
    g_clear_error(&e);
  }
  ok = ok && check_version(kf, path, err);
  gchar **groups = ok ? g_key_file_get_groups(kf, NULL) : NULL;
  int counts[2] = { 0, 0 }; /* groups seen per direction: output, input */
  for (guint i = 0; ok && groups && groups[i]; i++)
    if (strcmp(groups[i], INFO_GROUP)) ok = read_tensor(kf, path, groups[i], g, counts, out, err);
  g_strfreev(groups);
  if (ok) {
    out->group_id = g_key_file_get_string(kf, INFO_GROUP, "group-id", NULL);
    gchar *labels = g_key_file_get_string(kf, INFO_GROUP, "labels", NULL);
    if (labels && !g_path_is_absolute(labels)) {
      gchar *dir = g_path_get_dirname(path);
      out->labels_path = g_build_filename(dir, labels, NULL);
      g_free(dir);
      g_free(labels);
    } else {
      out->labels_path = labels;
    }
    if (out->labels_path && !g_file_test(out->labels_path, G_FILE_TEST_IS_REGULAR))
      ok = fail(err, path, INFO_GROUP, "labels", "'%s' is no file", out->labels_path);
  }
  g_key_file_free(kf);
  if (!ok) gst_tflite_modelinfo_clear(out);
  return ok;
}

void gst_tflite_modelinfo_clear(GstTfliteModelInfo *mi)
{
  g_free(mi->path);
  g_free(mi->group_id);
  g_free(mi->labels_path);
  /* not g_strfreev: outputs without an id leave NULLs in the middle */
  for (gint i = 0; mi->output_ids && i < mi->n_outputs; i++) g_free(mi->output_ids[i]);
  g_free(mi->output_ids);
  memset(mi, 0, sizeof *mi);
}

tfl_decoder_kind gst_tflite_modelinfo_decoder(const GstTfliteModelInfo *mi, const gchar **id)
{
  *id = NULL;
  for (gint i = 0; i < mi->n_outputs; i++)
    for (guint k = 0; mi->output_ids[i] && k < G_N_ELEMENTS(id_decoders); k++)
      if (!strcmp(mi->output_ids[i], id_decoders[k].id)) {
        *id = id_decoders[k].id;
        return id_decoders[k].kind;
      }
  return TFL_DECODER_AUTO;
}
