/* eltwise_common.h - what the non-convolution kernels share: NumPy broadcasting of two
 * inputs into one output, splitting flat element ranges over threads, and 8-bit
 * quantized lookup tables. Private to delegates/cpu/kernels/.
 *
 * Broadcasting: shapes are right-aligned; a dim of 1 repeats. prepare builds a plan whose
 * adjacent dims are merged wherever both inputs step alike, so common cases collapse:
 * same shapes -> one flat dim; [1,H,W,C] with [C] -> rows of C with both inner strides 1;
 * a scalar -> one flat dim with inner stride 0. eval walks rows of the innermost dim.
 *
 * Quantized 8-bit values are handled as bytes: uint8 raw q is byte b, int8 raw q is
 * (int8_t)b. A table indexed by b ^ flip (flip = 0x80 for int8) runs in q order.
 */
#ifndef CPU_ELTWISE_COMMON_H
#define CPU_ELTWISE_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "conv_common.h" /* CPU_NODE_ERR, cpu_check_tensor */

typedef struct {
  int ndim;                        /* >= 1 after merging */
  size_t dims[TFL_MAX_DIMS];       /* output dims */
  size_t sa[TFL_MAX_DIMS], sb[TFL_MAX_DIMS]; /* element strides of a and b, 0 = repeated */
  size_t count;                    /* output elements */
} cpu_bcast;

/* Plans y = f(a, b) with broadcasting; checks that y's shape is the broadcast shape. */
static inline tfl_status cpu_bcast_prepare(const tfl_graph *g, const tfl_node *n,
                                           const tfl_tensor *a, const tfl_tensor *b,
                                           const tfl_tensor *y, cpu_bcast *p, tfl_diag *diag)
{
  int nd = a->ndim > b->ndim ? a->ndim : b->ndim;
  size_t da[TFL_MAX_DIMS], db[TFL_MAX_DIMS], dy[TFL_MAX_DIMS];
  if (nd > TFL_MAX_DIMS)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "inputs have %d dims, at most %d", nd, TFL_MAX_DIMS);
  for (int i = 0; i < nd; i++) {
    int ia = i - (nd - a->ndim), ib = i - (nd - b->ndim);
    da[i] = ia >= 0 ? (size_t)a->dims[ia] : 1;
    db[i] = ib >= 0 ? (size_t)b->dims[ib] : 1;
    if (da[i] != db[i] && da[i] != 1 && db[i] != 1)
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "dim %d: %zu and %zu do not broadcast", i, da[i],
                          db[i]);
    dy[i] = da[i] == 1 ? db[i] : da[i];
  }
  if (y->ndim != nd)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output has %d dims, broadcast shape has %d", y->ndim,
                        nd);
  for (int i = 0; i < nd; i++)
    if ((size_t)y->dims[i] != dy[i])
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output dim %d is %d, broadcast shape has %zu", i,
                          y->dims[i], dy[i]);
  /* merge from the innermost dim outwards: dims whose repeat pattern matches the previous
   * one fuse into it; size-1 output dims vanish */
  size_t md[TFL_MAX_DIMS], ma[TFL_MAX_DIMS], mb[TFL_MAX_DIMS]; /* innermost first */
  bool ra[TFL_MAX_DIMS], rb[TFL_MAX_DIMS];
  int m = 0;
  size_t str_a = 1, str_b = 1;
  for (int i = nd - 1; i >= 0; i--) {
    if (dy[i] == 1) continue;
    bool rep_a = da[i] == 1, rep_b = db[i] == 1;
    if (m > 0 && ra[m - 1] == rep_a && rb[m - 1] == rep_b) {
      md[m - 1] *= dy[i];
    } else {
      md[m] = dy[i];
      ra[m] = rep_a;
      rb[m] = rep_b;
      ma[m] = rep_a ? 0 : str_a;
      mb[m] = rep_b ? 0 : str_b;
      m++;
    }
    if (!rep_a) str_a *= da[i];
    if (!rep_b) str_b *= db[i];
  }
  if (m == 0) { /* all ones */
    md[0] = 1;
    ma[0] = mb[0] = 1;
    m = 1;
  }
  p->ndim = m;
  p->count = 1;
  for (int i = 0; i < m; i++) {
    p->dims[i] = md[m - 1 - i];
    p->sa[i] = ma[m - 1 - i];
    p->sb[i] = mb[m - 1 - i];
    p->count *= p->dims[i];
  }
  return TFL_OK;
}

/* One run of the innermost dim: y[yo .. yo+len) from a[ao + k*ia], b[bo + k*ib]. */
typedef void (*cpu_bcast_row)(void *arg, size_t ao, size_t ia, size_t bo, size_t ib, size_t yo,
                              size_t len);

/* Walks output elements [start, end) of plan p in runs of the innermost dim. The offsets
 * are decomposed once per run, never per element. */
