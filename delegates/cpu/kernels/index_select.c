/* index_select.c - the selection ops as TFLite computes them: SELECT, SELECT_V2, WHERE,
 * TOPK_V2, CUMSUM, NON_MAX_SUPPRESSION_V4/V5, SEGMENT_SUM and UNSORTED_SEGMENT_SUM/PROD/
 * MAX/MIN.
 *
 * SELECT/SELECT_V2 copy stored elements of any plain type (float32, int8, uint8, int16,
 * int32, int64, bool); SELECT_V2 broadcasts all three inputs, SELECT takes a condition of
 * x's shape, a scalar, or a vector over x's first dim. WHERE's output shape depends on
 * the data: a constant condition's is computed at load; for a computed one the output is
 * planned at [elements, rank] and each eval sets its first dim to the true count
 * (idx_check_dynamic_output: a graph output no node reads). TOPK_V2
 * orders values descending, equal values lower index first, as TFLite's TopContainer.
 * NMS follows TFLite's reference (a max-heap of candidates, soft-NMS re-queueing) with the
 * heap's tie order of std::priority_queue (libstdc++'s push_heap / pop_heap), so equal
 * scores pick in the same order; outputs are max_output_size long, padded with zeros.
 */
#include "index_common.h"

#include <float.h>
#include <math.h>

enum { COND = 0, SEL_X = 1, SEL_Y = 2 };           /* SELECT, SELECT_V2, WHERE (COND) */
enum { TOPK_INPUT = 0, TOPK_K = 1, TOPK_VALUES = 0, TOPK_INDICES = 1 };
enum { CS_INPUT = 0, CS_AXIS = 1 };          /* CUMSUM */
enum { SEG_DATA = 0, SEG_IDS = 1, SEG_NUM = 2 }; /* segment ops */
enum { OUTPUT = 0 };

static void release(void *state)
{
  free(state);
}

/* ---- SELECT, SELECT_V2 -------------------------------------------------------------------- */

typedef struct {
  int nd;
  int32_t dims[TFL_MAX_DIMS];
  size_t str[3][TFL_MAX_DIMS];   /* element strides of condition, x, y per output dim (0: repeated) */
  size_t count, es;
} select_state;

/* Strides of t (dims right-aligned to nd, or left-aligned when `left`) over output dims. */
static bool view_strides(const tfl_tensor *t, int nd, const int32_t *od, bool left, size_t *str)
{
  int32_t d[TFL_MAX_DIMS];
  for (int i = 0; i < nd; i++) {
    int k = left ? i : i - (nd - t->ndim);
    d[i] = k >= 0 && k < t->ndim ? t->dims[k] : 1;
    if (d[i] != od[i] && d[i] != 1) return false;
  }
  size_t s = 1;
  for (int i = nd - 1; i >= 0; i--) {
    str[i] = d[i] == 1 ? 0 : s;
    s *= (size_t)d[i];
  }
  return true;
}

static tfl_status select_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *c = cpu_in(g, n, COND), *x = cpu_in(g, n, SEL_X), *yv = cpu_in(g, n, SEL_Y),
                   *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, c, "condition", -1, diag)) || (s = cpu_check_tensor(g, n, x, "x", -1, diag)) ||
      (s = cpu_check_tensor(g, n, yv, "y", -1, diag)) || (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  if (c->type != TFL_TYPE_BOOL) return idx_unsupported_type(g, n, "condition", c->type, diag);
  if (!idx_copy_type(x->type)) return idx_unsupported_type(g, n, "x", x->type, diag);
  if ((s = idx_same_storage(g, n, x, "x", yv, "y", diag)) || (s = idx_same_storage(g, n, x, "x", y, "output", diag)))
    return s;
  select_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "select state");
  *state = st;
  st->nd = y->ndim;
  memcpy(st->dims, y->dims, sizeof(int32_t) * (size_t)y->ndim);
  bool left = false;
  if (n->op == TFL_OP_SELECT) {
    /* TFLite's SELECT: x and y alike; the condition alike too, or a scalar, or a vector
     * picking whole slices along x's first dim */
    bool same_xy = x->ndim == yv->ndim && !memcmp(x->dims, yv->dims, sizeof(int32_t) * (size_t)x->ndim);
    bool same_c = c->ndim == x->ndim && !memcmp(c->dims, x->dims, sizeof(int32_t) * (size_t)x->ndim);
    bool low = c->ndim == 0 || (c->ndim == 1 && x->ndim >= 1 && c->dims[0] == x->dims[0]);
    if (!same_xy || !(same_c || low))
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "condition (%d dims), x (%d dims) and y (%d dims): x and y must "
                          "match, the condition match them or be a scalar or a vector over dim 0",
                          c->ndim, x->ndim, yv->ndim);
    left = !same_c;
    int64_t d[TFL_MAX_DIMS];
    for (int i = 0; i < x->ndim; i++) d[i] = x->dims[i];
    if ((s = idx_check_shape(g, n, y, "output", d, x->ndim, diag)))
      return s;
  }
  const tfl_tensor *ins[3] = {c, x, yv};
  for (int k = 0; k < 3; k++)
    if (!view_strides(ins[k], st->nd, st->dims, k == 0 && left, st->str[k]) || ins[k]->ndim > st->nd)
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input %d (%d dims) does not broadcast to the output's %d dims", k,
                          ins[k]->ndim, st->nd);
  st->count = tfl_tensor_count(y);
  st->es = tfl_type_size(y->type);
  return TFL_OK;
}

