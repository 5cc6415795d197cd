/* test_region.c - MediaPipe's region rules (decoders/tfl_region.c) and the crop the CPU
 * preprocessing makes of a region (preprocess/preprocess.c).
 *
 *  - each rule on hand-made detections with answers worked out on paper;
 *  - the affine map: the model input's corners land on the region's corners, and back;
 *  - each chain on a real picture: the first model (our runtime) finds the object, the
 *    rule makes the region, and the crop reaching the second model is compared pixel by
 *    pixel with the tests' own crop (crop_ref.c) of the region the test builds itself from
 *    the detection's box and keypoints with vectors (no angles), as the rule says.
 *
 *  - each landmark chain's landmarks against the real TensorFlow Lite run on the same
 *    region (goldens in tests/data/golden/regions, tests/data/make_region_golden.py).
 *
 * usage: test_region PICTURES_DIR MODEL_DIR[:MODEL_DIR...] GOLDEN_DIR [--dump DIR]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crop_ref.h"
#include "decoders/tfl_decoder.h"
#include "delegates/cpu/cpu_delegate.h"
#include "decoders/tfl_region.h"
#include "policy/tfl_family.h"
#include "golden.h"
#include "preprocess/preprocess.h"
#include "model_path.h"
#include "runtime/tfl_interpreter.h"
#include "runtime/tfl_loader.h"

#define PI 3.14159265358979323846

static tfl_box box_with(float x, float y, float w, float h, const tfl_keypoint *kp, int n)
{
  tfl_box b = { x, y, w, h, 0, 0.9f, n, (tfl_keypoint *)kp };
  return b;
}

static void check_region(const char *what, const tfl_region *g, double cx, double cy, double w, double h,
                         double angle)
{
  double da = remainder(g->angle - angle, 2 * PI);
  CHECK(NEAR(g->cx, cx, 1e-3) && NEAR(g->cy, cy, 1e-3) && NEAR(g->w, w, 1e-3) && NEAR(g->h, h, 1e-3) &&
            fabs(da) < 1e-5,
        "%s: region (%.3f,%.3f) %.3fx%.3f %.4f rad, want (%.3f,%.3f) %.3fx%.3f %.4f", what, g->cx, g->cy, g->w, g->h,
        g->angle, cx, cy, w, h, angle);
}

static void test_rules(void)
{
  tfl_region g;
  /* pose: centre on the hips (kp0), side twice the hips-to-scale distance, x1.25 */
  tfl_region_rule pose = tfl_region_rule_preset(TFL_REGION_POSE);
  tfl_keypoint up[2] = { { 100, 200, 1 }, { 100, 120, 1 } };
  tfl_box b = box_with(0, 0, 10, 10, up, 2);
  CHECK(tfl_region_from_box(&pose, &b, &g), "pose upright");
  check_region("pose upright", &g, 100, 200, 200, 200, 0);
  /* scale point up and to the right: the person leans right, the region turns clockwise */
  tfl_keypoint lean[2] = { { 100, 200, 1 }, { 160, 140, 1 } };
  b = box_with(0, 0, 10, 10, lean, 2);
  tfl_region_from_box(&pose, &b, &g);
  check_region("pose leaning", &g, 100, 200, 2.5 * hypot(60, 60), 2.5 * hypot(60, 60), PI / 4);
  b.n_keypoints = 1;
  CHECK(!tfl_region_from_box(&pose, &b, &g), "pose needs two keypoints");

  /* palm pointing right (wrist kp0 -> middle finger kp2 along +x): turned a quarter
   * clockwise, moved half the box height towards the fingers (+x), square, x2.6 */
  tfl_region_rule palm = tfl_region_rule_preset(TFL_REGION_PALM);
  tfl_keypoint hand[3] = { { 70, 80, 1 }, { 75, 70, 1 }, { 80, 80, 1 } };
  b = box_with(50, 60, 40, 30, hand, 3);
  tfl_region_from_box(&palm, &b, &g);
  check_region("palm pointing right", &g, 70 + 15, 75, 104, 104, PI / 2);

  /* face with eyes level: the box, square, x1.5; eyes going down to the right: the face
   * is turned clockwise by 45 degrees */
  tfl_region_rule face = tfl_region_rule_preset(TFL_REGION_FACE);
  tfl_keypoint eyes[2] = { { 100, 100, 1 }, { 140, 100, 1 } };
  b = box_with(80, 70, 80, 60, eyes, 2);
  tfl_region_from_box(&face, &b, &g);
  check_region("face level", &g, 120, 100, 120, 120, 0);
  eyes[1] = (tfl_keypoint){ 130, 130, 1 };
  tfl_region_from_box(&face, &b, &g);
  check_region("face tilted", &g, 120, 100, 120, 120, PI / 4);

  /* a plain box stays itself */
  tfl_region_rule plain = tfl_region_rule_preset(TFL_REGION_BOX);
  b = box_with(10, 20, 30, 40, NULL, 0);
  tfl_region_from_box(&plain, &b, &g);
  check_region("box", &g, 25, 40, 30, 40, 0);
  b.w = 0;
  CHECK(!tfl_region_from_box(&plain, &b, &g), "an empty box gives no region");
}

