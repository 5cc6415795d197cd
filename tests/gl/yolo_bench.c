/* yolo_bench.c - per-frame time of the YOLO post-processing on the CPU, for docs/yolo.md.
 * Not a test (the GPU's side: gl_bench --postprocess --dispatches, the YoloDetection
 * dispatch and the bytes read back).
 *
 *   yolo_bench [--runs N] [--threshold T] PICTURE.rgb W H MODEL.tflite...
 *
 * Per model: the model run once on the CPU on PICTURE (raw RGB, nearest-resized to the
 * input, 0..1) for its head; then, median of N:
 *   decoder:  tfl_decoder_run on the raw head (what the CPU path did before the op);
 *   op:       the YOLO_DETECTION CPU kernel (delegates/cpu/kernels/yolo_detection.c) on
 *             that head, then the decoder on its rows (what the CPU path does now);
 * and the bytes each path reads (the head against the rows). Threshold 0.25, IoU 0.7
 * (Ultralytics' predict), max 100.
 * Last line per model: YOLO name boxes values classes decoder_ms op_ms rows_ms head_bytes rows_bytes kept
 * Models the op does not take (segmentation: the prototypes; oriented boxes; classifiers)
 * get the decoder alone, on all their outputs, the kind tfl_decoder_pick gives:
 *   DECODER name kind decoder_ms results */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decoders/tfl_decoder.h"
#include "delegates/cpu/cpu_delegate.h"
#include "delegates/cpu/cpu_kernel.h"
#include "runtime/tfl_interpreter.h"
#include "runtime/tfl_loader.h"
#include "runtime/tfl_passes.h"

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  return v[n / 2];
}

/* The model on the CPU on the picture; its graph (NHWC input) and interpreter in *g, *it. */
static int run_model(const char *path, const unsigned char *rgb, int pw, int ph, tfl_graph **g, tfl_interpreter **it,
                     tfl_delegate **cpu, tfl_diag *diag)
{
  if (tfl_load_file(path, g, diag)) return 1;
  tfl_pass_nhwc_input(*g, 0);
  *cpu = cpu_delegate_create(&(cpu_delegate_options){ .threads = 1, .use_xnnpack = true, .diag = diag });
  tfl_interp_options o = tfl_interp_defaults();
  o.delegate = NULL;
  o.fallback = *cpu;
  o.diag = diag;
  if (!*cpu || tfl_interpreter_create(*g, &o, it)) return 1;
  tfl_tensor *in = tfl_interpreter_input(*it, 0);
  /* NHWC, or NCHW where the model reads it as such (no leading TRANSPOSE to fold) */
  const bool nchw = in->ndim == 4 && in->dims[1] == 3 && in->dims[3] != 3;
  if (in->type != TFL_TYPE_FLOAT32 || in->ndim != 4 || (!nchw && in->dims[3] != 3)) {
    snprintf(diag->error, sizeof diag->error, "input not float32 RGB");
    return 1;
  }
  const int h = in->dims[nchw ? 2 : 1], w = in->dims[nchw ? 3 : 2];
  float *x = in->data;
  for (int y = 0; y < h; y++)
    for (int c = 0; c < w; c++)
      for (int k = 0; k < 3; k++)
        x[nchw ? ((size_t)k * h + y) * w + c : ((size_t)y * w + c) * 3 + k] =
          rgb[(((size_t)(y * ph / h)) * pw + (size_t)(c * pw / w)) * 3 + k] / 255.0f;
  return tfl_interpreter_invoke(*it) != TFL_OK;
}

