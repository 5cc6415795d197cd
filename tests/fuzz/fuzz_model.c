/* fuzz_model.c - see fuzz_model.h. */
#include "fuzz_model.h"

#include <stdio.h>
#include <string.h>

#include "decoders/tfl_decoder.h"
#include "delegates/cpu/cpu_delegate.h"
#include "runtime/tfl_interpreter.h"
#include "runtime/tfl_loader.h"
#include "runtime/tfl_passes.h"

static void quiet(tfl_log_level level, const char *msg, void *user)
{
  (void)level;
  (void)msg;
  (void)user;
}

static void diag_quiet(tfl_diag *d)
{
  tfl_diag_init(d);
  d->sink = quiet;
}

static tfl_status result(tfl_status st, const tfl_diag *d, char *msg, size_t msg_len)
{
  if (msg && msg_len) snprintf(msg, msg_len, "%s", st == TFL_OK ? "" : d->error);
  return st;
}

/* Touches everything a loaded graph points to: ASan reports a pointer outside its block. */
static void walk(const tfl_graph *g)
{
  volatile uint8_t sink = 0;
  for (int i = 0; i < g->n_tensors; i++) {
    const tfl_tensor *t = &g->tensors[i];
    if (t->data && t->bytes && !t->sparsity) {
      sink ^= ((const uint8_t *)t->data)[0];
      sink ^= ((const uint8_t *)t->data)[t->bytes - 1];
    }
    if (t->name) sink ^= (uint8_t)strlen(t->name);
    for (int q = 0; q < t->q.n; q++) {
      uint32_t bits;
      memcpy(&bits, &t->q.scale[q], sizeof bits); /* any float, NaN included */
      sink ^= (uint8_t)t->q.zero_point[q] ^ (uint8_t)bits;
    }
  }
  for (int i = 0; i < g->n_nodes; i++)
    for (int k = 0; k < g->nodes[i].n_in; k++) sink ^= (uint8_t)g->nodes[i].in[k];
  if (g->meta.labels) sink ^= (uint8_t)strlen(g->meta.labels);
  if (g->meta.name) sink ^= (uint8_t)strlen(g->meta.name);
  if (g->description) sink ^= (uint8_t)strlen(g->description);
  (void)sink;
}

tfl_status fuzz_load(const uint8_t *data, size_t size, char *msg, size_t msg_len)
{
  tfl_diag d;
  diag_quiet(&d);
  tfl_graph *g = NULL;
  tfl_status st = tfl_load_memory(data, size, &g, &d);
  if (st == TFL_OK) walk(g);
  tfl_graph_free(g);
  return result(st, &d, msg, msg_len);
}

/* ---- limits: memory and work a fuzzing run may spend ------------------------------- */

static double count_of(const tfl_graph *g, int t)
{
  return (t >= 0 && t < g->n_tensors) ? (double)tfl_tensor_count(&g->tensors[t]) : 0.0;
}

/* A generous upper bound of one node's work: every operand touched once, plus, for ops
 * with a weight tensor (input 1), per output element the weights of one output channel;
 * window ops their window; the two post-processing ops (NMS) the square of their input. */
static double node_work(const tfl_graph *g, const tfl_node *n)
{
  double in = 0, out = 0;
  for (int k = 0; k < n->n_in; k++) in += count_of(g, n->in[k]);
  for (int k = 0; k < n->n_out; k++) out += count_of(g, n->out[k]);
  double w = in + out;
  const tfl_tensor *y = n->n_out > 0 && n->out[0] >= 0 ? &g->tensors[n->out[0]] : NULL;
  double ch = y && y->ndim > 0 && y->dims[y->ndim - 1] > 0 ? y->dims[y->ndim - 1] : 1;
  switch (n->op) {
  case TFL_OP_CONV_2D:
  case TFL_OP_DEPTHWISE_CONV_2D:
  case TFL_OP_FULLY_CONNECTED:
  case TFL_OP_TRANSPOSE_CONV:
  case TFL_OP_CONV2D_TRANSPOSE_BIAS:
    w += out * count_of(g, n->n_in > 1 ? n->in[1] : -1) / ch;
    /* the transposed convolutions scatter each input pixel over the whole filter */
    if (n->op == TFL_OP_TRANSPOSE_CONV || n->op == TFL_OP_CONV2D_TRANSPOSE_BIAS)
      w += in * count_of(g, n->n_in > 1 ? n->in[1] : -1);
    break;
  case TFL_OP_LSTM:
    w += in * in;
    break;
  case TFL_OP_AVERAGE_POOL_2D:
  case TFL_OP_MAX_POOL_2D:
    w += out * (double)n->p.pool.filter_h * (double)n->p.pool.filter_w;
    break;
  case TFL_OP_DETECTION_POSTPROCESS:
  case TFL_OP_POSENET_DECODER:
  case TFL_OP_ANCHOR_DETECTION:
  case TFL_OP_SSD_CLASS_NMS:
  case TFL_OP_SSD_DETECTION:
  case TFL_OP_LANDMARK_DECODE:
  case TFL_OP_YOLO_DETECTION:
    w += in * in;
    break;
  default: break;
  }
  return w;
}

