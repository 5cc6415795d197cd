/* reduce_norm.c - the normalizations of the reduce group, as TensorFlow Lite computes them:
 * - LOG_SOFTMAX over the last axis: float32 x - max - log(sum(exp(x - max))) in float;
 *   uint8/int8 with TFLite's fixed output (scale 16/256, zero point 255 / 127): the exact
 *   log-probability of the dequantized row (the zero point cancels) in double, rounded to
 *   nearest-even like TFLite's table-based kernel;
 * - L2_NORMALIZATION over the last axis (at most 4 dims, no fused activation, as TFLite):
 *   float32 x / max(sqrt(sum x^2), 1e-6); uint8/int8 with the fixed output (scale 1/128,
 *   zero point 128 / 0): zo + round(128 * d / sqrt(sum d^2)) with d = q - zi in double
 *   (an all-zero row gives zo);
 * - LOCAL_RESPONSE_NORMALIZATION (float32, 4 dims): x * (bias + sum(alpha * x^2))^-beta over
 *   channels c - radius .. c + radius (clipped at the edges), as TFLite's optimized kernel;
 * - L2_POOL_2D (float32 NHWC): sqrt(mean of x^2) over the window's in-bounds pixels, SAME
 *   padding split as TFLite's pools, then the fused activation.
 * Rows (last-axis vectors, or output rows for the pool) are split over threads.
 */
#include "eltwise_common.h"

#include <math.h>

enum { INPUT = 0 };
enum { OUTPUT = 0 };

typedef struct {
  tfl_type type;
  size_t rows, depth;                   /* last-axis vectors of depth elements */
  float in_scale;
  int32_t zi, zo, lo, hi;
  /* L2_POOL_2D */
  int n, ih, iw, c, oh, ow, pad_t, pad_l;
  float act_lo, act_hi;
  tfl_activation act;
} norm_state;

typedef struct {
  const norm_state *st;
  const tfl_node *n;
  const void *x;
  void *y;
  size_t tasks;
  void (*row)(const norm_state *st, const tfl_node *n, const void *x, void *y, size_t r);
} norm_job;

static void release(void *state)
{
  free(state);
}

static void job_task(void *arg, size_t t)
{
  const norm_job *j = arg;
  size_t r0, r1;
  cpu_task_range(t, j->tasks, j->st->rows, &r0, &r1);
  for (size_t r = r0; r < r1; r++) j->row(j->st, j->n, j->x, j->y, r);
}

static tfl_status run_rows(const tfl_graph *g, const tfl_node *n, const norm_state *st, cpu_ctx *ctx,
                           void (*row)(const norm_state *, const tfl_node *, const void *, void *, size_t))
{
  norm_job j = {st, n, cpu_in(g, n, INPUT)->data, cpu_out(g, n, OUTPUT)->data, 1, row};
  if (st->rows == 0) return TFL_OK;
  size_t work = st->rows * (st->depth ? st->depth : 1);
  j.tasks = cpu_task_count(ctx, work, 16384);
  if (j.tasks > st->rows) j.tasks = st->rows;
  cpu_parallel(ctx, job_task, &j, j.tasks);
  return TFL_OK;
}

/* Common checks: input and output present, same type and element count; rows of the last
 * axis. */
static tfl_status prepare_rows(const tfl_graph *g, const tfl_node *n, norm_state **out, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "input", -1, diag)) || (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  if (x->type != y->type)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input %s, output %s: types differ",
                        tfl_type_name(x->type), tfl_type_name(y->type));
  if (x->ndim < 1) return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input has %d dims, expected at least 1", x->ndim);
  if (tfl_tensor_count(x) != tfl_tensor_count(y) || y->ndim < 1 || y->dims[y->ndim - 1] != x->dims[x->ndim - 1])
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output has %zu elements (last dim %d), input %zu (last dim %d)",
                        tfl_tensor_count(y), y->ndim ? y->dims[y->ndim - 1] : 0, tfl_tensor_count(x),
                        x->dims[x->ndim - 1]);
  norm_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "%s state", tfl_op_name(n->op));
  st->type = x->type;
  st->depth = (size_t)x->dims[x->ndim - 1];
  st->rows = st->depth ? tfl_tensor_count(x) / st->depth : 0;
  *out = st;
  return TFL_OK;
}

