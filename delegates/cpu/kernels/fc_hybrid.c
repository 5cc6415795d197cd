/* fc_hybrid.c - see fc_hybrid.h.
 *
 * Tasks quantize the input rows (unsigned bytes q + 128, zero padded to the gemm's
 * groups of 4), then tasks over ranges of weight blocks run the product for every row
 * into the output buffer as int32 and turn their columns in place into
 * (float)(sum - (zp + 128) * sum_k w) * (x_scale * w_scale) + bias: the reference's
 * wrapping int32 sum_k (q - zp) w and float arithmetic, then its activation.
 */
#include "fc_hybrid.h"

#include <math.h>
#include <string.h>

#include "conv_common.h"
#include "gemm_q8.h"
#include "hybrid_quant.h"
#include "kernels.h"

enum { INPUT = 0, WEIGHTS = 1, BIAS = 2 };
enum { OUTPUT = 0 };
enum { MIN_BLOCKS_PER_TASK = 4 };   /* 64 columns: less is not worth a thread's wake-up */

typedef struct {
  void *ref;              /* the reference kernel's state (its checks; freed with ours) */
  int batches, k, units;
  bool asym;
  tfl_activation act;
  cpu_hybrid_weights hw;
  cpu_q8_gemm gemm;
  uint8_t *x_u;           /* [batches][kq * 4] */
  float *x_scale;         /* [batches] */
  int32_t *zx_u;          /* [batches]: zero point + 128 */
  cpu_features isa;
} fh_state;

static const void *weight_row(const void *user, int j)
{
  const tfl_tensor *w = user;
  return (const int8_t *)w->data + (size_t)j * (size_t)w->dims[1];
}

bool cpu_fc_hybrid_fits(const tfl_graph *g, const tfl_node *n)
{
  if (n->op != TFL_OP_FULLY_CONNECTED) return false;
  const tfl_tensor *x = cpu_in(g, n, INPUT), *w = cpu_in(g, n, WEIGHTS), *y = cpu_out(g, n, OUTPUT);
  if (!x || !w || !y || x->type != TFL_TYPE_FLOAT32 || w->type != TFL_TYPE_INT8 || y->type != TFL_TYPE_FLOAT32)
    return false;
  if (!w->is_const || !w->data || w->ndim != 2 || w->dims[0] < 1 || w->dims[1] < 1) return false;
  return tfl_tensor_count(x) % (size_t)w->dims[1] == 0;
}

bool cpu_fc_hybrid_applies(const tfl_graph *g, const tfl_node *n, const cpu_features *isa)
{
  (void)isa;   /* the portable path still beats the reference's per-element loop */
  return cpu_fc_hybrid_fits(g, n);
}

void cpu_fc_hybrid_use_isa(void *state, const cpu_features *isa)
{
  fh_state *st = state;
  if (st) st->isa = *isa;
}

static void release(void *state)
{
  fh_state *st = state;
  if (!st) return;
  cpu_k_fully_connected.release(st->ref);
  cpu_q8_gemm_free(&st->gemm);
  free(st->hw.w_scale);
  free(st->x_u);
  free(st->x_scale);
  free(st->zx_u);
  free(st);
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  if (!cpu_fc_hybrid_fits(g, n))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "not a hybrid fully connected node the fast kernel takes%s",
                        "");
  fh_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "fc_hybrid state");
  *state = st;
  st->isa = cpu_features_detect();
  tfl_status s = cpu_k_fully_connected.prepare(g, n, &st->ref, diag);   /* every check of the reference */
  if (s) return s;
  const tfl_tensor *x = cpu_in(g, n, INPUT), *w = cpu_in(g, n, WEIGHTS), *b = cpu_in(g, n, BIAS);
  st->units = w->dims[0];
  st->k = w->dims[1];
  st->batches = (int)(tfl_tensor_count(x) / (size_t)st->k);
  st->act = n->p.fc.act;
  st->asym = n->p.fc.asymmetric_quantize_inputs || cpu_hybrid_xnnpack_takes(w, b, st->act);
  if ((s = cpu_hybrid_weights_prepare(g, n, w, "weights", st->units, 0, &st->hw, diag))) return s;
  if (!cpu_q8_gemm_pack(&st->gemm, st->units, st->k, false, weight_row, w))
    return tfl_fail(diag, TFL_ERR_NOMEM, "fc_hybrid weights");
  const size_t rows = st->batches > 0 ? (size_t)st->batches : 1;
  st->x_u = calloc(rows, (size_t)st->gemm.kq * 4);
  st->x_scale = malloc(sizeof(float) * rows);
  st->zx_u = malloc(sizeof(int32_t) * rows);
  if (!st->x_u || !st->x_scale || !st->zx_u) return tfl_fail(diag, TFL_ERR_NOMEM, "fc_hybrid buffers");
  return TFL_OK;
}

