/* test_gl_landmark_op.c - LANDMARK_DECODE (a landmark model's decoding appended by
 * tfl_decoder_append_postprocess, postproc/landmarks.c) on real MediaPipe landmark models
 * and the inputs of their golden cases (a picture, Gaussian noise):
 *   (1) the model with the op appended, on the CPU delegate, decoded: the very same
 *       results (presence, handedness, every point's coordinates and score, the aux
 *       points), bit for bit, as the landmark decoder on the raw outputs of the model as
 *       loaded; with threshold 0 (a result is always reported) under a transform that
 *       scales, shears and shifts.
 *   (2) GL against the CPU kernel, worst element of the row:
 *       (a) the op alone on the CPU's heads, batch 1 and a batch of 3 (items shifted
 *           apart): within OP_TOL (coordinates are copies; the GPU's exp in the sigmoids
 *           is off by an ulp or two of values in 0..1);
 *       (b) the whole model with the op on the GL delegate (the op on the GPU, checked),
 *           as loaded and given a batch of 2 after the op was appended (the engine's
 *           order; the case in item 0, mirrored in item 1), against postproc/landmarks.c
 *           (the CPU kernel's arithmetic) on the raw model's CPU heads at the same batch:
 *           each value within twice the error the
 *           raw model's own heads show on GL against the CPU (same precision: the
 *           pruned graph is planned and rounded differently), carried through the op (x, y, handedness and a probability presence: 1; a sigmoid:
 *           its slope, at most 1/4), plus OP_TOL. In fp16 this is the fp16 heads' error.
 *   (3) an unknown landmark layout is refused with an error naming it: appending to a
 *       model whose landmarks hold 100 values, the CPU kernel, the GL check and the
 *       decoder on an op of family 7.
 *   test_gl_landmark_op [--fp16] [--golden DIR] [--pictures DIR] [--models DIRS] MODEL...
 * A model that cannot be found is a failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoders/tfl_decoder.h"
#include "delegates/cpu/cpu_delegate.h"
#include "delegates/gl/gl_delegate.h"
#include "delegates/gl/gl_gen.h"
#include "postproc/landmarks.h"
#include "runtime/tfl_interpreter.h"
#include "runtime/tfl_loader.h"
#include "runtime/tfl_passes.h"
#include "tests/gl/gl_model_check.h"
#include "tests/gl/gl_model_run.h"
#include "tests/gl/gl_test_util.h"
#include "tests/golden.h"

/* GL against the CPU kernel on the same heads: probabilities and coordinates */
#define OP_TOL 1e-6

static glm_options opt; /* the command line: golden cases and pictures */

typedef glm_run run;

/* d: the delegate (NULL: the CPU alone); append: LANDMARK_DECODE appended; threshold 0:
 * a result every time. */
static int open_run(const char *path, tfl_delegate *d, bool append, run *r)
{
  tfl_decoder_options dopt = tfl_decoder_defaults();
  dopt.threshold = 0.0f;
  if (glm_open_run(path, d, append, &dopt, r)) return 1;
  if (tfl_decoder_get_kind(r->dec) == TFL_DECODER_LANDMARKS) return 0;
  printf("FAIL %s: not a landmark model (%s decoder)\n", path, tfl_decoder_kind_name(tfl_decoder_get_kind(r->dec)));
  return 1;
}

/* The batched runs' input 0: item 0 = `from` ([1,H,W,C] floats, before its run: an
 * invoke may reuse the input's memory), item 1 = it mirrored left-right. */
static void mirror_into(const tfl_tensor *from, run *const *to, int n)
{
  const int h = from->dims[1], w = from->dims[2], c = from->dims[3];
  const float *src = from->data;
  for (int r = 0; r < n; r++) {
    float *dst = tfl_interpreter_input(to[r]->it, 0)->data;
    memcpy(dst, src, from->bytes);
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        memcpy(dst + ((size_t)(h + y) * w + x) * c, src + ((size_t)y * w + (w - 1 - x)) * c, sizeof(float) * (size_t)c);
  }
}

/* The model (append: with the op appended first, the engine's order) given a batch of 2,
 * on d (NULL: the CPU alone). */
