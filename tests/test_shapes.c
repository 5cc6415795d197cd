/* test_shapes.c - shape inference, one op at a time, against shapes worked out by hand
 * (numpy/TensorFlow semantics for slices). Each case is a one-node graph whose output
 * is declared empty, so tfl_infer_shapes fills it in; one case declares a wrong shape
 * and must fail naming node and tensor. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/tfl_passes.h"

static int failures;

typedef struct {
  tfl_graph *g;
} one;

/* Tensor 0: float input of `dims`; inputs 1..: int32 constants. Output is the last tensor. */
static tfl_graph *graph(tfl_op op, int ndim, const int32_t *dims, int n_const, const int32_t *const *cvals,
                        const int *clen)
{
  tfl_graph *g = calloc(1, sizeof *g);
  g->n_tensors = n_const + 2;
  g->tensors = calloc((size_t)g->n_tensors, sizeof(tfl_tensor));
  tfl_tensor *x = &g->tensors[0];
  x->name = "x";
  x->type = TFL_TYPE_FLOAT32;
  x->ndim = ndim;
  memcpy(x->dims, dims, sizeof(int32_t) * (size_t)ndim);
  tfl_tensor_update_bytes(x);
  for (int i = 0; i < n_const; i++) {
    tfl_tensor *c = &g->tensors[1 + i];
    c->name = "c";
    c->type = TFL_TYPE_INT32;
    c->ndim = 1;
    c->dims[0] = clen[i];
    c->is_const = true;
    c->producer = -1;
    tfl_tensor_update_bytes(c);
    c->data = tfl_graph_alloc(g, c->bytes);
    memcpy(c->data, cvals[i], c->bytes);
  }
  tfl_tensor *y = &g->tensors[n_const + 1];
  y->name = "y";
  y->type = TFL_TYPE_FLOAT32;
  y->producer = 0;
  g->n_nodes = 1;
  g->nodes = calloc(1, sizeof(tfl_node));
  tfl_node *n = &g->nodes[0];
  n->op = op;
  n->n_in = n_const + 1;
  n->n_out = 1;
  n->in = tfl_graph_alloc(g, sizeof(int32_t) * (size_t)n->n_in);
  n->out = tfl_graph_alloc(g, sizeof(int32_t));
  for (int i = 0; i < n->n_in; i++) n->in[i] = i;
  n->out[0] = n_const + 1;
  if (op == TFL_OP_RESHAPE) n->p.reshape.n = -1;
  return g;
}

static void expect(const char *what, tfl_graph *g, int ndim, const int32_t *want)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_status s = tfl_infer_shapes(g, &diag);
  const tfl_tensor *y = &g->tensors[g->nodes[0].out[0]];
  bool ok = s == TFL_OK && y->ndim == ndim && !memcmp(y->dims, want, sizeof(int32_t) * (size_t)ndim) &&
            y->bytes == tfl_tensor_count(y) * 4;
  if (!ok) {
    failures++;
    printf("FAIL %s: status %d (%s), got [", what, s, diag.error);
    for (int i = 0; i < y->ndim; i++) printf("%s%d", i ? "," : "", y->dims[i]);
    printf("], want [");
    for (int i = 0; i < ndim; i++) printf("%s%d", i ? "," : "", want[i]);
    printf("]\n");
  }
  tfl_graph_free(g);
}

#define DIMS(...) ((const int32_t[]){__VA_ARGS__})
#define NDIMS(...) ((int)(sizeof((int32_t[]){__VA_ARGS__}) / sizeof(int32_t)))
#define EXPECT(what, g, ...) expect(what, g, NDIMS(__VA_ARGS__), DIMS(__VA_ARGS__))

