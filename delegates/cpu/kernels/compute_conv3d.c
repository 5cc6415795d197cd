/* compute_conv3d.c - CONV_3D and CONV_3D_TRANSPOSE reference kernels, float32.
 *
 * CONV_3D: input [N,D,H,W,IC], filter [KD,KH,KW,IC,OC], optional bias [OC], output
 * [N,OD,OH,OW,OC]; SAME/VALID padding (TFLite's leading pad), strides and dilations per
 * axis, fused clamp activation (TFLite ignores the others here). The filter's layout
 * already has contiguous output channels per (tap, input channel): the innermost loop is
 * an axpy over them.
 * CONV_3D_TRANSPOSE: inputs output_shape (int32 [5]), filter [KD,KH,KW,OC,IC], input
 * [N,D,H,W,IC], optional bias [OC]; output [N,OD,OH,OW,OC] = the output_shape. Input voxel
 * i lands on output o = i * stride - pad + k * dilation, the pad being what a CONV_3D from
 * the output's size back to the input's would use (TFLite checks that conv's size is the
 * input's). Computed per output voxel as a gather over the taps that reach it, with
 * contiguous input-channel dots (the filter repacked [KD][KH][KW][OC][IC] is already so).
 * Both split output rows (batch, depth, row) over threads.
 */
#include "kernels.h"

#include "conv_common.h"

typedef struct {
  bool transpose;
  int x_idx, w_idx, b_idx;
  int n, in_d, in_h, in_w, in_c, out_d, out_h, out_w, out_c, k_d, k_h, k_w;
  int s_d, s_h, s_w, dil_d, dil_h, dil_w, pad_d, pad_h, pad_w;
  float lo, hi;
} conv3d_state;

static void release(void *state)
{
  free(state);
}

static tfl_status check_params(const tfl_graph *g, const tfl_node *n, tfl_diag *diag)
{
  const tfl_conv3d_params *p = &n->p.conv3d;
  if (p->stride_d < 1 || p->stride_h < 1 || p->stride_w < 1 || p->dilation_d < 1 || p->dilation_h < 1 ||
      p->dilation_w < 1)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "stride %dx%dx%d, dilation %dx%dx%d: must be >= 1",
                        p->stride_d, p->stride_h, p->stride_w, p->dilation_d, p->dilation_h, p->dilation_w);
  return TFL_OK;
}

/* Float32 input, filter, output and (optional) bias of out_c values. */
static tfl_status check_types(const tfl_graph *g, const tfl_node *n, const tfl_tensor *x, const tfl_tensor *w,
                              const tfl_tensor *b, const tfl_tensor *y, int out_c, tfl_diag *diag)
{
  if (x->type != TFL_TYPE_FLOAT32 || w->type != TFL_TYPE_FLOAT32 || y->type != TFL_TYPE_FLOAT32)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input %s, filter %s, output %s: float32 only",
                        tfl_type_name(x->type), tfl_type_name(w->type), tfl_type_name(y->type));
  return cpu_check_bias(g, n, b, false, out_c, diag);
}

static void set_geometry(conv3d_state *st, const tfl_node *n)
{
  const tfl_conv3d_params *p = &n->p.conv3d;
  st->s_d = p->stride_d;
  st->s_h = p->stride_h;
  st->s_w = p->stride_w;
  st->dil_d = p->dilation_d;
  st->dil_h = p->dilation_h;
  st->dil_w = p->dilation_w;
  cpu_activation_range_f(p->act, &st->lo, &st->hi);
}

static tfl_status prepare_conv(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, 0), *w = cpu_in(g, n, 1), *b = cpu_in(g, n, 2), *y = cpu_out(g, n, 0);
  const tfl_conv3d_params *p = &n->p.conv3d;
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "input", 5, diag)) || (s = cpu_check_tensor(g, n, w, "filter", 5, diag)) ||
      (s = cpu_check_tensor(g, n, y, "output", 5, diag)) || (s = check_params(g, n, diag)))
    return s;
  if (x->dims[4] != w->dims[3])
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input has %d channels, filter dim 3 is %d", x->dims[4],
                        w->dims[3]);
  if ((s = check_types(g, n, x, w, b, y, w->dims[4], diag))) return s;
  conv3d_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "conv3d state");
  *state = st;
  st->x_idx = 0;
  st->w_idx = 1;
  st->b_idx = 2;
  set_geometry(st, n);
  st->n = x->dims[0];
  st->in_d = x->dims[1];
  st->in_h = x->dims[2];
  st->in_w = x->dims[3];
  st->in_c = x->dims[4];
  st->k_d = w->dims[0];
  st->k_h = w->dims[1];
  st->k_w = w->dims[2];
  st->out_c = w->dims[4];
  cpu_window_axis(p->padding, st->in_d, st->k_d, st->s_d, st->dil_d, &st->out_d, &st->pad_d);
  cpu_window_axis(p->padding, st->in_h, st->k_h, st->s_h, st->dil_h, &st->out_h, &st->pad_h);
  cpu_window_axis(p->padding, st->in_w, st->k_w, st->s_w, st->dil_w, &st->out_w, &st->pad_w);
  int want[5] = {st->n, st->out_d, st->out_h, st->out_w, st->out_c};
  for (int i = 0; i < 5; i++)
    if (y->dims[i] != want[i])
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output is %dx%dx%dx%dx%d, expected %dx%dx%dx%dx%d",
                          y->dims[0], y->dims[1], y->dims[2], y->dims[3], y->dims[4], want[0], want[1], want[2],
                          want[3], want[4]);
  return TFL_OK;
}