static inline void cpu_bcast_walk(const cpu_bcast *p, size_t start, size_t end, cpu_bcast_row row,
                                  void *arg)
{
  int last = p->ndim - 1;
  size_t inner = p->dims[last];
  while (start < end) {
    size_t r = start / inner, col = start % inner;
    size_t len = inner - col < end - start ? inner - col : end - start;
    size_t ao = col * p->sa[last], bo = col * p->sb[last];
    for (int d = last - 1; d >= 0; d--) {
      size_t i = r % p->dims[d];
      r /= p->dims[d];
      ao += i * p->sa[d];
      bo += i * p->sb[d];
    }
    row(arg, ao, p->sa[last], bo, p->sb[last], start, len);
    start += len;
  }
}

/* Number of tasks to split `work` units into: about `grain` units each, at most a few per
 * thread, at least 1. */
static inline size_t cpu_task_count(const cpu_ctx *ctx, size_t work, size_t grain)
{
  size_t t = work / (grain ? grain : 1);
  size_t cap = 4 * (size_t)cpu_thread_count(ctx);
  if (cpu_thread_count(ctx) <= 1) cap = 1;
  if (t > cap) t = cap;
  return t ? t : 1;
}

/* [begin, end) of task i out of tasks over `total` units. */
static inline void cpu_task_range(size_t i, size_t tasks, size_t total, size_t *begin, size_t *end)
{
  *begin = total * i / tasks;
  *end = total * (i + 1) / tasks;
}

/* True for the 8-bit quantized storage types. */
static inline bool cpu_is_q8(tfl_type t)
{
  return t == TFL_TYPE_UINT8 || t == TFL_TYPE_INT8;
}
/* XOR applied to a stored byte to get its table index (q order). */
static inline uint8_t cpu_q8_flip(tfl_type t)
{
  return t == TFL_TYPE_INT8 ? 0x80 : 0;
}
/* Raw quantized value of table index i. */
static inline int32_t cpu_q8_value(tfl_type t, int i)
{
  return t == TFL_TYPE_INT8 ? i - 128 : i;
}
/* Real values of the 256 codes of per-tensor quantized 8-bit tensor t, in index order. */
static inline void cpu_q8_dequant_table(const tfl_tensor *t, double table[256])
{
  double s = cpu_scale(t, 0);
  int32_t zp = cpu_zero_point(t, 0);
  for (int i = 0; i < 256; i++) table[i] = s * (cpu_q8_value(t->type, i) - zp);
}
/* Quantizes real v for output (inv_scale = 1/scale, zp) clamped to [lo, hi]; the result
 * cast to uint8_t is the stored byte for both uint8 and int8. */
static inline int32_t cpu_q8_quantize(double v, double inv_scale, int32_t zp, int32_t lo, int32_t hi)
{
  double q = v * inv_scale;
  if (q != q) q = 0; /* NaN */
  if (q > 1e6) q = 1e6; /* keeps the int conversion defined for inf/huge values */
  if (q < -1e6) q = -1e6;
  return cpu_clamp_i32(zp + cpu_round(q), lo, hi);
}

/* Checks that quantized tensor t is per-tensor quantized. */
static inline tfl_status cpu_check_per_tensor(const tfl_graph *g, const tfl_node *n,
                                              const tfl_tensor *t, const char *what, tfl_diag *diag)
{
  if (t->q.n != 1)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s %s has %d scales, expected 1 (per tensor)",
                        tfl_type_name(t->type), what, t->q.n);
  if (!(cpu_scale(t, 0) > 0.0f))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%s scale is %g, expected > 0", what,
                        (double)cpu_scale(t, 0));
  return TFL_OK;
}

/* A two-input op's tensors (inputs 0 and 1, output), any rank. */
static inline tfl_status cpu_check_binary_tensors(const tfl_graph *g, const tfl_node *n, const tfl_tensor *a,
                                                  const tfl_tensor *b, const tfl_tensor *y, tfl_diag *diag)
{
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, a, "input 0", -1, diag)) || (s = cpu_check_tensor(g, n, b, "input 1", -1, diag)) ||
      (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  return TFL_OK;
}

/* The same three tensors each quantized per tensor. */
static inline tfl_status cpu_check_binary_per_tensor(const tfl_graph *g, const tfl_node *n, const tfl_tensor *a,
                                                     const tfl_tensor *b, const tfl_tensor *y, tfl_diag *diag)
{
  tfl_status s;
  if ((s = cpu_check_per_tensor(g, n, a, "input 0", diag)) || (s = cpu_check_per_tensor(g, n, b, "input 1", diag)) ||
      (s = cpu_check_per_tensor(g, n, y, "output", diag)))
    return s;
  return TFL_OK;
}

#endif
