/* tfl_loader_ops.c - TFLite op codes -> tfl_op, and each op's options -> tfl_params.
 *
 * Numbers are TFLite schema facts: BuiltinOperator codes, the BuiltinOptions union's
 * type ids (1-based position in the union) and each options table's field ids.
 * A node whose options table has another union type than its op expects is
 * malformed; a node without options gets defaults that make the op well-defined
 * (stride 1, dilation 1), so kernels never see a zero stride.
 */
#include "flexbuf.h"
#include "tfl_loader_priv.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* TFLite's BuiltinOperator names, for messages about ops we do not run. */
static const char *const builtin_names[] = {
  "ADD", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D", "DEPTHWISE_CONV_2D",
  "DEPTH_TO_SPACE", "DEQUANTIZE", "EMBEDDING_LOOKUP", "FLOOR", "FULLY_CONNECTED",
  "HASHTABLE_LOOKUP", "L2_NORMALIZATION", "L2_POOL_2D", "LOCAL_RESPONSE_NORMALIZATION",
  "LOGISTIC", "LSH_PROJECTION", "LSTM", "MAX_POOL_2D", "MUL", "RELU",
  "RELU_N1_TO_1", "RELU6", "RESHAPE", "RESIZE_BILINEAR", "RNN", "SOFTMAX",
  "SPACE_TO_DEPTH", "SVDF", "TANH", "CONCAT_EMBEDDINGS", "SKIP_GRAM", "CALL",
  "CUSTOM", "EMBEDDING_LOOKUP_SPARSE", "PAD", "UNIDIRECTIONAL_SEQUENCE_RNN", "GATHER",
  "BATCH_TO_SPACE_ND", "SPACE_TO_BATCH_ND", "TRANSPOSE", "MEAN", "SUB", "DIV",
  "SQUEEZE", "UNIDIRECTIONAL_SEQUENCE_LSTM", "STRIDED_SLICE",
  "BIDIRECTIONAL_SEQUENCE_RNN", "EXP", "TOPK_V2", "SPLIT", "LOG_SOFTMAX", "DELEGATE",
  "BIDIRECTIONAL_SEQUENCE_LSTM", "CAST", "PRELU", "MAXIMUM", "ARG_MAX", "MINIMUM",
  "LESS", "NEG", "PADV2", "GREATER", "GREATER_EQUAL", "LESS_EQUAL", "SELECT", "SLICE",
  "SIN", "TRANSPOSE_CONV", "SPARSE_TO_DENSE", "TILE", "EXPAND_DIMS", "EQUAL",
  "NOT_EQUAL", "LOG", "SUM", "SQRT", "RSQRT", "SHAPE", "POW", "ARG_MIN", "FAKE_QUANT",
  "REDUCE_PROD", "REDUCE_MAX", "PACK", "LOGICAL_OR", "ONE_HOT", "LOGICAL_AND",
  "LOGICAL_NOT", "UNPACK", "REDUCE_MIN", "FLOOR_DIV", "REDUCE_ANY", "SQUARE",
  "ZEROS_LIKE", "FILL", "FLOOR_MOD", "RANGE", "RESIZE_NEAREST_NEIGHBOR", "LEAKY_RELU",
  "SQUARED_DIFFERENCE", "MIRROR_PAD", "ABS", "SPLIT_V", "UNIQUE", "CEIL", "REVERSE_V2",
  "ADD_N", "GATHER_ND", "COS", "WHERE", "RANK", "ELU", "REVERSE_SEQUENCE",
  "MATRIX_DIAG", "QUANTIZE", "MATRIX_SET_DIAG", "ROUND", "HARD_SWISH", "IF", "WHILE",
  "NON_MAX_SUPPRESSION_V4", "NON_MAX_SUPPRESSION_V5", "SCATTER_ND", "SELECT_V2",
  "DENSIFY", "SEGMENT_SUM", "BATCH_MATMUL", "PLACEHOLDER_FOR_GREATER_OP_CODES",
  "CUMSUM", "CALL_ONCE", "BROADCAST_TO", "RFFT2D", "CONV_3D", "IMAG", "REAL",
  "COMPLEX_ABS", "HASHTABLE", "HASHTABLE_FIND", "HASHTABLE_IMPORT", "HASHTABLE_SIZE",
  "REDUCE_ALL", "CONV_3D_TRANSPOSE", "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE",
  "BROADCAST_ARGS", "RANDOM_STANDARD_NORMAL", "BUCKETIZE", "RANDOM_UNIFORM",
  "MULTINOMIAL", "GELU", "DYNAMIC_UPDATE_SLICE", "RELU_0_TO_1", "UNSORTED_SEGMENT_PROD",
  "UNSORTED_SEGMENT_MAX", "UNSORTED_SEGMENT_SUM", "ATAN2", "UNSORTED_SEGMENT_MIN",
  "SIGN", "BITCAST", "BITWISE_XOR", "RIGHT_SHIFT",
};

const char *tfl_builtin_code_name(int32_t code)
{
  if (code < 0 || (size_t)code >= sizeof builtin_names / sizeof builtin_names[0]) return NULL;
  return builtin_names[code];
}

/* Builtin operators we leave out on purpose, and why (tfl_builtin_left_out; the loader's
 * message and tflite-inspect --ops say it). Everything else TFLite defines either runs
 * or is simply not written yet. */
static const struct { int32_t code; const char *why; } left_out[] = {
  {10, "string lookup tables: a string op"},                  /* HASHTABLE_LOOKUP */
  {15, "string/text hashing for language models"},            /* LSH_PROJECTION */
  {29, "text embeddings from string inputs"},                 /* CONCAT_EMBEDDINGS */
  {30, "string op (skip-gram of text tokens)"},               /* SKIP_GRAM */
  {31, "deprecated (subgraph calls are CALL_ONCE/WHILE/IF)"}, /* CALL */
  {33, "sparse text embeddings"},                             /* EMBEDDING_LOOKUP_SPARSE */
  {51, "a placeholder of TFLite's own delegates, never in a file"}, /* DELEGATE */
  {136, "hashtable (resource) ops"},                          /* HASHTABLE */
  {137, "hashtable (resource) ops"},                          /* HASHTABLE_FIND */
  {138, "hashtable (resource) ops"},                          /* HASHTABLE_IMPORT */
  {139, "hashtable (resource) ops"},                          /* HASHTABLE_SIZE */
  {142, "resource variables (training-style state)"},         /* VAR_HANDLE */
  {143, "resource variables (training-style state)"},         /* READ_VARIABLE */
  {144, "resource variables (training-style state)"},         /* ASSIGN_VARIABLE */
  {146, "random ops: results differ from TFLite's by design"},/* RANDOM_STANDARD_NORMAL */
  {148, "random ops: results differ from TFLite's by design"},/* RANDOM_UNIFORM */
  {149, "random ops: results differ from TFLite's by design"},/* MULTINOMIAL */
};

