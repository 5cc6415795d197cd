/* gl_part.h - the GL delegate's state shared by gl_delegate.c (prepare, invoke, release)
 * and gl_buffers.c (device buffers, exports of outputs into them, the read-back). Not an
 * API: callers use gl_delegate.h and runtime/tfl_buffer.h. gl_delegate.c calls into
 * gl_buffers.c, never the reverse. */
#ifndef GL_PART_H
#define GL_PART_H

#include "gl_context.h"
#include "gl_delegate.h"
#include "gl_device.h"
#include "gl_layout.h"
#include "gl_plan.h"
#include "runtime/tfl_buffer_impl.h"

typedef struct gl_part gl_part;

/* The program of an output's queued read-back (a TFL_CONVERT_NONE export into a device
 * buffer) and its workgroups. */
typedef struct {
  unsigned prog;
  int groups[3];
} slot_prog;

typedef struct {
  tfl_delegate base;
  gl_delegate_options o;
  char *cache_dir;
  gl_context *ctx;
  bool profiling;
  gl_part *parts;              /* prepared partitions (linked) */
  gl_delegate_stats stats;
  gl_device_tuning dev;        /* measured at the first prepare (gl_device.h) */
  tfl_diag *diag;              /* o.diag: creation and the delegate's own calls */
} gl_dctx;

struct gl_part {
  gl_part *next;
  tfl_graph *g;
  tfl_diag *diag;              /* the interpreter's (tfl_partition.diag) */
  gl_plan plan;                /* sources freed after compiling */
  unsigned *progs;
  int n_progs;
  unsigned arena, consts;
  tfl_buffer *readback;        /* a device buffer of ours (gl_buffers.c): outputs are copied
                                  here on the GPU, then mapped once (tfl_buffer_map, the one
                                  read-back path): a read-hinted buffer lives in cached host
                                  memory, reading a mapped arena (device memory) element by
                                  element is slow */
  size_t readback_bytes;
  unsigned dense_in[2];        /* dense float32 inputs (gl_boundary.h), binding 2 while packing;
                                  two, used in turn: an upload never waits for the GPU to
                                  finish packing the previous invoke's inputs */
  int dense_cur;
  size_t dense_in_bytes;
  size_t *io_off;              /* per plan input then output: bytes in dense_in / readback;
                                  SIZE_MAX: input converted on the CPU */
  int *io_prog;                /* per plan input then output: progs index of its pack or
                                  unpack program; -1: converted on the CPU */
  int (*io_groups)[3];
  char **bnd_src;              /* until compiled: n_in + n_out sources (NULL: none) */
  size_t vec4_bytes;
  bool const_fp32;             /* fp16 mode with 32-bit constants (gl_plan_options) */
  float *staging;              /* largest boundary tensor, PHWC4 floats */
  void *packed;                /* the same in storage precision */
  int tex_in;                  /* plan.in index of graph input 0 when it can take an image, -1 */
  unsigned tex_prog_ext;       /* the same reading an external-OES texture (first bind of one) */
  unsigned tex_prog;           /* its texture program (compiled at prepare with the
                                  texture_input option, else at the first bind) */
  tfl_image_desc *images;      /* per batch slot: the bound texture (handle 0: none) */
  int n_slots, n_images;       /* slots of input 0's batch; bound ones */
  unsigned *mask_progs;        /* per plan output: its mask-export program, 0 until used */
  unsigned mask_bytes;         /* the mask export's byte buffer (gl_gen_mask.c) */
  size_t mask_bytes_size;
  tfl_buffer *mask_host;       /* its copy for host masks: a device buffer of ours, mapped */
  int mask_made, mask_made_slot; /* plan output and slot mask_bytes holds since the
                                  last invoke; mask_made -1: none */
  bool mask_made_sigm;
  slot_prog *slot_progs;       /* per plan output: its queued read-back (prog 0 until used) */
  unsigned *queries;           /* profiling: n_d + 1 timestamps */
  double *times_ms;            /* profiling: per dispatch, last invoke */
  bool timed;
  bool *on_gpu;                /* per plan output: left on the GPU, never read back
                                  (gl_delegate_set_output_on_gpu); NULL: all read back */
};

/* Outputs of at most this many values that are 32-bit in the arena come back as floats
 * in fp16 mode too: final results (boxes, scores, landmarks) keep their precision for
 * a few KB more. */
#define SMALL_OUTPUT 16384

/* Whether a boundary tensor's dense values travel as floats (else halves in fp16 mode):
 * wide inputs (their precision is why they are wide), wide outputs that other nodes
 * read (rounding an intermediate moves a segmentation mask by up to 0.03,
 * gl_precision.c; a graph split into many partitions rounds many) and small wide
 * outputs; larger graph outputs as halves, half the bytes to read back. */
static inline bool dense_float(const gl_plan_io *io, bool in)
{
  return io->wide && (in || io->feeds || gl_shape_vec4s(io->sh) * 4 <= SMALL_OUTPUT);
}

/* gl_buffers.c: the delegate's buffer operations (tfl_delegate.buffers) and its
 * tfl_delegate entries for outputs. */
extern const tfl_buffer_ops gl_buffer_ops;
/* The GL name of a device buffer (buffer object) or an image (texture) of ours. */
unsigned gl_buffer_name(const tfl_buffer *b);
tfl_status gl_part_output_bytes(void *ctx, void *state, int tensor, const tfl_export *e, size_t *need);
tfl_status gl_part_export_output(void *ctx, void *state, int tensor, const tfl_export *e, tfl_buffer *dst);
tfl_status gl_part_set_output_host(void *ctx, void *state, int tensor, bool host);

#endif
