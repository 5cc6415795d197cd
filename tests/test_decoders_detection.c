/* test_decoders_detection.c - the detection decoder on real model outputs.
 *
 * Data (tests/data/decoders, see its README): the real TensorFlow Lite's outputs
 * (../shared/oracle) for MediaPipe's face / pose / palm detectors and the oidv4 SSD on
 * astronaut.png and chelsea.png, stored as the anchors that score >= 0.05 (the
 * rest is filled with a logit of -30, so results at thresholds >= 0.05 are
 * unchanged); the COCO SSD's TFLite_Detection_PostProcess outputs; the COCO SSD's
 * own anchor constants. Expected boxes and keypoints were checked by drawing them
 * on the pictures and looking; tolerances are a few pixels of the 512x512 frame.
 *
 * usage: test_decoders_detection DATA_DIR
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "decoders/ssd_anchors.h"
#include "decoders/tfl_decoder.h"

static const char *data_dir;

static void *read_file(const char *name, size_t *size)
{
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", data_dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(2);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *b = malloc((size_t)n + 1);
  if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) exit(2);
  fclose(f);
  *size = (size_t)n;
  return b;
}

/* A fake graph: tensor 0 is the input, tensors 1.. the outputs (in order unless
 * `order` permutes them), optionally one node producing them. */
typedef struct {
  tfl_graph g;
  tfl_tensor t[8];
  int32_t inputs[1], outputs[6], node_out[6];
  tfl_node node;
} fake_graph;

static void fake_init(fake_graph *f, int in_w, int in_h)
{
  memset(f, 0, sizeof *f);
  f->t[0] = (tfl_tensor){ .name = "input", .type = TFL_TYPE_FLOAT32, .ndim = 4,
                          .dims = { 1, in_h, in_w, 3 }, .producer = -1 };
  f->inputs[0] = 0;
  f->g.tensors = f->t;
  f->g.inputs = f->inputs;
  f->g.n_inputs = 1;
  f->g.outputs = f->outputs;
  f->g.n_tensors = 1;
}

static tfl_tensor *fake_output(fake_graph *f, int ndim, const int32_t *dims, void *data)
{
  tfl_tensor *t = &f->t[f->g.n_tensors];
  *t = (tfl_tensor){ .name = "out", .type = TFL_TYPE_FLOAT32, .ndim = ndim, .producer = -1, .data = data };
  memcpy(t->dims, dims, sizeof(int32_t) * (size_t)ndim);
  tfl_tensor_update_bytes(t);
  f->outputs[f->g.n_outputs++] = f->g.n_tensors++;
  return t;
}

/* Rebuilds [1,A,K] boxes and [1,A,C] scores from rows of [index, K coords, C scores]. */
static void load_sparse(const char *name, int A, int K, int C, float **boxes, float **scores)
{
  size_t size;
  float *rows = read_file(name, &size);
  const size_t row = (size_t)(1 + K + C), n = size / sizeof(float) / row;
  *boxes = calloc((size_t)A * (size_t)K, sizeof(float));
  *scores = malloc((size_t)A * (size_t)C * sizeof(float));
  for (size_t i = 0; i < (size_t)A * (size_t)C; i++) (*scores)[i] = -30.0f;
  for (size_t r = 0; r < n; r++) {
    const float *p = rows + r * row;
    const int a = (int)p[0];
    if (a < 0 || a >= A) exit(2);
    memcpy(*boxes + (size_t)a * (size_t)K, p + 1, sizeof(float) * (size_t)K);
    memcpy(*scores + (size_t)a * (size_t)C, p + 1 + K, sizeof(float) * (size_t)C);
  }
  free(rows);
}

/* Frame = the picture, the input stretched over it (as the oracle resized it). */
static tfl_transform stretch(int in_w, int in_h, float fw, float fh)
{
  return (tfl_transform){ in_w, in_h, fw, fh, fw / (float)in_w, fh / (float)in_h, 0.0f, 0.0f };
}

