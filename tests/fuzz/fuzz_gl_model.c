/* fuzz_gl_model.c - see fuzz_gl_model.h. */
#include "fuzz_gl_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/cpu/cpu_delegate.h"
#include "delegates/gl/gl_delegate.h"
#include "runtime/tfl_interpreter.h"
#include "runtime/tfl_loader.h"
#include "tests/fuzz/fuzz_model.h"

struct fuzz_gl {
  tfl_diag diag; /* the delegate's own (create, logs); runs report to their own */
  tfl_delegate *gl;
};

static void quiet(tfl_log_level level, const char *msg, void *user)
{
  (void)level;
  (void)msg;
  (void)user;
}

fuzz_gl *fuzz_gl_open(const char *cache_dir, char *msg, size_t msg_len)
{
  fuzz_gl *f = calloc(1, sizeof *f);
  if (!f) {
    snprintf(msg, msg_len, "out of memory");
    return NULL;
  }
  tfl_diag_init(&f->diag);
  f->diag.sink = quiet;
  gl_delegate_options o = gl_delegate_defaults();
  o.precision = GL_PRECISION_FP32;
  o.cache_dir = cache_dir;
  o.diag = &f->diag;
  f->gl = gl_delegate_create(&o);
  if (!f->gl) {
    snprintf(msg, msg_len, "GL delegate: %s", f->diag.error);
    free(f);
    return NULL;
  }
  return f;
}

void fuzz_gl_close(fuzz_gl *f)
{
  if (!f) return;
  f->gl->destroy(f->gl);
  free(f);
}

typedef struct {
  tfl_diag diag;
  tfl_graph *g;
  tfl_delegate *cpu;
  tfl_interpreter *it;
  int on_gl;      /* nodes the GL delegate runs */
  bool quantized; /* quantized activations or hybrid nodes: outputs not compared */
} one_run;

static void run_free(one_run *r)
{
  tfl_interpreter_free(r->it);
  if (r->cpu) r->cpu->destroy(r->cpu);
  tfl_graph_free(r->g);
}

/* Whether g computes on quantized values anywhere: a non-constant quantized tensor that is
 * not float32, or a hybrid node (8-bit constant weights read by a float op, which TFLite
 * runs on activations quantized on the fly). GL computes both in float, a documented
 * difference (docs/gl-ops.md), so such graphs are checked for crashes and failures only. */
static bool computes_quantized(const tfl_graph *g)
{
  for (int i = 0; i < g->n_tensors; i++) {
    const tfl_tensor *t = &g->tensors[i];
    if (!t->is_const && t->q.n > 0 && t->type != TFL_TYPE_FLOAT32) return true;
  }
  for (int i = 0; i < g->n_nodes; i++) {
    const tfl_node *nd = &g->nodes[i];
    if (nd->op == TFL_OP_DEQUANTIZE || nd->n_out < 1 || nd->out[0] < 0 || nd->out[0] >= g->n_tensors ||
        g->tensors[nd->out[0]].type != TFL_TYPE_FLOAT32)
      continue;
    for (int k = 0; k < nd->n_in; k++) {
      const tfl_tensor *t = nd->in[k] >= 0 && nd->in[k] < g->n_tensors ? &g->tensors[nd->in[k]] : NULL;
      if (t && t->is_const && t->q.n > 0 && (t->type == TFL_TYPE_INT8 || t->type == TFL_TYPE_UINT8)) return true;
    }
  }
  return false;
}

/* Loads a fresh graph (the interpreter rewrites it), prepares it with gl as accelerator
 * (NULL: the reference alone) and invokes once on the seeded inputs. */
static tfl_status run_once(const uint8_t *data, size_t size, tfl_delegate *gl, uint32_t seed, one_run *r)
{
  memset(r, 0, sizeof *r);
  tfl_diag_init(&r->diag);
  r->diag.sink = quiet;
  tfl_status st = tfl_load_memory(data, size, &r->g, &r->diag);
  if (st != TFL_OK) return st;
  r->quantized = computes_quantized(r->g);
  cpu_delegate_options co = cpu_delegate_defaults();
  co.reference = true;
  co.threads = 1;
  co.diag = &r->diag;
  if (!(r->cpu = cpu_delegate_create(&co))) return TFL_ERR_NOMEM;
  tfl_interp_options o = tfl_interp_defaults();
  o.delegate = gl;
  o.fallback = r->cpu;
  o.diag = &r->diag;
  if ((st = tfl_interpreter_create(r->g, &o, &r->it)) != TFL_OK) {
    r->it = NULL;
    return st;
  }
  const tfl_graph *pg = tfl_interpreter_graph(r->it);
  for (int i = 0; pg && i < pg->n_nodes; i++) {
    const char *who = tfl_interpreter_node_delegate(r->it, i);
    r->on_gl += who && !strcmp(who, "gl");
  }
  for (int i = 0; i < tfl_interpreter_input_count(r->it); i++) {
    tfl_tensor *t = tfl_interpreter_input(r->it, i);
    if (t->data) fuzz_fill_input(t, seed + (uint32_t)i * 7919u);
  }
  return tfl_interpreter_invoke(r->it);
}

