/* fc_q8.c - see fc_q8.h.
 *
 * out[i][j] = requant(bias[j] + sum_k (x[i][k] - x_zp) * (w[j][k] - w_zp[j])), computed
 * as gemm(x_u, s)[i][j] + (bias[j] - zx_u * sum_k s[j][k]) + kw[j] * sx[i] with x_u the
 * input byte read as unsigned (int8: + 128), zx_u its zero point the same way, s the
 * weights minus gemm_q8.h's offset, kw[j] = offset - w_zp[j] and sx[i] = sum_k (x_u - zx_u):
 * equal modulo 2^32 to the reference's wrapping int32 sum, then the same cpu_requant_fp32. Tasks take blocks of
 * output columns (all input rows each), so threads stream disjoint weights.
 */
#include "fc_q8.h"

#include <string.h>

#include "conv_common.h"
#include "gemm_q8.h"
#include "requant_rows.h"

enum { INPUT = 0, WEIGHTS = 1, BIAS = 2 };
enum { OUTPUT = 0 };
enum { MIN_BLOCKS_PER_TASK = 4 };   /* 64 columns: less is not worth a thread's wake-up */

typedef struct {
  int batches, k, units;
  cpu_q8_gemm gemm;
  cpu_requant rq;
  int32_t *bias;        /* [units]: bias - zx_u * sum_k s */
  int32_t *kw;          /* [units]: gemm offset - weight zero point (0 for most int8) */
  int32_t *sx;          /* [batches]: sum_k (x_u - zx_u) of the current input */
  int32_t zx_u;
  uint8_t *x_u;         /* [batches][kq * 4]: the input as unsigned bytes, zero padded */
  int32_t *acc;         /* [batches][units] */
  bool in_u8;
  cpu_features isa;
} fc_q8_state;

typedef struct {
  const void *w;
  int k;
} rows_src;

static const void *weight_row(const void *user, int j)
{
  const rows_src *r = user;
  return (const uint8_t *)r->w + (size_t)j * (size_t)r->k;
}

static bool is_q8(const tfl_tensor *t)
{
  return t && (t->type == TFL_TYPE_UINT8 || t->type == TFL_TYPE_INT8) && t->q.n >= 1;
}

bool cpu_fc_q8_fits(const tfl_graph *g, const tfl_node *n)
{
  if (n->op != TFL_OP_FULLY_CONNECTED) return false;
  const tfl_tensor *x = cpu_in(g, n, INPUT), *w = cpu_in(g, n, WEIGHTS), *b = cpu_in(g, n, BIAS);
  const tfl_tensor *y = cpu_out(g, n, OUTPUT);
  if (!is_q8(x) || !is_q8(w) || !is_q8(y) || x->type != w->type || y->type != x->type) return false;
  if (x->q.n != 1 || y->q.n != 1 || !w->is_const || !w->data || w->ndim != 2) return false;
  if (w->q.n != 1 && (w->q.n != w->dims[0] || w->q.axis != 0)) return false;
  if (b && (b->type != TFL_TYPE_INT32 || !b->is_const || !b->data)) return false;
  return w->dims[0] >= 1 && w->dims[1] >= 1 && tfl_tensor_count(x) % (size_t)w->dims[1] == 0;
}

bool cpu_fc_q8_applies(const tfl_graph *g, const tfl_node *n, const cpu_features *isa)
{
  (void)isa;   /* the portable path still beats the reference's per-element loop */
  return cpu_fc_q8_fits(g, n);
}

void cpu_fc_q8_use_isa(void *state, const cpu_features *isa)
{
  fc_q8_state *st = state;
  if (st) st->isa = *isa;
}

