/* test_onednn_fusion.c - a oneDNN conv that absorbs ADD(PAD(r), conv) + RELU, the
 * residual of MediaPipe's BlazeFace blocks (r has fewer channels; the PAD adds zero
 * channels after them), or ADD(r, conv) + RELU: onednn_conv_channel_pad / _fusable_add /
 * _fusable_act / _addend find the nodes, and the fused conv's output is compared, every
 * element, with the reference kernels run node by node (fp32: 1e-5 relative; bf16: 2^-7
 * relative to the largest output, far above bf16's rounding of 24-channel sums of products
 * below 1 and far below a missing residual or channel), at 1, 2 and 3 threads (row chunks,
 * each filled with its rows of r). bf16 also with r stored as bf16 and the output written
 * as bf16 (the delegate's bf16 links), for each mix of the two. Also the PADs it must
 * leave alone: spatial padding, a nonzero PADV2 value, a second reader of the padded
 * tensor. Exit 77 where oneDNN has no JIT convolution. */
#include "conv_test_util.h"

#include "onednn_test_util.h"

enum { T_X, T_W, T_B, T_C, T_R, T_PADS, T_P, T_A, T_Y, T_VALUE, T_Q, N_T };
enum { N_POOL, N_CONV, N_PAD, N_ADD, N_RELU, N_NODES }; /* N_POOL dead unless POOLED */
enum { H = 13, W = 11, C = 24, RC = 20, OC = 28 };

static int failures, checked;

typedef struct {
  tfl_graph g;
  tfl_tensor t[N_T];
  tfl_node nodes[N_NODES];
  int32_t io[N_NODES][3], outs[N_NODES][1], pads[8];
  float value;
} graph;

static void tensor(graph *m, int i, const int32_t *dims, int ndim, tfl_type type, bool is_const, int producer)
{
  tfl_tensor *t = &m->t[i];
  t->type = type;
  t->ndim = ndim;
  memcpy(t->dims, dims, sizeof(int32_t) * (size_t)ndim);
  tfl_tensor_update_bytes(t);
  t->is_const = is_const;
  t->producer = producer;
  t->data = calloc(1, t->bytes);
  if (!t->data) abort();
  if (type == TFL_TYPE_FLOAT32 && i != T_VALUE) test_fill(t->data, tfl_tensor_count(t), -1, 1);
}

static void node(graph *m, int i, tfl_op op, const int32_t *in, int n_in, int out)
{
  tfl_node *n = &m->nodes[i];
  n->op = op;
  n->version = 1;
  n->n_in = n_in;
  n->in = m->io[i];
  memcpy(m->io[i], in, sizeof(int32_t) * (size_t)n_in);
  n->n_out = 1;
  m->outs[i][0] = out;
  n->out = m->outs[i];
}

enum { CHANNEL_PAD, POOLED, SPATIAL_PAD, NO_PAD };

/* x -> CONV 1x1 (C -> OC) -> c;  r -> PAD (channels RC -> OC) -> p;  a = ADD(p, c);  y = RELU(a).
 * POOLED: r = MAX_POOL 2x2/2 (q) first (a stride-2 block); SPATIAL_PAD: pad rows instead
 * (not a channel pad); NO_PAD: a = ADD(r, c), r with OC channels, the PAD dead;
 * padv2_value: PADV2 with that value. */
