/* gl_emit.c - complete shader sources from generator output. */
#include "gl_emit.h"

#include <stdio.h>
#include <string.h>

static void emit_tensor(gl_str *s, const gl_emit_obj *o, gl_shape out, size_t const_base, bool half_buf)
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
  /* numpy broadcasting against the output: size-1 dims read index 0, one channel fills all lanes */
  bool cb = o->sh.c == 1 && out.c > 1;
  gl_str_addf(s, "#define %s_LDB(b, y, x, s) %s_LD(%s, %s, %s, %s)%s\n", n, n, o->sh.b == 1 ? "0" : "(b)",
              o->sh.h == 1 ? "0" : "(y)", o->sh.w == 1 ? "0" : "(x)", o->sh.s == 1 ? "0" : "(s)", cb ? ".xxxx" : "");
}

char *gl_emit_source(const gl_emit_in *e)
{
  gl_str s = {0};
  gl_str_addf(&s, "#version 310 es\n"
                  "layout(local_size_x = %d, local_size_y = %d, local_size_z = %d) in;\n"
                  "precision highp float;\nprecision highp int;\n#define FLT4 vec4\n#define FLT float\n"
                  "#define ACC4 highp vec4\n",
              e->wg[0], e->wg[1], e->wg[2]);
  if (e->fp16) {
    gl_str_addf(&s, "layout(std430, binding = 0) buffer Arena { uvec2 A[]; };\n"
                    "#define LDA(i) FLT4(unpackHalf2x16(A[i].x), unpackHalf2x16(A[i].y))\n"
                    "#define STA(i, v) A[i] = uvec2(packHalf2x16(vec2((v).xy)), packHalf2x16(vec2((v).zw)))\n"
                    "#define LDW(i) vec4(uintBitsToFloat(A[i]), uintBitsToFloat(A[(i) + 1]))\n"
                    "#define STW(i, v) A[i] = floatBitsToUint(vec2((v).xy)); A[(i) + 1] = floatBitsToUint(vec2((v).zw))\n");
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
  for (int i = 0; i < e->n_objs; i++) {
    const gl_emit_obj *o = &e->objs[i];
    bool half_buf = e->fp16 && !e->const_fp32;
    if (o->is_tensor) emit_tensor(&s, o, e->out, e->const_base, half_buf);
    else gl_const_macros(&s, o->name, o->cfmt, e->const_base + o->off, o->n_vec4, half_buf);
  }
  gl_shape o = e->out;
  gl_str_addf(&s, "#define O_B %d\n#define O_H %d\n#define O_W %d\n#define O_C %d\n#define O_S %d\n", o.b, o.h, o.w, o.c,
              o.s);
  gl_str_addf(&s, "void store_out(int b, int y, int x, int s, FLT4 v) {\n%s", e->epilogue ? e->epilogue : "");
  if (o.c % 4) { /* lanes past C stay zero, whatever the op made of them */
    static const char *lanes[4] = {"", "v.x, 0.0, 0.0, 0.0", "v.x, v.y, 0.0, 0.0", "v.x, v.y, v.z, 0.0"};
    gl_str_addf(&s, "  if (s == O_S - 1) v = FLT4(%s);\n", lanes[o.c % 4]);
  }
  gl_str_addf(&s, "  %s(%zu + %s(((b * O_S + s) * O_H + y) * O_W + x), v);\n}\n", e->out_wide ? "STW" : "STA", e->out_off,
              e->out_wide ? "2 * " : "");
  if (e->gen->decls.p) gl_str_addf(&s, "%s", e->gen->decls.p);
  gl_str_addf(&s, "void main() {\n  ivec3 gid = ivec3(gl_GlobalInvocationID);\n");
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
