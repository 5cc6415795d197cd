/* decode_landmarks.c - MediaPipe landmark models: pose (39 x 5 values, the first 33
 * are the body, visibility as logits), hands (21 x 3, plus hand flag and handedness)
 * and face mesh (468 x 3, plus face flag as a logit). Coordinates are input pixels; one pose is
 * reported when the presence score reaches the threshold. Reads the raw heads, or the row
 * of the LANDMARK_DECODE appended by tfl_decoder_append_postprocess (landmark_op.c): both
 * come from postproc/landmarks.c, so both give the same results. */
#include "decoder_impl.h"

#include <stdlib.h>
#include <string.h>

#include "postproc/landmarks.h"

typedef struct {
  pp_lm_layout l;
  int op_output;          /* the appended LANDMARK_DECODE's row (its graph output position),
                             or -1: raw heads */
  bool op_handedness;     /* the op was given the handedness */
  float *values, *row;    /* raw heads: the landmarks as floats, the decoded row */
} lm_state;

/* Skeleton edges: MediaPipe's pose (33 landmarks) and hand (21) topologies. */
static const int32_t pose_edges[] = {
  0, 1, 1, 2, 2, 3, 3, 7, 0, 4, 4, 5, 5, 6, 6, 8, 9, 10, 11, 12, 11, 13, 13, 15,
  15, 17, 15, 19, 15, 21, 17, 19, 12, 14, 14, 16, 16, 18, 16, 20, 16, 22, 18, 20,
  11, 23, 12, 24, 23, 24, 23, 25, 24, 26, 25, 27, 26, 28, 27, 29, 28, 30, 29, 31,
  30, 32, 27, 31, 28, 32,
};
static const int32_t hand_edges[] = {
  0, 1, 1, 2, 2, 3, 3, 4, 0, 5, 5, 6, 6, 7, 7, 8, 5, 9, 9, 10, 10, 11, 11, 12,
  9, 13, 13, 14, 14, 15, 15, 16, 13, 17, 0, 17, 17, 18, 18, 19, 19, 20,
};

static void lm_free(void *state)
{
  lm_state *s = state;
  if (!s) return;
  free(s->values);
  free(s->row);
  free(s);
}

static int lm_count(const lm_state *s)
{
  return s->l.n_points + s->l.n_aux;
}

/* The appended LANDMARK_DECODE whose row is a graph output, or NULL. */
static const tfl_node *landmark_op(const tfl_graph *g, int *position)
{
  for (int i = 0; i < g->n_nodes; i++) {
    const tfl_node *n = &g->nodes[i];
    if (n->dead || n->op != TFL_OP_LANDMARK_DECODE || n->n_out != 1) continue;
    for (int k = 0; k < g->n_outputs; k++)
      if (g->outputs[k] == n->out[0]) {
        *position = k;
        return n;
      }
  }
  return NULL;
}

static tfl_status lm_create(const tfl_graph *g, const tfl_decoder_options *opt, void **state, tfl_diag *diag)
{
  (void)opt;
  lm_state *s = calloc(1, sizeof *s);
  if (!s) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  s->op_output = -1;
  const tfl_node *op = landmark_op(g, &s->op_output);
  if (op) {
    if (!pp_lm_layout_of(op->p.landmark.family, &s->l) || op->p.landmark.points != lm_count(s)) {
      lm_free(s);
      return tfl_fail(diag, TFL_ERR_SHAPE, "landmarks: LandmarkDecode's landmark layout unknown: family %d, %d points",
                      op->p.landmark.family, op->p.landmark.points);
    }
    s->op_handedness = op->n_in > 2 && op->in[2] >= 0;
    *state = s;
    return TFL_OK;
  }
  if (g->n_outputs < 2) {
    lm_free(s);
    return tfl_fail(diag, TFL_ERR_SHAPE, "landmarks: expected a landmark and a score output");
  }
  size_t n = tfl_tensor_count(&g->tensors[g->outputs[0]]);
  if (!pp_lm_layout_for(n, &s->l)) {
    lm_free(s);
    return tfl_fail(diag, TFL_ERR_SHAPE, "landmarks: output 0 has %zu values (pose 195, hand 63, face 1404)", n);
  }
  for (int i = 1; i < g->n_outputs && i < 3; i++)
    if (tfl_tensor_count(&g->tensors[g->outputs[i]]) < 1) {
      lm_free(s);
      return tfl_fail(diag, TFL_ERR_SHAPE, "landmarks: output %d is empty", i);
    }
  s->values = malloc(n * sizeof *s->values);
  s->row = malloc((size_t)pp_lm_row(lm_count(s), s->l.visibility) * sizeof *s->row);
  if (!s->values || !s->row) {
    lm_free(s);
    return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  }
  *state = s;
  return TFL_OK;
}

