/* gl_emit.c - complete shader sources from generator output. */
#include "gl_emit.h"

#include <stdio.h>
#include <string.h>

static void emit_tensor(gl_str *s, const gl_emit_obj *o, gl_shape out, size_t const_base, bool half_buf, bool lanes)
{
  const char *n = o->name;
  gl_str_addf(s, "#define %s_B %d\n#define %s_H %d\n#define %s_W %d\n#define %s_C %d\n#define %s_S %d\n", n, o->sh.b, n,
              o->sh.h, n, o->sh.w, n, o->sh.c, n, o->sh.s);
  if (o->is_const) { /* flat vec4s in the constant buffer (GL_CONST_FLOAT) */
    char flat[24];
    snprintf(flat, sizeof flat, "%s_K", n);
    gl_const_macros(s, flat, GL_CONST_FLOAT, const_base + o->off, o->n_vec4, half_buf);
    gl_str_addf(s, "#define %s_LD(b, y, x, s) %s_K_LD((((b) * %d + (s)) * %d + (y)) * %d + (x))\n", n, n, o->sh.s,
                o->sh.h, o->sh.w);
  } else {
    gl_str_addf(s, "#define %s_LD(b, y, x, s) %s(%zu + %s((((b) * %d + (s)) * %d + (y)) * %d + (x)))\n", n,
                o->wide ? "LDW" : "LDA", o->off, o->wide ? "2 * " : "", o->sh.s, o->sh.h, o->sh.w);
  }
  gl_str_addf(s, "#define %s_AT(b, y, x, c) %s_LD(b, y, x, (c) / 4)[(c) %% 4]\n", n, n);
  if (!o->is_const)
    gl_str_addf(s, "#define %s_ST(b, y, x, s, v) %s(%zu + %s((((b) * %d + (s)) * %d + (y)) * %d + (x)), v)\n", n,
                o->wide ? "STW" : "STA", o->off, o->wide ? "2 * " : "", o->sh.s, o->sh.h, o->sh.w);
  if (!o->is_const && lanes)
    gl_str_addf(s, "#define %s_STL(b, y, x, c, v) %s(%zu + %s((((b) * %d + (c) / 4) * %d + (y)) * %d + (x)), "
                   "(c) %% 4, v)\n", n, o->wide ? "STLW" : "STL", o->off, o->wide ? "2 * " : "", o->sh.s, o->sh.h,
                o->sh.w);
  /* numpy broadcasting against the output: size-1 dims read index 0, one channel fills all lanes */
  bool cb = o->sh.c == 1 && out.c > 1;
  gl_str_addf(s, "#define %s_LDB(b, y, x, s) %s_LD(%s, %s, %s, %s)%s\n", n, n, o->sh.b == 1 ? "0" : "(b)",
              o->sh.h == 1 ? "0" : "(y)", o->sh.w == 1 ? "0" : "(x)", o->sh.s == 1 ? "0" : "(s)", cb ? ".xxxx" : "");
}

static void undef_tensor(gl_str *s, const gl_emit_obj *o, bool lanes)
{
  static const char *const sfx[] = {"B", "H", "W", "C", "S", "LD", "AT", "LDB"};
  for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++) gl_str_addf(s, "#undef %s_%s\n", o->name, sfx[i]);
  if (o->is_const) gl_str_addf(s, "#undef %s_K_LD\n#undef %s_K_SC\n", o->name, o->name);
  else if (!o->virt) gl_str_addf(s, "#undef %s_ST\n", o->name);
  if (!o->is_const && !o->virt && lanes) gl_str_addf(s, "#undef %s_STL\n", o->name);
}

