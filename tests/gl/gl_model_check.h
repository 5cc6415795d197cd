/* gl_model_check.h - real models on GL against the CPU, for test_gl_models (the CI
 * check) and gl_bench (the device table): inputs rebuilt from a model's golden case
 * (tests/data/golden: a picture or Gaussian noise, bit for bit as the oracle fed them)
 * and the worst element of each compared tensor. */
#ifndef GL_MODEL_CHECK_H
#define GL_MODEL_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/tfl_interpreter.h"
#include "tests/golden.h"

/* NAME (no '/' or ".tflite") looked up as NAME.tflite in the colon-separated dirs (a
 * path is taken as it is); buf holds the result; NULL if absent. */
const char *glm_find_model(const char *arg, const char *dirs, char *buf, size_t n);

/* Reads golden case `kind` ("picture", "gauss") of model `stem` from golden_dir into
 * gc (golden_free it); false with a FAIL line printed when absent. */
bool glm_read_case(const char *golden_dir, const char *stem, const char *kind, golden_case *gc);

/* Fills the inputs of `a` as gc did (pictures from picture_dir), checks them against
 * the case's hashes and copies them into `b` (may be NULL). false with a FAIL line. */
bool glm_fill(const golden_case *gc, const char *picture_dir, const char *stem, tfl_interpreter *a, tfl_interpreter *b);

/* glm_read_case, glm_fill and golden_free in one: the inputs of `a` (and b) from golden
 * case `kind` of model `stem`. false with a FAIL line. */
bool glm_fill_case(const char *golden_dir, const char *picture_dir, const char *stem, const char *kind,
                   tfl_interpreter *a, tfl_interpreter *b);

/* Whether tensor t's bytes still hold its value after an invoke: a graph output, or no
 * node after its last reader writes bytes of the arena it took (the planner gives bytes
 * of a dead tensor to later ones). */
bool glm_intact(const tfl_graph *g, int t);

/* Tensors worth comparing in a GL run: graph outputs, but for a CPU post-processing's
 * (TFLite_Detection_PostProcess, PosenetDecoderOp, the decoders' ops: their outputs
 * amplify tiny differences) the GL tensors it reads, while still intact after the
 * invoke (glm_intact); graph_outputs_only: just the graph outputs, whoever made them. */
int glm_compared(tfl_interpreter *gl, int *cmp, int max, bool graph_outputs_only);

typedef struct {
  double worst;          /* max |got - ref| */
  double range;          /* ref's max - min (1 when flat) */
  double mean;           /* mean |got - ref| */
  size_t at;             /* where the worst is */
} glm_err;
glm_err glm_compare(const tfl_tensor *ref, const tfl_tensor *got);

#endif