static tfl_graph *conv(tfl_op op, const int32_t *wdims, tfl_padding pad, int stride, int dil)
{
  tfl_graph *g = graph(op, 4, DIMS(1, 10, 10, 3), 0, NULL, NULL);
  /* weights as a second (float) input */
  g->tensors = realloc(g->tensors, 3 * sizeof(tfl_tensor));
  g->tensors[2] = g->tensors[1];
  memset(&g->tensors[1], 0, sizeof(tfl_tensor));
  g->tensors[1].ndim = 4;
  memcpy(g->tensors[1].dims, wdims, 4 * sizeof(int32_t));
  g->tensors[1].type = TFL_TYPE_FLOAT32;
  g->n_tensors = 3;
  tfl_node *n = &g->nodes[0];
  n->n_in = 2;
  n->in = tfl_graph_alloc(g, 2 * sizeof(int32_t));
  n->in[0] = 0;
  n->in[1] = 1;
  n->out[0] = 2;
  n->p.conv = (tfl_conv_params){.padding = pad, .stride_w = stride, .stride_h = stride, .dilation_w = dil,
                                .dilation_h = dil, .depth_multiplier = 1};
  return g;
}

static void test_conv(void)
{
  EXPECT("conv SAME s2", conv(TFL_OP_CONV_2D, DIMS(8, 3, 3, 3), TFL_PAD_SAME, 2, 1), 1, 5, 5, 8);
  EXPECT("conv VALID s2 d2", conv(TFL_OP_CONV_2D, DIMS(8, 3, 3, 3), TFL_PAD_VALID, 2, 2), 1, 3, 3, 8);
  EXPECT("depthwise VALID", conv(TFL_OP_DEPTHWISE_CONV_2D, DIMS(1, 3, 3, 6), TFL_PAD_VALID, 1, 1), 1, 8, 8, 6);
  EXPECT("transpose bias SAME", conv(TFL_OP_CONV2D_TRANSPOSE_BIAS, DIMS(4, 4, 4, 3), TFL_PAD_SAME, 2, 1), 1, 20,
         20, 4);
  EXPECT("transpose bias VALID", conv(TFL_OP_CONV2D_TRANSPOSE_BIAS, DIMS(4, 3, 3, 3), TFL_PAD_VALID, 2, 1), 1,
         21, 21, 4);
  tfl_graph *g = graph(TFL_OP_MAX_POOL_2D, 4, DIMS(1, 7, 7, 5), 0, NULL, NULL);
  g->nodes[0].p.pool = (tfl_pool_params){.padding = TFL_PAD_VALID, .stride_w = 2, .stride_h = 2, .filter_w = 3,
                                         .filter_h = 3};
  EXPECT("max pool VALID", g, 1, 3, 3, 5);
}

static tfl_graph *slice(const int32_t *b, const int32_t *e, const int32_t *s, int n, tfl_strided_slice_params p)
{
  const int32_t *c[3] = {b, e, s};
  int len[3] = {n, n, n};
  tfl_graph *g = graph(TFL_OP_STRIDED_SLICE, 4, DIMS(1, 4, 6, 3), 3, c, len);
  g->nodes[0].p.slice = p;
  return g;
}

static void test_slice(void)
{
  EXPECT("slice plain", slice(DIMS(0, 1, 0, 0), DIMS(1, 3, 6, 3), DIMS(1, 1, 2, 1), 4, (tfl_strided_slice_params){0}),
         1, 2, 3, 3);
  EXPECT("slice shrink",
         slice(DIMS(0, 1, 0, 0), DIMS(1, 3, 6, 3), DIMS(1, 1, 2, 1), 4,
               (tfl_strided_slice_params){.shrink_axis_mask = 1}),
         2, 3, 3);
  EXPECT("slice masks",
         slice(DIMS(0, 0, 0, 0), DIMS(0, 0, 0, 0), DIMS(1, 1, 1, 1), 4,
               (tfl_strided_slice_params){.begin_mask = 15, .end_mask = 15}),
         1, 4, 6, 3);
  EXPECT("slice negative stride", slice(DIMS(0, -1, 0, 0), DIMS(1, 0, 6, 3), DIMS(1, -1, 1, 1), 4,
                                        (tfl_strided_slice_params){0}),
         1, 3, 6, 3);
  EXPECT("slice ellipsis",
         slice(DIMS(0, 0), DIMS(0, 2), DIMS(1, 1), 2, (tfl_strided_slice_params){.ellipsis_mask = 1}), 1, 4, 6, 2);
  EXPECT("slice new axis",
         slice(DIMS(0, 0), DIMS(0, 0), DIMS(1, 1), 2,
               (tfl_strided_slice_params){.new_axis_mask = 1, .begin_mask = 2, .end_mask = 2}),
         1, 1, 4, 6, 3);
  EXPECT("slice short spec", slice(DIMS(0, 1), DIMS(1, 3), DIMS(1, 1), 2, (tfl_strided_slice_params){0}), 1, 2, 6,
         3);
  EXPECT("slice offset",
         slice(DIMS(0, 1, 2, 0), DIMS(1, 2, 3, 3), DIMS(1, 1, 1, 1), 4, (tfl_strided_slice_params){.offset = true}),
         1, 2, 3, 3);
}

