/* gsttflitemeta_views_priv.h - one object's GstAnalytics view, for the one pass over a
 * meta's objects that gst_tflite_meta_sync_rois makes (internal to the meta library). */
#ifndef GST_TFLITE_META_VIEWS_PRIV_H
#define GST_TFLITE_META_VIEWS_PRIV_H

#include "gsttflitemeta.h"

/* Mirrors `o` (an object of `meta`, on writable `buffer`) into GstAnalyticsRelationMeta if
 * not mirrored yet (gsttflitemeta_analytics.c; nothing without the analytics library).
 * *relation caches the buffer's relation meta between calls of one pass: NULL at first.
 * Its parent, if any, must come earlier in the meta (as objects are added). Returns the
 * number of entries added. */
guint gst_tflite_meta_analytics_object(GstTfliteMeta *meta, GstBuffer *buffer, gpointer *relation, GstTfliteObject *o);

#endif
