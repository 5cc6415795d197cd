/* conv_q8_neon.c - 8-bit CONV_2D in NEON (see conv_q8_neon.h).
 *
 * The sum per output channel is the reference's: bias + sum over the window of
 * (x - zx) * (w - zw), each difference an int16, products and sums in int32 wrapping as
 * the reference's accumulator. Taps outside the input contribute 0 (the reference skips
 * them): their window entries are 0. The window of K = KH * KW * IC values is padded to
 * a multiple of 8 (zeros on both sides), so the inner loop has no tail.
 * Weights: [OC / 8][Kpad][8] int16 (w - zw per channel, 0 past OC); the bias and scales
 * padded to whole blocks of 8. Output rows are split over the threads.
 *
 * With the dot-product instructions (cpu_features.dotprod, from HWCAP; the path above
 * otherwise) the window stays bytes and udot multiplies 4 of them per int32 lane, a
 * quarter of the multiply-adds. Both types in unsigned form (int8: + 128, the same
 * differences), and over the window's K values:
 *   sum (x - zx)(w - zw) = sum x*w - zw * sum x - zx * sum w + K * zx * zw
 * where taps outside the input hold zx (their term is 0, as the reference's skip). The
 * last two terms are constant per channel and go into the bias at prepare; sum x is
 * taken while gathering each window. All of it modulo 2^32, as the reference's sums.
 * Weights: [OC / 8][Kq / 4][8][4] bytes, Kq = K rounded up to 16 (zeros after K).
 */
#include "conv_q8_neon.h"

#include <string.h>

#include "../cpu_features.h"

#include "conv_common.h"
#include "kernels.h"
#include "q8_neon.h"

enum { INPUT = 0, FILTER = 1, BIAS = 2 };
enum { OUTPUT = 0 };

#define CQ_MAX_K 4096 /* window values: 4 pixels' windows as int16 are 32 KiB of stack */
#define CQ_PIX 4      /* output pixels per pass over the weights */

bool cpu_conv_q8_neon_fits(const tfl_graph *g, const tfl_node *n)
{
  if (!cpu_conv_q8_tensors_fit(g, n)) return false;
  const tfl_tensor *w = cpu_in(g, n, FILTER);
  const long long k = (long long)w->dims[1] * w->dims[2] * w->dims[3];
  return k <= CQ_MAX_K;
}

bool cpu_conv_q8_neon_applies(const tfl_graph *g, const tfl_node *n)
{
#if defined(__aarch64__)
  return cpu_conv_q8_neon_fits(g, n) && cpu_in(g, n, FILTER)->q.n == 1;
#else
  (void)g, (void)n;
  return false;
#endif
}

typedef struct {
  void *ref;      /* the reference kernel's prepared state (geometry, requantization) */
  int k, kpad;    /* window values, and rounded up to 8 */
  int ocpad;      /* output channels rounded up to 8 */
  int16_t *w;     /* [ocpad / 8][kpad][8] */
  int32_t *bias;  /* [ocpad] */
  float *scale;   /* [ocpad] */
  /* the dot-product path: */
  bool dot;       /* taken (the CPU has it, unless a test said otherwise) */
  int kq;         /* window values rounded up to 16 */
  uint8_t *w8;    /* [ocpad / 8][kq / 4][8][4]: w in unsigned form */
  int32_t *bias8; /* [ocpad]: bias - zx * sum w + K * zx * zw, unsigned forms */
  int32_t *zw8;   /* [ocpad]: zw in unsigned form */
  uint8_t zx8;    /* zx in unsigned form */
} cq_state;

void cpu_conv_q8_neon_use_isa(void *state, const cpu_features *isa)
{
  cq_state *st = state;
  if (st) st->dot = isa->dotprod && st->w8;
}

static void release(void *state)
{
  cq_state *st = state;
  if (!st) return;
  cpu_k_conv_2d.release(st->ref);
  free(st->w);
  free(st->bias);
  free(st->scale);
  free(st->w8);
  free(st->bias8);
  free(st->zw8);
  free(st);
}

/* Stored 8-bit value i of data as int32. */
static int32_t stored_at(const void *data, bool is_u8, size_t i)
{
  return is_u8 ? ((const uint8_t *)data)[i] : ((const int8_t *)data)[i];
}

