/* tfl_reduce_axes.h - the axes input of the reduce ops (MEAN, SUM, REDUCE_PROD/MAX/MIN/ANY/ALL),
 * shared by the shape rules and the CPU kernels: int32 or int64 values, negative ones count
 * from the end, repeats allowed, any count (also none: nothing reduced). A rank-0 input
 * ignores its axes, as TFLite does (its output is a scalar). */
#ifndef TFL_REDUCE_AXES_H
#define TFL_REDUCE_AXES_H

#include "tfl_graph.h"

#include <stdbool.h>
#include <string.h>

/* Marks red[d] for every dim d of a rank-ndim input named by `axes` (data present).
 * False on an axis out of range, stored in *bad. */
static inline bool tfl_reduce_axes_mask(const tfl_tensor *axes, int ndim, bool red[TFL_MAX_DIMS], int64_t *bad)
{
  memset(red, 0, sizeof(bool) * TFL_MAX_DIMS);
  if (ndim == 0) return true;
  size_t n = tfl_tensor_count(axes);
  for (size_t i = 0; i < n; i++) {
    int64_t a = axes->type == TFL_TYPE_INT64 ? ((const int64_t *)axes->data)[i] : ((const int32_t *)axes->data)[i];
    int64_t d = a < 0 ? a + ndim : a;
    if (d < 0 || d >= ndim) {
      *bad = a;
      return false;
    }
    red[d] = true;
  }
  return true;
}

/* Output dims of a reduction of dims[0..ndim) over red: reduced dims become 1 (keep_dims)
 * or vanish. Returns the output rank. */
static inline int tfl_reduce_out_dims(const int32_t *dims, int ndim, const bool red[TFL_MAX_DIMS], bool keep,
                                      int32_t out[TFL_MAX_DIMS])
{
  int k = 0;
  for (int d = 0; d < ndim; d++) {
    if (red[d] && !keep) continue;
    out[k++] = red[d] ? 1 : dims[d];
  }
  return k;
}

#endif