static void emit_objects(gl_str *s, const gl_emit_in *e, const int *fn_ids)
{
  bool half_buf = e->fp16 && !e->const_fp32;
  for (int i = 0; i < e->n_objs; i++) {
    const gl_emit_obj *o = &e->objs[i];
    if (o->hidden) continue;
    if (o->virt) { /* the producer's function stands in for the loads */
      gl_str_addf(s, "#define %s_B %d\n#define %s_H %d\n#define %s_W %d\n#define %s_C %d\n#define %s_S %d\n", o->name,
                  o->sh.b, o->name, o->sh.h, o->name, o->sh.w, o->name, o->sh.c, o->name, o->sh.s);
      gl_str_addf(s, "#define %s_LD(b, y, x, s) P%d_f(b, y, x, s)\n", o->name, fn_ids[i]);
      gl_str_addf(s, "#define %s_AT(b, y, x, c) %s_LD(b, y, x, (c) / 4)[(c) %% 4]\n", o->name, o->name);
      bool cb = o->sh.c == 1 && e->out.c > 1;
      gl_str_addf(s, "#define %s_LDB(b, y, x, s) %s_LD(%s, %s, %s, %s)%s\n", o->name, o->name, o->sh.b == 1 ? "0" : "(b)",
                  o->sh.h == 1 ? "0" : "(y)", o->sh.w == 1 ? "0" : "(x)", o->sh.s == 1 ? "0" : "(s)", cb ? ".xxxx" : "");
    } else if (o->is_tensor) {
      emit_tensor(s, o, e->out, e->const_base, half_buf, e->gen->lane_stores);
    } else {
      gl_const_macros(s, o->name, o->cfmt, e->const_base + o->off, o->n_vec4, half_buf);
    }
  }
  gl_shape o = e->out;
  gl_str_addf(s, "#define O_B %d\n#define O_H %d\n#define O_W %d\n#define O_C %d\n#define O_S %d\n", o.b, o.h, o.w, o.c,
              o.s);
}

/* The epilogue on v (fused ops), then lanes past the stored tensor's C zeroed, whatever
 * the op made of them. */
static void emit_finish(gl_str *s, const char *epilogue, gl_shape sh)
{
  gl_str_addf(s, "%s", epilogue ? epilogue : "");
  if (sh.c % 4) {
    static const char *const lanes[4] = {"", "v.x, 0.0, 0.0, 0.0", "v.x, v.y, 0.0, 0.0", "v.x, v.y, v.z, 0.0"};
    gl_str_addf(s, "  if (s == %d) v = FLT4(%s);\n", sh.s - 1, lanes[sh.c % 4]);
  }
}

/* The store of one part of the output: in place, or its lanes to where reshapes and
 * concatenations put them (gl_remap: one 32-bit store per lane, so the destination
 * must not hold halves). */
static void emit_store(gl_str *s, const gl_emit_in *e, const gl_emit_part *pt)
{
  gl_shape o = pt->sh;
  if (!pt->remap) {
    gl_str_addf(s, "  %s(%zu + %s(((b * %d + s) * %d + y) * %d + x), v);\n", pt->wide ? "STW" : "STA", pt->off,
                pt->wide ? "2 * " : "", o.s, o.h, o.w);
    return;
  }
  const gl_emit_obj *d = &e->objs[pt->remap->dst];
  gl_str_addf(s, "  for (int l = 0; l < 4; l++) {\n    int c = s * 4 + l;\n    if (c >= %d) break;\n"
                 "    int L = ((b * %d + y) * %d + x) * %d + c;\n", o.c, o.h, o.w, o.c);
  for (int k = 0; k < pt->remap->n; k++)
    gl_str_addf(s, "    L = (L / %ld) * %ld + %ld + L %% %ld;\n", pt->remap->a[k], pt->remap->b[k], pt->remap->add[k],
                pt->remap->a[k]);
  gl_str_addf(s, "    int dc = L %% %d, dw = (L / %d) %% %d, dh = (L / %d) %% %d, db = L / %d;\n"
                 "    int i = ((db * %d + dc / 4) * %d + dh) * %d + dw;\n",
              d->sh.c, d->sh.c, d->sh.w, d->sh.c * d->sh.w, d->sh.h, d->sh.c * d->sh.w * d->sh.h, d->sh.s, d->sh.h,
              d->sh.w);
  if (e->fp16) /* 32-bit lanes in the halves' arena: lane l of vec4 i is uint (2i + l/2, l%2) */
    gl_str_addf(s, "    A[%zu + 2 * i + (dc %% 4) / 2][dc %% 2] = floatBitsToUint(v[l]);\n  }\n", d->off);
  else
    gl_str_addf(s, "    A[%zu + i][dc %% 4] = v[l];\n  }\n", d->off);
}