static void test_landmark_regions(void)
{
  tfl_region g;
  /* pose: the alignment points (aux) as the detector's keypoints */
  tfl_keypoint aux[6] = { { 300, 400, 1 }, { 300, 300, 1 } };
  tfl_pose p = { 0 };
  p.aux = aux;
  p.n_aux = 6;
  CHECK(tfl_region_from_landmarks(TFL_REGION_POSE, &p, &g), "pose landmarks give a region");
  check_region("pose from landmarks", &g, 300, 400, 250, 250, 0);

  /* a hand pointing up: wrist at the bottom, finger bases above; bounds of MediaPipe's
   * 12 points, moved 0.1 of the height towards the fingers, square long side, x2 */
  tfl_keypoint h[21] = { 0 };
  for (int i = 0; i < 21; i++) h[i] = (tfl_keypoint){ 200, 300, 1 };
  h[0] = (tfl_keypoint){ 200, 300, 1 };
  h[5] = (tfl_keypoint){ 180, 240, 1 };
  h[9] = (tfl_keypoint){ 200, 230, 1 };
  h[13] = (tfl_keypoint){ 220, 240, 1 };
  h[17] = (tfl_keypoint){ 235, 250, 1 };
  h[1] = (tfl_keypoint){ 170, 280, 1 };
  p = (tfl_pose){ .n_keypoints = 21, .keypoints = h };
  CHECK(tfl_region_from_landmarks(TFL_REGION_PALM, &p, &g), "hand landmarks give a region");
  /* bounds x 170..235 (65), y 230..300 (70): centre (202.5, 265), up by 7 -> 258 */
  check_region("hand from landmarks", &g, 202.5, 258, 140, 140, 0);

  /* face: the bounds of all points, turned by the eye corners 33 -> 263 */
  tfl_keypoint *f = calloc(468, sizeof *f);
  for (int i = 0; i < 468; i++) f[i] = (tfl_keypoint){ 150 + (i % 40), 100 + (i % 30), 1 };
  f[33] = (tfl_keypoint){ 160, 110, 1 };
  f[263] = (tfl_keypoint){ 180, 110, 1 };
  p = (tfl_pose){ .n_keypoints = 468, .keypoints = f };
  CHECK(tfl_region_from_landmarks(TFL_REGION_FACE, &p, &g), "face landmarks give a region");
  check_region("face from landmarks", &g, 169.5, 114.5, 58.5, 58.5, 0);
  p.n_keypoints = 400;
  CHECK(!tfl_region_from_landmarks(TFL_REGION_FACE, &p, &g), "too few face landmarks give no region");
  free(f);
}

/* Input corners map onto the region's corners, and frame points map back. */
static void test_transform(void)
{
  const tfl_region regs[] = { { 50, 40, 30, 20, 0 }, { 50, 40, 30, 20, 0.7f }, { -5, 300, 80, 80, -2.9f } };
  for (int i = 0; i < 3; i++) {
    tfl_transform tr = tfl_region_transform(&regs[i], 64, 48, 640, 480, false);
    float want[8], x, y, u, v;
    tfl_region_corners(&regs[i], want);
    const float us[4] = { 0, 64, 64, 0 }, vs[4] = { 0, 0, 48, 48 };
    double worst = 0;
    for (int k = 0; k < 4; k++) {
      tfl_transform_point(&tr, us[k], vs[k], &x, &y);
      worst = fmax(worst, fmax(fabs(x - want[2 * k]), fabs(y - want[2 * k + 1])));
      tfl_transform_invert_point(&tr, x, y, &u, &v);
      worst = fmax(worst, fmax(fabs(u - us[k]), fabs(v - vs[k])));
    }
    CHECK(worst < 1e-3, "region %d: input corners off the region's corners by %.3g", i, worst);
  }
  /* keep_aspect widens a 30x20 region to the 64x48 input's 4:3 */
  tfl_transform tr = tfl_region_transform(&regs[0], 64, 48, 640, 480, true);
  CHECK(NEAR(tr.scale_x, 30.0 / 64, 1e-6) && NEAR(tr.scale_y, 22.5 / 48, 1e-6) && NEAR(tr.off_y, 40 - 11.25, 1e-4),
        "keep_aspect: scale %.4f x %.4f off %.3f, %.3f", tr.scale_x, tr.scale_y, tr.off_x, tr.off_y);
}

