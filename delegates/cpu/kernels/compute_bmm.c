/* compute_bmm.c - BATCH_MATMUL reference kernel: out[..., M, N] = lhs[..., M, K] x
 * rhs[..., K, N], adj_x / adj_y transposing the last two dims of an operand first; ranks
 * 2..5, the batch dims (all but the last two, right-aligned) broadcast numpy-style.
 *
 * Types, as TFLite's batch_matmul.cc:
 * - float32 x float32 -> float32 (sums in float, k in order);
 * - int8 x int8 -> int8 (per-tensor, any zero points) and int16 x int16 -> int16 (zero
 *   points 0): sum((l - zl) * (r - zr)) in int32 (int16: int64), rescaled by l_scale *
 *   r_scale / out_scale and clamped to the type. With an int8 rhs of zero point 0,
 *   LiteRT's outputs are XNNPACK's fp32 requantization bit for bit (cpu_requant_fp32, the
 *   scale formed in float32; as its delegate runs such nodes - observed on its goldens,
 *   batch_matmul_i8_rhs_zp0*, plain / adj_x / adj_y / constant / broadcast rhs), where
 *   TFLite's fixed-point rescale (a rounding doubling high multiply, then a rounding
 *   shift) rounds twice and is one step off near halves (142 of the 20000 outputs of
 *   yolo11n_int8's attention node 151). With another rhs zero point (and int16) they are
 *   the fixed-point rescale's (batch_matmul_i8_rhs_zp5_requant_x4, batch_matmul_i8);
 * - int8 x int8 -> int32: the raw sum of products (TFLite ignores zero points there);
 * - hybrid: float32 lhs x int8 rhs (zero point 0, per-tensor or per-column scales) ->
 *   float32: each lhs row (K values) quantized on the fly (hybrid.h) asymmetrically,
 *   whatever asymmetric_quantize_inputs says: LiteRT hands the node to XNNPACK, which
 *   does (checked against its goldens). The rhs must be constant (LiteRT answers zeros
 *   for an activation).
 *
 * prepare maps every output batch to its lhs and rhs batch, and packs the rhs (a constant
 * one once; else at each eval into a buffer made here): float as [K][N], so output rows
 * are runs of axpys over contiguous columns, four rows sharing each rhs load; integers
 * as [N][K], contiguous dots. eval splits output rows (float: blocks of four) over
 * threads.
 */
#include "kernels.h"
#include "compute_bmm.h"

#include <stdio.h>
#include <string.h>

#include "hybrid.h"

enum { LHS = 0, RHS = 1 };
enum { OUTPUT = 0 };

typedef enum { BMM_F32, BMM_I8, BMM_I8_I32, BMM_I16, BMM_HYBRID } bmm_kind;

typedef struct {
  bmm_kind kind;
  bool adj_x, adj_y;
  int m, n, k;                  /* output rows, columns, accumulation depth */
  size_t batches;               /* output batches */
  size_t *lb, *rb;              /* [batches]: the lhs / rhs batch each output batch reads */
  size_t rhs_batches;
  void *packed;                 /* rhs as [rhs batch][K][N] (float32 / int8 / int16) */
  bool packed_const;            /* packed once at prepare */
  /* quantized */
  int32_t lzp, rzp, ozp, lo, hi, q31;
  int shift;
  bool fp32_requant;            /* int8, rhs zero point 0: XNNPACK's rounding */
  float requant_scale;          /* its scale, l_scale * r_scale / out_scale in float32 */
  /* hybrid */
  bool asym;
  cpu_hybrid_weights hw;
  size_t lhs_rows;              /* lhs batches x M: the rows quantized */
  int8_t *xq;                   /* [lhs_rows][K] */
  float *lt;                    /* adj_x: the lhs rows gathered, [lhs_rows][K] */
  float *x_scale;
  int32_t *x_zp, *col_sums;     /* col_sums: [rhs batch][N], sum over K of each column */
} bmm_state;

static void release(void *state)
{
  bmm_state *st = state;
  if (!st) return;
  free(st->lb);
  free(st->rb);
  free(st->packed);
  free(st->hw.w_scale);
  free(st->xq);
  free(st->lt);
  free(st->x_scale);
  free(st->x_zp);
  free(st->col_sums);
  free(st);
}

