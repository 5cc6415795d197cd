/* test_gl_ops.c - every GL op generator against the CPU reference kernel, on small
 * one-node graphs with odd channel counts (1, 3, 5, 7), strides and paddings, in fp32
 * (tolerance 1e-4 of the output's magnitude) and fp16 (1e-2); an overflowed sum saturated
 * as TFLite does (saturation_cases). Runs on llvmpipe. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_test_util.h"
#include "tests/gl_profile_env.h"

typedef void (*case_fn)(op_runner *r, unsigned *seed);

static int tensor_rand(op_runner *r, unsigned *seed, int ndim, const int32_t *dims, bool is_const, float lo, float hi)
{
  size_t n = 1;
  for (int d = 0; d < ndim; d++) n *= (size_t)dims[d];
  float *v = malloc(n * sizeof(float) + 4);
  glt_fill(v, n, lo, hi, seed);
  int t = op_runner_tensor(r, TFL_TYPE_FLOAT32, ndim, dims, v, is_const);
  free(v);
  return t;
}

#define DIMS(...) (sizeof((int32_t[]){__VA_ARGS__}) / sizeof(int32_t)), (const int32_t[]){__VA_ARGS__}
#define OUT(r, ...) op_runner_tensor(r, TFL_TYPE_FLOAT32, DIMS(__VA_ARGS__), NULL, false)

static void conv_case(op_runner *r, unsigned *seed, int h, int w, int ci, int co, int k, int stride, int dil,
                      tfl_padding pad, tfl_activation act)
{
  op_runner_init(r, TFL_OP_CONV_2D);
  int x = tensor_rand(r, seed, DIMS(1, h, w, ci), false, -1, 1);
  int wt = tensor_rand(r, seed, DIMS(co, k, k, ci), true, -1, 1);
  int b = tensor_rand(r, seed, DIMS(co), true, -1, 1);
  int eff = (k - 1) * dil + 1;
  int oh = pad == TFL_PAD_SAME ? (h + stride - 1) / stride : (h - eff + stride) / stride;
  int ow = pad == TFL_PAD_SAME ? (w + stride - 1) / stride : (w - eff + stride) / stride;
  int y = OUT(r, 1, oh, ow, co);
  op_runner_io(r, (int[]){x, wt, b}, 3, (int[]){y}, 1);
  r->node.p.conv = (tfl_conv_params){pad, stride, stride, dil, dil, 0, act};
}
static void c_conv3x3(op_runner *r, unsigned *s) { conv_case(r, s, 5, 7, 3, 5, 3, 1, 1, TFL_PAD_SAME, TFL_ACT_RELU); }
static void c_conv1x1(op_runner *r, unsigned *s) { conv_case(r, s, 4, 3, 7, 5, 1, 1, 1, TFL_PAD_VALID, TFL_ACT_NONE); }
static void c_conv_s2(op_runner *r, unsigned *s) { conv_case(r, s, 7, 6, 5, 3, 3, 2, 1, TFL_PAD_VALID, TFL_ACT_RELU6); }
static void c_conv_s2same(op_runner *r, unsigned *s) { conv_case(r, s, 8, 7, 4, 9, 3, 2, 1, TFL_PAD_SAME, TFL_ACT_NONE); }
static void c_conv_dil(op_runner *r, unsigned *s) { conv_case(r, s, 6, 6, 1, 4, 3, 1, 2, TFL_PAD_SAME, TFL_ACT_NONE); }

static void dw_case(op_runner *r, unsigned *seed, int h, int w, int ci, int mult, int k, int stride, tfl_padding pad,
                    tfl_activation act)
{
  op_runner_init(r, TFL_OP_DEPTHWISE_CONV_2D);
  int co = ci * mult;
  int x = tensor_rand(r, seed, DIMS(1, h, w, ci), false, -1, 1);
  int wt = tensor_rand(r, seed, DIMS(1, k, k, co), true, -1, 1);
  int b = tensor_rand(r, seed, DIMS(co), true, -1, 1);
  int oh = pad == TFL_PAD_SAME ? (h + stride - 1) / stride : (h - k + stride) / stride;
  int ow = pad == TFL_PAD_SAME ? (w + stride - 1) / stride : (w - k + stride) / stride;
  int y = OUT(r, 1, oh, ow, co);
  op_runner_io(r, (int[]){x, wt, b}, 3, (int[]){y}, 1);
  r->node.p.conv = (tfl_conv_params){pad, stride, stride, 1, 1, mult, act};
}
static void c_dw(op_runner *r, unsigned *s) { dw_case(r, s, 5, 5, 7, 1, 3, 1, TFL_PAD_SAME, TFL_ACT_RELU6); }
static void c_dw_mult(op_runner *r, unsigned *s) { dw_case(r, s, 7, 7, 3, 2, 3, 2, TFL_PAD_SAME, TFL_ACT_NONE); }
static void c_dw_valid(op_runner *r, unsigned *s) { dw_case(r, s, 6, 9, 5, 1, 5, 2, TFL_PAD_VALID, TFL_ACT_RELU); }

static void binary_case(op_runner *r, unsigned *seed, tfl_op op, bool bconst, int bdims, tfl_activation act)
{
  op_runner_init(r, op);
  int a = tensor_rand(r, seed, DIMS(1, 3, 4, 5), false, -2, 2);
  int b;
  float lo = op == TFL_OP_DIV ? 0.5f : -2.0f;
  if (bdims == 1) b = tensor_rand(r, seed, DIMS(5), bconst, lo, 2);
  else if (bdims == 0) b = tensor_rand(r, seed, DIMS(1), bconst, lo, 2);
  else b = tensor_rand(r, seed, DIMS(1, 3, 4, 5), bconst, lo, 2);
  int y = OUT(r, 1, 3, 4, 5);
  op_runner_io(r, (int[]){a, b}, 2, (int[]){y}, 1);
  r->node.p.eltwise.act = act;
}
static void c_add(op_runner *r, unsigned *s) { binary_case(r, s, TFL_OP_ADD, false, 4, TFL_ACT_RELU); }
static void c_add_bc(op_runner *r, unsigned *s) { binary_case(r, s, TFL_OP_ADD, true, 1, TFL_ACT_NONE); }
static void c_sub(op_runner *r, unsigned *s) { binary_case(r, s, TFL_OP_SUB, false, 4, TFL_ACT_NONE); }
static void c_mul_scalar(op_runner *r, unsigned *s) { binary_case(r, s, TFL_OP_MUL, true, 0, TFL_ACT_RELU6); }
static void c_div(op_runner *r, unsigned *s) { binary_case(r, s, TFL_OP_DIV, false, 1, TFL_ACT_NONE); }
static void c_max(op_runner *r, unsigned *s) { binary_case(r, s, TFL_OP_MAXIMUM, false, 4, TFL_ACT_NONE); }
static void c_min(op_runner *r, unsigned *s) { binary_case(r, s, TFL_OP_MINIMUM, true, 1, TFL_ACT_NONE); }
static void c_prelu(op_runner *r, unsigned *s)
{
  op_runner_init(r, TFL_OP_PRELU);
  int a = tensor_rand(r, s, DIMS(1, 3, 4, 5), false, -2, 2);
  int b = tensor_rand(r, s, DIMS(1, 1, 5), true, 0, 1);
  int y = OUT(r, 1, 3, 4, 5);
  op_runner_io(r, (int[]){a, b}, 2, (int[]){y}, 1);
}

static void unary_case(op_runner *r, unsigned *seed, tfl_op op)
{
  op_runner_init(r, op);
  int a = tensor_rand(r, seed, DIMS(1, 3, 2, 7), false, -8, 8);
  int y = OUT(r, 1, 3, 2, 7);
  op_runner_io(r, (int[]){a}, 1, (int[]){y}, 1);
}
static void c_relu(op_runner *r, unsigned *s) { unary_case(r, s, TFL_OP_RELU); }
static void c_relu6(op_runner *r, unsigned *s) { unary_case(r, s, TFL_OP_RELU6); }
static void c_logistic(op_runner *r, unsigned *s) { unary_case(r, s, TFL_OP_LOGISTIC); }
static void c_tanh(op_runner *r, unsigned *s) { unary_case(r, s, TFL_OP_TANH); }
static void c_hswish(op_runner *r, unsigned *s) { unary_case(r, s, TFL_OP_HARD_SWISH); }
static void c_exp(op_runner *r, unsigned *s)
{
  op_runner_init(r, TFL_OP_EXP);
  int a = tensor_rand(r, s, DIMS(1, 2, 3, 5), false, -3, 3);
  int y = OUT(r, 1, 2, 3, 5);
  op_runner_io(r, (int[]){a}, 1, (int[]){y}, 1);
}

static void pool_case(op_runner *r, unsigned *seed, tfl_op op, int k, int stride, tfl_padding pad)
{
  op_runner_init(r, op);
  int h = 7, w = 6, c = 5;
  int x = tensor_rand(r, seed, DIMS(1, h, w, c), false, -2, 2);
  int oh = pad == TFL_PAD_SAME ? (h + stride - 1) / stride : (h - k + stride) / stride;
  int ow = pad == TFL_PAD_SAME ? (w + stride - 1) / stride : (w - k + stride) / stride;
  int y = OUT(r, 1, oh, ow, c);
  op_runner_io(r, (int[]){x}, 1, (int[]){y}, 1);
  r->node.p.pool = (tfl_pool_params){pad, stride, stride, k, k, TFL_ACT_NONE};
}
static void c_avgpool(op_runner *r, unsigned *s) { pool_case(r, s, TFL_OP_AVERAGE_POOL_2D, 3, 2, TFL_PAD_SAME); }
static void c_maxpool(op_runner *r, unsigned *s) { pool_case(r, s, TFL_OP_MAX_POOL_2D, 2, 2, TFL_PAD_VALID); }
static void c_avgpool_valid(op_runner *r, unsigned *s) { pool_case(r, s, TFL_OP_AVERAGE_POOL_2D, 3, 1, TFL_PAD_VALID); }

/* a window over the whole input: the workgroup-reduction path (more pixels than its 128
 * invocations, odd channels, fused RELU6) */
