/* tfl_model_kind.h - what a model's outputs mean (the decoder kind) and which region rule
 * its detections or landmarks make: the words the model-policy layer, the decoders and
 * preprocessing share. Plain C, no state. */
#ifndef TFL_MODEL_KIND_H
#define TFL_MODEL_KIND_H

typedef enum {
  TFL_DECODER_AUTO,
  TFL_DECODER_NONE,
  TFL_DECODER_CLASSIFICATION,
  TFL_DECODER_DETECTION,
  TFL_DECODER_SEGMENTATION,
  TFL_DECODER_POSE,
  TFL_DECODER_LANDMARKS,
  TFL_DECODER_TENSORS,         /* no decoding: the raw output tensors (tfl_results.tensors) */
} tfl_decoder_kind;

const char *tfl_decoder_kind_name(tfl_decoder_kind k);

/* The region rules of tfl_region.h (decoders/): MediaPipe's, by the model that made the
 * detection. */
typedef enum {
  TFL_REGION_BOX,   /* the box as it is (SSD -> classifier) */
  TFL_REGION_POSE,  /* BlazePose detector -> pose landmarks */
  TFL_REGION_PALM,  /* palm detector -> hand landmarks */
  TFL_REGION_FACE,  /* face detector -> face landmarks */
  TFL_REGION_COUNT,
} tfl_region_kind;

#endif
