/* test_q8_rounding.c - 8-bit CONV_2D and DEPTHWISE_CONV_2D, in reference and fast mode (2
 * threads), bit-exact against the requantization of TensorFlow Lite's CPU path (LiteRT runs
 * 8-bit convs on XNNPACK's "fp32" mapping, which the goldens of tests/data come from): the
 * sum times a float32 scale, rounded to nearest with ties to even.
 *
 * The scales make that scale exactly 0.25 (input 0.5 x weights 0.5 / output 1), so every
 * sum that is 2 mod 4 is a tie: 2 -> 0.5 -> 0 and -6 -> -1.5 -> -2. Debian's arm64 XNNPACK
 * requantizes uint8 convs in fixed point ("rndnu": ties upward), giving 1 and -1 there, an
 * eighth of all sums 1 LSB apart, which a model's later layers widen (2-4 LSB on
 * mobilenet_v2_1.0_224_quant under qemu's Cortex-A76). The fast path must keep such convs
 * off XNNPACK where it rounds so (delegates/cpu/xnn_partition.c). The expected values are
 * worked out here from that formula, not taken from our kernels. uint8 per-tensor weights
 * and int8 per-channel ones, SAME padding, a bias. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "graph_build.h"

#include "delegates/cpu/cpu_delegate.h"
#include "runtime/tfl_interpreter.h"

#define H 11
#define W 13
#define IC 4   /* conv input channels */
#define OC 8   /* conv output channels; the depthwise conv's channels */
#define K 3

static uint32_t rng = 2024u;

static int rand_in(int lo, int hi)
{
  rng = rng * 1664525u + 1013904223u;
  return lo + (int)((rng >> 8) % (uint32_t)(hi - lo + 1));
}

/* acc * 0.25 rounded to nearest, ties to even, in integers: the quotient and remainder of
 * acc / 4 (floor), then up when the remainder is over half, or half with an odd quotient. */
static int32_t requant_quarter(int32_t acc)
{
  const int32_t q = acc >> 2, r = acc & 3; /* arithmetic shift: floor */
  return q + (r > 2 || (r == 2 && (q & 1)));
}

static void set_quant(tfl_graph *g, int t, int n, float scale, int32_t zp, int axis)
{
  tfl_quant *q = &g->tensors[t].q;
  q->n = n;
  q->scale = tfl_graph_alloc(g, sizeof(float) * (size_t)n);
  q->zero_point = tfl_graph_alloc(g, sizeof(int32_t) * (size_t)n);
  for (int c = 0; c < n; c++) q->scale[c] = scale, q->zero_point[c] = zp;
  q->axis = axis;
}

typedef struct {
  const char *name;
  bool depthwise;
  bool s8;  /* int8 activations, int8 per-channel weights; else uint8 per tensor */
} q_case;

/* One 8-bit value of the case's type. */
static int32_t get8(bool s8, const void *p, size_t i)
{
  return s8 ? ((const int8_t *)p)[i] : ((const uint8_t *)p)[i];
}

