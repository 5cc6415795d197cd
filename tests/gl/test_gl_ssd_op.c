/* test_gl_ssd_op.c - an SSD's post-processing appended to its graph (SSD_CLASS_NMS +
 * SSD_DETECTION, tfl_decoder_append_postprocess) against the detection decoder and on
 * the GPU against the CPU kernels:
 *   (1) the model with the ops appended, on the CPU delegate, decoded: the very same
 *       results (count, classes, boxes, scores bit for bit) as the detection decoder on
 *       the raw heads of the model as loaded (both run postproc/ssd_detect.c), on the
 *       inputs of the model's golden cases (a picture, Gaussian noise);
 *   (2) the two ops alone on those heads (a graph of the heads with the ops appended as
 *       the element appends them), on the CPU delegate and on the GL delegate (both ops
 *       must run there), with the element's options (threshold 0.5, 10 results, IoU 0.3),
 *       threshold 0.02 and 3 results (the CPU must fill all 3: max_results reached),
 *       threshold 0.02 and 100 results (the GL limit) and threshold 1 (none may pass):
 *       the same count, slot by slot the same class, the worst box coordinate and score
 *       within SSD_TOL, empty slots 0; the element's options at batch 2 and threshold
 *       0.02, 100 results at batch 3 too (the graph given the batch after the ops were
 *       appended, as the engine does), item by item, the items made apart (the heads;
 *       mirrored, scores negated; moved, scores up: glm_batch_item) and checked apart on
 *       the CPU;
 *   (3) --synthetic: (2) on a crowded synthetic SSD: the 1917 anchors of SSD MobileNet
 *       (six overlapping ones a cell), 5 classes, logits on a 1/8 grid (many ties across
 *       anchors and classes: the lower anchor, then the lower class must win, as the CPU
 *       sorts), several thresholds and result counts, two of them at batch 2 and 3; then
 *       validation (tfl_graph_prepare) of the appended graph as built, and refusals,
 *       naming the value, of an IoU threshold of 1.5, 0 results, anchors that are not
 *       constant and scores of another anchor count; the GL checks at batch 3
 *       (accepted), past GL_NMS_MAX_ITEMS and with the scores' batch not the boxes'
 *       (refused, naming the limit or the shapes).
 * SSD_TOL: the CPU decodes boxes in double and its sigmoid in float with expf, the GPU in
 * float with its exp: an ulp or a few of values within about 1.5 of 0.
 *   test_gl_ssd_op [--fp16] [--synthetic] [--golden DIR] [--pictures DIR] [--models DIRS] MODEL...
 * A model that cannot be found is a failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoders/tfl_decoder.h"
#include "delegates/cpu/cpu_delegate.h"
#include "delegates/gl/gl_delegate.h"
#include "delegates/gl/gl_gen_nms.h"
#include "runtime/tfl_interpreter.h"
#include "runtime/tfl_loader.h"
#include "runtime/tfl_passes.h"
#include "tests/gl/gl_model_run.h"
#include "tests/gl/gl_model_check.h"
#include "tests/gl/gl_test_util.h"
#include "tests/golden.h"

#define SSD_TOL 1e-5

static glm_options opt; /* the command line: golden cases and pictures */

/* (1): both runs invoked on the same inputs, decoded, compared. */
static int check_decoder(const char *name, const char *kind, const char *what, glm_run *raw, glm_run *op)
{
  const tfl_tensor *in = &raw->g->tensors[raw->g->inputs[0]];
  const int w = in->dims[2], h = in->dims[1];
  tfl_transform tr = {w, h, (float)w, (float)h, 1, 1, 0, 0, 0, 0};
  const tfl_tensor *ro[2] = {tfl_interpreter_output(raw->it, 0), tfl_interpreter_output(raw->it, 1)};
  const tfl_tensor *oo[4];
  for (int k = 0; k < 4; k++) oo[k] = tfl_interpreter_output(op->it, k);
  tfl_results rr = {0}, rp = {0};
  int fail = 0;
  double t[3] = {0};
  if (tfl_interpreter_invoke(raw->it) || tfl_interpreter_invoke(op->it) || (t[0] = glm_now_ms(), false) ||
      tfl_decoder_run(raw->dec, ro, 2, &tr, &rr, &raw->diag) || (t[1] = glm_now_ms(), false) ||
      tfl_decoder_run(op->dec, oo, 4, &tr, &rp, &op->diag)) {
    printf("FAIL %s %s: %s %s\n", name, kind, raw->diag.error, op->diag.error);
    fail = 1;
  } else {
    int differ = rr.n_boxes != rp.n_boxes;
    for (int i = 0; !differ && i < rr.n_boxes; i++) differ += !glm_same_box(&rr.boxes[i], &rp.boxes[i]);
    t[2] = glm_now_ms();
    printf("%s %s %-7s decoder %-16s: %d detections from the raw heads, %d through the CPU kernels of the appended "
           "ops%s (decoding %.3f ms from the raw heads, %.3f ms from the ops' outputs)\n", differ ? "FAIL" : "ok  ",
           name, kind, what, rr.n_boxes, rp.n_boxes, differ ? ", not the same" : ", identical", t[1] - t[0],
           t[2] - t[1]);
    fail = differ != 0;
  }
  tfl_results_clear(&rr);
  tfl_results_clear(&rp);
  return fail;
}

