/* tconv_hybrid.c - see tconv_hybrid.h.
 *
 * The image quantized as unsigned bytes q + 128 (hybrid_quant.h, per image). Stage 1
 * (tasks: blocks of input pixels): sums[p][tap * OC + oc] = sum_ic (q + 128) w. Stage 2
 * (tasks: output rows): each output pixel adds, over the taps whose input pixel exists
 * (transpose_conv.c's gather), sums - (zp + 128) * sum_ic w = sum_ic (q - zp) w, wrapping
 * like the reference's int32 sum, then is scaled back in place (cpu_hq_dequant). Stride
 * equal to the filter and no padding (a UNet's 2x2 stride-2 upsampling): each output
 * pixel takes one tap of one input pixel, so stage 1 writes the output itself.
 */
#include "tconv_hybrid.h"

#include <string.h>

#include "conv_common.h"
#include "gemm_q8.h"
#include "hybrid_quant.h"
#include "kernels.h"
#include "tconv_taps.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* the rounding argument must be a constant expression (clang checks it) */
#define HY_RN (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define TH_X86 1
#endif

enum { TC_OUTPUT_SHAPE = 0, TC_WEIGHTS = 1, TC_INPUT = 2, TC_BIAS = 3 };
enum { OUTPUT = 0 };
enum { PIXELS_PER_TASK = 32 };
#define MAX_SUM_BYTES ((size_t)64 << 20)

typedef struct {
  cpu_conv_state *ref;       /* the reference kernel's state: geometry, scales, buffers */
  cpu_q8_gemm gemm;          /* taps * OC rows of IC */
  int taps, pixels;
  size_t img;                /* floats per image */
  size_t kp;                 /* gemm row bytes (kq * 4) */
  uint8_t *x_pad;            /* IC % 4 != 0: [pixels][kp], else NULL (the image's rows) */
  int32_t *sums;             /* [pixels][taps * OC] */
  bool direct;
  float *part;               /* cpu_hq_images scratch */
  cpu_hybrid_qparams *qp;
  bool *q_on;
  cpu_features isa;
} th_state;

bool cpu_tconv_hybrid_fits(const tfl_graph *g, const tfl_node *n)
{
  if (n->op != TFL_OP_TRANSPOSE_CONV) return false;
  const tfl_tensor *x = cpu_in(g, n, TC_INPUT), *w = cpu_in(g, n, TC_WEIGHTS), *y = cpu_out(g, n, OUTPUT);
  if (!x || !w || !y || x->type != TFL_TYPE_FLOAT32 || w->type != TFL_TYPE_INT8 || y->type != TFL_TYPE_FLOAT32)
    return false;
  if (!w->is_const || !w->data || w->ndim != 4 || x->ndim != 4 || w->dims[3] != x->dims[3]) return false;
  if (w->dims[0] < 1 || w->dims[1] < 1 || w->dims[2] < 1 || w->dims[3] < 1) return false;
  const size_t taps = (size_t)w->dims[1] * w->dims[2];
  const size_t pixels = (size_t)x->dims[0] * x->dims[1] * x->dims[2];
  return taps * w->dims[0] <= (size_t)1 << 24 && pixels * taps * (size_t)w->dims[0] * sizeof(int32_t) <= MAX_SUM_BYTES;
}

bool cpu_tconv_hybrid_applies(const tfl_graph *g, const tfl_node *n, const cpu_features *isa)
{
  (void)isa;   /* the portable path still beats the reference's per-tap dot products */
  return cpu_tconv_hybrid_fits(g, n);
}

void cpu_tconv_hybrid_use_isa(void *state, const cpu_features *isa)
{
  th_state *st = state;
  if (st) st->isa = *isa;
}

static void release(void *state)
{
  th_state *st = state;
  if (!st) return;
  cpu_k_transpose_conv.release(st->ref);
  cpu_q8_gemm_free(&st->gemm);
  free(st->x_pad);
  free(st->sums);
  free(st->part);
  free(st->qp);
  free(st->q_on);
  free(st);
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  if (!cpu_tconv_hybrid_fits(g, n))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "not a hybrid transpose conv the fast kernel takes%s", "");
  th_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "tconv_hybrid state");
  *state = st;
  st->isa = cpu_features_detect();
  void *ref = NULL;
  tfl_status s = cpu_k_transpose_conv.prepare(g, n, &ref, diag);
  st->ref = ref;
  if (s) return s;
  const cpu_conv_state *r = st->ref;
  if (!r->hy.on)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "not a hybrid transpose conv the fast kernel takes%s", "");
  const tfl_tensor *w = cpu_in(g, n, TC_WEIGHTS);
  st->taps = r->k_h * r->k_w;
  st->pixels = r->batches * r->in_h * r->in_w;
  st->img = (size_t)r->in_h * r->in_w * r->in_c;
  cpu_tconv_rows src = {w, st->taps, r->in_c};
  const int rows = st->taps * r->out_c;
  if (!cpu_q8_gemm_pack(&st->gemm, rows, r->in_c, false, cpu_tconv_weight_row, &src))
    return tfl_fail(diag, TFL_ERR_NOMEM, "tconv_hybrid weights");
  st->kp = (size_t)st->gemm.kq * 4;
  const size_t images = r->batches > 0 ? (size_t)r->batches : 1, pixels = st->pixels > 0 ? (size_t)st->pixels : 1;
  st->x_pad = r->in_c % 4 ? calloc(pixels, st->kp) : NULL;
  st->sums = malloc(sizeof(int32_t) * pixels * (size_t)rows);
  st->part = malloc(sizeof(float) * cpu_hq_images_scratch(st->img, r->batches));
  st->qp = calloc(images, sizeof *st->qp);
  st->q_on = calloc(images, sizeof *st->q_on);
  if ((r->in_c % 4 && !st->x_pad) || !st->sums || !st->part || !st->qp || !st->q_on)
    return tfl_fail(diag, TFL_ERR_NOMEM, "tconv_hybrid buffers");
  st->direct = cpu_tconv_direct(r);
  return TFL_OK;
}

