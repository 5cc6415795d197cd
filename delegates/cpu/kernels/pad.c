/* pad.c - PAD and PADV2 (constant value) over up to 6 dims. Paddings: int32 or int64
 * [ndim, 2] (before, after), constant or computed; read at each eval and checked against
 * the output dims. Pad value: PADV2's scalar input 2 (raw, in the input's type and
 * quantization); otherwise 0, or the zero point for quantized tensors, as TFLite does.
 *
 * eval walks output rows (innermost dim): a row inside the padding is filled, any other is
 * before-fill, one copy of the input row, after-fill. Rows are split over threads.
 */
#include "eltwise_common.h"

#include <string.h>

enum { INPUT = 0, PADDINGS = 1, PAD_VALUE = 2 };
enum { OUTPUT = 0 };

typedef struct {
  int ndim;
  size_t esize;
  uint8_t fill[8];        /* pad value bytes (PAD; PADV2 reads its input at eval) */
} pad_state;

static void release(void *state)
{
  free(state);
}

static tfl_status read_paddings(const tfl_graph *g, const tfl_node *n, int ndim,
                                int64_t before[TFL_MAX_DIMS], int64_t after[TFL_MAX_DIMS], tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *p = cpu_in(g, n, PADDINGS), *y = cpu_out(g, n, OUTPUT);
  for (int d = 0; d < ndim; d++) {
    if (p->type == TFL_TYPE_INT32) {
      before[d] = ((const int32_t *)p->data)[2 * d];
      after[d] = ((const int32_t *)p->data)[2 * d + 1];
    } else {
      before[d] = ((const int64_t *)p->data)[2 * d];
      after[d] = ((const int64_t *)p->data)[2 * d + 1];
    }
    if (before[d] < 0 || after[d] < 0 || x->dims[d] + before[d] + after[d] != y->dims[d])
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n,
                          "dim %d: padding (%lld, %lld) of %d does not give the output's %d", d,
                          (long long)before[d], (long long)after[d], x->dims[d], y->dims[d]);
  }
  return TFL_OK;
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *p = cpu_in(g, n, PADDINGS), *y = cpu_out(g, n, OUTPUT);
  const tfl_tensor *v = n->op == TFL_OP_PADV2 ? cpu_in(g, n, PAD_VALUE) : NULL;
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "input", -1, diag)) || (s = cpu_check_tensor(g, n, p, "paddings", 2, diag)) ||
      (s = cpu_check_tensor(g, n, y, "output", x->ndim, diag)))
    return s;
  if (x->type != y->type)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input %s, output %s: types differ",
                        tfl_type_name(x->type), tfl_type_name(y->type));
  size_t esize = tfl_type_size(x->type);
  if (esize == 0) return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "type %s", tfl_type_name(x->type));
  if (p->type != TFL_TYPE_INT32 && p->type != TFL_TYPE_INT64)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "paddings are %s, expected INT32 or INT64",
                        tfl_type_name(p->type));
  if (p->dims[0] != x->ndim || p->dims[1] != 2)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "paddings are %dx%d, expected %dx2", p->dims[0],
                        p->dims[1], x->ndim);
  if (cpu_is_q8(x->type) && (cpu_scale(x, 0) != cpu_scale(y, 0) ||
                             cpu_zero_point(x, 0) != cpu_zero_point(y, 0)))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s input and output quantization differ",
                        tfl_type_name(x->type));
  if (v) {
    if (v->type != x->type || tfl_tensor_count(v) != 1)
      return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "pad value is %s with %zu elements, expected one %s",
                          tfl_type_name(v->type), tfl_tensor_count(v), tfl_type_name(x->type));
  }
  pad_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "pad state");
  *state = st;
  st->ndim = x->ndim;
  st->esize = esize;
  if (cpu_is_q8(y->type)) st->fill[0] = (uint8_t)cpu_zero_point(y, 0);
  if (p->is_const && p->data) {
    int64_t before[TFL_MAX_DIMS], after[TFL_MAX_DIMS];
    if ((s = read_paddings(g, n, x->ndim, before, after, diag))) return s;
  }
  return TFL_OK;
}

typedef struct {
  const pad_state *st;
  const tfl_tensor *x, *y;
  int64_t before[TFL_MAX_DIMS];
  uint8_t fill[8];
  bool fill_bytes_equal;
  size_t rows, tasks;
} pad_job;

static void fill(const pad_job *j, uint8_t *dst, size_t count)
{
  size_t es = j->st->esize;
  if (j->fill_bytes_equal) {
    memset(dst, j->fill[0], count * es);
    return;
  }
  for (size_t k = 0; k < count; k++) memcpy(dst + k * es, j->fill, es);
}

static void task(void *arg, size_t t)
{
  const pad_job *j = arg;
  const tfl_tensor *x = j->x, *y = j->y;
  int nd = j->st->ndim, last = nd - 1;
  size_t es = j->st->esize;
  size_t out_w = nd ? (size_t)y->dims[last] : 1, in_w = nd ? (size_t)x->dims[last] : 1;
  size_t begin, end;
  cpu_task_range(t, j->tasks, j->rows, &begin, &end);
  for (size_t r = begin; r < end; r++) {
    uint8_t *dst = (uint8_t *)y->data + r * out_w * es;
    /* input row index of output row r, or none when inside the padding */
    size_t rem = r, in_row = 0, in_stride = 1;
    bool inside = true;
    for (int d = last - 1; d >= 0; d--) {
      int64_t i = (int64_t)(rem % (size_t)y->dims[d]) - j->before[d];
      rem /= (size_t)y->dims[d];
      if (i < 0 || i >= x->dims[d]) {
        inside = false;
        break;
      }
      in_row += (size_t)i * in_stride;
      in_stride *= (size_t)x->dims[d];
    }
    if (!inside) {
      fill(j, dst, out_w);
      continue;
    }
    size_t lead = nd ? (size_t)j->before[last] : 0;
    fill(j, dst, lead);
    memcpy(dst + lead * es, (const uint8_t *)x->data + in_row * in_w * es, in_w * es);
    fill(j, dst + (lead + in_w) * es, out_w - lead - in_w);
  }
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const pad_state *st = state;
  pad_job j = { st, cpu_in(g, n, INPUT), cpu_out(g, n, OUTPUT), { 0 }, { 0 }, true, 0, 0 };
  int64_t after[TFL_MAX_DIMS];
  tfl_status s = read_paddings(g, n, st->ndim, j.before, after, diag);
  if (s) return s;
  memcpy(j.fill, st->fill, sizeof j.fill);
  const tfl_tensor *v = n->op == TFL_OP_PADV2 ? cpu_in(g, n, PAD_VALUE) : NULL;
  if (v) memcpy(j.fill, v->data, st->esize);
  for (size_t k = 1; k < st->esize; k++)
    if (j.fill[k] != j.fill[0]) j.fill_bytes_equal = false;
  size_t out_w = st->ndim ? (size_t)j.y->dims[st->ndim - 1] : 1;
  j.rows = out_w ? tfl_tensor_count(j.y) / out_w : 0;
  size_t grain = out_w ? 65536 / (out_w * st->esize) : 1;
  j.tasks = cpu_task_count(ctx, j.rows, grain ? grain : 1);
  cpu_parallel(ctx, task, &j, j.tasks);
  return TFL_OK;
}

const cpu_kernel cpu_k_pad = {prepare, eval, release, CPU_ALL_TYPES, 0};
const cpu_kernel cpu_k_padv2 = {prepare, eval, release, CPU_ALL_TYPES, 0};
