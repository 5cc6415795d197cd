/* gl_gen_conv.c - CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, MediaPipe's
 * Convolution2DTransposeBias and FULLY_CONNECTED (a 1x1 convolution).
 *
 * One invocation computes one output vec4 (4 output channels at one pixel). Weights
 * are packed so that the 4 vec4s an input slice needs are adjacent and all invocations
 * of a workgroup with the same output slice read the same addresses:
 *   conv:      W[((os * KH + ky) * KW + kx) * IS * 4 + is * 4 + k] = filter[os*4 .. +3][ky][kx][is*4 + k]
 *   depthwise: W[(s * KH + ky) * KW + kx] = filter[0][ky][kx][s*4 .. +3]
 * so acc += v.x * W[i] + v.y * W[i+1] + v.z * W[i+2] + v.w * W[i+3]; the sum times
 * W_SC(os) (the weights' 16-bit scale, gl_consts.h) plus BIAS[os] is the output.
 * This file packs the constants and picks the body: shaders/conv_tile.glsl (a tile of
 * outputs per invocation), conv_split.glsl (a workgroup per output), conv.glsl (inlined
 * into a consumer), depthwise.glsl, transpose_conv.glsl, adding their #defines.
 */
#include "gl_gen.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_shaders.h"
#include "runtime/tfl_fused_act.h"
#include "runtime/tfl_padding.h"

/* Tensor positions */
enum { CONV_IN = 0, CONV_W = 1, CONV_BIAS = 2 };
enum { TC_SHAPE = 0, TC_W = 1, TC_IN = 2, TC_BIAS = 3 };       /* TRANSPOSE_CONV */
enum { MP_IN = 0, MP_W = 1, MP_BIAS = 2 };                      /* Convolution2DTransposeBias */

static const tfl_tensor *input_at(const tfl_graph *g, const tfl_node *n, int k)
{
  return k < n->n_in && n->in[k] >= 0 ? &g->tensors[n->in[k]] : NULL;
}

static bool float_like(tfl_type t)
{
  return t == TFL_TYPE_FLOAT32 || t == TFL_TYPE_FLOAT16 || t == TFL_TYPE_UINT8 || t == TFL_TYPE_INT8;
}

/* Stride, dilation and fused activation of CONV_2D / DEPTHWISE_CONV_2D. */
static tfl_status check_conv_params(const tfl_graph *g, int node, const tfl_conv_params *p, tfl_diag *diag)
{
  if (p->stride_w < 1 || p->stride_h < 1 || p->dilation_w < 1 || p->dilation_h < 1)
    return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "stride %dx%d dilation %dx%d", p->stride_w, p->stride_h,
                         p->dilation_w, p->dilation_h);
  /* TANH / SIGN_BIT here are on hybrid nodes only (the loader clears the others): TFLite
   * ignores them, with its own kernel's input quantization, which the CPU follows */
  if (!tfl_act_is_clamp(p->act))
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "fused %s on a hybrid convolution (TFLite ignores it, CPU only)",
                         tfl_act_name(p->act));
  return TFL_OK;
}

/* 8-bit weights: the raw integer of element i minus its channel's zero point. */
static int32_t weight_q(const tfl_tensor *w, size_t i, int ch)
{
  int32_t q = w->type == TFL_TYPE_INT8 ? ((const int8_t *)w->data)[i] : ((const uint8_t *)w->data)[i];
  return q - w->q.zero_point[w->q.n > 1 ? ch : 0];
}

/* TFLite's 8-bit kernels (and hybrid ones, on their input quantized on the fly) sum in int32
 * and wrap on overflow, as the CPU delegate does; GL sums in float and would saturate at the
 * store. A node whose int32 sum can overflow (|bias| + the input's largest offset from its
 * zero point times the sum of |weights| of one output channel) is left to the CPU, so both
 * delegates give TFLite's result. */
