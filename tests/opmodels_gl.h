/* opmodels_gl.h - test_opmodels' GL mode (--delegate gl): one single-op model run with the
 * GL delegate as the interpreter's accelerator (the CPU reference kernels as its fallback)
 * and compared with the real TensorFlow Lite's golden.
 *
 * Float outputs within 1e-4 (fp32) or 1e-2 (fp16) x max(1, golden range). Prints, per node,
 * whether GL took it and, if not, the GL check's reason. Exit status: 0 pass (or a case
 * out of scope: an input or output that is not float32, quantized activations inside or
 * hybrid ops with 8-bit weights, with a note), 1 fail, 77 when GL
 * takes none of the model's nodes (meson: skipped). Without a golden the GL run is
 * compared with the CPU reference run, same tolerances.
 */
#ifndef OPMODELS_GL_H
#define OPMODELS_GL_H

#include <stdbool.h>

#define OPMODELS_GL_SKIP 77

/* CASE's model dir/models/CASE.tflite against dir/golden/CASE.gauss.txt on GL, fp16 or fp32
 * storage. Returns the exit status above. */
int opmodels_gl_run(const char *name, const char *dir, bool fp16);
/* opmodels_gl_run once per precision ("fp16" or "fp32"), n of them: 1 when any run failed,
 * 77 when every run was skipped, else 0. */
int opmodels_gl_main(const char *name, const char *dir, const char *const *precision, int n);
/* test_opmodels' command line when it says `--delegate gl`: CASE [--dir D] --delegate gl
 * [--precision fp16|fp32 ...] (up to two, run in turn; default fp32). Runs it and returns
 * true with the exit status in *status (2: a usage error); false for any other delegate
 * (`--delegate cpu` or none: the CPU checks). Options of the CPU mode taking a value
 * (--tol) are skipped with it. */
bool opmodels_gl_cli(int argc, char **argv, int *status);

#endif
