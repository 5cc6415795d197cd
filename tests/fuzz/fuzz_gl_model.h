/* fuzz_gl_model.h - what the GL fuzz target does with one input, callable without libFuzzer.
 *
 * fuzz_gl_run: the model (within FUZZ_GL_MAX_BYTES / FUZZ_GL_MAX_WORK, smaller than the CPU
 * target's: llvmpipe is slow) runs once on the CPU reference kernels (one thread) and once
 * with the GL delegate (fp32 storage) as accelerator and the same reference kernels as its
 * fallback, on the same inputs (fuzz_fill_input from the model's bytes). That plans, fuses,
 * generates, compiles and dispatches GL programs for every node GL takes.
 *
 * A disagreement (*differ true, what and where in msg) is a finding:
 *   - the reference ran and the GL run failed (interpreter create or invoke);
 *   - outputs of different count, type or size;
 *   - a float32 output element off by more than 1e-4 x max(1, range of the reference
 *     output), or NaN where the reference is finite (an output whose reference holds a NaN
 *     or an infinity is not compared: overflow depends on summation order). An overflowed
 *     sum that the reference, like TFLite, saturated to +-FLT_MAX is compared: GL's
 *     epilogue saturates it too (tests/fuzz/README.md, finding 4);
 *   - an 8/16-bit integer output off by more than 1 (GL computes in float and rounds once);
 *     int32, int64 and bool outputs must be equal.
 * A model GL takes no node of is not compared (both runs are the reference); nor is one
 * that computes on quantized values (quantized activations, or hybrid nodes: 8-bit weights
 * read by a float op), which GL computes in float, unlike TFLite (docs/gl-ops.md: out of
 * the golden checks' scope too): those are checked for crashes, sanitizer reports, hangs
 * and GL failures only.
 *
 * The delegate (its EGL context and its program cache in cache_dir) lives across inputs:
 * an identical program is compiled once. fuzz_gl_open returns NULL with why in msg.
 * Threads: one fuzz_gl per thread (its context is current on the thread that opened it).
 */
#ifndef FUZZ_GL_MODEL_H
#define FUZZ_GL_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/tfl_status.h"

#define FUZZ_GL_MAX_BYTES ((size_t)4 << 20)
#define FUZZ_GL_MAX_WORK 4000000.0
#define FUZZ_GL_TOL 1e-4

typedef struct fuzz_gl fuzz_gl;

fuzz_gl *fuzz_gl_open(const char *cache_dir, char *msg, size_t msg_len);
void fuzz_gl_close(fuzz_gl *f);

/* The reference run's status (TFL_OK: it ran; else why it was refused, in msg unless a
 * disagreement is reported there). When it ran and GL agreed, msg says whether the
 * outputs were compared ("compared: N node(s) on GL", "not compared: ..."). */
tfl_status fuzz_gl_run(fuzz_gl *f, const uint8_t *data, size_t size, bool *differ, char *msg, size_t msg_len);

#endif
