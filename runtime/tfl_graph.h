/* tfl_graph.h - the runtime's own model graph: tensors, nodes and op parameters.
 *
 * The loader (tfl_loader.h) turns a .tflite flatbuffer into a tfl_graph; passes
 * (tfl_passes.h) rewrite it; the interpreter (tfl_interpreter.h) plans memory and
 * hands nodes to delegates (tfl_delegate.h). Nothing here knows the flatbuffer.
 *
 * Ownership: a tfl_graph owns every array and string it points to, and the model
 * bytes it was loaded from (mmap or copy). Constant tensor data points into those
 * bytes or into graph-owned blocks (folded constants); it lives as long as the graph.
 * Activation tensors get their data pointer from the interpreter's arena.
 */
#ifndef TFL_GRAPH_H
#define TFL_GRAPH_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "tfl_status.h"

#define TFL_MAX_DIMS 6

/* Values match TFLite's TensorType enum so the loader maps them 1:1. */
typedef enum {
  TFL_TYPE_FLOAT32 = 0,
  TFL_TYPE_FLOAT16 = 1,
  TFL_TYPE_INT32 = 2,
  TFL_TYPE_UINT8 = 3,
  TFL_TYPE_INT64 = 4,
  TFL_TYPE_STRING = 5,
  TFL_TYPE_BOOL = 6,
  TFL_TYPE_INT16 = 7,
  TFL_TYPE_COMPLEX64 = 8,   /* (real, imaginary) float32 pairs, as std::complex<float> */
  TFL_TYPE_INT8 = 9,
  TFL_TYPE_COUNT = 10 /* one past the largest value we name */
} tfl_type;

const char *tfl_type_name(tfl_type t);
/* Bytes per element; 0 for types we cannot hold (string). */
size_t tfl_type_size(tfl_type t);
/* The value range of a quantized integer type (uint8, int8, int16) in *lo, *hi; false
 * (and *lo, *hi untouched) for every other type. */
bool tfl_type_int_range(tfl_type t, int32_t *lo, int32_t *hi);

/* Affine quantization: real = scale * (q - zero_point). n == 0: not quantized.
 * n == 1: per tensor; n > 1: per channel along `axis`. */
typedef struct {
  int n;
  float *scale;
  int32_t *zero_point;
  int axis;
} tfl_quant;

/* Sparse storage of a constant, as TFLite's SparsityParameters (for DENSIFY). */
typedef enum { TFL_DIM_DENSE = 0, TFL_DIM_SPARSE_CSR = 1 } tfl_dim_format;
typedef struct {
  tfl_dim_format format;
  int dense_size;               /* DENSE */
  int n_segments, n_indices;    /* SPARSE_CSR */
  const int32_t *segments;      /* widened to int32 by the loader, graph-owned */
  const int32_t *indices;
} tfl_dim_meta;
typedef struct {
  int n_traversal;
  int32_t traversal_order[2 * TFL_MAX_DIMS];
  int n_block;
  int32_t block_map[TFL_MAX_DIMS];
  tfl_dim_meta dim[2 * TFL_MAX_DIMS];
} tfl_sparsity;

typedef struct tfl_tensor {
  char *name;
  tfl_type type;
  int ndim;
  int32_t dims[TFL_MAX_DIMS];
  size_t bytes;          /* element count * type size */
  tfl_quant q;
  void *data;            /* constants: set at load; activations: set by the planner */
  bool is_const;         /* data is known at load time (weights, folded results) */
  bool is_variable;      /* state kept between runs (LSTM) */
  uint8_t dyn_dims;      /* bit d: the file's shape_signature has -1 at dim d (a size known
                            only at run time, e.g. an unknown batch); its shape holds a guess */
  int producer;          /* index of the node writing it, -1 for inputs and constants */
  tfl_sparsity *sparsity;/* non-NULL for a sparse constant (input of DENSIFY) */
  size_t arena_offset;   /* set by the planner for activations */
} tfl_tensor;

