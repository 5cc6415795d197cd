/* tfl_family.h - the model families the decoders know, in one table.
 *
 * A row says how a family is recognized (a custom op, or the count and shapes of the
 * outputs, leading 1s ignored), which decoder reads it, the input range it was trained
 * with, the name of its one class (single-class detectors), how its detections become
 * regions for a second model and how its landmarks carry a region to the next frame.
 * Rows for the models we ship come first and are exact; the last rows are guesses from
 * shapes alone, and say so, so that the element can warn naming the guess.
 *
 *   tfl_family_match m;
 *   const tfl_family *f = tfl_family_identify(graph, &m, why, sizeof why);
 *   if (m == TFL_FAMILY_GUESS) warn(why);    if (!f) nothing fits (why says what was seen)
 *
 * Plain C, static data only: any thread.
 */
#ifndef TFL_FAMILY_H
#define TFL_FAMILY_H

#include <stddef.h>

#include "runtime/tfl_graph.h"
#include "tfl_model_kind.h"

typedef enum {
  TFL_FAMILY_KNOWN,  /* a row for this exact model layout */
  TFL_FAMILY_GUESS,  /* picked by output shape only */
  TFL_FAMILY_NONE,   /* nothing fits */
} tfl_family_match;

/* How a family's training frames were fitted to its input (preprocess/ turns it into a
 * fit mode). */
typedef enum {
  TFL_FIT_HINT_NONE,             /* not said: the element's stretch */
  TFL_FIT_HINT_LETTERBOX_GREY,   /* Ultralytics' letterbox: aspect kept, centred, grey 114 bars */
  TFL_FIT_HINT_CENTER_CROP,      /* shorter side to the input, centre cut out (Ultralytics' classify) */
  TFL_FIT_HINT_LETTERBOX,        /* aspect kept, centred, black bars (MoveNet: tf.image.resize_with_pad,
                                    the padding TF.js's MoveNet adds) */
} tfl_fit_hint;

typedef struct {
  const char *name;              /* e.g. "MediaPipe face detection (short range)" */
  tfl_decoder_kind decoder;
  float input_lo, input_hi;      /* pixel 0..255 mapped linearly onto this */
  const char *label;             /* the class of a single-class detector; NULL */
  tfl_region_kind region;        /* regions its detections make (TFL_REGION_BOX: the box) */
  tfl_region_kind landmarks;     /* landmark models: the rule that turns their points into
                                    the next frame's region; TFL_REGION_COUNT: none */
  tfl_fit_hint fit;              /* how its frames were fitted to the input in training:
                                    preprocess_model_fit */
  int open_size;                 /* the input size (square) to give a file whose input
                                    height and width are open (MoveNet MultiPose: 256); 0 */
} tfl_family;

/* The family of graph g; NULL (and *match = NONE) when no row fits. `why` gets one
 * sentence: what was recognized, or what the guess rests on, or what was seen. */
const tfl_family *tfl_family_identify(const tfl_graph *g, tfl_family_match *match, char *why, size_t why_size);

/* A freshly loaded graph whose first input leaves height and width open (shape_signature
 * [1,-1,-1,C]) gets its family's size (tfl_pass_set_input_size; *sized true); any other
 * graph is left as it is. An open input no family sizes is left too (the caller's
 * takes-an-image check names it). Run before tfl_graph_prepare. */
tfl_status tfl_family_size_input(tfl_graph *g, bool *sized, tfl_diag *diag);

/* The family row for a decoder the user chose (the generic one), for its input range. */
const tfl_family *tfl_family_generic(tfl_decoder_kind kind);

/* How many classes the model's scores have, to check a label file against: a
 * classifier's score count, a segmentation's channels, a raw SSD's score columns;
 * -1 when the model does not say (TFLite_Detection_PostProcess, landmarks). */
int tfl_family_class_count(const tfl_graph *g, tfl_decoder_kind kind);

/* The float input range [*lo, *hi] (pixel 0..255 mapped linearly onto it) the model
 * family was trained with (the table above), for models whose metadata says
 * nothing: MediaPipe's landmark, selfie segmentation and palm models take 0..1;
 * MediaPipe's face and person detectors, DeepLab, the SSDs and the ImageNet classifiers
 * take -1..1. */
void tfl_family_input_range(tfl_decoder_kind kind, const tfl_graph *g, float *lo, float *hi);
/* What TFLite_Detection_PostProcess's class k is reported as: k + 1
 * (the line of a label map whose line 0 is the background or "???", as the TF detection
 * zoo ships them), or k when the model carries its labels in TFLite metadata (Model
 * Maker, MediaPipe: the Task Library's rule, label line k). */
int tfl_family_class_offset(const tfl_graph *g);

#endif
