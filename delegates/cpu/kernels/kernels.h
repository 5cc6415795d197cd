/* kernels.h - the reference kernel of every op, one `cpu_kernel` per op.
 * Each is defined in the kernel file named in the comment. */
#ifndef CPU_KERNELS_H
#define CPU_KERNELS_H

#include "../cpu_kernel.h"

extern const cpu_kernel cpu_k_conv_2d;                /* conv.c */
extern const cpu_kernel cpu_k_depthwise_conv_2d;      /* depthwise_conv.c */
extern const cpu_kernel cpu_k_transpose_conv;         /* transpose_conv.c */
extern const cpu_kernel cpu_k_conv2d_transpose_bias;  /* transpose_conv.c */
extern const cpu_kernel cpu_k_fully_connected;        /* fully_connected.c */
extern const cpu_kernel cpu_k_average_pool_2d;        /* pooling.c */
extern const cpu_kernel cpu_k_max_pool_2d;            /* pooling.c */
extern const cpu_kernel cpu_k_lstm;                   /* lstm.c */

extern const cpu_kernel cpu_k_add;                    /* elementwise.c */
extern const cpu_kernel cpu_k_sub;
extern const cpu_kernel cpu_k_mul;
extern const cpu_kernel cpu_k_div;
extern const cpu_kernel cpu_k_maximum;
extern const cpu_kernel cpu_k_minimum;
extern const cpu_kernel cpu_k_logical_and;
extern const cpu_kernel cpu_k_relu;                   /* activations.c */
extern const cpu_kernel cpu_k_relu6;
extern const cpu_kernel cpu_k_logistic;
extern const cpu_kernel cpu_k_tanh;
extern const cpu_kernel cpu_k_exp;
extern const cpu_kernel cpu_k_hard_swish;
extern const cpu_kernel cpu_k_prelu;
extern const cpu_kernel cpu_k_concatenation;          /* concat.c */
extern const cpu_kernel cpu_k_reshape;                /* reshape.c */
extern const cpu_kernel cpu_k_squeeze;                /* reshape.c */
extern const cpu_kernel cpu_k_pad;                    /* pad.c */
extern const cpu_kernel cpu_k_padv2;                  /* pad.c */
extern const cpu_kernel cpu_k_resize_bilinear;        /* resize.c */
extern const cpu_kernel cpu_k_resize_nearest_neighbor;/* resize.c */
extern const cpu_kernel cpu_k_softmax;                /* softmax.c */
extern const cpu_kernel cpu_k_strided_slice;          /* strided_slice.c */
extern const cpu_kernel cpu_k_quantize;               /* quantize.c */
extern const cpu_kernel cpu_k_dequantize;             /* quantize.c */
extern const cpu_kernel cpu_k_mean;                   /* mean.c */
extern const cpu_kernel cpu_k_depth_to_space;         /* depth_to_space.c */
extern const cpu_kernel cpu_k_arg_max;                /* arg_max.c */

extern const cpu_kernel cpu_k_densify;                /* densify.c */
extern const cpu_kernel cpu_k_detection_postprocess;  /* detection_postprocess.c */
extern const cpu_kernel cpu_k_posenet_decoder;        /* posenet_decoder.c */
extern const cpu_kernel cpu_k_anchor_detection;       /* anchor_detection.c (internal op) */
extern const cpu_kernel cpu_k_ssd_class_nms;          /* ssd_detection.c (internal op) */
extern const cpu_kernel cpu_k_ssd_detection;          /* ssd_detection.c (internal op) */
extern const cpu_kernel cpu_k_landmark_decode;        /* landmark_decode.c (internal op) */
extern const cpu_kernel cpu_k_yolo_detection;         /* yolo_detection.c (internal op) */

/* layout ops: kernels/layout_ops.c */
extern const cpu_kernel cpu_k_transpose;
extern const cpu_kernel cpu_k_slice;
extern const cpu_kernel cpu_k_split;
extern const cpu_kernel cpu_k_split_v;
extern const cpu_kernel cpu_k_pack;
extern const cpu_kernel cpu_k_unpack;
extern const cpu_kernel cpu_k_tile;
extern const cpu_kernel cpu_k_broadcast_to;
extern const cpu_kernel cpu_k_expand_dims;
extern const cpu_kernel cpu_k_reverse_v2;
extern const cpu_kernel cpu_k_mirror_pad;
extern const cpu_kernel cpu_k_space_to_depth;
extern const cpu_kernel cpu_k_space_to_batch_nd;
extern const cpu_kernel cpu_k_batch_to_space_nd;
extern const cpu_kernel cpu_k_reverse_sequence;
extern const cpu_kernel cpu_k_matrix_diag;
extern const cpu_kernel cpu_k_matrix_set_diag;
extern const cpu_kernel cpu_k_dynamic_update_slice;