static int open_batch2(const char *path, tfl_delegate *d, bool append, run *r)
{
  memset(r, 0, sizeof *r);
  tfl_diag_init(&r->diag);
  tfl_interp_options o = tfl_interp_defaults();
  bool appended = false;
  const tfl_decoder_options dopt = tfl_decoder_defaults();
  o.delegate = d;
  o.diag = &r->diag;
  if (!(o.fallback = r->cpu = cpu_delegate_create(&(cpu_delegate_options){.threads = 1, .use_xnnpack = true,
                                                                          .diag = &r->diag})) ||
      tfl_load_file(path, &r->g, &r->diag) ||
      (append && (tfl_decoder_append_postprocess(TFL_DECODER_LANDMARKS, r->g, &dopt, &appended, &r->diag) || !appended)) ||
      tfl_pass_set_batch(r->g, 2, &r->diag) || tfl_interpreter_create(r->g, &o, &r->it)) {
    printf("FAIL %s (%s, batch 2): %s\n", path, d ? "gl" : "cpu", r->diag.error[0] ? r->diag.error : "no op appended");
    return 1;
  }
  return 0;
}

/* The graph's LANDMARK_DECODE node, -1 if none. */
static int landmark_node(const tfl_graph *g)
{
  for (int i = 0; i < g->n_nodes; i++)
    if (!g->nodes[i].dead && g->nodes[i].op == TFL_OP_LANDMARK_DECODE) return i;
  return -1;
}

static bool same_bits(float a, float b)
{
  return memcmp(&a, &b, sizeof a) == 0;
}

static bool same_points(const tfl_keypoint *a, const tfl_keypoint *b, int n)
{
  for (int i = 0; i < n; i++)
    if (!same_bits(a[i].x, b[i].x) || !same_bits(a[i].y, b[i].y) || !same_bits(a[i].score, b[i].score)) return false;
  return true;
}

static bool same_pose(const tfl_pose *a, const tfl_pose *b)
{
  return same_bits(a->score, b->score) && a->class_id == b->class_id && a->n_keypoints == b->n_keypoints &&
         a->n_aux == b->n_aux && a->n_edges == b->n_edges && a->edges == b->edges &&
         same_points(a->keypoints, b->keypoints, a->n_keypoints) && same_points(a->aux, b->aux, a->n_aux);
}

static int decode(run *r, tfl_results *res)
{
  const tfl_tensor *in = &r->g->tensors[r->g->inputs[0]];
  /* model input -> a frame twice as wide, sheared a little and shifted */
  tfl_transform tr = {in->dims[2], in->dims[1], 2.0f * (float)in->dims[2], 1.5f * (float)in->dims[1],
                      2.0f, 1.25f, 13.5f, -7.25f, 0.125f, -0.0625f};
  const tfl_tensor *outs[8];
  int n = r->g->n_outputs < 8 ? r->g->n_outputs : 8;
  for (int i = 0; i < n; i++) outs[i] = tfl_interpreter_output(r->it, i);
  return tfl_decoder_run(r->dec, outs, n, &tr, res, &r->diag) != TFL_OK;
}

/* (1): decoded raw outputs against the decoded op row, both on the CPU. */
static int check_decoded(const char *name, const char *kind, run *raw, run *op)
{
  tfl_results a = {0}, b = {0};
  if (decode(raw, &a) || decode(op, &b)) {
    printf("FAIL %s %s: decoding: %s %s\n", name, kind, raw->diag.error, op->diag.error);
    tfl_results_clear(&a);
    return 1;
  }
  bool ok = a.n_poses == 1 && b.n_poses == 1 && same_pose(&a.poses[0], &b.poses[0]);
  printf("%s %s %-7s decoder: raw outputs and the CPU kernel's row give %s (%d points, %d aux, presence %.6g, class "
         "%d)\n", ok ? "ok  " : "FAIL", name, kind, ok ? "the same bits" : "different results",
         a.n_poses ? a.poses[0].n_keypoints : -1, a.n_poses ? a.poses[0].n_aux : -1,
         a.n_poses ? (double)a.poses[0].score : -1.0, a.n_poses ? a.poses[0].class_id : -2);
  tfl_results_clear(&a);
  tfl_results_clear(&b);
  return !ok;
}

static double worst_of(double worst, double e)
{
  return !(e <= worst) ? (isnan(e) ? INFINITY : e) : worst;
}

/* (2a): the op alone on the heads in[0..n_in) (batch 1), as a batch of `batch` items
 * (item k shifted by k pixels, its scores by k/4 logits), CPU kernel against GL. */
