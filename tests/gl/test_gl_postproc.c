/* test_gl_postproc.c - post-processing on the GPU against the CPU decoders, on real
 * models and the inputs of their golden cases (a picture, Gaussian noise):
 *   segmentation: the mask's bytes made on the GPU (argmax class or probability * 255,
 *     exported into a host buffer, tfl_buffer.h) and decoded by tfl_decoder_run_mask, against
 *     (1) the CPU decoder on the same GL run's float output: the byte path itself, exact
 *         (classes equal, probabilities within half a step of 1/255; in fp16 the floats
 *         come back as halves: less their rounding);
 *     (2) the CPU decoder on the CPU delegate's output: a pixel whose class differs must
 *         be a near-tie on the CPU (its two scores within the delegate's tolerance of the
 *         output's range: 1e-4 fp32, 1e-2 fp16), probabilities within half a step plus
 *         that tolerance carried through the sigmoid; the worst pixel is checked.
 *   SSD detection (TFLite_Detection_PostProcess on the GPU): the op alone, on the heads
 *     the CPU delegate computed for the case, through the CPU kernel (postproc/: box
 *     coder, NMS) and through the GL delegate: the same count, and slot by slot the same
 *     class, the same score (a copy of an input) and the box within 1e-5 (the CPU
 *     decodes in double, the GPU in float): the same kept set in the same order.
 *     --synthetic D,P,T: the same on a crowded synthetic SSD (score ties), D detections
 *     of P classes each, score threshold T.
 *   MediaPipe detection (ANCHOR_DETECTION, appended by tfl_decoder_append_postprocess):
 *     (1) the model with the op appended, on the CPU delegate, decoded: the very same
 *         results (count, boxes, scores, keypoints bit for bit) as the detection decoder
 *         on the raw heads of the model as loaded (both run postproc/anchor_detect.c);
 *     (2) the op alone on those heads, through the CPU kernel and the GL delegate, with
 *         the element's options (threshold 0.5, 10 results), with threshold 0 and 3
 *         results (the CPU must fill all 3: max_detections reached), with threshold 0
 *         and 100 results, and with threshold 1 (none may pass): the same count, the
 *         worst box / keypoint coordinate (normalized) and score within AD_TOL, empty
 *         slots 0. With --batches also the element's options at batch 2 and threshold 0,
 *         100 results at batch 3, item by item, the items made apart (the heads;
 *         mirrored, scores negated; moved, scores up: glm_batch_item) and checked apart
 *         on the CPU; in fp16 the batch-3 case again with the outputs stored as halves
 *         (half_activations: the items' counts share uints, written with atomics),
 *         values within their rounding. AD_TOL: both decode in float, but the GPU's exp
 *         (the sigmoid of the weights), its divisions and the CPU's double sums differ
 *         by a few ulps; a merged box is a weighted mean of values within about 1.5 of
 *         0, so its error stays within a few 1e-7.
 *   test_gl_postproc [--fp16] [--batches] [--synthetic D,P,T]... [--golden DIR] [--pictures DIR] [--models DIRS]
 *                    MODEL...
 * A model that cannot be found is a failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoders/tfl_decoder.h"
#include "delegates/gl/gl_delegate.h"
#include "delegates/gl/gl_layout.h"
#include "runtime/tfl_interpreter.h"
#include "runtime/tfl_loader.h"
#include "tests/gl/gl_model_check.h"
#include "tests/gl/gl_model_run.h"
#include "tests/gl/gl_test_util.h"
#include "tests/golden.h"
#include "tests/gl_profile_env.h"

/* MediaPipe detection: GL against the CPU kernel, normalized coordinates and scores */
#define AD_TOL 1e-5

/* the relative rounding of a half (fp16 outputs come back as halves) */
#define HALF_ULP (1.0 / 1024)

static glm_options opt; /* the command line: golden cases and pictures */
static bool batches;     /* --batches: MediaPipe detection at batch 2 and 3 too */

