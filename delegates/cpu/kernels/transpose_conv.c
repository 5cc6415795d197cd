/* transpose_conv.c - TRANSPOSE_CONV (float32, uint8, int8 per-channel along axis 0, hybrid)
 * and MediaPipe's custom Convolution2DTransposeBias (float32) reference kernels.
 *
 * Both scatter each input pixel through a [OC,KH,KW,IC] filter: input (iy, ix) adds into
 * output (iy * stride - pad + ky, ix * stride - pad + kx). We compute it as a gather so
 * threads own output rows: output row oy takes tap ky from input row (oy + pad - ky) /
 * stride when that divides exactly.
 *
 * TRANSPOSE_CONV: inputs output_shape (int32 [4]), weights, input, optional bias (v3);
 *   the leading pad is the one a forward conv from the output size to the input would use.
 *   Hybrid (a dynamic-range model: float32 input and output, int8 weights with one scale or
 *   one per output channel, zero point 0: hybrid.h): LiteRT quantizes each image
 *   asymmetrically (its own kernel and its XNNPACK delegate alike, per-tensor or
 *   per-channel weights: checked against LiteRT by tests/opmodels'
 *   transpose_conv_hybrid_* cases), accumulates (q - zero point) x weight in int32 and
 *   writes acc * (weight scale * image scale) + bias, then the clamp activation.
 * Convolution2DTransposeBias: inputs input, weights, bias; output size stride * in for
 *   SAME (as the real TFLite runs it, checked against it by tests/opmodels) and
 *   stride * (in - 1) + k for VALID; leading pad half of the overlap.
 */
#include "conv_common.h"
#include "hybrid.h"
#include "tconv_taps.h"

enum { TC_OUTPUT_SHAPE = 0, TC_WEIGHTS = 1, TC_INPUT = 2, TC_BIAS = 3 };  /* TRANSPOSE_CONV */
enum { MP_INPUT = 0, MP_WEIGHTS = 1, MP_BIAS = 2 };                         /* MediaPipe op */
enum { OUTPUT = 0 };

/* Allocates the state and reads input and weight geometry; checks their ranks and the
 * channel match. */
static tfl_status read_geometry(tfl_graph *g, const tfl_node *n, void **state, int x_idx,
                                int w_idx, int b_idx, cpu_conv_state **out, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, x_idx), *w = cpu_in(g, n, w_idx);
  const tfl_tensor *y = cpu_out(g, n, OUTPUT);
  const tfl_conv_params *p = &n->p.conv;
  tfl_status s;
  if ((s = cpu_conv_state_new(state, "transpose conv state", x_idx, w_idx, b_idx, out, diag))) return s;
  if ((s = cpu_check_conv_tensors(g, n, x, w, y, "weights", diag))) return s;
  if (x->dims[3] != w->dims[3])
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input has %d channels, weights dim 3 is %d",
                        x->dims[3], w->dims[3]);
  if (p->stride_w < 1 || p->stride_h < 1)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "stride %dx%d must be >= 1", p->stride_w,
                        p->stride_h);
  cpu_conv_read_dims(*out, x, w, p, 0);
  return TFL_OK;
}

/* Shared checks once the output size and pads are known. */
static tfl_status prepare_common(tfl_graph *g, const tfl_node *n, cpu_conv_state *st,
                                 bool allow_quant, tfl_diag *diag)
{
  tfl_status s;
  if ((s = cpu_check_output_nhwc(g, n, cpu_out(g, n, OUTPUT), st->batches, st->out_h, st->out_w,
                                 st->out_c, diag)) ||
      (s = cpu_conv_state_types(g, n, st, "weights", 0, allow_quant, diag)))
    return s;
  return cpu_conv_prepare_packed(g, n, st, "transpose conv packed filter", diag);
}

/* The hybrid TRANSPOSE_CONV of a float input and int8 weights whose geometry is in st. */
static tfl_status prepare_hybrid(tfl_graph *g, const tfl_node *n, cpu_conv_state *st, tfl_diag *diag)
{
  const tfl_tensor *w = cpu_in(g, n, st->w_idx), *b = cpu_in(g, n, st->b_idx), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if (y->type != TFL_TYPE_FLOAT32)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "float input with %s weights, %s output",
                        tfl_type_name(w->type), tfl_type_name(y->type));
  if (!tfl_act_is_clamp(n->p.conv.act))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "hybrid: fused activation %d is not a clamp",
                        (int)n->p.conv.act);
  cpu_hybrid_weights hw = {0};
  s = cpu_hybrid_weights_prepare(g, n, w, "weights", st->out_c, 0, &hw, diag);
  st->hy.w_scale = hw.w_scale;
  if (s || (s = cpu_check_bias(g, n, b, false, st->out_c, diag))) return s;
  st->hy.on = true;
  st->hy.asym = true;
  st->hy.per_pixel = false;
  cpu_activation_range_f(n->p.conv.act, &st->act_lo, &st->act_hi);
  size_t images = st->batches > 0 ? (size_t)st->batches : 1;
  st->hy.xq = malloc((size_t)st->batches * st->in_h * st->in_w * st->in_c + 1);
  st->hy.x_scale = malloc(sizeof(float) * images);
  st->hy.x_zp = calloc(images, sizeof(int32_t));
  if (!st->hy.xq || !st->hy.x_scale || !st->hy.x_zp) return tfl_fail(diag, TFL_ERR_NOMEM, "hybrid transpose conv buffers");
  return TFL_OK;
}

