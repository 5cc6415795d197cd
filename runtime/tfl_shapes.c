/* tfl_shapes.c - output shapes of every node from its inputs and params.
 *
 * Nodes are visited in execution order, so each node sees its inputs' final shapes.
 * The computed shape is compared with the one the file declares: an empty declared
 * shape (TFLite writes [] for outputs sized at run time, e.g. detection post-process)
 * is filled in; any other difference is an error naming node, op and tensor.
 * Shapes that come from a non-constant tensor (a dynamic RESHAPE shape) cannot be
 * computed here: the declared shape is kept then, and must not be empty.
 * Dims the file's shape_signature marks -1 (tfl_tensor.dyn_dims: the converter did not
 * know them, an unknown batch) hold a guess: a computed shape of the same rank that agrees
 * on every other dim replaces it.
 */
#include "tfl_shapes_priv.h"

#include <stdio.h>
#include <string.h>

typedef tfl_shape shape;
typedef tfl_inf_kind inf_kind;
#define INF_OK TFL_INF_OK
#define INF_KEEP TFL_INF_KEEP
#define NODE_ERR TFL_SHAPE_ERR
#define in_t tfl_shape_in
#define shape_of tfl_shape_of
#define const_ints tfl_shape_const_ints
#define broadcast tfl_shape_broadcast

static const char *shape_str(const int32_t *d, int ndim, char *buf, size_t len)
{
  size_t k = 0;
  k += (size_t)snprintf(buf + k, len - k, "[");
  for (int i = 0; i < ndim && k < len; i++)
    k += (size_t)snprintf(buf + k, len - k, "%s%d", i ? "," : "", d[i]);
  if (k < len) snprintf(buf + k, len - k, "]");
  return buf;
}

/* ---- strided slice, with TensorFlow's sparse -> dense spec expansion ---------- */

enum { GATHER_NEW_AXIS = -1, GATHER_SHRINK = -2 };

static tfl_status slice_shape(const tfl_graph *g, const tfl_node *n, int ni, shape *out,
                              inf_kind *kind, tfl_diag *diag)
{
  const tfl_tensor *x = in_t(g, n, 0);
  int64_t begin[TFL_MAX_DIMS * 2], end[TFL_MAX_DIMS * 2], strides[TFL_MAX_DIMS * 2];
  int nb = 0, ne = 0, ns = 0;
  if (!const_ints(in_t(g, n, 1), begin, 2 * TFL_MAX_DIMS, &nb) ||
      !const_ints(in_t(g, n, 2), end, 2 * TFL_MAX_DIMS, &ne) ||
      !const_ints(in_t(g, n, 3), strides, 2 * TFL_MAX_DIMS, &ns)) {
    *kind = INF_KEEP;
    return TFL_OK;
  }
  if (nb != ne || nb != ns)
    return NODE_ERR(TFL_ERR_SHAPE, "begin, end and strides have %d, %d and %d values", nb, ne, ns);
  const tfl_strided_slice_params *p = &n->p.slice;
  int sparse_n = nb;
  int ellipsis = p->ellipsis_mask;
  /* no ellipsis: an implicit one at the end keeps the remaining dims whole */
  bool implicit = (ellipsis & ((1 << sparse_n) - 1)) == 0;
  if (implicit) ellipsis |= 1 << sparse_n;
  int total = sparse_n + (implicit ? 1 : 0);

  int new_after_ellipsis = 0;
  bool seen = false;
  for (int i = 0; i < total; i++) {
    if ((ellipsis >> i) & 1) seen = true;
    else if (seen && ((p->new_axis_mask >> i) & 1)) new_after_ellipsis++;
  }

  int64_t db[TFL_MAX_DIMS], de[TFL_MAX_DIMS], ds[TFL_MAX_DIMS];
  bool bmask[TFL_MAX_DIMS], emask[TFL_MAX_DIMS], shrink[TFL_MAX_DIMS];
  int gather[4 * TFL_MAX_DIMS], ng = 0;
  int full = 0, dense_n = x->ndim;
  for (int i = 0; i < total; i++) {
    if ((ellipsis >> i) & 1) {
      int next = dense_n - (sparse_n - i) + 1 + new_after_ellipsis;
      if (next > dense_n) next = dense_n;
      for (; full < next; full++) {
        db[full] = de[full] = 0;
        ds[full] = 1;
        bmask[full] = emask[full] = true;
        shrink[full] = false;
        gather[ng++] = full;
      }
    } else if ((p->new_axis_mask >> i) & 1) {
      gather[ng++] = GATHER_NEW_AXIS;
    } else {
      if (full >= dense_n)
        return NODE_ERR(TFL_ERR_SHAPE, "slice spec indexes %d dims, input has %d", full + 1, dense_n);
      db[full] = begin[i];
      de[full] = end[i];
      ds[full] = strides[i];
      bmask[full] = (p->begin_mask >> i) & 1;
      emask[full] = (p->end_mask >> i) & 1;
      shrink[full] = (p->shrink_axis_mask >> i) & 1;
      gather[ng++] = shrink[full] ? GATHER_SHRINK : full;
      full++;
    }
  }
  for (; full < dense_n; full++) { /* dims the spec did not reach stay whole */
    db[full] = de[full] = 0;
    ds[full] = 1;
    bmask[full] = emask[full] = true;
    shrink[full] = false;
    gather[ng++] = full;
  }

  int32_t size[TFL_MAX_DIMS];
  for (int d = 0; d < dense_n; d++) {
    int64_t dim = x->dims[d], st = ds[d], b = db[d], e = de[d];
    if (st == 0) return NODE_ERR(TFL_ERR_SHAPE, "stride of dim %d is 0", d);
    if (p->offset && !emask[d]) e += b;
    if (shrink[d]) {
      int64_t bf = b < 0 ? b + dim : b;
      if (bf < 0 || bf >= dim)
        return NODE_ERR(TFL_ERR_SHAPE, "shrink index %lld out of range for dim %d of size %lld",
                        (long long)b, d, (long long)dim);
      size[d] = 1;
      continue;
    }
    int64_t lo = st > 0 ? 0 : -1, hi = st > 0 ? dim : dim - 1;
    if (bmask[d]) b = st > 0 ? 0 : dim - 1;
    else {
      if (b < 0) b += dim;
      b = b < lo ? lo : (b > hi ? hi : b);
    }
    if (emask[d]) e = st > 0 ? dim : -1;
    else {
      if (e < 0) e += dim;
      e = e < lo ? lo : (e > hi ? hi : e);
    }
    int64_t sz = st > 0 ? (e - b + st - 1) / st : (b - e + (-st) - 1) / (-st);
    size[d] = (int32_t)(sz < 0 ? 0 : sz);
  }
  out->ndim = 0;
  for (int i = 0; i < ng; i++) {
    if (gather[i] == GATHER_SHRINK) continue;
    if (out->ndim >= TFL_MAX_DIMS)
      return NODE_ERR(TFL_ERR_UNSUPPORTED, "output has more than %d dims", TFL_MAX_DIMS);
    out->d[out->ndim++] = gather[i] == GATHER_NEW_AXIS ? 1 : size[gather[i]];
  }
  return TFL_OK;
}