typedef glm_run run;

/* Output 0 of a [1,H,W,C] model at pixel i, class c. */
static float at(const tfl_tensor *t, size_t i, int c)
{
  return gl_tensor_real(t, t->data, i * (size_t)t->dims[3] + (size_t)c);
}

/* Segmentation: the three results compared as the header says. */
static int check_segmentation(const char *name, const char *kind, bool fp16, run *cpu, run *gl)
{
  const tfl_tensor *co = tfl_interpreter_output(cpu->it, 0), *go = tfl_interpreter_output(gl->it, 0);
  int w = co->dims[2], h = co->dims[1], nc = co->dims[3];
  size_t px = (size_t)w * (size_t)h;
  tfl_transform tr = {w, h, (float)w, (float)h, 1, 1, 0, 0, 0, 0};
  tfl_results rc = {0}, rg = {0}, rf = {0};
  const bool logits = tfl_decoder_output_is_logits(gl->g, gl->g->outputs[0]);
  tfl_export x = {.convert = logits ? TFL_CONVERT_SIGMOID_CLASS_U8 : TFL_CONVERT_CLASS_U8};
  tfl_buffer *hb = NULL;
  const void *bytes = NULL;
  int fail = 0;
  /* the GPU's mask with no output read back, then the same run's floats */
  tfl_interpreter_set_outputs_host(gl->it, false);
  if (tfl_buffer_new(NULL, TFL_BUFFER_HOST, px, &gl->diag, &hb) || tfl_interpreter_invoke(cpu->it) ||
      tfl_interpreter_invoke(gl->it) || tfl_interpreter_export_output(gl->it, 0, &x, hb) ||
      tfl_buffer_map(hb, &bytes) || tfl_decoder_run_mask(gl->dec, bytes, w, h, &tr, &rg, &gl->diag)) {
    printf("FAIL %s %s: %s %s\n", name, kind, cpu->diag.error, gl->diag.error);
    fail = 1;
    goto out;
  }
  tfl_interpreter_set_outputs_host(gl->it, true);
  const tfl_tensor *outs[1] = {co};
  if (tfl_interpreter_invoke(gl->it) || tfl_decoder_run(cpu->dec, outs, 1, &tr, &rc, &cpu->diag)) {
    printf("FAIL %s %s: %s %s\n", name, kind, cpu->diag.error, gl->diag.error);
    fail = 1;
    goto out;
  }
  outs[0] = go;
  double t0 = glm_now_ms();
  tfl_status sf = tfl_decoder_run(gl->dec, outs, 1, &tr, &rf, &gl->diag);
  double t1 = glm_now_ms();
  tfl_results rb = {0}; /* the bytes' decode, timed alone (informative) */
  tfl_decoder_run_mask(gl->dec, bytes, w, h, &tr, &rb, &gl->diag);
  printf("     %s %s: CPU decode %.3f ms from the floats, %.3f ms from the bytes\n", name, kind, t1 - t0, glm_now_ms() - t1);
  tfl_results_clear(&rb);
  if (sf) {
    printf("FAIL %s %s: %s\n", name, kind, gl->diag.error);
    fail = 1;
    goto out;
  }
  double lo = at(co, 0, 0), hi = lo;
  for (size_t i = 0; i < px * (size_t)nc; i++) {
    double v = gl_tensor_real(co, co->data, i);
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
  }
  double range = hi - lo > 0 ? hi - lo : 1, tol = fp16 ? 1e-2 : 1e-4;
  if (rg.mask.kind != rc.mask.kind || rg.mask.width != w || rg.mask.height != h) {
    printf("FAIL %s %s: the GPU mask is kind %d %dx%d, the CPU's kind %d %dx%d\n", name, kind, rg.mask.kind,
           rg.mask.width, rg.mask.height, rc.mask.kind, rc.mask.width, rc.mask.height);
    fail = 1;
    goto out;
  }
  if (nc > 1) {
    size_t own = 0, differ = 0, worst_at = 0;
    double worst = 0; /* the CPU's gap between its class and the GPU's, of the range */
    for (size_t i = 0; i < px; i++) {
      /* fp16 reads outputs back as halves: two scores may round to one (then the lower
       * class wins on the CPU) while the GPU compared them unrounded */
      if (rg.mask.classes[i] != rf.mask.classes[i]) {
        double a = at(go, i, rg.mask.classes[i]), b = at(go, i, rf.mask.classes[i]);
        own += !(fp16 && fabs(a - b) <= HALF_ULP * fmax(fabs(a), fabs(b)));
      }
      if (rg.mask.classes[i] == rc.mask.classes[i]) continue;
      differ++;
      double gap = (at(co, i, rc.mask.classes[i]) - at(co, i, rg.mask.classes[i])) / range;
      if (gap > worst) worst = gap, worst_at = i;
    }
    bool bad = own != 0 || worst > tol;
    printf("%s %s %s %-7s classes: %zu of %zu pixels unlike the same run's floats decoded on the CPU; %zu unlike the "
           "CPU delegate's, worst a CPU score gap of %.3g of range %.3g at %zu (tol %.0e)\n",
           bad ? "FAIL" : "ok  ", name, fp16 ? "fp16" : "fp32", kind, own, px, differ, worst, range, worst_at, tol);
    fail |= bad;
  } else {
    double own = 0, worst = 0;
    size_t worst_at = 0;
    for (size_t i = 0; i < px; i++) {
      double e = fabs(rg.mask.prob[i] - rf.mask.prob[i]), e2 = fabs(rg.mask.prob[i] - rc.mask.prob[i]);
      if (fp16) /* less the half's rounding of the logit read back, through the sigmoid */
        e = fmax(0, e - (logits ? 0.25 : 1.0) * HALF_ULP * fabs(at(go, i, 0)));
      own = e > own ? e : own;
      if (e2 > worst) worst = e2, worst_at = i;
    }
    /* a logit off by d moves a probability by at most d / 4 */
    double tol2 = 0.5 / 255 + (logits ? 0.25 : 1.0) * tol * range + 1e-6;
    bool bad = own > 0.5 / 255 + 1e-6 || worst > tol2;
    printf("%s %s %s %-7s probabilities: worst %.3g against the same run's floats (tol %.3g), %.3g against the CPU "
           "delegate's at %zu (tol %.3g)\n",
           bad ? "FAIL" : "ok  ", name, fp16 ? "fp16" : "fp32", kind, own, 0.5 / 255 + 1e-6, worst, worst_at, tol2);
    fail |= bad;
  }
out:
  tfl_results_clear(&rc);
  tfl_results_clear(&rg);
  tfl_results_clear(&rf);
  tfl_buffer_free(hb);
  return fail;
}

