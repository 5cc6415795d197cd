/* test_compute_ops.c - BATCH_MATMUL, CONV_3D, CONV_3D_TRANSPOSE and hybrid conv/FC: a few
 * results worked out by hand (written beside each case) and the clean refusals the
 * single-op models cannot show (LiteRT refuses those models or answers garbage). The
 * LiteRT-checked coverage is in tests/opmodels/cases_compute.py. */
#include <stdlib.h>
#include <string.h>

#include "../../delegates/cpu/kernels/conv_narrow.h"
#include "../../delegates/cpu/kernels/conv_q8_stem.h"
#include "../../delegates/cpu/kernels/conv_sparse1x1.h"
#include "../../delegates/cpu/kernels/dwconv_q8.h"
#include "../../delegates/cpu/onednn_fit.h"
#include "../../delegates/cpu/xnn_partition.h"
#include "eltwise_test_util.h"

static void check_floats(const char *what, op_runner *r, int y, const float *want, size_t n, float tol)
{
  if (run_ok(r, 2, what)) expect_near(what, r->tensors[y].data, want, n, tol);
}

/* Runs r and checks it fails with status `want` and a message containing `part`. */
static void expect_refused(op_runner *r, tfl_status want, const char *part, const char *what)
{
  tfl_status s = op_runner_run(r, 1);
  CHECK(s == want, "%s: status %d, expected %d (%s)", what, (int)s, (int)want, r->diag.error);
  CHECK(strstr(r->diag.error, part) != NULL, "%s: message '%s' lacks '%s'", what, r->diag.error, part);
}

