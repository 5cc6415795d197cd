/* eval_session.h - what tflite-eval-classification and tflite-eval-detection share: their
 * common flags (the --delegate list such as cpu,gl, preprocessing, --limit), one model
 * session per delegate that prepares a picture exactly as tflitefilter does on system
 * memory (preprocess/: fit, bilinear resize, the model's normalization) and decodes the
 * outputs with the element's decoder, and TensorFlow Lite's latency lines.
 *
 *   eval_flags fl;  eval_flags_init(&fl);
 *   per argument: r = eval_flags_parse(&fl, argc, argv, &i);       // like tool_common_arg
 *   eval_session s;  eval_session_open(&s, model, &fl, k, TFL_DECODER_CLASSIFICATION, &opt);
 *   per picture:     eval_session_run(&s, &pic, &results);
 *   eval_session_print_latency(&s, stdout);  eval_session_close(&s);
 *
 * On GL the tensor is made on the CPU and uploaded, so a difference between delegates is
 * the delegates' arithmetic alone (the element's GL path resizes on the GPU with the same
 * math, tested against preprocess.c in tests/gl/test_gl_api.c).
 * Single-threaded command-line code; errors print one line to stderr.
 */
#ifndef EVAL_SESSION_H
#define EVAL_SESSION_H

#include <stdbool.h>
#include <stdio.h>

#include "decoders/tfl_decoder.h"
#include "evaluation/class_truth.h"
#include "preprocess/preprocess.h"
#include "tool_common.h"

#define EVAL_MAX_DELEGATES 4

typedef struct {
  const char *model;            /* the one argument that is no flag */
  const char *images;           /* --images DIR */
  bool verbose;                 /* --verbose: a line per picture and delegate */
  tool_run_flags run;           /* --precision, --threads, --cache-dir (run.delegate: per session) */
  const char *delegates[EVAL_MAX_DELEGATES];
  int n_delegates;
  fit_mode fit;                 /* --fit, default stretch as tflitefilter */
  float mean, std;              /* --input-mean / --input-std; < 0: from the model */
  const char *model_labels;     /* --model-labels, NULL: the model's metadata */
  int limit;                    /* --limit, 0: every picture */
} eval_flags;

void eval_flags_init(eval_flags *f);
/* Takes argv[*i] when it is one of the shared flags (or --help: usage(stdout)).
 * Returns TOOL_ARG_TAKEN, TOOL_ARG_OTHER, or the status to exit with. */
int eval_flags_parse(eval_flags *f, int argc, char **argv, int *i, void (*usage)(FILE *));
/* After the tool's own flags: takes argv[i] as the model (false, message printed, when
 * it is an unknown flag or a second model). */
bool eval_flags_model(eval_flags *f, const char *arg, void (*usage)(FILE *));
/* True when MODEL and --images were given and `need` (the tool's required flag, e.g.
 * --labels) is not NULL; else prints what is missing (named by need_name) and usage. */
bool eval_flags_complete(const eval_flags *f, const void *need, const char *need_name, void (*usage)(FILE *));
/* Help lines for those flags. */
void eval_flags_help(FILE *out);

/* A decoded picture. */
typedef struct {
  uint8_t *rgb;                 /* packed RGB, width * height * 3 */
  int width, height;
  double decode_ms;             /* reading and decoding the file */
} eval_picture;

/* Loads a PNG or JPEG; false with the message printed. */
bool eval_picture_load(eval_picture *p, const char *path);
void eval_picture_free(eval_picture *p);

/* Running mean and spread (Welford), in milliseconds. */
typedef struct {
  double n, mean, m2;
} eval_timer;

typedef struct {
  char name[32];                /* "cpu", "gl (fp16)" */
  tool_model m;
  tfl_decoder *decoder;
  pix_norm norm;
  const char *norm_source;      /* "model metadata", "model family", "--input-mean/--input-std" */
  fit_mode fit;
  eval_timer pre, infer;        /* preprocessing includes decoding the picture file */
  double total_ms;              /* pictures, preprocessing, inference, decoding results */
  int runs;
} eval_session;

/* Opens delegate number k of the flags with the given decoder family and options. The
 * decoder is made from the graph before the interpreter rewrites it, as tflitefilter
 * does. False with the error printed. */
bool eval_session_open(eval_session *s, const char *model, const eval_flags *f, int k,
                       tfl_decoder_kind kind, const tfl_decoder_options *opt);
/* Opens a session for every delegate of the flags; on failure closes those opened, prints
 * why and returns false. *n_open says how many are open. */
bool eval_sessions_open(eval_session *s, int *n_open, const eval_flags *f, tfl_decoder_kind kind,
                        const tfl_decoder_options *opt);
/* Preprocesses, runs and decodes one picture into *res (cleared first). */
bool eval_session_run(eval_session *s, const eval_picture *pic, tfl_results *res);
void eval_session_close(eval_session *s);

/* One line about the session: delegate, where the nodes run, input, normalization, fit. */
void eval_session_describe(const eval_session *s, FILE *out);
/* TensorFlow Lite's lines: "Num evaluation runs", "Preprocessing latency",
 * "Inference latency". */
void eval_session_print_latency(const eval_session *s, FILE *out);
/* "Images per second: N" over everything the session did per picture. */
void eval_session_print_rate(const eval_session *s, FILE *out);

/* The model's labels: --model-labels, else the metadata's label file; false (message
 * printed) when the file cannot be read. *have is false when there are none. */
bool eval_model_labels(const eval_flags *f, const eval_session *s, text_lines *out, bool *have);

#endif
