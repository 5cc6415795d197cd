/* tconv_q8.c - see tconv_q8.h.
 *
 * Stage 1 (tasks: blocks of input pixels): sums[p][(ky*KW + kx)*OC + oc], the 8-bit product
 * of x_u (the input byte read as unsigned, int8: + 128) and s (the weights minus gemm_q8.h's
 * offset). Stage 2 (tasks: output rows): each output pixel adds, for every tap whose input
 * pixel exists (the reference's gather: iy = (oy + pad - ky) / stride when exact), that
 * sum minus zx_u * sum_ic s plus (offset - w_zp[oc]) * sum_ic (x_u - zx_u) of the pixel,
 * i.e. sum_ic (x - x_zp) * (w - w_zp); the row is requantized with the bias
 * (requant_rows.h): the reference's wrapping int32 sum, requantized the same way.
 */
#include "tconv_q8.h"

#include <string.h>

#include "conv_common.h"
#include "gemm_q8.h"
#include "requant_rows.h"
#include "kernels.h"
#include "tconv_taps.h"

enum { TC_OUTPUT_SHAPE = 0, TC_WEIGHTS = 1, TC_INPUT = 2, TC_BIAS = 3 };
enum { OUTPUT = 0 };
enum { PIXELS_PER_TASK = 32 };
#define MAX_SUM_BYTES ((size_t)64 << 20)

typedef struct {
  void *ref;            /* the reference kernel's state: geometry, requantization */
  cpu_q8_gemm gemm;
  int taps;             /* KH * KW */
  int pixels;           /* batches * in_h * in_w */
  int32_t *corr;        /* [taps * OC]: zx_u * sum_ic s */
  int32_t *kw;          /* [OC]: gemm offset - weight zero point */
  int32_t *sx;          /* [pixels]: sum_ic (x_u - zx_u) of the current input */
  int32_t zx_u;
  uint8_t *x_u;         /* [pixels][kq * 4] */
  int32_t *sums;        /* [pixels][taps * OC] */
  int32_t *acc;         /* [batches * out_h][out_w * OC]: stage 2's sums */
  bool any_kw;          /* some kw != 0 */
  /* stride = filter size, no padding (a UNet's 2x2 stride-2 upsampling): each output pixel
   * takes one tap of one input pixel, so stage 1 requantizes straight into the output
   * with a bias per tap (tap_bias = bias - corr) and no stage 2 */
  bool direct;
  int32_t *tap_bias;    /* direct: [taps][OC] */
  bool in_u8;
  cpu_features isa;
} tc_state;

static bool is_q8(const tfl_tensor *t)
{
  return t && (t->type == TFL_TYPE_UINT8 || t->type == TFL_TYPE_INT8) && t->q.n >= 1;
}

bool cpu_tconv_q8_fits(const tfl_graph *g, const tfl_node *n)
{
  if (n->op != TFL_OP_TRANSPOSE_CONV) return false;
  const tfl_tensor *x = cpu_in(g, n, TC_INPUT), *w = cpu_in(g, n, TC_WEIGHTS), *b = cpu_in(g, n, TC_BIAS);
  const tfl_tensor *y = cpu_out(g, n, OUTPUT);
  if (!is_q8(x) || !is_q8(w) || !is_q8(y) || x->type != w->type || y->type != x->type) return false;
  if (x->q.n != 1 || y->q.n != 1 || !w->is_const || !w->data || w->ndim != 4 || x->ndim != 4) return false;
  if (w->q.n != 1 && (w->q.n != w->dims[0] || w->q.axis != 0)) return false;
  if (b && (b->type != TFL_TYPE_INT32 || !b->is_const || !b->data)) return false;
  if (w->dims[3] != x->dims[3] || w->dims[0] < 1 || w->dims[3] < 1) return false;
  const int taps = w->dims[1] * w->dims[2];
  const size_t pixels = (size_t)x->dims[0] * x->dims[1] * x->dims[2];
  const size_t outs = tfl_tensor_count(y);
  return taps >= 1 && (pixels * (size_t)taps * (size_t)w->dims[0] + outs) * sizeof(int32_t) <= MAX_SUM_BYTES;
}

bool cpu_tconv_q8_applies(const tfl_graph *g, const tfl_node *n, const cpu_features *isa)
{
  (void)isa;   /* the portable path still beats the reference's per-tap dot products */
  return cpu_tconv_q8_fits(g, n);
}

void cpu_tconv_q8_use_isa(void *state, const cpu_features *isa)
{
  tc_state *st = state;
  if (st) st->isa = *isa;
}

