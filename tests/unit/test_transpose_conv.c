/* test_transpose_conv.c - TRANSPOSE_CONV and MediaPipe's Convolution2DTransposeBias
 * reference kernels against a hand-worked case and a naive scatter written here
 * (float tolerance 1e-5 absolute; quantized: within 1 LSB of the naive result on the
 * dequantized inputs). */
#include "conv_test_util.h"

#include <string.h>

typedef struct {
  int mediapipe;      /* Convolution2DTransposeBias rather than TRANSPOSE_CONV */
  int n, h, w, ic, oc, kh, kw, s, same, bias, oh, ow; /* oh/ow: TRANSPOSE_CONV only */
  tfl_activation act;
} tc_case;

enum { F32 = TEST_F32, U8 = TEST_U8, I8PC = TEST_I8PC };
static const char *type_names[] = {"float32", "uint8", "int8 per-channel"};

/* Scatter definition: input (iy, ix) adds x * w[o,ky,kx,i] into output
 * (iy * s - ph + ky, ix * s - pw + kx) when that is inside. */
static void naive(const tc_case *c, const float *x, const float *w, const float *b, float *y, int oh,
                  int ow, int ph, int pw, int act)
{
  size_t ny = (size_t)c->n * oh * ow * c->oc;
  double *acc = calloc(ny, sizeof(double));
  for (int bi = 0; bi < c->n; bi++)
    for (int iy = 0; iy < c->h; iy++)
      for (int ix = 0; ix < c->w; ix++)
        for (int ky = 0; ky < c->kh; ky++)
          for (int kx = 0; kx < c->kw; kx++) {
            int oy = iy * c->s - ph + ky, ox = ix * c->s - pw + kx;
            if (oy < 0 || ox < 0 || oy >= oh || ox >= ow) continue;
            for (int o = 0; o < c->oc; o++)
              for (int i = 0; i < c->ic; i++)
                acc[((bi * oh + oy) * ow + ox) * c->oc + o] +=
                    (double)x[((bi * c->h + iy) * c->w + ix) * c->ic + i] *
                    w[((o * c->kh + ky) * c->kw + kx) * c->ic + i];
          }
  for (size_t k = 0; k < ny; k++) {
    float v = (float)(acc[k] + (b ? b[k % c->oc] : 0.0));
    y[k] = act ? test_act(c->act, v) : v;
  }
  free(acc);
}

static int run_case(const tc_case *c, int type, int threads)
{
  int oh, ow, ph, pw;
  if (c->mediapipe) { /* as the real TFLite runs it: SAME gives s * in, pad half the overlap */
    oh = c->same ? c->s * c->h : c->s * (c->h - 1) + c->kh;
    ow = c->same ? c->s * c->w : c->s * (c->w - 1) + c->kw;
    int th = c->s * (c->h - 1) + c->kh - oh, tw = c->s * (c->w - 1) + c->kw - ow;
    ph = th > 0 ? th / 2 : 0;
    pw = tw > 0 ? tw / 2 : 0;
  } else { /* TFLite: the pad of a forward conv from the output size */
    oh = c->oh;
    ow = c->ow;
    ph = test_pad(c->same, oh, c->kh, c->s, 1, test_out_size(c->same, oh, c->kh, c->s, 1));
    pw = test_pad(c->same, ow, c->kw, c->s, 1, test_out_size(c->same, ow, c->kw, c->s, 1));
  }
  size_t nx = (size_t)c->n * c->h * c->w * c->ic, nw = (size_t)c->oc * c->kh * c->kw * c->ic;
  test_data d;
  test_data_init(&d, type, nx, nw, c->oc, (size_t)c->n * oh * ow * c->oc);
  if (type != F32) {
    test_data_quantize(&d, nw / c->oc, 128);
    naive(c, d.x, d.w, c->bias ? d.b : NULL, d.pre, oh, ow, ph, pw, 0);
    test_data_out_quant(&d);
  }
  naive(c, d.x, d.w, c->bias ? d.b : NULL, d.want, oh, ow, ph, pw, 1);

  op_runner r;
  op_runner_init(&r, c->mediapipe ? TFL_OP_CONV2D_TRANSPOSE_BIAS : TFL_OP_TRANSPOSE_CONV);
  int32_t xd[4] = {c->n, c->h, c->w, c->ic}, wd[4] = {c->oc, c->kh, c->kw, c->ic};
  int32_t yd[4] = {c->n, oh, ow, c->oc};
  int st = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){4}, yd, true);
  int t[4];
  test_data_tensors(&r, &d, 4, xd, 4, wd, 0, c->bias, 4, yd, t);
  if (c->mediapipe)
    op_runner_io(&r, t, 3, &t[3], 1);
  else
    op_runner_io(&r, (int[]){st, t[1], t[0], t[2]}, 4, &t[3], 1);
  r.node.p.conv = (tfl_conv_params){c->same ? TFL_PAD_SAME : TFL_PAD_VALID, c->s, c->s, 1, 1, 1,
                                    c->act};
  char what[160];
  snprintf(what, sizeof what, "%s %s %dx%d s%d %s act%d bias%d ic%d oc%d out %dx%d t%d",
           c->mediapipe ? "Convolution2DTransposeBias" : "TRANSPOSE_CONV", type_names[type], c->kh,
           c->kw, c->s, c->same ? "SAME" : "VALID", c->act, c->bias, c->ic, c->oc, oh, ow, threads);
  int ok = test_data_run(&r, threads, &d, t[3], c->act, what);
  op_runner_free(&r);
  test_data_free(&d);
  return ok;
}

