/* gl_gen_shape.c - data movement: CONCATENATION, RESHAPE / SQUEEZE (and the
 * float-domain identities QUANTIZE / DEQUANTIZE), PAD / PADV2, DEPTH_TO_SPACE,
 * RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR. Whole vec4s move when channels line up;
 * otherwise each lane gathers its element (Ik_AT(b, y, x, c) reads one channel). */
#include "gl_gen.h"

#include <stdio.h>
#include <stdlib.h>

static bool float_like(tfl_type t)
{
  return t == TFL_TYPE_FLOAT32 || t == TFL_TYPE_FLOAT16 || t == TFL_TYPE_UINT8 || t == TFL_TYPE_INT8 ||
         t == TFL_TYPE_BOOL;
}

static tfl_status check_io(const tfl_graph *g, int node, int min_in, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  if (n->n_in < min_in || n->in[0] < 0 || n->n_out < 1) return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "missing input or output");
  const tfl_tensor *y = &g->tensors[n->out[0]];
  if (y->ndim > 4 || !float_like(y->type))
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "output %s with %d dims", tfl_type_name(y->type), y->ndim);
  for (int k = 0; k < min_in; k++) {
    if (n->in[k] < 0) return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "input %d missing", k);
    const tfl_tensor *x = &g->tensors[n->in[k]];
    if (x->ndim > 4) return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "input %d has %d dims", k, x->ndim);
  }
  return TFL_OK;
}

static const tfl_tensor *const_input(const tfl_graph *g, const tfl_node *n, int k)
{
  if (k >= n->n_in || n->in[k] < 0) return NULL;
  const tfl_tensor *t = &g->tensors[n->in[k]];
  return t->is_const && t->data ? t : NULL;
}

static int64_t int_at(const tfl_tensor *t, size_t i)
{
  return t->type == TFL_TYPE_INT64 ? ((const int64_t *)t->data)[i] : ((const int32_t *)t->data)[i];
}

/* ---- concatenation ---- */

tfl_status gl_check_concat(const tfl_graph *g, int node, tfl_diag *diag)
{
  const tfl_node *n = &g->nodes[node];
  tfl_status s = check_io(g, node, n->n_in, diag);
  if (s) return s;
  if (n->n_in < 1 || n->n_in > GL_GEN_MAX_IN)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "%d inputs (GL takes 1..%d)", n->n_in, GL_GEN_MAX_IN);
  const tfl_tensor *y = &g->tensors[n->out[0]];
  if (gl_axis_4d(y->ndim, n->p.concat.axis) < 0) return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "axis %d", n->p.concat.axis);
  for (int k = 0; k < n->n_in; k++)
    if (g->tensors[n->in[k]].ndim != y->ndim)
      return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "input %d has %d dims, output %d", k, g->tensors[n->in[k]].ndim, y->ndim);
  return TFL_OK; /* the fused activation is ignored, as the real TFLite does (cpu kernels/concat.c) */
}

