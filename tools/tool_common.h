/* tool_common.h - what the tflite-* tools share: the --delegate/--threads flags and
 * the interpreter they make, inputs from files, pictures or the oracle's Gaussian
 * generator, and outputs written in the oracle's format (../shared/oracle/README.md).
 * Single-threaded command-line code; errors print one line to stderr.
 */
#ifndef TOOL_COMMON_H
#define TOOL_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "delegates/gl/gl_delegate.h"
#include "runtime/tfl_interpreter.h"
#include "runtime/tfl_loader.h"
#include "delegates/cpu/cpu_delegate.h"

#define TOOL_DEFAULT_DELEGATE "cpu"
#define TOOL_DEFAULT_THREADS 1

/* Flags every tool that runs a model takes. */
typedef struct {
  const char *delegate;  /* "cpu" or "gl" */
  int threads;           /* >= 1 */
  const char *precision; /* NULL: the delegate's default (cpu fp32, gl fp16); cpu: fp32 or
                            bf16; gl: fp16 or fp32 */
  const char *cache_dir; /* GL: program cache directory, NULL for none */
  int profile;           /* CPU: 0 off; 1 time each step; 2 also one XNNPACK subgraph per node */
  bool no_onednn;        /* CPU: convolutions on XNNPACK, not oneDNN (for comparisons) */
  tfl_log_level log;     /* most detailed log level printed (--log; default: TFL_LOG, else warning) */
  gl_tuning gl_tuning;   /* GL: --gl-* switches (tool_gl_tuning_parse) */
  gl_device_profile gl_profile; /* GL: --gl-profile, limits of a board's GPU (default native) */
} tool_run_flags;

void tool_run_flags_init(tool_run_flags *f);
/* If argv[*i] is --delegate, --threads, --precision, --cache-dir or --log, consumes it and its value
 * (advancing *i) and returns 1; returns 0 for another argument, -1 (message printed) for a bad value. */
int tool_run_flags_parse(tool_run_flags *f, int argc, char **argv, int *i);
/* Help lines for those flags, with their defaults. */
void tool_run_flags_help(FILE *out);
/* The same without the --delegate line, for tools that take their own. */
void tool_run_options_help(FILE *out);
/* The GL delegate's switches (gl_tuning) as flags: --gl-conv-tile PxS, --gl-conv-split
 * auto|never|always, --gl-no-fuse, --gl-no-reorder, --gl-all-barriers, --gl-const-fp32,
 * --gl-wide-residuals. Returns as tool_run_flags_parse (tool_run_flags_parse calls it). */
int tool_gl_tuning_parse(gl_tuning *t, int argc, char **argv, int *i);
void tool_gl_tuning_help(FILE *out);

/* Value of a flag that takes one: advances *i; NULL (message printed) when missing. */
const char *tool_flag_value(int argc, char **argv, int *i);
/* Parses a whole number >= min; false (message printed) otherwise. */
bool tool_parse_int(const char *flag, const char *s, int min, int *out);
/* tool_flag_value, then tool_parse_int of it: the value of flag argv[*i]. */
bool tool_int_flag(int argc, char **argv, int *i, int min, int *out);

/* Arguments every model tool reads alike. tool_common_arg takes the run flags and
 * --help/-h (usage(stdout)): it returns TOOL_ARG_TAKEN (go on), TOOL_ARG_OTHER (not one
 * of them) or the status to exit with. tool_model_arg takes an argument no flag took:
 * the model path, once; else it prints an error and usage(stderr) and returns false. */
enum { TOOL_ARG_TAKEN = -1, TOOL_ARG_OTHER = -2 };
int tool_common_arg(tool_run_flags *f, int argc, char **argv, int *i, void (*usage)(FILE *));
bool tool_model_arg(const char *a, const char **model, void (*usage)(FILE *));

/* Parses a log level name (error, warning, info, debug); false when unknown. */
bool tool_parse_log_level(const char *s, tfl_log_level *out);
/* A diagnostics context printing to stderr up to `level`. */
void tool_diag_init(tfl_diag *d, tfl_log_level level);

