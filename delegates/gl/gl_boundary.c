/* gl_boundary.c - pack/unpack shaders between dense BHWC and PHWC4 (gl_boundary.h). */
#include "gl_boundary.h"

#include "gl_gen.h"
#include "gl_plan.h"
#include "gl_tune.h"

#define ROW 4096 /* 1-D work laid out in rows, to stay under the workgroup-count limit */

bool gl_boundary_ok(const tfl_tensor *t)
{
  return t->type == TFL_TYPE_FLOAT32 && t->q.n == 0;
}

size_t gl_boundary_elems(gl_shape sh)
{
  size_t n = (size_t)sh.b * sh.h * sh.w * sh.c;
  return (n + 1) / 2 * 2;
}

gl_boundary_prog gl_boundary_source(bool to_arena, gl_shape sh, size_t arena_off, size_t dense_off, bool fp16, bool wide,
                                    bool dense16)
{
  gl_boundary_prog r = {NULL, {1, 1, 1}};
  gl_str s = {0};
  size_t n = (size_t)sh.b * sh.h * sh.w * sh.c;
  int grid[3];
  if (to_arena) { /* one invocation per arena vec4 */
    grid[0] = sh.w;
    grid[1] = sh.h;
    grid[2] = sh.b * sh.s;
  } else { /* one per dense uint (fp16: two elements) or float */
    size_t items = dense16 ? (n + 1) / 2 : n;
    grid[0] = ROW;
    grid[1] = (int)((items + ROW - 1) / ROW);
    grid[2] = 1;
  }
  int wg[3];
  gl_tune_workgroup(grid, 0, wg);
  gl_str_addf(&s, "#version 310 es\nlayout(local_size_x = %d, local_size_y = %d, local_size_z = %d) in;\n"
                  "precision highp float;\nprecision highp int;\n", wg[0], wg[1], wg[2]);
  if (fp16 && wide) /* 32-bit floats in the halves' arena: a vec4 is two uvec2 slots */
    gl_str_addf(&s, "layout(std430, binding = 0) buffer Arena { uvec2 A[]; };\n"
                    "#define LDA(i) vec4(uintBitsToFloat(A[i]), uintBitsToFloat(A[(i) + 1]))\n"
                    "#define STA(i, v) (A[i] = floatBitsToUint((v).xy), A[(i) + 1] = floatBitsToUint((v).zw))\n");
  else if (fp16)
    gl_str_addf(&s, "layout(std430, binding = 0) buffer Arena { uvec2 A[]; };\n"
                    "#define LDA(i) vec4(unpackHalf2x16(A[i].x), unpackHalf2x16(A[i].y))\n"
                    "#define STA(i, v) A[i] = uvec2(packHalf2x16((v).xy), packHalf2x16((v).zw))\n");
  else
    gl_str_addf(&s, "layout(std430, binding = 0) buffer Arena { vec4 A[]; };\n"
                    "#define LDA(i) A[i]\n#define STA(i, v) A[i] = (v)\n");
  if (dense16)
    gl_str_addf(&s, "layout(std430, binding = 2) buffer Dense { uint D[]; };\n"
                    "float ldd(int i) { vec2 h = unpackHalf2x16(D[%zu + i / 2]); return (i & 1) == 0 ? h.x : h.y; }\n",
                dense_off / 2);
  else
    gl_str_addf(&s, "layout(std430, binding = 2) buffer Dense { float D[]; };\n"
                    "float ldd(int i) { return D[%zu + i]; }\n",
                dense_off);
  gl_str_addf(&s, "#define B %d\n#define H %d\n#define W %d\n#define C %d\n#define S %d\n#define N %zu\n", sh.b, sh.h,
              sh.w, sh.c, sh.s, n);
  gl_str_addf(&s, "void main() {\n  ivec3 g = ivec3(gl_GlobalInvocationID);\n");
  if (to_arena) {
    gl_str_addf(&s, "  if (g.x >= W || g.y >= H || g.z >= B * S) return;\n"
                    "  int s = g.z %% S, b = g.z / S, p = (b * H + g.y) * W + g.x;\n"
                    "  vec4 v = vec4(0.0);\n"
                    "  for (int k = 0; k < 4; k++) if (s * 4 + k < C) v[k] = ldd(p * C + s * 4 + k);\n"
                    "  STA(%zu + %s(((b * S + s) * H + g.y) * W + g.x), v);\n}\n",
                arena_off, wide ? "2 * " : "");
  } else {
    gl_str_addf(&s, "  int i = g.y * %d + g.x;\n"
                    "  float e[2];\n"
                    "  for (int k = 0; k < %d; k++) {\n"
                    "    int j = i * %d + k;\n"
                    "    int c = j %% C, p = j / C, x = p %% W, y = (p / W) %% H, b = p / (W * H);\n"
                    "    e[k] = j < N ? LDA(%zu + %s(((b * S + c / 4) * H + y) * W + x))[c %% 4] : 0.0;\n"
                    "  }\n",
                ROW, dense16 ? 2 : 1, dense16 ? 2 : 1, arena_off, wide ? "2 * " : "");
    if (dense16)
      gl_str_addf(&s, "  if (i * 2 < N) D[%zu + i] = packHalf2x16(vec2(e[0], e[1]));\n}\n", dense_off / 2);
    else
      gl_str_addf(&s, "  if (i < N) D[%zu + i] = e[0];\n}\n", dense_off);
  }
  for (int a = 0; a < 3; a++) r.groups[a] = (grid[a] + wg[a] - 1) / wg[a];
  if (s.oom) gl_str_free(&s);
  r.src = s.p;
  return r;
}

