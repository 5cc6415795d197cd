/* test_spectral_ops.c - RFFT2D, REAL, IMAG, COMPLEX_ABS, BUCKETIZE and BITCAST through their
 * reference kernels: literal inputs against values worked out by hand (a DFT's closed forms,
 * C++'s upper_bound over float boundaries), and the clean refusals the single-op models
 * (tests/opmodels/cases_spectral.py, goldens from TFLite) cannot show. */
#include "eltwise_test_util.h"

/* Runs r, expecting status `want` and a message holding `word`. */
static void expect_error(op_runner *r, tfl_status want, const char *word, const char *what)
{
  tfl_status s = op_runner_run(r, 1);
  CHECK(s == want && strstr(r->diag.error, word), "%s: status %d, expected %d, message '%s' (want '%s')", what,
        (int)s, (int)want, r->diag.error, word);
}

/* RFFT2D of a [2, 3, 6] input with fft_length {h, w}: slice 0 is an impulse at (0, 0) (every
 * frequency 1), slice 1 is cos(2 pi n / 4) along each row of its first row only, cropped or
 * padded. */
static void test_rfft2d(void)
{
  float x[2 * 3 * 6] = {0};
  x[0] = 1.0f;                                            /* slice 0: impulse */
  for (int j = 0; j < 6; j++) x[18 + j] = (float)cos(2 * M_PI * j / 4.0);   /* slice 1 row 0 */
  op_runner r;
  op_runner_init(&r, TFL_OP_RFFT2D);
  int xi = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 3, (int32_t[]){2, 3, 6}, x, false);
  int li = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){2}, (int32_t[]){4, 4}, true);
  int yi = op_runner_tensor(&r, TFL_TYPE_COMPLEX64, 3, (int32_t[]){2, 4, 3}, NULL, false);
  op_runner_io(&r, (int[]){xi, li}, 2, (int[]){yi}, 1);
  if (run_ok(&r, 1, "rfft2d 4x4")) {
    const float *y = r.tensors[yi].data;
    double err = 0;
    for (int k = 0; k < 12; k++) { /* not fmax: aarch64 gcc 12's vectorizer crashes on it */
      const double d = fabs(y[2 * k] - 1.0) + fabs(y[2 * k + 1]);
      if (d > err) err = d;
    }
    /* slice 1: width cropped to 4 samples (1, 0, -1, 0) of the first row, height padded to 4:
     * X[u][v] = 2 at v = 1 for every u, 0 elsewhere */
    for (int u = 0; u < 4; u++)
      for (int v = 0; v < 3; v++) {
        const float *c = y + 24 + 2 * (u * 3 + v);
        err = fmax(err, fabs(c[0] - (v == 1 ? 2.0 : 0.0)) + fabs(c[1]));
      }
    CHECK(err < 1e-6, "rfft2d: max error %g against the closed forms", err);
  }
  op_runner_free(&r);

  /* fft_length must be a constant of powers of two (TFLite's kernel takes nothing else) */
  for (int k = 0; k < 2; k++) {
    op_runner_init(&r, TFL_OP_RFFT2D);
    xi = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){3, 6}, NULL, false);
    li = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){2}, (int32_t[]){4, k ? 4 : 6}, k == 0);
    yi = op_runner_tensor(&r, TFL_TYPE_COMPLEX64, 2, (int32_t[]){4, k ? 3 : 4}, NULL, false);
    op_runner_io(&r, (int[]){xi, li}, 2, (int[]){yi}, 1);
    expect_error(&r, TFL_ERR_UNSUPPORTED, k ? "computed at run time" : "4 x 6",
                 k ? "rfft2d computed fft_length" : "rfft2d width 6");
    op_runner_free(&r);
  }
}

