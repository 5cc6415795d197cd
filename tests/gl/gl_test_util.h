/* gl_test_util.h - runs one-node graphs (tests/op_runner.h) through the GL delegate
 * and compares with the CPU reference kernel's output. */
#ifndef GL_TEST_UTIL_H
#define GL_TEST_UTIL_H

#include "delegates/gl/gl_delegate.h"
#include "delegates/gl/gl_layout.h"
#include "tests/op_runner.h"

/* Deterministic values in [lo, hi). */
void glt_fill(float *v, size_t n, float lo, float hi, unsigned *seed);

/* Runs r's node on the CPU reference, then on delegate d (one partition holding the
 * node), compares output 0: max |gl - cpu| / max(max |cpu|, 1) <= tol. Prints a line
 * per case; returns 0 on pass. */
int glt_compare(const char *name, op_runner *r, tfl_delegate *d, float tol);

/* Runs node 0 of r's graph through d only (output left in the tensors). */
tfl_status glt_run_gl(op_runner *r, tfl_delegate *d);
/* The same with device tensors: pictures binds[0..n_binds) imported into an image buffer
 * of d and bound to input tensor `bind_tensor` before the invoke, then after(r, d,
 * state) while the partition still exists (exports). */
typedef tfl_status (*glt_after_fn)(op_runner *r, tfl_delegate *d, void *state);
/* The graph the texture-input tests run: y = x + 0 (ADD with a constant zero) on an NHWC
 * [1, ih, iw, 3] input of `type` (uint8: scale 1/128, zero point 128, as y), x the graph's only
 * input so the delegate's texture input fills it. gin is the graph's input list (one entry,
 * kept by the caller as long as r). Returns x; *y the output tensor. */
int glt_texture_add_graph(op_runner *r, tfl_type type, int ih, int iw, int32_t gin[1], int *y);
tfl_status glt_run_gl_ext(op_runner *r, tfl_delegate *d, int bind_tensor, const tfl_image_desc *binds, int n_binds,
                          glt_after_fn after);

#endif