static void test_misc(void)
{
  const int32_t *c[1];
  int len[1];
  tfl_graph *g;

  c[0] = DIMS(1, 2);
  len[0] = 2;
  g = graph(TFL_OP_MEAN, 4, DIMS(1, 4, 6, 3), 1, c, len);
  g->nodes[0].p.reducer.keep_dims = true;
  EXPECT("mean keep", g, 1, 1, 1, 3);
  g = graph(TFL_OP_MEAN, 4, DIMS(1, 4, 6, 3), 1, c, len);
  EXPECT("mean", g, 1, 3);

  c[0] = DIMS(-1, 6);
  g = graph(TFL_OP_RESHAPE, 4, DIMS(1, 4, 6, 3), 1, c, len);
  EXPECT("reshape -1", g, 12, 6);
  g = graph(TFL_OP_RESHAPE, 4, DIMS(1, 4, 6, 3), 0, NULL, NULL);
  g->nodes[0].p.reshape = (tfl_reshape_params){.n = 3, .shape = {2, -1, 3}};
  EXPECT("reshape params", g, 2, 12, 3);

  g = graph(TFL_OP_SQUEEZE, 4, DIMS(1, 4, 1, 3), 0, NULL, NULL);
  EXPECT("squeeze all", g, 4, 3);
  g = graph(TFL_OP_SQUEEZE, 4, DIMS(1, 4, 1, 3), 0, NULL, NULL);
  g->nodes[0].p.squeeze = (tfl_squeeze_params){.n = 1, .dims = {-2}};
  EXPECT("squeeze -2", g, 1, 4, 3);

  c[0] = DIMS(0, 0, 1, 2, 3, 0, 0, 1);
  len[0] = 8;
  g = graph(TFL_OP_PAD, 4, DIMS(1, 4, 6, 3), 1, c, len);
  EXPECT("pad", g, 1, 7, 9, 4);

  c[0] = DIMS(9, 11);
  len[0] = 2;
  g = graph(TFL_OP_RESIZE_BILINEAR, 4, DIMS(1, 4, 6, 3), 1, c, len);
  EXPECT("resize", g, 1, 9, 11, 3);

  g = graph(TFL_OP_DEPTH_TO_SPACE, 4, DIMS(1, 4, 6, 12), 0, NULL, NULL);
  g->nodes[0].p.d2s.block_size = 2;
  EXPECT("depth to space", g, 1, 8, 12, 3);

  c[0] = DIMS(-1);
  len[0] = 1;
  g = graph(TFL_OP_ARG_MAX, 4, DIMS(1, 4, 6, 3), 1, c, len);
  EXPECT("arg max", g, 1, 4, 6);

  /* FULLY_CONNECTED: weights [units=5, depth=3] */
  for (int keep = 0; keep < 2; keep++) {
    g = graph(TFL_OP_FULLY_CONNECTED, 3, DIMS(2, 4, 3), 0, NULL, NULL);
    g->tensors = realloc(g->tensors, 3 * sizeof(tfl_tensor));
    g->tensors[2] = g->tensors[1];
    memset(&g->tensors[1], 0, sizeof(tfl_tensor));
    g->tensors[1].ndim = 2;
    g->tensors[1].dims[0] = 5;
    g->tensors[1].dims[1] = 3;
    g->n_tensors = 3;
    g->nodes[0].n_in = 2;
    g->nodes[0].in = tfl_graph_alloc(g, 2 * sizeof(int32_t));
    g->nodes[0].in[1] = 1;
    g->nodes[0].out[0] = 2;
    g->nodes[0].p.fc.keep_num_dims = keep;
    if (keep) EXPECT("fc keep_num_dims", g, 2, 4, 5);
    else EXPECT("fc", g, 8, 5);
  }
}