static int check_op_alone(const char *name, const char *kind, const char *prec, const tfl_node *n,
                          const tfl_tensor *const *heads, int batch, tfl_delegate *d)
{
  const tfl_landmark_params *p = &n->p.landmark;
  const int row = pp_lm_row(p->points, p->visibility), vals = p->points * p->stride;
  op_runner r;
  op_runner_init(&r, TFL_OP_LANDMARK_DECODE);
  float *buf = malloc(sizeof(float) * (size_t)batch * (size_t)vals);
  int ins[3];
  for (int b = 0; b < batch; b++)
    for (int i = 0; i < vals; i++) buf[(size_t)b * vals + i] = ((const float *)heads[0]->data)[i] + (float)b;
  ins[0] = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){batch, vals}, buf, false);
  for (int k = 1; k < n->n_in; k++) {
    for (int b = 0; b < batch; b++) buf[b] = ((const float *)heads[k]->data)[0] - 0.25f * (float)b;
    ins[k] = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){batch, 1}, buf, false);
  }
  int out = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){batch, row}, NULL, false);
  op_runner_io(&r, ins, n->n_in, &out, 1);
  r.node.p.landmark = *p;
  float *want = malloc(sizeof(float) * (size_t)batch * (size_t)row), *got = r.graph.tensors[out].data;
  int fail = 1;
  if (op_runner_run(&r, 1)) {
    printf("FAIL %s %s %s op alone: CPU kernel: %s\n", name, prec, kind, r.diag.error);
    goto out;
  }
  memcpy(want, got, sizeof(float) * (size_t)batch * (size_t)row);
  memset(got, 0xff, sizeof(float) * (size_t)batch * (size_t)row); /* NaNs: the GPU must write every value */
  if (glt_run_gl(&r, d)) {
    printf("FAIL %s %s %s op alone: GL: %s\n", name, prec, kind, r.diag.error);
    goto out;
  }
  double worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < (size_t)batch * (size_t)row; i++) {
    double e = fabs((double)got[i] - want[i]), w = worst_of(worst, e);
    if (w > worst) at = i;
    worst = w;
  }
  fail = !(worst <= OP_TOL);
  printf("%s %s %s %-7s op alone, batch %d: GL against the CPU kernel, worst of %d values off by %.3g at item %zu "
         "value %zu (tol %.0e)\n", fail ? "FAIL" : "ok  ", name, prec, kind, batch, batch * row, worst, at / row,
         at % row, OP_TOL);
out:
  free(buf);
  free(want);
  op_runner_free(&r);
  return fail;
}

/* Output o's values of batch item `item`. */
static const float *item_values(run *r, int o, int item, size_t *n)
{
  const tfl_tensor *t = tfl_interpreter_output(r->it, o);
  *n = tfl_tensor_count(t) / (size_t)t->dims[0];
  return (const float *)t->data + (size_t)item * *n;
}

/* Worst |gl - cpu| of output o's values i of item `item` with i % stride in [lo, hi). */
static double head_error(run *cpu, run *gl, int o, int item, int stride, int lo, int hi)
{
  size_t n;
  const float *cv = item_values(cpu, o, item, &n), *gv = item_values(gl, o, item, &n);
  double worst = 0;
  for (size_t i = 0; i < n; i++)
    if ((int)(i % (size_t)stride) >= lo && (int)(i % (size_t)stride) < hi) worst = worst_of(worst, fabs((double)gv[i] - cv[i]));
  return worst;
}

/* (2b): item `item` of the GL run's row against postproc/landmarks.c (the CPU kernel's
 * arithmetic, (1) and (2a)) on the CPU's raw heads, value by value within the bound;
 * cpu_raw and gl_raw: the raw model at gl_op's batch. */
