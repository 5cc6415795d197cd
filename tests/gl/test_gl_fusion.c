/* test_gl_fusion.c - the GL planner's fusion passes (delegates/gl/gl_fuse*.c) on small
 * graphs built here: each graph runs on the CPU delegate and on GL (fp32 and fp16), the
 * worst element must match (1e-4 / 1e-2 of the output's range), and the plan must have
 * taken the expected number of dispatches (and all of them without fusion; inverted
 * residual blocks also without their expansion fused, and with small tiles):
 *   squeeze-excite      pool, two 1x1 convolutions, sigmoid, the multiply -> 2; pools
 *                       of 64x64 pixels and of 80 slices, hidden widths 18 (not a
 *                       multiple of 4) and 84, one layer to 1280, batch 2: the workgroup
 *                       the device allows (pixel chunks and output slices split over
 *                       lanes, trees) and one of 32 lanes forced (more slices than
 *                       lanes, output slices in turn)              -> 2 each
 *   inverted residual   expand, depthwise, project, residual add: the add is the
 *                       projection's epilogue, the expansion and the depthwise
 *                       computed per tile in the projection's dispatch with
 *                       gl_tuning.irb (gl_gen_irb.c) -> 1, also with tiles of at most
 *                       3x3 pixels forced; by default the expansion apart -> 2. Stride 1 and 2,
 *                       3x3, 5x5 and dilated, 150 and 576 expanded channels (not a
 *                       multiple of 4, several chunks), partial tiles, batch of 2
 *   depthwise + 1x1     the pair in one dispatch on awkward shapes: stride 2, 5x5
 *                       dilated on 437 pixels (tiles of blocks of 4 pixels), 150
 *                       channels (tiles of a pixel or two), the last tile partial,
 *                       batch of 2, an activation on each               -> 1 each
 *   detector heads      box and class convolutions at two scales, reshapes and
 *                       concatenations                                    -> 2
 *   kept value          a convolution output read by an add and leaving the graph -> 1
 *   resizes             a resize to its own size (an alias, even unfused), a 2x resize
 *                       inlined into the 1x1 convolution reading it      -> 1 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delegates/cpu/cpu_delegate.h"
#include "delegates/gl/gl_delegate.h"
#include "runtime/tfl_interpreter.h"
#include "tests/check.h"
#include "tests/gl_profile_env.h"

#define MAX_T 48
#define MAX_N 24

typedef struct {
  tfl_graph *g;
  unsigned seed;
} gb;

static float rnd(gb *b)
{
  b->seed = b->seed * 1103515245u + 12345u;
  return (float)((b->seed >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static void gb_init(gb *b)
{
  b->g = calloc(1, sizeof *b->g);
  b->g->tensors = calloc(MAX_T, sizeof(tfl_tensor));
  b->g->nodes = calloc(MAX_N, sizeof(tfl_node));
  b->g->inputs = malloc(sizeof(int32_t) * 4);
  b->g->outputs = malloc(sizeof(int32_t) * 4);
  b->g->batch = 1;
  b->seed = 7;
}

/* A float32 tensor; weights (is_const) get deterministic values scaled by `scale`. */
static int gb_tensor(gb *b, int ndim, const int *dims, bool is_const, float scale)
{
  int t = b->g->n_tensors++;
  tfl_tensor *x = &b->g->tensors[t];
  x->type = TFL_TYPE_FLOAT32;
  x->ndim = ndim;
  for (int d = 0; d < ndim; d++) x->dims[d] = dims[d];
  x->producer = -1;
  tfl_tensor_update_bytes(x);
  if (is_const) {
    float *v = tfl_graph_alloc(b->g, x->bytes);
    for (size_t i = 0; i < tfl_tensor_count(x); i++) v[i] = rnd(b) * scale;
    x->data = v;
    x->is_const = true;
  }
  return t;
}

static tfl_node *gb_node(gb *b, tfl_op op, int n_in, const int *ins, int out)
{
  int k = b->g->n_nodes++;
  tfl_node *n = &b->g->nodes[k];
  n->op = op;
  n->version = 1;
  n->n_in = n_in;
  n->n_out = 1;
  n->in = tfl_graph_alloc(b->g, sizeof(int32_t) * (size_t)(n_in ? n_in : 1));
  n->out = tfl_graph_alloc(b->g, sizeof(int32_t));
  for (int i = 0; i < n_in; i++) n->in[i] = ins[i];
  n->out[0] = out;
  b->g->tensors[out].producer = k;
  return n;
}

