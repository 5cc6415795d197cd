/* tfl_passes.h - graph rewrites run before delegates see the graph.
 *
 * fold_constants: DEQUANTIZE and DENSIFY whose input is constant are computed once;
 * the output tensor becomes a graph-owned constant and the node is marked dead.
 */
#ifndef TFL_PASSES_H
#define TFL_PASSES_H

#include "tfl_graph.h"

tfl_status tfl_pass_fold_constants(tfl_graph *g, tfl_diag *diag);
/* Shape arithmetic (SHAPE -> STRIDED_SLICE / GATHER -> PACK / CONCATENATION -> RESHAPE's
 * target, and the int32/int64 ops between) evaluated once shapes are inferred: each small
 * integer result becomes a graph-owned constant, its node dead (tfl_fold_ints.c lists the
 * ops). Never fails: what it cannot evaluate runs as before. Returns how many it folded. */
int tfl_pass_fold_shape_ints(tfl_graph *g, tfl_diag *diag);
/* The same for node ni alone (its inputs' shapes final): true when it folded it. */
bool tfl_fold_shape_int_node(tfl_graph *g, int ni, tfl_diag *diag);
/* A tensor-list write as the converter lowers it, CONCATENATION(SLICE(L, 0, [i, -1..]), U,
 * SLICE(L, [i + 1, 0..], -1)) with i computed at run time (a loop counter: the slices change
 * shape every iteration), becomes the DYNAMIC_UPDATE_SLICE(L, U, [i, 0..]) it computes, the
 * slices left unread (tfl_list_update.c says what is matched). Returns how many. */
int tfl_pass_list_update(tfl_graph *g, tfl_diag *diag);
/* Marks dead every live node whose outputs nothing reads: no live node, no graph output,
 * and no state between runs (a node reading a variable tensor always runs, and so does
 * CALL_ONCE, whose init subgraph sets state). Such a node
 * has no visible effect, and a delegate would otherwise be handed values no one consumes
 * (XNNPACK drops those and then asserts on the node writing them). Returns how many. */
int tfl_pass_prune(tfl_graph *g);
/* Computes every node's output shapes from its inputs and params and checks them
 * against the shapes declared in the file (error naming node and tensor if they
 * differ). Ops whose output shape is set at run (detection post-process) get theirs. */
tfl_status tfl_infer_shapes(tfl_graph *g, tfl_diag *diag);
/* tfl_infer_shapes that folds shape arithmetic (tfl_fold_shape_int_node) as it goes, each
 * node right after its shapes: a RESHAPE whose target is computed from SHAPE then gets its
 * real shape before the nodes after it are checked (a converter's dynamic batch writes a
 * guess of 1 for every -1 of shape_signature there). *folded: how many nodes it folded. */
tfl_status tfl_infer_shapes_folding(tfl_graph *g, tfl_diag *diag, int *folded);
/* Gives a freshly loaded graph a batch of `batch` frames: every graph input's leading 1
 * becomes `batch` and every shape is computed again, replacing the declared ones (a
 * constant RESHAPE target [1, ...] follows the batch). Fails, naming the reason, for
 * graphs that cannot be batched: an input without a leading 1, state between runs, an op
 * whose shapes do not follow (detection post-processing), an output without the batch.
 * Run before tfl_interpreter_create; kernels then check batches as usual in prepare. */
tfl_status tfl_pass_set_batch(tfl_graph *g, int batch, tfl_diag *diag);

/* Gives graph input `input` (4-D NHWC) the size height x width where the file leaves both
 * open (shape_signature [1,-1,-1,C]: TF Hub's MoveNet MultiPose writes [1,1,1,3], sized by
 * the caller). The shapes after it follow in tfl_graph_prepare (dims the signature leaves
 * open take the computed size). Fails, naming the input, when its height or width is
 * fixed by the file, or the size is outside 1..8192. Run right after loading. */
tfl_status tfl_pass_set_input_size(tfl_graph *g, int input, int height, int width, tfl_diag *diag);

/* If graph input `input` is 4-D and read only by a TRANSPOSE with perm [0, 2, 3, 1] (a
 * PyTorch-style NCHW image input), makes that transpose's NHWC output the graph input and
 * the transpose dead; true when it did (input -> QUANTIZE -> such a TRANSPOSE, as int8
 * exports have: the input's dims become NHWC and the QUANTIZE writes the transpose's
 * output). For callers that write the input themselves
 * (tflitefilter, tools with pictures): a caller feeding the file's NCHW tensor must not
 * run it. Run right after loading, before tfl_graph_prepare (tfl_nhwc_input.c). */
bool tfl_pass_nhwc_input(tfl_graph *g, int input);

/* What tfl_interpreter_create runs before any delegate sees the graph: fold constants,
 * rewrite tensor-list writes, prune unread nodes, infer shapes folding shape arithmetic (then
 * prune and infer again), validate (tfl_validate.h); for a model with control flow, the
 * same for every subgraph a live node runs (tfl_graph.subgraphs) before the graph's own
 * shapes. Running it again changes nothing. A caller that wants a model's errors before it makes an interpreter (an
 * element's state change) runs it on a graph of its own. */
tfl_status tfl_graph_prepare(tfl_graph *g, tfl_diag *diag);

#endif
