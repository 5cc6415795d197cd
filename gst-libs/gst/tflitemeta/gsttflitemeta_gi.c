/* gsttflitemeta_gi.c - the meta's plain C arrays (mask pixels, labels, skeleton edges,
 * the oriented box) as calls that language bindings can describe; see gsttflitemeta.h. */
#include "gsttflitemeta.h"

/* width * height, 0 on a size that does not fit (never made by tflitefilter) */
static gsize mask_pixels(const GstTfliteMask *mask)
{
  gsize n;
  if (!mask || mask->width <= 0 || mask->height <= 0 ||
      g_size_checked_mul(&n, (gsize)mask->width, (gsize)mask->height) == FALSE)
    return 0;
  return n;
}

/**
 * gst_tflite_mask_get_classes:
 * @mask: a mask
 * @n: (out): the number of pixels (width * height), 0 when there are none
 *
 * Returns: (transfer none) (array length=n) (nullable): the class index of each pixel,
 * row-major; NULL for a probability mask or one held only as a GL texture
 */
const guint8 *gst_tflite_mask_get_classes(const GstTfliteMask *mask, gsize *n)
{
  *n = mask && mask->classes ? mask_pixels(mask) : 0;
  return *n ? mask->classes : NULL;
}

/**
 * gst_tflite_mask_get_prob:
 * @mask: a mask
 * @n: (out): the number of pixels (width * height), 0 when there are none
 *
 * Returns: (transfer none) (array length=n) (nullable): the foreground probability
 * (0..1) of each pixel, row-major; NULL for a class mask or one held only as a GL texture
 */
const gfloat *gst_tflite_mask_get_prob(const GstTfliteMask *mask, gsize *n)
{
  *n = mask && mask->prob ? mask_pixels(mask) : 0;
  return *n ? mask->prob : NULL;
}

/**
 * gst_tflite_object_get_edge:
 * @obj: an object with a skeleton (LANDMARKS, some DETECTIONs)
 * @index: which edge, below n_edges
 * @from: (out): index of its first keypoint
 * @to: (out): index of its second keypoint
 *
 * Returns: FALSE when @index is out of range
 */
gboolean gst_tflite_object_get_edge(const GstTfliteObject *obj, guint index, gint *from, gint *to)
{
  if (!obj || !obj->edges || index >= obj->n_edges) return FALSE;
  *from = obj->edges[2 * index];
  *to = obj->edges[2 * index + 1];
  return TRUE;
}

/**
 * gst_tflite_object_get_labels:
 * @obj: an object
 *
 * Returns: (transfer none) (element-type utf8) (nullable): the label of each class id,
 * or NULL when the model has none
 */
GPtrArray *gst_tflite_object_get_labels(const GstTfliteObject *obj)
{
  return obj ? obj->labels : NULL;
}

/**
 * gst_tflite_object_get_rbox:
 * @obj: an object
 * @cx: (out): centre, frame pixels
 * @cy: (out): centre, frame pixels
 * @w: (out): size along the box's own width axis
 * @h: (out): size along its height axis
 * @angle: (out): radians of the width axis from the frame's x axis, clockwise on screen
 *
 * Returns: FALSE when @obj is no oriented box
 */
gboolean gst_tflite_object_get_rbox(const GstTfliteObject *obj, gfloat *cx, gfloat *cy, gfloat *w, gfloat *h,
                                    gfloat *angle)
{
  if (!obj || !obj->oriented) return FALSE;
  *cx = obj->rbox.cx, *cy = obj->rbox.cy, *w = obj->rbox.w, *h = obj->rbox.h, *angle = obj->rbox.angle;
  return TRUE;
}
