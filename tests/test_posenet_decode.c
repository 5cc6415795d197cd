/* test_posenet_decode.c - PoseNet decoding on synthetic heads with two people.
 *
 * A 20x20 grid, stride 16. Person A stands in columns 2..8 with heatmap logit 5 at
 * each of its 17 keypoints, person B is A moved 10 columns right with logit 3; every
 * other heatmap cell is -10. Short offsets point from each cell to the nearest
 * instance of that keypoint; mid offsets of an edge point from each cell to the
 * target keypoint of the person whose source keypoint is nearest. These fields are
 * linear between cells of one person, so bilinear sampling is exact and the decoder
 * must return A then B with keypoints exactly at 16 x their cells, keypoint scores
 * sigmoid(5) and sigmoid(3), pose scores the same (17 equal keypoints, no overlap).
 * Tolerance 1e-4 pixels, 1e-6 on scores. Also run through the PosenetDecoderOp
 * kernel to check its output layout, and with max_detections 1 (A only).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "postproc/posenet.h"
#include "op_runner.h"

#define H 20
#define W 20
#define STRIDE 16

static const int k_person_a[POSENET_KEYPOINTS][2] = {
  {3, 5}, {2, 4}, {2, 6}, {3, 3}, {3, 7}, {6, 3}, {6, 7}, {9, 2}, {9, 8},
  {12, 2}, {12, 8}, {12, 4}, {12, 6}, {15, 4}, {15, 6}, {18, 4}, {18, 6}};

static float heat[H * W * 17], shorts[H * W * 34], mids[H * W * 64];

static void person_kp(int person, int k, int *y, int *x)
{
  *y = k_person_a[k][0];
  *x = k_person_a[k][1] + 10 * person;
}

/* The person whose keypoint k is nearest to cell (y, x). */
static int nearest(int k, int y, int x)
{
  int best = 0;
  float best_d = INFINITY;
  for (int p = 0; p < 2; p++) {
    int ky, kx;
    person_kp(p, k, &ky, &kx);
    const float d = (float)((ky - y) * (ky - y) + (kx - x) * (kx - x));
    if (d < best_d) best_d = d, best = p;
  }
  return best;
}

static void build(void)
{
  for (int i = 0; i < H * W * 17; i++) heat[i] = -10.0f;
  for (int p = 0; p < 2; p++)
    for (int k = 0; k < 17; k++) {
      int y, x;
      person_kp(p, k, &y, &x);
      heat[(y * W + x) * 17 + k] = p == 0 ? 5.0f : 3.0f;
    }
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      const int cell = y * W + x;
      for (int k = 0; k < 17; k++) {
        int ky, kx;
        person_kp(nearest(k, y, x), k, &ky, &kx);
        shorts[cell * 34 + k] = (float)((ky - y) * STRIDE);
        shorts[cell * 34 + 17 + k] = (float)((kx - x) * STRIDE);
      }
      for (int e = 0; e < 2 * POSENET_EDGES; e++) {
        const int fwd = e < POSENET_EDGES, i = e % POSENET_EDGES;
        const int from = posenet_edges[2 * i + (fwd ? 0 : 1)];
        const int to = posenet_edges[2 * i + (fwd ? 1 : 0)];
        int ty, tx;
        person_kp(nearest(from, y, x), to, &ty, &tx);
        const int cy = fwd ? i : 32 + i, cx = cy + 16;
        mids[cell * 64 + cy] = (float)((ty - y) * STRIDE);
        mids[cell * 64 + cx] = (float)((tx - x) * STRIDE);
      }
    }
}

static float sigm(float v)
{
  return 1.0f / (1.0f + expf(-v));
}