/* The decoded row (postproc/landmarks.h) of this run: the op's output, or the raw heads
 * decoded here; *handed: whether the row has a handedness. NULL when sizes changed. */
static const float *lm_row(lm_state *s, const tfl_tensor *const *outputs, int n_outputs, bool *handed)
{
  const int points = lm_count(s), row = pp_lm_row(points, s->l.visibility);
  if (s->op_output >= 0) {
    const tfl_tensor *t = s->op_output < n_outputs ? outputs[s->op_output] : NULL;
    if (!t || t->type != TFL_TYPE_FLOAT32 || tfl_tensor_count(t) < (size_t)row) return NULL;
    *handed = s->op_handedness;
    return t->data;
  }
  if (n_outputs < 2 || tfl_tensor_count(outputs[0]) < (size_t)(points * s->l.stride)) return NULL;
  for (size_t i = 0; i < (size_t)(points * s->l.stride); i++) s->values[i] = decoder_value(outputs[0], i);
  /* handedness: the probability of a right hand (as MediaPipe reports it) */
  *handed = s->l.family == PP_LM_HAND && n_outputs >= 3;
  pp_lm_decode(points, s->l.stride, s->l.visibility, s->l.presence_logit, s->values, decoder_value(outputs[1], 0),
               *handed ? decoder_value(outputs[2], 0) : 0.0f, s->row);
  return s->row;
}

static tfl_status lm_run(void *state, const tfl_tensor *const *outputs, int n_outputs,
                         const tfl_transform *tr, const tfl_decoder_options *opt, tfl_results *res, tfl_diag *diag)
{
  lm_state *s = state;
  bool handed = false;
  const float *row = lm_row(s, outputs, n_outputs, &handed);
  if (!row) return tfl_fail(diag, TFL_ERR_SHAPE, "landmarks: outputs changed size");
  const float presence = row[0];
  if (presence < opt->threshold) return TFL_OK;
  const int points = lm_count(s), pv = pp_lm_point_values(s->l.visibility);
  tfl_pose *p = calloc(1, sizeof *p);
  tfl_keypoint *kp = calloc((size_t)points, sizeof *kp);
  if (!p || !kp) {
    free(p);
    free(kp);
    return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  }
  for (int i = 0; i < points; i++) {
    const float *v = row + 2 + (size_t)i * (size_t)pv;
    tfl_transform_point(tr, v[0], v[1], &kp[i].x, &kp[i].y);
    kp[i].score = s->l.visibility ? v[2] : presence;
  }
  p->keypoints = kp;
  p->n_keypoints = s->l.n_points;
  if (s->l.n_aux) {
    /* the alignment points travel separately: they are not body landmarks */
    p->aux = malloc((size_t)s->l.n_aux * sizeof *kp);
    if (!p->aux) {
      free(p);
      free(kp);
      return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
    }
    memcpy(p->aux, kp + s->l.n_points, (size_t)s->l.n_aux * sizeof *kp);
    p->n_aux = s->l.n_aux;
  }
  p->score = presence;
  p->class_id = -1;
  if (s->l.family == PP_LM_POSE) {
    p->edges = pose_edges;
    p->n_edges = (int)(sizeof pose_edges / sizeof pose_edges[0] / 2);
  } else if (s->l.family == PP_LM_HAND) {
    p->edges = hand_edges;
    p->n_edges = (int)(sizeof hand_edges / sizeof hand_edges[0] / 2);
    if (handed) p->class_id = row[1] > 0.5f ? 1 : 0;
  }
  res->poses = p;
  res->n_poses = 1;
  return TFL_OK;
}

const decoder_impl decoder_landmarks = { lm_create, lm_run, lm_free };