/* ---- reshape ------------------------------------------------------------------ */

/* How shapes are being inferred. Passed down explicitly (no file-scope state). */
typedef struct {
  bool resizing;       /* computed shapes replace declared ones (tfl_pass_set_batch) */
  bool follow_batch;   /* the graph runs a batch > 1 (tfl_graph.batch): a reshape whose
                          constant target starts with the old batch of 1 follows it */
  bool fold;           /* each node's shape arithmetic folded right after its shapes */
} infer_ctx;

static tfl_status reshape_shape(const tfl_graph *g, const tfl_node *n, int ni, shape *out,
                                inf_kind *kind, tfl_diag *diag, const infer_ctx *ic)
{
  const tfl_tensor *x = in_t(g, n, 0), *st = in_t(g, n, 1);
  int64_t v[TFL_MAX_DIMS + 1];
  int cnt = 0;
  if (st && st->ndim == 1 && const_ints(st, v, TFL_MAX_DIMS + 1, &cnt)) {
    if (cnt > TFL_MAX_DIMS)
      return NODE_ERR(TFL_ERR_UNSUPPORTED, "new shape has %d dims, at most %d", cnt, TFL_MAX_DIMS);
  } else if (st && !st->is_const) {
    *kind = INF_KEEP;   /* dynamic shape input: trust the file */
    return TFL_OK;
  } else if (n->p.reshape.n >= 0) {
    cnt = n->p.reshape.n;
    for (int i = 0; i < cnt; i++) v[i] = n->p.reshape.shape[i];
  } else {
    *kind = INF_KEEP;
    return TFL_OK;
  }
  size_t total = tfl_tensor_count(x), known = 1;
  int wild = -1;
  out->ndim = cnt;
  /* a batch-1 graph's [1, ...] (or [1, -1, ...]) target follows the new batch */
  if (ic->follow_batch && cnt > 1 && v[0] == 1 && x->ndim > 0 && x->dims[0] > 1) v[0] = x->dims[0];
  for (int i = 0; i < cnt; i++) {
    if (v[i] == -1) {
      if (wild >= 0) return NODE_ERR(TFL_ERR_SHAPE, "new shape has two -1 entries (%d and %d)", wild, i);
      wild = i;
      continue;
    }
    if (v[i] < 0 || v[i] > INT32_MAX)
      return NODE_ERR(TFL_ERR_SHAPE, "new shape entry %d is %lld", i, (long long)v[i]);
    out->d[i] = (int32_t)v[i];
    known *= (size_t)v[i];
  }
  if (wild >= 0) {
    if (known == 0 || total % known)
      return NODE_ERR(TFL_ERR_SHAPE, "cannot infer -1: %zu elements over %zu", total, known);
    out->d[wild] = (int32_t)(total / known);
    known = total;
  }
  if (known != total)
    return NODE_ERR(TFL_ERR_SHAPE, "new shape has %zu elements, input %zu", known, total);
  return TFL_OK;
}

/* ---- the per-op rule ------------------------------------------------------------- */

