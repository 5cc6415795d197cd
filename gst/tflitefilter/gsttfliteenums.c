/* gsttfliteenums.c - see gsttfliteenums.h */
#include "gsttfliteenums.h"

#include "decoders/tfl_decoder.h"
#include "preprocess/preprocess.h"

GType gst_tflite_enum_type(GType *t, const gchar *name, const GEnumValue *values)
{
  if (g_once_init_enter(t)) g_once_init_leave(t, g_enum_register_static(name, values));
  return *t;
}

GType gst_tflite_delegate_get_type(void)
{
  static GType t;
  static const GEnumValue values[] = {
    { GST_TFLITE_DELEGATE_AUTO, "GL for GL frames when available, else CPU", "auto" },
    { GST_TFLITE_DELEGATE_GL, "GL compute delegate (error if unavailable)", "gl" },
    { GST_TFLITE_DELEGATE_CPU, "CPU delegate", "cpu" },
    { 0, NULL, NULL },
  };
  return gst_tflite_enum_type(&t, "GstTfliteDelegate", values);
}

GType gst_tflite_engine_context_get_type(void)
{
  static GType t;
  static const GEnumValue values[] = {
    { GST_TFLITE_ENGINE_CONTEXT_FRAMES, "The GL context of the first stream's frames: no synchronisation between "
      "contexts while every stream's frames share it", "frames" },
    { GST_TFLITE_ENGINE_CONTEXT_SHARED, "A GL context of the engine's own, which every GL element of the pipeline "
      "shares with: inference on a thread of its own", "shared" },
    { 0, NULL, NULL },
  };
  return gst_tflite_enum_type(&t, "GstTfliteEngineContext", values);
}

GType gst_tflite_gl_start_get_type(void)
{
  static GType t;
  static const GEnumValue values[] = {
    { GST_TFLITE_GL_START_WAIT, "The first frame waits until the GL engine is made (its programs compiled)", "wait" },
    { GST_TFLITE_GL_START_CPU, "The first frames run on the CPU while the GL engine is made in the background; "
      "frames move to GL once it is ready", "cpu" },
    { 0, NULL, NULL },
  };
  return gst_tflite_enum_type(&t, "GstTfliteGlStart", values);
}

GType gst_tflite_precision_get_type(void)
{
  static GType t;
  static const GEnumValue values[] = {
    { GST_TFLITE_PRECISION_FP16, "16-bit float storage and math on the GPU", "fp16" },
    { GST_TFLITE_PRECISION_FP32, "32-bit float on the GPU", "fp32" },
    { 0, NULL, NULL },
  };
  return gst_tflite_enum_type(&t, "GstTflitePrecision", values);
}

GType gst_tflite_decoder_get_type(void)
{
  static GType t;
  static const GEnumValue values[] = {
    { TFL_DECODER_AUTO, "Pick from the model's output tensors", "auto" },
    { TFL_DECODER_NONE, "No decoding (raw inference only)", "none" },
    { TFL_DECODER_CLASSIFICATION, "Top-k classes", "classification" },
    { TFL_DECODER_DETECTION, "Boxes (SSD anchors, MediaPipe anchors, post-processed)", "detection" },
    { TFL_DECODER_SEGMENTATION, "Per-pixel class or probability mask", "segmentation" },
    { TFL_DECODER_POSE, "PoseNet keypoints", "pose" },
    { TFL_DECODER_LANDMARKS, "MediaPipe pose / hand / face landmarks", "landmarks" },
    { TFL_DECODER_TENSORS, "No decoding: every output tensor's bytes on the buffer's GstTfliteMeta "
      "(docs/bring-your-own-model.md)", "tensors" },
    { 0, NULL, NULL },
  };
  return gst_tflite_enum_type(&t, "GstTfliteDecoder", values);
}

GType gst_tflite_fit_get_type(void)
{
  static GType t;
  static const GEnumValue values[] = {
    { FIT_STRETCH, "Scale the whole frame to the input, aspect not kept", "stretch" },
    { FIT_LETTERBOX, "Whole frame, aspect kept, black bars", "letterbox" },
    { FIT_CROP, "Centre crop, aspect kept", "crop" },
    { FIT_LETTERBOX_GREY, "Whole frame, aspect kept, centred, grey (114) bars: Ultralytics' letterbox",
      "letterbox-grey" },
    { FIT_AUTO, "The model family's (letterbox-grey for Ultralytics YOLO, crop for its classifiers), else stretch", "auto" },
    { 0, NULL, NULL },
  };
  return gst_tflite_enum_type(&t, "GstTfliteFit", values);
}

GType gst_tflite_anchors_get_type(void)
{
  static GType t;
  static const GEnumValue values[] = {
    { TFL_ANCHORS_AUTO, "From the model's anchor count and input size", "auto" },
    { TFL_ANCHORS_SSD_MOBILENET, "SSD MobileNet, 300x300, 1917 anchors", "ssd-mobilenet" },
    { TFL_ANCHORS_FACE_SHORT, "MediaPipe face detection, short range", "face-short" },
    { TFL_ANCHORS_FACE_FULL, "MediaPipe face detection, full range", "face-full" },
    { TFL_ANCHORS_POSE_DETECTION, "MediaPipe BlazePose person detector", "pose-detection" },
    { TFL_ANCHORS_PALM, "MediaPipe palm detector", "palm" },
    { 0, NULL, NULL },
  };
  return gst_tflite_enum_type(&t, "GstTfliteAnchors", values);
}

void gst_tflite_enums_mark_as_plugin_api(void)
{
  gst_type_mark_as_plugin_api(gst_tflite_delegate_get_type(), 0);
  gst_type_mark_as_plugin_api(gst_tflite_precision_get_type(), 0);
  gst_type_mark_as_plugin_api(gst_tflite_engine_context_get_type(), 0);
  gst_type_mark_as_plugin_api(gst_tflite_gl_start_get_type(), 0);
  gst_type_mark_as_plugin_api(gst_tflite_decoder_get_type(), 0);
  gst_type_mark_as_plugin_api(gst_tflite_fit_get_type(), 0);
  gst_type_mark_as_plugin_api(gst_tflite_anchors_get_type(), 0);
}
