/* conv.c - CONV_2D reference kernel: float32, uint8 (per-tensor) and int8 (per-channel
 * weights along axis 0). Input [N,H,W,IC], filter [OC,KH,KW,IC], optional bias [OC],
 * output [N,OH,OW,OC]; SAME/VALID padding, strides, dilation, fused clamp activation.
 *
 * Float: prepare repacks the filter to [KH][KW][IC][OC] so the innermost loop runs over
 * contiguous output channels (an axpy that -O2 vectorizes without reassociating sums).
 * Quantized: the innermost loop is an int32 dot over contiguous input channels.
 * eval splits output rows (batch * OH) over threads; each task writes its own rows.
 */
#include "conv_common.h"

#include <string.h>

enum { INPUT = 0, FILTER = 1, BIAS = 2 };
enum { OUTPUT = 0 };

typedef struct {
  int batches, in_h, in_w, in_c, out_h, out_w, out_c, k_h, k_w;
  int stride_h, stride_w, dil_h, dil_w, pad_h, pad_w;
  float act_lo, act_hi;
  float *packed;      /* float filter as [KH][KW][IC][OC] */
  cpu_requant rq;     /* quantized only */
} conv_state;

static void release(void *state)
{
  conv_state *st = state;
  if (!st) return;
  free(st->packed);
  cpu_requant_free(&st->rq);
  free(st);
}

/* [OC][KH*KW*IC] -> [KH*KW*IC][OC] */
static void pack_filter(conv_state *st, const float *w)
{
  size_t taps = (size_t)st->k_h * st->k_w * st->in_c;
  for (int oc = 0; oc < st->out_c; oc++)
    for (size_t t = 0; t < taps; t++) st->packed[t * (size_t)st->out_c + oc] = w[oc * taps + t];
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *w = cpu_in(g, n, FILTER), *b = cpu_in(g, n, BIAS);
  const tfl_tensor *y = cpu_out(g, n, OUTPUT);
  const tfl_conv_params *p = &n->p.conv;
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "input", 4)) || (s = cpu_check_tensor(g, n, w, "filter", 4)) ||
      (s = cpu_check_tensor(g, n, y, "output", 4)))
    return s;
  if (x->dims[3] != w->dims[3])
    return CPU_NODE_ERR(TFL_ERR_SHAPE, g, n, "input has %d channels, filter dim 3 is %d",
                        x->dims[3], w->dims[3]);
  if (p->stride_w < 1 || p->stride_h < 1 || p->dilation_w < 1 || p->dilation_h < 1)
    return CPU_NODE_ERR(TFL_ERR_SHAPE, g, n, "stride %dx%d / dilation %dx%d must be >= 1",
                        p->stride_w, p->stride_h, p->dilation_w, p->dilation_h);

  conv_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_error(TFL_ERR_NOMEM, "conv state");
  *state = st;
  st->batches = x->dims[0];
  st->in_h = x->dims[1];
  st->in_w = x->dims[2];
  st->in_c = x->dims[3];
  st->out_c = w->dims[0];
  st->k_h = w->dims[1];
  st->k_w = w->dims[2];
  st->stride_h = p->stride_h;
  st->stride_w = p->stride_w;
  st->dil_h = p->dilation_h;
  st->dil_w = p->dilation_w;
  st->out_h = cpu_conv_out_size(p->padding, st->in_h, st->k_h, st->stride_h, st->dil_h);
  st->out_w = cpu_conv_out_size(p->padding, st->in_w, st->k_w, st->stride_w, st->dil_w);
  st->pad_h = cpu_conv_pad(p->padding, st->in_h, st->k_h, st->stride_h, st->dil_h, st->out_h);
  st->pad_w = cpu_conv_pad(p->padding, st->in_w, st->k_w, st->stride_w, st->dil_w, st->out_w);
  if (y->dims[0] != st->batches || y->dims[1] != st->out_h || y->dims[2] != st->out_w ||
      y->dims[3] != st->out_c)
    return CPU_NODE_ERR(TFL_ERR_SHAPE, g, n, "output is %dx%dx%dx%d, expected %dx%dx%dx%d",
                        y->dims[0], y->dims[1], y->dims[2], y->dims[3], st->batches, st->out_h,
                        st->out_w, st->out_c);

  switch (x->type) {
  case TFL_TYPE_FLOAT32: {
    if (w->type != TFL_TYPE_FLOAT32 || y->type != TFL_TYPE_FLOAT32)
      return CPU_NODE_ERR(TFL_ERR_UNSUPPORTED, g, n, "float input with %s filter, %s output",
                          tfl_type_name(w->type), tfl_type_name(y->type));
    if ((s = cpu_check_bias(g, n, b, false, st->out_c))) return s;
    /* TFLite's conv applies only the clamp activations; others leave the range open. */
    cpu_activation_range_f(p->act, &st->act_lo, &st->act_hi);
    st->packed = malloc(sizeof(float) * (size_t)st->k_h * st->k_w * st->in_c * st->out_c);
    if (!st->packed) return tfl_error(TFL_ERR_NOMEM, "conv packed filter");
    if (w->is_const) pack_filter(st, w->data); /* else at each eval */
    return TFL_OK;
  }
  case TFL_TYPE_UINT8:
  case TFL_TYPE_INT8:
    if ((s = cpu_requant_prepare(g, n, &st->rq, x, w, y, st->out_c, 0, p->act))) return s;
    return cpu_check_bias(g, n, b, true, st->out_c);
  case TFL_TYPE_FLOAT16:
  case TFL_TYPE_INT32:
  case TFL_TYPE_INT64:
  case TFL_TYPE_STRING:
  case TFL_TYPE_BOOL:
  case TFL_TYPE_INT16:
  case TFL_TYPE_COUNT: break;
  }
  return CPU_NODE_ERR(TFL_ERR_UNSUPPORTED, g, n, "input type %s", tfl_type_name(x->type));
}