/* ---- chains on a real picture ---- */

static const char *model_dirs;
static tfl_diag diag;
static tfl_delegate *cpu;

static tfl_graph *load_model(const char *name, tfl_interpreter **it)
{
  char dirs[4096], path[4096];
  snprintf(dirs, sizeof dirs, "%s", model_dirs);
  diag.error[0] = 0;
  for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
    if (!test_find_model(d, name, path, sizeof path)) continue;
    tfl_graph *g;
    if (tfl_load_file(path, &g, &diag) != TFL_OK) break;
    tfl_interp_options o = tfl_interp_defaults();
    o.fallback = cpu;
    o.diag = &diag;
    if (tfl_interpreter_create(g, &o, it) != TFL_OK) {
      tfl_graph_free(g);
      break;
    }
    return g;
  }
  CHECK(0, "model %s not found or not loadable in %s: %s", name, model_dirs, diag.error);
  return NULL;
}

static pix_norm norm_for(tfl_decoder_kind kind, const tfl_graph *g)
{
  float lo, hi;
  tfl_family_input_range(kind, g, &lo, &hi);
  float std = 255.0f / (hi - lo), mean = -lo * std;
  return (pix_norm){ { mean, mean, mean }, { std, std, std } };
}

/* The best detection of `model` on the whole picture (stretched), NULL-safe. */
static bool detect(const char *model, const pix_frame *f, tfl_results *res)
{
  tfl_interpreter *it = NULL;
  tfl_graph *g = load_model(model, &it);
  if (!g) return false;
  char why[128];
  tfl_decoder_kind kind = tfl_decoder_pick(g, why, sizeof why);
  tfl_decoder_options o = tfl_decoder_defaults();
  o.threshold = 0.4f;
  tfl_decoder *d = NULL;
  tfl_tensor *in = tfl_interpreter_input(it, 0);
  tfl_transform tr = preprocess_transform(f->width, f->height, in->dims[2], in->dims[1], FIT_STRETCH);
  pix_norm n = norm_for(kind, g);
  bool ok = tfl_decoder_create(kind, g, &o, &d, &diag) == TFL_OK && preprocess_frame(f, &tr, &n, in) == 0 &&
            tfl_interpreter_invoke(it) == TFL_OK;
  if (ok) {
    const tfl_tensor *outs[8];
    int k = tfl_interpreter_output_count(it);
    for (int i = 0; i < k && i < 8; i++) outs[i] = tfl_interpreter_output(it, i);
    ok = tfl_decoder_run(d, outs, k < 8 ? k : 8, &tr, res, &diag) == TFL_OK;
  }
  tfl_decoder_free(d);
  tfl_interpreter_free(it);
  tfl_graph_free(g);
  return ok;
}

typedef struct {
  double x, y;
} vec2;

static vec2 unit(double x, double y)
{
  double n = hypot(x, y);
  return (vec2){ x / n, y / n };
}

/* The test's own region corners for detection b under `kind`, with vectors: `up` is where
 * the region's top points, `right` is up turned a quarter clockwise on screen. */
