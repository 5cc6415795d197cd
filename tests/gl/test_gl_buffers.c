/* test_gl_buffers.c - the runtime's buffer interface (runtime/tfl_buffer.h) through the
 * interpreter, on small single-op models (a [B,H,W,C] float output) at batch 2, with the
 * GL delegate and with the CPU delegate alone. Per model and delegate:
 *   the reference: an invoke copying the outputs to the host (tensor->data), frame A, then
 *   frame B (other input values);
 *   GL: frame A's slot 1 exported (its values, TFL_CONVERT_NONE) into a device buffer from
 *     byte 16, fenced; frame B invoked and exported into a second buffer, fenced; only then
 *     frame A's buffer mapped: the bytes of frame A's host copy, not B's (the map a frame
 *     later); a device copy of it into a third buffer, mapped: the same bytes again; the
 *     class bytes (argmax over channels) into a device buffer (rows padded to 4 bytes) and
 *     a host buffer: the argmax the test computes from frame B's host floats;
 *   CPU: the same exports into host buffers (values; class bytes) against the same host
 *     copy and argmax; a device buffer refused (the CPU makes none);
 *   refused with an error naming the problem: a host buffer for GL's values, a device
 *   buffer too small, a slot past the batch, another delegate's device buffer.
 *   test_gl_buffers MODEL...   (paths; a missing model is a failure) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/cpu/cpu_delegate.h"
#include "delegates/gl/gl_delegate.h"
#include "runtime/tfl_buffer.h"
#include "runtime/tfl_interpreter.h"
#include "runtime/tfl_loader.h"
#include "runtime/tfl_passes.h"
#include "tests/gl/gl_test_util.h"

static int checks, failures;

static void check(bool ok, const char *what, const char *detail)
{
  checks++;
  failures += !ok;
  printf("%s %s%s%s\n", ok ? "ok  " : "FAIL", what, detail && detail[0] ? ": " : "", detail ? detail : "");
}

typedef struct {
  tfl_diag diag;
  tfl_graph *g;
  tfl_interpreter *it;
  tfl_tensor *in, *out;
  size_t slot_bytes;           /* one slot of output 0 */
  int w, h, c;
} model_run;

static int open_run(const char *path, tfl_delegate *accel, tfl_delegate *cpu, model_run *m)
{
  tfl_diag_init(&m->diag);
  m->diag.verbosity = TFL_LOG_ERROR;
  tfl_interp_options o = tfl_interp_defaults();
  o.delegate = accel;
  o.fallback = cpu;
  o.diag = &m->diag;
  if (tfl_load_file(path, &m->g, &m->diag) || tfl_pass_set_batch(m->g, 2, &m->diag) ||
      tfl_interpreter_create(m->g, &o, &m->it)) {
    printf("FAIL %s: %s\n", path, m->diag.error);
    return 1;
  }
  m->in = tfl_interpreter_input(m->it, 0);
  m->out = tfl_interpreter_output(m->it, 0);
  if (m->in->type != TFL_TYPE_FLOAT32 || m->out->type != TFL_TYPE_FLOAT32 || m->out->ndim != 4 ||
      m->out->dims[0] != 2) {
    printf("FAIL %s: the test needs a float input and a float [2,H,W,C] output at batch 2\n", path);
    return 1;
  }
  m->h = m->out->dims[1];
  m->w = m->out->dims[2];
  m->c = m->out->dims[3];
  m->slot_bytes = m->out->bytes / 2;
  return 0;
}

static void close_run(model_run *m)
{
  tfl_interpreter_free(m->it);
  if (m->g) tfl_graph_free(m->g);
}

/* Frame `frame`'s input values, then an invoke (outputs to the host when host). */
static tfl_status run_frame(model_run *m, int frame, bool host)
{
  unsigned seed = 1234u + 77u * (unsigned)frame;
  for (int i = 0; i < tfl_interpreter_input_count(m->it); i++) {
    tfl_tensor *t = tfl_interpreter_input(m->it, i);
    glt_fill(t->data, tfl_tensor_count(t), -3.0f, 3.0f, &seed);
  }
  tfl_interpreter_set_outputs_host(m->it, host);
  return tfl_interpreter_invoke(m->it);
}

/* The argmax over channels of slot `slot` of host floats v, one byte a pixel in rows of
 * `row` bytes (the first largest channel: the conversion's rule). */
