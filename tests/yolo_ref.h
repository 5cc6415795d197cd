/* yolo_ref.h - Ultralytics' own detections, as the tests' scripts write them
 * (tests/data/yolo/make_yolo*.py: one per line, "class score x1 y1 x2 y2" then the task's
 * values: 17 x (x y visibility) for pose, cx cy w h angle for oriented boxes), read by the
 * YOLO tests on the CPU and GL. */
#ifndef YOLO_REF_H
#define YOLO_REF_H

#define YOLO_REF_MAX_VALUES 64

typedef struct {
  int class_id;
  float score, x0, y0, x1, y1;   /* input or frame pixels, as the file has them */
  int n_values;                  /* the values after the box */
  float v[YOLO_REF_MAX_VALUES];
} yolo_ref;

/* Reads at most `max` lines of `path` into out (lines that do not start with six numbers
 * are skipped); the count, -1 when the file cannot be read. */
int yolo_ref_read(const char *path, yolo_ref *out, int max);

#endif
