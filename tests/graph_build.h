/* graph_build.h - small graphs written by hand for the runtime's pass tests (shape folding,
 * tensor-list rewrites, control flow): tensors, constants, nodes and graph I/O in one line
 * each. The graph owns everything (tfl_graph_free). */
#ifndef TEST_GRAPH_BUILD_H
#define TEST_GRAPH_BUILD_H

#include <stdlib.h>
#include <string.h>

#include "runtime/tfl_graph.h"

#define GB_DIMS(...) ((const int32_t[]){__VA_ARGS__})

static inline int gb_tensor(tfl_graph *g, tfl_type type, int ndim, const int32_t *dims)
{
  return tfl_graph_add_tensor(g, "t", type, ndim, dims);
}

/* A constant tensor holding a copy of data (its bytes from type and dims). */
static inline int gb_const(tfl_graph *g, tfl_type type, int ndim, const int32_t *dims, const void *data)
{
  int t = gb_tensor(g, type, ndim, dims);
  g->tensors[t].data = tfl_graph_alloc(g, g->tensors[t].bytes);
  memcpy(g->tensors[t].data, data, g->tensors[t].bytes);
  g->tensors[t].is_const = true;
  return t;
}

/* A node with one output. */
static inline int gb_node(tfl_graph *g, tfl_op op, const int32_t *in, int n_in, int out, tfl_params p)
{
  return tfl_graph_add_node(g, op, in, n_in, (int32_t[]){out}, 1, &p);
}

/* The graph's inputs and outputs (either list may be empty). */
static inline void gb_set_io(tfl_graph *g, int n_in, const int32_t *in, int n_out, const int32_t *out)
{
  g->n_inputs = n_in;
  g->inputs = malloc(sizeof(int32_t) * (size_t)(n_in ? n_in : 1));
  if (n_in) memcpy(g->inputs, in, sizeof(int32_t) * (size_t)n_in);
  g->n_outputs = n_out;
  g->outputs = malloc(sizeof(int32_t) * (size_t)(n_out ? n_out : 1));
  if (n_out) memcpy(g->outputs, out, sizeof(int32_t) * (size_t)n_out);
}

#endif