static tfl_status select_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const select_state *st = state;
  const tfl_tensor *c = cpu_in(g, n, COND), *x = cpu_in(g, n, SEL_X), *yv = cpu_in(g, n, SEL_Y),
                   *y = cpu_out(g, n, OUTPUT);
  (void)ctx, (void)diag;
  const bool *cond = c->data;
  const uint8_t *a = x->data, *b = yv->data;
  uint8_t *o = y->data;
  int32_t pos[TFL_MAX_DIMS] = {0};
  size_t oc = 0, ox = 0, oy = 0, es = st->es;
  for (size_t i = 0; i < st->count; i++) {
    memcpy(o + i * es, cond[oc] ? a + ox * es : b + oy * es, es);
    for (int d = st->nd - 1; d >= 0; d--) { /* odometer; offsets follow each input's strides */
      oc += st->str[0][d];
      ox += st->str[1][d];
      oy += st->str[2][d];
      if (++pos[d] < st->dims[d]) break;
      oc -= st->str[0][d] * (size_t)st->dims[d];
      ox -= st->str[1][d] * (size_t)st->dims[d];
      oy -= st->str[2][d] * (size_t)st->dims[d];
      pos[d] = 0;
    }
  }
  return TFL_OK;
}

/* ---- WHERE ------------------------------------------------------------------------------ */

static bool where_on(const tfl_tensor *t, size_t i)
{
  if (t->type == TFL_TYPE_FLOAT32) return ((const float *)t->data)[i] != 0.0f;
  return idx_get_any(t, i) != 0;
}

static tfl_status where_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *c = cpu_in(g, n, COND), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  (void)state;
  if ((s = cpu_check_tensor(g, n, c, "condition", -1, diag)) || (s = cpu_check_tensor(g, n, y, "output", 2, diag)))
    return s;
  if (c->type != TFL_TYPE_BOOL && c->type != TFL_TYPE_FLOAT32 && c->type != TFL_TYPE_INT32 &&
      c->type != TFL_TYPE_INT64 && c->type != TFL_TYPE_INT8 && c->type != TFL_TYPE_UINT8)
    return idx_unsupported_type(g, n, "condition", c->type, diag);
  if (y->type != TFL_TYPE_INT64) return idx_unsupported_type(g, n, "output", y->type, diag);
  size_t nz = 0;
  if (c->is_const) {
    for (size_t i = 0; i < tfl_tensor_count(c); i++) nz += where_on(c, i);
  } else {
    /* the largest output: every element true */
    if ((s = idx_check_dynamic_output(g, n, OUTPUT, diag))) return s;
    nz = tfl_tensor_count(c);
  }
  int64_t d[2] = {(int64_t)nz, c->ndim};
  return idx_check_shape(g, n, y, "output", d, 2, diag);
}

static tfl_status where_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const tfl_tensor *c = cpu_in(g, n, COND);
  tfl_tensor *y = cpu_out(g, n, OUTPUT);
  (void)state, (void)ctx, (void)diag;
  int64_t *o = y->data;
  size_t count = tfl_tensor_count(c), rows = 0;
  for (size_t i = 0; i < count; i++) {
    if (!where_on(c, i)) continue;
    size_t r = i;
    for (int d = c->ndim - 1; d >= 0; d--) { /* row-major coordinates of element i */
      o[d] = (int64_t)(r % (size_t)c->dims[d]);
      r /= (size_t)c->dims[d];
    }
    o += c->ndim;
    rows++;
  }
  if (!c->is_const) { /* a dynamic output: this run's rows (at most the planned count) */
    y->dims[0] = (int32_t)rows;
    tfl_tensor_update_bytes(y);
  }
  return TFL_OK;
}