static tfl_status prepare_tflite(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  cpu_conv_state *st = NULL;
  tfl_status s = read_geometry(g, n, state, TC_INPUT, TC_WEIGHTS, TC_BIAS, &st, diag);
  if (s) return s;
  const tfl_tensor *shape = cpu_in(g, n, TC_OUTPUT_SHAPE), *y = cpu_out(g, n, OUTPUT);
  if (!shape || shape->type != TFL_TYPE_INT32 || tfl_tensor_count(shape) != 4)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output_shape must be 4 int32 values%s", "");
  if (shape->is_const) {
    const int32_t *os = shape->data;
    for (int d = 0; d < 4; d++)
      if (os[d] != y->dims[d])
        return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output dim %d is %d, output_shape says %d", d,
                            y->dims[d], os[d]);
  }
  tfl_padding pad = n->p.conv.padding;
  st->out_h = y->dims[1];
  st->out_w = y->dims[2];
  st->pad_h = tfl_conv_pad_before(pad, st->out_h, st->k_h, st->stride_h, 1,
                           tfl_conv_out_size(pad, st->out_h, st->k_h, st->stride_h, 1));
  st->pad_w = tfl_conv_pad_before(pad, st->out_w, st->k_w, st->stride_w, 1,
                           tfl_conv_out_size(pad, st->out_w, st->k_w, st->stride_w, 1));
  const tfl_tensor *x = cpu_in(g, n, TC_INPUT), *w = cpu_in(g, n, TC_WEIGHTS);
  if (x->type == TFL_TYPE_FLOAT32 && w->type != TFL_TYPE_FLOAT32) {
    if ((s = cpu_check_output_nhwc(g, n, y, st->batches, st->out_h, st->out_w, st->out_c, diag))) return s;
    return prepare_hybrid(g, n, st, diag);
  }
  return prepare_common(g, n, st, true, diag);
}

static tfl_status prepare_mediapipe(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  cpu_conv_state *st = NULL;
  tfl_status s = read_geometry(g, n, state, MP_INPUT, MP_WEIGHTS, MP_BIAS, &st, diag);
  if (s) return s;
  if (!cpu_in(g, n, MP_BIAS)) return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "missing %s", "bias");
  /* The output size is the one TFLite (XNNPACK) gives: stride * in for SAME, computed by
   * the shape pass; the leading pad is half the overlap, as for TRANSPOSE_CONV. */
  int total_h = 0, total_w = 0;
  if (n->p.conv.padding == TFL_PAD_SAME) {
    st->out_h = st->stride_h * st->in_h;
    st->out_w = st->stride_w * st->in_w;
    total_h = st->stride_h * (st->in_h - 1) + st->k_h - st->out_h;
    total_w = st->stride_w * (st->in_w - 1) + st->k_w - st->out_w;
    total_h = total_h > 0 ? total_h : 0;
    total_w = total_w > 0 ? total_w : 0;
  } else {
    st->out_h = st->stride_h * (st->in_h - 1) + st->k_h;
    st->out_w = st->stride_w * (st->in_w - 1) + st->k_w;
  }
  st->pad_h = total_h / 2;
  st->pad_w = total_w / 2;
  return prepare_common(g, n, st, false, diag);
}


static void row_f32(void *arg, size_t row)
{
  const cpu_conv_args *a = arg;
  const cpu_conv_state *st = a->st;
  int bi = (int)(row / (size_t)st->out_h), oy = (int)(row % (size_t)st->out_h);
  const float *x = (const float *)a->x + (size_t)bi * st->in_h * st->in_w * st->in_c;
  const float *bias = a->b;
  float *out = (float *)a->y + row * (size_t)st->out_w * st->out_c;
  for (int ox = 0; ox < st->out_w; ox++) {
    float *o = out + (size_t)ox * st->out_c;
    for (int oc = 0; oc < st->out_c; oc++) o[oc] = bias ? bias[oc] : 0.0f;
    for (int ky = 0; ky < st->k_h; ky++) {
      int iy = cpu_tconv_source(oy, st->pad_h, ky, st->stride_h, st->in_h);
      if (iy < 0) continue;
      for (int kx = 0; kx < st->k_w; kx++) {
        int ix = cpu_tconv_source(ox, st->pad_w, kx, st->stride_w, st->in_w);
        if (ix < 0) continue;
        const float *xi = x + ((size_t)iy * st->in_w + ix) * st->in_c;
        const float *wk = st->packed + ((size_t)ky * st->k_w + kx) * st->in_c * st->out_c;
        for (int ic = 0; ic < st->in_c; ic++)
          cpu_axpy(o, wk + (size_t)ic * st->out_c, xi[ic], st->out_c);
      }
    }
    cpu_clamp_f32(o, st->out_c, st->act_lo, st->act_hi);
  }
}

