/* test_gl_queued_outputs.c - the queued read-back of any output (tfl_interpreter_output_bytes,
 * an export into a device buffer, fence, map: runtime/tfl_buffer.h) on real models as tflitefilter runs
 * them, their decoder's post-processing appended (a detector's ANCHOR_DETECTION or SSD
 * ops, a landmark model's LANDMARK_DECODE), on the inputs of their golden cases:
 *   (1) batch 1 (each case) and batch 2 (the picture in slot 0, the noise in slot 1; the
 *       post-processing must run on GL there too, a detector's count [B] one value a slot):
 *       every output's slot queued into a device buffer of the delegate's at an offset, fenced, mapped:
 *       the same bytes as the invoke's host outputs, slot by slot (and the two slots'
 *       bytes differ, so a wrong slot cannot pass); then invoked again with the outputs
 *       left on the GPU (tensor->data poisoned stays poisoned: nothing was read back) and
 *       queued again: the same bytes once more.
 *   (2) refused with an error naming the problem: a device buffer too small (an offset
 *       past the room, and a buffer under the slot's bytes); with the post-processing on the CPU
 *       (gl_tuning.cpu_postproc) and its first input made a graph output too, that output
 *       (read by the op's node) and the op's own output (made by the CPU delegate).
 *   test_gl_queued_outputs [--fp16] [--golden DIR] [--pictures DIR] [--models DIRS] MODEL...
 * A model that cannot be found is a failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/cpu/cpu_delegate.h"
#include "delegates/gl/gl_context.h"
#include "delegates/gl/gl_delegate.h"
#include "runtime/tfl_engine.h"
#include "runtime/tfl_loader.h"
#include "runtime/tfl_passes.h"
#include "tests/gl/gl_model_check.h"
#include "tests/gl/gl_model_run.h"

#define GAP 12 /* bytes before each output in the buffer: offsets other than 0 */

static glm_options opt;

/* A model loaded (append: with its post-processing appended) at `batch`; extra_output:
 * the appended op's first input is made a graph output too. */
static int open_model(const char *path, tfl_delegate *gl, int batch, bool append, bool extra_output, glm_run *r)
{
  memset(r, 0, sizeof *r);
  tfl_diag_init(&r->diag);
  char why[256];
  bool appended = false;
  tfl_decoder_options dopt = tfl_decoder_defaults();
  tfl_interp_options o = tfl_interp_defaults();
  o.delegate = gl;
  o.diag = &r->diag;
  if (!(o.fallback = r->cpu = cpu_delegate_create(&(cpu_delegate_options){.threads = 1, .use_xnnpack = true,
                                                                          .diag = &r->diag})) ||
      tfl_load_file(path, &r->g, &r->diag) ||
      (append && (tfl_decoder_append_postprocess(tfl_decoder_pick(r->g, why, sizeof why), r->g, &dopt, &appended,
                                                 &r->diag) || !appended)))
    goto fail;
  if (extra_output) {
    int32_t *outs = realloc(r->g->outputs, sizeof *outs * (size_t)(r->g->n_outputs + 1));
    if (!outs) goto fail;
    r->g->outputs = outs;
    outs[r->g->n_outputs++] = r->g->nodes[r->g->n_nodes - 1].in[0];
  }
  if ((batch > 1 && tfl_pass_set_batch(r->g, batch, &r->diag)) || tfl_interpreter_create(r->g, &o, &r->it)) goto fail;
  return 0;
fail:
  printf("FAIL %s (batch %d): %s\n", path, batch, r->diag.error[0] ? r->diag.error : "no post-processing appended");
  return 1;
}

typedef struct {
  tfl_delegate *d; /* the GL delegate: its device buffers */
  int n_out;
  size_t need[16], off[16], total;
} layout;

/* Every output's slot bytes (tfl_interpreter_output_bytes) and its place in a buffer. */
static int plan_layout(const char *what, glm_run *r, layout *l)
{
  l->n_out = tfl_interpreter_output_count(r->it);
  l->total = 0;
  for (int i = 0; i < l->n_out && i < 16; i++) {
    if (tfl_interpreter_output_bytes(r->it, i, &(tfl_export){.slot = 0}, l->d, &l->need[i])) {
      printf("FAIL %s: output %d cannot be queued: %s\n", what, i, r->diag.error);
      return 1;
    }
    l->off[i] = l->total + GAP;
    l->total = l->off[i] + l->need[i];
  }
  return 0;
}

/* Slot `slot` of every output queued into a new device buffer, fenced, mapped into host
 * (l->total bytes). 0, or 1 with a FAIL line. */
