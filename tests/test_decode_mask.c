/* test_decode_mask.c - tfl_decoder_run_mask (a segmentation mask made on a device, one
 * byte a pixel, decoders/decode_segmentation.c) against tfl_decoder_run on the float
 * output the bytes were made from, on one-node graphs:
 *   - 4 classes, [1,3,5,4]: the bytes are the argmax (made here, ties to the lower
 *     class); classes, size, class count and placement in the frame equal the float
 *     decoder's; a byte past the classes (a device's bug) reads as class 0;
 *   - 1 channel after LOGISTIC (probabilities): bytes = round(p * 255); each decoded
 *     probability within half a step of the float decoder's;
 *   - a mask of the wrong size, or none, is refused with an error naming the sizes; a
 *     detection decoder refuses mask bytes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "decoders/tfl_decoder.h"
#include "op_runner.h"

#define H 3
#define W 5

/* A one-node graph whose output 0 is [1,H,W,c] (op: ADD of x and 0, or LOGISTIC). */
static int graph(op_runner *r, tfl_op op, int c, const float *x, int *y)
{
  op_runner_init(r, op);
  int a = op_runner_tensor(r, TFL_TYPE_FLOAT32, 4, (int32_t[]){1, H, W, c}, x, false);
  *y = op_runner_tensor(r, TFL_TYPE_FLOAT32, 4, (int32_t[]){1, H, W, c}, NULL, false);
  if (op == TFL_OP_ADD) {
    int z = op_runner_tensor(r, TFL_TYPE_FLOAT32, 1, (int32_t[]){1}, NULL, true);
    op_runner_io(r, (int[]){a, z}, 2, (int[]){*y}, 1);
  } else {
    op_runner_io(r, (int[]){a}, 1, (int[]){*y}, 1);
  }
  r->graph.outputs = &r->out[0];
  r->graph.n_outputs = 1;
  return op_runner_run(r, 1);
}

static void test_classes(void)
{
  enum { C = 4 };
  float x[H * W * C];
  for (int i = 0; i < H * W * C; i++) x[i] = (float)((i * 7) % 5); /* ties on purpose */
  op_runner r;
  int y;
  CHECK(graph(&r, TFL_OP_ADD, C, x, &y) == TFL_OK, "%s", r.diag.error);
  tfl_decoder *d = NULL;
  tfl_decoder_options o = tfl_decoder_defaults();
  CHECK(tfl_decoder_create(TFL_DECODER_SEGMENTATION, &r.graph, &o, &d, NULL) == TFL_OK, "segmentation decoder");
  uint8_t bytes[H * W];
  for (int i = 0; i < H * W; i++) {
    int best = 0;
    for (int c = 1; c < C; c++)
      if (x[i * C + c] > x[i * C + best]) best = c;
    bytes[i] = (uint8_t)best;
  }
  tfl_transform tr = {W, H, 2.0f * W, 2.0f * H, 2, 2, 1, 3, 0, 0};
  tfl_results a = {0}, b = {0};
  const tfl_tensor *outs[1] = {&r.graph.tensors[y]};
  CHECK(tfl_decoder_run(d, outs, 1, &tr, &a, NULL) == TFL_OK, "float decode");
  CHECK(tfl_decoder_run_mask(d, bytes, W, H, &tr, &b, NULL) == TFL_OK, "mask decode");
  CHECK(b.mask.kind == TFL_MASK_CLASSES && a.mask.kind == b.mask.kind && b.mask.width == W && b.mask.height == H &&
            b.mask.n_classes == a.mask.n_classes,
        "mask kind %d %dx%d, %d classes", b.mask.kind, b.mask.width, b.mask.height, b.mask.n_classes);
  CHECK(b.mask.frame_x == a.mask.frame_x && b.mask.frame_y == a.mask.frame_y && b.mask.frame_w == a.mask.frame_w &&
            b.mask.frame_h == a.mask.frame_h,
        "placed at %g,%g %gx%g, the float decoder's at %g,%g %gx%g", b.mask.frame_x, b.mask.frame_y, b.mask.frame_w,
        b.mask.frame_h, a.mask.frame_x, a.mask.frame_y, a.mask.frame_w, a.mask.frame_h);
  CHECK(b.mask.classes && a.mask.classes && memcmp(a.mask.classes, b.mask.classes, H * W) == 0, "classes differ");
  bytes[4] = 200; /* past the classes */
  CHECK(tfl_decoder_run_mask(d, bytes, W, H, &tr, &b, NULL) == TFL_OK && b.mask.classes[4] == 0,
        "class 200 of 4 read as %d", b.mask.classes ? b.mask.classes[4] : -1);
  tfl_diag diag;
  tfl_diag_init(&diag);
  CHECK(tfl_decoder_run_mask(d, bytes, W + 1, H, &tr, &b, &diag) == TFL_ERR_SHAPE && strstr(diag.error, "6x3"),
        "a 6x3 mask: '%s'", diag.error);
  CHECK(tfl_decoder_run_mask(d, NULL, W, H, &tr, &b, &diag) == TFL_ERR_SHAPE, "no mask accepted");
  tfl_results_clear(&a);
  tfl_results_clear(&b);
  tfl_decoder_free(d);
  op_runner_free(&r);
}