static void build(graph *m, int mode, float padv2_value)
{
  const bool pad_hw = mode == SPATIAL_PAD;
  memset(m, 0, sizeof *m);
  tensor(m, T_X, (int32_t[]){1, H, W, C}, 4, TFL_TYPE_FLOAT32, false, -1);
  tensor(m, T_W, (int32_t[]){OC, 1, 1, C}, 4, TFL_TYPE_FLOAT32, true, -1);
  tensor(m, T_B, (int32_t[]){OC}, 1, TFL_TYPE_FLOAT32, true, -1);
  tensor(m, T_C, (int32_t[]){1, H, W, OC}, 4, TFL_TYPE_FLOAT32, false, N_CONV);
  tensor(m, T_R, (int32_t[]){1, pad_hw ? H - 2 : H, W, mode == CHANNEL_PAD || mode == POOLED ? RC : OC}, 4,
         TFL_TYPE_FLOAT32, false, mode == POOLED ? N_POOL : -1);
  tensor(m, T_Q, (int32_t[]){1, 2 * H, 2 * W, RC}, 4, TFL_TYPE_FLOAT32, false, -1);
  tensor(m, T_PADS, (int32_t[]){4, 2}, 2, TFL_TYPE_INT32, true, -1);
  tensor(m, T_P, (int32_t[]){1, H, W, OC}, 4, TFL_TYPE_FLOAT32, false, N_PAD);
  tensor(m, T_A, (int32_t[]){1, H, W, OC}, 4, TFL_TYPE_FLOAT32, false, N_ADD);
  tensor(m, T_Y, (int32_t[]){1, H, W, OC}, 4, TFL_TYPE_FLOAT32, false, N_RELU);
  tensor(m, T_VALUE, (int32_t[]){1}, 1, TFL_TYPE_FLOAT32, true, -1);
  ((float *)m->t[T_VALUE].data)[0] = padv2_value;
  const int32_t pads[8] = {0, 0, pad_hw ? 1 : 0, pad_hw ? 1 : 0, 0, 0, 0, pad_hw ? 0 : OC - RC};
  memcpy(m->t[T_PADS].data, pads, sizeof pads);
  node(m, N_POOL, TFL_OP_MAX_POOL_2D, (int32_t[]){T_Q}, 1, T_R);
  m->nodes[N_POOL].p.pool = (tfl_pool_params){.padding = TFL_PAD_VALID, .stride_w = 2, .stride_h = 2, .filter_w = 2,
                                              .filter_h = 2, .act = TFL_ACT_NONE};
  m->nodes[N_POOL].dead = mode != POOLED;
  node(m, N_CONV, TFL_OP_CONV_2D, (int32_t[]){T_X, T_W, T_B}, 3, T_C);
  m->nodes[N_CONV].p.conv = (tfl_conv_params){.padding = TFL_PAD_SAME, .stride_h = 1, .stride_w = 1, .dilation_h = 1,
                                         .dilation_w = 1, .act = TFL_ACT_NONE};
  if (padv2_value != 0.0f)
    node(m, N_PAD, TFL_OP_PADV2, (int32_t[]){T_R, T_PADS, T_VALUE}, 3, T_P);
  else
    node(m, N_PAD, TFL_OP_PAD, (int32_t[]){T_R, T_PADS}, 2, T_P);
  node(m, N_ADD, TFL_OP_ADD, (int32_t[]){mode == NO_PAD ? T_R : T_P, T_C}, 2, T_A);
  m->nodes[N_PAD].dead = mode == NO_PAD;
  node(m, N_RELU, TFL_OP_RELU, (int32_t[]){T_A}, 1, T_Y);
  m->g = (tfl_graph){.n_tensors = N_T, .tensors = m->t, .n_nodes = N_NODES, .nodes = m->nodes, .n_outputs = 1,
                     .outputs = m->outs[N_RELU], .batch = 1};
}

static void release(graph *m)
{
  for (int i = 0; i < N_T; i++) free(m->t[i].data);
}

/* The reference kernels, node by node, into y. */
static bool reference(graph *m)
{
  tfl_diag diag;
  tfl_diag_init(&diag);
  for (int i = 0; i < N_NODES; i++) {
    if (m->nodes[i].dead) continue;
    const cpu_kernel *k = cpu_reference_kernel(m->nodes[i].op);
    void *st = NULL;
    if (!k || k->prepare(&m->g, &m->nodes[i], &st, &diag) != TFL_OK ||
        k->eval(&m->g, &m->nodes[i], st, NULL, &diag) != TFL_OK) {
      fprintf(stderr, "FAIL reference node %d: %s\n", i, diag.error);
      failures++;
      return false;
    }
    if (k->release) k->release(st);
  }
  return true;
}

