/* box.c - see box.h */
#include "box.h"

#include <math.h>

float pp_box_iou(const pp_box *a, const pp_box *b)
{
  const float area_a = (a->ymax - a->ymin) * (a->xmax - a->xmin);
  const float area_b = (b->ymax - b->ymin) * (b->xmax - b->xmin);
  if (area_a <= 0 || area_b <= 0) return 0.0f;
  const float iy0 = a->ymin > b->ymin ? a->ymin : b->ymin;
  const float ix0 = a->xmin > b->xmin ? a->xmin : b->xmin;
  const float iy1 = a->ymax < b->ymax ? a->ymax : b->ymax;
  const float ix1 = a->xmax < b->xmax ? a->xmax : b->xmax;
  const float ih = iy1 - iy0 > 0 ? iy1 - iy0 : 0.0f;
  const float iw = ix1 - ix0 > 0 ? ix1 - ix0 : 0.0f;
  const float inter = ih * iw;
  return inter / (area_a + area_b - inter);
}

pp_box pp_box_decode_center_size(const double enc[4], const double anchor[4], const float scale[4])
{
  const double yc = enc[0] / scale[0] * anchor[2] + anchor[0];
  const double xc = enc[1] / scale[1] * anchor[3] + anchor[1];
  const double hh = 0.5 * exp(enc[2] / scale[2]) * anchor[2];
  const double hw = 0.5 * exp(enc[3] / scale[3]) * anchor[3];
  /* the centre and half sizes rounded to float first, as TFLite's kernel does */
  const float fy = (float)yc, fx = (float)xc, fh = (float)hh, fw = (float)hw;
  return (pp_box){fy - fh, fx - fw, fy + fh, fx + fw};
}
