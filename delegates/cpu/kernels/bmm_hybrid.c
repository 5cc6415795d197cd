/* bmm_hybrid.c - see bmm_hybrid.h.
 *
 * Tasks quantize the lhs rows (an adj_x row, a strided column, gathered first) into
 * unsigned bytes q + 128; then tasks over (output batch, 32 rows) run the product with
 * the rhs batch's packed matrix into the output as int32 and scale each row back in
 * place: (float)(sum - (zp + 128) * sum_k w) * (x_scale * w_scale), the reference's
 * wrapping int32 sum_k (q - zp) w and its float arithmetic.
 */
#include "bmm_hybrid.h"

#include <string.h>

#include "compute_bmm.h"
#include "conv_common.h"
#include "gemm_q8.h"
#include "hybrid_quant.h"
#include "kernels.h"

enum { LHS = 0, RHS = 1 };
enum { OUTPUT = 0 };
enum { ROWS_PER_TASK = 32 };

typedef struct {
  void *ref;                  /* the reference kernel's state (its checks, batch tables) */
  cpu_bmm_hybrid_view v;
  cpu_q8_gemm *gemm;          /* [rhs batches] */
  size_t kp;                  /* gemm row bytes */
  uint8_t *x_u;               /* [lhs rows][kp] */
  float *x_scale;             /* [lhs rows] */
  int32_t *zx_u;              /* [lhs rows]: zero point + 128 */
  size_t tiles;               /* row tiles per output batch */
  cpu_features isa;
} bh_state;

typedef struct {
  const int8_t *w;
  int k;
} rows_src;

static const void *rhs_row(const void *user, int j)
{
  const rows_src *r = user;
  return r->w + (size_t)j * (size_t)r->k;
}

bool cpu_bmm_hybrid_fits(const tfl_graph *g, const tfl_node *n)
{
  if (n->op != TFL_OP_BATCH_MATMUL) return false;
  const tfl_tensor *l = cpu_in(g, n, LHS), *r = cpu_in(g, n, RHS), *y = cpu_out(g, n, OUTPUT);
  return l && r && y && l->type == TFL_TYPE_FLOAT32 && r->type == TFL_TYPE_INT8 && y->type == TFL_TYPE_FLOAT32 &&
         r->is_const && r->data && r->ndim >= 2 && r->dims[r->ndim - 1] > 0 && r->dims[r->ndim - 2] > 0;
}

bool cpu_bmm_hybrid_applies(const tfl_graph *g, const tfl_node *n, const cpu_features *isa)
{
  (void)isa;   /* the portable path still beats the reference's per-element dots */
  return cpu_bmm_hybrid_fits(g, n);
}

void cpu_bmm_hybrid_use_isa(void *state, const cpu_features *isa)
{
  bh_state *st = state;
  if (st) st->isa = *isa;
}

static void release(void *state)
{
  bh_state *st = state;
  if (!st) return;
  cpu_k_batch_matmul.release(st->ref);
  if (st->gemm)
    for (size_t b = 0; b < st->v.rhs_batches; b++) cpu_q8_gemm_free(&st->gemm[b]);
  free(st->gemm);
  free(st->x_u);
  free(st->x_scale);
  free(st->zx_u);
  free(st);
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  if (!cpu_bmm_hybrid_fits(g, n))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "not a hybrid batch matmul the fast kernel takes%s", "");
  bh_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "bmm_hybrid state");
  *state = st;
  st->isa = cpu_features_detect();
  tfl_status s = cpu_k_batch_matmul.prepare(g, n, &st->ref, diag);
  if (s) return s;
  if (!cpu_bmm_hybrid_view_of(st->ref, &st->v))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "not a hybrid batch matmul the fast kernel takes%s", "");
  const cpu_bmm_hybrid_view *v = &st->v;
  st->gemm = calloc(v->rhs_batches ? v->rhs_batches : 1, sizeof *st->gemm);
  if (!st->gemm) return tfl_fail(diag, TFL_ERR_NOMEM, "bmm_hybrid matrices");
  for (size_t b = 0; b < v->rhs_batches; b++) {
    rows_src src = {v->packed + b * (size_t)v->n * v->k, v->k};
    if (!cpu_q8_gemm_pack(&st->gemm[b], v->n, v->k, false, rhs_row, &src))
      return tfl_fail(diag, TFL_ERR_NOMEM, "bmm_hybrid matrices");
  }
  st->kp = (size_t)(v->k + 3) / 4 * 4;
  const size_t rows = v->lhs_rows ? v->lhs_rows : 1;
  st->x_u = calloc(rows, st->kp ? st->kp : 1);
  st->x_scale = malloc(sizeof(float) * rows);
  st->zx_u = malloc(sizeof(int32_t) * rows);
  if (!st->x_u || !st->x_scale || !st->zx_u) return tfl_fail(diag, TFL_ERR_NOMEM, "bmm_hybrid buffers");
  st->tiles = ((size_t)v->m + ROWS_PER_TASK - 1) / ROWS_PER_TASK;
  return TFL_OK;
}

