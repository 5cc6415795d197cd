/* tp_json.c - the JSON serializer of docs/results-schema.md (version 1). */
#include "tp_json.h"

#include <math.h>

#include "tp_mask.h"

void tp_json_string(GString *out, const gchar *s)
{
  if (!s) {
    g_string_append(out, "null");
    return;
  }
  gchar *valid = g_utf8_make_valid(s, -1); /* labels come from files: trust no encoding */
  g_string_append_c(out, '"');
  for (const guchar *p = (const guchar *)valid; *p; p++) {
    switch (*p) {
    case '"': g_string_append(out, "\\\""); break;
    case '\\': g_string_append(out, "\\\\"); break;
    case '\n': g_string_append(out, "\\n"); break;
    case '\r': g_string_append(out, "\\r"); break;
    case '\t': g_string_append(out, "\\t"); break;
    default:
      if (*p < 0x20) g_string_append_printf(out, "\\u%04x", *p);
      else g_string_append_c(out, (gchar)*p);
    }
  }
  g_string_append_c(out, '"');
  g_free(valid);
}

void tp_json_number(GString *out, double v)
{
  if (!isfinite(v)) {
    g_string_append(out, "null");
    return;
  }
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append(out, g_ascii_formatd(buf, sizeof(buf), "%.7g", v));
}

static void key(GString *out, const gchar *k)
{
  if (out->len && out->str[out->len - 1] != '{' && out->str[out->len - 1] != '[') g_string_append_c(out, ',');
  g_string_append_printf(out, "\"%s\":", k);
}

static void id_or_null(GString *out, guint64 id)
{
  if (id) g_string_append_printf(out, "%" G_GUINT64_FORMAT, id);
  else g_string_append(out, "null");
}

static void time_or_null(GString *out, GstClockTime t)
{
  if (GST_CLOCK_TIME_IS_VALID(t)) g_string_append_printf(out, "%" G_GUINT64_FORMAT, (guint64)t);
  else g_string_append(out, "null");
}

static const gchar *kind_name(GstTfliteObjectKind k)
{
  switch (k) {
  case GST_TFLITE_OBJECT_DETECTION: return "detection";
  case GST_TFLITE_OBJECT_CLASSIFICATION: return "classification";
  case GST_TFLITE_OBJECT_LANDMARKS: return "landmarks";
  case GST_TFLITE_OBJECT_SEGMENTATION: return "segmentation";
  }
  return "unknown";
}

static void class_entry(GString *out, const GstTfliteObject *o, gint id, double score)
{
  g_string_append_c(out, '{');
  key(out, "id");
  g_string_append_printf(out, "%d", id);
  key(out, "label");
  tp_json_string(out, gst_tflite_object_label(o, id));
  key(out, "score");
  tp_json_number(out, score);
  g_string_append_c(out, '}');
}

static void keypoints(GString *out, const tfl_keypoint *kp, guint n)
{
  g_string_append_c(out, '[');
  for (guint i = 0; i < n; i++) {
    if (i) g_string_append_c(out, ',');
    g_string_append(out, "{\"x\":");
    tp_json_number(out, kp[i].x);
    g_string_append(out, ",\"y\":");
    tp_json_number(out, kp[i].y);
    g_string_append(out, ",\"score\":");
    if (kp[i].score < 0.f) g_string_append(out, "null");
    else tp_json_number(out, kp[i].score);
    g_string_append_c(out, '}');
  }
  g_string_append_c(out, ']');
}

/* The mask: its size and class shares, and with TP_MASK_PNG its pixels. */
static void mask(GString *out, const GstTfliteObject *o, tp_mask_mode mode)
{
  const GstTfliteMask *m = o->mask;
  g_string_append_c(out, '{');
  key(out, "type");
  g_string_append(out, m->kind == TFL_MASK_PROB ? "\"probability\"" : "\"classes\"");
  key(out, "width");
  g_string_append_printf(out, "%d", m->width);
  key(out, "height");
  g_string_append_printf(out, "%d", m->height);
  const gchar *why = NULL;
  guint8 *px = tp_mask_bytes(m, &why);
  gsize n = (gsize)m->width * (gsize)m->height;
  key(out, "areas");
  g_string_append_c(out, '[');
  if (px) {
    gsize count[256] = { 0 };
    if (m->kind == TFL_MASK_PROB) {
      for (gsize i = 0; i < n; i++) count[px[i] >= 128]++; /* probability >= 0.5 */
      g_string_append(out, "{\"id\":1,\"label\":null,\"fraction\":");
      tp_json_number(out, (double)count[1] / (double)n);
      g_string_append_c(out, '}');
    } else {
      for (gsize i = 0; i < n; i++) count[px[i]]++;
      gboolean first = TRUE;
      for (gint c = 0; c < 256; c++) {
        if (!count[c]) continue;
        g_string_append(out, first ? "{" : ",{");
        first = FALSE;
        g_string_append_printf(out, "\"id\":%d,\"label\":", c);
        tp_json_string(out, gst_tflite_object_label(o, c));
        g_string_append(out, ",\"fraction\":");
        tp_json_number(out, (double)count[c] / (double)n);
        g_string_append_c(out, '}');
      }
    }
  }
  g_string_append_c(out, ']');
  if (!px) {
    key(out, "unavailable");
    tp_json_string(out, why);
  } else if (mode == TP_MASK_PNG) {
    gsize len = 0;
    guint8 *png = tp_png_gray8(px, m->width, m->height, &len);
    if (png) {
      gchar *b64 = g_base64_encode(png, len);
      key(out, "png");
      g_string_append_printf(out, "\"%s\"", b64);
      g_free(b64);
      g_free(png);
    }
  }
  g_free(px);
  g_string_append_c(out, '}');
}

