/* test_fully_connected.c - FULLY_CONNECTED reference kernel against a hand-worked case
 * and a naive double-precision matrix product written here (float tolerance 1e-5
 * absolute; quantized: within 1 LSB of the naive result on the dequantized inputs). */
#include "conv_test_util.h"

#include <string.h>

typedef struct {
  int ndim;
  int32_t dims[4];    /* input dims; the last is input_size */
  int units, bias, keep;
  tfl_activation act;
} fc_case;

enum { F32 = TEST_F32, U8 = TEST_U8, I8PC = TEST_I8PC };
static const char *type_names[] = {"float32", "uint8", "int8 per-channel"};

static void naive(int batches, int isz, int units, const float *x, const float *w, const float *b,
                  float *y, tfl_activation act, int apply)
{
  for (int bi = 0; bi < batches; bi++)
    for (int u = 0; u < units; u++) {
      double acc = b ? b[u] : 0.0;
      for (int i = 0; i < isz; i++) acc += (double)x[bi * isz + i] * w[u * isz + i];
      y[bi * units + u] = apply ? test_act(act, (float)acc) : (float)acc;
    }
}

static int run_case(const fc_case *c, int type, int threads)
{
  int isz = c->dims[c->ndim - 1], batches = 1;
  for (int d = 0; d < c->ndim - 1; d++) batches *= c->dims[d];
  size_t nx = (size_t)batches * isz, nw = (size_t)c->units * isz, ny = (size_t)batches * c->units;
  test_data d;
  test_data_init(&d, type, nx, nw, c->units, ny);
  if (type != F32) {
    test_data_quantize(&d, isz, 120);
    naive(batches, isz, c->units, d.x, d.w, c->bias ? d.b : NULL, d.pre, c->act, 0);
    test_data_out_quant(&d);
  }
  naive(batches, isz, c->units, d.x, d.w, c->bias ? d.b : NULL, d.want, c->act, 1);

  /* output dims: keep_num_dims keeps the input's leading dims, else [batches, units] */
  int32_t yd[4];
  int yn = c->keep ? c->ndim : 2;
  if (c->keep) {
    memcpy(yd, c->dims, sizeof yd);
    yd[c->ndim - 1] = c->units;
  } else {
    yd[0] = batches;
    yd[1] = c->units;
  }
  op_runner r;
  op_runner_init(&r, TFL_OP_FULLY_CONNECTED);
  int32_t wd[2] = {c->units, isz};
  int t[4];
  test_data_tensors(&r, &d, c->ndim, c->dims, 2, wd, 0, c->bias, yn, yd, t);
  op_runner_io(&r, t, 3, &t[3], 1);
  r.node.p.fc = (tfl_fc_params){c->act, c->keep};
  char what[160];
  snprintf(what, sizeof what, "fully connected %s %d batches x %d -> %d act%d bias%d keep%d t%d",
           type_names[type], batches, isz, c->units, c->act, c->bias, c->keep, threads);
  int ok = test_data_run(&r, threads, &d, t[3], c->act, what);
  op_runner_free(&r);
  test_data_free(&d);
  return ok;
}

/* x = [1,2,3], w = [[1,0,-1],[2,2,2]], b = [0.5,-1]: [-1.5, 11]; RELU: [0, 11]. */
static int hand_case(void)
{
  float x[3] = {1, 2, 3}, w[6] = {1, 0, -1, 2, 2, 2}, b[2] = {0.5f, -1};
  float want[2][2] = {{-1.5f, 11}, {0, 11}};
  for (int k = 0; k < 2; k++) {
    op_runner r;
    op_runner_init(&r, TFL_OP_FULLY_CONNECTED);
    int xt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){1, 3}, x, false);
    int wt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){2, 3}, w, true);
    int bt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){2}, b, true);
    int yt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){1, 2}, NULL, false);
    op_runner_io(&r, (int[]){xt, wt, bt}, 3, (int[]){yt}, 1);
    r.node.p.fc.act = k ? TFL_ACT_RELU : TFL_ACT_NONE;
    TEST_CHECK(op_runner_run(&r, 1) == TFL_OK);
    int ok = op_runner_expect_near("fully connected hand", r.graph.tensors[yt].data, want[k], 2, 0);
    op_runner_free(&r);
    if (!ok) return 0;
  }
  return 1;
}

/* An input whose size is not a multiple of the weights' input size is refused. */
static int bad_shape(void)
{
  op_runner r;
  op_runner_init(&r, TFL_OP_FULLY_CONNECTED);
  int xt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){1, 7}, NULL, false);
  int wt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){2, 3}, NULL, true);
  int yt = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){1, 2}, NULL, false);
  op_runner_io(&r, (int[]){xt, wt, -1}, 3, (int[]){yt}, 1);
  tfl_status s = op_runner_run(&r, 1);
  op_runner_free(&r);
  TEST_CHECK(s == TFL_ERR_SHAPE);
  TEST_CHECK(strstr(r.diag.error, "FULLY_CONNECTED") && strstr(r.diag.error, "multiple"));
  return 1;
}

int main(void)
{
  int ok = hand_case() && bad_shape();
  const fc_case cases[] = {
    {2, {1, 5}, 7, 1, 0, TFL_ACT_NONE},
    {2, {3, 17}, 5, 0, 0, TFL_ACT_RELU},
    {3, {2, 3, 5}, 7, 1, 0, TFL_ACT_RELU6},           /* leading dims flattened to 6 batches */
    {3, {2, 3, 5}, 7, 1, 1, TFL_ACT_RELU_N1_TO_1},    /* keep_num_dims: [2,3,7] */
    {2, {2, 33}, 70, 1, 0, TFL_ACT_NONE},             /* more units than one task's block */
  };
  for (size_t k = 0; ok && k < sizeof cases / sizeof cases[0]; k++)
    for (int type = F32; ok && type <= I8PC; type++)
      for (int threads = 1; ok && threads <= 3; threads += 2) ok = run_case(&cases[k], type, threads);
  printf("%s\n", ok ? "test_fully_connected: ok" : "test_fully_connected: FAILED");
  return ok ? 0 : 1;
}
