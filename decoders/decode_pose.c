/* decode_pose.c - PoseNet poses (17 keypoints), from either
 *  - the four outputs of PosenetDecoderOp: keypoints [1,D,17,2] (y, x in input
 *    pixels), keypoint scores [1,D,17], pose scores [1,D], count [1] (all 0..1); or
 *  - the raw heads: heatmaps [1,H,W,17] (logits), short offsets [1,H,W,34], mid
 *    offsets [1,H,W,64], decoded here with posenet_decode (multi-person).
 * Poses scoring below the threshold are dropped; keypoints are mapped to frame
 * pixels (not clamped: a joint may lie just outside). */
#include "decoder_impl.h"

#include <math.h>
#include <stdlib.h>

#include "postproc/posenet.h"

/* PoseNet's drawing skeleton (adjacent keypoints of the body, no face). */
static const int32_t skeleton[] = {
  POSENET_LEFT_HIP, POSENET_LEFT_SHOULDER,     POSENET_LEFT_ELBOW, POSENET_LEFT_SHOULDER,
  POSENET_LEFT_ELBOW, POSENET_LEFT_WRIST,      POSENET_LEFT_HIP, POSENET_LEFT_KNEE,
  POSENET_LEFT_KNEE, POSENET_LEFT_ANKLE,       POSENET_RIGHT_HIP, POSENET_RIGHT_SHOULDER,
  POSENET_RIGHT_ELBOW, POSENET_RIGHT_SHOULDER, POSENET_RIGHT_ELBOW, POSENET_RIGHT_WRIST,
  POSENET_RIGHT_HIP, POSENET_RIGHT_KNEE,       POSENET_RIGHT_KNEE, POSENET_RIGHT_ANKLE,
  POSENET_LEFT_SHOULDER, POSENET_RIGHT_SHOULDER, POSENET_LEFT_HIP, POSENET_RIGHT_HIP,
};
#define N_SKELETON ((int)(sizeof skeleton / sizeof skeleton[0] / 2))

typedef enum { POSE_DECODER_OP, POSE_RAW } pose_layout;

typedef struct {
  pose_layout layout;
  int out[4];          /* graph output positions: op: keypoints, keypoint scores, scores,
                        * count; raw: heatmaps, short, mid offsets */
  int in_w, in_h;      /* graph input size */
  int h, w, stride;    /* raw: grid and input pixels per cell */
  int cap;             /* poses at most */
  float *deq[3];       /* raw: the heads as floats */
  posenet_pose *poses; /* raw: cap */
  void *scratch;
} pose_state;

static void pose_free(void *state)
{
  pose_state *s = state;
  if (!s) return;
  for (int i = 0; i < 3; i++) free(s->deq[i]);
  free(s->poses);
  free(s->scratch);
  free(s);
}

static int output_position(const tfl_graph *g, int32_t tensor)
{
  for (int i = 0; i < g->n_outputs; i++)
    if (g->outputs[i] == tensor) return i;
  return -1;
}

static tfl_status create_op(const tfl_graph *g, const tfl_node *n, pose_state *s, tfl_diag *diag)
{
  static const char *const what[4] = { "keypoints", "keypoint scores", "pose scores", "count" };
  if (n->n_out != 4)
    return tfl_fail(diag, TFL_ERR_SHAPE, "pose: PosenetDecoderOp has %d outputs, expected 4", n->n_out);
  for (int i = 0; i < 4; i++) {
    s->out[i] = n->out[i] >= 0 ? output_position(g, n->out[i]) : -1;
    if (s->out[i] < 0)
      return tfl_fail(diag, TFL_ERR_SHAPE, "pose: PosenetDecoderOp output %d (%s) is not a model output", i,
                       what[i]);
  }
  s->layout = POSE_DECODER_OP;
  return TFL_OK;
}