/* Index of the graph's TFLite_Detection_PostProcess node, -1 if none. */
static int detection_node(const tfl_graph *g)
{
  for (int i = 0; i < g->n_nodes; i++)
    if (g->nodes[i].op == TFL_OP_DETECTION_POSTPROCESS) return i;
  return -1;
}

/* A copy of graph tensor t (its data, type, dims, quantization) in r. */
static int copy_tensor(op_runner *r, const tfl_tensor *t, bool is_const)
{
  int k = op_runner_tensor(r, t->type, t->ndim, t->dims, t->data, is_const);
  if (t->q.n) op_runner_quant(r, k, 1, t->q.scale, t->q.zero_point, 0);
  return k;
}

static int compare_op(const char *name, const char *kind, bool fp16, op_runner *r, const int *outs, tfl_delegate *d);

/* SSD: the post-process op on the heads of the CPU run just made (the last node: its
 * inputs are still in the arena), as the header says. */
static int check_detection(const char *name, const char *kind, bool fp16, run *cpu, tfl_delegate *d, int node)
{
  const tfl_graph *g = cpu->g;
  const tfl_node *n = &g->nodes[node];
  if (tfl_interpreter_invoke(cpu->it)) {
    printf("FAIL %s %s: %s\n", name, kind, cpu->diag.error);
    return 1;
  }
  op_runner r;
  op_runner_init(&r, TFL_OP_DETECTION_POSTPROCESS);
  int ins[3], outs[4];
  for (int k = 0; k < 3; k++) ins[k] = copy_tensor(&r, &g->tensors[n->in[k]], k == 2);
  for (int k = 0; k < 4; k++) {
    const tfl_tensor *t = &g->tensors[n->out[k]];
    outs[k] = op_runner_tensor(&r, TFL_TYPE_FLOAT32, t->ndim, t->dims, NULL, false);
  }
  op_runner_io(&r, ins, 3, outs, 4);
  r.node.p.detection = n->p.detection;
  int fail = compare_op(name, kind, fp16, &r, outs, d);
  op_runner_free(&r);
  return fail;
}

