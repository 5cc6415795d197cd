/* tfl_graph.c - type/op names, tensor sizes, and the graph's memory.
 *
 * Who frees what (tfl_graph_free):
 *  - malloc'd, so passes may realloc them: g->tensors, g->nodes, g->inputs,
 *    g->outputs, g->description, g->meta.name, g->meta.labels;
 *  - graph blocks (tfl_graph_alloc), freed together: everything a tensor or node
 *    points to (names, quantization arrays, sparsity, node in/out arrays, folded
 *    or realigned constant data);
 *  - the model bytes: unmapped (tfl_load_file) or freed (tfl_load_memory);
 *  - the model's other subgraphs (g->subgraphs, malloc'd), graphs of their own freed
 *    with their main graph; they borrow its model bytes and own no backing.
 */
#include "tfl_loader_priv.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef struct {
  void *map;            /* mmap'd model, or NULL */
  size_t map_size;
  void *copy;           /* malloc'd model copy, or NULL */
  void **blocks;        /* graph-owned blocks */
  size_t n_blocks, cap_blocks;
} graph_priv;

const char *tfl_type_name(tfl_type t)
{
  switch (t) {
  case TFL_TYPE_FLOAT32: return "FLOAT32";
  case TFL_TYPE_FLOAT16: return "FLOAT16";
  case TFL_TYPE_INT32: return "INT32";
  case TFL_TYPE_UINT8: return "UINT8";
  case TFL_TYPE_INT64: return "INT64";
  case TFL_TYPE_STRING: return "STRING";
  case TFL_TYPE_COMPLEX64: return "COMPLEX64";
  case TFL_TYPE_BOOL: return "BOOL";
  case TFL_TYPE_INT16: return "INT16";
  case TFL_TYPE_INT8: return "INT8";
  case TFL_TYPE_COUNT: break;
  }
  return "UNKNOWN_TYPE";
}

size_t tfl_type_size(tfl_type t)
{
  switch (t) {
  case TFL_TYPE_FLOAT32: return 4;
  case TFL_TYPE_FLOAT16: return 2;
  case TFL_TYPE_INT32: return 4;
  case TFL_TYPE_UINT8: return 1;
  case TFL_TYPE_INT64: return 8;
  case TFL_TYPE_STRING: return 0;
  case TFL_TYPE_COMPLEX64: return 8; /* (real, imaginary) float32 pairs */
  case TFL_TYPE_BOOL: return 1;
  case TFL_TYPE_INT16: return 2;
  case TFL_TYPE_INT8: return 1;
  case TFL_TYPE_COUNT: break;
  }
  return 0;
}

bool tfl_type_int_range(tfl_type t, int32_t *lo, int32_t *hi)
{
  switch (t) {
  case TFL_TYPE_UINT8: *lo = 0; *hi = 255; return true;
  case TFL_TYPE_INT8: *lo = -128; *hi = 127; return true;
  case TFL_TYPE_INT16: *lo = -32768; *hi = 32767; return true;
  case TFL_TYPE_FLOAT32:
  case TFL_TYPE_FLOAT16:
  case TFL_TYPE_INT32:
  case TFL_TYPE_INT64:
  case TFL_TYPE_STRING:
  case TFL_TYPE_COMPLEX64:
  case TFL_TYPE_BOOL:
  case TFL_TYPE_COUNT: break;
  }
  return false;
}

