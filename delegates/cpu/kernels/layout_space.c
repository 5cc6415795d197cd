/* layout_space.c - the layout ops that move pixels between space, depth and batch, or pad
 * by mirroring: MIRROR_PAD, SPACE_TO_DEPTH, SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND, with
 * TensorFlow Lite's semantics and type tables (layout_common.h has the shared checks).
 *
 * MIRROR_PAD: output index i of a dim with leading pad lo and size n reads j = i - lo,
 *   mirrored at the edges: REFLECT excludes the edge (-j, 2n-2-j), SYMMETRIC repeats it
 *   (-j-1, 2n-1-j). Each output row is the mirrored head, one memcpy, the mirrored tail.
 * SPACE_TO_DEPTH (NHWC): output channel (dy * bs + dx) * C + c of pixel (h, w) is input
 *   channel c of pixel (h * bs + dy, w * bs + dx).
 * SPACE_TO_BATCH_ND: input [B, S1..SM, rest], block [b1..bM], paddings; output batch
 *   k * B + b, with block offset k = (k1, .., kM) in row-major order, takes padded input
 *   pixel (o1 * b1 + k1 - pad1, ...) of batch b; padding is 0, or the output's zero point
 *   for a quantized tensor (TFLite's pad value). BATCH_TO_SPACE_ND is the inverse with crops.
 * Each pixel's `rest` dims are one contiguous run copied with memcpy.
 */
#include "kernels.h"

#include "layout_common.h"

#include <stdlib.h>
#include <string.h>

enum { INPUT = 0, PARAM = 1, PARAM2 = 2 };
enum { OUTPUT = 0 };

#define TYPES_S2D (LAY_T(TFL_TYPE_FLOAT32) | LAY_T(TFL_TYPE_INT8) | LAY_T(TFL_TYPE_UINT8) | \
                                  LAY_T(TFL_TYPE_INT32) | LAY_T(TFL_TYPE_INT64))

static void release(void *state)
{
  free(state);
}

static bool is_const(const tfl_tensor *t)
{
  return t && t->is_const && t->data;
}

/* ---- MIRROR_PAD ---- */

typedef struct {
  int64_t pad[2 * TFL_MAX_DIMS];
  bool planned;
  bool reflect;
} mirror_state;

static tfl_status mirror_pads(const tfl_graph *g, const tfl_node *n, bool reflect, int64_t *pad, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *pt = cpu_in(g, n, PARAM), *y = cpu_out(g, n, OUTPUT);
  const int nd = x->ndim;
  if ((int)tfl_tensor_count(pt) != 2 * nd || y->ndim != nd)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "paddings has %zu values, output %d dims; input has %d dims",
                        tfl_tensor_count(pt), y->ndim, nd);
  for (int d = 0; d < nd; d++) {
    int64_t lo = lay_index(pt, 2 * (size_t)d), hi = lay_index(pt, 2 * (size_t)d + 1);
    int64_t lim = x->dims[d] - (reflect ? 1 : 0);
    if (lo < 0 || hi < 0 || lo > lim || hi > lim || x->dims[d] + lo + hi != y->dims[d])
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "dim %d of size %d: paddings (%lld, %lld) (0..%lld for %s), "
                          "output dim %d", d, x->dims[d], (long long)lo, (long long)hi, (long long)lim,
                          reflect ? "REFLECT" : "SYMMETRIC", y->dims[d]);
    pad[2 * d] = lo;
    pad[2 * d + 1] = hi;
  }
  return TFL_OK;
}

static tfl_status mirror_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT), *pt = cpu_in(g, n, PARAM);
  tfl_status s;
  if ((s = lay_check_types(g, n, x, y, LAY_ALL_TYPES, diag)) ||
      (s = lay_check_index(g, n, pt, "paddings", 2 * TFL_MAX_DIMS, diag)))
    return s;
  if (x->ndim < 1 || x->ndim > TFL_MAX_DIMS)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input has %d dims, expected 1..%d", x->ndim, TFL_MAX_DIMS);
  mirror_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "MIRROR_PAD state");
  *state = st;
  st->reflect = n->p.mirror_pad.mode == 0;
  if (is_const(pt)) {
    if ((s = mirror_pads(g, n, st->reflect, st->pad, diag))) return s;
    st->planned = true;
  }
  return TFL_OK;
}