/* The dot-product path's weights and bias (cq_state.w8, bias8, zw8). */
static tfl_status pack_bytes(cq_state *st, const tfl_graph *g, const tfl_node *n, const tfl_tensor *w,
                             tfl_diag *diag)
{
  const cpu_conv_state *gs = st->ref;
  const cpu_requant *rq = &gs->rq;
  const int32_t flip = rq->is_u8 ? 0 : 128;
  st->kq = (st->k + 15) & ~15;
  st->w8 = calloc((size_t)st->ocpad * (size_t)st->kq, 1);
  st->bias8 = calloc((size_t)st->ocpad, sizeof *st->bias8);
  st->zw8 = calloc((size_t)st->ocpad, sizeof *st->zw8);
  if (!st->w8 || !st->bias8 || !st->zw8)
    return tfl_fail(diag, TFL_ERR_NOMEM, "node %d (CONV_2D): packed byte weights of %d x %d",
                    cpu_node_index(g, n), gs->out_c, st->k);
  st->zx8 = (uint8_t)(rq->in_zp + flip);
  for (int oc = 0; oc < gs->out_c; oc++) {
    uint8_t *blk = st->w8 + (size_t)(oc / 8) * st->kq * 8 + (size_t)(oc % 8) * 4;
    uint32_t sum = 0;
    for (int t = 0; t < st->k; t++) {
      const uint32_t v = (uint32_t)(stored_at(w->data, rq->is_u8, (size_t)oc * st->k + t) + flip);
      blk[(size_t)(t / 4) * 32 + t % 4] = (uint8_t)v;
      sum += v;
    }
    const uint32_t zw = (uint32_t)(rq->w_zp[oc] + flip), zx = st->zx8;
    st->zw8[oc] = (int32_t)zw;
    st->bias8[oc] = (int32_t)((uint32_t)st->bias[oc] - zx * sum + (uint32_t)st->k * zx * zw);
  }
  return TFL_OK;
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  *state = NULL;
  if (!cpu_conv_q8_neon_fits(g, n))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s",
                        "not an 8-bit conv with one group, constant weights and a window of at most 4096 values");
  cq_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "conv q8 neon state");
  *state = st;
  tfl_status s = cpu_k_conv_2d.prepare(g, n, &st->ref, diag);
  if (s != TFL_OK) return s;
  const cpu_conv_state *gs = st->ref;
  const cpu_requant *rq = &gs->rq;
  const tfl_tensor *w = cpu_in(g, n, FILTER), *b = cpu_in(g, n, BIAS);
  st->k = gs->k_h * gs->k_w * gs->in_c; /* fits checked it is at most CQ_MAX_K */
  st->kpad = (st->k + 7) & ~7;
  st->ocpad = (gs->out_c + 7) & ~7;
  st->w = calloc((size_t)st->ocpad * (size_t)st->kpad, sizeof *st->w);
  st->bias = calloc((size_t)st->ocpad, sizeof *st->bias);
  st->scale = calloc((size_t)st->ocpad, sizeof *st->scale);
  if (!st->w || !st->bias || !st->scale)
    return tfl_fail(diag, TFL_ERR_NOMEM, "node %d (CONV_2D): packed weights of %d x %d", cpu_node_index(g, n),
                    gs->out_c, st->k);
  for (int oc = 0; oc < gs->out_c; oc++) {
    int16_t *blk = st->w + (size_t)(oc / 8) * st->kpad * 8 + oc % 8;
    for (int t = 0; t < st->k; t++)
      blk[(size_t)t * 8] = (int16_t)(stored_at(w->data, rq->is_u8, (size_t)oc * st->k + t) - rq->w_zp[oc]);
    st->bias[oc] = b ? ((const int32_t *)b->data)[oc] : 0;
    st->scale[oc] = rq->scale[oc];
  }
  st->dot = cpu_features_detect().dotprod;
  return st->dot ? pack_bytes(st, g, n, w, diag) : TFL_OK;
}

#if defined(__aarch64__)
typedef struct {
  const cq_state *st;
  const uint8_t *x;
  uint8_t *y;
} cq_args;

