/* gsttfliteoverlay.h - draws tflitefilter's results (GstTfliteMeta) on the video. */
#ifndef GST_TFLITE_OVERLAY_H
#define GST_TFLITE_OVERLAY_H

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include "gst/tflitefilter/gsttfliteglelement.h"
#include "ov_font.h"
#include "ov_scene.h"
#include "ov_soft.h"

G_BEGIN_DECLS

#define GST_TYPE_TFLITE_OVERLAY (gst_tflite_overlay_get_type())
G_DECLARE_FINAL_TYPE(GstTfliteOverlay, gst_tflite_overlay, GST, TFLITE_OVERLAY, GstBaseTransform)

#define GST_TYPE_TFLITE_OVERLAY_PALETTE (gst_tflite_overlay_palette_get_type())
GType gst_tflite_overlay_palette_get_type(void);

struct _GstTfliteOverlay {
  GstBaseTransform parent;

  /* properties, under the object lock */
  OvSettings settings;        /* settings.classes owned */
  gchar *font_desc;
  gboolean font_changed;      /* set by set_property, applied at the next buffer */

  /* streaming thread */
  GstVideoInfo info;
  gboolean is_gl;
  OvFont *font;
  OvScene scene;
  OvSoft *soft;               /* system-memory renderer, made on first use */
  gboolean warned_gl_fallback, warned_texture_mask;

  /* GL path: the display, and the renderer made (gl_start) and freed (gl_stop) on the
   * frames' context's thread */
  GstTfliteGlElement glel;
  gpointer gl;                /* OvGl * */
  gint mask_path;             /* MaskPath of the last frame with masks (atomic: read by mask-path) */
};

GST_ELEMENT_REGISTER_DECLARE(tfliteoverlay);

G_END_DECLS

#endif