static size_t elem_size(bmm_kind kind)
{
  switch (kind) {
  case BMM_F32: return sizeof(float);
  case BMM_I16: return sizeof(int16_t);
  case BMM_I8:
  case BMM_I8_I32:
  case BMM_HYBRID: return 1;
  }
  return 1;
}

/* Float rhs -> [rhs batch][K][N] (a row of the output is axpys over contiguous columns);
 * integer rhs -> [rhs batch][N][K] (each output element one contiguous dot). */
static void pack_rhs(const bmm_state *st, const void *rhs)
{
  size_t es = elem_size(st->kind), kn = (size_t)st->k * st->n;
  const uint8_t *src = rhs;
  uint8_t *dst = st->packed;
  bool want_kn = st->kind == BMM_F32, have_kn = !st->adj_y;
  if (want_kn == have_kn) {
    memcpy(dst, src, st->rhs_batches * kn * es);
    return;
  }
  int rows = have_kn ? st->k : st->n, cols = have_kn ? st->n : st->k; /* source layout */
  for (size_t b = 0; b < st->rhs_batches; b++)
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++)
        memcpy(dst + (b * kn + (size_t)c * rows + r) * es, src + (b * kn + (size_t)r * cols + c) * es, es);
}

/* Sums over K of each column of the packed int8 rhs (the asymmetric zero-point
 * correction). */
static void rhs_col_sums(const bmm_state *st)
{
  const int8_t *w = st->packed;
  for (size_t b = 0; b < st->rhs_batches; b++)
    for (int j = 0; j < st->n; j++) {
      uint32_t s = 0; /* wraps like the accumulators it corrects */
      for (int kk = 0; kk < st->k; kk++) s += (uint32_t)(int32_t)w[(b * st->n + j) * st->k + kk];
      st->col_sums[b * st->n + j] = (int32_t)s;
    }
}

