/* box.h - corner boxes, their overlap, and the SSD center-size box coder.
 *
 * Shared by the TFLite_Detection_PostProcess CPU kernel and the element's SSD /
 * anchor decoders (postproc/ is plain C: no runtime, no GStreamer, no allocation).
 * Boxes are in any unit (normalized or pixels).
 */
#ifndef PP_BOX_H
#define PP_BOX_H

typedef struct {
  float ymin, xmin, ymax, xmax;
} pp_box;

/* Intersection over union; 0 when either box has no area (as TFLite computes it). */
float pp_box_iou(const pp_box *a, const pp_box *b);

/* TF's center-size box coder (FasterRcnnBoxCoder), as TFLite's post-process op and
 * the SSD decoders use it: encoding enc = (ty, tx, th, tw) against anchor
 * (ay, ax, ah, aw) with scales (y, x, h, w):
 *   yc = ty / y_scale * ah + ay     h = exp(th / h_scale) * ah     (x and w alike)
 * computed in double, as TFLite does, so boxes match it to the last bit. */
pp_box pp_box_decode_center_size(const double enc[4], const double anchor[4], const float scale[4]);

#endif