/* index ops: kernels/index_ops.c */
extern const cpu_kernel cpu_k_gather;
extern const cpu_kernel cpu_k_gather_nd;
extern const cpu_kernel cpu_k_scatter_nd;
extern const cpu_kernel cpu_k_shape;
extern const cpu_kernel cpu_k_rank;
extern const cpu_kernel cpu_k_fill;
extern const cpu_kernel cpu_k_zeros_like;
extern const cpu_kernel cpu_k_range;
extern const cpu_kernel cpu_k_one_hot;
extern const cpu_kernel cpu_k_cast;
extern const cpu_kernel cpu_k_select;
extern const cpu_kernel cpu_k_select_v2;
extern const cpu_kernel cpu_k_where;
extern const cpu_kernel cpu_k_unique;                 /* unique.c */
extern const cpu_kernel cpu_k_topk_v2;
extern const cpu_kernel cpu_k_cumsum;
extern const cpu_kernel cpu_k_non_max_suppression_v4;
extern const cpu_kernel cpu_k_non_max_suppression_v5;
extern const cpu_kernel cpu_k_embedding_lookup;
extern const cpu_kernel cpu_k_segment_sum;
extern const cpu_kernel cpu_k_unsorted_segment_sum;
extern const cpu_kernel cpu_k_unsorted_segment_prod;
extern const cpu_kernel cpu_k_unsorted_segment_max;
extern const cpu_kernel cpu_k_unsorted_segment_min;
extern const cpu_kernel cpu_k_broadcast_args;
extern const cpu_kernel cpu_k_sparse_to_dense;

/* eltwise ops: kernels/eltwise_ops.c */
extern const cpu_kernel cpu_k_abs;
extern const cpu_kernel cpu_k_neg;
extern const cpu_kernel cpu_k_sqrt;
extern const cpu_kernel cpu_k_rsqrt;
extern const cpu_kernel cpu_k_square;
extern const cpu_kernel cpu_k_log;
extern const cpu_kernel cpu_k_sin;
extern const cpu_kernel cpu_k_cos;
extern const cpu_kernel cpu_k_floor;
extern const cpu_kernel cpu_k_ceil;
extern const cpu_kernel cpu_k_round;
extern const cpu_kernel cpu_k_sign;
extern const cpu_kernel cpu_k_elu;
extern const cpu_kernel cpu_k_leaky_relu;
extern const cpu_kernel cpu_k_relu_n1_to_1;
extern const cpu_kernel cpu_k_relu_0_to_1;
extern const cpu_kernel cpu_k_gelu;
extern const cpu_kernel cpu_k_logical_not;
extern const cpu_kernel cpu_k_fake_quant;
extern const cpu_kernel cpu_k_pow;
extern const cpu_kernel cpu_k_squared_difference;
extern const cpu_kernel cpu_k_floor_div;
extern const cpu_kernel cpu_k_floor_mod;
extern const cpu_kernel cpu_k_less;
extern const cpu_kernel cpu_k_less_equal;
extern const cpu_kernel cpu_k_greater;
extern const cpu_kernel cpu_k_greater_equal;
extern const cpu_kernel cpu_k_equal;
extern const cpu_kernel cpu_k_not_equal;
extern const cpu_kernel cpu_k_logical_or;
extern const cpu_kernel cpu_k_add_n;
extern const cpu_kernel cpu_k_atan2;
extern const cpu_kernel cpu_k_bitwise_xor;
extern const cpu_kernel cpu_k_right_shift;

/* reduce ops: kernels/reduce_ops.c */
extern const cpu_kernel cpu_k_sum;
extern const cpu_kernel cpu_k_reduce_prod;
extern const cpu_kernel cpu_k_reduce_max;
extern const cpu_kernel cpu_k_reduce_min;
extern const cpu_kernel cpu_k_reduce_any;
extern const cpu_kernel cpu_k_reduce_all;
extern const cpu_kernel cpu_k_arg_min;
extern const cpu_kernel cpu_k_log_softmax;
extern const cpu_kernel cpu_k_l2_normalization;
extern const cpu_kernel cpu_k_local_response_normalization;
extern const cpu_kernel cpu_k_l2_pool_2d;

/* compute ops: kernels/compute_bmm.c, kernels/compute_conv3d.c */
extern const cpu_kernel cpu_k_batch_matmul;
extern const cpu_kernel cpu_k_conv_3d;
extern const cpu_kernel cpu_k_conv_3d_transpose;

/* spectral ops: kernels/spectral_ops.c; bit ops: kernels/bit_ops.c */
extern const cpu_kernel cpu_k_rfft2d;
extern const cpu_kernel cpu_k_real;
extern const cpu_kernel cpu_k_imag;
extern const cpu_kernel cpu_k_complex_abs;
extern const cpu_kernel cpu_k_bucketize;
extern const cpu_kernel cpu_k_bitcast;

/* sequence ops: kernels/sequence_ops.c */
extern const cpu_kernel cpu_k_unidirectional_sequence_lstm;
extern const cpu_kernel cpu_k_bidirectional_sequence_lstm;
extern const cpu_kernel cpu_k_unidirectional_sequence_rnn;
extern const cpu_kernel cpu_k_bidirectional_sequence_rnn;
extern const cpu_kernel cpu_k_rnn;
extern const cpu_kernel cpu_k_svdf;

/* control ops: kernels/control_ops.c */
extern const cpu_kernel cpu_k_while;
extern const cpu_kernel cpu_k_if;
extern const cpu_kernel cpu_k_call_once;

/* A prepared QUANTIZE's 8-bit -> 8-bit table, indexed by the stored input byte (fast
 * kernels run the same lookup); false for a QUANTIZE from float. quantize.c */
bool cpu_quantize_table(const void *state, uint8_t table[256]);

#endif