/* Quantized 8-bit output with the fixed scale and zero points TFLite demands. */
static tfl_status check_fixed_q8(const tfl_graph *g, const tfl_node *n, norm_state *st, double scale, int32_t zp_u8,
                                 int32_t zp_i8, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = cpu_check_per_tensor(g, n, x, "input", diag)) || (s = cpu_check_per_tensor(g, n, y, "output", diag)))
    return s;
  int32_t want = y->type == TFL_TYPE_UINT8 ? zp_u8 : zp_i8;
  if ((double)cpu_scale(y, 0) != scale || cpu_zero_point(y, 0) != want)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s output scale %g zero point %d: TFLite needs scale %g, "
                        "zero point %d", tfl_type_name(y->type), (double)cpu_scale(y, 0), cpu_zero_point(y, 0), scale,
                        want);
  st->in_scale = cpu_scale(x, 0);
  st->zi = cpu_zero_point(x, 0);
  st->zo = want;
  cpu_type_limits(y->type, &st->lo, &st->hi);
  return TFL_OK;
}

static inline int32_t q8_at(tfl_type t, const void *x, size_t i)
{
  return t == TFL_TYPE_INT8 ? ((const int8_t *)x)[i] : ((const uint8_t *)x)[i];
}

/* ---------------------------------------------------------------- LOG_SOFTMAX */

static void log_softmax_row(const norm_state *st, const tfl_node *n, const void *xv, void *yv, size_t r)
{
  size_t d = st->depth, base = r * d;
  (void)n;
  if (st->type == TFL_TYPE_FLOAT32) {
    const float *x = (const float *)xv + base;
    float *y = (float *)yv + base;
    float mx = x[0];
    for (size_t k = 1; k < d; k++) mx = x[k] > mx ? x[k] : mx;
    float sum = 0.0f;
    for (size_t k = 0; k < d; k++) sum += expf(x[k] - mx);
    float ls = logf(sum);
    for (size_t k = 0; k < d; k++) y[k] = x[k] - mx - ls;
    return;
  }
  int32_t mx = q8_at(st->type, xv, base);
  for (size_t k = 1; k < d; k++) {
    int32_t v = q8_at(st->type, xv, base + k);
    mx = v > mx ? v : mx;
  }
  double s = st->in_scale, sum = 0.0;
  for (size_t k = 0; k < d; k++) sum += exp(s * (q8_at(st->type, xv, base + k) - mx));
  double ls = log(sum);
  for (size_t k = 0; k < d; k++) {
    double v = (s * (q8_at(st->type, xv, base + k) - mx) - ls) * 16.0; /* / (16/256) */
    double q = nearbyint(v) + st->zo;
    q = q < st->lo ? st->lo : (q > st->hi ? st->hi : q);
    ((uint8_t *)yv)[base + k] = (uint8_t)(int32_t)q;
  }
}

static tfl_status log_softmax_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  norm_state *st;
  tfl_status s = prepare_rows(g, n, &st, diag);
  if (s) return s;
  *state = st;
  if (st->type == TFL_TYPE_FLOAT32) return TFL_OK;
  if (!cpu_is_q8(st->type))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "type %s is not supported (TFLite: FLOAT32, UINT8, INT8)",
                        tfl_type_name(st->type));
  return check_fixed_q8(g, n, st, 16.0 / 256.0, 255, 127, diag);
}

static tfl_status log_softmax_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)diag;
  return run_rows(g, n, state, ctx, log_softmax_row);
}

/* ---------------------------------------------------------------- L2_NORMALIZATION */