static void expect(const char *what, int got, int want)
{
  checked++;
  if (got != want) {
    fprintf(stderr, "FAIL %s: %d, expected %d\n", what, got, want);
    failures++;
  }
}

/* fp32 -> bf16 bits, nearest even (the values here are finite) */
static uint16_t to_bf16(float v)
{
  uint32_t u;
  memcpy(&u, &v, 4);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static float from_bf16(uint16_t h)
{
  const uint32_t u = (uint32_t)h << 16;
  float v;
  memcpy(&v, &u, 4);
  return v;
}

/* mode CHANNEL_PAD, POOLED or NO_PAD; z_bf16: r stored as bf16; dst_bf16: the output
 * written so (POOLED: q stays fp32, as the delegate plans it) */
static void fused_case(int mode, bool bf16, bool z_bf16, bool dst_bf16)
{
  graph m;
  build(&m, mode, 0.0f);
  int channels = -1;
  expect("channel pad found", onednn_conv_channel_pad(&m.g, T_P), mode == NO_PAD ? -1 : N_PAD);
  expect("MAX_POOL before it found", onednn_conv_addend_pool(&m.g, N_PAD), mode == POOLED ? N_POOL : -1);
  expect("ADD fusable", onednn_conv_fusable_add(&m.g, N_CONV), N_ADD);
  expect("addend: r", onednn_conv_addend(&m.g, N_CONV, N_ADD, &channels), T_R);
  expect("addend channels", channels, mode == NO_PAD ? 0 : RC);
  expect("RELU fusable", onednn_conv_fusable_act(&m.g, T_A), N_RELU);
  float *r = m.t[T_R].data;
  const size_t nr = tfl_tensor_count(&m.t[T_R]);
  if (z_bf16) /* the reference adds the values the bf16 addend holds */
    for (size_t i = 0; i < nr; i++) r[i] = from_bf16(to_bf16(r[i]));
  if (!reference(&m)) {
    release(&m);
    return;
  }
  const size_t n = tfl_tensor_count(&m.t[T_Y]);
  float *want = malloc(m.t[T_Y].bytes);
  memcpy(want, m.t[T_Y].data, m.t[T_Y].bytes);
  float top = 0;
  for (size_t i = 0; i < n; i++) top = fabsf(want[i]) > top ? fabsf(want[i]) : top;
  if (z_bf16) /* stored as bf16 in the first half of its bytes, as a bf16 link writes it */
    for (size_t i = 0; i < nr; i++) ((uint16_t *)(void *)r)[i] = to_bf16(r[i]);
  for (int threads = 1; threads <= 3; threads++) {
    char what[128];
    snprintf(what, sizeof what, "conv + %s ADD + RELU %s%s%s",
             mode == CHANNEL_PAD ? "PAD-channels" : (mode == POOLED ? "MAX_POOL + PAD-channels" : "plain"),
             bf16 ? "bf16" : "fp32", z_bf16 ? ", bf16 addend" : "", dst_bf16 ? ", bf16 output" : "");
    onednn_conv_options o = {threads, bf16, cpu_features_detect(), -1, false, dst_bf16, N_ADD, N_RELU, z_bf16,
                             mode == POOLED};
    if (!onednn_conv_applies(&m.g, N_CONV, &o)) {
      if (!bf16 || cpu_features_detect().avx512_bf16) {
        fprintf(stderr, "FAIL %s: onednn_conv_applies refuses it\n", what);
        failures++;
      }
      break;
    }
    memset(m.t[T_Y].data, 0x55, m.t[T_Y].bytes);
    memset(m.t[T_P].data, 0x55, m.t[T_P].bytes); /* the PAD does not run: its output is never read */
    if (mode == POOLED) memset(m.t[T_R].data, 0x55, m.t[T_R].bytes); /* nor the MAX_POOL */
    tfl_diag diag;
    const tfl_status st = onednn_test_run(&m.g, N_CONV, &o, &diag);
    checked++;
    if (st != TFL_OK) {
      fprintf(stderr, "FAIL %s t%d: %s\n", what, threads, diag.error);
      failures++;
      continue;
    }
    const float *y = m.t[T_Y].data;
    double worst = 0;
    size_t at = 0;
    float got[H * W * OC];
    for (size_t i = 0; i < n; i++) got[i] = dst_bf16 ? from_bf16(((const uint16_t *)(const void *)y)[i]) : y[i];
    for (size_t i = 0; i < n; i++) {
      const double d = fabs((double)got[i] - want[i]);
      if (!(d <= worst)) { /* NaN lands here too */
        worst = d;
        at = i;
      }
    }
    const double tol = bf16 ? top / 128.0 : 1e-5 * (top > 1 ? top : 1);
    if (!(worst <= tol)) {
      fprintf(stderr, "FAIL %s t%d: worst [%zu] = %.8g, reference %.8g (|d| %.3g > %.3g)\n", what, threads, at,
              (double)got[at], (double)want[at], worst, tol);
      failures++;
    }
  }
  free(want);
  release(&m);
}

/* PADs the fusion must leave to their kernels. */
static void refused_cases(void)
{
  graph m;
  build(&m, SPATIAL_PAD, 0.0f);
  expect("spatial pad is no channel pad", onednn_conv_channel_pad(&m.g, T_P), -1);
  expect("ADD of a spatially padded tensor not fusable (it exists only after the PAD)",
         onednn_conv_fusable_add(&m.g, N_CONV), -1);
  release(&m);
  build(&m, CHANNEL_PAD, 0.5f);
  expect("PADV2 with value 0.5 is no channel pad", onednn_conv_channel_pad(&m.g, T_P), -1);
  release(&m);
  build(&m, CHANNEL_PAD, 0.0f);
  m.nodes[N_RELU].in[0] = T_P; /* the padded tensor read by a second node */
  expect("padded tensor with two readers", onednn_conv_channel_pad(&m.g, T_P), -1);
  release(&m);
  build(&m, POOLED, 0.0f);
  m.nodes[N_RELU].in[0] = T_R; /* the pooled tensor read by a second node */
  expect("pooled tensor with two readers", onednn_conv_addend_pool(&m.g, N_PAD), -1);
  m.nodes[N_RELU].in[0] = T_A;
  m.nodes[N_POOL].p.pool.stride_h = 1;
  expect("MAX_POOL stride 1 not taken", onednn_conv_addend_pool(&m.g, N_PAD), -1);
  m.nodes[N_POOL].p.pool.stride_h = 2;
  m.nodes[N_POOL].p.pool.act = TFL_ACT_RELU;
  expect("MAX_POOL with an activation not taken", onednn_conv_addend_pool(&m.g, N_PAD), -1);
  release(&m);
}

int main(void)
{
  graph probe;
  build(&probe, CHANNEL_PAD, 0.0f);
  onednn_conv_options o = {1, false, cpu_features_detect(), -1, false, false, -1, -1};
  const bool jit = onednn_conv_applies(&probe.g, N_CONV, &o);
  release(&probe);
  if (!jit) {
    printf("SKIP: oneDNN has no JIT convolution on this CPU\n");
    return 77;
  }
  for (int mode = CHANNEL_PAD; mode <= NO_PAD; mode++) {
    if (mode == SPATIAL_PAD) continue;
    fused_case(mode, false, false, false);
    for (int links = 0; links < 4; links++)
      if (mode != POOLED || !(links & 1)) fused_case(mode, true, links & 1, links & 2);
  }
  refused_cases();
  printf("%d checks, %d failures\n", checked, failures);
  return failures ? 1 : 0;
}
