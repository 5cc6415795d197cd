/* gl_model_run.h - a real model opened for the post-processing tests (test_gl_postproc,
 * test_gl_landmark_op, test_gl_ssd_op): loaded, optionally with its decoder's post-processing appended
 * (tfl_decoder_append_postprocess), an interpreter on a delegate (NULL: the CPU alone,
 * else the CPU as fallback) and the decoder the family table picks. */
#ifndef GL_MODEL_RUN_H
#define GL_MODEL_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "decoders/tfl_decoder.h"
#include "runtime/tfl_interpreter.h"

typedef struct {
  tfl_diag diag;
  tfl_graph *g;
  tfl_delegate *cpu;
  tfl_interpreter *it;
  tfl_decoder *dec;
} glm_run;

/* dopt: the decoder's options (NULL: tfl_decoder_defaults); append: the post-processing
 * appended (a failure when the model has none). 0, or 1 with a FAIL line printed. */
int glm_open_run(const char *path, tfl_delegate *d, bool append, const tfl_decoder_options *dopt, glm_run *r);
/* Frees what glm_open_run made (a zeroed or failed run too). */
void glm_close_run(glm_run *r);
/* The GL delegate in fp16 or fp32 reporting to diag (NULL with a FAIL line naming path
 * printed). */
tfl_delegate *glm_gl_delegate(bool fp16, tfl_diag *diag, const char *path);
/* A MODEL argument: looked up in the colon-separated dirs (glm_find_model) and checked
 * by check(path, fp16). Returns the failures: check's, or 1 with a FAIL line when the
 * model cannot be found. */
int glm_check_model_arg(const char *arg, const char *dirs, bool fp16, int (*check)(const char *path, bool fp16));
/* The command-line options the post-processing tests share. */
typedef struct {
  bool fp16;
  const char *models;   /* --models: colon-separated directories to find MODEL arguments in */
  const char *golden;   /* --golden: the golden cases (default tests/data/golden) */
  const char *pictures; /* --pictures: their pictures (default tests/data/pictures) */
} glm_options;

/* The defaults, with --fp16 taken from anywhere in argv (a test may need the precision
 * before it reaches the other arguments). */
glm_options glm_default_options(int argc, char **argv);
/* argv[*i] one of the shared options (--fp16, --models D, --golden D, --pictures D): taken
 * into o, *i moved past its value, true. False for any other argument. */
bool glm_take_option(int argc, char **argv, int *i, glm_options *o);
/* A test's main for MODEL arguments alone: the shared options taken into *o, every other
 * argument checked as glm_check_model_arg does; prints "N model(s), F failure(s)" (F with
 * `earlier` failures added) and returns the exit status: 0 when nothing failed and some
 * model was checked. */
int glm_check_models(int argc, char **argv, glm_options *o, int earlier, int (*check)(const char *path, bool fp16));
/* A model path's file name without ".tflite" into stem. */
void glm_stem(const char *path, char *stem, size_t n);
/* Two results the same to the bit: box, score, class and keypoints. */
bool glm_same_box(const tfl_box *a, const tfl_box *b);
/* A monotonic clock in milliseconds. */
double glm_now_ms(void);
/* Item b (0..2) of a detector's batch made from one frame's heads, so that an item read
 * from another's slot gives other results: regressors reg (nr values, `row` an anchor:
 * offsets, then sizes at 2 and 3, then any keypoint offsets) and scores sc (ns values:
 * logits, or probabilities when prob). b = 0: as they are; 1: the box centres and
 * keypoints mirrored about the anchors (offsets negated, sizes kept) and the scores
 * negated (1 - p): the anchors that failed the threshold now pass; 2: the boxes and
 * keypoints moved and grown (raw + 2) and every score up by 0.75 (a logit; a
 * probability a quarter of the way to 1). */
void glm_batch_item(const float *reg, const float *sc, size_t nr, size_t ns, int row, bool prob, int b, float *reg_b,
                    float *sc_b);
/* The worst |got - want| over n floats and `worst`, less rel * |want| each (NaN:
 * infinite). */
double glm_worst(double worst, const float *got, const float *want, size_t n, double rel);

#endif