static void test_bmm(void)
{
  op_runner r;
  /* [2,3] x [3,2]: rows (1,2,3), (4,5,6) times columns (1,0,-1), (2,1,0) */
  op_runner_init(&r, TFL_OP_BATCH_MATMUL);
  int a = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 2, 3 }, (float[]){ 1, 2, 3, 4, 5, 6 }, false);
  int b = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 3, 2 }, (float[]){ 1, 2, 0, 1, -1, 0 }, true);
  int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 2, 2 }, NULL, false);
  op_runner_io(&r, (int[]){ a, b }, 2, (int[]){ y }, 1);
  check_floats("bmm 2x3 x 3x2", &r, y, (float[]){ -2, 4, -2, 13 }, 4, 0.0f);
  op_runner_free(&r);

  /* adj_x and adj_y with a broadcast batch: lhs [1,3,2] read as [2,3]; rhs [2,2,3] read
   * as [3,2] per batch (batch 1 is batch 0 negated) */
  op_runner_init(&r, TFL_OP_BATCH_MATMUL);
  a = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 3, (int32_t[]){ 1, 3, 2 }, (float[]){ 1, 4, 2, 5, 3, 6 }, false);
  b = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 3, (int32_t[]){ 2, 2, 3 },
                       (float[]){ 1, 0, -1, 2, 1, 0, -1, 0, 1, -2, -1, 0 }, false);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 3, (int32_t[]){ 2, 2, 2 }, NULL, false);
  op_runner_io(&r, (int[]){ a, b }, 2, (int[]){ y }, 1);
  r.node.p.bmm.adj_x = true;
  r.node.p.bmm.adj_y = true;
  check_floats("bmm adj_x adj_y broadcast", &r, y, (float[]){ -2, 4, -2, 13, 2, -4, 2, -13 }, 8, 0.0f);
  op_runner_free(&r);

  /* depths that differ are refused */
  op_runner_init(&r, TFL_OP_BATCH_MATMUL);
  a = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 2, 3 }, NULL, false);
  b = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 4, 2 }, NULL, false);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 2, 2 }, NULL, false);
  op_runner_io(&r, (int[]){ a, b }, 2, (int[]){ y }, 1);
  expect_refused(&r, TFL_ERR_SHAPE, "depth", "bmm depth 3 vs 4");
  op_runner_free(&r);

  /* batch dims that do not broadcast are refused */
  op_runner_init(&r, TFL_OP_BATCH_MATMUL);
  a = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 3, (int32_t[]){ 2, 2, 3 }, NULL, false);
  b = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 3, (int32_t[]){ 3, 3, 2 }, NULL, false);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 3, (int32_t[]){ 3, 2, 2 }, NULL, false);
  op_runner_io(&r, (int[]){ a, b }, 2, (int[]){ y }, 1);
  expect_refused(&r, TFL_ERR_SHAPE, "broadcast", "bmm batch 2 vs 3");
  op_runner_free(&r);

  /* hybrid with an int8 rhs that is not constant: refused (LiteRT answers zeros) */
  op_runner_init(&r, TFL_OP_BATCH_MATMUL);
  a = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 2, 3 }, NULL, false);
  b = op_runner_tensor(&r, TFL_TYPE_INT8, 2, (int32_t[]){ 3, 2 }, NULL, false);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 2, 2 }, NULL, false);
  set_quant(&r, b, 0.1f, 0);
  op_runner_io(&r, (int[]){ a, b }, 2, (int[]){ y }, 1);
  expect_refused(&r, TFL_ERR_UNSUPPORTED, "non-constant INT8 rhs", "bmm hybrid activation rhs");
  op_runner_free(&r);

  /* uint8 operands: TFLite's kernel has none */
  op_runner_init(&r, TFL_OP_BATCH_MATMUL);
  a = op_runner_tensor(&r, TFL_TYPE_UINT8, 2, (int32_t[]){ 2, 3 }, NULL, false);
  b = op_runner_tensor(&r, TFL_TYPE_UINT8, 2, (int32_t[]){ 3, 2 }, NULL, false);
  y = op_runner_tensor(&r, TFL_TYPE_UINT8, 2, (int32_t[]){ 2, 2 }, NULL, false);
  set_quant(&r, a, 0.1f, 128), set_quant(&r, b, 0.1f, 128), set_quant(&r, y, 0.1f, 128);
  op_runner_io(&r, (int[]){ a, b }, 2, (int[]){ y }, 1);
  expect_refused(&r, TFL_ERR_UNSUPPORTED, "UINT8", "bmm uint8");
  op_runner_free(&r);

  /* hybrid, symmetric-looking input: rows (1, -2, 0.5) and (0, 0, 0) times int8 columns
   * (10, 0, -10) and (5, 5, 5) at scale 0.1. Row 0 quantizes asymmetrically (LiteRT's
   * XNNPACK path): min -2, max 1, scale 3/255, zero point 42 (from the min: -128 + 2 /
   * (3/255) = 42), q = (127, -128, 85) -> dots less zero point: (127-42)*10 + (85-42)*-10
   * = 420 and 5 * (127 - 128 + 85 - 3 * 42) = -210; times 3/255 * 0.1: 0.49412, -0.24706.
   * Row 1 is all zero: 0. */
  op_runner_init(&r, TFL_OP_BATCH_MATMUL);
  a = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 2, 3 }, (float[]){ 1, -2, 0.5f, 0, 0, 0 }, false);
  b = op_runner_tensor(&r, TFL_TYPE_INT8, 2, (int32_t[]){ 3, 2 }, (int8_t[]){ 10, 5, 0, 5, -10, 5 }, true);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 2, 2 }, NULL, false);
  set_quant(&r, b, 0.1f, 0);
  op_runner_io(&r, (int[]){ a, b }, 2, (int[]){ y }, 1);
  check_floats("bmm hybrid", &r, y, (float[]){ 420 * (3.0f / 255) * 0.1f, -210 * (3.0f / 255) * 0.1f, 0, 0 }, 4,
               1e-6f);
  op_runner_free(&r);
}

