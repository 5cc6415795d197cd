/* conv_sparse1x1.c - sparse float32 1x1 convolution (see conv_sparse1x1.h).
 *
 * A 1x1 stride-1 conv is y[p][oc] = bias[oc] + sum_ic w[oc][ic] * x[p][ic] over pixels p.
 * prepare keeps, per pair of output channels, their non-zero weights and input channels
 * (the shorter list padded with zero weights, so both run in one loop: eight independent
 * multiply-add chains). eval takes tiles of TILE pixels: it transposes the tile's NHWC
 * rows to channel-major scratch (xt[ic][TILE]) through 16x16 register blocks, so each
 * non-zero weight is four 16-pixel multiply-adds; sums, clamped, go to yt[oc][TILE] and
 * back to NHWC the same way. Tiles are spread over threads, one scratch slot per task.
 * AVX-512 only (checked at run time): without it XNNPACK's dense GEMM keeps these convs.
 */
#include "conv_sparse1x1.h"

#include <string.h>

#include "conv_common.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SPARSE_X86 1
#else
#define SPARSE_X86 0
#endif

enum { INPUT = 0, FILTER = 1, BIAS = 2 };
enum { OUTPUT = 0 };
enum { VL = 16, TILE = 64, TASKS_PER_THREAD = 4 };

typedef struct {
  int in_c, out_c;
  size_t pixels;
  float act_lo, act_hi;
  int n_pairs;       /* output channels in pairs, the last one padded when out_c is odd */
  float *bias;       /* [2 * n_pairs], zeros without a bias tensor */
  int32_t *start;    /* [n_pairs + 1]: steps of pair q are [start[q], start[q+1]) */
  int32_t *row;      /* per step: 2 offsets (floats) of the input channels' scratch rows */
  float *w;          /* per step: the 2 weights (0 where a list was padded) */
  float *scratch;    /* n_slots * (in_c + 2 * n_pairs) * TILE floats, grown on first eval */
  size_t n_slots;
} sparse_state;

static bool cpu_has_avx512(void)
{
#if SPARSE_X86
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}

bool cpu_conv_sparse1x1_fits(const tfl_graph *g, const tfl_node *n)
{
  if (n->op != TFL_OP_CONV_2D || n->dead) return false;
  const tfl_tensor *x = cpu_in(g, n, INPUT), *w = cpu_in(g, n, FILTER), *y = cpu_out(g, n, OUTPUT);
  const tfl_tensor *b = cpu_in(g, n, BIAS);
  const tfl_conv_params *p = &n->p.conv;
  if (!x || !w || !y || x->type != TFL_TYPE_FLOAT32 || w->type != TFL_TYPE_FLOAT32 ||
      y->type != TFL_TYPE_FLOAT32 || w->q.n != 0 || w->sparsity)
    return false;
  if (!w->is_const || !w->data || w->ndim != 4 || x->ndim != 4 || y->ndim != 4) return false;
  if (w->dims[1] != 1 || w->dims[2] != 1 || p->stride_h != 1 || p->stride_w != 1) return false;
  if (x->dims[3] != w->dims[3] || y->dims[3] != w->dims[0] || w->dims[0] < 1 || w->dims[3] < 1)
    return false;
  for (int d = 0; d < 3; d++)
    if (y->dims[d] != x->dims[d]) return false;
  if (!cpu_has_avx512()) return false;
  if (b && (b->type != TFL_TYPE_FLOAT32 || tfl_tensor_count(b) != (size_t)w->dims[0])) return false;
  if (!tfl_act_is_clamp(p->act)) return false;
  size_t count = tfl_tensor_count(w), zeros = 0;
  const float *wd = w->data;
  for (size_t i = 0; i < count; i++) zeros += wd[i] == 0.0f;
  return (double)zeros >= CPU_SPARSE1X1_MIN_ZEROS * (double)count;
}

bool cpu_conv_sparse1x1_applies(const tfl_graph *g, const tfl_node *n)
{
  if (n->op != TFL_OP_CONV_2D || n->n_in < 2 || n->n_out < 1 || n->in[0] < 0 || n->in[1] < 0)
    return false;
  const tfl_tensor *x = &g->tensors[n->in[0]], *w = &g->tensors[n->in[1]];
  if (x->ndim != 4 || w->ndim != 4 || w->dims[3] < CPU_SPARSE1X1_MIN_IN_C) return false;
  double macs = (double)x->dims[0] * x->dims[1] * x->dims[2] * w->dims[0] * w->dims[3];
  if (macs < CPU_SPARSE1X1_MIN_MACS) return false;
  return cpu_conv_sparse1x1_fits(g, n);
}