static int queue_slot(const char *what, glm_run *r, const layout *l, int slot, uint8_t *host)
{
  tfl_buffer *buf = NULL;
  int fail = tfl_buffer_new(l->d, TFL_BUFFER_DEVICE, l->total, &r->diag, &buf) != TFL_OK;
  if (fail) printf("FAIL %s: a device buffer of %zu bytes: %s\n", what, l->total, r->diag.error);
  for (int i = 0; i < l->n_out && !fail; i++) {
    tfl_export e = {.slot = slot, .convert = TFL_CONVERT_NONE, .offset = l->off[i]};
    if (tfl_interpreter_export_output(r->it, i, &e, buf)) {
      printf("FAIL %s: queueing output %d slot %d: %s\n", what, i, slot, r->diag.error);
      fail = 1;
    }
  }
  const void *m = NULL;
  if (!fail && (tfl_buffer_fence(buf) || tfl_buffer_map(buf, &m))) {
    printf("FAIL %s: the buffer could not be fenced and mapped: %s\n", what, r->diag.error);
    fail = 1;
  }
  if (m) memcpy(host, m, l->total);
  if (buf) tfl_buffer_unmap(buf);
  tfl_buffer_free(buf);
  return fail;
}

/* Queued bytes of every slot against saved host outputs (want[i]: output i, all slots). */
static int compare_slots(const char *what, glm_run *r, const layout *l, uint8_t *const *want)
{
  int batch = tfl_interpreter_output(r->it, 0)->dims[0], fail = 0, apart = 0;
  uint8_t *got = malloc(l->total * (size_t)batch);
  for (int s = 0; s < batch && !fail; s++) fail = queue_slot(what, r, l, s, got + (size_t)s * l->total);
  for (int i = 0; i < l->n_out && !fail; i++) {
    size_t differ = 0, slot_bytes = l->need[i];
    for (int s = 0; s < batch; s++) {
      const uint8_t *g = got + (size_t)s * l->total + l->off[i], *w = want[i] + (size_t)s * slot_bytes;
      for (size_t k = 0; k < slot_bytes; k++) differ += g[k] != w[k];
    }
    bool slots_apart = batch > 1 && memcmp(want[i], want[i] + slot_bytes, slot_bytes) != 0;
    const char *name = tfl_interpreter_output(r->it, i)->name;
    printf("%s %s: output %d (%s), %d slot(s) of %zu bytes: %zu bytes unlike the host output's%s\n",
           differ ? "FAIL" : "ok  ", what, i, name ? name : "", batch, slot_bytes, differ,
           batch > 1 && !slots_apart ? " (its slots hold the same bytes)" : "");
    fail |= differ != 0;
    apart += slots_apart;
  }
  /* a copy of the wrong slot must not pass unseen */
  if (!fail && batch > 1 && !apart) {
    printf("FAIL %s: every output's slots hold the same bytes\n", what);
    fail = 1;
  }
  free(got);
  return fail;
}

/* (1) on a filled run: host outputs, queued; then outputs left on the GPU, queued. */
static int check_run(const char *what, glm_run *r, tfl_delegate *d)
{
  layout l = {.d = d};
  if (plan_layout(what, r, &l)) return 1;
  tfl_interpreter_set_outputs_host(r->it, true);
  if (tfl_interpreter_invoke(r->it)) {
    printf("FAIL %s: invoke: %s\n", what, r->diag.error);
    return 1;
  }
  uint8_t *want[16];
  for (int i = 0; i < l.n_out; i++) {
    const tfl_tensor *t = tfl_interpreter_output(r->it, i);
    want[i] = malloc(t->bytes);
    memcpy(want[i], t->data, t->bytes);
  }
  char name[300];
  snprintf(name, sizeof name, "%s, the same invoke", what);
  int fail = compare_slots(name, r, &l, want);
  /* again with the outputs left on the GPU: tensor->data must stay as poisoned */
  for (int i = 0; i < l.n_out; i++) {
    tfl_tensor *t = tfl_interpreter_output(r->it, i);
    memset(t->data, 0xa5, t->bytes);
  }
  tfl_interpreter_set_outputs_host(r->it, false);
  if (tfl_interpreter_invoke(r->it)) {
    printf("FAIL %s: invoke, outputs on the GPU: %s\n", what, r->diag.error);
    fail = 1;
  }
  size_t touched = 0;
  for (int i = 0; i < l.n_out; i++) {
    const tfl_tensor *t = tfl_interpreter_output(r->it, i);
    for (size_t k = 0; k < t->bytes; k++) touched += ((const uint8_t *)t->data)[k] != 0xa5;
  }
  printf("%s %s: outputs left on the GPU, %zu host bytes written by the invoke\n", touched ? "FAIL" : "ok  ", what,
         touched);
  fail |= touched != 0;
  snprintf(name, sizeof name, "%s, outputs on the GPU", what);
  if (!fail) fail = compare_slots(name, r, &l, want);
  tfl_interpreter_set_outputs_host(r->it, true);
  for (int i = 0; i < l.n_out; i++) free(want[i]);
  return fail;
}

static int expect_refused(const char *what, tfl_status st, const char *error, const char *needle)
{
  const bool ok = st != TFL_OK && strstr(error, needle);
  printf("%s refused, %s: %s\n", ok ? "ok  " : "FAIL", what, st ? error : "ACCEPTED");
  return !ok;
}