/* the source index of output index i (mirror of at most one reflection) */
static int64_t mirror_src(int64_t i, int64_t lo, int64_t size, bool reflect)
{
  int64_t j = i - lo;
  if (j < 0) return reflect ? -j : -j - 1;
  if (j >= size) return reflect ? 2 * size - 2 - j : 2 * size - 1 - j;
  return j;
}

static tfl_status mirror_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const mirror_state *st = state;
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  int64_t local[2 * TFL_MAX_DIMS];
  const int64_t *pad = st->pad;
  (void)ctx;
  if (!st->planned) {
    tfl_status s = mirror_pads(g, n, st->reflect, local, diag);
    if (s) return s;
    pad = local;
  }
  const int nd = x->ndim, last = nd - 1;
  const size_t es = tfl_type_size(x->type);
  int64_t xs[TFL_MAX_DIMS];
  lay_strides(x->dims, nd, xs);
  const int64_t w = x->dims[last], lo = pad[2 * last], ow = y->dims[last];
  const uint8_t *src = x->data;
  uint8_t *dst = y->data;
  const size_t rows = tfl_tensor_count(y) / (size_t)ow;
  int64_t idx[TFL_MAX_DIMS] = {0};
  for (size_t r = 0; r < rows; r++, dst += (size_t)ow * es) {
    int64_t off = 0;
    for (int d = 0; d < last; d++) off += mirror_src(idx[d], pad[2 * d], x->dims[d], st->reflect) * xs[d];
    const uint8_t *row = src + (size_t)off * es;
    for (int64_t i = 0; i < lo; i++)
      memcpy(dst + (size_t)i * es, row + (size_t)mirror_src(i, lo, w, st->reflect) * es, es);
    memcpy(dst + (size_t)lo * es, row, (size_t)w * es);
    for (int64_t i = lo + w; i < ow; i++)
      memcpy(dst + (size_t)i * es, row + (size_t)mirror_src(i, lo, w, st->reflect) * es, es);
    for (int d = last - 1; d >= 0; d--) { /* odometer over the output's outer dims */
      if (++idx[d] < y->dims[d]) break;
      idx[d] = 0;
    }
  }
  return TFL_OK;
}

/* ---- SPACE_TO_DEPTH ---- */

static tfl_status s2d_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  const int bs = n->p.d2s.block_size;
  tfl_status s;
  (void)state;
  if ((s = lay_check_types(g, n, x, y, TYPES_S2D, diag)) || (s = cpu_check_tensor(g, n, x, "input", 4, diag)) ||
      (s = cpu_check_tensor(g, n, y, "output", 4, diag)))
    return s;
  if (bs < 1 || x->dims[1] % bs || x->dims[2] % bs)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "block size %d does not divide height %d and width %d", bs,
                        x->dims[1], x->dims[2]);
  if (y->dims[0] != x->dims[0] || y->dims[1] != x->dims[1] / bs || y->dims[2] != x->dims[2] / bs ||
      (int64_t)y->dims[3] != (int64_t)x->dims[3] * bs * bs)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output is %dx%dx%dx%d, expected %dx%dx%dx%lld", y->dims[0],
                        y->dims[1], y->dims[2], y->dims[3], x->dims[0], x->dims[1] / bs, x->dims[2] / bs,
                        (long long)x->dims[3] * bs * bs);
  return TFL_OK; /* quantized values are moved as they are: TFLite checks no scales here */
}

static tfl_status s2d_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  const size_t es = tfl_type_size(x->type), run = (size_t)x->dims[3] * es;
  const int bs = n->p.d2s.block_size, ih = x->dims[1], iw = x->dims[2];
  const uint8_t *src = x->data;
  uint8_t *dst = y->data;
  (void)state;
  (void)ctx;
  (void)diag;
  /* output written in order: b, h, w, dy, dx */
  for (int b = 0; b < x->dims[0]; b++)
    for (int h = 0; h < ih / bs; h++)
      for (int w = 0; w < iw / bs; w++)
        for (int dy = 0; dy < bs; dy++)
          for (int dx = 0; dx < bs; dx++, dst += run) {
            size_t pix = ((size_t)b * ih + (size_t)h * bs + dy) * iw + (size_t)w * bs + dx;
            memcpy(dst, src + pix * run, run);
          }
  return TFL_OK;
}

