/* test_nhwc_input.c - tfl_pass_nhwc_input on a PyTorch-style input (runtime/tfl_passes.h).
 *
 *   test_nhwc_input OPMODELS_DIR
 *
 * transpose_nchw_to_nhwc.tflite is [1,3,4,5] -> TRANSPOSE [0,2,3,1] -> [1,4,5,3]: the pass
 * makes the NHWC tensor the input and the model then runs with nothing to do (the output
 * is the input). It must not fire when the NCHW tensor has another reader. An int8 export's
 * order, float [1,3,4,5] -> QUANTIZE -> TRANSPOSE -> DEQUANTIZE (built here): the input
 * becomes [1,4,5,3], the QUANTIZE writes the transposed tensor, and the output is the
 * input quantized and back, element for element. */
#include "check.h"
#include "graph_build.h"

#include "delegates/cpu/cpu_delegate.h"
#include "runtime/tfl_interpreter.h"
#include "runtime/tfl_loader.h"
#include "runtime/tfl_passes.h"

#include <stdlib.h>
#include <string.h>

static tfl_graph *load(const char *dir)
{
  char path[1024];
  snprintf(path, sizeof path, "%s/transpose_nchw_to_nhwc.tflite", dir);
  tfl_diag d;
  tfl_diag_init(&d);
  tfl_graph *g = NULL;
  if (tfl_load_file(path, &g, &d) != TFL_OK) fprintf(stderr, "load %s: %s\n", path, d.error);
  return g;
}