static void test_probabilities(void)
{
  float x[H * W];
  for (int i = 0; i < H * W; i++) x[i] = -6.0f + 12.0f * (float)i / (H * W - 1);
  op_runner r;
  int y;
  CHECK(graph(&r, TFL_OP_LOGISTIC, 1, x, &y) == TFL_OK, "%s", r.diag.error);
  CHECK(!tfl_decoder_output_is_logits(&r.graph, y), "a LOGISTIC output taken for logits");
  tfl_decoder *d = NULL;
  tfl_decoder_options o = tfl_decoder_defaults();
  CHECK(tfl_decoder_create(TFL_DECODER_SEGMENTATION, &r.graph, &o, &d, NULL) == TFL_OK, "segmentation decoder");
  const float *p = r.graph.tensors[y].data;
  uint8_t bytes[H * W];
  for (int i = 0; i < H * W; i++) bytes[i] = (uint8_t)lrintf(p[i] * 255.0f);
  tfl_transform tr = {W, H, W, H, 1, 1, 0, 0, 0, 0};
  tfl_results a = {0}, b = {0};
  const tfl_tensor *outs[1] = {&r.graph.tensors[y]};
  CHECK(tfl_decoder_run(d, outs, 1, &tr, &a, NULL) == TFL_OK, "float decode");
  CHECK(tfl_decoder_run_mask(d, bytes, W, H, &tr, &b, NULL) == TFL_OK, "mask decode");
  CHECK(b.mask.kind == TFL_MASK_PROB && b.mask.n_classes == 2, "kind %d, %d classes", b.mask.kind, b.mask.n_classes);
  double worst = 0;
  for (int i = 0; b.mask.prob && a.mask.prob && i < H * W; i++) worst = fmax(worst, fabs(b.mask.prob[i] - a.mask.prob[i]));
  CHECK(b.mask.prob && worst <= 0.5 / 255 + 1e-7, "worst probability off by %g", worst);
  tfl_results_clear(&a);
  tfl_results_clear(&b);
  tfl_decoder_free(d);
  op_runner_free(&r);
}

static void test_not_segmentation(void)
{
  tfl_decoder_options o = tfl_decoder_defaults();
  float x[4] = {0.1f, 0.7f, 0.2f, 0.0f};
  op_runner r;
  op_runner_init(&r, TFL_OP_ADD); /* [1,4] scores */
  int a = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){1, 4}, x, false);
  int z = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){1}, NULL, true);
  int y = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){1, 4}, NULL, false);
  op_runner_io(&r, (int[]){a, z}, 2, (int[]){y}, 1);
  r.graph.outputs = &r.out[0];
  r.graph.n_outputs = 1;
  CHECK(op_runner_run(&r, 1) == TFL_OK, "%s", r.diag.error);
  tfl_decoder *d = NULL;
  CHECK(tfl_decoder_create(TFL_DECODER_CLASSIFICATION, &r.graph, &o, &d, NULL) == TFL_OK, "classification decoder");
  if (d) {
    uint8_t bytes[H * W] = {0};
    tfl_results b = {0};
    tfl_diag diag;
    tfl_diag_init(&diag);
    CHECK(tfl_decoder_run_mask(d, bytes, W, H, NULL, &b, &diag) == TFL_ERR_ARG && strstr(diag.error, "classification"),
          "a classification decoder took mask bytes: '%s'", diag.error);
    tfl_decoder_free(d);
  }
  op_runner_free(&r);
}

int main(void)
{
  test_classes();
  test_probabilities();
  test_not_segmentation();
  printf("%d failure(s)\n", failures);
  return failures != 0;
}