static tfl_status check_accumulator(const tfl_graph *g, int node, const tfl_tensor *w, const tfl_tensor *bias,
                                    int out_c, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  int xi = n->op == TFL_OP_TRANSPOSE_CONV ? TC_IN : CONV_IN;
  const tfl_tensor *x = input_at(g, n, xi);
  int32_t lo, hi;
  if (!x || w->q.n < 1 || (w->type != TFL_TYPE_INT8 && w->type != TFL_TYPE_UINT8)) return TFL_OK;
  double xr;
  if (x->q.n > 0 && tfl_type_int_range(x->type, &lo, &hi) && x->type != TFL_TYPE_INT16) {
    double zp = x->q.zero_point[0];
    xr = hi - zp > zp - lo ? hi - zp : zp - lo;
  } else if (x->type == TFL_TYPE_FLOAT32) {
    xr = 255; /* hybrid: symmetric int8 (127) or asymmetric (up to 255 from its zero point) */
    bias = NULL; /* a float bias is added after the integer sum */
  } else {
    return TFL_OK;
  }
  /* output channels: the last dim of DEPTHWISE_CONV_2D's 1HWC, else dim 0 (OHWI, [out, in]) */
  bool last = n->op == TFL_OP_DEPTHWISE_CONV_2D;
  size_t count = tfl_tensor_count(w), chans = (size_t)(last ? w->dims[w->ndim - 1] : w->dims[0]);
  if (!chans || chans != (size_t)out_c) return TFL_OK; /* the shape checks report it */
  size_t per = count / chans;
  for (size_t c = 0; c < chans; c++) {
    double sum = 0;
    for (size_t k = 0; k < per; k++) sum += abs(weight_q(w, last ? k * chans + c : c * per + k, (int)c));
    double b = bias && bias->type == TFL_TYPE_INT32 ? fabs((double)((const int32_t *)bias->data)[c]) : 0;
    double bound = b + xr * sum;
    if (bound > INT32_MAX)
      return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node,
                           "output channel %zu: its int32 sum can reach %.0f, past INT32_MAX (TFLite wraps it, GL "
                           "sums in float)", c, bound);
  }
  return TFL_OK;
}

static tfl_status check_weights(const tfl_graph *g, int node, const tfl_tensor *w, const tfl_tensor *bias,
                                int out_c, tfl_diag *diag)
{
  if (!w || !w->is_const || !w->data)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "weights are not constant");
  if (!float_like(w->type) && w->type != TFL_TYPE_INT32)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "weights are %s", tfl_type_name(w->type));
  if (bias && (!bias->is_const || !bias->data))
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "bias is not constant");
  if (bias && tfl_tensor_count(bias) != (size_t)out_c)
    return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "bias has %zu values, expected %d", tfl_tensor_count(bias), out_c);
  return check_accumulator(g, node, w, bias, out_c, diag);
}

static tfl_status check_io(const tfl_graph *g, int node, const tfl_tensor *x, int ndim, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  if (!x || n->n_out < 1) return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "missing input or output");
  const tfl_tensor *y = &g->tensors[n->out[0]];
  if (ndim && (x->ndim != ndim || y->ndim != ndim))
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "input has %d dims, output %d (need %d)", x->ndim, y->ndim, ndim);
  if (!float_like(x->type) || !float_like(y->type))
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "types %s -> %s", tfl_type_name(x->type), tfl_type_name(y->type));
  return TFL_OK;
}

tfl_status gl_check_conv(const tfl_graph *g, int node, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  const tfl_tensor *x = input_at(g, n, CONV_IN), *w = input_at(g, n, CONV_W);
  tfl_status s;
  if ((s = check_io(g, node, x, 4, diag))) return s;
  if (!w || w->ndim != 4) return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "filter must have 4 dims");
  if ((s = check_weights(g, node, w, input_at(g, n, CONV_BIAS), w->dims[0], diag))) return s;
  if (w->dims[3] != x->dims[3])
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "grouped convolution (filter depth %d, input %d)", w->dims[3],
                         x->dims[3]);
  return check_conv_params(g, node, &n->p.conv, diag);
}