typedef enum {
  TFL_ACT_NONE = 0,
  TFL_ACT_RELU = 1,
  TFL_ACT_RELU_N1_TO_1 = 2,
  TFL_ACT_RELU6 = 3,
  TFL_ACT_TANH = 4,
  TFL_ACT_SIGN_BIT = 5,
  TFL_ACT_SIGMOID = 6,
} tfl_activation;

typedef enum { TFL_PAD_SAME = 0, TFL_PAD_VALID = 1 } tfl_padding;

/* Every op the runtime knows. Per-op tables are sized by TFL_OP_COUNT and
 * static-assert it, so adding a member without a row breaks the build. */
typedef enum {
  TFL_OP_ADD,
  TFL_OP_AVERAGE_POOL_2D,
  TFL_OP_CONCATENATION,
  TFL_OP_CONV_2D,
  TFL_OP_DEPTHWISE_CONV_2D,
  TFL_OP_EXP,
  TFL_OP_FULLY_CONNECTED,
  TFL_OP_LOGICAL_AND,
  TFL_OP_LOGISTIC,
  TFL_OP_LSTM,
  TFL_OP_MAX_POOL_2D,
  TFL_OP_MAXIMUM,
  TFL_OP_MINIMUM,
  TFL_OP_MUL,
  TFL_OP_PAD,
  TFL_OP_PADV2,
  TFL_OP_PRELU,
  TFL_OP_RELU,
  TFL_OP_RELU6,
  TFL_OP_RESHAPE,
  TFL_OP_RESIZE_BILINEAR,
  TFL_OP_SOFTMAX,
  TFL_OP_STRIDED_SLICE,
  TFL_OP_SUB,
  TFL_OP_TRANSPOSE_CONV,
  TFL_OP_DEQUANTIZE,
  TFL_OP_QUANTIZE,
  TFL_OP_MEAN,
  TFL_OP_SQUEEZE,
  TFL_OP_HARD_SWISH,
  TFL_OP_DEPTH_TO_SPACE,
  TFL_OP_DENSIFY,
  TFL_OP_TANH,
  TFL_OP_ARG_MAX,
  TFL_OP_RESIZE_NEAREST_NEIGHBOR,
  TFL_OP_DIV,
  /* layout ops */
  TFL_OP_TRANSPOSE,
  TFL_OP_SLICE,
  TFL_OP_SPLIT,
  TFL_OP_SPLIT_V,
  TFL_OP_PACK,
  TFL_OP_UNPACK,
  TFL_OP_TILE,
  TFL_OP_BROADCAST_TO,
  TFL_OP_EXPAND_DIMS,
  TFL_OP_REVERSE_V2,
  TFL_OP_MIRROR_PAD,
  TFL_OP_SPACE_TO_DEPTH,
  TFL_OP_SPACE_TO_BATCH_ND,
  TFL_OP_BATCH_TO_SPACE_ND,
  TFL_OP_REVERSE_SEQUENCE,
  TFL_OP_MATRIX_DIAG,
  TFL_OP_MATRIX_SET_DIAG,
  TFL_OP_DYNAMIC_UPDATE_SLICE,
  /* index ops */
  TFL_OP_GATHER,
  TFL_OP_GATHER_ND,
  TFL_OP_SCATTER_ND,
  TFL_OP_SHAPE,
  TFL_OP_RANK,
  TFL_OP_FILL,
  TFL_OP_ZEROS_LIKE,
  TFL_OP_RANGE,
  TFL_OP_ONE_HOT,
  TFL_OP_CAST,
  TFL_OP_SELECT,
  TFL_OP_SELECT_V2,
  TFL_OP_WHERE,
  TFL_OP_UNIQUE,
  TFL_OP_TOPK_V2,
  TFL_OP_CUMSUM,
  TFL_OP_NON_MAX_SUPPRESSION_V4,
  TFL_OP_NON_MAX_SUPPRESSION_V5,
  TFL_OP_EMBEDDING_LOOKUP,
  TFL_OP_SEGMENT_SUM,
  TFL_OP_UNSORTED_SEGMENT_SUM,
  TFL_OP_UNSORTED_SEGMENT_PROD,
  TFL_OP_UNSORTED_SEGMENT_MAX,
  TFL_OP_UNSORTED_SEGMENT_MIN,
  TFL_OP_BROADCAST_ARGS,
  TFL_OP_SPARSE_TO_DENSE,
  /* eltwise ops */
  TFL_OP_ABS,
  TFL_OP_NEG,
  TFL_OP_SQRT,
  TFL_OP_RSQRT,
  TFL_OP_SQUARE,
  TFL_OP_LOG,
  TFL_OP_SIN,
  TFL_OP_COS,
  TFL_OP_FLOOR,
  TFL_OP_CEIL,
  TFL_OP_ROUND,
  TFL_OP_SIGN,
  TFL_OP_ELU,
  TFL_OP_LEAKY_RELU,
  TFL_OP_RELU_N1_TO_1,
  TFL_OP_RELU_0_TO_1,
  TFL_OP_GELU,
  TFL_OP_LOGICAL_NOT,
  TFL_OP_FAKE_QUANT,
  TFL_OP_POW,
  TFL_OP_SQUARED_DIFFERENCE,
  TFL_OP_FLOOR_DIV,
  TFL_OP_FLOOR_MOD,
  TFL_OP_LESS,
  TFL_OP_LESS_EQUAL,
  TFL_OP_GREATER,
  TFL_OP_GREATER_EQUAL,
  TFL_OP_EQUAL,
  TFL_OP_NOT_EQUAL,
  TFL_OP_LOGICAL_OR,
  TFL_OP_ADD_N,
  TFL_OP_ATAN2,
  TFL_OP_BITWISE_XOR,
  TFL_OP_RIGHT_SHIFT,
  /* reduce ops */
  TFL_OP_SUM,
  TFL_OP_REDUCE_PROD,
  TFL_OP_REDUCE_MAX,
  TFL_OP_REDUCE_MIN,
  TFL_OP_REDUCE_ANY,
  TFL_OP_REDUCE_ALL,
  TFL_OP_ARG_MIN,
  TFL_OP_LOG_SOFTMAX,
  TFL_OP_L2_NORMALIZATION,
  TFL_OP_LOCAL_RESPONSE_NORMALIZATION,
  TFL_OP_L2_POOL_2D,
  /* compute ops */
  TFL_OP_BATCH_MATMUL,
  TFL_OP_CONV_3D,
  TFL_OP_CONV_3D_TRANSPOSE,
  /* spectral and bit ops */
  TFL_OP_RFFT2D,
  TFL_OP_REAL,
  TFL_OP_IMAG,
  TFL_OP_COMPLEX_ABS,
  TFL_OP_BUCKETIZE,
  TFL_OP_BITCAST,
  /* sequence ops */
  TFL_OP_UNIDIRECTIONAL_SEQUENCE_LSTM,
  TFL_OP_BIDIRECTIONAL_SEQUENCE_LSTM,
  TFL_OP_UNIDIRECTIONAL_SEQUENCE_RNN,
  TFL_OP_BIDIRECTIONAL_SEQUENCE_RNN,
  TFL_OP_RNN,
  TFL_OP_SVDF,
  /* control ops */
  TFL_OP_WHILE,
  TFL_OP_IF,
  TFL_OP_CALL_ONCE,
  /* custom ops, matched by name */
  TFL_OP_CONV2D_TRANSPOSE_BIAS,   /* MediaPipe "Convolution2DTransposeBias" */
  TFL_OP_DETECTION_POSTPROCESS,   /* "TFLite_Detection_PostProcess" */
  TFL_OP_POSENET_DECODER,         /* "PosenetDecoderOp" */
  /* internal ops: appended by a decoder (decoders/tfl_decoder.h), never read from a file */
  TFL_OP_ANCHOR_DETECTION,        /* MediaPipe detection heads -> detections (weighted NMS) */
  TFL_OP_SSD_CLASS_NMS,           /* SSD heads -> each class's greedy NMS selections */
  TFL_OP_SSD_DETECTION,           /* those selections -> the best detections over all classes */
  TFL_OP_LANDMARK_DECODE,         /* MediaPipe landmark heads -> one row of decoded values */
  TFL_OP_YOLO_DETECTION,          /* an Ultralytics YOLO head -> the kept boxes (greedy NMS) */
  TFL_OP_COUNT
} tfl_op;

