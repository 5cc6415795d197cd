/* gsttflitesettings.h - tflitefilter's settings that need the runtime rebuilt (model,
 * delegate, decoder options, batching, regions, GL start), as one value.
 *
 * The element keeps the live values (written by set_property under the object lock). A
 * rebuild takes ONE snapshot of them under that lock (gst_tflite_settings_snapshot): an
 * immutable, ref-counted copy that everything made from it reads (model, engine key,
 * messages, errors), so a property set while PLAYING never pairs the new model file with
 * the old model's decoder, and no string is read while another thread frees it. */
#ifndef GST_TFLITE_SETTINGS_H
#define GST_TFLITE_SETTINGS_H

#include <gst/gst.h>

#include "decoders/tfl_decoder.h"
#include "gsttfliteenums.h"
#include "gsttflitemodel.h"
#include "preprocess/preprocess.h"

G_BEGIN_DECLS

typedef struct {
  GstTfliteModelSettings model;  /* model and labels files, decoder kind, normalization */
  GstTfliteDelegate delegate_kind;
  gint threads;                  /* 0: automatic */
  GstTflitePrecision precision;
  gchar *cache_dir;
  gint gl_profile;               /* gl_device_profile (gl-profile): the GPU limits GL keeps to */
  tfl_decoder_options decoder_opts;
  fit_mode fit;
  gchar *instance_id;            /* model-instance-id */
  guint batch_window_us;
  guint max_batch;
  gchar *regions_from;           /* NULL or "": whole frames */
  gchar *region_labels;
  guint max_regions, min_region_size;
  gboolean track_regions;
  GstTfliteEngineContext engine_context;
  GstTfliteGlStart gl_start;
  gboolean keep_tensors;
} GstTfliteSettings;

/* An immutable copy of live (strings duplicated), ref-counted; the caller holds the object
 * lock that guards live. */
const GstTfliteSettings *gst_tflite_settings_snapshot(const GstTfliteSettings *live);
const GstTfliteSettings *gst_tflite_settings_ref(const GstTfliteSettings *s);
void gst_tflite_settings_unref(const GstTfliteSettings *s); /* NULL: nothing */

/* Frees the strings of a live (embedded) settings value. */
void gst_tflite_settings_clear(GstTfliteSettings *live);

G_END_DECLS

#endif