/* A loaded model with an interpreter on the chosen delegate. Not movable once open
 * (the interpreter and delegates point at `diag`). */
typedef struct {
  tfl_diag diag;           /* errors and logs of the load, the interpreter and the delegates */
  tfl_graph *graph;
  tfl_interpreter *it;
  tfl_delegate *delegate;  /* owned accelerator delegate, NULL for cpu */
  tfl_delegate *cpu;       /* owned CPU delegate: the interpreter's fallback */
  double load_ms, init_ms; /* file load; interpreter creation (passes, plan, prepare) */
  cpu_profile profile;     /* flags->profile: per-step times (arrays owned here) */
} tool_model;

/* Loads `path` and creates an interpreter: reference = single-threaded reference
 * kernels (the delegate flag is ignored then). Prints the error and returns false.
 * After a failed invoke, m->diag.error says why. */
bool tool_model_open(tool_model *m, const char *path, const tool_run_flags *f, bool reference);
/* The two halves of tool_model_open, for callers that read the graph before the
 * interpreter rewrites it: load (m->graph and m->diag), then prepare (the CPU and chosen
 * delegates, the interpreter). Failures print the error;
 * a failed prepare closes m. */
bool tool_model_load(tool_model *m, const char *path, const tool_run_flags *f);
bool tool_model_prepare(tool_model *m, const char *path, const tool_run_flags *f, bool reference);
void tool_model_close(tool_model *m);

/* Milliseconds of a monotonic clock. */
double tool_now_ms(void);

/* The oracle's deterministic N(0,1) generator: mulberry32 + Box-Muller. */
typedef struct {
  uint32_t state;
} tool_gauss;
void tool_gauss_init(tool_gauss *g, uint32_t seed);
double tool_gauss_next(tool_gauss *g);

typedef enum { TOOL_DIST_NORMAL, TOOL_DIST_DIFF } tool_dist;
/* Fills every input, input after input, as the oracle's `gauss --seed N --dist D`. */
bool tool_fill_gauss(tfl_interpreter *it, uint32_t seed, tool_dist dist);
/* Reads input i from a raw little-endian file of exactly its size. */
bool tool_fill_file(tfl_interpreter *it, int i, const char *path);
/* Loads a PNG or JPEG (image_file.h), resizes it to input 0 (bilinear, half-pixel
 * centers, in double) and normalizes as the oracle's --image: float lo + v/255*(hi-lo),
 * uint8 round(v). */
bool tool_fill_image(tfl_interpreter *it, const char *path, double lo, double hi);
/* Parses "lo,hi" (message printed when malformed). */
bool tool_parse_norm(const char *s, double *lo, double *hi);

/* Value i of a numeric tensor as a double (NaN for float16 and strings); a complex64
 * tensor's values are its (real, imaginary) floats, two per element. */
double tool_element(const tfl_tensor *t, size_t i);
/* How many values tool_element reads: the element count, twice it for complex64. */
size_t tool_value_count(const tfl_tensor *t);

/* The oracle's type names ("float32", "uint8", ...). */
const char *tool_type_name(tfl_type t);

/* Creates dir and its missing parents, as `mkdir -p`; an existing directory is fine.
 * On failure prints an error naming the path that could not be made and returns false. */
bool tool_mkdir_p(const char *dir);

/* Before a run: creates dir (tool_mkdir_p) and writes input_<i>.bin from the input
 * tensors as they are now, i.e. as they will be fed (the planner may give an input's bytes
 * to a later tensor, so after a run they can hold something else). */
bool tool_write_inputs(tfl_interpreter *it, const char *dir);

/* After a run: writes output_<i>.bin and outputs.json (which also describes the
 * input_<i>.bin files tool_write_inputs wrote) into dir. `source_json` is the JSON object
 * describing the inputs ({"gauss": 1, ...}). `fed`: copies of the inputs as fed, one per
 * input, for their statistics in outputs.json; NULL: the input tensors as they are now. */
bool tool_write_outputs(tfl_interpreter *it, const char *model_path, const char *dir,
                        const char *source_json, void *const *fed);

#endif