/* STL(i, l, v) / STLW: lane l of arena vec4 i (32-bit floats in the fp16 arena) set to
 * v, the other lanes left as other workgroups write them. A float is a word of its own;
 * two halves share a uint, so each clears and sets its 16 bits with atomics. */
static void emit_lane_stores(gl_str *s, bool fp16)
{
  if (!fp16) {
    gl_str_addf(s, "#define STL(i, l, v) A[i][l] = (v)\n");
    return;
  }
  gl_str_addf(s, "#define STLW(i, l, v) A[(i) + (l) / 2][(l) %% 2] = floatBitsToUint(v)\n"
                 "void STL(int i, int l, float v) {\n"
                 "  uint sh = 16u * uint(l %% 2), keep = ~(0xffffu << sh);\n"
                 "  uint h = (packHalf2x16(vec2(v, 0.0)) & 0xffffu) << sh;\n"
                 "  if (l < 2) { atomicAnd(A[i].x, keep); atomicOr(A[i].x, h); }\n"
                 "  else { atomicAnd(A[i].y, keep); atomicOr(A[i].y, h); }\n}\n");
}

/* Functions of the inlined producers among e's objects (innermost first); ids[i] gets
 * the id of object i's function. */
static int emit_functions(gl_str *s, const gl_emit_in *e, int next, int *ids);

static int emit_function(gl_str *s, const gl_emit_in *e, int next)
{
  int ids[64] = {0};
  next = emit_functions(s, e, next, ids);
  int id = next++;
  emit_objects(s, e, ids);
  gl_str_addf(s, "FLT4 P%d_fin(int b, int y, int x, int s, FLT4 v) {\n", id);
  emit_finish(s, e->epilogue, e->out);
  gl_str_addf(s, "  return v;\n}\n#define store_out(b_, y_, x_, s_, v_) r_ = P%d_fin(b_, y_, x_, s_, v_)\n", id);
  gl_str_addf(s, "FLT4 P%d_f(int b, int y, int x, int s) {\n  FLT4 r_ = FLT4(0.0);\n%s  return r_;\n}\n", id,
              e->gen->main.p ? e->gen->main.p : "");
  gl_str_addf(s, "#undef store_out\n#undef O_B\n#undef O_H\n#undef O_W\n#undef O_C\n#undef O_S\n");
  for (int i = 0; i < e->n_objs; i++) {
    const gl_emit_obj *o = &e->objs[i];
    if (o->hidden) continue;
    if (o->is_tensor || o->virt) undef_tensor(s, o, e->gen->lane_stores);
    else gl_str_addf(s, "#undef %s_LD\n#undef %s_SC\n", o->name, o->name);
  }
  return next;
}

static int emit_functions(gl_str *s, const gl_emit_in *e, int next, int *ids)
{
  for (int i = 0; i < e->n_objs && i < 64; i++)
    if (e->objs[i].virt && !e->objs[i].hidden) {
      next = emit_function(s, e->objs[i].virt, next);
      ids[i] = next - 1;
    }
  return next;
}