static void release(void *state)
{
  tc_state *st = state;
  if (!st) return;
  cpu_k_transpose_conv.release(st->ref);
  cpu_q8_gemm_free(&st->gemm);
  free(st->corr);
  free(st->kw);
  free(st->sx);
  free(st->x_u);
  free(st->sums);
  free(st->acc);
  free(st->tap_bias);
  free(st);
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  if (!cpu_tconv_q8_fits(g, n))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "not an 8-bit node the fast kernel takes%s", "");
  tc_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "tconv_q8 state");
  *state = st;
  st->isa = cpu_features_detect();
  tfl_status s = cpu_k_transpose_conv.prepare(g, n, &st->ref, diag);
  if (s) return s;
  const cpu_conv_state *r = st->ref;
  const tfl_tensor *w = cpu_in(g, n, TC_WEIGHTS);
  st->in_u8 = r->rq.is_u8;
  st->taps = r->k_h * r->k_w;
  st->pixels = r->batches * r->in_h * r->in_w;
  cpu_tconv_rows src = {w, st->taps, r->in_c};
  const int rows = st->taps * r->out_c;
  if (!cpu_q8_gemm_pack(&st->gemm, rows, r->in_c, w->type == TFL_TYPE_UINT8, cpu_tconv_weight_row, &src))
    return tfl_fail(diag, TFL_ERR_NOMEM, "tconv_q8 weights");
  const uint32_t zx_u = (uint32_t)(r->rq.in_zp + (st->in_u8 ? 0 : 128));
  st->zx_u = (int32_t)zx_u;
  st->corr = malloc(sizeof(int32_t) * (size_t)rows);
  st->kw = malloc(sizeof(int32_t) * (size_t)r->out_c);
  st->sx = malloc(sizeof(int32_t) * (size_t)st->pixels);
  st->x_u = calloc((size_t)st->pixels * (size_t)st->gemm.kq * 4, 1);
  st->sums = malloc(sizeof(int32_t) * (size_t)st->pixels * (size_t)rows);
  st->acc = malloc(sizeof(int32_t) * tfl_tensor_count(cpu_out(g, n, OUTPUT)));
  if (!st->corr || !st->kw || !st->sx || !st->x_u || !st->sums || !st->acc)
    return tfl_fail(diag, TFL_ERR_NOMEM, "tconv_q8 buffers");
  for (int j = 0; j < rows; j++) st->corr[j] = (int32_t)(zx_u * (uint32_t)st->gemm.sum[j]);
  for (int oc = 0; oc < r->out_c; oc++) {
    st->kw[oc] = cpu_q8_gemm_offset(w->type == TFL_TYPE_UINT8) - r->rq.w_zp[oc];
    st->any_kw |= st->kw[oc] != 0;
  }
  st->direct = cpu_tconv_direct(r);
  if (st->direct) {
    const tfl_tensor *b = cpu_in(g, n, TC_BIAS);
    st->tap_bias = malloc(sizeof(int32_t) * (size_t)rows);
    if (!st->tap_bias) return tfl_fail(diag, TFL_ERR_NOMEM, "tconv_q8 tap biases");
    for (int j = 0; j < rows; j++) {
      uint32_t bv = b ? (uint32_t)((const int32_t *)b->data)[j % r->out_c] : 0u;
      st->tap_bias[j] = (int32_t)(bv - (uint32_t)st->corr[j]);
    }
  }
  return TFL_OK;
}

typedef struct {
  const tc_state *st;
  const int32_t *bias;
  void *y;
} tc_args;

static void sums_task(void *arg, size_t t)
{
  const tc_args *a = arg;
  const tc_state *st = a->st;
  const int p0 = (int)t * PIXELS_PER_TASK;
  const int np = st->pixels - p0 < PIXELS_PER_TASK ? st->pixels - p0 : PIXELS_PER_TASK;
  const size_t xs = (size_t)st->gemm.kq * 4, ys = (size_t)st->gemm.rows;
  cpu_q8_gemm_run(&st->gemm, st->x_u + (size_t)p0 * xs, xs, np, 0, st->gemm.blocks, st->sums + (size_t)p0 * ys, ys,
                  st->isa.avx512_vnni);
  const cpu_conv_state *r = st->ref;
  const int oc_n = r->out_c;
  if (st->direct) {
    /* input pixel p = (b, iy, ix), tap (ky, kx) -> output pixel (b, iy*KH + ky, ix*KW + kx) */
    for (int p = p0; p < p0 + np; p++) {
      const int ix = p % r->in_w, iy = (p / r->in_w) % r->in_h, bi = p / (r->in_w * r->in_h);
      for (int tap = 0; tap < st->taps; tap++) {
        const int ky = tap / r->k_w, kx = tap % r->k_w;
        const size_t o = (((size_t)bi * r->out_h + (size_t)iy * r->k_h + ky) * r->out_w + (size_t)ix * r->k_w + kx) *
                         oc_n;
        const cpu_requant_rows rr = {oc_n, st->tap_bias + (size_t)tap * oc_n, st->any_kw ? st->kw : NULL,
                                     r->rq.scale, r->rq.out_zp, r->rq.lo, r->rq.hi, r->rq.is_u8};
        cpu_requant_rows_run(&rr, st->sums + (size_t)p * ys + (size_t)tap * oc_n, st->sx + p, (uint8_t *)a->y + o, 1,
                             st->isa.avx512);
      }
    }
    return;
  }
}