static tfl_status create_raw(const tfl_graph *g, pose_state *s, tfl_diag *diag)
{
  static const int channels[3] = { POSENET_KEYPOINTS, 2 * POSENET_KEYPOINTS, 4 * POSENET_EDGES };
  static const char *const what[3] = { "heatmaps", "short offsets", "mid offsets" };
  if (g->n_outputs < 3)
    return tfl_fail(diag, TFL_ERR_SHAPE, "pose: %d outputs; expected PoseNet heatmaps, short and mid offsets",
                     g->n_outputs);
  for (int k = 0; k < 3; k++) {
    s->out[k] = -1;
    for (int i = 0; i < g->n_outputs; i++) {
      const tfl_tensor *t = &g->tensors[g->outputs[i]];
      if (t->ndim == 4 && t->dims[0] == 1 && t->dims[3] == channels[k]) s->out[k] = i;
    }
    if (s->out[k] < 0)
      return tfl_fail(diag, TFL_ERR_SHAPE, "pose: no [1,H,W,%d] output for the %s", channels[k], what[k]);
  }
  const tfl_tensor *heat = &g->tensors[g->outputs[s->out[0]]];
  s->h = heat->dims[1];
  s->w = heat->dims[2];
  if (s->h < 1 || s->w < 1 || s->h > 4096 || s->w > 4096)
    return tfl_fail(diag, TFL_ERR_SHAPE, "pose: heatmap grid %dx%d", s->w, s->h);
  for (int k = 1; k < 3; k++) {
    const tfl_tensor *t = &g->tensors[g->outputs[s->out[k]]];
    if (t->dims[1] != s->h || t->dims[2] != s->w)
      return tfl_fail(diag, TFL_ERR_SHAPE, "pose: %s grid %dx%d differs from the heatmaps' %dx%d", what[k],
                       t->dims[2], t->dims[1], s->w, s->h);
  }
  /* PoseNet's grid: (input - 1) / stride + 1 cells */
  s->stride = s->h > 1 && s->in_h > 1 ? (int)lroundf((float)(s->in_h - 1) / (float)(s->h - 1)) : 16;
  if (s->stride < 1) s->stride = 16;
  const size_t cells = (size_t)s->h * (size_t)s->w;
  for (int k = 0; k < 3; k++)
    if (!(s->deq[k] = malloc(cells * (size_t)channels[k] * sizeof(float))))
      return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  s->poses = malloc((size_t)s->cap * sizeof *s->poses);
  s->scratch = malloc(posenet_scratch_bytes(s->h, s->w, s->cap));
  if (!s->poses || !s->scratch) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  s->layout = POSE_RAW;
  return TFL_OK;
}

static tfl_status pose_create(const tfl_graph *g, const tfl_decoder_options *opt, void **state, tfl_diag *diag)
{
  pose_state *s = calloc(1, sizeof *s);
  if (!s) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  s->cap = opt->max_results > 0 ? opt->max_results : 1;
  if (g->n_inputs > 0) {
    const tfl_tensor *in = &g->tensors[g->inputs[0]];
    if (in->ndim == 4) {
      s->in_h = in->dims[1];
      s->in_w = in->dims[2];
    }
  }
  const tfl_node *op = NULL;
  for (int i = 0; i < g->n_nodes; i++)
    if (!g->nodes[i].dead && g->nodes[i].op == TFL_OP_POSENET_DECODER) op = &g->nodes[i];
  tfl_status st = op ? create_op(g, op, s, diag) : create_raw(g, s, diag);
  if (st != TFL_OK) {
    pose_free(s);
    return st;
  }
  *state = s;
  return TFL_OK;
}

/* Appends a pose whose keypoints are (y, x) input pixels. */
static tfl_status emit(tfl_results *res, const tfl_transform *tr, const float *yx, const float *kscore,
                       float score, tfl_diag *diag)
{
  tfl_keypoint *kp = malloc(POSENET_KEYPOINTS * sizeof *kp);
  if (!kp) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  for (int k = 0; k < POSENET_KEYPOINTS; k++) {
    kp[k].score = kscore[k];
    tfl_transform_point(tr, yx[2 * k + 1], yx[2 * k], &kp[k].x, &kp[k].y);
  }
  res->poses[res->n_poses++] = (tfl_pose){
    .n_keypoints = POSENET_KEYPOINTS, .keypoints = kp, .score = score, .class_id = -1,
    .n_edges = N_SKELETON, .edges = skeleton,
  };
  return TFL_OK;
}

