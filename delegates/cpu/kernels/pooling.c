/* pooling.c - AVERAGE_POOL_2D and MAX_POOL_2D reference kernels: float32, uint8, int8.
 * Input [N,H,W,C], output [N,OH,OW,C]; SAME/VALID padding, strides, fused clamp activation.
 * As in TFLite, padded taps are skipped: the average divides by the count of taps inside
 * the input. Quantized pooling keeps the input's scale and zero point (TFLite requires
 * output quantization equal to the input's); the integer average rounds half away from
 * zero.
 * eval splits output rows (batch * OH) over threads; each task writes its own rows.
 */
#include "conv_common.h"

enum { INPUT = 0 };
enum { OUTPUT = 0 };

typedef struct {
  bool is_max;
  tfl_type type;
  int batches, in_h, in_w, ch, out_h, out_w, k_h, k_w;
  int stride_h, stride_w, pad_h, pad_w;
  float act_lo, act_hi;      /* float */
  int32_t q_lo, q_hi;        /* quantized */
} pool_state;

static void release(void *state)
{
  free(state);
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, bool is_max, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  const tfl_pool_params *p = &n->p.pool;
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "input", 4, diag)) || (s = cpu_check_tensor(g, n, y, "output", 4, diag)))
    return s;
  if (p->stride_w < 1 || p->stride_h < 1 || p->filter_w < 1 || p->filter_h < 1)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "stride %dx%d / filter %dx%d must be >= 1",
                        p->stride_w, p->stride_h, p->filter_w, p->filter_h);
  if (y->type != x->type)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input %s, output %s: types differ",
                        tfl_type_name(x->type), tfl_type_name(y->type));
  pool_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "pool state");
  *state = st;
  st->is_max = is_max;
  st->type = x->type;
  st->batches = x->dims[0];
  st->in_h = x->dims[1];
  st->in_w = x->dims[2];
  st->ch = x->dims[3];
  st->k_h = p->filter_h;
  st->k_w = p->filter_w;
  st->stride_h = p->stride_h;
  st->stride_w = p->stride_w;
  cpu_window_axis(p->padding, st->in_h, st->k_h, st->stride_h, 1, &st->out_h, &st->pad_h);
  cpu_window_axis(p->padding, st->in_w, st->k_w, st->stride_w, 1, &st->out_w, &st->pad_w);
  if ((s = cpu_check_output_nhwc(g, n, y, st->batches, st->out_h, st->out_w, st->ch, diag))) return s;
  switch (x->type) {
  case TFL_TYPE_FLOAT32:
    cpu_activation_range_f(p->act, &st->act_lo, &st->act_hi);
    return TFL_OK;
  case TFL_TYPE_UINT8:
  case TFL_TYPE_INT8:
    if (x->q.n != 1 || y->q.n != 1 || cpu_scale(x, 0) != cpu_scale(y, 0) ||
        cpu_zero_point(x, 0) != cpu_zero_point(y, 0))
      return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n,
                          "output quantization (%g, %d) differs from the input's (%g, %d)",
                          (double)cpu_scale(y, 0), cpu_zero_point(y, 0), (double)cpu_scale(x, 0),
                          cpu_zero_point(x, 0));
    cpu_activation_range_q(p->act, cpu_scale(y, 0), cpu_zero_point(y, 0), y->type, &st->q_lo,
                           &st->q_hi);
    return TFL_OK;
  case TFL_TYPE_FLOAT16:
  case TFL_TYPE_INT32:
  case TFL_TYPE_INT64:
  case TFL_TYPE_STRING:
  case TFL_TYPE_COMPLEX64:
  case TFL_TYPE_BOOL:
  case TFL_TYPE_INT16:
  case TFL_TYPE_COUNT: break;
  }
  return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input type %s", tfl_type_name(x->type));
}

static tfl_status prepare_avg(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  return prepare(g, n, state, false, diag);
}
static tfl_status prepare_max(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  return prepare(g, n, state, true, diag);
}

