/* test_family.c - the model family table (decoders/tfl_family.c): every real model is
 * recognized as itself, with the input range and class count its files say; shapes that
 * only suggest a family are guesses and say so; a box regressor is not read as classes.
 *
 * usage: test_family MODEL_DIR[:MODEL_DIR...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "policy/tfl_family.h"
#include "model_path.h"
#include "runtime/tfl_loader.h"

typedef struct {
  const char *file;
  const char *family;        /* substring of the family's name */
  tfl_decoder_kind decoder;
  float lo;                  /* input range lo (hi is 1) */
  int classes;               /* tfl_family_class_count; -1 unknown */
  const char *label;         /* single-class detectors */
  tfl_region_kind region, landmarks;
} model_case;

static const model_case models[] = {
  { "selfie_segmentation.tflite", "selfie", TFL_DECODER_SEGMENTATION, 0, -1, NULL, TFL_REGION_BOX, TFL_REGION_COUNT },
  { "selfie_segmentation_landscape.tflite", "landscape", TFL_DECODER_SEGMENTATION, 0, -1, NULL, TFL_REGION_BOX,
    TFL_REGION_COUNT },
  { "face_detection_short_range.tflite", "short range", TFL_DECODER_DETECTION, -1, -1, "face", TFL_REGION_FACE,
    TFL_REGION_COUNT },
  { "face_detection_full_range.tflite", "full range", TFL_DECODER_DETECTION, -1, -1, "face", TFL_REGION_FACE,
    TFL_REGION_COUNT },
  { "face_detection_full_range_sparse.tflite", "full range", TFL_DECODER_DETECTION, -1, -1, "face", TFL_REGION_FACE,
    TFL_REGION_COUNT },
  { "hand_landmark_lite.tflite", "hand landmarks", TFL_DECODER_LANDMARKS, 0, -1, NULL, TFL_REGION_BOX, TFL_REGION_PALM },
  { "hand_landmark_full.tflite", "hand landmarks", TFL_DECODER_LANDMARKS, 0, -1, NULL, TFL_REGION_BOX, TFL_REGION_PALM },
  { "pose_landmark_lite.tflite", "pose landmarks", TFL_DECODER_LANDMARKS, 0, -1, NULL, TFL_REGION_BOX, TFL_REGION_POSE },
  { "pose_landmark_full.tflite", "pose landmarks", TFL_DECODER_LANDMARKS, 0, -1, NULL, TFL_REGION_BOX, TFL_REGION_POSE },
  { "pose_landmark_heavy.tflite", "pose landmarks", TFL_DECODER_LANDMARKS, 0, -1, NULL, TFL_REGION_BOX,
    TFL_REGION_POSE },
  { "face_landmark.tflite", "face mesh", TFL_DECODER_LANDMARKS, 0, -1, NULL, TFL_REGION_BOX, TFL_REGION_FACE },
  { "deeplabv3_257_mv_gpu.tflite", "DeepLab", TFL_DECODER_SEGMENTATION, -1, 21, NULL, TFL_REGION_BOX,
    TFL_REGION_COUNT },
  { "coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite", "PostProcess", TFL_DECODER_DETECTION, -1, 91, NULL,
    TFL_REGION_BOX, TFL_REGION_COUNT },
  { "mobilenet_v1_0.25_224.tflite", "ImageNet", TFL_DECODER_CLASSIFICATION, -1, 1001, NULL, TFL_REGION_BOX,
    TFL_REGION_COUNT },
  { "mobilenet_v2_1.0_224_quant.tflite", "ImageNet", TFL_DECODER_CLASSIFICATION, -1, 1001, NULL, TFL_REGION_BOX,
    TFL_REGION_COUNT },
  { "object_detection_ssd_mobilenetv2_oidv4_fp16.tflite", "raw box", TFL_DECODER_DETECTION, -1, 24, NULL,
    TFL_REGION_BOX, TFL_REGION_COUNT },
  { "palm_detection_lite.tflite", "palm", TFL_DECODER_DETECTION, 0, -1, "palm", TFL_REGION_PALM, TFL_REGION_COUNT },
  { "pose_detection.tflite", "person detector", TFL_DECODER_DETECTION, -1, -1, "person", TFL_REGION_POSE,
    TFL_REGION_COUNT },
  { "posenet_mobilenet_v1_075_353_481_16_quant_decoder.tflite", "PosenetDecoderOp", TFL_DECODER_POSE, -1, -1, NULL,
    TFL_REGION_BOX, TFL_REGION_COUNT },
};

