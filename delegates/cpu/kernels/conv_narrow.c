/* conv_narrow.c - float32 stride-1 CONV_2D with 1-2 output channels (see conv_narrow.h).
 *
 * y[oy][ox][oc] = bias[oc] + sum over (ky, kx, c) of x[iy][ix][c] * w[oc][ky][kx][c]. For
 * one output row and one tap (ky, kx), the inputs of the output pixels ox0..ox1 are one
 * contiguous run of NHWC floats (stride 1), and their weights the tap's IC weights
 * repeated: prepare stores each tap's weights repeated over the row (wrep), so a tap is
 * one plain multiply-add of two contiguous arrays into a per-row accumulator acc[ox][c],
 * which the compiler vectorizes at any width. The row ends with the sum over c, the bias
 * and the clamp. Built for AVX-512, AVX2 and plain x86-64 (function clones chosen at load
 * time from CPUID) or whatever the compiler targets elsewhere.
 * Rows are split over the threads, one accumulator row per task.
 */
#include "conv_narrow.h"

#include <string.h>

#include "../cpu_features.h"
#include "conv_common.h"

enum { INPUT = 0, FILTER = 1, BIAS = 2 };
enum { OUTPUT = 0 };

/* Function clones are picked by an ifunc resolver that runs while the program is being
 * relocated: under ThreadSanitizer that is before its runtime exists, and it crashes. */
#if defined(__SANITIZE_THREAD__)
#define CLONES
#elif defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#elif defined(__x86_64__) && defined(__clang__)
#define CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define CLONES
#endif

typedef struct {
  int n, h, w, c, oh, ow, oc, kh, kw, dh, dw, pad_t, pad_l;
  float lo, hi;
  float bias[CPU_CONV_NARROW_MAX_OC];
  float *wrep;       /* [oc][kh][kw][ow * c]: each tap's weights repeated over a row */
  float *acc;        /* n_slots rows of ow * c floats */
  int n_slots;
  bool avx512;       /* cpu_features: AVX-512 (the 8-channel path) */
} narrow_state;

bool cpu_conv_narrow_applies(const tfl_graph *g, const tfl_node *n)
{
  if (n->op != TFL_OP_CONV_2D || n->dead) return false;
  const tfl_tensor *x = cpu_in(g, n, INPUT), *w = cpu_in(g, n, FILTER), *y = cpu_out(g, n, OUTPUT);
  const tfl_tensor *b = cpu_in(g, n, BIAS);
  const tfl_conv_params *p = &n->p.conv;
  if (!x || !w || !y || x->type != TFL_TYPE_FLOAT32 || w->type != TFL_TYPE_FLOAT32 ||
      y->type != TFL_TYPE_FLOAT32 || w->q.n != 0 || w->sparsity || !w->is_const || !w->data)
    return false;
  if (x->ndim != 4 || w->ndim != 4 || y->ndim != 4 || w->dims[3] != x->dims[3] || y->dims[3] != w->dims[0])
    return false;
  if (w->dims[0] < 1 || w->dims[0] > CPU_CONV_NARROW_MAX_OC || p->stride_h != 1 || p->stride_w != 1 ||
      p->dilation_h < 1 || p->dilation_w < 1)
    return false;
  if (b && (b->type != TFL_TYPE_FLOAT32 || tfl_tensor_count(b) != (size_t)w->dims[0] || !b->data)) return false;
  if (!tfl_act_is_clamp(p->act)) return false;
  const double macs = (double)tfl_tensor_count(y) * w->dims[1] * w->dims[2] * w->dims[3];
  return macs >= CPU_CONV_NARROW_MIN_MACS;
}