/* ---- TOPK_V2 ---------------------------------------------------------------------------- */

typedef struct {
  size_t rows, len;
  int32_t *top;                  /* scratch: the current row's best positions, best first */
} topk_state;

static void topk_release(void *state)
{
  topk_state *st = state;
  if (st) free(st->top);
  free(st);
}

static tfl_status topk_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, TOPK_INPUT), *k = cpu_in(g, n, TOPK_K), *v = cpu_out(g, n, TOPK_VALUES),
                   *ix = cpu_out(g, n, TOPK_INDICES);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "input", -1, diag)) || (s = cpu_check_tensor(g, n, k, "k", -1, diag)) ||
      (s = cpu_check_tensor(g, n, v, "values", x->ndim, diag)) ||
      (s = cpu_check_tensor(g, n, ix, "indices", x->ndim, diag)))
    return s;
  tfl_type t = x->type;
  if (t != TFL_TYPE_FLOAT32 && t != TFL_TYPE_UINT8 && t != TFL_TYPE_INT8 && t != TFL_TYPE_INT16 &&
      t != TFL_TYPE_INT32 && t != TFL_TYPE_INT64)
    return idx_unsupported_type(g, n, "input", t, diag);
  if ((s = idx_same_storage(g, n, x, "input", v, "values", diag))) return s;
  if (k->type != TFL_TYPE_INT32 && k->type != TFL_TYPE_INT16) return idx_unsupported_type(g, n, "k", k->type, diag);
  if (ix->type != TFL_TYPE_INT32 && ix->type != TFL_TYPE_INT16)
    return idx_unsupported_type(g, n, "indices", ix->type, diag);
  if (tfl_tensor_count(k) != 1)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "k has %zu elements, expected one", tfl_tensor_count(k));
  if (x->ndim < 1) return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input is a scalar, needs at least 1 dim%s", "");
  for (int i = 0; i < x->ndim - 1; i++)
    if (v->dims[i] != x->dims[i] || ix->dims[i] != x->dims[i])
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output dim %d is %d / %d, input %d", i, v->dims[i], ix->dims[i],
                          x->dims[i]);
  int last = x->ndim - 1;
  if (v->dims[last] != ix->dims[last] || v->dims[last] > x->dims[last])
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "outputs keep %d / %d of the last dim's %d", v->dims[last],
                        ix->dims[last], x->dims[last]);
  topk_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "topk state");
  *state = st;
  st->len = (size_t)x->dims[last];
  st->rows = tfl_tensor_count(x) / (st->len ? st->len : 1);
  st->top = malloc(sizeof(int32_t) * (st->len ? st->len : 1));
  if (!st->top) return tfl_fail(diag, TFL_ERR_NOMEM, "topk scratch of %zu", st->len);
  return TFL_OK;
}

/* a ranks before b: larger value, or equal value and smaller position */
static bool topk_before(const tfl_tensor *x, size_t base, int32_t a, int32_t b)
{
  if (x->type == TFL_TYPE_FLOAT32) {
    float va = ((const float *)x->data)[base + (size_t)a], vb = ((const float *)x->data)[base + (size_t)b];
    return va > vb || (va == vb && a < b);
  }
  int64_t va = idx_get_any(x, base + (size_t)a), vb = idx_get_any(x, base + (size_t)b);
  return va > vb || (va == vb && a < b);
}