/* CONV_2D (k x k, stride 1, SAME) from x [1,H,W,ci] to [1,H,W,co]. */
static int gb_conv(gb *b, int x, int k, int co, tfl_activation act)
{
  const tfl_tensor *xt = &b->g->tensors[x];
  int ci = xt->dims[3];
  int w = gb_tensor(b, 4, (int[]){co, k, k, ci}, true, 1.0f / sqrtf((float)(k * k * ci)));
  int bias = gb_tensor(b, 1, (int[]){co}, true, 0.1f);
  int y = gb_tensor(b, 4, (int[]){xt->dims[0], xt->dims[1], xt->dims[2], co}, false, 0);
  tfl_node *n = gb_node(b, TFL_OP_CONV_2D, 3, (int[]){x, w, bias}, y);
  n->p.conv = (tfl_conv_params){TFL_PAD_SAME, 1, 1, 1, 1, 0, act};
  return y;
}

static int gb_unary(gb *b, tfl_op op, int x)
{
  const tfl_tensor *xt = &b->g->tensors[x];
  int y = gb_tensor(b, xt->ndim, xt->dims, false, 0);
  gb_node(b, op, 1, (int[]){x}, y);
  return y;
}

static int gb_binary(gb *b, tfl_op op, int x, int z, const int *out_dims)
{
  const tfl_tensor *xt = &b->g->tensors[x];
  int y = gb_tensor(b, xt->ndim, out_dims ? out_dims : xt->dims, false, 0);
  gb_node(b, op, 2, (int[]){x, z}, y);
  return y;
}

static int gb_reshape(gb *b, int x, int ndim, const int *dims)
{
  int y = gb_tensor(b, ndim, dims, false, 0);
  tfl_node *n = gb_node(b, TFL_OP_RESHAPE, 1, (int[]){x}, y);
  n->p.reshape.n = ndim;
  for (int d = 0; d < ndim; d++) n->p.reshape.shape[d] = dims[d];
  return y;
}

static int gb_resize(gb *b, int x, int h, int w)
{
  const tfl_tensor *xt = &b->g->tensors[x];
  int size = b->g->n_tensors;
  gb_tensor(b, 1, (int[]){2}, false, 0);
  int32_t *sv = tfl_graph_alloc(b->g, 8);
  sv[0] = h, sv[1] = w;
  b->g->tensors[size].type = TFL_TYPE_INT32;
  b->g->tensors[size].data = sv;
  b->g->tensors[size].is_const = true;
  int y = gb_tensor(b, 4, (int[]){1, h, w, xt->dims[3]}, false, 0);
  tfl_node *n = gb_node(b, TFL_OP_RESIZE_BILINEAR, 2, (int[]){x, size}, y);
  n->p.resize.half_pixel_centers = true;
  return y;
}

static void gb_io(gb *b, int n_in, const int *ins, int n_out, const int *outs)
{
  b->g->n_inputs = n_in;
  b->g->n_outputs = n_out;
  memcpy(b->g->inputs, ins, sizeof(int32_t) * (size_t)n_in);
  memcpy(b->g->outputs, outs, sizeof(int32_t) * (size_t)n_out);
}

typedef void (*build_fn)(gb *b);

static tfl_graph *make(build_fn build)
{
  gb b;
  gb_init(&b);
  build(&b);
  return b.g;
}

/* Runs the graph on the CPU and on GL; worst element per output; returns GL's dispatch
 * count (-1 on failure). */
/* How a graph is planned: the default, nothing fused, inverted residual blocks in one
 * dispatch (gl_tuning.irb), those with tiles of at most 3x3 pixels (partial ones at the
 * map's edges, many chunks, whatever the device). */
typedef enum { DEFAULT, UNFUSED, IRB, IRB_TILE3, SE_WG32, N_MODES } mode;
static const char *const mode_name[N_MODES] = {"", " unfused", " irb", " irb-tile 3", " se-wg 32"};