/* 2x2 input {1,2,3,4}, 2x2 filter {1,2,3,4}, stride 2, VALID: each input pixel stamps
 * v * filter into its own 2x2 block of the 4x4 output (worked by hand). Both ops. */
static int hand_case(void)
{
  float x[4] = {1, 2, 3, 4}, w[4] = {1, 2, 3, 4}, b[1] = {0};
  float want[16] = {1, 2, 2, 4,  3, 4, 6, 8,  3, 6, 4, 8,  9, 12, 12, 16};
  for (int mp = 0; mp < 2; mp++) {
    op_runner r;
    op_runner_init(&r, mp ? TFL_OP_CONV2D_TRANSPOSE_BIAS : TFL_OP_TRANSPOSE_CONV);
    int st = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){4}, (int32_t[]){1, 4, 4, 1}, true);
    int xt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){1, 2, 2, 1}, x, false);
    int wt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){1, 2, 2, 1}, w, true);
    int bt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){1}, b, true);
    int yt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){1, 4, 4, 1}, NULL, false);
    if (mp)
      op_runner_io(&r, (int[]){xt, wt, bt}, 3, (int[]){yt}, 1);
    else
      op_runner_io(&r, (int[]){st, wt, xt}, 3, (int[]){yt}, 1);
    r.node.p.conv = (tfl_conv_params){TFL_PAD_VALID, 2, 2, 1, 1, 1, TFL_ACT_NONE};
    TEST_CHECK(op_runner_run(&r, 1) == TFL_OK);
    int ok = op_runner_expect_near(mp ? "Convolution2DTransposeBias hand" : "TRANSPOSE_CONV hand",
                                   r.graph.tensors[yt].data, want, 16, 0);
    op_runner_free(&r);
    if (!ok) return 0;
  }
  return 1;
}

/* An output that disagrees with output_shape is refused, naming node and op. */
static int bad_shape(void)
{
  op_runner r;
  op_runner_init(&r, TFL_OP_TRANSPOSE_CONV);
  int st = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){4}, (int32_t[]){1, 5, 4, 1}, true);
  int xt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){1, 2, 2, 1}, NULL, false);
  int wt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){1, 2, 2, 1}, NULL, true);
  int yt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){1, 4, 4, 1}, NULL, false);
  op_runner_io(&r, (int[]){st, wt, xt}, 3, (int[]){yt}, 1);
  r.node.p.conv = (tfl_conv_params){TFL_PAD_VALID, 2, 2, 1, 1, 1, TFL_ACT_NONE};
  tfl_status s = op_runner_run(&r, 1);
  op_runner_free(&r);
  TEST_CHECK(s == TFL_ERR_SHAPE);
  TEST_CHECK(strstr(r.diag.error, "TRANSPOSE_CONV") && strstr(r.diag.error, "output_shape"));
  return 1;
}

int main(void)
{
  int ok = hand_case() && bad_shape();
  const tc_case cases[] = {
    /* mp n h w ic oc kh kw s same bias oh ow act */
    {0, 1, 3, 3, 3, 5, 3, 3, 1, 1, 1, 3, 3, TFL_ACT_NONE},
    {0, 1, 3, 4, 3, 5, 3, 3, 2, 1, 1, 6, 8, TFL_ACT_RELU},
    {0, 2, 3, 3, 5, 3, 4, 4, 2, 1, 0, 5, 6, TFL_ACT_NONE},      /* odd output sizes */
    {0, 1, 3, 3, 2, 3, 3, 3, 2, 0, 1, 7, 7, TFL_ACT_RELU6},     /* VALID: (3-1)*2+3 */
    {0, 1, 4, 3, 17, 9, 2, 2, 2, 0, 1, 8, 6, TFL_ACT_NONE},
  };
  for (size_t k = 0; ok && k < sizeof cases / sizeof cases[0]; k++)
    for (int type = F32; ok && type <= I8PC; type++)
      for (int threads = 1; ok && threads <= 3; threads += 2) ok = run_case(&cases[k], type, threads);
  const tc_case mp_cases[] = {
    {1, 1, 4, 3, 16, 1, 2, 2, 2, 1, 1, 0, 0, TFL_ACT_NONE}, /* selfie_segmentation's: k2 s2 SAME, 2x */
    {1, 1, 4, 4, 3, 5, 4, 4, 2, 1, 1, 0, 0, TFL_ACT_NONE},  /* k4 s2 SAME: total pad 2, 2x */
    {1, 1, 3, 5, 3, 2, 3, 3, 2, 1, 1, 0, 0, TFL_ACT_NONE},  /* k=3 s=2 SAME: total pad 2, output 2*in-1 */
    {1, 1, 3, 5, 3, 2, 4, 4, 2, 1, 1, 0, 0, TFL_ACT_NONE},  /* odd total pad 3: leading 1 */
    {1, 2, 3, 3, 9, 4, 2, 2, 2, 0, 1, 0, 0, TFL_ACT_NONE},
    {1, 1, 3, 3, 4, 3, 3, 3, 1, 1, 1, 0, 0, TFL_ACT_NONE},
  };
  for (size_t k = 0; ok && k < sizeof mp_cases / sizeof mp_cases[0]; k++)
    for (int threads = 1; ok && threads <= 3; threads += 2) ok = run_case(&mp_cases[k], F32, threads);
  printf("%s\n", ok ? "test_transpose_conv: ok" : "test_transpose_conv: FAILED");
  return ok ? 0 : 1;
}
