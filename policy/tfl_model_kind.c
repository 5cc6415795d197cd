/* tfl_model_kind.c - see tfl_model_kind.h */
#include "tfl_model_kind.h"

const char *tfl_decoder_kind_name(tfl_decoder_kind k)
{
  switch (k) {
  case TFL_DECODER_AUTO: return "auto";
  case TFL_DECODER_NONE: return "none";
  case TFL_DECODER_CLASSIFICATION: return "classification";
  case TFL_DECODER_DETECTION: return "detection";
  case TFL_DECODER_SEGMENTATION: return "segmentation";
  case TFL_DECODER_POSE: return "pose";
  case TFL_DECODER_LANDMARKS: return "landmarks";
  case TFL_DECODER_TENSORS: return "tensors";
  }
  return "unknown";
}