static tfl_status topk_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const topk_state *st = state;
  const tfl_tensor *x = cpu_in(g, n, TOPK_INPUT), *kt = cpu_in(g, n, TOPK_K), *v = cpu_out(g, n, TOPK_VALUES),
                   *ix = cpu_out(g, n, TOPK_INDICES);
  (void)ctx;
  int64_t k = idx_get(kt, 0);
  int32_t have = v->dims[v->ndim - 1];
  if (k != have)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "k is %lld, the planned outputs keep %d: a k set at run time is not "
                        "supported", (long long)k, have);
  size_t es = tfl_type_size(x->type);
  for (size_t r = 0; r < st->rows; r++) {
    size_t base = r * st->len;
    int32_t m = 0;                 /* entries in top, sorted best first */
    for (int32_t i = 0; i < (int32_t)st->len; i++) {
      if (m == have && (m == 0 || !topk_before(x, base, i, st->top[m - 1]))) continue;
      int32_t p = m < have ? m++ : m - 1;
      while (p > 0 && topk_before(x, base, i, st->top[p - 1])) {
        st->top[p] = st->top[p - 1];
        p--;
      }
      st->top[p] = i;
    }
    for (int32_t j = 0; j < have; j++) {
      memcpy((uint8_t *)v->data + (r * (size_t)have + (size_t)j) * es,
             (const uint8_t *)x->data + (base + (size_t)st->top[j]) * es, es);
      if (ix->type == TFL_TYPE_INT16) ((int16_t *)ix->data)[r * (size_t)have + (size_t)j] = (int16_t)st->top[j];
      else ((int32_t *)ix->data)[r * (size_t)have + (size_t)j] = st->top[j];
    }
  }
  return TFL_OK;
}

/* ---- CUMSUM ------------------------------------------------------------------------------ */

static tfl_status cumsum_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, CS_INPUT), *ax = cpu_in(g, n, CS_AXIS), *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  (void)state;
  if ((s = cpu_check_tensor(g, n, x, "input", -1, diag)) || (s = cpu_check_tensor(g, n, ax, "axis", -1, diag)) ||
      (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  if (x->type != TFL_TYPE_FLOAT32 && x->type != TFL_TYPE_INT32 && x->type != TFL_TYPE_INT64)
    return idx_unsupported_type(g, n, "input", x->type, diag);
  if (ax->type != TFL_TYPE_INT32) return idx_unsupported_type(g, n, "axis", ax->type, diag);
  if (tfl_tensor_count(ax) != 1)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "axis has %zu elements, expected one", tfl_tensor_count(ax));
  if ((s = idx_same_storage(g, n, x, "input", y, "output", diag))) return s;
  int64_t d[TFL_MAX_DIMS];
  for (int i = 0; i < x->ndim; i++) d[i] = x->dims[i];
  return idx_check_shape(g, n, y, "output", d, x->ndim, diag);
}

static tfl_status cumsum_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, CS_INPUT), *ax = cpu_in(g, n, CS_AXIS), *y = cpu_out(g, n, OUTPUT);
  (void)state, (void)ctx;
  int32_t axis = *(const int32_t *)ax->data;
  if (axis < 0) axis += x->ndim;
  if (axis < 0 || axis >= x->ndim)
    return CPU_NODE_ERR(diag, TFL_ERR_ARG, g, n, "axis %d outside input of %d dims", *(const int32_t *)ax->data,
                        x->ndim);
  size_t outer = 1, len = (size_t)x->dims[axis], inner = 1;
  for (int i = 0; i < axis; i++) outer *= (size_t)x->dims[i];
  for (int i = axis + 1; i < x->ndim; i++) inner *= (size_t)x->dims[i];
  bool excl = n->p.cumsum.exclusive, rev = n->p.cumsum.reverse;
  for (size_t o = 0; o < outer; o++)
    for (size_t in = 0; in < inner; in++) {
      float af = 0.0f;
      uint64_t ai = 0; /* integer sums wrap */
      for (size_t k = 0; k < len; k++) {
        size_t j = rev ? len - 1 - k : k, e = (o * len + j) * inner + in;
        switch (x->type) {
        case TFL_TYPE_FLOAT32: {
          float xv = ((const float *)x->data)[e];
          if (!excl) af += xv;
          ((float *)y->data)[e] = af;
          if (excl) af += xv;
          break;
        }
        case TFL_TYPE_INT32: {
          uint64_t xv = (uint64_t)(int64_t)((const int32_t *)x->data)[e];
          if (!excl) ai += xv;
          ((int32_t *)y->data)[e] = (int32_t)(uint32_t)ai;
          if (excl) ai += xv;
          break;
        }
        default: {
          uint64_t xv = (uint64_t)((const int64_t *)x->data)[e];
          if (!excl) ai += xv;
          ((int64_t *)y->data)[e] = (int64_t)ai;
          if (excl) ai += xv;
          break;
        }
        }
      }
    }
  return TFL_OK;
}

/* ---- NON_MAX_SUPPRESSION_V4 / V5 ----------------------------------------------------------- */

enum { NMS_BOXES = 0, NMS_SCORES = 1, NMS_MAX = 2, NMS_IOU = 3, NMS_SCORE_T = 4, NMS_SIGMA = 5 };
enum { NMS_SELECTED = 0, NMS_V5_SCORES = 1 };  /* then the count: output 1 (V4) or 2 (V5) */

