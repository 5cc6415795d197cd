/* resize.c - RESIZE_BILINEAR (v1-3) and RESIZE_NEAREST_NEIGHBOR on NHWC tensors, with
 * align_corners and half_pixel_centers. The output size comes from the output tensor's
 * dims (shape inference has read the size input).
 *
 * Source coordinates follow TFLite's reference: scale = in/out, or (in-1)/(out-1) with
 * align_corners; bilinear samples at (o + 0.5) * scale - 0.5 with half_pixel_centers,
 * else o * scale, between floor (clamped to >= 0) and ceil (clamped to in-1); nearest
 * takes floor((o + offset) * scale) (round() with align_corners), offset 0.5 with
 * half_pixel_centers. prepare tabulates the per-row and per-column indices and weights.
 * Bilinear: float32 and uint8/int8 (same quantization in and out; the blend is rounded
 * half away from zero). Nearest: any type (a copy of C elements per pixel).
 */
#include "eltwise_common.h"

#include <math.h>
#include <string.h>

enum { INPUT = 0, SIZE = 1 };
enum { OUTPUT = 0 };

typedef struct {
  bool bilinear;
  tfl_type type;
  size_t esize;
  int batches, in_h, in_w, out_h, out_w, ch;
  int *y0, *y1, *x0, *x1;   /* bilinear: neighbours per output row / column (x in pixels) */
  float *wy, *wx;           /* bilinear: weight of y1 / x1 */
  /* nearest uses y0 and x0 only */
} resize_state;

static void release(void *state)
{
  resize_state *st = state;
  if (!st) return;
  free(st->y0);
  free(st->y1);
  free(st->x0);
  free(st->x1);
  free(st->wy);
  free(st->wx);
  free(st);
}

static float axis_scale(bool align_corners, int in, int out)
{
  if (align_corners && out > 1) return (float)(in - 1) / (float)(out - 1);
  return (float)in / (float)out;
}

static void bilinear_axis(const tfl_resize_params *p, int in, int out, int *lo, int *hi, float *w)
{
  float scale = axis_scale(p->align_corners, in, out);
  for (int o = 0; o < out; o++) {
    float v = p->half_pixel_centers ? ((float)o + 0.5f) * scale - 0.5f : (float)o * scale;
    int f = (int)floorf(v), c = (int)ceilf(v);
    lo[o] = f < 0 ? 0 : f;
    hi[o] = c > in - 1 ? in - 1 : c;
    w[o] = v - (float)lo[o];
  }
}

static void nearest_axis(const tfl_resize_params *p, int in, int out, int *idx)
{
  float scale = axis_scale(p->align_corners, in, out);
  float offset = p->half_pixel_centers ? 0.5f : 0.0f;
  for (int o = 0; o < out; o++) {
    float v = ((float)o + offset) * scale;
    int i = p->align_corners ? (int)roundf(v) : (int)floorf(v);
    if (i > in - 1) i = in - 1;
    if (p->half_pixel_centers && i < 0) i = 0;
    idx[o] = i;
  }
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  const tfl_resize_params *p = &n->p.resize;
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "input", 4, diag)) || (s = cpu_check_tensor(g, n, y, "output", 4, diag)))
    return s;
  if (x->type != y->type)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input %s, output %s: types differ",
                        tfl_type_name(x->type), tfl_type_name(y->type));
  if (x->dims[0] != y->dims[0] || x->dims[3] != y->dims[3])
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "input %dx_x_x%d and output %dx_x_x%d differ in batch or channels",
                        x->dims[0], x->dims[3], y->dims[0], y->dims[3]);
  if (p->align_corners && p->half_pixel_centers)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "align_corners and half_pixel_centers both set (%d)", 1);
  bool bilinear = n->op == TFL_OP_RESIZE_BILINEAR;
  if (bilinear && x->type != TFL_TYPE_FLOAT32 && !cpu_is_q8(x->type))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "type %s", tfl_type_name(x->type));
  if (tfl_type_size(x->type) == 0)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "type %s", tfl_type_name(x->type));
  if (cpu_is_q8(x->type) && (cpu_scale(x, 0) != cpu_scale(y, 0) ||
                             cpu_zero_point(x, 0) != cpu_zero_point(y, 0)))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s input and output quantization differ",
                        tfl_type_name(x->type));
  if (x->dims[1] < 1 || x->dims[2] < 1 || y->dims[1] < 1 || y->dims[2] < 1)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "empty image: input %dx%d, output %dx%d", x->dims[1],
                        x->dims[2], y->dims[1], y->dims[2]);

  resize_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "resize state");
  *state = st;
  st->bilinear = bilinear;
  st->type = x->type;
  st->esize = tfl_type_size(x->type);
  st->batches = x->dims[0];
  st->in_h = x->dims[1];
  st->in_w = x->dims[2];
  st->out_h = y->dims[1];
  st->out_w = y->dims[2];
  st->ch = x->dims[3];
  size_t oh = (size_t)st->out_h, ow = (size_t)st->out_w;
  st->y0 = malloc(oh * sizeof(int));
  st->x0 = malloc(ow * sizeof(int));
  if (!st->y0 || !st->x0) return tfl_fail(diag, TFL_ERR_NOMEM, "resize tables");
  if (!bilinear) {
    nearest_axis(p, st->in_h, st->out_h, st->y0);
    nearest_axis(p, st->in_w, st->out_w, st->x0);
    return TFL_OK;
  }
  st->y1 = malloc(oh * sizeof(int));
  st->x1 = malloc(ow * sizeof(int));
  st->wy = malloc(oh * sizeof(float));
  st->wx = malloc(ow * sizeof(float));
  if (!st->y1 || !st->x1 || !st->wy || !st->wx) return tfl_fail(diag, TFL_ERR_NOMEM, "resize tables");
  bilinear_axis(p, st->in_h, st->out_h, st->y0, st->y1, st->wy);
  bilinear_axis(p, st->in_w, st->out_w, st->x0, st->x1, st->wx);
  return TFL_OK;
}