/* Checks the operand types; sets st->kind and the quantization constants. */
static tfl_status prepare_types(const tfl_graph *g, const tfl_node *n, bmm_state *st, tfl_diag *diag)
{
  const tfl_tensor *l = cpu_in(g, n, LHS), *r = cpu_in(g, n, RHS), *y = cpu_out(g, n, OUTPUT);
  if (l->type == TFL_TYPE_FLOAT32 && r->type == TFL_TYPE_INT8) {
    if (y->type != TFL_TYPE_FLOAT32)
      return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "float lhs with INT8 rhs, %s output",
                          tfl_type_name(y->type));
    st->kind = BMM_HYBRID;
    /* LiteRT answers zeros for an int8 rhs that is not constant: refused, not guessed */
    if (!r->is_const || !r->data)
      return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "float lhs with a non-constant INT8 rhs (%s)",
                          "hybrid needs constant weights");
    /* LiteRT's XNNPACK delegate takes it and quantizes asymmetrically (hybrid.h) */
    st->asym = true;
    /* per-channel scales run along the output columns: rhs dim N */
    int axis = r->ndim - (st->adj_y ? 2 : 1);
    return cpu_hybrid_weights_prepare(g, n, r, "rhs", st->n, axis, &st->hw, diag);
  }
  if (l->type != r->type)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "lhs %s and rhs %s: types differ",
                        tfl_type_name(l->type), tfl_type_name(r->type));
  switch (l->type) {
  case TFL_TYPE_FLOAT32:
    if (y->type != TFL_TYPE_FLOAT32)
      return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "float operands, %s output", tfl_type_name(y->type));
    st->kind = BMM_F32;
    return TFL_OK;
  case TFL_TYPE_INT8:
  case TFL_TYPE_INT16: {
    bool i16 = l->type == TFL_TYPE_INT16;
    if (!i16 && y->type == TFL_TYPE_INT32) {
      st->kind = BMM_I8_I32;
      return TFL_OK;
    }
    if (y->type != l->type)
      return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s operands, %s output", tfl_type_name(l->type),
                          tfl_type_name(y->type));
    if (l->q.n != 1 || r->q.n != 1 || y->q.n != 1)
      return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s needs per-tensor quantized operands and output",
                          tfl_type_name(l->type));
    st->kind = i16 ? BMM_I16 : BMM_I8;
    st->lzp = cpu_zero_point(l, 0);
    st->rzp = cpu_zero_point(r, 0);
    st->ozp = cpu_zero_point(y, 0);
    if (i16 && (st->lzp || st->rzp || st->ozp))
      return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "INT16 zero points %d, %d, %d: must be 0", st->lzp,
                          st->rzp, st->ozp);
    cpu_type_limits(l->type, &st->lo, &st->hi);
    int32_t zps[3] = {st->lzp, st->rzp, st->ozp};
    for (int i = 0; i < 3; i++)
      if (zps[i] < st->lo || zps[i] > st->hi)
        return CPU_NODE_ERR(diag, TFL_ERR_FORMAT, g, n, "zero point %d outside %s range", zps[i],
                            tfl_type_name(l->type));
    double m = (double)cpu_scale(l, 0) * (double)cpu_scale(r, 0) / (double)cpu_scale(y, 0);
    if (!(m > 0.0 && m < 1e6))
      return CPU_NODE_ERR(diag, TFL_ERR_FORMAT, g, n, "scales give multiplier %g", m);
    cpu_quantize_multiplier(m, &st->q31, &st->shift);
    st->fp32_requant = !i16 && st->rzp == 0;
    st->requant_scale = cpu_requant_scale(cpu_scale(l, 0), cpu_scale(r, 0), cpu_scale(y, 0));
    return TFL_OK;
  }
  case TFL_TYPE_UINT8:
  case TFL_TYPE_FLOAT16:
  case TFL_TYPE_INT32:
  case TFL_TYPE_INT64:
  case TFL_TYPE_STRING:
  case TFL_TYPE_COMPLEX64:
  case TFL_TYPE_BOOL:
  case TFL_TYPE_COUNT: break;
  }
  return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "operand type %s", tfl_type_name(l->type));
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *l = cpu_in(g, n, LHS), *r = cpu_in(g, n, RHS), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, l, "lhs", -1, diag)) || (s = cpu_check_tensor(g, n, r, "rhs", -1, diag)) ||
      (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  if (l->ndim < 2 || l->ndim > 5 || r->ndim < 2 || r->ndim > 5)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "lhs has %d dims and rhs %d, each must be 2..5", l->ndim,
                        r->ndim);
  bmm_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "batch matmul state");
  *state = st;
  st->adj_x = n->p.bmm.adj_x;
  st->adj_y = n->p.bmm.adj_y;
  int lr = l->ndim, rr = r->ndim, on = lr > rr ? lr : rr;
  st->m = st->adj_x ? l->dims[lr - 1] : l->dims[lr - 2];
  st->k = st->adj_x ? l->dims[lr - 2] : l->dims[lr - 1];
  int rk = st->adj_y ? r->dims[rr - 1] : r->dims[rr - 2];
  st->n = st->adj_y ? r->dims[rr - 2] : r->dims[rr - 1];
  if (rk != st->k)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "lhs depth %d (adj_x %d) and rhs depth %d (adj_y %d) differ",
                        st->k, st->adj_x, rk, st->adj_y);

  /* the broadcast batch dims, right-aligned over `on - 2` dims */
  int nb = on - 2;
  int32_t od[TFL_MAX_DIMS], ld[TFL_MAX_DIMS], rd[TFL_MAX_DIMS];
  st->batches = 1;
  st->rhs_batches = 1;
  size_t lhs_batches = 1;
  for (int i = 0; i < nb; i++) {
    int li = i - (on - lr), ri = i - (on - rr);
    ld[i] = li >= 0 ? l->dims[li] : 1;
    rd[i] = ri >= 0 ? r->dims[ri] : 1;
    if (ld[i] != rd[i] && ld[i] != 1 && rd[i] != 1)
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "batch dim %d: lhs %d and rhs %d do not broadcast", i,
                          ld[i], rd[i]);
    od[i] = ld[i] == 1 ? rd[i] : ld[i];
    st->batches *= (size_t)od[i];
    st->rhs_batches *= (size_t)rd[i];
    lhs_batches *= (size_t)ld[i];
  }
  bool shape_ok = y->ndim == on && y->dims[on - 2] == st->m && y->dims[on - 1] == st->n;
  for (int i = 0; shape_ok && i < nb; i++) shape_ok = y->dims[i] == od[i];
  if (!shape_ok) {
    char want[96];
    int len = 0;
    for (int i = 0; i < nb; i++) len += snprintf(want + len, sizeof want - (size_t)len, "%dx", od[i]);
    snprintf(want + len, sizeof want - (size_t)len, "%dx%d", st->m, st->n);
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output has %d dims (%zu values), expected %s", y->ndim,
                        tfl_tensor_count(y), want);
  }
  if ((s = prepare_types(g, n, st, diag))) return s;

  st->lb = malloc(sizeof(size_t) * (st->batches ? st->batches : 1));
  st->rb = malloc(sizeof(size_t) * (st->batches ? st->batches : 1));
  size_t kn = (size_t)st->k * st->n;
  st->packed = malloc(st->rhs_batches * kn * elem_size(st->kind) + 1);
  if (!st->lb || !st->rb || !st->packed) return tfl_fail(diag, TFL_ERR_NOMEM, "batch matmul tables");
  for (size_t b = 0; b < st->batches; b++) {
    size_t rem = b, li = 0, ri = 0, lstride = 1, rstride = 1;
    for (int i = nb - 1; i >= 0; i--) {
      size_t c = rem % (size_t)od[i];
      rem /= (size_t)od[i];
      li += (ld[i] == 1 ? 0 : c) * lstride;
      ri += (rd[i] == 1 ? 0 : c) * rstride;
      lstride *= (size_t)ld[i];
      rstride *= (size_t)rd[i];
    }
    st->lb[b] = li;
    st->rb[b] = ri;
  }
  if (st->kind == BMM_HYBRID) {
    st->lhs_rows = lhs_batches * (size_t)st->m;
    st->xq = malloc(st->lhs_rows * (size_t)st->k + 1);
    st->x_scale = malloc(sizeof(float) * (st->lhs_rows ? st->lhs_rows : 1));
    st->x_zp = calloc(st->lhs_rows ? st->lhs_rows : 1, sizeof(int32_t));
    st->col_sums = calloc(st->rhs_batches * (size_t)(st->n ? st->n : 1), sizeof(int32_t));
    if (st->adj_x) st->lt = malloc(sizeof(float) * (st->lhs_rows * (size_t)st->k + 1));
    if (!st->xq || !st->x_scale || !st->x_zp || !st->col_sums || (st->adj_x && !st->lt))
      return tfl_fail(diag, TFL_ERR_NOMEM, "batch matmul hybrid buffers");
  }
  if (r->is_const) {
    pack_rhs(st, r->data);
    if (st->kind == BMM_HYBRID) rhs_col_sums(st);
    st->packed_const = true;
  }
  return TFL_OK;
}