static void c_avgpool_global(op_runner *r, unsigned *s)
{
  op_runner_init(r, TFL_OP_AVERAGE_POOL_2D);
  int x = tensor_rand(r, s, DIMS(2, 13, 11, 7), false, -1, 9);
  int y = OUT(r, 2, 1, 1, 7);
  op_runner_io(r, (int[]){x}, 1, (int[]){y}, 1);
  r->node.p.pool = (tfl_pool_params){TFL_PAD_VALID, 1, 1, 11, 13, TFL_ACT_RELU6};
}

/* bool tensors: an activation AND a constant broadcast along height (odd channels) */
static int tensor_bool(op_runner *r, unsigned *seed, int ndim, const int32_t *dims, bool is_const)
{
  size_t n = 1;
  for (int d = 0; d < ndim; d++) n *= (size_t)dims[d];
  uint8_t *v = malloc(n + 1);
  for (size_t i = 0; i < n; i++) {
    *seed = *seed * 1103515245u + 12345u;
    v[i] = (*seed >> 16) & 1;
  }
  int t = op_runner_tensor(r, TFL_TYPE_BOOL, ndim, dims, v, is_const);
  free(v);
  return t;
}

static void c_logical_and(op_runner *r, unsigned *s)
{
  op_runner_init(r, TFL_OP_LOGICAL_AND);
  int a = tensor_bool(r, s, DIMS(1, 3, 4, 5), false);
  int b = tensor_bool(r, s, DIMS(1, 1, 4, 5), true);
  int y = op_runner_tensor(r, TFL_TYPE_BOOL, DIMS(1, 3, 4, 5), NULL, false);
  op_runner_io(r, (int[]){a, b}, 2, (int[]){y}, 1);
}