static void test_conv3d(void)
{
  op_runner r;
  /* 1x1x1 filter over a [1,1,1,2,2] input: channels (1,2), (3,4) times [[1,-1],[2,0.5]]
   * plus bias (0.5, -1): (5.5, -1), (11.5, -2) */
  op_runner_init(&r, TFL_OP_CONV_3D);
  int x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 5, (int32_t[]){ 1, 1, 1, 2, 2 }, (float[]){ 1, 2, 3, 4 }, false);
  int w = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 5, (int32_t[]){ 1, 1, 1, 2, 2 }, (float[]){ 1, -1, 2, 0.5f }, true);
  int b = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){ 2 }, (float[]){ 0.5f, -1 }, true);
  int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 5, (int32_t[]){ 1, 1, 1, 2, 2 }, NULL, false);
  op_runner_io(&r, (int[]){ x, w, b }, 3, (int[]){ y }, 1);
  r.node.p.conv3d = (tfl_conv3d_params){ TFL_PAD_VALID, 1, 1, 1, 1, 1, 1, TFL_ACT_NONE };
  check_floats("conv3d 1x1x1", &r, y, (float[]){ 5.5f, -1, 11.5f, -2 }, 4, 0.0f);
  op_runner_free(&r);

  /* int8: LiteRT 2.3's kernel takes float32 only, so does ours */
  op_runner_init(&r, TFL_OP_CONV_3D);
  x = op_runner_tensor(&r, TFL_TYPE_INT8, 5, (int32_t[]){ 1, 2, 2, 2, 1 }, NULL, false);
  w = op_runner_tensor(&r, TFL_TYPE_INT8, 5, (int32_t[]){ 1, 1, 1, 1, 1 }, NULL, true);
  y = op_runner_tensor(&r, TFL_TYPE_INT8, 5, (int32_t[]){ 1, 2, 2, 2, 1 }, NULL, false);
  set_quant(&r, x, 0.1f, 0), set_quant(&r, w, 0.1f, 0), set_quant(&r, y, 0.1f, 0);
  op_runner_io(&r, (int[]){ x, w }, 2, (int[]){ y }, 1);
  r.node.p.conv3d = (tfl_conv3d_params){ TFL_PAD_SAME, 1, 1, 1, 1, 1, 1, TFL_ACT_NONE };
  expect_refused(&r, TFL_ERR_UNSUPPORTED, "float32 only", "conv3d int8");
  op_runner_free(&r);

  /* transpose, stride 2 in w, VALID, 1x1x2 filter of (1, 10) per input channel (1 in, 1
   * out): input w positions 0, 1 land on 0..1 and 2..3: (1, 10, 2, 20) */
  op_runner_init(&r, TFL_OP_CONV_3D_TRANSPOSE);
  int os = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){ 5 }, (int32_t[]){ 1, 1, 1, 4, 1 }, true);
  w = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 5, (int32_t[]){ 1, 1, 2, 1, 1 }, (float[]){ 1, 10 }, true);
  x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 5, (int32_t[]){ 1, 1, 1, 2, 1 }, (float[]){ 1, 2 }, false);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 5, (int32_t[]){ 1, 1, 1, 4, 1 }, NULL, false);
  op_runner_io(&r, (int[]){ os, w, x }, 3, (int[]){ y }, 1);
  r.node.p.conv3d = (tfl_conv3d_params){ TFL_PAD_VALID, 1, 1, 2, 1, 1, 1, TFL_ACT_NONE };
  check_floats("conv3d transpose", &r, y, (float[]){ 1, 10, 2, 20 }, 4, 0.0f);
  op_runner_free(&r);

  /* an output size whose forward conv does not give the input's: refused */
  op_runner_init(&r, TFL_OP_CONV_3D_TRANSPOSE);
  os = op_runner_tensor(&r, TFL_TYPE_INT32, 1, (int32_t[]){ 5 }, (int32_t[]){ 1, 1, 1, 6, 1 }, true);
  w = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 5, (int32_t[]){ 1, 1, 2, 1, 1 }, (float[]){ 1, 10 }, true);
  x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 5, (int32_t[]){ 1, 1, 1, 2, 1 }, NULL, false);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 5, (int32_t[]){ 1, 1, 1, 6, 1 }, NULL, false);
  op_runner_io(&r, (int[]){ os, w, x }, 3, (int[]){ y }, 1);
  r.node.p.conv3d = (tfl_conv3d_params){ TFL_PAD_VALID, 1, 1, 2, 1, 1, 1, TFL_ACT_NONE };
  expect_refused(&r, TFL_ERR_SHAPE, "convolved back", "conv3d transpose size");
  op_runner_free(&r);
}