typedef struct {
  const pool_state *st;
  const void *x;
  void *y;
} pool_args;

static inline float load(const pool_state *st, const void *x, size_t i)
{
  switch (st->type) {
  case TFL_TYPE_FLOAT32: return ((const float *)x)[i];
  case TFL_TYPE_UINT8: return ((const uint8_t *)x)[i];
  case TFL_TYPE_INT8: return ((const int8_t *)x)[i];
  case TFL_TYPE_FLOAT16:
  case TFL_TYPE_INT32:
  case TFL_TYPE_INT64:
  case TFL_TYPE_STRING:
  case TFL_TYPE_COMPLEX64:
  case TFL_TYPE_BOOL:
  case TFL_TYPE_INT16:
  case TFL_TYPE_COUNT: break;
  }
  return 0.0f;
}

/* One output row (b, oy). One loop serves all types: stored integers are exact in float;
 * float sums accumulate in float as TFLite's, integer sums in int64. */
static void row(void *arg, size_t r)
{
  const pool_args *a = arg;
  const pool_state *st = a->st;
  int bi = (int)(r / (size_t)st->out_h), oy = (int)(r % (size_t)st->out_h);
  size_t x_base = (size_t)bi * st->in_h * st->in_w * st->ch;
  int y0 = oy * st->stride_h - st->pad_h;
  int ky0 = y0 < 0 ? -y0 : 0, ky1 = st->in_h - y0 < st->k_h ? st->in_h - y0 : st->k_h;
  for (int ox = 0; ox < st->out_w; ox++) {
    int x0 = ox * st->stride_w - st->pad_w;
    int kx0 = x0 < 0 ? -x0 : 0, kx1 = st->in_w - x0 < st->k_w ? st->in_w - x0 : st->k_w;
    int count = (ky1 - ky0) * (kx1 - kx0);
    size_t yo = (r * st->out_w + ox) * st->ch;
    for (int c = 0; c < st->ch; c++) {
      float fsum = 0.0f;
      int64_t isum = 0;
      float best = -INFINITY;
      for (int ky = ky0; ky < ky1; ky++)
        for (int kx = kx0; kx < kx1; kx++) {
          float v = load(st, a->x, x_base + ((size_t)(y0 + ky) * st->in_w + x0 + kx) * st->ch + c);
          fsum += v;
          /* stored integers only: a float can be out of int64's range (undefined cast) */
          if (st->type != TFL_TYPE_FLOAT32) isum += (int64_t)v;
          best = v > best ? v : best;
        }
      if (st->type == TFL_TYPE_FLOAT32) {
        float v = st->is_max ? best : (count > 0 ? fsum / (float)count : 0.0f);
        ((float *)a->y)[yo + c] = v < st->act_lo ? st->act_lo : (v > st->act_hi ? st->act_hi : v);
        continue;
      }
      int32_t q;
      if (st->is_max) {
        q = count > 0 ? (int32_t)best : st->q_lo;
      } else { /* integer average, rounded half away from zero as TFLite */
        int64_t s = isum, half = count / 2;
        q = count > 0 ? (int32_t)(s >= 0 ? (s + half) / count : (s - half) / count) : 0;
      }
      cpu_store_q(a->y, st->type == TFL_TYPE_UINT8, yo + c, cpu_clamp_i32(q, st->q_lo, st->q_hi));
    }
  }
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const pool_state *st = state;
  pool_args a = {st, cpu_in(g, n, INPUT)->data, cpu_out(g, n, OUTPUT)->data};
  cpu_parallel(ctx, row, &a, (size_t)st->batches * st->out_h);
  return TFL_OK;
}

const cpu_kernel cpu_k_average_pool_2d = {prepare_avg, eval, release, CPU_F32 | CPU_Q8, 0};
const cpu_kernel cpu_k_max_pool_2d = {prepare_max, eval, release, CPU_F32 | CPU_Q8, 0};
