/* ov_cairo.h - tfliteoverlay's system-memory path: draws a scene in place on a mapped
 * frame with cairo and pango (the mask is blended by a plain loop, the same sampling the
 * GL path's shader does). Streaming thread. */
#ifndef OV_CAIRO_H
#define OV_CAIRO_H

#include <gst/video/video.h>

#include "ov_font.h"
#include "ov_scene.h"

G_BEGIN_DECLS

/* Whether ov_cairo_draw() can draw on frames of this format. */
gboolean ov_cairo_supports(GstVideoFormat format);

/* Draws scene on frame (mapped for writing; a format ov_cairo_supports()). The scene's
 * mask is skipped when it has no CPU pixels (a GL texture only). */
void ov_cairo_draw(const OvScene *scene, GstVideoFrame *frame, OvFont *font);

G_END_DECLS

#endif
