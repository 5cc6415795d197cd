/* dwconv_q8_neon.c - 8-bit depthwise convolution in NEON (see dwconv_q8_neon.h).
 *
 * Per output pixel and block of 8 channels: bias + sum over the taps inside the input of
 * (x - zx) * (w - zw), the differences int16, the products and sums int32 wrapping as the
 * reference's accumulator (taps outside contribute 0, skipped as the reference does).
 * Weights: [KH * KW][Cpad] int16, bias and scales [Cpad], Cpad = C rounded up to 8 (zeros
 * past C); 16 channels per pass where they fill it, a last partial block reads its input
 * bytes through a small buffer. Output rows are split over the threads.
 */
#include "dwconv_q8_neon.h"

#include <string.h>

#include "conv_common.h"
#include "dwconv_q8.h"
#include "kernels.h"
#include "q8_neon.h"

enum { INPUT = 0, FILTER = 1, BIAS = 2 };
enum { OUTPUT = 0 };

#define DQ_MAX_TAPS 64 /* KH * KW: the row's tap lists live on the stack */

bool cpu_dwconv_q8_neon_fits(const tfl_graph *g, const tfl_node *n)
{
  if (!cpu_dwconv_q8_tensors_fit(g, n)) return false; /* the tensors as the x86 kernel takes them */
  const tfl_tensor *w = cpu_in(g, n, FILTER);
  const tfl_conv_params *p = &n->p.conv;
  return tfl_act_is_clamp(p->act) && w->dims[1] >= 1 && w->dims[2] >= 1 &&
         (long long)w->dims[1] * w->dims[2] <= DQ_MAX_TAPS;
}

bool cpu_dwconv_q8_neon_applies(const tfl_graph *g, const tfl_node *n)
{
#if defined(__aarch64__)
  return cpu_dwconv_q8_neon_fits(g, n) && cpu_in(g, n, FILTER)->q.n == 1;
#else
  (void)g, (void)n;
  return false;
#endif
}

typedef struct {
  void *ref;      /* the reference kernel's prepared state (geometry, requantization) */
  int cpad;       /* channels rounded up to 8 */
  int16_t *w;     /* [KH * KW][cpad] */
  int32_t *bias;  /* [cpad] */
  float *scale;   /* [cpad] */
} dq_state;

static void release(void *state)
{
  dq_state *st = state;
  if (!st) return;
  cpu_k_depthwise_conv_2d.release(st->ref);
  free(st->w);
  free(st->bias);
  free(st->scale);
  free(st);
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  *state = NULL;
  if (!cpu_dwconv_q8_neon_fits(g, n))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s",
                        "not an 8-bit depthwise conv with multiplier 1 and constant weights");
  dq_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "depthwise q8 neon state");
  *state = st;
  tfl_status s = cpu_k_depthwise_conv_2d.prepare(g, n, &st->ref, diag);
  if (s != TFL_OK) return s;
  const cpu_conv_state *gs = st->ref;
  const cpu_requant *rq = &gs->rq;
  const tfl_tensor *w = cpu_in(g, n, FILTER), *b = cpu_in(g, n, BIAS);
  const int C = gs->out_c;
  const size_t taps = (size_t)gs->k_h * (size_t)gs->k_w;
  st->cpad = (C + 7) & ~7;
  st->w = calloc(taps * (size_t)st->cpad, sizeof *st->w);
  st->bias = calloc((size_t)st->cpad, sizeof *st->bias);
  st->scale = calloc((size_t)st->cpad, sizeof *st->scale);
  if (!st->w || !st->bias || !st->scale)
    return tfl_fail(diag, TFL_ERR_NOMEM, "node %d (DEPTHWISE_CONV_2D): packed weights of %d channels",
                    cpu_node_index(g, n), C);
  for (size_t t = 0; t < taps; t++)
    for (int c = 0; c < C; c++) {
      const size_t i = t * (size_t)C + (size_t)c;
      const int32_t v = rq->is_u8 ? ((const uint8_t *)w->data)[i] : ((const int8_t *)w->data)[i];
      st->w[t * (size_t)st->cpad + (size_t)c] = (int16_t)(v - rq->w_zp[c]);
    }
  for (int c = 0; c < C; c++) {
    st->bias[c] = b ? ((const int32_t *)b->data)[c] : 0;
    st->scale[c] = rq->scale[c];
  }
  return TFL_OK;
}

#if defined(__aarch64__)
typedef struct {
  const dq_state *st;
  const uint8_t *x;
  uint8_t *y;
} dq_args;

/* 16 stored bytes less zx as two int16 vectors; is_u8 a constant where this is inlined. */
__attribute__((always_inline)) static inline void widen16(const uint8_t *x, bool is_u8, uint8x8_t zx8,
                                                          int16x8_t *lo, int16x8_t *hi)
{
  const uint8x16_t v = vld1q_u8(x);
  if (is_u8) {
    *lo = vreinterpretq_s16_u16(vsubl_u8(vget_low_u8(v), zx8));
    *hi = vreinterpretq_s16_u16(vsubl_high_u8(v, vcombine_u8(zx8, zx8)));
  } else {
    const int8x16_t s = vreinterpretq_s8_u8(v);
    const int8x8_t z = vreinterpret_s8_u8(zx8);
    *lo = vsubl_s8(vget_low_s8(s), z);
    *hi = vsubl_high_s8(s, vcombine_s8(z, z));
  }
}

