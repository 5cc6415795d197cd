/* decode_landmarks.c - MediaPipe landmark models: pose (39 x 5 values, the first 33
 * are the body, visibility as logits), hands (21 x 3, plus hand flag and handedness)
 * and face mesh (468 x 3, plus face flag as a logit). Coordinates are input pixels; one pose is
 * reported when the presence score reaches the threshold. */
#include "decoder_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum { LM_POSE, LM_HAND, LM_FACE } lm_family;

typedef struct {
  lm_family family;
  int n_points, stride;   /* points reported, values per point in the tensor */
  int n_aux;              /* points after those (BlazePose: 6 alignment points) */
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

static float sigmoid(float v)
{
  return 1.0f / (1.0f + expf(-v));
}

/* The presence score: the pose and hand models end in a sigmoid, the face mesh gives
 * a logit (MediaPipe applies the sigmoid in its graph). */
static float presence_of(const lm_state *s, float v)
{
  return s->family == LM_FACE ? sigmoid(v) : v;
}

static tfl_status lm_create(const tfl_graph *g, const tfl_decoder_options *opt, void **state, tfl_diag *diag)
{
  if (g->n_outputs < 2) return tfl_fail(diag, TFL_ERR_SHAPE, "landmarks: expected a landmark and a score output");
  size_t n = tfl_tensor_count(&g->tensors[g->outputs[0]]);
  lm_state *s = malloc(sizeof *s);
  if (!s) return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  if (n == 195) *s = (lm_state){ LM_POSE, 33, 5, 6 };
  else if (n == 63) *s = (lm_state){ LM_HAND, 21, 3, 0 };
  else if (n == 1404) *s = (lm_state){ LM_FACE, 468, 3, 0 };
  else {
    free(s);
    return tfl_fail(diag, TFL_ERR_SHAPE, "landmarks: output 0 has %zu values (pose 195, hand 63, face 1404)", n);
  }
  for (int i = 1; i < g->n_outputs && i < 3; i++)
    if (tfl_tensor_count(&g->tensors[g->outputs[i]]) < 1) {
      free(s);
      return tfl_fail(diag, TFL_ERR_SHAPE, "landmarks: output %d is empty", i);
    }
  *state = s;
  return TFL_OK;
}

static tfl_status lm_run(void *state, const tfl_tensor *const *outputs, int n_outputs,
                         const tfl_transform *tr, const tfl_decoder_options *opt, tfl_results *res, tfl_diag *diag)
{
  lm_state *s = state;
  if (n_outputs < 2 || tfl_tensor_count(outputs[0]) < (size_t)((s->n_points + s->n_aux) * s->stride))
    return tfl_fail(diag, TFL_ERR_SHAPE, "landmarks: outputs changed size");
  float presence = presence_of(s, decoder_value(outputs[1], 0));
  if (presence < opt->threshold) return TFL_OK;
  tfl_pose *p = calloc(1, sizeof *p);
  tfl_keypoint *kp = calloc((size_t)(s->n_points + s->n_aux), sizeof *kp);
  if (!p || !kp) {
    free(p);
    free(kp);
    return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
  }
  for (int i = 0; i < s->n_points + s->n_aux; i++) {
    size_t b = (size_t)i * (size_t)s->stride;
    tfl_transform_point(tr, decoder_value(outputs[0], b), decoder_value(outputs[0], b + 1), &kp[i].x, &kp[i].y);
    /* pose visibility is a logit */
    kp[i].score = s->family == LM_POSE ? sigmoid(decoder_value(outputs[0], b + 3)) : presence;
  }
  p->keypoints = kp;
  p->n_keypoints = s->n_points;
  if (s->n_aux) {
    /* the alignment points travel separately: they are not body landmarks */
    p->aux = malloc((size_t)s->n_aux * sizeof *kp);
    if (!p->aux) {
      free(p);
      free(kp);
      return tfl_fail(diag, TFL_ERR_NOMEM, "out of memory");
    }
    memcpy(p->aux, kp + s->n_points, (size_t)s->n_aux * sizeof *kp);
    p->n_aux = s->n_aux;
  }
  p->score = presence;
  p->class_id = -1;
  if (s->family == LM_POSE) {
    p->edges = pose_edges;
    p->n_edges = (int)(sizeof pose_edges / sizeof pose_edges[0] / 2);
  } else if (s->family == LM_HAND) {
    p->edges = hand_edges;
    p->n_edges = (int)(sizeof hand_edges / sizeof hand_edges[0] / 2);
    /* handedness: probability of a right hand (as MediaPipe reports it) */
    if (n_outputs >= 3) p->class_id = decoder_value(outputs[2], 0) > 0.5f ? 1 : 0;
  }
  res->poses = p;
  res->n_poses = 1;
  return TFL_OK;
}

static void lm_free(void *state)
{
  free(state);
}

const decoder_impl decoder_landmarks = { lm_create, lm_run, lm_free };