typedef struct {
  const bh_state *st;
  const float *l;
  float *y;
} bh_args;

/* Lhs row r (lhs batch r / M, row r % M), as compute_bmm.c's quant_row reads it. */
static void quant_task(void *arg, size_t r)
{
  const bh_args *a = arg;
  const bh_state *st = a->st;
  const cpu_bmm_hybrid_view *v = &st->v;
  const size_t k = (size_t)v->k;
  const float *src = a->l + r * k;
  if (v->adj_x) {   /* the row is a strided column of lhs: gathered into its own slot */
    const size_t base = (r / (size_t)v->m) * (size_t)v->m * k, i = r % (size_t)v->m;
    float *t = v->lt + r * k;
    for (size_t kk = 0; kk < k; kk++) t[kk] = a->l[base + kk * (size_t)v->m + i];
    src = t;
  }
  float lo = 0.0f, hi = 0.0f;
  cpu_hybrid_qparams q;
  if (k) cpu_hq_min_max(src, k, &lo, &hi, st->isa.avx512);
  const bool on = k && cpu_hybrid_params(lo, hi, true, &q);
  if (!on) q = (cpu_hybrid_qparams){1.0f, 0.0f, 0.0f, -128.0f, 0};
  cpu_hq_quant_u8(&q, on, src, k, st->x_u + r * st->kp, st->isa.avx512);
  st->x_scale[r] = q.scale;
  st->zx_u[r] = q.zp + 128;
}

/* Output batch t / tiles, rows [32 * (t % tiles), +32). */
static void rows_task(void *arg, size_t t)
{
  const bh_args *a = arg;
  const bh_state *st = a->st;
  const cpu_bmm_hybrid_view *v = &st->v;
  const size_t b = t / st->tiles, i0 = (t % st->tiles) * ROWS_PER_TASK;
  const size_t i1 = i0 + ROWS_PER_TASK < (size_t)v->m ? i0 + ROWS_PER_TASK : (size_t)v->m;
  const cpu_q8_gemm *gm = &st->gemm[v->rb[b]];
  const size_t r0 = v->lb[b] * (size_t)v->m + i0, n = (size_t)v->n;
  float *out = a->y + (b * (size_t)v->m + i0) * n;
  cpu_q8_gemm_run(gm, st->x_u + r0 * st->kp, st->kp, (int)(i1 - i0), 0, gm->blocks, (int32_t *)out, n,
                  st->isa.avx512_vnni);
  /* the reference's (float)acc * (x_scale * w_scale), no bias term (cpu_hq_dequant adds one) */
  for (size_t i = 0; i < i1 - i0; i++) {
    float *o = out + i * n;
    const uint32_t zx = (uint32_t)st->zx_u[r0 + i];
    const float xs = st->x_scale[r0 + i];
    for (size_t j = 0; j < n; j++) {
      int32_t acc;
      memcpy(&acc, o + j, sizeof acc);   /* the int32 sum where its float goes */
      const float f = (float)(int32_t)((uint32_t)acc - zx * (uint32_t)gm->sum[j]) * (xs * v->w_scale[j]);
      memcpy(o + j, &f, sizeof f);
    }
  }
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)diag;
  bh_state *st = state;
  bh_args a = {st, cpu_in(g, n, LHS)->data, cpu_out(g, n, OUTPUT)->data};
  if (st->v.n < 1) return TFL_OK;
  cpu_parallel(ctx, quant_task, &a, st->v.lhs_rows);
  cpu_parallel(ctx, rows_task, &a, st->v.batches * st->tiles);
  return TFL_OK;
}

const cpu_kernel cpu_k_bmm_hybrid = {prepare, eval, release};