static int run(const char *name, build_fn build, bool fp16, mode md)
{
  tfl_diag dc, dg;
  tfl_diag_init(&dc);
  tfl_diag_init(&dg);
  tfl_delegate *cpu = cpu_delegate_create(&(cpu_delegate_options){.threads = 1, .diag = &dc});
  gl_delegate_options o = gl_delegate_defaults();
  o.precision = fp16 ? GL_PRECISION_FP16 : GL_PRECISION_FP32;
  o.cache_dir = "";
  o.profile = gl_profile_from_env();
  o.tuning.no_fuse = md == UNFUSED;
  o.tuning.irb = md == IRB || md == IRB_TILE3;
  o.tuning.irb_tile = md == IRB_TILE3 ? 3 : 0;
  o.tuning.se_wg = md == SE_WG32 ? 32 : 0;
  o.diag = &dg;
  tfl_delegate *gl = gl_delegate_create(&o);
  tfl_graph *gc = make(build), *gg = make(build); /* passes change a graph: one each */
  tfl_interpreter *ic = NULL, *ig = NULL;
  tfl_interp_options a = tfl_interp_defaults(), c = tfl_interp_defaults();
  a.fallback = cpu;
  a.diag = &dc;
  c.delegate = gl;
  c.fallback = cpu;
  c.diag = &dg;
  int dispatches = -1;
  bool ok = cpu && gl && !tfl_interpreter_create(gc, &a, &ic) && !tfl_interpreter_create(gg, &c, &ig);
  CHECK(ok, "%s: interpreters: %s %s", name, dc.error, dg.error);
  if (ok) {
    unsigned seed = 99;
    for (int i = 0; i < tfl_interpreter_input_count(ic); i++) {
      tfl_tensor *x = tfl_interpreter_input(ic, i), *y = tfl_interpreter_input(ig, i);
      for (size_t k = 0; k < tfl_tensor_count(x); k++) {
        seed = seed * 1103515245u + 12345u;
        ((float *)x->data)[k] = (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
      }
      memcpy(y->data, x->data, x->bytes);
    }
    ok = !tfl_interpreter_invoke(ic) && !tfl_interpreter_invoke(ig);
    CHECK(ok, "%s: invoke: %s %s", name, dc.error, dg.error);
    for (int k = 0; ok && k < tfl_interpreter_output_count(ic); k++) {
      const tfl_tensor *x = tfl_interpreter_output(ic, k), *y = tfl_interpreter_output(ig, k);
      double worst = 0, lo = INFINITY, hi = -INFINITY;
      for (size_t i = 0; i < tfl_tensor_count(x); i++) {
        double p = ((const float *)x->data)[i], q = ((const float *)y->data)[i];
        lo = fmin(lo, p), hi = fmax(hi, p);
        if (!(fabs(p - q) <= worst)) worst = isnan(q) ? INFINITY : fabs(p - q);
      }
      double range = hi - lo > 0 ? hi - lo : 1, tol = fp16 ? 1e-2 : 1e-4;
      CHECK(worst / range <= tol, "%s %s%s output %d: worst %.3g of range %.3g (tol %.0e)", name, fp16 ? "fp16" : "fp32",
            mode_name[md], k, worst / range, range, tol);
    }
    gl_delegate_stats st;
    gl_delegate_get_stats(gl, &st);
    dispatches = st.partitions == 1 ? st.dispatches : -1;
  }
  tfl_interpreter_free(ic);
  tfl_interpreter_free(ig);
  tfl_graph_free(gc);
  tfl_graph_free(gg);
  if (gl) gl->destroy(gl);
  if (cpu) cpu->destroy(cpu);
  return dispatches;
}

/* want[mode]: the dispatches expected, -1: mode not run */
static void expect_modes(const char *name, build_fn build, const int want[N_MODES])
{
  for (int fp16 = 0; fp16 < 2; fp16++)
    for (int md = 0; md < N_MODES; md++) {
      if (want[md] < 0) continue;
      int d = run(name, build, fp16, (mode)md);
      const char *pr = fp16 ? "fp16" : "fp32";
      CHECK(d == want[md], "%s %s%s: %d dispatches, expected %d", name, pr, mode_name[md], d, want[md]);
      if (d == want[md]) printf("ok   %s %s%s: %d dispatches\n", name, pr, mode_name[md], d);
    }
}

static void expect(const char *name, build_fn build, int fused, int unfused)
{
  expect_modes(name, build, (int[N_MODES]){fused, unfused, -1, -1, -1});
}

/* Squeeze-excite groups also with a workgroup of 32 lanes (gl_gen_se.c's other paths). */
static void expect_se(const char *name, build_fn build, int fused, int unfused)
{
  expect_modes(name, build, (int[N_MODES]){fused, unfused, -1, -1, fused});
}

/* An inverted residual block: by default two dispatches (the expansion, then the
 * depthwise + projection pair), unfused four (expansion, depthwise, projection, add) or
 * three without the add; with gl_tuning.irb one, with small tiles forced too one.
 * halo_bound: no tile that shared memory holds keeps the halo's recomputation within
 * gl_gen_irb.c's bound (5x5 or dilated windows at stride 1), so even with irb the
 * expansion stays apart (two) unless the tile is forced. */
static void expect_irb(const char *name, build_fn build, bool residual, bool halo_bound)
{
  expect_modes(name, build, (int[N_MODES]){2, residual ? 4 : 3, halo_bound ? 2 : 1, 1, -1});
}

/* The global average pool of x [B,H,W,C]: [B,1,1,C]. */
static int gb_global_pool(gb *b, int x)
{
  const int *d = b->g->tensors[x].dims;
  int p = gb_tensor(b, 4, (int[]){d[0], 1, 1, d[3]}, false, 0);
  tfl_node *n = gb_node(b, TFL_OP_AVERAGE_POOL_2D, 1, (int[]){x}, p);
  n->p.pool = (tfl_pool_params){TFL_PAD_VALID, d[2], d[1], d[2], d[1], TFL_ACT_NONE};
  return p;
}

/* A squeeze-excite block on x [B,H,W,C] (pool, 1x1 to `hidden` with ReLU, 1x1 back to C,
 * sigmoid, times x), then a 1x1 convolution to 8 channels. */
static void gb_se(gb *b, int batch, int h, int w, int c, int hidden)
{
  int x = gb_tensor(b, 4, (int[]){batch, h, w, c}, false, 0);
  int hid = gb_conv(b, gb_global_pool(b, x), 1, hidden, TFL_ACT_RELU);
  int s = gb_unary(b, TFL_OP_LOGISTIC, gb_conv(b, hid, 1, c, TFL_ACT_NONE));
  int m = gb_binary(b, TFL_OP_MUL, x, s, NULL);
  int y = gb_conv(b, m, 1, 8, TFL_ACT_NONE);
  gb_io(b, 1, (int[]){x}, 1, (int[]){y});
}

/* The pooled vector of relu(x) [1,H,W,C] through one or two 1x1 layers (hidden 0: one) to
 * out channels, the graph's output (as DeepLab's image pooling branch). The ReLU (its own
 * dispatch) keeps the means far from zero, so a lost partial sum shows. */
static void gb_se_vector(gb *b, int h, int w, int c, int hidden, int out)
{
  int x = gb_tensor(b, 4, (int[]){1, h, w, c}, false, 0);
  int v = gb_global_pool(b, gb_unary(b, TFL_OP_RELU, x));
  if (hidden) v = gb_conv(b, v, 1, hidden, TFL_ACT_RELU6);
  int y = gb_conv(b, v, 1, out, TFL_ACT_RELU);
  gb_io(b, 1, (int[]){x}, 1, (int[]){y});
}

/* The squeeze-excite cases: out 0: the block with its multiply (gb_se), else the vector
 * alone (gb_se_vector, hidden 0: one layer). */
typedef struct {
  const char *name;
  int batch, h, w, c, hidden, out;
  int fused, unfused; /* dispatches */
} se_case;

static const se_case se_cases[] = {
  {"squeeze-excite", 1, 8, 8, 16, 4, 0, 2, 6},
  /* 4096 pixels: 64 loads per lane at 1024 lanes, unrolled; a hidden width of 6 */
  {"squeeze-excite, 64x64 pool", 1, 64, 64, 16, 6, 0, 2, 6},
  {"squeeze-excite, 64x64x16 -> 6 -> 16", 1, 64, 64, 16, 6, 16, 2, 4},
  /* 182 pixels, 24 slices (lanes per slice not a power of two), hidden 18 */
  {"squeeze-excite, 14x13x96, hidden 18", 1, 14, 13, 96, 18, 0, 2, 6},
  {"squeeze-excite, batch 2", 2, 12, 12, 40, 12, 0, 2, 6},
  /* 80 pooled slices, 21 hidden, 320 output slices */
  {"squeeze-excite, 7x7x320 -> 84 -> 1280", 1, 7, 7, 320, 84, 1280, 2, 4},
  {"squeeze-excite, one layer 11x9x40 -> 72", 1, 11, 9, 40, 0, 72, 2, 3},
};
static const se_case *se_now; /* the case build_se builds */

static void build_se(gb *b)
{
  const se_case *k = se_now;
  if (k->out) gb_se_vector(b, k->h, k->w, k->c, k->hidden, k->out);
  else gb_se(b, k->batch, k->h, k->w, k->c, k->hidden);
}

/* DEPTHWISE_CONV_2D (k x k, multiplier 1) from x [B,H,W,c]. */
static int gb_depthwise(gb *b, int x, int k, int stride, int dilation, tfl_padding pad, tfl_activation act)
{
  const tfl_tensor *xt = &b->g->tensors[x];
  int c = xt->dims[3], span = (k - 1) * dilation + 1;
  int oh = pad == TFL_PAD_SAME ? (xt->dims[1] + stride - 1) / stride : (xt->dims[1] - span) / stride + 1;
  int ow = pad == TFL_PAD_SAME ? (xt->dims[2] + stride - 1) / stride : (xt->dims[2] - span) / stride + 1;
  int w = gb_tensor(b, 4, (int[]){1, k, k, c}, true, 1.0f / (float)k);
  int bias = gb_tensor(b, 1, (int[]){c}, true, 0.1f);
  int y = gb_tensor(b, 4, (int[]){xt->dims[0], oh, ow, c}, false, 0);
  tfl_node *n = gb_node(b, TFL_OP_DEPTHWISE_CONV_2D, 3, (int[]){x, w, bias}, y);
  n->p.conv = (tfl_conv_params){pad, stride, stride, dilation, dilation, 1, act};
  return y;
}

/* An inverted residual block on x [B,H,W,ci]: 1x1 expansion to e channels (ReLU6),
 * k x k depthwise (ReLU6), 1x1 projection to co; plus x when the shapes allow. */
static void gb_irb(gb *b, int batch, int h, int w, int ci, int e, int k, int stride, int dilation, int co)
{
  int x = gb_tensor(b, 4, (int[]){batch, h, w, ci}, false, 0);
  int ex = gb_conv(b, x, 1, e, TFL_ACT_RELU6);
  int d = gb_depthwise(b, ex, k, stride, dilation, TFL_PAD_SAME, TFL_ACT_RELU6);
  int y = gb_conv(b, d, 1, co, TFL_ACT_NONE);
  if (stride == 1 && co == ci) y = gb_binary(b, TFL_OP_ADD, y, x, NULL);
  gb_io(b, 1, (int[]){x}, 1, (int[]){y});
}

static void build_inverted_residual(gb *b)
{
  gb_irb(b, 1, 8, 8, 8, 24, 3, 1, 1, 8);
}

/* 150 expanded channels: not a multiple of 4, several chunks; 13x11: partial tiles */
static void build_irb_150(gb *b)
{
  gb_irb(b, 1, 13, 11, 24, 150, 3, 1, 1, 24);
}

/* 576 expanded channels, stride 2, no residual */
static void build_irb_576_stride2(gb *b)
{
  /* 15x15x40 outputs, over a quarter of llvmpipe's fill (at most 4096 seen): the projection is
   * not split (gl_tune_conv_split), so the pair fuses */
  gb_irb(b, 1, 30, 29, 96, 576, 3, 2, 1, 40);
}

static void build_irb_5x5_batch2(gb *b)
{
  gb_irb(b, 2, 10, 9, 40, 150, 5, 1, 1, 40);
}

static void build_irb_5x5_stride2(gb *b)
{
  gb_irb(b, 1, 15, 17, 24, 102, 5, 2, 1, 40);
}

/* deeplab's dilated blocks */
static void build_irb_dilated(gb *b)
{
  gb_irb(b, 1, 11, 12, 16, 96, 3, 1, 2, 16);
}

static void build_dwpw_stride2(gb *b)
{
  int x = gb_tensor(b, 4, (int[]){1, 13, 11, 24}, false, 0);
  int y = gb_conv(b, gb_depthwise(b, x, 3, 2, 1, TFL_PAD_SAME, TFL_ACT_RELU6), 1, 12, TFL_ACT_RELU);
  gb_io(b, 1, (int[]){x}, 1, (int[]){y});
}

static void build_dwpw_dilated(gb *b)
{
  int x = gb_tensor(b, 4, (int[]){1, 23, 19, 20}, false, 0); /* 437 pixels: a partial tile */
  int y = gb_conv(b, gb_depthwise(b, x, 5, 1, 2, TFL_PAD_SAME, TFL_ACT_NONE), 1, 6, TFL_ACT_NONE);
  gb_io(b, 1, (int[]){x}, 1, (int[]){y});
}

static void build_dwpw_wide(gb *b)
{
  int x = gb_tensor(b, 4, (int[]){1, 9, 7, 150}, false, 0);
  int y = gb_conv(b, gb_depthwise(b, x, 3, 1, 1, TFL_PAD_VALID, TFL_ACT_RELU), 1, 33, TFL_ACT_NONE);
  gb_io(b, 1, (int[]){x}, 1, (int[]){y});
}

static void build_dwpw_batch(gb *b)
{
  int x = gb_tensor(b, 4, (int[]){2, 10, 10, 16}, false, 0);
  int y = gb_conv(b, gb_depthwise(b, x, 3, 1, 1, TFL_PAD_SAME, TFL_ACT_RELU6), 1, 8, TFL_ACT_RELU6);
  gb_io(b, 1, (int[]){x}, 1, (int[]){y});
}

static void build_heads(gb *b)
{
  int x1 = gb_tensor(b, 4, (int[]){1, 4, 4, 8}, false, 0), x2 = gb_tensor(b, 4, (int[]){1, 2, 2, 8}, false, 0);
  int bx1 = gb_reshape(b, gb_conv(b, x1, 3, 8, TFL_ACT_NONE), 3, (int[]){1, 32, 4});
  int cl1 = gb_reshape(b, gb_conv(b, x1, 3, 6, TFL_ACT_NONE), 3, (int[]){1, 32, 3});
  int bx2 = gb_reshape(b, gb_conv(b, x2, 3, 8, TFL_ACT_NONE), 3, (int[]){1, 8, 4});
  int cl2 = gb_reshape(b, gb_conv(b, x2, 3, 6, TFL_ACT_NONE), 3, (int[]){1, 8, 3});
  int boxes = gb_tensor(b, 3, (int[]){1, 40, 4}, false, 0), classes = gb_tensor(b, 3, (int[]){1, 40, 3}, false, 0);
  gb_node(b, TFL_OP_CONCATENATION, 2, (int[]){bx1, bx2}, boxes)->p.concat.axis = 1;
  gb_node(b, TFL_OP_CONCATENATION, 2, (int[]){cl1, cl2}, classes)->p.concat.axis = 1;
  gb_io(b, 2, (int[]){x1, x2}, 2, (int[]){boxes, classes});
}

static void build_kept(gb *b)
{
  int x = gb_tensor(b, 4, (int[]){1, 6, 6, 8}, false, 0), z = gb_tensor(b, 4, (int[]){1, 6, 6, 8}, false, 0);
  int c = gb_conv(b, x, 3, 8, TFL_ACT_NONE);
  int y = gb_binary(b, TFL_OP_ADD, c, z, NULL);
  gb_io(b, 2, (int[]){x, z}, 2, (int[]){y, c});
}

static void build_resizes(gb *b)
{
  int x = gb_tensor(b, 4, (int[]){1, 6, 6, 8}, false, 0);
  int same = gb_resize(b, x, 6, 6);
  int up = gb_resize(b, gb_unary(b, TFL_OP_RELU, same), 12, 12);
  int y = gb_conv(b, up, 1, 4, TFL_ACT_NONE);
  gb_io(b, 1, (int[]){x}, 1, (int[]){y});
}

int main(void)
{
  for (size_t i = 0; i < sizeof se_cases / sizeof se_cases[0]; i++) {
    se_now = &se_cases[i];
    expect_se(se_now->name, build_se, se_now->fused, se_now->unfused);
  }
  expect_irb("inverted residual", build_inverted_residual, true, false);
  expect_irb("inverted residual, 150 expanded, 13x11", build_irb_150, true, false);
  expect_irb("inverted residual, 576 expanded, stride 2", build_irb_576_stride2, false, false);
  expect_irb("inverted residual, 5x5, batch 2", build_irb_5x5_batch2, true, true);
  expect_irb("inverted residual, 5x5, stride 2", build_irb_5x5_stride2, false, false);
  expect_irb("inverted residual, 3x3 dilated 2", build_irb_dilated, true, true);
  expect("depthwise + 1x1, stride 2", build_dwpw_stride2, 1, 2);
  expect("depthwise + 1x1, 5x5 dilated", build_dwpw_dilated, 1, 2);
  expect("depthwise + 1x1, 150 channels", build_dwpw_wide, 1, 2);
  expect("depthwise + 1x1, batch 2", build_dwpw_batch, 1, 2);
  expect("detector heads", build_heads, 2, 10);
  expect("kept value", build_kept, 1, 2);
  expect("resizes", build_resizes, 1, 3);
  printf("%d failure(s)\n", failures);
  return failures != 0;
}