static void l2norm_row(const norm_state *st, const tfl_node *n, const void *xv, void *yv, size_t r)
{
  size_t d = st->depth, base = r * d;
  (void)n;
  if (st->type == TFL_TYPE_FLOAT32) {
    const float *x = (const float *)xv + base;
    float *y = (float *)yv + base;
    float sq = 0.0f;
    for (size_t k = 0; k < d; k++) sq += x[k] * x[k];
    float norm = sqrtf(sq);
    if (norm < 1e-6f) norm = 1e-6f;
    for (size_t k = 0; k < d; k++) y[k] = x[k] / norm;
    return;
  }
  int64_t sq = 0; /* |q - zi| <= 255: a row of up to 2^40 elements fits */
  for (size_t k = 0; k < d; k++) {
    int64_t v = q8_at(st->type, xv, base + k) - st->zi;
    sq += v * v;
  }
  double inv = sq > 0 ? 128.0 / sqrt((double)sq) : 0.0;
  for (size_t k = 0; k < d; k++) {
    int32_t v = q8_at(st->type, xv, base + k) - st->zi;
    ((uint8_t *)yv)[base + k] = (uint8_t)cpu_clamp_i32(st->zo + cpu_round(v * inv), st->lo, st->hi);
  }
}

static tfl_status l2norm_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  norm_state *st;
  tfl_status s = prepare_rows(g, n, &st, diag);
  if (s) return s;
  *state = st;
  const tfl_tensor *x = cpu_in(g, n, INPUT);
  if (x->ndim > 4)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input has %d dims, TFLite takes at most 4", x->ndim);
  if (n->p.eltwise.act != TFL_ACT_NONE)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "fused activation %d: TFLite takes none",
                        (int)n->p.eltwise.act);
  if (st->type == TFL_TYPE_FLOAT32) return TFL_OK;
  if (!cpu_is_q8(st->type))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "type %s is not supported (TFLite: FLOAT32, UINT8, INT8)",
                        tfl_type_name(st->type));
  return check_fixed_q8(g, n, st, 1.0 / 128.0, 128, 0, diag);
}

static tfl_status l2norm_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)diag;
  return run_rows(g, n, state, ctx, l2norm_row);
}

/* ---------------------------------------------------------------- LOCAL_RESPONSE_NORMALIZATION */

static void lrn_row(const norm_state *st, const tfl_node *n, const void *xv, void *yv, size_t r)
{
  const tfl_lrn_params *p = &n->p.lrn;
  size_t d = st->depth, base = r * d, rad = (size_t)p->radius;
  const float *x = (const float *)xv + base;
  float *y = (float *)yv + base;
  for (size_t c = 0; c < d; c++) {
    size_t b = c > rad ? c - rad : 0, e = c + rad + 1 < d ? c + rad + 1 : d;
    float acc = 0.0f;
    for (size_t k = b; k < e; k++) acc += x[k] * x[k] * p->alpha;
    y[c] = x[c] * powf(p->bias + acc, -p->beta);
  }
}

static tfl_status lrn_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  norm_state *st;
  tfl_status s = prepare_rows(g, n, &st, diag);
  if (s) return s;
  *state = st;
  const tfl_tensor *x = cpu_in(g, n, INPUT);
  if (x->ndim != 4) return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input has %d dims, expected 4", x->ndim);
  if (st->type != TFL_TYPE_FLOAT32)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "type %s is not supported (TFLite: FLOAT32)",
                        tfl_type_name(st->type));
  return TFL_OK;
}

static tfl_status lrn_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)diag;
  return run_rows(g, n, state, ctx, lrn_row);
}

/* ---------------------------------------------------------------- L2_POOL_2D */