static void test_real_models(const char *dirs_arg)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
    const model_case *c = &models[i];
    char dirs[4096], path[4096];
    bool found = false;
    snprintf(dirs, sizeof dirs, "%s", dirs_arg);
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d && !found; d = strtok_r(NULL, ":", &save))
      found = test_find_model(d, c->file, path, sizeof path);
    CHECK(found, "%s not found in %s", c->file, dirs_arg);
    tfl_graph *g;
    if (!found || tfl_load_file(path, &g, &diag) != TFL_OK) {
      CHECK(0, "%s does not load: %s", c->file, diag.error);
      continue;
    }
    char why[256];
    tfl_family_match m;
    const tfl_family *f = tfl_family_identify(g, &m, why, sizeof why);
    float lo, hi;
    tfl_family_input_range(c->decoder, g, &lo, &hi);
    int classes = tfl_family_class_count(g, c->decoder);
    CHECK(f && m == TFL_FAMILY_KNOWN && strstr(f->name, c->family) && f->decoder == c->decoder,
          "%s: %s (%s)", c->file, f ? f->name : "nothing", why);
    CHECK(lo == c->lo && hi == 1.0f, "%s: input range %g..%g, want %g..1", c->file, lo, hi, c->lo);
    CHECK(classes == c->classes, "%s: %d classes, want %d", c->file, classes, c->classes);
    if (f) {
      CHECK((!f->label && !c->label) || (f->label && c->label && !strcmp(f->label, c->label)), "%s: label %s",
            c->file, f->label ? f->label : "(none)");
      CHECK(f->region == c->region && f->landmarks == c->landmarks, "%s: region rules %d, %d", c->file, f->region,
            f->landmarks);
    }
    printf("ok   %-55s %s, %s, %g..1, %d classes\n", c->file, f ? f->name : "-", tfl_decoder_kind_name(c->decoder),
           lo, classes);
    tfl_graph_free(g);
  }
}

/* ---- made-up graphs: one node (optional) producing output 0 ---- */

typedef struct {
  tfl_graph g;
  tfl_tensor t[4];
  int32_t outputs[3];
  tfl_node node;
  int32_t node_in[1], node_out[1];
} fake;

static void fake_init(fake *f, int n_out, const int32_t dims[][4], const int *ndims, tfl_op producer)
{
  memset(f, 0, sizeof *f);
  f->t[0] = (tfl_tensor){ .name = "in", .type = TFL_TYPE_FLOAT32, .ndim = 4, .dims = { 1, 64, 64, 3 }, .producer = -1 };
  for (int i = 0; i < n_out; i++) {
    f->t[1 + i] = (tfl_tensor){ .name = "out", .type = TFL_TYPE_FLOAT32, .ndim = ndims[i], .producer = -1 };
    memcpy(f->t[1 + i].dims, dims[i], sizeof(int32_t) * 4);
    f->outputs[i] = 1 + i;
  }
  f->g.tensors = f->t;
  f->g.n_tensors = 1 + n_out;
  f->g.outputs = f->outputs;
  f->g.n_outputs = n_out;
  if (producer != TFL_OP_COUNT) {
    f->node = (tfl_node){ .op = producer, .n_in = 1, .n_out = 1, .in = f->node_in, .out = f->node_out };
    f->node_in[0] = 0;
    f->node_out[0] = 1;
    f->t[1].producer = 0;
    f->g.nodes = &f->node;
    f->g.n_nodes = 1;
  }
}

static void expect(const char *what, fake *f, tfl_family_match want, tfl_decoder_kind kind, const char *why_has)
{
  char why[256];
  tfl_family_match m;
  const tfl_family *fam = tfl_family_identify(&f->g, &m, why, sizeof why);
  CHECK(m == want && (want == TFL_FAMILY_NONE ? fam == NULL : fam && fam->decoder == kind) && strstr(why, why_has),
        "%s: match %d, %s: \"%s\"", what, m, fam ? tfl_decoder_kind_name(fam->decoder) : "none", why);
  printf("ok   %-40s -> %s\n", what, why);
}

