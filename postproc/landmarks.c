/* landmarks.c - MediaPipe landmark heads to the decoder's values (landmarks.h). */
#include "landmarks.h"

#include <math.h>

/* pose: 33 body points and 6 alignment points of x, y, z, visibility, presence;
 * hand: 21 of x, y, z; face mesh: 468 of x, y, z */
static const pp_lm_layout layouts[PP_LM_FAMILIES] = {
  [PP_LM_POSE] = {PP_LM_POSE, 33, 6, 5, true, false},
  [PP_LM_HAND] = {PP_LM_HAND, 21, 0, 3, false, false},
  [PP_LM_FACE] = {PP_LM_FACE, 468, 0, 3, false, true},
};

bool pp_lm_layout_of(int family, pp_lm_layout *l)
{
  if (family < 0 || family >= PP_LM_FAMILIES) return false;
  *l = layouts[family];
  return true;
}

bool pp_lm_layout_for(size_t n_values, pp_lm_layout *l)
{
  for (int f = 0; f < PP_LM_FAMILIES; f++)
    if (n_values == (size_t)(layouts[f].n_points + layouts[f].n_aux) * (size_t)layouts[f].stride) {
      *l = layouts[f];
      return true;
    }
  return false;
}

float pp_lm_sigmoid(float v)
{
  return 1.0f / (1.0f + expf(-v));
}

void pp_lm_decode(int points, int stride, bool visibility, bool presence_logit, const float *lm, float presence,
                  float handedness, float *row)
{
  /* MediaPipe applies the face mesh's sigmoid in its graph; the others end in one */
  row[0] = presence_logit ? pp_lm_sigmoid(presence) : presence;
  row[1] = handedness;
  const int pv = pp_lm_point_values(visibility);
  for (int i = 0; i < points; i++) {
    const float *p = lm + (size_t)i * (size_t)stride;
    float *o = row + 2 + (size_t)i * (size_t)pv;
    o[0] = p[0];
    o[1] = p[1];
    if (visibility) o[2] = pp_lm_sigmoid(p[3]);
  }
}