tfl_status gl_gen_concat(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  const tfl_node *n = in->n;
  const tfl_graph *g = in->g;
  int axis = gl_axis_4d(g->tensors[n->out[0]].ndim, n->p.concat.axis);
  gl_gen_per_vec4(in, o);
  gl_str *m = &o->main;
  if (axis == 3) {
    bool aligned = true;
    for (int k = 0; k + 1 < n->n_in; k++) aligned = aligned && in->in[k].c % 4 == 0;
    if (aligned) {
      int off = 0;
      gl_str_addf(m, "  FLT4 v;\n");
      for (int k = 0; k < n->n_in; k++) {
        gl_str_addf(m, "  %sif (s < %d) v = I%d_LD(b, y, x, s - %d);\n", k ? "else " : "", off / 4 + in->in[k].s, k, off / 4);
        off += in->in[k].c;
      }
    } else {
      gl_str_addf(m, "  FLT4 v = FLT4(0.0);\n  for (int k = 0; k < 4; k++) {\n    int c = s * 4 + k;\n");
      int off = 0;
      for (int k = 0; k < n->n_in; k++) {
        gl_str_addf(m, "    %sif (c < %d) v[k] = I%d_AT(b, y, x, c - %d);\n", k ? "else " : "", off + in->in[k].c, k, off);
        off += in->in[k].c;
      }
      gl_str_addf(m, "  }\n");
    }
  } else {
    const char *coord[3] = {"b", "y", "x"};
    int off = 0;
    gl_str_addf(m, "  FLT4 v;\n");
    for (int k = 0; k < n->n_in; k++) {
      int len = axis == 0 ? in->in[k].b : axis == 1 ? in->in[k].h : in->in[k].w;
      char args[64];
      snprintf(args, sizeof args, "%s, %s, %s", axis == 0 ? "b - OFF" : "b", axis == 1 ? "y - OFF" : "y",
               axis == 2 ? "x - OFF" : "x");
      gl_str_addf(m, "  %sif (%s < %d) {\n    const int OFF = %d;\n    v = I%d_LD(%s, s);\n  }\n", k ? "else " : "",
                  coord[axis], off + len, off, k, args);
      off += len;
    }
  }
  gl_str_addf(m, "  store_out(b, y, x, s, v);\n");
  return TFL_OK;
}

/* ---- reshape, squeeze, quantize, dequantize ---- */

tfl_status gl_check_reshape(const tfl_graph *g, int node, tfl_diag *diag)
{
  tfl_status s = check_io(g, node, 1, diag);
  if (s) return s;
  const tfl_node *n = &g->nodes[node];
  const tfl_tensor *x = &g->tensors[n->in[0]], *y = &g->tensors[n->out[0]];
  if (!float_like(x->type)) return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "input is %s", tfl_type_name(x->type));
  if (tfl_tensor_count(x) != tfl_tensor_count(y))
    return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "%zu elements in, %zu out", tfl_tensor_count(x), tfl_tensor_count(y));
  return TFL_OK;
}

tfl_status gl_check_alias(const tfl_graph *g, int node, tfl_diag *diag)
{
  return gl_check_reshape(g, node, diag);
}

/* CAST of unquantized 8-bit integers to float (MoveNet's uint8 picture in): GL holds
 * tensors as real values, so the cast copies them; other casts round or wrap. */
tfl_status gl_check_cast(const tfl_graph *g, int node, tfl_diag *diag)
{
  tfl_status s = check_io(g, node, 1, diag);
  if (s) return s;
  const tfl_node *n = &g->nodes[node];
  const tfl_tensor *x = &g->tensors[n->in[0]], *y = &g->tensors[n->out[0]];
  const bool plain = x->q.n == 0 || (x->q.n == 1 && x->q.scale[0] == 1.0f && x->q.zero_point[0] == 0);
  if ((x->type != TFL_TYPE_UINT8 && x->type != TFL_TYPE_INT8) || !plain ||
      (y->type != TFL_TYPE_FLOAT32 && y->type != TFL_TYPE_FLOAT16))
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "cast %s%s to %s", tfl_type_name(x->type),
                         plain ? "" : " (quantized)", tfl_type_name(y->type));
  return gl_check_reshape(g, node, diag);
}

tfl_status gl_gen_reshape(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  gl_gen_per_vec4(in, o);
  gl_str_addf(&o->main,
              "  FLT4 v = FLT4(0.0);\n"
              "  for (int k = 0; k < 4; k++) {\n"
              "    int c = s * 4 + k;\n"
              "    if (c >= O_C) break;\n"
              "    int l = ((b * O_H + y) * O_W + x) * O_C + c;\n"
              "    int ic = l %% I0_C; l /= I0_C;\n"
              "    int ix = l %% I0_W; l /= I0_W;\n"
              "    int iy = l %% I0_H;\n"
              "    v[k] = I0_AT(l / I0_H, iy, ix, ic);\n"
              "  }\n"
              "  store_out(b, y, x, s, v);\n");
  return TFL_OK;
}

