/* gl_ops.c - which ops the GL delegate runs and how (one row per tfl_op). */
#include "gl_gen.h"
#include "gl_delegate.h"

#define RAW(k) (1u << (k))

static const gl_op_info table[TFL_OP_COUNT] = {
  [TFL_OP_ADD] = {GL_KIND_BINARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_AVERAGE_POOL_2D] = {GL_KIND_GEN, 0, gl_check_pool, gl_gen_pool},
  [TFL_OP_CONCATENATION] = {GL_KIND_GEN, 0, gl_check_concat, gl_gen_concat},
  [TFL_OP_CONV_2D] = {GL_KIND_GEN, RAW(1) | RAW(2), gl_check_conv, gl_gen_conv},
  [TFL_OP_DEPTHWISE_CONV_2D] = {GL_KIND_GEN, RAW(1) | RAW(2), gl_check_depthwise, gl_gen_depthwise},
  [TFL_OP_EXP] = {GL_KIND_UNARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_FULLY_CONNECTED] = {GL_KIND_GEN, RAW(1) | RAW(2), gl_check_fully_connected, gl_gen_fully_connected},
  [TFL_OP_LOGICAL_AND] = {GL_KIND_BINARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_LOGISTIC] = {GL_KIND_UNARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_LSTM] = {GL_KIND_GEN, RAW(2) | RAW(3), gl_check_lstm, gl_gen_lstm}, /* basic kernel only */
  [TFL_OP_MAX_POOL_2D] = {GL_KIND_GEN, 0, gl_check_pool, gl_gen_pool},
  [TFL_OP_MAXIMUM] = {GL_KIND_BINARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_MINIMUM] = {GL_KIND_BINARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_MUL] = {GL_KIND_BINARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_PAD] = {GL_KIND_GEN, RAW(1), gl_check_pad, gl_gen_pad},
  [TFL_OP_PADV2] = {GL_KIND_GEN, RAW(1) | RAW(2), gl_check_pad, gl_gen_pad},
  [TFL_OP_PRELU] = {GL_KIND_BINARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_RELU] = {GL_KIND_UNARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_RELU6] = {GL_KIND_UNARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_RESHAPE] = {GL_KIND_ALIAS, RAW(1), gl_check_reshape, gl_gen_reshape},
  [TFL_OP_RESIZE_BILINEAR] = {GL_KIND_GEN, RAW(1), gl_check_resize, gl_gen_resize},
  [TFL_OP_SOFTMAX] = {GL_KIND_GEN, 0, gl_check_softmax, gl_gen_softmax},
  [TFL_OP_STRIDED_SLICE] = {GL_KIND_GEN, RAW(1) | RAW(2) | RAW(3), gl_check_strided_slice, gl_gen_strided_slice},
  [TFL_OP_SUB] = {GL_KIND_BINARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_TRANSPOSE_CONV] = {GL_KIND_GEN, RAW(0) | RAW(1) | RAW(3), gl_check_transpose_conv, gl_gen_transpose_conv},
  [TFL_OP_DEQUANTIZE] = {GL_KIND_ALIAS, 0, gl_check_alias, gl_gen_reshape},
  [TFL_OP_QUANTIZE] = {GL_KIND_UNARY, 0, gl_check_quantize, gl_gen_eltwise}, /* rounds: gl_gen_common.c's gl_quant_stmt */
  [TFL_OP_CAST] = {GL_KIND_ALIAS, 0, gl_check_cast, gl_gen_reshape},  /* 8-bit integers to float only */
  [TFL_OP_MEAN] = {GL_KIND_GEN, RAW(1), gl_check_reduce, gl_gen_reduce},
  [TFL_OP_SQUEEZE] = {GL_KIND_ALIAS, 0, gl_check_reshape, gl_gen_reshape},
  [TFL_OP_HARD_SWISH] = {GL_KIND_UNARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_DEPTH_TO_SPACE] = {GL_KIND_GEN, 0, gl_check_depth_to_space, gl_gen_depth_to_space},
  [TFL_OP_DENSIFY] = {GL_KIND_NONE, 0, NULL, NULL},          /* folded at init when constant */
  [TFL_OP_TANH] = {GL_KIND_UNARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_ARG_MAX] = {GL_KIND_NONE, 0, NULL, NULL},
  [TFL_OP_RESIZE_NEAREST_NEIGHBOR] = {GL_KIND_GEN, RAW(1), gl_check_resize, gl_gen_resize},
  [TFL_OP_DIV] = {GL_KIND_BINARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_CONV2D_TRANSPOSE_BIAS] = {GL_KIND_GEN, RAW(1) | RAW(2), gl_check_transpose_conv, gl_gen_transpose_conv},
  [TFL_OP_DETECTION_POSTPROCESS] = {GL_KIND_GEN, 0, gl_check_detection, gl_gen_detection}, /* fast NMS only */
  [TFL_OP_POSENET_DECODER] = {GL_KIND_NONE, 0, NULL, NULL},
  [TFL_OP_ANCHOR_DETECTION] = {GL_KIND_GEN, 0, gl_check_anchor_detection, gl_gen_anchor_detection},
  [TFL_OP_SSD_CLASS_NMS] = {GL_KIND_GEN, 0, gl_check_ssd_detection, gl_gen_ssd_class_nms},
  [TFL_OP_SSD_DETECTION] = {GL_KIND_GEN, 0, gl_check_ssd_detection, gl_gen_ssd_detection},
  [TFL_OP_LANDMARK_DECODE] = {GL_KIND_GEN, 0, gl_check_landmarks, gl_gen_landmarks},
  [TFL_OP_YOLO_DETECTION] = {GL_KIND_GEN, 0, gl_check_yolo_detection, gl_gen_yolo_detection},
  [TFL_OP_TRANSPOSE] = {GL_KIND_GEN, RAW(1), gl_check_layout, gl_gen_layout},
  [TFL_OP_SLICE] = {GL_KIND_GEN, RAW(1) | RAW(2), gl_check_layout, gl_gen_layout},
  [TFL_OP_PACK] = {GL_KIND_GEN, 0, gl_check_layout, gl_gen_layout},
  [TFL_OP_UNPACK] = {GL_KIND_GEN, 0, gl_check_layout, gl_gen_layout},
  [TFL_OP_SPLIT] = {GL_KIND_GEN, RAW(0), gl_check_layout, gl_gen_layout},
  [TFL_OP_SPLIT_V] = {GL_KIND_GEN, RAW(1) | RAW(2), gl_check_layout, gl_gen_layout},
  [TFL_OP_BATCH_MATMUL] = {GL_KIND_GEN, 0, gl_check_batch_matmul, gl_gen_batch_matmul},
  [TFL_OP_LOG_SOFTMAX] = {GL_KIND_GEN, 0, gl_check_softmax, gl_gen_softmax},
  [TFL_OP_L2_NORMALIZATION] = {GL_KIND_GEN, 0, gl_check_l2norm, gl_gen_l2norm},
  [TFL_OP_LOCAL_RESPONSE_NORMALIZATION] = {GL_KIND_GEN, 0, gl_check_lrn, gl_gen_lrn},
  [TFL_OP_L2_POOL_2D] = {GL_KIND_GEN, 0, gl_check_pool, gl_gen_pool},
  [TFL_OP_TILE] = {GL_KIND_GEN, RAW(1), gl_check_layout, gl_gen_layout},
  [TFL_OP_BROADCAST_TO] = {GL_KIND_GEN, RAW(1), gl_check_layout, gl_gen_layout},
  [TFL_OP_REVERSE_V2] = {GL_KIND_GEN, RAW(1), gl_check_layout, gl_gen_layout},
  [TFL_OP_EXPAND_DIMS] = {GL_KIND_ALIAS, RAW(1), gl_check_reshape, gl_gen_reshape},
  [TFL_OP_ADD_N] = {GL_KIND_GEN, 0, gl_check_add_n, gl_gen_add_n},
  [TFL_OP_SUM] = {GL_KIND_GEN, RAW(1), gl_check_reduce, gl_gen_reduce},
  [TFL_OP_REDUCE_MAX] = {GL_KIND_GEN, RAW(1), gl_check_reduce, gl_gen_reduce},
  [TFL_OP_REDUCE_MIN] = {GL_KIND_GEN, RAW(1), gl_check_reduce, gl_gen_reduce},
  [TFL_OP_REDUCE_PROD] = {GL_KIND_GEN, RAW(1), gl_check_reduce, gl_gen_reduce},
  [TFL_OP_ABS] = {GL_KIND_UNARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_NEG] = {GL_KIND_UNARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_SQRT] = {GL_KIND_UNARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_RSQRT] = {GL_KIND_UNARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_SQUARE] = {GL_KIND_UNARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_LOG] = {GL_KIND_UNARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_SIN] = {GL_KIND_UNARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_COS] = {GL_KIND_UNARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_FLOOR] = {GL_KIND_UNARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_CEIL] = {GL_KIND_UNARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_ROUND] = {GL_KIND_UNARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_SIGN] = {GL_KIND_UNARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_ELU] = {GL_KIND_UNARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_LEAKY_RELU] = {GL_KIND_UNARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_RELU_N1_TO_1] = {GL_KIND_UNARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_RELU_0_TO_1] = {GL_KIND_UNARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_GELU] = {GL_KIND_UNARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_POW] = {GL_KIND_BINARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_SQUARED_DIFFERENCE] = {GL_KIND_BINARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_FLOOR_DIV] = {GL_KIND_BINARY, 0, gl_check_eltwise, gl_gen_eltwise},
  [TFL_OP_FLOOR_MOD] = {GL_KIND_BINARY, 0, gl_check_eltwise, gl_gen_eltwise},
};
_Static_assert(sizeof table / sizeof table[0] == TFL_OP_COUNT, "one row per tfl_op");

const gl_op_info *gl_op_info_of(tfl_op op)
{
  static const gl_op_info none = {GL_KIND_NONE, 0, NULL, NULL};
  return (unsigned)op < TFL_OP_COUNT ? &table[op] : &none;
}

bool gl_delegate_has_op(tfl_op op)
{
  return gl_op_info_of(op)->kind != GL_KIND_NONE;
}
