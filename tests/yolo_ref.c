/* yolo_ref.c - see yolo_ref.h */
#include "yolo_ref.h"

#include <stdio.h>
#include <stdlib.h>

int yolo_ref_read(const char *path, yolo_ref *out, int max)
{
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  int n = 0;
  char line[4096];
  while (n < max && fgets(line, sizeof line, f)) {
    yolo_ref *x = &out[n];
    int used = 0;
    if (sscanf(line, "%d %f %f %f %f %f%n", &x->class_id, &x->score, &x->x0, &x->y0, &x->x1, &x->y1, &used) != 6)
      continue;
    char *p = line + used, *e;
    x->n_values = 0;
    for (float v; x->n_values < YOLO_REF_MAX_VALUES && (v = strtof(p, &e), e != p); p = e) x->v[x->n_values++] = v;
    n++;
  }
  fclose(f);
  return n;
}
