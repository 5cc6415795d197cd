/* layout_common.h - what the layout kernels (layout_*.c) share: the type table check,
 * reading int32/int64 index tensors, and a strided byte copy.
 *
 * The layout ops only move elements, so each kernel works on bytes of the element size
 * (1, 2, 4 or 8) whatever the type. The strided copy walks an N-dim box: per dim a count
 * and a signed byte stride in the source and in the destination (a negative stride
 * reverses, a zero stride repeats). Adjacent dims that are contiguous in both are merged
 * at plan time, so most copies end in long memcpy runs; a transpose whose innermost
 * output dim is strided in the source is copied in square tiles so that both sides stay
 * in cache. Private to delegates/cpu/kernels/.
 */
#ifndef CPU_LAYOUT_COMMON_H
#define CPU_LAYOUT_COMMON_H

#include <stdint.h>
#include <string.h>

#include "eltwise_common.h"

/* Bit of a type in a kernel's table of accepted types. */
#define LAY_T(t) (1u << (t))
#define LAY_ALL_TYPES                                                                                        \
  (LAY_T(TFL_TYPE_FLOAT32) | LAY_T(TFL_TYPE_INT8) | LAY_T(TFL_TYPE_UINT8) | LAY_T(TFL_TYPE_INT16) |           \
   LAY_T(TFL_TYPE_INT32) | LAY_T(TFL_TYPE_INT64) | LAY_T(TFL_TYPE_BOOL))

/* Input and output exist, have the same type, and the type is in `mask` (TFLite's list for
 * the op); else TFL_ERR_UNSUPPORTED naming the op and the type. */
static inline tfl_status lay_check_types(const tfl_graph *g, const tfl_node *n, const tfl_tensor *x,
                                         const tfl_tensor *y, uint32_t mask, tfl_diag *diag)
{
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "input", -1, diag)) || (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  if ((unsigned)x->type >= 32 || !(mask >> x->type & 1u) || tfl_type_size(x->type) == 0)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "type %s is not supported by %s", tfl_type_name(x->type),
                        tfl_op_name(n->op));
  if (x->type != y->type)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input %s, output %s: types differ",
                        tfl_type_name(x->type), tfl_type_name(y->type));
  return TFL_OK;
}

/* TFLite refuses to move quantized values between tensors of different scale or zero
 * point where the op cannot rescale (TRANSPOSE, PACK, UNPACK ...). */
static inline tfl_status lay_check_same_quant(const tfl_graph *g, const tfl_node *n, const tfl_tensor *x,
                                              const tfl_tensor *y, const char *what, tfl_diag *diag)
{
  if (cpu_scale(x, 0) != cpu_scale(y, 0) || cpu_zero_point(x, 0) != cpu_zero_point(y, 0))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n,
                        "%s has scale %g, zero point %d; output scale %g, zero point %d: must be equal", what,
                        (double)cpu_scale(x, 0), (int)cpu_zero_point(x, 0), (double)cpu_scale(y, 0),
                        (int)cpu_zero_point(y, 0));
  return TFL_OK;
}

/* An int32 or int64 index tensor (role `what`) of at most `max` values with data now. */
static inline tfl_status lay_check_index(const tfl_graph *g, const tfl_node *n, const tfl_tensor *t, const char *what,
                                         int max, tfl_diag *diag)
{
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, t, what, -1, diag))) return s;
  if (t->type != TFL_TYPE_INT32 && t->type != TFL_TYPE_INT64)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s is %s, expected int32 or int64", what,
                        tfl_type_name(t->type));
  if (tfl_tensor_count(t) > (size_t)max)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%s has %zu values, at most %d", what, tfl_tensor_count(t), max);
  return TFL_OK;
}

static inline int64_t lay_index(const tfl_tensor *t, size_t i)
{
  return t->type == TFL_TYPE_INT64 ? ((const int64_t *)t->data)[i] : ((const int32_t *)t->data)[i];
}

/* Row-major element strides of a shape. */
static inline void lay_strides(const int32_t *dims, int nd, int64_t *st)
{
  int64_t s = 1;
  for (int d = nd - 1; d >= 0; d--) {
    st[d] = s;
    s *= dims[d];
  }
}

/* ---- the strided copy ------------------------------------------------------------ */

#define LAY_MAX_COPY_DIMS (2 * TFL_MAX_DIMS) /* TILE: a repeat and an extent per dim */

