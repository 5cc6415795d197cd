/* decoder_impl.h - what one decoder family implements (one file each); tfl_decoder.c
 * dispatches to them. Internal to decoders/. */
#ifndef TFL_DECODER_IMPL_H
#define TFL_DECODER_IMPL_H

#include "tfl_decoder.h"
#include "policy/tfl_layouts.h"

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


/* yolo_op.c: YOLO_DETECTION appended after the head L describes (not a segmentation's), its
 * rows the graph's only output; *appended also when it is there already. */
tfl_status decoder_append_yolo(tfl_graph *g, const tfl_decoder_options *opt, const tfl_yolo_layout *L,
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