/* Name as TFLite spells it (builtin) or the custom op's name. */
const char *tfl_op_name(tfl_op op);

typedef struct {
  tfl_padding padding;
  int stride_w, stride_h;
  int dilation_w, dilation_h;
  int depth_multiplier;     /* depthwise only */
  tfl_activation act;
} tfl_conv_params;          /* CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, CONV2D_TRANSPOSE_BIAS */

typedef struct {
  tfl_padding padding;
  int stride_w, stride_h;
  int filter_w, filter_h;
  tfl_activation act;
} tfl_pool_params;

typedef struct {
  tfl_activation act;
  bool keep_num_dims;
  bool asymmetric_quantize_inputs;  /* hybrid (int8 weights, float input): per-row zero points */
} tfl_fc_params;

typedef struct { tfl_activation act; } tfl_eltwise_params;   /* ADD SUB MUL DIV */
typedef struct { int axis; tfl_activation act; } tfl_concat_params;
typedef struct { float beta; } tfl_softmax_params;
typedef struct { int n; int32_t shape[TFL_MAX_DIMS]; } tfl_reshape_params; /* n<0: none given */
typedef struct { bool align_corners, half_pixel_centers; } tfl_resize_params;
typedef struct {
  int begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask;
  bool offset;
} tfl_strided_slice_params;
typedef struct { bool keep_dims; } tfl_reducer_params;
typedef struct { int n; int32_t dims[TFL_MAX_DIMS]; } tfl_squeeze_params;
typedef struct { int block_size; } tfl_depth_to_space_params;
typedef struct { tfl_type output_type; } tfl_arg_max_params;
typedef struct {
  tfl_activation act;
  float cell_clip, proj_clip;
  int kernel_type;          /* 0 full, 1 basic (4 inputs) */
  bool asymmetric_quantize_inputs; /* full kernel, hybrid weights */
} tfl_lstm_params;