/* The window of output pixel (oy, ox) of image xb as int16, kpad values. */
static void gather(const cq_state *st, const uint8_t *xb, int oy, int ox, int16_t *col)
{
  const cpu_conv_state *gs = st->ref;
  const cpu_requant *rq = &gs->rq;
  const int ic = gs->in_c;
  int16_t *o = col;
  for (int ky = 0; ky < gs->k_h; ky++) {
    const int iy = oy * gs->stride_h - gs->pad_h + ky * gs->dil_h;
    for (int kx = 0; kx < gs->k_w; kx++, o += ic) {
      const int ix = ox * gs->stride_w - gs->pad_w + kx * gs->dil_w;
      if (iy < 0 || iy >= gs->in_h || ix < 0 || ix >= gs->in_w) {
        memset(o, 0, sizeof *o * (size_t)ic);
        continue;
      }
      const uint8_t *xi = xb + ((size_t)iy * gs->in_w + ix) * ic;
      int c = 0;
      for (; c + 8 <= ic; c += 8) vst1q_s16(o + c, q8n_widen(xi + c, rq->is_u8, rq->in_zp));
      for (; c < ic; c++) o[c] = (int16_t)(stored_at(xi, rq->is_u8, (size_t)c) - rq->in_zp);
    }
  }
  for (int t = st->k; t < st->kpad; t++) col[t] = 0;
}

/* One weight vector times lane j of each pixel's window vector. */
#define CQ_LANE(j)                                                                                                   \
  do {                                                                                                               \
    const int16x8_t wv = vld1q_s16(wp + (j) * 8);                                                                    \
    const int16x4_t wl = vget_low_s16(wv);                                                                           \
    a0l = vmlal_laneq_s16(a0l, wl, x0, j), a0h = vmlal_high_laneq_s16(a0h, wv, x0, j);                               \
    a1l = vmlal_laneq_s16(a1l, wl, x1, j), a1h = vmlal_high_laneq_s16(a1h, wv, x1, j);                               \
    a2l = vmlal_laneq_s16(a2l, wl, x2, j), a2h = vmlal_high_laneq_s16(a2h, wv, x2, j);                               \
    a3l = vmlal_laneq_s16(a3l, wl, x3, j), a3h = vmlal_high_laneq_s16(a3h, wv, x3, j);                               \
  } while (0)

/* Output channels [8 * blk, 8 * blk + 8) of np <= 4 pixels whose windows are col[0..3]
 * (the unused ones any initialized values), stored at y[p * OC]. */
static void block4(const cq_state *st, const q8n_out *o, const int16_t (*col)[CQ_MAX_K], int blk, int np,
                   uint8_t *y)
{
  const cpu_conv_state *gs = st->ref;
  const int32x4_t bl = vld1q_s32(st->bias + 8 * blk), bh = vld1q_s32(st->bias + 8 * blk + 4);
  int32x4_t a0l = bl, a0h = bh, a1l = bl, a1h = bh, a2l = bl, a2h = bh, a3l = bl, a3h = bh;
  const int16_t *wp = st->w + (size_t)blk * st->kpad * 8;
  for (int k = 0; k < st->kpad; k += 8, wp += 64) {
    const int16x8_t x0 = vld1q_s16(col[0] + k), x1 = vld1q_s16(col[1] + k);
    const int16x8_t x2 = vld1q_s16(col[2] + k), x3 = vld1q_s16(col[3] + k);
    CQ_LANE(0);
    CQ_LANE(1);
    CQ_LANE(2);
    CQ_LANE(3);
    CQ_LANE(4);
    CQ_LANE(5);
    CQ_LANE(6);
    CQ_LANE(7);
  }
  const int nc = gs->out_c - 8 * blk < 8 ? gs->out_c - 8 * blk : 8;
  const float *sc = st->scale + 8 * blk;
  const size_t oc = (size_t)gs->out_c;
  q8n_store8(o, a0l, a0h, sc, y, nc);
  if (np > 1) q8n_store8(o, a1l, a1h, sc, y + oc, nc);
  if (np > 2) q8n_store8(o, a2l, a2h, sc, y + 2 * oc, nc);
  if (np > 3) q8n_store8(o, a3l, a3h, sc, y + 3 * oc, nc);
}

/* ---- the dot-product path ---- */

#define DOT __attribute__((target("arch=armv8.2-a+dotprod")))

/* The window of output pixel (oy, ox) as unsigned bytes (kq of them: zx outside the
 * input, 0 after K); returns the sum of its first K. */
