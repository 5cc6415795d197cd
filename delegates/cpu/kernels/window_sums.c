/* window_sums.c - see window_sums.h. */
#include "window_sums.h"

#include <string.h>

/* Channel sums of px pixels of C bytes, less C zero points: one type per loop, so the
 * compiler vectorizes the byte sums. */
static void pixel_sums_u8(const uint8_t *x, size_t px, int C, int32_t zp, int32_t *rs)
{
  for (size_t p = 0; p < px; p++) {
    int32_t s = 0;
    for (int c = 0; c < C; c++) s += x[p * (size_t)C + (size_t)c];
    rs[p] = s - C * zp;
  }
}
static void pixel_sums_i8(const int8_t *x, size_t px, int C, int32_t zp, int32_t *rs)
{
  for (size_t p = 0; p < px; p++) {
    int32_t s = 0;
    for (int c = 0; c < C; c++) s += x[p * (size_t)C + (size_t)c];
    rs[p] = s - C * zp;
  }
}

/* Dense: channel sums per input pixel, then the window's sum of those. */
static void dense(const cpu_window_geom *g, const void *x, int rows_in, int pad_top, int rows_out, int32_t *rs,
                  int32_t *out)
{
  const size_t px = (size_t)rows_in * g->W;
  if (g->is_u8)
    pixel_sums_u8(x, px, g->C, g->zero_point, rs);
  else
    pixel_sums_i8(x, px, g->C, g->zero_point, rs);
  if (g->KH == 1 && g->KW == 1 && g->sh == 1 && g->sw == 1 && pad_top == 0 && g->pad_l == 0 && g->OW == g->W &&
      rows_out == rows_in) { /* 1x1, stride 1: the pixel sums themselves */
    memcpy(out, rs, sizeof(int32_t) * px);
    return;
  }
  for (int r = 0; r < rows_out; r++)
    for (int ox = 0; ox < g->OW; ox++) {
      int32_t s = 0;
      for (int ky = 0; ky < g->KH; ky++) {
        const int iy = r * g->sh - pad_top + ky * g->dh;
        if (iy < 0 || iy >= rows_in) continue;
        for (int kx = 0; kx < g->KW; kx++) {
          const int ix = ox * g->sw - g->pad_l + kx * g->dw;
          if (ix >= 0 && ix < g->W) s += rs[(size_t)iy * g->W + (size_t)ix];
        }
      }
      out[(size_t)r * g->OW + (size_t)ox] = s;
    }
}

void cpu_window_sums(const cpu_window_geom *g, const void *x, int rows_in, int pad_top, int rows_out,
                     int32_t *scratch, int32_t *out)
{
  dense(g, x, rows_in, pad_top, rows_out, scratch, out);
}