typedef struct {
  const resize_state *st;
  const void *x;
  void *y;
  size_t tasks;
} resize_job;

static void row_bilinear_f32(const resize_state *st, const float *img, float *out, int oy)
{
  int c = st->ch;
  const float *r0 = img + (size_t)st->y0[oy] * st->in_w * c;
  const float *r1 = img + (size_t)st->y1[oy] * st->in_w * c;
  float dy = st->wy[oy];
  for (int ox = 0; ox < st->out_w; ox++) {
    float dx = st->wx[ox];
    float w00 = (1 - dy) * (1 - dx), w10 = dy * (1 - dx), w01 = (1 - dy) * dx, w11 = dy * dx;
    const float *a = r0 + (size_t)st->x0[ox] * c, *b = r1 + (size_t)st->x0[ox] * c;
    const float *a1 = r0 + (size_t)st->x1[ox] * c, *b1 = r1 + (size_t)st->x1[ox] * c;
    float *o = out + (size_t)ox * c;
    for (int k = 0; k < c; k++) o[k] = a[k] * w00 + b[k] * w10 + a1[k] * w01 + b1[k] * w11;
  }
}

static void row_bilinear_q8(const resize_state *st, const uint8_t *img, uint8_t *out, int oy)
{
  int c = st->ch;
  bool is_i8 = st->type == TFL_TYPE_INT8;
  const uint8_t *r0 = img + (size_t)st->y0[oy] * st->in_w * c;
  const uint8_t *r1 = img + (size_t)st->y1[oy] * st->in_w * c;
  float dy = st->wy[oy];
  for (int ox = 0; ox < st->out_w; ox++) {
    float dx = st->wx[ox];
    float w00 = (1 - dy) * (1 - dx), w10 = dy * (1 - dx), w01 = (1 - dy) * dx, w11 = dy * dx;
    const uint8_t *a = r0 + (size_t)st->x0[ox] * c, *b = r1 + (size_t)st->x0[ox] * c;
    const uint8_t *a1 = r0 + (size_t)st->x1[ox] * c, *b1 = r1 + (size_t)st->x1[ox] * c;
    uint8_t *o = out + (size_t)ox * c;
    if (is_i8) {
      for (int k = 0; k < c; k++) {
        float v = (int8_t)a[k] * w00 + (int8_t)b[k] * w10 + (int8_t)a1[k] * w01 + (int8_t)b1[k] * w11;
        o[k] = (uint8_t)cpu_clamp_i32(cpu_round(v), -128, 127);
      }
    } else {
      for (int k = 0; k < c; k++) {
        float v = a[k] * w00 + b[k] * w10 + a1[k] * w01 + b1[k] * w11;
        o[k] = (uint8_t)cpu_clamp_i32((int32_t)(v + 0.5f), 0, 255);
      }
    }
  }
}

static void row_nearest(const resize_state *st, const uint8_t *img, uint8_t *out, int oy)
{
  size_t px = (size_t)st->ch * st->esize;
  const uint8_t *r = img + (size_t)st->y0[oy] * st->in_w * px;
  for (int ox = 0; ox < st->out_w; ox++) memcpy(out + (size_t)ox * px, r + (size_t)st->x0[ox] * px, px);
}

static void task(void *arg, size_t t)
{
  const resize_job *j = arg;
  const resize_state *st = j->st;
  size_t begin, end;
  cpu_task_range(t, j->tasks, (size_t)st->batches * st->out_h, &begin, &end);
  size_t in_img = (size_t)st->in_h * st->in_w * st->ch * st->esize;
  size_t out_row = (size_t)st->out_w * st->ch * st->esize;
  for (size_t r = begin; r < end; r++) {
    int b = (int)(r / (size_t)st->out_h), oy = (int)(r % (size_t)st->out_h);
    const uint8_t *img = (const uint8_t *)j->x + b * in_img;
    uint8_t *out = (uint8_t *)j->y + r * out_row;
    if (!st->bilinear)
      row_nearest(st, img, out, oy);
    else if (st->type == TFL_TYPE_FLOAT32)
      row_bilinear_f32(st, (const float *)img, (float *)out, oy);
    else
      row_bilinear_q8(st, img, out, oy);
  }
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const resize_state *st = state;
  resize_job j = { st, cpu_in(g, n, INPUT)->data, cpu_out(g, n, OUTPUT)->data, 0 };
  size_t rows = (size_t)st->batches * st->out_h;
  size_t row_bytes = (size_t)st->out_w * st->ch * st->esize;
  size_t grain = row_bytes ? 65536 / row_bytes : 1;
  j.tasks = cpu_task_count(ctx, rows, grain ? grain : 1);
  cpu_parallel(ctx, task, &j, j.tasks);
  return TFL_OK;
}

const cpu_kernel cpu_k_resize_bilinear = {prepare, eval, release, CPU_F32 | CPU_Q8, 0};
const cpu_kernel cpu_k_resize_nearest_neighbor = {prepare, eval, release, CPU_ALL_TYPES, 0};
