/* eval_session.c - see eval_session.h */
#include "eval_session.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "image_file.h"
#include "runtime/tfl_passes.h"

void eval_flags_init(eval_flags *f)
{
  memset(f, 0, sizeof *f);
  tool_run_flags_init(&f->run);
  f->delegates[0] = TOOL_DEFAULT_DELEGATE;
  f->n_delegates = 1;
  f->fit = FIT_STRETCH;
  f->mean = f->std = -1.0f;
}

/* "cpu", "gl" or "cpu,gl": each name once. */
static bool parse_delegates(eval_flags *f, char *list)
{
  f->n_delegates = 0;
  for (char *save = NULL, *d = strtok_r(list, ",", &save); d; d = strtok_r(NULL, ",", &save)) {
    if (strcmp(d, "cpu") != 0 && strcmp(d, "gl") != 0) {
      fprintf(stderr, "error: --delegate takes cpu, gl or a list such as cpu,gl; not '%s'\n", d);
      return false;
    }
    for (int k = 0; k < f->n_delegates; k++)
      if (!strcmp(f->delegates[k], d)) {
        fprintf(stderr, "error: --delegate names '%s' twice\n", d);
        return false;
      }
    if (f->n_delegates == EVAL_MAX_DELEGATES) return false;
    f->delegates[f->n_delegates++] = d;
  }
  if (f->n_delegates == 0) fprintf(stderr, "error: --delegate needs a delegate name\n");
  return f->n_delegates > 0;
}

static bool parse_float(const char *flag, const char *s, float *out)
{
  char *end;
  double v = strtod(s, &end);
  if (end == s || *end != '\0' || !isfinite(v)) {
    fprintf(stderr, "error: %s takes a number, not '%s'\n", flag, s);
    return false;
  }
  *out = (float)v;
  return true;
}

int eval_flags_parse(eval_flags *f, int argc, char **argv, int *i, void (*usage)(FILE *))
{
  const char *a = argv[*i];
  if (!strcmp(a, "--delegate")) {
    const char *v = tool_flag_value(argc, argv, i);
    return v && parse_delegates(f, argv[*i]) ? TOOL_ARG_TAKEN : 2;
  }
  if (!strcmp(a, "--fit")) {
    const char *v = tool_flag_value(argc, argv, i);
    if (!v) return 2;
    if (!strcmp(v, "stretch")) f->fit = FIT_STRETCH;
    else if (!strcmp(v, "letterbox")) f->fit = FIT_LETTERBOX;
    else if (!strcmp(v, "crop")) f->fit = FIT_CROP;
    else if (!strcmp(v, "auto")) f->fit = FIT_AUTO;
    else {
      fprintf(stderr, "error: --fit is stretch, letterbox, crop or auto, not '%s'\n", v);
      return 2;
    }
    return TOOL_ARG_TAKEN;
  }
  if (!strcmp(a, "--input-mean") || !strcmp(a, "--input-std")) {
    const char *v = tool_flag_value(argc, argv, i);
    float x;
    if (!v || !parse_float(a, v, &x)) return 2;
    if (!strcmp(a, "--input-std") && !(x > 0)) {
      fprintf(stderr, "error: --input-std must be > 0\n");
      return 2;
    }
    *(!strcmp(a, "--input-mean") ? &f->mean : &f->std) = x;
    return TOOL_ARG_TAKEN;
  }
  if (!strcmp(a, "--model-labels")) {
    f->model_labels = tool_flag_value(argc, argv, i);
    return f->model_labels ? TOOL_ARG_TAKEN : 2;
  }
  if (!strcmp(a, "--limit")) return tool_int_flag(argc, argv, i, 1, &f->limit) ? TOOL_ARG_TAKEN : 2;
  if (!strcmp(a, "--images")) return (f->images = tool_flag_value(argc, argv, i)) ? TOOL_ARG_TAKEN : 2;
  if (!strcmp(a, "--verbose")) {
    f->verbose = true;
    return TOOL_ARG_TAKEN;
  }
  return tool_common_arg(&f->run, argc, argv, i, usage);
}

bool eval_flags_model(eval_flags *f, const char *arg, void (*usage)(FILE *))
{
  return tool_model_arg(arg, &f->model, usage);
}

bool eval_flags_complete(const eval_flags *f, const void *need, const char *need_name, void (*usage)(FILE *))
{
  if (f->model && f->images && need) return true;
  fprintf(stderr, "error: needs MODEL, --images DIR and %s\n", need_name);
  usage(stderr);
  return false;
}

