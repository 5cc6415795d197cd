/* gl_device.h - what the planner needs to know about the GPU, measured on it once and
 * kept beside the program cache (no GPU's numbers in the code).
 *
 *   fill: invocations of a long dependent chain of multiply-adds after which the time
 *         of a dispatch grows with its size: below it the device idles. Convolution
 *         tiles keep a share of it (their lanes run many independent chains), and
 *         reductions are split over a workgroup when the outputs are far fewer
 *         (gl_plan.c conv_fill); depthwise + 1x1 tiles follow it too (gl_gen_dwpw.c).
 *   wg:   the workgroup size (invocations) that ran that kernel fastest at 4 x fill.
 * Beside them the context's limits (max_wg, max_shared), queried, not kept in the file.
 * Measured in one pass (tens of ms on a discrete GPU; llvmpipe finds its knee after a
 * few small grids), each timing the least of several (load only adds time); file
 * <cache_dir>/tflgl-device-<hash of renderer, version>.txt, "TFLGLDEV1 fill wg",
 * published first-writer-wins: processes starting together all use the first one's
 * tuning, so they build (and cache) the same programs (docs/files.md). */
#ifndef GL_DEVICE_H
#define GL_DEVICE_H

#include "gl_context.h"
#include "gl_gen.h" /* gl_device_tuning */

/* From cache_dir if a file for this driver is there, else measured and published when
 * cache_dir is set (a file published meanwhile by another process wins over the
 * measurement). A FIFO, directory or link at the file's name is warned about and left
 * alone. Never fails: without a usable GPU timer or on errors it falls back to
 * fill = 16384, wg = 128 and says so in diag (warning). */
void gl_device_tuning_get(gl_context *c, const char *cache_dir, gl_device_tuning *out, tfl_diag *diag);

#endif
