/* tflite-eval-classification - top-k accuracy of an image classifier against ILSVRC-style
 * ground truth, per delegate, in TensorFlow Lite's words ("Top-1 Accuracy: 0.733333").
 * Pictures go through tflitefilter's preprocessing and classification decoder
 * (eval_session.h); with several delegates (--delegate cpu,gl) each is reported, then
 * its difference from the first and how often their best classes agree. */
#include <stdlib.h>
#include <string.h>

#include "eval_session.h"
#include "tool_litert_flags.h"

#define DEFAULT_TOP 10
#define MAX_TOP 100

static const tool_alias litert_flags[] = {
  { "--ground_truth_images_path", TOOL_ALIAS_RENAME, "--images" },
  { "--ground_truth_labels", TOOL_ALIAS_RENAME, "--labels" },
  { "--model_output_labels", TOOL_ALIAS_RENAME, "--model-labels" },
  { "--num_images", TOOL_ALIAS_RENAME, "--limit" },
  { NULL, TOOL_ALIAS_RENAME, NULL },
};

static void usage(FILE *out)
{
  fprintf(out,
          "usage: tflite-eval-classification MODEL --images DIR --labels TRUTH [options]\n"
          "  --images DIR       the pictures (PNG or JPEG)\n"
          "  --labels TRUTH     ground truth: one label per picture, pictures in sorted file-name\n"
          "                     order (TensorFlow Lite's ILSVRC format), or an image,label CSV\n"
          "                     (a file name ending in .csv); a label is a model label's text or\n"
          "                     a class index\n"
          "  --top K            report Top-1 .. Top-K accuracy (default %d)\n"
          "                     (--verbose: the label's rank and the best 3 classes)\n",
          DEFAULT_TOP);
  eval_flags_help(out);
  tool_litert_help(out, litert_flags);
}

typedef struct {
  int counts[MAX_TOP];   /* pictures whose label is among the best k+1 classes */
  int *best;             /* per picture: the best class */
} tally;

static void print_accuracy(FILE *out, const tally *t, int top, int runs)
{
  for (int k = 0; k < top; k++)
    fprintf(out, "Top-%d Accuracy: %g\n", k + 1, runs ? (double)t->counts[k] / runs : 0.0);
}

static void print_difference(FILE *out, const eval_session *a, const tally *ta, const eval_session *b,
                             const tally *tb, int top, int runs)
{
  fprintf(out, "\n== %s - %s ==\n", b->name, a->name);
  for (int k = 0; k < top; k++) {
    double x = runs ? (double)ta->counts[k] / runs : 0, y = runs ? (double)tb->counts[k] / runs : 0;
    fprintf(out, "Top-%d Accuracy: %+g (%s %g, %s %g)\n", k + 1, y - x, a->name, x, b->name, y);
  }
  int same = 0;
  for (int i = 0; i < runs; i++) same += ta->best[i] == tb->best[i];
  fprintf(out, "Top-1 agreement: %g (%d of %d pictures: the same best class)\n",
          runs ? (double)same / runs : 0.0, same, runs);
}

static void print_picture(const truth_entry *e, const char *delegate, int rank, const tfl_results *res,
                          const text_lines *labels)
{
  printf("%s [%s]: \"%s\" ", e->image, delegate, e->label);
  if (rank >= 0) printf("at rank %d; best:", rank + 1);
  else printf("not in the top %d; best:", res->n_classes);
  for (int c = 0; c < res->n_classes && c < 3; c++) {
    int id = res->classes[c].class_id;
    if (labels && id >= 0 && (size_t)id < labels->n) printf("%s %s %.3f", c ? "," : "", labels->line[id], res->classes[c].score);
    else printf("%s %d %.3f", c ? "," : "", id, res->classes[c].score);
  }
  printf("\n");
}

