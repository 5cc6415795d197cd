/* test_families.c - EfficientDet-Lite and MoveNet: recognition and decoding against
 * LiteRT's outputs decoded in Python (tests/data/families/, made by make_families.py;
 * no Python here).
 *
 *   test_families DATA_DIR
 *
 * For each line of cases.txt (model, input size, threshold, results, input file): the look-alike
 * model built with the official converter in the family's exact layout is loaded; the
 * family table must name it (a known row, not a guess) with the decoder, fit and input
 * range the family has (MultiPose with its input size left open in the file, as TF Hub's
 * is: sized 256 by the family, as LiteRT was resized); our runtime runs it on the same uint8 input tensor LiteRT was
 * fed (*.input: the real picture fitted as the family expects) and the decoder's results,
 * mapped back to the 320x240 picture, must match *.expected: same count (poses in
 * order; boxes each against LiteRT's of the same class and score, 8-bit scores tie),
 * classes (EfficientDet: label line k for the op's class k, no background line), scores
 * within 0.01, boxes and keypoints within 0.5 px. */
#include "check.h"

#include "decoders/decoder_impl.h"
#include "decoders/tfl_decoder.h"
#include "policy/tfl_family.h"
#include "delegates/cpu/cpu_delegate.h"
#include "preprocess/preprocess.h"
#include "runtime/tfl_interpreter.h"
#include "runtime/tfl_loader.h"
#include "runtime/tfl_passes.h"
#include "tests/cpu_interp.h"
#include "tests/golden.h"

#include <stdlib.h>
#include <string.h>

#define PIC_W 320
#define PIC_H 240
#define MAX_ROWS 32
#define MAX_VALUES 64
#define PX_TOL 0.5
#define SCORE_TOL 0.01

/* One expected result: EfficientDet "class label score x y w h"; MoveNet "score x y w h"
 * then x y score per keypoint. */
typedef struct {
  int class_id;
  char label[32];
  int n;
  float v[MAX_VALUES];
} row;

static int read_rows(const char *path, bool classes, row *r)
{
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  int n = 0;
  char line[4096];
  while (n < MAX_ROWS && fgets(line, sizeof line, f)) {
    row *x = &r[n];
    char *p = line, *e;
    int used = 0;
    if (classes && sscanf(line, "%d %31s%n", &x->class_id, x->label, &used) != 2) continue;
    p += used;
    x->n = 0;
    for (float v; x->n < MAX_VALUES && (v = strtof(p, &e), e != p); p = e) x->v[x->n++] = v;
    n++;
  }
  fclose(f);
  return n;
}

/* Label line k of the model's embedded label file. */
static void label_line(const char *labels, int k, char *out, size_t size)
{
  out[0] = 0;
  for (int i = 0; labels && i < k; i++) {
    labels = strchr(labels, '\n');
    if (labels) labels++;
  }
  if (!labels || k < 0) return;
  size_t n = strcspn(labels, "\n");
  snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), labels);
}

/* Each of our boxes against LiteRT's unused box of the same class and label, score within
 * SCORE_TOL, nearest to it: 8-bit scores tie, and another CPU's int8 kernels may order
 * the ties (or round a score a quantum) differently. */
static void compare_boxes(const char *name, const tfl_graph *g, const tfl_results *r, const row *want, int n)
{
  CHECK(r->n_boxes == n, "%s: %d boxes, LiteRT %d", name, r->n_boxes, n);
  bool used[MAX_ROWS] = { false };
  double worst = 0;
  for (int i = 0; i < r->n_boxes; i++) {
    const tfl_box *b = &r->boxes[i];
    char label[32];
    label_line(g->meta.labels, b->class_id, label, sizeof label);
    const float got[4] = { b->x, b->y, b->w, b->h };
    int best = -1;
    double best_d = 0;
    for (int j = 0; j < n; j++) {
      if (used[j] || b->class_id != want[j].class_id || strcmp(label, want[j].label) ||
          !NEAR(b->score, want[j].v[0], SCORE_TOL))
        continue;
      double d = 0;
      for (int k = 0; k < 4; k++) { /* not fmax: aarch64 gcc 12's vectorizer crashes on it */
        const double e = fabs((double)got[k] - want[j].v[1 + k]);
        if (e > d) d = e;
      }
      if (best < 0 || d < best_d) best = j, best_d = d;
    }
    CHECK(best >= 0, "%s box %d: class %d '%s' score %g at %g %g %g %g: LiteRT has no such box", name, i, b->class_id,
          label, b->score, got[0], got[1], got[2], got[3]);
    if (best < 0) continue;
    used[best] = true;
    worst = fmax(worst, best_d);
  }
  CHECK(worst <= PX_TOL, "%s: boxes differ by %.3f px", name, worst);
  printf("%s: %d boxes, largest difference %.4f px\n", name, r->n_boxes, worst);
}

