/* tfl_interpreter.h - runs a tfl_graph.
 *
 *   tfl_graph *g;  tfl_load_file("m.tflite", &g);          // tfl_loader.h
 *   tfl_interpreter *it;
 *   tfl_interp_options o = tfl_interp_defaults();   o.threads = 2;
 *   tfl_interpreter_create(g, &o, &it);   // passes, shapes, partitions, arena, prepare
 *   memcpy(tfl_interpreter_input(it, 0)->data, pixels, n);
 *   tfl_interpreter_invoke(it);                            // no allocation
 *   read tfl_interpreter_output(it, 0)->data;
 *   tfl_interpreter_free(it);  tfl_graph_free(g);
 *
 * The interpreter borrows the graph (it must outlive the interpreter) and rewrites
 * it in place (folded constants, inferred shapes). One interpreter per graph.
 */
#ifndef TFL_INTERPRETER_H
#define TFL_INTERPRETER_H

#include "tfl_delegate.h"

struct cpu_delegate_options;

typedef struct {
  int threads;             /* CPU threads, >= 1 (default 1) */
  bool reference;          /* CPU: plain C reference kernels only, single thread */
  tfl_delegate *delegate;  /* optional accelerator (borrowed), asked first */
  /* optional further CPU delegate options (delegates/cpu/cpu_delegate.h: precision,
   * profiling), copied at create; threads and reference above win. NULL: defaults. */
  const struct cpu_delegate_options *cpu;
} tfl_interp_options;

tfl_interp_options tfl_interp_defaults(void);

typedef struct tfl_interpreter tfl_interpreter;

tfl_status tfl_interpreter_create(tfl_graph *g, const tfl_interp_options *opt, tfl_interpreter **out);
tfl_status tfl_interpreter_invoke(tfl_interpreter *it);
void tfl_interpreter_free(tfl_interpreter *it);

int tfl_interpreter_input_count(const tfl_interpreter *it);
int tfl_interpreter_output_count(const tfl_interpreter *it);
/* Graph tensors (data in the arena); NULL when out of range. */
tfl_tensor *tfl_interpreter_input(tfl_interpreter *it, int i);
tfl_tensor *tfl_interpreter_output(tfl_interpreter *it, int i);
/* Index into inputs/outputs by tensor name, -1 when absent. */
int tfl_interpreter_input_by_name(const tfl_interpreter *it, const char *name);
int tfl_interpreter_output_by_name(const tfl_interpreter *it, const char *name);

const tfl_graph *tfl_interpreter_graph(const tfl_interpreter *it);
size_t tfl_interpreter_arena_bytes(const tfl_interpreter *it);
int tfl_interpreter_partition_count(const tfl_interpreter *it);
/* Name of the delegate running node i ("cpu", "gl"), NULL for folded nodes. */
const char *tfl_interpreter_node_delegate(const tfl_interpreter *it, int node);

#endif