static void release(void *state)
{
  narrow_state *st = state;
  if (!st) return;
  free(st->wrep);
  free(st->acc);
  free(st);
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  *state = NULL;
  if (!cpu_conv_narrow_applies(g, n))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s", "not a float stride-1 conv with 1-2 outputs");
  const tfl_tensor *x = cpu_in(g, n, INPUT), *w = cpu_in(g, n, FILTER), *b = cpu_in(g, n, BIAS);
  const tfl_tensor *y = cpu_out(g, n, OUTPUT);
  const tfl_conv_params *p = &n->p.conv;
  narrow_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "narrow conv state");
  *state = st;
  st->n = x->dims[0];
  st->h = x->dims[1];
  st->w = x->dims[2];
  st->c = x->dims[3];
  st->oc = w->dims[0];
  st->kh = w->dims[1];
  st->kw = w->dims[2];
  st->dh = p->dilation_h;
  st->dw = p->dilation_w;
  cpu_window_axis(p->padding, st->h, st->kh, 1, st->dh, &st->oh, &st->pad_t);
  cpu_window_axis(p->padding, st->w, st->kw, 1, st->dw, &st->ow, &st->pad_l);
  tfl_status s = cpu_check_output_nhwc(g, n, y, st->n, st->oh, st->ow, st->oc, diag);
  if (s) return s;
  cpu_activation_range_f(p->act, &st->lo, &st->hi);
  st->avx512 = cpu_features_detect().avx512;
  for (int o = 0; o < st->oc; o++) st->bias[o] = b ? ((const float *)b->data)[o] : 0.0f;
  const size_t row = (size_t)st->ow * st->c, taps = (size_t)st->oc * st->kh * st->kw;
  st->wrep = malloc(sizeof(float) * taps * row);
  if (!st->wrep) return tfl_fail(diag, TFL_ERR_NOMEM, "narrow conv: %zu repeated weights", taps * row);
  const float *wd = w->data; /* [oc][kh][kw][c] */
  for (size_t t = 0; t < taps; t++)
    for (int ox = 0; ox < st->ow; ox++)
      memcpy(st->wrep + t * row + (size_t)ox * st->c, wd + t * (size_t)st->c, sizeof(float) * (size_t)st->c);
  return TFL_OK;
}

typedef struct {
  const narrow_state *st;
  const float *x;
  float *y;
  int rows, n_tasks;
  bool avx512;       /* the CPU has it: the 8-channel interior path */
} narrow_args;

/* acc[i] += x[i] * w[i] over n floats: the whole inner loop. */
CLONES static void madd(float *restrict acc, const float *restrict x, const float *restrict w, size_t n)
{
  for (size_t i = 0; i < n; i++) acc[i] += x[i] * w[i];
}