typedef struct {
  int index;
  float score;
  int suppress_begin;
} nms_cand;

typedef struct {
  int num_boxes;
  nms_cand *heap;                /* candidates, a max-heap on score */
} nms_state;

static void nms_release(void *state)
{
  nms_state *st = state;
  if (st) free(st->heap);
  free(st);
}

/* libstdc++'s __push_heap with comparison a.score < b.score: the hole rises while its
 * parent scores lower than the value */
static void heap_up(nms_cand *h, int hole, int top, nms_cand v)
{
  int parent = (hole - 1) / 2;
  while (hole > top && h[parent].score < v.score) {
    h[hole] = h[parent];
    hole = parent;
    parent = (hole - 1) / 2;
  }
  h[hole] = v;
}

static void heap_push(nms_cand *h, int *len, nms_cand v)
{
  heap_up(h, (*len)++, 0, v);
}

/* libstdc++'s pop_heap (__adjust_heap: the hole sinks to a leaf along the larger child,
 * the right one unless the left is strictly larger, then the last element rises there) */
static nms_cand heap_pop(nms_cand *h, int *len)
{
  nms_cand top = h[0];
  int n = --(*len);
  if (n == 0) return top;
  nms_cand v = h[n];
  int hole = 0, child = 0;
  while (child < (n - 1) / 2) {
    child = 2 * (child + 1);
    if (h[child].score < h[child - 1].score) child--;
    h[hole] = h[child];
    hole = child;
  }
  if ((n & 1) == 0 && child == (n - 2) / 2) {
    child = 2 * (child + 1);
    h[hole] = h[child - 1];
    hole = child - 1;
  }
  heap_up(h, hole, 0, v);
  return top;
}

static float nms_iou(const float *b, int i, int j)
{
  const float *p = b + 4 * i, *q = b + 4 * j;
  float ymin1 = fminf(p[0], p[2]), ymax1 = fmaxf(p[0], p[2]), xmin1 = fminf(p[1], p[3]), xmax1 = fmaxf(p[1], p[3]);
  float ymin2 = fminf(q[0], q[2]), ymax2 = fmaxf(q[0], q[2]), xmin2 = fminf(q[1], q[3]), xmax2 = fmaxf(q[1], q[3]);
  float a1 = (ymax1 - ymin1) * (xmax1 - xmin1), a2 = (ymax2 - ymin2) * (xmax2 - xmin2);
  if (a1 <= 0 || a2 <= 0) return 0.0f;
  float ih = fmaxf(fminf(ymax1, ymax2) - fmaxf(ymin1, ymin2), 0.0f);
  float iw = fmaxf(fminf(xmax1, xmax2) - fmaxf(xmin1, xmin2), 0.0f);
  float inter = ih * iw, uni = a1 + a2 - inter;
  return uni == 0.0f ? 0.0f : inter / uni;
}