const char *tfl_builtin_left_out(int32_t code)
{
  for (size_t i = 0; i < sizeof left_out / sizeof left_out[0]; i++)
    if (left_out[i].code == code) return left_out[i].why;
  if (code >= 162) return "StableHLO operators have no TFLite runtime kernel either";
  return NULL;
}

int32_t tfl_builtin_code_count(void)
{
  return (int32_t)(sizeof builtin_names / sizeof builtin_names[0]);
}

/* Per op: TFLite builtin code (-1 for custom ops) and BuiltinOptions union type id
 * of its options table (0: the op has none we read). */
typedef struct {
  int32_t code;
  uint8_t options_type;
  const char *options_name;
} op_info;

static const op_info ops[] = {
  [TFL_OP_ADD] = {0, 11, "AddOptions"},
  [TFL_OP_AVERAGE_POOL_2D] = {1, 5, "Pool2DOptions"},
  [TFL_OP_CONCATENATION] = {2, 10, "ConcatenationOptions"},
  [TFL_OP_CONV_2D] = {3, 1, "Conv2DOptions"},
  [TFL_OP_DEPTHWISE_CONV_2D] = {4, 2, "DepthwiseConv2DOptions"},
  [TFL_OP_EXP] = {47, 0, NULL},
  [TFL_OP_FULLY_CONNECTED] = {9, 8, "FullyConnectedOptions"},
  [TFL_OP_LOGICAL_AND] = {86, 0, NULL},
  [TFL_OP_LOGISTIC] = {14, 0, NULL},
  [TFL_OP_LSTM] = {16, 14, "LSTMOptions"},
  [TFL_OP_MAX_POOL_2D] = {17, 5, "Pool2DOptions"},
  [TFL_OP_MAXIMUM] = {55, 0, NULL},
  [TFL_OP_MINIMUM] = {57, 0, NULL},
  [TFL_OP_MUL] = {18, 21, "MulOptions"},
  [TFL_OP_PAD] = {34, 0, NULL},
  [TFL_OP_PADV2] = {60, 0, NULL},
  [TFL_OP_PRELU] = {54, 0, NULL},
  [TFL_OP_RELU] = {19, 0, NULL},
  [TFL_OP_RELU6] = {21, 0, NULL},
  [TFL_OP_RESHAPE] = {22, 17, "ReshapeOptions"},
  [TFL_OP_RESIZE_BILINEAR] = {23, 15, "ResizeBilinearOptions"},
  [TFL_OP_SOFTMAX] = {25, 9, "SoftmaxOptions"},
  [TFL_OP_STRIDED_SLICE] = {45, 32, "StridedSliceOptions"},
  [TFL_OP_SUB] = {41, 28, "SubOptions"},
  [TFL_OP_TRANSPOSE_CONV] = {67, 49, "TransposeConvOptions"},
  [TFL_OP_DEQUANTIZE] = {6, 0, NULL},
  [TFL_OP_QUANTIZE] = {114, 0, NULL},
  [TFL_OP_MEAN] = {40, 27, "ReducerOptions"},
  [TFL_OP_SQUEEZE] = {43, 30, "SqueezeOptions"},
  [TFL_OP_HARD_SWISH] = {117, 0, NULL},
  [TFL_OP_DEPTH_TO_SPACE] = {5, 94, "DepthToSpaceOptions"},
  [TFL_OP_DENSIFY] = {124, 0, NULL},
  [TFL_OP_TANH] = {28, 0, NULL},
  [TFL_OP_ARG_MAX] = {56, 40, "ArgMaxOptions"},
  [TFL_OP_RESIZE_NEAREST_NEIGHBOR] = {97, 74, "ResizeNearestNeighborOptions"},
  [TFL_OP_DIV] = {42, 29, "DivOptions"},
  [TFL_OP_TRANSPOSE] = {39, 26, "TransposeOptions"},
  [TFL_OP_SLICE] = {65, 48, "SliceOptions"},
  [TFL_OP_SPLIT] = {49, 35, "SplitOptions"},
  [TFL_OP_SPLIT_V] = {102, 79, "SplitVOptions"},
  [TFL_OP_PACK] = {83, 59, "PackOptions"},
  [TFL_OP_UNPACK] = {88, 64, "UnpackOptions"},
  [TFL_OP_TILE] = {69, 51, "TileOptions"},
  [TFL_OP_BROADCAST_TO] = {130, 104, "BroadcastToOptions"},
  [TFL_OP_EXPAND_DIMS] = {70, 52, "ExpandDimsOptions"},
  [TFL_OP_REVERSE_V2] = {105, 81, "ReverseV2Options"},
  [TFL_OP_MIRROR_PAD] = {100, 77, "MirrorPadOptions"},
  [TFL_OP_SPACE_TO_DEPTH] = {26, 19, "SpaceToDepthOptions"},
  [TFL_OP_SPACE_TO_BATCH_ND] = {38, 25, "SpaceToBatchNDOptions"},
  [TFL_OP_BATCH_TO_SPACE_ND] = {37, 24, "BatchToSpaceNDOptions"},
  [TFL_OP_REVERSE_SEQUENCE] = {112, 87, "ReverseSequenceOptions"},
  [TFL_OP_MATRIX_DIAG] = {113, 88, "MatrixDiagOptions"},
  [TFL_OP_MATRIX_SET_DIAG] = {115, 90, "MatrixSetDiagOptions"},
  [TFL_OP_DYNAMIC_UPDATE_SLICE] = {151, 117, "DynamicUpdateSliceOptions"},
  [TFL_OP_GATHER] = {36, 23, "GatherOptions"},
  [TFL_OP_GATHER_ND] = {107, 83, "GatherNdOptions"},
  [TFL_OP_SCATTER_ND] = {122, 97, "ScatterNdOptions"},
  [TFL_OP_SHAPE] = {77, 55, "ShapeOptions"},
  [TFL_OP_RANK] = {110, 86, "RankOptions"},
  [TFL_OP_FILL] = {94, 68, "FillOptions"},
  [TFL_OP_ZEROS_LIKE] = {93, 67, "ZerosLikeOptions"},
  [TFL_OP_RANGE] = {96, 73, "RangeOptions"},
  [TFL_OP_ONE_HOT] = {85, 61, "OneHotOptions"},
  [TFL_OP_CAST] = {53, 37, "CastOptions"},
  [TFL_OP_SELECT] = {64, 47, "SelectOptions"},
  [TFL_OP_SELECT_V2] = {123, 98, "SelectV2Options"},
  [TFL_OP_WHERE] = {109, 85, "WhereOptions"},
  [TFL_OP_UNIQUE] = {103, 0, NULL},           /* UniqueOptions.idx_out_type: the idx tensor's type says it */
  [TFL_OP_TOPK_V2] = {48, 34, "TopKV2Options"},
  [TFL_OP_CUMSUM] = {128, 102, "CumsumOptions"},
  [TFL_OP_NON_MAX_SUPPRESSION_V4] = {120, 95, "NonMaxSuppressionV4Options"},
  [TFL_OP_NON_MAX_SUPPRESSION_V5] = {121, 96, "NonMaxSuppressionV5Options"},
  [TFL_OP_EMBEDDING_LOOKUP] = {7, 0, NULL},
  [TFL_OP_SEGMENT_SUM] = {125, 100, "SegmentSumOptions"},
  [TFL_OP_UNSORTED_SEGMENT_SUM] = {155, 121, "UnsortedSegmentSumOptions"},
  [TFL_OP_UNSORTED_SEGMENT_PROD] = {153, 118, "UnsortedSegmentProdOptions"},
  [TFL_OP_UNSORTED_SEGMENT_MAX] = {154, 119, "UnsortedSegmentMaxOptions"},
  [TFL_OP_UNSORTED_SEGMENT_MIN] = {157, 120, "UnsortedSegmentMinOptions"},
  [TFL_OP_BROADCAST_ARGS] = {145, 0, NULL},
  [TFL_OP_SPARSE_TO_DENSE] = {68, 50, "SparseToDenseOptions"},
  [TFL_OP_ABS] = {101, 78, "AbsOptions"},
  [TFL_OP_NEG] = {59, 42, "NegOptions"},
  [TFL_OP_SQRT] = {75, 0, NULL},
  [TFL_OP_RSQRT] = {76, 0, NULL},
  [TFL_OP_SQUARE] = {92, 66, "SquareOptions"},
  [TFL_OP_LOG] = {73, 0, NULL},
  [TFL_OP_SIN] = {66, 0, NULL},
  [TFL_OP_COS] = {108, 84, "CosOptions"},
  [TFL_OP_FLOOR] = {8, 0, NULL},
  [TFL_OP_CEIL] = {104, 0, NULL},
  [TFL_OP_ROUND] = {116, 0, NULL},
  [TFL_OP_SIGN] = {158, 123, "SignOptions"},
  [TFL_OP_ELU] = {111, 0, NULL},
  [TFL_OP_LEAKY_RELU] = {98, 75, "LeakyReluOptions"},
  [TFL_OP_RELU_N1_TO_1] = {20, 0, NULL},
  [TFL_OP_RELU_0_TO_1] = {152, 0, NULL},
  [TFL_OP_GELU] = {150, 116, "GeluOptions"},
  [TFL_OP_LOGICAL_NOT] = {87, 63, "LogicalNotOptions"},
  [TFL_OP_FAKE_QUANT] = {80, 58, "FakeQuantOptions"},
  [TFL_OP_POW] = {78, 56, "PowOptions"},
  [TFL_OP_SQUARED_DIFFERENCE] = {99, 76, "SquaredDifferenceOptions"},
  [TFL_OP_FLOOR_DIV] = {90, 65, "FloorDivOptions"},
  [TFL_OP_FLOOR_MOD] = {95, 72, "FloorModOptions"},
  [TFL_OP_LESS] = {58, 41, "LessOptions"},
  [TFL_OP_LESS_EQUAL] = {63, 46, "LessEqualOptions"},
  [TFL_OP_GREATER] = {61, 44, "GreaterOptions"},
  [TFL_OP_GREATER_EQUAL] = {62, 45, "GreaterEqualOptions"},
  [TFL_OP_EQUAL] = {71, 53, "EqualOptions"},
  [TFL_OP_NOT_EQUAL] = {72, 54, "NotEqualOptions"},
  [TFL_OP_LOGICAL_OR] = {84, 60, "LogicalOrOptions"},
  [TFL_OP_ADD_N] = {106, 82, "AddNOptions"},
  [TFL_OP_ATAN2] = {156, 122, "ATan2Options"},
  [TFL_OP_BITWISE_XOR] = {160, 125, "BitwiseXorOptions"},
  [TFL_OP_RIGHT_SHIFT] = {161, 126, "RightShiftOptions"},
  [TFL_OP_SUM] = {74, 27, "ReducerOptions"},
  [TFL_OP_REDUCE_PROD] = {81, 27, "ReducerOptions"},
  [TFL_OP_REDUCE_MAX] = {82, 27, "ReducerOptions"},
  [TFL_OP_REDUCE_MIN] = {89, 27, "ReducerOptions"},
  [TFL_OP_REDUCE_ANY] = {91, 27, "ReducerOptions"},
  [TFL_OP_REDUCE_ALL] = {140, 27, "ReducerOptions"},
  [TFL_OP_ARG_MIN] = {79, 57, "ArgMinOptions"},
  [TFL_OP_LOG_SOFTMAX] = {50, 36, "LogSoftmaxOptions"},
  [TFL_OP_L2_NORMALIZATION] = {11, 12, "L2NormOptions"},
  [TFL_OP_LOCAL_RESPONSE_NORMALIZATION] = {13, 13, "LocalResponseNormalizationOptions"},
  [TFL_OP_L2_POOL_2D] = {12, 5, "Pool2DOptions"},
  [TFL_OP_BATCH_MATMUL] = {126, 101, "BatchMatMulOptions"},
  [TFL_OP_CONV_3D] = {132, 106, "Conv3DOptions"},
  [TFL_OP_CONV_3D_TRANSPOSE] = {141, 106, "Conv3DOptions"},
  [TFL_OP_RFFT2D] = {131, 0, NULL},           /* Rfft2dOptions: no fields */
  [TFL_OP_REAL] = {134, 0, NULL},
  [TFL_OP_IMAG] = {133, 0, NULL},
  [TFL_OP_COMPLEX_ABS] = {135, 0, NULL},
  [TFL_OP_BUCKETIZE] = {147, 115, "BucketizeOptions"},
  [TFL_OP_BITCAST] = {159, 0, NULL},          /* BitcastOptions: no fields */
  [TFL_OP_UNIDIRECTIONAL_SEQUENCE_LSTM] = {44, 71, "UnidirectionalSequenceLSTMOptions"},
  [TFL_OP_BIDIRECTIONAL_SEQUENCE_LSTM] = {52, 69, "BidirectionalSequenceLSTMOptions"},
  [TFL_OP_UNIDIRECTIONAL_SEQUENCE_RNN] = {35, 31, "SequenceRNNOptions"},
  [TFL_OP_BIDIRECTIONAL_SEQUENCE_RNN] = {46, 70, "BidirectionalSequenceRNNOptions"},
  [TFL_OP_RNN] = {24, 7, "RNNOptions"},
  [TFL_OP_SVDF] = {27, 6, "SVDFOptions"},
  [TFL_OP_WHILE] = {119, 93, "WhileOptions"},
  [TFL_OP_IF] = {118, 92, "IfOptions"},
  [TFL_OP_CALL_ONCE] = {129, 103, "CallOnceOptions"},
  [TFL_OP_CONV2D_TRANSPOSE_BIAS] = {-1, 0, NULL},
  [TFL_OP_DETECTION_POSTPROCESS] = {-1, 0, NULL},
  [TFL_OP_POSENET_DECODER] = {-1, 0, NULL},
  [TFL_OP_ANCHOR_DETECTION] = {-1, 0, NULL},  /* internal: no code, no custom name */
  [TFL_OP_SSD_CLASS_NMS] = {-1, 0, NULL},     /* internal */
  [TFL_OP_SSD_DETECTION] = {-1, 0, NULL},     /* internal */
  [TFL_OP_LANDMARK_DECODE] = {-1, 0, NULL},   /* internal */
  [TFL_OP_YOLO_DETECTION] = {-1, 0, NULL},    /* internal */
};
_Static_assert(sizeof ops / sizeof ops[0] == TFL_OP_COUNT, "every op needs a code row");

