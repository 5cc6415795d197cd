/* conv.c - CONV_2D reference kernel: float32, uint8 (per-tensor), int8 (per-channel
 * weights along axis 0) and hybrid (float32 input and output, int8 filter with per-tensor
 * or per-channel scales: hybrid.h). Input [N,H,W,IC], filter [OC,KH,KW,IC/G], optional bias [OC],
 * output [N,OH,OW,OC]; SAME/VALID padding, strides, dilation, fused clamp activation.
 * Grouped (TFLite's CONV_2D with a filter of fewer input channels, G = IC / filter
 * channels groups, OC a multiple of G: a Keras Conv2D(groups=G) or ConvNeXt's depthwise
 * 7x7 as the converter writes it): output channel oc reads input channels
 * [g * IC/G, (g + 1) * IC/G) of its group g = oc / (OC/G).
 *
 * Float: prepare repacks the filter to [KH][KW][IC][OC] so the innermost loop runs over
 * contiguous output channels (an axpy that -O2 vectorizes without reassociating sums).
 * Quantized: the innermost loop is an int32 dot over contiguous input channels.
 * eval splits output rows (batch * OH) over threads; each task writes its own rows.
 */
#include "conv_common.h"
#include "hybrid.h"

#include <string.h>

enum { INPUT = 0, FILTER = 1, BIAS = 2 };
enum { OUTPUT = 0 };

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *w = cpu_in(g, n, FILTER);
  const tfl_tensor *y = cpu_out(g, n, OUTPUT);
  const tfl_conv_params *p = &n->p.conv;
  tfl_status s;
  if ((s = cpu_check_conv_tensors(g, n, x, w, y, "filter", diag))) return s;
  if (w->dims[3] < 1 || x->dims[3] % w->dims[3] || w->dims[0] % (x->dims[3] / w->dims[3]))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input has %d channels, filter dim 3 is %d, %d filters: not "
                        "a whole number of groups", x->dims[3], w->dims[3], w->dims[0]);
  if ((s = cpu_check_conv_strides(g, n, p, diag))) return s;

  cpu_conv_state *st = NULL;
  if ((s = cpu_conv_state_new(state, "conv state", INPUT, FILTER, BIAS, &st, diag))) return s;
  cpu_conv_read_dims(st, x, w, p, 0);
  st->groups = x->dims[3] / w->dims[3];
  cpu_window_axis(p->padding, st->in_h, st->k_h, st->stride_h, st->dil_h, &st->out_h, &st->pad_h);
  cpu_window_axis(p->padding, st->in_w, st->k_w, st->stride_w, st->dil_w, &st->out_w, &st->pad_w);
  if ((s = cpu_check_output_nhwc(g, n, y, st->batches, st->out_h, st->out_w, st->out_c, diag))) return s;
  if (x->type == TFL_TYPE_FLOAT32 && w->type != TFL_TYPE_FLOAT32)
    return cpu_conv_hybrid_prepare(g, n, st, 0, false, diag);
  if ((s = cpu_conv_state_types(g, n, st, "filter", 0, true, diag))) return s;
  return cpu_conv_prepare_packed(g, n, st, "conv packed filter", diag);
}

/* One output row (b, oy) in float. */
static void row_f32(void *arg, size_t row)
{
  const cpu_conv_args *a = arg;
  const cpu_conv_state *st = a->st;
  int bi = (int)(row / (size_t)st->out_h), oy = (int)(row % (size_t)st->out_h);
  const float *x = (const float *)a->x + (size_t)bi * st->in_h * st->in_w * st->in_c;
  const float *bias = a->b;
  float *out = (float *)a->y + row * (size_t)st->out_w * st->out_c;
  const int gc = cpu_conv_group_c(st), groups = st->in_c / gc, goc = st->out_c / groups;
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
        const float *wk = st->packed + ((size_t)ky * st->k_w + kx) * gc * st->out_c;
        for (int gi = 0; gi < groups; gi++)
          for (int ic = 0; ic < gc; ic++)
            cpu_axpy(o + (size_t)gi * goc, wk + (size_t)ic * st->out_c + (size_t)gi * goc, xi[gi * gc + ic], goc);
      }
    }
    cpu_clamp_f32(o, st->out_c, st->act_lo, st->act_hi);
  }
}