typedef struct {
  int max_detections;
  int max_classes_per_detection;
  int detections_per_class;
  bool use_regular_nms;
  float nms_score_threshold;
  float nms_iou_threshold;
  int num_classes;
  float y_scale, x_scale, h_scale, w_scale;
} tfl_detection_params;

typedef struct {
  int max_detections;
  float score_threshold;
  int stride;
  float nms_radius;
} tfl_posenet_params;

/* ANCHOR_DETECTION: inputs regressors [B,A,K] (x, y, w, h, then x, y per keypoint,
 * K = 4 + 2 * keypoints, keypoints >= 1), scores [B,A,1] and constant anchors [A,4]
 * (y centre, x centre, h, w; normalized); outputs boxes [B,D,4] (ymin, xmin, ymax, xmax,
 * normalized), keypoints [B,D,K-4] (x, y), scores [B,D] and count [B], D = max_detections,
 * empty slots 0. Arithmetic: postproc/anchor_detect.h. */
typedef struct {
  int max_detections;
  float score_threshold;    /* probability, 0..1 */
  float iou_threshold;
  float y_scale, x_scale, h_scale, w_scale;
  bool prob_scores;         /* scores are probabilities already (else logits) */
} tfl_anchor_detection_params;

/* An SSD without TFLite_Detection_PostProcess, in two internal ops (two GPU dispatches),
 * both with tfl_anchor_detection_params (the decoder's options):
 * SSD_CLASS_NMS: inputs box encodings [B,A,4] (ty, tx, th, tw), class scores [B,A,C]
 * (column 0 the background, skipped) and constant anchors [A,4] (y centre, x centre, h,
 * w); output selections [B,C-1,D,2]: row c-1 holds class c's greedy NMS picks, best
 * first, as (probability, anchor), then (0, -1). SSD_DETECTION: inputs those selections,
 * the box encodings and the anchors; outputs boxes [B,D,4] (ymin, xmin, ymax, xmax,
 * normalized), classes [B,D] (c), scores [B,D] and count [B]: the best D picks over all
 * classes, empty slots 0. D = max_detections. Arithmetic: postproc/ssd_detect.h. */