/* ---- pad ---- */

/* pre/post padding per BHWC dim from the paddings constant. */
static bool pad_amounts(const tfl_graph *g, const tfl_node *n, int pre[4], int post[4])
{
  const tfl_tensor *x = &g->tensors[n->in[0]], *pd = const_input(g, n, 1);
  for (int d = 0; d < 4; d++) pre[d] = post[d] = 0;
  if (!pd || (pd->type != TFL_TYPE_INT32 && pd->type != TFL_TYPE_INT64) || tfl_tensor_count(pd) != (size_t)x->ndim * 2)
    return false;
  for (int d = 0; d < x->ndim; d++) {
    int a = gl_axis_4d(x->ndim, d);
    pre[a] = (int)int_at(pd, (size_t)d * 2);
    post[a] = (int)int_at(pd, (size_t)d * 2 + 1);
    if (pre[a] < 0 || post[a] < 0) return false;
  }
  return true;
}

tfl_status gl_check_pad(const tfl_graph *g, int node, tfl_diag *diag)
{
  tfl_status s = check_io(g, node, 2, diag);
  if (s) return s;
  const tfl_node *n = &g->nodes[node];
  int pre[4], post[4];
  if (!pad_amounts(g, n, pre, post))
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "paddings are not a constant [rank, 2] int tensor >= 0");
  if (n->op == TFL_OP_PADV2 && n->n_in > 2 && n->in[2] >= 0 && !const_input(g, n, 2))
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "pad value is not constant");
  return TFL_OK;
}

tfl_status gl_gen_pad(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  int pre[4], post[4];
  pad_amounts(in->g, in->n, pre, post);
  float val = 0.0f;
  const tfl_tensor *pv = in->n->op == TFL_OP_PADV2 ? const_input(in->g, in->n, 2) : NULL;
  if (pv) val = gl_tensor_real(pv, pv->data, 0);
  gl_gen_per_vec4(in, o);
  gl_str *m = &o->main;
  gl_str_addf(m, "  const float PADV = ");
  gl_str_float(m, val);
  gl_str_addf(m, ";\n  int ib = b - %d, iy = y - %d, ix = x - %d;\n"
                 "  bool inside = ib >= 0 && ib < I0_B && iy >= 0 && iy < I0_H && ix >= 0 && ix < I0_W;\n",
              pre[0], pre[1], pre[2]);
  if (pre[3] == 0 && in->in[0].c % 4 == 0) /* whole slices: input slices, then pad slices */
    gl_str_addf(m, "  FLT4 v = inside && s < I0_S ? I0_LD(ib, iy, ix, s) : FLT4(PADV);\n");
  else
    gl_str_addf(m,
                "  FLT4 v = FLT4(PADV);\n"
                "  for (int k = 0; k < 4; k++) {\n"
                "    int ic = s * 4 + k - %d;\n"
                "    if (inside && ic >= 0 && ic < I0_C) v[k] = I0_AT(ib, iy, ix, ic);\n"
                "  }\n",
                pre[3]);
  gl_str_addf(m, "  store_out(b, y, x, s, v);\n");
  return TFL_OK;
}

/* ---- depth to space ---- */

tfl_status gl_check_depth_to_space(const tfl_graph *g, int node, tfl_diag *diag)
{
  tfl_status s = check_io(g, node, 1, diag);
  if (s) return s;
  const tfl_node *n = &g->nodes[node];
  int bs = n->p.d2s.block_size;
  const tfl_tensor *x = &g->tensors[n->in[0]];
  if (x->ndim != 4 || bs < 1 || x->dims[3] % (bs * bs))
    return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "block size %d on %d dims", bs, x->ndim);
  return TFL_OK;
}

