/* test_detection_postprocess.c - TFLite_Detection_PostProcess on four anchors worked out by hand.
 *
 * Anchors (y, x, h, w) and encodings (ty, tx, th, tw), scales y/x 10, h/w 5:
 *   a0 (0.5, 0.5, 0.2, 0.2)   e0 (0, 0, 0, 0)       -> [0.40, 0.40, 0.60, 0.60]
 *   a1 (0.52,0.5, 0.2, 0.2)   e1 (1, 0, 0, 0)       -> [0.44, 0.40, 0.64, 0.60]  IoU(b0) = 2/3
 *   a2 (0.2, 0.2, 0.1, 0.1)   e2 (0, 0, 5 ln 2, 0)  -> [0.10, 0.15, 0.30, 0.25]
 *   a3 (0.8, 0.8, 0.1, 0.1)   e3 (-1, 2, 0, 0)      -> [0.74, 0.77, 0.84, 0.87]
 * Scores (background, c0, c1, c2): a0 (0, .9, .1, .3)  a1 (0, .8, .7, 0)
 *   a2 (0, .2, .6, .05)  a3 (0, .05, .1, .25); score threshold 0.3, IoU 0.5.
 * Fast NMS, 1 class per box: best scores .9 .8 .6 .25 -> a3 below threshold, a1
 *   suppressed by a0 -> (a0, c0, .9), (a2, c1, .6), count 2.
 * Fast NMS, 2 classes per box: (a0 c0 .9) (a0 c2 .3) (a2 c1 .6) (a2 c0 .2), count 2.
 * Regular NMS, 2 per class, 3 in all: c0 keeps a0 (a1 suppressed); c1 keeps a1 and
 *   a2 (no overlap); c2 keeps a0 (.3 >= .3) -> (a0 c0 .9) (a1 c1 .7) (a2 c1 .6), count 3.
 * Tolerance 1e-6 on boxes and scores (float decode), exact on classes and counts.
 * The quantized case feeds the same numbers as uint8 and compares with the float run.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "postproc/nms.h"
#include "op_runner.h"

static const float k_anchors[4][4] = {
  {0.5f, 0.5f, 0.2f, 0.2f}, {0.52f, 0.5f, 0.2f, 0.2f}, {0.2f, 0.2f, 0.1f, 0.1f}, {0.8f, 0.8f, 0.1f, 0.1f}};
static float k_enc[4][4];
static const float k_scores[4][4] = {
  {0, 0.9f, 0.1f, 0.3f}, {0, 0.8f, 0.7f, 0}, {0, 0.2f, 0.6f, 0.05f}, {0, 0.05f, 0.1f, 0.25f}};
static const float B0[4] = {0.4f, 0.4f, 0.6f, 0.6f}, B1[4] = {0.44f, 0.4f, 0.64f, 0.6f};
static const float B2[4] = {0.1f, 0.15f, 0.3f, 0.25f};

typedef struct {
  int max_classes;
  bool regular;
  bool quantized;
} dp_case;

/* Runs the op; fills boxes/classes/scores (n_slots each) and the count. */
static int run_case(const dp_case *c, float *boxes, float *classes, float *scores, float *count,
                    int *n_slots)
{
  op_runner r;
  op_runner_init(&r, TFL_OP_DETECTION_POSTPROCESS);
  int in_b, in_s, in_a;
  if (c->quantized) {
    uint8_t qe[16], qs[16], qa[16];
    for (int i = 0; i < 16; i++) {
      qe[i] = (uint8_t)lrintf(((float *)k_enc)[i] / 0.05f + 128);
      qs[i] = (uint8_t)lrintf(((const float *)k_scores)[i] / 0.01f);
      qa[i] = (uint8_t)lrintf(((const float *)k_anchors)[i] / 0.01f);
    }
    in_b = op_runner_tensor(&r, TFL_TYPE_UINT8, 3, (int32_t[]){1, 4, 4}, qe, false);
    in_s = op_runner_tensor(&r, TFL_TYPE_UINT8, 3, (int32_t[]){1, 4, 4}, qs, false);
    in_a = op_runner_tensor(&r, TFL_TYPE_UINT8, 2, (int32_t[]){4, 4}, qa, true);
    op_runner_quant(&r, in_b, 1, (float[]){0.05f}, (int32_t[]){128}, 0);
    op_runner_quant(&r, in_s, 1, (float[]){0.01f}, (int32_t[]){0}, 0);
    op_runner_quant(&r, in_a, 1, (float[]){0.01f}, (int32_t[]){0}, 0);
  } else {
    in_b = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 3, (int32_t[]){1, 4, 4}, k_enc, false);
    in_s = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 3, (int32_t[]){1, 4, 4}, k_scores, false);
    in_a = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){4, 4}, k_anchors, true);
  }
  const int d = 3 * c->max_classes;
  const int ob = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 3, (int32_t[]){1, d, 4}, NULL, false);
  const int oc = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){1, d}, NULL, false);
  const int os = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){1, d}, NULL, false);
  const int on = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){1}, NULL, false);
  op_runner_io(&r, (int[]){in_b, in_s, in_a}, 3, (int[]){ob, oc, os, on}, 4);
  r.node.p.detection = (tfl_detection_params){
    .max_detections = 3, .max_classes_per_detection = c->max_classes, .detections_per_class = 2,
    .use_regular_nms = c->regular, .nms_score_threshold = 0.3f, .nms_iou_threshold = 0.5f,
    .num_classes = 3, .y_scale = 10, .x_scale = 10, .h_scale = 5, .w_scale = 5};
  /* poison the outputs: unused slots must come back zero */
  for (int t = ob; t <= os; t++) memset(r.tensors[t].data, 0x7f, r.tensors[t].bytes);
  tfl_status s = op_runner_run(&r, 1);
  if (s != TFL_OK) {
    fprintf(stderr, "run failed: %s\n", r.diag.error);
    op_runner_free(&r);
    return 0;
  }
  memcpy(boxes, r.tensors[ob].data, sizeof(float) * 4 * (size_t)d);
  memcpy(classes, r.tensors[oc].data, sizeof(float) * (size_t)d);
  memcpy(scores, r.tensors[os].data, sizeof(float) * (size_t)d);
  *count = *(float *)r.tensors[on].data;
  *n_slots = d;
  op_runner_free(&r);
  return 1;
}

