/* tfl_transform.c - see tfl_transform.h */
#include "tfl_transform.h"

#include <math.h>

void tfl_transform_point(const tfl_transform *tr, float u, float v, float *x, float *y)
{
  *x = u * tr->scale_x + v * tr->shear_x + tr->off_x;
  *y = u * tr->shear_y + v * tr->scale_y + tr->off_y;
}

void tfl_transform_bounds(const tfl_transform *tr, float u0, float v0, float u1, float v1, float box[4])
{
  const float us[4] = { u0, u1, u0, u1 }, vs[4] = { v0, v0, v1, v1 };
  float x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
  for (int i = 0; i < 4; i++) {
    float x, y;
    tfl_transform_point(tr, us[i], vs[i], &x, &y);
    x0 = fminf(x0, x), x1 = fmaxf(x1, x);
    y0 = fminf(y0, y), y1 = fmaxf(y1, y);
  }
  box[0] = x0, box[1] = y0, box[2] = x1 - x0, box[3] = y1 - y0;
}

bool tfl_transform_invert_point(const tfl_transform *tr, float x, float y, float *u, float *v)
{
  double a = tr->scale_x, b = tr->shear_x, d = tr->shear_y, e = tr->scale_y;
  double det = a * e - b * d;
  if (fabs(det) < 1e-12) return false;
  double dx = (double)x - tr->off_x, dy = (double)y - tr->off_y;
  *u = (float)((e * dx - b * dy) / det);
  *v = (float)((a * dy - d * dx) / det);
  return true;
}
