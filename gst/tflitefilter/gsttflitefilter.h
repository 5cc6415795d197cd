/* gsttflitefilter.h - runs a .tflite model on video frames and attaches the decoded
 * results (GstTfliteMeta objects) to each buffer; the video passes through unchanged.
 * The instance lives in gsttflitefilter.c alone; the inference is tflinfer.h's. */
#ifndef GST_TFLITE_FILTER_H
#define GST_TFLITE_FILTER_H

#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

#define GST_TYPE_TFLITE_FILTER (gst_tflite_filter_get_type())
G_DECLARE_FINAL_TYPE(GstTfliteFilter, gst_tflite_filter, GST, TFLITE_FILTER, GstBaseTransform)

G_END_DECLS

#endif
