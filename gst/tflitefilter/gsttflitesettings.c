/* gsttflitesettings.c - one snapshot of tflitefilter's rebuild settings (see the header). */
#include "gsttflitesettings.h"

#include <string.h>

static void dup_strings(GstTfliteSettings *s)
{
  s->model.model_path = g_strdup(s->model.model_path);
  s->model.labels_path = g_strdup(s->model.labels_path);
  s->cache_dir = g_strdup(s->cache_dir);
  s->instance_id = g_strdup(s->instance_id);
  s->regions_from = g_strdup(s->regions_from);
  s->region_labels = g_strdup(s->region_labels);
}

const GstTfliteSettings *gst_tflite_settings_snapshot(const GstTfliteSettings *live)
{
  /* the copy is shared between threads only through refs: g_atomic_rc_box counts them */
  GstTfliteSettings *s = (g_atomic_rc_box_dup)(sizeof *s, live); /* the function: the macro keeps const */
  dup_strings(s);
  return s;
}

const GstTfliteSettings *gst_tflite_settings_ref(const GstTfliteSettings *s)
{
  return g_atomic_rc_box_acquire((gpointer)s);
}

static void free_strings(gpointer p)
{
  gst_tflite_settings_clear(p);
}

void gst_tflite_settings_unref(const GstTfliteSettings *s)
{
  if (s) g_atomic_rc_box_release_full((gpointer)s, free_strings);
}

void gst_tflite_settings_clear(GstTfliteSettings *live)
{
  gst_tflite_model_settings_clear(&live->model);
  g_clear_pointer(&live->cache_dir, g_free);
  g_clear_pointer(&live->instance_id, g_free);
  g_clear_pointer(&live->regions_from, g_free);
  g_clear_pointer(&live->region_labels, g_free);
}