static const char *const op_names[] = {
  [TFL_OP_TRANSPOSE] = "TRANSPOSE",
  [TFL_OP_SLICE] = "SLICE",
  [TFL_OP_SPLIT] = "SPLIT",
  [TFL_OP_SPLIT_V] = "SPLIT_V",
  [TFL_OP_PACK] = "PACK",
  [TFL_OP_UNPACK] = "UNPACK",
  [TFL_OP_TILE] = "TILE",
  [TFL_OP_BROADCAST_TO] = "BROADCAST_TO",
  [TFL_OP_EXPAND_DIMS] = "EXPAND_DIMS",
  [TFL_OP_REVERSE_V2] = "REVERSE_V2",
  [TFL_OP_MIRROR_PAD] = "MIRROR_PAD",
  [TFL_OP_SPACE_TO_DEPTH] = "SPACE_TO_DEPTH",
  [TFL_OP_SPACE_TO_BATCH_ND] = "SPACE_TO_BATCH_ND",
  [TFL_OP_BATCH_TO_SPACE_ND] = "BATCH_TO_SPACE_ND",
  [TFL_OP_REVERSE_SEQUENCE] = "REVERSE_SEQUENCE",
  [TFL_OP_MATRIX_DIAG] = "MATRIX_DIAG",
  [TFL_OP_MATRIX_SET_DIAG] = "MATRIX_SET_DIAG",
  [TFL_OP_DYNAMIC_UPDATE_SLICE] = "DYNAMIC_UPDATE_SLICE",
  [TFL_OP_GATHER] = "GATHER",
  [TFL_OP_GATHER_ND] = "GATHER_ND",
  [TFL_OP_SCATTER_ND] = "SCATTER_ND",
  [TFL_OP_SHAPE] = "SHAPE",
  [TFL_OP_RANK] = "RANK",
  [TFL_OP_FILL] = "FILL",
  [TFL_OP_ZEROS_LIKE] = "ZEROS_LIKE",
  [TFL_OP_RANGE] = "RANGE",
  [TFL_OP_ONE_HOT] = "ONE_HOT",
  [TFL_OP_CAST] = "CAST",
  [TFL_OP_SELECT] = "SELECT",
  [TFL_OP_SELECT_V2] = "SELECT_V2",
  [TFL_OP_WHERE] = "WHERE",
  [TFL_OP_UNIQUE] = "UNIQUE",
  [TFL_OP_TOPK_V2] = "TOPK_V2",
  [TFL_OP_CUMSUM] = "CUMSUM",
  [TFL_OP_NON_MAX_SUPPRESSION_V4] = "NON_MAX_SUPPRESSION_V4",
  [TFL_OP_NON_MAX_SUPPRESSION_V5] = "NON_MAX_SUPPRESSION_V5",
  [TFL_OP_EMBEDDING_LOOKUP] = "EMBEDDING_LOOKUP",
  [TFL_OP_SEGMENT_SUM] = "SEGMENT_SUM",
  [TFL_OP_UNSORTED_SEGMENT_SUM] = "UNSORTED_SEGMENT_SUM",
  [TFL_OP_UNSORTED_SEGMENT_PROD] = "UNSORTED_SEGMENT_PROD",
  [TFL_OP_UNSORTED_SEGMENT_MAX] = "UNSORTED_SEGMENT_MAX",
  [TFL_OP_UNSORTED_SEGMENT_MIN] = "UNSORTED_SEGMENT_MIN",
  [TFL_OP_BROADCAST_ARGS] = "BROADCAST_ARGS",
  [TFL_OP_SPARSE_TO_DENSE] = "SPARSE_TO_DENSE",
  [TFL_OP_ABS] = "ABS",
  [TFL_OP_NEG] = "NEG",
  [TFL_OP_SQRT] = "SQRT",
  [TFL_OP_RSQRT] = "RSQRT",
  [TFL_OP_SQUARE] = "SQUARE",
  [TFL_OP_LOG] = "LOG",
  [TFL_OP_SIN] = "SIN",
  [TFL_OP_COS] = "COS",
  [TFL_OP_FLOOR] = "FLOOR",
  [TFL_OP_CEIL] = "CEIL",
  [TFL_OP_ROUND] = "ROUND",
  [TFL_OP_SIGN] = "SIGN",
  [TFL_OP_ELU] = "ELU",
  [TFL_OP_LEAKY_RELU] = "LEAKY_RELU",
  [TFL_OP_RELU_N1_TO_1] = "RELU_N1_TO_1",
  [TFL_OP_RELU_0_TO_1] = "RELU_0_TO_1",
  [TFL_OP_GELU] = "GELU",
  [TFL_OP_LOGICAL_NOT] = "LOGICAL_NOT",
  [TFL_OP_FAKE_QUANT] = "FAKE_QUANT",
  [TFL_OP_POW] = "POW",
  [TFL_OP_SQUARED_DIFFERENCE] = "SQUARED_DIFFERENCE",
  [TFL_OP_FLOOR_DIV] = "FLOOR_DIV",
  [TFL_OP_FLOOR_MOD] = "FLOOR_MOD",
  [TFL_OP_LESS] = "LESS",
  [TFL_OP_LESS_EQUAL] = "LESS_EQUAL",
  [TFL_OP_GREATER] = "GREATER",
  [TFL_OP_GREATER_EQUAL] = "GREATER_EQUAL",
  [TFL_OP_EQUAL] = "EQUAL",
  [TFL_OP_NOT_EQUAL] = "NOT_EQUAL",
  [TFL_OP_LOGICAL_OR] = "LOGICAL_OR",
  [TFL_OP_ADD_N] = "ADD_N",
  [TFL_OP_ATAN2] = "ATAN2",
  [TFL_OP_BITWISE_XOR] = "BITWISE_XOR",
  [TFL_OP_RIGHT_SHIFT] = "RIGHT_SHIFT",
  [TFL_OP_SUM] = "SUM",
  [TFL_OP_REDUCE_PROD] = "REDUCE_PROD",
  [TFL_OP_REDUCE_MAX] = "REDUCE_MAX",
  [TFL_OP_REDUCE_MIN] = "REDUCE_MIN",
  [TFL_OP_REDUCE_ANY] = "REDUCE_ANY",
  [TFL_OP_REDUCE_ALL] = "REDUCE_ALL",
  [TFL_OP_ARG_MIN] = "ARG_MIN",
  [TFL_OP_LOG_SOFTMAX] = "LOG_SOFTMAX",
  [TFL_OP_L2_NORMALIZATION] = "L2_NORMALIZATION",
  [TFL_OP_LOCAL_RESPONSE_NORMALIZATION] = "LOCAL_RESPONSE_NORMALIZATION",
  [TFL_OP_L2_POOL_2D] = "L2_POOL_2D",
  [TFL_OP_BATCH_MATMUL] = "BATCH_MATMUL",
  [TFL_OP_CONV_3D] = "CONV_3D",
  [TFL_OP_CONV_3D_TRANSPOSE] = "CONV_3D_TRANSPOSE",
  [TFL_OP_RFFT2D] = "RFFT2D",
  [TFL_OP_REAL] = "REAL",
  [TFL_OP_IMAG] = "IMAG",
  [TFL_OP_COMPLEX_ABS] = "COMPLEX_ABS",
  [TFL_OP_BUCKETIZE] = "BUCKETIZE",
  [TFL_OP_BITCAST] = "BITCAST",
  [TFL_OP_UNIDIRECTIONAL_SEQUENCE_LSTM] = "UNIDIRECTIONAL_SEQUENCE_LSTM",
  [TFL_OP_BIDIRECTIONAL_SEQUENCE_LSTM] = "BIDIRECTIONAL_SEQUENCE_LSTM",
  [TFL_OP_UNIDIRECTIONAL_SEQUENCE_RNN] = "UNIDIRECTIONAL_SEQUENCE_RNN",
  [TFL_OP_BIDIRECTIONAL_SEQUENCE_RNN] = "BIDIRECTIONAL_SEQUENCE_RNN",
  [TFL_OP_RNN] = "RNN",
  [TFL_OP_SVDF] = "SVDF",
  [TFL_OP_WHILE] = "WHILE",
  [TFL_OP_IF] = "IF",
  [TFL_OP_CALL_ONCE] = "CALL_ONCE",
  [TFL_OP_ADD] = "ADD",
  [TFL_OP_AVERAGE_POOL_2D] = "AVERAGE_POOL_2D",
  [TFL_OP_CONCATENATION] = "CONCATENATION",
  [TFL_OP_CONV_2D] = "CONV_2D",
  [TFL_OP_DEPTHWISE_CONV_2D] = "DEPTHWISE_CONV_2D",
  [TFL_OP_EXP] = "EXP",
  [TFL_OP_FULLY_CONNECTED] = "FULLY_CONNECTED",
  [TFL_OP_LOGICAL_AND] = "LOGICAL_AND",
  [TFL_OP_LOGISTIC] = "LOGISTIC",
  [TFL_OP_LSTM] = "LSTM",
  [TFL_OP_MAX_POOL_2D] = "MAX_POOL_2D",
  [TFL_OP_MAXIMUM] = "MAXIMUM",
  [TFL_OP_MINIMUM] = "MINIMUM",
  [TFL_OP_MUL] = "MUL",
  [TFL_OP_PAD] = "PAD",
  [TFL_OP_PADV2] = "PADV2",
  [TFL_OP_PRELU] = "PRELU",
  [TFL_OP_RELU] = "RELU",
  [TFL_OP_RELU6] = "RELU6",
  [TFL_OP_RESHAPE] = "RESHAPE",
  [TFL_OP_RESIZE_BILINEAR] = "RESIZE_BILINEAR",
  [TFL_OP_SOFTMAX] = "SOFTMAX",
  [TFL_OP_STRIDED_SLICE] = "STRIDED_SLICE",
  [TFL_OP_SUB] = "SUB",
  [TFL_OP_TRANSPOSE_CONV] = "TRANSPOSE_CONV",
  [TFL_OP_DEQUANTIZE] = "DEQUANTIZE",
  [TFL_OP_QUANTIZE] = "QUANTIZE",
  [TFL_OP_MEAN] = "MEAN",
  [TFL_OP_SQUEEZE] = "SQUEEZE",
  [TFL_OP_HARD_SWISH] = "HARD_SWISH",
  [TFL_OP_DEPTH_TO_SPACE] = "DEPTH_TO_SPACE",
  [TFL_OP_DENSIFY] = "DENSIFY",
  [TFL_OP_TANH] = "TANH",
  [TFL_OP_ARG_MAX] = "ARG_MAX",
  [TFL_OP_RESIZE_NEAREST_NEIGHBOR] = "RESIZE_NEAREST_NEIGHBOR",
  [TFL_OP_DIV] = "DIV",
  [TFL_OP_CONV2D_TRANSPOSE_BIAS] = "Convolution2DTransposeBias",
  [TFL_OP_DETECTION_POSTPROCESS] = "TFLite_Detection_PostProcess",
  [TFL_OP_POSENET_DECODER] = "PosenetDecoderOp",
  [TFL_OP_ANCHOR_DETECTION] = "gst-tflite:AnchorDetection",
  [TFL_OP_SSD_CLASS_NMS] = "gst-tflite:SsdClassNms",
  [TFL_OP_SSD_DETECTION] = "gst-tflite:SsdDetection",
  [TFL_OP_LANDMARK_DECODE] = "gst-tflite:LandmarkDecode",
  [TFL_OP_YOLO_DETECTION] = "gst-tflite:YoloDetection",
};
_Static_assert(sizeof op_names / sizeof op_names[0] == TFL_OP_COUNT, "every op needs a name");