/* Shape of output `o` of node ni. Inputs already have final shapes. */
static tfl_status infer_one(const tfl_graph *g, int ni, int o, shape *out, inf_kind *kind, tfl_diag *diag,
                            const infer_ctx *ic)
{
  const tfl_node *n = &g->nodes[ni];
  const tfl_tensor *x = in_t(g, n, 0);
  *kind = INF_OK;
  memset(out, 0, sizeof *out);

  /* inputs every op needs */
  int need_in = 1;
  switch (n->op) {
  case TFL_OP_TRANSPOSE_CONV: need_in = 3; break;
  case TFL_OP_CONV_2D:
  case TFL_OP_DEPTHWISE_CONV_2D:
  case TFL_OP_CONV2D_TRANSPOSE_BIAS:
  case TFL_OP_FULLY_CONNECTED:
  case TFL_OP_ADD:
  case TFL_OP_SUB:
  case TFL_OP_MUL:
  case TFL_OP_DIV:
  case TFL_OP_MAXIMUM:
  case TFL_OP_MINIMUM:
  case TFL_OP_LOGICAL_AND:
  case TFL_OP_PRELU:
  case TFL_OP_PAD:
  case TFL_OP_PADV2:
  case TFL_OP_RESIZE_BILINEAR:
  case TFL_OP_RESIZE_NEAREST_NEIGHBOR:
  case TFL_OP_MEAN:
  case TFL_OP_ARG_MAX: need_in = 2; break;
  case TFL_OP_STRIDED_SLICE: need_in = 4; break;
  case TFL_OP_DETECTION_POSTPROCESS:
  case TFL_OP_POSENET_DECODER:
  case TFL_OP_ANCHOR_DETECTION:
  case TFL_OP_SSD_CLASS_NMS:
  case TFL_OP_SSD_DETECTION: need_in = 3; break;
  case TFL_OP_LANDMARK_DECODE: need_in = 2; break;
  case TFL_OP_YOLO_DETECTION: need_in = 1; break;
  case TFL_OP_LSTM: need_in = n->p.lstm.kernel_type == 1 ? 5 : 1; break;
  case TFL_OP_AVERAGE_POOL_2D:
  case TFL_OP_CONCATENATION:
  case TFL_OP_EXP:
  case TFL_OP_LOGISTIC:
  case TFL_OP_MAX_POOL_2D:
  case TFL_OP_RELU:
  case TFL_OP_RELU6:
  case TFL_OP_RESHAPE:
  case TFL_OP_SOFTMAX:
  case TFL_OP_DEQUANTIZE:
  case TFL_OP_QUANTIZE:
  case TFL_OP_SQUEEZE:
  case TFL_OP_HARD_SWISH:
  case TFL_OP_DEPTH_TO_SPACE:
  case TFL_OP_DENSIFY:
  case TFL_OP_TANH:
  case TFL_OP_COUNT: break;
  default: need_in = 0; break;   /* the grouped ops' rules check their own inputs */
  }
  for (int i = 0; i < need_in; i++)
    if (!in_t(g, n, i)) return NODE_ERR(TFL_ERR_SHAPE, "input %d is missing (%d inputs)", i, n->n_in);

  switch (n->op) {
  case TFL_OP_CONV_2D:
  case TFL_OP_DEPTHWISE_CONV_2D: {
    const tfl_tensor *w = in_t(g, n, 1);
    const tfl_conv_params *p = &n->p.conv;
    if (x->ndim != 4 || w->ndim != 4)
      return NODE_ERR(TFL_ERR_SHAPE, "input has %d dims and filter %d, expected 4 and 4", x->ndim, w->ndim);
    if (p->stride_w < 1 || p->stride_h < 1 || p->dilation_w < 1 || p->dilation_h < 1)
      return NODE_ERR(TFL_ERR_SHAPE, "stride %dx%d, dilation %dx%d: must be >= 1", p->stride_w,
                      p->stride_h, p->dilation_w, p->dilation_h);
    out->ndim = 4;
    out->d[0] = x->dims[0];
    out->d[1] = tfl_conv_out_size(p->padding, x->dims[1], w->dims[1], p->stride_h, p->dilation_h);
    out->d[2] = tfl_conv_out_size(p->padding, x->dims[2], w->dims[2], p->stride_w, p->dilation_w);
    out->d[3] = n->op == TFL_OP_CONV_2D ? w->dims[0] : w->dims[3];
    return TFL_OK;
  }
  case TFL_OP_AVERAGE_POOL_2D:
  case TFL_OP_MAX_POOL_2D: {
    const tfl_pool_params *p = &n->p.pool;
    if (x->ndim != 4) return NODE_ERR(TFL_ERR_SHAPE, "input has %d dims, expected 4", x->ndim);
    if (p->stride_w < 1 || p->stride_h < 1 || p->filter_w < 1 || p->filter_h < 1)
      return NODE_ERR(TFL_ERR_SHAPE, "stride %dx%d, filter %dx%d: must be >= 1", p->stride_w,
                      p->stride_h, p->filter_w, p->filter_h);
    *out = shape_of(x);
    out->d[1] = tfl_conv_out_size(p->padding, x->dims[1], p->filter_h, p->stride_h, 1);
    out->d[2] = tfl_conv_out_size(p->padding, x->dims[2], p->filter_w, p->stride_w, 1);
    return TFL_OK;
  }
  case TFL_OP_TRANSPOSE_CONV: {
    int64_t v[4];
    int cnt = 0;
    if (!const_ints(in_t(g, n, 0), v, 4, &cnt)) {
      *kind = INF_KEEP;
      return TFL_OK;
    }
    if (cnt != 4) return NODE_ERR(TFL_ERR_SHAPE, "output_shape has %d values, expected 4", cnt);
    out->ndim = 4;
    for (int i = 0; i < 4; i++) {
      if (v[i] < 0 || v[i] > INT32_MAX)
        return NODE_ERR(TFL_ERR_SHAPE, "output_shape[%d] is %lld", i, (long long)v[i]);
      out->d[i] = (int32_t)v[i];
    }
    return TFL_OK;
  }
  case TFL_OP_CONV2D_TRANSPOSE_BIAS: {
    /* MediaPipe: SAME gives stride * in, VALID stride * (in - 1) + kernel */
    const tfl_tensor *w = in_t(g, n, 1);
    const tfl_conv_params *p = &n->p.conv;
    if (x->ndim != 4 || w->ndim != 4)
      return NODE_ERR(TFL_ERR_SHAPE, "input has %d dims and weights %d, expected 4 and 4", x->ndim, w->ndim);
    if (p->stride_w < 1 || p->stride_h < 1)
      return NODE_ERR(TFL_ERR_SHAPE, "stride %dx%d: must be >= 1", p->stride_w, p->stride_h);
    out->ndim = 4;
    out->d[0] = x->dims[0];
    bool same = p->padding == TFL_PAD_SAME;
    int64_t h = same ? (int64_t)p->stride_h * x->dims[1] : (int64_t)p->stride_h * (x->dims[1] - 1) + w->dims[1];
    int64_t wd = same ? (int64_t)p->stride_w * x->dims[2] : (int64_t)p->stride_w * (x->dims[2] - 1) + w->dims[2];
    if (h < 0 || h > INT32_MAX || wd < 0 || wd > INT32_MAX)
      return NODE_ERR(TFL_ERR_SHAPE, "output size %lldx%lld out of range", (long long)h, (long long)wd);
    out->d[1] = (int32_t)h;
    out->d[2] = (int32_t)wd;
    out->d[3] = w->dims[0];
    return TFL_OK;
  }
  case TFL_OP_FULLY_CONNECTED: {
    const tfl_tensor *w = in_t(g, n, 1);
    if (w->ndim != 2) return NODE_ERR(TFL_ERR_SHAPE, "weights have %d dims, expected 2", w->ndim);
    int32_t units = w->dims[0], depth = w->dims[1];
    size_t count = tfl_tensor_count(x);
    if (depth <= 0 || count % (size_t)depth)
      return NODE_ERR(TFL_ERR_SHAPE, "input has %zu elements, not a multiple of depth %d", count, depth);
    if (n->p.fc.keep_num_dims) {
      if (x->ndim < 1 || x->dims[x->ndim - 1] != depth)
        return NODE_ERR(TFL_ERR_SHAPE, "keep_num_dims: input's last dim is not depth %d", depth);
      *out = shape_of(x);
      out->d[out->ndim - 1] = units;
    } else {
      out->ndim = 2;
      out->d[0] = (int32_t)(count / (size_t)depth);
      out->d[1] = units;
    }
    return TFL_OK;
  }
  case TFL_OP_LSTM: {
    if (n->p.lstm.kernel_type == 1) {
      /* basic: out 0 activation [b, od], 1 state [b, od], 2 concat [b, id+od], 3 gates [b, 4od] */
      const tfl_tensor *prev = in_t(g, n, 1), *w = in_t(g, n, 2);
      if (x->ndim != 2 || prev->ndim != 2 || w->ndim != 2)
        return NODE_ERR(TFL_ERR_SHAPE, "basic LSTM: input, activation and weights need 2 dims");
      out->ndim = 2;
      out->d[0] = x->dims[0];
      int32_t od = prev->dims[1], id = x->dims[1];
      out->d[1] = o <= 1 ? od : (o == 2 ? id + od : 4 * od);
      return TFL_OK;
    }
    const tfl_tensor *r2o = in_t(g, n, 8);
    if (!r2o || r2o->ndim != 2 || x->ndim < 2)
      return NODE_ERR(TFL_ERR_SHAPE, "recurrent_to_output weights (input 8) missing or not 2-D");
    *out = shape_of(x);
    out->d[out->ndim - 1] = r2o->dims[1];
    return TFL_OK;
  }
  case TFL_OP_ADD:
  case TFL_OP_SUB:
  case TFL_OP_MUL:
  case TFL_OP_DIV:
  case TFL_OP_MAXIMUM:
  case TFL_OP_MINIMUM:
  case TFL_OP_LOGICAL_AND:
  case TFL_OP_PRELU: {
    shape a = shape_of(x), b = shape_of(in_t(g, n, 1));
    if (!broadcast(&a, &b, out)) {
      char sa[96], sb[96];
      return NODE_ERR(TFL_ERR_SHAPE, "shapes %s and %s do not broadcast", shape_str(a.d, a.ndim, sa, sizeof sa),
                      shape_str(b.d, b.ndim, sb, sizeof sb));
    }
    return TFL_OK;
  }
  case TFL_OP_EXP:
  case TFL_OP_LOGISTIC:
  case TFL_OP_RELU:
  case TFL_OP_RELU6:
  case TFL_OP_SOFTMAX:
  case TFL_OP_DEQUANTIZE:
  case TFL_OP_QUANTIZE:
  case TFL_OP_HARD_SWISH:
  case TFL_OP_DENSIFY:
  case TFL_OP_TANH:
    *out = shape_of(x);
    return TFL_OK;
  case TFL_OP_CONCATENATION: {
    int axis = n->p.concat.axis < 0 ? n->p.concat.axis + x->ndim : n->p.concat.axis;
    if (axis < 0 || axis >= x->ndim)
      return NODE_ERR(TFL_ERR_SHAPE, "axis %d out of range for %d dims", n->p.concat.axis, x->ndim);
    *out = shape_of(x);
    int64_t sum = 0;
    for (int i = 0; i < n->n_in; i++) {
      const tfl_tensor *t = in_t(g, n, i);
      if (!t) return NODE_ERR(TFL_ERR_SHAPE, "input %d is missing", i);
      if (t->ndim != x->ndim)
        return NODE_ERR(TFL_ERR_SHAPE, "input %d has %d dims, input 0 has %d", i, t->ndim, x->ndim);
      for (int d = 0; d < x->ndim; d++)
        if (d != axis && t->dims[d] != x->dims[d])
          return NODE_ERR(TFL_ERR_SHAPE, "input %d: dim %d is %d, input 0 has %d", i, d, t->dims[d], x->dims[d]);
      sum += t->dims[axis];
    }
    if (sum > INT32_MAX) return NODE_ERR(TFL_ERR_SHAPE, "concatenated dim %d is too large", axis);
    out->d[axis] = (int32_t)sum;
    return TFL_OK;
  }
  case TFL_OP_RESHAPE: return reshape_shape(g, n, ni, out, kind, diag, ic);
  case TFL_OP_SQUEEZE: {
    bool drop[TFL_MAX_DIMS] = {false};
    const tfl_squeeze_params *p = &n->p.squeeze;
    for (int i = 0; i < p->n; i++) {
      int d = p->dims[i] < 0 ? p->dims[i] + x->ndim : p->dims[i];
      if (d < 0 || d >= x->ndim)
        return NODE_ERR(TFL_ERR_SHAPE, "squeeze dim %d out of range for %d dims", p->dims[i], x->ndim);
      if (x->dims[d] != 1) return NODE_ERR(TFL_ERR_SHAPE, "squeeze dim %d has size %d, not 1", d, x->dims[d]);
      drop[d] = true;
    }
    for (int d = 0; d < x->ndim; d++) {
      if (p->n <= 0 ? x->dims[d] == 1 : drop[d]) continue;
      out->d[out->ndim++] = x->dims[d];
    }
    return TFL_OK;
  }
  case TFL_OP_PAD:
  case TFL_OP_PADV2: {
    int64_t v[2 * TFL_MAX_DIMS];
    int cnt = 0;
    const tfl_tensor *pt = in_t(g, n, 1);
    if (!const_ints(pt, v, 2 * TFL_MAX_DIMS, &cnt)) {
      *kind = INF_KEEP;
      return TFL_OK;
    }
    if (cnt != 2 * x->ndim)
      return NODE_ERR(TFL_ERR_SHAPE, "paddings has %d values, input has %d dims (need %d)", cnt, x->ndim, 2 * x->ndim);
    *out = shape_of(x);
    for (int d = 0; d < x->ndim; d++) {
      if (v[2 * d] < 0 || v[2 * d + 1] < 0)
        return NODE_ERR(TFL_ERR_SHAPE, "padding of dim %d is negative (%lld, %lld)", d, (long long)v[2 * d],
                        (long long)v[2 * d + 1]);
      int64_t s = x->dims[d] + v[2 * d] + v[2 * d + 1];
      if (s > INT32_MAX) return NODE_ERR(TFL_ERR_SHAPE, "padded dim %d is too large (%lld)", d, (long long)s);
      out->d[d] = (int32_t)s;
    }
    return TFL_OK;
  }
  case TFL_OP_RESIZE_BILINEAR:
  case TFL_OP_RESIZE_NEAREST_NEIGHBOR: {
    int64_t v[2];
    int cnt = 0;
    if (x->ndim != 4) return NODE_ERR(TFL_ERR_SHAPE, "input has %d dims, expected 4", x->ndim);
    if (!const_ints(in_t(g, n, 1), v, 2, &cnt)) {
      *kind = INF_KEEP;
      return TFL_OK;
    }
    if (cnt != 2 || v[0] < 1 || v[1] < 1 || v[0] > INT32_MAX || v[1] > INT32_MAX)
      return NODE_ERR(TFL_ERR_SHAPE, "size must be 2 positive values (%d given)", cnt);
    *out = shape_of(x);
    out->d[1] = (int32_t)v[0];
    out->d[2] = (int32_t)v[1];
    return TFL_OK;
  }
  case TFL_OP_STRIDED_SLICE: return slice_shape(g, n, ni, out, kind, diag);
  case TFL_OP_MEAN: return tfl_shape_reduce(g, n, ni, o, out, kind, diag); /* the reducers' rule */
  case TFL_OP_DEPTH_TO_SPACE: {
    int b = n->p.d2s.block_size;
    if (x->ndim != 4) return NODE_ERR(TFL_ERR_SHAPE, "input has %d dims, expected 4", x->ndim);
    if (b < 1 || b > 46340 || x->dims[3] % (b * b))
      return NODE_ERR(TFL_ERR_SHAPE, "depth %d is not a multiple of block_size^2 (%d)", x->dims[3], b * b);
    if ((int64_t)x->dims[1] * b > INT32_MAX || (int64_t)x->dims[2] * b > INT32_MAX)
      return NODE_ERR(TFL_ERR_SHAPE, "block_size %d makes the output too large", b);
    *out = shape_of(x);
    out->d[1] *= b;
    out->d[2] *= b;
    out->d[3] /= b * b;
    return TFL_OK;
  }
  case TFL_OP_ARG_MAX: {
    int64_t v[1];
    int cnt = 0;
    if (!const_ints(in_t(g, n, 1), v, 1, &cnt) || cnt != 1) {
      *kind = INF_KEEP;
      return TFL_OK;
    }
    int64_t axis = v[0] < 0 ? v[0] + x->ndim : v[0];
    if (axis < 0 || axis >= x->ndim)
      return NODE_ERR(TFL_ERR_SHAPE, "axis %lld out of range for %d dims", (long long)v[0], x->ndim);
    for (int d = 0; d < x->ndim; d++)
      if (d != axis) out->d[out->ndim++] = x->dims[d];
    return TFL_OK;
  }
  case TFL_OP_DETECTION_POSTPROCESS: {
    const tfl_detection_params *p = &n->p.detection;
    int32_t det = p->max_detections * p->max_classes_per_detection;
    if (p->max_detections < 0 || p->max_classes_per_detection < 0 || det < 0)
      return NODE_ERR(TFL_ERR_SHAPE, "max_detections %d, max_classes_per_detection %d", p->max_detections,
                      p->max_classes_per_detection);
    /* boxes [1,det,4], classes [1,det], scores [1,det], count [1] */
    switch (o) {
    case 0: out->ndim = 3; out->d[0] = 1; out->d[1] = det; out->d[2] = 4; break;
    case 1:
    case 2: out->ndim = 2; out->d[0] = 1; out->d[1] = det; break;
    default: out->ndim = 1; out->d[0] = 1; break;
    }
    return TFL_OK;
  }
  case TFL_OP_POSENET_DECODER: {
    /* keypoints [1,md,17,2], keypoint scores [1,md,17], pose scores [1,md], count [1] */
    int32_t md = n->p.posenet.max_detections;
    switch (o) {
    case 0: out->ndim = 4; out->d[0] = 1; out->d[1] = md; out->d[2] = 17; out->d[3] = 2; break;
    case 1: out->ndim = 3; out->d[0] = 1; out->d[1] = md; out->d[2] = 17; break;
    case 2: out->ndim = 2; out->d[0] = 1; out->d[1] = md; break;
    default: out->ndim = 1; out->d[0] = 1; break;
    }
    return TFL_OK;
  }
  case TFL_OP_ANCHOR_DETECTION: {
    /* boxes [B,D,4], keypoints [B,D,K-4], scores [B,D], count [B] from regressors [B,A,K] */
    const int32_t md = n->p.anchor_det.max_detections;
    if (x->ndim != 3 || x->dims[2] < 4 || md < 1)
      return NODE_ERR(TFL_ERR_SHAPE, "regressors have %d dims (expected [batch, anchors, 4 + 2 * keypoints]), "
                      "max_detections %d", x->ndim, md);
    out->d[0] = x->dims[0];
    out->d[1] = md;
    switch (o) {
    case 0: out->ndim = 3; out->d[2] = 4; break;
    case 1: out->ndim = 3; out->d[2] = x->dims[2] - 4; break;
    case 2: out->ndim = 2; break;
    default: out->ndim = 1; break;
    }
    return TFL_OK;
  }
  case TFL_OP_SSD_CLASS_NMS: {
    /* selections [B,C-1,D,2] from scores [B,A,C] */
    const tfl_tensor *sc = in_t(g, n, 1);
    const int32_t md = n->p.anchor_det.max_detections;
    if (!sc || sc->ndim != 3 || sc->dims[2] < 2 || md < 1)
      return NODE_ERR(TFL_ERR_SHAPE, "scores are not [batch, anchors, background + classes], max_detections %d", md);
    out->ndim = 4;
    out->d[0] = sc->dims[0];
    out->d[1] = sc->dims[2] - 1;
    out->d[2] = md;
    out->d[3] = 2;
    return TFL_OK;
  }
  case TFL_OP_SSD_DETECTION: {
    /* boxes [B,D,4], classes [B,D], scores [B,D], count [B] from selections [B,C-1,D,2] */
    const int32_t md = n->p.anchor_det.max_detections;
    if (x->ndim != 4 || md < 1)
      return NODE_ERR(TFL_ERR_SHAPE, "selections have %d dims (expected [batch, classes, detections, 2]), "
                      "max_detections %d", x->ndim, md);
    out->d[0] = x->dims[0];
    out->d[1] = md;
    out->d[2] = 4;
    out->ndim = o == 0 ? 3 : o == 3 ? 1 : 2;
    return TFL_OK;
  }
  case TFL_OP_LANDMARK_DECODE: {
    /* [B, 2 + points * (visibility ? 3 : 2)] from landmarks [B, ...] */
    const tfl_landmark_params *p = &n->p.landmark;
    if (x->ndim < 1 || p->points < 1 || p->points > 100000)
      return NODE_ERR(TFL_ERR_SHAPE, "landmarks have %d dims, %d points (expected [batch, ...], 1..100000 points)",
                      x->ndim, p->points);
    out->ndim = 2;
    out->d[0] = x->dims[0];
    out->d[1] = 2 + p->points * (p->visibility ? 3 : 2);
    return TFL_OK;
  }
  case TFL_OP_YOLO_DETECTION: {
    /* [B, max_detections, 6 + n_extra] from the head [B, ., .] */
    const tfl_yolo_detection_params *p = &n->p.yolo_det;
    if (x->ndim != 3 || p->max_detections < 1 || p->max_detections > 100000 || p->n_extra < 0 || p->n_extra > 100000)
      return NODE_ERR(TFL_ERR_SHAPE, "head has %d dims, max_detections %d, %d extra values (expected [batch, boxes, "
                      "values], 1..100000 detections, 0..100000 extra values)", x->ndim, p->max_detections, p->n_extra);
    out->ndim = 3;
    out->d[0] = x->dims[0];
    out->d[1] = p->max_detections;
    out->d[2] = 6 + p->n_extra;
    return TFL_OK;
  }
  case TFL_OP_TRANSPOSE:
  case TFL_OP_SLICE:
  case TFL_OP_SPLIT:
  case TFL_OP_SPLIT_V:
  case TFL_OP_PACK:
  case TFL_OP_UNPACK:
  case TFL_OP_TILE:
  case TFL_OP_BROADCAST_TO:
  case TFL_OP_EXPAND_DIMS:
  case TFL_OP_REVERSE_V2:
  case TFL_OP_MIRROR_PAD:
  case TFL_OP_SPACE_TO_DEPTH:
  case TFL_OP_SPACE_TO_BATCH_ND:
  case TFL_OP_BATCH_TO_SPACE_ND:
  case TFL_OP_REVERSE_SEQUENCE:
  case TFL_OP_MATRIX_DIAG:
  case TFL_OP_MATRIX_SET_DIAG:
  case TFL_OP_DYNAMIC_UPDATE_SLICE:
    return tfl_shape_layout(g, n, ni, o, out, kind, diag);
  case TFL_OP_GATHER:
  case TFL_OP_GATHER_ND:
  case TFL_OP_SCATTER_ND:
  case TFL_OP_SHAPE:
  case TFL_OP_RANK:
  case TFL_OP_FILL:
  case TFL_OP_ZEROS_LIKE:
  case TFL_OP_RANGE:
  case TFL_OP_ONE_HOT:
  case TFL_OP_CAST:
  case TFL_OP_SELECT:
  case TFL_OP_SELECT_V2:
  case TFL_OP_WHERE:
  case TFL_OP_UNIQUE:
  case TFL_OP_TOPK_V2:
  case TFL_OP_CUMSUM:
  case TFL_OP_NON_MAX_SUPPRESSION_V4:
  case TFL_OP_NON_MAX_SUPPRESSION_V5:
  case TFL_OP_EMBEDDING_LOOKUP:
  case TFL_OP_SEGMENT_SUM:
  case TFL_OP_UNSORTED_SEGMENT_SUM:
  case TFL_OP_UNSORTED_SEGMENT_PROD:
  case TFL_OP_UNSORTED_SEGMENT_MAX:
  case TFL_OP_UNSORTED_SEGMENT_MIN:
  case TFL_OP_BROADCAST_ARGS:
  case TFL_OP_SPARSE_TO_DENSE:
    return tfl_shape_index(g, n, ni, o, out, kind, diag);
  case TFL_OP_ABS:
  case TFL_OP_NEG:
  case TFL_OP_SQRT:
  case TFL_OP_RSQRT:
  case TFL_OP_SQUARE:
  case TFL_OP_LOG:
  case TFL_OP_SIN:
  case TFL_OP_COS:
  case TFL_OP_FLOOR:
  case TFL_OP_CEIL:
  case TFL_OP_ROUND:
  case TFL_OP_SIGN:
  case TFL_OP_ELU:
  case TFL_OP_LEAKY_RELU:
  case TFL_OP_RELU_N1_TO_1:
  case TFL_OP_RELU_0_TO_1:
  case TFL_OP_GELU:
  case TFL_OP_LOGICAL_NOT:
  case TFL_OP_FAKE_QUANT:
  case TFL_OP_POW:
  case TFL_OP_SQUARED_DIFFERENCE:
  case TFL_OP_FLOOR_DIV:
  case TFL_OP_FLOOR_MOD:
  case TFL_OP_LESS:
  case TFL_OP_LESS_EQUAL:
  case TFL_OP_GREATER:
  case TFL_OP_GREATER_EQUAL:
  case TFL_OP_EQUAL:
  case TFL_OP_NOT_EQUAL:
  case TFL_OP_LOGICAL_OR:
  case TFL_OP_ADD_N:
  case TFL_OP_ATAN2:
  case TFL_OP_BITWISE_XOR:
  case TFL_OP_RIGHT_SHIFT:
    return tfl_shape_eltwise(g, n, ni, o, out, kind, diag);
  case TFL_OP_SUM:
  case TFL_OP_REDUCE_PROD:
  case TFL_OP_REDUCE_MAX:
  case TFL_OP_REDUCE_MIN:
  case TFL_OP_REDUCE_ANY:
  case TFL_OP_REDUCE_ALL:
  case TFL_OP_ARG_MIN:
  case TFL_OP_LOG_SOFTMAX:
  case TFL_OP_L2_NORMALIZATION:
  case TFL_OP_LOCAL_RESPONSE_NORMALIZATION:
  case TFL_OP_L2_POOL_2D:
    return tfl_shape_reduce(g, n, ni, o, out, kind, diag);
  case TFL_OP_BATCH_MATMUL:
  case TFL_OP_CONV_3D:
  case TFL_OP_CONV_3D_TRANSPOSE:
    return tfl_shape_compute(g, n, ni, o, out, kind, diag);
  case TFL_OP_RFFT2D:
  case TFL_OP_REAL:
  case TFL_OP_IMAG:
  case TFL_OP_COMPLEX_ABS:
  case TFL_OP_BUCKETIZE:
  case TFL_OP_BITCAST:
    return tfl_shape_spectral(g, n, ni, o, out, kind, diag);
  case TFL_OP_UNIDIRECTIONAL_SEQUENCE_LSTM:
  case TFL_OP_BIDIRECTIONAL_SEQUENCE_LSTM:
  case TFL_OP_UNIDIRECTIONAL_SEQUENCE_RNN:
  case TFL_OP_BIDIRECTIONAL_SEQUENCE_RNN:
  case TFL_OP_RNN:
  case TFL_OP_SVDF:
    return tfl_shape_sequence(g, n, ni, o, out, kind, diag);
  case TFL_OP_WHILE:
  case TFL_OP_IF:
  case TFL_OP_CALL_ONCE:
    return tfl_shape_control(g, n, ni, o, out, kind, diag);
  case TFL_OP_COUNT: break;
  }
  return NODE_ERR(TFL_ERR_UNSUPPORTED, "no shape rule");
}

