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

/* A prepared QUANTIZE's 8-bit -> 8-bit table, indexed by the stored input byte (fast
 * kernels run the same lookup); false for a QUANTIZE from float. quantize.c */
bool cpu_quantize_table(const void *state, uint8_t table[256]);

#endif