/* TFLite's MultiplyByQuantizedMultiplier for an int64 accumulator (int16 operands): the
 * multiplier rounded to 16 bits, one rounding shift. */
static int32_t cpu_mul_by_quantized_multiplier_i64(int64_t x, int32_t q31, int shift)
{
  int32_t reduced = q31 < 0x7FFF0000 ? (q31 + (1 << 15)) >> 16 : 0x7FFF;
  int total_shift = 15 - shift;
  if (total_shift < 1) total_shift = 1; /* multipliers below 2^-16 .. 2^15 only */
  if (total_shift > 62) total_shift = 62;
  int64_t round = (int64_t)1 << (total_shift - 1);
  /* x fits 48 bits (int16 x int16 x depth < 2^17), the product 63 */
  int64_t res = (int64_t)((uint64_t)x * (uint64_t)(int64_t)reduced + (uint64_t)round) >> total_shift;
  return res > INT32_MAX ? INT32_MAX : (res < INT32_MIN ? INT32_MIN : (int32_t)res);
}

typedef struct {
  const bmm_state *st;
  const void *l;
  void *y;
} bmm_args;

/* Element (i, kk) of lhs batch lb, i.e. lhs[i][kk] after adj_x. */
static inline size_t lhs_at(const bmm_state *st, size_t lb, int i, int kk)
{
  size_t base = lb * (size_t)st->m * st->k;
  return base + (st->adj_x ? (size_t)kk * st->m + i : (size_t)i * st->k + kk);
}

enum { ROWS_PER_TASK = 4 };

/* o_r[j] += a[r] * w[j] for ROWS_PER_TASK rows: each rhs value loaded once for the four
 * (per element still one multiply-add per k, in k order). Blocks of 8 with a fixed inner
 * trip count, so -O2 vectorizes it (as cpu_axpy). */
