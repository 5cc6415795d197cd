/* kernel_table.c - op -> reference kernel. Sized by TFL_OP_COUNT: an op without a
 * row fails the static assert below (designated initializers leave holes NULL, and
 * tests/test_kernel_table checks there are none). */
#include "kernels/kernels.h"

#include <stdio.h>

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
  [TFL_OP_TRANSPOSE] = &cpu_k_transpose,
  [TFL_OP_SLICE] = &cpu_k_slice,
  [TFL_OP_SPLIT] = &cpu_k_split,
  [TFL_OP_SPLIT_V] = &cpu_k_split_v,
  [TFL_OP_PACK] = &cpu_k_pack,
  [TFL_OP_UNPACK] = &cpu_k_unpack,
  [TFL_OP_TILE] = &cpu_k_tile,
  [TFL_OP_BROADCAST_TO] = &cpu_k_broadcast_to,
  [TFL_OP_EXPAND_DIMS] = &cpu_k_expand_dims,
  [TFL_OP_REVERSE_V2] = &cpu_k_reverse_v2,
  [TFL_OP_MIRROR_PAD] = &cpu_k_mirror_pad,
  [TFL_OP_SPACE_TO_DEPTH] = &cpu_k_space_to_depth,
  [TFL_OP_SPACE_TO_BATCH_ND] = &cpu_k_space_to_batch_nd,
  [TFL_OP_BATCH_TO_SPACE_ND] = &cpu_k_batch_to_space_nd,
  [TFL_OP_REVERSE_SEQUENCE] = &cpu_k_reverse_sequence,
  [TFL_OP_MATRIX_DIAG] = &cpu_k_matrix_diag,
  [TFL_OP_MATRIX_SET_DIAG] = &cpu_k_matrix_set_diag,
  [TFL_OP_DYNAMIC_UPDATE_SLICE] = &cpu_k_dynamic_update_slice,
  [TFL_OP_GATHER] = &cpu_k_gather,
  [TFL_OP_GATHER_ND] = &cpu_k_gather_nd,
  [TFL_OP_SCATTER_ND] = &cpu_k_scatter_nd,
  [TFL_OP_SHAPE] = &cpu_k_shape,
  [TFL_OP_RANK] = &cpu_k_rank,
  [TFL_OP_FILL] = &cpu_k_fill,
  [TFL_OP_ZEROS_LIKE] = &cpu_k_zeros_like,
  [TFL_OP_RANGE] = &cpu_k_range,
  [TFL_OP_ONE_HOT] = &cpu_k_one_hot,
  [TFL_OP_CAST] = &cpu_k_cast,
  [TFL_OP_SELECT] = &cpu_k_select,
  [TFL_OP_SELECT_V2] = &cpu_k_select_v2,
  [TFL_OP_WHERE] = &cpu_k_where,
  [TFL_OP_UNIQUE] = &cpu_k_unique,
  [TFL_OP_TOPK_V2] = &cpu_k_topk_v2,
  [TFL_OP_CUMSUM] = &cpu_k_cumsum,
  [TFL_OP_NON_MAX_SUPPRESSION_V4] = &cpu_k_non_max_suppression_v4,
  [TFL_OP_NON_MAX_SUPPRESSION_V5] = &cpu_k_non_max_suppression_v5,
  [TFL_OP_EMBEDDING_LOOKUP] = &cpu_k_embedding_lookup,
  [TFL_OP_SEGMENT_SUM] = &cpu_k_segment_sum,
  [TFL_OP_UNSORTED_SEGMENT_SUM] = &cpu_k_unsorted_segment_sum,
  [TFL_OP_UNSORTED_SEGMENT_PROD] = &cpu_k_unsorted_segment_prod,
  [TFL_OP_UNSORTED_SEGMENT_MAX] = &cpu_k_unsorted_segment_max,
  [TFL_OP_UNSORTED_SEGMENT_MIN] = &cpu_k_unsorted_segment_min,
  [TFL_OP_BROADCAST_ARGS] = &cpu_k_broadcast_args,
  [TFL_OP_SPARSE_TO_DENSE] = &cpu_k_sparse_to_dense,
  [TFL_OP_ABS] = &cpu_k_abs,
  [TFL_OP_NEG] = &cpu_k_neg,
  [TFL_OP_SQRT] = &cpu_k_sqrt,
  [TFL_OP_RSQRT] = &cpu_k_rsqrt,
  [TFL_OP_SQUARE] = &cpu_k_square,
  [TFL_OP_LOG] = &cpu_k_log,
  [TFL_OP_SIN] = &cpu_k_sin,
  [TFL_OP_COS] = &cpu_k_cos,
  [TFL_OP_FLOOR] = &cpu_k_floor,
  [TFL_OP_CEIL] = &cpu_k_ceil,
  [TFL_OP_ROUND] = &cpu_k_round,
  [TFL_OP_SIGN] = &cpu_k_sign,
  [TFL_OP_ELU] = &cpu_k_elu,
  [TFL_OP_LEAKY_RELU] = &cpu_k_leaky_relu,
  [TFL_OP_RELU_N1_TO_1] = &cpu_k_relu_n1_to_1,
  [TFL_OP_RELU_0_TO_1] = &cpu_k_relu_0_to_1,
  [TFL_OP_GELU] = &cpu_k_gelu,
  [TFL_OP_LOGICAL_NOT] = &cpu_k_logical_not,
  [TFL_OP_FAKE_QUANT] = &cpu_k_fake_quant,
  [TFL_OP_POW] = &cpu_k_pow,
  [TFL_OP_SQUARED_DIFFERENCE] = &cpu_k_squared_difference,
  [TFL_OP_FLOOR_DIV] = &cpu_k_floor_div,
  [TFL_OP_FLOOR_MOD] = &cpu_k_floor_mod,
  [TFL_OP_LESS] = &cpu_k_less,
  [TFL_OP_LESS_EQUAL] = &cpu_k_less_equal,
  [TFL_OP_GREATER] = &cpu_k_greater,
  [TFL_OP_GREATER_EQUAL] = &cpu_k_greater_equal,
  [TFL_OP_EQUAL] = &cpu_k_equal,
  [TFL_OP_NOT_EQUAL] = &cpu_k_not_equal,
  [TFL_OP_LOGICAL_OR] = &cpu_k_logical_or,
  [TFL_OP_ADD_N] = &cpu_k_add_n,
  [TFL_OP_ATAN2] = &cpu_k_atan2,
  [TFL_OP_BITWISE_XOR] = &cpu_k_bitwise_xor,
  [TFL_OP_RIGHT_SHIFT] = &cpu_k_right_shift,
  [TFL_OP_SUM] = &cpu_k_sum,
  [TFL_OP_REDUCE_PROD] = &cpu_k_reduce_prod,
  [TFL_OP_REDUCE_MAX] = &cpu_k_reduce_max,
  [TFL_OP_REDUCE_MIN] = &cpu_k_reduce_min,
  [TFL_OP_REDUCE_ANY] = &cpu_k_reduce_any,
  [TFL_OP_REDUCE_ALL] = &cpu_k_reduce_all,
  [TFL_OP_ARG_MIN] = &cpu_k_arg_min,
  [TFL_OP_LOG_SOFTMAX] = &cpu_k_log_softmax,
  [TFL_OP_L2_NORMALIZATION] = &cpu_k_l2_normalization,
  [TFL_OP_LOCAL_RESPONSE_NORMALIZATION] = &cpu_k_local_response_normalization,
  [TFL_OP_L2_POOL_2D] = &cpu_k_l2_pool_2d,
  [TFL_OP_BATCH_MATMUL] = &cpu_k_batch_matmul,
  [TFL_OP_CONV_3D] = &cpu_k_conv_3d,
  [TFL_OP_CONV_3D_TRANSPOSE] = &cpu_k_conv_3d_transpose,
  [TFL_OP_RFFT2D] = &cpu_k_rfft2d,
  [TFL_OP_REAL] = &cpu_k_real,
  [TFL_OP_IMAG] = &cpu_k_imag,
  [TFL_OP_COMPLEX_ABS] = &cpu_k_complex_abs,
  [TFL_OP_BUCKETIZE] = &cpu_k_bucketize,
  [TFL_OP_BITCAST] = &cpu_k_bitcast,
  [TFL_OP_UNIDIRECTIONAL_SEQUENCE_LSTM] = &cpu_k_unidirectional_sequence_lstm,
  [TFL_OP_BIDIRECTIONAL_SEQUENCE_LSTM] = &cpu_k_bidirectional_sequence_lstm,
  [TFL_OP_UNIDIRECTIONAL_SEQUENCE_RNN] = &cpu_k_unidirectional_sequence_rnn,
  [TFL_OP_BIDIRECTIONAL_SEQUENCE_RNN] = &cpu_k_bidirectional_sequence_rnn,
  [TFL_OP_RNN] = &cpu_k_rnn,
  [TFL_OP_SVDF] = &cpu_k_svdf,
  [TFL_OP_WHILE] = &cpu_k_while,
  [TFL_OP_IF] = &cpu_k_if,
  [TFL_OP_CALL_ONCE] = &cpu_k_call_once,
  [TFL_OP_DENSIFY] = &cpu_k_densify,
  [TFL_OP_DETECTION_POSTPROCESS] = &cpu_k_detection_postprocess,
  [TFL_OP_POSENET_DECODER] = &cpu_k_posenet_decoder,
  [TFL_OP_ANCHOR_DETECTION] = &cpu_k_anchor_detection,
  [TFL_OP_SSD_CLASS_NMS] = &cpu_k_ssd_class_nms,
  [TFL_OP_SSD_DETECTION] = &cpu_k_ssd_detection,
  [TFL_OP_LANDMARK_DECODE] = &cpu_k_landmark_decode,
  [TFL_OP_YOLO_DETECTION] = &cpu_k_yolo_detection,
};

_Static_assert(sizeof table / sizeof table[0] == TFL_OP_COUNT, "every op needs a CPU kernel row");

const cpu_kernel *cpu_reference_kernel(tfl_op op)
{
  return (unsigned)op < TFL_OP_COUNT ? table[op] : 0;
}

void cpu_types_str(uint32_t types, char *buf, size_t len)
{
  size_t k = 0;
  buf[0] = 0;
  if (types & CPU_TYPES_ANY) {
    snprintf(buf, len, "any");
    return;
  }
  for (int t = 0; t < TFL_TYPE_COUNT; t++) {
    if (!(types & CPU_TYPE(t)) || k >= len) continue;
    k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? ", " : "", tfl_type_name((tfl_type)t));
  }
  if (!k) snprintf(buf, len, "(none declared)");
}

uint32_t cpu_delegate_op_types(tfl_op op, int *data_input)
{
  const cpu_kernel *k = cpu_reference_kernel(op);
  if (data_input) *data_input = k ? k->data_input : 0;
  return k ? k->types : 0;
}