bool tfl_op_from_builtin(int32_t code, tfl_op *op)
{
  for (int i = 0; i < TFL_OP_COUNT; i++) {
    if (ops[i].code == code && code >= 0) {
      *op = (tfl_op)i;
      return true;
    }
  }
  return false;
}

int32_t tfl_op_builtin_code(tfl_op op)
{
  return (unsigned)op < TFL_OP_COUNT ? ops[op].code : -1;
}

bool tfl_op_from_custom(const char *name, tfl_op *op)
{
  static const struct { const char *name; tfl_op op; } custom[] = {
    {"Convolution2DTransposeBias", TFL_OP_CONV2D_TRANSPOSE_BIAS},
    {"TFLite_Detection_PostProcess", TFL_OP_DETECTION_POSTPROCESS},
    {"PosenetDecoderOp", TFL_OP_POSENET_DECODER},
  };
  for (size_t i = 0; i < sizeof custom / sizeof custom[0]; i++) {
    if (strcmp(name, custom[i].name) == 0) {
      *op = custom[i].op;
      return true;
    }
  }
  return false;
}

/* ---- builtin options ---------------------------------------------------------- */

#define NODE_ERR(st, ...) node_err(diag, st, node_index, n->op, __VA_ARGS__)

static tfl_status node_err(tfl_diag *diag, tfl_status st, int idx, tfl_op op, const char *fmt, ...)
  __attribute__((format(printf, 5, 6)));