tfl_status gl_check_depthwise(const tfl_graph *g, int node, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  const tfl_tensor *x = input_at(g, n, CONV_IN), *w = input_at(g, n, CONV_W);
  tfl_status s;
  if ((s = check_io(g, node, x, 4, diag))) return s;
  if (!w || w->ndim != 4 || w->dims[0] != 1) return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "filter must be [1,KH,KW,C]");
  const tfl_tensor *y = &g->tensors[n->out[0]];
  if ((s = check_weights(g, node, w, input_at(g, n, CONV_BIAS), y->dims[3], diag))) return s;
  if (w->dims[3] != y->dims[3] || y->dims[3] % x->dims[3])
    return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "filter depth %d, input %d, output %d", w->dims[3], x->dims[3],
                         y->dims[3]);
  return check_conv_params(g, node, &n->p.conv, diag);
}

tfl_status gl_check_transpose_conv(const tfl_graph *g, int node, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  bool mp = n->op == TFL_OP_CONV2D_TRANSPOSE_BIAS;
  const tfl_tensor *x = input_at(g, n, mp ? MP_IN : TC_IN), *w = input_at(g, n, mp ? MP_W : TC_W);
  const tfl_tensor *bias = input_at(g, n, mp ? MP_BIAS : TC_BIAS);
  tfl_status s;
  if ((s = check_io(g, node, x, 4, diag))) return s;
  if (!w || w->ndim != 4) return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "filter must have 4 dims");
  if ((s = check_weights(g, node, w, bias, w->dims[0], diag))) return s;
  if (w->dims[3] != x->dims[3])
    return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "filter depth %d, input %d", w->dims[3], x->dims[3]);
  const tfl_conv_params *p = &n->p.conv;
  if (p->stride_w < 1 || p->stride_h < 1) return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "stride %dx%d", p->stride_w, p->stride_h);
  if (mp && !bias) return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "missing bias");
  if (!mp && !tfl_act_is_clamp(p->act)) /* hybrid only, as in check_conv_params */
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "fused %s on a hybrid convolution (TFLite ignores it, CPU only)",
                         tfl_act_name(p->act));
  return TFL_OK;
}

tfl_status gl_check_fully_connected(const tfl_graph *g, int node, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  const tfl_tensor *x = input_at(g, n, CONV_IN), *w = input_at(g, n, CONV_W);
  tfl_status s;
  if ((s = check_io(g, node, x, 0, diag))) return s;
  if (!w || w->ndim != 2) return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "weights must have 2 dims");
  if ((s = check_weights(g, node, w, input_at(g, n, CONV_BIAS), w->dims[0], diag))) return s;
  gl_shape xs, ys;
  const tfl_tensor *y = &g->tensors[n->out[0]];
  if (!gl_shape_of(x, &xs) || !gl_shape_of(y, &ys)) return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "more than 4 dims");
  /* runs as a 1x1 convolution: the input's last dim is the weights' depth */
  if (xs.c != w->dims[1] || ys.c != w->dims[0] || xs.b != ys.b || xs.h != ys.h || xs.w != ys.w)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "input depth %d vs weights [%d,%d] (flattening inputs runs on the CPU)",
                         xs.c, w->dims[0], w->dims[1]);
  if (!gl_act_ok(n->p.fc.act)) return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "activation %d", (int)n->p.fc.act);
  return TFL_OK;
}

/* Bias as OS vec4s (zeros without bias); NULL on OOM. Quantized int32 bias without its
 * own scale uses input scale * weight scale, as TFLite defines it. */