static tfl_status prepare_transpose(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *os = cpu_in(g, n, 0), *w = cpu_in(g, n, 1), *x = cpu_in(g, n, 2), *b = cpu_in(g, n, 3);
  const tfl_tensor *y = cpu_out(g, n, 0);
  const tfl_conv3d_params *p = &n->p.conv3d;
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, os, "output_shape", 1, diag)) ||
      (s = cpu_check_tensor(g, n, w, "filter", 5, diag)) || (s = cpu_check_tensor(g, n, x, "input", 5, diag)) ||
      (s = cpu_check_tensor(g, n, y, "output", 5, diag)) || (s = check_params(g, n, diag)))
    return s;
  if (os->type != TFL_TYPE_INT32 || tfl_tensor_count(os) != 5)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output_shape is %s with %zu values, expected 5 INT32",
                        tfl_type_name(os->type), tfl_tensor_count(os));
  if (x->dims[4] != w->dims[4])
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input has %d channels, filter dim 4 is %d", x->dims[4],
                        w->dims[4]);
  if ((s = check_types(g, n, x, w, b, y, w->dims[3], diag))) return s;
  if (os->is_const && os->data)
    for (int i = 0; i < 5; i++)
      if (((const int32_t *)os->data)[i] != y->dims[i])
        return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output_shape[%d] is %d, output dim %d", i,
                            (int)((const int32_t *)os->data)[i], y->dims[i]);
  if (y->dims[0] != x->dims[0] || y->dims[4] != w->dims[3])
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output has batch %d and %d channels, expected %d and %d",
                        y->dims[0], y->dims[4], x->dims[0], w->dims[3]);
  conv3d_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "conv3d transpose state");
  *state = st;
  st->transpose = true;
  st->x_idx = 2;
  st->w_idx = 1;
  st->b_idx = 3;
  set_geometry(st, n);
  st->n = x->dims[0];
  st->in_d = x->dims[1];
  st->in_h = x->dims[2];
  st->in_w = x->dims[3];
  st->in_c = x->dims[4];
  st->k_d = w->dims[0];
  st->k_h = w->dims[1];
  st->k_w = w->dims[2];
  st->out_c = w->dims[3];
  st->out_d = y->dims[1];
  st->out_h = y->dims[2];
  st->out_w = y->dims[3];
  /* the padding of the forward conv from the output's size; its size must be the input's */
  int fd, fh, fw;
  cpu_window_axis(p->padding, st->out_d, st->k_d, st->s_d, st->dil_d, &fd, &st->pad_d);
  cpu_window_axis(p->padding, st->out_h, st->k_h, st->s_h, st->dil_h, &fh, &st->pad_h);
  cpu_window_axis(p->padding, st->out_w, st->k_w, st->s_w, st->dil_w, &fw, &st->pad_w);
  if (fd != st->in_d || fh != st->in_h || fw != st->in_w)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n,
                        "output %dx%dx%d convolved back gives %dx%dx%d, but the input is %dx%dx%d", st->out_d,
                        st->out_h, st->out_w, fd, fh, fw, st->in_d, st->in_h, st->in_w);
  return TFL_OK;
}

typedef struct {
  const conv3d_state *st;
  const float *x, *w, *b;
  float *y;
} conv3d_args;