static double value_at(const tfl_tensor *t, size_t i)
{
  switch (t->type) {
  case TFL_TYPE_FLOAT32: return ((const float *)t->data)[i];
  case TFL_TYPE_INT32: return ((const int32_t *)t->data)[i];
  case TFL_TYPE_INT64: return (double)((const int64_t *)t->data)[i];
  case TFL_TYPE_INT16: return ((const int16_t *)t->data)[i];
  case TFL_TYPE_INT8: return ((const int8_t *)t->data)[i];
  case TFL_TYPE_UINT8:
  case TFL_TYPE_BOOL: return ((const uint8_t *)t->data)[i];
  default: return 0.0;
  }
}

/* Output o of the GL run against the reference's; false with msg on a disagreement. */
static bool same_output(int o, const tfl_tensor *a, const tfl_tensor *b, char *msg, size_t msg_len)
{
  size_t n = tfl_tensor_count(a);
  const char *name = a->name ? a->name : "";
  if (a->type != b->type || n != tfl_tensor_count(b) || (n && (!a->data || !b->data))) {
    snprintf(msg, msg_len, "output %d (%s): reference %s x %zu, GL %s x %zu", o, name, tfl_type_name(a->type), n,
             tfl_type_name(b->type), tfl_tensor_count(b));
    return false;
  }
  double lim;
  switch (a->type) {
  case TFL_TYPE_FLOAT32: {
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
      double v = value_at(a, i);
      /* not compared: see the header (a saturated +-FLT_MAX is compared) */
      if (!isfinite(v)) return true;
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
    lim = FUZZ_GL_TOL * (hi - lo > 1 ? hi - lo : 1);
    break;
  }
  case TFL_TYPE_INT8:
  case TFL_TYPE_UINT8:
  case TFL_TYPE_INT16: lim = 1; break;
  case TFL_TYPE_INT32:
  case TFL_TYPE_INT64:
  case TFL_TYPE_BOOL: lim = 0; break;
  default: return true; /* strings, complex, fp16 outputs: not compared */
  }
  for (size_t i = 0; i < n; i++) {
    double x = value_at(a, i), y = value_at(b, i), e = fabs(x - y);
    if (!(e <= lim)) {
      snprintf(msg, msg_len, "output %d (%s, %s, %zu values): element %zu reference %.9g, GL %.9g (tolerance %.3g)", o,
               name, tfl_type_name(a->type), n, i, x, y, lim);
      return false;
    }
  }
  return true;
}

tfl_status fuzz_gl_run(fuzz_gl *f, const uint8_t *data, size_t size, bool *differ, char *msg, size_t msg_len)
{
  *differ = false;
  if (msg && msg_len) msg[0] = '\0';
  tfl_diag d;
  tfl_diag_init(&d);
  d.sink = quiet;
  tfl_status st = fuzz_fits(data, size, FUZZ_GL_MAX_BYTES, FUZZ_GL_MAX_WORK, &d);
  if (st != TFL_OK) {
    snprintf(msg, msg_len, "%s", d.error);
    return st;
  }
  uint32_t seed = fuzz_seed(data, size);
  one_run ref, gl;
  st = run_once(data, size, NULL, seed, &ref);
  if (st != TFL_OK) {
    snprintf(msg, msg_len, "%s", ref.diag.error);
    run_free(&ref);
    return st;
  }
  tfl_status gst = run_once(data, size, f->gl, seed, &gl);
  if (gst != TFL_OK) {
    *differ = true;
    snprintf(msg, msg_len, "the reference ran, GL failed (%s): %s", tfl_status_name(gst), gl.diag.error);
  } else if (gl.on_gl == 0) {
    snprintf(msg, msg_len, "not compared: GL took no node");
  } else if (ref.quantized) {
    snprintf(msg, msg_len, "not compared: computes on quantized values (%d node(s) on GL)", gl.on_gl);
  } else {
    snprintf(msg, msg_len, "compared: %d node(s) on GL", gl.on_gl);
    int n = tfl_interpreter_output_count(ref.it);
    if (n != tfl_interpreter_output_count(gl.it)) {
      *differ = true;
      snprintf(msg, msg_len, "reference %d outputs, GL %d", n, tfl_interpreter_output_count(gl.it));
    }
    for (int o = 0; o < n && !*differ; o++)
      *differ = !same_output(o, tfl_interpreter_output(ref.it, o), tfl_interpreter_output(gl.it, o), msg, msg_len);
  }
  run_free(&gl);
  run_free(&ref);
  return TFL_OK;
}
