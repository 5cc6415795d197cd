/* crop_ref.c - see crop_ref.h */
#include "crop_ref.h"

#include <math.h>

static double texel(const uint8_t *pic, int channels, int stride, int x, int y, int c)
{
  return pic[(long)y * stride + (long)x * channels + c];
}

void crop_ref(const uint8_t *pic, int width, int height, int channels, int stride, crop_pt tl, crop_pt tr,
              crop_pt bl, int W, int H, double *out)
{
  for (int v = 0; v < H; v++)
    for (int u = 0; u < W; u++) {
      double a = (u + 0.5) / W, b = (v + 0.5) / H;
      double px = tl.x + a * (tr.x - tl.x) + b * (bl.x - tl.x);
      double py = tl.y + a * (tr.y - tl.y) + b * (bl.y - tl.y);
      double *o = out + ((long)v * W + u) * 3;
      if (px < 0 || py < 0 || px >= width || py >= height) {
        o[0] = o[1] = o[2] = 0;
        continue;
      }
      /* the four texels around the point, their centres at +0.5 */
      double gx = px - 0.5, gy = py - 0.5;
      if (gx < 0) gx = 0;
      if (gy < 0) gy = 0;
      if (gx > width - 1) gx = width - 1;
      if (gy > height - 1) gy = height - 1;
      int x0 = (int)floor(gx), y0 = (int)floor(gy);
      int x1 = x0 < width - 1 ? x0 + 1 : x0, y1 = y0 < height - 1 ? y0 + 1 : y0;
      double fx = gx - x0, fy = gy - y0;
      for (int c = 0; c < 3; c++) {
        double top = texel(pic, channels, stride, x0, y0, c) * (1 - fx) + texel(pic, channels, stride, x1, y0, c) * fx;
        double bot = texel(pic, channels, stride, x0, y1, c) * (1 - fx) + texel(pic, channels, stride, x1, y1, c) * fx;
        o[c] = top * (1 - fy) + bot * fy;
      }
    }
}

void crop_ref_corners(double cx, double cy, double w, double h, double angle, crop_pt *tl, crop_pt *tr,
                      crop_pt *bl)
{
  double rx = cos(angle), ry = sin(angle); /* the region's right */
  double dx = -ry, dy = rx;                /* the region's down */
  tl->x = cx - 0.5 * w * rx - 0.5 * h * dx;
  tl->y = cy - 0.5 * w * ry - 0.5 * h * dy;
  tr->x = tl->x + w * rx;
  tr->y = tl->y + w * ry;
  bl->x = tl->x + h * dx;
  bl->y = tl->y + h * dy;
}
