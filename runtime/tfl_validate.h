/* tfl_validate.h - the value ranges every kernel and delegate may rely on, checked once.
 *
 * A model file is untrusted. The loader checks the file's structure (offsets, sizes,
 * enums); this pass checks the values, per op, against what the CPU kernels, XNNPACK and
 * the GL delegate take for granted, so none of them has to (and XNNPACK, whose Debian build
 * keeps its assertions, never aborts the process on a hostile model):
 *
 *   TFL_VALIDATE_LOAD (end of tfl_load_*): each node's input and output counts and required
 *     inputs; zero points inside their type, scales positive and finite; strides, windows,
 *     dilations, block sizes and custom-op options in range; graph inputs that are not
 *     constants.
 *   TFL_VALIDATE_PREPARE (tfl_interpreter_create, after folding, pruning and shape
 *     inference): the load rules again (passes rewrite the graph), and the shape rules: no
 *     zero-sized tensor where an op reads or writes data; window geometry whose index maths
 *     cannot overflow (sizes times strides, dilated windows, transposed-convolution
 *     outputs).
 *
 * Each op's rules are one row of a table sized by TFL_OP_COUNT (tfl_validate.c). A failure
 * returns TFL_ERR_FORMAT (or _SHAPE for shape rules) with one sentence naming the node, the
 * tensor and the value, e.g. "node 3 (ADD): input 1 (tensor 7, 'x'): zero point 300 is
 * outside UINT8's range 0..255".
 *
 * Threads: reads the graph only; any number of validations may run at once on different
 * graphs (or the same one, when nothing writes it meanwhile).
 */
#ifndef TFL_VALIDATE_H
#define TFL_VALIDATE_H

#include "tfl_graph.h"

typedef enum { TFL_VALIDATE_LOAD, TFL_VALIDATE_PREPARE } tfl_validate_stage;

/* Largest spatial extent of a window op after multiplying: size x stride, dilated window,
 * transposed-convolution input x stride. Keeps every index sum below 2^31. */
#define TFL_MAX_EXTENT (1 << 28)

tfl_status tfl_validate(const tfl_graph *g, tfl_validate_stage stage, tfl_diag *diag);

#endif
