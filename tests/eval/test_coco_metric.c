/* test_coco_metric.c - evaluation/coco_metric.c: three examples worked by hand (the
 * arithmetic is in the comments), edge cases, and synthetic sets compared with
 * pycocotools itself to 1e-4 on all 12 numbers.
 *
 * usage: test_coco_metric REFERENCE.py   with TFL_EVAL_PYTHON = a python3 that has
 * pycocotools (tests/eval/venv.sh sets it). The synthetic sets are written as COCO files
 * through evaluation/coco_json.c, read back, and handed to both.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evaluation/coco_json.h"
#include "evaluation/coco_metric.h"
#include "tests/check.h"

#define HAND_TOL 1e-12   /* hand values are exact up to pycocotools' eps in precision */
#define REF_TOL 1e-4

static void expect(const char *what, const coco_stats *got, const double want[COCO_STATS_COUNT])
{
  for (int i = 0; i < COCO_STATS_COUNT; i++)
    CHECK(NEAR(got->v[i], want[i], HAND_TOL), "%s: %s = %.15g, want %.15g", what,
          coco_stat_name((coco_stat)i), got->v[i], want[i]);
}

static coco_stats run(const coco_gt *gt, size_t ng, const coco_det *dt, size_t nd, const int64_t *imgs,
                      size_t ni, const int64_t *cats, size_t nc)
{
  coco_eval_input in = { gt, ng, dt, nd, imgs, ni, cats, nc };
  coco_stats s;
  char err[256] = "";
  int rc = coco_evaluate(&in, &s, err, sizeof err);
  CHECK(rc == 0, "coco_evaluate failed: %s", err);
  return s;
}

/* A: one image, one category, two large objects; thresholds and the 101-point curve.
 *   g1 [0,0,100,100], g2 [200,0,100,100] (area 10000 each: large, > 96^2 = 9216)
 *   d1 [0,0,100,100] 0.9   IoU 1 with g1
 *   d2 [200,0,100,50] 0.8  IoU with g2 = 5000 / (5000 + 10000 - 5000) = 0.5 exactly
 *   d3 [400,0,50,50] 0.7   no overlap; area 2500 (medium)
 * IoU 0.50: d1 TP, d2 TP (0.5 is not below 0.5), d3 FP: recall .5, 1, 1; precision 1, 1, 2/3;
 *   the envelope is 1 up to recall 1, so all 101 points read 1: AP50 = 1.
 * IoU 0.55 .. 0.95 (9 thresholds): d1 TP, d2 FP, d3 FP: recall .5, .5, .5: the points
 *   0, .01 .. .50 (51 of them) read precision 1, the 50 above recall .5 read 0: 51/101.
 * AP = (1 + 9 * 51/101) / 10 = 560/1010; AP75 = 51/101.
 * Large: the same, except the unmatched medium-sized d2 (at 0.55+) and d3 are ignored,
 *   which changes no point: AP_large = 560/1010. No small or medium ground truth: -1.
 * AR100 = (1 + 9 * .5) / 10 = .55; AR1 keeps only d1: recall .5 at every threshold. */
static void hand_a(void)
{
  const coco_gt gt[] = {
    { 1, 1, 1, { 0, 0, 100, 100 }, 10000, false },
    { 2, 1, 1, { 200, 0, 100, 100 }, 10000, false },
  };
  const coco_det dt[] = {
    { 1, 1, { 0, 0, 100, 100 }, 0.9 },
    { 1, 1, { 200, 0, 100, 50 }, 0.8 },
    { 1, 1, { 400, 0, 50, 50 }, 0.7 },
  };
  const int64_t imgs[] = { 1 }, cats[] = { 1 };
  const double a = 560.0 / 1010.0, p51 = 51.0 / 101.0;
  const double want[COCO_STATS_COUNT] = { a, 1.0, p51, -1, -1, a, 0.5, 0.55, 0.55, -1, -1, 0.55 };
  coco_stats s = run(gt, 2, dt, 3, imgs, 1, cats, 1);
  expect("hand A", &s, want);
}

/* B: a crowd region, area ranges, a category without ground truth, a missed object.
 *   image 1, category 1: g1 [0,0,40,40] area 1600 (medium); g2 crowd [100,0,100,100]
 *   image 2, category 1: g3 [0,0,20,20] area 400 (small), never detected
 *   image 1, category 1: d1 [0,0,40,40] 0.9 (IoU 1 with g1); d2 [110,10,20,20] 0.8 and
 *     d3 [120,10,20,20] 0.7 inside the crowd region (intersection / detection area = 1,
 *     both match it: crowds are never used up, their matches are ignored);
 *     d4 [300,300,10,10] 0.6 matches nothing (area 100: small)
 *   image 1, category 2: d5 0.95; category 2 has no ground truth: left out everywhere.
 * All: 2 regular objects (g1, g3). Ranked: d1 TP, d2 d3 ignored, d4 FP: recall .5 at
 *   every threshold, precision 1 up to it: AP = AP50 = AP75 = 51/101, AR = .5.
 * Small: g1 (1600) is out of range, so d1 matches ignored ground truth; d4 is a small FP;
 *   g3 is the one object: no true positive, AP_small = AR_small = 0.
 * Medium: g1 is the one object, d1 finds it, d4 (small) is ignored: AP = AR = 1.
 * Large: only the crowd region, ignored: -1. */