typedef struct {
  int nd;                             /* >= 1 after lay_copy_plan */
  int64_t count[LAY_MAX_COPY_DIMS];
  int64_t ss[LAY_MAX_COPY_DIMS];      /* source byte strides */
  int64_t ds[LAY_MAX_COPY_DIMS];      /* destination byte strides */
  size_t es;                          /* element bytes */
  int tile;                           /* dim whose source stride is one element (tiled), or -1 */
} lay_copy;

/* Drops size-1 dims, merges dims contiguous on both sides and picks the tiled dim. The
 * caller fills nd, count, ss, ds and es. */
static inline void lay_copy_plan(lay_copy *c)
{
  int k = 0;
  for (int d = 0; d < c->nd; d++) {
    if (c->count[d] == 1) continue;
    if (k > 0 && c->ss[k - 1] == c->ss[d] * c->count[d] && c->ds[k - 1] == c->ds[d] * c->count[d]) {
      c->count[k - 1] *= c->count[d];
      c->ss[k - 1] = c->ss[d];
      c->ds[k - 1] = c->ds[d];
      continue;
    }
    c->count[k] = c->count[d];
    c->ss[k] = c->ss[d];
    c->ds[k] = c->ds[d];
    k++;
  }
  if (k == 0) {
    c->count[0] = 1;
    c->ss[0] = c->ds[0] = (int64_t)c->es;
    k = 1;
  }
  c->nd = k;
  c->tile = -1;
  const int64_t es = (int64_t)c->es;
  if (c->ss[k - 1] != es && c->ds[k - 1] == es)
    for (int d = 0; d < k - 1; d++)
      if (c->ss[d] == es && c->count[k - 1] >= 2) c->tile = d;
}

/* n elements, source stride ss, destination stride ds (bytes). */
static inline void lay_copy_row(uint8_t *dst, const uint8_t *src, int64_t n, int64_t ss, int64_t ds, size_t es)
{
  if (ss == (int64_t)es && ds == (int64_t)es) {
    memcpy(dst, src, (size_t)n * es);
    return;
  }
  switch (es) {
  case 1:
    for (int64_t i = 0; i < n; i++) dst[i * ds] = src[i * ss];
    return;
  case 2:
    for (int64_t i = 0; i < n; i++) memcpy(dst + i * ds, src + i * ss, 2);
    return;
  case 4:
    for (int64_t i = 0; i < n; i++) memcpy(dst + i * ds, src + i * ss, 4);
    return;
  case 8:
    for (int64_t i = 0; i < n; i++) memcpy(dst + i * ds, src + i * ss, 8);
    return;
  default:
    for (int64_t i = 0; i < n; i++) memcpy(dst + i * ds, src + i * ss, es);
    return;
  }
}

/* The tiled 2-D copies, one per element size (in elements): rows [r0, r1) are contiguous
 * in the source, columns contiguous in the destination, so dst[i * rd + j] = src[i + j * cs].
 * Tiles of tr rows x tc columns keep both sides in cache (lay_copy_tiled picks them). With
 * fewer columns than a tile (an image's 3 channels) each column is one run over the
 * tile's rows instead. */

/* One body, instantiated per element type (the compiler keeps each loop in its own width). */
#define LAY_TILED(name, T)                                                                          \
  static inline void name(T *dst, const T *src, int64_t r0, int64_t r1, int64_t cols, int64_t rd,  \
                          int64_t cs, int64_t tr, int64_t tc)                                       \
  {                                                                                                 \
    for (int64_t i0 = r0; i0 < r1; i0 += tr) {                                                      \
      const int64_t i1 = i0 + tr < r1 ? i0 + tr : r1;                                              \
      if (cols < tc) {                                                                              \
        for (int64_t j = 0; j < cols; j++)                                                          \
          for (int64_t i = i0; i < i1; i++) dst[i * rd + j] = src[i + j * cs];                      \
        continue;                                                                                   \
      }                                                                                             \
      for (int64_t j0 = 0; j0 < cols; j0 += tc) {                                                   \
        const int64_t j1 = j0 + tc < cols ? j0 + tc : cols;                                         \
        for (int64_t i = i0; i < i1; i++)                                                           \
          for (int64_t j = j0; j < j1; j++) dst[i * rd + j] = src[i + j * cs];                      \
      }                                                                                             \
    }                                                                                               \
  }
LAY_TILED(lay_tiled_u8, uint8_t)
LAY_TILED(lay_tiled_u16, uint16_t)
LAY_TILED(lay_tiled_u32, uint32_t)
LAY_TILED(lay_tiled_u64, uint64_t)
#undef LAY_TILED