static int check(const char *name, const dp_case *c, int want_count, const float *const *want_boxes,
                 const float *want_classes, const float *want_scores, float tol)
{
  float boxes[24], classes[6], scores[6], count;
  int d;
  if (!run_case(c, boxes, classes, scores, &count, &d)) return 0;
  int ok = 1;
  char what[64];
  if (count != (float)want_count) {
    fprintf(stderr, "%s: count %g, expected %d\n", name, count, want_count);
    ok = 0;
  }
  const float zero[4] = {0};
  for (int i = 0; i < d; i++) {
    const float *wb = want_boxes[i] ? want_boxes[i] : zero;
    snprintf(what, sizeof what, "%s box %d", name, i);
    ok &= op_runner_expect_near(what, boxes + 4 * i, wb, 4, tol);
    snprintf(what, sizeof what, "%s class %d", name, i);
    ok &= op_runner_expect_near(what, classes + i, want_classes + i, 1, 0);
    snprintf(what, sizeof what, "%s score %d", name, i);
    ok &= op_runner_expect_near(what, scores + i, want_scores + i, 1, tol);
  }
  printf("%s: %s\n", name, ok ? "ok" : "FAILED");
  return ok;
}

/* The NMS helpers alone: IoU, sorting ties, weighted averaging. */
static int check_nms(void)
{
  int ok = 1;
  const pp_box a = {0.4f, 0.4f, 0.6f, 0.6f}, b = {0.44f, 0.4f, 0.64f, 0.6f};
  const pp_box flat = {0.5f, 0.5f, 0.5f, 0.7f};
  ok &= fabsf(pp_box_iou(&a, &b) - 2.0f / 3.0f) < 1e-6f;
  ok &= pp_box_iou(&a, &flat) == 0.0f;
  /* weighted: a (0.75) and b (0.25) merge into their weighted mean; c stays alone */
  const pp_box boxes[3] = {a, b, {0.0f, 0.0f, 0.1f, 0.1f}};
  const float sc[3] = {0.75f, 0.25f, 0.5f};
  const float extra[3][2] = {{1, 2}, {5, 6}, {9, 9}};
  nms_scored cand[3];
  uint8_t scratch[3];
  pp_box ob[3];
  float os[3], oe[6];
  int oi[3];
  const int k = nms_collect(sc, 3, 1, 0.1f, cand);
  const int m = nms_weighted(boxes, &extra[0][0], 2, cand, k, 0.5f, 3, ob, os, oi, oe, scratch);
  ok &= k == 3 && m == 2 && oi[0] == 0 && oi[1] == 2 && os[0] == 0.75f;
  ok &= fabsf(ob[0].ymin - 0.41f) < 1e-6f && fabsf(ob[0].ymax - 0.61f) < 1e-6f;
  ok &= fabsf(oe[0] - 2.0f) < 1e-6f && fabsf(oe[1] - 3.0f) < 1e-6f && oe[2] == 9.0f;
  printf("nms helpers: %s\n", ok ? "ok" : "FAILED");
  return ok;
}

int main(void)
{
  const float e[4][4] = {{0, 0, 0, 0}, {1, 0, 0, 0}, {0, 0, 5.0f * logf(2.0f), 0}, {-1, 2, 0, 0}};
  memcpy(k_enc, e, sizeof e);
  int ok = check_nms();
  const float tol = 1e-6f;

  const float *fb1[3] = {B0, B2, NULL};
  ok &= check("fast, 1 class", &(dp_case){1, false, false}, 2, fb1, (float[]){0, 1, 0},
              (float[]){0.9f, 0.6f, 0}, tol);
  const float *fb2[6] = {B0, B0, B2, B2, NULL, NULL};
  ok &= check("fast, 2 classes", &(dp_case){2, false, false}, 2, fb2,
              (float[]){0, 2, 1, 0, 0, 0}, (float[]){0.9f, 0.3f, 0.6f, 0.2f, 0, 0}, tol);
  const float *rb[3] = {B0, B1, B2};
  ok &= check("regular", &(dp_case){1, true, false}, 3, rb, (float[]){0, 1, 1},
              (float[]){0.9f, 0.7f, 0.6f}, tol);

  /* uint8: th of e2 is 3.45 after quantization (5 ln 2 = 3.4657), so b2's height is
   * 0.1 * exp(0.69) = 0.19937; the rest is exact up to float rounding */
  const float h2 = 0.05f * expf(3.45f / 5.0f);
  const float qb2[4] = {0.2f - h2, 0.15f, 0.2f + h2, 0.25f};
  const float *qb[3] = {B0, qb2, NULL};
  ok &= check("fast, uint8", &(dp_case){1, false, true}, 2, qb, (float[]){0, 1, 0},
              (float[]){0.9f, 0.6f, 0}, 1e-5f);
  return ok ? 0 : 1;
}