static uint32_t gather_bytes(const cq_state *st, const uint8_t *xb, int oy, int ox, uint8_t *col)
{
  const cpu_conv_state *gs = st->ref;
  const int ic = gs->in_c;
  const uint8_t flip = gs->rq.is_u8 ? 0 : 0x80;
  const uint8x16_t flip16 = vdupq_n_u8(flip);
  uint32_t sum = 0;
  uint8_t *o = col;
  for (int ky = 0; ky < gs->k_h; ky++) {
    const int iy = oy * gs->stride_h - gs->pad_h + ky * gs->dil_h;
    for (int kx = 0; kx < gs->k_w; kx++, o += ic) {
      const int ix = ox * gs->stride_w - gs->pad_w + kx * gs->dil_w;
      if (iy < 0 || iy >= gs->in_h || ix < 0 || ix >= gs->in_w) {
        memset(o, st->zx8, (size_t)ic);
        sum += (uint32_t)st->zx8 * (uint32_t)ic;
        continue;
      }
      const uint8_t *xi = xb + ((size_t)iy * gs->in_w + ix) * ic;
      int c = 0;
      for (; c + 16 <= ic; c += 16) {
        const uint8x16_t v = veorq_u8(vld1q_u8(xi + c), flip16);
        vst1q_u8(o + c, v);
        sum += vaddlvq_u8(v);
      }
      for (; c < ic; c++) {
        o[c] = (uint8_t)(xi[c] ^ flip);
        sum += o[c];
      }
    }
  }
  memset(col + st->k, 0, (size_t)(st->kq - st->k));
  return sum;
}

/* One weight group (4 window values of 8 channels) times lane j of each pixel's vector. */
#define CQ_DOT(j)                                                                                                    \
  do {                                                                                                               \
    const uint8x16_t wl = vld1q_u8(wp + (j) * 32), wh = vld1q_u8(wp + (j) * 32 + 16);                                \
    a0l = vdotq_laneq_u32(a0l, wl, x0, j), a0h = vdotq_laneq_u32(a0h, wh, x0, j);                                    \
    a1l = vdotq_laneq_u32(a1l, wl, x1, j), a1h = vdotq_laneq_u32(a1h, wh, x1, j);                                    \
    a2l = vdotq_laneq_u32(a2l, wl, x2, j), a2h = vdotq_laneq_u32(a2h, wh, x2, j);                                    \
    a3l = vdotq_laneq_u32(a3l, wl, x3, j), a3h = vdotq_laneq_u32(a3h, wh, x3, j);                                    \
  } while (0)

/* acc - zw * sum x, as int32 (wrapping). */
static inline int32x4_t dot_fix(uint32x4_t acc, int32x4_t zw, uint32_t sx)
{
  return vreinterpretq_s32_u32(vmlsq_u32(acc, vreinterpretq_u32_s32(zw), vdupq_n_u32(sx)));
}

/* block4 on byte windows col[0..3] with their sums sx. */
DOT static void block4_dot(const cq_state *st, const q8n_out *o, const uint8_t (*col)[CQ_MAX_K], const uint32_t *sx,
                           int blk, int np, uint8_t *y)
{
  const cpu_conv_state *gs = st->ref;
  const uint32x4_t bl = vreinterpretq_u32_s32(vld1q_s32(st->bias8 + 8 * blk));
  const uint32x4_t bh = vreinterpretq_u32_s32(vld1q_s32(st->bias8 + 8 * blk + 4));
  uint32x4_t a0l = bl, a0h = bh, a1l = bl, a1h = bh, a2l = bl, a2h = bh, a3l = bl, a3h = bh;
  const uint8_t *wp = st->w8 + (size_t)blk * st->kq * 8;
  for (int k = 0; k < st->kq; k += 16, wp += 128) {
    const uint8x16_t x0 = vld1q_u8(col[0] + k), x1 = vld1q_u8(col[1] + k);
    const uint8x16_t x2 = vld1q_u8(col[2] + k), x3 = vld1q_u8(col[3] + k);
    CQ_DOT(0);
    CQ_DOT(1);
    CQ_DOT(2);
    CQ_DOT(3);
  }
  const int nc = gs->out_c - 8 * blk < 8 ? gs->out_c - 8 * blk : 8;
  const float *sc = st->scale + 8 * blk;
  const int32x4_t zl = vld1q_s32(st->zw8 + 8 * blk), zh = vld1q_s32(st->zw8 + 8 * blk + 4);
  const size_t oc = (size_t)gs->out_c;
  q8n_store8(o, dot_fix(a0l, zl, sx[0]), dot_fix(a0h, zh, sx[0]), sc, y, nc);
  if (np > 1) q8n_store8(o, dot_fix(a1l, zl, sx[1]), dot_fix(a1h, zh, sx[1]), sc, y + oc, nc);
  if (np > 2) q8n_store8(o, dot_fix(a2l, zl, sx[2]), dot_fix(a2h, zh, sx[2]), sc, y + 2 * oc, nc);
  if (np > 3) q8n_store8(o, dot_fix(a3l, zl, sx[3]), dot_fix(a3h, zh, sx[3]), sc, y + 3 * oc, nc);
}