static void c_concat_c(op_runner *r, unsigned *s)
{
  op_runner_init(r, TFL_OP_CONCATENATION);
  int a = tensor_rand(r, s, DIMS(1, 3, 3, 3), false, -1, 1);
  int b = tensor_rand(r, s, DIMS(1, 3, 3, 5), false, -1, 1);
  int c = tensor_rand(r, s, DIMS(1, 3, 3, 1), true, -1, 1);
  int y = OUT(r, 1, 3, 3, 9);
  op_runner_io(r, (int[]){a, b, c}, 3, (int[]){y}, 1);
  r->node.p.concat.axis = 3;
}
static void c_concat_aligned(op_runner *r, unsigned *s)
{
  op_runner_init(r, TFL_OP_CONCATENATION);
  int a = tensor_rand(r, s, DIMS(1, 2, 3, 4), false, -1, 1);
  int b = tensor_rand(r, s, DIMS(1, 2, 3, 6), false, -1, 1);
  int y = OUT(r, 1, 2, 3, 10);
  op_runner_io(r, (int[]){a, b}, 2, (int[]){y}, 1);
  r->node.p.concat.axis = -1;
}
static void c_concat_w(op_runner *r, unsigned *s)
{
  op_runner_init(r, TFL_OP_CONCATENATION);
  int a = tensor_rand(r, s, DIMS(1, 7, 3), false, -1, 1);
  int b = tensor_rand(r, s, DIMS(1, 5, 3), false, -1, 1);
  int y = OUT(r, 1, 12, 3);
  op_runner_io(r, (int[]){a, b}, 2, (int[]){y}, 1);
  r->node.p.concat.axis = 1;
}

static void c_reshape(op_runner *r, unsigned *s)
{
  op_runner_init(r, TFL_OP_RESHAPE);
  int a = tensor_rand(r, s, DIMS(1, 2, 3, 6), false, -1, 1);
  int sh = op_runner_tensor(r, TFL_TYPE_INT32, DIMS(3), (const int32_t[]){1, 9, 4}, true);
  int y = OUT(r, 1, 9, 4);
  op_runner_io(r, (int[]){a, sh}, 2, (int[]){y}, 1);
  r->node.p.reshape.n = 3;
  memcpy(r->node.p.reshape.shape, (int32_t[]){1, 9, 4}, 3 * sizeof(int32_t));
}

/* MoveNet's first op: its uint8 picture (no quantization) cast to float */
static void cast_case(op_runner *r, unsigned *seed, tfl_type type)
{
  op_runner_init(r, TFL_OP_CAST);
  uint8_t v[3 * 5 * 7];
  for (size_t i = 0; i < sizeof v; i++) v[i] = (uint8_t)(rand_r(seed) & 0xff);
  int a = op_runner_tensor(r, type, DIMS(1, 3, 5, 7), v, false);
  int y = OUT(r, 1, 3, 5, 7);
  op_runner_io(r, (int[]){a}, 1, (int[]){y}, 1);
}
static void c_cast_u8(op_runner *r, unsigned *s) { cast_case(r, s, TFL_TYPE_UINT8); }
static void c_cast_i8(op_runner *r, unsigned *s) { cast_case(r, s, TFL_TYPE_INT8); }

static void resize_case(op_runner *r, unsigned *seed, tfl_op op, bool align, bool hpc)
{
  op_runner_init(r, op);
  int a = tensor_rand(r, seed, DIMS(1, 3, 4, 5), false, -1, 1);
  int sz = op_runner_tensor(r, TFL_TYPE_INT32, DIMS(2), (const int32_t[]){7, 9}, true);
  int y = OUT(r, 1, 7, 9, 5);
  op_runner_io(r, (int[]){a, sz}, 2, (int[]){y}, 1);
  r->node.p.resize = (tfl_resize_params){align, hpc};
}
static void c_resize(op_runner *r, unsigned *s) { resize_case(r, s, TFL_OP_RESIZE_BILINEAR, false, false); }
static void c_resize_ac(op_runner *r, unsigned *s) { resize_case(r, s, TFL_OP_RESIZE_BILINEAR, true, false); }
static void c_resize_hpc(op_runner *r, unsigned *s) { resize_case(r, s, TFL_OP_RESIZE_BILINEAR, false, true); }
static void c_resize_nn(op_runner *r, unsigned *s) { resize_case(r, s, TFL_OP_RESIZE_NEAREST_NEIGHBOR, false, true); }

static void c_pad(op_runner *r, unsigned *s)
{
  op_runner_init(r, TFL_OP_PAD);
  int a = tensor_rand(r, s, DIMS(1, 3, 3, 5), false, -1, 1);
  int p = op_runner_tensor(r, TFL_TYPE_INT32, DIMS(4, 2), (const int32_t[]){0, 0, 1, 2, 2, 1, 0, 0}, true);
  int y = OUT(r, 1, 6, 6, 5);
  op_runner_io(r, (int[]){a, p}, 2, (int[]){y}, 1);
}
static void c_pad_ch(op_runner *r, unsigned *s)
{
  op_runner_init(r, TFL_OP_PAD);
  int a = tensor_rand(r, s, DIMS(1, 2, 3, 3), false, -1, 1);
  int p = op_runner_tensor(r, TFL_TYPE_INT32, DIMS(4, 2), (const int32_t[]){0, 0, 0, 1, 1, 0, 2, 3}, true);
  int y = OUT(r, 1, 3, 4, 8);
  op_runner_io(r, (int[]){a, p}, 2, (int[]){y}, 1);
}