/* Declared (or inferred) tensor sizes and node work against the fuzzing limits. */
static tfl_status within_limits(const tfl_graph *g, size_t max_bytes, double max_work, tfl_diag *d)
{
  size_t bytes = 0;
  double work = 0;
  /* the main graph and the subgraphs control-flow nodes run (each of those at most once per
   * run, but a WHILE as often as its model says: not bounded, so not run here) */
  for (int k = 0; k < (g->n_subgraphs > 1 ? g->n_subgraphs : 1); k++) {
    const tfl_graph *s = k ? g->subgraphs[k] : g;
    for (int t = 0; t < s->n_tensors; t++) {
      bytes += s->tensors[t].bytes;
      if (s->tensors[t].bytes > max_bytes || bytes > max_bytes)
        return tfl_fail(d, TFL_ERR_ARG, "fuzz limit: tensors need more than %zu bytes", max_bytes);
    }
    for (int i = 0; i < s->n_nodes; i++) {
      if (s->nodes[i].dead) continue;
      if (s->nodes[i].op == TFL_OP_WHILE)
        return tfl_fail(d, TFL_ERR_ARG, "fuzz limit: a WHILE loop runs as long as its model says");
      if (k) work += node_work(s, &s->nodes[i]);
    }
  }
  for (int i = 0; i < g->n_nodes; i++)
    if (!g->nodes[i].dead) work += node_work(g, &g->nodes[i]);
  /* the decoders: top-k passes over scores, masks, keypoints */
  for (int i = 0; i < g->n_outputs; i++) work += 16.0 * count_of(g, g->outputs[i]);
  if (work > max_work) return tfl_fail(d, TFL_ERR_ARG, "fuzz limit: about %.3g steps of work", work);
  return TFL_OK;
}

/* ---- one run ----------------------------------------------------------------------- */

static uint32_t hash_bytes(const uint8_t *p, size_t n)
{
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
  return h;
}

uint32_t fuzz_seed(const uint8_t *data, size_t size)
{
  return hash_bytes(data, size);
}

tfl_status fuzz_fits(const uint8_t *data, size_t size, size_t max_bytes, double max_work, tfl_diag *d)
{
  /* sizes first: declared shapes, then the folded and inferred ones */
  tfl_graph *g = NULL;
  tfl_status st = tfl_load_memory(data, size, &g, d);
  if (st == TFL_OK) st = within_limits(g, max_bytes, max_work, d);
  if (st == TFL_OK && (st = tfl_pass_fold_constants(g, d)) == TFL_OK && (st = tfl_infer_shapes(g, d)) == TFL_OK)
    st = within_limits(g, max_bytes, max_work, d);
  tfl_graph_free(g);
  return st;
}

/* Deterministic input values: floats in [-2, 2), integers over the type's whole range. */
void fuzz_fill_input(tfl_tensor *t, uint32_t seed)
{
  uint32_t s = seed | 1u;
  size_t n = tfl_tensor_count(t);
  for (size_t i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    switch (t->type) {
    case TFL_TYPE_FLOAT32: ((float *)t->data)[i] = (float)(s % 4096) / 1024.0f - 2.0f; break;
    case TFL_TYPE_INT32: ((int32_t *)t->data)[i] = (int32_t)s; break;
    case TFL_TYPE_INT64: ((int64_t *)t->data)[i] = (int64_t)(int32_t)s; break;
    case TFL_TYPE_INT16: ((int16_t *)t->data)[i] = (int16_t)s; break;
    case TFL_TYPE_BOOL: ((uint8_t *)t->data)[i] = (uint8_t)(s & 1); break;
    case TFL_TYPE_UINT8:
    case TFL_TYPE_INT8: ((uint8_t *)t->data)[i] = (uint8_t)s; break;
    case TFL_TYPE_FLOAT16: ((uint16_t *)t->data)[i] = (uint16_t)(0x3c00 ^ (s & 0x83ff)); break;
    case TFL_TYPE_STRING:
    case TFL_TYPE_COMPLEX64:
    case TFL_TYPE_COUNT: memset(t->data, 0, t->bytes); return;
    }
  }
}