/* LANDMARK_DECODE: inputs landmarks [B,...] (`points` rows of `stride` floats: x, y in
 * input pixels, ...; with visibility the 4th is a visibility logit), presence [B,...] and
 * optionally handedness [B,...] (one float each per batch item); output [B, 2 + points *
 * (visibility ? 3 : 2)]: presence (through a sigmoid when presence_logit), handedness (0
 * without), then per point x, y and (visibility) the visibility's sigmoid. Arithmetic and
 * the families' layouts: postproc/landmarks.h. */
typedef struct {
  int family;               /* postproc/landmarks.h's pp_lm_family, for the decoder */
  int points, stride;
  bool visibility, presence_logit;
} tfl_landmark_params;

/* YOLO_DETECTION: input an Ultralytics YOLO head [B, boxes, values] (or [B, values, boxes]:
 * values_first) of float32, float16, int8 or uint8 (dequantized); output [B, D, 6 + E]
 * float, D = max_detections: per kept box x1, y1, x2, y2 (input pixels: the head's values
 * times scale_x / scale_y), score, class, then the E = n_extra values from value
 * extra_offset (keypoints of kpt_dim values: x, y scaled as the box, the visibility as it
 * is; kpt_dim 0: carried as they are), best first; rows past the last kept one have score
 * and class -1, the rest 0. Heads (decoders/decode_yolo.c): 0 anchor-free (cx, cy, w, h,
 * n_classes scores), 1 YOLOv5 (cx, cy, w, h, objectness, scores), both thresholded and
 * suppressed as postproc/yolo_detect.h (per class or agnostic); 2 end-to-end (x1, y1, x2,
 * y2, score, class, already suppressed): the rows whose score > threshold and whose box is
 * finite, in order. */
typedef struct {
  int head;                 /* 0 anchor-free, 1 YOLOv5, 2 end-to-end */
  bool values_first;
  bool agnostic;            /* one NMS over all classes */
  int n_classes;
  int n_extra, extra_offset, kpt_dim;
  int max_detections;
  float scale_x, scale_y;
  float threshold, iou_threshold;
} tfl_yolo_detection_params;

typedef struct { int num_splits; } tfl_split_params;                   /* SPLIT, SPLIT_V */
typedef struct { int count, axis; } tfl_pack_params;                     /* PACK (values_count), UNPACK (num) */
typedef struct { int mode; } tfl_mirror_pad_params;                      /* 0 REFLECT, 1 SYMMETRIC */
typedef struct { int seq_dim, batch_dim; } tfl_reverse_seq_params;       /* REVERSE_SEQUENCE */
typedef struct { int axis, batch_dims; } tfl_gather_params;              /* GATHER */
typedef struct { tfl_type out_type; } tfl_shape_params;                  /* SHAPE (INT32 or INT64) */
typedef struct { int axis; } tfl_one_hot_params;                         /* ONE_HOT */
typedef struct { int in_type, out_type; } tfl_cast_params;              /* CAST; -1: not given (use the tensors') */
typedef struct { bool exclusive, reverse; } tfl_cumsum_params;           /* CUMSUM */
typedef struct { float alpha; } tfl_leaky_relu_params;                   /* LEAKY_RELU */
typedef struct { bool approximate; } tfl_gelu_params;                    /* GELU (tanh approximation) */
typedef struct { float min, max; int num_bits; bool narrow_range; } tfl_fake_quant_params;
typedef struct { int radius; float bias, alpha, beta; } tfl_lrn_params;  /* LOCAL_RESPONSE_NORMALIZATION */
typedef struct { bool adj_x, adj_y, asymmetric_quantize_inputs; } tfl_batch_matmul_params;
typedef struct {
  tfl_padding padding;
  int stride_d, stride_h, stride_w;
  int dilation_d, dilation_h, dilation_w;
  tfl_activation act;
} tfl_conv3d_params;                                                     /* CONV_3D, CONV_3D_TRANSPOSE */
/* The sequence ops: UNIDIRECTIONAL_SEQUENCE_LSTM/RNN, BIDIRECTIONAL_SEQUENCE_LSTM/RNN, RNN,
 * SVDF. Fields an op's options lack keep TFLite's defaults. */