/* r's detection node through the CPU kernel and the GL delegate d, compared. */
static int compare_op(const char *name, const char *kind, bool fp16, op_runner *r, const int *outs, tfl_delegate *d)
{
  float *want[4] = {0}, *got[4];
  size_t cnt[4];
  int fail = 0;
  tfl_status st = op_runner_run(r, 1);
  for (int k = 0; k < 4 && !st; k++) {
    const tfl_tensor *t = &r->graph.tensors[outs[k]];
    cnt[k] = tfl_tensor_count(t);
    want[k] = malloc(t->bytes);
    memcpy(want[k], t->data, t->bytes);
    memset(t->data, 0xff, t->bytes); /* NaNs: the GPU must write every slot */
  }
  if (st || (st = glt_run_gl(r, d))) {
    printf("FAIL %s %s: %s: %s\n", name, kind, want[0] ? "GL" : "CPU kernel", r->diag.error);
    fail = 1;
    goto out;
  }
  for (int k = 0; k < 4; k++) got[k] = r->graph.tensors[outs[k]].data;
  int m = (int)want[3][0], per = r->node.p.detection.max_classes_per_detection, slots = (int)cnt[1];
  int bad_class = 0, bad_score = 0, bad_empty = 0;
  const double worst_box = glm_worst(0, got[0], want[0], 4 * (size_t)slots, 0);
  for (int i = 0; i < slots; i++) {
    bool used = i < m * per;
    bad_class += !(got[1][i] == want[1][i]);
    bad_score += !(fabsf(got[2][i] - want[2][i]) <= 1e-6f * fmaxf(1.0f, fabsf(want[2][i])));
    if (!used) bad_empty += got[1][i] != 0 || got[2][i] != 0;
  }
  bool bad = got[3][0] != want[3][0] || bad_class || bad_score || bad_empty || !(worst_box <= 1e-5);
  printf("%s %s %s %-7s detection: %g kept on the GPU, %d on the CPU; %d of %d slots with another class, %d another "
         "score, %d empty slots not zero; worst box coordinate off by %.3g (tol 1e-5)\n",
         bad ? "FAIL" : "ok  ", name, fp16 ? "fp16" : "fp32", kind, got[3][0], m, bad_class, slots, bad_score,
         bad_empty, worst_box);
  fail = bad;
out:
  for (int k = 0; k < 4; k++) free(want[k]);
  return fail;
}

/* A crowded synthetic SSD (--synthetic): A anchors on an 8 x 8 grid of overlapping
 * sizes, a background column, scores on a 1/64 grid (many ties: the lower anchor must
 * win, as the CPU sorts), max_det detections of up to `per` classes each. */