/* Decodes a two-output (raw) model; returns the results (caller clears). */
static tfl_status decode_raw(const char *file, int in_w, int in_h, int A, int K, int C, float fw,
                             float fh, tfl_decoder_options *o, tfl_results *res)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  fake_graph f;
  fake_init(&f, in_w, in_h);
  float *b, *s;
  load_sparse(file, A, K, C, &b, &s);
  fake_output(&f, 3, (int32_t[]){ 1, A, K }, b);
  fake_output(&f, 3, (int32_t[]){ 1, A, C }, s);
  char why[256];
  CHECK(tfl_decoder_pick(&f.g, why, sizeof why) == TFL_DECODER_DETECTION, "%s: picked: %s", file, why);
  tfl_decoder *d = NULL;
  tfl_status st = tfl_decoder_create(TFL_DECODER_DETECTION, &f.g, o, &d, &diag);
  if (st == TFL_OK) {
    const tfl_tensor *outs[2] = { &f.t[1], &f.t[2] };
    tfl_transform tr = stretch(in_w, in_h, fw, fh);
    st = tfl_decoder_run(d, outs, 2, &tr, res, &diag);
  }
  tfl_decoder_free(d);
  free(b);
  free(s);
  return st;
}

static void check_box(const tfl_box *b, int class_id, float score, float x, float y, float w, float h,
                      float tol, const char *what)
{
  CHECK(b->class_id == class_id, "%s: class %d, expected %d", what, b->class_id, class_id);
  CHECK(NEAR(b->score, score, 0.01), "%s: score %.4f, expected %.4f", what, b->score, score);
  CHECK(NEAR(b->x, x, tol) && NEAR(b->y, y, tol) && NEAR(b->w, w, tol) && NEAR(b->h, h, tol),
        "%s: box %.1f %.1f %.1f %.1f, expected %.1f %.1f %.1f %.1f", what, b->x, b->y, b->w, b->h, x, y, w, h);
}

static void test_anchors(void)
{
  /* counts the models' outputs have */
  CHECK(ssd_anchor_count(ssd_anchor_preset(TFL_ANCHORS_SSD_MOBILENET)) == 1917, "ssd");
  CHECK(ssd_anchor_count(ssd_anchor_preset(TFL_ANCHORS_FACE_SHORT)) == 896, "face short");
  CHECK(ssd_anchor_count(ssd_anchor_preset(TFL_ANCHORS_FACE_FULL)) == 2304, "face full");
  CHECK(ssd_anchor_count(ssd_anchor_preset(TFL_ANCHORS_POSE_DETECTION)) == 2254, "pose");
  CHECK(ssd_anchor_count(ssd_anchor_preset(TFL_ANCHORS_PALM)) == 2016, "palm");
  CHECK(ssd_anchor_preset(TFL_ANCHORS_AUTO) == NULL, "auto has no options");

  static ssd_anchor a[1917];
  CHECK(ssd_anchors_generate(ssd_anchor_preset(TFL_ANCHORS_SSD_MOBILENET), a, 1917) == 1917, "gen");
  CHECK(ssd_anchors_generate(ssd_anchor_preset(TFL_ANCHORS_SSD_MOBILENET), a, 100) == -1, "too small");
  /* worked by hand: layer 0 (19x19) cell 0: (0.1, ratio 1), (0.2, ratio 2) */
  CHECK(NEAR(a[0].yc, 0.5 / 19, 1e-6) && NEAR(a[0].h, 0.1, 1e-6) && NEAR(a[0].w, 0.1, 1e-6), "a0");
  CHECK(NEAR(a[1].h, 0.2 / sqrt(2), 1e-6) && NEAR(a[1].w, 0.2 * sqrt(2), 1e-6), "a1");
  /* layer 1 (10x10) starts at 19*19*3: scale 0.2 + 0.75/5 = 0.35 */
  CHECK(NEAR(a[1083].yc, 0.05, 1e-6) && NEAR(a[1083].w, 0.35, 1e-6), "a1083");
  /* the last: 1x1 layer, interpolated scale sqrt(0.95 * 1) */
  CHECK(NEAR(a[1916].xc, 0.5, 1e-6) && NEAR(a[1916].w, sqrt(0.95), 1e-6), "a1916 %f", a[1916].w);

  /* against the COCO SSD's anchors (yc, xc, h, w uint8, scale 0.006453, zero point 0) */
  size_t n;
  uint8_t *q = read_file("coco_ssd_anchors.u8", &n);
  CHECK(n == 1917 * 4, "anchor file size %zu", n);
  double worst = 0;
  for (int i = 0; i < 1917 && n == 1917 * 4; i++) {
    const float v[4] = { a[i].yc, a[i].xc, a[i].h, a[i].w };
    for (int j = 0; j < 4; j++) worst = fmax(worst, fabs(v[j] - q[i * 4 + j] * 0.006453060545027256));
  }
  CHECK(worst <= 0.0033, "COCO anchors differ by %g (half a step is 0.0032)", worst);
  free(q);

  /* MediaPipe face short: 16x16 x 2 then 8x8 x 6, fixed size */
  static ssd_anchor f[896];
  ssd_anchors_generate(ssd_anchor_preset(TFL_ANCHORS_FACE_SHORT), f, 896);
  CHECK(NEAR(f[0].xc, 1 / 32.0, 1e-6) && NEAR(f[1].xc, 1 / 32.0, 1e-6) && NEAR(f[2].xc, 3 / 32.0, 1e-6) &&
        f[0].w == 1.0f && f[0].h == 1.0f, "face anchors");
  CHECK(NEAR(f[512].xc, 1 / 16.0, 1e-6) && NEAR(f[518].xc, 3 / 16.0, 1e-6), "face layer 2");
}