static void own_corners(tfl_region_kind kind, const tfl_box *b, crop_pt *tl, crop_pt *tr, crop_pt *bl)
{
  const tfl_keypoint *k = b->keypoints;
  vec2 c = { b->x + b->w / 2.0, b->y + b->h / 2.0 }, up = { 0, -1 };
  double side_w = b->w, side_h = b->h;
  switch (kind) {
  case TFL_REGION_POSE:
    up = unit(k[1].x - k[0].x, k[1].y - k[0].y);
    c = (vec2){ k[0].x, k[0].y };
    side_w = side_h = 2.5 * hypot(k[1].x - k[0].x, k[1].y - k[0].y);
    break;
  case TFL_REGION_PALM:
    up = unit(k[2].x - k[0].x, k[2].y - k[0].y);
    c.x += up.x * 0.5 * b->h;
    c.y += up.y * 0.5 * b->h;
    side_w = side_h = 2.6 * fmax(b->w, b->h);
    break;
  case TFL_REGION_FACE: {
    vec2 right = unit(k[1].x - k[0].x, k[1].y - k[0].y);
    up = (vec2){ right.y, -right.x };
    side_w = side_h = 1.5 * fmax(b->w, b->h);
    break;
  }
  case TFL_REGION_BOX:
  case TFL_REGION_COUNT:
    break;
  }
  vec2 right = { -up.y, up.x };
  tl->x = c.x - right.x * side_w / 2 + up.x * side_h / 2;
  tl->y = c.y - right.y * side_w / 2 + up.y * side_h / 2;
  tr->x = tl->x + right.x * side_w;
  tr->y = tl->y + right.y * side_w;
  bl->x = tl->x - up.x * side_h;
  bl->y = tl->y - up.y * side_h;
}

/* ---- landmarks against the real TensorFlow Lite on the same crop ----
 * tests/data/make_region_golden.py runs this program with --dump: each landmark chain's
 * crop as the tests' own code makes it (crop_ref, 0..1) goes to the real TensorFlow Lite
 * (../shared/oracle), whose landmarks it maps to the frame through the same corners and
 * stores in tests/data/golden/regions/<model>.txt. Here our whole path (region rule,
 * affine, preprocessing, runtime, decoder mapping back) must land on them. */

static const char *dump_dir, *golden_dir;

static void stem_of(const char *model, char *out, size_t n)
{
  snprintf(out, n, "%s", model);
  char *dot = strstr(out, ".tflite");
  if (dot) *dot = 0;
}

static void landmarks_vs_tflite(const golden_picture *pic, const char *model, const tfl_graph *g, tfl_interpreter *it,
                                const tfl_transform *tr, const double *crop, int W, int H, crop_pt tl, crop_pt trc,
                                crop_pt bl)
{
  char stem[256], path[4096];
  stem_of(model, stem, sizeof stem);
  if (dump_dir) {
    snprintf(path, sizeof path, "%s/%s.bin", dump_dir, stem);
    FILE *f = fopen(path, "wb");
    for (int i = 0; f && i < W * H * 3; i++) {
      float v = (float)(crop[i] / 255.0); /* the landmark models take 0..1 */
      fwrite(&v, sizeof v, 1, f);
    }
    if (f) fclose(f);
    snprintf(path, sizeof path, "%s/%s.geom", dump_dir, stem);
    f = fopen(path, "w");
    if (f) {
      fprintf(f, "%d %d %.6f %.6f %.6f %.6f %.6f %.6f\n", W, H, tl.x, tl.y, trc.x, trc.y, bl.x, bl.y);
      fclose(f);
    }
    return;
  }
  snprintf(path, sizeof path, "%s/%s.txt", golden_dir, stem);
  FILE *f = fopen(path, "r");
  CHECK(f != NULL, "no golden %s (tests/data/make_region_golden.py makes it)", path);
  if (!f) return;
  double gtl[2], gtr[2], gbl[2];
  int n = 0;
  if (fscanf(f, "%lf %lf %lf %lf %lf %lf %d", &gtl[0], &gtl[1], &gtr[0], &gtr[1], &gbl[0], &gbl[1], &n) != 7) n = -1;
  double corners = fmax(fmax(hypot(gtl[0] - tl.x, gtl[1] - tl.y), hypot(gtr[0] - trc.x, gtr[1] - trc.y)),
                        hypot(gbl[0] - bl.x, gbl[1] - bl.y));
  CHECK(n > 0 && corners < 0.05, "%s: golden region corners off ours by %.3f px (the detection changed?)", stem,
        corners);
  /* our path: preprocessing through the affine, our runtime, the decoder mapping back */
  pix_frame fr = { PIX_RGB, pic->width, pic->height, { pic->rgb, NULL, NULL }, { pic->width * 3, 0, 0 } };
  pix_norm norm = norm_for(TFL_DECODER_LANDMARKS, g);
  tfl_decoder_options o = tfl_decoder_defaults();
  o.threshold = 0.0f;
  tfl_decoder *d = NULL;
  tfl_results res = { 0 };
  bool ok = preprocess_frame(&fr, tr, &norm, tfl_interpreter_input(it, 0)) == 0 && tfl_interpreter_invoke(it) == TFL_OK &&
            tfl_decoder_create(TFL_DECODER_LANDMARKS, g, &o, &d, &diag) == TFL_OK;
  if (ok) {
    const tfl_tensor *outs[8];
    int k = tfl_interpreter_output_count(it);
    for (int i = 0; i < k && i < 8; i++) outs[i] = tfl_interpreter_output(it, i);
    ok = tfl_decoder_run(d, outs, k < 8 ? k : 8, tr, &res, &diag) == TFL_OK && res.n_poses == 1;
  }
  CHECK(ok, "%s: our chain gave no landmarks: %s", stem, diag.error);
  double worst = 0, sum = 0;
  int worst_at = -1, count = 0;
  for (int i = 0; ok && i < n && i < res.poses[0].n_keypoints; i++) {
    double x, y;
    if (fscanf(f, "%lf %lf", &x, &y) != 2) break;
    double e = hypot(x - res.poses[0].keypoints[i].x, y - res.poses[0].keypoints[i].y);
    sum += e;
    count++;
    if (e > worst) worst = e, worst_at = i;
  }
  fclose(f);
  double side = hypot(trc.x - tl.x, trc.y - tl.y);
  /* same crop up to float rounding, two implementations of the same graph: the worst
   * landmark within 0.2% of the region's side */
  CHECK(ok && count == n && worst < 0.002 * side, "%s: landmark %d off TensorFlow Lite's by %.3f px (region %.0f px)",
        stem, worst_at, worst, side);
  printf("ok   %s on its region: %d landmarks against TensorFlow Lite on the same crop, worst %.3f px (#%d), "
         "mean %.3f px, region side %.0f px\n", stem, count, worst, worst_at, count ? sum / count : 0, side);
  tfl_results_clear(&res);
  tfl_decoder_free(d);
}