static void quantize_first(void)
{
  tfl_graph *g = calloc(1, sizeof *g);
  g->batch = 1;
  const int x = gb_tensor(g, TFL_TYPE_FLOAT32, 4, GB_DIMS(1, 3, 4, 5));
  const int q = gb_tensor(g, TFL_TYPE_INT8, 4, GB_DIMS(1, 3, 4, 5));
  const int perm = gb_const(g, TFL_TYPE_INT32, 1, GB_DIMS(4), (int32_t[]){ 0, 2, 3, 1 });
  const int t = gb_tensor(g, TFL_TYPE_INT8, 4, GB_DIMS(1, 4, 5, 3));
  const int y = gb_tensor(g, TFL_TYPE_FLOAT32, 4, GB_DIMS(1, 4, 5, 3));
  for (int k = 0; k < 2; k++) { /* the quantized tensors: scale 0.5, zero point -3 */
    tfl_tensor *qt = &g->tensors[k ? t : q];
    qt->q.n = 1;
    qt->q.scale = tfl_graph_alloc(g, sizeof(float));
    qt->q.zero_point = tfl_graph_alloc(g, sizeof(int32_t));
    qt->q.scale[0] = 0.5f;
    qt->q.zero_point[0] = -3;
  }
  tfl_params p;
  memset(&p, 0, sizeof p);
  gb_node(g, TFL_OP_QUANTIZE, (int32_t[]){ x }, 1, q, p);
  gb_node(g, TFL_OP_TRANSPOSE, (int32_t[]){ q, perm }, 2, t, p);
  gb_node(g, TFL_OP_DEQUANTIZE, (int32_t[]){ t }, 1, y, p);
  gb_set_io(g, 1, (int32_t[]){ x }, 1, (int32_t[]){ y });
  CHECK(tfl_pass_nhwc_input(g, 0), "the pass fires through a leading QUANTIZE");
  const tfl_tensor *in = &g->tensors[g->inputs[0]];
  CHECK(g->inputs[0] == x && in->dims[1] == 4 && in->dims[2] == 5 && in->dims[3] == 3,
        "the input is [1,4,5,3] in place (%d %d %d)", in->dims[1], in->dims[2], in->dims[3]);
  CHECK(g->nodes[1].dead && !g->nodes[0].dead && g->nodes[0].out[0] == t, "the QUANTIZE writes the NHWC tensor");
  tfl_diag d;
  tfl_diag_init(&d);
  cpu_delegate_options co = cpu_delegate_defaults();
  co.diag = &d;
  tfl_delegate *cpu = cpu_delegate_create(&co);
  tfl_interp_options io = tfl_interp_defaults();
  io.fallback = cpu;
  io.diag = &d;
  tfl_interpreter *it = NULL;
  CHECK(tfl_interpreter_create(g, &io, &it) == TFL_OK, "interpreter: %s", d.error);
  if (it) {
    tfl_tensor *xi = tfl_interpreter_input(it, 0);
    float *v = xi->data;
    for (size_t i = 0; i < 60; i++) v[i] = (float)i * 0.5f - 10.0f;
    CHECK(tfl_interpreter_invoke(it) == TFL_OK, "invoke: %s", d.error);
    const float *o = tfl_interpreter_output(it, 0)->data;
    int bad = 0;
    for (size_t i = 0; i < 60; i++) bad += o[i] != v[i]; /* multiples of 0.5 in range: exact */
    CHECK(bad == 0, "%d of 60 outputs differ from the NHWC input", bad);
  }
  tfl_interpreter_free(it);
  cpu->destroy(cpu);
  tfl_graph_free(g);
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: test_nhwc_input OPMODELS_DIR\n");
    return 2;
  }
  tfl_graph *g = load(argv[1]);
  CHECK(g != NULL, "model loads");
  if (!g) return 1;
  const int nchw = g->inputs[0];
  CHECK(tfl_pass_nhwc_input(g, 0), "the pass fires on an NCHW input read by one TRANSPOSE");
  const tfl_tensor *in = &g->tensors[g->inputs[0]];
  CHECK(g->inputs[0] != nchw && in->ndim == 4 && in->dims[1] == 4 && in->dims[2] == 5 && in->dims[3] == 3,
        "the input is now [1,4,5,3] (is %d dims: %d %d %d)", in->ndim, in->dims[1], in->dims[2], in->dims[3]);
  CHECK(g->nodes[0].dead, "the transpose is dead");
  CHECK(!tfl_pass_nhwc_input(g, 0), "a second run changes nothing");

  /* it runs: the output is the NHWC input, bytes as written */
  tfl_diag d;
  tfl_diag_init(&d);
  cpu_delegate_options co = cpu_delegate_defaults();
  co.diag = &d;
  tfl_delegate *cpu = cpu_delegate_create(&co);
  tfl_interp_options io = tfl_interp_defaults();
  io.fallback = cpu;
  io.diag = &d;
  tfl_interpreter *it = NULL;
  tfl_status st = tfl_interpreter_create(g, &io, &it);
  CHECK(st == TFL_OK, "interpreter: %s", d.error);
  if (st == TFL_OK) {
    tfl_tensor *x = tfl_interpreter_input(it, 0);
    float *v = x->data;
    for (size_t i = 0; i < tfl_tensor_count(x); i++) v[i] = (float)i * 0.5f;
    CHECK(tfl_interpreter_invoke(it) == TFL_OK, "invoke: %s", d.error);
    const tfl_tensor *y = tfl_interpreter_output(it, 0);
    CHECK(y->bytes == x->bytes && memcmp(y->data, x->data, x->bytes) == 0, "the output is the input");
  }
  tfl_interpreter_free(it);
  cpu->destroy(cpu);
  tfl_graph_free(g);

  /* another reader of the NCHW tensor: it must stay */
  g = load(argv[1]);
  if (g) {
    int32_t in0 = g->inputs[0], dims[4];
    memcpy(dims, g->tensors[in0].dims, sizeof dims);   /* adding a tensor may move g->tensors */
    int32_t out = tfl_graph_add_tensor(g, "relu", TFL_TYPE_FLOAT32, 4, dims);
    tfl_params p;
    memset(&p, 0, sizeof p);
    CHECK(out >= 0 && tfl_graph_add_node(g, TFL_OP_RELU, &in0, 1, &out, 1, &p) >= 0, "add a reader");
    CHECK(!tfl_pass_nhwc_input(g, 0), "the pass keeps an input that is read twice");
    CHECK(g->inputs[0] == in0 && !g->nodes[0].dead, "nothing changed");
    tfl_graph_free(g);
  }
  quantize_first();
  printf("%s\n", failures ? "FAIL" : "ok");
  return failures != 0;
}