static tfl_status run_op(pose_state *s, const tfl_tensor *const *o, const tfl_transform *tr,
                         const tfl_decoder_options *opt, tfl_results *res, tfl_diag *diag)
{
  const tfl_tensor *kps = o[s->out[0]], *ks = o[s->out[1]], *ps = o[s->out[2]], *count = o[s->out[3]];
  size_t d = tfl_tensor_count(ps);
  if (tfl_tensor_count(ks) / POSENET_KEYPOINTS < d) d = tfl_tensor_count(ks) / POSENET_KEYPOINTS;
  if (tfl_tensor_count(kps) / (2 * POSENET_KEYPOINTS) < d) d = tfl_tensor_count(kps) / (2 * POSENET_KEYPOINTS);
  const float cf = tfl_tensor_count(count) ? decoder_value(count, 0) : 0.0f;
  const int n = cf > 0 ? (cf < (float)d ? (int)cf : (int)d) : 0;  /* NaN gives 0 */
  res->poses = calloc((size_t)(n < s->cap ? (n > 0 ? n : 1) : s->cap), sizeof(tfl_pose));
  if (!res->poses) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  tfl_status st = TFL_OK;
  for (int i = 0; i < n && st == TFL_OK && res->n_poses < s->cap; i++) {
    const float score = decoder_value(ps, (size_t)i);
    if (!(score >= opt->threshold)) continue;
    float yx[2 * POSENET_KEYPOINTS], sc[POSENET_KEYPOINTS];
    bool finite = true;
    for (int k = 0; k < POSENET_KEYPOINTS; k++) {
      const size_t b = ((size_t)i * POSENET_KEYPOINTS + (size_t)k);
      yx[2 * k] = decoder_value(kps, 2 * b);
      yx[2 * k + 1] = decoder_value(kps, 2 * b + 1);
      sc[k] = decoder_value(ks, b);
      finite = finite && isfinite(yx[2 * k] + yx[2 * k + 1]);
    }
    if (finite) st = emit(res, tr, yx, sc, score, diag);
  }
  return st;
}

static tfl_status run_raw(pose_state *s, const tfl_tensor *const *o, const tfl_transform *tr,
                          const tfl_decoder_options *opt, tfl_results *res, tfl_diag *diag)
{
  const size_t cells = (size_t)s->h * (size_t)s->w;
  static const int channels[3] = { POSENET_KEYPOINTS, 2 * POSENET_KEYPOINTS, 4 * POSENET_EDGES };
  for (int k = 0; k < 3; k++) {
    const tfl_tensor *t = o[s->out[k]];
    const size_t n = cells * (size_t)channels[k];
    if (tfl_tensor_count(t) != n)
      return tfl_fail(diag, TFL_ERR_SHAPE, "pose: output %d changed size (%zu values, expected %zu)", s->out[k],
                       tfl_tensor_count(t), n);
    for (size_t i = 0; i < n; i++) s->deq[k][i] = decoder_value(t, i);
  }
  posenet_options po = posenet_defaults();
  po.max_detections = s->cap;
  po.score_threshold = opt->threshold;
  po.stride = s->stride;
  const int n = posenet_decode(s->deq[0], s->deq[1], s->deq[2], s->h, s->w, &po, s->poses, s->scratch);
  res->poses = calloc((size_t)(n > 0 ? n : 1), sizeof(tfl_pose));
  if (!res->poses) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  tfl_status st = TFL_OK;
  for (int i = 0; i < n && st == TFL_OK; i++) {
    if (!(s->poses[i].score >= opt->threshold)) continue;
    float yx[2 * POSENET_KEYPOINTS];
    for (int k = 0; k < POSENET_KEYPOINTS; k++) {
      yx[2 * k] = s->poses[i].keypoints[k].y;
      yx[2 * k + 1] = s->poses[i].keypoints[k].x;
    }
    st = emit(res, tr, yx, s->poses[i].keypoint_scores, s->poses[i].score, diag);
  }
  return st;
}

static tfl_status pose_run(void *state, const tfl_tensor *const *outputs, int n_outputs,
                           const tfl_transform *tr, const tfl_decoder_options *opt, tfl_results *res, tfl_diag *diag)
{
  pose_state *s = state;
  const int need = s->layout == POSE_DECODER_OP ? 4 : 3;
  for (int i = 0; i < need; i++)
    if (s->out[i] >= n_outputs)
      return tfl_fail(diag, TFL_ERR_SHAPE, "pose: output %d missing (%d given)", s->out[i], n_outputs);
  switch (s->layout) {
  case POSE_DECODER_OP: return run_op(s, outputs, tr, opt, res, diag);
  case POSE_RAW: return run_raw(s, outputs, tr, opt, res, diag);
  }
  return TFL_OK;
}

const decoder_impl decoder_pose = { pose_create, pose_run, pose_free };
