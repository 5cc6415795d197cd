/* test_loader.c - every real model loads and matches what the real TensorFlow Lite
 * reads from it (inputs, outputs, quantization, op histogram), custom-op options
 * match the values documented for each model, metadata of the model that has it.
 *
 * Usage: test_loader SHARED_MODELS_DIR NPM_MODELS_DIR (meson gives ../shared/models and
 * models/cache; env TFL_SHARED_MODELS wins for the first). An npm model is looked for as
 * DIR/NAME, DIR/<any>/NAME and DIR/<any>/package/NAME. A missing model is a failure.
 */
#include "check.h"
#include "model_path.h"
#include "runtime/tfl_loader.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MODELS_SHARED, MODELS_NPM };

typedef struct {
  const char *name;
  tfl_type type;
  int ndim;
  int32_t dims[6];
  float scale;   /* 0: not quantized */
  int32_t zero_point;
} io_expect;

typedef struct { const char *op; int count; } op_count;

typedef struct {
  int where;
  const char *file;
  int n_in;
  io_expect in[2];
  int n_out;
  io_expect out[6];
  int n_ops;
  op_count ops[16];
} model_expect;

static const model_expect models[] = {
/* Generated once from `oracle info MODEL` (the real TensorFlow Lite's reading of each
 * file) and pasted here as literal data. */
{MODELS_SHARED, "coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite", 1, {{"normalized_input_image_tensor", TFL_TYPE_UINT8, 4, {1, 300, 300, 3}, 0.0078125f, 128}}, 4, {{"TFLite_Detection_PostProcess", TFL_TYPE_FLOAT32, 0, {0}, 0.0f, 0}, {"TFLite_Detection_PostProcess:1", TFL_TYPE_FLOAT32, 0, {0}, 0.0f, 0}, {"TFLite_Detection_PostProcess:2", TFL_TYPE_FLOAT32, 0, {0}, 0.0f, 0}, {"TFLite_Detection_PostProcess:3", TFL_TYPE_FLOAT32, 0, {0}, 0.0f, 0}}, 6, {{"CONV_2D", 34}, {"DEPTHWISE_CONV_2D", 13}, {"RESHAPE", 13}, {"CONCATENATION", 2}, {"LOGISTIC", 1}, {"TFLite_Detection_PostProcess", 1}}},
{MODELS_SHARED, "deeplabv3_257_mv_gpu.tflite", 1, {{"sub_7", TFL_TYPE_FLOAT32, 4, {1, 257, 257, 3}, 0.0f, 0}}, 1, {{"ResizeBilinear_3", TFL_TYPE_FLOAT32, 4, {1, 257, 257, 21}, 0.0f, 0}}, 6, {{"CONV_2D", 38}, {"DEPTHWISE_CONV_2D", 17}, {"ADD", 10}, {"AVERAGE_POOL_2D", 1}, {"RESIZE_BILINEAR", 3}, {"CONCATENATION", 1}}},
{MODELS_SHARED, "face_landmark.tflite", 1, {{"input_1", TFL_TYPE_FLOAT32, 4, {1, 192, 192, 3}, 0.0f, 0}}, 2, {{"conv2d_21", TFL_TYPE_FLOAT32, 4, {1, 1, 1, 1404}, 0.0f, 0}, {"conv2d_31", TFL_TYPE_FLOAT32, 4, {1, 1, 1, 1}, 0.0f, 0}}, 7, {{"DEQUANTIZE", 113}, {"CONV_2D", 25}, {"PRELU", 23}, {"DEPTHWISE_CONV_2D", 20}, {"ADD", 20}, {"MAX_POOL_2D", 6}, {"PAD", 3}}},
{MODELS_SHARED, "mobilenet_v1_0.25_224.tflite", 1, {{"input", TFL_TYPE_FLOAT32, 4, {1, 224, 224, 3}, 0.0f, 0}}, 1, {{"MobilenetV1/Predictions/Reshape_1", TFL_TYPE_FLOAT32, 2, {1, 1001}, 0.0f, 0}}, 5, {{"CONV_2D", 15}, {"DEPTHWISE_CONV_2D", 13}, {"AVERAGE_POOL_2D", 1}, {"SQUEEZE", 1}, {"SOFTMAX", 1}}},
{MODELS_SHARED, "mobilenet_v2_1.0_224_quant.tflite", 1, {{"input", TFL_TYPE_UINT8, 4, {1, 224, 224, 3}, 0.0078125f, 128}}, 1, {{"MobilenetV2/Predictions/Softmax", TFL_TYPE_UINT8, 2, {1, 1001}, 0.00390625f, 0}}, 6, {{"CONV_2D", 36}, {"DEPTHWISE_CONV_2D", 17}, {"ADD", 10}, {"AVERAGE_POOL_2D", 1}, {"RESHAPE", 1}, {"SOFTMAX", 1}}},
{MODELS_SHARED, "object_detection_ssd_mobilenetv2_oidv4_fp16.tflite", 1, {{"normalized_input_image_tensor", TFL_TYPE_FLOAT32, 4, {1, 300, 300, 3}, 0.0f, 0}}, 2, {{"raw_outputs/box_encodings", TFL_TYPE_FLOAT32, 3, {1, 1917, 4}, 0.0f, 0}, {"raw_outputs/class_predictions", TFL_TYPE_FLOAT32, 3, {1, 1917, 24}, 0.0f, 0}}, 6, {{"DEQUANTIZE", 144}, {"CONV_2D", 55}, {"DEPTHWISE_CONV_2D", 17}, {"ADD", 10}, {"RESHAPE", 13}, {"CONCATENATION", 2}}},
{MODELS_SHARED, "palm_detection_lite.tflite", 1, {{"input_1", TFL_TYPE_FLOAT32, 4, {1, 192, 192, 3}, 0.0f, 0}}, 2, {{"Identity", TFL_TYPE_FLOAT32, 3, {1, 2016, 18}, 0.0f, 0}, {"Identity_1", TFL_TYPE_FLOAT32, 3, {1, 2016, 1}, 0.0f, 0}}, 10, {{"DEQUANTIZE", 113}, {"CONV_2D", 30}, {"PRELU", 26}, {"DEPTHWISE_CONV_2D", 23}, {"ADD", 25}, {"MAX_POOL_2D", 4}, {"PAD", 3}, {"RESIZE_BILINEAR", 2}, {"RESHAPE", 4}, {"CONCATENATION", 2}}},
{MODELS_SHARED, "pose_detection.tflite", 1, {{"input_1", TFL_TYPE_FLOAT32, 4, {1, 224, 224, 3}, 0.0f, 0}}, 2, {{"Identity", TFL_TYPE_FLOAT32, 3, {1, 2254, 12}, 0.0f, 0}, {"Identity_1", TFL_TYPE_FLOAT32, 3, {1, 2254, 1}, 0.0f, 0}}, 10, {{"PAD", 8}, {"DEQUANTIZE", 144}, {"CONV_2D", 45}, {"DEPTHWISE_CONV_2D", 28}, {"DENSIFY", 38}, {"ADD", 15}, {"DEPTH_TO_SPACE", 3}, {"RESIZE_BILINEAR", 2}, {"RESHAPE", 6}, {"CONCATENATION", 2}}},
{MODELS_SHARED, "posenet_mobilenet_v1_075_353_481_16_quant_decoder.tflite", 1, {{"sub_2", TFL_TYPE_UINT8, 4, {1, 353, 481, 3}, 0.0078125f, 128}}, 4, {{"poses", TFL_TYPE_FLOAT32, 0, {0}, 0.0f, 0}, {"poses:1", TFL_TYPE_FLOAT32, 0, {0}, 0.0f, 0}, {"poses:2", TFL_TYPE_FLOAT32, 0, {0}, 0.0f, 0}, {"poses:3", TFL_TYPE_FLOAT32, 0, {0}, 0.0f, 0}}, 6, {{"QUANTIZE", 4}, {"PAD", 1}, {"CONV_2D", 18}, {"DEPTHWISE_CONV_2D", 13}, {"CONCATENATION", 1}, {"PosenetDecoderOp", 1}}},
{MODELS_NPM, "face_detection_full_range.tflite", 1, {{"input", TFL_TYPE_FLOAT32, 4, {1, 192, 192, 3}, 0.0f, 0}}, 2, {{"reshaped_regressor_face_4", TFL_TYPE_FLOAT32, 3, {1, 2304, 16}, 0.0f, 0}, {"reshaped_classifier_face_4", TFL_TYPE_FLOAT32, 3, {1, 2304, 1}, 0.0f, 0}}, 9, {{"DEQUANTIZE", 178}, {"CONV_2D", 49}, {"RELU", 47}, {"DEPTHWISE_CONV_2D", 40}, {"ADD", 23}, {"MAX_POOL_2D", 4}, {"PAD", 8}, {"RESIZE_BILINEAR", 3}, {"RESHAPE", 2}}},
{MODELS_NPM, "face_detection_full_range_sparse.tflite", 1, {{"input_1", TFL_TYPE_FLOAT32, 4, {1, 192, 192, 3}, 0.0f, 0}}, 2, {{"Identity", TFL_TYPE_FLOAT32, 3, {1, 2304, 16}, 0.0f, 0}, {"Identity_1", TFL_TYPE_FLOAT32, 3, {1, 2304, 1}, 0.0f, 0}}, 9, {{"PAD", 43}, {"DEQUANTIZE", 182}, {"CONV_2D", 49}, {"DEPTHWISE_CONV_2D", 42}, {"DENSIFY", 46}, {"ADD", 19}, {"RESIZE_BILINEAR", 3}, {"DEPTH_TO_SPACE", 2}, {"RESHAPE", 2}}},
{MODELS_NPM, "face_detection_short_range.tflite", 1, {{"input", TFL_TYPE_FLOAT32, 4, {1, 128, 128, 3}, 0.0f, 0}}, 2, {{"regressors", TFL_TYPE_FLOAT32, 3, {1, 896, 16}, 0.0f, 0}, {"classificators", TFL_TYPE_FLOAT32, 3, {1, 896, 1}, 0.0f, 0}}, 9, {{"DEQUANTIZE", 74}, {"CONV_2D", 21}, {"RELU", 17}, {"DEPTHWISE_CONV_2D", 16}, {"ADD", 16}, {"PAD", 11}, {"MAX_POOL_2D", 3}, {"RESHAPE", 4}, {"CONCATENATION", 2}}},
{MODELS_NPM, "hand_landmark_full.tflite", 1, {{"input_1", TFL_TYPE_FLOAT32, 4, {1, 224, 224, 3}, 0.0f, 0}}, 4, {{"Identity", TFL_TYPE_FLOAT32, 2, {1, 63}, 0.0f, 0}, {"Identity_1", TFL_TYPE_FLOAT32, 2, {1, 1}, 0.0f, 0}, {"Identity_2", TFL_TYPE_FLOAT32, 2, {1, 1}, 0.0f, 0}, {"Identity_3", TFL_TYPE_FLOAT32, 2, {1, 63}, 0.0f, 0}}, 7, {{"DEQUANTIZE", 102}, {"CONV_2D", 31}, {"DEPTHWISE_CONV_2D", 16}, {"ADD", 9}, {"MEAN", 1}, {"FULLY_CONNECTED", 4}, {"LOGISTIC", 2}}},
{MODELS_NPM, "hand_landmark_lite.tflite", 1, {{"input_1", TFL_TYPE_FLOAT32, 4, {1, 224, 224, 3}, 0.0f, 0}}, 4, {{"Identity", TFL_TYPE_FLOAT32, 2, {1, 63}, 0.0f, 0}, {"Identity_1", TFL_TYPE_FLOAT32, 2, {1, 1}, 0.0f, 0}, {"Identity_2", TFL_TYPE_FLOAT32, 2, {1, 1}, 0.0f, 0}, {"Identity_3", TFL_TYPE_FLOAT32, 2, {1, 63}, 0.0f, 0}}, 8, {{"DEQUANTIZE", 102}, {"CONV_2D", 31}, {"DEPTHWISE_CONV_2D", 16}, {"MAX_POOL_2D", 1}, {"ADD", 10}, {"MEAN", 1}, {"FULLY_CONNECTED", 4}, {"LOGISTIC", 2}}},
{MODELS_NPM, "pose_landmark_full.tflite", 1, {{"input_1", TFL_TYPE_FLOAT32, 4, {1, 256, 256, 3}, 0.0f, 0}}, 5, {{"Identity", TFL_TYPE_FLOAT32, 2, {1, 195}, 0.0f, 0}, {"Identity_1", TFL_TYPE_FLOAT32, 2, {1, 1}, 0.0f, 0}, {"Identity_2", TFL_TYPE_FLOAT32, 4, {1, 256, 256, 1}, 0.0f, 0}, {"Identity_3", TFL_TYPE_FLOAT32, 4, {1, 64, 64, 39}, 0.0f, 0}, {"Identity_4", TFL_TYPE_FLOAT32, 2, {1, 117}, 0.0f, 0}}, 9, {{"PAD", 5}, {"DEQUANTIZE", 192}, {"CONV_2D", 58}, {"DEPTHWISE_CONV_2D", 38}, {"ADD", 28}, {"RESIZE_BILINEAR", 5}, {"MAX_POOL_2D", 2}, {"RESHAPE", 3}, {"LOGISTIC", 1}}},
{MODELS_NPM, "pose_landmark_heavy.tflite", 1, {{"input_1", TFL_TYPE_FLOAT32, 4, {1, 256, 256, 3}, 0.0f, 0}}, 5, {{"Identity", TFL_TYPE_FLOAT32, 2, {1, 195}, 0.0f, 0}, {"Identity_1", TFL_TYPE_FLOAT32, 2, {1, 1}, 0.0f, 0}, {"Identity_2", TFL_TYPE_FLOAT32, 4, {1, 256, 256, 1}, 0.0f, 0}, {"Identity_3", TFL_TYPE_FLOAT32, 4, {1, 64, 64, 39}, 0.0f, 0}, {"Identity_4", TFL_TYPE_FLOAT32, 2, {1, 117}, 0.0f, 0}}, 9, {{"PAD", 8}, {"DEQUANTIZE", 396}, {"CONV_2D", 116}, {"DEPTHWISE_CONV_2D", 82}, {"ADD", 73}, {"RESIZE_BILINEAR", 5}, {"MAX_POOL_2D", 5}, {"RESHAPE", 3}, {"LOGISTIC", 1}}},
{MODELS_NPM, "pose_landmark_lite.tflite", 1, {{"input_1", TFL_TYPE_FLOAT32, 4, {1, 256, 256, 3}, 0.0f, 0}}, 5, {{"Identity", TFL_TYPE_FLOAT32, 2, {1, 195}, 0.0f, 0}, {"Identity_1", TFL_TYPE_FLOAT32, 2, {1, 1}, 0.0f, 0}, {"Identity_2", TFL_TYPE_FLOAT32, 4, {1, 256, 256, 1}, 0.0f, 0}, {"Identity_3", TFL_TYPE_FLOAT32, 4, {1, 64, 64, 39}, 0.0f, 0}, {"Identity_4", TFL_TYPE_FLOAT32, 2, {1, 117}, 0.0f, 0}}, 9, {{"PAD", 5}, {"DEQUANTIZE", 176}, {"CONV_2D", 54}, {"DEPTHWISE_CONV_2D", 34}, {"ADD", 25}, {"RESIZE_BILINEAR", 5}, {"MAX_POOL_2D", 2}, {"RESHAPE", 3}, {"LOGISTIC", 1}}},
{MODELS_NPM, "selfie_segmentation.tflite", 1, {{"input_1", TFL_TYPE_FLOAT32, 4, {1, 256, 256, 3}, 0.0f, 0}}, 1, {{"activation_10", TFL_TYPE_FLOAT32, 4, {1, 256, 256, 1}, 0.0f, 0}}, 11, {{"DEQUANTIZE", 110}, {"CONV_2D", 43}, {"HARD_SWISH", 11}, {"RELU", 22}, {"DEPTHWISE_CONV_2D", 11}, {"AVERAGE_POOL_2D", 10}, {"LOGISTIC", 11}, {"MUL", 10}, {"ADD", 14}, {"RESIZE_BILINEAR", 3}, {"Convolution2DTransposeBias", 1}}},
{MODELS_NPM, "selfie_segmentation_landscape.tflite", 1, {{"input_1", TFL_TYPE_FLOAT32, 4, {1, 144, 256, 3}, 0.0f, 0}}, 1, {{"segment_back", TFL_TYPE_FLOAT32, 4, {1, 144, 256, 1}, 0.0f, 0}}, 11, {{"DEQUANTIZE", 110}, {"CONV_2D", 43}, {"HARD_SWISH", 11}, {"RELU", 22}, {"DEPTHWISE_CONV_2D", 11}, {"MEAN", 10}, {"LOGISTIC", 11}, {"MUL", 10}, {"ADD", 14}, {"RESIZE_BILINEAR", 3}, {"Convolution2DTransposeBias", 1}}},
};

