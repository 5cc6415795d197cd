/* tfl_engine.h - one model compiled once and shared by any number of streams.
 *
 *   tfl_engine_options o = tfl_engine_defaults();
 *   o.model_path = "m.tflite";  o.fallback = cpu;  o.accel = gl;   // delegates: borrowed
 *   o.max_batch = 8;  o.window_us = 1000;                           // batching across streams
 *   o.exec = run_on_gl_thread;  o.exec_user = ctx;                  // where delegates must run
 *   tfl_engine *e;  tfl_engine_create(&o, &e);
 *   per stream:  tfl_stream *s = tfl_engine_attach(e);
 *   per frame:   tfl_job j = { .fill = write_input, .consume = read_output, .user = me };
 *                tfl_stream_run(s, &j);          // returns once j's outputs were consumed
 *   tfl_engine_detach(s);  ...  tfl_engine_free(e);
 *
 * An engine owns one runner: one interpreter of the model (one set of packed weights, GL
 * programs and constants, one activation arena) for a batch of B frames. Streams keep no
 * activations of their own: their frames take turns on the runner, and frames of
 * different streams that arrive within `window_us` of each other run as one batch (when
 * the model can be batched: tfl_pass_set_batch). B follows the number of attached
 * streams (a power of two, at most max_batch); a stream alone runs at batch 1 and never
 * waits for others.
 *
 * Threads: any number of threads may call tfl_stream_run at once (one call per stream at
 * a time). One of the waiting callers runs each batch; it calls `exec` (or runs directly
 * when exec is NULL) to get onto the thread the delegates need, where it calls every
 * job's fill(), invokes, and calls every job's consume(). So fill/consume run on that
 * thread, not necessarily the job owner's; the owner is blocked in tfl_stream_run
 * meanwhile, so its own state is safe to use. No GStreamer here.
 */
#ifndef TFL_ENGINE_H
#define TFL_ENGINE_H

#include "tfl_interpreter.h"

/* Runs fn(arg) on the thread the delegates need and returns when it is done. */
typedef void (*tfl_exec_fn)(void *exec_user, void (*fn)(void *arg), void *arg);

typedef struct {
  const char *model_path;      /* copied; the engine loads its own graphs from it */
  tfl_delegate *accel;         /* optional accelerator (borrowed, outlives the engine) */
  tfl_delegate *fallback;      /* the CPU delegate (borrowed, outlives the engine), required */
  int max_batch;               /* most frames per run, 1..64 (default 8) */
  int window_us;               /* how long a frame may wait for other streams' frames;
                                  0: never batch (default 1000) */
  /* Optional: rewrites every graph the engine loads, before its batch is set and it is
   * compiled (through exec), e.g. to append a decoder's post-processing
   * (tfl_decoder_append_postprocess); an error fails the runner. */
  tfl_status (*edit_graph)(tfl_graph *g, void *edit_user, tfl_diag *diag);
  void *edit_user;             /* borrowed, outlives the engine */
  tfl_exec_fn exec;            /* NULL: the calling thread */
  void *exec_user;
  /* Optional, with exec NULL: where runners are built and freed (the batched one too,
   * which a run builds when several streams' frames come together). One long-lived thread
   * keeps their memory in one malloc arena: freed and built again on whichever thread runs,
   * it lands in another arena each time and RSS grows with restarts. NULL: the caller. */
  tfl_exec_fn build_exec;
  void *build_user;
  tfl_diag *diag;              /* log lines and errors of loading and compiling (borrowed);
                                  NULL: the engine's own (stderr, warnings) */
} tfl_engine_options;

tfl_engine_options tfl_engine_defaults(void);

typedef struct tfl_engine tfl_engine;
typedef struct tfl_stream tfl_stream;

/* Loads the model and compiles the batch-1 runner (through exec). */
tfl_status tfl_engine_create(const tfl_engine_options *o, tfl_engine **out);
/* Frees the runner (through exec). Every stream must have been detached. */
void tfl_engine_free(tfl_engine *e);

tfl_stream *tfl_engine_attach(tfl_engine *e);
void tfl_engine_detach(tfl_stream *s);

/* One frame's work. The callbacks get the runner's interpreter and the frame's slot of
 * its batch (tfl_tensor_slot gives a slot's view of a batched tensor). */
typedef struct tfl_job {
  tfl_status (*fill)(struct tfl_job *j, tfl_interpreter *it, int slot);
  tfl_status (*consume)(struct tfl_job *j, tfl_interpreter *it, int slot);
  bool host_outputs;           /* outputs are needed in host memory (else they may stay on
                                  the device, see tfl_interpreter_set_output_host) */
  void *user;
  /* set by the engine */
  tfl_status status;           /* TFL_OK, or why fill / invoke / consume failed */
  char error[512];
  int batch;                   /* frames in the run this job was part of */
  bool done;
  struct tfl_job *next;
} tfl_job;

/* Runs j (blocking) and returns j->status. */
tfl_status tfl_stream_run(tfl_stream *s, tfl_job *j);
/* Runs n jobs of one stream (the regions of one frame) as few batches as the runner
 * allows, blocking until all are done; the first failing job's status, else TFL_OK. */
tfl_status tfl_stream_run_many(tfl_stream *s, tfl_job **jobs, int n);

/* What the runner is, for messages and tests (a snapshot). */
typedef struct {
  int batch;                   /* frames per run now */
  int max_batch;               /* what the model allows (1: it cannot be batched) */
  int streams;                 /* attached */
  size_t arena_bytes;          /* the runner's CPU arena */
  unsigned long long runs, frames;  /* invokes so far, and frames they carried */
} tfl_engine_info;
void tfl_engine_get_info(tfl_engine *e, tfl_engine_info *out);

/* Calls fn(it, user) on the runner's interpreter under the engine's lock, through exec
 * (e.g. to describe the partitions). */
tfl_status tfl_engine_inspect(tfl_engine *e, void (*fn)(const tfl_interpreter *it, void *user), void *user);

/* Slot `slot` of a tensor whose dim 0 is the batch: same type, quantization and inner
 * dims, dim 0 = 1, data moved to the slot (NULL when t has no host data). */
tfl_tensor tfl_tensor_slot(const tfl_tensor *t, int slot);

#endif