static bool is_custom(tfl_op op)
{
  return op == TFL_OP_DETECTION_POSTPROCESS || op == TFL_OP_POSENET_DECODER ||
         op == TFL_OP_CONV2D_TRANSPOSE_BIAS || op == TFL_OP_ANCHOR_DETECTION ||
         op == TFL_OP_SSD_CLASS_NMS || op == TFL_OP_SSD_DETECTION || op == TFL_OP_LANDMARK_DECODE ||
         op == TFL_OP_YOLO_DETECTION;
}

/* True when the declared shape of t only differs from d[0..ndim) at dims the file's
 * shape_signature leaves open (-1). */
static bool fills_signature(const tfl_tensor *t, const int32_t *d, int ndim)
{
  if (!t->dyn_dims || ndim != t->ndim) return false;
  for (int k = 0; k < ndim; k++)
    if (!(t->dyn_dims & (1u << k)) && d[k] != t->dims[k]) return false;
  return true;
}

static tfl_status infer_all(tfl_graph *g, tfl_diag *diag, const infer_ctx *ic, int *folded)
{
  for (int ni = 0; ni < g->n_nodes; ni++) {
    tfl_node *n = &g->nodes[ni];
    if (n->dead) continue;
    for (int o = 0; o < n->n_out; o++) {
      int ti = n->out[o];
      if (ti < 0) continue;
      if (ti >= g->n_tensors)
        return NODE_ERR(TFL_ERR_FORMAT, "output %d is tensor %d, graph has %d", o, ti, g->n_tensors);
      tfl_tensor *t = &g->tensors[ti];
      shape s;
      inf_kind kind;
      tfl_status st = infer_one(g, ni, o, &s, &kind, diag, ic);
      if (st != TFL_OK) return st;
      if (kind == INF_KEEP) {
        if (ic->resizing)
          return NODE_ERR(TFL_ERR_UNSUPPORTED, "output tensor %d (%s): shape set at run time, not recomputable for a "
                          "new batch", ti, t->name ? t->name : "");
        if (t->ndim == 0)
          return NODE_ERR(TFL_ERR_UNSUPPORTED, "output tensor %d (%s): shape depends on a non-constant "
                          "input and the file declares none", ti, t->name ? t->name : "");
        continue;
      }
      uint64_t count = 1;
      for (int d = 0; d < s.ndim; d++) {
        if (s.d[d] < 0) return NODE_ERR(TFL_ERR_SHAPE, "output tensor %d: dim %d is %d", ti, d, s.d[d]);
        count *= (uint64_t)s.d[d];
        /* the loader's limit: every count below stays far from size_t overflow */
        if (count > INT32_MAX)
          return NODE_ERR(TFL_ERR_SHAPE, "output tensor %d: more than 2^31-1 elements", ti);
      }
      bool same = s.ndim == t->ndim && !memcmp(s.d, t->dims, sizeof(int32_t) * (size_t)s.ndim);
      if (same) continue;
      if (t->ndim == 0 || ic->resizing || (is_custom(n->op) && t->ndim == s.ndim && t->bytes == 0) ||
          fills_signature(t, s.d, s.ndim)) {
        t->ndim = s.ndim;
        memcpy(t->dims, s.d, sizeof(int32_t) * (size_t)s.ndim);
        tfl_tensor_update_bytes(t);
        continue;
      }
      char a[96], b[96];
      return NODE_ERR(TFL_ERR_SHAPE, "output tensor %d (%s): computed shape %s, the file declares %s", ti,
                      t->name ? t->name : "", shape_str(s.d, s.ndim, a, sizeof a),
                      shape_str(t->dims, t->ndim, b, sizeof b));
    }
    if (ic->fold && tfl_fold_shape_int_node(g, ni, diag)) (*folded)++;
  }
  return TFL_OK;
}

