/* gl_decode_run.h - a real model with its decoder, for the post-processing tests
 * (test_gl_postproc.c, test_gl_ssd_op.c): loaded, optionally with the decoder's
 * post-processing appended (tfl_decoder_append_postprocess), on a delegate with the
 * CPU delegate (1 thread, XNNPACK) as the fallback. */
#ifndef GL_DECODE_RUN_H
#define GL_DECODE_RUN_H

#include <stdbool.h>

#include "decoders/tfl_decoder.h"
#include "runtime/tfl_interpreter.h"

typedef struct {
  tfl_diag diag;
  tfl_graph *g;
  tfl_delegate *cpu;
  tfl_interpreter *it;
  tfl_decoder *dec;
} gdr_run;

/* The model at path on d (NULL: the CPU delegate alone) with the decoder tfl_decoder_pick
 * chooses, created with opt (NULL: tfl_decoder_defaults); append: its post-processing
 * appended first (a failure when nothing is). Returns 0, or 1 with a FAIL line printed;
 * gdr_close r either way. */
int gdr_open(const char *path, tfl_delegate *d, bool append, const tfl_decoder_options *opt, gdr_run *r);
void gdr_close(gdr_run *r);

/* Two results the same to the bit: box, score, class and keypoints. */
bool gdr_same_box(const tfl_box *a, const tfl_box *b);

/* A monotonic clock in milliseconds. */
double gdr_now_ms(void);

#endif