/* Checks pose `got` against person p; keypoints as (y, x) pairs, scores per keypoint. */
static int check_pose(const char *name, const float *kp, const float *ks, float score, int p)
{
  int ok = 1;
  const float want_s = sigm(p == 0 ? 5.0f : 3.0f);
  for (int k = 0; k < 17; k++) {
    int y, x;
    person_kp(p, k, &y, &x);
    if (fabsf(kp[2 * k] - (float)(y * STRIDE)) > 1e-4f || fabsf(kp[2 * k + 1] - (float)(x * STRIDE)) > 1e-4f ||
        fabsf(ks[k] - want_s) > 1e-6f) {
      fprintf(stderr, "%s: keypoint %s at (%g, %g) score %g, expected (%d, %d) score %g\n", name,
              posenet_keypoint_names[k], kp[2 * k], kp[2 * k + 1], ks[k], y * STRIDE, x * STRIDE,
              want_s);
      ok = 0;
    }
  }
  if (fabsf(score - want_s) > 1e-6f) {
    fprintf(stderr, "%s: pose score %g, expected %g\n", name, score, want_s);
    ok = 0;
  }
  return ok;
}

static int test_decoder(int max_det, int want)
{
  posenet_options o = posenet_defaults();
  o.max_detections = max_det;
  o.score_threshold = 0.5f;
  o.stride = STRIDE;
  o.nms_radius = 20.0f;
  void *scratch = malloc(posenet_scratch_bytes(H, W, max_det));
  posenet_pose *poses = calloc((size_t)max_det, sizeof *poses);
  const int n = posenet_decode(heat, shorts, mids, H, W, &o, poses, scratch);
  int ok = n == want;
  if (!ok) fprintf(stderr, "decoder (max %d): %d poses, expected %d\n", max_det, n, want);
  for (int p = 0; ok && p < n; p++)
    ok &= check_pose("decoder", &poses[p].keypoints[0].y, poses[p].keypoint_scores, poses[p].score, p);
  free(scratch);
  free(poses);
  printf("decoder, max %d: %s\n", max_det, ok ? "ok" : "FAILED");
  return ok;
}

static int test_kernel(void)
{
  enum { MD = 4 };
  op_runner r;
  op_runner_init(&r, TFL_OP_POSENET_DECODER);
  const int ih = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){1, H, W, 17}, heat, false);
  const int is = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){1, H, W, 34}, shorts, false);
  const int im = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){1, H, W, 64}, mids, false);
  const int ok_ = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 4, (int32_t[]){1, MD, 17, 2}, NULL, false);
  const int oks = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 3, (int32_t[]){1, MD, 17}, NULL, false);
  const int ops = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){1, MD}, NULL, false);
  const int on = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){1}, NULL, false);
  op_runner_io(&r, (int[]){ih, is, im}, 3, (int[]){ok_, oks, ops, on}, 4);
  r.node.p.posenet = (tfl_posenet_params){.max_detections = MD, .score_threshold = 0.5f,
                                          .stride = STRIDE, .nms_radius = 20.0f};
  int ok = op_runner_run(&r, 1) == TFL_OK;
  if (!ok) fprintf(stderr, "kernel: %s\n", r.diag.error);
  const float *kp = r.tensors[ok_].data, *ks = r.tensors[oks].data, *ps = r.tensors[ops].data;
  const float *count = r.tensors[on].data;
  if (ok && *count != 2.0f) {
    fprintf(stderr, "kernel: count %g, expected 2\n", *count);
    ok = 0;
  }
  for (int p = 0; ok && p < 2; p++) ok &= check_pose("kernel", kp + p * 34, ks + p * 17, ps[p], p);
  for (int i = 2 * 34; ok && i < MD * 34; i++) ok &= kp[i] == 0.0f;  /* unused slots are zero */
  op_runner_free(&r);
  printf("kernel: %s\n", ok ? "ok" : "FAILED");
  return ok;
}

int main(void)
{
  build();
  int ok = test_decoder(5, 2);
  ok &= test_decoder(1, 1);
  ok &= test_kernel();
  return ok ? 0 : 1;
}