static tfl_status nms_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  bool v5 = n->op == TFL_OP_NON_MAX_SUPPRESSION_V5;
  const tfl_tensor *bx = cpu_in(g, n, NMS_BOXES), *sc = cpu_in(g, n, NMS_SCORES), *mx = cpu_in(g, n, NMS_MAX);
  const tfl_tensor *sel = cpu_out(g, n, NMS_SELECTED), *cnt = cpu_out(g, n, v5 ? 2 : 1);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, bx, "boxes", 2, diag)) || (s = cpu_check_tensor(g, n, sc, "scores", 1, diag)) ||
      (s = cpu_check_tensor(g, n, mx, "max_output_size", 0, diag)) ||
      (s = cpu_check_tensor(g, n, sel, "selected_indices", 1, diag)) ||
      (s = cpu_check_tensor(g, n, cnt, "valid_outputs", 0, diag)))
    return s;
  const char *names[3] = {"iou_threshold", "score_threshold", "soft_nms_sigma"};
  for (int i = NMS_IOU; i <= (v5 ? NMS_SIGMA : NMS_SCORE_T); i++) {
    const tfl_tensor *t = cpu_in(g, n, i);
    if ((s = cpu_check_tensor(g, n, t, names[i - NMS_IOU], 0, diag))) return s;
    if (t->type != TFL_TYPE_FLOAT32) return idx_unsupported_type(g, n, names[i - NMS_IOU], t->type, diag);
  }
  if (bx->type != TFL_TYPE_FLOAT32 || sc->type != TFL_TYPE_FLOAT32)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "boxes %s, scores %s: only float32 "
                        "(TFLite 2.x's kernel takes float32 only)", tfl_type_name(bx->type), tfl_type_name(sc->type));
  if (bx->dims[1] != 4 || sc->dims[0] != bx->dims[0])
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "boxes [%d,%d], scores [%d]: expected [N,4] and [N]", bx->dims[0],
                        bx->dims[1], sc->dims[0]);
  if (mx->type != TFL_TYPE_INT32) return idx_unsupported_type(g, n, "max_output_size", mx->type, diag);
  if (sel->type != TFL_TYPE_INT32 || cnt->type != TFL_TYPE_INT32)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "selected_indices %s, valid_outputs %s: expected INT32",
                        tfl_type_name(sel->type), tfl_type_name(cnt->type));
  if (v5) {
    const tfl_tensor *ss = cpu_out(g, n, NMS_V5_SCORES);
    if ((s = cpu_check_tensor(g, n, ss, "selected_scores", 1, diag))) return s;
    if (ss->type != TFL_TYPE_FLOAT32) return idx_unsupported_type(g, n, "selected_scores", ss->type, diag);
    if (ss->dims[0] != sel->dims[0])
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "selected_scores [%d], selected_indices [%d]", ss->dims[0],
                          sel->dims[0]);
  }
  nms_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "nms state");
  *state = st;
  st->num_boxes = bx->dims[0];
  st->heap = malloc(sizeof(nms_cand) * (size_t)(st->num_boxes ? st->num_boxes : 1));
  if (!st->heap) return tfl_fail(diag, TFL_ERR_NOMEM, "nms heap of %d", st->num_boxes);
  return TFL_OK;
}

static tfl_status nms_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const nms_state *st = state;
  bool v5 = n->op == TFL_OP_NON_MAX_SUPPRESSION_V5;
  const tfl_tensor *bx = cpu_in(g, n, NMS_BOXES), *sc = cpu_in(g, n, NMS_SCORES), *mx = cpu_in(g, n, NMS_MAX);
  const tfl_tensor *sel = cpu_out(g, n, NMS_SELECTED), *ss = v5 ? cpu_out(g, n, NMS_V5_SCORES) : NULL,
                   *cnt = cpu_out(g, n, v5 ? 2 : 1);
  (void)ctx;
  int32_t max_out = *(const int32_t *)mx->data;
  if (max_out < 0 || max_out != sel->dims[0])
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "max_output_size %d, the planned outputs hold %d: a size set at run "
                        "time is not supported", max_out, sel->dims[0]);
  float iou_t = *(const float *)cpu_in(g, n, NMS_IOU)->data, score_t = *(const float *)cpu_in(g, n, NMS_SCORE_T)->data;
  float sigma = v5 ? *(const float *)cpu_in(g, n, NMS_SIGMA)->data : 0.0f;
  if (sigma < 0.0f) return CPU_NODE_ERR(diag, TFL_ERR_ARG, g, n, "soft_nms_sigma %g is negative", (double)sigma);
  const float *boxes = bx->data, *scores = sc->data;
  int32_t *out = sel->data;
  float *out_sc = ss ? ss->data : NULL;
  nms_cand *h = st->heap;
  int len = 0, nsel = 0;
  for (int i = 0; i < st->num_boxes; i++)
    if (scores[i] > score_t) heap_push(h, &len, (nms_cand){i, scores[i], 0});
  int want = len < max_out ? len : max_out;
  float scale = sigma > 0.0f ? -0.5f / sigma : 0.0f;
  while (nsel < want && len > 0) {
    nms_cand c = heap_pop(h, &len);
    float orig = c.score;
    bool hard = false;
    for (int j = nsel - 1; j >= c.suppress_begin; j--) { /* recent picks first */
      float iou = nms_iou(boxes, c.index, out[j]);
      if (iou >= iou_t) {
        hard = true;
        break;
      }
      if (sigma > 0.0f) c.score = c.score * expf(scale * iou * iou);
      if (c.score <= score_t) break;
    }
    c.suppress_begin = nsel;
    if (hard) continue;
    if (c.score == orig) { /* not decayed: selected */
      out[nsel] = c.index;
      if (out_sc) out_sc[nsel] = c.score;
      nsel++;
    }
    if (c.score > score_t) heap_push(h, &len, c); /* decayed but alive: queued again */
  }
  for (int i = nsel; i < max_out; i++) {
    out[i] = 0;
    if (out_sc) out_sc[i] = 0.0f;
  }
  *(int32_t *)cnt->data = nsel;
  return TFL_OK;
}