static void c_pad_ch_post(op_runner *r, unsigned *s)
{
  op_runner_init(r, TFL_OP_PAD);
  int a = tensor_rand(r, s, DIMS(1, 2, 3, 8), false, -1, 1);
  int p = op_runner_tensor(r, TFL_TYPE_INT32, DIMS(4, 2), (const int32_t[]){0, 0, 0, 0, 0, 0, 0, 5}, true);
  int y = OUT(r, 1, 2, 3, 13);
  op_runner_io(r, (int[]){a, p}, 2, (int[]){y}, 1);
}
static void c_pad_ch_post_odd(op_runner *r, unsigned *s)
{
  op_runner_init(r, TFL_OP_PAD);
  int a = tensor_rand(r, s, DIMS(1, 2, 3, 5), false, -1, 1);
  int p = op_runner_tensor(r, TFL_TYPE_INT32, DIMS(4, 2), (const int32_t[]){0, 0, 0, 0, 0, 0, 0, 4}, true);
  int y = OUT(r, 1, 2, 3, 9);
  op_runner_io(r, (int[]){a, p}, 2, (int[]){y}, 1);
}

static void c_softmax(op_runner *r, unsigned *s)
{
  op_runner_init(r, TFL_OP_SOFTMAX);
  int a = tensor_rand(r, s, DIMS(1, 2, 3, 7), false, -4, 4);
  int y = OUT(r, 1, 2, 3, 7);
  op_runner_io(r, (int[]){a}, 1, (int[]){y}, 1);
  r->node.p.softmax.beta = 0.7f;
}
static void c_softmax_2d(op_runner *r, unsigned *s)
{
  op_runner_init(r, TFL_OP_SOFTMAX);
  int a = tensor_rand(r, s, DIMS(2, 13), false, -4, 4);
  int y = OUT(r, 2, 13);
  op_runner_io(r, (int[]){a}, 1, (int[]){y}, 1);
  r->node.p.softmax.beta = 1.0f;
}

static void c_fc(op_runner *r, unsigned *s)
{
  op_runner_init(r, TFL_OP_FULLY_CONNECTED);
  int a = tensor_rand(r, s, DIMS(2, 7), false, -1, 1);
  int w = tensor_rand(r, s, DIMS(5, 7), true, -1, 1);
  int b = tensor_rand(r, s, DIMS(5), true, -1, 1);
  int y = OUT(r, 2, 5);
  op_runner_io(r, (int[]){a, w, b}, 3, (int[]){y}, 1);
  r->node.p.fc.act = TFL_ACT_RELU;
}

static void c_mean(op_runner *r, unsigned *s)
{
  op_runner_init(r, TFL_OP_MEAN);
  int a = tensor_rand(r, s, DIMS(1, 5, 6, 7), false, -1, 1);
  int ax = op_runner_tensor(r, TFL_TYPE_INT32, DIMS(2), (const int32_t[]){1, 2}, true);
  int y = OUT(r, 1, 1, 1, 7);
  op_runner_io(r, (int[]){a, ax}, 2, (int[]){y}, 1);
  r->node.p.reducer.keep_dims = true;
}

