/* tconv_taps.h - what the transpose-conv kernels (transpose_conv.c, tconv_q8.c,
 * tconv_hybrid.c) share about the tap geometry: which input pixel feeds an output pixel
 * through a tap (the gather form of the scatter TFLite describes), the stride = filter
 * case where each output pixel takes exactly one tap, and the weight rows the 8-bit GEMM
 * packs ([tap][OC] rows of IC bytes). Private to delegates/cpu/kernels/.
 */
#ifndef CPU_TCONV_TAPS_H
#define CPU_TCONV_TAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conv_common.h"

/* The input index feeding output index o through tap k, or -1: o = i * stride - pad + k,
 * so i = (o + pad - k) / stride when that divides exactly and lands inside the input. */
static inline int cpu_tconv_source(int o, int pad, int k, int stride, int in)
{
  int t = o + pad - k;
  if (t < 0 || t % stride != 0) return -1;
  t /= stride;
  return t < in ? t : -1;
}

/* Stride equal to the filter and no padding (a UNet's 2x2 stride-2 upsampling): output
 * pixel (iy*KH + ky, ix*KW + kx) takes tap (ky, kx) of input pixel (iy, ix) only. */
static inline bool cpu_tconv_direct(const cpu_conv_state *r)
{
  return r->stride_h == r->k_h && r->stride_w == r->k_w && r->pad_h == 0 && r->pad_w == 0 &&
         r->out_h == r->in_h * r->k_h && r->out_w == r->in_w * r->k_w;
}

/* The 8-bit weights [OC][KH][KW][IC] as GEMM rows j = tap * OC + oc (cpu_q8_row_fn). */
typedef struct {
  const tfl_tensor *w;
  int taps, ic;
} cpu_tconv_rows;

static inline const void *cpu_tconv_weight_row(const void *user, int j)
{
  const cpu_tconv_rows *r = user;
  const int oc_count = r->w->dims[0];
  const int tap = j / oc_count, oc = j % oc_count;
  return (const uint8_t *)r->w->data + ((size_t)oc * r->taps + tap) * (size_t)r->ic;
}

#endif
