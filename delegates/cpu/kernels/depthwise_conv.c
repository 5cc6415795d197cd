/* depthwise_conv.c - DEPTHWISE_CONV_2D reference kernel (v1-2: dilation from v2).
 * Input [N,H,W,IC], filter [1,KH,KW,OC] with OC = IC * depth_multiplier, optional bias
 * [OC], output [N,OH,OW,OC]; output channel oc reads input channel oc / multiplier.
 * float32, uint8 (per-tensor), int8 (per-channel weights along axis 3) and hybrid
 * (float32 input and output, int8 filter with scales along axis 3: hybrid.h; each image
 * quantized asymmetrically, as TFLite's EvalHybridPerChannel).
 * The multiplier is taken from the shapes (OC / IC), as TFLite does, since some
 * converters wrote a stale depth_multiplier option.
 * eval splits output rows (batch * OH) over threads; each task writes its own rows.
 */
#include "conv_common.h"
#include "hybrid.h"

enum { INPUT = 0, FILTER = 1, BIAS = 2 };
enum { OUTPUT = 0 };

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *w = cpu_in(g, n, FILTER);
  const tfl_tensor *y = cpu_out(g, n, OUTPUT);
  const tfl_conv_params *p = &n->p.conv;
  tfl_status s;
  if ((s = cpu_check_conv_tensors(g, n, x, w, y, "filter", diag))) return s;
  if (w->dims[0] != 1)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "filter dim 0 is %d, expected 1", w->dims[0]);
  if (x->dims[3] < 1 || w->dims[3] % x->dims[3] != 0)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n,
                        "filter has %d channels, not a multiple of the input's %d", w->dims[3],
                        x->dims[3]);
  if ((s = cpu_check_conv_strides(g, n, p, diag))) return s;

  cpu_conv_state *st = NULL;
  if ((s = cpu_conv_state_new(state, "depthwise state", INPUT, FILTER, BIAS, &st, diag))) return s;
  cpu_conv_read_dims(st, x, w, p, 3);
  st->mult = st->out_c / st->in_c;
  cpu_window_axis(p->padding, st->in_h, st->k_h, st->stride_h, st->dil_h, &st->out_h, &st->pad_h);
  cpu_window_axis(p->padding, st->in_w, st->k_w, st->stride_w, st->dil_w, &st->out_w, &st->pad_w);
  if ((s = cpu_check_output_nhwc(g, n, y, st->batches, st->out_h, st->out_w, st->out_c, diag)))
    return s;
  if (x->type == TFL_TYPE_FLOAT32 && w->type != TFL_TYPE_FLOAT32)
    return cpu_conv_hybrid_prepare(g, n, st, 3, true, diag);
  return cpu_conv_state_types(g, n, st, "filter", 3, true, diag);
}

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
  const cpu_conv_args *a = arg;
  const cpu_conv_state *st = a->st;
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
    cpu_clamp_f32(o, st->out_c, st->act_lo, st->act_hi);
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
  const cpu_conv_args *a = arg;
  const cpu_conv_state *st = a->st;
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
          acc = cpu_wrap_add(acc, (xv - rq->in_zp) * (wv - rq->w_zp[oc]));
        }
      }
      cpu_store_q(a->y, rq->is_u8, (row * st->out_w + ox) * st->out_c + oc,
                  cpu_requant_apply(rq, acc, oc));
    }
  }
}

/* One output row (b, oy) of a hybrid depthwise conv: (quantized input - zero point) x
 * filter over the window's taps inside the image. */
static void row_hybrid(void *arg, size_t row)
{
  const cpu_conv_args *a = arg;
  const cpu_conv_state *st = a->st;
  int bi = (int)(row / (size_t)st->out_h), oy = (int)(row % (size_t)st->out_h);
  const int8_t *x = st->hy.xq + (size_t)bi * st->in_h * st->in_w * st->in_c;
  const int8_t *w = a->w;
  float *out = (float *)a->y + row * (size_t)st->out_w * st->out_c;
  for (int ox = 0; ox < st->out_w; ox++) {
    size_t qg = cpu_conv_hybrid_group(st, bi, oy, ox);
    int32_t zp = st->hy.x_zp[qg];
    for (int oc = 0; oc < st->out_c; oc++) {
      int32_t acc = 0;
      int ic = oc / st->mult;
      for (int ky = 0; ky < st->k_h; ky++) {
        int iy = oy * st->stride_h - st->pad_h + ky * st->dil_h;
        if (iy < 0 || iy >= st->in_h) continue;
        for (int kx = 0; kx < st->k_w; kx++) {
          int ix = ox * st->stride_w - st->pad_w + kx * st->dil_w;
          if (ix < 0 || ix >= st->in_w) continue;
          int32_t xv = x[((size_t)iy * st->in_w + ix) * st->in_c + ic];
          int32_t wv = w[((size_t)ky * st->k_w + kx) * st->out_c + oc];
          acc = cpu_wrap_add(acc, (xv - zp) * wv);
        }
      }
      out[(size_t)ox * st->out_c + oc] = cpu_conv_hybrid_out(st, a->b, acc, qg, oc);
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

const cpu_kernel cpu_k_depthwise_conv_2d = {prepare, eval, cpu_conv_release, CPU_F32 | CPU_Q8, 0};
