/* tfl_padding.h - TFLite's SAME/VALID padding of one spatial axis, the one formula the
 * shape pass, the CPU kernels, the XNNPACK partition and the GL generators all use.
 *
 *   out  = tfl_conv_out_size(pad, in, k, stride, dilation);
 *   top  = tfl_conv_pad_before(pad, in, k, stride, dilation, out);
 *   (bottom = tfl_conv_pad_after(...): SAME puts the odd pixel after, as TFLite does)
 *
 * Sizes are computed in 64 bits: a model's stride, dilation or filter cannot overflow them. */
#ifndef TFL_PADDING_H
#define TFL_PADDING_H

#include <stdint.h>

#include "tfl_graph.h"

/* Output size: SAME ceil(in / stride), VALID ceil((in - eff + 1) / stride) (0 when the
 * dilated filter eff = (k - 1) * dilation + 1 is larger than the input). */
static inline int32_t tfl_conv_out_size(tfl_padding pad, int32_t in, int32_t k, int stride, int dilation)
{
  const int64_t eff = (int64_t)(k - 1) * dilation + 1;
  switch (pad) {
  case TFL_PAD_SAME: return (int32_t)(((int64_t)in + stride - 1) / stride);
  case TFL_PAD_VALID: return in >= eff ? (int32_t)(((int64_t)in - eff + stride) / stride) : 0;
  }
  return 0;
}

/* The padding SAME needs in total for `out` outputs (never negative); VALID none. */
static inline int64_t tfl_conv_pad_total(tfl_padding pad, int32_t in, int32_t k, int stride, int dilation, int32_t out)
{
  if (pad != TFL_PAD_SAME) return 0;
  const int64_t total = (int64_t)(out - 1) * stride + (int64_t)(k - 1) * dilation + 1 - in;
  return total > 0 ? total : 0;
}

/* Leading (top/left) padding: the smaller half. */
static inline int tfl_conv_pad_before(tfl_padding pad, int32_t in, int32_t k, int stride, int dilation, int32_t out)
{
  return (int)(tfl_conv_pad_total(pad, in, k, stride, dilation, out) / 2);
}

/* Trailing (bottom/right) padding: the rest. */
static inline int tfl_conv_pad_after(tfl_padding pad, int32_t in, int32_t k, int stride, int dilation, int32_t out)
{
  const int64_t total = tfl_conv_pad_total(pad, in, k, stride, dilation, out);
  return (int)(total - total / 2);
}

#endif
