/* strided_slice.c - STRIDED_SLICE with NumPy semantics as TFLite implements them:
 * begin/end/strides int32 (or int64) tensors, constant or computed (then resolved at each
 * eval); begin/end masks, shrink_axis, new_axis and ellipsis masks; `offset` (end is
 * relative to begin). Any fixed-size type.
 *
 * Resolution (TFLite's order): count the new axes outside the ellipsis, expand the
 * ellipsis to cover the dims the spec leaves out, map each effective dim back to its spec
 * entry, then per dim: negative begin += size, clamp to [0, size] (stride > 0) or
 * [-1, size-1] (stride < 0), begin_mask overrides; end the same, after `offset` adds the
 * begin; shrink_axis takes one element at begin. New axes are size-1 output dims that
 * move nothing, so the copy iterates input dims only: start, count and step each, with a
 * memcpy when the innermost step is 1.
 */
#include "eltwise_common.h"

#include <string.h>

enum { INPUT = 0, BEGIN = 1, END = 2, STRIDES = 3 };
enum { OUTPUT = 0 };

#define MAX_SPEC 16 /* effective dims: input dims plus new axes */

typedef struct {
  int ndim;                          /* input dims */
  int64_t start[TFL_MAX_DIMS], count[TFL_MAX_DIMS], step[TFL_MAX_DIMS];
  size_t out_count;
} slice_plan;

typedef struct {
  size_t esize;
  slice_plan plan;
  bool planned;                      /* begin/end/strides constant: plan made in prepare */
} slice_state;

static void release(void *state)
{
  free(state);
}

static int64_t read_index(const tfl_tensor *t, int i)
{
  return t->type == TFL_TYPE_INT64 ? ((const int64_t *)t->data)[i] : ((const int32_t *)t->data)[i];
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
  return v < lo ? lo : (v > hi ? hi : v);
}