static void test_face(void)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_decoder_options o = tfl_decoder_defaults();
  tfl_results r = { 0 };
  /* short range on astronaut: one face (oracle README: best anchor 0.92) */
  CHECK(decode_raw("face_short_astronaut.f32", 128, 128, 896, 16, 1, 512, 512, &o, &r) == TFL_OK, "%s",
        diag.error);
  CHECK(r.n_boxes == 1, "face short: %d boxes", r.n_boxes);
  if (r.n_boxes >= 1) {
    check_box(&r.boxes[0], 0, 0.92f, 179, 81, 93, 93, 4, "face short");
    CHECK(r.boxes[0].n_keypoints == 6, "%d keypoints", r.boxes[0].n_keypoints);
    /* eyes, nose tip, mouth, ear tragions, as drawn */
    static const float kp[6][2] = { { 205, 100 }, { 249, 108 }, { 224, 124 }, { 220, 145 }, { 178, 109 }, { 271, 125 } };
    for (int k = 0; k < 6 && r.boxes[0].n_keypoints == 6; k++)
      CHECK(NEAR(r.boxes[0].keypoints[k].x, kp[k][0], 5) && NEAR(r.boxes[0].keypoints[k].y, kp[k][1], 5),
            "face keypoint %d at %.1f %.1f", k, r.boxes[0].keypoints[k].x, r.boxes[0].keypoints[k].y);
  }
  const tfl_box first = r.n_boxes ? r.boxes[0] : (tfl_box){ 0 };
  const float nose_x = r.n_boxes ? r.boxes[0].keypoints[2].x : 0;  /* first's arrays go below */
  tfl_results_clear(&r);

  /* the same through a letterbox: frame 1100x600, input shown at scale 2, offset (40, 30) */
  {
    fake_graph f;
    fake_init(&f, 128, 128);
    float *b, *s;
    load_sparse("face_short_astronaut.f32", 896, 16, 1, &b, &s);
    fake_output(&f, 3, (int32_t[]){ 1, 896, 16 }, b);
    fake_output(&f, 3, (int32_t[]){ 1, 896, 1 }, s);
    tfl_decoder *d;
    o.anchors = TFL_ANCHORS_FACE_SHORT;
    CHECK(tfl_decoder_create(TFL_DECODER_DETECTION, &f.g, &o, &d, &diag) == TFL_OK, "%s", diag.error);
    const tfl_tensor *outs[2] = { &f.t[1], &f.t[2] };
    tfl_transform tr = { 128, 128, 1100, 600, 2.0f, 2.0f, 40.0f, 30.0f };
    CHECK(tfl_decoder_run(d, outs, 2, &tr, &r, &diag) == TFL_OK && r.n_boxes == 1, "letterbox");
    if (r.n_boxes == 1) {
      /* first was at 4 frame pixels per input pixel: u = x / 4, now 2u + 40 */
      CHECK(NEAR(r.boxes[0].x, first.x / 2 + 40, 0.01) && NEAR(r.boxes[0].y, first.y / 2 + 30, 0.01) &&
            NEAR(r.boxes[0].w, first.w / 2, 0.01), "letterbox box %.2f %.2f", r.boxes[0].x, r.boxes[0].y);
      CHECK(NEAR(r.boxes[0].keypoints[2].x, nose_x / 2 + 40, 0.01), "letterbox keypoint");
    }
    tfl_results_clear(&r);
    /* a frame edge cutting the box: clamped */
    tr.frame_w = 150;
    tfl_decoder_run(d, outs, 2, &tr, &r, &diag);
    CHECK(r.n_boxes == 1 && NEAR(r.boxes[0].x + r.boxes[0].w, 150, 1e-3), "clamped to the frame");
    tfl_results_clear(&r);
    /* outputs that changed size */
    f.t[1].dims[1] = 895;
    CHECK(tfl_decoder_run(d, outs, 2, &tr, &r, &diag) == TFL_ERR_SHAPE, "resized output accepted");
    tfl_decoder_free(d);
    /* an anchor preset that does not fit the model */
    f.t[1].dims[1] = 896;
    o.anchors = TFL_ANCHORS_PALM;
    CHECK(tfl_decoder_create(TFL_DECODER_DETECTION, &f.g, &o, &d, &diag) == TFL_ERR_SHAPE, "wrong preset accepted");
    o.anchors = TFL_ANCHORS_AUTO;
    f.t[1].dims[1] = f.t[2].dims[1] = 1000;
    CHECK(tfl_decoder_create(TFL_DECODER_DETECTION, &f.g, &o, &d, &diag) == TFL_ERR_SHAPE, "1000 anchors accepted");
    CHECK(strstr(diag.error, "1000") != NULL, "error names the count: %s", diag.error);
    free(b);
    free(s);
  }

  /* full range on astronaut: the same face, a little larger box */
  CHECK(decode_raw("face_full_astronaut.f32", 192, 192, 2304, 16, 1, 512, 512, &o, &r) == TFL_OK, "%s",
        diag.error);
  CHECK(r.n_boxes == 1, "face full: %d boxes", r.n_boxes);
  if (r.n_boxes >= 1) {
    check_box(&r.boxes[0], 0, 0.937f, 174, 70, 105, 105, 4, "face full");
    CHECK(r.boxes[0].n_keypoints == 6 && NEAR(r.boxes[0].keypoints[2].x, 224, 6) &&
          NEAR(r.boxes[0].keypoints[2].y, 124, 6), "face full nose");
  }
  tfl_results_clear(&r);
}

