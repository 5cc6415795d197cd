/* gsttflitetracker.h - stable ids for the objects tflitefilters attach, across frames
 * (sort_tracker.h does the tracking; this element reads and writes GstTfliteMeta). */
#ifndef GST_TFLITE_TRACKER_H
#define GST_TFLITE_TRACKER_H

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include "sort_tracker.h"

G_BEGIN_DECLS

#define GST_TYPE_TFLITE_TRACKER (gst_tflite_tracker_get_type())
G_DECLARE_FINAL_TYPE(GstTfliteTracker, gst_tflite_tracker, GST, TFLITE_TRACKER, GstBaseTransform)

struct _GstTfliteTracker {
  GstBaseTransform parent;
  /* properties (object lock); read when the first buffer arrives */
  gchar *source, *labels;
  gfloat iou_threshold;
  guint min_hits, max_age, predict_frames;
  /* streaming state */
  GQuark source_q, own;
  gchar **label_list;
  sort_tracker *sort;
  GHashTable *info;        /* track id -> what it was last seen as */
};

GST_ELEMENT_REGISTER_DECLARE(tflitetracker);

G_END_DECLS

#endif