/* ---- SEGMENT_SUM, UNSORTED_SEGMENT_* --------------------------------------------------------- */

typedef struct {
  size_t ids, slice;             /* segment ids, elements per data slice */
  size_t segments;               /* output rows */
} segment_state;

static tfl_status segment_prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  bool sorted_op = n->op == TFL_OP_SEGMENT_SUM;
  const tfl_tensor *x = cpu_in(g, n, SEG_DATA), *ids = cpu_in(g, n, SEG_IDS), *y = cpu_out(g, n, OUTPUT);
  const tfl_tensor *ns = sorted_op ? NULL : cpu_in(g, n, SEG_NUM);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "data", -1, diag)) ||
      (s = cpu_check_tensor(g, n, ids, "segment_ids", sorted_op ? 1 : -1, diag)) ||
      (s = cpu_check_tensor(g, n, y, "output", -1, diag)))
    return s;
  if (ns && (s = cpu_check_tensor(g, n, ns, "num_segments", -1, diag))) return s;
  if (x->type != TFL_TYPE_FLOAT32 && x->type != TFL_TYPE_INT32)
    return idx_unsupported_type(g, n, "data", x->type, diag);
  if (ids->type != TFL_TYPE_INT32) return idx_unsupported_type(g, n, "segment_ids", ids->type, diag);
  if (ns && (ns->type != TFL_TYPE_INT32 || tfl_tensor_count(ns) != 1))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "num_segments is %s of %zu elements, expected one INT32",
                        tfl_type_name(ns->type), tfl_tensor_count(ns));
  if ((s = idx_same_storage(g, n, x, "data", y, "output", diag))) return s;
  if (ids->ndim > x->ndim || ids->ndim < 1)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "segment_ids of %d dims, data of %d", ids->ndim, x->ndim);
  for (int i = 0; i < ids->ndim; i++)
    if (ids->dims[i] != x->dims[i])
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "segment_ids dim %d is %d, data's %d", i, ids->dims[i],
                          x->dims[i]);
  if (y->ndim != 1 + x->ndim - ids->ndim)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output has %d dims, expected %d", y->ndim, 1 + x->ndim - ids->ndim);
  for (int i = ids->ndim; i < x->ndim; i++)
    if (y->dims[1 + i - ids->ndim] != x->dims[i])
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output dim %d is %d, data's %d", 1 + i - ids->ndim,
                          y->dims[1 + i - ids->ndim], x->dims[i]);
  segment_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "segment state");
  *state = st;
  st->ids = tfl_tensor_count(ids);
  st->slice = tfl_tensor_count(x) / (st->ids ? st->ids : 1);
  st->segments = (size_t)y->dims[0];
  return TFL_OK;
}