typedef struct {
  const fh_state *st;
  const float *x, *bias;
  float *y;
  int tasks;   /* one contiguous range of weight blocks each */
} fh_args;

static void quant_task(void *arg, size_t i)
{
  const fh_args *a = arg;
  const fh_state *st = a->st;
  const float *x = a->x + i * (size_t)st->k;
  float lo, hi;
  cpu_hybrid_qparams q;
  cpu_hq_min_max(x, (size_t)st->k, &lo, &hi, st->isa.avx512);
  const bool on = cpu_hybrid_params(lo, hi, st->asym, &q);
  cpu_hq_quant_u8(&q, on, x, (size_t)st->k, st->x_u + i * (size_t)st->gemm.kq * 4, st->isa.avx512);
  st->x_scale[i] = q.scale;
  st->zx_u[i] = q.zp + 128;
}

static void gemm_task(void *arg, size_t t)
{
  const fh_args *a = arg;
  const fh_state *st = a->st;
  const int b0 = (int)((size_t)st->gemm.blocks * t / (size_t)a->tasks);
  const int b1 = (int)((size_t)st->gemm.blocks * (t + 1) / (size_t)a->tasks);
  if (b0 >= b1) return;
  const size_t units = (size_t)st->units;
  cpu_q8_gemm_run(&st->gemm, st->x_u, (size_t)st->gemm.kq * 4, st->batches, b0, b1, (int32_t *)a->y, units,
                  st->isa.avx512_vnni);
  const int c0 = b0 * CPU_Q8_ROWS, c1 = b1 * CPU_Q8_ROWS < st->units ? b1 * CPU_Q8_ROWS : st->units;
  for (int i = 0; i < st->batches; i++) {
    float *row = a->y + (size_t)i * units;
    cpu_hq_dequant(row + c0, st->gemm.sum + c0, st->zx_u[i], st->hw.w_scale + c0, st->x_scale[i],
                   a->bias ? a->bias + c0 : NULL, -INFINITY, INFINITY, c1 - c0, 1, row + c0, st->isa.avx512);
    if (st->act != TFL_ACT_NONE)
      for (int c = c0; c < c1; c++) row[c] = cpu_apply_activation(st->act, row[c]);
  }
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)diag;
  fh_state *st = state;
  const tfl_tensor *b = cpu_in(g, n, BIAS);
  /* a matrix-vector product streams the weights once: one range per thread, no finer */
  int tasks = cpu_thread_count(ctx);
  const int most = (st->gemm.blocks + MIN_BLOCKS_PER_TASK - 1) / MIN_BLOCKS_PER_TASK;
  if (tasks > most) tasks = most;
  if (tasks < 1) tasks = 1;
  fh_args a = {st, cpu_in(g, n, INPUT)->data, b ? b->data : NULL, cpu_out(g, n, OUTPUT)->data, tasks};
  cpu_parallel(ctx, quant_task, &a, (size_t)st->batches);
  cpu_parallel(ctx, gemm_task, &a, (size_t)tasks);
  return TFL_OK;
}

const cpu_kernel cpu_k_fc_hybrid = {prepare, eval, release};