/* One output row (batch, od, oh) of CONV_3D. */
static void row_conv(void *arg, size_t row)
{
  const conv3d_args *a = arg;
  const conv3d_state *st = a->st;
  int oh = (int)(row % (size_t)st->out_h);
  int od = (int)(row / (size_t)st->out_h % (size_t)st->out_d);
  size_t bi = row / ((size_t)st->out_h * st->out_d);
  const float *x = a->x + bi * st->in_d * st->in_h * st->in_w * (size_t)st->in_c;
  float *out = a->y + row * (size_t)st->out_w * st->out_c;
  size_t tap_stride = (size_t)st->in_c * st->out_c;
  for (int ow = 0; ow < st->out_w; ow++) {
    float *o = out + (size_t)ow * st->out_c;
    for (int oc = 0; oc < st->out_c; oc++) o[oc] = a->b ? a->b[oc] : 0.0f;
    for (int kd = 0; kd < st->k_d; kd++) {
      int id = od * st->s_d - st->pad_d + kd * st->dil_d;
      if (id < 0 || id >= st->in_d) continue;
      for (int kh = 0; kh < st->k_h; kh++) {
        int ih = oh * st->s_h - st->pad_h + kh * st->dil_h;
        if (ih < 0 || ih >= st->in_h) continue;
        for (int kw = 0; kw < st->k_w; kw++) {
          int iw = ow * st->s_w - st->pad_w + kw * st->dil_w;
          if (iw < 0 || iw >= st->in_w) continue;
          const float *xi = x + (((size_t)id * st->in_h + ih) * st->in_w + iw) * st->in_c;
          const float *wk = a->w + (((size_t)kd * st->k_h + kh) * st->k_w + kw) * tap_stride;
          for (int ic = 0; ic < st->in_c; ic++) cpu_axpy(o, wk + (size_t)ic * st->out_c, xi[ic], st->out_c);
        }
      }
    }
    cpu_clamp_f32(o, st->out_c, st->lo, st->hi);
  }
}

/* The input index i that output position o reads through tap k (o = i * s - pad + k *
 * dil), or -1 when no input lands there. */
static inline int src_index(int o, int k, int s, int pad, int dil, int in)
{
  int t = o + pad - k * dil;
  if (t < 0 || t % s != 0) return -1;
  t /= s;
  return t < in ? t : -1;
}

/* One output row (batch, od, oh) of CONV_3D_TRANSPOSE. */
static void row_transpose(void *arg, size_t row)
{
  const conv3d_args *a = arg;
  const conv3d_state *st = a->st;
  int oh = (int)(row % (size_t)st->out_h);
  int od = (int)(row / (size_t)st->out_h % (size_t)st->out_d);
  size_t bi = row / ((size_t)st->out_h * st->out_d);
  const float *x = a->x + bi * st->in_d * st->in_h * st->in_w * (size_t)st->in_c;
  float *out = a->y + row * (size_t)st->out_w * st->out_c;
  size_t tap_stride = (size_t)st->out_c * st->in_c;
  for (int ow = 0; ow < st->out_w; ow++) {
    float *o = out + (size_t)ow * st->out_c;
    for (int oc = 0; oc < st->out_c; oc++) o[oc] = 0.0f;
    for (int kd = 0; kd < st->k_d; kd++) {
      int id = src_index(od, kd, st->s_d, st->pad_d, st->dil_d, st->in_d);
      if (id < 0) continue;
      for (int kh = 0; kh < st->k_h; kh++) {
        int ih = src_index(oh, kh, st->s_h, st->pad_h, st->dil_h, st->in_h);
        if (ih < 0) continue;
        for (int kw = 0; kw < st->k_w; kw++) {
          int iw = src_index(ow, kw, st->s_w, st->pad_w, st->dil_w, st->in_w);
          if (iw < 0) continue;
          const float *xi = x + (((size_t)id * st->in_h + ih) * st->in_w + iw) * st->in_c;
          const float *wk = a->w + (((size_t)kd * st->k_h + kh) * st->k_w + kw) * tap_stride;
          for (int oc = 0; oc < st->out_c; oc++) o[oc] += cpu_dot_f32(xi, wk + (size_t)oc * st->in_c, st->in_c);
        }
      }
    }
    for (int oc = 0; oc < st->out_c; oc++) o[oc] += a->b ? a->b[oc] : 0.0f;
    cpu_clamp_f32(o, st->out_c, st->lo, st->hi);
  }
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)diag;
  const conv3d_state *st = state;
  const tfl_tensor *b = cpu_in(g, n, st->b_idx);
  conv3d_args a = {st, cpu_in(g, n, st->x_idx)->data, cpu_in(g, n, st->w_idx)->data, b ? b->data : NULL,
                   cpu_out(g, n, 0)->data};
  cpu_parallel(ctx, st->transpose ? row_transpose : row_conv, &a, (size_t)st->n * st->out_d * st->out_h);
  return TFL_OK;
}

const cpu_kernel cpu_k_conv_3d = {prepare_conv, eval, release, CPU_F32, 0};
const cpu_kernel cpu_k_conv_3d_transpose = {prepare_transpose, eval, release, CPU_F32, 2};