const char *tfl_op_name(tfl_op op)
{
  if ((unsigned)op >= TFL_OP_COUNT || !op_names[op]) return "UNKNOWN_OP";
  return op_names[op];
}

size_t tfl_tensor_count(const tfl_tensor *t)
{
  size_t n = 1;
  for (int i = 0; i < t->ndim; i++) n *= (size_t)(t->dims[i] > 0 ? t->dims[i] : 0);
  return n;
}

void tfl_tensor_update_bytes(tfl_tensor *t)
{
  t->bytes = tfl_tensor_count(t) * tfl_type_size(t->type);
}

static graph_priv *priv_of(tfl_graph *g)
{
  if (!g->priv) g->priv = calloc(1, sizeof(graph_priv));
  return g->priv;
}

void *tfl_graph_alloc(tfl_graph *g, size_t bytes)
{
  graph_priv *p = priv_of(g);
  if (!p) return NULL;
  if (p->n_blocks == p->cap_blocks) {
    size_t cap = p->cap_blocks ? 2 * p->cap_blocks : 64;
    void **b = realloc(p->blocks, cap * sizeof *b);
    if (!b) return NULL;
    p->blocks = b;
    p->cap_blocks = cap;
  }
  void *m = NULL;
  /* 64-byte aligned so kernels may use aligned vector loads on folded constants */
  if (posix_memalign(&m, 64, bytes ? bytes : 1)) return NULL;
  memset(m, 0, bytes ? bytes : 1);
  p->blocks[p->n_blocks++] = m;
  return m;
}