/* ---- SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND ---- */

typedef struct {
  int m;                                /* spatial dims */
  int64_t block[TFL_MAX_DIMS], lo[TFL_MAX_DIMS];  /* block shape; leading padding or crop */
  bool planned;
  uint8_t pad_value[8];                 /* one element (SPACE_TO_BATCH_ND) */
} sb_state;

static tfl_status sb_plan(const tfl_graph *g, const tfl_node *n, sb_state *st, tfl_diag *diag)
{
  const bool to_batch = n->op == TFL_OP_SPACE_TO_BATCH_ND;
  const tfl_tensor *x = cpu_in(g, n, INPUT), *bt = cpu_in(g, n, PARAM), *pt = cpu_in(g, n, PARAM2);
  const tfl_tensor *y = cpu_out(g, n, OUTPUT);
  const int m = (int)tfl_tensor_count(bt);
  const char *what = to_batch ? "paddings" : "crops";
  if (m < 1 || m > x->ndim - 1 || (int)tfl_tensor_count(pt) != 2 * m || y->ndim != x->ndim)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "block_shape has %d values, %s %zu; input has %d dims, output %d",
                        m, what, tfl_tensor_count(pt), x->ndim, y->ndim);
  int64_t prod = 1;
  st->m = m;
  for (int i = 0; i < m; i++) {
    int64_t b = lay_index(bt, (size_t)i), lo = lay_index(pt, 2 * (size_t)i), hi = lay_index(pt, 2 * (size_t)i + 1);
    int64_t in = x->dims[1 + i], out = y->dims[1 + i];
    bool ok = b >= 1 && b <= INT32_MAX && lo >= 0 && hi >= 0 && lo <= INT32_MAX && hi <= INT32_MAX;
    if (ok) ok = to_batch ? (in + lo + hi == out * b) : (in * b - lo - hi == out);
    if (!ok)
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "dim %d: block %lld, %s (%lld, %lld), input %lld, output %lld",
                          1 + i, (long long)b, what, (long long)lo, (long long)hi, (long long)in, (long long)out);
    st->block[i] = b;
    st->lo[i] = lo;
    prod *= b;
    if (prod > INT32_MAX) return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "block_shape's product exceeds %d", INT32_MAX);
  }
  const int64_t big = to_batch ? y->dims[0] : x->dims[0], small = to_batch ? x->dims[0] : y->dims[0];
  if (big != small * prod)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "batch %lld, expected %lld x block size %lld", (long long)big,
                        (long long)small, (long long)prod);
  for (int d = 1 + m; d < x->ndim; d++)
    if (x->dims[d] != y->dims[d])
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "dim %d is %d in the input, %d in the output", d, x->dims[d],
                          y->dims[d]);
  return TFL_OK;
}

static tfl_status sb_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  const tfl_tensor *bt = cpu_in(g, n, PARAM), *pt = cpu_in(g, n, PARAM2);
  const bool to_batch = n->op == TFL_OP_SPACE_TO_BATCH_ND;
  tfl_status s;
  if ((s = lay_check_types(g, n, x, y, LAY_ALL_TYPES, diag)) ||
      (s = lay_check_index(g, n, bt, "block_shape", TFL_MAX_DIMS, diag)) ||
      (s = lay_check_index(g, n, pt, to_batch ? "paddings" : "crops", 2 * TFL_MAX_DIMS, diag)))
    return s;
  if (x->ndim < 2 || x->ndim > TFL_MAX_DIMS)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input has %d dims, expected 2..%d", x->ndim, TFL_MAX_DIMS);
  if (cpu_is_q8(x->type) || x->type == TFL_TYPE_INT16) {
    if ((s = lay_check_same_quant(g, n, x, y, "input", diag))) return s;
    if (x->type == TFL_TYPE_INT16 && cpu_zero_point(x, 0) != 0)
      return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "int16 zero point %d, must be 0", (int)cpu_zero_point(x, 0));
  }
  sb_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "%s state", tfl_op_name(n->op));
  *state = st;
  /* TFLite pads a quantized tensor with its zero point (real 0) */
  int32_t zp = y->q.n ? cpu_zero_point(y, 0) : 0;
  switch (y->type) {
  case TFL_TYPE_INT8: {
    int8_t v = (int8_t)zp;
    memcpy(st->pad_value, &v, 1);
    break;
  }
  case TFL_TYPE_UINT8: st->pad_value[0] = (uint8_t)zp; break;
  case TFL_TYPE_INT16: {
    int16_t v = (int16_t)zp;
    memcpy(st->pad_value, &v, 2);
    break;
  }
  default: break; /* zero bytes: 0, 0.0f, false */
  }
  if (is_const(bt) && is_const(pt)) {
    if ((s = sb_plan(g, n, st, diag))) return s;
    st->planned = true;
  }
  return TFL_OK;
}