static tfl_status node_err(tfl_diag *diag, tfl_status st, int idx, tfl_op op, const char *fmt, ...)
{
  char msg[300];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return tfl_fail(diag, st, "node %d (%s): %s", idx, tfl_op_name(op), msg);
}

static bool act_of(int v, tfl_activation *a)
{
  if (v < 0 || v > 5) return false; /* schema: NONE..SIGN_BIT */
  *a = (tfl_activation)v;
  return true;
}

static bool padding_of(int v, tfl_padding *p)
{
  if (v == 0) *p = TFL_PAD_SAME;
  else if (v == 1) *p = TFL_PAD_VALID;
  else return false;
  return true;
}

/* Reads an int vector option field into dst (at most TFL_MAX_DIMS); -1 if absent. */
static int dims_vec(const fb_table *o, int id, int32_t *dst, bool *too_long)
{
  fb_vec v;
  *too_long = false;
  if (!fb_vec_field(o, id, 4, &v)) return -1;
  if (v.n > TFL_MAX_DIMS) {
    *too_long = true;
    return -1;
  }
  for (uint32_t i = 0; i < v.n; i++) dst[i] = fb_vec_i32(o->r, &v, i);
  return (int)v.n;
}

static tfl_status parse_builtin(fb_reader *r, const fb_table *o, bool has, tfl_node *n,
                                int node_index, tfl_diag *diag)
{
  tfl_params *p = &n->p;
  int act = 0;
  switch (n->op) {
  case TFL_OP_CONV_2D:
  case TFL_OP_DEPTHWISE_CONV_2D:
  case TFL_OP_TRANSPOSE_CONV: {
    tfl_conv_params *c = &p->conv;
    bool dw = n->op == TFL_OP_DEPTHWISE_CONV_2D, tc = n->op == TFL_OP_TRANSPOSE_CONV;
    int pad = fb_i8(o, 0, 0);
    c->stride_w = has ? fb_i32(o, 1, 0) : 1;
    c->stride_h = has ? fb_i32(o, 2, 0) : 1;
    c->depth_multiplier = dw ? fb_i32(o, 3, 1) : 1;
    act = fb_i8(o, dw ? 4 : 3, 0);
    c->dilation_w = tc ? 1 : fb_i32(o, dw ? 5 : 4, 1);
    c->dilation_h = tc ? 1 : fb_i32(o, dw ? 6 : 5, 1);
    if (!padding_of(pad, &c->padding)) return NODE_ERR(TFL_ERR_FORMAT, "padding %d unknown", pad);
    if (c->stride_w < 1 || c->stride_h < 1)
      return NODE_ERR(TFL_ERR_FORMAT, "stride %dx%d, must be >= 1", c->stride_w, c->stride_h);
    if (c->dilation_w < 1 || c->dilation_h < 1)
      return NODE_ERR(TFL_ERR_FORMAT, "dilation %dx%d, must be >= 1", c->dilation_w,
                      c->dilation_h);
    if (!act_of(act, &c->act)) goto bad_act;
    return TFL_OK;
  }
  case TFL_OP_AVERAGE_POOL_2D:
  case TFL_OP_MAX_POOL_2D:
  case TFL_OP_L2_POOL_2D: {
    tfl_pool_params *q = &p->pool;
    int pad = fb_i8(o, 0, 0);
    q->stride_w = has ? fb_i32(o, 1, 0) : 1;
    q->stride_h = has ? fb_i32(o, 2, 0) : 1;
    q->filter_w = has ? fb_i32(o, 3, 0) : 1;
    q->filter_h = has ? fb_i32(o, 4, 0) : 1;
    act = fb_i8(o, 5, 0);
    if (!padding_of(pad, &q->padding)) return NODE_ERR(TFL_ERR_FORMAT, "padding %d unknown", pad);
    if (q->stride_w < 1 || q->stride_h < 1 || q->filter_w < 1 || q->filter_h < 1)
      return NODE_ERR(TFL_ERR_FORMAT, "stride %dx%d filter %dx%d, must be >= 1", q->stride_w,
                      q->stride_h, q->filter_w, q->filter_h);
    if (!act_of(act, &q->act)) goto bad_act;
    return TFL_OK;
  }
  case TFL_OP_FULLY_CONNECTED: {
    act = fb_i8(o, 0, 0);
    int wf = fb_i8(o, 1, 0);
    if (wf != 0)
      return NODE_ERR(TFL_ERR_UNSUPPORTED, "weights_format %d (shuffled weights) is not supported",
                      wf);
    p->fc.keep_num_dims = fb_bool(o, 2, false);
    p->fc.asymmetric_quantize_inputs = fb_bool(o, 3, false);
    if (!act_of(act, &p->fc.act)) goto bad_act;
    return TFL_OK;
  }
  case TFL_OP_ADD:
  case TFL_OP_SUB:
  case TFL_OP_MUL:
  case TFL_OP_DIV:
    act = fb_i8(o, 0, 0);
    if (!act_of(act, &p->eltwise.act)) goto bad_act;
    return TFL_OK;
  case TFL_OP_CONCATENATION:
    p->concat.axis = fb_i32(o, 0, 0);
    act = fb_i8(o, 1, 0);
    if (!act_of(act, &p->concat.act)) goto bad_act;
    return TFL_OK;
  case TFL_OP_SOFTMAX:
    p->softmax.beta = has ? fb_f32(o, 0, 0.0f) : 1.0f;
    if (!isfinite(p->softmax.beta))
      return NODE_ERR(TFL_ERR_FORMAT, "beta %g is not finite", (double)p->softmax.beta);
    return TFL_OK;
  case TFL_OP_RESHAPE: {
    bool too_long;
    p->reshape.n = dims_vec(o, 0, p->reshape.shape, &too_long);
    if (too_long) return NODE_ERR(TFL_ERR_UNSUPPORTED, "new_shape has more than %d dims",
                                  TFL_MAX_DIMS);
    return TFL_OK;
  }
  case TFL_OP_SQUEEZE: {
    bool too_long;
    p->squeeze.n = dims_vec(o, 0, p->squeeze.dims, &too_long);
    if (too_long) return NODE_ERR(TFL_ERR_UNSUPPORTED, "squeeze_dims has more than %d entries",
                                  TFL_MAX_DIMS);
    if (p->squeeze.n < 0) p->squeeze.n = 0;
    return TFL_OK;
  }
  case TFL_OP_RESIZE_BILINEAR:
    p->resize.align_corners = fb_bool(o, 2, false);
    p->resize.half_pixel_centers = fb_bool(o, 3, false);
    return TFL_OK;
  case TFL_OP_RESIZE_NEAREST_NEIGHBOR:
    p->resize.align_corners = fb_bool(o, 0, false);
    p->resize.half_pixel_centers = fb_bool(o, 1, false);
    return TFL_OK;
  case TFL_OP_STRIDED_SLICE:
    p->slice.begin_mask = fb_i32(o, 0, 0);
    p->slice.end_mask = fb_i32(o, 1, 0);
    p->slice.ellipsis_mask = fb_i32(o, 2, 0);
    p->slice.new_axis_mask = fb_i32(o, 3, 0);
    p->slice.shrink_axis_mask = fb_i32(o, 4, 0);
    p->slice.offset = fb_bool(o, 5, false);
    return TFL_OK;
  case TFL_OP_MEAN:
  case TFL_OP_SUM:
  case TFL_OP_REDUCE_PROD:
  case TFL_OP_REDUCE_MAX:
  case TFL_OP_REDUCE_MIN:
  case TFL_OP_REDUCE_ANY:
  case TFL_OP_REDUCE_ALL:
    p->reducer.keep_dims = fb_bool(o, 0, false);
    return TFL_OK;
  case TFL_OP_SPACE_TO_DEPTH:
  case TFL_OP_DEPTH_TO_SPACE:
    p->d2s.block_size = fb_i32(o, 0, 0);
    if (p->d2s.block_size < 1)
      return NODE_ERR(TFL_ERR_FORMAT, "block_size %d, must be >= 1", p->d2s.block_size);
    return TFL_OK;
  case TFL_OP_ARG_MAX:
  case TFL_OP_ARG_MIN: {
    int t = has ? fb_i8(o, 0, 0) : TFL_TYPE_INT64;
    if (t != TFL_TYPE_INT32 && t != TFL_TYPE_INT64)
      return NODE_ERR(TFL_ERR_UNSUPPORTED, "output_type %d, expected INT32 or INT64", t);
    p->arg_max.output_type = (tfl_type)t;
    return TFL_OK;
  }
  case TFL_OP_LSTM: {
    act = fb_i8(o, 0, 0);
    p->lstm.cell_clip = fb_f32(o, 1, 0.0f);
    p->lstm.proj_clip = fb_f32(o, 2, 0.0f);
    p->lstm.kernel_type = fb_i8(o, 3, 0);
    p->lstm.asymmetric_quantize_inputs = fb_bool(o, 4, false);
    if (p->lstm.kernel_type != 0 && p->lstm.kernel_type != 1)
      return NODE_ERR(TFL_ERR_FORMAT, "kernel_type %d unknown", p->lstm.kernel_type);
    if (!act_of(act, &p->lstm.act)) goto bad_act;
    return TFL_OK;
  }
  case TFL_OP_SPLIT:
  case TFL_OP_SPLIT_V:
    p->split.num_splits = fb_i32(o, 0, 0);
    if (p->split.num_splits < 1 || p->split.num_splits > 1 << 20)
      return NODE_ERR(TFL_ERR_FORMAT, "num_splits %d, must be 1..2^20", p->split.num_splits);
    return TFL_OK;
  case TFL_OP_PACK:
  case TFL_OP_UNPACK:
    p->pack.count = fb_i32(o, 0, 0);
    p->pack.axis = fb_i32(o, 1, 0);
    if (p->pack.count < 0) return NODE_ERR(TFL_ERR_FORMAT, "count %d is negative", p->pack.count);
    return TFL_OK;
  case TFL_OP_MIRROR_PAD:
    p->mirror_pad.mode = fb_i8(o, 0, 0);
    if (p->mirror_pad.mode != 0 && p->mirror_pad.mode != 1)
      return NODE_ERR(TFL_ERR_FORMAT, "mode %d unknown (0 REFLECT, 1 SYMMETRIC)", p->mirror_pad.mode);
    return TFL_OK;
  case TFL_OP_REVERSE_SEQUENCE:
    p->reverse_seq.seq_dim = fb_i32(o, 0, 0);
    p->reverse_seq.batch_dim = fb_i32(o, 1, 0);
    return TFL_OK;
  case TFL_OP_GATHER:
    p->gather.axis = fb_i32(o, 0, 0);
    p->gather.batch_dims = fb_i32(o, 1, 0);
    return TFL_OK;
  case TFL_OP_SHAPE: {
    int t = has ? fb_i8(o, 0, TFL_TYPE_INT32) : TFL_TYPE_INT32;
    if (t != TFL_TYPE_INT32 && t != TFL_TYPE_INT64)
      return NODE_ERR(TFL_ERR_UNSUPPORTED, "out_type %d, expected INT32 or INT64", t);
    p->shape.out_type = (tfl_type)t;
    return TFL_OK;
  }
  case TFL_OP_ONE_HOT:
    p->one_hot.axis = fb_i32(o, 0, 0);
    return TFL_OK;
  case TFL_OP_CAST:
    p->cast.in_type = has ? fb_i8(o, 0, 0) : -1;
    p->cast.out_type = has ? fb_i8(o, 1, 0) : -1;
    return TFL_OK;
  case TFL_OP_CUMSUM:
    p->cumsum.exclusive = fb_bool(o, 0, false);
    p->cumsum.reverse = fb_bool(o, 1, false);
    return TFL_OK;
  case TFL_OP_LEAKY_RELU:
    p->leaky_relu.alpha = fb_f32(o, 0, 0.0f);
    if (!isfinite(p->leaky_relu.alpha))
      return NODE_ERR(TFL_ERR_FORMAT, "alpha %g is not finite", (double)p->leaky_relu.alpha);
    return TFL_OK;
  case TFL_OP_GELU:
    p->gelu.approximate = fb_bool(o, 0, false);
    return TFL_OK;
  case TFL_OP_BUCKETIZE: {
    /* BucketizeOptions.boundaries (0): kept in the model's bytes, checked ascending as
     * TFLite's Prepare does (the kernel's binary search needs it) */
    fb_vec v;
    if (!fb_vec_field(o, 0, 4, &v)) {
      p->bucketize.n = 0;
      p->bucketize.boundaries = NULL;
      return TFL_OK;
    }
    if (v.n > INT32_MAX / 4) return NODE_ERR(TFL_ERR_FORMAT, "%u boundaries", v.n);
    float prev = 0.0f;
    for (uint32_t i = 0; i < v.n; i++) {
      float b = fb_vec_f32(r, &v, i);
      if (isnan(b)) return NODE_ERR(TFL_ERR_FORMAT, "boundary %u is NaN", i);
      if (i > 0 && b < prev)
        return NODE_ERR(TFL_ERR_FORMAT, "boundaries are not sorted: boundary %u is %g after %g", i, (double)b,
                        (double)prev);
      prev = b;
    }
    p->bucketize.n = (int)v.n;
    p->bucketize.boundaries = fb_vec_bytes(r, &v);
    return TFL_OK;
  }
  case TFL_OP_FAKE_QUANT: {
    tfl_fake_quant_params *f = &p->fake_quant;
    f->min = fb_f32(o, 0, 0.0f);
    f->max = fb_f32(o, 1, 0.0f);
    f->num_bits = fb_i32(o, 2, 0);
    f->narrow_range = fb_bool(o, 3, false);
    if (!isfinite(f->min) || !isfinite(f->max) || f->min > f->max || f->num_bits < 2 || f->num_bits > 16)
      return NODE_ERR(TFL_ERR_FORMAT, "min %g, max %g, num_bits %d: expected finite min <= max, 2..16 bits",
                      (double)f->min, (double)f->max, f->num_bits);
    return TFL_OK;
  }
  case TFL_OP_L2_NORMALIZATION:
    act = fb_i8(o, 0, 0);
    if (!act_of(act, &p->eltwise.act)) goto bad_act;
    return TFL_OK;
  case TFL_OP_LOCAL_RESPONSE_NORMALIZATION: {
    tfl_lrn_params *l = &p->lrn;
    l->radius = fb_i32(o, 0, 0);
    l->bias = fb_f32(o, 1, 0.0f);
    l->alpha = fb_f32(o, 2, 0.0f);
    l->beta = fb_f32(o, 3, 0.0f);
    if (l->radius < 0 || l->radius > 1 << 20 || !isfinite(l->bias) || !isfinite(l->alpha) || !isfinite(l->beta))
      return NODE_ERR(TFL_ERR_FORMAT, "radius %d, bias %g, alpha %g, beta %g", l->radius, (double)l->bias,
                      (double)l->alpha, (double)l->beta);
    return TFL_OK;
  }
  case TFL_OP_BATCH_MATMUL:
    p->bmm.adj_x = fb_bool(o, 0, false);
    p->bmm.adj_y = fb_bool(o, 1, false);
    p->bmm.asymmetric_quantize_inputs = fb_bool(o, 2, false);
    return TFL_OK;
  case TFL_OP_CONV_3D:
  case TFL_OP_CONV_3D_TRANSPOSE: {
    tfl_conv3d_params *c = &p->conv3d;
    int pad = fb_i8(o, 0, 0);
    c->stride_d = has ? fb_i32(o, 1, 0) : 1;
    c->stride_w = has ? fb_i32(o, 2, 0) : 1;
    c->stride_h = has ? fb_i32(o, 3, 0) : 1;
    act = fb_i8(o, 4, 0);
    c->dilation_d = fb_i32(o, 5, 1);
    c->dilation_w = fb_i32(o, 6, 1);
    c->dilation_h = fb_i32(o, 7, 1);
    if (!padding_of(pad, &c->padding)) return NODE_ERR(TFL_ERR_FORMAT, "padding %d unknown", pad);
    if (c->stride_d < 1 || c->stride_h < 1 || c->stride_w < 1)
      return NODE_ERR(TFL_ERR_FORMAT, "stride %dx%dx%d, must be >= 1", c->stride_d, c->stride_h, c->stride_w);
    if (c->dilation_d < 1 || c->dilation_h < 1 || c->dilation_w < 1)
      return NODE_ERR(TFL_ERR_FORMAT, "dilation %dx%dx%d, must be >= 1", c->dilation_d, c->dilation_h,
                      c->dilation_w);
    if (!act_of(act, &c->act)) goto bad_act;
    return TFL_OK;
  }
  case TFL_OP_UNIDIRECTIONAL_SEQUENCE_LSTM:
  case TFL_OP_BIDIRECTIONAL_SEQUENCE_LSTM: {
    tfl_seq_params *q = &p->seq;
    bool bidi = n->op == TFL_OP_BIDIRECTIONAL_SEQUENCE_LSTM;
    act = fb_i8(o, 0, 0);
    q->cell_clip = fb_f32(o, 1, 0.0f);
    q->proj_clip = fb_f32(o, 2, 0.0f);
    if (bidi) {
      q->merge_outputs = fb_bool(o, 3, false);
      q->time_major = fb_bool(o, 4, true);   /* the schema's default for this op */
      q->asymmetric_quantize_inputs = fb_bool(o, 5, false);
    } else {
      q->time_major = fb_bool(o, 3, false);
      q->asymmetric_quantize_inputs = fb_bool(o, 4, false);
      q->diagonal_recurrent = fb_bool(o, 5, false);
    }
    if (!isfinite(q->cell_clip) || !isfinite(q->proj_clip) || q->cell_clip < 0 || q->proj_clip < 0)
      return NODE_ERR(TFL_ERR_FORMAT, "cell_clip %g, proj_clip %g: expected finite and >= 0", (double)q->cell_clip,
                      (double)q->proj_clip);
    if (!act_of(act, &q->act)) goto bad_act;
    return TFL_OK;
  }
  case TFL_OP_UNIDIRECTIONAL_SEQUENCE_RNN:
  case TFL_OP_BIDIRECTIONAL_SEQUENCE_RNN: {
    tfl_seq_params *q = &p->seq;
    q->time_major = fb_bool(o, 0, false);
    act = fb_i8(o, 1, 0);
    if (n->op == TFL_OP_BIDIRECTIONAL_SEQUENCE_RNN) {
      q->merge_outputs = fb_bool(o, 2, false);
      q->asymmetric_quantize_inputs = fb_bool(o, 3, false);
    } else {
      q->asymmetric_quantize_inputs = fb_bool(o, 2, false);
    }
    if (!act_of(act, &q->act)) goto bad_act;
    return TFL_OK;
  }
  case TFL_OP_RNN:
    act = fb_i8(o, 0, 0);
    p->seq.asymmetric_quantize_inputs = fb_bool(o, 1, false);
    if (!act_of(act, &p->seq.act)) goto bad_act;
    return TFL_OK;
  case TFL_OP_SVDF:
    p->seq.rank = fb_i32(o, 0, 0);
    act = fb_i8(o, 1, 0);
    p->seq.asymmetric_quantize_inputs = fb_bool(o, 2, false);
    if (p->seq.rank < 1) return NODE_ERR(TFL_ERR_FORMAT, "rank %d, must be >= 1", p->seq.rank);
    if (!act_of(act, &p->seq.act)) goto bad_act;
    return TFL_OK;
  case TFL_OP_WHILE:
  case TFL_OP_IF:
    p->subgraph.a = fb_i32(o, 0, 0);
    p->subgraph.b = fb_i32(o, 1, 0);
    return TFL_OK;
  case TFL_OP_CALL_ONCE:
    p->subgraph.a = fb_i32(o, 0, 0);
    p->subgraph.b = -1;
    return TFL_OK;
  default:   /* the other grouped ops read no options */
    return TFL_OK;
  }
  (void)r;
  return TFL_OK;
bad_act:
  return NODE_ERR(TFL_ERR_FORMAT, "fused activation %d unknown", act);
}