static void release(void *state)
{
  fc_q8_state *st = state;
  if (!st) return;
  cpu_q8_gemm_free(&st->gemm);
  cpu_requant_free(&st->rq);
  free(st->bias);
  free(st->kw);
  free(st->sx);
  free(st->x_u);
  free(st->acc);
  free(st);
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  if (!cpu_fc_q8_fits(g, n))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "not an 8-bit node the fast kernel takes%s", "");
  const tfl_tensor *x = cpu_in(g, n, INPUT), *w = cpu_in(g, n, WEIGHTS), *b = cpu_in(g, n, BIAS);
  const tfl_tensor *y = cpu_out(g, n, OUTPUT);
  fc_q8_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "fc_q8 state");
  *state = st;
  st->isa = cpu_features_detect();
  st->units = w->dims[0];
  st->k = w->dims[1];
  st->batches = (int)(tfl_tensor_count(x) / (size_t)st->k);
  if (tfl_tensor_count(y) != (size_t)st->batches * (size_t)st->units)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output has %zu values, expected %d x %d", tfl_tensor_count(y),
                        st->batches, st->units);
  tfl_status s = cpu_requant_prepare(g, n, &st->rq, x, w, y, st->units, 0, n->p.fc.act, diag);
  if (s) return s;
  if ((s = cpu_check_bias(g, n, b, true, st->units, diag))) return s;
  st->in_u8 = x->type == TFL_TYPE_UINT8;
  const bool w_u8 = w->type == TFL_TYPE_UINT8;
  rows_src src = {w->data, st->k};
  if (!cpu_q8_gemm_pack(&st->gemm, st->units, st->k, w_u8, weight_row, &src))
    return tfl_fail(diag, TFL_ERR_NOMEM, "fc_q8 weights");
  const int32_t zx_u = st->rq.in_zp + (st->in_u8 ? 0 : 128);
  st->zx_u = zx_u;
  st->bias = malloc(sizeof(int32_t) * (size_t)st->units);
  st->kw = malloc(sizeof(int32_t) * (size_t)st->units);
  st->sx = malloc(sizeof(int32_t) * (size_t)st->batches);
  st->x_u = calloc((size_t)st->batches * (size_t)st->gemm.kq * 4, 1);
  st->acc = malloc(sizeof(int32_t) * (size_t)st->batches * (size_t)st->units);
  if (!st->bias || !st->kw || !st->sx || !st->x_u || !st->acc) return tfl_fail(diag, TFL_ERR_NOMEM, "fc_q8 buffers");
  for (int j = 0; j < st->units; j++) {
    st->kw[j] = cpu_q8_gemm_offset(w_u8) - st->rq.w_zp[j];
    uint32_t v = b ? (uint32_t)((const int32_t *)b->data)[j] : 0u;   /* wraps as the reference */
    st->bias[j] = (int32_t)(v - (uint32_t)zx_u * (uint32_t)st->gemm.sum[j]);
  }
  return TFL_OK;
}

typedef struct {
  const fc_q8_state *st;
  void *y;
  int tasks;   /* one contiguous range of weight blocks each */
} fc_args;   /* y: the output, requantized after the products */

static void task(void *arg, size_t t)
{
  const fc_args *a = arg;
  const fc_q8_state *st = a->st;
  const int b0 = (int)((size_t)st->gemm.blocks * t / (size_t)a->tasks);
  const int b1 = (int)((size_t)st->gemm.blocks * (t + 1) / (size_t)a->tasks);
  const size_t stride = (size_t)st->gemm.kq * 4;
  cpu_q8_gemm_run(&st->gemm, st->x_u, stride, st->batches, b0, b1, st->acc, (size_t)st->units,
                  st->isa.avx512_vnni);
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)diag;
  fc_q8_state *st = state;
  const tfl_tensor *x = cpu_in(g, n, INPUT);
  const size_t stride = (size_t)st->gemm.kq * 4;
  const uint8_t flip = st->in_u8 ? 0 : 0x80;   /* int8 -> unsigned: + 128 */
  for (int i = 0; i < st->batches; i++) {
    const uint8_t *src = (const uint8_t *)x->data + (size_t)i * st->k;
    uint8_t *dst = st->x_u + (size_t)i * stride;
    int32_t sum = 0;
    for (int k = 0; k < st->k; k++) sum += dst[k] = src[k] ^ flip;
    st->sx[i] = sum - st->k * st->zx_u;
  }
  /* a matrix-vector product streams the weights once: one range per thread, no finer */
  int tasks = cpu_thread_count(ctx);
  const int most = (st->gemm.blocks + MIN_BLOCKS_PER_TASK - 1) / MIN_BLOCKS_PER_TASK;
  if (tasks > most) tasks = most;
  if (tasks < 1) tasks = 1;
  fc_args a = {st, cpu_out(g, n, OUTPUT)->data, tasks};
  cpu_parallel(ctx, task, &a, (size_t)tasks);
  /* acc + kw[j] * sx[i] + bias', requantized as the reference does */
  const cpu_requant_rows rr = {st->units, st->bias, st->kw, st->rq.scale, st->rq.out_zp, st->rq.lo, st->rq.hi,
                               st->rq.is_u8};
  cpu_requant_rows_run(&rr, st->acc, st->sx, a.y, (size_t)st->batches, st->isa.avx512);
  return TFL_OK;
}

const cpu_kernel cpu_k_fc_q8 = {prepare, eval, release};