static void release(void *state)
{
  sparse_state *st = state;
  if (!st) return;
  free(st->bias);
  free(st->start);
  free(st->row);
  free(st->w);
  free(st->scratch);
  free(st);
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  if (!cpu_conv_sparse1x1_fits(g, n))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s", "not a sparse float 1x1 stride-1 conv");
  const tfl_tensor *x = cpu_in(g, n, INPUT), *w = cpu_in(g, n, FILTER), *b = cpu_in(g, n, BIAS);
  sparse_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "sparse conv state");
  *state = st;
  st->out_c = w->dims[0];
  st->in_c = w->dims[3];
  st->pixels = (size_t)x->dims[0] * x->dims[1] * x->dims[2];
  cpu_activation_range_f(n->p.conv.act, &st->act_lo, &st->act_hi);
  st->n_pairs = (st->out_c + 1) / 2;
  const float *wd = w->data;
  size_t steps = 0; /* per pair, the longer of the two lists */
  int32_t *nz = calloc((size_t)st->n_pairs * 2, sizeof(int32_t));
  if (!nz) return tfl_fail(diag, TFL_ERR_NOMEM, "sparse conv: %d channels", st->out_c);
  for (int oc = 0; oc < st->out_c; oc++)
    for (int ic = 0; ic < st->in_c; ic++) nz[oc] += wd[(size_t)oc * st->in_c + ic] != 0.0f;
  for (int q = 0; q < st->n_pairs; q++) steps += (size_t)(nz[2 * q] > nz[2 * q + 1] ? nz[2 * q] : nz[2 * q + 1]);
  st->bias = calloc((size_t)st->n_pairs * 2, sizeof(float));
  st->start = malloc(sizeof(int32_t) * ((size_t)st->n_pairs + 1));
  st->row = calloc(2 * (steps ? steps : 1), sizeof(int32_t));
  st->w = calloc(2 * (steps ? steps : 1), sizeof(float));
  if (!st->bias || !st->start || !st->row || !st->w) {
    free(nz);
    return tfl_fail(diag, TFL_ERR_NOMEM, "sparse conv: %zu weight pairs", steps);
  }
  if (b) memcpy(st->bias, b->data, sizeof(float) * (size_t)st->out_c);
  size_t k = 0;
  for (int q = 0; q < st->n_pairs; q++) {
    st->start[q] = (int32_t)k;
    for (int h = 0; h < 2; h++) { /* list h of the pair fills slot h of its steps */
      int oc = 2 * q + h;
      size_t kk = k;
      if (oc < st->out_c)
        for (int ic = 0; ic < st->in_c; ic++) {
          float v = wd[(size_t)oc * st->in_c + ic];
          if (v == 0.0f) continue;
          st->row[2 * kk + h] = ic * TILE;
          st->w[2 * kk + h] = v;
          kk++;
        }
    }
    k += (size_t)(nz[2 * q] > nz[2 * q + 1] ? nz[2 * q] : nz[2 * q + 1]);
  }
  st->start[st->n_pairs] = (int32_t)k;
  free(nz);
  return TFL_OK;
}

typedef struct {
  const sparse_state *st;
  const float *x;
  float *y;
  size_t n_tiles, n_tasks;
  int n_groups;    /* output channels split in this many groups of whole 16-channel blocks */
} sparse_args;

#if SPARSE_X86
#define AVX512 __attribute__((target("avx512f,fma"), always_inline)) static inline

/* Lane permutes of transpose16: round s swaps bit s of the row index with bit s of the
 * lane index; LO/HI pick the new rows i and i + s from old rows i and i + s. */
static const int32_t tr_idx[4][2][VL] __attribute__((aligned(64))) = {
#define TR_LO(s, j) (((j) & (s)) ? VL + (j) - (s) : (j))
#define TR_HI(s, j) (((j) & (s)) ? VL + (j) : (j) + (s))
#define TR_ROW(F, s)                                                                             \
  {F(s, 0), F(s, 1), F(s, 2), F(s, 3), F(s, 4), F(s, 5), F(s, 6), F(s, 7), F(s, 8), F(s, 9),      \
   F(s, 10), F(s, 11), F(s, 12), F(s, 13), F(s, 14), F(s, 15)}
  {TR_ROW(TR_LO, 8), TR_ROW(TR_HI, 8)},
  {TR_ROW(TR_LO, 4), TR_ROW(TR_HI, 4)},
  {TR_ROW(TR_LO, 2), TR_ROW(TR_HI, 2)},
  {TR_ROW(TR_LO, 1), TR_ROW(TR_HI, 1)},
};