static int check_synthetic(bool fp16, tfl_delegate *d, int max_det, int per, float thr)
{
  enum { A = 8 * 8 * 5 * 3, C = 7 };
  static float enc[A * 4], sc[A * (C + 1)], anc[A * 4];
  unsigned seed = 11;
  glt_fill(enc, A * 4, -1.5f, 1.5f, &seed);
  glt_fill(sc, A * (C + 1), 0.0f, 1.0f, &seed);
  for (int i = 0; i < A * (C + 1); i++) sc[i] = floorf(sc[i] * 64.0f) / 64.0f;
  for (int a = 0; a < A; a++) {
    int cell = a / 15, size = a % 5;
    anc[4 * a] = ((float)(cell / 8) + 0.5f) / 8.0f;
    anc[4 * a + 1] = ((float)(cell % 8) + 0.5f) / 8.0f;
    anc[4 * a + 2] = 0.1f + 0.08f * (float)size;
    anc[4 * a + 3] = 0.1f + 0.06f * (float)((a / 5) % 3 + size);
  }
  op_runner r;
  op_runner_init(&r, TFL_OP_DETECTION_POSTPROCESS);
  int ins[3] = {op_runner_tensor(&r, TFL_TYPE_FLOAT32, 3, (int32_t[]){1, A, 4}, enc, false),
                op_runner_tensor(&r, TFL_TYPE_FLOAT32, 3, (int32_t[]){1, A, C + 1}, sc, false),
                op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){A, 4}, anc, true)};
  int D = max_det * per;
  int outs[4] = {op_runner_tensor(&r, TFL_TYPE_FLOAT32, 3, (int32_t[]){1, D, 4}, NULL, false),
                 op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){1, D}, NULL, false),
                 op_runner_tensor(&r, TFL_TYPE_FLOAT32, 2, (int32_t[]){1, D}, NULL, false),
                 op_runner_tensor(&r, TFL_TYPE_FLOAT32, 1, (int32_t[]){1}, NULL, false)};
  op_runner_io(&r, ins, 3, outs, 4);
  r.node.p.detection = (tfl_detection_params){.max_detections = max_det, .max_classes_per_detection = per,
                                              .num_classes = C, .nms_score_threshold = thr, .nms_iou_threshold = 0.45f,
                                              .y_scale = 10, .x_scale = 10, .h_scale = 5, .w_scale = 5};
  char kind[64];
  snprintf(kind, sizeof kind, "%dx%d>%.2f", max_det, per, thr);
  int fail = compare_op("synthetic", kind, fp16, &r, outs, d);
  op_runner_free(&r);
  return fail;
}

/* The graph's ANCHOR_DETECTION node, -1 if none. */
static int anchor_node(const tfl_graph *g)
{
  for (int i = 0; i < g->n_nodes; i++)
    if (g->nodes[i].op == TFL_OP_ANCHOR_DETECTION) return i;
  return -1;
}

/* One option set of the op alone on the heads as a batch of `batch` items (glm_batch_item),
 * CPU kernel, then GL, compared item by item. expect: the count the CPU must give item
 * 0 (-1: any). At batch > 1 the items' results must differ on the CPU (unless none are
 * kept), so that GL reading one item's slot for all cannot pass. halves: d stores the
 * outputs as halves (half_activations): values within their rounding plus AD_TOL. */
