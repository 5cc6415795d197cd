/* tfl_decoder.h - turns a model's output tensors into tfl_results (frame pixels).
 *
 *   tfl_decoder_kind k = tfl_decoder_pick(g, why, sizeof why);     // or a user choice
 *   tfl_decoder *d;  tfl_decoder_create(k, g, &opts, &d, &diag);   // checks the tensors once
 *   per inference:   tfl_decoder_run(d, outs, n, &transform, &results, &diag);
 *   tfl_decoder_free(d);
 *
 * Plain C, no GStreamer. Nothing from the model is trusted: counts, class ids and
 * indices are clamped to the tensors' dims; boxes are clamped to the frame (but for
 * tfl_decoder_options.unclamped).
 * Each family lives in its own file (decode_classification.c, decode_detection.c, ...).
 */
#ifndef TFL_DECODER_H
#define TFL_DECODER_H

#include <stddef.h>

#include "policy/tfl_model_kind.h"
#include "runtime/tfl_graph.h"
#include "tfl_results.h"


/* Anchor layouts for SSD-style models with raw box outputs. */
typedef enum {
  TFL_ANCHORS_AUTO,            /* chosen from the anchor count and input size */
  TFL_ANCHORS_SSD_MOBILENET,   /* standard SSD: 6 layers, 300x300, 1917 anchors */
  TFL_ANCHORS_FACE_SHORT,      /* MediaPipe face detection short range: 128x128, 896 */
  TFL_ANCHORS_FACE_FULL,       /* face detection full range: 192x192, 2304 */
  TFL_ANCHORS_POSE_DETECTION,  /* BlazePose detector: 224x224, 2254 */
  TFL_ANCHORS_PALM,            /* palm detection: 192x192, 2016 */
} tfl_anchor_kind;

typedef struct {
  float threshold;             /* minimum score (0..1) of a reported result */
  int max_results;             /* most classes / boxes / poses reported */
  float iou_threshold;         /* NMS overlap limit */
  tfl_anchor_kind anchors;
  /* SSD box coder scales (y, x, h, w); 0: the preset's defaults */
  float box_scale[4];
  /* YOLO: one NMS over all classes (Ultralytics' agnostic_nms) instead of one per class */
  bool class_agnostic;
  /* YOLO (anchor-free and YOLOv5 heads): a box is a candidate once per class above the
   * threshold, not only for its best class (Ultralytics' multi_label, what its `val`
   * uses; predict keeps the best class) */
  bool multi_label;
  /* YOLO: boxes left unclamped at the frame's edges (what Ultralytics' `val` scores: its
   * boxes in the letterboxed input, reaching into the bars; predict clips them). For
   * comparing with val only: a box outside the frame is no use to a pipeline. */
  bool unclamped;
} tfl_decoder_options;

tfl_decoder_options tfl_decoder_defaults(void);

/* Picks a decoder from the graph's output tensors (count, shapes, types, custom ops)
 * through the family table (tfl_family.h) and writes one sentence saying why into `why`
 * (a guess from shapes says "guessed"). TFL_DECODER_NONE when nothing fits. */
tfl_decoder_kind tfl_decoder_pick(const tfl_graph *g, char *why, size_t why_size);

typedef struct tfl_decoder tfl_decoder;

/* Moves the decoder's post-processing into the graph, so whichever delegate runs the
 * graph runs it too and only the compact results come back: for a MediaPipe detector
 * (the detection decoder's raw MediaPipe layout) appends the internal op
 * ANCHOR_DETECTION (tfl_graph.h) after its heads, for an SSD without
 * TFLite_Detection_PostProcess (the raw SSD layout) SSD_CLASS_NMS and SSD_DETECTION, with
 * opt's threshold, iou_threshold and max_results (and the box scales the decoder uses),
 * and makes the last op's four outputs the graph's outputs; the detection decoder
 * created on the result reads them and gives what it gives on the raw heads. For a
 * landmark model (kind LANDMARKS, float heads) appends LANDMARK_DECODE and makes its row
 * the only output (the model's other outputs, e.g. BlazePose's segmentation, are then
 * neither computed nor read back); an unknown landmark layout is an error naming it.
 * Other kinds and graphs are left as they are (*appended false, TFL_OK). Run on a loaded graph
 * (after tfl_pass_set_batch, before tfl_interpreter_create; fine after tfl_graph_prepare)
 * and create the decoder on the graph as appended, with the same options. */
tfl_status tfl_decoder_append_postprocess(tfl_decoder_kind kind, tfl_graph *g, const tfl_decoder_options *opt,
                                          bool *appended, tfl_diag *diag);

/* Checks that the graph's outputs fit the decoder kind; error naming the tensor if not
 * (in diag, which may be NULL). A decoder is used by one thread at a time; separate
 * decoders are independent. */
tfl_status tfl_decoder_create(tfl_decoder_kind kind, const tfl_graph *g,
                              const tfl_decoder_options *opt, tfl_decoder **out, tfl_diag *diag);
/* Reads outputs[i] (the graph's outputs, in order, data on the CPU) and fills `res`
 * (cleared first). */
tfl_status tfl_decoder_run(tfl_decoder *d, const tfl_tensor *const *outputs, int n_outputs,
                           const tfl_transform *tr, tfl_results *res, tfl_diag *diag);
/* Segmentation only: fills `res` (cleared first) from a mask made on a device, one byte
 * per pixel of the [1, H, W, C] output (width W, height H, rows of W bytes, read, not
 * kept): the argmax class (C > 1), or the probability * 255 (C == 1, sigmoid applied
 * for logits), as a TFL_CONVERT_CLASS_U8 export (runtime/tfl_buffer.h) makes it. The result is
 * what tfl_decoder_run gives from the float output, probabilities rounded to 1/255. */
tfl_status tfl_decoder_run_mask(tfl_decoder *d, const uint8_t *bytes, int width, int height,
                                const tfl_transform *tr, tfl_results *res, tfl_diag *diag);
tfl_decoder_kind tfl_decoder_get_kind(const tfl_decoder *d);
/* Copies every output (outputs[i], data on the CPU) into res->tensors (replacing what was
 * there; names borrowed from the tensors): what decoder=tensors gives, and what an element
 * adds to another decoder's results when it keeps the tensors too. Error naming the
 * output when one cannot be handed on (a string tensor, > TFL_RAW_MAX_DIMS dims). */
tfl_status tfl_results_add_tensors(tfl_results *res, const tfl_tensor *const *outputs, int n_outputs, tfl_diag *diag);
/* Whether graph tensor `tensor` (a one-channel mask) holds logits rather than 0..1
 * probabilities: decided from the ops that produce it (a sigmoid or softmax, possibly
 * resampled, gives probabilities), never from values. */
bool tfl_decoder_output_is_logits(const tfl_graph *g, int tensor);
void tfl_decoder_free(tfl_decoder *d);

#endif
