/* tp_mask.h - a segmentation mask's pixels on the CPU, and as a PNG.
 *
 * Masks may live only in a GL texture (tflitefilter's GL path): then the texture is
 * downloaded (GstGLMemory map, after its sync point), which costs a GPU->CPU copy of the
 * mask (not the frame) on the calling thread. Called on the streaming thread.
 */
#ifndef TP_MASK_H
#define TP_MASK_H

#include <gst/gst.h>

#include <gst/tflitemeta/gsttflitemeta.h>

/* 8-bit pixels of the mask, row-major, width*height bytes without padding: the class index
 * (class masks) or the probability * 255 rounded (probability masks). NULL when the mask
 * has no pixels the CPU can read (*why says why). Caller g_free()s. */
guint8 *tp_mask_bytes(const GstTfliteMask *mask, const gchar **why);

/* A grey 8-bit PNG of width x height bytes; NULL on failure. Caller g_free()s; *len set. */
guint8 *tp_png_gray8(const guint8 *pixels, gint width, gint height, gsize *len);

#endif