static int compare_anchor_op(const char *name, const char *kind, const char *what, bool fp16, const tfl_graph *g,
                             const tfl_node *n, const tfl_anchor_detection_params *p, int expect, int batch,
                             bool halves, tfl_delegate *d)
{
  const double rel = halves ? HALF_ULP : 0;
  op_runner r;
  op_runner_init(&r, TFL_OP_ANCHOR_DETECTION);
  const tfl_tensor *reg = &g->tensors[n->in[0]], *sc = &g->tensors[n->in[1]];
  const int na = reg->dims[1], row = reg->dims[2], md = p->max_detections, nkv = row - 4;
  const size_t nr = (size_t)na * row, ns = (size_t)na;
  float *rb = malloc(sizeof(float) * nr * batch), *sb = malloc(sizeof(float) * ns * batch);
  for (int b = 0; b < batch; b++)
    glm_batch_item(reg->data, sc->data, nr, ns, row, p->prob_scores, b, rb + nr * b, sb + ns * b);
  int ins[3] = {op_runner_tensor(&r, TFL_TYPE_FLOAT32, 3, (int32_t[]){batch, na, row}, rb, false),
                op_runner_tensor(&r, TFL_TYPE_FLOAT32, 3, (int32_t[]){batch, na, 1}, sb, false),
                copy_tensor(&r, &g->tensors[n->in[2]], true)};
  free(rb);
  free(sb);
  int outs[4];
  const int32_t dims[4][3] = {{batch, md, 4}, {batch, md, nkv}, {batch, md}, {batch}};
  const int ndim[4] = {3, 3, 2, 1};
  for (int k = 0; k < 4; k++) outs[k] = op_runner_tensor(&r, TFL_TYPE_FLOAT32, ndim[k], dims[k], NULL, false);
  op_runner_io(&r, ins, 3, outs, 4);
  r.node.p.anchor_det = *p;
  float *want[4] = {0};
  int fail = 0;
  tfl_status st = op_runner_run(&r, 1);
  for (int k = 0; k < 4 && !st; k++) {
    const tfl_tensor *t = &r.graph.tensors[outs[k]];
    want[k] = malloc(t->bytes);
    memcpy(want[k], t->data, t->bytes);
    memset(t->data, 0xff, t->bytes); /* NaNs: the GPU must write every slot */
  }
  if (st || (st = glt_run_gl(&r, d))) {
    printf("FAIL %s %s %s batch %d: %s: %s\n", name, kind, what, batch, want[0] ? "GL" : "CPU kernel", r.diag.error);
    fail = 1;
    goto out;
  }
  const float *got[4];
  for (int k = 0; k < 4; k++) got[k] = r.graph.tensors[outs[k]].data;
  /* per item b: boxes from 4 * md * b, keypoints nkv * md * b, scores md * b, count b */
  const size_t per[4] = {4 * (size_t)md, (size_t)nkv * md, (size_t)md, 1};
  for (int b = 0; b < batch; b++) {
    const float *gi[4], *wi[4];
    for (int k = 0; k < 4; k++) gi[k] = got[k] + per[k] * b, wi[k] = want[k] + per[k] * b;
    const int m = (int)wi[3][0];
    const double worst_box = glm_worst(0, gi[0], wi[0], per[0], rel);
    const double worst_kp = glm_worst(0, gi[1], wi[1], per[1], rel), worst_score = glm_worst(0, gi[2], wi[2], per[2], rel);
    int bad_empty = 0;
    for (int i = m; i < md; i++) {
      bad_empty += gi[2][i] != 0 || gi[0][4 * i] != 0 || gi[0][4 * i + 3] != 0;
      for (int c = 0; c < nkv; c++) bad_empty += gi[1][(size_t)nkv * i + c] != 0;
    }
    /* the CPU's item apart from item 0 (their boxes or counts differ) */
    const bool apart = b == 0 || (int)want[3][0] == 0 || wi[3][0] != want[3][0] ||
                       memcmp(wi[0], want[0], sizeof(float) * per[0]) != 0;
    bool bad = gi[3][0] != wi[3][0] || (b == 0 && expect >= 0 && m != expect) || bad_empty || !apart ||
               !(worst_box <= AD_TOL) || !(worst_kp <= AD_TOL) || !(worst_score <= AD_TOL);
    char item[64] = "";
    if (batch > 1) snprintf(item, sizeof item, " batch %d item %d%s", batch, b, halves ? " (halves stored)" : "");
    printf("%s %s %s %-7s anchor detection %-14s%s: %g kept on the GPU, %d on the CPU (want %d); worst box "
           "coordinate off by %.3g, keypoint %.3g, score %.3g (tol %.0e); %d empty values not zero%s\n",
           bad ? "FAIL" : "ok  ", name, fp16 ? "fp16" : "fp32", kind, what, item, gi[3][0], m, b == 0 ? expect : -1,
           worst_box, worst_kp, worst_score, AD_TOL, bad_empty, apart ? "" : "; the CPU gives item 0's results");
    fail |= bad;
  }
out:
  for (int k = 0; k < 4; k++) free(want[k]);
  op_runner_free(&r);
  return fail;
}

