/* tflinfer_regions.h - tflitefilter's region mode: the model runs once per region
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
 * Threads: the streaming thread of the element. The element sends the pause request
 * upstream and handles the detector's side of it (object lock).
 */
#ifndef GST_TFLITE_INFER_REGIONS_H
#define GST_TFLITE_INFER_REGIONS_H

#include "tflinfer.h"
#include <gst/tflitemeta/gsttflitemeta.h>

G_BEGIN_DECLS

#define GST_TFLITE_TRACK_REGIONS_EVENT "tflite-track-regions"

/* Region mode's state, from self->cfg (regions-from set; else NULL). */
GstTfliteRegions *gst_tflite_regions_new(GstTfliteInfer *self);
void gst_tflite_regions_free(GstTfliteRegions *r);

/* The element's part of a frame: the objects' source and its reuse counters (borrowed). */
typedef struct {
  GQuark source;
  guint *age;                  /* frames since the last inference */
  gboolean *have_last;         /* an inference ran since the start */
} GstTfliteRegionFrame;

/* One frame in region mode: runs (when `run`; else the last results, aged) and attaches
 * the results to meta. FALSE with *fail set. */
gboolean gst_tflite_infer_regions_frame(GstTfliteInfer *self, GstBuffer *buf, GstTfliteMeta *meta, gboolean run,
                                        const GstTfliteRegionFrame *frame, GstTfliteNotice *fail);

/* After a frame: TRUE when the detector (regions-from) is to be asked to pause or resume
 * (the element sends GST_TFLITE_TRACK_REGIONS_EVENT upstream). */
gboolean gst_tflite_regions_pause_request(GstTfliteRegions *r, gboolean *pause, const gchar **detector);

G_END_DECLS

#endif