/* One output pixel's channels over its ntaps taps (input offsets xo, weight offsets wo):
 * 16 channels at a time, then 8, then a partial block through a buffer. is_u8 is a
 * constant in each caller, so the type's branch leaves the loops. */
__attribute__((always_inline)) static inline void pixel(const dq_state *st, const q8n_out *o, const uint8_t *xb,
                                                        const size_t *xo, const size_t *wo, int ntaps, int C,
                                                        int32_t zx, bool is_u8, uint8_t *y)
{
  const uint8x8_t zx8 = vdup_n_u8((uint8_t)zx);
  const int16_t *w = st->w;
  int c0 = 0;
  for (; c0 + 16 <= C; c0 += 16) {
    int32x4_t a0 = vld1q_s32(st->bias + c0), a1 = vld1q_s32(st->bias + c0 + 4);
    int32x4_t a2 = vld1q_s32(st->bias + c0 + 8), a3 = vld1q_s32(st->bias + c0 + 12);
    for (int t = 0; t < ntaps; t++) {
      int16x8_t xl, xh;
      widen16(xb + xo[t] + c0, is_u8, zx8, &xl, &xh);
      const int16x8_t wl = vld1q_s16(w + wo[t] + c0), wh = vld1q_s16(w + wo[t] + c0 + 8);
      a0 = vmlal_s16(a0, vget_low_s16(xl), vget_low_s16(wl));
      a1 = vmlal_high_s16(a1, xl, wl);
      a2 = vmlal_s16(a2, vget_low_s16(xh), vget_low_s16(wh));
      a3 = vmlal_high_s16(a3, xh, wh);
    }
    q8n_store8(o, a0, a1, st->scale + c0, y + c0, 8);
    q8n_store8(o, a2, a3, st->scale + c0 + 8, y + c0 + 8, 8);
  }
  for (; c0 < C; c0 += 8) {
    const int nc = C - c0 < 8 ? C - c0 : 8;
    int32x4_t lo = vld1q_s32(st->bias + c0), hi = vld1q_s32(st->bias + c0 + 4);
    for (int t = 0; t < ntaps; t++) {
      const uint8_t *xi = xb + xo[t] + c0;
      const int16x8_t xv = nc == 8 ? q8n_widen(xi, is_u8, zx) : q8n_widen_part(xi, nc, is_u8, zx);
      const int16x8_t wv = vld1q_s16(w + wo[t] + c0);
      lo = vmlal_s16(lo, vget_low_s16(xv), vget_low_s16(wv));
      hi = vmlal_high_s16(hi, xv, wv);
    }
    q8n_store8(o, lo, hi, st->scale + c0, y + c0, nc);
  }
}

/* One output row (b, oy): per output pixel, the taps inside the input listed once (input
 * and weight offsets), then pixel(). */
static void row(void *arg, size_t r)
{
  const dq_args *a = arg;
  const dq_state *st = a->st;
  const cpu_conv_state *gs = st->ref;
  const cpu_requant *rq = &gs->rq;
  const q8n_out o = {(float)(rq->lo - rq->out_zp), (float)(rq->hi - rq->out_zp), rq->out_zp, rq->is_u8};
  const int C = gs->out_c, cpad = st->cpad, kh = gs->k_h, kw = gs->k_w, in_h = gs->in_h, in_w = gs->in_w;
  const int bi = (int)(r / (size_t)gs->out_h), oy = (int)(r % (size_t)gs->out_h), ow = gs->out_w;
  const int32_t zx = rq->in_zp;
  const uint8_t *xb = a->x + (size_t)bi * in_h * in_w * C;
  uint8_t *yr = a->y + r * (size_t)ow * C;
  size_t xo[DQ_MAX_TAPS], wo[DQ_MAX_TAPS];
  for (int ox = 0; ox < ow; ox++) {
    int taps = 0;
    for (int ky = 0; ky < kh; ky++) {
      const int iy = oy * gs->stride_h - gs->pad_h + ky * gs->dil_h;
      if (iy < 0 || iy >= in_h) continue;
      for (int kx = 0; kx < kw; kx++) {
        const int ix = ox * gs->stride_w - gs->pad_w + kx * gs->dil_w;
        if (ix < 0 || ix >= in_w) continue;
        xo[taps] = ((size_t)iy * in_w + (size_t)ix) * (size_t)C;
        wo[taps++] = ((size_t)ky * kw + (size_t)kx) * (size_t)cpad;
      }
    }
    if (rq->is_u8)
      pixel(st, &o, xb, xo, wo, taps, C, zx, true, yr + (size_t)ox * C);
    else
      pixel(st, &o, xb, xo, wo, taps, C, zx, false, yr + (size_t)ox * C);
  }
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)diag;
  const dq_state *st = state;
  const cpu_conv_state *gs = st->ref;
  dq_args a = {st, cpu_in(g, n, INPUT)->data, cpu_out(g, n, OUTPUT)->data};
  cpu_parallel(ctx, row, &a, (size_t)gs->batches * gs->out_h);
  return TFL_OK;
}
#else
/* Off aarch64 (never chosen there: cpu_dwconv_q8_neon_applies) the reference kernel runs. */
static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const dq_state *st = state;
  return cpu_k_depthwise_conv_2d.eval(g, n, st->ref, ctx, diag);
}
#endif

const cpu_kernel cpu_k_dwconv_q8_neon = {prepare, eval, release};
