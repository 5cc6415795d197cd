/* tfl_delegate.h - what a delegate implements.
 *
 * The interpreter asks the accelerator delegate (if any) which nodes it supports;
 * runs of consecutive claimed nodes form partitions; every other node goes to the
 * fallback delegate (the CPU delegate, which supports all ops the runtime knows). For each partition
 * the delegate's prepare() is called once (compile: shaders, XNNPACK subgraphs,
 * packed weights); invoke() then runs it with no allocation.
 *
 * Threads: all calls for one interpreter come from one thread at a time. A GL
 * delegate expects its GL context current on that thread. A delegate keeps no
 * global state; give each thread's interpreters their own delegates (or
 * serialize the calls) unless the delegate documents otherwise.
 */
#ifndef TFL_DELEGATE_H
#define TFL_DELEGATE_H

#include "tfl_graph.h"

/* A partition as the interpreter hands it over. Arrays are owned by the
 * interpreter and live until release(). Boundary tensors: `inputs` are read from
 * tensor->data (CPU memory) unless the delegate was told otherwise, `outputs` must
 * be written to tensor->data by the end of invoke(). */
typedef struct {
  int n_nodes;
  const int32_t *nodes;      /* node indices in execution order */
  int n_inputs;
  const int32_t *inputs;     /* non-constant tensors read but not produced inside */
  int n_outputs;
  const int32_t *outputs;    /* tensors produced inside and read outside (or graph outputs) */
  tfl_diag *diag;            /* the interpreter's diagnostics: prepare, invoke and release
                                report there (a delegate shared by several interpreters
                                keeps each partition's own); never NULL */
} tfl_partition;

typedef struct tfl_delegate {
  const char *name;          /* "cpu", "gl": used in logs and tools */
  void *ctx;                 /* the delegate's own state, passed back to every call */

  /* Can this delegate run node `node` of `g` (op, version, types, shapes)? */
  bool (*supports)(void *ctx, const tfl_graph *g, int node);
  /* Compiles `part`. Activation tensors already have their arena data pointers.
   * On success *state is passed to invoke()/release(). */
  tfl_status (*prepare)(void *ctx, tfl_graph *g, const tfl_partition *part, void **state);
  tfl_status (*invoke)(void *ctx, void *state);
  void (*release)(void *ctx, void *state);
  /* Frees ctx; the interpreter never calls it (the creator owns the delegate). */
  void (*destroy)(struct tfl_delegate *self);
} tfl_delegate;

#endif
