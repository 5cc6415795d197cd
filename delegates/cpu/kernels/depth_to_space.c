/* depth_to_space.c - DEPTH_TO_SPACE (NHWC, TFLite's DCR order): output pixel
 * (h * bs + dy, w * bs + dx) takes channels [(dy * bs + dx) * oc, +oc) of input pixel
 * (h, w). Any fixed-size type: each output run of oc channels is one memcpy.
 */
#include "eltwise_common.h"

#include <string.h>

enum { INPUT = 0 };
enum { OUTPUT = 0 };

typedef struct {
  int batches, in_h, in_w, in_c, bs, out_c;
  size_t esize;
} d2s_state;

static void release(void *state)
{
  free(state);
}

static tfl_status prepare(tfl_graph *g, const tfl_node *n, void **state, tfl_diag *diag)
{
  const tfl_tensor *x = cpu_in(g, n, INPUT), *y = cpu_out(g, n, OUTPUT);
  int bs = n->p.d2s.block_size;
  tfl_status s;
  if ((s = cpu_check_tensor(g, n, x, "input", 4, diag)) || (s = cpu_check_tensor(g, n, y, "output", 4, diag)))
    return s;
  if (x->type != y->type || tfl_type_size(x->type) == 0)
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "input %s, output %s", tfl_type_name(x->type),
                        tfl_type_name(y->type));
  if (bs < 1 || x->dims[3] % (bs * bs) != 0)
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "block size %d does not divide %d channels", bs, x->dims[3]);
  if (y->dims[0] != x->dims[0] || y->dims[1] != x->dims[1] * bs || y->dims[2] != x->dims[2] * bs ||
      y->dims[3] != x->dims[3] / (bs * bs))
    return CPU_NODE_ERR(diag, TFL_ERR_SHAPE, g, n, "output is %dx%dx%dx%d, expected %dx%dx%dx%d", y->dims[0],
                        y->dims[1], y->dims[2], y->dims[3], x->dims[0], x->dims[1] * bs,
                        x->dims[2] * bs, x->dims[3] / (bs * bs));
  if (cpu_is_q8(x->type) && (cpu_scale(x, 0) != cpu_scale(y, 0) ||
                             cpu_zero_point(x, 0) != cpu_zero_point(y, 0)))
    return CPU_NODE_ERR(diag, TFL_ERR_UNSUPPORTED, g, n, "%s input and output quantization differ",
                        tfl_type_name(x->type));
  d2s_state *st = calloc(1, sizeof *st);
  if (!st) return tfl_fail(diag, TFL_ERR_NOMEM, "depth_to_space state");
  *state = st;
  st->batches = x->dims[0];
  st->in_h = x->dims[1];
  st->in_w = x->dims[2];
  st->in_c = x->dims[3];
  st->bs = bs;
  st->out_c = y->dims[3];
  st->esize = tfl_type_size(x->type);
  return TFL_OK;
}

static tfl_status eval(const tfl_graph *g, const tfl_node *n, void *state, cpu_ctx *ctx, tfl_diag *diag)
{
  const d2s_state *st = state;
  const uint8_t *x = cpu_in(g, n, INPUT)->data;
  uint8_t *y = cpu_out(g, n, OUTPUT)->data;
  size_t run = (size_t)st->out_c * st->esize;
  (void)ctx;
  /* output written in order: b, oy, ox */
  for (int b = 0; b < st->batches; b++)
    for (int oy = 0; oy < st->in_h * st->bs; oy++)
      for (int ox = 0; ox < st->in_w * st->bs; ox++, y += run) {
        int h = oy / st->bs, dy = oy % st->bs, w = ox / st->bs, dx = ox % st->bs;
        size_t pix = ((size_t)b * st->in_h + h) * st->in_w + w;
        memcpy(y, x + (pix * st->in_c + (size_t)(dy * st->bs + dx) * st->out_c) * st->esize, run);
      }
  return TFL_OK;
}

const cpu_kernel cpu_k_depth_to_space = {prepare, eval, release, CPU_ALL_TYPES, 0};
