/* test_pooling.c - AVERAGE_POOL_2D and MAX_POOL_2D reference kernels against hand-worked
 * values and a naive pooling written here (float tolerance 1e-6 absolute; quantized:
 * within 1 LSB of the naive result on the dequantized input). */
#include "conv_test_util.h"

#include <string.h>

typedef struct {
  int max, n, h, w, c, kh, kw, sh, sw, same;
  tfl_activation act;
} pool_case;

enum { F32, U8, I8 };
static const char *type_names[] = {"float32", "uint8", "int8"};

/* Average over the taps inside the input only (TFLite excludes padding). */
static void naive(const pool_case *c, const float *x, float *y, int oh, int ow)
{
  int ph = test_pad(c->same, c->h, c->kh, c->sh, 1, oh), pw = test_pad(c->same, c->w, c->kw, c->sw, 1, ow);
  for (int b = 0; b < c->n; b++)
    for (int oy = 0; oy < oh; oy++)
      for (int ox = 0; ox < ow; ox++)
        for (int ch = 0; ch < c->c; ch++) {
          double sum = 0, best = -INFINITY;
          int count = 0;
          for (int ky = 0; ky < c->kh; ky++)
            for (int kx = 0; kx < c->kw; kx++) {
              int iy = oy * c->sh - ph + ky, ix = ox * c->sw - pw + kx;
              if (iy < 0 || ix < 0 || iy >= c->h || ix >= c->w) continue;
              double v = x[((b * c->h + iy) * c->w + ix) * c->c + ch];
              sum += v;
              best = v > best ? v : best;
              count++;
            }
          y[((b * oh + oy) * ow + ox) * c->c + ch] =
              test_act(c->act, (float)(c->max ? best : sum / count));
        }
}

static int run_case(const pool_case *c, int type, int threads)
{
  int oh = test_out_size(c->same, c->h, c->kh, c->sh, 1), ow = test_out_size(c->same, c->w, c->kw, c->sw, 1);
  size_t nx = (size_t)c->n * c->h * c->w * c->c, ny = (size_t)c->n * oh * ow * c->c;
  float *x = malloc(nx * 4), *want = malloc(ny * 4);
  test_fill(x, nx, -2, 7); /* crosses both RELU6 bounds */
  int is_u8 = type == U8;
  float s = 9.0f / 255;
  int32_t z = is_u8 ? 57 : -71;
  op_runner r;
  op_runner_init(&r, c->max ? TFL_OP_MAX_POOL_2D : TFL_OP_AVERAGE_POOL_2D);
  int32_t xd[4] = {c->n, c->h, c->w, c->c}, yd[4] = {c->n, oh, ow, c->c};
  int xt, yt;
  if (type == F32) {
    xt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, xd, x, false);
    yt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, yd, NULL, false);
  } else {
    tfl_type qt = is_u8 ? TFL_TYPE_UINT8 : TFL_TYPE_INT8;
    void *xq = malloc(nx);
    test_quantize_array(x, xq, nx, &s, &z, 1, 1, is_u8);
    test_dequantize_array(xq, x, nx, &s, &z, 1, 1, is_u8);
    xt = op_runner_tensor(&r, qt, 4, xd, xq, false);
    op_runner_quant(&r, xt, 1, &s, &z, 0);
    yt = op_runner_tensor(&r, qt, 4, yd, NULL, false);
    op_runner_quant(&r, yt, 1, &s, &z, 0);
    free(xq);
  }
  naive(c, x, want, oh, ow);
  op_runner_io(&r, (int[]){xt}, 1, (int[]){yt}, 1);
  r.node.p.pool = (tfl_pool_params){c->same ? TFL_PAD_SAME : TFL_PAD_VALID, c->sw, c->sh, c->kw,
                                    c->kh, c->act};
  int ok = op_runner_run(&r, threads) == TFL_OK;
  if (!ok) fprintf(stderr, "run failed: %s\n", r.diag.error);
  char what[160];
  snprintf(what, sizeof what, "%s %s %dx%d s%d %s act%d c%d t%d", c->max ? "max pool" : "avg pool",
           type_names[type], c->kh, c->kw, c->sh, c->same ? "SAME" : "VALID", c->act, c->c, threads);
  if (ok)
    ok = test_expect_out(what, r.graph.tensors[yt].data, want, ny, type != F32, 1e-6f, c->act, s,
                         z, is_u8);
  op_runner_free(&r);
  free(x), free(want);
  return ok;
}

/* 3x3 input 1..9, 2x2 filter, stride 2, SAME (pad 0 leading, clipped windows):
 * average {1,2,4,5} {3,6} {7,8} {9} = 3 4.5 7.5 9; max = 5 6 8 9. */
static int hand_case(void)
{
  float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  float want[2][4] = {{3, 4.5f, 7.5f, 9}, {5, 6, 8, 9}};
  for (int max = 0; max < 2; max++) {
    op_runner r;
    op_runner_init(&r, max ? TFL_OP_MAX_POOL_2D : TFL_OP_AVERAGE_POOL_2D);
    int xt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){1, 3, 3, 1}, x, false);
    int yt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){1, 2, 2, 1}, NULL, false);
    op_runner_io(&r, (int[]){xt}, 1, (int[]){yt}, 1);
    r.node.p.pool = (tfl_pool_params){TFL_PAD_SAME, 2, 2, 2, 2, TFL_ACT_NONE};
    TEST_CHECK(op_runner_run(&r, 1) == TFL_OK);
    int ok = op_runner_expect_near(max ? "max pool hand" : "avg pool hand", r.graph.tensors[yt].data,
                                   want[max], 4, 0);
    op_runner_free(&r);
    if (!ok) return 0;
  }
  return 1;
}