typedef struct {
  tfl_activation act;
  float cell_clip, proj_clip;     /* LSTM; 0: no clipping */
  bool time_major;                /* [time, batch, ...] (else [batch, time, ...]) */
  bool merge_outputs;             /* bidirectional: one output of both directions */
  bool asymmetric_quantize_inputs;/* hybrid */
  bool diagonal_recurrent;        /* UNIDIRECTIONAL_SEQUENCE_LSTM */
  int rank;                       /* SVDF */
} tfl_seq_params;
/* BUCKETIZE: `n` ascending float boundaries, little-endian float32s in the model's bytes
 * (a flatbuffer vector, not necessarily 4-aligned: read them with memcpy). */
typedef struct { int n; const uint8_t *boundaries; } tfl_bucketize_params;
/* WHILE (cond, body), IF (then, else), CALL_ONCE (init, -): subgraph indices. */
typedef struct { int a, b; } tfl_subgraph_params;

typedef union {
  tfl_conv_params conv;
  tfl_pool_params pool;
  tfl_fc_params fc;
  tfl_eltwise_params eltwise;
  tfl_concat_params concat;
  tfl_softmax_params softmax;
  tfl_reshape_params reshape;
  tfl_resize_params resize;
  tfl_strided_slice_params slice;
  tfl_reducer_params reducer;
  tfl_squeeze_params squeeze;
  tfl_depth_to_space_params d2s;
  tfl_arg_max_params arg_max;
  tfl_lstm_params lstm;
  tfl_detection_params detection;
  tfl_posenet_params posenet;
  tfl_anchor_detection_params anchor_det;
  tfl_landmark_params landmark;
  tfl_yolo_detection_params yolo_det;
  tfl_split_params split;
  tfl_pack_params pack;
  tfl_mirror_pad_params mirror_pad;
  tfl_reverse_seq_params reverse_seq;
  tfl_gather_params gather;
  tfl_shape_params shape;
  tfl_one_hot_params one_hot;
  tfl_cast_params cast;
  tfl_cumsum_params cumsum;
  tfl_leaky_relu_params leaky_relu;
  tfl_gelu_params gelu;
  tfl_fake_quant_params fake_quant;
  tfl_lrn_params lrn;
  tfl_batch_matmul_params bmm;
  tfl_conv3d_params conv3d;
  tfl_seq_params seq;
  tfl_subgraph_params subgraph;
  tfl_bucketize_params bucketize;
} tfl_params;

typedef struct tfl_node {
  tfl_op op;
  int version;
  int32_t builtin_code;     /* TFLite's op code number, for warnings */
  int n_in, n_out;
  int32_t *in;              /* tensor indices; -1 marks an omitted optional input */
  int32_t *out;
  tfl_params p;
  bool dead;                /* removed by a pass (folded); skipped everywhere */
} tfl_node;

