/* dw_hybrid.c - see dw_hybrid.h.
 *
 * The image quantized as unsigned bytes q + 128 (hybrid_quant.h, per image); tasks over
 * output rows sum (q + 128 - (zp + 128)) * w = (q - zp) * w over the taps inside the
 * image (a padded tap adds nothing, as in the reference) per channel in int32, wrapping
 * like the reference's sum, write the sums into the output pixel and scale them back in
 * place (cpu_hq_dequant).
 */
#include "dw_hybrid.h"

#include <string.h>

#include "conv_common.h"
#include "hybrid_quant.h"
#include "kernels.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define DW_X86 1
#endif

enum { INPUT = 0, FILTER = 1, BIAS = 2 };
enum { OUTPUT = 0 };

typedef struct {
  cpu_conv_state *ref;       /* the reference kernel's state: geometry, scales, buffers */
  int32_t *w;                /* [KH * KW][C] */
  size_t img;                /* floats per image */
  float *part;               /* cpu_hq_images scratch */
  cpu_hybrid_qparams *qp;    /* [batches] */
  bool *q_on;                /* [batches] */
  cpu_features isa;
} dh_state;

bool cpu_dw_hybrid_fits(const tfl_graph *g, const tfl_node *n)
{
  if (n->op != TFL_OP_DEPTHWISE_CONV_2D) return false;
  const tfl_tensor *x = cpu_in(g, n, INPUT), *w = cpu_in(g, n, FILTER), *y = cpu_out(g, n, OUTPUT);
  if (!x || !w || !y || x->type != TFL_TYPE_FLOAT32 || w->type != TFL_TYPE_INT8 || y->type != TFL_TYPE_FLOAT32)
    return false;
  if (!w->is_const || !w->data || w->ndim != 4 || x->ndim != 4 || w->dims[0] != 1 || w->dims[3] != x->dims[3])
    return false;
  return w->dims[1] >= 1 && w->dims[2] >= 1 && w->dims[3] >= 1;
}

bool cpu_dw_hybrid_applies(const tfl_graph *g, const tfl_node *n, const cpu_features *isa)
{
  (void)isa;   /* the portable path's channel-inner loops still beat the reference's */
  return cpu_dw_hybrid_fits(g, n);
}

void cpu_dw_hybrid_use_isa(void *state, const cpu_features *isa)
{
  dh_state *st = state;
  if (st) st->isa = *isa;
}

static void release(void *state)
{
  dh_state *st = state;
  if (!st) return;
  cpu_k_depthwise_conv_2d.release(st->ref);
  free(st->w);
  free(st->part);
  free(st->qp);
  free(st->q_on);
  free(st);
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  if (!cpu_dw_hybrid_fits(g, n))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "not a hybrid depthwise conv the fast kernel takes%s", "");
  dh_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "dw_hybrid state");
  *state = st;
  st->isa = cpu_features_detect();
  void *ref = NULL;
  tfl_status s = cpu_k_depthwise_conv_2d.prepare(g, n, &ref, diag);
  st->ref = ref;
  if (s) return s;
  const cpu_conv_state *r = st->ref;
  if (!r->hy.on || r->mult != 1 || r->out_c != r->in_c)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "not a hybrid depthwise conv the fast kernel takes%s", "");
  const tfl_tensor *w = cpu_in(g, n, FILTER);
  const size_t count = (size_t)r->k_h * r->k_w * r->out_c;   /* the filter's own size: no overflow */
  st->w = malloc(sizeof(int32_t) * count);
  st->img = (size_t)r->in_h * r->in_w * r->in_c;
  const size_t images = r->batches > 0 ? (size_t)r->batches : 1;
  st->part = malloc(sizeof(float) * cpu_hq_images_scratch(st->img, r->batches));
  st->qp = calloc(images, sizeof *st->qp);
  st->q_on = calloc(images, sizeof *st->q_on);
  if (!st->w || !st->part || !st->qp || !st->q_on) return tfl_fail(diag, TFL_ERR_NOMEM, "dw_hybrid buffers");
  for (size_t i = 0; i < count; i++) st->w[i] = ((const int8_t *)w->data)[i];
  return TFL_OK;
}

typedef struct {
  const dh_state *st;
  const float *bias;
  void *y;
} dh_args;

/* acc[c] = sum over the taps of (x_u - zx_u) * w, channels [0, C). */
static void pixel_portable(const dh_state *st, const uint8_t *x, int oy, int ox, int32_t zx_u, int32_t *acc)
{
  const cpu_conv_state *r = st->ref;
  const int C = r->out_c;
  uint32_t *a = (uint32_t *)acc;   /* wraps as the reference's int32 sum */
  memset(a, 0, sizeof(uint32_t) * (size_t)C);
  for (int ky = 0; ky < r->k_h; ky++) {
    const int iy = oy * r->stride_h - r->pad_h + ky * r->dil_h;
    if (iy < 0 || iy >= r->in_h) continue;
    for (int kx = 0; kx < r->k_w; kx++) {
      const int ix = ox * r->stride_w - r->pad_w + kx * r->dil_w;
      if (ix < 0 || ix >= r->in_w) continue;
      const uint8_t *xp = x + ((size_t)iy * r->in_w + ix) * C;
      const int32_t *wp = st->w + ((size_t)ky * r->k_w + kx) * C;
      for (int c = 0; c < C; c++) a[c] += (uint32_t)(((int32_t)xp[c] - zx_u) * wp[c]);
    }
  }
}