/* A reduction over constant axes (gl_gen_reduce.c), inputs in [lo, hi]. */
static void reduce_case(op_runner *r, unsigned *s, tfl_op op, int ndim, const int32_t *dims, int n_axes,
                        const int32_t *axes, bool keep, int out_ndim, const int32_t *out_dims, float lo, float hi)
{
  op_runner_init(r, op);
  int a = tensor_rand(r, s, ndim, dims, false, lo, hi);
  int ax = op_runner_tensor(r, TFL_TYPE_INT32, 1, (const int32_t[]){n_axes}, axes, true);
  int y = op_runner_tensor(r, TFL_TYPE_FLOAT32, out_ndim, out_dims, NULL, false);
  op_runner_io(r, (int[]){a, ax}, 2, (int[]){y}, 1);
  r->node.p.reducer.keep_dims = keep;
}
#define AXES(...) (int)(sizeof((int32_t[]){__VA_ARGS__}) / sizeof(int32_t)), (const int32_t[]){__VA_ARGS__}
static void c_sum_last(op_runner *r, unsigned *s)
{
  reduce_case(r, s, TFL_OP_SUM, DIMS(3, 5, 7), AXES(-1), false, DIMS(3, 5), -1, 1);
}
static void c_sum_batch(op_runner *r, unsigned *s)
{
  reduce_case(r, s, TFL_OP_SUM, DIMS(4, 3, 2, 5), AXES(0), true, DIMS(1, 3, 2, 5), -1, 1);
}
static void c_mean_channels(op_runner *r, unsigned *s)
{
  reduce_case(r, s, TFL_OP_MEAN, DIMS(2, 6, 13), AXES(2), true, DIMS(2, 6, 1), -1, 1);
}
static void c_mean_hc(op_runner *r, unsigned *s)
{
  reduce_case(r, s, TFL_OP_MEAN, DIMS(2, 4, 3, 6), AXES(1, 3), true, DIMS(2, 1, 3, 1), -1, 1);
}
static void c_max_last(op_runner *r, unsigned *s)
{
  reduce_case(r, s, TFL_OP_REDUCE_MAX, DIMS(5, 11), AXES(1), true, DIMS(5, 1), -1, 1);
}
static void c_max_b_w(op_runner *r, unsigned *s)
{
  reduce_case(r, s, TFL_OP_REDUCE_MAX, DIMS(3, 2, 5, 6), AXES(0, 2), false, DIMS(2, 6), -1, 1);
}
static void c_min_wc(op_runner *r, unsigned *s)
{
  reduce_case(r, s, TFL_OP_REDUCE_MIN, DIMS(2, 3, 6, 5), AXES(2, 3), false, DIMS(2, 3), -1, 1);
}
static void c_prod_all(op_runner *r, unsigned *s)
{
  reduce_case(r, s, TFL_OP_REDUCE_PROD, DIMS(2, 3, 5), AXES(0, 1, 2), true, DIMS(1, 1, 1), 0.6f, 1.4f);
}
static void c_log_softmax(op_runner *r, unsigned *s)
{
  op_runner_init(r, TFL_OP_LOG_SOFTMAX);
  int a = tensor_rand(r, s, DIMS(3, 4, 9), false, -4, 4);
  int y = OUT(r, 3, 4, 9);
  op_runner_io(r, (int[]){a}, 1, (int[]){y}, 1);
}
static void c_softmax_3d(op_runner *r, unsigned *s)
{
  op_runner_init(r, TFL_OP_SOFTMAX);
  int a = tensor_rand(r, s, DIMS(2, 7, 13), false, -4, 4);
  int y = OUT(r, 2, 7, 13);
  op_runner_io(r, (int[]){a}, 1, (int[]){y}, 1);
  r->node.p.softmax.beta = 1.0f;
}
static void c_l2norm(op_runner *r, unsigned *s)
{
  op_runner_init(r, TFL_OP_L2_NORMALIZATION);
  int a = tensor_rand(r, s, DIMS(2, 5, 11), false, -2, 2);
  int y = OUT(r, 2, 5, 11);
  op_runner_io(r, (int[]){a}, 1, (int[]){y}, 1);
}
static void c_lrn(op_runner *r, unsigned *s)
{
  op_runner_init(r, TFL_OP_LOCAL_RESPONSE_NORMALIZATION);
  int a = tensor_rand(r, s, DIMS(1, 3, 4, 9), false, -2, 2);
  int y = OUT(r, 1, 3, 4, 9);
  op_runner_io(r, (int[]){a}, 1, (int[]){y}, 1);
  r->node.p.lrn = (tfl_lrn_params){2, 1.0f, 0.3f, 0.75f};
}
static void c_l2pool(op_runner *r, unsigned *s)
{
  op_runner_init(r, TFL_OP_L2_POOL_2D);
  int a = tensor_rand(r, s, DIMS(1, 7, 6, 5), false, -1, 1);
  int y = OUT(r, 1, 4, 3, 5);
  op_runner_io(r, (int[]){a}, 1, (int[]){y}, 1);
  r->node.p.pool = (tfl_pool_params){TFL_PAD_SAME, 2, 2, 3, 3, TFL_ACT_RELU6};
}
/* TFLite leaves CONCATENATION's fused activation unapplied: so must GL */
static void c_concat_relu(op_runner *r, unsigned *s)
{
  c_concat_c(r, s);
  r->node.p.concat.act = TFL_ACT_RELU;
}

static void c_d2s(op_runner *r, unsigned *s)
{
  op_runner_init(r, TFL_OP_DEPTH_TO_SPACE);
  int a = tensor_rand(r, s, DIMS(1, 2, 3, 12), false, -1, 1);
  int y = OUT(r, 1, 4, 6, 3);
  op_runner_io(r, (int[]){a}, 1, (int[]){y}, 1);
  r->node.p.d2s.block_size = 2;
}

static void c_tconv(op_runner *r, unsigned *s)
{
  op_runner_init(r, TFL_OP_TRANSPOSE_CONV);
  int sh = op_runner_tensor(r, TFL_TYPE_INT32, DIMS(4), (const int32_t[]){1, 6, 6, 3}, true);
  int w = tensor_rand(r, s, DIMS(3, 3, 3, 5), true, -1, 1);
  int a = tensor_rand(r, s, DIMS(1, 3, 3, 5), false, -1, 1);
  int y = OUT(r, 1, 6, 6, 3);
  op_runner_io(r, (int[]){sh, w, a}, 3, (int[]){y}, 1);
  r->node.p.conv = (tfl_conv_params){TFL_PAD_SAME, 2, 2, 1, 1, 0, TFL_ACT_NONE};
}
static void c_tconv_mp(op_runner *r, unsigned *s)
{
  op_runner_init(r, TFL_OP_CONV2D_TRANSPOSE_BIAS);
  int a = tensor_rand(r, s, DIMS(1, 3, 4, 5), false, -1, 1);
  int w = tensor_rand(r, s, DIMS(1, 4, 3, 5), true, -1, 1);
  int b = tensor_rand(r, s, DIMS(1), true, -1, 1);
  int y = OUT(r, 1, 6, 8, 1); /* SAME: out = stride * in (TFLite's XNNPACK), leading pad (k - stride) / 2: 1 in height (k 4), 0 in width (k 3) */
  op_runner_io(r, (int[]){a, w, b}, 3, (int[]){y}, 1);
  r->node.p.conv = (tfl_conv_params){TFL_PAD_SAME, 2, 2, 1, 1, 0, TFL_ACT_NONE};
}

static void c_slice(op_runner *r, unsigned *s)
{
  op_runner_init(r, TFL_OP_STRIDED_SLICE);
  int a = tensor_rand(r, s, DIMS(1, 4, 5, 6), false, -1, 1);
  int b = op_runner_tensor(r, TFL_TYPE_INT32, DIMS(4), (const int32_t[]){0, 1, 0, 1}, true);
  int e = op_runner_tensor(r, TFL_TYPE_INT32, DIMS(4), (const int32_t[]){1, 4, 5, 6}, true);
  int st = op_runner_tensor(r, TFL_TYPE_INT32, DIMS(4), (const int32_t[]){1, 2, 1, 2}, true);
  int y = OUT(r, 1, 2, 5, 3);
  op_runner_io(r, (int[]){a, b, e, st}, 4, (int[]){y}, 1);
}

/* Basic LSTM (kernel_type 1): all four outputs and the write-back of the new
 * activation / state into the two state inputs, GL against the CPU kernel. */