static void axpy4(float *restrict o0, float *restrict o1, float *restrict o2, float *restrict o3,
                  const float *restrict w, const float a[ROWS_PER_TASK], int n)
{
  float a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
  int j = 0;
  for (; j + 8 <= n; j += 8)
    for (int q = 0; q < 8; q++) {
      float wj = w[j + q];
      o0[j + q] += a0 * wj;
      o1[j + q] += a1 * wj;
      o2[j + q] += a2 * wj;
      o3[j + q] += a3 * wj;
    }
  for (; j < n; j++) {
    float wj = w[j];
    o0[j] += a0 * wj;
    o1[j] += a1 * wj;
    o2[j] += a2 * wj;
    o3[j] += a3 * wj;
  }
}

/* Up to ROWS_PER_TASK output rows of one batch in float: out[i][j] = sum_k lhs[i][k] *
 * rhs[k][j], each element summed in k order (as TFLite's reference), the rhs streamed
 * row by row once per four output rows. Task t covers batch t / blocks, rows from
 * (t % blocks) * ROWS_PER_TASK. */
static void rows_f32(void *arg, size_t t)
{
  const bmm_args *a = arg;
  const bmm_state *st = a->st;
  size_t blocks = ((size_t)st->m + ROWS_PER_TASK - 1) / ROWS_PER_TASK;
  size_t b = t / blocks;
  int i0 = (int)(t % blocks) * ROWS_PER_TASK;
  int nr = st->m - i0 < ROWS_PER_TASK ? st->m - i0 : ROWS_PER_TASK;
  const float *l = a->l, *w = (const float *)st->packed + st->rb[b] * (size_t)st->k * st->n;
  float *o = (float *)a->y + (b * (size_t)st->m + (size_t)i0) * st->n;
  for (size_t j = 0; j < (size_t)nr * st->n; j++) o[j] = 0.0f;
  for (int kk = 0; kk < st->k; kk++) {
    const float *wk = w + (size_t)kk * st->n;
    if (nr == ROWS_PER_TASK) {
      float av[ROWS_PER_TASK];
      for (int r = 0; r < ROWS_PER_TASK; r++) av[r] = l[lhs_at(st, st->lb[b], i0 + r, kk)];
      axpy4(o, o + st->n, o + 2 * (size_t)st->n, o + 3 * (size_t)st->n, wk, av, st->n);
    } else {
      for (int r = 0; r < nr; r++) cpu_axpy(o + (size_t)r * st->n, wk, l[lhs_at(st, st->lb[b], i0 + r, kk)], st->n);
    }
  }
}

/* One output row of int8/int16 (and int8 -> int32) operands. */
static void row_q(void *arg, size_t row)
{
  const bmm_args *a = arg;
  const bmm_state *st = a->st;
  size_t b = row / (size_t)st->m;
  int i = (int)(row % (size_t)st->m);
  size_t wbase = st->rb[b] * (size_t)st->k * st->n, obase = row * (size_t)st->n;
  for (int j = 0; j < st->n; j++) {
    if (st->kind == BMM_I16) {
      const int16_t *l = a->l, *w = (const int16_t *)st->packed + wbase;
      int64_t acc = 0;
      for (int kk = 0; kk < st->k; kk++) acc += (int64_t)l[lhs_at(st, st->lb[b], i, kk)] * w[(size_t)j * st->k + kk];
      int32_t v = cpu_mul_by_quantized_multiplier_i64(acc, st->q31, st->shift) + st->ozp;
      ((int16_t *)a->y)[obase + j] = (int16_t)cpu_clamp_i32(v, st->lo, st->hi);
      continue;
    }
    const int8_t *l = a->l, *w = (const int8_t *)st->packed + wbase;
    bool raw = st->kind == BMM_I8_I32;
    int32_t lz = raw ? 0 : st->lzp, rz = raw ? 0 : st->rzp;
    uint32_t acc = 0;
    if (!st->adj_x) /* a contiguous lhs row: the vectorized dot (zero points fit int8) */
      acc = (uint32_t)cpu_dot_i8(l + lhs_at(st, st->lb[b], i, 0), w + (size_t)j * st->k, st->k, lz, rz);
    else
      for (int kk = 0; kk < st->k; kk++)
        acc += (uint32_t)(((int32_t)l[lhs_at(st, st->lb[b], i, kk)] - lz) * ((int32_t)w[(size_t)j * st->k + kk] - rz));
    if (raw) {
      ((int32_t *)a->y)[obase + j] = (int32_t)acc;
      continue;
    }
    int32_t v = st->fp32_requant ? cpu_requant_fp32((int32_t)acc, st->requant_scale, st->ozp, st->lo, st->hi)
                                 : cpu_mul_by_quantized_multiplier((int32_t)acc, st->q31, st->shift) + st->ozp;
    ((int8_t *)a->y)[obase + j] = (int8_t)cpu_clamp_i32(v, st->lo, st->hi);
  }
}

