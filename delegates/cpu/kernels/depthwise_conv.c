/* depthwise_conv.c - DEPTHWISE_CONV_2D reference kernel (v1-2: dilation from v2).
 * Input [N,H,W,IC], filter [1,KH,KW,OC] with OC = IC * depth_multiplier, optional bias
 * [OC], output [N,OH,OW,OC]; output channel oc reads input channel oc / multiplier.
 * float32, uint8 (per-tensor) and int8 (per-channel weights along axis 3).
 * The multiplier is taken from the shapes (OC / IC), as TFLite does, since some
 * converters wrote a stale depth_multiplier option.
 * eval splits output rows (batch * OH) over threads; each task writes its own rows.
 */
#include "conv_common.h"

enum { INPUT = 0, FILTER = 1, BIAS = 2 };
enum { OUTPUT = 0 };

typedef struct {
  int batches, in_h, in_w, in_c, out_h, out_w, out_c, k_h, k_w, mult;
  int stride_h, stride_w, dil_h, dil_w, pad_h, pad_w;
  float act_lo, act_hi;
  cpu_requant rq;     /* quantized only */
} dw_state;

static void release(void *state)
{
  dw_state *st = state;
  if (!st) return;
  cpu_requant_free(&st->rq);
  free(st);
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
  if (w->dims[0] != 1)
    return CPU_NODE_ERR(TFL_ERR_SHAPE, g, n, "filter dim 0 is %d, expected 1", w->dims[0]);
  if (x->dims[3] < 1 || w->dims[3] % x->dims[3] != 0)
    return CPU_NODE_ERR(TFL_ERR_SHAPE, g, n,
                        "filter has %d channels, not a multiple of the input's %d", w->dims[3],
                        x->dims[3]);
  if (p->stride_w < 1 || p->stride_h < 1 || p->dilation_w < 1 || p->dilation_h < 1)
    return CPU_NODE_ERR(TFL_ERR_SHAPE, g, n, "stride %dx%d / dilation %dx%d must be >= 1",
                        p->stride_w, p->stride_h, p->dilation_w, p->dilation_h);

  dw_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_error(TFL_ERR_NOMEM, "depthwise state");
  *state = st;
  st->batches = x->dims[0];
  st->in_h = x->dims[1];
  st->in_w = x->dims[2];
  st->in_c = x->dims[3];
  st->k_h = w->dims[1];
  st->k_w = w->dims[2];
  st->out_c = w->dims[3];
  st->mult = st->out_c / st->in_c;
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
  case TFL_TYPE_FLOAT32:
    if (w->type != TFL_TYPE_FLOAT32 || y->type != TFL_TYPE_FLOAT32)
      return CPU_NODE_ERR(TFL_ERR_UNSUPPORTED, g, n, "float input with %s filter, %s output",
                          tfl_type_name(w->type), tfl_type_name(y->type));
    /* TFLite applies only the clamp activations; others leave the range open. */
    cpu_activation_range_f(p->act, &st->act_lo, &st->act_hi);
    return cpu_check_bias(g, n, b, false, st->out_c);
  case TFL_TYPE_UINT8:
  case TFL_TYPE_INT8:
    if ((s = cpu_requant_prepare(g, n, &st->rq, x, w, y, st->out_c, 3, p->act))) return s;
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
  const dw_state *st;
  const void *x, *w, *b;
  void *y;
} dw_args;

/* o[c] += x[c] * w[c], blocks of 8 so -O2 vectorizes it. */
static void mul_acc(float *restrict o, const float *restrict x, const float *restrict w, int n)
{
  int i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; j++) o[i + j] += x[i + j] * w[i + j];
  for (; i < n; i++) o[i] += x[i] * w[i];
}

/* One output row (b, oy) in float. */
static void row_f32(void *arg, size_t row)
{
  const dw_args *a = arg;
  const dw_state *st = a->st;
  int bi = (int)(row / (size_t)st->out_h), oy = (int)(row % (size_t)st->out_h);
  const float *x = (const float *)a->x + (size_t)bi * st->in_h * st->in_w * st->in_c;
  const float *w = a->w, *bias = a->b;
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
        const float *wk = w + ((size_t)ky * st->k_w + kx) * st->out_c;
        if (st->mult == 1) {
          mul_acc(o, xi, wk, st->out_c);
        } else {
          for (int oc = 0; oc < st->out_c; oc++) o[oc] += xi[oc / st->mult] * wk[oc];
        }
      }
    }
    for (int oc = 0; oc < st->out_c; oc++)
      o[oc] = o[oc] < st->act_lo ? st->act_lo : (o[oc] > st->act_hi ? st->act_hi : o[oc]);
  }
}

/* Stored integer at element i of a uint8 or int8 tensor. */
static inline int32_t load_q(const void *data, bool is_u8, size_t i)
{
  return is_u8 ? ((const uint8_t *)data)[i] : ((const int8_t *)data)[i];
}

/* One output row (b, oy), uint8 or int8. */
static void row_q(void *arg, size_t row)
{
  const dw_args *a = arg;
  const dw_state *st = a->st;
  const cpu_requant *rq = &st->rq;
  int bi = (int)(row / (size_t)st->out_h), oy = (int)(row % (size_t)st->out_h);
  size_t x_base = (size_t)bi * st->in_h * st->in_w * st->in_c;
  const int32_t *bias = a->b;
  for (int ox = 0; ox < st->out_w; ox++) {
    for (int oc = 0; oc < st->out_c; oc++) {
      int32_t acc = bias ? bias[oc] : 0;
      int ic = oc / st->mult;
      for (int ky = 0; ky < st->k_h; ky++) {
        int iy = oy * st->stride_h - st->pad_h + ky * st->dil_h;
        if (iy < 0 || iy >= st->in_h) continue;
        for (int kx = 0; kx < st->k_w; kx++) {
          int ix = ox * st->stride_w - st->pad_w + kx * st->dil_w;
          if (ix < 0 || ix >= st->in_w) continue;
          int32_t xv = load_q(a->x, rq->is_u8, x_base + ((size_t)iy * st->in_w + ix) * st->in_c + ic);
          int32_t wv = load_q(a->w, rq->is_u8, ((size_t)ky * st->k_w + kx) * st->out_c + oc);
          acc += (xv - rq->in_zp) * (wv - rq->w_zp[oc]);
        }
      }
      cpu_store_q(a->y, rq->is_u8, (row * st->out_w + ox) * st->out_c + oc,
                  cpu_requant_apply(rq, acc, oc));
    }
  }
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx)
{
  const dw_state *st = state;
  const tfl_tensor *b = cpu_in(g, n, BIAS);
  dw_args a = {st, cpu_in(g, n, INPUT)->data, cpu_in(g, n, FILTER)->data, b ? b->data : NULL,
               cpu_out(g, n, OUTPUT)->data};
  cpu_parallel(ctx, st->rq.on ? row_q : row_f32, &a, (size_t)st->batches * st->out_h);
  return TFL_OK;
}

const cpu_kernel cpu_k_depthwise_conv_2d = {prepare, eval, release};
