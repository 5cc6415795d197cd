/* window_sums.h - per output pixel, the sum of (x - zero_point) over its convolution
 * window (padding counts as zero, as TFLite pads 8-bit tensors with the zero point).
 * It is the correction term of a convolution whose 8-bit weights were shifted to fit
 * int8: sum (x - zx)(w - zw) = sum (x - zx)(w - 128) + (128 - zw) * sum (x - zx)
 * (onednn_conv.c), for dense convs: one sum per output pixel, over every input channel of
 * its window. Plain C the compiler vectorizes; exact (int32). */
#ifndef CPU_WINDOW_SUMS_H
#define CPU_WINDOW_SUMS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
  int W, C;            /* input row: width, channels */
  int OW, KH, KW, sh, sw, dh, dw, pad_l;
  int32_t zero_point;  /* the input's */
  bool is_u8;          /* uint8 input, else int8 */
} cpu_window_geom;

/* x: rows_in input rows (dense NHWC rows of W * C values); output row r's window starts at
 * input row r * sh - pad_top (rows outside [0, rows_in) are padding). Writes rows_out * OW
 * sums into out. scratch: rows_in * W int32. */
void cpu_window_sums(const cpu_window_geom *g, const void *x, int rows_in, int pad_top, int rows_out,
                     int32_t *scratch, int32_t *out);

#endif
