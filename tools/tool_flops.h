/* tool_flops.h - multiply-adds of the arithmetic-heavy nodes (convolutions, depthwise,
 * transposed convolutions, fully connected), the number behind the GFLOP/s that
 * tflite-benchmark prints per model and per node. Other ops count 0: their cost is
 * memory, not arithmetic. Shapes must be resolved (after tfl_interpreter_create). */
#ifndef TOOL_FLOPS_H
#define TOOL_FLOPS_H

#include "runtime/tfl_graph.h"

/* Multiply-adds of node i (0 for a dead node or another op). */
double tool_node_macs(const tfl_graph *g, int i);
/* Sum over the live nodes. */
double tool_graph_macs(const tfl_graph *g);

#endif