AVX512 void transpose16(__m512 r[VL])
{
#pragma GCC unroll 4
  for (int round = 0; round < 4; round++) {
    int s = 8 >> round;
    __m512i lo = _mm512_load_si512(tr_idx[round][0]), hi = _mm512_load_si512(tr_idx[round][1]);
#pragma GCC unroll 16
    for (int i = 0; i < VL; i++) {
      if (i & s) continue;
      __m512 a = r[i], b = r[i + s];
      r[i] = _mm512_permutex2var_ps(a, lo, b);
      r[i + s] = _mm512_permutex2var_ps(a, hi, b);
    }
  }
}

/* np rows of n_c floats (row stride n_c, or `stride` back) <-> t[c][TILE]. Full blocks of
 * 16 pixels go through transpose16 (a last partial block of channels masked); other
 * pixels one by one. */
AVX512 void to_channel_major(float *restrict t, const float *restrict x, int np, int n_c)
{
  int j0 = 0;
  for (; j0 + VL <= np; j0 += VL)
    for (int c0 = 0; c0 < n_c; c0 += VL) {
      int nc = n_c - c0 < VL ? n_c - c0 : VL;
      __mmask16 m = (__mmask16)((1u << nc) - 1);
      __m512 r[VL];
#pragma GCC unroll 16
      for (int j = 0; j < VL; j++) r[j] = _mm512_maskz_loadu_ps(m, x + (size_t)(j0 + j) * n_c + c0);
      transpose16(r);
      for (int c = 0; c < nc; c++) _mm512_store_ps(t + (size_t)(c0 + c) * TILE + j0, r[c]);
    }
  for (int j = j0; j < np; j++)
    for (int c = 0; c < n_c; c++) t[(size_t)c * TILE + j] = x[(size_t)j * n_c + c];
}

AVX512 void to_pixel_major(float *restrict y, const float *restrict t, int np, int n_c,
                            int stride)
{
  int j0 = 0;
  for (; j0 + VL <= np; j0 += VL)
    for (int c0 = 0; c0 < n_c; c0 += VL) {
      int nc = n_c - c0 < VL ? n_c - c0 : VL;
      __mmask16 m = (__mmask16)((1u << nc) - 1);
      __m512 r[VL];
#pragma GCC unroll 16
      for (int c = 0; c < VL; c++) r[c] = _mm512_load_ps(t + (size_t)(c0 + (c < nc ? c : 0)) * TILE + j0);
      transpose16(r);
#pragma GCC unroll 16
      for (int j = 0; j < VL; j++) _mm512_mask_storeu_ps(y + (size_t)(j0 + j) * stride + c0, m, r[j]);
    }
  for (int j = j0; j < np; j++)
    for (int c = 0; c < n_c; c++) y[(size_t)j * stride + c] = t[(size_t)c * TILE + j];
}

/* Task i: tiles [c * n_tiles / chunks, (c + 1) * n_tiles / chunks) of chunk c = i / n_groups,
 * output channel group i % n_groups, on scratch slot i (xt: in_c rows, then yt: 2 * n_pairs
 * rows, TILE floats each). Lanes past the last pixel hold stale finite values and are
 * never stored. Layers with fewer tiles than threads split their channels too (each
 * group transposes the tile again), so every thread works. */