/* A graph of SSD heads alone (inputs box encodings [1,A,4] and scores [1,A,C], the
 * outputs too) with the decoder's post-processing appended for opt; the scores are
 * probabilities when prob. NULL with a FAIL line. */
static tfl_graph *heads_graph(int A, int C, const tfl_decoder_options *opt, bool prob)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_graph *g = calloc(1, sizeof *g);
  int32_t *io = malloc(2 * sizeof(int32_t)), *io2 = malloc(2 * sizeof(int32_t));
  bool appended = false;
  if (!g || !io || !io2) goto fail;
  io[0] = io2[0] = tfl_graph_add_tensor(g, "box_encodings", TFL_TYPE_FLOAT32, 3, (int32_t[]){1, A, 4});
  io[1] = io2[1] = tfl_graph_add_tensor(g, "class_scores", TFL_TYPE_FLOAT32, 3, (int32_t[]){1, A, C});
  g->inputs = io;
  g->outputs = io2;
  g->n_inputs = g->n_outputs = 2;
  io = io2 = NULL;
  if (tfl_decoder_append_postprocess(TFL_DECODER_DETECTION, g, opt, &appended, &diag) || !appended) goto fail;
  for (int i = 0; i < g->n_nodes; i++) g->nodes[i].p.anchor_det.prob_scores = prob;
  return g;
fail:
  printf("FAIL heads graph %dx%d: %s\n", A, C, appended ? diag.error : "no post-processing appended");
  free(io);
  free(io2);
  tfl_graph_free(g);
  return NULL;
}

/* (2): the appended ops on heads enc/sc as a batch of `batch` items (glm_batch_item: the
 * graph given the batch after the ops were appended, the engine's order), CPU delegate
 * against GL delegate d, item by item. expect: the count the CPU must give item 0 (-1:
 * any). At batch > 1 the items' results must differ on the CPU (unless item 0 keeps
 * none), so that GL reading one item's slot for all cannot pass. */
