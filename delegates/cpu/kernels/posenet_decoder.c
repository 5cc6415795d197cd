/* posenet_decoder.c - the custom op PosenetDecoderOp (Coral's PoseNet models).
 *
 * Inputs: heatmaps [1,H,W,17] (logits), short offsets [1,H,W,34], mid offsets
 * [1,H,W,64], float or 8-bit quantized. Outputs (float): keypoints [1,D,17,2] as
 * (y, x) input pixels, keypoint scores [1,D,17], pose scores [1,D], count [1];
 * D = max_detections. The decoding is postproc/posenet.c, shared with the
 * element's PoseNet decoder; this file only dequantizes and lays out outputs.
 */
#include "kernels.h"

#include <stdlib.h>
#include <string.h>

#include "postproc/posenet.h"

enum { IN_HEAT = 0, IN_SHORT = 1, IN_MID = 2 };
enum { OUT_KEYPOINTS = 0, OUT_KEYPOINT_SCORES = 1, OUT_SCORES = 2, OUT_COUNT = 3 };

typedef struct {
  int h, w;
  float *deq[3];        /* dequantized inputs; NULL where the input is float already */
  posenet_pose *poses;  /* max_detections */
  void *scratch;
} pn_state;

static void pn_release(void *state)
{
  pn_state *s = state;
  if (!s) return;
  for (int i = 0; i < 3; i++) free(s->deq[i]);
  free(s->poses);
  free(s->scratch);
  free(s);
}

static tfl_status pn_check_in(const tfl_tensor *t, int i, int h, int w, int c, tfl_diag *diag)
{
  static const char *const what[3] = {"heatmaps", "short offsets", "mid offsets"};
  if (!t) return tfl_fail(diag, TFL_ERR_SHAPE, "PosenetDecoderOp: input %d (%s) missing", i, what[i]);
  if (t->type != TFL_TYPE_FLOAT32 && t->type != TFL_TYPE_UINT8 && t->type != TFL_TYPE_INT8)
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "PosenetDecoderOp: %s are %s, expected float32 or 8-bit",
                     what[i], tfl_type_name(t->type));
  if (t->type != TFL_TYPE_FLOAT32 && t->q.n != 1)
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "PosenetDecoderOp: %s need per-tensor quantization",
                     what[i]);
  if (t->ndim != 4 || t->dims[0] != 1 || (h >= 0 && (t->dims[1] != h || t->dims[2] != w)) ||
      t->dims[3] != c)
    return tfl_fail(diag, TFL_ERR_SHAPE, "PosenetDecoderOp: %s must be [1,H,W,%d] (%d dims, last %d)",
                     what[i], c, t->ndim, t->ndim > 0 ? t->dims[t->ndim - 1] : 0);
  return TFL_OK;
}

static tfl_status pn_check_out(const tfl_tensor *t, int i, size_t need, tfl_diag *diag)
{
  if (!t) return tfl_fail(diag, TFL_ERR_SHAPE, "PosenetDecoderOp: output %d missing", i);
  if (t->type != TFL_TYPE_FLOAT32)
    return tfl_fail(diag, TFL_ERR_SHAPE, "PosenetDecoderOp: output %d is %s, expected float32", i,
                     tfl_type_name(t->type));
  if (tfl_tensor_count(t) < need)
    return tfl_fail(diag, TFL_ERR_SHAPE, "PosenetDecoderOp: output %d holds %zu values, needs %zu", i,
                     tfl_tensor_count(t), need);
  return TFL_OK;
}

