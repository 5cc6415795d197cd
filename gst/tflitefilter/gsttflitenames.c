/* gsttflitenames.c - see gsttflitenames.h */
#include "gsttflitenames.h"

#include <string.h>

/* By type name, so the tracker needs no header of the filter and the reverse */
static gboolean makes_objects(GstElement *e)
{
  const gchar *t = G_OBJECT_TYPE_NAME(e);
  return !strcmp(t, "GstTfliteFilter") || !strcmp(t, "GstTfliteTracker");
}

static GstObject *top_level(GstElement *self)
{
  GstObject *top = gst_object_get_parent(GST_OBJECT(self));
  while (top) {
    GstObject *up = gst_object_get_parent(top);
    if (!up) break;
    gst_object_unref(top);
    top = up;
  }
  return top;
}

GstTfliteNameCheck gst_tflite_check_element_name(GstElement *self, const gchar *name, gchar **known, gchar **kind)
{
  if (known) *known = NULL;
  if (kind) *kind = NULL;
  GstObject *top = top_level(self);
  if (!top || !GST_IS_BIN(top)) {
    if (top) gst_object_unref(top);
    return GST_TFLITE_NAME_NOT_CHECKED;
  }
  GstTfliteNameCheck res = GST_TFLITE_NAME_MISSING;
  GString *names = g_string_new(NULL);
  GstIterator *it = gst_bin_iterate_recurse(GST_BIN(top));
  GValue v = G_VALUE_INIT;
  gboolean done = FALSE;
  while (!done) {
    switch (gst_iterator_next(it, &v)) {
    case GST_ITERATOR_OK: {
      GstElement *e = g_value_get_object(&v);
      gboolean objects = makes_objects(e);
      gchar *n = gst_object_get_name(GST_OBJECT(e));
      if (!g_strcmp0(n, name)) {
        res = objects ? GST_TFLITE_NAME_FOUND : GST_TFLITE_NAME_WRONG_KIND;
        if (!objects && kind && !*kind) {
          GstElementFactory *f = gst_element_get_factory(e);
          *kind = g_strdup(f ? GST_OBJECT_NAME(f) : G_OBJECT_TYPE_NAME(e));
        }
      }
      if (objects && e != self) g_string_append_printf(names, "%s%s", names->len ? ", " : "", n);
      g_free(n);
      g_value_reset(&v);
      break;
    }
    case GST_ITERATOR_RESYNC:
      gst_iterator_resync(it);
      g_string_truncate(names, 0);
      if (kind) g_clear_pointer(kind, g_free);
      res = GST_TFLITE_NAME_MISSING;
      break;
    case GST_ITERATOR_ERROR:
    case GST_ITERATOR_DONE: done = TRUE; break;
    }
  }
  g_value_unset(&v);
  gst_iterator_free(it);
  gst_object_unref(top);
  if (known) *known = names->len ? g_string_free(names, FALSE) : (g_string_free(names, TRUE), g_strdup("none"));
  else g_string_free(names, TRUE);
  return res;
}

static gboolean templates_carry_gl(GstElement *e)
{
  for (const GList *l = gst_element_class_get_pad_template_list(GST_ELEMENT_GET_CLASS(e)); l; l = l->next) {
    GstCaps *caps = gst_pad_template_get_caps(l->data);
    gboolean gl = FALSE;
    for (guint i = 0; i < gst_caps_get_size(caps) && !gl; i++) {
      GstCapsFeatures *f = gst_caps_get_features(caps, i);
      gl = f && !gst_caps_features_is_any(f) && gst_caps_features_contains(f, "memory:GLMemory");
    }
    gst_caps_unref(caps);
    if (gl) return TRUE;
  }
  return FALSE;
}

gboolean gst_tflite_pipeline_has_gl(GstElement *self)
{
  GstObject *top = top_level(self);
  if (!top || !GST_IS_BIN(top)) {
    if (top) gst_object_unref(top);
    return TRUE;
  }
  gboolean gl = FALSE;
  GstIterator *it = gst_bin_iterate_recurse(GST_BIN(top));
  GValue v = G_VALUE_INIT;
  gboolean done = FALSE;
  while (!done && !gl) {
    switch (gst_iterator_next(it, &v)) {
    case GST_ITERATOR_OK: {
      GstElement *e = g_value_get_object(&v);
      /* ours pass GL frames on but make none */
      gl = !g_str_has_prefix(G_OBJECT_TYPE_NAME(e), "GstTflite") && templates_carry_gl(e);
      g_value_reset(&v);
      break;
    }
    case GST_ITERATOR_RESYNC: gst_iterator_resync(it); break;
    case GST_ITERATOR_ERROR:
    case GST_ITERATOR_DONE: done = TRUE; break;
    }
  }
  g_value_unset(&v);
  gst_iterator_free(it);
  gst_object_unref(top);
  return gl;
}