static int bench(const char *path, const unsigned char *rgb, int pw, int ph, int runs, const tfl_decoder_options *opt)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_graph *g = NULL, *ga = NULL;
  tfl_interpreter *it = NULL;
  tfl_delegate *cpu = NULL;
  tfl_decoder *dec = NULL, *dec_rows = NULL;
  cpu_kernel const *k = cpu_reference_kernel(TFL_OP_YOLO_DETECTION);
  void *state = NULL;
  double *t[3] = { malloc(sizeof(double) * runs), malloc(sizeof(double) * runs), malloc(sizeof(double) * runs) };
  int fail = 1, kept = 0;
  bool appended = false;
  if (run_model(path, rgb, pw, ph, &g, &it, &cpu, &diag)) goto out;
  const tfl_tensor *head = tfl_interpreter_output(it, 0);
  if (tfl_decoder_create(TFL_DECODER_DETECTION, g, opt, &dec, &diag)) goto out;
  const tfl_transform tr = { head->dims[1], head->dims[2], 640.0f, 480.0f, 1.0f, 1.0f, 0.0f, 0.0f, 0.0f, 0.0f };
  for (int i = 0; i < runs; i++) {
    tfl_results r = { 0 };
    const double t0 = now_ms();
    if (tfl_decoder_run(dec, &head, 1, &tr, &r, &diag)) goto out;
    t[0][i] = now_ms() - t0;
    kept = r.n_boxes;
    tfl_results_clear(&r);
  }
  /* the appended op's node on a copy of the graph, its input the head computed above */
  if (tfl_load_file(path, &ga, &diag)) goto out;
  tfl_pass_nhwc_input(ga, 0);
  if (tfl_decoder_append_postprocess(TFL_DECODER_DETECTION, ga, opt, &appended, &diag) || !appended) {
    if (!appended) snprintf(diag.error, sizeof diag.error, "no YOLO_DETECTION appended");
    goto out;
  }
  const tfl_node *n = &ga->nodes[ga->n_nodes - 1];
  tfl_tensor *hin = &ga->tensors[n->in[0]], *rows = &ga->tensors[n->out[0]];
  if (hin->bytes != head->bytes || tfl_graph_prepare(ga, &diag)) goto out;
  hin->data = head->data;
  rows->data = calloc(1, rows->bytes);
  if (!rows->data || k->prepare(ga, n, &state, &diag) ||
      tfl_decoder_create(TFL_DECODER_DETECTION, ga, opt, &dec_rows, &diag))
    goto out;
  const tfl_tensor *rt = rows;
  for (int i = 0; i < runs; i++) {
    tfl_results r = { 0 };
    const double t0 = now_ms();
    if (k->eval(ga, n, state, NULL, &diag)) goto out;
    const double t1 = now_ms();
    if (tfl_decoder_run(dec_rows, &rt, 1, &tr, &r, &diag)) goto out;
    t[1][i] = t1 - t0;
    t[2][i] = now_ms() - t1;
    if (r.n_boxes != kept) {
      snprintf(diag.error, sizeof diag.error, "the op kept %d boxes, the decoder %d", r.n_boxes, kept);
      tfl_results_clear(&r);
      goto out;
    }
    tfl_results_clear(&r);
  }
  const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  printf("YOLO %s %d %d %d %.4f %.4f %.4f %zu %zu %d\n", name, n->p.yolo_det.values_first ? hin->dims[2] : hin->dims[1],
         n->p.yolo_det.values_first ? hin->dims[1] : hin->dims[2], n->p.yolo_det.n_classes, median(t[0], runs),
         median(t[1], runs), median(t[2], runs), head->bytes, rows->bytes, kept);
  hin->data = NULL;
  fail = 0;
out:
  if (fail) printf("FAIL %s: %s\n", path, diag.error);
  if (state) k->release(state);
  if (ga && ga->n_nodes > 0) {
    tfl_tensor *rows = &ga->tensors[ga->nodes[ga->n_nodes - 1].out[0]];
    if (ga->nodes[ga->n_nodes - 1].op == TFL_OP_YOLO_DETECTION) {
      free(rows->data);
      rows->data = NULL;
      ga->tensors[ga->nodes[ga->n_nodes - 1].in[0]].data = NULL;
    }
  }
  tfl_decoder_free(dec);
  tfl_decoder_free(dec_rows);
  tfl_interpreter_free(it);
  if (cpu) cpu->destroy(cpu);
  tfl_graph_free(g);
  tfl_graph_free(ga);
  for (int i = 0; i < 3; i++) free(t[i]);
  return fail;
}

