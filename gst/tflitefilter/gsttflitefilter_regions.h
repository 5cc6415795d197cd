/* gsttflitefilter_regions.h - tflitefilter's region mode: the model runs once per region
 * an upstream tflitefilter found (regions-from), not on the whole frame.
 *
 * Per frame: the upstream element's DETECTION objects (filtered by region-labels,
 * min-region-size, at most max-regions, best first) become regions by the rule of this
 * model's family (decoders/tfl_region.h: pose, palm, face or plain box); every region's
 * affine goes to the engine in one go (one batch where the model can be batched); the
 * results come back in frame pixels and are attached as children of their detection.
 *
 * track-regions: a landmark model's points give the region for the next frame, as
 * MediaPipe's graphs do. Regions carried that way keep running without the detector;
 * when as many are tracked as max-regions allows, an upstream event ("tflite-track-regions")
 * asks the detector to pause, and when one is lost it resumes. A carried region without
 * a detection gets a DETECTION object of this element (the landmarks' bounds, labelled
 * "person", "hand" or "face") as the parent of its landmarks.
 *
 * Threads: the streaming thread of the element; the pause event is handled on whichever
 * thread pushes it upstream (object lock).
 */
#ifndef GST_TFLITE_FILTER_REGIONS_H
#define GST_TFLITE_FILTER_REGIONS_H

#include "gsttflitefilter.h"
#include <gst/tflitemeta/gsttflitemeta.h>

G_BEGIN_DECLS

#define GST_TFLITE_TRACK_REGIONS_EVENT "tflite-track-regions"

typedef struct _GstTfliteRegions GstTfliteRegions;

/* Region mode's state, when the regions-from property is set (else NULL). */
GstTfliteRegions *gst_tflite_regions_new(GstTfliteFilter *self);
void gst_tflite_regions_free(GstTfliteRegions *r);

/* One frame in region mode: runs (when `run`; else the last results, aged) and attaches
 * the results to meta. FALSE after posting an element error. */
gboolean gst_tflite_filter_regions_frame(GstTfliteFilter *self, GstBuffer *buf, GstTfliteMeta *meta, gboolean run);

/* A pause/resume request from a downstream element on our src pad: TRUE when the event
 * was meant for self (then it is consumed). */
gboolean gst_tflite_filter_regions_handle_event(GstTfliteFilter *self, GstEvent *event);

G_END_DECLS

#endif