/* (2): too small buffers on run r (output 0); outputs that cannot be queued. */
static int check_refusals(const char *path, const char *stem, glm_run *r, tfl_delegate *gl, bool fp16)
{
  size_t need = 0;
  tfl_export x = {.slot = 0};
  tfl_interpreter_output_bytes(r->it, 0, &x, gl, &need);
  tfl_buffer *small = NULL, *big = NULL;
  tfl_buffer_new(gl, TFL_BUFFER_DEVICE, need - 4, &r->diag, &small);
  tfl_buffer_new(gl, TFL_BUFFER_DEVICE, need, &r->diag, &big);
  char name[300];
  snprintf(name, sizeof name, "needs %zu bytes from byte 4", need);
  x.offset = 4;
  int fail = expect_refused("an offset leaving less than the slot's bytes", tfl_interpreter_export_output(r->it, 0, &x, big),
                            r->diag.error, name);
  x.offset = 0;
  fail |= expect_refused("a device buffer under the slot's bytes", tfl_interpreter_export_output(r->it, 0, &x, small),
                         r->diag.error, "of a device buffer of");
  tfl_buffer_free(small);
  tfl_buffer_free(big);

  /* the post-processing on the CPU, its first input also a graph output */
  gl_delegate_options o = gl_delegate_defaults();
  o.precision = fp16 ? GL_PRECISION_FP16 : GL_PRECISION_FP32;
  o.use_current_context = true;
  o.tuning.cpu_postproc = true;
  tfl_diag diag;
  tfl_diag_init(&diag);
  o.diag = &diag;
  tfl_delegate *d = gl_delegate_create(&o);
  glm_run cr;
  if (!d || open_model(path, d, 1, true, true, &cr)) {
    printf("FAIL %s (post-processing on the CPU): %s\n", stem, diag.error);
    if (d) d->destroy(d);
    return 1;
  }
  const tfl_node *op = &cr.g->nodes[cr.g->n_nodes - 1];
  const int head = cr.g->n_outputs - 1;
  snprintf(name, sizeof name, "read by node %d (%s)", cr.g->n_nodes - 1, tfl_op_name(op->op));
  fail |= expect_refused("an output another partition reads", tfl_interpreter_output_bytes(cr.it, head, &x, d, &need),
                         cr.diag.error, name);
  fail |= expect_refused("an output the CPU makes", tfl_interpreter_output_bytes(cr.it, 0, &x, d, &need),
                         cr.diag.error, "made by the cpu delegate");
  glm_close_run(&cr);
  d->destroy(d);
  return fail;
}

static int check_model(const char *path, bool fp16)
{
  const char *prec = fp16 ? "fp16" : "fp32";
  char stem[256], what[512];
  glm_stem(path, stem, sizeof stem);
  tfl_diag diag;
  tfl_delegate *d = glm_gl_delegate(fp16, &diag, path);
  if (!d) return 1;
  glm_run r1 = {0}, r2 = {0};
  int fail = open_model(path, d, 1, true, false, &r1) || open_model(path, d, 2, true, false, &r2);
  /* the post-processing on the GPU in a batch too: its outputs' slots are what is queued
   * (a detector's count [B] one value a slot) */
  const char *who = fail ? NULL : tfl_interpreter_node_delegate(r2.it, r2.g->n_nodes - 1);
  if (!fail && (!who || strcmp(who, "gl"))) {
    printf("FAIL %s %s batch 2: the post-processing runs on %s, not GL\n", stem, prec, who ? who : "nothing");
    fail = 1;
  }
  const char *kinds[] = {"picture", "gauss"};
  for (int k = 0; !fail && k < 2; k++) {
    if (!glm_fill_case(opt.golden, opt.pictures, stem, kinds[k], r1.it, NULL)) {
      fail = 1;
      break;
    }
    /* batch 2: case k into slot k */
    for (int i = 0; i < tfl_interpreter_input_count(r1.it); i++) {
      const tfl_tensor *t = tfl_interpreter_input(r1.it, i);
      memcpy((uint8_t *)tfl_interpreter_input(r2.it, i)->data + (size_t)k * t->bytes, t->data, t->bytes);
    }
    snprintf(what, sizeof what, "%s %s %s batch 1", stem, prec, kinds[k]);
    fail |= check_run(what, &r1, d);
  }
  snprintf(what, sizeof what, "%s %s batch 2 (picture, gauss)", stem, prec);
  if (!fail) fail |= check_run(what, &r2, d);
  if (!fail) fail |= check_refusals(path, stem, &r1, d, fp16);
  glm_close_run(&r2);
  glm_close_run(&r1);
  d->destroy(d);
  return fail;
}

int main(int argc, char **argv)
{
  opt = glm_default_options(argc, argv);
  return glm_check_models(argc, argv, &opt, 0, check_model);
}
