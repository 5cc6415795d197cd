/* fuzz_model.h - what the fuzz targets do with one input, callable without libFuzzer.
 *
 * fuzz_load: the loader alone (load, walk every tensor, node and string, free).
 * fuzz_run: load, then create an interpreter and run it once on the CPU reference
 *   kernels (one thread) and on the fast path (XNNPACK and our threaded kernels, two
 *   threads), then every output decoder whose checks the outputs pass. Inputs are filled
 *   from a hash of the model bytes, so a run is reproducible.
 *
 * Both return TFL_OK when the model ran (or loaded) and otherwise the first failure, with
 * its message in `msg` (may be NULL). A model is refused before running when it would need
 * more memory or work than a fuzzing run allows (FUZZ_MAX_BYTES, FUZZ_MAX_WORK): that is
 * TFL_ERR_ARG with "fuzz limit" in the message, not a finding.
 *
 * The libFuzzer targets (fuzz_loader.c, fuzz_run.c) call these; so do the regression test
 * (tests/fuzz/test_fuzz_regress.c) and the corpus replay of builds without libFuzzer.
 * Threads: one call at a time per thread; calls share no state.
 */
#ifndef FUZZ_MODEL_H
#define FUZZ_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/tfl_graph.h"
#include "runtime/tfl_status.h"

/* Kept small so that an instrumented run stays well under a second: the fuzzer looks for
 * wrong behaviour, not for the largest model that fits in memory. */
#define FUZZ_MAX_BYTES ((size_t)16 << 20)   /* all tensors of one graph together */
#define FUZZ_MAX_WORK 20000000.0            /* multiply-adds (or element steps) per run */

tfl_status fuzz_load(const uint8_t *data, size_t size, char *msg, size_t msg_len);
tfl_status fuzz_run(const uint8_t *data, size_t size, char *msg, size_t msg_len);

/* Shared with the GL target (fuzz_gl_model.h). fuzz_fits: loads the model and checks its
 * declared, folded and inferred tensor sizes and its work against the given limits
 * (TFL_ERR_ARG "fuzz limit: ..." when over). fuzz_seed: the input seed a model's bytes
 * give. fuzz_fill_input: t's values from a seed (floats in [-2, 2), integers over their
 * type's range), the same on every run. */
tfl_status fuzz_fits(const uint8_t *data, size_t size, size_t max_bytes, double max_work, tfl_diag *d);
uint32_t fuzz_seed(const uint8_t *data, size_t size);
void fuzz_fill_input(tfl_tensor *t, uint32_t seed);

#endif