tfl_status tfl_infer_shapes(tfl_graph *g, tfl_diag *diag)
{
  const infer_ctx ic = { false, g->batch > 1, false };
  return infer_all(g, diag, &ic, NULL);
}

tfl_status tfl_infer_shapes_folding(tfl_graph *g, tfl_diag *diag, int *folded)
{
  const infer_ctx ic = { false, g->batch > 1, true };
  *folded = 0;
  return infer_all(g, diag, &ic, folded);
}

tfl_status tfl_pass_set_input_size(tfl_graph *g, int input, int height, int width, tfl_diag *diag)
{
  if (input < 0 || input >= g->n_inputs) return tfl_fail(diag, TFL_ERR_ARG, "input %d (the graph has %d)", input, g->n_inputs);
  tfl_tensor *t = &g->tensors[g->inputs[input]];
  const char *name = t->name ? t->name : "";
  if (height < 1 || width < 1 || height > 8192 || width > 8192)
    return tfl_fail(diag, TFL_ERR_ARG, "input %d (%s): size %dx%d (1..8192)", input, name, width, height);
  if (t->ndim != 4 || (t->dyn_dims & 6u) != 6u)
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "input %d (%s): its height and width are not open in the file "
                    "(shape_signature)", input, name);
  t->dims[1] = height;
  t->dims[2] = width;
  tfl_tensor_update_bytes(t);
  return TFL_OK;
}