static float *bias_values(const tfl_tensor *bias, const tfl_tensor *x, const tfl_tensor *w, int out_c)
{
  int os = (out_c + 3) / 4;
  float *b = calloc((size_t)os * 4, sizeof(float));
  if (!b || !bias) return b;
  if (bias->type == TFL_TYPE_INT32 && bias->q.n == 0) {
    for (int c = 0; c < out_c; c++) {
      float ws = w->q.n ? w->q.scale[w->q.n > 1 ? c : 0] : 1.0f;
      float xs = x->q.n ? x->q.scale[0] : 1.0f;
      b[c] = (float)((const int32_t *)bias->data)[c] * xs * ws;
    }
    return b;
  }
  float *r = gl_const_reals(bias);
  if (!r) {
    free(b);
    return NULL;
  }
  memcpy(b, r, sizeof(float) * (size_t)out_c);
  free(r);
  return b;
}

static tfl_status add_bias_as(gl_gen_out *o, const char *name, const tfl_tensor *bias, const tfl_tensor *x,
                              const tfl_tensor *w, int out_c, tfl_diag *diag)
{
  float *b = bias_values(bias, x, w, out_c);
  if (!b) return tfl_fail(diag, TFL_ERR_NOMEM, "bias");
  gl_gen_add_const(o, name, b, (size_t)((out_c + 3) / 4));
  return TFL_OK;
}

static tfl_status add_bias(const gl_gen_in *in, gl_gen_out *o, const tfl_tensor *bias, const tfl_tensor *x,
                           const tfl_tensor *w, int out_c, tfl_diag *diag)
{
  (void)in;
  return add_bias_as(o, "BIAS", bias, x, w, out_c, diag);
}

/* OHWI filter (O = out_c, I = in_c) -> the conv packing above. */
static float *pack_ohwi(const float *f, int out_c, int kh, int kw, int in_c, size_t *n_vec4)
{
  int os = (out_c + 3) / 4, is = (in_c + 3) / 4;
  *n_vec4 = (size_t)os * kh * kw * is * 4;
  float *p = calloc(*n_vec4 * 4, sizeof(float));
  if (!p) return NULL;
  for (int o = 0; o < out_c; o++)
    for (int ky = 0; ky < kh; ky++)
      for (int kx = 0; kx < kw; kx++)
        for (int i = 0; i < in_c; i++) {
          size_t v = ((((size_t)(o / 4) * kh + ky) * kw + kx) * is + i / 4) * 4 + i % 4;
          p[v * 4 + o % 4] = f[(((size_t)o * kh + ky) * kw + kx) * in_c + i];
        }
  return p;
}

/* Weights as gl_gen_add_weights wants them: a group per output slice. */
static tfl_status add_ohwi_as(gl_gen_out *o, const char *name, const tfl_tensor *w, int out_c, int kh, int kw, int in_c,
                              tfl_diag *diag)
{
  float *f = gl_const_reals(w);
  if (!f) return tfl_fail(diag, TFL_ERR_NOMEM, "weights");
  size_t nv;
  float *p = pack_ohwi(f, out_c, kh, kw, in_c, &nv);
  free(f);
  if (!p) return tfl_fail(diag, TFL_ERR_NOMEM, "packed weights");
  int os = (out_c + 3) / 4;
  gl_gen_add_weights(o, name, p, nv, (int)(nv / (size_t)os), gl_weight_steps(w, out_c, 0));
  return TFL_OK;
}

static tfl_status add_ohwi(gl_gen_out *o, const tfl_tensor *w, int out_c, int kh, int kw, int in_c, tfl_diag *diag)
{
  return add_ohwi_as(o, "W", w, out_c, kh, kw, in_c, diag);
}

tfl_status gl_gen_pointwise_consts(const tfl_graph *g, int node, gl_gen_out *o, const char *w_name, const char *b_name,
                                   tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  const tfl_tensor *x = input_at(g, n, CONV_IN), *w = input_at(g, n, CONV_W);
  int out_c = w->dims[0], in_c = n->op == TFL_OP_CONV_2D ? w->dims[3] : w->dims[1];
  tfl_status st = add_ohwi_as(o, w_name, w, out_c, 1, 1, in_c, diag);
  return st ? st : add_bias_as(o, b_name, input_at(g, n, CONV_BIAS), x, w, out_c, diag);
}