/* ---- custom options ------------------------------------------------------------ */

/* MediaPipe stores TfLiteTransposeConvParams as raw bytes: int padding
 * (TfLitePadding: 1 same, 2 valid), int stride_width, int stride_height. */
static tfl_status parse_transpose_bias(const uint8_t *b, size_t len, tfl_node *n, int node_index, tfl_diag *diag)
{
  if (len < 12)
    return NODE_ERR(TFL_ERR_FORMAT, "custom options have %zu bytes, expected at least 12", len);
  int32_t v[3];
  memcpy(v, b, 12);
  tfl_conv_params *c = &n->p.conv;
  if (v[0] == 1) c->padding = TFL_PAD_SAME;
  else if (v[0] == 2) c->padding = TFL_PAD_VALID;
  else return NODE_ERR(TFL_ERR_FORMAT, "padding %d unknown (1 same, 2 valid)", v[0]);
  c->stride_w = v[1];
  c->stride_h = v[2];
  if (c->stride_w < 1 || c->stride_h < 1)
    return NODE_ERR(TFL_ERR_FORMAT, "stride %dx%d, must be >= 1", c->stride_w, c->stride_h);
  c->dilation_w = c->dilation_h = 1;
  c->depth_multiplier = 1;
  c->act = TFL_ACT_NONE;
  return TFL_OK;
}

