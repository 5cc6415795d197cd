/* test_depthwise_conv.c - DEPTHWISE_CONV_2D reference kernel against hand-worked values
 * and a naive double-precision depthwise convolution written here (float tolerance 1e-5 absolute; quantized:
 * within 1 LSB of the naive result on the dequantized inputs). */
#include "conv_test_util.h"

#include <string.h>

enum { F32 = TEST_F32, U8 = TEST_U8, I8PC = TEST_I8PC };
static const char *type_names[] = {"float32", "uint8", "int8 per-channel"};

/* Direct definition, oc = ic * mult + m: y[b,oy,ox,oc] = bias[oc] + sum x[b,iy,ix,ic] * w[0,ky,kx,oc] */
static void naive(const conv_case *c, const float *x, const float *w, const float *b, float *y,
                  int oh, int ow, int act)
{
  int ph = test_pad(c->same, c->h, c->kh, c->sh, c->dh, oh);
  int pw = test_pad(c->same, c->w, c->kw, c->sw, c->dw, ow);
  for (int bi = 0; bi < c->n; bi++)
    for (int oy = 0; oy < oh; oy++)
      for (int ox = 0; ox < ow; ox++)
        for (int o = 0; o < c->oc; o++) {
          double acc = b ? b[o] : 0.0;
          int i = o / (c->oc / c->ic);
          for (int ky = 0; ky < c->kh; ky++)
            for (int kx = 0; kx < c->kw; kx++) {
              int iy = oy * c->sh - ph + ky * c->dh, ix = ox * c->sw - pw + kx * c->dw;
              if (iy < 0 || ix < 0 || iy >= c->h || ix >= c->w) continue;
              acc += (double)x[((bi * c->h + iy) * c->w + ix) * c->ic + i] *
                     w[(ky * c->kw + kx) * c->oc + o];
            }
          float v = (float)acc;
          y[((bi * oh + oy) * ow + ox) * c->oc + o] = act ? test_act(c->act, v) : v;
        }
}

static int run_case(const conv_case *c, int type, int threads)
{
  int oh = test_out_size(c->same, c->h, c->kh, c->sh, c->dh);
  int ow = test_out_size(c->same, c->w, c->kw, c->sw, c->dw);
  size_t nx = (size_t)c->n * c->h * c->w * c->ic, nw = (size_t)c->kh * c->kw * c->oc;
  test_data d;
  test_data_init(&d, type, nx, nw, c->oc, (size_t)c->n * oh * ow * c->oc);
  if (type != F32) { /* weight channel o: elements o, o + oc, ... (axis 3) */
    test_data_quantize(&d, 1, 128);
    naive(c, d.x, d.w, c->bias ? d.b : NULL, d.pre, oh, ow, 0);
    test_data_out_quant(&d);
  }
  naive(c, d.x, d.w, c->bias ? d.b : NULL, d.want, oh, ow, 1);

  op_runner r;
  op_runner_init(&r, TFL_OP_DEPTHWISE_CONV_2D);
  int32_t xd[4] = {c->n, c->h, c->w, c->ic}, wd[4] = {1, c->kh, c->kw, c->oc};
  int32_t yd[4] = {c->n, oh, ow, c->oc};
  int t[4];
  test_data_tensors(&r, &d, 4, xd, 4, wd, 3, c->bias, 4, yd, t);
  op_runner_io(&r, t, 3, &t[3], 1);
  r.node.p.conv = (tfl_conv_params){c->same ? TFL_PAD_SAME : TFL_PAD_VALID, c->sw, c->sh, c->dw,
                                    c->dh, c->oc / c->ic, c->act};
  char what[160];
  snprintf(what, sizeof what, "depthwise %s %dx%d s%d d%d %s act%d bias%d ic%d oc%d t%d",
           type_names[type], c->kh, c->kw, c->sh, c->dh, c->same ? "SAME" : "VALID", c->act,
           c->bias, c->ic, c->oc, threads);
  int ok = test_data_run(&r, threads, &d, t[3], c->act, what);
  op_runner_free(&r);
  test_data_free(&d);
  return ok;
}