int tfl_graph_add_tensor(tfl_graph *g, const char *name, tfl_type type, int ndim, const int32_t *dims)
{
  if (ndim < 0 || ndim > TFL_MAX_DIMS) return -1;
  char *nm = tfl_graph_strndup(g, name, strlen(name));
  tfl_tensor *t = nm ? realloc(g->tensors, sizeof *t * (size_t)(g->n_tensors + 1)) : NULL;
  if (!t) return -1;
  g->tensors = t;
  t = &g->tensors[g->n_tensors];
  *t = (tfl_tensor){.name = nm, .type = type, .ndim = ndim, .producer = -1};
  if (ndim) memcpy(t->dims, dims, sizeof(int32_t) * (size_t)ndim);
  tfl_tensor_update_bytes(t);
  return g->n_tensors++;
}

int tfl_graph_add_node(tfl_graph *g, tfl_op op, const int32_t *in, int n_in, const int32_t *out, int n_out,
                       const tfl_params *p)
{
  int32_t *ins = tfl_graph_alloc(g, sizeof(int32_t) * (size_t)(n_in > 0 ? n_in : 1));
  int32_t *outs = tfl_graph_alloc(g, sizeof(int32_t) * (size_t)(n_out > 0 ? n_out : 1));
  tfl_node *n = ins && outs ? realloc(g->nodes, sizeof *n * (size_t)(g->n_nodes + 1)) : NULL;
  if (!n) return -1;
  g->nodes = n;
  /* a node without inputs or outputs (CALL_ONCE) may pass NULL */
  if (n_in > 0) memcpy(ins, in, sizeof(int32_t) * (size_t)n_in);
  if (n_out > 0) memcpy(outs, out, sizeof(int32_t) * (size_t)n_out);
  g->nodes[g->n_nodes] = (tfl_node){.op = op, .version = 1, .builtin_code = -1, .n_in = n_in, .n_out = n_out,
                                    .in = ins, .out = outs, .p = *p};
  for (int i = 0; i < n_out; i++)
    if (out[i] >= 0 && out[i] < g->n_tensors) g->tensors[out[i]].producer = g->n_nodes;
  return g->n_nodes++;
}

