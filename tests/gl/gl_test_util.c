/* gl_test_util.c - see gl_test_util.h */
#include "gl_test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/gl/gl_plan.h"

void glt_fill(float *v, size_t n, float lo, float hi, unsigned *seed)
{
  for (size_t i = 0; i < n; i++) {
    *seed = *seed * 1103515245u + 12345u;
    v[i] = lo + (hi - lo) * (float)((*seed >> 8) & 0xffff) / 65536.0f;
  }
}

tfl_status glt_run_gl(op_runner *r, tfl_delegate *d)
{
  return glt_run_gl_ext(r, d, -1, NULL, 0, NULL);
}

tfl_status glt_run_gl_ext(op_runner *r, tfl_delegate *d, int bind_tensor, const tfl_image_desc *binds, int n_binds,
                          glt_after_fn after)
{
  tfl_graph *g = &r->graph;
  if (!d->supports(d->ctx, g, 0)) {
    gl_delegate_why(d, g, 0, &r->diag); /* the delegate's reason (op, shapes, limits), into the runner's context */
    return tfl_fail_prefix(&r->diag, TFL_ERR_UNSUPPORTED, "GL refuses the node");
  }
  int32_t nodes[1] = {0}, ins[OP_RUNNER_MAX_TENSORS], outs[OP_RUNNER_MAX_TENSORS];
  int n_in = 0, n_out = 0;
  for (int k = 0; k < r->node.n_in; k++) {
    int t = r->node.in[k];
    if (t < 0 || g->tensors[t].is_const) continue;
    bool dup = false;
    for (int j = 0; j < n_in; j++) dup = dup || ins[j] == t;
    if (!dup) ins[n_in++] = t;
  }
  for (int k = 0; k < r->node.n_out; k++) outs[n_out++] = r->node.out[k];
  tfl_partition part = {1, nodes, n_in, ins, n_out, outs, &r->diag};
  void *state = NULL;
  tfl_status s = d->prepare(d->ctx, g, &part, &state);
  if (s) return s;
  tfl_buffer *img = NULL;
  if (n_binds > 0) s = tfl_buffer_new(d, TFL_BUFFER_IMAGE, 0, &r->diag, &img);
  /* one buffer serves every slot: the delegate copies the picture at each bind */
  for (int k = 0; k < n_binds && !s; k++)
    if (!(s = tfl_buffer_import(img, &binds[k]))) s = d->bind_input(d->ctx, state, bind_tensor, img);
  if (!s) s = d->invoke(d->ctx, state);
  if (!s && after) s = after(r, d, state);
  d->release(d->ctx, state);
  tfl_buffer_free(img);
  return s;
}

int glt_compare(const char *name, op_runner *r, tfl_delegate *d, float tol)
{
  tfl_tensor *y = &r->graph.tensors[r->node.out[0]];
  size_t n = tfl_tensor_count(y);
  tfl_status s = op_runner_run(r, 1);
  if (s) {
    printf("FAIL %s: CPU reference: %s\n", name, r->diag.error);
    return 1;
  }
  float *want = malloc(n * sizeof(float) + 1), *got = malloc(n * sizeof(float) + 1);
  for (size_t i = 0; i < n; i++) want[i] = gl_tensor_real(y, y->data, i);
  memset(y->data, 0, y->bytes);
  s = glt_run_gl(r, d);
  if (s) {
    printf("FAIL %s: GL: %s\n", name, r->diag.error);
    free(want);
    free(got);
    return 1;
  }
  for (size_t i = 0; i < n; i++) got[i] = gl_tensor_real(y, y->data, i);
  float scale = 1.0f, worst = 0.0f;
  size_t at = 0;
  for (size_t i = 0; i < n; i++) scale = fmaxf(scale, fabsf(want[i]));
  for (size_t i = 0; i < n; i++) {
    float e = fabsf(got[i] - want[i]);
    if (!(e <= worst)) { /* NaN counts as worst */
      worst = isnan(e) ? INFINITY : e;
      at = i;
    }
  }
  float rel = worst / scale;
  int fail = !(rel <= tol);
  printf("%s %s: %zu values, max error %.3g (relative %.3g, tol %.0e)%s", fail ? "FAIL" : "ok  ", name, n, worst, rel,
         tol, fail ? "" : "\n");
  if (fail) printf(" at %zu: gl %g cpu %g\n", at, got[at], want[at]);
  free(want);
  free(got);
  return fail;
}

int glt_texture_add_graph(op_runner *r, tfl_type type, int ih, int iw, int32_t gin[1], int *y)
{
  op_runner_init(r, TFL_OP_ADD);
  int x = op_runner_tensor(r, type, 4, (int32_t[]){1, ih, iw, 3}, NULL, false);
  int z = op_runner_tensor(r, TFL_TYPE_FLOAT32, 1, (int32_t[]){1}, NULL, true);
  *y = op_runner_tensor(r, type, 4, (int32_t[]){1, ih, iw, 3}, NULL, false);
  if (type == TFL_TYPE_UINT8) {
    op_runner_quant(r, x, 1, (float[]){0.0078125f}, (int32_t[]){128}, 0);
    op_runner_quant(r, *y, 1, (float[]){0.0078125f}, (int32_t[]){128}, 0);
  }
  op_runner_io(r, (int[]){x, z}, 2, (int[]){*y}, 1);
  gin[0] = x;
  r->graph.inputs = gin;
  r->graph.n_inputs = 1;
  return x;
}
