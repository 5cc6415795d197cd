/* layout_misc.c - REVERSE_SEQUENCE, MATRIX_DIAG, MATRIX_SET_DIAG and DYNAMIC_UPDATE_SLICE,
 * with TensorFlow Lite's semantics and type tables (layout_common.h has the shared checks).
 *
 * REVERSE_SEQUENCE: for batch b (index along batch_dim), the first seq_lengths[b] entries
 *   along seq_dim are reversed, the rest copied; lengths are checked at each eval (they
 *   may be computed).
 * MATRIX_DIAG: [..., N] -> [..., N, N] with the values on the diagonal, zero bytes elsewhere.
 * MATRIX_SET_DIAG: input [..., M, N] with its diagonal replaced by [..., min(M, N)].
 * DYNAMIC_UPDATE_SLICE (XLA's semantics): the operand with the update written at the start
 *   indices, each clamped to [0, operand dim - update dim] so the update always fits.
 */
#include "kernels.h"

#include "layout_common.h"

#include <stdlib.h>
#include <string.h>

enum { INPUT = 0, PARAM = 1 };
enum { OUTPUT = 0 };

#define TYPES_REVSEQ (LAY_T(TFL_TYPE_FLOAT32) | LAY_T(TFL_TYPE_UINT8) | LAY_T(TFL_TYPE_INT16) | \
                                     LAY_T(TFL_TYPE_INT32) | LAY_T(TFL_TYPE_INT64))

/* TFLite's MATRIX_DIAG / MATRIX_SET_DIAG write other types (bool) as float32: refused */
#define TYPES_DIAG (LAY_T(TFL_TYPE_FLOAT32) | LAY_T(TFL_TYPE_INT8) | LAY_T(TFL_TYPE_UINT8) | \
                                   LAY_T(TFL_TYPE_INT16) | LAY_T(TFL_TYPE_INT32) | LAY_T(TFL_TYPE_INT64))

static tfl_status same_shape(const tfl_graph *g, const tfl_node *n, const tfl_tensor *x, const tfl_tensor *y,
                             tfl_diag *diag)
{
  if (x->ndim != y->ndim || memcmp(x->dims, y->dims, sizeof(int32_t) * (size_t)x->ndim))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output shape differs from the input's (%d and %d dims)", y->ndim,
                        x->ndim);
  return TFL_OK;
}

/* ---- REVERSE_SEQUENCE ---- */

static tfl_status revseq_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT), *len = cpu_in(g, n, PARAM);
  const int sd = n->p.reverse_seq.seq_dim, bd = n->p.reverse_seq.batch_dim;
  tfl_status s;
  (void)state;
  if ((s = lay_check_types(g, n, x, y, TYPES_REVSEQ, diag)) || (s = same_shape(g, n, x, y, diag)) ||
      (s = lay_check_index(g, n, len, "seq_lengths", INT32_MAX, diag)))
    return s;
  if (sd < 0 || bd < 0 || sd >= x->ndim || bd >= x->ndim || sd == bd)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "seq_dim %d, batch_dim %d: must differ and be in 0..%d", sd, bd,
                        x->ndim - 1);
  if (len->ndim != 1 || len->dims[0] != x->dims[bd])
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "seq_lengths has %zu values, batch dim %d has %d",
                        tfl_tensor_count(len), bd, x->dims[bd]);
  return TFL_OK;
}

static tfl_status revseq_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT), *len = cpu_in(g, n, PARAM);
  const int sd = n->p.reverse_seq.seq_dim, bd = n->p.reverse_seq.batch_dim, nd = x->ndim;
  (void)state;
  (void)ctx;
  for (int32_t b = 0; b < x->dims[bd]; b++) {
    int64_t l = lay_index(len, (size_t)b);
    if (l < 0 || l > x->dims[sd])
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "seq_lengths[%d] is %lld, seq dim %d has %d", (int)b,
                          (long long)l, sd, x->dims[sd]);
  }
  int64_t xs[TFL_MAX_DIMS];
  lay_strides(x->dims, nd, xs);
  const size_t es = tfl_type_size(x->type), count = tfl_tensor_count(x);
  const uint8_t *src = x->data;
  uint8_t *dst = y->data;
  int64_t idx[TFL_MAX_DIMS] = {0};
  for (size_t e = 0; e < count; e++, dst += es) {
    int64_t l = lay_index(len, (size_t)idx[bd]), off = 0;
    for (int d = 0; d < nd; d++) off += (d == sd && idx[d] < l ? l - 1 - idx[d] : idx[d]) * xs[d];
    memcpy(dst, src + (size_t)off * es, es);
    for (int d = nd - 1; d >= 0; d--) {
      if (++idx[d] < x->dims[d]) break;
      idx[d] = 0;
    }
  }
  return TFL_OK;
}

/* ---- MATRIX_DIAG, MATRIX_SET_DIAG ---- */

