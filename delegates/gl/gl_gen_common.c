/* gl_gen_common.c - what all generators share: strings, constants, activations. */
#include "gl_gen.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gl_str_addf(gl_str *s, const char *fmt, ...)
{
  if (s->oom) return;
  va_list ap;
  va_start(ap, fmt);
  int need = vsnprintf(s->p ? s->p + s->n : NULL, s->p ? s->cap - s->n : 0, fmt, ap);
  va_end(ap);
  if (need < 0) {
    s->oom = true;
    return;
  }
  if (!s->p || s->n + (size_t)need + 1 > s->cap) {
    size_t cap = s->cap ? s->cap : 1024;
    while (cap < s->n + (size_t)need + 1) cap *= 2;
    char *p = realloc(s->p, cap);
    if (!p) {
      s->oom = true;
      return;
    }
    s->p = p;
    s->cap = cap;
    va_start(ap, fmt);
    vsnprintf(s->p + s->n, s->cap - s->n, fmt, ap);
    va_end(ap);
  }
  s->n += (size_t)need;
}

void gl_str_free(gl_str *s)
{
  free(s->p);
  memset(s, 0, sizeof *s);
}

void gl_str_float(gl_str *s, float f)
{
  if (isinf(f)) {
    gl_str_addf(s, f > 0 ? "(1.0/0.0)" : "(-1.0/0.0)");
    return;
  }
  char buf[48];
  snprintf(buf, sizeof buf, "%.9g", (double)f);
  gl_str_addf(s, "%s%s", buf, strpbrk(buf, ".eEn") ? "" : ".0");
}

bool gl_gen_add_const(gl_gen_out *o, const char *name, float *data, size_t n_vec4)
{
  if (o->n_consts == GL_GEN_MAX_CONSTS) {
    free(data);
    return false;
  }
  gl_gen_const *c = &o->consts[o->n_consts++];
  snprintf(c->name, sizeof c->name, "%s", name);
  c->data = data;
  c->n_vec4 = n_vec4;
  c->group = 0;
  c->step = NULL;
  return true;
}

bool gl_gen_add_weights(gl_gen_out *o, const char *name, float *data, size_t n_vec4, int group, float *step)
{
  if (!gl_gen_add_const(o, name, data, n_vec4)) {
    free(step);
    return false;
  }
  o->consts[o->n_consts - 1].group = group;
  o->consts[o->n_consts - 1].step = step;
  return true;
}

float *gl_weight_steps(const tfl_tensor *w, int out_c, int axis)
{
  if (!w->q.n || (w->type != TFL_TYPE_UINT8 && w->type != TFL_TYPE_INT8)) return NULL;
  int os = (out_c + 3) / 4;
  float *st = calloc((size_t)os * 4, sizeof(float));
  if (!st) return NULL;
  for (int c = 0; c < out_c; c++) st[c] = w->q.n > 1 && w->q.axis == axis && c < w->q.n ? w->q.scale[c] : w->q.scale[0];
  return st;
}

void gl_gen_out_free(gl_gen_out *o)
{
  gl_str_free(&o->decls);
  gl_str_free(&o->main);
  gl_str_free(&o->pre);
  for (int i = 0; i < o->n_consts; i++) free(o->consts[i].data), free(o->consts[i].step);
  memset(o, 0, sizeof *o);
}

void gl_gen_per_vec4(const gl_gen_in *in, gl_gen_out *o)
{
  o->grid[0] = in->out.w;
  o->grid[1] = in->out.h;
  o->grid[2] = in->out.b * in->out.s;
  if (!in->fn) gl_str_addf(&o->main, "  int x = gid.x, y = gid.y, s = gid.z %% O_S, b = gid.z / O_S;\n");
}

void gl_emit_window_open(gl_str *m, int kh, int kw, int sh, int sw, int pt, int pl, int dh, int dw)
{
  gl_str_addf(m,
              "  for (int ky = 0; ky < %d; ky++) {\n"
              "    int iy = y * %d - %d + ky * %d;\n"
              "    if (iy < 0 || iy >= I0_H) continue;\n"
              "    for (int kx = 0; kx < %d; kx++) {\n"
              "      int ix = x * %d - %d + kx * %d;\n"
              "      if (ix < 0 || ix >= I0_W) continue;\n",
              kh, sh, pt, dh, kw, sw, pl, dw);
}

bool gl_act_ok(tfl_activation act)
{
  return act != TFL_ACT_SIGN_BIT;
}

/* TFLite's float kernels with a fused activation (conv, depthwise, transpose conv, fully
 * connected, pooling, add/sub/mul/div: every caller of gl_act_stmt) clamp with its range,
 * [lowest, max] for NONE and [0, max] for RELU too: a sum that overflows saturates at
 * +-FLT_MAX. Their clamp keeps NaN a NaN; GLSL's max() and clamp() leave NaN undefined
 * (llvmpipe gives the bound), so NaN lanes keep their value here. fp16 storage rounds
 * FLT_MAX back to its own infinity. */
static void act_saturate(const char *v, gl_str *s)
{
  gl_str_addf(s, "  %s = mix(%s, sign(%s) * FLT4(", v, v, v);
  gl_str_float(s, FLT_MAX);
  gl_str_addf(s, "), isinf(%s));\n", v);
}

static void act_clamp(const char *v, const char *lo, const char *hi, gl_str *s)
{
  if (hi) gl_str_addf(s, "  %s = mix(clamp(%s, FLT4(%s), FLT4(%s)), %s, isnan(%s));\n", v, v, lo, hi, v, v);
  else gl_str_addf(s, "  %s = mix(max(%s, FLT4(%s)), %s, isnan(%s));\n", v, v, lo, v, v);
}