enum { MAX_TAPS = 64 };   /* the AVX-512 path's list of in-image taps; larger filters: portable */

#ifdef DW_X86

/* As pixel_portable: the in-image taps listed once, then 64 channels at a time (four
 * independent sums) over them. */
__attribute__((target("avx512f,avx512bw,avx512vl"))) static void pixel_avx512(const dh_state *st, const uint8_t *x,
                                                                            int oy, int ox, int32_t zx_u,
                                                                            int32_t *acc)
{
  const cpu_conv_state *r = st->ref;
  const int C = r->out_c;
  size_t xo[MAX_TAPS], wo[MAX_TAPS];
  int nt = 0;
  for (int ky = 0; ky < r->k_h; ky++) {
    const int iy = oy * r->stride_h - r->pad_h + ky * r->dil_h;
    if (iy < 0 || iy >= r->in_h) continue;
    for (int kx = 0; kx < r->k_w; kx++) {
      const int ix = ox * r->stride_w - r->pad_w + kx * r->dil_w;
      if (ix < 0 || ix >= r->in_w) continue;
      xo[nt] = ((size_t)iy * r->in_w + ix) * C;
      wo[nt++] = ((size_t)ky * r->k_w + kx) * C;
    }
  }
  const __m512i zx = _mm512_set1_epi32(zx_u);
  for (int c = 0; c < C; c += 64) {
    __mmask16 m[4];
    __m512i a[4];
    for (int k = 0; k < 4; k++) {
      const int left = C - c - 16 * k;
      m[k] = left >= 16 ? (__mmask16)0xffff : left > 0 ? (__mmask16)((1u << left) - 1u) : 0;
      a[k] = _mm512_setzero_si512();
    }
    for (int t = 0; t < nt; t++) {
      const uint8_t *xp = x + xo[t] + c;
      const int32_t *wp = st->w + wo[t] + c;
      for (int k = 0; k < 4; k++) {
        const __m512i xv = _mm512_sub_epi32(_mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m[k], xp + 16 * k)), zx);
        a[k] = _mm512_add_epi32(a[k], _mm512_mullo_epi32(xv, _mm512_maskz_loadu_epi32(m[k], wp + 16 * k)));
      }
    }
    for (int k = 0; k < 4; k++) _mm512_mask_storeu_epi32(acc + c + 16 * k, m[k], a[k]);
  }
}
#else
#define pixel_avx512 pixel_portable
#endif

static void row_task(void *arg, size_t row)
{
  const dh_args *a = arg;
  const dh_state *st = a->st;
  const cpu_conv_state *r = st->ref;
  const int bi = (int)(row / (size_t)r->out_h), oy = (int)(row % (size_t)r->out_h);
  const uint8_t *x = (const uint8_t *)r->hy.xq + (size_t)bi * st->img;
  const int32_t zx_u = r->hy.x_zp[bi] + 128;
  const size_t C = (size_t)r->out_c;
  float *out = (float *)a->y + row * (size_t)r->out_w * C;
  for (int ox = 0; ox < r->out_w; ox++) {
    int32_t *acc = (int32_t *)(out + (size_t)ox * C);   /* the output pixel, as int32 until scaled back */
    if (st->isa.avx512 && r->k_h * r->k_w <= MAX_TAPS)
      pixel_avx512(st, x, oy, ox, zx_u, acc);
    else
      pixel_portable(st, x, oy, ox, zx_u, acc);
  }
  cpu_hq_dequant(out, NULL, 0, r->hy.w_scale, r->hy.x_scale[bi], a->bias, r->act_lo, r->act_hi, r->out_c,
                 (size_t)r->out_w, out, st->isa.avx512);
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)diag;
  dh_state *st = state;
  cpu_conv_state *r = st->ref;
  const tfl_tensor *b = cpu_in(g, n, BIAS);
  const cpu_hq_images job = {cpu_in(g, n, INPUT)->data, st->img, r->batches, r->hy.asym, st->isa.avx512, st->part,
                             st->qp, st->q_on, (uint8_t *)r->hy.xq, r->hy.x_scale, r->hy.x_zp};
  cpu_hq_images_run(&job, ctx);
  dh_args a = {st, b ? b->data : NULL, cpu_out(g, n, OUTPUT)->data};
  cpu_parallel(ctx, row_task, &a, (size_t)r->batches * (size_t)r->out_h);
  return TFL_OK;
}

const cpu_kernel cpu_k_dw_hybrid = {prepare, eval, release};