/* One output row (b, oy), uint8 or int8. */
static void row_q(void *arg, size_t row)
{
  const cpu_conv_args *a = arg;
  const cpu_conv_state *st = a->st;
  const cpu_requant *rq = &st->rq;
  int bi = (int)(row / (size_t)st->out_h), oy = (int)(row % (size_t)st->out_h);
  size_t x_base = (size_t)bi * st->in_h * st->in_w * st->in_c;
  const int gc = cpu_conv_group_c(st), goc = st->out_c / (st->in_c / gc);
  size_t w_per_oc = (size_t)st->k_h * st->k_w * gc;
  const int32_t *bias = a->b;
  for (int ox = 0; ox < st->out_w; ox++) {
    for (int oc = 0; oc < st->out_c; oc++) {
      int32_t acc = bias ? bias[oc] : 0;
      const size_t c0 = (size_t)(oc / goc) * gc; /* the group's first input channel */
      for (int ky = 0; ky < st->k_h; ky++) {
        int iy = oy * st->stride_h - st->pad_h + ky * st->dil_h;
        if (iy < 0 || iy >= st->in_h) continue;
        for (int kx = 0; kx < st->k_w; kx++) {
          int ix = ox * st->stride_w - st->pad_w + kx * st->dil_w;
          if (ix < 0 || ix >= st->in_w) continue;
          size_t xi = x_base + ((size_t)iy * st->in_w + ix) * st->in_c + c0;
          size_t wi = oc * w_per_oc + ((size_t)ky * st->k_w + kx) * gc;
          acc = cpu_wrap_add(acc, rq->is_u8 ? cpu_dot_u8((const uint8_t *)a->x + xi, (const uint8_t *)a->w + wi,
                                        gc, rq->in_zp, rq->w_zp[oc])
                           : cpu_dot_i8((const int8_t *)a->x + xi, (const int8_t *)a->w + wi,
                                        gc, rq->in_zp, rq->w_zp[oc]));
        }
      }
      cpu_store_q(a->y, rq->is_u8, (row * st->out_w + ox) * st->out_c + oc,
                  cpu_requant_apply(rq, acc, oc));
    }
  }
}

/* One output row (b, oy) of a hybrid conv: int8 dots over contiguous input channels of
 * the quantized image less its zero point (padding adds nothing: it stands for 0.0). */
static void row_hybrid(void *arg, size_t row)
{
  const cpu_conv_args *a = arg;
  const cpu_conv_state *st = a->st;
  int bi = (int)(row / (size_t)st->out_h), oy = (int)(row % (size_t)st->out_h);
  const int8_t *x = st->hy.xq + (size_t)bi * st->in_h * st->in_w * st->in_c;
  const int8_t *w = a->w;
  const int gc = cpu_conv_group_c(st), goc = st->out_c / (st->in_c / gc);
  size_t w_per_oc = (size_t)st->k_h * st->k_w * gc;
  float *out = (float *)a->y + row * (size_t)st->out_w * st->out_c;
  for (int ox = 0; ox < st->out_w; ox++) {
    size_t qg = cpu_conv_hybrid_group(st, bi, oy, ox);
    int32_t zp = st->hy.x_zp[qg];
    for (int oc = 0; oc < st->out_c; oc++) {
      int32_t acc = 0;
      const size_t c0 = (size_t)(oc / goc) * gc; /* the group's first input channel */
      for (int ky = 0; ky < st->k_h; ky++) {
        int iy = oy * st->stride_h - st->pad_h + ky * st->dil_h;
        if (iy < 0 || iy >= st->in_h) continue;
        for (int kx = 0; kx < st->k_w; kx++) {
          int ix = ox * st->stride_w - st->pad_w + kx * st->dil_w;
          if (ix < 0 || ix >= st->in_w) continue;
          const int8_t *xi = x + ((size_t)iy * st->in_w + ix) * st->in_c + c0;
          const int8_t *wi = w + oc * w_per_oc + ((size_t)ky * st->k_w + kx) * gc;
          acc = cpu_wrap_add(acc, cpu_dot_i8(xi, wi, gc, zp, 0));
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

const cpu_kernel cpu_k_conv_2d = {prepare, eval, cpu_conv_release, CPU_F32 | CPU_Q8, 0};