static void test_broadcast_and_mismatch(void)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_graph *g = graph(TFL_OP_ADD, 4, DIMS(1, 4, 1, 3), 0, NULL, NULL);
  g->tensors = realloc(g->tensors, 3 * sizeof(tfl_tensor));
  g->tensors[2] = g->tensors[1];
  g->tensors[1] = g->tensors[0];
  g->tensors[1].ndim = 2;
  g->tensors[1].dims[0] = 6;
  g->tensors[1].dims[1] = 1;
  g->n_tensors = 3;
  g->nodes[0].n_in = 2;
  g->nodes[0].in = tfl_graph_alloc(g, 2 * sizeof(int32_t));
  g->nodes[0].in[1] = 1;
  g->nodes[0].out[0] = 2;
  EXPECT("broadcast", g, 1, 4, 6, 3);

  g = graph(TFL_OP_RELU, 2, DIMS(2, 3), 0, NULL, NULL);
  g->tensors[1].ndim = 2;
  g->tensors[1].dims[0] = 3;
  g->tensors[1].dims[1] = 2;
  tfl_status s = tfl_infer_shapes(g, &diag);
  if (s != TFL_ERR_SHAPE || !strstr(diag.error, "node 0 (RELU)") || !strstr(diag.error, "[3,2]")) {
    failures++;
    printf("FAIL mismatch: status %d, message '%s'\n", s, diag.error);
  }
  tfl_graph_free(g);
}

/* The reducers' axes rule (tfl_reduce_axes.h): negative and repeated axes, keep_dims,
 * every axis to a scalar, an axis out of range as an error naming it. */
static void expect_error(const char *what, tfl_graph *g, tfl_status want, const char *part)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  tfl_status s = tfl_infer_shapes(g, &diag);
  if (s != want || !strstr(diag.error, part)) {
    failures++;
    printf("FAIL %s: status %d (%s), want %d and \"%s\"\n", what, s, diag.error, want, part);
  }
  tfl_graph_free(g);
}

static tfl_graph *reducer(tfl_op op, const int32_t *axes, int n_axes, bool keep)
{
  const int32_t *c[1] = {axes};
  int len[1] = {n_axes};
  tfl_graph *g = graph(op, 4, DIMS(2, 3, 4, 5), 1, c, len);
  g->nodes[0].p.reducer.keep_dims = keep;
  return g;
}

static void test_reduce(void)
{
  EXPECT("sum neg dup", reducer(TFL_OP_SUM, DIMS(-1, 3, 1), 3, false), 2, 4);
  EXPECT("max keep", reducer(TFL_OP_REDUCE_MAX, DIMS(0, -2), 2, true), 1, 3, 1, 5);
  EXPECT("prod no axes", reducer(TFL_OP_REDUCE_PROD, DIMS(0), 0, false), 2, 3, 4, 5);
  EXPECT("mean all keep", reducer(TFL_OP_MEAN, DIMS(3, 2, 1, 0), 4, true), 1, 1, 1, 1);
  expect_error("sum axis 4", reducer(TFL_OP_SUM, DIMS(1, 4), 2, false), TFL_ERR_SHAPE, "axis 4 out of range");
  expect_error("mean axis -5", reducer(TFL_OP_MEAN, DIMS(-5), 1, true), TFL_ERR_SHAPE, "axis -5 out of range");
  const int32_t *c[1] = {DIMS(-1)};
  int len[1] = {1};
  EXPECT("arg_min -1", graph(TFL_OP_ARG_MIN, 3, DIMS(2, 3, 4), 1, c, len), 2, 3);
  c[0] = DIMS(3);
  expect_error("arg_min 3", graph(TFL_OP_ARG_MIN, 3, DIMS(2, 3, 4), 1, c, len), TFL_ERR_SHAPE, "axis 3 out of range");
}

int main(void)
{
  test_conv();
  test_slice();
  test_misc();
  test_broadcast_and_mismatch();
  test_reduce();
  if (failures) printf("%d failures\n", failures);
  else printf("shapes: all checks passed\n");
  return failures != 0;
}