static void test_pose_palm(void)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_decoder_options o = tfl_decoder_defaults();
  tfl_results r = { 0 };
  /* BlazePose detector on astronaut: one person; keypoints: hip centre (below the
   * frame), full-body circle point (above her head), shoulder centre (at the neck) */
  CHECK(decode_raw("pose_detection_astronaut.f32", 224, 224, 2254, 12, 1, 512, 512, &o, &r) == TFL_OK, "%s",
        diag.error);
  CHECK(r.n_boxes == 1, "pose detection: %d boxes", r.n_boxes);
  if (r.n_boxes == 1) {
    CHECK(NEAR(r.boxes[0].score, 0.815, 0.01), "pose score %.3f", r.boxes[0].score);
    CHECK(r.boxes[0].n_keypoints == 4, "%d keypoints", r.boxes[0].n_keypoints);
    const tfl_keypoint *k = r.boxes[0].keypoints;
    CHECK(k[0].y > 480 && NEAR(k[0].x, 157, 10), "hip centre %.1f %.1f", k[0].x, k[0].y);
    CHECK(k[1].y < 40 && NEAR(k[1].x, 239, 10), "body circle %.1f %.1f", k[1].x, k[1].y);
    CHECK(NEAR(k[2].x, 209, 10) && NEAR(k[2].y, 241, 10), "shoulder centre %.1f %.1f", k[2].x, k[2].y);
  }
  tfl_results_clear(&r);

  /* palm detector on chelsea (no hand): nothing at 0.5, weak candidates below */
  CHECK(decode_raw("palm_chelsea.f32", 192, 192, 2016, 18, 1, 451, 300, &o, &r) == TFL_OK, "%s",
        diag.error);
  CHECK(r.n_boxes == 0, "palm on a cat: %d boxes", r.n_boxes);
  tfl_results_clear(&r);
  o.threshold = 0.1f;
  CHECK(decode_raw("palm_chelsea.f32", 192, 192, 2016, 18, 1, 451, 300, &o, &r) == TFL_OK, "palm");
  CHECK(r.n_boxes >= 1 && r.boxes[0].score < 0.5f && r.boxes[0].n_keypoints == 7, "palm candidates");
  for (int i = 1; i < r.n_boxes; i++) CHECK(r.boxes[i].score <= r.boxes[i - 1].score, "palm order");
  tfl_results_clear(&r);
}

