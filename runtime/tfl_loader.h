/* tfl_loader.h - reads a .tflite file (FlatBuffers, schema 3) into a tfl_graph.
 *
 * The file is untrusted: every offset, vtable, vector, string and buffer range is
 * checked before use. Failures return TFL_ERR_FORMAT (or _UNSUPPORTED for a valid
 * model using an op/type we do not know) with a message naming the bad field.
 * Subgraph 0 is the graph; a model's other subgraphs (control flow) hang off it
 * (tfl_graph.subgraphs). Errors and metadata warnings go to `diag` (may be NULL). Threads: any number of loads may run at once.
 */
#ifndef TFL_LOADER_H
#define TFL_LOADER_H

#include "tfl_graph.h"

/* Maps the file (read-only); the mapping lives as long as the graph. */
tfl_status tfl_load_file(const char *path, tfl_graph **out, tfl_diag *diag);
/* Copies `size` bytes, so `data` may be freed after the call. */
tfl_status tfl_load_memory(const void *data, size_t size, tfl_graph **out, tfl_diag *diag);

/* The op-code tables the loader reads with (tfl_loader_ops.c), for tools and docs.
 * Builtin codes run from 0 to tfl_builtin_code_count() - 1 (TFLite's BuiltinOperator). */
int32_t tfl_builtin_code_count(void);
/* TFLite's name for a builtin op code ("SPLIT"), or NULL. */
const char *tfl_builtin_code_name(int32_t code);
/* Our op for a builtin code; false when we do not run it. */
bool tfl_op_from_builtin(int32_t code, tfl_op *op);
/* The builtin code of our op; -1 for custom and internal ops. */
int32_t tfl_op_builtin_code(tfl_op op);
/* Why a builtin op is left out on purpose (string, hashtable, resource variable, random,
 * complex ops ...), or NULL: it runs, or is not written yet. */
const char *tfl_builtin_left_out(int32_t code);

#endif