/* detector -> region -> the second model's input, against the tests' own crop.
 * `given`: a hand-made detection instead of running `detector` (no picture here shows a
 * hand); its keypoints are copied. */
static void test_chain(const golden_picture *pic, const char *detector, tfl_region_kind kind, const char *second,
                       int want_class, const tfl_box *given)
{
  pix_frame f = { PIX_RGB, pic->width, pic->height, { pic->rgb, NULL, NULL }, { pic->width * 3, 0, 0 } };
  tfl_results det = { 0 };
  if (given) {
    det.boxes = calloc(1, sizeof *det.boxes);
    det.boxes[0] = *given;
    det.boxes[0].keypoints = malloc(sizeof(tfl_keypoint) * (size_t)given->n_keypoints);
    memcpy(det.boxes[0].keypoints, given->keypoints, sizeof(tfl_keypoint) * (size_t)given->n_keypoints);
    det.n_boxes = 1;
  } else if (!detect(detector, &f, &det)) {
    CHECK(0, "%s did not run: %s", detector, diag.error);
    return;
  }
  int best = -1;
  for (int i = 0; i < det.n_boxes; i++)
    if ((want_class < 0 || det.boxes[i].class_id == want_class) && (best < 0 || det.boxes[i].score > det.boxes[best].score))
      best = i;
  CHECK(best >= 0, "%s finds nothing on the picture", detector);
  tfl_interpreter *it = NULL;
  tfl_graph *g = best >= 0 ? load_model(second, &it) : NULL;
  if (!g) {
    tfl_results_clear(&det);
    return;
  }
  tfl_tensor *in = tfl_interpreter_input(it, 0);
  int W = in->dims[2], H = in->dims[1];
  const tfl_box *b = &det.boxes[best];
  tfl_region_rule rule = tfl_region_rule_preset(kind);
  tfl_region reg;
  CHECK(tfl_region_from_box(&rule, b, &reg), "%s -> %s: no region", detector, second);
  tfl_transform tr = tfl_region_transform(&reg, W, H, (float)pic->width, (float)pic->height, rule.keep_aspect);
  pix_norm n = { { 0, 0, 0 }, { 1, 1, 1 } }; /* raw 0..255: compared with crop_ref as they are */
  tfl_tensor t = *in;
  t.type = TFL_TYPE_FLOAT32;
  t.data = malloc((size_t)W * H * 3 * sizeof(float));
  CHECK(preprocess_frame(&f, &tr, &n, &t) == 0, "preprocess");
  crop_pt tl, trc, bl;
  own_corners(kind, b, &tl, &trc, &bl);
  double *ref = malloc(sizeof(double) * (size_t)W * H * 3);
  crop_ref(pic->rgb, pic->width, pic->height, 3, pic->width * 3, tl, trc, bl, W, H, ref);
  double worst = 0;
  int worst_at = 0, outside = 0;
  for (int i = 0; i < W * H * 3; i++) {
    double e = fabs(ref[i] - ((float *)t.data)[i]);
    if (e > worst) worst = e, worst_at = i / 3;
  }
  for (int v = 0; v < H; v++)
    for (int u = 0; u < W; u++) {
      double a = (u + 0.5) / W, c = (v + 0.5) / H;
      double x = tl.x + a * (trc.x - tl.x) + c * (bl.x - tl.x), y = tl.y + a * (trc.y - tl.y) + c * (bl.y - tl.y);
      outside += x < 0 || y < 0 || x >= pic->width || y >= pic->height;
    }
  /* 0..255 values; float affine vs the test's double corners: well under a level */
  CHECK(worst < 0.05, "%s -> %s crop: worst pixel (%d,%d) off by %.4f of 255", detector, second, worst_at % W,
        worst_at / W, worst);
  printf("ok   %s -> %s (%s rule): box (%.0f,%.0f %.0fx%.0f) score %.2f, region (%.1f,%.1f) %.1fx%.1f "
         "%.1f deg, %dx%d crop worst %.4f of 255, %d pixels beyond the frame\n",
         detector, second, tfl_region_kind_name(kind), b->x, b->y, b->w, b->h, b->score, reg.cx, reg.cy, reg.w,
         reg.h, reg.angle * 180 / PI, W, H, worst, outside);
  if (kind != TFL_REGION_BOX) landmarks_vs_tflite(pic, second, g, it, &tr, ref, W, H, tl, trc, bl);
  free(ref);
  free(t.data);
  tfl_interpreter_free(it);
  tfl_graph_free(g);
  tfl_results_clear(&det);
}