static tfl_status need_int(const fxb_map *m, const char *key, int lo, int hi, int *out,
                           tfl_node *n, int node_index, tfl_diag *diag)
{
  int64_t v;
  if (!fxb_get_int(m, key, &v)) return NODE_ERR(TFL_ERR_FORMAT, "option '%s' missing", key);
  if (v < lo || v > hi)
    return NODE_ERR(TFL_ERR_FORMAT, "option %s = %lld, expected %d..%d", key, (long long)v, lo, hi);
  *out = (int)v;
  return TFL_OK;
}

static tfl_status need_float(const fxb_map *m, const char *key, float *out, tfl_node *n,
                             int node_index, tfl_diag *diag)
{
  double v;
  if (!fxb_get_float(m, key, &v)) return NODE_ERR(TFL_ERR_FORMAT, "option '%s' missing", key);
  if (!isfinite(v) || fabs(v) > 1e30)
    return NODE_ERR(TFL_ERR_FORMAT, "option %s = %g is not a finite number", key, v);
  *out = (float)v;
  return TFL_OK;
}

#define TRY(x) do { tfl_status s_ = (x); if (s_ != TFL_OK) return s_; } while (0)

static tfl_status parse_detection(const fxb_map *m, tfl_node *n, int node_index, tfl_diag *diag)
{
  tfl_detection_params *d = &n->p.detection;
  TRY(need_int(m, "max_detections", 1, 100000, &d->max_detections, n, node_index, diag));
  TRY(need_int(m, "num_classes", 1, 100000, &d->num_classes, n, node_index, diag));
  TRY(need_int(m, "max_classes_per_detection", 1, d->num_classes, &d->max_classes_per_detection,
               n, node_index, diag));
  int64_t v;
  d->detections_per_class = 100; /* TFLite's default when the key is absent */
  if (fxb_get_int(m, "detections_per_class", &v)) {
    if (v < 1 || v > 100000)
      return NODE_ERR(TFL_ERR_FORMAT, "option detections_per_class = %lld, expected 1..100000",
                      (long long)v);
    d->detections_per_class = (int)v;
  }
  bool b = false;
  d->use_regular_nms = fxb_get_bool(m, "use_regular_nms", &b) && b;
  TRY(need_float(m, "nms_score_threshold", &d->nms_score_threshold, n, node_index, diag));
  TRY(need_float(m, "nms_iou_threshold", &d->nms_iou_threshold, n, node_index, diag));
  TRY(need_float(m, "y_scale", &d->y_scale, n, node_index, diag));
  TRY(need_float(m, "x_scale", &d->x_scale, n, node_index, diag));
  TRY(need_float(m, "h_scale", &d->h_scale, n, node_index, diag));
  TRY(need_float(m, "w_scale", &d->w_scale, n, node_index, diag));
  if (d->y_scale == 0 || d->x_scale == 0 || d->h_scale == 0 || d->w_scale == 0)
    return NODE_ERR(TFL_ERR_FORMAT, "box scales must be non-zero (%g %g %g %g)",
                    (double)d->y_scale, (double)d->x_scale, (double)d->h_scale,
                    (double)d->w_scale);
  return TFL_OK;
}