/* Quantizes lhs row r (lhs batch r / M, row r % M) of a hybrid node. */
static void quant_row(void *arg, size_t r)
{
  const bmm_args *a = arg;
  const bmm_state *st = a->st;
  const float *l = a->l;
  int8_t *q = st->xq + r * (size_t)st->k;
  const float *src = l + r * (size_t)st->k;
  if (st->adj_x) { /* the row is a strided column of lhs: gathered into its own slot */
    size_t base = (r / (size_t)st->m) * (size_t)st->m * st->k;
    int i = (int)(r % (size_t)st->m);
    float *t = st->lt + r * (size_t)st->k;
    for (int kk = 0; kk < st->k; kk++) t[kk] = l[base + (size_t)kk * st->m + i];
    src = t;
  }
  st->x_scale[r] = st->asym ? cpu_hybrid_quant_asym(src, (size_t)st->k, q, &st->x_zp[r])
                            : cpu_hybrid_quant_sym(src, (size_t)st->k, q);
}

/* One output row of a hybrid node: int8 dots less zero point x column sums, scaled. */
static void row_hybrid(void *arg, size_t row)
{
  const bmm_args *a = arg;
  const bmm_state *st = a->st;
  size_t b = row / (size_t)st->m;
  int i = (int)(row % (size_t)st->m);
  size_t r = st->lb[b] * (size_t)st->m + (size_t)i;
  const int8_t *q = st->xq + r * (size_t)st->k;
  const int8_t *w = (const int8_t *)st->packed + st->rb[b] * (size_t)st->k * st->n;
  const int32_t *cs = st->col_sums + st->rb[b] * (size_t)st->n;
  float *o = (float *)a->y + row * (size_t)st->n;
  float xs = st->x_scale[r];
  int32_t zp = st->x_zp[r];
  for (int j = 0; j < st->n; j++) {
    uint32_t acc = (uint32_t)cpu_hybrid_dot(q, w + (size_t)j * st->k, st->k);
    acc -= (uint32_t)cs[j] * (uint32_t)zp;
    o[j] = (float)(int32_t)acc * (xs * st->hw.w_scale[j]);
  }
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)diag;
  bmm_state *st = state;
  const tfl_tensor *l = cpu_in(g, n, LHS), *r = cpu_in(g, n, RHS);
  if (!st->packed_const) {
    pack_rhs(st, r->data);
    if (st->kind == BMM_HYBRID) rhs_col_sums(st);
  }
  bmm_args a = {st, l->data, cpu_out(g, n, OUTPUT)->data};
  size_t rows = st->batches * (size_t)st->m;
  switch (st->kind) {
  case BMM_F32:
    cpu_parallel(ctx, rows_f32, &a, st->batches * (((size_t)st->m + ROWS_PER_TASK - 1) / ROWS_PER_TASK));
    break;
  case BMM_I8:
  case BMM_I8_I32:
  case BMM_I16: cpu_parallel(ctx, row_q, &a, rows); break;
  case BMM_HYBRID:
    cpu_parallel(ctx, quant_row, &a, st->lhs_rows);
    cpu_parallel(ctx, row_hybrid, &a, rows);
    break;
  }
  return TFL_OK;
}

bool cpu_bmm_hybrid_view_of(const void *state, cpu_bmm_hybrid_view *v)
{
  const bmm_state *st = state;
  if (!st || st->kind != BMM_HYBRID || !st->packed_const || !st->asym) return false;
  *v = (cpu_bmm_hybrid_view){st->m, st->n, st->k, st->adj_x, st->batches, st->lhs_rows, st->rhs_batches, st->lb,
                             st->rb, st->packed, st->hw.w_scale, st->lt};
  return true;
}

const cpu_kernel cpu_k_batch_matmul = {prepare, eval, release, CPU_F32 | CPU_TYPE(TFL_TYPE_INT8) | CPU_I16, 0};