typedef struct {
  const th_state *st;
  const float *bias;
  float *y;
} th_args;

static void sums_task(void *arg, size_t t)
{
  const th_args *a = arg;
  const th_state *st = a->st;
  const cpu_conv_state *r = st->ref;
  const int p0 = (int)t * PIXELS_PER_TASK;
  const int np = st->pixels - p0 < PIXELS_PER_TASK ? st->pixels - p0 : PIXELS_PER_TASK;
  const size_t ic = (size_t)r->in_c, ys = (size_t)st->gemm.rows;
  const uint8_t *x = (const uint8_t *)r->hy.xq + (size_t)p0 * ic;
  size_t xs = ic;
  if (st->x_pad) {
    for (int p = 0; p < np; p++) memcpy(st->x_pad + (size_t)(p0 + p) * st->kp, x + (size_t)p * ic, ic);
    x = st->x_pad + (size_t)p0 * st->kp;
    xs = st->kp;
  }
  int32_t *sums = st->sums + (size_t)p0 * ys;
  cpu_q8_gemm_run(&st->gemm, x, xs, np, 0, st->gemm.blocks, sums, ys, st->isa.avx512_vnni);
  if (!st->direct) return;
  /* input pixel p = (b, iy, ix), tap (ky, kx) -> output pixel (b, iy*KH + ky, ix*KW + kx) */
  const int oc_n = r->out_c;
  for (int p = p0; p < p0 + np; p++) {
    const int ix = p % r->in_w, iy = (p / r->in_w) % r->in_h, bi = p / (r->in_w * r->in_h);
    for (int tap = 0; tap < st->taps; tap++) {
      const int ky = tap / r->k_w, kx = tap % r->k_w;
      const size_t o =
          (((size_t)bi * r->out_h + (size_t)iy * r->k_h + ky) * r->out_w + (size_t)ix * r->k_w + kx) * oc_n;
      const size_t j = (size_t)tap * oc_n;
      cpu_hq_dequant(st->sums + (size_t)p * ys + j, st->gemm.sum + j, r->hy.x_zp[bi] + 128, r->hy.w_scale,
                     r->hy.x_scale[bi], a->bias, r->act_lo, r->act_hi, oc_n, 1, a->y + o, st->isa.avx512);
    }
  }
}


/* o[c] += s[c] - zx_u * k[c]: one tap's sums into an output pixel, wrapping. */
static void add_tap(uint32_t *o, const uint32_t *s, const uint32_t *k, uint32_t zx_u, int n)
{
  for (int c = 0; c < n; c++) o[c] += s[c] - zx_u * k[c];
}

/* Output row (bi, oy): the sums of every tap whose input pixel exists, into acc. */
static void gather_portable(const th_state *st, int bi, int oy, uint32_t *acc)
{
  const cpu_conv_state *r = st->ref;
  const int oc_n = r->out_c, rows = st->gemm.rows;
  const uint32_t zx_u = (uint32_t)(r->hy.x_zp[bi] + 128);
  for (int ky = 0; ky < r->k_h; ky++) {
    const int iy = cpu_tconv_source(oy, r->pad_h, ky, r->stride_h, r->in_h);
    if (iy < 0) continue;
    for (int ox = 0; ox < r->out_w; ox++) {
      uint32_t *o = acc + (size_t)ox * oc_n;
      for (int kx = 0; kx < r->k_w; kx++) {
        const int ix = cpu_tconv_source(ox, r->pad_w, kx, r->stride_w, r->in_w);
        if (ix < 0) continue;
        const size_t p = ((size_t)bi * r->in_h + iy) * r->in_w + ix;
        const size_t j0 = (size_t)(ky * r->k_w + kx) * oc_n;
        add_tap(o, (const uint32_t *)st->sums + p * (size_t)rows + j0, (const uint32_t *)st->gemm.sum + j0, zx_u,
                oc_n);
      }
    }
  }
}