typedef struct {
  const conv_state *st;
  const void *x, *w, *b;
  void *y;
} conv_args;

/* One output row (b, oy) in float. */
static void row_f32(void *arg, size_t row)
{
  const conv_args *a = arg;
  const conv_state *st = a->st;
  int bi = (int)(row / (size_t)st->out_h), oy = (int)(row % (size_t)st->out_h);
  const float *x = (const float *)a->x + (size_t)bi * st->in_h * st->in_w * st->in_c;
  const float *bias = a->b;
  float *out = (float *)a->y + row * (size_t)st->out_w * st->out_c;
  for (int ox = 0; ox < st->out_w; ox++) {
    float *o = out + (size_t)ox * st->out_c;
    for (int oc = 0; oc < st->out_c; oc++) o[oc] = bias ? bias[oc] : 0.0f;
    for (int ky = 0; ky < st->k_h; ky++) {
      int iy = oy * st->stride_h - st->pad_h + ky * st->dil_h;
      if (iy < 0 || iy >= st->in_h) continue;
      for (int kx = 0; kx < st->k_w; kx++) {
        int ix = ox * st->stride_w - st->pad_w + kx * st->dil_w;
        if (ix < 0 || ix >= st->in_w) continue;
        const float *xi = x + ((size_t)iy * st->in_w + ix) * st->in_c;
        const float *wk = st->packed + ((size_t)ky * st->k_w + kx) * st->in_c * st->out_c;
        for (int ic = 0; ic < st->in_c; ic++)
          cpu_axpy(o, wk + (size_t)ic * st->out_c, xi[ic], st->out_c);
      }
    }
    for (int oc = 0; oc < st->out_c; oc++)
      o[oc] = o[oc] < st->act_lo ? st->act_lo : (o[oc] > st->act_hi ? st->act_hi : o[oc]);
  }
}

/* One output row (b, oy), uint8 or int8. */
static void row_q(void *arg, size_t row)
{
  const conv_args *a = arg;
  const conv_state *st = a->st;
  const cpu_requant *rq = &st->rq;
  int bi = (int)(row / (size_t)st->out_h), oy = (int)(row % (size_t)st->out_h);
  size_t x_base = (size_t)bi * st->in_h * st->in_w * st->in_c;
  size_t w_per_oc = (size_t)st->k_h * st->k_w * st->in_c;
  const int32_t *bias = a->b;
  for (int ox = 0; ox < st->out_w; ox++) {
    for (int oc = 0; oc < st->out_c; oc++) {
      int32_t acc = bias ? bias[oc] : 0;
      for (int ky = 0; ky < st->k_h; ky++) {
        int iy = oy * st->stride_h - st->pad_h + ky * st->dil_h;
        if (iy < 0 || iy >= st->in_h) continue;
        for (int kx = 0; kx < st->k_w; kx++) {
          int ix = ox * st->stride_w - st->pad_w + kx * st->dil_w;
          if (ix < 0 || ix >= st->in_w) continue;
          size_t xi = x_base + ((size_t)iy * st->in_w + ix) * st->in_c;
          size_t wi = oc * w_per_oc + ((size_t)ky * st->k_w + kx) * st->in_c;
          acc += rq->is_u8 ? cpu_dot_u8((const uint8_t *)a->x + xi, (const uint8_t *)a->w + wi,
                                        st->in_c, rq->in_zp, rq->w_zp[oc])
                           : cpu_dot_i8((const int8_t *)a->x + xi, (const int8_t *)a->w + wi,
                                        st->in_c, rq->in_zp, rq->w_zp[oc]);
        }
      }
      cpu_store_q(a->y, rq->is_u8, (row * st->out_w + ox) * st->out_c + oc,
                  cpu_requant_apply(rq, acc, oc));
    }
  }
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx)
{
  conv_state *st = state;
  const tfl_tensor *b = cpu_in(g, n, BIAS), *w = cpu_in(g, n, FILTER);
  if (!st->rq.on && !w->is_const) pack_filter(st, w->data);
  conv_args a = {st, cpu_in(g, n, INPUT)->data, w->data, b ? b->data : NULL,
                 cpu_out(g, n, OUTPUT)->data};
  cpu_parallel(ctx, st->rq.on ? row_q : row_f32, &a, (size_t)st->batches * st->out_h);
  return TFL_OK;
}

const cpu_kernel cpu_k_conv_2d = {prepare, eval, release};