gl_boundary_prog gl_boundary_slot_source(gl_shape sh, size_t arena_off, bool fp16, bool wide, gl_host_values how)
{
  gl_boundary_prog r = {NULL, {1, 1, 1}};
  gl_str s = {0};
  size_t n = (size_t)sh.h * sh.w * sh.c;
  const int wg = 64;
  int row = (int)((n < ROW ? n : ROW) + wg - 1) / wg * wg; /* values a row of invocations */
  r.groups[0] = row / wg;
  r.groups[1] = (int)((n + (size_t)row - 1) / (size_t)row);
  gl_str_addf(&s, "#version 310 es\nlayout(local_size_x = %d, local_size_y = 1, local_size_z = 1) in;\n"
                  "precision highp float;\nprecision highp int;\n"
                  "#define H %d\n#define W %d\n#define C %d\n#define N %zu\n#define OFF %zu\n"
                  "layout(location = 0) uniform int slot;\n"
                  "layout(location = 1) uniform int dst;\n"
                  "layout(location = 2) uniform int c0;\n"
                  "layout(std430, binding = 2) writeonly buffer Host { float D[]; };\n"
                  /* tfl_half_to_float: exact, denormals too (2^-24 is a literal, not exp2) */
                  "float h2f(uint h) {\n"
                  "  uint e = (h >> 10) & 31u, m = h & 1023u, sign = (h & 0x8000u) << 16;\n"
                  "  if (e == 0u) { float v = float(m) * 5.9604644775390625e-8; return sign != 0u ? -v : v; }\n"
                  "  return uintBitsToFloat(sign | (e == 31u ? 0x7f800000u : (e + 112u) << 23) | (m << 13));\n"
                  "}\n",
              wg, sh.h, sh.w, sh.c, n, arena_off);
  if (!fp16)
    gl_str_addf(&s, "layout(std430, binding = 0) readonly buffer Arena { vec4 A[]; };\n"
                    "float ld(int v, int k) { return A[OFF + slot + v][k]; }\n");
  else if (wide) /* 32-bit floats in the halves' arena, two slots a vec4 (gl_plan.h) */
    gl_str_addf(&s, "layout(std430, binding = 0) readonly buffer Arena { uvec2 A[]; };\n"
                    "float ld(int v, int k) { return uintBitsToFloat(A[OFF + slot + 2 * v + k / 2][k %% 2]); }\n");
  else if (how == GL_HOST_STORED_HALVES)
    gl_str_addf(&s, "layout(std430, binding = 0) readonly buffer Arena { uvec2 A[]; };\n"
                    "float ld(int v, int k) { return h2f((A[OFF + slot + v][k / 2] >> uint(16 * (k %% 2))) & 0xffffu); }\n");
  else
    gl_str_addf(&s, "layout(std430, binding = 0) readonly buffer Arena { uvec2 A[]; };\n"
                    "float ld(int v, int k) { return unpackHalf2x16(A[OFF + slot + v][k / 2])[k %% 2]; }\n");
  gl_str_addf(&s, "void main() {\n"
                  "  int i = int(gl_GlobalInvocationID.y) * %d + int(gl_GlobalInvocationID.x);\n"
                  "  if (i >= N) return;\n"
                  "  int c = i %% C + c0, p = i / C;\n"
                  "  float v = ld((c / 4 * H + p / W) * W + p %% W, c %% 4);\n",
              row);
  if (how == GL_HOST_PACKED_HALVES) gl_str_addf(&s, "  v = h2f(packHalf2x16(vec2(v, 0.0)) & 0xffffu);\n");
  gl_str_addf(&s, "  D[dst + i] = v;\n}\n");
  if (s.oom) gl_str_free(&s);
  r.src = s.p;
  return r;
}
