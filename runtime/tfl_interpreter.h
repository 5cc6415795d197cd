/* tfl_interpreter.h - runs a tfl_graph.
 *
 *   tfl_diag diag;  tfl_diag_init(&diag);                   // tfl_status.h
 *   tfl_graph *g;   tfl_load_file("m.tflite", &g, &diag);    // tfl_loader.h
 *   cpu_delegate_options co = cpu_delegate_defaults();  co.threads = 2;
 *   tfl_delegate *cpu = cpu_delegate_create(&co);            // delegates/cpu
 *   tfl_interp_options o = tfl_interp_defaults();
 *   o.fallback = cpu;  o.diag = &diag;                       // o.delegate: an accelerator
 *   tfl_interpreter *it;
 *   tfl_interpreter_create(g, &o, &it);   // passes, shapes, partitions, arena, prepare
 *   memcpy(tfl_interpreter_input(it, 0)->data, pixels, n);
 *   tfl_interpreter_invoke(it);                              // no allocation
 *   read tfl_interpreter_output(it, 0)->data;
 *   tfl_interpreter_free(it);  cpu->destroy(cpu);  tfl_graph_free(g);
 *
 * The interpreter borrows the graph (it must outlive the interpreter) and rewrites
 * it in place (folded constants, inferred shapes). One interpreter per graph.
 * It borrows its delegates too: they must outlive it. The runtime knows no delegate
 * itself; the caller hands the CPU delegate in as the fallback.
 *
 * Threads: one interpreter is used by one thread at a time (create, invoke and free
 * may happen on different threads one after the other). Any number of interpreters,
 * each with its own graph, delegates and diag, may be created, run and freed at once
 * on any threads: the runtime keeps no mutable global state.
 */
#ifndef TFL_INTERPRETER_H
#define TFL_INTERPRETER_H

#include "tfl_delegate.h"

typedef struct {
  tfl_delegate *delegate;  /* optional accelerator (borrowed), asked first */
  tfl_delegate *fallback;  /* required (borrowed): runs every node the accelerator does
                              not claim, so it must support all of them (the CPU
                              delegate: cpu_delegate_create); create fails naming the
                              first node it cannot run */
  tfl_diag *diag;          /* errors and log lines of create, invoke and the delegates'
                              partitions (borrowed, must outlive the interpreter); NULL:
                              the interpreter owns one (stderr, warnings; a failing
                              create prints its error there) */
} tfl_interp_options;

tfl_interp_options tfl_interp_defaults(void);

typedef struct tfl_interpreter tfl_interpreter;

tfl_status tfl_interpreter_create(tfl_graph *g, const tfl_interp_options *opt, tfl_interpreter **out);
tfl_status tfl_interpreter_invoke(tfl_interpreter *it);
void tfl_interpreter_free(tfl_interpreter *it);
/* The message of the last failure (options.diag's, or the interpreter's own); "" when none. */
const char *tfl_interpreter_last_error(const tfl_interpreter *it);

int tfl_interpreter_input_count(const tfl_interpreter *it);
int tfl_interpreter_output_count(const tfl_interpreter *it);
/* Graph tensors (data in the arena); NULL when out of range. */
tfl_tensor *tfl_interpreter_input(tfl_interpreter *it, int i);
tfl_tensor *tfl_interpreter_output(tfl_interpreter *it, int i);
/* Index into inputs/outputs by tensor name, -1 when absent. */
int tfl_interpreter_input_by_name(const tfl_interpreter *it, const char *name);
int tfl_interpreter_output_by_name(const tfl_interpreter *it, const char *name);

/* Device tensors (tfl_delegate.h, tfl_buffer.h): graph input i bound to image buffer
 * `image` (its slot of the batch as its description says) for the following invokes
 * (NULL: every slot from host memory again); the bytes one slot of graph output i takes
 * when exported as e says into a buffer of delegate `owner` (NULL: a host buffer; refused:
 * the output comes back with the invoke instead, e.g. another delegate makes it);
 * slot e->slot of graph output i exported into dst after an invoke (a host buffer now,
 * a device buffer or image only queued); whether output i (or every output) is copied to
 * host memory by invoke. Error naming the delegate when the partition's delegate cannot
 * do it, or dst or image belongs to another delegate. */
tfl_status tfl_interpreter_bind_input(tfl_interpreter *it, int i, const tfl_buffer *image);
tfl_status tfl_interpreter_output_bytes(tfl_interpreter *it, int i, const tfl_export *e, const tfl_delegate *owner,
                                        size_t *need);
tfl_status tfl_interpreter_export_output(tfl_interpreter *it, int i, const tfl_export *e, tfl_buffer *dst);
tfl_status tfl_interpreter_set_output_host(tfl_interpreter *it, int i, bool host);
/* All outputs: host = true copies every output back; false leaves on the device each
 * output whose delegate allows it (the others are still copied). */
void tfl_interpreter_set_outputs_host(tfl_interpreter *it, bool host);

const tfl_graph *tfl_interpreter_graph(const tfl_interpreter *it);
size_t tfl_interpreter_arena_bytes(const tfl_interpreter *it);
int tfl_interpreter_partition_count(const tfl_interpreter *it);
/* Name of the delegate running node i ("cpu", "gl"), NULL for folded nodes. */
const char *tfl_interpreter_node_delegate(const tfl_interpreter *it, int node);

#endif