/* MediaPipe: (1) and (2) of the header; `op` is the model with the op appended. dh
 * (fp16): a delegate storing activations as halves (the batch's counts share halves). */
static int check_mediapipe(const char *name, const char *kind, bool fp16, run *cpu, run *op, tfl_delegate *d,
                           tfl_delegate *dh)
{
  int fail = 0;
  tfl_results rc = {0}, ro = {0};
  const tfl_tensor *in = &cpu->g->tensors[cpu->g->inputs[0]];
  const int w = in->dims[2], h = in->dims[1];
  tfl_transform tr = {w, h, (float)w, (float)h, 1, 1, 0, 0, 0, 0};
  const tfl_tensor *co[2] = {tfl_interpreter_output(cpu->it, 0), tfl_interpreter_output(cpu->it, 1)};
  const tfl_tensor *oo[4];
  for (int k = 0; k < 4; k++) oo[k] = tfl_interpreter_output(op->it, k);
  if (tfl_interpreter_invoke(cpu->it) || tfl_interpreter_invoke(op->it) ||
      tfl_decoder_run(cpu->dec, co, 2, &tr, &rc, &cpu->diag) || tfl_decoder_run(op->dec, oo, 4, &tr, &ro, &op->diag)) {
    printf("FAIL %s %s: %s %s\n", name, kind, cpu->diag.error, op->diag.error);
    tfl_results_clear(&rc);
    return 1;
  }
  int differ = rc.n_boxes != ro.n_boxes;
  for (int i = 0; !differ && i < rc.n_boxes; i++) differ += !glm_same_box(&rc.boxes[i], &ro.boxes[i]);
  printf("%s %s %s %-7s decoder: %d detections from the raw heads, %d through the CPU kernel of the appended op%s\n",
         differ ? "FAIL" : "ok  ", name, fp16 ? "fp16" : "fp32", kind, rc.n_boxes, ro.n_boxes,
         differ ? ", not the same" : ", identical");
  fail |= differ != 0;
  tfl_results_clear(&rc);
  tfl_results_clear(&ro);
  /* the op alone on the raw run's heads (the same tensors: appended ones come after) */
  const tfl_node *n = &op->g->nodes[anchor_node(op->g)];
  tfl_graph heads = *op->g;
  tfl_tensor *t = malloc(sizeof *t * (size_t)op->g->n_tensors);
  memcpy(t, op->g->tensors, sizeof *t * (size_t)op->g->n_tensors);
  t[n->in[0]].data = co[n->in[0] == cpu->g->outputs[0] ? 0 : 1]->data;
  t[n->in[1]].data = co[n->in[1] == cpu->g->outputs[0] ? 0 : 1]->data;
  heads.tensors = t;
  tfl_anchor_detection_params p = n->p.anchor_det;
  fail |= compare_anchor_op(name, kind, "(as appended)", fp16, &heads, n, &p, -1, 1, false, d);
  if (batches) fail |= compare_anchor_op(name, kind, "(as appended)", fp16, &heads, n, &p, -1, 2, false, d);
  p.score_threshold = 0.0f; /* every anchor a candidate */
  p.max_detections = 3;
  fail |= compare_anchor_op(name, kind, "(0, max 3)", fp16, &heads, n, &p, 3, 1, false, d);
  p.max_detections = 100; /* the GL limit: many merges of many members */
  fail |= compare_anchor_op(name, kind, "(0, max 100)", fp16, &heads, n, &p, -1, 1, false, d);
  if (batches) fail |= compare_anchor_op(name, kind, "(0, max 100)", fp16, &heads, n, &p, -1, 3, false, d);
  if (batches && dh) fail |= compare_anchor_op(name, kind, "(0, max 100)", fp16, &heads, n, &p, -1, 3, true, dh);
  p.score_threshold = 1.0f;
  fail |= compare_anchor_op(name, kind, "(1.0: none)", fp16, &heads, n, &p, 0, 1, false, d);
  free(t);
  return fail;
}

