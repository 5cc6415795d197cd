/* landmarks.h - MediaPipe landmark heads to the values the landmark decoder reports, on
 * plain arrays.
 *
 * A landmark model gives `points` rows of `stride` floats (x, y in input pixels, then z;
 * BlazePose adds a visibility and a presence logit) and a presence score (a probability
 * for pose and hands, a logit for the face mesh); the hand model adds the probability of
 * a right hand. pp_lm_decode turns them into one row:
 *   [0] presence (a probability)   [1] handedness (0 without)
 *   then per point x, y and, for pose, the visibility's sigmoid.
 * Shared by the landmark decoder (decoders/decode_landmarks.c, raw heads on the CPU) and
 * the LANDMARK_DECODE CPU kernel (delegates/cpu/kernels/landmark_decode.c), so both
 * give the same bits; the GL generator (delegates/gl/gl_gen_landmarks.c) follows it in
 * float.
 */
#ifndef PP_LANDMARKS_H
#define PP_LANDMARKS_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { PP_LM_POSE, PP_LM_HAND, PP_LM_FACE, PP_LM_FAMILIES } pp_lm_family;

typedef struct {
  pp_lm_family family;
  int n_points;          /* points reported */
  int n_aux;             /* points after those (BlazePose: 6 alignment points) */
  int stride;            /* values per point in the tensor */
  bool visibility;       /* value 3 of a point is a visibility logit (pose) */
  bool presence_logit;   /* the presence score is a logit (face mesh) */
} pp_lm_layout;

/* The layout whose landmark output holds n_values (pose 195, hand 63, face 1404); false
 * when none does. */
bool pp_lm_layout_for(size_t n_values, pp_lm_layout *l);
/* A family's layout; false for an unknown family. */
bool pp_lm_layout_of(int family, pp_lm_layout *l);

/* Values per point in the decoded row (x, y, and the visibility for pose). */
static inline int pp_lm_point_values(bool visibility)
{
  return visibility ? 3 : 2;
}
/* Floats in the decoded row of `points` points. */
static inline int pp_lm_row(int points, bool visibility)
{
  return 2 + points * pp_lm_point_values(visibility);
}

float pp_lm_sigmoid(float v);

/* lm: points * stride values; presence and handedness as the model gives them. Writes
 * pp_lm_row(points, visibility) floats to row. */
void pp_lm_decode(int points, int stride, bool visibility, bool presence_logit, const float *lm, float presence,
                  float handedness, float *row);

#endif
