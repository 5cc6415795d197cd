/* gsttflitemeta.h - the results tflitefilter attaches to each buffer.
 *
 * Applications (and tfliteoverlay) read them with gst_buffer_get_tflite_meta(). Every
 * coordinate is in frame pixels. The meta owns its results; labels are a shared,
 * reference-counted array of strings (index = class id).
 *
 * A segmentation mask on the GL path may also be a GL texture (mask_texture, owned by
 * tflitefilter's delegate on gl_context): valid until the next inference of that element,
 * i.e. for elements downstream in the same streaming thread.
 */
#ifndef GST_TFLITE_META_H
#define GST_TFLITE_META_H

#include <gst/gst.h>

#include "decoders/tfl_results.h"

G_BEGIN_DECLS

#define GST_TFLITE_META_API_TYPE (gst_tflite_meta_api_get_type())
#define GST_TFLITE_META_INFO (gst_tflite_meta_get_info())

typedef struct _GstTfliteMeta GstTfliteMeta;

struct _GstTfliteMeta {
  GstMeta meta;
  tfl_results results;      /* owned */
  GPtrArray *labels;        /* shared (ref held), may be NULL */
  guint mask_texture;       /* GL texture name of the mask, 0 when on the CPU only */
  gpointer gl_context;      /* GstGLContext * of mask_texture (ref held), or NULL */
  gint frame_width, frame_height;
};

GType gst_tflite_meta_api_get_type(void);
const GstMetaInfo *gst_tflite_meta_get_info(void);

/* Attaches a meta taking ownership of *results (zeroed on return); labels are ref'ed. */
GstTfliteMeta *gst_buffer_add_tflite_meta(GstBuffer *buffer, tfl_results *results,
                                          GPtrArray *labels, gint frame_width, gint frame_height);
#define gst_buffer_get_tflite_meta(b) ((GstTfliteMeta *)gst_buffer_get_meta((b), GST_TFLITE_META_API_TYPE))

/* The label of class_id, or NULL. */
const gchar *gst_tflite_meta_label(const GstTfliteMeta *meta, gint class_id);

/* The results as a GstStructure "tflite-results" (labels, scores, boxes, keypoints), for
 * bus messages. Caller owns it. */
GstStructure *gst_tflite_meta_to_structure(const GstTfliteMeta *meta);

G_END_DECLS

#endif