static void compare_poses(const char *name, const tfl_results *r, const row *want, int n)
{
  CHECK(r->n_poses == n, "%s: %d poses, LiteRT %d", name, r->n_poses, n);
  double worst = 0, worst_score = 0;
  for (int i = 0; i < n && i < r->n_poses; i++) {
    const tfl_pose *p = &r->poses[i];
    CHECK(p->n_keypoints == 17 && want[i].n == 5 + 17 * 3, "%s pose %d: %d keypoints, %d values", name, i,
          p->n_keypoints, want[i].n);
    CHECK(p->n_edges == 18 && p->edges, "%s pose %d: %d edges, expected the 18 of the COCO skeleton", name, i,
          p->n_edges);
    CHECK(p->has_box, "%s pose %d: no box", name, i);
    if (p->n_keypoints != 17 || want[i].n != 5 + 17 * 3) continue;
    worst_score = fmax(worst_score, fabs((double)p->score - want[i].v[0]));
    for (int k = 0; k < 4; k++) { /* not fmax: as above */
      const double e = fabs((double)p->box[k] - want[i].v[1 + k]);
      if (e > worst) worst = e;
    }
    for (int k = 0; k < 17; k++) {
      const float *w = &want[i].v[5 + 3 * k];
      worst = fmax(worst, fmax(fabs((double)p->keypoints[k].x - w[0]), fabs((double)p->keypoints[k].y - w[1])));
      worst_score = fmax(worst_score, fabs((double)p->keypoints[k].score - w[2]));
    }
  }
  CHECK(worst <= PX_TOL && worst_score <= SCORE_TOL, "%s: points/boxes differ by %.3f px, scores by %.4f", name, worst,
        worst_score);
  printf("%s: %d poses, largest difference %.4f px, score %.5f\n", name, r->n_poses, worst, worst_score);
}

/* What each look-alike must be recognized as. */
static const struct {
  const char *model, *family;
  tfl_decoder_kind kind;
  fit_mode fit;
} expect[] = {
  { "movenet_lightning", "MoveNet single-pose Lightning", TFL_DECODER_POSE, FIT_LETTERBOX },
  { "movenet_thunder", "MoveNet single-pose Thunder", TFL_DECODER_POSE, FIT_LETTERBOX },
  { "movenet_multipose", "MoveNet MultiPose", TFL_DECODER_POSE, FIT_LETTERBOX },
  { "movenet_multipose_open", "MoveNet MultiPose", TFL_DECODER_POSE, FIT_LETTERBOX },
  { "efficientdet_lite0", "EfficientDet-Lite (TFLite Model Maker / MediaPipe)", TFL_DECODER_DETECTION, FIT_STRETCH },
};