/* o[c] += s[c] - k[c] (+ kw[c] * sx): one tap's sums into an output pixel. uint32: wraps
 * as the reference's int32 sum. */
static void add_tap(uint32_t *o, const uint32_t *s, const uint32_t *k, const int32_t *kw, uint32_t sx, int n)
{
  if (kw)
    for (int c = 0; c < n; c++) o[c] += s[c] - k[c] + (uint32_t)kw[c] * sx;
  else
    for (int c = 0; c < n; c++) o[c] += s[c] - k[c];
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
__attribute__((target("avx512f"))) static void add_tap_avx512(uint32_t *o, const uint32_t *s, const uint32_t *k,
                                                              const int32_t *kw, uint32_t sx, int n)
{
  const __m512i vx = _mm512_set1_epi32((int)sx);
  for (int c = 0; c < n; c += 16) {
    const __mmask16 m = n - c >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - c)) - 1);
    __m512i v = _mm512_sub_epi32(_mm512_maskz_loadu_epi32(m, s + c), _mm512_maskz_loadu_epi32(m, k + c));
    if (kw) v = _mm512_add_epi32(v, _mm512_mullo_epi32(_mm512_maskz_loadu_epi32(m, kw + c), vx));
    _mm512_mask_storeu_epi32(o + c, m, _mm512_add_epi32(_mm512_maskz_loadu_epi32(m, o + c), v));
  }
}
#else
#define add_tap_avx512 add_tap
#endif


static void row_task(void *arg, size_t row)
{
  const tc_args *a = arg;
  const tc_state *st = a->st;
  const cpu_conv_state *r = st->ref;
  const int oc_n = r->out_c, rows = st->gemm.rows;
  const int bi = (int)(row / (size_t)r->out_h), oy = (int)(row % (size_t)r->out_h);
  uint32_t *acc = (uint32_t *)st->acc + row * (size_t)r->out_w * oc_n;
  memset(acc, 0, sizeof(int32_t) * (size_t)r->out_w * oc_n);
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
        const uint32_t *s = (const uint32_t *)st->sums + p * (size_t)rows + j0;
        const uint32_t *k = (const uint32_t *)st->corr + j0;
        const int32_t *kw = st->any_kw ? st->kw : NULL;
        if (st->isa.avx512)
          add_tap_avx512(o, s, k, kw, (uint32_t)st->sx[p], oc_n);
        else
          add_tap(o, s, k, kw, (uint32_t)st->sx[p], oc_n);
      }
    }
  }
  const cpu_requant_rows rr = {oc_n, a->bias, NULL, r->rq.scale, r->rq.out_zp, r->rq.lo, r->rq.hi, r->rq.is_u8};
  uint8_t *out = (uint8_t *)a->y + row * (size_t)r->out_w * oc_n;   /* 8-bit: one byte each */
  cpu_requant_rows_run(&rr, (const int32_t *)acc, NULL, out, (size_t)r->out_w, st->isa.avx512);
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)diag;
  tc_state *st = state;
  const cpu_conv_state *r = st->ref;
  const tfl_tensor *x = cpu_in(g, n, TC_INPUT), *b = cpu_in(g, n, TC_BIAS);
  const size_t xs = (size_t)st->gemm.kq * 4;
  const uint8_t flip = st->in_u8 ? 0 : 0x80;   /* int8 -> unsigned: + 128 */
  for (int p = 0; p < st->pixels; p++) {
    const uint8_t *src = (const uint8_t *)x->data + (size_t)p * r->in_c;
    uint8_t *dst = st->x_u + (size_t)p * xs;
    int32_t sum = 0;
    for (int c = 0; c < r->in_c; c++) sum += dst[c] = src[c] ^ flip;
    st->sx[p] = sum - r->in_c * st->zx_u;
  }
  tc_args a = {st, b ? b->data : NULL, cpu_out(g, n, OUTPUT)->data};
  cpu_parallel(ctx, sums_task, &a, (size_t)((st->pixels + PIXELS_PER_TASK - 1) / PIXELS_PER_TASK));
  if (!st->direct) cpu_parallel(ctx, row_task, &a, (size_t)r->batches * (size_t)r->out_h);
  return TFL_OK;
}

const cpu_kernel cpu_k_tconv_q8 = {prepare, eval, release};