static int lstm_case(tfl_delegate *d, const char *prec, int nb, int ni, int nn, float tol)
{
  op_runner r;
  unsigned seed = 777u + (unsigned)(nb * 100 + ni * 10 + nn);
  op_runner_init(&r, TFL_OP_LSTM);
  int x = tensor_rand(&r, &seed, DIMS(nb, ni), false, -1, 1);
  int h = tensor_rand(&r, &seed, DIMS(nb, nn), false, -1, 1);
  int w = tensor_rand(&r, &seed, DIMS(4 * nn, ni + nn), true, -1, 1);
  int b = tensor_rand(&r, &seed, DIMS(4 * nn), true, -1, 1);
  int c = tensor_rand(&r, &seed, DIMS(nb, nn), false, -2, 2);
  int outs[4] = {OUT(&r, nb, nn), OUT(&r, nb, nn), OUT(&r, nb, ni + nn), OUT(&r, nb, 4 * nn)};
  op_runner_io(&r, (int[]){x, h, w, b, c}, 5, outs, 4);
  r.node.p.lstm.kernel_type = 1;
  /* checked tensors: the outputs, then the state inputs after their write-back */
  int chk[6] = {outs[0], outs[1], outs[2], outs[3], h, c};
  size_t sz = (size_t)nb * nn * sizeof(float);
  float *h0 = malloc(sz), *c0 = malloc(sz), *want[6];
  memcpy(h0, r.graph.tensors[h].data, sz);
  memcpy(c0, r.graph.tensors[c].data, sz);
  int fail = 0;
  char name[96];
  snprintf(name, sizeof name, "%s lstm basic B%d I%d N%d", prec, nb, ni, nn);
  if (op_runner_run(&r, 1)) {
    printf("FAIL %s: CPU reference: %s\n", name, r.diag.error);
    fail = 1;
    goto out;
  }
  for (int k = 0; k < 6; k++) {
    tfl_tensor *t = &r.graph.tensors[chk[k]];
    want[k] = malloc(t->bytes);
    memcpy(want[k], t->data, t->bytes);
    if (k < 4) memset(t->data, 0, t->bytes);
  }
  memcpy(r.graph.tensors[h].data, h0, sz);
  memcpy(r.graph.tensors[c].data, c0, sz);
  if (glt_run_gl(&r, d)) {
    printf("FAIL %s: GL: %s\n", name, r.diag.error);
    fail = 1;
  }
  static const char *what[6] = {"activation", "state", "concat_temp", "activ_temp", "activation write-back", "state write-back"};
  for (int k = 0; k < 6; k++) {
    tfl_tensor *t = &r.graph.tensors[chk[k]];
    size_t n = tfl_tensor_count(t);
    const float *got = t->data;
    float scale = 1.0f, worst = 0.0f;
    for (size_t i = 0; i < n; i++) scale = fmaxf(scale, fabsf(want[k][i]));
    for (size_t i = 0; i < n; i++) {
      float e = fabsf(got[i] - want[k][i]);
      if (!(e <= worst)) worst = isnan(e) ? INFINITY : e;
    }
    bool bad = !(worst / scale <= tol);
    if (!fail && (bad || k == 5)) printf("%s %s: %s max error %.3g (tol %.0e)\n", bad ? "FAIL" : "ok  ", name, what[k], worst / scale, tol);
    fail |= bad;
    free(want[k]);
  }
out:
  free(h0);
  free(c0);
  op_runner_free(&r);
  return fail;
}

static const struct {
  const char *name;
  case_fn fn;
} cases[] = {
  {"conv 3x3 same relu 3->5", c_conv3x3}, {"conv 1x1 7->5", c_conv1x1}, {"conv 3x3 s2 valid relu6 5->3", c_conv_s2},
  {"conv 3x3 s2 same 4->9", c_conv_s2same}, {"conv 3x3 dilation 2 1->4", c_conv_dil},
  {"depthwise 3x3 relu6 c7", c_dw}, {"depthwise 3x3 s2 mult 2 c3", c_dw_mult}, {"depthwise 5x5 s2 valid c5", c_dw_valid},
  {"add relu", c_add}, {"add broadcast const", c_add_bc}, {"sub", c_sub}, {"mul scalar relu6", c_mul_scalar},
  {"div broadcast", c_div}, {"maximum", c_max}, {"minimum const", c_min}, {"prelu", c_prelu},
  {"relu", c_relu}, {"relu6", c_relu6}, {"logistic", c_logistic}, {"tanh", c_tanh}, {"hard_swish", c_hswish},
  {"exp", c_exp}, {"avg pool 3x3 s2 same", c_avgpool}, {"max pool 2x2 s2 valid", c_maxpool},
  {"avg pool 3x3 valid", c_avgpool_valid}, {"avg pool global relu6", c_avgpool_global},
  {"logical and broadcast", c_logical_and}, {"concat channels 3+5+1", c_concat_c}, {"concat channels 4+6", c_concat_aligned},
  {"concat axis 1 (rank 3)", c_concat_w}, {"reshape", c_reshape}, {"cast uint8 to float", c_cast_u8},
  {"cast int8 to float", c_cast_i8}, {"resize bilinear", c_resize},
  {"resize bilinear align_corners", c_resize_ac}, {"resize bilinear half_pixel", c_resize_hpc},
  {"resize nearest half_pixel", c_resize_nn}, {"pad", c_pad}, {"pad channels", c_pad_ch},
  {"pad channels after 8", c_pad_ch_post}, {"pad channels after 5", c_pad_ch_post_odd}, {"softmax beta", c_softmax},
  {"softmax 2-D", c_softmax_2d}, {"fully connected relu", c_fc}, {"mean hw", c_mean}, {"depth to space", c_d2s},
  {"transpose conv s2 same", c_tconv}, {"Convolution2DTransposeBias", c_tconv_mp}, {"strided slice", c_slice},
  {"sum last axis 3-D", c_sum_last}, {"sum batch keep", c_sum_batch}, {"mean channels 3-D", c_mean_channels},
  {"mean h and c", c_mean_hc}, {"reduce max last axis 2-D", c_max_last}, {"reduce max b and w", c_max_b_w},
  {"reduce min w and c", c_min_wc}, {"reduce prod all", c_prod_all}, {"log softmax 3-D", c_log_softmax},
  {"softmax 3-D last axis", c_softmax_3d}, {"concat channels relu (ignored)", c_concat_relu},
  {"l2 normalization 3-D", c_l2norm}, {"local response normalization r2", c_lrn}, {"l2 pool 3x3 s2 same relu6", c_l2pool},
};