/* uint8 average rounds half away from zero: {1, 2} -> 2 (1.5), {1, 1, 1, 2} -> 1 (1.25). */
static int rounding_case(void)
{
  uint8_t x[8] = {1, 2, 1, 1, 1, 1, 2, 1};
  float s = 1.0f;
  int32_t z = 0;
  op_runner r;
  op_runner_init(&r, TFL_OP_AVERAGE_POOL_2D);
  int xt = op_runner_tensor(&r, TFL_TYPE_UINT8, 4, (int32_t[]){1, 2, 4, 1}, x, false);
  op_runner_quant(&r, xt, 1, &s, &z, 0);
  int yt = op_runner_tensor(&r, TFL_TYPE_UINT8, 4, (int32_t[]){1, 1, 2, 1}, NULL, false);
  op_runner_quant(&r, yt, 1, &s, &z, 0);
  op_runner_io(&r, (int[]){xt}, 1, (int[]){yt}, 1);
  /* windows 2x2: {1,2,1,1} = 1.25 -> 1; {1,1,2,1} = 1.25 -> 1; then a 1x2 window case */
  r.node.p.pool = (tfl_pool_params){TFL_PAD_VALID, 2, 2, 2, 2, TFL_ACT_NONE};
  TEST_CHECK(op_runner_run(&r, 1) == TFL_OK);
  const uint8_t *y = r.graph.tensors[yt].data;
  TEST_CHECK(y[0] == 1 && y[1] == 1);
  op_runner_free(&r);

  op_runner_init(&r, TFL_OP_AVERAGE_POOL_2D);
  xt = op_runner_tensor(&r, TFL_TYPE_UINT8, 4, (int32_t[]){1, 1, 2, 1}, (uint8_t[]){1, 2}, false);
  op_runner_quant(&r, xt, 1, &s, &z, 0);
  yt = op_runner_tensor(&r, TFL_TYPE_UINT8, 4, (int32_t[]){1, 1, 1, 1}, NULL, false);
  op_runner_quant(&r, yt, 1, &s, &z, 0);
  op_runner_io(&r, (int[]){xt}, 1, (int[]){yt}, 1);
  r.node.p.pool = (tfl_pool_params){TFL_PAD_VALID, 1, 1, 2, 1, TFL_ACT_NONE};
  TEST_CHECK(op_runner_run(&r, 1) == TFL_OK);
  y = r.graph.tensors[yt].data;
  TEST_CHECK(y[0] == 2);
  op_runner_free(&r);
  return 1;
}

/* Output quantization different from the input's is refused (as TFLite). */
static int bad_quant(void)
{
  float s1 = 1.0f, s2 = 0.5f;
  int32_t z = 0;
  op_runner r;
  op_runner_init(&r, TFL_OP_MAX_POOL_2D);
  int xt = op_runner_tensor(&r, TFL_TYPE_UINT8, 4, (int32_t[]){1, 2, 2, 1}, NULL, false);
  op_runner_quant(&r, xt, 1, &s1, &z, 0);
  int yt = op_runner_tensor(&r, TFL_TYPE_UINT8, 4, (int32_t[]){1, 1, 1, 1}, NULL, false);
  op_runner_quant(&r, yt, 1, &s2, &z, 0);
  op_runner_io(&r, (int[]){xt}, 1, (int[]){yt}, 1);
  r.node.p.pool = (tfl_pool_params){TFL_PAD_VALID, 2, 2, 2, 2, TFL_ACT_NONE};
  tfl_status st = op_runner_run(&r, 1);
  op_runner_free(&r);
  TEST_CHECK(st == TFL_ERR_UNSUPPORTED);
  TEST_CHECK(strstr(r.diag.error, "MAX_POOL_2D"));
  return 1;
}

int main(void)
{
  int ok = hand_case() && rounding_case() && bad_quant();
  const pool_case cases[] = {
    /* max n h w c kh kw sh sw same act */
    {0, 1, 5, 5, 3, 3, 3, 1, 1, 1, TFL_ACT_NONE},
    {0, 2, 7, 6, 5, 3, 3, 2, 2, 1, TFL_ACT_RELU6},
    {0, 1, 7, 7, 3, 7, 7, 1, 1, 0, TFL_ACT_NONE},       /* global average */
    {0, 1, 6, 5, 2, 2, 3, 2, 1, 0, TFL_ACT_RELU},
    {1, 1, 5, 5, 3, 3, 3, 1, 1, 1, TFL_ACT_NONE},
    {1, 2, 7, 6, 5, 3, 3, 2, 2, 1, TFL_ACT_RELU_N1_TO_1},
    {1, 1, 6, 5, 9, 2, 2, 2, 2, 0, TFL_ACT_RELU6},
  };
  for (size_t k = 0; ok && k < sizeof cases / sizeof cases[0]; k++)
    for (int type = F32; ok && type <= I8; type++)
      for (int threads = 1; ok && threads <= 3; threads += 2) ok = run_case(&cases[k], type, threads);
  printf("%s\n", ok ? "test_pooling: ok" : "test_pooling: FAILED");
  return ok ? 0 : 1;
}