/* The window's geometry as conv_split.glsl, conv_tile.glsl and conv.glsl read it. */
static void conv_defines(gl_str *s, int kh, int kw, int sh, int sw, int pt, int pl, int dh, int dw)
{
  gl_str_addf(s,
              "#define CV_KH %d\n#define CV_KW %d\n#define CV_SH %d\n#define CV_SW %d\n#define CV_PT %d\n"
              "#define CV_PL %d\n#define CV_DH %d\n#define CV_DW %d\n",
              kh, kw, sh, sw, pt, pl, dh, dw);
}

/* The convolution as an output tile of PX pixels along x times SL slices per invocation
 * (shaders/conv_tile.glsl; the tuning, gl_tune_conv, picks the tile from the output's
 * size). */
static void emit_conv_tile(gl_gen_out *o, const gl_gen_in *in, int kh, int kw, int sh, int sw, int pt, int pl, int dh,
                           int dw, tfl_activation act)
{
  int px = in->tile.conv_px, sl = in->tile.conv_sl;
  int sg = (in->out.s + sl - 1) / sl;
  /* One-pixel tiles on large maps with many output slices: decoding 16-bit weights, not
   * their bytes, bounds the layer (the tuning table's conv_wide) */
  if (in->tile.conv_wide)
    for (int i = 0; i < o->n_consts; i++)
      if (strcmp(o->consts[i].name, "W") == 0) o->consts[i].wide = true;
  o->grid[0] = (in->out.w + px - 1) / px;
  o->grid[1] = in->out.h;
  o->grid[2] = in->out.b * sg;
  /* not the inlined body (in->fn: emit_conv_fn), so it may declare */
  conv_defines(&o->decls, kh, kw, sh, sw, pt, pl, dh, dw);
  gl_str_addf(&o->decls, "#define CV_PX %d\n#define CV_SL %d\n#define CV_SG %d\n", px, sl, sg);
  gl_unroll_list(&o->decls, "CV_EACH_PX", px, true);
  gl_unroll_list(&o->decls, "CV_EACH_SL", sl, false);
  gl_act_macro(act, "CV_ACT", &o->decls);
  gl_str_addf(&o->main, "%s", conv_tile); /* shaders/conv_tile.glsl */
}

/* Few outputs, long reductions (the small-spatial heads of detectors, squeeze-excite
 * FCs): one workgroup of split_wg invocations (gl_gen_tile) per output vec4 splits the KH*KW*IS taps,
 * then sums in shared memory, instead of one invocation walking them all alone. */
static void emit_conv_split(gl_gen_out *o, const gl_gen_in *in, int kh, int kw, int sh, int sw, int pt, int pl, int dh,
                            int dw, tfl_activation act)
{
  o->grid[0] = in->tile.split_wg;
  o->grid[1] = in->out.h * in->out.w;
  o->grid[2] = in->out.b * in->out.s;
  o->wg[0] = in->tile.split_wg;
  o->wg[1] = o->wg[2] = 1;
  o->whole_groups = true;
  gl_str_addf(&o->decls, "shared highp vec4 red[%d];\n", in->tile.split_wg);
  gl_str_addf(&o->decls, "#define CV_WG %d\n", in->tile.split_wg);
  conv_defines(&o->decls, kh, kw, sh, sw, pt, pl, dh, dw);
  gl_str *m = &o->main;
  gl_str_addf(m, "%s", conv_split); /* shaders/conv_split.glsl */
  gl_emit_tree_sum(m, "red", "t", in->tile.split_wg);
  gl_str_addf(m, "  if (t == 0) {\n    ACC4 r = red[0] * W_SC(s) + BIAS_LD(s);\n");
  gl_act_stmt(act, "r", m);
  gl_str_addf(m, "    store_out(b, y, x, s, r);\n  }\n");
}

/* Inlined into a consumer (in->fn): one output vec4 of (b, y, x, s), a plain loop
 * (shaders/conv.glsl). Its parameters are defined inside the function and dropped after. */