/* byte strides: rows rs (== es) / rd, columns cs / cd (== es) */
static inline void lay_copy_tiled(uint8_t *dst, const uint8_t *src, int64_t r0, int64_t r1, int64_t cols,
                                  int64_t rs, int64_t rd, int64_t cs, int64_t cd, size_t es)
{
  const int64_t e = (int64_t)es;
  /* lines a multiple of 1 KiB apart (image planes) fall into few cache sets: only 8 of
   * them live at once; otherwise 64 */
  const int64_t tr = rd % 1024 == 0 ? 8 : 64, tc = cs % 1024 == 0 ? 8 : 64;
  (void)rs;
  (void)cd;
  /* typed access needs aligned data (a constant input may sit unaligned in the file) */
  const size_t kind = (((uintptr_t)dst | (uintptr_t)src) % es == 0) ? es : 0;
  switch (kind) {
  case 1: lay_tiled_u8(dst, src, r0, r1, cols, rd, cs, tr, tc); return;
  case 2:
    lay_tiled_u16((uint16_t *)(void *)dst, (const uint16_t *)(const void *)src, r0, r1, cols, rd / e, cs / e, tr, tc);
    return;
  case 4:
    lay_tiled_u32((uint32_t *)(void *)dst, (const uint32_t *)(const void *)src, r0, r1, cols, rd / e, cs / e, tr, tc);
    return;
  case 8:
    lay_tiled_u64((uint64_t *)(void *)dst, (const uint64_t *)(const void *)src, r0, r1, cols, rd / e, cs / e, tr, tc);
    return;
  default:
    for (int64_t i = r0; i < r1; i++) lay_copy_row(dst + i * rd, src + i * e, cols, cs, e, es);
    return;
  }
}

/* Copies the part of the box whose dim-0 index is in [b0, e0). */
static inline void lay_copy_range(const lay_copy *c, uint8_t *dst, const uint8_t *src, int64_t b0, int64_t e0)
{
  const int last = c->nd - 1, tile = c->tile;
  if (b0 >= e0) return;
  if (last == 0) {
    lay_copy_row(dst + b0 * c->ds[0], src + b0 * c->ss[0], e0 - b0, c->ss[0], c->ds[0], c->es);
    return;
  }
  int64_t idx[LAY_MAX_COPY_DIMS] = {0};
  idx[0] = b0;
  for (;;) {
    int64_t so = 0, dof = 0;
    for (int d = 0; d < last; d++)
      if (d != tile) {
        so += idx[d] * c->ss[d];
        dof += idx[d] * c->ds[d];
      }
    if (tile >= 0) {
      int64_t r0 = tile == 0 ? b0 : 0, r1 = tile == 0 ? e0 : c->count[tile];
      lay_copy_tiled(dst + dof, src + so, r0, r1, c->count[last], c->ss[tile], c->ds[tile], c->ss[last],
                     c->ds[last], c->es);
    } else {
      lay_copy_row(dst + dof, src + so, c->count[last], c->ss[last], c->ds[last], c->es);
    }
    int d = last - 1;
    for (; d >= 0; d--) { /* odometer over the dims outside the row (and the tile) */
      if (d == tile) continue;
      int64_t end = d == 0 ? e0 : c->count[d], start = d == 0 ? b0 : 0;
      if (++idx[d] < end) break;
      idx[d] = start;
    }
    if (d < 0) return;
  }
}

typedef struct {
  const lay_copy *c;
  uint8_t *dst;
  const uint8_t *src;
  size_t tasks;
} lay_copy_job;

static inline void lay_copy_task(void *arg, size_t i)
{
  const lay_copy_job *j = arg;
  size_t b, e;
  cpu_task_range(i, j->tasks, (size_t)j->c->count[0], &b, &e);
  lay_copy_range(j->c, j->dst, j->src, (int64_t)b, (int64_t)e);
}

/* The whole box, split over the context's threads along dim 0 (one task in reference mode). */
static inline void lay_copy_run(const lay_copy *c, uint8_t *dst, const uint8_t *src, cpu_ctx *ctx)
{
  int64_t total = 1;
  for (int d = 0; d < c->nd; d++) total *= c->count[d];
  size_t tasks = cpu_task_count(ctx, (size_t)total * c->es, 1 << 16);
  if (tasks > (size_t)c->count[0]) tasks = (size_t)c->count[0];
  if (tasks <= 1) {
    lay_copy_range(c, dst, src, 0, c->count[0]);
    return;
  }
  lay_copy_job j = {c, dst, src, tasks};
  cpu_parallel(ctx, lay_copy_task, &j, tasks);
}

#endif