/* 2x2x2 input, 2x2 filter, multiplier 2 (4 outputs), VALID: worked by hand.
 * x channels: c0 = {1,2,3,4}, c1 = {10,20,30,40}; outputs 0,1 read c0, outputs 2,3 read c1. */
static int hand_case(void)
{
  float x[8] = {1, 10, 2, 20, 3, 30, 4, 40};
  float w[16] = {1, 0, 1, 0,  1, 1, 0, 0,  1, 0, 0, 1,  1, 2, -1, 0}; /* [ky][kx][oc] */
  float b[4] = {0, 0.5f, 0, -1};
  /* oc0 = 1+2+3+4 = 10; oc1 = 0+2+0+8 + 0.5 = 10.5; oc2 = 10+0+0-40 = -30;
   * oc3 = 0+0+30+0 - 1 = 29 */
  float want[4] = {10, 10.5f, -30, 29};
  op_runner r;
  op_runner_init(&r, TFL_OP_DEPTHWISE_CONV_2D);
  int xt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){1, 2, 2, 2}, x, false);
  int wt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){1, 2, 2, 4}, w, true);
  int bt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){4}, b, true);
  int yt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){1, 1, 1, 4}, NULL, false);
  op_runner_io(&r, (int[]){xt, wt, bt}, 3, (int[]){yt}, 1);
  r.node.p.conv = (tfl_conv_params){TFL_PAD_VALID, 1, 1, 1, 1, 2, TFL_ACT_NONE};
  TEST_CHECK(op_runner_run(&r, 1) == TFL_OK);
  int ok = op_runner_expect_near("depthwise hand", r.graph.tensors[yt].data, want, 4, 0);
  op_runner_free(&r);
  return ok;
}

/* Filter channels not a multiple of the input's are refused, naming node and op. */
static int bad_shape(void)
{
  return test_conv_refused(TFL_OP_DEPTHWISE_CONV_2D, (int32_t[]){1, 3, 3, 2},
                           (int32_t[]){1, 2, 2, 3}, (int32_t[]){1, 2, 2, 3}, "DEPTHWISE_CONV_2D",
                           "multiple");
}

int main(void)
{
  int ok = hand_case() && bad_shape();
  const conv_case cases[] = {
    /* n h  w  ic oc kh kw sh sw dh dw same bias act */
    {1, 5, 5, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, TFL_ACT_NONE},
    {1, 5, 5, 3, 6, 3, 3, 1, 1, 1, 1, 0, 1, TFL_ACT_RELU},        /* multiplier 2 */
    {2, 7, 6, 5, 5, 3, 3, 2, 2, 1, 1, 1, 0, TFL_ACT_RELU6},
    {1, 7, 6, 3, 9, 3, 2, 2, 1, 1, 1, 0, 1, TFL_ACT_RELU_N1_TO_1}, /* multiplier 3 */
    {1, 8, 8, 2, 4, 3, 3, 1, 1, 2, 2, 1, 1, TFL_ACT_NONE},        /* dilation 2 */
    {1, 9, 8, 3, 3, 3, 3, 2, 2, 2, 1, 0, 1, TFL_ACT_RELU},
    {1, 6, 6, 19, 19, 3, 3, 2, 2, 1, 1, 1, 1, TFL_ACT_RELU6},     /* > 8 channels, odd */
  };
  for (size_t k = 0; ok && k < sizeof cases / sizeof cases[0]; k++)
    for (int type = F32; ok && type <= I8PC; type++)
      for (int threads = 1; ok && threads <= 3; threads += 2) ok = run_case(&cases[k], type, threads);
  printf("%s\n", ok ? "test_depthwise_conv: ok" : "test_depthwise_conv: FAILED");
  return ok ? 0 : 1;
}