char *tfl_graph_strndup(tfl_graph *g, const char *s, size_t len)
{
  char *d = tfl_graph_alloc(g, len + 1);
  if (!d) return NULL;
  memcpy(d, s, len);
  d[len] = 0;
  return d;
}

bool tfl_graph_set_backing_mmap(tfl_graph *g, void *map, size_t size)
{
  graph_priv *p = priv_of(g);
  if (!p) return false;
  p->map = map;
  p->map_size = size;
  return true;
}

bool tfl_graph_set_backing_copy(tfl_graph *g, void *copy)
{
  graph_priv *p = priv_of(g);
  if (!p) return false;
  p->copy = copy;
  return true;
}

tfl_graph *tfl_graph_subgraph(const tfl_graph *g, int index)
{
  if (!g) return NULL;
  const tfl_graph *root = g->root ? g->root : g;
  if (index < 1 || index >= root->n_subgraphs || !root->subgraphs) return NULL;
  return root->subgraphs[index];
}

void tfl_graph_free(tfl_graph *g)
{
  if (!g) return;
  /* subgraphs borrow the model bytes: freed before them */
  for (int k = 1; k < g->n_subgraphs && g->subgraphs; k++) tfl_graph_free(g->subgraphs[k]);
  free(g->subgraphs);
  free(g->tensors);
  free(g->nodes);
  free(g->inputs);
  free(g->outputs);
  free(g->description);
  free(g->meta.name);
  free(g->meta.labels);
  graph_priv *p = g->priv;
  if (p) {
    for (size_t i = 0; i < p->n_blocks; i++) free(p->blocks[i]);
    free(p->blocks);
    if (p->map) munmap(p->map, p->map_size);
    free(p->copy);
    free(p);
  }
  free(g);
}