void eval_flags_help(FILE *out)
{
  fprintf(out, "  --delegate LIST    cpu, gl, or several to compare in one run, e.g. cpu,gl (default %s)\n",
          TOOL_DEFAULT_DELEGATE);
  tool_run_options_help(out);
  fprintf(out,
          "  --model-labels F   the model's labels, line N = class N (default: the model's metadata)\n"
          "  --fit MODE         stretch, letterbox, crop or auto (the model family's: YOLO's grey\n"
          "                     letterbox), as tflitefilter's fit (default stretch)\n"
          "  --input-mean M     float inputs get (pixel - M) / S (default: the model's metadata,\n"
          "  --input-std S      else its family's range, as tflitefilter)\n"
          "  --limit N          only the first N pictures (default: all)\n"
          "  --verbose          a line per picture and delegate (default off)\n"
          "  --help             this text\n");
}

bool eval_picture_load(eval_picture *p, const char *path)
{
  char err[600];
  double t0 = tool_now_ms();
  p->rgb = image_file_load_rgb(path, &p->width, &p->height, err, sizeof err);
  p->decode_ms = tool_now_ms() - t0;
  if (!p->rgb) fprintf(stderr, "error: %s\n", err);
  return p->rgb != NULL;
}

void eval_picture_free(eval_picture *p)
{
  free(p->rgb);
  p->rgb = NULL;
}

static void timer_add(eval_timer *t, double ms)
{
  t->n += 1;
  double d = ms - t->mean;
  t->mean += d / t->n;
  t->m2 += d * (ms - t->mean);
}

bool eval_session_open(eval_session *s, const char *model, const eval_flags *f, int k,
                       tfl_decoder_kind kind, const tfl_decoder_options *opt)
{
  memset(s, 0, sizeof *s);
  tool_run_flags run = f->run;
  run.delegate = f->delegates[k];
  const bool gl_fp32 = run.precision && strcmp(run.precision, "fp32") == 0;
  const bool cpu_bf16 = run.precision && strcmp(run.precision, "bf16") == 0;
  snprintf(s->name, sizeof s->name, "%s%s", run.delegate,
           strcmp(run.delegate, "gl") ? (cpu_bf16 ? " (bf16)" : "") : gl_fp32 ? " (fp32)" : " (fp16)");
  s->fit = f->fit;
  if (!tool_model_load(&s->m, model, &run)) return false;
  /* a PyTorch export's NCHW input written NHWC, as tflitefilter does */
  tfl_pass_nhwc_input(s->m.graph, 0);
  const tfl_graph *g = s->m.graph;
  const tfl_tensor *in = g->n_inputs == 1 ? &g->tensors[g->inputs[0]] : NULL;
  if (!in || in->ndim != 4 || in->dims[0] != 1 || (in->dims[3] != 3 && in->dims[3] != 4) ||
      (in->type != TFL_TYPE_FLOAT32 && in->type != TFL_TYPE_UINT8 && in->type != TFL_TYPE_INT8)) {
    fprintf(stderr, "error: %s does not take one picture: its input must be [1, height, width, 3] "
                    "float32, uint8 or int8\n", model);
    tool_model_close(&s->m);
    return false;
  }
  /* the element's order: decoder and normalization from the untouched graph */
  if (tfl_decoder_create(kind, g, opt, &s->decoder, &s->m.diag) != TFL_OK) {
    fprintf(stderr, "error: %s does not fit the %s decoder: %s\n", model, tfl_decoder_kind_name(kind),
            s->m.diag.error);
    tool_model_close(&s->m);
    return false;
  }
  bool from_meta;
  s->norm = preprocess_model_norm(g, kind, &from_meta);
  s->norm_source = from_meta ? "model metadata" : "model family";
  if (s->fit == FIT_AUTO) s->fit = preprocess_model_fit(g, kind);
  s->norm.pad = preprocess_fit_pad(s->fit);
  for (int c = 0; c < 3; c++) {
    if (f->mean >= 0) s->norm.mean[c] = f->mean;
    if (f->std > 0) s->norm.std[c] = f->std;
  }
  if (f->mean >= 0 || f->std > 0) s->norm_source = "--input-mean/--input-std";
  if (!tool_model_prepare(&s->m, model, &run, false)) {
    tfl_decoder_free(s->decoder);
    s->decoder = NULL;
    return false;
  }
  return true;
}

bool eval_sessions_open(eval_session *s, int *n_open, const eval_flags *f, tfl_decoder_kind kind,
                        const tfl_decoder_options *opt)
{
  for (*n_open = 0; *n_open < f->n_delegates; ++*n_open)
    if (!eval_session_open(&s[*n_open], f->model, f, *n_open, kind, opt)) return false;
  return true;
}

void eval_session_close(eval_session *s)
{
  if (s->decoder) tfl_decoder_free(s->decoder);
  tool_model_close(&s->m);
  memset(s, 0, sizeof *s);
}