static int check_model(const char *path, bool fp16)
{
  tfl_diag diag;
  tfl_delegate *d = glm_gl_delegate(fp16, &diag, path);
  if (!d) return 1;
  run cpu, gl = {0};
  int fail = glm_open_run(path, NULL, false, NULL, &cpu);
  /* the whole model on GL only for segmentation (detection runs the op alone) */
  bool ssd = !fail && detection_node(cpu.g) == cpu.g->n_nodes - 1;
  bool mp = !fail && !ssd && tfl_decoder_get_kind(cpu.dec) == TFL_DECODER_DETECTION;
  fail = fail || (mp ? glm_open_run(path, NULL, true, NULL, &gl) : !ssd && glm_open_run(path, d, false, NULL, &gl));
  tfl_delegate *dh = NULL; /* fp16 MediaPipe: also with the outputs stored as halves */
  if (!fail && mp && fp16 && batches) {
    gl_delegate_options ho = gl_delegate_defaults();
    ho.precision = GL_PRECISION_FP16;
    ho.tuning.half_activations = true;
    ho.profile = gl_profile_from_env();
    ho.diag = &diag;
    if (!(dh = gl_delegate_create(&ho))) {
      printf("FAIL %s: a delegate with half activations: %s\n", path, diag.error);
      fail = 1;
    }
  }
  char stem[256];
  glm_stem(path, stem, sizeof stem);
  const char *kinds[] = {"picture", "gauss"};
  for (int k = 0; !fail && k < 2; k++) {
    golden_case gc;
    if (!glm_read_case(opt.golden, stem, kinds[k], &gc)) {
      fail = 1;
      break;
    }
    if (!glm_fill(&gc, opt.pictures, stem, cpu.it, gl.it)) fail = 1;
    else if (ssd)
      fail |= check_detection(stem, kinds[k], fp16, &cpu, d, detection_node(cpu.g));
    else if (mp)
      fail |= check_mediapipe(stem, kinds[k], fp16, &cpu, &gl, d, dh);
    else if (tfl_decoder_get_kind(cpu.dec) == TFL_DECODER_SEGMENTATION)
      fail |= check_segmentation(stem, kinds[k], fp16, &cpu, &gl);
    else {
      printf("FAIL %s: a %s model has no GPU post-processing to test\n", stem,
             tfl_decoder_kind_name(tfl_decoder_get_kind(cpu.dec)));
      fail = 1;
    }
    golden_free(&gc);
  }
  glm_close_run(&gl);
  glm_close_run(&cpu);
  if (dh) dh->destroy(dh);
  d->destroy(d);
  return fail;
}

int main(int argc, char **argv)
{
  opt = glm_default_options(argc, argv);
  int fails = 0, n = 0;
  for (int i = 1; i < argc; i++) {
    if (glm_take_option(argc, argv, &i, &opt)) continue;
    if (!strcmp(argv[i], "--batches")) {
      batches = true;
      continue;
    }
    if (!strcmp(argv[i], "--synthetic") && i + 1 < argc) { /* DETECTIONS,CLASSES,THRESHOLD */
      int det = 0, per = 0;
      float thr = 0;
      if (sscanf(argv[++i], "%d,%d,%f", &det, &per, &thr) != 3) return 2;
      tfl_diag diag;
      tfl_delegate *d = glm_gl_delegate(opt.fp16, &diag, "the synthetic detections");
      if (!d) return 1;
      fails += check_synthetic(opt.fp16, d, det, per, thr);
      d->destroy(d);
    } else
      fails += glm_check_model_arg(argv[i], opt.models, opt.fp16, check_model);
    n++;
  }
  printf("%d model(s), %d failure(s)\n", n, fails);
  return fails != 0 || n == 0;
}
