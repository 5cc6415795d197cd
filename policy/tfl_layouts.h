/* tfl_layouts.h - recognizing the output layouts of the families whose heads need more
 * than a shape check: Ultralytics YOLO heads (tfl_yolo_layout.c), MoveNet
 * (tfl_movenet_layout.c). The family table (tfl_family.c) and the decoders both read them,
 * so they live below both. Plain C, no state. */
#ifndef TFL_LAYOUTS_H
#define TFL_LAYOUTS_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/tfl_graph.h"

/* An Ultralytics YOLO detection head as the YOLO decoder and the family table read it. */
typedef enum {
  YOLO_ANCHOR_FREE,   /* [1, 4+nc(+extra), N] or [1, N, 4+nc]: YOLOv5u/v8/v9/v11/v12 */
  YOLO_V5,            /* [1, 3N, 5+nc]: anchor-based YOLOv5 with objectness */
  YOLO_END2END,       /* [1, 300, 6(+extra)]: YOLOv10 / YOLO26 NMS-free */
} tfl_yolo_head;
typedef struct {
  tfl_yolo_head head;
  int output;               /* graph output position of the head */
  int n_boxes, n_values;    /* boxes and values per box */
  int n_classes;            /* end-to-end: the metadata's names, 0 when not said */
  bool values_first;        /* [1, values, boxes] */
  int in_w, in_h;           /* the input size the coordinates refer to (imgsz) */
  bool normalized;          /* coordinates 0..1 of the input size, else input pixels */
  bool from_metadata;       /* recognized through Ultralytics' metadata.json */
  /* pose (metadata task pose, kpt_shape [k, d]): k keypoints of d values (x, y(, visibility))
   * from value kpt_offset of each box; coordinates as the box's */
  int n_kpts, kpt_dim, kpt_offset;
  /* segmentation (metadata task segment): n_coeffs mask coefficients from value
   * coeff_offset of each box, and the prototypes [1, n_coeffs, proto_h, proto_w] (or NHWC)
   * at graph output `protos` (-1: none) */
  int protos, n_coeffs, coeff_offset, proto_w, proto_h;
  bool protos_channels_first;
  /* oriented boxes (metadata task obb): the angle is value angle_offset of each box (the
   * last: 4 + nc anchor-free, 6 end-to-end) */
  bool oriented;
  int angle_offset;
} tfl_yolo_layout;
/* 1 when g's outputs are a YOLO detection head (L filled, why describes
 * it); 0 when they are not (why says what was seen); -1 when they are but cannot be
 * read: an ambiguous shape (why names the property that settles it) or an oriented-box
 * head of another layout. */
int tfl_yolo_find(const tfl_graph *g, tfl_yolo_layout *L, char *why, size_t why_size);

/* The appended (decoders/yolo_op.c) YOLO_DETECTION whose output is graph tensor `tensor`, or NULL. */
const tfl_yolo_detection_params *tfl_yolo_op(const tfl_graph *g, int tensor);

/* 1 when g's one output is MoveNet's (*multi: MultiPose [1,N,56], else
 * single-pose [1,1,17,3]; why describes it), else 0. */
int tfl_movenet_find(const tfl_graph *g, bool *multi, char *why, size_t why_size);

#endif