static int compare_ops(const char *name, const char *kind, const char *what, bool fp16, const float *enc,
                       const float *sc, int A, int C, bool prob, const tfl_decoder_options *opt, int expect, int batch,
                       tfl_delegate *d)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_delegate *cpu = cpu_delegate_create(&(cpu_delegate_options){.threads = 1, .use_xnnpack = true, .diag = &diag});
  tfl_graph *g[2] = {heads_graph(A, C, opt, prob), heads_graph(A, C, opt, prob)};
  tfl_interpreter *it[2] = {0};
  const size_t ne = 4 * (size_t)A, ns = (size_t)C * A;
  int fail = 1;
  if (!cpu || !g[0] || !g[1]) goto out;
  for (int k = 0; k < 2; k++) {
    tfl_interp_options o = tfl_interp_defaults();
    o.delegate = k ? d : NULL;
    o.fallback = cpu;
    o.diag = &diag;
    if ((batch > 1 && tfl_pass_set_batch(g[k], batch, &diag)) || tfl_interpreter_create(g[k], &o, &it[k])) {
      printf("FAIL %s %s %s batch %d: %s: %s\n", name, kind, what, batch, k ? "GL" : "CPU", diag.error);
      goto out;
    }
    float *e = tfl_interpreter_input(it[k], 0)->data, *s = tfl_interpreter_input(it[k], 1)->data;
    for (int b = 0; b < batch; b++) glm_batch_item(enc, sc, ne, ns, 4, prob, b, e + ne * b, s + ns * b);
  }
  for (int i = 0; i < g[1]->n_nodes; i++) {
    const char *who = tfl_interpreter_node_delegate(it[1], i);
    if (!who || strcmp(who, "gl")) {
      printf("FAIL %s %s %s batch %d: node %d (%s) runs on %s, not GL\n", name, kind, what, batch, i,
             tfl_op_name(g[1]->nodes[i].op), who ? who : "nothing");
      goto out;
    }
  }
  if (tfl_interpreter_invoke(it[0]) || tfl_interpreter_invoke(it[1])) {
    printf("FAIL %s %s %s batch %d: %s\n", name, kind, what, batch, diag.error);
    goto out;
  }
  const float *want[4], *got[4];
  for (int o = 0; o < 4; o++) {
    want[o] = tfl_interpreter_output(it[0], o)->data;
    got[o] = tfl_interpreter_output(it[1], o)->data;
  }
  const int md = opt->max_results;
  /* per item b: boxes from 4 * md * b, classes and scores md * b, count b */
  const size_t per[4] = {4 * (size_t)md, (size_t)md, (size_t)md, 1};
  fail = 0;
  for (int b = 0; b < batch; b++) {
    const float *gi[4], *wi[4];
    for (int o = 0; o < 4; o++) gi[o] = got[o] + per[o] * b, wi[o] = want[o] + per[o] * b;
    const int m = (int)wi[3][0];
    const double worst_box = glm_worst(0, gi[0], wi[0], per[0], 0), worst_score = glm_worst(0, gi[2], wi[2], per[2], 0);
    int bad_class = 0, bad_empty = 0;
    for (int i = 0; i < md; i++) {
      bad_class += !(gi[1][i] == wi[1][i]);
      if (i >= m) bad_empty += gi[2][i] != 0 || gi[1][i] != 0 || gi[0][4 * i] != 0 || gi[0][4 * i + 3] != 0;
    }
    /* the CPU's item apart from item 0 (their counts, classes or boxes differ) */
    const bool apart = b == 0 || (int)want[3][0] == 0 || wi[3][0] != want[3][0] ||
                       memcmp(wi[0], want[0], sizeof(float) * per[0]) || memcmp(wi[1], want[1], sizeof(float) * per[1]);
    bool bad = gi[3][0] != wi[3][0] || (b == 0 && expect >= 0 && m != expect) || bad_class || bad_empty || !apart ||
               !(worst_box <= SSD_TOL) || !(worst_score <= SSD_TOL);
    char item[48] = "";
    if (batch > 1) snprintf(item, sizeof item, " batch %d item %d", batch, b);
    printf("%s %s %s %-7s ssd detection %-16s%s: %g kept on the GPU, %d on the CPU (want %d); %d of %d slots with "
           "another class; worst box coordinate off by %.3g, score %.3g (tol %.0e); %d empty slots not zero%s\n",
           bad ? "FAIL" : "ok  ", name, fp16 ? "fp16" : "fp32", kind, what, item, gi[3][0], m, b == 0 ? expect : -1,
           bad_class, md, worst_box, worst_score, SSD_TOL, bad_empty, apart ? "" : "; the CPU gives item 0's results");
    fail |= bad;
  }
out:
  for (int k = 0; k < 2; k++) {
    tfl_interpreter_free(it[k]);
    tfl_graph_free(g[k]);
  }
  if (cpu) cpu->destroy(cpu);
  return fail;
}

/* (2) with the header's option sets. */
static int option_sets(const char *name, const char *kind, bool fp16, const float *enc, const float *sc, int A, int C,
                       bool prob, tfl_delegate *d)
{
  tfl_decoder_options opt = tfl_decoder_defaults();
  int fail = compare_ops(name, kind, "(as the element)", fp16, enc, sc, A, C, prob, &opt, -1, 1, d);
  fail |= compare_ops(name, kind, "(as the element)", fp16, enc, sc, A, C, prob, &opt, -1, 2, d);
  opt.threshold = 0.02f;
  opt.max_results = 3;
  fail |= compare_ops(name, kind, "(0.02, max 3)", fp16, enc, sc, A, C, prob, &opt, 3, 1, d);
  opt.max_results = 100;
  fail |= compare_ops(name, kind, "(0.02, max 100)", fp16, enc, sc, A, C, prob, &opt, -1, 1, d);
  fail |= compare_ops(name, kind, "(0.02, max 100)", fp16, enc, sc, A, C, prob, &opt, -1, 3, d);
  opt.threshold = 1.0f;
  fail |= compare_ops(name, kind, "(1.0: none)", fp16, enc, sc, A, C, prob, &opt, 0, 1, d);
  return fail;
}