static void test_hybrid(void)
{
  op_runner r;
  /* FULLY_CONNECTED, TANH (XNNPACK declines: TFLite's own kernel, symmetric): input (1,
   * -0.5) -> scale 1/127, q = (127, -64 (-63.5 rounds away from 0)); weights (2, 4) at 0.5:
   * 254 - 256 = -2 -> -2 / 127 * 0.5 = -0.007874; tanh of it */
  op_runner_init(&r, TFL_OP_FULLY_CONNECTED);
  int x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 1, 2 }, (float[]){ 1, -0.5f }, false);
  int w = op_runner_tensor(&r, TFL_TYPE_INT8, 2, (int32_t[]){ 1, 2 }, (int8_t[]){ 2, 4 }, true);
  int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){ 1, 1 }, NULL, false);
  set_quant(&r, w, 0.5f, 0);
  op_runner_io(&r, (int[]){ x, w }, 2, (int[]){ y }, 1);
  r.node.p.fc.act = TFL_ACT_TANH;
  check_floats("fc hybrid tanh", &r, y, (float[]){ tanhf(-2.0f * (1.0f / 127) * 0.5f) }, 1, 1e-7f);
  op_runner_free(&r);

  /* depthwise with one filter scale: refused (LiteRT reads past it) */
  op_runner_init(&r, TFL_OP_DEPTHWISE_CONV_2D);
  x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){ 1, 2, 2, 2 }, NULL, false);
  w = op_runner_tensor(&r, TFL_TYPE_INT8, 4, (int32_t[]){ 1, 1, 1, 2 }, (int8_t[]){ 1, 2 }, true);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){ 1, 2, 2, 2 }, NULL, false);
  set_quant(&r, w, 0.5f, 0);
  op_runner_io(&r, (int[]){ x, w }, 2, (int[]){ y }, 1);
  r.node.p.conv = (tfl_conv_params){ .padding = TFL_PAD_VALID, .stride_w = 1, .stride_h = 1, .dilation_w = 1,
                                     .dilation_h = 1 };
  expect_refused(&r, TFL_ERR_UNSUPPORTED, "one per output channel", "depthwise hybrid per-tensor");
  op_runner_free(&r);

  /* conv with int8 weights whose zero point is not 0: refused */
  op_runner_init(&r, TFL_OP_CONV_2D);
  x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){ 1, 2, 2, 1 }, NULL, false);
  w = op_runner_tensor(&r, TFL_TYPE_INT8, 4, (int32_t[]){ 1, 1, 1, 1 }, (int8_t[]){ 3 }, true);
  y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){ 1, 2, 2, 1 }, NULL, false);
  set_quant(&r, w, 0.5f, 4);
  op_runner_io(&r, (int[]){ x, w }, 2, (int[]){ y }, 1);
  r.node.p.conv = (tfl_conv_params){ .padding = TFL_PAD_VALID, .stride_w = 1, .stride_h = 1, .dilation_w = 1,
                                     .dilation_h = 1 };
  expect_refused(&r, TFL_ERR_UNSUPPORTED, "zero point 4", "conv hybrid zero point");
  op_runner_free(&r);
}

/* No fast path takes a hybrid node (they would compute it in float or in 8 bits without
 * TFLite's dynamic input quantization): XNNPACK partitions, oneDNN, the own fast kernels. */