tfl_status tfl_pass_set_batch(tfl_graph *g, int batch, tfl_diag *diag)
{
  if (batch < 1 || batch > 256) return tfl_fail(diag, TFL_ERR_ARG, "batch %d (1..256)", batch);
  for (int i = 0; i < g->n_inputs; i++) {
    tfl_tensor *t = &g->tensors[g->inputs[i]];
    if (t->ndim < 2 || (t->dims[0] != 1 && t->dims[0] != batch))
      return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "input %d (%s) has no batch dimension of 1", i, t->name ? t->name : "");
    if (t->is_variable || t->is_const)
      return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "input %d (%s) is a state or constant tensor", i, t->name ? t->name : "");
    t->dims[0] = batch;
    tfl_tensor_update_bytes(t);
  }
  for (int i = 0; i < g->n_tensors; i++)
    if (g->tensors[i].is_variable)
      return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "tensor %d (%s) keeps state between runs: one stream's only", i,
                      g->tensors[i].name ? g->tensors[i].name : "");
  g->batch = batch;
  const infer_ctx ic = { true, batch > 1, false };
  tfl_status st = infer_all(g, diag, &ic, NULL);
  if (st != TFL_OK) return tfl_fail_prefix(diag, st, "batch %d", batch);
  /* every graph output must carry the batch in front, or results cannot be split */
  for (int i = 0; i < g->n_outputs; i++) {
    const tfl_tensor *t = &g->tensors[g->outputs[i]];
    if (t->ndim < 1 || t->dims[0] != batch)
      return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "batch %d: output %d (%s) does not start with the batch", batch, i,
                      t->name ? t->name : "");
  }
  return TFL_OK;
}