static tfl_status sb_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const sb_state *stp = state;
  sb_state local;
  (void)ctx;
  if (!stp->planned) {
    local = *stp;
    tfl_status s = sb_plan(g, n, &local, diag);
    if (s) return s;
    stp = &local;
  }
  const bool to_batch = n->op == TFL_OP_SPACE_TO_BATCH_ND;
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  /* "space" is the tensor with the small batch and the large spatial dims */
  const tfl_tensor *space = to_batch ? x : y, *batch = to_batch ? y : x;
  const int m = stp->m;
  const size_t es = tfl_type_size(x->type);
  size_t run = es; /* the dims after the spatial ones: one contiguous run per pixel */
  for (int d = 1 + m; d < x->ndim; d++) run *= (size_t)x->dims[d];
  int64_t ss[TFL_MAX_DIMS]; /* space tensor pixel strides over the spatial dims */
  int64_t s = 1;
  for (int i = m - 1; i >= 0; i--) {
    ss[i] = s;
    s *= space->dims[1 + i];
  }
  const int64_t space_pixels = s, nb = space->dims[0];
  size_t batch_pixels = 1;
  for (int i = 0; i < m; i++) batch_pixels *= (size_t)batch->dims[1 + i];
  const uint8_t *src = x->data;
  uint8_t *dst = y->data;
  /* walk the batch-side tensor in order: batch k * nb + b, then its pixels */
  for (int64_t ob = 0; ob < batch->dims[0]; ob++) {
    const int64_t b = ob % nb;
    int64_t k = ob / nb, koff[TFL_MAX_DIMS];
    for (int i = m - 1; i >= 0; i--) {
      koff[i] = k % stp->block[i];
      k /= stp->block[i];
    }
    int64_t idx[TFL_MAX_DIMS] = {0};
    for (size_t p = 0; p < batch_pixels; p++) {
      int64_t sp = 0; /* the space tensor's pixel, or -1 in the padding / crop */
      for (int i = 0; i < m && sp >= 0; i++) {
        int64_t c = idx[i] * stp->block[i] + koff[i] - stp->lo[i];
        if (c < 0 || c >= space->dims[1 + i]) sp = -1;
        else sp += c * ss[i];
      }
      const size_t bo = ((size_t)ob * batch_pixels + p) * run, so = (size_t)(b * space_pixels + sp) * run;
      if (to_batch && sp < 0) {
        for (size_t e = 0; e < run; e += es) memcpy(dst + bo + e, stp->pad_value, es);
      } else if (to_batch) {
        memcpy(dst + bo, src + so, run);
      } else if (sp >= 0) {
        memcpy(dst + so, src + bo, run);
      }
      for (int i = m - 1; i >= 0; i--) {
        if (++idx[i] < batch->dims[1 + i]) break;
        idx[i] = 0;
      }
    }
  }
  return TFL_OK;
}

const cpu_kernel cpu_k_mirror_pad = {mirror_prepare, mirror_eval, release, LAY_ALL_TYPES, 0};
const cpu_kernel cpu_k_space_to_depth = {s2d_prepare, s2d_eval, NULL, TYPES_S2D, 0};
const cpu_kernel cpu_k_space_to_batch_nd = {sb_prepare, sb_eval, release, LAY_ALL_TYPES, 0};
const cpu_kernel cpu_k_batch_to_space_nd = {sb_prepare, sb_eval, release, LAY_ALL_TYPES, 0};