static void test_ssd(void)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_decoder_options o = tfl_decoder_defaults();
  tfl_results r = { 0 };
  /* oidv4 labels: 4 Person, 8 Cat (line 0 is background) */
  CHECK(decode_raw("oidv4_astronaut.f32", 300, 300, 1917, 4, 24, 512, 512, &o, &r) == TFL_OK, "%s",
        diag.error);
  CHECK(r.n_boxes == 1, "oidv4 astronaut: %d boxes", r.n_boxes);
  if (r.n_boxes == 1) check_box(&r.boxes[0], 4, 0.5825f, 16, 15, 348, 495, 6, "oidv4 person");
  tfl_results_clear(&r);

  CHECK(decode_raw("oidv4_chelsea.f32", 300, 300, 1917, 4, 24, 451, 300, &o, &r) == TFL_OK, "chelsea");
  CHECK(r.n_boxes == 1, "oidv4 chelsea: %d boxes", r.n_boxes);
  if (r.n_boxes == 1) check_box(&r.boxes[0], 8, 0.850f, 3, 1, 420, 299, 6, "oidv4 cat");
  tfl_results_clear(&r);

  /* low threshold: max_results caps, best first, no two overlapping boxes of a class */
  o.threshold = 0.05f;
  o.max_results = 3;
  CHECK(decode_raw("oidv4_astronaut.f32", 300, 300, 1917, 4, 24, 512, 512, &o, &r) == TFL_OK, "cap");
  CHECK(r.n_boxes == 3, "oidv4 capped: %d boxes", r.n_boxes);
  for (int i = 1; i < r.n_boxes; i++) CHECK(r.boxes[i].score <= r.boxes[i - 1].score, "order");
  if (r.n_boxes >= 1) CHECK(r.boxes[0].class_id == 4, "best is the person");
  tfl_results_clear(&r);
}

/* TFLite_Detection_PostProcess outputs (our kernel on the COCO SSD's raw head, as
 * the oracle computed it): boxes [1,10,4], classes, scores [1,10], count [1]. */