static tfl_status diag_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  (void)state;
  if ((s = lay_check_types(g, n, x, y, TYPES_DIAG, diag))) return s;
  if (n->op == TFL_OP_MATRIX_DIAG) {
    bool ok = x->ndim >= 1 && y->ndim == x->ndim + 1 && y->dims[x->ndim] == x->dims[x->ndim - 1] &&
              !memcmp(x->dims, y->dims, sizeof(int32_t) * (size_t)x->ndim);
    if (!ok)
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output (%d dims) is not [..., N, N] of the diagonal's [..., N] "
                          "(%d dims)", y->ndim, x->ndim);
    return TFL_OK;
  }
  const tfl_tensor *d = cpu_in(g, n, PARAM);
  if ((s = same_shape(g, n, x, y, diag)) || (s = cpu_check_tensor(g, n, d, "diagonal", x->ndim - 1, diag))) return s;
  if (x->ndim < 2)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input has %d dims, expected at least 2", x->ndim);
  if (d->type != x->type)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "diagonal is %s, input %s: types differ",
                        tfl_type_name(d->type), tfl_type_name(x->type));
  const int32_t mn = x->dims[x->ndim - 2] < x->dims[x->ndim - 1] ? x->dims[x->ndim - 2] : x->dims[x->ndim - 1];
  bool ok = d->dims[d->ndim - 1] == mn && !memcmp(x->dims, d->dims, sizeof(int32_t) * (size_t)(x->ndim - 2));
  if (!ok)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "diagonal is not [..., %d] with the input's leading dims", (int)mn);
  return TFL_OK;
}

static tfl_status matrix_diag_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  const size_t es = tfl_type_size(x->type), nn = (size_t)x->dims[x->ndim - 1];
  const size_t mats = tfl_tensor_count(x) / nn;
  const uint8_t *src = x->data;
  uint8_t *dst = y->data;
  (void)state;
  (void)ctx;
  (void)diag;
  memset(dst, 0, y->bytes);
  for (size_t m = 0; m < mats; m++)
    for (size_t i = 0; i < nn; i++) memcpy(dst + ((m * nn + i) * nn + i) * es, src + (m * nn + i) * es, es);
  return TFL_OK;
}

static tfl_status matrix_set_diag_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx,
                                       tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *d = cpu_in(g, n, PARAM), *y = cpu_out(g, n, OUTPUT);
  const size_t es = tfl_type_size(x->type), rows = (size_t)x->dims[x->ndim - 2], cols = (size_t)x->dims[x->ndim - 1];
  const size_t k = rows < cols ? rows : cols, mats = tfl_tensor_count(x) / (rows * cols);
  const uint8_t *dv = d->data;
  uint8_t *dst = y->data;
  (void)state;
  (void)ctx;
  (void)diag;
  if (x->data != y->data) memmove(dst, x->data, y->bytes);
  for (size_t m = 0; m < mats; m++)
    for (size_t i = 0; i < k; i++) memcpy(dst + ((m * rows + i) * cols + i) * es, dv + (m * k + i) * es, es);
  return TFL_OK;
}

/* ---- DYNAMIC_UPDATE_SLICE ---- */

enum { UPDATE = 1, START = 2 };

static tfl_status dus_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *u = cpu_in(g, n, UPDATE), *y = cpu_out(g, n, OUTPUT);
  const tfl_tensor *st = cpu_in(g, n, START);
  tfl_status s;
  (void)state;
  if ((s = lay_check_types(g, n, x, y, LAY_ALL_TYPES, diag)) || (s = same_shape(g, n, x, y, diag)) ||
      (s = cpu_check_tensor(g, n, u, "update", x->ndim, diag)) ||
      (s = lay_check_index(g, n, st, "start indices", TFL_MAX_DIMS, diag)))
    return s;
  if (u->type != x->type)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "update is %s, operand %s: types differ",
                        tfl_type_name(u->type), tfl_type_name(x->type));
  if (st->ndim != 1 || st->dims[0] != x->ndim)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "start indices have %zu values, operand has %d dims",
                        tfl_tensor_count(st), x->ndim);
  for (int d = 0; d < x->ndim; d++)
    if (u->dims[d] > x->dims[d])
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "update dim %d is %d, larger than the operand's %d", d,
                          u->dims[d], x->dims[d]);
  return TFL_OK;
}

static tfl_status dus_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *u = cpu_in(g, n, UPDATE), *y = cpu_out(g, n, OUTPUT);
  const tfl_tensor *st = cpu_in(g, n, START);
  const int nd = x->ndim;
  (void)state;
  (void)diag;
  if (x->data != y->data) memmove(y->data, x->data, y->bytes);
  int64_t ys[TFL_MAX_DIMS], us[TFL_MAX_DIMS], off = 0;
  lay_strides(y->dims, nd, ys);
  lay_strides(u->dims, nd, us);
  lay_copy c;
  c.es = tfl_type_size(x->type);
  c.nd = nd;
  for (int d = 0; d < nd; d++) {
    int64_t s = lay_index(st, (size_t)d), hi = (int64_t)x->dims[d] - u->dims[d];
    s = s < 0 ? 0 : (s > hi ? hi : s); /* XLA clamps so the update fits */
    off += s * ys[d];
    c.count[d] = u->dims[d];
    c.ss[d] = us[d] * (int64_t)c.es;
    c.ds[d] = ys[d] * (int64_t)c.es;
  }
  lay_copy_plan(&c);
  lay_copy_run(&c, (uint8_t *)y->data + off * (int64_t)c.es, u->data, ctx);
  return TFL_OK;
}

const cpu_kernel cpu_k_reverse_sequence = {revseq_prepare, revseq_eval, NULL, TYPES_REVSEQ, 0};
const cpu_kernel cpu_k_matrix_diag = {diag_prepare, matrix_diag_eval, NULL, TYPES_DIAG, 0};
const cpu_kernel cpu_k_matrix_set_diag = {diag_prepare, matrix_set_diag_eval, NULL, TYPES_DIAG, 0};
const cpu_kernel cpu_k_dynamic_update_slice = {dus_prepare, dus_eval, NULL, LAY_ALL_TYPES, 0};