static void test_shapes(void)
{
  fake f;
  int one[1] = { 4 }, two[2] = { 3, 3 };
  fake_init(&f, 1, (const int32_t[][4]){ { 1, 1, 1, 4 } }, one, TFL_OP_CONV_2D);
  expect("box regressor [1,1,1,4]", &f, TFL_FAMILY_NONE, TFL_DECODER_NONE, "not class scores");
  fake_init(&f, 1, (const int32_t[][4]){ { 1, 1, 1, 4 } }, one, TFL_OP_SOFTMAX);
  expect("four classes [1,1,1,4] from a softmax", &f, TFL_FAMILY_GUESS, TFL_DECODER_CLASSIFICATION, "softmax");
  int r2[1] = { 2 };
  fake_init(&f, 1, (const int32_t[][4]){ { 1, 7 } }, r2, TFL_OP_FULLY_CONNECTED);
  expect("seven raw values [1,7]", &f, TFL_FAMILY_NONE, TFL_DECODER_NONE, "not class scores");
  fake_init(&f, 1, (const int32_t[][4]){ { 1, 37 } }, r2, TFL_OP_FULLY_CONNECTED);
  expect("37 scores [1,37]", &f, TFL_FAMILY_GUESS, TFL_DECODER_CLASSIFICATION, "guessed 'classification'");
  fake_init(&f, 1, (const int32_t[][4]){ { 1, 64, 64, 5 } }, one, TFL_OP_COUNT);
  expect("mask [1,64,64,5]", &f, TFL_FAMILY_GUESS, TFL_DECODER_SEGMENTATION, "class scores");
  fake_init(&f, 2, (const int32_t[][4]){ { 1, 500, 8 }, { 1, 500, 3 } }, two, TFL_OP_COUNT);
  expect("anchors [1,500,8] + [1,500,3]", &f, TFL_FAMILY_GUESS, TFL_DECODER_DETECTION, "500 anchors");
  fake_init(&f, 2, (const int32_t[][4]){ { 1, 500, 8 }, { 1, 400, 3 } }, two, TFL_OP_COUNT);
  expect("mismatched anchors", &f, TFL_FAMILY_NONE, TFL_DECODER_NONE, "[1,500,8] [1,400,3]");
  /* MoveNet by its exact output on an image input (the look-alikes of each size:
   * test_families); once guessed "a class mask" */
  int32_t in0 = 0;
  int r4[1] = { 4 }, r3[1] = { 3 };
  fake_init(&f, 1, (const int32_t[][4]){ { 1, 1, 17, 3 } }, r4, TFL_OP_LOGISTIC);
  f.g.inputs = &in0;
  f.g.n_inputs = 1;
  expect("MoveNet single-pose [1,1,17,3], 64x64 in", &f, TFL_FAMILY_KNOWN, TFL_DECODER_POSE, "17 keypoints (y, x, score)");
  fake_init(&f, 1, (const int32_t[][4]){ { 1, 6, 56 } }, r3, TFL_OP_RESHAPE);
  f.g.inputs = &in0;
  f.g.n_inputs = 1;
  expect("MoveNet MultiPose [1,6,56]", &f, TFL_FAMILY_KNOWN, TFL_DECODER_POSE, "6 persons");
  fake_init(&f, 1, (const int32_t[][4]){ { 1, 1, 17, 2 } }, r4, TFL_OP_LOGISTIC);
  f.g.inputs = &in0;
  f.g.n_inputs = 1;
  char why[256];
  tfl_family_match m;
  const tfl_family *fam = tfl_family_identify(&f.g, &m, why, sizeof why);
  CHECK(!fam || fam->decoder != TFL_DECODER_POSE, "[1,1,17,2] read as a pose: %s", why);
  /* a forced decoder on an unknown model still gets its family's range */
  float lo, hi;
  fake_init(&f, 1, (const int32_t[][4]){ { 1, 64, 64, 1 } }, one, TFL_OP_COUNT);
  tfl_family_input_range(TFL_DECODER_SEGMENTATION, &f.g, &lo, &hi);
  CHECK(lo == 0 && hi == 1, "one-channel mask range %g..%g", lo, hi);
  fake_init(&f, 1, (const int32_t[][4]){ { 1, 1, 1, 4 } }, one, TFL_OP_CONV_2D);
  tfl_family_input_range(TFL_DECODER_CLASSIFICATION, &f.g, &lo, &hi);
  CHECK(lo == -1 && hi == 1, "forced classification range %g..%g", lo, hi);
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODEL_DIRS\n", argv[0]);
    return 2;
  }
  test_real_models(argv[1]);
  test_shapes();
  printf("%d failure(s)\n", failures);
  return failures != 0;
}
