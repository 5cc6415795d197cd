/* kernel_table.c - op -> reference kernel. Sized by TFL_OP_COUNT: an op without a
 * row fails the static assert below (designated initializers leave holes NULL, and
 * tests/test_kernel_table checks there are none). */
#include "kernels/kernels.h"

static const cpu_kernel *const table[] = {
  [TFL_OP_CONV_2D] = &cpu_k_conv_2d,
  [TFL_OP_DEPTHWISE_CONV_2D] = &cpu_k_depthwise_conv_2d,
  [TFL_OP_TRANSPOSE_CONV] = &cpu_k_transpose_conv,
  [TFL_OP_CONV2D_TRANSPOSE_BIAS] = &cpu_k_conv2d_transpose_bias,
  [TFL_OP_FULLY_CONNECTED] = &cpu_k_fully_connected,
  [TFL_OP_AVERAGE_POOL_2D] = &cpu_k_average_pool_2d,
  [TFL_OP_MAX_POOL_2D] = &cpu_k_max_pool_2d,
  [TFL_OP_LSTM] = &cpu_k_lstm,
  [TFL_OP_ADD] = &cpu_k_add,
  [TFL_OP_SUB] = &cpu_k_sub,
  [TFL_OP_MUL] = &cpu_k_mul,
  [TFL_OP_DIV] = &cpu_k_div,
  [TFL_OP_MAXIMUM] = &cpu_k_maximum,
  [TFL_OP_MINIMUM] = &cpu_k_minimum,
  [TFL_OP_LOGICAL_AND] = &cpu_k_logical_and,
  [TFL_OP_RELU] = &cpu_k_relu,
  [TFL_OP_RELU6] = &cpu_k_relu6,
  [TFL_OP_LOGISTIC] = &cpu_k_logistic,
  [TFL_OP_TANH] = &cpu_k_tanh,
  [TFL_OP_EXP] = &cpu_k_exp,
  [TFL_OP_HARD_SWISH] = &cpu_k_hard_swish,
  [TFL_OP_PRELU] = &cpu_k_prelu,
  [TFL_OP_CONCATENATION] = &cpu_k_concatenation,
  [TFL_OP_RESHAPE] = &cpu_k_reshape,
  [TFL_OP_SQUEEZE] = &cpu_k_squeeze,
  [TFL_OP_PAD] = &cpu_k_pad,
  [TFL_OP_PADV2] = &cpu_k_padv2,
  [TFL_OP_RESIZE_BILINEAR] = &cpu_k_resize_bilinear,
  [TFL_OP_RESIZE_NEAREST_NEIGHBOR] = &cpu_k_resize_nearest_neighbor,
  [TFL_OP_SOFTMAX] = &cpu_k_softmax,
  [TFL_OP_STRIDED_SLICE] = &cpu_k_strided_slice,
  [TFL_OP_QUANTIZE] = &cpu_k_quantize,
  [TFL_OP_DEQUANTIZE] = &cpu_k_dequantize,
  [TFL_OP_MEAN] = &cpu_k_mean,
  [TFL_OP_DEPTH_TO_SPACE] = &cpu_k_depth_to_space,
  [TFL_OP_ARG_MAX] = &cpu_k_arg_max,
  [TFL_OP_DENSIFY] = &cpu_k_densify,
  [TFL_OP_DETECTION_POSTPROCESS] = &cpu_k_detection_postprocess,
  [TFL_OP_POSENET_DECODER] = &cpu_k_posenet_decoder,
  [TFL_OP_ANCHOR_DETECTION] = &cpu_k_anchor_detection,
  [TFL_OP_SSD_CLASS_NMS] = &cpu_k_ssd_class_nms,
  [TFL_OP_SSD_DETECTION] = &cpu_k_ssd_detection,
  [TFL_OP_LANDMARK_DECODE] = &cpu_k_landmark_decode,
};

_Static_assert(sizeof table / sizeof table[0] == TFL_OP_COUNT, "every op needs a CPU kernel row");

const cpu_kernel *cpu_reference_kernel(tfl_op op)
{
  return (unsigned)op < TFL_OP_COUNT ? table[op] : 0;
}
