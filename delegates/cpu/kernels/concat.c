/* concat.c - CONCATENATION along any axis (negative counts from the end). Its fused
 * activation is not applied, as in the real TFLite. Any fixed-size type is copied bytewise; uint8/int8 inputs whose
 * quantization differs from the output's are requantized through a 256-entry table
 * (computed as TFLite's builtin quantized concatenation does, in float32).
 *
 * The output is outer x (sum of the inputs' axis*inner blocks): for each outer index each
 * input contributes one contiguous block. eval splits the outer index over threads.
 */
#include "eltwise_common.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

enum { OUTPUT = 0 };

typedef struct {
  int n_in;
  size_t outer;          /* product of dims before the axis */
  size_t out_block;      /* bytes of one output outer slice */
  size_t *block;         /* per input: bytes of one outer slice */
  size_t *offset;        /* per input: byte offset inside the output slice */
  uint8_t **lut;         /* per input: requantization table, or NULL for a plain copy */
  uint8_t *flip;         /* per input */
} concat_state;

static void release(void *state)
{
  concat_state *st = state;
  if (!st) return;
  if (st->lut)
    for (int i = 0; i < st->n_in; i++) free(st->lut[i]);
  free(st->lut);
  free(st->block);
  free(st->offset);
  free(st->flip);
  free(st);
}

static bool same_quant(const tfl_tensor *a, const tfl_tensor *b)
{
  return cpu_scale(a, 0) == cpu_scale(b, 0) && cpu_zero_point(a, 0) == cpu_zero_point(b, 0);
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *y = cpu_out(g, n, OUTPUT);
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, y, "output", -1, diag))) return s;
  if (n->n_in < 1) return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "%d inputs, expected >= 1", n->n_in);
  int nd = y->ndim, axis = n->p.concat.axis;
  if (axis < 0) axis += nd;
  if (axis < 0 || axis >= nd)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "axis %d out of range for %d dims", n->p.concat.axis, nd);
  size_t esize = tfl_type_size(y->type);
  if (esize == 0) return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "type %s", tfl_type_name(y->type));
  bool q8 = cpu_is_q8(y->type);
  if (q8 && (s = cpu_check_per_tensor(g, n, y, "output", diag))) return s;

  concat_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "concat state");
  *state = st;
  st->n_in = n->n_in;
  st->block = calloc((size_t)n->n_in, sizeof *st->block);
  st->offset = calloc((size_t)n->n_in, sizeof *st->offset);
  st->lut = calloc((size_t)n->n_in, sizeof *st->lut);
  st->flip = calloc((size_t)n->n_in, 1);
  if (!st->block || !st->offset || !st->lut || !st->flip) return tfl_fail(diag, TFL_ERR_NOMEM, "concat state");
  st->outer = 1;
  for (int d = 0; d < axis; d++) st->outer *= (size_t)y->dims[d];
  size_t inner = esize;
  for (int d = axis + 1; d < nd; d++) inner *= (size_t)y->dims[d];

  /* the real TFLite leaves CONCATENATION's fused activation unapplied (checked by
   * tests/opmodels op_concat_axis_neg1_relu against it): outputs only saturate */
  int32_t lo, hi;
  cpu_type_limits(y->type, &lo, &hi);
  long axis_sum = 0;
  for (int i = 0; i < n->n_in; i++) {
    const tfl_tensor *x = cpu_in(g, n, i);
    char what[32];
    snprintf(what, sizeof what, "input %d", i);
    if ((s = cpu_check_tensor(g, n, x, what, nd, diag))) return s;
    if (x->type != y->type)
      return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input %d is %s, output %s", i,
                          tfl_type_name(x->type), tfl_type_name(y->type));
    for (int d = 0; d < nd; d++)
      if (d != axis && x->dims[d] != y->dims[d])
        return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input %d dim %d is %d, output has %d", i, d,
                            x->dims[d], y->dims[d]);
    st->block[i] = inner * (size_t)x->dims[axis];
    st->offset[i] = inner * (size_t)axis_sum;
    axis_sum += x->dims[axis];
    if (q8) {
      if ((s = cpu_check_per_tensor(g, n, x, what, diag))) return s;
      if (!same_quant(x, y)) {
        st->lut[i] = malloc(256);
        if (!st->lut[i]) return tfl_fail(diag, TFL_ERR_NOMEM, "concat table");
        st->flip[i] = cpu_q8_flip(x->type);
        /* TFLite's builtin (XNNPACK takes only equal quantizations): in float32,
         * round(q * scale + bias) half away from zero, scale = in_scale * (1 / out_scale),
         * bias = -in_zp * scale */
        const float sc = cpu_scale(x, 0) * (1.0f / cpu_scale(y, 0));
        const float bias = -(float)cpu_zero_point(x, 0) * sc;
        for (int c = 0; c < 256; c++) {
          volatile float v = (float)cpu_q8_value(x->type, c) * sc; /* no fused multiply-add */
          int32_t q = (int32_t)roundf(v + bias) + cpu_zero_point(y, 0);
          st->lut[i][c] = (uint8_t)cpu_clamp_i32(q, lo, hi);
        }
      }
    }
  }
  if (axis_sum != y->dims[axis])
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "inputs sum to %ld along axis %d, output has %d",
                        axis_sum, axis, y->dims[axis]);
  st->out_block = inner * (size_t)axis_sum;
  return TFL_OK;
}

typedef struct {
  const concat_state *st;
  const tfl_graph *g;
  const tfl_node *n;
  uint8_t *y;
  size_t tasks;
} concat_job;

static void task(void *arg, size_t t)
{
  const concat_job *j = arg;
  const concat_state *st = j->st;
  size_t begin, end;
  cpu_task_range(t, j->tasks, st->outer, &begin, &end);
  for (int i = 0; i < st->n_in; i++) {
    const uint8_t *x = cpu_in(j->g, j->n, i)->data;
    size_t bl = st->block[i];
    for (size_t o = begin; o < end; o++) {
      const uint8_t *src = x + o * bl;
      uint8_t *dst = j->y + o * st->out_block + st->offset[i];
      if (st->lut[i]) {
        const uint8_t *lut = st->lut[i], f = st->flip[i];
        for (size_t k = 0; k < bl; k++) dst[k] = lut[src[k] ^ f];
      } else {
        memcpy(dst, src, bl);
      }
    }
  }
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const concat_state *st = state;
  concat_job j = { st, g, n, cpu_out(g, n, OUTPUT)->data, 0 };
  size_t rows_per_task = st->out_block ? 65536 / st->out_block : 1;
  j.tasks = cpu_task_count(ctx, st->outer, rows_per_task ? rows_per_task : 1);
  cpu_parallel(ctx, task, &j, j.tasks);
  return TFL_OK;
}

const cpu_kernel cpu_k_concatenation = {prepare, eval, release, CPU_ALL_TYPES, 0};
