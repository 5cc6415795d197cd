/* decoder_impl.h - what one decoder family implements (one file each); tfl_decoder.c
 * dispatches to them. Internal to decoders/. */
#ifndef TFL_DECODER_IMPL_H
#define TFL_DECODER_IMPL_H

#include "tfl_decoder.h"

typedef struct {
  /* Checks the graph's outputs and prepares state (anchors, ...). Both say why they
   * fail in diag (may be NULL). */
  tfl_status (*create)(const tfl_graph *g, const tfl_decoder_options *opt, void **state, tfl_diag *diag);
  tfl_status (*run)(void *state, const tfl_tensor *const *outputs, int n_outputs,
                    const tfl_transform *tr, const tfl_decoder_options *opt, tfl_results *res, tfl_diag *diag);
  void (*free)(void *state);
  /* Optional (NULL: the family has none): tfl_decoder_run_mask. */
  tfl_status (*run_mask)(void *state, const uint8_t *bytes, int width, int height, const tfl_transform *tr,
                         tfl_results *res, tfl_diag *diag);
} decoder_impl;

extern const decoder_impl decoder_classification;  /* decode_classification.c */
extern const decoder_impl decoder_segmentation;    /* decode_segmentation.c */
extern const decoder_impl decoder_detection;       /* decode_detection.c */
extern const decoder_impl decoder_pose;            /* decode_pose.c */
extern const decoder_impl decoder_landmarks;       /* decode_landmarks.c */
extern const decoder_impl decoder_tensors;         /* decode_tensors.c: the raw outputs */
extern const decoder_impl decoder_yolo;            /* decode_yolo.c: the detection kind on YOLO heads */
extern const decoder_impl decoder_movenet;         /* decode_movenet.c: the pose kind on MoveNet */

/* decode_movenet.c: 1 when g's one output is MoveNet's (*multi: MultiPose [1,N,56], else
 * single-pose [1,1,17,3]; why describes it), else 0. */
int decoder_movenet_find(const tfl_graph *g, bool *multi, char *why, size_t why_size);
/* decode_detection.c: what TFLite_Detection_PostProcess's class k is reported as: k + 1
 * (the line of a label map whose line 0 is the background or "???", as the TF detection
 * zoo ships them), or k when the model carries its labels in TFLite metadata (Model
 * Maker, MediaPipe: the Task Library's rule, label line k). */
int decoder_postprocess_class_offset(const tfl_graph *g);

/* An Ultralytics YOLO detection head as decode_yolo.c reads it. */
typedef enum {
  YOLO_ANCHOR_FREE,   /* [1, 4+nc(+extra), N] or [1, N, 4+nc]: YOLOv5u/v8/v9/v11/v12 */
  YOLO_V5,            /* [1, 3N, 5+nc]: anchor-based YOLOv5 with objectness */
  YOLO_END2END,       /* [1, 300, 6(+extra)]: YOLOv10 / YOLO26 NMS-free */
} decoder_yolo_head;
typedef struct {
  decoder_yolo_head head;
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
} decoder_yolo_layout;
/* decode_yolo.c: 1 when g's outputs are a YOLO detection head (L filled, why describes
 * it); 0 when they are not (why says what was seen); -1 when they are but cannot be
 * read: an ambiguous shape (why names the property that settles it) or an oriented-box
 * head of another layout. */
int decoder_yolo_find(const tfl_graph *g, decoder_yolo_layout *L, char *why, size_t why_size);
/* yolo_op.c: the appended YOLO_DETECTION whose output is graph tensor `tensor`, or NULL. */
const tfl_yolo_detection_params *decoder_yolo_op(const tfl_graph *g, int tensor);
/* yolo_op.c: YOLO_DETECTION appended after the head L describes (not a segmentation's), its
 * rows the graph's only output; *appended also when it is there already. */
tfl_status decoder_append_yolo(tfl_graph *g, const tfl_decoder_options *opt, const decoder_yolo_layout *L,
                               bool *appended, tfl_diag *diag);

/* A MediaPipe detector's or an SSD's raw heads as the detection decoder reads them. */
typedef struct {
  int regressors, scores;      /* graph tensor indices (SSD: box encodings, class scores) */
  int n_anchors, n_keypoints;
  float scale[4];              /* y, x, h, w */
  bool prob_scores;
  float *anchor_rows;          /* n_anchors rows of y centre, x centre, h, w (malloc'd) */
  int n_classes;               /* SSD: score columns, background included; MediaPipe: 0 */
} decoder_heads;
/* decode_detection.c: fills h (the caller frees h->anchor_rows) when the detection
 * decoder would read g as an SSD (scores, box encodings) or a MediaPipe detector with
 * keypoints (regressors, scores), float32 heads; false otherwise. */
bool decoder_raw_heads(const tfl_graph *g, const tfl_decoder_options *opt, decoder_heads *h);
/* landmark_op.c: LANDMARK_DECODE appended after a landmark model's heads, its row the
 * graph's only output (tfl_decoder_append_postprocess); an unknown layout is an error. */
tfl_status decoder_append_landmarks(tfl_graph *g, bool *appended, tfl_diag *diag);

/* Helpers shared by families. */
/* Element i of an output as a real number (dequantized). */
float decoder_value(const tfl_tensor *t, size_t i);
/* Model-input pixel -> frame pixel: tfl_transform_point (tfl_results.h). */
/* Clamps a box (x, y, w, h in frame pixels) to the frame. */
void decoder_clamp_box(const tfl_transform *tr, tfl_box *b);

#endif