int main(int argc, char **argv)
{
  if (tool_litert_args(&argc, &argv, litert_flags)) return 2;
  eval_flags fl;
  eval_flags_init(&fl);
  const char *truth_path = NULL;
  int top = DEFAULT_TOP;
  for (int i = 1; i < argc; i++) {
    const int r = eval_flags_parse(&fl, argc, argv, &i, usage);
    if (r == TOOL_ARG_TAKEN) continue;
    if (r != TOOL_ARG_OTHER) return r;
    const char *a = argv[i];
    if (!strcmp(a, "--labels")) {
      if (!(truth_path = tool_flag_value(argc, argv, &i))) return 2;
    } else if (!strcmp(a, "--top")) {
      if (!tool_int_flag(argc, argv, &i, 1, &top)) return 2;
      if (top > MAX_TOP) {
        fprintf(stderr, "error: --top is at most %d\n", MAX_TOP);
        return 2;
      }
    } else if (!eval_flags_model(&fl, a, usage)) {
      return 2;
    }
  }
  if (!eval_flags_complete(&fl, truth_path, "--labels TRUTH", usage)) return 2;
  const char *model = fl.model, *images = fl.images;

  int status = 1, n_open = 0;
  eval_session s[EVAL_MAX_DELEGATES];
  tally t[EVAL_MAX_DELEGATES];
  memset(t, 0, sizeof t);
  class_truth truth = { 0 };
  text_lines labels = { 0 };
  tfl_results res = { 0 };
  char err[700];
  tfl_decoder_options opt = tfl_decoder_defaults();
  opt.threshold = 0.0f;  /* every class is ranked */
  opt.max_results = top;
  if (!eval_sessions_open(s, &n_open, &fl, TFL_DECODER_CLASSIFICATION, &opt)) goto out;

  bool have_labels;
  if (!eval_model_labels(&fl, &s[0], &labels, &have_labels)) goto out;
  const int n_outputs = (int)tfl_tensor_count(tfl_interpreter_output(s[0].m.it, 0));
  if (have_labels && labels.n != (size_t)n_outputs) {
    fprintf(stderr, "error: %s has %zu labels but the model scores %d classes\n",
            fl.model_labels ? fl.model_labels : "the model's label file", labels.n, n_outputs);
    goto out;
  }
  if (class_truth_load(truth_path, images, &truth, err, sizeof err) != 0 ||
      class_truth_resolve(&truth, have_labels ? &labels : NULL, n_outputs, err, sizeof err) != 0) {
    fprintf(stderr, "error: %s\n", err);
    goto out;
  }
  const size_t n = fl.limit > 0 && (size_t)fl.limit < truth.n ? (size_t)fl.limit : truth.n;
  for (int k = 0; k < n_open; k++)
    if (!(t[k].best = calloc(n ? n : 1, sizeof(int)))) {
      fprintf(stderr, "error: out of memory\n");
      goto out;
    }

  printf("Model: %s\nGround truth: %s (%s), %zu pictures in %s\n", model, truth_path,
         strstr(truth_path, ".csv") ? "image,label CSV" : "ILSVRC format", n, images);
  for (int k = 0; k < n_open; k++) eval_session_describe(&s[k], stdout);
  fflush(stdout);

  for (size_t i = 0; i < n; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", images, truth.e[i].image);
    eval_picture pic;
    if (!eval_picture_load(&pic, path)) goto out;
    for (int k = 0; k < n_open; k++) {
      if (!eval_session_run(&s[k], &pic, &res)) {
        eval_picture_free(&pic);
        goto out;
      }
      int classes[MAX_TOP];
      for (int c = 0; c < res.n_classes && c < top; c++) classes[c] = res.classes[c].class_id;
      int rank = class_truth_rank(&truth.e[i], classes, res.n_classes < top ? res.n_classes : top);
      for (int r = rank; r >= 0 && r < top; r++) t[k].counts[r]++;
      t[k].best[i] = res.n_classes > 0 ? res.classes[0].class_id : -1;
      if (fl.verbose) print_picture(&truth.e[i], s[k].name, rank, &res, have_labels ? &labels : NULL);
    }
    eval_picture_free(&pic);
  }

  for (int k = 0; k < n_open; k++) {
    printf("\n== %s ==\n", s[k].name);
    eval_session_print_latency(&s[k], stdout);
    print_accuracy(stdout, &t[k], top, (int)n);
    eval_session_print_rate(&s[k], stdout);
  }
  for (int k = 1; k < n_open; k++) print_difference(stdout, &s[0], &t[0], &s[k], &t[k], top, (int)n);
  status = 0;
out:
  tfl_results_clear(&res);
  for (int k = 0; k < n_open; k++) {
    free(t[k].best);
    eval_session_close(&s[k]);
  }
  class_truth_free(&truth);
  text_lines_free(&labels);
  return status;
}