/* (1) with the element's options and with threshold 0.02, 100 results (many picks of many
 * classes), then (2) on the raw heads. */
static int check_model(const char *path, bool fp16, tfl_delegate *d)
{
  char stem[256];
  glm_stem(path, stem, sizeof stem);
  tfl_decoder_options opts[2] = {tfl_decoder_defaults(), tfl_decoder_defaults()};
  opts[1].threshold = 0.02f;
  opts[1].max_results = 100;
  const char *what[2] = {"(as the element)", "(0.02, max 100)"};
  glm_run raw[2] = {0}, op[2] = {0};
  int fail = 0;
  for (int i = 0; i < 2 && !fail; i++) fail = glm_open_run(path, NULL, false, &opts[i], &raw[i]) || glm_open_run(path, NULL, true, &opts[i], &op[i]);
  bool prob = false;
  for (int i = 0; !fail && i < op[0].g->n_nodes; i++)
    if (op[0].g->nodes[i].op == TFL_OP_SSD_DETECTION) prob = op[0].g->nodes[i].p.anchor_det.prob_scores;
  const char *kinds[] = {"picture", "gauss"};
  for (int k = 0; !fail && k < 2; k++) {
    golden_case gc;
    if (!glm_read_case(opt.golden, stem, kinds[k], &gc)) {
      fail = 1;
      break;
    }
    for (int i = 0; i < 2 && !fail; i++) {
      if (!glm_fill(&gc, opt.pictures, stem, raw[i].it, op[i].it)) fail = 1;
      else fail |= check_decoder(stem, kinds[k], what[i], &raw[i], &op[i]);
    }
    if (!fail) {
      const tfl_tensor *o0 = tfl_interpreter_output(raw[1].it, 0), *o1 = tfl_interpreter_output(raw[1].it, 1);
      const tfl_tensor *enc = o0->dims[2] == 4 ? o0 : o1, *sc = o0->dims[2] == 4 ? o1 : o0;
      fail |= option_sets(stem, kinds[k], fp16, enc->data, sc->data, enc->dims[1], sc->dims[2], prob, d);
    }
    golden_free(&gc);
  }
  for (int i = 0; i < 2; i++) {
    glm_close_run(&op[i]);
    glm_close_run(&raw[i]);
  }
  return fail;
}

/* (3): SSD MobileNet's 1917 anchors (chosen by the decoder from the count), 5 classes. */
static int check_synthetic(bool fp16, tfl_delegate *d)
{
  enum { A = 1917, C = 5 };
  static float enc[A * 4], sc[A * C];
  unsigned seed = 7;
  glt_fill(enc, A * 4, -1.0f, 1.0f, &seed);
  glt_fill(sc, A * C, -3.0f, 2.0f, &seed);
  for (int i = 0; i < A * C; i++) sc[i] = floorf(sc[i] * 8.0f) / 8.0f;
  tfl_decoder_options opt = tfl_decoder_defaults();
  static const struct { float thr; int max, batch; } sets[] = {
    {0.5f, 10, 1}, {0.5f, 100, 1}, {0.2f, 100, 1}, {0.0f, 7, 1}, {0.85f, 100, 1}, {0.5f, 10, 2}, {0.2f, 100, 3},
  };
  int fail = 0;
  for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
    char what[32];
    snprintf(what, sizeof what, "(%.2f, max %d)", sets[i].thr, sets[i].max);
    opt.threshold = sets[i].thr;
    opt.max_results = sets[i].max;
    fail |= compare_ops("synthetic", "ties", what, fp16, enc, sc, A, C, false, &opt, -1, sets[i].batch, d);
  }
  return fail;
}