static void run_case(const char *dir, const char *line)
{
  char name[64], input_name[64];
  int size, n_expected;
  float threshold;
  if (sscanf(line, "%63s %d %f %d %63s", name, &size, &threshold, &n_expected, input_name) != 5) {
    CHECK(0, "cases.txt: bad line %s", line);
    return;
  }
  int e = -1;
  for (int i = 0; i < (int)(sizeof expect / sizeof expect[0]); i++)
    if (!strcmp(expect[i].model, name)) e = i;
  CHECK(e >= 0, "cases.txt: unknown model %s", name);
  if (e < 0) return;

  char path[1024];
  snprintf(path, sizeof path, "%s/%s.tflite", dir, name);
  tfl_diag d;
  tfl_diag_init(&d);
  tfl_graph *g = NULL;
  CHECK(tfl_load_file(path, &g, &d) == TFL_OK, "%s: %s", path, d.error);
  if (!g) return;
  /* TF Hub's MultiPose leaves its input size open: the family gives it 256 */
  bool sized = false;
  CHECK(tfl_family_size_input(g, &sized, &d) == TFL_OK, "%s: %s", name, d.error);
  const bool open = strstr(name, "_open") != NULL;
  CHECK(sized == open, "%s: input %s by the family", name, sized ? "sized" : "not sized");
  if (!open) { /* a size the file fixes stays */
    tfl_diag e;
    tfl_diag_init(&e);
    CHECK(tfl_pass_set_input_size(g, 0, 256, 256, &e) == TFL_ERR_UNSUPPORTED && strstr(e.error, "not open"),
          "%s: resizing a fixed input: %s", name, e.error);
  }
  char why[256];
  tfl_family_match m;
  const tfl_family *f = tfl_family_identify(g, &m, why, sizeof why);
  CHECK(f && m == TFL_FAMILY_KNOWN && !strcmp(f->name, expect[e].family) && f->decoder == expect[e].kind,
        "%s: recognized as %s (%s), expected %s", name, f ? f->name : "nothing", why, expect[e].family);
  printf("%s: %s\n", name, why);
  const fit_mode fit = preprocess_model_fit(g, expect[e].kind);
  CHECK(fit == expect[e].fit, "%s: fit %d, expected %d", name, (int)fit, (int)expect[e].fit);
  const pix_norm norm = preprocess_model_norm(g, expect[e].kind, NULL);
  if (expect[e].kind == TFL_DECODER_POSE)  /* MoveNet takes 0..255 as it is */
    CHECK(norm.mean[0] == 0.0f && norm.std[0] == 1.0f, "%s: input mean %g std %g, expected 0 and 1", name,
          norm.mean[0], norm.std[0]);
  else  /* Model Maker's metadata */
    CHECK(norm.mean[0] == 127.0f && norm.std[0] == 128.0f, "%s: input mean %g std %g, expected the metadata's 127, 128",
          name, norm.mean[0], norm.std[0]);
  if (expect[e].kind == TFL_DECODER_DETECTION) {
    CHECK(g->meta.labels && !strcmp(g->meta.labels, "person\n???\ncar\n"), "%s: metadata labels %s", name,
          g->meta.labels ? g->meta.labels : "(none)");
    CHECK(tfl_family_class_count(g, TFL_DECODER_DETECTION) == 3, "%s: %d classes, the label file has 3", name,
          tfl_family_class_count(g, TFL_DECODER_DETECTION));
  }

  tfl_delegate *cpu = NULL;
  tfl_interpreter *it = NULL;
  tfl_decoder *dec = NULL;
  tfl_results r = { 0 };
  CHECK(test_cpu_interpreter(g, &d, &cpu, &it) == TFL_OK, "%s: %s", name, d.error);
  snprintf(path, sizeof path, "%s/%s.input", dir, input_name);
  size_t bytes = 0;
  uint8_t *input = golden_read_file(path, &bytes);
  CHECK(input && bytes == (size_t)size * size * 3, "%s: %s has %zu bytes", name, path, bytes);
  if (it && input) {
    tfl_tensor *in = tfl_interpreter_input(it, 0);
    CHECK(in->type == TFL_TYPE_UINT8 && in->dims[1] == size && in->dims[2] == size, "%s: input %s [1,%d,%d]", name,
          tfl_type_name(in->type), in->dims[1], in->dims[2]);
    if (in->type == TFL_TYPE_UINT8 && tfl_tensor_count(in) == bytes) memcpy(in->data, input, bytes);
    CHECK(tfl_interpreter_invoke(it) == TFL_OK, "%s: %s", name, tfl_interpreter_last_error(it));
    tfl_decoder_options o = tfl_decoder_defaults();
    o.threshold = threshold;
    o.max_results = MAX_ROWS;
    CHECK(tfl_decoder_create(expect[e].kind, g, &o, &dec, &d) == TFL_OK, "%s: %s", name, d.error);
    const tfl_transform tr = preprocess_transform(PIC_W, PIC_H, size, size, fit);
    const tfl_tensor *outs[4];
    const int n_out = tfl_interpreter_output_count(it) < 4 ? tfl_interpreter_output_count(it) : 4;
    for (int i = 0; i < n_out; i++) outs[i] = tfl_interpreter_output(it, i);
    if (dec) CHECK(tfl_decoder_run(dec, outs, n_out, &tr, &r, &d) == TFL_OK, "%s: %s", name, d.error);
    row want[MAX_ROWS];
    snprintf(path, sizeof path, "%s/%s.expected", dir, name);
    const int n = read_rows(path, expect[e].kind == TFL_DECODER_DETECTION, want);
    CHECK(n == n_expected, "%s: %s has %d rows, cases.txt says %d", name, path, n, n_expected);
    if (n >= 0 && expect[e].kind == TFL_DECODER_DETECTION) compare_boxes(name, g, &r, want, n);
    else if (n >= 0) compare_poses(name, &r, want, n);
  }
  tfl_results_clear(&r);
  tfl_decoder_free(dec);
  free(input);
  tfl_interpreter_free(it);
  cpu->destroy(cpu);
  tfl_graph_free(g);
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: test_families DATA_DIR (tests/data/families)\n");
    return 2;
  }
  char path[1024], line[256];
  snprintf(path, sizeof path, "%s/cases.txt", argv[1]);
  FILE *f = fopen(path, "r");
  CHECK(f != NULL, "cannot read %s", path);
  int cases = 0;
  while (f && fgets(line, sizeof line, f))
    if (line[0] != '#') run_case(argv[1], line), cases++;
  if (f) fclose(f);
  CHECK(cases == 5, "%d cases in %s, expected 5", cases, path);
  printf("%s\n", failures ? "FAILED" : "ok");
  return failures != 0;
}