static void emit_conv_fn(gl_gen_out *o, const gl_gen_in *in, int kh, int kw, int sh, int sw, int pt, int pl, int dh,
                         int dw, tfl_activation act)
{
  gl_gen_per_vec4(in, o);
  gl_str *m = &o->main;
  conv_defines(m, kh, kw, sh, sw, pt, pl, dh, dw);
  gl_act_macro(act, "CV_ACT", m);
  gl_str_addf(m, "%s", conv); /* shaders/conv.glsl */
  gl_undef(m, "CV_KH CV_KW CV_SH CV_SW CV_PT CV_PL CV_DH CV_DW CV_ACT");
}

/* The tuning table's choice between the two bodies. */
static void emit_conv(gl_gen_out *o, const gl_gen_in *in, int kh, int kw, int sh, int sw, int pt, int pl, int dh, int dw,
                      tfl_activation act)
{
  if (in->fn) {
    emit_conv_fn(o, in, kh, kw, sh, sw, pt, pl, dh, dw, act);
    return;
  }
  if (in->tile.conv_split) emit_conv_split(o, in, kh, kw, sh, sw, pt, pl, dh, dw, act);
  else emit_conv_tile(o, in, kh, kw, sh, sw, pt, pl, dh, dw, act);
}

/* Two convolutions on one input with one geometry (a detector's box and class heads):
 * A's output slices, then B's, from one set of packed weights (in->sib, gl_fuse.c). */
static tfl_status add_pair_consts(gl_gen_out *o, const tfl_graph *g, const tfl_node *na, const tfl_node *nb,
                                  tfl_diag *diag)
{
  const tfl_node *ns[2] = {na, nb};
  float *pk[2] = {NULL, NULL}, *st[2] = {NULL, NULL}, *bs[2] = {NULL, NULL};
  size_t nv[2] = {0, 0};
  int os[2];
  tfl_status err = TFL_OK;
  for (int i = 0; i < 2 && !err; i++) {
    const tfl_tensor *x = input_at(g, ns[i], CONV_IN), *w = input_at(g, ns[i], CONV_W);
    os[i] = (w->dims[0] + 3) / 4;
    float *f = gl_const_reals(w);
    pk[i] = f ? pack_ohwi(f, w->dims[0], w->dims[1], w->dims[2], w->dims[3], &nv[i]) : NULL;
    free(f);
    st[i] = gl_weight_steps(w, w->dims[0], 0);
    bs[i] = bias_values(input_at(g, ns[i], CONV_BIAS), x, w, w->dims[0]);
    if (!pk[i] || !bs[i]) err = TFL_ERR_NOMEM;
  }
  float *w = err ? NULL : malloc((nv[0] + nv[1]) * 4 * sizeof(float));
  float *b = err ? NULL : malloc((size_t)(os[0] + os[1]) * 4 * sizeof(float));
  float *steps = !err && (st[0] || st[1]) ? calloc((size_t)(os[0] + os[1]) * 4, sizeof(float)) : NULL;
  if (w && b) {
    memcpy(w, pk[0], nv[0] * 4 * sizeof(float));
    memcpy(w + nv[0] * 4, pk[1], nv[1] * 4 * sizeof(float));
    memcpy(b, bs[0], (size_t)os[0] * 4 * sizeof(float));
    memcpy(b + os[0] * 4, bs[1], (size_t)os[1] * 4 * sizeof(float));
    for (int i = 0; steps && i < 2; i++)
      if (st[i]) memcpy(steps + (i ? os[0] * 4 : 0), st[i], (size_t)os[i] * 4 * sizeof(float));
  }
  for (int i = 0; i < 2; i++) free(pk[i]), free(st[i]), free(bs[i]);
  if (!w || !b) {
    free(w), free(b), free(steps);
    return tfl_fail(diag, TFL_ERR_NOMEM, "paired convolution weights");
  }
  gl_gen_add_weights(o, "W", w, nv[0] + nv[1], (int)(nv[0] / (size_t)os[0]), steps);
  gl_gen_add_const(o, "BIAS", b, (size_t)(os[0] + os[1]));
  return TFL_OK;
}