int main(int argc, char **argv)
{
  test_rules();
  test_landmark_regions();
  test_transform();
  if (argc < 4) {
    fprintf(stderr, "usage: %s PICTURES_DIR MODEL_DIRS GOLDEN_DIR [--dump DIR]\n", argv[0]);
    return 2;
  }
  golden_dir = argv[3];
  if (argc >= 6 && !strcmp(argv[4], "--dump")) dump_dir = argv[5];
  model_dirs = argv[2];
  tfl_diag_init(&diag);
  cpu_delegate_options co = cpu_delegate_defaults();
  cpu = cpu_delegate_create(&co);
  char path[4096];
  snprintf(path, sizeof path, "%s/astronaut.png", argv[1]);
  golden_picture pic;
  if (!golden_picture_load(path, &pic)) return 2;
  test_chain(&pic, "pose_detection.tflite", TFL_REGION_POSE, "pose_landmark_lite.tflite", -1, NULL);
  test_chain(&pic, "face_detection_short_range.tflite", TFL_REGION_FACE, "face_landmark.tflite", -1, NULL);
  /* a palm on her glove, fingers pointing up and to the left (7 keypoints as the palm
   * detector gives them: wrist, finger bases, thumb) */
  tfl_keypoint palm_kp[7] = { { 400, 420, 1 }, { 372, 396, 1 }, { 380, 382, 1 }, { 392, 376, 1 },
                              { 404, 378, 1 }, { 420, 400, 1 }, { 428, 410, 1 } };
  tfl_box palm = box_with(365, 370, 70, 60, palm_kp, 7);
  test_chain(&pic, "palm_detection_lite.tflite", TFL_REGION_PALM, "hand_landmark_lite.tflite", -1, &palm);
  /* COCO class 1 is "person" (coco_labelmap_91.txt) */
  test_chain(&pic, "coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite", TFL_REGION_BOX,
             "mobilenet_v1_0.25_224.tflite", 1, NULL);
  golden_picture_free(&pic);
  cpu->destroy(cpu);
  printf("%d failure(s)\n", failures);
  return failures != 0;
}