static void hand_b(void)
{
  const coco_gt gt[] = {
    { 1, 1, 1, { 0, 0, 40, 40 }, 1600, false },
    { 2, 1, 1, { 100, 0, 100, 100 }, 10000, true },
    { 3, 2, 1, { 0, 0, 20, 20 }, 400, false },
  };
  const coco_det dt[] = {
    { 1, 1, { 0, 0, 40, 40 }, 0.9 },
    { 1, 1, { 110, 10, 20, 20 }, 0.8 },
    { 1, 1, { 120, 10, 20, 20 }, 0.7 },
    { 1, 1, { 300, 300, 10, 10 }, 0.6 },
    { 1, 2, { 0, 0, 40, 40 }, 0.95 },
  };
  const int64_t imgs[] = { 2, 1 }, cats[] = { 1, 2 };
  const double p = 51.0 / 101.0;
  const double want[COCO_STATS_COUNT] = { p, p, p, 0, 1, -1, 0.5, 0.5, 0.5, 0, 1, -1 };
  coco_stats s = run(gt, 3, dt, 5, imgs, 2, cats, 2);
  expect("hand B", &s, want);
}

/* C: maxDets. One object found only by the lowest of 12 detections (11 disjoint misses
 * score higher). maxDets 1 and 10 never reach it: AR1 = AR10 = 0, AR100 = 1. With 100:
 * true positive at rank 12, precision 1/12 at recall 1 (and the envelope carries it to
 * every point): AP = 1/12. */
static void hand_c(void)
{
  const coco_gt gt[] = { { 1, 1, 1, { 0, 0, 50, 50 }, 2500, false } };
  coco_det dt[12];
  for (int i = 0; i < 11; i++) dt[i] = (coco_det){ 1, 1, { 100.0 + 60 * i, 0, 50, 50 }, 0.9 - 0.01 * i };
  dt[11] = (coco_det){ 1, 1, { 0, 0, 50, 50 }, 0.5 };
  const int64_t imgs[] = { 1 }, cats[] = { 1 };
  const double p = 1.0 / 12.0;
  const double want[COCO_STATS_COUNT] = { p, p, p, -1, p, -1, 0, 0, 1, -1, 1, -1 };
  coco_stats s = run(gt, 1, dt, 12, imgs, 1, cats, 1);
  expect("hand C", &s, want);
}

static void edge_cases(void)
{
  const int64_t imgs[] = { 1 }, cats[] = { 1 };
  coco_stats s = run(NULL, 0, NULL, 0, imgs, 1, cats, 1);
  for (int i = 0; i < COCO_STATS_COUNT; i++) CHECK(s.v[i] == -1, "nothing to evaluate: %s = %g", coco_stat_name(i), s.v[i]);

  /* ground truth only: every object missed, AP = AR = 0 */
  const coco_gt gt[] = { { 7, 1, 1, { 0, 0, 50, 50 }, 2500, false } };
  s = run(gt, 1, NULL, 0, imgs, 1, cats, 1);
  CHECK(s.v[COCO_AP] == 0 && s.v[COCO_AR100] == 0 && s.v[COCO_AP_MEDIUM] == 0, "all missed: AP %g AR %g",
        s.v[COCO_AP], s.v[COCO_AR100]);

  /* detections of images or categories not evaluated are left out */
  const coco_det other[] = { { 9, 1, { 0, 0, 50, 50 }, 0.9 }, { 1, 5, { 0, 0, 50, 50 }, 0.9 } };
  s = run(gt, 1, other, 2, imgs, 1, cats, 1);
  CHECK(s.v[COCO_AP] == 0, "foreign detections counted: AP %g", s.v[COCO_AP]);

  coco_det bad = { 1, 1, { 0, 0, 50, 50 }, NAN };
  coco_eval_input in = { gt, 1, &bad, 1, imgs, 1, cats, 1 };
  char err[256] = "";
  CHECK(coco_evaluate(&in, &s, err, sizeof err) != 0 && strstr(err, "detection 0"), "NaN score: '%s'", err);
  coco_gt bad_gt = gt[0];
  bad_gt.bbox[2] = INFINITY;
  in = (coco_eval_input){ &bad_gt, 1, NULL, 0, imgs, 1, cats, 1 };
  CHECK(coco_evaluate(&in, &s, err, sizeof err) != 0 && strstr(err, "annotation 7"), "infinite box: '%s'", err);
}