char *gl_emit_source(const gl_emit_in *e)
{
  gl_str s = {0};
  gl_str_addf(&s, "#version 310 es\n"
                  "layout(local_size_x = %d, local_size_y = %d, local_size_z = %d) in;\n"
                  "precision %s float;\nprecision highp int;\n#define FLT4 vec4\n#define FLT float\n"
                  "#define ACC4 highp vec4\n",
              e->wg[0], e->wg[1], e->wg[2], e->mediump ? "mediump" : "highp");
  if (e->fp16) {
    gl_str_addf(&s, "layout(std430, binding = 0) buffer Arena { uvec2 A[]; };\n"
                    "#define LDA(i) FLT4(unpackHalf2x16(A[i].x), unpackHalf2x16(A[i].y))\n"
                    "#define STA(i, v) A[i] = uvec2(packHalf2x16(vec2((v).xy)), packHalf2x16(vec2((v).zw)))\n"
                    "#define LDW(i) vec4(uintBitsToFloat(A[i]), uintBitsToFloat(A[(i) + 1]))\n"
                    "#define STW(i, v) (A[i] = floatBitsToUint(vec2((v).xy)), A[(i) + 1] = floatBitsToUint(vec2((v).zw)))\n");
    if (e->has_consts && e->const_fp32)
      gl_str_addf(&s, "layout(std430, binding = 1) readonly buffer Consts { highp vec4 K[]; };\n");
    else if (e->has_consts)
      gl_str_addf(&s, "layout(std430, binding = 1) readonly buffer Consts { uvec2 K[]; };\n");
  } else {
    gl_str_addf(&s, "layout(std430, binding = 0) buffer Arena { vec4 A[]; };\n"
                    "#define LDA(i) A[i]\n"
                    "#define STA(i, v) A[i] = (v)\n");
    if (e->has_consts) gl_str_addf(&s, "layout(std430, binding = 1) readonly buffer Consts { vec4 K[]; };\n");
  }
  if (e->gen->scratch && e->fp16) /* a slot is a uvec2: the floats' bits */
    gl_str_addf(&s, "#define SC_LD(i) uintBitsToFloat(A[%zu + (i)])\n#define SC_ST(i, v) A[%zu + (i)] = floatBitsToUint(v)\n",
                e->scratch_off, e->scratch_off);
  else if (e->gen->scratch)
    gl_str_addf(&s, "#define SC_LD(i) A[%zu + (i)].xy\n#define SC_ST(i, v) A[%zu + (i)].xy = (v)\n", e->scratch_off,
                e->scratch_off);
  if (e->gen->lane_stores) emit_lane_stores(&s, e->fp16);
  gl_str_addf(&s, "%s", gl_eltwise_helpers());
  int ids[64] = {0};
  emit_functions(&s, e, 0, ids);
  emit_objects(&s, e, ids);
  gl_str_addf(&s, "void store_out(int b, int y, int x, int s, FLT4 v) {\n");
  if (e->second) { /* the paired convolution's slices (no epilogue of their own) */
    gl_str_addf(&s, "  if (s >= %d) {\n    s -= %d;\n", e->second->s0, e->second->s0);
    emit_finish(&s, NULL, e->second->sh);
    emit_store(&s, e, e->second);
    gl_str_addf(&s, "    return;\n  }\n");
  }
  gl_emit_part first = {0, e->second ? e->first_sh : e->out, e->out_off, e->out_wide, e->remap};
  emit_finish(&s, e->epilogue, first.sh);
  emit_store(&s, e, &first);
  gl_str_addf(&s, "}\n");
  if (e->first_pass) gl_str_addf(&s, "#define FIRST_PASS\n");
  if (e->gen->decls.p) gl_str_addf(&s, "%s", e->gen->decls.p);
  if (e->gid_base) gl_str_addf(&s, "layout(location = 0) uniform ivec4 tfl_gid_base;\n");
  gl_str_addf(&s, "void main() {\n  ivec3 gid = ivec3(gl_GlobalInvocationID)%s;\n", e->gid_base ? " + tfl_gid_base.xyz" : "");
  if (!e->gen->whole_groups)
    gl_str_addf(&s, "  if (gid.x >= %d || gid.y >= %d || gid.z >= %d) return;\n", e->gen->grid[0], e->gen->grid[1],
                e->gen->grid[2]);
  gl_str_addf(&s, "%s}\n", e->gen->main.p ? e->gen->main.p : "");
  if (s.oom) {
    gl_str_free(&s);
    return NULL;
  }
  return s.p;
}