static tfl_status segment_eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const segment_state *st = state;
  const tfl_tensor *x = cpu_in(g, n, SEG_DATA), *idt = cpu_in(g, n, SEG_IDS), *y = cpu_out(g, n, OUTPUT);
  (void)ctx;
  const int32_t *ids = idt->data;
  tfl_op op = n->op;
  bool f = x->type == TFL_TYPE_FLOAT32;
  if (op == TFL_OP_SEGMENT_SUM) {
    int32_t mx = -1;
    for (size_t i = 0; i < st->ids; i++) { /* TFLite: from 0, each id the previous or one more */
      if (i == 0 ? ids[i] != 0 : ids[i] - ids[i - 1] != 0 && ids[i] - ids[i - 1] != 1)
        return CPU_NODE_ERR(diag, TFL_ERR_ARG, g, n, "segment id %d at position %zu: ids must start at 0 and grow by 0 "
                            "or 1", ids[i], i);
      mx = ids[i];
    }
    if ((size_t)mx + 1 != st->segments)
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "segment ids give %d segments, the planned output has %zu: a size "
                          "set at run time is not supported", mx + 1, st->segments);
  } else {
    int32_t ns = *(const int32_t *)cpu_in(g, n, SEG_NUM)->data;
    if (ns < 0 || (size_t)ns != st->segments)
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "num_segments %d, the planned output has %zu rows", ns,
                          st->segments);
    for (size_t i = 0; i < st->ids; i++)
      if (ids[i] >= ns)
        return CPU_NODE_ERR(diag, TFL_ERR_ARG, g, n, "segment id %d at position %zu is not below num_segments %d",
                            ids[i],
                            i, ns);
  }
  size_t total = st->segments * st->slice;
  for (size_t i = 0; i < total; i++) { /* each op's identity */
    switch (op) {
    case TFL_OP_UNSORTED_SEGMENT_PROD:
      if (f) ((float *)y->data)[i] = 1.0f;
      else ((int32_t *)y->data)[i] = 1;
      break;
    case TFL_OP_UNSORTED_SEGMENT_MAX:
      if (f) ((float *)y->data)[i] = -FLT_MAX;
      else ((int32_t *)y->data)[i] = INT32_MIN;
      break;
    case TFL_OP_UNSORTED_SEGMENT_MIN:
      if (f) ((float *)y->data)[i] = FLT_MAX;
      else ((int32_t *)y->data)[i] = INT32_MAX;
      break;
    default:
      if (f) ((float *)y->data)[i] = 0.0f;
      else ((int32_t *)y->data)[i] = 0;
      break;
    }
  }
  for (size_t i = 0; i < st->ids; i++) {
    if (ids[i] < 0) continue; /* TFLite skips negative ids */
    size_t o = (size_t)ids[i] * st->slice, in = i * st->slice;
    for (size_t j = 0; j < st->slice; j++) {
      if (f) {
        float *a = (float *)y->data + o + j, b = ((const float *)x->data)[in + j];
        switch (op) {
        case TFL_OP_UNSORTED_SEGMENT_PROD: *a = *a * b; break;
        case TFL_OP_UNSORTED_SEGMENT_MAX: *a = *a > b ? *a : b; break;
        case TFL_OP_UNSORTED_SEGMENT_MIN: *a = *a < b ? *a : b; break;
        default: *a = *a + b; break;
        }
      } else {
        int32_t *a = (int32_t *)y->data + o + j, b = ((const int32_t *)x->data)[in + j];
        switch (op) {
        case TFL_OP_UNSORTED_SEGMENT_PROD: *a = (int32_t)((uint32_t)*a * (uint32_t)b); break;
        case TFL_OP_UNSORTED_SEGMENT_MAX: *a = *a > b ? *a : b; break;
        case TFL_OP_UNSORTED_SEGMENT_MIN: *a = *a < b ? *a : b; break;
        default: *a = cpu_wrap_add(*a, b); break;
        }
      }
    }
  }
  return TFL_OK;
}

const cpu_kernel cpu_k_select = {select_prepare, select_eval, release, CPU_F32 | CPU_Q8 | CPU_I16 | CPU_I32 | CPU_I64 | CPU_BOOL, 1};
const cpu_kernel cpu_k_select_v2 = {select_prepare, select_eval, release, CPU_F32 | CPU_Q8 | CPU_I16 | CPU_I32 | CPU_I64 | CPU_BOOL, 1};
const cpu_kernel cpu_k_where = {where_prepare, where_eval, release, CPU_BOOL | CPU_F32 | CPU_Q8 | CPU_I32 | CPU_I64, 0};
const cpu_kernel cpu_k_topk_v2 = {topk_prepare, topk_eval, topk_release, CPU_F32 | CPU_Q8 | CPU_I16 | CPU_I32 | CPU_I64, 0};
const cpu_kernel cpu_k_cumsum = {cumsum_prepare, cumsum_eval, release, CPU_F32 | CPU_I32 | CPU_I64, 0};
const cpu_kernel cpu_k_non_max_suppression_v4 = {nms_prepare, nms_eval, nms_release, CPU_F32, 0};
const cpu_kernel cpu_k_non_max_suppression_v5 = {nms_prepare, nms_eval, nms_release, CPU_F32, 0};
const cpu_kernel cpu_k_segment_sum = {segment_prepare, segment_eval, release, CPU_F32 | CPU_I32, 0};
const cpu_kernel cpu_k_unsorted_segment_sum = {segment_prepare, segment_eval, release, CPU_F32 | CPU_I32, 0};
const cpu_kernel cpu_k_unsorted_segment_prod = {segment_prepare, segment_eval, release, CPU_F32 | CPU_I32, 0};
const cpu_kernel cpu_k_unsorted_segment_max = {segment_prepare, segment_eval, release, CPU_F32 | CPU_I32, 0};
const cpu_kernel cpu_k_unsorted_segment_min = {segment_prepare, segment_eval, release, CPU_F32 | CPU_I32, 0};
