/* tfl_movenet_layout.c - MoveNet's one output (see tfl_layouts.h). */
#include "tfl_layouts.h"

#include <stdio.h>

#define KEYPOINTS 17
#define MULTI_VALUES 56   /* 17 x 3, a box, a score */

int tfl_movenet_find(const tfl_graph *g, bool *multi, char *why, size_t why_size)
{
  if (g->n_outputs != 1) return 0;
  const tfl_tensor *t = &g->tensors[g->outputs[0]];
  const bool single = t->ndim == 4 && t->dims[0] == 1 && t->dims[1] == 1 && t->dims[2] == KEYPOINTS && t->dims[3] == 3;
  const bool many = t->ndim == 3 && t->dims[0] == 1 && t->dims[1] >= 1 && t->dims[2] == MULTI_VALUES;
  if (!single && !many) return 0;
  *multi = many;
  if (many) snprintf(why, why_size, "one output [1,%d,56]: %d persons of 17 keypoints (y, x, score), box and score", t->dims[1], t->dims[1]);
  else snprintf(why, why_size, "one output [1,1,17,3]: 17 keypoints (y, x, score)");
  return 1;
}
