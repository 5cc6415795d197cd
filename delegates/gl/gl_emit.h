/* gl_emit.h - wraps a generator's body into a complete compute shader: version,
 * workgroup, storage blocks, per-object macros (see gl_gen.h), store_out with the
 * fused epilogue, main with the grid check. Pure string work, no GL. */
#ifndef GL_EMIT_H
#define GL_EMIT_H

#include "gl_consts.h"
#include "gl_gen.h"

typedef struct {
  char name[16];             /* "I0", "E1", "W", ... */
  gl_shape sh;               /* tensor objects only */
  bool is_tensor;            /* tensor object (macros for B H W C S LD LDB AT) */
  bool is_const;             /* in the constant block (else the arena) */
  bool wide;                 /* fp16 arena holding 32-bit floats: two uvec2 slots per vec4 */
  size_t off;                /* arena: vec4 slot; constants: unit relative to the dispatch's
                                range (gl_consts.h) */
  gl_const_fmt cfmt;         /* constants: format */
  size_t n_vec4;             /* constants: vec4s */
  size_t span_lo, span_hi;   /* written part in vec4s from off (hi 0: all), for barriers */
  bool hidden;               /* read by an inlined function, which defines its own macros:
                                listed only for scheduling (barriers, lifetimes) */
  const struct gl_emit_in *virt; /* computed, not loaded: NAME_LD(b, y, x, s) calls the
                                function emitted from virt (a producer inlined here) */
} gl_emit_obj;

/* store_out scattering lanes (gl_fuse_remap.c): dense index L of the output element
 * goes through L = (L / a) * b + add + L % a per step, then lands in object `dst`. */
typedef struct {
  int n;
  const long *a, *b, *add;
  int dst;                   /* index of the destination object in objs */
} gl_remap;

/* One tensor store_out writes: from slice s0 of the dispatch's output on, shape sh, in
 * place at arena slot off (wide: 32-bit in an fp16 arena) or scattered (remap). */
typedef struct {
  int s0;
  gl_shape sh;
  size_t off;
  bool wide;
  const gl_remap *remap;
} gl_emit_part;

typedef struct gl_emit_in {
  bool fp16;
  bool const_fp32;           /* fp16 mode with a buffer of 32-bit constants */
  int wg[3];
  const gl_gen_out *gen;
  const gl_emit_obj *objs;
  int n_objs;
  gl_shape out;
  size_t out_off;
  bool out_wide;
  const char *epilogue;      /* statements on `v` inside store_out (may be NULL) */
  bool has_consts;
  size_t const_base;         /* first unit of this dispatch's constants in the bound block */
  const gl_remap *remap;     /* NULL: store_out writes the output in place */
  const gl_emit_part *second;/* a paired convolution's output (its slices from s0 on); then
                                first_sh is the shape of the primary's own output */
  gl_shape first_sh;
  size_t scratch_off;        /* arena slot of gen->scratch (when not 0) */
  bool first_pass;           /* gen->pre's dispatch: FIRST_PASS is defined before the decls
                                (which may leave out what only main needs: shared arrays) */
  bool mediump;              /* floats mediump by default (ACC4 sums stay highp): fp16
                                arithmetic where the driver honours it (gl_tuning.mediump) */
  bool gid_base;             /* gid is offset by uniform ivec4 at location 0 (a dispatch
                                split in parts, gl_plan_dispatch.split) */
  bool fn;                   /* an inlined producer: FLT4 P<id>_f(int b, int y, int x, int s)
                                (gen in function form, epilogue applied), all its macros
                                undefined after it; wg, out_off, out_wide unused */
} gl_emit_in;

/* malloc'd source, NULL on OOM. */
char *gl_emit_source(const gl_emit_in *e);

#endif