/* The decoder tflitefilter would pick, alone, on every output of the model (the tasks the
 * YOLO_DETECTION op does not take). */
static int bench_decoder(const char *path, const unsigned char *rgb, int pw, int ph, int runs,
                         const tfl_decoder_options *opt)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_graph *g = NULL;
  tfl_interpreter *it = NULL;
  tfl_delegate *cpu = NULL;
  tfl_decoder *dec = NULL;
  double *t = malloc(sizeof(double) * runs);
  int fail = 1, found = 0;
  char why[256];
  if (!t || run_model(path, rgb, pw, ph, &g, &it, &cpu, &diag)) goto out;
  const tfl_decoder_kind kind = tfl_decoder_pick(g, why, sizeof why);
  if (tfl_decoder_create(kind, g, opt, &dec, &diag)) goto out;
  const int n_out = tfl_interpreter_output_count(it);
  const tfl_tensor *outs[8];
  if (n_out < 1 || n_out > 8) {
    snprintf(diag.error, sizeof diag.error, "%d outputs", n_out);
    goto out;
  }
  for (int o = 0; o < n_out; o++) outs[o] = tfl_interpreter_output(it, o);
  const tfl_tensor *in = tfl_interpreter_input(it, 0);
  const tfl_transform tr = { in->dims[2], in->dims[1], 640.0f, 480.0f, 1.0f, 1.0f, 0.0f, 0.0f, 0.0f, 0.0f };
  for (int i = 0; i < runs; i++) {
    tfl_results r = { 0 };
    const double t0 = now_ms();
    if (tfl_decoder_run(dec, outs, n_out, &tr, &r, &diag)) goto out;
    t[i] = now_ms() - t0;
    found = r.n_boxes + r.n_classes + r.n_poses;
    tfl_results_clear(&r);
  }
  const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  printf("DECODER %s %s %.4f %d\n", name, tfl_decoder_kind_name(kind), median(t, runs), found);
  fail = 0;
out:
  if (fail) printf("FAIL %s: %s\n", path, diag.error);
  tfl_decoder_free(dec);
  tfl_interpreter_free(it);
  if (cpu) cpu->destroy(cpu);
  tfl_graph_free(g);
  free(t);
  return fail;
}

int main(int argc, char **argv)
{
  int runs = 200, i = 1;
  tfl_decoder_options opt = tfl_decoder_defaults();
  opt.threshold = 0.25f;
  opt.iou_threshold = 0.7f;
  opt.max_results = 100;
  for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
    if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--threshold") && i + 1 < argc) opt.threshold = (float)atof(argv[++i]);
  }
  if (argc - i < 4 || runs < 1) {
    fprintf(stderr, "usage: yolo_bench [--runs N] [--threshold T] PICTURE.rgb W H MODEL.tflite...\n");
    return 2;
  }
  const int pw = atoi(argv[i + 1]), ph = atoi(argv[i + 2]);
  FILE *f = fopen(argv[i], "rb");
  unsigned char *rgb = malloc((size_t)pw * ph * 3);
  if (!f || !rgb || pw < 1 || ph < 1 || fread(rgb, 3, (size_t)pw * ph, f) != (size_t)pw * ph) {
    fprintf(stderr, "cannot read %dx%d RGB from %s\n", pw, ph, argv[i]);
    return 1;
  }
  fclose(f);
  printf("# YOLO name boxes values classes decoder_ms op_ms rows_ms head_bytes rows_bytes kept (median of %d)\n", runs);
  int fails = 0;
  for (int m = i + 3; m < argc; m++) {
    /* the op's models; the others (its FAIL line says why) by their decoder alone */
    const int failed = bench(argv[m], rgb, pw, ph, runs, &opt);
    fails += failed && bench_decoder(argv[m], rgb, pw, ph, runs, &opt);
  }
  free(rgb);
  return fails != 0;
}