/* (3): one broken thing per case; prepare must refuse it, naming `want`. */
static int check_validation(void)
{
  static const struct { const char *what, *want; } cases[] = {
    {"as built", NULL}, {"IoU 1.5", "iou_threshold 1.5"}, {"0 results", "max_detections 0"},
    {"anchors not constant", "not constant"}, {"scores of 1916 anchors", "scores [B,A,C]"},
  };
  tfl_decoder_options opt = tfl_decoder_defaults();
  int fail = 0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tfl_graph *g = heads_graph(1917, 5, &opt, false);
    if (!g) return 1;
    tfl_node *nms = &g->nodes[0], *det = &g->nodes[1];
    if (i == 1) nms->p.anchor_det.iou_threshold = 1.5f;
    if (i == 2) det->p.anchor_det.max_detections = 0;
    if (i == 3) g->tensors[nms->in[2]].is_const = false;
    if (i == 4) g->tensors[nms->in[1]].dims[1] = 1916;
    tfl_diag diag;
    tfl_diag_init(&diag);
    tfl_status st = tfl_graph_prepare(g, &diag);
    bool bad = cases[i].want ? st == TFL_OK || !strstr(diag.error, cases[i].want) : st != TFL_OK;
    printf("%s validation %-22s: %s%s\n", bad ? "FAIL" : "ok  ", cases[i].what, st ? "refused: " : "accepted",
           st ? diag.error : "");
    fail |= bad;
    tfl_graph_free(g);
  }
  return fail;
}

/* (3): the GL checks of both ops at batches: 3 accepted; a batch past GL_NMS_MAX_ITEMS
 * (a workgroup row along z an item) refused naming it; scores of another batch than
 * the box encodings refused naming the shapes. */
static int check_gl_batches(void)
{
  static const struct { const char *what, *want; int batch, scores_batch; } cases[] = {
    {"batch 3", NULL, 3, 3},
    {"batch 65536", "a batch of 65536 (at most 65535", GL_NMS_MAX_ITEMS + 1, GL_NMS_MAX_ITEMS + 1},
    {"scores of batch 2, boxes 1", "heads not shaped [B,A,4], [B,A,C]", 1, 2},
  };
  tfl_decoder_options opt = tfl_decoder_defaults();
  int fail = 0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tfl_graph *g = heads_graph(1917, 5, &opt, false);
    if (!g) return 1;
    const tfl_node *nms = &g->nodes[0];
    g->tensors[nms->in[0]].dims[0] = g->tensors[nms->out[0]].dims[0] = cases[i].batch; /* encodings, selections */
    g->tensors[nms->in[1]].dims[0] = cases[i].scores_batch;
    const int nodes = cases[i].scores_batch == cases[i].batch ? 2 : 1; /* SSD_DETECTION reads no scores */
    for (int k = 0; k < nodes; k++) {
      tfl_diag diag;
      tfl_diag_init(&diag);
      tfl_status st = gl_check_ssd_detection(g, k, &diag);
      bool bad = cases[i].want ? st == TFL_OK || !strstr(diag.error, cases[i].want) : st != TFL_OK;
      printf("%s GL check of %-22s at %-26s: %s%s\n", bad ? "FAIL" : "ok  ", tfl_op_name(g->nodes[k].op),
             cases[i].what, st ? "refused: " : "accepted", st ? diag.error : "");
      fail |= bad;
    }
    tfl_graph_free(g);
  }
  return fail;
}

/* glm_check_model_arg's check: the delegate all models share */
static tfl_delegate *gl_delegate;
static int check_model_arg(const char *path, bool fp16)
{
  return check_model(path, fp16, gl_delegate);
}

int main(int argc, char **argv)
{
  opt = glm_default_options(argc, argv);
  int fails = 0, n = 0;
  tfl_diag diag;
  gl_delegate = glm_gl_delegate(opt.fp16, &diag, "the SSD ops");
  if (!gl_delegate) return 1;
  for (int i = 1; i < argc; i++) {
    if (glm_take_option(argc, argv, &i, &opt)) continue;
    n++;
    if (!strcmp(argv[i], "--synthetic"))
      fails += check_synthetic(opt.fp16, gl_delegate) + check_validation() + check_gl_batches();
    else
      fails += glm_check_model_arg(argv[i], opt.models, opt.fp16, check_model_arg);
  }
  gl_delegate->destroy(gl_delegate);
  printf("%d case(s), %d failure(s)\n", n, fails);
  return fails != 0 || n == 0;
}