static int check_whole(const char *name, const char *kind, const char *prec, run *cpu_raw, run *gl_raw, run *gl_op,
                       int item)
{
  const int ni = landmark_node(gl_op->g);
  const char *who = tfl_interpreter_node_delegate(gl_op->it, ni);
  const tfl_landmark_params *p = &gl_op->g->nodes[ni].p.landmark;
  const bool hand = gl_op->g->nodes[ni].n_in > 2;
  /* the heads' own error on GL: coordinates, visibility logits, presence, handedness.
   * Measured on the raw model: with the op appended the unused branches are pruned, so
   * GL plans (fuses, orders, tiles by llvmpipe's measured fill) that graph differently
   * and its heads, which are no longer outputs, round differently: allowed twice the
   * raw run's error (seen: 1.02x in a CI run). A wrong op is off by pixels or more. */
  const double e_xy = 2 * head_error(cpu_raw, gl_raw, 0, item, p->stride, 0, 2);
  const double e_vis = p->visibility ? 2 * head_error(cpu_raw, gl_raw, 0, item, p->stride, 3, 4) : 0;
  const double e_pres = 2 * head_error(cpu_raw, gl_raw, 1, item, 1, 0, 1);
  const double e_hand = hand ? 2 * head_error(cpu_raw, gl_raw, 2, item, 1, 0, 1) : 0;
  const double b_pres = (p->presence_logit ? 0.25 : 1.0) * e_pres + OP_TOL, b_hand = e_hand + OP_TOL;
  const double b_xy = e_xy + OP_TOL, b_vis = 0.25 * e_vis + OP_TOL;
  const int row = pp_lm_row(p->points, p->visibility);
  size_t n;
  const float *lm = item_values(cpu_raw, 0, item, &n), *pr = item_values(cpu_raw, 1, item, &n);
  float *want = malloc(sizeof(float) * (size_t)row);
  pp_lm_decode(p->points, p->stride, p->visibility, p->presence_logit, lm, pr[0],
               hand ? item_values(cpu_raw, 2, item, &n)[0] : 0.0f, want);
  const float *got = (const float *)tfl_interpreter_output(gl_op->it, 0)->data + item * row;
  const int pv = pp_lm_point_values(p->visibility);
  double w_pres = fabs((double)got[0] - want[0]), w_hand = fabs((double)got[1] - want[1]), w_xy = 0, w_vis = 0;
  for (int i = 0; i < p->points; i++) {
    const float *g = got + 2 + i * pv, *c = want + 2 + i * pv;
    w_xy = worst_of(w_xy, fabs((double)g[0] - c[0]));
    w_xy = worst_of(w_xy, fabs((double)g[1] - c[1]));
    if (p->visibility) w_vis = worst_of(w_vis, fabs((double)g[2] - c[2]));
  }
  free(want);
  const bool on_gl = who && !strcmp(who, "gl");
  const bool fail = !on_gl || !(w_pres <= b_pres) || !(w_hand <= b_hand) || !(w_xy <= b_xy) || !(w_vis <= b_vis);
  printf("%s %s %s %-7s model on GL, batch %d item %d (op on %s) against the CPU: worst x/y %.3g (bound %.3g), visibility %.3g (%.3g), "
         "presence %.3g (%.3g), handedness %.3g (%.3g)\n", fail ? "FAIL" : "ok  ", name, prec, kind, gl_op->g->batch, item,
         who ? who : "none",
         w_xy, b_xy, w_vis, b_vis, w_pres, b_pres, w_hand, b_hand);
  return fail;
}