static void check_io(const char *model, const char *kind, int i, const tfl_tensor *t,
                     const io_expect *e)
{
  CHECK(strcmp(t->name, e->name) == 0, "%s %s %d: name '%s', expected '%s'", model, kind, i,
        t->name, e->name);
  CHECK(t->type == e->type, "%s %s %d: type %s, expected %s", model, kind, i,
        tfl_type_name(t->type), tfl_type_name(e->type));
  CHECK(t->ndim == e->ndim, "%s %s %d: %d dims, expected %d", model, kind, i, t->ndim, e->ndim);
  for (int d = 0; d < e->ndim && d < t->ndim; d++)
    CHECK(t->dims[d] == e->dims[d], "%s %s %d: dim %d is %d, expected %d", model, kind, i, d,
          t->dims[d], e->dims[d]);
  if (e->scale == 0) {
    CHECK(t->q.n == 0, "%s %s %d: quantized, expected float", model, kind, i);
  } else {
    CHECK(t->q.n == 1 && t->q.scale[0] == e->scale && t->q.zero_point[0] == e->zero_point,
          "%s %s %d: quantization (n %d) differs from scale %g zero point %d", model, kind, i,
          t->q.n, (double)e->scale, e->zero_point);
  }
}

/* Structural invariants the loader promises to the rest of the runtime. */
static void check_graph(const char *model, const tfl_graph *g)
{
  for (int i = 0; i < g->n_tensors; i++) {
    const tfl_tensor *t = &g->tensors[i];
    CHECK(t->bytes == tfl_tensor_count(t) * tfl_type_size(t->type), "%s tensor %d bytes", model, i);
    if (t->is_const)
      CHECK(t->data && (uintptr_t)t->data % tfl_type_size(t->type) == 0,
            "%s tensor %d: constant without aligned data", model, i);
    if (t->data && !t->sparsity)
      CHECK((const uint8_t *)t->data + t->bytes <= g->model_bytes + g->model_size ||
            (const uint8_t *)t->data < g->model_bytes ||
            (const uint8_t *)t->data >= g->model_bytes + g->model_size,
            "%s tensor %d: data runs past the model", model, i);
    if (t->q.n > 1)
      CHECK(t->q.axis >= 0 && t->q.axis < t->ndim && t->dims[t->q.axis] == t->q.n,
            "%s tensor %d: per-channel axis", model, i);
  }
  for (int i = 0; i < g->n_nodes; i++) {
    const tfl_node *n = &g->nodes[i];
    for (int k = 0; k < n->n_in; k++)
      CHECK(n->in[k] >= -1 && n->in[k] < g->n_tensors, "%s node %d input %d", model, i, k);
    for (int k = 0; k < n->n_out; k++)
      CHECK(n->out[k] >= 0 && n->out[k] < g->n_tensors && g->tensors[n->out[k]].producer == i,
            "%s node %d output %d producer", model, i, k);
  }
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LOAD_SLOWDOWN 4
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define LOAD_SLOWDOWN 4
#endif
#endif
#ifndef LOAD_SLOWDOWN
#define LOAD_SLOWDOWN 1
#endif

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void check_model(const model_expect *e, const char *path)
{
  tfl_graph *g = NULL;
  tfl_diag diag;
  tfl_diag_init(&diag);
  double t0 = now_ms();
  tfl_status s = tfl_load_file(path, &g, &diag);
  double ms = now_ms() - t0;
  if (s != TFL_OK) {
    CHECK(0, "%s: %s: %s", e->file, tfl_status_name(s), diag.error);
    return;
  }
  printf("%-58s %5d tensors %4d nodes  %6.2f ms\n", e->file, g->n_tensors, g->n_nodes, ms);
  /* mmap, no weight copies: the 28 MB model loads in about 40 ms here; under ASan, on a
   * 2-core CI machine busy with other tests, it took 521 ms once (the page faults and the
   * validation passes, instrumented), so sanitizer builds get four times the bound */
  CHECK(ms < 500 * LOAD_SLOWDOWN, "%s: load took %.1f ms", e->file, ms);
  CHECK(g->n_inputs == e->n_in, "%s: %d inputs, expected %d", e->file, g->n_inputs, e->n_in);
  CHECK(g->n_outputs == e->n_out, "%s: %d outputs, expected %d", e->file, g->n_outputs, e->n_out);
  for (int i = 0; i < e->n_in && i < g->n_inputs; i++)
    check_io(e->file, "input", i, &g->tensors[g->inputs[i]], &e->in[i]);
  for (int i = 0; i < e->n_out && i < g->n_outputs; i++)
    check_io(e->file, "output", i, &g->tensors[g->outputs[i]], &e->out[i]);
  int total = 0;
  for (int k = 0; k < e->n_ops; k++) {
    int got = 0;
    for (int i = 0; i < g->n_nodes; i++)
      got += strcmp(tfl_op_name(g->nodes[i].op), e->ops[k].op) == 0;
    CHECK(got == e->ops[k].count, "%s: %d %s nodes, expected %d", e->file, got, e->ops[k].op,
          e->ops[k].count);
    total += e->ops[k].count;
  }
  CHECK(total == g->n_nodes, "%s: %d nodes, expected %d", e->file, g->n_nodes, total);
  check_graph(e->file, g);

  /* custom-op options: values from the models' README / the bytes in the file */
  for (int i = 0; i < g->n_nodes; i++) {
    const tfl_node *n = &g->nodes[i];
    if (n->op == TFL_OP_DETECTION_POSTPROCESS) {
      const tfl_detection_params *d = &n->p.detection;
      CHECK(d->max_detections == 10 && d->num_classes == 90 && d->max_classes_per_detection == 1 &&
            fabsf(d->nms_iou_threshold - 0.6f) < 1e-6f && d->y_scale == 10 && d->x_scale == 10 &&
            d->h_scale == 5 && d->w_scale == 5 && !d->use_regular_nms,
            "%s: detection options %d %d %d %g %g %g %g %g", e->file, d->max_detections,
            d->num_classes, d->max_classes_per_detection, (double)d->nms_iou_threshold,
            (double)d->y_scale, (double)d->x_scale, (double)d->h_scale, (double)d->w_scale);
    }
    if (n->op == TFL_OP_POSENET_DECODER) {
      const tfl_posenet_params *p = &n->p.posenet;
      CHECK(p->stride == 16 && p->nms_radius == 10 && fabsf(p->score_threshold - 0.2f) < 1e-6f &&
            p->max_detections == 20, "%s: posenet options %d %g %g %d", e->file, p->stride,
            (double)p->nms_radius, (double)p->score_threshold, p->max_detections);
    }
    if (n->op == TFL_OP_CONV2D_TRANSPOSE_BIAS) {
      /* bytes 01 00 00 00 02 00 00 00 02 00 00 00: SAME, stride 2x2 */
      const tfl_conv_params *c = &n->p.conv;
      CHECK(c->padding == TFL_PAD_SAME && c->stride_w == 2 && c->stride_h == 2,
            "%s: transpose conv options %d %d %d", e->file, c->padding, c->stride_w, c->stride_h);
    }
  }

  if (strcmp(e->file, "mobilenet_v2_1.0_224_quant.tflite") == 0) {
    /* TFLITE_METADATA + imagenet_labels.txt stored in the appended zip (unzip -l) */
    CHECK(g->meta.name && strcmp(g->meta.name, "ImageClassifier") == 0, "metadata name '%s'",
          g->meta.name ? g->meta.name : "(null)");
    CHECK(g->meta.has_norm && g->meta.norm_mean[0] == 127.5f && g->meta.norm_std[0] == 127.5f,
          "metadata normalization %d %g %g", g->meta.has_norm, (double)g->meta.norm_mean[0],
          (double)g->meta.norm_std[0]);
    int lines = 0;
    for (const char *p = g->meta.labels; p && *p; p++) lines += *p == '\n';
    CHECK(g->meta.labels && strncmp(g->meta.labels, "background\ntench, Tinca tinca\n", 30) == 0 &&
          lines == 1001, "metadata labels: %d lines", lines);
  } else {
    CHECK(!g->meta.labels, "%s: unexpected labels", e->file);
  }
  tfl_graph_free(g);

  /* the same bytes from memory give the same graph */
  FILE *f = fopen(path, "rb");
  if (f && fseek(f, 0, SEEK_END) == 0) {
    long n = ftell(f);
    rewind(f);
    void *buf = malloc((size_t)n);
    if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) {
      tfl_graph *m = NULL;
      s = tfl_load_memory(buf, (size_t)n, &m, &diag);
      free(buf); /* the graph keeps its own copy */
      CHECK(s == TFL_OK && m->n_nodes == total && m->n_outputs == e->n_out,
            "%s: load from memory: %s", e->file, diag.error);
      tfl_graph_free(m);
    } else {
      free(buf);
    }
  }
  if (f) fclose(f);
}

int main(int argc, char **argv)
{
  const char *dirs[2];
  if (!test_model_dirs(argc, argv, &dirs[MODELS_SHARED], &dirs[MODELS_NPM])) return 2;
  int found = 0;
  for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
    char path[4096];
    if (!test_find_model(dirs[models[i].where], models[i].file, path, sizeof path)) {
      CHECK(false, "%s: not found under %s (models/fetch.sh, ../shared/models)", models[i].file,
            dirs[models[i].where]);
      continue;
    }
    found++;
    check_model(&models[i], path);
  }
  /* not a model at all */
  tfl_graph *g = NULL;
  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_status s = tfl_load_file("/nonexistent/model.tflite", &g, &diag);
  CHECK(s == TFL_ERR_IO && !g, "missing file gives %s", tfl_status_name(s));
  CHECK(strstr(diag.error, "/nonexistent/model.tflite: does not exist") != NULL, "missing file: message '%s'",
        diag.error);
  s = tfl_load_file("/nonexistent/model.tflite", &g, NULL); /* no context: the message is dropped */
  CHECK(s == TFL_ERR_IO && !g, "missing file without a context gives %s", tfl_status_name(s));
  printf("%d models, %d failures\n", found, failures);
  return failures ? 1 : 0;
}