void tp_json_object(GString *out, const GstTfliteObject *o, tp_mask_mode mask_mode)
{
  g_string_append(out, "{\"id\":");
  g_string_append_printf(out, "%" G_GUINT64_FORMAT, o->id);
  key(out, "parent");
  id_or_null(out, o->parent_id);
  key(out, "source");
  tp_json_string(out, o->source ? g_quark_to_string(o->source) : NULL);
  key(out, "kind");
  g_string_append_printf(out, "\"%s\"", kind_name(o->kind));
  key(out, "track");
  id_or_null(out, o->track_id);
  key(out, "box");
  g_string_append(out, "{\"x\":");
  tp_json_number(out, o->x);
  g_string_append(out, ",\"y\":");
  tp_json_number(out, o->y);
  g_string_append(out, ",\"w\":");
  tp_json_number(out, o->w);
  g_string_append(out, ",\"h\":");
  tp_json_number(out, o->h);
  g_string_append_c(out, '}');
  key(out, "class_id");
  if (o->class_id >= 0) g_string_append_printf(out, "%d", o->class_id);
  else g_string_append(out, "null");
  key(out, "label");
  tp_json_string(out, o->class_id >= 0 ? gst_tflite_object_label(o, o->class_id) : NULL);
  key(out, "score");
  if (o->score < 0.f) g_string_append(out, "null");
  else tp_json_number(out, o->score);
  if (o->n_classes) {
    key(out, "classes");
    g_string_append_c(out, '[');
    for (guint k = 0; k < o->n_classes; k++) {
      if (k) g_string_append_c(out, ',');
      class_entry(out, o, o->classes[k].class_id, o->classes[k].score);
    }
    g_string_append_c(out, ']');
  }
  if (o->n_keypoints) {
    key(out, "keypoints");
    keypoints(out, o->keypoints, o->n_keypoints);
  }
  if (o->mask && mask_mode != TP_MASK_NONE) {
    key(out, "mask");
    mask(out, o, mask_mode);
  }
  g_string_append_c(out, '}');
}

/* The members every message starts with. */
static void header(GString *out, const gchar *type, const tp_frame_info *fi)
{
  g_string_append_printf(out, "{\"schema\":\"%s\",\"version\":%d,\"type\":\"%s\"", TP_JSON_SCHEMA, TP_JSON_VERSION,
                         type);
  key(out, "camera");
  tp_json_string(out, fi->camera);
  key(out, "stream");
  tp_json_string(out, fi->stream);
  key(out, "seq");
  g_string_append_printf(out, "%" G_GUINT64_FORMAT, fi->seq);
  key(out, "frame");
  g_string_append_printf(out, "%" G_GUINT64_FORMAT, fi->frame);
  key(out, "pts_ns");
  time_or_null(out, fi->pts);
  key(out, "running_time_ns");
  time_or_null(out, fi->running_time);
  key(out, "wall_time_us");
  g_string_append_printf(out, "%" G_GINT64_FORMAT, fi->wall_time_us);
  GDateTime *dt = g_date_time_new_from_unix_utc(fi->wall_time_us / G_USEC_PER_SEC);
  if (dt) {
    gchar *iso = g_date_time_format(dt, "%Y-%m-%dT%H:%M:%S");
    key(out, "wall_time");
    g_string_append_printf(out, "\"%s.%06dZ\"", iso, (int)(fi->wall_time_us % G_USEC_PER_SEC));
    g_free(iso);
    g_date_time_unref(dt);
  }
}

void tp_json_frame(GString *out, const tp_frame_info *fi, const GstTfliteMeta *meta, tp_mask_mode mask_mode)
{
  header(out, "frame", fi);
  key(out, "duration_ns");
  time_or_null(out, fi->duration);
  key(out, "width");
  g_string_append_printf(out, "%d", fi->width);
  key(out, "height");
  g_string_append_printf(out, "%d", fi->height);
  key(out, "objects");
  g_string_append_c(out, '[');
  guint n = meta ? gst_tflite_meta_n_objects(meta) : 0;
  for (guint i = 0; i < n; i++) {
    if (i) g_string_append_c(out, ',');
    tp_json_object(out, gst_tflite_meta_get_object(meta, i), mask_mode);
  }
  g_string_append(out, "]}");
}

void tp_json_event(GString *out, const tp_frame_info *fi, const gchar *event, const gchar *reason,
                   guint64 track_id, guint64 frames_seen, GstClockTime first_pts, const gchar *object_json)
{
  header(out, "event", fi);
  key(out, "event");
  tp_json_string(out, event);
  key(out, "reason");
  tp_json_string(out, reason);
  key(out, "track");
  g_string_append_printf(out, "%" G_GUINT64_FORMAT, track_id);
  key(out, "frames_seen");
  g_string_append_printf(out, "%" G_GUINT64_FORMAT, frames_seen);
  key(out, "first_pts_ns");
  time_or_null(out, first_pts);
  key(out, "object");
  g_string_append(out, object_json ? object_json : "null");
  g_string_append_c(out, '}');
}