bool gl_act_stmt(tfl_activation act, const char *v, gl_str *s)
{
  switch (act) {
  case TFL_ACT_NONE: act_saturate(v, s); return true;
  case TFL_ACT_RELU:
    act_clamp(v, "0.0", NULL, s);
    act_saturate(v, s);
    return true;
  case TFL_ACT_RELU_N1_TO_1: act_clamp(v, "-1.0", "1.0", s); return true;
  case TFL_ACT_RELU6: act_clamp(v, "0.0", "6.0", s); return true;
  case TFL_ACT_TANH: gl_str_addf(s, "  %s = tanh(clamp(%s, FLT4(-10.0), FLT4(10.0)));\n", v, v); return true;
  case TFL_ACT_SIGMOID: gl_str_addf(s, "  %s = FLT4(1.0) / (FLT4(1.0) + exp(-%s));\n", v, v); return true;
  case TFL_ACT_SIGN_BIT: return false;
  }
  return false;
}

void gl_define_flat(gl_str *s, const char *head, const gl_str *body)
{
  gl_str_addf(s, "#define %s", head);
  size_t at = s->n;
  gl_str_addf(s, " %s\n", body->p ? body->p : "");
  for (size_t i = at; !s->oom && i + 1 < s->n; i++)
    if (s->p[i] == '\n') s->p[i] = ' ';
  if (body->oom) s->oom = true;
}

void gl_act_macro(tfl_activation act, const char *name, gl_str *s)
{
  gl_str a = {0};
  char head[64];
  snprintf(head, sizeof head, "%s(v)", name);
  gl_act_stmt(act, "v", &a);
  gl_define_flat(s, head, &a);
  gl_str_free(&a);
}

void gl_unroll_list(gl_str *s, const char *name, int n, bool with_j)
{
  gl_str_addf(s, "#define %s(M%s)", name, with_j ? ", j" : "");
  for (int i = 0; i < n; i++) gl_str_addf(s, " M(%d%s)", i, with_j ? ", j" : "");
  gl_str_addf(s, "\n");
}

void gl_undef(gl_str *s, const char *names)
{
  for (const char *p = names; *p;) {
    size_t n = strcspn(p, " ");
    if (n) gl_str_addf(s, "#undef %.*s\n", (int)n, p);
    p += n;
    p += strspn(p, " ");
  }
}

void gl_quant_stmt(const tfl_tensor *t, const char *v, const char *vec, gl_str *s)
{
  int32_t lo, hi;
  if (t->q.n < 1 || !tfl_type_int_range(t->type, &lo, &hi)) return;
  float sc = t->q.scale[0], zp = (float)t->q.zero_point[0];
  /* x * (1 / scale) rounded half to even, as LiteRT's default QUANTIZE (the CPU's
   * quantize.c), clamped to the type so QUANTIZE saturates */
  gl_str_addf(s, "  %s = %s((clamp(roundEven(%s(%s) * ", v, vec, vec, v);
  gl_str_float(s, 1.0f / sc);
  gl_str_addf(s, ") + ");
  gl_str_float(s, zp);
  gl_str_addf(s, ", %s(", vec);
  gl_str_float(s, (float)lo);
  gl_str_addf(s, "), %s(", vec);
  gl_str_float(s, (float)hi);
  gl_str_addf(s, ")) - ");
  gl_str_float(s, zp);
  gl_str_addf(s, ") * ");
  gl_str_float(s, sc);
  gl_str_addf(s, ");\n");
}

float *gl_const_reals(const tfl_tensor *t)
{
  size_t n = tfl_tensor_count(t);
  float *r = malloc(sizeof(float) * (n ? n : 1));
  if (!r) return NULL;
  if (t->q.n > 1) {
    size_t inner = 1;
    for (int d = t->q.axis + 1; d < t->ndim; d++) inner *= (size_t)t->dims[d];
    int nch = t->dims[t->q.axis];
    for (size_t i = 0; i < n; i++) {
      int ch = (int)((i / inner) % (size_t)nch);
      float sc = ch < t->q.n ? t->q.scale[ch] : t->q.scale[0];
      int32_t zp = ch < t->q.n ? t->q.zero_point[ch] : t->q.zero_point[0];
      tfl_tensor one = *t;
      one.q.n = 0;
      r[i] = sc * (gl_tensor_real(&one, t->data, i) - (float)zp);
    }
    return r;
  }
  if (t->type == TFL_TYPE_FLOAT32) memcpy(r, t->data, sizeof(float) * n); /* most weights, once folded */
  else
    for (size_t i = 0; i < n; i++) r[i] = gl_tensor_real(t, t->data, i);
  return r;
}

tfl_status gl_node_error(tfl_diag *diag, tfl_status s, const tfl_graph *g, int node, const char *fmt, ...)
{
  char msg[384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return tfl_fail(diag, s, "node %d (%s): %s", node, tfl_op_name(g->nodes[node].op), msg);
}

void gl_emit_tree_sum(gl_str *m, const char *arr, const char *lane, int n)
{
  gl_str_addf(m, "  %s[%s] = acc;\n  memoryBarrierShared();\n  barrier();\n", arr, lane);
  for (int k = n / 2; k > 0; k /= 2)
    gl_str_addf(m, "  if (%s < %d) %s[%s] += %s[%s + %d];\n  memoryBarrierShared();\n  barrier();\n", lane, k, arr, lane, arr,
                lane, k);
}