static void run_case(const q_case *qc)
{
  const int ic = qc->depthwise ? OC : IC;
  const int32_t zx = qc->s8 ? -3 : 120, zw = qc->s8 ? 0 : 131, zy = qc->s8 ? 5 : 128;
  const int32_t lo = qc->s8 ? -128 : 0, hi = qc->s8 ? 127 : 255;
  /* small values: most sums stay inside the output's range, so the rounding shows */
  static uint8_t x[H * W * OC], w[OC * K * K * OC];
  static int32_t bias[OC];
  const size_t nx = (size_t)H * W * ic, nw = qc->depthwise ? (size_t)K * K * OC : (size_t)OC * K * K * IC;
  for (size_t i = 0; i < nx; i++) x[i] = (uint8_t)(zx + rand_in(-9, 9));
  for (size_t i = 0; i < nw; i++) w[i] = (uint8_t)(zw + rand_in(-3, 3));
  for (int c = 0; c < OC; c++) bias[c] = rand_in(-40, 40);

  /* expected: sums over the 3x3 window (SAME padding: outside reads the zero point, adding
   * nothing), requantized as TFLite does, plus the output zero point, clamped */
  static int32_t want[H * W * OC];
  size_t split = 0;
  for (int y = 0; y < H; y++)
    for (int xx = 0; xx < W; xx++)
      for (int oc = 0; oc < OC; oc++) {
        int32_t acc = bias[oc];
        for (int ky = 0; ky < K; ky++)
          for (int kx = 0; kx < K; kx++) {
            const int iy = y + ky - 1, ix = xx + kx - 1;
            if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
            if (qc->depthwise) {
              acc += (get8(qc->s8, x, ((size_t)iy * W + ix) * OC + oc) - zx) *
                     (get8(qc->s8, w, ((size_t)ky * K + kx) * OC + oc) - zw);
            } else {
              for (int c = 0; c < IC; c++)
                acc += (get8(qc->s8, x, ((size_t)iy * W + ix) * IC + c) - zx) *
                       (get8(qc->s8, w, (((size_t)oc * K + ky) * K + kx) * IC + c) - zw);
            }
          }
        split += (acc & 7) == 2; /* ties rounded down to even: where ties upward differ */
        int32_t v = requant_quarter(acc) + zy;
        want[((size_t)y * W + xx) * OC + oc] = v < lo ? lo : v > hi ? hi : v;
      }
  CHECK(split > 100, "%s: only %zu sums where the roundings differ", qc->name, split);

  for (int fast = 0; fast <= 1; fast++) {
    tfl_graph *g = calloc(1, sizeof *g);
    g->batch = 1;
    const tfl_type t8 = qc->s8 ? TFL_TYPE_INT8 : TFL_TYPE_UINT8;
    const int xt = gb_tensor(g, t8, 4, GB_DIMS(1, H, W, ic));
    const int wt = qc->depthwise ? gb_const(g, t8, 4, GB_DIMS(1, K, K, OC), w)
                                 : gb_const(g, t8, 4, GB_DIMS(OC, K, K, IC), w);
    const int bt = gb_const(g, TFL_TYPE_INT32, 1, GB_DIMS(OC), bias);
    const int yt = gb_tensor(g, t8, 4, GB_DIMS(1, H, W, OC));
    set_quant(g, xt, 1, 0.5f, zx, 0);
    set_quant(g, wt, qc->s8 ? OC : 1, 0.5f, zw, qc->depthwise ? 3 : 0);
    set_quant(g, bt, qc->s8 ? OC : 1, 0.25f, 0, 0);
    set_quant(g, yt, 1, 1.0f, zy, 0);
    tfl_params p = {.conv = {TFL_PAD_SAME, 1, 1, 1, 1, qc->depthwise ? 1 : 0, TFL_ACT_NONE}};
    gb_node(g, qc->depthwise ? TFL_OP_DEPTHWISE_CONV_2D : TFL_OP_CONV_2D, (int32_t[]){xt, wt, bt}, 3, yt, p);
    gb_set_io(g, 1, (int32_t[]){xt}, 1, (int32_t[]){yt});

    tfl_diag diag;
    tfl_diag_init(&diag);
    cpu_delegate_options co = cpu_delegate_defaults();
    co.reference = !fast;
    co.threads = fast ? 2 : 1;
    co.diag = &diag;
    tfl_delegate *cpu = cpu_delegate_create(&co);
    tfl_interp_options o = tfl_interp_defaults();
    o.fallback = cpu;
    o.diag = &diag;
    tfl_interpreter *it = NULL;
    tfl_status st = cpu ? tfl_interpreter_create(g, &o, &it) : TFL_ERR_NOMEM;
    const char *mode = fast ? "fast" : "reference";
    CHECK(st == TFL_OK, "%s %s: create: %s", qc->name, mode, diag.error);
    if (st == TFL_OK) {
      memcpy(tfl_interpreter_input(it, 0)->data, x, nx);
      st = tfl_interpreter_invoke(it);
      CHECK(st == TFL_OK, "%s %s: invoke: %s", qc->name, mode, diag.error);
    }
    if (st == TFL_OK) {
      const void *got = tfl_interpreter_output(it, 0)->data;
      size_t off = 0, first = 0;
      for (size_t i = 0; i < (size_t)H * W * OC; i++)
        if (get8(qc->s8, got, i) != want[i] && off++ == 0) first = i;
      CHECK(off == 0, "%s %s: %zu of %d outputs differ from TFLite's rounding (first: element %zu is %d, want %d)",
            qc->name, mode, off, H * W * OC, first, get8(qc->s8, got, first), want[first]);
      if (off == 0) printf("ok   %s %s: %d outputs exact (%zu ties to even below)\n", qc->name, mode, H * W * OC, split);
    }
    tfl_interpreter_free(it);
    if (cpu) cpu->destroy(cpu);
    tfl_graph_free(g);
  }
}

int main(void)
{
  static const q_case cases[] = {
    {"uint8 conv 3x3", false, false},
    {"uint8 depthwise 3x3", true, false},
    {"int8 per-channel conv 3x3", false, true},
    {"int8 per-channel depthwise 3x3", true, true},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(&cases[i]);
  if (failures) fprintf(stderr, "%d failures\n", failures);
  return failures != 0;
}