#ifdef TH_X86
/* Output row (bi, oy) into out: per pixel and 16 channels, the taps summed in a register
 * and the output stage applied there (cpu_hq_dequant's arithmetic, unfused products), so
 * no sum goes through memory: re-reading a just-stored vector for the next tap stalled. */
__attribute__((target("avx512f"))) static void gather_avx512(const th_state *st, const float *bias, int bi, int oy,
                                                             float *out)
{
  const cpu_conv_state *r = st->ref;
  const int oc_n = r->out_c, rows = st->gemm.rows;
  const __m512i zx = _mm512_set1_epi32(r->hy.x_zp[bi] + 128);
  const __m512 xs = _mm512_set1_ps(r->hy.x_scale[bi]);
  const __m512 vlo = _mm512_set1_ps(r->act_lo), vhi = _mm512_set1_ps(r->act_hi);
  int iys[2][64], n_y = 0;   /* (tap row, input row) pairs feeding this output row */
  for (int ky = 0; ky < r->k_h && n_y < 64; ky++) {
    const int iy = cpu_tconv_source(oy, r->pad_h, ky, r->stride_h, r->in_h);
    if (iy >= 0) iys[0][n_y] = ky, iys[1][n_y++] = iy;
  }
  for (int ox = 0; ox < r->out_w; ox++) {
    for (int c = 0; c < oc_n; c += 16) {
      const __mmask16 m = oc_n - c >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (oc_n - c)) - 1);
      __m512i acc = _mm512_setzero_si512();
      for (int t = 0; t < n_y; t++) {
        const int ky = iys[0][t], iy = iys[1][t];
        for (int kx = 0; kx < r->k_w; kx++) {
          const int ix = cpu_tconv_source(ox, r->pad_w, kx, r->stride_w, r->in_w);
          if (ix < 0) continue;
          const size_t p = ((size_t)bi * r->in_h + iy) * r->in_w + ix;
          const size_t j = (size_t)(ky * r->k_w + kx) * oc_n + (size_t)c;
          const __m512i sv = _mm512_maskz_loadu_epi32(m, st->sums + p * (size_t)rows + j);
          const __m512i kv = _mm512_maskz_loadu_epi32(m, st->gemm.sum + j);
          acc = _mm512_add_epi32(acc, _mm512_sub_epi32(sv, _mm512_mullo_epi32(zx, kv)));
        }
      }
      const __m512 sc = _mm512_mul_round_ps(_mm512_maskz_loadu_ps(m, r->hy.w_scale + c), xs, HY_RN);
      const __m512 b = bias ? _mm512_maskz_loadu_ps(m, bias + c) : _mm512_setzero_ps();
      __m512 f = _mm512_add_round_ps(_mm512_mul_round_ps(_mm512_cvtepi32_ps(acc), sc, HY_RN), b, HY_RN);
      f = _mm512_min_ps(vhi, _mm512_max_ps(vlo, f));
      _mm512_mask_storeu_ps(out + (size_t)ox * oc_n + c, m, f);
    }
  }
}
#endif

static void row_task(void *arg, size_t row)
{
  const th_args *a = arg;
  const th_state *st = a->st;
  const cpu_conv_state *r = st->ref;
  const int oc_n = r->out_c;
  const int bi = (int)(row / (size_t)r->out_h), oy = (int)(row % (size_t)r->out_h);
  float *out = a->y + row * (size_t)r->out_w * oc_n;
#ifdef TH_X86
  if (st->isa.avx512 && r->k_h <= 64) {
    gather_avx512(st, a->bias, bi, oy, out);
    return;
  }
#endif
  uint32_t *acc = (uint32_t *)out;   /* the output row, as int32 until scaled back */
  memset(acc, 0, sizeof(uint32_t) * (size_t)r->out_w * oc_n);
  gather_portable(st, bi, oy, acc);
  cpu_hq_dequant(acc, NULL, 0, r->hy.w_scale, r->hy.x_scale[bi], a->bias, r->act_lo, r->act_hi, oc_n,
                 (size_t)r->out_w, out, st->isa.avx512);
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)diag;
  th_state *st = state;
  cpu_conv_state *r = st->ref;
  const tfl_tensor *b = cpu_in(g, n, TC_BIAS);
  const cpu_hq_images job = {cpu_in(g, n, TC_INPUT)->data, st->img, r->batches, r->hy.asym, st->isa.avx512,
                             st->part, st->qp, st->q_on, (uint8_t *)r->hy.xq, r->hy.x_scale, r->hy.x_zp};
  cpu_hq_images_run(&job, ctx);
  th_args a = {st, b ? b->data : NULL, cpu_out(g, n, OUTPUT)->data};
  cpu_parallel(ctx, sums_task, &a, (size_t)((st->pixels + PIXELS_PER_TASK - 1) / PIXELS_PER_TASK));
  if (!st->direct) cpu_parallel(ctx, row_task, &a, (size_t)r->batches * (size_t)r->out_h);
  return TFL_OK;
}

const cpu_kernel cpu_k_tconv_hybrid = {prepare, eval, release};
