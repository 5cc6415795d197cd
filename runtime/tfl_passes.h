/* tfl_passes.h - graph rewrites run before delegates see the graph.
 *
 * fold_constants: DEQUANTIZE and DENSIFY whose input is constant are computed once;
 * the output tensor becomes a graph-owned constant and the node is marked dead.
 */
#ifndef TFL_PASSES_H
#define TFL_PASSES_H

#include "tfl_graph.h"

tfl_status tfl_pass_fold_constants(tfl_graph *g, tfl_diag *diag);
/* Computes every node's output shapes from its inputs and params and checks them
 * against the shapes declared in the file (error naming node and tensor if they
 * differ). Ops whose output shape is set at run (detection post-process) get theirs. */
tfl_status tfl_infer_shapes(tfl_graph *g, tfl_diag *diag);

#endif