__attribute__((target("avx512f,fma"))) static void run_task(void *arg, size_t task)
{
  const sparse_args *a = arg;
  const sparse_state *st = a->st;
  const int ic_n = st->in_c, oc_n = st->out_c;
  const __m512 lo = _mm512_set1_ps(st->act_lo), hi = _mm512_set1_ps(st->act_hi);
  float *xt = st->scratch + task * (size_t)(ic_n + 2 * st->n_pairs) * TILE;
  float *yt = xt + (size_t)ic_n * TILE;
  size_t chunks = a->n_tasks / (size_t)a->n_groups, chunk = task / (size_t)a->n_groups;
  int group = (int)(task % (size_t)a->n_groups);
  int blocks = (oc_n + VL - 1) / VL; /* 16-channel blocks = 8 pairs each */
  int q0 = group * blocks / a->n_groups * (VL / 2), q1 = (group + 1) * blocks / a->n_groups * (VL / 2);
  if (q1 > st->n_pairs) q1 = st->n_pairs;
  int c0 = 2 * q0, c1 = 2 * q1 < oc_n ? 2 * q1 : oc_n;
  size_t t0 = chunk * a->n_tiles / chunks, t1 = (chunk + 1) * a->n_tiles / chunks;
  for (size_t t = t0; t < t1; t++) {
    size_t p0 = t * TILE;
    int np = (int)(st->pixels - p0 < TILE ? st->pixels - p0 : TILE);
    to_channel_major(xt, a->x + p0 * ic_n, np, ic_n);
    for (int q = q0; q < q1; q++) {
      __m512 a0 = _mm512_set1_ps(st->bias[2 * q]), a1 = a0, a2 = a0, a3 = a0;
      __m512 b0 = _mm512_set1_ps(st->bias[2 * q + 1]), b1 = b0, b2 = b0, b3 = b0;
      const int32_t *row = st->row;
      const float *w = st->w;
      for (int32_t k = st->start[q], end = st->start[q + 1]; k < end; k++) {
        const float *ra = xt + row[2 * k], *rb = xt + row[2 * k + 1];
        __m512 wa = _mm512_set1_ps(w[2 * k]), wb = _mm512_set1_ps(w[2 * k + 1]);
        a0 = _mm512_fmadd_ps(wa, _mm512_load_ps(ra), a0);
        a1 = _mm512_fmadd_ps(wa, _mm512_load_ps(ra + 16), a1);
        a2 = _mm512_fmadd_ps(wa, _mm512_load_ps(ra + 32), a2);
        a3 = _mm512_fmadd_ps(wa, _mm512_load_ps(ra + 48), a3);
        b0 = _mm512_fmadd_ps(wb, _mm512_load_ps(rb), b0);
        b1 = _mm512_fmadd_ps(wb, _mm512_load_ps(rb + 16), b1);
        b2 = _mm512_fmadd_ps(wb, _mm512_load_ps(rb + 32), b2);
        b3 = _mm512_fmadd_ps(wb, _mm512_load_ps(rb + 48), b3);
      }
      float *ya = yt + (size_t)(2 * q) * TILE, *yb = ya + TILE;
      _mm512_store_ps(ya, _mm512_min_ps(_mm512_max_ps(a0, lo), hi));
      _mm512_store_ps(ya + 16, _mm512_min_ps(_mm512_max_ps(a1, lo), hi));
      _mm512_store_ps(ya + 32, _mm512_min_ps(_mm512_max_ps(a2, lo), hi));
      _mm512_store_ps(ya + 48, _mm512_min_ps(_mm512_max_ps(a3, lo), hi));
      _mm512_store_ps(yb, _mm512_min_ps(_mm512_max_ps(b0, lo), hi));
      _mm512_store_ps(yb + 16, _mm512_min_ps(_mm512_max_ps(b1, lo), hi));
      _mm512_store_ps(yb + 32, _mm512_min_ps(_mm512_max_ps(b2, lo), hi));
      _mm512_store_ps(yb + 48, _mm512_min_ps(_mm512_max_ps(b3, lo), hi));
    }
    if (c1 > c0)
      to_pixel_major(a->y + p0 * oc_n + c0, yt + (size_t)c0 * TILE, np, c1 - c0, oc_n);
  }
}
#else
static void run_task(void *arg, size_t task)
{
  (void)arg, (void)task; /* never prepared: applies() is false off x86 */
}
#endif

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  sparse_state *st = state;
  sparse_args a = {st, cpu_in(g, n, INPUT)->data, cpu_out(g, n, OUTPUT)->data, 0, 0};
  a.n_tiles = (st->pixels + TILE - 1) / TILE;
  if (a.n_tiles == 0) return TFL_OK; /* no pixels */
  a.n_groups = 1;
  size_t threads = (size_t)cpu_thread_count(ctx), want = threads > 1 ? threads * TASKS_PER_THREAD : 1;
  a.n_tasks = want < a.n_tiles ? want : a.n_tiles;
  if (a.n_tasks < threads) { /* fewer tiles than threads: split the output channels too */
    size_t blocks = ((size_t)st->out_c + VL - 1) / VL, groups = (threads + a.n_tasks - 1) / a.n_tasks;
    a.n_groups = (int)(groups < blocks ? groups : blocks);
    a.n_tasks *= (size_t)a.n_groups;
  }
  if (a.n_tasks > st->n_slots) { /* first eval (or more threads, diag): scratch per task */
    size_t per = (size_t)(st->in_c + 2 * st->n_pairs) * TILE * sizeof(float);
    float *s = aligned_alloc(64, per * a.n_tasks);
    if (!s) return tfl_fail(diag, TFL_ERR_NOMEM, "sparse conv scratch: %zu tasks", a.n_tasks);
    memset(s, 0, per * a.n_tasks);
    free(st->scratch);
    st->scratch = s;
    st->n_slots = a.n_tasks;
  }
  cpu_parallel(ctx, run_task, &a, a.n_tasks);
  return TFL_OK;
}

const cpu_kernel cpu_k_conv_sparse1x1 = {prepare, eval, release};