static tfl_status parse_posenet(const fxb_map *m, tfl_node *n, int node_index, tfl_diag *diag)
{
  tfl_posenet_params *q = &n->p.posenet;
  TRY(need_int(m, "max_detections", 1, 100000, &q->max_detections, n, node_index, diag));
  TRY(need_float(m, "score_threshold", &q->score_threshold, n, node_index, diag));
  TRY(need_int(m, "stride", 1, 1024, &q->stride, n, node_index, diag));
  TRY(need_float(m, "nms_radius", &q->nms_radius, n, node_index, diag));
  return TFL_OK;
}

tfl_status tfl_parse_op_options(fb_reader *r, const fb_table *op_t, tfl_node *n, int node_index,
                                const uint8_t *file, size_t file_size, tfl_diag *diag)
{
  const op_info *info = &ops[n->op];
  if (info->code >= 0) {
    /* Operator.builtin_options_type (3) / builtin_options (4) */
    uint8_t type = fb_u8(op_t, 3, 0);
    fb_table o;
    bool has = false;
    if (type != 0 && info->options_type != 0) {
      if (type != info->options_type)
        return NODE_ERR(TFL_ERR_FORMAT, "builtin_options has union type %u, expected %u (%s)",
                        type, info->options_type, info->options_name);
      has = fb_table_field(op_t, 4, &o);
    }
    if (!has) {
      memset(&o, 0, sizeof o);
      o.r = r;
    }
    if (!fb_ok(r)) return NODE_ERR(TFL_ERR_FORMAT, "builtin options: %s", r->msg);
    tfl_status s = parse_builtin(r, &o, has, n, node_index, diag);
    if (s == TFL_OK && !fb_ok(r)) return NODE_ERR(TFL_ERR_FORMAT, "builtin options: %s", r->msg);
    return s;
  }

  /* custom_options (5): a byte vector, or for >2 GB models the file range given
   * by large_custom_options_offset (9) / _size (10). */
  const uint8_t *b = NULL;
  size_t len = 0;
  fb_vec v;
  if (fb_vec_field(op_t, 5, 1, &v)) {
    b = fb_vec_bytes(r, &v);
    len = v.n;
  } else {
    uint64_t off = fb_u64(op_t, 9, 0), sz = fb_u64(op_t, 10, 0);
    if (off > 1) {
      if (off > file_size || sz > file_size - off)
        return NODE_ERR(TFL_ERR_FORMAT,
                        "large custom options at %llu+%llu lie outside the file (%zu bytes)",
                        (unsigned long long)off, (unsigned long long)sz, file_size);
      b = file + off;
      len = (size_t)sz;
    }
  }
  if (!fb_ok(r)) return NODE_ERR(TFL_ERR_FORMAT, "custom options: %s", r->msg);
  if (n->op == TFL_OP_CONV2D_TRANSPOSE_BIAS) return parse_transpose_bias(b, len, n, node_index, diag);

  int fmt = fb_i8(op_t, 6, 0);
  if (fmt != 0) return NODE_ERR(TFL_ERR_FORMAT, "custom_options_format %d, expected FLEXBUFFERS", fmt);
  fxb_map m;
  const char *why = "";
  if (!fxb_root_map(b, len, &m, &why)) return NODE_ERR(TFL_ERR_FORMAT, "custom options: %s", why);
  if (n->op == TFL_OP_DETECTION_POSTPROCESS) return parse_detection(&m, n, node_index, diag);
  if (n->op == TFL_OP_POSENET_DECODER) return parse_posenet(&m, n, node_index, diag);
  return TFL_OK;
}