static void argmax(const model_run *m, const float *v, int slot, size_t row, uint8_t *out)
{
  const float *s = v + (size_t)slot * m->slot_bytes / sizeof(float);
  for (int y = 0; y < m->h; y++)
    for (int x = 0; x < m->w; x++) {
      const float *px = s + ((size_t)y * m->w + x) * (size_t)m->c;
      int best = 0;
      for (int k = 1; k < m->c; k++)
        if (px[k] > px[best]) best = k;
      out[(size_t)y * row + x] = (uint8_t)best;
    }
}

/* Pixels of class bytes `got` (rows of `row`) unlike `want` (rows of w). */
static size_t class_diff(const model_run *m, const uint8_t *got, size_t row, const uint8_t *want)
{
  size_t d = 0;
  for (int y = 0; y < m->h; y++)
    for (int x = 0; x < m->w; x++) d += got[(size_t)y * row + x] != want[(size_t)y * m->w + x];
  return d;
}

static bool refused(tfl_status st, const char *error, const char *needle)
{
  return st != TFL_OK && strstr(error, needle) != NULL;
}

static void check_gl(const char *stem, model_run *m, tfl_delegate *gl, tfl_delegate *cpu)
{
  char what[256], detail[600];
  const char *who = tfl_interpreter_node_delegate(m->it, m->g->n_nodes - 1);
  snprintf(what, sizeof what, "%s gl: the op runs on GL", stem);
  check(who && !strcmp(who, "gl"), what, who ? who : "nothing");
  if (!who || strcmp(who, "gl")) return;
  /* the reference: host copies of frames A and B */
  uint8_t *ha = malloc(m->out->bytes), *hb = malloc(m->out->bytes);
  tfl_status st = run_frame(m, 0, true);
  if (!st) memcpy(ha, m->out->data, m->out->bytes);
  if (!st) st = run_frame(m, 1, true);
  if (!st) memcpy(hb, m->out->data, m->out->bytes);
  size_t need = 0;
  tfl_export e = {.slot = 1, .convert = TFL_CONVERT_NONE, .offset = 16};
  if (!st) st = tfl_interpreter_output_bytes(m->it, 0, &e, gl, &need);
  snprintf(what, sizeof what, "%s gl: a slot's values take %zu bytes", stem, need);
  check(!st && need == m->slot_bytes, what, st ? m->diag.error : "");
  if (st) goto out;
  tfl_buffer *ba = NULL, *bb = NULL, *bc = NULL, *cls = NULL, *hcls = NULL;
  st = tfl_buffer_new(gl, TFL_BUFFER_DEVICE, 16 + need, &m->diag, &ba);
  if (!st) st = tfl_buffer_new(gl, TFL_BUFFER_DEVICE, 16 + need, &m->diag, &bb);
  if (!st) st = tfl_buffer_new(gl, TFL_BUFFER_DEVICE, need, &m->diag, &bc);
  /* frame A, outputs left on the GPU, queued; frame B the same before A is mapped */
  memset(m->out->data, 0xa5, m->out->bytes);
  if (!st) st = run_frame(m, 0, false);
  if (!st) st = tfl_interpreter_export_output(m->it, 0, &e, ba);
  if (!st) st = tfl_buffer_fence(ba);
  if (!st) st = run_frame(m, 1, false);
  if (!st) st = tfl_interpreter_export_output(m->it, 0, &e, bb);
  if (!st) st = tfl_buffer_fence(bb);
  const uint8_t *pa = NULL, *pb = NULL, *pc = NULL;
  if (!st) st = tfl_buffer_map(ba, (const void **)&pa);
  size_t poisoned = 0;
  for (size_t k = 0; k < m->out->bytes; k++) poisoned += ((uint8_t *)m->out->data)[k] == 0xa5;
  snprintf(what, sizeof what, "%s gl: frame A's slot 1 queued, frame B run, then A mapped", stem);
  snprintf(detail, sizeof detail, "%s", st ? m->diag.error : "");
  bool same_a = pa && !memcmp(pa + 16, ha + m->slot_bytes, need);
  bool unlike_b = pa && memcmp(pa + 16, hb + m->slot_bytes, need) != 0;
  if (!st) snprintf(detail, sizeof detail, "%s frame A's host bytes, %s frame B's; %zu of %zu host bytes untouched",
                    same_a ? "the same as" : "UNLIKE", unlike_b ? "unlike" : "THE SAME AS", poisoned, m->out->bytes);
  check(!st && same_a && unlike_b && poisoned == m->out->bytes, what, detail);
  if (pa) tfl_buffer_unmap(ba);
  snprintf(what, sizeof what, "%s gl: ready once mapped", stem);
  check(tfl_buffer_ready(ba), what, "");
  if (!st) st = tfl_buffer_map(bb, (const void **)&pb);
  snprintf(what, sizeof what, "%s gl: frame B's slot 1 from its own buffer", stem);
  check(!st && pb && !memcmp(pb + 16, hb + m->slot_bytes, need), what, st ? m->diag.error : "");
  if (pb) tfl_buffer_unmap(bb);
  /* a device copy, fenced and mapped */
  if (!st) st = tfl_buffer_copy(ba, 16, bc, 0, need);
  if (!st) st = tfl_buffer_fence(bc);
  if (!st) st = tfl_buffer_map(bc, (const void **)&pc);
  snprintf(what, sizeof what, "%s gl: a device copy of frame A's bytes", stem);
  check(!st && pc && !memcmp(pc, ha + m->slot_bytes, need), what, st ? m->diag.error : "");
  if (pc) tfl_buffer_unmap(bc);
  /* class bytes of frame B's slot 1: a device buffer (rows padded to 4) and a host one */
  size_t row = tfl_class_row_bytes(m->w), cneed = 0;
  tfl_export ec = {.slot = 1, .convert = TFL_CONVERT_CLASS_U8};
  uint8_t *want = malloc((size_t)m->w * m->h);
  argmax(m, (const float *)hb, 1, (size_t)m->w, want);
  if (!st) st = tfl_interpreter_output_bytes(m->it, 0, &ec, gl, &cneed);
  if (!st) st = tfl_buffer_new(gl, TFL_BUFFER_DEVICE, cneed, &m->diag, &cls);
  if (!st) st = tfl_buffer_new(NULL, TFL_BUFFER_HOST, (size_t)m->w * m->h, &m->diag, &hcls);
  if (!st) st = tfl_interpreter_export_output(m->it, 0, &ec, cls);
  if (!st) st = tfl_buffer_fence(cls);
  if (!st) st = tfl_interpreter_export_output(m->it, 0, &ec, hcls);
  const uint8_t *pd = NULL, *ph = NULL;
  if (!st) st = tfl_buffer_map(cls, (const void **)&pd);
  if (!st) st = tfl_buffer_map(hcls, (const void **)&ph);
  size_t dd = pd ? class_diff(m, pd, row, want) : 0, dh = ph ? class_diff(m, ph, (size_t)m->w, want) : 0;
  snprintf(what, sizeof what, "%s gl: class bytes (%dx%d, %d classes, rows of %zu) on the device and the host", stem,
           m->w, m->h, m->c, row);
  snprintf(detail, sizeof detail, "%s%zu and %zu pixels unlike the argmax of the host floats", st ? m->diag.error : "",
           dd, dh);
  check(!st && cneed == row * (size_t)m->h && dd == 0 && dh == 0, what, detail);
  if (pd) tfl_buffer_unmap(cls);
  free(want);
  /* refusals */
  tfl_buffer *small = NULL, *host = NULL;
  tfl_buffer_new(gl, TFL_BUFFER_DEVICE, need - 4, &m->diag, &small);
  tfl_buffer_new(NULL, TFL_BUFFER_HOST, need, &m->diag, &host);
  tfl_export e0 = {.slot = 1};
  snprintf(what, sizeof what, "%s gl: refused, a device buffer under the slot's bytes", stem);
  check(small && refused(tfl_interpreter_export_output(m->it, 0, &e0, small), m->diag.error, "of a device buffer of"),
        what, m->diag.error);
  snprintf(what, sizeof what, "%s gl: refused, the values into a host buffer", stem);
  check(host && refused(tfl_interpreter_export_output(m->it, 0, &e0, host), m->diag.error, "device buffer"), what,
        m->diag.error);
  e0.slot = 2;
  snprintf(what, sizeof what, "%s gl: refused, slot 2 of a batch of 2", stem);
  check(refused(tfl_interpreter_export_output(m->it, 0, &e0, bc), m->diag.error, "slot 2"), what, m->diag.error);
  tfl_buffer *cpu_dev = NULL;
  snprintf(what, sizeof what, "%s gl: refused, a device buffer of the CPU delegate", stem);
  check(refused(tfl_buffer_new(cpu, TFL_BUFFER_DEVICE, need, &m->diag, &cpu_dev), m->diag.error, "makes none"), what,
        m->diag.error);
  tfl_buffer_free(small);
  tfl_buffer_free(host);
  tfl_buffer_free(hcls);
  tfl_buffer_free(cls);
  tfl_buffer_free(bc);
  tfl_buffer_free(bb);
  tfl_buffer_free(ba);
out:
  tfl_interpreter_set_outputs_host(m->it, true);
  free(ha);
  free(hb);
}