tfl_status gl_gen_conv(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  const tfl_graph *g = in->g;
  const tfl_node *n = in->n;
  const tfl_tensor *x = input_at(g, n, CONV_IN), *w = input_at(g, n, CONV_W);
  const tfl_conv_params *p = &n->p.conv;
  int kh = w->dims[1], kw = w->dims[2];
  int pt = tfl_conv_pad_before(p->padding, in->in[0].h, kh, p->stride_h, p->dilation_h, in->out.h);
  int pl = tfl_conv_pad_before(p->padding, in->in[0].w, kw, p->stride_w, p->dilation_w, in->out.w);
  tfl_status st;
  if (in->sib) {
    if ((st = add_pair_consts(o, g, n, in->sib, diag))) return st;
  } else {
    if ((st = add_ohwi(o, w, w->dims[0], kh, kw, w->dims[3], diag))) return st;
    if ((st = add_bias(in, o, input_at(g, n, CONV_BIAS), x, w, w->dims[0], diag))) return st;
  }
  emit_conv(o, in, kh, kw, p->stride_h, p->stride_w, pt, pl, p->dilation_h, p->dilation_w, p->act);
  return TFL_OK;
}

tfl_status gl_gen_fully_connected(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  const tfl_graph *g = in->g;
  const tfl_node *n = in->n;
  const tfl_tensor *x = input_at(g, n, CONV_IN), *w = input_at(g, n, CONV_W);
  tfl_status st;
  if ((st = add_ohwi(o, w, w->dims[0], 1, 1, w->dims[1], diag))) return st;
  if ((st = add_bias(in, o, input_at(g, n, CONV_BIAS), x, w, w->dims[0], diag))) return st;
  emit_conv(o, in, 1, 1, 1, 1, 0, 0, 1, 1, n->p.fc.act);
  return TFL_OK;
}

/* Depthwise packing (see the top): a group of KH*KW vec4s per output slice. */
static tfl_status add_depthwise_weights(gl_gen_out *o, const char *name, const tfl_tensor *w, tfl_diag *diag)
{
  int kh = w->dims[1], kw = w->dims[2], oc = w->dims[3], os = (oc + 3) / 4;
  float *f = gl_const_reals(w);
  float *pk = calloc((size_t)os * kh * kw * 4, sizeof(float));
  if (!f || !pk) {
    free(f);
    free(pk);
    return tfl_fail(diag, TFL_ERR_NOMEM, "depthwise weights");
  }
  for (int ky = 0; ky < kh; ky++)
    for (int kx = 0; kx < kw; kx++)
      for (int c = 0; c < oc; c++)
        pk[((((size_t)c / 4) * kh + ky) * kw + kx) * 4 + c % 4] = f[((size_t)ky * kw + kx) * oc + c];
  free(f);
  gl_gen_add_weights(o, name, pk, (size_t)os * kh * kw, kh * kw, gl_weight_steps(w, oc, 3));
  return TFL_OK;
}

tfl_status gl_gen_depthwise_consts(const tfl_graph *g, int node, gl_gen_out *o, const char *w_name, const char *b_name,
                                   tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  const tfl_tensor *x = input_at(g, n, CONV_IN), *w = input_at(g, n, CONV_W);
  tfl_status st = add_depthwise_weights(o, w_name, w, diag);
  return st ? st : add_bias_as(o, b_name, input_at(g, n, CONV_BIAS), x, w, w->dims[3], diag);
}

