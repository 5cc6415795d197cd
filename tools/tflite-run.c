/* tflite-run - runs a model once and writes its inputs and outputs in the format of
 * ../shared/oracle's `run` (raw little-endian .bin files + outputs.json), so any
 * output can be compared with the real TensorFlow Lite's. */
#include <stdlib.h>
#include <string.h>

#include "tool_common.h"
#include "tool_litert_flags.h"

#define MAX_INPUTS 16
#define DEFAULT_NORM "-1,1"

static const tool_alias litert_flags[] = {
  { NULL, TOOL_ALIAS_RENAME, NULL },
};

static void usage(FILE *out)
{
  fprintf(out,
          "usage: tflite-run MODEL (--input FILE.bin ... | --gauss SEED | --image PICTURE) --out DIR\n"
          "  --input FILE.bin   raw little-endian data for the next input (repeat per input)\n"
          "  --gauss SEED       the oracle's Gaussian inputs for this seed (no default)\n"
          "  --dist normal|diff with --gauss: N(0,1) or inference-diff's distribution (default normal)\n"
          "  --image PICTURE    a PNG or JPEG, resized bilinearly (half-pixel centers) to input 0\n"
          "  --norm LO,HI       with --image, float inputs get LO..HI (default " DEFAULT_NORM ")\n"
          "  --out DIR          where input_<i>.bin, output_<i>.bin and outputs.json go, created\n"
          "                     with its parents (required)\n"
          "  --reference        single-threaded reference kernels (default off)\n");
  tool_run_flags_help(out);
  fprintf(out, "  --help             this text\n");
  tool_litert_help(out, litert_flags);
}

int main(int argc, char **argv)
{
  if (tool_litert_args(&argc, &argv, litert_flags)) return 2;
  tool_run_flags flags;
  tool_run_flags_init(&flags);
  const char *model = NULL, *out = NULL, *image = NULL, *gauss = NULL, *norm = DEFAULT_NORM;
  const char *inputs[MAX_INPUTS];
  int n_inputs = 0;
  tool_dist dist = TOOL_DIST_NORMAL;
  bool reference = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    int r = tool_run_flags_parse(&flags, argc, argv, &i);
    if (r < 0) return 2;
    if (r > 0) continue;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(a, "--reference") == 0) {
      reference = true;
    } else if (strcmp(a, "--input") == 0 || strcmp(a, "--gauss") == 0 || strcmp(a, "--image") == 0 ||
               strcmp(a, "--norm") == 0 || strcmp(a, "--out") == 0 || strcmp(a, "--dist") == 0) {
      if (!(v = tool_flag_value(argc, argv, &i))) return 2;
      if (strcmp(a, "--input") == 0) {
        if (n_inputs == MAX_INPUTS) {
          fprintf(stderr, "error: at most %d --input\n", MAX_INPUTS);
          return 2;
        }
        inputs[n_inputs++] = v;
      } else if (strcmp(a, "--gauss") == 0) gauss = v;
      else if (strcmp(a, "--image") == 0) image = v;
      else if (strcmp(a, "--norm") == 0) norm = v;
      else if (strcmp(a, "--out") == 0) out = v;
      else if (strcmp(v, "normal") == 0) dist = TOOL_DIST_NORMAL;
      else if (strcmp(v, "diff") == 0) dist = TOOL_DIST_DIFF;
      else {
        fprintf(stderr, "error: --dist is normal or diff, not '%s'\n", v);
        return 2;
      }
    } else if (a[0] == '-' || model) {
      fprintf(stderr, "error: unexpected argument '%s'\n", a);
      usage(stderr);
      return 2;
    } else {
      model = a;
    }
  }
  if (!model || !out || (n_inputs > 0) + (gauss != NULL) + (image != NULL) != 1) {
    fprintf(stderr, "error: needs MODEL, --out DIR and one of --input, --gauss, --image\n");
    usage(stderr);
    return 2;
  }
  int seed = 0;
  double lo = -1, hi = 1;
  if (gauss && !tool_parse_int("--gauss", gauss, 0, &seed)) return 2;
  if (image && !tool_parse_norm(norm, &lo, &hi)) return 2;

  tool_model m;
  if (!tool_model_open(&m, model, &flags, reference)) return 1;
  bool ok = true;
  char source[4096];
  if (n_inputs) {
    if (n_inputs != tfl_interpreter_input_count(m.it)) {
      fprintf(stderr, "error: model has %d inputs, got %d --input\n",
              tfl_interpreter_input_count(m.it), n_inputs);
      ok = false;
    }
    int len = snprintf(source, sizeof source, "{\"files\": [");
    for (int i = 0; ok && i < n_inputs; i++) {
      ok = tool_fill_file(m.it, i, inputs[i]);
      len += snprintf(source + len, sizeof source - (size_t)len, "%s\"%s\"", i ? ", " : "", inputs[i]);
      if (len >= (int)sizeof source) len = (int)sizeof source - 1;
    }
    snprintf(source + len, sizeof source - (size_t)len, "]}");
  } else if (gauss) {
    ok = tool_fill_gauss(m.it, (uint32_t)seed, dist);
    snprintf(source, sizeof source, "{\"gauss\": %d, \"dist\": \"%s\"}", seed,
             dist == TOOL_DIST_DIFF ? "diff" : "normal");
  } else {
    ok = tool_fill_image(m.it, image, lo, hi);
    snprintf(source, sizeof source,
             "{\"image\": \"%s\", \"norm\": \"%s\", \"resize\": \"bilinear, half-pixel centers\"}",
             image, norm);
  }
  /* The planner may give an input's bytes to a later tensor once the input is consumed:
   * input_<i>.bin is written before the run, and a copy kept for outputs.json's stats. */
  const int n_in = tfl_interpreter_input_count(m.it);
  void *saved[MAX_INPUTS] = {0};
  for (int i = 0; ok && i < n_in && i < MAX_INPUTS; i++) {
    const tfl_tensor *t = tfl_interpreter_input(m.it, i);
    saved[i] = malloc(t->bytes ? t->bytes : 1);
    if (!saved[i]) {
      fprintf(stderr, "error: out of memory copying input %d\n", i);
      ok = false;
    } else if (t->bytes) {
      memcpy(saved[i], t->data, t->bytes);
    }
  }
  if (ok && n_in > MAX_INPUTS) {
    fprintf(stderr, "error: model has %d inputs, at most %d supported\n", n_in, MAX_INPUTS);
    ok = false;
  }
  if (ok) ok = tool_write_inputs(m.it, out);
  if (ok) {
    tfl_status s = tfl_interpreter_invoke(m.it);
    if (s != TFL_OK) {
      fprintf(stderr, "error: running %s: %s\n", model, m.diag.error);
      ok = false;
    }
  }
  if (ok) ok = tool_write_outputs(m.it, model, out, source, saved);
  for (int i = 0; i < n_in && i < MAX_INPUTS; i++) free(saved[i]);
  if (ok) {
    for (int i = 0; i < tfl_interpreter_output_count(m.it); i++) {
      const tfl_tensor *t = tfl_interpreter_output(m.it, i);
      printf("output %d %s %s [", i, t->name ? t->name : "", tool_type_name(t->type));
      for (int d = 0; d < t->ndim; d++) printf("%s%d", d ? "," : "", (int)t->dims[d]);
      printf("] -> %s/output_%d.bin\n", out, i);
    }
  }
  tool_model_close(&m);
  return ok ? 0 : 1;
}