static void test_postprocess(void)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  const char *files[2] = { "coco_postprocess_astronaut.f32", "coco_postprocess_chelsea.f32" };
  for (int p = 0; p < 2; p++) {
    size_t n;
    float *v = read_file(files[p], &n);
    if (n != 61 * sizeof(float)) exit(2);
    fake_graph f;
    fake_init(&f, 300, 300);
    /* graph outputs in another order than the op's: the decoder follows the node */
    tfl_tensor *count = fake_output(&f, 1, (int32_t[]){ 1 }, v + 60);
    tfl_tensor *boxes = fake_output(&f, 3, (int32_t[]){ 1, 10, 4 }, v);
    tfl_tensor *scores = fake_output(&f, 2, (int32_t[]){ 1, 10 }, v + 50);
    tfl_tensor *classes = fake_output(&f, 2, (int32_t[]){ 1, 10 }, v + 40);
    f.node_out[0] = (int32_t)(boxes - f.t);
    f.node_out[1] = (int32_t)(classes - f.t);
    f.node_out[2] = (int32_t)(scores - f.t);
    f.node_out[3] = (int32_t)(count - f.t);
    f.node = (tfl_node){ .op = TFL_OP_DETECTION_POSTPROCESS, .n_out = 4, .out = f.node_out };
    f.g.nodes = &f.node;
    f.g.n_nodes = 1;
    char why[256];
    CHECK(tfl_decoder_pick(&f.g, why, sizeof why) == TFL_DECODER_DETECTION, "pick: %s", why);
    tfl_decoder_options o = tfl_decoder_defaults();
    tfl_decoder *d;
    CHECK(tfl_decoder_create(TFL_DECODER_DETECTION, &f.g, &o, &d, &diag) == TFL_OK, "%s", diag.error);
    const tfl_tensor *outs[4] = { count, boxes, scores, classes };
    const float fw = p ? 451 : 512, fh = p ? 300 : 512;
    tfl_transform tr = stretch(300, 300, fw, fh);
    tfl_results r = { 0 };
    CHECK(tfl_decoder_run(d, outs, 4, &tr, &r, &diag) == TFL_OK, "%s", diag.error);
    if (p == 0) {
      /* coco_labelmap_91: 1 person, 74 mouse (the black helmet) */
      CHECK(r.n_boxes == 2, "astronaut: %d boxes", r.n_boxes);
      if (r.n_boxes == 2) {
        check_box(&r.boxes[0], 1, 0.645f, 3, 5, 366, 500, 6, "coco person");
        CHECK(r.boxes[1].class_id == 74, "second: class %d", r.boxes[1].class_id);
      }
    } else {
      CHECK(r.n_boxes == 1, "chelsea: %d boxes", r.n_boxes);
      if (r.n_boxes == 1) check_box(&r.boxes[0], 17, 0.668f, 0, 0, 413, 298, 6, "coco cat");  /* 17 cat */
    }
    tfl_results_clear(&r);
    /* a count beyond the tensors is clamped, NaN is none */
    v[60] = 1e9f;
    o.threshold = 0.0f;
    tfl_decoder_free(d);
    tfl_decoder_create(TFL_DECODER_DETECTION, &f.g, &o, &d, &diag);
    CHECK(tfl_decoder_run(d, outs, 4, &tr, &r, &diag) == TFL_OK && r.n_boxes == 10, "clamped count: %d", r.n_boxes);
    tfl_results_clear(&r);
    v[60] = NAN;
    CHECK(tfl_decoder_run(d, outs, 4, &tr, &r, &diag) == TFL_OK && r.n_boxes == 0, "NaN count: %d", r.n_boxes);
    tfl_results_clear(&r);
    CHECK(tfl_decoder_run(d, outs, 2, &tr, &r, &diag) == TFL_ERR_SHAPE, "missing outputs accepted");
    tfl_decoder_free(d);
    /* an op output that is not a model output */
    f.node_out[3] = 0;
    CHECK(tfl_decoder_create(TFL_DECODER_DETECTION, &f.g, &o, &d, &diag) == TFL_ERR_SHAPE, "unmapped output");
    free(v);
  }
}

int main(int argc, char **argv)
{
  data_dir = argc > 1 ? argv[1] : "tests/data/decoders";
  test_anchors();
  test_face();
  test_pose_palm();
  test_ssd();
  test_postprocess();
  if (failures) {
    fprintf(stderr, "%d failure(s)\n", failures);
    return 1;
  }
  printf("detection decoders: all passed\n");
  return 0;
}