/* Model metadata (TFLite "TFLITE_METADATA"), when present. */
typedef struct {
  char *name;
  char *labels;             /* contents of the associated label file, '\n' separated, or NULL */
  int has_norm;
  float norm_mean[4], norm_std[4];
  int n_norm;
  /* Ultralytics' metadata.json (a zip entry its exporter appends), when present; its
   * class names become `labels` (in index order) when the model has no label file. */
  struct {
    bool present;
    char task[16];          /* "detect", "segment", "pose", "obb", "classify", ... ; "" absent */
    int imgsz[2];           /* input height, width; 0 when absent */
    int stride;             /* the largest stride; 0 when absent */
    int end2end;            /* 1: NMS-free head ([1, 300, 6+]), 0: not, -1: not said */
    int n_names;            /* class names given */
    int kpt_shape[2];       /* pose: keypoints, values per keypoint (2 or 3); 0 when absent */
  } ultralytics;
} tfl_model_meta;

typedef struct tfl_graph {
  int n_tensors;
  tfl_tensor *tensors;
  int n_nodes;
  tfl_node *nodes;
  int n_inputs, n_outputs;
  int32_t *inputs, *outputs;
  tfl_model_meta meta;
  char *description;
  int batch;                /* frames per run: 1 as loaded, or what tfl_pass_set_batch set */
  /* backing storage: the model bytes and graph-owned blocks */
  const uint8_t *model_bytes;
  size_t model_size;
  void *priv;               /* loader's bookkeeping (mmap, owned blocks) */
  /* Control flow: the model's other subgraphs, which WHILE, IF and CALL_ONCE nodes run and
   * name by their index in the model (p.subgraph). The main graph (index 0) owns them:
   * subgraphs[k] for 1 <= k < n_subgraphs (subgraphs[0] is NULL: the main graph itself).
   * Each is a graph of its own (tensors, nodes, inputs, outputs, loaded and validated as
   * the main one) with no subgraphs of its own, `root` the main graph and the main graph's
   * model bytes (borrowed). Look them up with tfl_graph_subgraph from any graph of the model.
   * A model of one subgraph (or a graph built in code): n_subgraphs <= 1, subgraphs NULL. */
  int n_subgraphs;
  struct tfl_graph **subgraphs;
  struct tfl_graph *root;   /* the main graph; NULL for the main graph itself */
  int index;                /* this graph's subgraph index in the model (0: main) */
  /* A subgraph's runner: what the CPU control kernels made to run it (an interpreter on it,
   * which rewrites the graph and points it at its arena, so there is one), shared by every
   * node that runs this subgraph (nodes run one at a time), and how many of them hold it.
   * NULL / 0 until a control node is prepared. */
  void *runner;
  int runner_users;
} tfl_graph;

/* Subgraph `index` of the model `g` belongs to (g the main graph or any of its subgraphs);
 * NULL when out of range, and for index 0 (the main graph never runs as a subgraph). */
tfl_graph *tfl_graph_subgraph(const tfl_graph *g, int index);

/* Element count of a tensor (product of dims; 1 for a scalar). */
size_t tfl_tensor_count(const tfl_tensor *t);
/* Recomputes t->bytes from dims and type. */
void tfl_tensor_update_bytes(tfl_tensor *t);
/* Allocates a block owned by the graph, freed with it (zeroed). NULL on OOM. */
void *tfl_graph_alloc(tfl_graph *g, size_t bytes);
/* Appends a tensor (name copied into a graph block; no data, producer -1) and returns
 * its index, or -1 on OOM. Pointers into g->tensors may move. */
int tfl_graph_add_tensor(tfl_graph *g, const char *name, tfl_type type, int ndim, const int32_t *dims);
/* Appends a live node (in/out copied into graph blocks; the outputs' producer set) and
 * returns its index, or -1 on OOM. Pointers into g->nodes may move. */
int tfl_graph_add_node(tfl_graph *g, tfl_op op, const int32_t *in, int n_in, const int32_t *out, int n_out,
                       const tfl_params *p);
/* Frees the graph and everything it owns. NULL is fine. g->tensors, nodes, inputs,
 * outputs, description and the meta strings are malloc'd (a pass may realloc them);
 * what a tensor or node points to (names, quantization, sparsity, in/out arrays)
 * lives in graph blocks (tfl_graph_alloc). */
void tfl_graph_free(tfl_graph *g);

#endif