static void test_hybrid_not_fast(void)
{
  static const tfl_op ops[] = {TFL_OP_CONV_2D, TFL_OP_DEPTHWISE_CONV_2D, TFL_OP_FULLY_CONNECTED, TFL_OP_BATCH_MATMUL};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    op_runner r;
    op_runner_init(&r, ops[i]);
    int x, w, y;
    int8_t wv[64 * 64];
    for (size_t k = 0; k < sizeof wv; k++) wv[k] = (int8_t)((int)(k * 37 % 255) - 127);
    float sc[64];
    int32_t zp[64] = {0};
    for (int c = 0; c < 64; c++) sc[c] = 0.01f + 0.0001f * (float)c;
    if (ops[i] == TFL_OP_CONV_2D || ops[i] == TFL_OP_DEPTHWISE_CONV_2D) {
      bool dw = ops[i] == TFL_OP_DEPTHWISE_CONV_2D;
      x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){1, 32, 32, 64}, NULL, false);
      w = op_runner_tensor(&r, TFL_TYPE_INT8, 4, dw ? (int32_t[]){1, 1, 1, 64} : (int32_t[]){64, 1, 1, 64}, wv,
                           true);
      op_runner_quant(&r, w, 64, sc, zp, dw ? 3 : 0);
      y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){1, 32, 32, 64}, NULL, false);
      r.node.p.conv = (tfl_conv_params){.padding = TFL_PAD_VALID, .stride_w = 1, .stride_h = 1, .dilation_w = 1,
                                        .dilation_h = 1};
    } else {
      x = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){16, 64}, NULL, false);
      bool fc = ops[i] == TFL_OP_FULLY_CONNECTED;
      w = op_runner_tensor(&r, TFL_TYPE_INT8, 2, (int32_t[]){64, 64}, wv, true);
      op_runner_quant(&r, w, 64, sc, zp, fc ? 0 : 1);
      y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){16, 64}, NULL, false);
    }
    op_runner_io(&r, (int[]){x, w}, 2, (int[]){y}, 1);
    const tfl_node *n = &r.graph.nodes[0];
    onednn_geom geom;
    onednn_kind kind;
    const char *name = tfl_op_name(ops[i]);
    CHECK(!xnn_partition_supports(&r.graph, 0), "%s hybrid: XNNPACK partition takes it", name);
    CHECK(!onednn_fit_node(&r.graph, n, -1, &geom, &kind, false), "%s hybrid: oneDNN takes it", name);
    CHECK(!onednn_fit_node(&r.graph, n, -1, &geom, &kind, true), "%s hybrid: oneDNN bf16 takes it", name);
    CHECK(!cpu_conv_narrow_applies(&r.graph, n) && !cpu_conv_sparse1x1_fits(&r.graph, n) &&
              !cpu_dwconv_q8_fits(&r.graph, n) && !cpu_conv_q8_stem_fits(&r.graph, n),
          "%s hybrid: an own fast kernel takes it", name);
    CHECK(op_runner_run(&r, 2) == TFL_OK, "%s hybrid: reference kernel refuses it: %s", name, r.diag.error);
    if (ops[i] != TFL_OP_BATCH_MATMUL) { /* the control: with float weights XNNPACK takes it */
      tfl_tensor *wt = &r.graph.tensors[w];
      float *wf = malloc(sizeof(float) * tfl_tensor_count(wt));
      CHECK(wf != NULL, "out of memory");
      if (wf) {
        for (size_t k = 0; k < tfl_tensor_count(wt); k++) wf[k] = 0.01f * (float)((const int8_t *)wt->data)[k];
        tfl_tensor saved = *wt;
        wt->type = TFL_TYPE_FLOAT32;
        wt->q.n = 0;
        wt->data = wf;
        wt->bytes = sizeof(float) * tfl_tensor_count(wt);
        CHECK(xnn_partition_supports(&r.graph, 0), "%s with float weights: XNNPACK refuses it (the control)", name);
        *wt = saved;
        free(wf);
      }
    }
    op_runner_free(&r);
  }
}

int main(void)
{
  test_bmm();
  test_conv3d();
  test_hybrid();
  test_hybrid_not_fast();
  return finish("test_compute_ops");
}