static int check_model(const char *path, bool fp16)
{
  const char *prec = fp16 ? "fp16" : "fp32";
  tfl_diag diag;
  tfl_delegate *d = glm_gl_delegate(fp16, &diag, path);
  if (!d) return 1;
  run cpu_raw = {0}, cpu_op = {0}, gl_raw = {0}, gl_op = {0}, cpu_rb2 = {0}, gl_rb2 = {0}, gl_b2 = {0};
  int fail = open_run(path, NULL, false, &cpu_raw) || open_run(path, NULL, true, &cpu_op) ||
             open_run(path, d, false, &gl_raw) || open_run(path, d, true, &gl_op) ||
             open_batch2(path, NULL, false, &cpu_rb2) || open_batch2(path, d, false, &gl_rb2) ||
             open_batch2(path, d, true, &gl_b2);
  char stem[256];
  glm_stem(path, stem, sizeof stem);
  const char *kinds[] = {"picture", "gauss"};
  for (int k = 0; !fail && k < 2; k++) {
    golden_case gc;
    if (!glm_read_case(opt.golden, stem, kinds[k], &gc)) {
      fail = 1;
      break;
    }
    run *b2[3] = {&cpu_rb2, &gl_rb2, &gl_b2};
    const bool filled =
        glm_fill(&gc, opt.pictures, stem, cpu_raw.it, cpu_op.it) && glm_fill(&gc, opt.pictures, stem, gl_raw.it, gl_op.it);
    /* the batched models: the case in item 0, its input mirrored left-right in item 1 */
    if (filled) mirror_into(tfl_interpreter_input(cpu_raw.it, 0), b2, 3);
    if (!filled)
      fail = 1;
    else if (tfl_interpreter_invoke(cpu_raw.it) || tfl_interpreter_invoke(cpu_op.it) ||
             tfl_interpreter_invoke(gl_raw.it) || tfl_interpreter_invoke(gl_op.it)) {
      printf("FAIL %s %s: invoke: %s %s %s %s\n", stem, kinds[k], cpu_raw.diag.error, cpu_op.diag.error,
             gl_raw.diag.error, gl_op.diag.error);
      fail = 1;
    } else {
      const tfl_node *n = &cpu_op.g->nodes[landmark_node(cpu_op.g)];
      const tfl_tensor *heads[3];
      for (int i = 0; i < n->n_in; i++) heads[i] = tfl_interpreter_output(cpu_raw.it, i);
      fail |= check_decoded(stem, kinds[k], &cpu_raw, &cpu_op);
      fail |= check_op_alone(stem, kinds[k], prec, n, heads, 1, d);
      fail |= check_op_alone(stem, kinds[k], prec, n, heads, 3, d);
      fail |= check_whole(stem, kinds[k], prec, &cpu_raw, &gl_raw, &gl_op, 0);
      if (tfl_interpreter_invoke(cpu_rb2.it) || tfl_interpreter_invoke(gl_rb2.it) || tfl_interpreter_invoke(gl_b2.it)) {
        printf("FAIL %s %s: batch 2: %s %s %s\n", stem, kinds[k], cpu_rb2.diag.error, gl_rb2.diag.error,
               gl_b2.diag.error);
        fail = 1;
      } else
        for (int b = 0; b < 2; b++) fail |= check_whole(stem, kinds[k], prec, &cpu_rb2, &gl_rb2, &gl_b2, b);
    }
    golden_free(&gc);
  }
  glm_close_run(&gl_b2);
  glm_close_run(&gl_rb2);
  glm_close_run(&cpu_rb2);
  glm_close_run(&gl_op);
  glm_close_run(&gl_raw);
  glm_close_run(&cpu_op);
  glm_close_run(&cpu_raw);
  d->destroy(d);
  return fail;
}

static int expect_error(const char *what, tfl_status st, const char *error, const char *needle)
{
  const bool ok = st != TFL_OK && strstr(error, needle);
  printf("%s unknown layout, %s: %s\n", ok ? "ok  " : "FAIL", what, st ? error : "accepted");
  return !ok;
}

/* (3) */
static int check_unknown_layout(void)
{
  int fail = 0;
  op_runner r;
  op_runner_init(&r, TFL_OP_LANDMARK_DECODE);
  int lm = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){1, 100}, NULL, false);
  int pr = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){1, 1}, NULL, false);
  int out = op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){1, 52}, NULL, false);
  op_runner_io(&r, (int[]){lm, pr}, 2, &out, 1);
  /* appending to a model whose landmarks hold 100 values */
  int32_t outputs[2] = {lm, pr};
  r.graph.outputs = outputs;
  r.graph.n_outputs = 2;
  bool appended = true;
  tfl_decoder_options dopt = tfl_decoder_defaults();
  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_status st = tfl_decoder_append_postprocess(TFL_DECODER_LANDMARKS, &r.graph, &dopt, &appended, &diag);
  fail |= expect_error("append", st, diag.error, "100 values") || appended;
  /* an op of family 7 (25 points of 4): kernel, GL check, decoder */
  r.node.p.landmark = (tfl_landmark_params){7, 25, 4, false, false};
  st = op_runner_run(&r, 1);
  fail |= expect_error("CPU kernel", st, r.diag.error, "family 7");
  tfl_diag_init(&diag);
  st = gl_check_landmarks(&r.graph, 0, &diag);
  fail |= expect_error("GL check", st, diag.error, "family 7");
  outputs[0] = out;
  r.graph.n_outputs = 1;
  tfl_decoder *dec = NULL;
  tfl_diag_init(&diag);
  st = tfl_decoder_create(TFL_DECODER_LANDMARKS, &r.graph, &dopt, &dec, &diag);
  tfl_decoder_free(dec);
  fail |= expect_error("decoder", st, diag.error, "family 7");
  r.graph.outputs = NULL;
  r.graph.n_outputs = 0;
  op_runner_free(&r);
  return fail;
}

int main(int argc, char **argv)
{
  opt = glm_default_options(argc, argv);
  return glm_check_models(argc, argv, &opt, check_unknown_layout(), check_model);
}