static void check_cpu(const char *stem, model_run *m, tfl_delegate *gl)
{
  char what[256];
  uint8_t *hb = malloc(m->out->bytes), *want = malloc((size_t)m->w * m->h);
  tfl_status st = run_frame(m, 1, true);
  if (!st) memcpy(hb, m->out->data, m->out->bytes);
  tfl_buffer *vals = NULL, *cls = NULL;
  tfl_export e = {.slot = 1, .convert = TFL_CONVERT_NONE, .offset = 8}, ec = {.slot = 1, .convert = TFL_CONVERT_CLASS_U8};
  size_t need = 0, cneed = 0;
  if (!st) st = tfl_interpreter_output_bytes(m->it, 0, &e, NULL, &need);
  if (!st) st = tfl_interpreter_output_bytes(m->it, 0, &ec, NULL, &cneed);
  if (!st) st = tfl_buffer_new(NULL, TFL_BUFFER_HOST, 8 + need, &m->diag, &vals);
  if (!st) st = tfl_buffer_new(NULL, TFL_BUFFER_HOST, cneed, &m->diag, &cls);
  /* the next frame runs before the buffers are read: they hold frame B's slot */
  if (!st) st = tfl_interpreter_export_output(m->it, 0, &e, vals);
  if (!st) st = tfl_interpreter_export_output(m->it, 0, &ec, cls);
  if (!st) st = tfl_buffer_fence(vals);
  if (!st) st = run_frame(m, 0, true);
  const uint8_t *pv = NULL, *pc = NULL;
  if (!st) st = tfl_buffer_map(vals, (const void **)&pv);
  if (!st) st = tfl_buffer_map(cls, (const void **)&pc);
  argmax(m, (const float *)hb, 1, (size_t)m->w, want);
  snprintf(what, sizeof what, "%s cpu: slot 1's values and class bytes in host buffers, read a frame later", stem);
  check(!st && need == m->slot_bytes && cneed == (size_t)m->w * m->h && !memcmp(pv + 8, hb + m->slot_bytes, need) &&
        class_diff(m, pc, (size_t)m->w, want) == 0, what, st ? m->diag.error : "");
  tfl_buffer *dev = NULL;
  snprintf(what, sizeof what, "%s cpu: refused, a GL device buffer for a CPU output", stem);
  bool made = gl && tfl_buffer_new(gl, TFL_BUFFER_DEVICE, need, &m->diag, &dev) == TFL_OK;
  check(made && refused(tfl_interpreter_export_output(m->it, 0, &e, dev), m->diag.error, "made by the cpu delegate"),
        what, m->diag.error);
  tfl_buffer_free(dev);
  tfl_buffer_free(vals);
  tfl_buffer_free(cls);
  free(hb);
  free(want);
}

int main(int argc, char **argv)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  cpu_delegate_options co = cpu_delegate_defaults();
  co.diag = &diag;
  tfl_delegate *cpu = cpu_delegate_create(&co);
  gl_delegate_options go = gl_delegate_defaults();
  go.precision = GL_PRECISION_FP32; /* the host copy and the queued bytes are the same floats */
  go.cache_dir = "";
  go.diag = &diag;
  tfl_delegate *gl = cpu ? gl_delegate_create(&go) : NULL;
  if (!gl || argc < 2) {
    printf("FAIL %s\n", argc < 2 ? "usage: test_gl_buffers MODEL..." : diag.error);
    return 1;
  }
  for (int a = 1; a < argc; a++) {
    const char *stem = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
    model_run m = {0};
    if (!open_run(argv[a], gl, cpu, &m)) check_gl(stem, &m, gl, cpu);
    else failures++;
    close_run(&m);
    model_run c = {0};
    if (!open_run(argv[a], NULL, cpu, &c)) check_cpu(stem, &c, gl);
    else failures++;
    close_run(&c);
  }
  gl->destroy(gl);
  cpu->destroy(cpu);
  printf("%d checks, %d failures\n", checks, failures);
  return failures != 0 || checks == 0;
}