static void row_q(void *arg, size_t row)
{
  const cpu_conv_args *a = arg;
  const cpu_conv_state *st = a->st;
  const cpu_requant *rq = &st->rq;
  int bi = (int)(row / (size_t)st->out_h), oy = (int)(row % (size_t)st->out_h);
  size_t x_base = (size_t)bi * st->in_h * st->in_w * st->in_c;
  size_t w_per_oc = (size_t)st->k_h * st->k_w * st->in_c;
  const int32_t *bias = a->b;
  for (int ox = 0; ox < st->out_w; ox++) {
    for (int oc = 0; oc < st->out_c; oc++) {
      int32_t acc = bias ? bias[oc] : 0;
      for (int ky = 0; ky < st->k_h; ky++) {
        int iy = cpu_tconv_source(oy, st->pad_h, ky, st->stride_h, st->in_h);
        if (iy < 0) continue;
        for (int kx = 0; kx < st->k_w; kx++) {
          int ix = cpu_tconv_source(ox, st->pad_w, kx, st->stride_w, st->in_w);
          if (ix < 0) continue;
          size_t xi = x_base + ((size_t)iy * st->in_w + ix) * st->in_c;
          size_t wi = oc * w_per_oc + ((size_t)ky * st->k_w + kx) * st->in_c;
          acc = cpu_wrap_add(acc, rq->is_u8 ? cpu_dot_u8((const uint8_t *)a->x + xi, (const uint8_t *)a->w + wi,
                                        st->in_c, rq->in_zp, rq->w_zp[oc])
                           : cpu_dot_i8((const int8_t *)a->x + xi, (const int8_t *)a->w + wi,
                                        st->in_c, rq->in_zp, rq->w_zp[oc]));
        }
      }
      cpu_store_q(a->y, rq->is_u8, (row * st->out_w + ox) * st->out_c + oc,
                  cpu_requant_apply(rq, acc, oc));
    }
  }
}

/* One output row (b, oy) of a hybrid transpose conv: int8 dots over the contiguous input
 * channels of the quantized image less its zero point. */
static void row_hybrid(void *arg, size_t row)
{
  const cpu_conv_args *a = arg;
  const cpu_conv_state *st = a->st;
  int bi = (int)(row / (size_t)st->out_h), oy = (int)(row % (size_t)st->out_h);
  const int8_t *x = st->hy.xq + (size_t)bi * st->in_h * st->in_w * st->in_c;
  const int8_t *w = a->w;
  const int32_t zp = st->hy.x_zp[bi];
  size_t w_per_oc = (size_t)st->k_h * st->k_w * st->in_c;
  float *out = (float *)a->y + row * (size_t)st->out_w * st->out_c;
  for (int ox = 0; ox < st->out_w; ox++) {
    for (int oc = 0; oc < st->out_c; oc++) {
      int32_t acc = 0;
      for (int ky = 0; ky < st->k_h; ky++) {
        int iy = cpu_tconv_source(oy, st->pad_h, ky, st->stride_h, st->in_h);
        if (iy < 0) continue;
        for (int kx = 0; kx < st->k_w; kx++) {
          int ix = cpu_tconv_source(ox, st->pad_w, kx, st->stride_w, st->in_w);
          if (ix < 0) continue;
          const int8_t *xi = x + ((size_t)iy * st->in_w + ix) * st->in_c;
          const int8_t *wi = w + oc * w_per_oc + ((size_t)ky * st->k_w + kx) * st->in_c;
          acc = cpu_wrap_add(acc, cpu_dot_i8(xi, wi, st->in_c, zp, 0));
        }
      }
      out[(size_t)ox * st->out_c + oc] = cpu_conv_hybrid_out(st, a->b, acc, (size_t)bi, oc);
    }
  }
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)diag;
  cpu_conv_state *st = state;
  if (st->hy.on) return cpu_conv_hybrid_eval(g, n, st, ctx, row_hybrid);
  return cpu_conv_eval(g, n, st, ctx, row_f32, row_q);
}

const cpu_kernel cpu_k_transpose_conv = {prepare_tflite, eval, cpu_conv_release, CPU_F32 | CPU_Q8, 2};
const cpu_kernel cpu_k_conv2d_transpose_bias = {prepare_mediapipe, eval, cpu_conv_release, CPU_F32, 0};