/* Fuzz finding 4: a float sum that overflows. TFLite's float kernels with a fused
 * activation clamp with its range even for NONE ([lowest, max]) and RELU ([0, max]), so the
 * overflow saturates at +-FLT_MAX, and NaN stays NaN (ai-edge-litert 2.3.0 without XNNPACK,
 * conv_1x1 / add_same / add_relu of tests/opmodels: -3e38 inputs give -3.4028235e+38, 3e38
 * into add_relu gives 3.4028235e+38, NaN inputs give NaN). Each case's expected values are
 * those; the CPU reference is held to them too. fp32 storage only (fp16 has its own range). */
static void c_sat_conv(op_runner *r, tfl_activation act, float sign)
{
  op_runner_init(r, TFL_OP_CONV_2D);
  /* pixel 0: every channel -3e38 (x sign); pixel 1: a NaN in channel 0 */
  const float x[6] = {-3e38f * sign, -3e38f * sign, -3e38f * sign, NAN, 1.0f, 1.0f};
  /* out channel 0: 1, 1, 1 (overflows); channel 1: 1, -1, 0 (exactly 0 in any order) */
  const float w[6] = {1.0f, 1.0f, 1.0f, 1.0f, -1.0f, 0.0f};
  const float b[2] = {0.0f, 0.0f};
  int xi = op_runner_tensor(r, TFL_TYPE_FLOAT32, DIMS(1, 1, 2, 3), x, false);
  int wi = op_runner_tensor(r, TFL_TYPE_FLOAT32, DIMS(2, 1, 1, 3), w, true);
  int bi = op_runner_tensor(r, TFL_TYPE_FLOAT32, DIMS(2), b, true);
  int y = OUT(r, 1, 1, 2, 2);
  op_runner_io(r, (int[]){xi, wi, bi}, 3, (int[]){y}, 1);
  r->node.p.conv = (tfl_conv_params){TFL_PAD_VALID, 1, 1, 1, 1, 0, act};
}

static void c_sat_add(op_runner *r)
{
  op_runner_init(r, TFL_OP_ADD);
  const float a[4] = {-3e38f, 3e38f, NAN, 1.0f}, b[4] = {-3e38f, 3e38f, 1.0f, 2.0f};
  int ai = op_runner_tensor(r, TFL_TYPE_FLOAT32, DIMS(1, 1, 1, 4), a, false);
  int bi = op_runner_tensor(r, TFL_TYPE_FLOAT32, DIMS(1, 1, 1, 4), b, false);
  int y = OUT(r, 1, 1, 1, 4);
  op_runner_io(r, (int[]){ai, bi}, 2, (int[]){y}, 1);
  r->node.p.eltwise.act = TFL_ACT_NONE;
}

static bool same_value(float got, float want)
{
  return isnan(want) ? isnan(got) : got == want;
}

static int saturation_cases(tfl_diag *diag, const char *only)
{
  if (only && !strstr("saturation", only)) return 0;
  gl_delegate_options o = gl_delegate_defaults();
  o.precision = GL_PRECISION_FP32;
  o.profile = gl_profile_from_env();
  o.diag = diag;
  tfl_delegate *d = gl_delegate_create(&o);
  if (!d) {
    printf("FAIL saturation: no GL delegate: %s\n", diag->error);
    return 1;
  }
  static const struct {
    const char *name;
    int kind; /* 0: conv NONE, 1: conv RELU (inputs negated), 2: add NONE */
    int n;
    float want[4];
  } t[] = {
      {"saturation conv 1x1 none", 0, 4, {-FLT_MAX, 0.0f, NAN, NAN}},
      {"saturation conv 1x1 relu", 1, 4, {FLT_MAX, 0.0f, NAN, NAN}},
      {"saturation add none", 2, 4, {-FLT_MAX, FLT_MAX, NAN, 3.0f}},
  };
  int fails = 0;
  for (size_t k = 0; k < sizeof t / sizeof t[0]; k++) {
    op_runner r;
    if (t[k].kind == 2) c_sat_add(&r);
    else c_sat_conv(&r, t[k].kind ? TFL_ACT_RELU : TFL_ACT_NONE, t[k].kind ? -1.0f : 1.0f);
    int y = r.node.out[0];
    for (int gl = 0; gl < 2; gl++) {
      memset(r.graph.tensors[y].data, 0, r.graph.tensors[y].bytes);
      tfl_status st = gl ? glt_run_gl(&r, d) : op_runner_run(&r, 1);
      const float *got = r.graph.tensors[y].data;
      bool ok = st == TFL_OK;
      for (int i = 0; ok && i < t[k].n; i++) ok = same_value(got[i], t[k].want[i]);
      printf("%s %s (%s): %.9g %.9g %.9g %.9g, TFLite %.9g %.9g %.9g %.9g\n", ok ? "ok  " : "FAIL", t[k].name,
             gl ? "GL fp32" : "CPU reference", got[0], got[1], got[2], got[3], t[k].want[0], t[k].want[1],
             t[k].want[2], t[k].want[3]);
      if (st != TFL_OK) printf("     %s\n", r.diag.error);
      fails += !ok;
    }
    op_runner_free(&r);
  }
  d->destroy(d);
  return fails;
}