/* Every decoder family on the outputs; a decoder whose checks refuse them is skipped. */
static void decode_all(const tfl_graph *g, tfl_interpreter *it)
{
  int n = tfl_interpreter_output_count(it);
  if (n > 16) n = 16;
  const tfl_tensor *outs[16];
  for (int i = 0; i < n; i++) outs[i] = tfl_interpreter_output(it, i);
  const tfl_tensor *in = tfl_interpreter_input(it, 0);
  tfl_transform tr = {.in_w = 64, .in_h = 64, .frame_w = 320, .frame_h = 240, .scale_x = 5, .scale_y = 3.75f};
  if (in && in->ndim == 4 && in->dims[1] > 0 && in->dims[2] > 0) {
    tr.in_h = in->dims[1];
    tr.in_w = in->dims[2];
    tr.scale_x = 320.0f / (float)tr.in_w;
    tr.scale_y = 240.0f / (float)tr.in_h;
  }
  char why[256];
  (void)tfl_decoder_pick(g, why, sizeof why);
  static const tfl_decoder_kind kinds[] = {TFL_DECODER_CLASSIFICATION, TFL_DECODER_DETECTION,
                                           TFL_DECODER_SEGMENTATION, TFL_DECODER_POSE, TFL_DECODER_LANDMARKS};
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    tfl_diag d;
    diag_quiet(&d);
    tfl_decoder_options o = tfl_decoder_defaults();
    o.threshold = 0.0f; /* every candidate reaches NMS and the result lists */
    tfl_decoder *dec = NULL;
    if (tfl_decoder_create(kinds[k], g, &o, &dec, &d) != TFL_OK) continue;
    tfl_results res;
    memset(&res, 0, sizeof res);
    (void)tfl_decoder_run(dec, outs, n, &tr, &res, &d);
    tfl_results_clear(&res);
    tfl_decoder_free(dec);
  }
}

/* Loads a fresh graph (the interpreter rewrites it), runs it once on one CPU mode. */
static tfl_status run_mode(const uint8_t *data, size_t size, bool reference, uint32_t seed, tfl_diag *d)
{
  tfl_graph *g = NULL;
  tfl_status st = tfl_load_memory(data, size, &g, d);
  if (st != TFL_OK) return st;
  cpu_delegate_options co = cpu_delegate_defaults();
  co.reference = reference;
  co.threads = reference ? 1 : 2;
  co.diag = d;
  tfl_delegate *cpu = cpu_delegate_create(&co);
  tfl_interpreter *it = NULL;
  if (!cpu) {
    st = TFL_ERR_NOMEM;
    goto done;
  }
  tfl_interp_options o = tfl_interp_defaults();
  o.fallback = cpu;
  o.diag = d;
  if ((st = tfl_interpreter_create(g, &o, &it)) != TFL_OK) goto done;
  for (int i = 0; i < tfl_interpreter_input_count(it); i++) {
    tfl_tensor *t = tfl_interpreter_input(it, i);
    if (t->data) fuzz_fill_input(t, seed + (uint32_t)i * 7919u);
  }
  if ((st = tfl_interpreter_invoke(it)) != TFL_OK) goto done;
  decode_all(g, it);
done:
  tfl_interpreter_free(it);
  if (cpu) cpu->destroy(cpu);
  tfl_graph_free(g);
  return st;
}

tfl_status fuzz_run(const uint8_t *data, size_t size, char *msg, size_t msg_len)
{
  tfl_diag d;
  diag_quiet(&d);
  tfl_status st = fuzz_fits(data, size, FUZZ_MAX_BYTES, FUZZ_MAX_WORK, &d);
  if (st != TFL_OK) return result(st, &d, msg, msg_len);

  uint32_t seed = hash_bytes(data, size);
  tfl_status ref = run_mode(data, size, true, seed, &d);
  char ref_msg[sizeof d.error];
  snprintf(ref_msg, sizeof ref_msg, "%s", d.error);
  tfl_status fast = run_mode(data, size, false, seed, &d);
  if (ref != TFL_OK) {
    snprintf(d.error, sizeof d.error, "%s", ref_msg);
    return result(ref, &d, msg, msg_len);
  }
  return result(fast, &d, msg, msg_len);
}