static void test_complex_parts(void)
{
  const float z[6] = {3, -4, -0.5f, 0, 0, 2};
  const float want[3][3] = {{3, -0.5f, 0}, {-4, 0, 2}, {5, 0.5f, 2}};
  const tfl_op ops[3] = {TFL_OP_REAL, TFL_OP_IMAG, TFL_OP_COMPLEX_ABS};
  for (int k = 0; k < 3; k++) {
    op_runner r;
    op_runner_init(&r, ops[k]);
    int x = op_runner_tensor(&r, TFL_TYPE_COMPLEX64, 1, (int32_t[]){3}, z, false);
    int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){3}, NULL, false);
    op_runner_io(&r, (int[]){x}, 1, (int[]){y}, 1);
    if (run_ok(&r, 1, tfl_op_name(ops[k]))) expect_near(tfl_op_name(ops[k]), r.tensors[y].data, want[k], 3, 1e-7f);
    op_runner_free(&r);
  }
  /* a float input is not complex: refused */
  op_runner r;
  op_runner_init(&r, TFL_OP_REAL);
  int x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){3}, NULL, false);
  int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){3}, NULL, false);
  op_runner_io(&r, (int[]){x}, 1, (int[]){y}, 1);
  expect_error(&r, TFL_ERR_UNSUPPORTED, "FLOAT32 -> FLOAT32", "real of float32");
  op_runner_free(&r);
}

/* BUCKETIZE: the count of boundaries <= each value; an int compared as float (16777217
 * becomes 16777216.0f, equal to the last boundary), NaN past every boundary. */
static void test_bucketize(void)
{
  const float b[3] = {-1.0f, 0.5f, 16777216.0f};
  op_runner r;
  op_runner_init(&r, TFL_OP_BUCKETIZE);
  int x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){6}, (float[]){-2, -1, 0.5f, 0.49f, 1e9f, NAN}, false);
  int y = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){6}, NULL, false);
  op_runner_io(&r, (int[]){x}, 1, (int[]){y}, 1);
  r.node.p.bucketize.n = 3;
  r.node.p.bucketize.boundaries = (const uint8_t *)b;
  if (run_ok(&r, 1, "bucketize float")) {
    const int32_t *o = r.tensors[y].data;
    CHECK(o[0] == 0 && o[1] == 1 && o[2] == 2 && o[3] == 1 && o[4] == 3 && o[5] == 3,
          "bucketize float: %d %d %d %d %d %d", o[0], o[1], o[2], o[3], o[4], o[5]);
  }
  op_runner_free(&r);

  op_runner_init(&r, TFL_OP_BUCKETIZE);
  x = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){3}, (int32_t[]){16777215, 16777217, -1}, false);
  y = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){3}, NULL, false);
  op_runner_io(&r, (int[]){x}, 1, (int[]){y}, 1);
  r.node.p.bucketize.n = 3;
  r.node.p.bucketize.boundaries = (const uint8_t *)b;
  if (run_ok(&r, 1, "bucketize int32")) {
    const int32_t *o = r.tensors[y].data;
    CHECK(o[0] == 2 && o[1] == 3 && o[2] == 1, "bucketize int32: %d %d %d", o[0], o[1], o[2]);
  }
  op_runner_free(&r);
}

/* BITCAST moves bytes; input and output must hold the same number. */
static void test_bitcast(void)
{
  op_runner r;
  op_runner_init(&r, TFL_OP_BITCAST);
  int x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){2}, (float[]){1.0f, -2.0f}, false);
  int y = op_runner_tensor(&r, TFL_TYPE_INT16, 2, (int32_t[]){2, 2}, NULL, false);
  op_runner_io(&r, (int[]){x}, 1, (int[]){y}, 1);
  if (run_ok(&r, 1, "bitcast")) {
    const uint16_t *o = r.tensors[y].data;   /* little-endian float bits: 0x3f800000, 0xc0000000 */
    CHECK(o[0] == 0 && o[1] == 0x3f80 && o[2] == 0 && o[3] == 0xc000, "bitcast: %04x %04x %04x %04x", o[0], o[1],
          o[2], o[3]);
  }
  op_runner_free(&r);
  op_runner_init(&r, TFL_OP_BITCAST);
  x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){2}, NULL, false);
  y = op_runner_tensor(&r, TFL_TYPE_INT16, 1, (int32_t[]){2}, NULL, false);
  op_runner_io(&r, (int[]){x}, 1, (int[]){y}, 1);
  expect_error(&r, TFL_ERR_SHAPE, "8 bytes", "bitcast of 8 bytes into 4");
  op_runner_free(&r);
}

int main(void)
{
  test_rfft2d();
  test_complex_parts();
  test_bucketize();
  test_bitcast();
  return finish("test_spectral_ops");
}