bool eval_session_run(eval_session *s, const eval_picture *pic, tfl_results *res)
{
  tfl_results_clear(res);
  tfl_tensor *in = tfl_interpreter_input(s->m.it, 0);
  double t0 = tool_now_ms();
  tfl_transform tr = preprocess_transform(pic->width, pic->height, in->dims[2], in->dims[1], s->fit);
  pix_frame fr = { PIX_RGB, pic->width, pic->height, { pic->rgb }, { pic->width * 3 } };
  if (preprocess_frame(&fr, &tr, &s->norm, in) != 0) {
    fprintf(stderr, "error: the model's input cannot take a picture\n");
    return false;
  }
  double t1 = tool_now_ms();
  if (tfl_interpreter_invoke(s->m.it) != TFL_OK) {
    fprintf(stderr, "error: %s: inference failed: %s\n", s->name, s->m.diag.error);
    return false;
  }
  double t2 = tool_now_ms();
  int n = tfl_interpreter_output_count(s->m.it);
  const tfl_tensor *outs[16];
  if (n > 16) n = 16;
  for (int i = 0; i < n; i++) outs[i] = tfl_interpreter_output(s->m.it, i);
  if (tfl_decoder_run(s->decoder, outs, n, &tr, res, &s->m.diag) != TFL_OK) {
    fprintf(stderr, "error: %s: decoding the outputs failed: %s\n", s->name, s->m.diag.error);
    return false;
  }
  double t3 = tool_now_ms();
  timer_add(&s->pre, pic->decode_ms + (t1 - t0));
  timer_add(&s->infer, t2 - t1);
  s->total_ms += pic->decode_ms + (t3 - t0);
  s->runs++;
  return true;
}

void eval_session_describe(const eval_session *s, FILE *out)
{
  const tfl_interpreter *it = s->m.it;
  const tfl_graph *g = tfl_interpreter_graph(it);
  int on_cpu = 0, total = 0;
  char cpu_ops[160] = "";
  for (int i = 0; i < g->n_nodes; i++) {
    const char *d = tfl_interpreter_node_delegate(it, i);
    if (!d) continue;
    total++;
    if (strcmp(d, "cpu") != 0) continue;
    on_cpu++;
    const char *op = tfl_op_name(g->nodes[i].op);
    if (s->m.delegate && !strstr(cpu_ops, op) &&
        strlen(cpu_ops) + strlen(op) + 2 < sizeof cpu_ops)
      snprintf(cpu_ops + strlen(cpu_ops), sizeof cpu_ops - strlen(cpu_ops), "%s%s", cpu_ops[0] ? "," : "", op);
  }
  const tfl_tensor *in = tfl_interpreter_input((tfl_interpreter *)it, 0);
  static const char *fits[] = { "stretch", "letterbox", "crop", "letterbox (grey)", "auto" };
  fprintf(out, "Delegate %s: %d of %d nodes on %s%s%s%s; input [1,%d,%d,%d] %s", s->name,
          s->m.delegate ? total - on_cpu : total, total, s->m.delegate ? "GL" : "the CPU",
          on_cpu && s->m.delegate ? " (CPU: " : "", on_cpu && s->m.delegate ? cpu_ops : "",
          on_cpu && s->m.delegate ? ")" : "", (int)in->dims[1], (int)in->dims[2], (int)in->dims[3],
          tool_type_name(in->type));
  if (in->type == TFL_TYPE_FLOAT32)
    fprintf(out, ", (pixel - %g) / %g (%s)", s->norm.mean[0], s->norm.std[0], s->norm_source);
  else
    fprintf(out, ", pixel values");
  fprintf(out, ", fit %s\n", fits[s->fit]);
}

static void print_timer(FILE *out, const char *what, const eval_timer *t)
{
  double sd = t->n > 1 ? sqrt(t->m2 / t->n) : 0.0;
  fprintf(out, "%s latency: avg=%.1f(us), std_dev=%.0f(us)\n", what, t->mean * 1000.0, sd * 1000.0);
}

void eval_session_print_latency(const eval_session *s, FILE *out)
{
  fprintf(out, "Num evaluation runs: %d\n", s->runs);
  print_timer(out, "Preprocessing", &s->pre);
  print_timer(out, "Inference", &s->infer);
}

void eval_session_print_rate(const eval_session *s, FILE *out)
{
  fprintf(out, "Images per second: %.3g\n", s->total_ms > 0 ? s->runs * 1000.0 / s->total_ms : 0.0);
}

bool eval_model_labels(const eval_flags *f, const eval_session *s, text_lines *out, bool *have)
{
  char err[600];
  *have = false;
  out->line = NULL;
  out->n = 0;
  if (f->model_labels) {
    if (text_lines_from_file(f->model_labels, out, err, sizeof err) != 0) {
      fprintf(stderr, "error: --model-labels %s\n", err);
      return false;
    }
  } else {
    const char *text = tfl_interpreter_graph(s->m.it)->meta.labels;
    if (!text) return true;
    if (text_lines_from_text(text, out, err, sizeof err) != 0) {
      fprintf(stderr, "error: the model's label file: %s\n", err);
      return false;
    }
  }
  *have = true;
  return true;
}