/* y[ox * stride_y] = clamp(bias + sum of acc[ox][0..c)). */
CLONES static void finish(const float *restrict acc, float *restrict y, int ow, int c, int stride_y, float bias,
                          float lo, float hi)
{
  for (int ox = 0; ox < ow; ox++) {
    float s = 0.0f;
    for (int k = 0; k < c; k++) s += acc[(size_t)ox * c + k];
    s += bias;
    y[(size_t)ox * stride_y] = s < lo ? lo : (s > hi ? hi : s);
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define NARROW_AVX512 1
#define AVX512 __attribute__((target("avx512f,avx512dq,fma")))

/* 8 accumulators of 2 pixels x 8 channels -> the 16 pixels' channel sums, in order:
 * halves of each pixel added (quarters of 4 channels), then pairs of lanes, then a 4x4
 * transpose of the lane layout by one permute. */
AVX512 static __m512 sum8x16(const __m512 a[8])
{
  __m512 b[4];
  for (int k = 0; k < 4; k++) /* pixels 4k..4k+3, one per 128-bit lane: 4 partial sums */
    b[k] = _mm512_add_ps(_mm512_shuffle_f32x4(a[2 * k], a[2 * k + 1], _MM_SHUFFLE(2, 0, 2, 0)),
                         _mm512_shuffle_f32x4(a[2 * k], a[2 * k + 1], _MM_SHUFFLE(3, 1, 3, 1)));
  /* lane L: [pixel L: 2 sums, pixel 4 + L: 2 sums], and pixels 8 + L, 12 + L */
  const __m512 c = _mm512_add_ps(_mm512_shuffle_ps(b[0], b[1], _MM_SHUFFLE(1, 0, 1, 0)),
                                 _mm512_shuffle_ps(b[0], b[1], _MM_SHUFFLE(3, 2, 3, 2)));
  const __m512 d = _mm512_add_ps(_mm512_shuffle_ps(b[2], b[3], _MM_SHUFFLE(1, 0, 1, 0)),
                                 _mm512_shuffle_ps(b[2], b[3], _MM_SHUFFLE(3, 2, 3, 2)));
  /* lane L: pixels L, 4 + L, 8 + L, 12 + L */
  const __m512 e = _mm512_add_ps(_mm512_shuffle_ps(c, d, _MM_SHUFFLE(2, 0, 2, 0)),
                                 _mm512_shuffle_ps(c, d, _MM_SHUFFLE(3, 1, 3, 1)));
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  return _mm512_permutexvar_ps(order, e);
}

/* 8 input channels: output pixels [ox0, ox1) of one row, every tap inside the input
 * (interior). Each tap's 8 weights twice fill one register; per 16 pixels the 8
 * accumulators stay in registers over all taps. xs[t]: tap t's input at pixel ox0. */
AVX512 static void interior_c8(const float *const *xs, const float *wt, int n_taps, int npix, float *y,
                               int stride_y, float bias, float lo, float hi)
{
  __m512 w[32];
  for (int t = 0; t < n_taps; t++) w[t] = _mm512_broadcast_f32x8(_mm256_loadu_ps(wt + 8 * t));
  int p = 0;
  for (; p + 16 <= npix; p += 16) {
    __m512 a[8];
    for (int k = 0; k < 8; k++) a[k] = _mm512_setzero_ps();
    for (int t = 0; t < n_taps; t++) {
      const float *x = xs[t] + (size_t)p * 8;
      for (int k = 0; k < 8; k++) a[k] = _mm512_fmadd_ps(_mm512_loadu_ps(x + 16 * k), w[t], a[k]);
    }
    __m512 s = _mm512_add_ps(sum8x16(a), _mm512_set1_ps(bias));
    s = _mm512_min_ps(_mm512_max_ps(s, _mm512_set1_ps(lo)), _mm512_set1_ps(hi));
    if (stride_y == 1) {
      _mm512_storeu_ps(y + p, s);
    } else {
      float tmp[16];
      _mm512_storeu_ps(tmp, s);
      for (int k = 0; k < 16; k++) y[(size_t)(p + k) * stride_y] = tmp[k];
    }
  }
  for (; p < npix; p++) { /* the last few pixels */
    __m256 a = _mm256_setzero_ps();
    for (int t = 0; t < n_taps; t++)
      a = _mm256_fmadd_ps(_mm256_loadu_ps(xs[t] + (size_t)p * 8), _mm256_loadu_ps(wt + 8 * t), a);
    __m128 q = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    q = _mm_add_ps(q, _mm_movehl_ps(q, q));
    q = _mm_add_ss(q, _mm_movehdup_ps(q));
    float v = _mm_cvtss_f32(q) + bias;
    y[(size_t)p * stride_y] = v < lo ? lo : (v > hi ? hi : v);
  }
}
#else
#define NARROW_AVX512 0
#endif

/* One output row, output channel o, pixels [ox0, ox1) (all, or only the edges when the
 * interior was done apart): the accumulator row and the generic multiply-adds. */
static void row_generic(const narrow_state *st, const float *xb, int oy, int o, float *acc, float *y, int ox0,
                        int ox1)
{
  const size_t row = (size_t)st->ow * st->c;
  memset(acc + (size_t)ox0 * st->c, 0, sizeof(float) * (size_t)(ox1 - ox0) * st->c);
  for (int ky = 0; ky < st->kh; ky++) {
    const int iy = oy - st->pad_t + ky * st->dh;
    if (iy < 0 || iy >= st->h) continue;
    for (int kx = 0; kx < st->kw; kx++) {
      /* output pixels whose input column ox - pad_l + kx * dw lies inside the row */
      const int shift = kx * st->dw - st->pad_l;
      int a = -shift, b = st->w - shift;
      if (a < ox0) a = ox0;
      if (b > ox1) b = ox1;
      if (a >= b) continue;
      const float *wt = st->wrep + ((size_t)(o * st->kh + ky) * st->kw + kx) * row;
      const float *xr = xb + ((size_t)iy * st->w + (size_t)(a + shift)) * st->c;
      const size_t at = (size_t)a * st->c;
      madd(acc + at, xr, wt + at, (size_t)(b - a) * st->c);
    }
  }
  finish(acc + (size_t)ox0 * st->c, y + (size_t)ox0 * st->oc, ox1 - ox0, st->c, st->oc, st->bias[o], st->lo,
         st->hi);
}

static void run_task(void *arg, size_t task)
{
  const narrow_args *a = arg;
  const narrow_state *st = a->st;
  const size_t row = (size_t)st->ow * st->c;
  float *acc = st->acc + task * row;
  const int r0 = (int)((size_t)a->rows * task / (size_t)a->n_tasks);
  const int r1 = (int)((size_t)a->rows * (task + 1) / (size_t)a->n_tasks);
  /* interior columns: every kx tap inside the input row */
  int in0 = st->pad_l, in1 = st->w + st->pad_l - (st->kw - 1) * st->dw;
  if (in1 > st->ow) in1 = st->ow;
  const bool fast8 = NARROW_AVX512 && a->avx512 && st->c == 8 && st->kh * st->kw <= 32 && in0 < in1;
  for (int r = r0; r < r1; r++) {
    const int bi = r / st->oh, oy = r % st->oh;
    const float *xb = a->x + (size_t)bi * st->h * st->w * st->c;
    for (int o = 0; o < st->oc; o++) {
      float *y = a->y + ((size_t)r * st->ow) * st->oc + o;
      if (!fast8) {
        row_generic(st, xb, oy, o, acc, y, 0, st->ow);
        continue;
      }
#if NARROW_AVX512
      const float *xs[32];
      float wt[32 * 8];
      int n_taps = 0;
      for (int ky = 0; ky < st->kh; ky++) {
        const int iy = oy - st->pad_t + ky * st->dh;
        if (iy < 0 || iy >= st->h) continue;
        for (int kx = 0; kx < st->kw; kx++) {
          xs[n_taps] = xb + ((size_t)iy * st->w + (size_t)(in0 + kx * st->dw - st->pad_l)) * 8;
          memcpy(wt + 8 * n_taps, st->wrep + ((size_t)(o * st->kh + ky) * st->kw + kx) * row, 8 * sizeof(float));
          n_taps++;
        }
      }
      interior_c8(xs, wt, n_taps, in1 - in0, y + (size_t)in0 * st->oc, st->oc, st->bias[o], st->lo, st->hi);
      if (in0 > 0) row_generic(st, xb, oy, o, acc, y, 0, in0);
      if (in1 < st->ow) row_generic(st, xb, oy, o, acc, y, in1, st->ow);
#endif
    }
  }
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  narrow_state *st = state;
  const int rows = st->n * st->oh;
  int tasks = cpu_thread_count(ctx);
  if (tasks > rows) tasks = rows;
  if (tasks > st->n_slots) { /* first eval: one accumulator row per task */
    float *acc = malloc(sizeof(float) * (size_t)tasks * st->ow * st->c);
    if (!acc) return tfl_fail(diag, TFL_ERR_NOMEM, "narrow conv: accumulators for %d threads", tasks);
    free(st->acc);
    st->acc = acc;
    st->n_slots = tasks;
  }
  narrow_args a = {st, cpu_in(g, n, INPUT)->data, cpu_out(g, n, OUTPUT)->data, rows, tasks, st->avx512};
  cpu_parallel(ctx, run_task, &a, (size_t)tasks);
  return TFL_OK;
}

const cpu_kernel cpu_k_conv_narrow = {prepare, eval, release};