/* ---- synthetic sets against pycocotools ---------------------------------------- */

typedef struct {
  uint64_t s;
} rng;

static double uniform(rng *r)  /* splitmix64 */
{
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

static int below(rng *r, int n)
{
  return (int)(uniform(r) * n);
}

/* Writes a COCO instances file and a results file with: several categories (one with
 * crowd regions only, one with detections only), objects in all three area ranges
 * (some exactly 32^2 and 96^2), boxes whose IoU is exactly 0.5 or 0.75, images without
 * objects, one image with 150 detections, and scores on a 0.05 grid (ties within and
 * across images). */
static bool write_set(const char *gt_path, const char *dt_path, uint64_t seed, int n_images)
{
  static const int cat_ids[] = { 1, 3, 4, 8, 11 };  /* 8: crowds only; 11: detections only */
  rng r = { seed };
  FILE *f = fopen(gt_path, "w");
  if (!f) return false;
  fprintf(f, "{\"images\": [");
  for (int i = 0; i < n_images; i++)
    fprintf(f, "%s{\"id\": %d, \"file_name\": \"%d.jpg\", \"width\": 640, \"height\": 480}", i ? ", " : "",
            1000 - 7 * i, i);
  fprintf(f, "], \"categories\": [");
  for (int c = 0; c < 5; c++) fprintf(f, "%s{\"id\": %d, \"name\": \"c%d\"}", c ? ", " : "", cat_ids[c], cat_ids[c]);
  fprintf(f, "], \"annotations\": [");
  size_t cap = 4096, nd = 0;
  coco_det *dt = malloc(cap * sizeof *dt);
  int ann = 0;
  for (int i = 0; i < n_images; i++) {
    int img = 1000 - 7 * i, n_obj = below(&r, 7);
    for (int o = 0; o < n_obj; o++) {
      int cat = cat_ids[below(&r, 4)];
      bool crowd = cat == 8 || uniform(&r) < 0.08;
      double w = exp(log(6.0) + uniform(&r) * (log(400.0) - log(6.0))), h = w * (0.5 + 1.5 * uniform(&r));
      double x = uniform(&r) * (640 - w), y = uniform(&r) * fmax(0, 480 - h);
      double area = w * h * (0.6 + 0.4 * uniform(&r));
      int kind = below(&r, 10);
      if (kind == 0) w = h = 32, area = 1024;   /* exactly on the small/medium boundary */
      if (kind == 1) w = h = 96, area = 9216;   /* medium/large */
      fprintf(f, "%s{\"id\": %d, \"image_id\": %d, \"category_id\": %d, \"bbox\": [%.17g, %.17g, %.17g, %.17g], "
                 "\"area\": %.17g, \"iscrowd\": %d}",
              ann ? ", " : "", ann + 1, img, cat, x, y, w, h, area, crowd ? 1 : 0);
      ann++;
      int copies = uniform(&r) < 0.85 ? 1 + below(&r, 2) : 0;
      for (int k = 0; k < copies; k++) {
        if (nd + 200 > cap) dt = realloc(dt, (cap *= 2) * sizeof *dt);
        coco_det d = { img, cat, { x + w * 0.15 * (uniform(&r) - 0.5), y + h * 0.15 * (uniform(&r) - 0.5),
                                   w * (0.85 + 0.3 * uniform(&r)), h * (0.85 + 0.3 * uniform(&r)) },
                       0.05 * below(&r, 21) };
        if (kind == 2) d.bbox[0] = x, d.bbox[1] = y, d.bbox[2] = w, d.bbox[3] = h / 2;         /* IoU 0.5 */
        if (kind == 3) d.bbox[0] = x, d.bbox[1] = y, d.bbox[2] = w, d.bbox[3] = h * 0.75;      /* IoU 0.75 */
        if (uniform(&r) < 0.2) d.category_id = cat_ids[below(&r, 5)];  /* wrong class */
        dt[nd++] = d;
      }
    }
    int fps = i == 3 ? 150 : below(&r, 9);  /* image 3 has more than 100 */
    for (int k = 0; k < fps; k++) {
      if (nd + 200 > cap) dt = realloc(dt, (cap *= 2) * sizeof *dt);
      double w = 4 + uniform(&r) * 200, h = 4 + uniform(&r) * 200;
      dt[nd++] = (coco_det){ img, cat_ids[below(&r, 5)], { uniform(&r) * 600, uniform(&r) * 440, w, h },
                             0.05 * below(&r, 21) };
    }
  }
  fprintf(f, "]}\n");
  bool ok = fclose(f) == 0;
  char err[256];
  ok = ok && coco_results_write(dt_path, dt, nd, err, sizeof err) == 0;
  free(dt);
  return ok;
}

/* Runs the reference; false when it could not run. */
static bool pycocotools(const char *script, const char *gt, const char *dt, double ref[COCO_STATS_COUNT])
{
  const char *py = getenv("TFL_EVAL_PYTHON");
  if (!py) {
    fprintf(stderr, "FAIL: TFL_EVAL_PYTHON is not set (run through tests/eval/venv.sh)\n");
    return false;
  }
  char cmd[4 * 4096 + 16];
  snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' '%s'", py, script, gt, dt);
  FILE *p = popen(cmd, "r");
  if (!p) return false;
  char line[4096] = "";
  bool got = fgets(line, sizeof line, p) != NULL;
  int rc = pclose(p);
  if (!got || rc != 0) {
    fprintf(stderr, "FAIL: %s exited with %d\n", cmd, rc);
    return false;
  }
  const char *s = strchr(line, '[');
  for (int i = 0; s && i < COCO_STATS_COUNT; i++) {
    char *end;
    ref[i] = strtod(s + 1, &end);
    if (end == s + 1) return false;
    s = strchr(end, i + 1 < COCO_STATS_COUNT ? ',' : ']');
  }
  return s != NULL;
}

static void against_pycocotools(const char *script, const char *dir, uint64_t seed, int n_images)
{
  char gt_path[4096], dt_path[4096], err[512];
  snprintf(gt_path, sizeof gt_path, "%s/instances_%llu.json", dir, (unsigned long long)seed);
  snprintf(dt_path, sizeof dt_path, "%s/results_%llu.json", dir, (unsigned long long)seed);
  CHECK(write_set(gt_path, dt_path, seed, n_images), "writing the synthetic set %llu", (unsigned long long)seed);
  coco_dataset ds;
  coco_det *dt = NULL;
  size_t nd = 0;
  int rc = coco_dataset_load(gt_path, &ds, err, sizeof err);
  CHECK(rc == 0, "reading %s: %s", gt_path, err);
  if (rc != 0) return;
  rc = coco_results_load(dt_path, &dt, &nd, err, sizeof err);
  CHECK(rc == 0, "reading %s: %s", dt_path, err);
  int64_t *imgs = malloc(ds.n_images * sizeof *imgs), cats[16];
  for (size_t i = 0; i < ds.n_images; i++) imgs[i] = ds.images[i].id;
  for (size_t c = 0; c < ds.n_categories; c++) cats[c] = ds.categories[c].id;
  coco_stats s = run(ds.annotations, ds.n_annotations, dt, nd, imgs, ds.n_images, cats, ds.n_categories);
  size_t many = 0;
  for (size_t i = 0; i < nd; i++) many += dt[i].image_id == 1000 - 7 * 3;
  double ref[COCO_STATS_COUNT];
  bool ran = pycocotools(script, gt_path, dt_path, ref);
  CHECK(ran, "pycocotools did not run");
  double worst = 0;
  int worst_i = 0;
  for (int i = 0; ran && i < COCO_STATS_COUNT; i++) {
    double d = fabs(s.v[i] - ref[i]);
    if (d > worst) worst = d, worst_i = i;
    CHECK(d <= REF_TOL, "seed %llu: %s = %.9f, pycocotools %.9f", (unsigned long long)seed,
          coco_stat_name((coco_stat)i), s.v[i], ref[i]);
  }
  printf("seed %llu: %zu images, %zu annotations, %zu detections (%zu on one image): AP %.6f AP50 %.6f "
         "AR100 %.6f; worst difference from pycocotools %.3g (%s)\n",
         (unsigned long long)seed, ds.n_images, ds.n_annotations, nd, many, s.v[COCO_AP], s.v[COCO_AP50],
         s.v[COCO_AR100], worst, coco_stat_name((coco_stat)worst_i));
  for (int i = 0; i < COCO_STATS_COUNT; i++)
    CHECK(s.v[i] > 0 && s.v[i] < 1, "seed %llu: %s = %g: the set should make every number informative",
          (unsigned long long)seed, coco_stat_name((coco_stat)i), s.v[i]);
  free(imgs);
  free(dt);
  coco_dataset_free(&ds);
  remove(gt_path);
  remove(dt_path);
}

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: test_coco_metric REFERENCE.py\n");
    return 2;
  }
  hand_a();
  hand_b();
  hand_c();
  edge_cases();
  char dir[] = "/tmp/test_coco_metric.XXXXXX";
  const char *tmp = mkdtemp(dir);
  CHECK(tmp != NULL, "mkdtemp failed");
  if (tmp) {
    against_pycocotools(argv[1], tmp, 1, 40);
    against_pycocotools(argv[1], tmp, 2, 40);
    against_pycocotools(argv[1], tmp, 3, 300);
    rmdir(tmp);
  }
  printf("%d failure(s)\n", failures);
  return failures != 0;
}