/* fp16 mode keeps a 1-pixel tile's weights 32-bit on maps of 1024+ pixels and 16+
 * output slices (gl_gen_conv.c: there decoding halves costs more than the bytes). The
 * same layer with 2-pixel tiles keeps 16-bit weights. Checked by the constant buffer's
 * size (64 x 24 weights: 6144 bytes as floats, 3072 as halves plus 16 scale vec4s at
 * most) and by the result against the CPU. */
static int wide_weights_cases(tfl_diag *diag, const char *only)
{
  if (only && !strstr("fp16 wide weights", only)) return 0;
  static const struct {
    const char *name;
    int px;
    size_t lo, hi; /* constant bytes: weights and 64 bias floats (256 bytes) */
  } t[] = {{"1-pixel tile: 32-bit weights", 1, 6144 + 256, 6144 + 256 + 64},
           {"2-pixel tile: 16-bit weights", 2, 3072 + 256, 3072 + 256 + 256 + 64}};
  int fails = 0;
  for (size_t k = 0; k < sizeof t / sizeof t[0]; k++) {
    gl_delegate_options o = gl_delegate_defaults();
    o.tuning = (gl_tuning){.conv_tile_px = t[k].px, .conv_tile_slices = 1};
    o.profile = gl_profile_from_env();
    o.diag = diag;
    tfl_delegate *d = gl_delegate_create(&o);
    if (!d) {
      printf("FAIL fp16 wide weights: %s\n", diag->error);
      fails++;
      continue;
    }
    op_runner r;
    unsigned seed = 99u;
    conv_case(&r, &seed, 32, 32, 24, 64, 1, 1, 1, TFL_PAD_VALID, TFL_ACT_NONE); /* 1024 pixels, 16 slices */
    char name[128];
    snprintf(name, sizeof name, "fp16 wide weights, %s", t[k].name);
    fails += glt_compare(name, &r, d, 1e-2f);
    gl_delegate_stats st;
    gl_delegate_get_stats(d, &st);
    bool ok = st.const_bytes >= t[k].lo && st.const_bytes <= t[k].hi;
    printf("%s %s: %zu constant bytes (expected %zu..%zu)\n", ok ? "ok  " : "FAIL", name, st.const_bytes, t[k].lo,
           t[k].hi);
    fails += !ok;
    op_runner_free(&r);
    d->destroy(d);
  }
  return fails;
}

int main(int argc, char **argv)
{
  const char *only = argc > 1 ? argv[1] : NULL;
  int fails = 0;
  tfl_diag diag; /* the delegates' creation errors */
  tfl_diag_init(&diag);
  for (int prec = 0; prec < 2; prec++) {
    gl_delegate_options o = gl_delegate_defaults();
    o.precision = prec ? GL_PRECISION_FP16 : GL_PRECISION_FP32;
    o.profile = gl_profile_from_env();
    o.diag = &diag;
    tfl_delegate *d = gl_delegate_create(&o);
    if (!d) {
      printf("FAIL: no GL delegate: %s\n", diag.error);
      return 1;
    }
    float tol = prec ? 1e-2f : 1e-4f;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      if (only && !strstr(cases[i].name, only)) continue;
      op_runner r;
      unsigned seed = 1234u + (unsigned)i;
      cases[i].fn(&r, &seed);
      char name[128];
      snprintf(name, sizeof name, "%s %s", prec ? "fp16" : "fp32", cases[i].name);
      fails += glt_compare(name, &r, d, tol);
      op_runner_free(&r);
    }
    if (!only || strstr("lstm basic", only)) {
      fails += lstm_case(d, prec ? "fp16" : "fp32", 1, 5, 3, tol);
      fails += lstm_case(d, prec ? "fp16" : "fp32", 2, 7, 4, tol);
    }
    d->destroy(d);
  }
  /* the convolution tiles the tuning table picks on big outputs, forced on the small
   * cases above (widths and channel counts that leave partial tiles) */
  static const struct {
    const char *name;
    gl_tuning tune;
  } tiles[] = {
    {"4x4", {.conv_tile_px = 4, .conv_tile_slices = 4}},
    {"2x2", {.conv_tile_px = 2, .conv_tile_slices = 2}},
    {"4x1", {.conv_tile_px = 4, .conv_tile_slices = 1}},
    {"1x4", {.conv_tile_px = 1, .conv_tile_slices = 4}},
    {"split", {.conv_split = GL_SPLIT_ALWAYS}}, /* a workgroup per output, its taps split over 64 lanes */
  };
  for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++) {
    gl_delegate_options o = gl_delegate_defaults();
    o.precision = GL_PRECISION_FP32;
    o.tuning = tiles[t].tune;
    o.profile = gl_profile_from_env();
    o.diag = &diag;
    tfl_delegate *d = gl_delegate_create(&o);
    for (size_t i = 0; d && i < sizeof cases / sizeof cases[0]; i++) {
      if (strncmp(cases[i].name, "conv", 4) && strncmp(cases[i].name, "fully", 5)) continue;
      if (only && !strstr(cases[i].name, only)) continue;
      op_runner r;
      unsigned seed = 1234u + (unsigned)i;
      cases[i].fn(&r, &seed);
      char name[128];
      snprintf(name, sizeof name, "fp32 tile %s %s", tiles[t].name, cases[i].name);
      fails += glt_compare(name, &r, d, 1e-4f);
      op_runner_free(&r);
    }
    if (d) d->destroy(d);
  }
  fails += wide_weights_cases(&diag, only);
  fails += saturation_cases(&diag, only);
  printf("%d failure(s)\n", fails);
  return fails != 0;
}