tfl_status gl_gen_depthwise(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  const tfl_graph *g = in->g;
  const tfl_node *n = in->n;
  const tfl_tensor *w = input_at(g, n, CONV_W);
  const tfl_conv_params *p = &n->p.conv;
  int kh = w->dims[1], kw = w->dims[2], oc = w->dims[3], mult = oc / in->in[0].c;
  int pt = tfl_conv_pad_before(p->padding, in->in[0].h, kh, p->stride_h, p->dilation_h, in->out.h);
  int pl = tfl_conv_pad_before(p->padding, in->in[0].w, kw, p->stride_w, p->dilation_w, in->out.w);
  tfl_status st;
  if ((st = gl_gen_depthwise_consts(g, in->node, o, "W", "BIAS", diag))) return st;
  gl_gen_per_vec4(in, o);
  gl_str *m = &o->main; /* defined inside the body: it may be inlined into a consumer */
  gl_str_addf(m,
              "#define DW_KH %d\n#define DW_KW %d\n#define DW_SH %d\n#define DW_SW %d\n#define DW_PT %d\n"
              "#define DW_PL %d\n#define DW_DH %d\n#define DW_DW %d\n#define DW_MULT %d\n",
              kh, kw, p->stride_h, p->stride_w, pt, pl, p->dilation_h, p->dilation_w, mult);
  gl_act_macro(p->act, "DW_ACT", m);
  gl_str_addf(m, "%s", depthwise); /* shaders/depthwise.glsl */
  gl_undef(m, "DW_KH DW_KW DW_SH DW_SW DW_PT DW_PL DW_DH DW_DW DW_MULT DW_ACT");
  return TFL_OK;
}

tfl_status gl_gen_transpose_conv(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  const tfl_graph *g = in->g;
  const tfl_node *n = in->n;
  bool mp = n->op == TFL_OP_CONV2D_TRANSPOSE_BIAS;
  int xi = mp ? MP_IN : TC_IN;
  const tfl_tensor *x = input_at(g, n, xi), *w = input_at(g, n, mp ? MP_W : TC_W);
  const tfl_tensor *bias = input_at(g, n, mp ? MP_BIAS : TC_BIAS);
  const tfl_conv_params *p = &n->p.conv;
  int kh = w->dims[1], kw = w->dims[2];

  int ph, pw;
  if (mp) {
    int th = 0, tw = 0;
    if (p->padding == TFL_PAD_SAME) { /* output stride * in (TFLite's): the overlap is k - stride */
      th = kh - p->stride_h;
      tw = kw - p->stride_w;
      th = th > 0 ? th : 0;
      tw = tw > 0 ? tw : 0;
    }
    ph = th / 2;
    pw = tw / 2;
  } else {
    ph = tfl_conv_pad_before(p->padding, in->out.h, kh, p->stride_h, 1, tfl_conv_out_size(p->padding, in->out.h, kh, p->stride_h, 1));
    pw = tfl_conv_pad_before(p->padding, in->out.w, kw, p->stride_w, 1, tfl_conv_out_size(p->padding, in->out.w, kw, p->stride_w, 1));
  }
  tfl_status st;
  if ((st = add_ohwi(o, w, w->dims[0], kh, kw, w->dims[3], diag))) return st;
  if ((st = add_bias(in, o, bias, x, w, w->dims[0], diag))) return st;
  gl_gen_per_vec4(in, o);
  gl_str *m = &o->main; /* defined inside the body: it may be inlined into a consumer */
  gl_str_addf(m,
              "#define TP_H I%d_H\n#define TP_W I%d_W\n#define TP_S I%d_S\n#define TP_LD I%d_LD\n#define TP_KH %d\n"
              "#define TP_KW %d\n#define TP_SH %d\n#define TP_SW %d\n#define TP_PH %d\n#define TP_PW %d\n",
              xi, xi, xi, xi, kh, kw, p->stride_h, p->stride_w, ph, pw);
  if (mp) gl_str_addf(m, "#define TP_ACT(v)\n"); /* MediaPipe's op has no activation */
  else gl_act_macro(p->act, "TP_ACT", m);
  gl_str_addf(m, "%s", transpose_conv); /* shaders/transpose_conv.glsl */
  gl_undef(m, "TP_H TP_W TP_S TP_LD TP_KH TP_KW TP_SH TP_SW TP_PH TP_PW TP_ACT");
  return TFL_OK;
}