/* row() with the dot products. */
DOT static void row_dot(const cq_args *a, size_t r)
{
  const cq_state *st = a->st;
  const cpu_conv_state *gs = st->ref;
  const cpu_requant *rq = &gs->rq;
  const q8n_out o = {(float)(rq->lo - rq->out_zp), (float)(rq->hi - rq->out_zp), rq->out_zp, rq->is_u8};
  const int bi = (int)(r / (size_t)gs->out_h), oy = (int)(r % (size_t)gs->out_h);
  const uint8_t *xb = a->x + (size_t)bi * gs->in_h * gs->in_w * gs->in_c;
  uint8_t col[CQ_PIX][CQ_MAX_K];
  uint32_t sx[CQ_PIX];
  const int blocks = st->ocpad / 8;
  for (int ox = 0; ox < gs->out_w; ox += CQ_PIX) {
    const int np = gs->out_w - ox < CQ_PIX ? gs->out_w - ox : CQ_PIX;
    for (int p = 0; p < CQ_PIX; p++) sx[p] = gather_bytes(st, xb, oy, ox + (p < np ? p : 0), col[p]);
    uint8_t *y = a->y + (r * (size_t)gs->out_w + (size_t)ox) * gs->out_c;
    for (int blk = 0; blk < blocks; blk++)
      block4_dot(st, &o, (const uint8_t(*)[CQ_MAX_K])col, sx, blk, np, y + 8 * blk);
  }
}

/* One output row (b, oy): 4 pixels at a time. */
static void row(void *arg, size_t r)
{
  const cq_args *a = arg;
  const cq_state *st = a->st;
  if (st->dot) {
    row_dot(a, r);
    return;
  }
  const cpu_conv_state *gs = st->ref;
  const cpu_requant *rq = &gs->rq;
  const q8n_out o = {(float)(rq->lo - rq->out_zp), (float)(rq->hi - rq->out_zp), rq->out_zp, rq->is_u8};
  const int bi = (int)(r / (size_t)gs->out_h), oy = (int)(r % (size_t)gs->out_h);
  const uint8_t *xb = a->x + (size_t)bi * gs->in_h * gs->in_w * gs->in_c;
  int16_t col[CQ_PIX][CQ_MAX_K];
  const int blocks = st->ocpad / 8;
  for (int ox = 0; ox < gs->out_w; ox += CQ_PIX) {
    const int np = gs->out_w - ox < CQ_PIX ? gs->out_w - ox : CQ_PIX;
    for (int p = 0; p < CQ_PIX; p++) gather(st, xb, oy, ox + (p < np ? p : 0), col[p]);
    uint8_t *y = a->y + (r * (size_t)gs->out_w + (size_t)ox) * gs->out_c;
    for (int blk = 0; blk < blocks; blk++) block4(st, &o, (const int16_t(*)[CQ_MAX_K])col, blk, np, y + 8 * blk);
  }
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)diag;
  const cq_state *st = state;
  const cpu_conv_state *gs = st->ref;
  cq_args a = {st, cpu_in(g, n, INPUT)->data, cpu_out(g, n, OUTPUT)->data};
  cpu_parallel(ctx, row, &a, (size_t)gs->batches * gs->out_h);
  return TFL_OK;
}
#else
/* Off aarch64 (never chosen there: cpu_conv_q8_neon_applies) the reference kernel runs. */
static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const cq_state *st = state;
  return cpu_k_conv_2d.eval(g, n, st->ref, ctx, diag);
}
#endif

const cpu_kernel cpu_k_conv_q8_neon = {prepare, eval, release};