static tfl_status pn_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_posenet_params *p = &n->p.posenet;
  if (n->n_in != 3 || n->n_out != 4)
    return tfl_fail(diag, TFL_ERR_SHAPE, "PosenetDecoderOp: %d inputs and %d outputs, expected 3 and 4",
                     n->n_in, n->n_out);
  const tfl_tensor *heat = cpu_in(g, n, IN_HEAT);
  tfl_status st = pn_check_in(heat, IN_HEAT, -1, -1, POSENET_KEYPOINTS, diag);
  if (st != TFL_OK) return st;
  const int h = heat->dims[1], w = heat->dims[2];
  if ((st = pn_check_in(cpu_in(g, n, IN_SHORT), IN_SHORT, h, w, 2 * POSENET_KEYPOINTS, diag)) != TFL_OK ||
      (st = pn_check_in(cpu_in(g, n, IN_MID), IN_MID, h, w, 4 * POSENET_EDGES, diag)) != TFL_OK)
    return st;
  if (p->max_detections <= 0 || p->stride <= 0)
    return tfl_fail(diag, TFL_ERR_SHAPE, "PosenetDecoderOp: max_detections %d and stride %d must be > 0",
                     p->max_detections, p->stride);
  const size_t md = (size_t)p->max_detections;
  if ((st = pn_check_out(cpu_out(g, n, OUT_KEYPOINTS), OUT_KEYPOINTS, md * POSENET_KEYPOINTS * 2, diag)) ||
      (st = pn_check_out(cpu_out(g, n, OUT_KEYPOINT_SCORES), OUT_KEYPOINT_SCORES,
                         md * POSENET_KEYPOINTS, diag)) ||
      (st = pn_check_out(cpu_out(g, n, OUT_SCORES), OUT_SCORES, md, diag)) ||
      (st = pn_check_out(cpu_out(g, n, OUT_COUNT), OUT_COUNT, 1, diag)))
    return st;

  pn_state *s = calloc(1, sizeof *s);
  if (!s) return tfl_fail(diag, TFL_ERR_NOMEM, "PosenetDecoderOp: state");
  s->h = h;
  s->w = w;
  bool ok = true;
  for (int i = 0; i < 3; i++) {
    const tfl_tensor *t = cpu_in(g, n, i);
    if (t->type != TFL_TYPE_FLOAT32) ok = ok && (s->deq[i] = malloc(sizeof(float) * tfl_tensor_count(t)));
  }
  s->poses = malloc(sizeof(posenet_pose) * md);
  s->scratch = malloc(posenet_scratch_bytes(h, w, p->max_detections));
  if (!ok || !s->poses || !s->scratch) {
    pn_release(s);
    return tfl_fail(diag, TFL_ERR_NOMEM, "PosenetDecoderOp: scratch for a %dx%d grid", h, w);
  }
  *state = s;
  return TFL_OK;
}

/* The input as floats: the tensor itself, or its dequantized copy. */
static const float *pn_float(const tfl_tensor *t, float *deq)
{
  if (!deq) return t->data;
  const size_t count = tfl_tensor_count(t);
  const float scale = t->q.scale[0], zp = (float)t->q.zero_point[0];
  if (t->type == TFL_TYPE_UINT8) {
    const uint8_t *q = t->data;
    for (size_t i = 0; i < count; i++) deq[i] = ((float)q[i] - zp) * scale;
  } else {
    const int8_t *q = t->data;
    for (size_t i = 0; i < count; i++) deq[i] = ((float)q[i] - zp) * scale;
  }
  return deq;
}

static tfl_status pn_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  pn_state *s = state;
  const tfl_posenet_params *p = &n->p.posenet;
  const float *in[3];
  for (int i = 0; i < 3; i++) in[i] = pn_float(cpu_in(g, n, i), s->deq[i]);
  posenet_options o = posenet_defaults();
  o.max_detections = p->max_detections;
  o.score_threshold = p->score_threshold;
  o.stride = p->stride;
  o.nms_radius = p->nms_radius;
  const int found = posenet_decode(in[IN_HEAT], in[IN_SHORT], in[IN_MID], s->h, s->w, &o, s->poses,
                                   s->scratch);

  float *kp = cpu_out(g, n, OUT_KEYPOINTS)->data, *ks = cpu_out(g, n, OUT_KEYPOINT_SCORES)->data;
  float *ps = cpu_out(g, n, OUT_SCORES)->data, *count = cpu_out(g, n, OUT_COUNT)->data;
  const size_t md = (size_t)p->max_detections;
  memset(kp, 0, sizeof(float) * md * POSENET_KEYPOINTS * 2);
  memset(ks, 0, sizeof(float) * md * POSENET_KEYPOINTS);
  memset(ps, 0, sizeof(float) * md);
  for (int d = 0; d < found; d++) {
    for (int k = 0; k < POSENET_KEYPOINTS; k++) {
      kp[((size_t)d * POSENET_KEYPOINTS + (size_t)k) * 2] = s->poses[d].keypoints[k].y;
      kp[((size_t)d * POSENET_KEYPOINTS + (size_t)k) * 2 + 1] = s->poses[d].keypoints[k].x;
      ks[(size_t)d * POSENET_KEYPOINTS + (size_t)k] = s->poses[d].keypoint_scores[k];
    }
    ps[d] = s->poses[d].score;
  }
  count[0] = (float)found;
  return TFL_OK;
}

const cpu_kernel cpu_k_posenet_decoder = {pn_prepare, pn_eval, pn_release, CPU_F32 | CPU_Q8, 0};
