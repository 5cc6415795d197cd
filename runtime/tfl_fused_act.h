/* tfl_fused_act.h - what TensorFlow Lite's kernels do with a node's fused activation.
 *
 * The schema lets an op's options carry any fused activation; TFLite's kernels differ per
 * op (checked with ai-edge-litert 2.3.0's reference kernels, OpResolverType.BUILTIN_REF,
 * on single-op models; docs/gl-ops.md):
 *   - CONCATENATION, L2_NORMALIZATION: anything but NONE fails Prepare (concatenation.cc,
 *     l2norm.cc). XNNPACK's delegate ignores it instead: we follow the kernels.
 *   - FULLY_CONNECTED: TANH and SIGN_BIT fail Prepare, except on a hybrid node (8-bit
 *     weights, float input), whose kernel applies them.
 *   - ADD, SUB, MUL, DIV, AVERAGE/MAX/L2_POOL_2D, CONV_2D, DEPTHWISE_CONV_2D,
 *     TRANSPOSE_CONV, CONV_3D, CONV_3D_TRANSPOSE: RELU, RELU_N1_TO_1 and RELU6 clamp; TANH
 *     and SIGN_BIT are ignored (CalculateActivationRange's default: no clamp), float and
 *     quantized alike.
 *   - the recurrent ops (LSTM, RNN, SVDF, the sequence ops) apply theirs: not touched here.
 * The loader rewrites an ignored activation to NONE (tfl_fused_act_normalize), so no
 * delegate can interpret it, except on a hybrid convolution (float input, 8-bit weights),
 * where the CPU delegate reads it to follow LiteRT's choice of kernel (its XNNPACK delegate
 * declines non-clamp activations; the kernels differ in how they quantize the input) and
 * the GL delegate declines the node; the validation pass refuses the refused ones.
 */
#ifndef TFL_FUSED_ACT_H
#define TFL_FUSED_ACT_H

#include "tfl_graph.h"

typedef enum { TFL_FUSED_ACT_APPLY, TFL_FUSED_ACT_IGNORE, TFL_FUSED_ACT_REFUSE } tfl_fused_act_rule;

/* "NONE", "RELU", ..., "SIGMOID"; "?" outside the enum. */
const char *tfl_act_name(tfl_activation a);

/* TFLite's rule for node n's fused activation (APPLY for ops without one or NONE); with
 * REFUSE, *why (when not NULL) gets what TFLite's kernel takes. */
tfl_fused_act_rule tfl_fused_act_rule_of(const tfl_graph *g, const tfl_node *n, const char **why);

/* n's fused activation (NONE for ops other than those above). */
tfl_activation tfl_fused_act_of(const tfl_node *n);

/* NONE or a clamp (RELU, RELU6, RELU_N1_TO_1): what kernels fold in as min/max. */
bool tfl_act_is_clamp(tfl_activation act);

/* Sets every ignored fused activation of g's nodes to NONE. */
void tfl_fused_act_normalize(tfl_graph *g);

#endif
