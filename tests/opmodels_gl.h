/* opmodels_gl.h - test_opmodels' GL mode (--delegate gl): one single-op model run with the
 * GL delegate as the interpreter's accelerator (the CPU reference kernels as its fallback)
 * and compared with the real TensorFlow Lite's golden.
 *
 * Float outputs within 1e-4 (fp32) or 1e-2 (fp16) x max(1, golden range); quantized models as
 * TFLite rounds: 8/16-bit outputs within one step (1 LSB of the output's scale: GL rounds each
 * quantized tensor to its grid in float, TFLite with fixed-point multipliers, which differ by
 * at most one step at ties), float outputs of quantized chains within the golden's `lsb`
 * (the last quantized tensor's step); hybrid ops (8-bit weights, float input) within half an
 * input quantization step times the sum of the weights' magnitudes (hybrid_tol: TFLite
 * quantizes their input on the fly, GL computes in float). Prints, per node, whether GL took
 * it and, if not, the GL check's reason. Exit status: 0 pass, 1 fail, 77 when GL takes none
 * of the model's nodes (meson: skipped). Without a golden the GL run is compared with the
 * CPU reference run, same tolerances. Models TFLite's kernels refuse (refused.txt) must be
 * refused (opmodels_refused_check).
 */
#ifndef OPMODELS_GL_H
#define OPMODELS_GL_H

#include <stdbool.h>

#define OPMODELS_GL_SKIP 77

/* CASE's model dir/models/CASE.tflite against dir/golden/CASE.gauss.txt on GL, fp16 or fp32
 * storage. float_only: a model with quantized tensors or hybrid ops is skipped (77; whole
 * converted models, where one step of rounding difference per op accumulates). Returns the
 * exit status above. */
int opmodels_gl_run(const char *name, const char *dir, bool fp16, bool float_only);
/* A model listed in dir/refused.txt (NAME and the words our message must hold): the
 * real TensorFlow Lite's kernels refuse it, so ours must too, at load or prepare (on GL
 * when gl, fp16 or fp32 storage; else the CPU reference), with the listed words in the
 * message. *listed says whether it is listed; returns 0 when it is not or was refused as
 * listed, 1 (a FAIL line printed) otherwise. mode names the run in the log. */
int opmodels_refused_check(const char *name, const char *dir, const char *mode, bool gl, bool fp16, bool *listed);
/* opmodels_gl_run once per precision ("fp16" or "fp32"), n of them: 1 when any run failed,
 * 77 when every run was skipped, else 0. */
int opmodels_gl_main(const char *name, const char *dir, const char *const *precision, int n, bool float_only);
/* test_opmodels' command line when it says `--delegate gl`: CASE [--dir D] --delegate gl
 * [--precision fp16|fp32 ...] (up to two, run in turn; default fp32) [--float-only]. Runs it and returns
 * true with the exit status in *status (2: a usage error); false for any other delegate
 * (`--delegate cpu` or none: the CPU checks). Options of the CPU mode taking a value
 * (--tol) are skipped with it. */
bool opmodels_gl_cli(int argc, char **argv, int *status);

#endif