tfl_status gl_gen_depth_to_space(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  int bs = in->n->p.d2s.block_size;
  gl_gen_per_vec4(in, o);
  gl_str_addf(&o->main,
              "  FLT4 v = FLT4(0.0);\n"
              "  int base = ((y %% %d) * %d + x %% %d) * O_C;\n"
              "  for (int k = 0; k < 4; k++) {\n"
              "    int c = s * 4 + k;\n"
              "    if (c < O_C) v[k] = I0_AT(b, y / %d, x / %d, base + c);\n"
              "  }\n"
              "  store_out(b, y, x, s, v);\n",
              bs, bs, bs, bs, bs);
  return TFL_OK;
}

/* ---- resize ---- */

tfl_status gl_check_resize(const tfl_graph *g, int node, tfl_diag *diag)
{
  tfl_status s = check_io(g, node, 1, diag);
  if (s) return s;
  const tfl_node *n = &g->nodes[node];
  const tfl_tensor *x = &g->tensors[n->in[0]], *y = &g->tensors[n->out[0]];
  if (x->ndim != 4 || y->ndim != 4) return gl_node_error(diag, TFL_ERR_SHAPE, g, node, "needs 4-D input and output");
  if (n->p.resize.align_corners && n->p.resize.half_pixel_centers)
    return gl_node_error(diag, TFL_ERR_UNSUPPORTED, g, node, "align_corners and half_pixel_centers both set");
  return TFL_OK;
}

static float axis_scale(bool align, int in, int out)
{
  if (align && out > 1) return (float)(in - 1) / (float)(out - 1);
  return (float)in / (float)out;
}

tfl_status gl_gen_resize(const gl_gen_in *in, gl_gen_out *o, tfl_diag *diag)
{
  const tfl_resize_params *p = &in->n->p.resize;
  gl_gen_per_vec4(in, o);
  gl_str *m = &o->main;
  gl_str_addf(m, "  const highp float SY = ");
  gl_str_float(m, axis_scale(p->align_corners, in->in[0].h, in->out.h));
  gl_str_addf(m, ", SX = ");
  gl_str_float(m, axis_scale(p->align_corners, in->in[0].w, in->out.w));
  gl_str_addf(m, ";\n");
  if (in->n->op == TFL_OP_RESIZE_BILINEAR) {
    const char *off = p->half_pixel_centers ? " + 0.5) * S%c - 0.5" : ") * S%c";
    gl_str_addf(m, "  highp float fy = (float(y)");
    gl_str_addf(m, off, 'Y');
    gl_str_addf(m, ", fx = (float(x)");
    gl_str_addf(m, off, 'X');
    gl_str_addf(m, ";\n"
                   "  int y0 = max(int(floor(fy)), 0), y1 = min(int(ceil(fy)), I0_H - 1);\n"
                   "  int x0 = max(int(floor(fx)), 0), x1 = min(int(ceil(fx)), I0_W - 1);\n"
                   "  FLT4 wy = FLT4(fy - float(y0)), wx = FLT4(fx - float(x0));\n"
                   "  FLT4 a00 = I0_LD(b, y0, x0, s), a01 = I0_LD(b, y0, x1, s);\n"
                   "  FLT4 a10 = I0_LD(b, y1, x0, s), a11 = I0_LD(b, y1, x1, s);\n"
                   "  FLT4 top = a00 + (a01 - a00) * wx, bot = a10 + (a11 - a10) * wx;\n"
                   "  store_out(b, y, x, s, top + (bot - top) * wy);\n");
  } else {
    const char *off = p->half_pixel_centers ? "0.5" : "0.0";
    const char *rnd = p->align_corners ? " + 0.5" : ""; /* roundf: coordinates are >= 0 */
    gl_str_addf(m,
                "  highp float fy = (float(y) + %s) * SY%s, fx = (float(x) + %s) * SX%s;\n"
                "  int iy = min(int(floor(fy)), I0_H - 1), ix = min(int(floor(fx)), I0_W - 1);\n"
                "  store_out(b, y, x, s, I0_LD(b, max(iy, 0), max(ix, 0), s));\n",
                off, rnd, off, rnd);
  }
  return TFL_OK;
}
