/* window_sums.c - see window_sums.h. */
#include "window_sums.h"

#include <string.h>

static int32_t value(const cpu_window_geom *g, const void *x, size_t i)
{
  return (g->is_u8 ? (int32_t)((const uint8_t *)x)[i] : (int32_t)((const int8_t *)x)[i]) - g->zero_point;
}

/* Dense: channel sums per input pixel, then the window's sum of those. */
static void dense(const cpu_window_geom *g, const void *x, int rows_in, int pad_top, int rows_out, int32_t *rs,
                  int32_t *out)
{
  const size_t px = (size_t)rows_in * g->W;
  for (size_t p = 0; p < px; p++) {
    int32_t s = 0;
    for (int c = 0; c < g->C; c++) s += value(g, x, p * (size_t)g->C + (size_t)c);
    rs[p] = s;
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

/* Depthwise: per channel, then spread over the channel's mult outputs. */
static void depthwise(const cpu_window_geom *g, const void *x, int rows_in, int pad_top, int rows_out, int32_t *out)
{
  const int C = g->C, OC = C * g->mult;
  for (int r = 0; r < rows_out; r++)
    for (int ox = 0; ox < g->OW; ox++) {
      int32_t *o = out + ((size_t)r * g->OW + (size_t)ox) * (size_t)OC;
      int32_t *s = o; /* channel sums first (C <= OC values), spread afterwards */
      int32_t acc[512];
      int32_t *a = C <= 512 ? acc : s;
      memset(a, 0, sizeof(int32_t) * (size_t)C);
      for (int ky = 0; ky < g->KH; ky++) {
        const int iy = r * g->sh - pad_top + ky * g->dh;
        if (iy < 0 || iy >= rows_in) continue;
        for (int kx = 0; kx < g->KW; kx++) {
          const int ix = ox * g->sw - g->pad_l + kx * g->dw;
          if (ix < 0 || ix >= g->W) continue;
          const size_t base = ((size_t)iy * g->W + (size_t)ix) * (size_t)C;
          for (int c = 0; c < C; c++) a[c] += value(g, x, base + (size_t)c);
        }
      }
      for (int oc = OC - 1; oc >= 0; oc--) o[oc] = a[oc / g->mult]; /* backwards: a may be o */
    }
}

void cpu_window_sums(const cpu_window_geom *g, const void *x, int rows_in, int pad_top, int rows_out,
                     int32_t *scratch, int32_t *out)
{
  if (g->depthwise)
    depthwise(g, x, rows_in, pad_top, rows_out, out);
  else
    dense(g, x, rows_in, pad_top, rows_out, scratch, out);
}