/* One output row (batch b, output y) of all widths and channels. */
static void l2pool_row(const norm_state *st, const tfl_node *n, const void *xv, void *yv, size_t r)
{
  const tfl_pool_params *p = &n->p.pool;
  const float *x = xv;
  float *y = yv;
  size_t b = r / (size_t)st->oh;
  int oy = (int)(r % (size_t)st->oh);
  int y0 = oy * p->stride_h - st->pad_t;
  int fy0 = y0 < 0 ? -y0 : 0, fy1 = st->ih - y0 < p->filter_h ? st->ih - y0 : p->filter_h;
  for (int ox = 0; ox < st->ow; ox++) {
    int x0 = ox * p->stride_w - st->pad_l;
    int fx0 = x0 < 0 ? -x0 : 0, fx1 = st->iw - x0 < p->filter_w ? st->iw - x0 : p->filter_w;
    float *out = y + ((b * (size_t)st->oh + (size_t)oy) * (size_t)st->ow + (size_t)ox) * (size_t)st->c;
    int count = (fy1 > fy0 && fx1 > fx0) ? (fy1 - fy0) * (fx1 - fx0) : 0;
    for (int ch = 0; ch < st->c; ch++) {
      float sum = 0.0f;
      for (int fy = fy0; fy < fy1; fy++)
        for (int fx = fx0; fx < fx1; fx++) {
          float v = x[((b * (size_t)st->ih + (size_t)(y0 + fy)) * (size_t)st->iw + (size_t)(x0 + fx)) * (size_t)st->c +
                      (size_t)ch];
          sum += v * v;
        }
      float v = count ? sqrtf(sum / (float)count) : 0.0f;
      out[ch] = cpu_apply_activation(st->act, v);
    }
  }
}

static tfl_status l2pool_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  const tfl_pool_params *p = &n->p.pool;
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "input", 4, diag)) || (s = cpu_check_tensor(g, n, y, "output", 4, diag)))
    return s;
  if (x->type != TFL_TYPE_FLOAT32 || y->type != TFL_TYPE_FLOAT32)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input %s, output %s: TFLite takes FLOAT32 only",
                        tfl_type_name(x->type), tfl_type_name(y->type));
  if (p->stride_w < 1 || p->stride_h < 1 || p->filter_w < 1 || p->filter_h < 1)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "stride %dx%d filter %dx%d must be >= 1", p->stride_w, p->stride_h,
                        p->filter_w, p->filter_h);
  int oh = tfl_conv_out_size(p->padding, x->dims[1], p->filter_h, p->stride_h, 1);
  int ow = tfl_conv_out_size(p->padding, x->dims[2], p->filter_w, p->stride_w, 1);
  if (y->dims[0] != x->dims[0] || y->dims[1] != oh || y->dims[2] != ow || y->dims[3] != x->dims[3])
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output is %dx%dx%dx%d, expected %dx%dx%dx%d", y->dims[0],
                        y->dims[1], y->dims[2], y->dims[3], x->dims[0], oh, ow, x->dims[3]);
  norm_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "L2_POOL_2D state");
  *state = st;
  st->type = x->type;
  st->n = x->dims[0];
  st->ih = x->dims[1];
  st->iw = x->dims[2];
  st->c = x->dims[3];
  st->oh = oh;
  st->ow = ow;
  st->pad_t = tfl_conv_pad_before(p->padding, st->ih, p->filter_h, p->stride_h, 1, oh);
  st->pad_l = tfl_conv_pad_before(p->padding, st->iw, p->filter_w, p->stride_w, 1, ow);
  st->act = p->act;
  st->rows = (size_t)st->n * (size_t)oh;
  st->depth = (size_t)ow * (size_t)st->c * (size_t)p->filter_h * (size_t)p->filter_w;
  return TFL_OK;
}

static tfl_status l2pool_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  (void)diag;
  return run_rows(g, n, state, ctx, l2pool_row);
}

const cpu_kernel cpu_k_log_softmax = {log_softmax_prepare, log_softmax_eval, release, CPU_F32 | CPU_Q8, 0};
const cpu_kernel cpu_k_l2_normalization = {l2norm_prepare, l2norm_eval, release, CPU_F32 | CPU_Q8, 0};
const cpu_kernel cpu_k_local_response_normalization = {lrn_prepare, lrn_eval, release, CPU_F32, 0};
const cpu_kernel cpu_k_l2_pool_2d = {l2pool_prepare, l2pool_eval, release, CPU_F32, 0};