static tfl_status make_plan(const tfl_graph *g, const tfl_node *n, slice_plan *pl, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  const tfl_tensor *tb = cpu_in(g, n, BEGIN), *te = cpu_in(g, n, END), *ts = cpu_in(g, n, STRIDES);
  const tfl_strided_slice_params *p = &n->p.slice;
  int spec_n = (int)tfl_tensor_count(tb), in_nd = x->ndim;
  if (spec_n > MAX_SPEC)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%d slice specs, at most %d", spec_n, MAX_SPEC);
  int add_axes = 0;
  for (int i = 0; i < spec_n; i++)
    if (!(p->ellipsis_mask & (1 << i)) && (p->new_axis_mask & (1 << i))) add_axes++;
  int eff_n = in_nd + add_axes;
  if (eff_n > MAX_SPEC)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%d effective dims, at most %d", eff_n, MAX_SPEC);

  /* which effective dims the ellipsis covers, and which are new axes */
  bool ell[MAX_SPEC] = { false }, newax[MAX_SPEC] = { false };
  int ell_start = eff_n, expanded = 0;
  for (int i = 0; i < eff_n;) {
    if (p->ellipsis_mask & (1 << i)) {
      ell_start = i;
      int e = i + 1 + add_axes + in_nd - spec_n;
      if (e > eff_n) e = eff_n;
      if (e < i + 1) e = i + 1;
      expanded = e - i - 1;
      for (; i < e; i++) ell[i] = true;
      continue;
    }
    if (i - expanded >= 0 && (p->new_axis_mask & (1 << (i - expanded)))) newax[i] = true;
    i++;
  }

  int d_in = 0;
  size_t out_count = 1;
  pl->ndim = in_nd;
  for (int i = 0; i < eff_n; i++) {
    if (newax[i] && !ell[i]) continue; /* a size-1 output dim; no input dim */
    if (d_in >= in_nd)
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "slice spec has more dims than the input's %d", in_nd);
    int64_t size = x->dims[d_in], start, stop, stride = 1;
    bool bmask, emask, shrink = false;
    if (ell[i] || i >= spec_n + expanded) {
      start = 0;
      stop = 0;
      bmask = emask = true;
    } else {
      int o = i - (i > ell_start ? expanded : 0); /* spec entry of effective dim i */
      start = read_index(tb, o);
      stop = read_index(te, o);
      stride = read_index(ts, o);
      bmask = p->begin_mask & (1 << o);
      emask = p->end_mask & (1 << o);
      shrink = p->shrink_axis_mask & (1 << o);
    }
    if (stride == 0) return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "dim %d: stride is %d", d_in, 0);
    int64_t raw_start = start;
    if (start < 0) start += size;
    start = stride > 0 ? clamp64(start, 0, size) : clamp64(start, -1, size - 1);
    if (bmask) start = stride > 0 ? 0 : size - 1;
    if (shrink) {
      stop = start + 1;
      stride = 1;
    } else {
      if (p->offset) stop += raw_start < 0 ? raw_start + size : raw_start;
      if (stop < 0) stop += size;
      stop = stride > 0 ? clamp64(stop, 0, size) : clamp64(stop, -1, size - 1);
      if (emask) stop = stride > 0 ? size : -1;
    }
    int64_t cnt = stride > 0 ? (stop - start + stride - 1) / stride : (start - stop - stride - 1) / -stride;
    if (cnt < 0) cnt = 0;
    if (shrink && (start < 0 || start >= size))
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "dim %d: shrink index %lld out of range %lld", d_in,
                          (long long)start, (long long)size);
    pl->start[d_in] = start;
    pl->count[d_in] = cnt;
    pl->step[d_in] = stride;
    out_count *= (size_t)cnt;
    d_in++;
  }
  if (d_in != in_nd)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "slice resolves %d of the input's %d dims", d_in, in_nd);
  pl->out_count = out_count;
  if (tfl_tensor_count(y) != out_count)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output has %zu elements, the slice gives %zu",
                        tfl_tensor_count(y), out_count);
  return TFL_OK;
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  const tfl_tensor *tb = cpu_in(g, n, BEGIN), *te = cpu_in(g, n, END), *ts = cpu_in(g, n, STRIDES);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "input", -1, diag)) || (s = cpu_check_tensor(g, n, tb, "begin", 1, diag)) ||
      (s = cpu_check_tensor(g, n, te, "end", 1, diag)) || (s = cpu_check_tensor(g, n, ts, "strides", 1, diag)) ||
      (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  if (x->type != y->type)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input %s, output %s: types differ",
                        tfl_type_name(x->type), tfl_type_name(y->type));
  if (tfl_type_size(x->type) == 0)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "type %s", tfl_type_name(x->type));
  const tfl_tensor *idx[3] = { tb, te, ts };
  for (int i = 0; i < 3; i++)
    if (idx[i]->type != TFL_TYPE_INT32 && idx[i]->type != TFL_TYPE_INT64)
      return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "index input %d is %s, expected INT32", i + 1,
                          tfl_type_name(idx[i]->type));
  if (te->dims[0] != tb->dims[0] || ts->dims[0] != tb->dims[0])
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "begin, end, strides have %d, %d, %d entries",
                        tb->dims[0], te->dims[0], ts->dims[0]);
  slice_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "strided slice state");
  *state = st;
  st->esize = tfl_type_size(x->type);
  if (tb->is_const && te->is_const && ts->is_const) {
    if ((s = make_plan(g, n, &st->plan, diag))) return s;
    st->planned = true;
  }
  return TFL_OK;
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const slice_state *st = state;
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  slice_plan local;
  const slice_plan *pl = &st->plan;
  (void)ctx;
  if (!st->planned) {
    tfl_status s = make_plan(g, n, &local, diag);
    if (s) return s;
    pl = &local;
  }
  if (pl->out_count == 0) return TFL_OK;
  int nd = pl->ndim;
  size_t es = st->esize;
  if (nd == 0) {
    memcpy(y->data, x->data, es);
    return TFL_OK;
  }
  int64_t stride[TFL_MAX_DIMS]; /* input element strides */
  int64_t s = 1;
  for (int d = nd - 1; d >= 0; d--) {
    stride[d] = s;
    s *= x->dims[d];
  }
  const uint8_t *src = x->data;
  uint8_t *dst = y->data;
  int last = nd - 1;
  int64_t idx[TFL_MAX_DIMS] = { 0 };
  size_t rows = pl->out_count / (size_t)pl->count[last];
  for (size_t r = 0; r < rows; r++) {
    int64_t off = 0;
    for (int d = 0; d < last; d++) off += (pl->start[d] + idx[d] * pl->step[d]) * stride[d];
    int64_t first = off + pl->start[last];
    if (pl->step[last] == 1) {
      memcpy(dst, src + first * (int64_t)es, (size_t)pl->count[last] * es);
      dst += (size_t)pl->count[last] * es;
    } else {
      for (int64_t k = 0; k < pl->count[last]; k++, dst += es)
        memcpy(dst, src + (first + k * pl->step[last]) * (int64_t)es, es);
    }
    for (int d = last - 1; d >= 0; d--) { /* odometer over the outer dims */
      if (++idx[d] < pl->count[d]) break;
      idx[d] = 0;
    }
  }
  return TFL_OK;
}

const cpu_kernel cpu_k_strided_slice = {prepare, eval, release, CPU_ALL_TYPES, 0};
