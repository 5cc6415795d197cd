/* gl_delegate.c - the tfl_delegate of GL compute: supports -> prepare (plan, programs,
 * buffers) -> invoke (upload boundary inputs or run the texture shader, dispatch,
 * read outputs back) -> release. */
#include "gl_delegate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gl_boundary.h"
#include "gl_cache_dir.h"
#include "gl_context.h"
#include "gl_device.h"
#include "gl_layout.h"
#include "gl_plan.h"
#include "gl_program.h"
#include "gl_texture.h"
#include "runtime/tfl_buffer_impl.h"

#ifndef GL_TEXTURE_EXTERNAL_OES /* OES_EGL_image_external: not in GLES3/gl31.h */
#define GL_TEXTURE_EXTERNAL_OES 0x8D65
#endif

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
  unsigned readback;           /* outputs are copied here on the GPU, then mapped once: a
                                  read-hinted buffer lives in cached host memory, reading a
                                  mapped arena (device memory) element by element is slow */
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
  unsigned mask_host;          /* its read-hinted copy for host masks */
  size_t mask_host_size;
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

static tfl_status bind_input(void *ctx, void *state, int tensor, const tfl_buffer *image);
static tfl_status output_bytes(void *ctx, void *state, int tensor, const tfl_export *e, size_t *need);
static tfl_status export_output(void *ctx, void *state, int tensor, const tfl_export *e, tfl_buffer *dst);
static const tfl_buffer_ops gl_buffer_ops;
static tfl_status set_output_host(void *ctx, void *state, int tensor, bool host);

gl_delegate_options gl_delegate_defaults(void)
{
  return (gl_delegate_options){.precision = GL_PRECISION_FP16, .use_current_context = false, .cache_dir = NULL,
                               .texture_input = false};
}

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The device as the planner sees it: measured once (from the cache directory or on the
 * GPU), with the context's (profile's) limits and the test switches' lower ones. */
static void device_tuning(gl_dctx *dc, tfl_diag *diag)
{
  if (dc->dev.fill) return;
  gl_device_tuning_get(dc->ctx, dc->cache_dir, &dc->dev, diag);
  if (dc->dev.max_wg > dc->ctx->lim.wg_size[0] && dc->ctx->lim.wg_size[0] > 0) dc->dev.max_wg = dc->ctx->lim.wg_size[0];
  if (dc->o.tuning.max_shared > 0 && dc->dev.max_shared > dc->o.tuning.max_shared) dc->dev.max_shared = dc->o.tuning.max_shared;
  dc->stats.device_fill = dc->dev.fill;
  dc->stats.device_wg = dc->dev.wg;
  dc->stats.device_ms = dc->dev.measure_ms;
}

static gl_plan_options plan_options(const gl_dctx *dc, bool *limits_hit)
{
  bool fp16 = dc->o.precision == GL_PRECISION_FP16;
  return (gl_plan_options){.fp16 = fp16, .const_align_bytes = dc->ctx->ssbo_offset_align, .dev = dc->dev,
                           .tune = dc->o.tuning, .lim = dc->ctx->lim, .limits_hit = limits_hit};
}

/* Whether node's kernel fits the limits: planned alone (its dispatches, their shaders,
 * its tensors in the storage blocks). Only a limit refuses it here; other failures are
 * the full plan's to report. */
static bool fits(gl_dctx *dc, const tfl_graph *g, int node, tfl_diag *why)
{
  const tfl_node *n = &g->nodes[node];
  int32_t nodes[1] = {node}, ins[GL_GEN_MAX_IN], outs[4];
  int n_in = 0, n_out = 0;
  for (int k = 0; k < n->n_in && n_in < GL_GEN_MAX_IN; k++)
    if (n->in[k] >= 0 && !g->tensors[n->in[k]].is_const) {
      bool dup = false;
      for (int j = 0; j < n_in; j++) dup = dup || ins[j] == n->in[k];
      if (!dup) ins[n_in++] = n->in[k];
    }
  for (int k = 0; k < n->n_out && n_out < 4; k++)
    if (n->out[k] >= 0) outs[n_out++] = n->out[k];
  tfl_diag quiet;
  tfl_diag_init(&quiet);
  tfl_partition part = {1, nodes, n_in, ins, n_out, outs, &quiet};
  if (gl_context_bind(dc->ctx, &quiet) != TFL_OK) return true; /* not current: the full plan checks */
  device_tuning(dc, dc->diag); /* the measurement's log line goes to the delegate's own diag */
  bool hit = false;
  gl_plan_options po = plan_options(dc, &hit);
  gl_plan plan;
  tfl_status st = gl_plan_build(g, &part, &po, &plan, &quiet);
  if (st == TFL_OK) {
    gl_plan_free(&plan);
    return true;
  }
  if (!hit) return true;
  char head[64] = "";
  if (strncmp(quiet.error, "node ", 5) != 0) snprintf(head, sizeof head, "node %d (%s): ", node, tfl_op_name(n->op));
  tfl_fail(why, TFL_ERR_UNSUPPORTED, "%s%s (over the GPU's limits, profile %s: left to the CPU)", head, quiet.error,
           gl_device_profile_name(dc->ctx->profile));
  return false;
}

static bool takes(gl_dctx *dc, const tfl_graph *g, int node, tfl_diag *why)
{
  if (dc->o.tuning.cpu_postproc &&
      (g->nodes[node].op == TFL_OP_DETECTION_POSTPROCESS || g->nodes[node].op == TFL_OP_ANCHOR_DETECTION ||
       g->nodes[node].op == TFL_OP_SSD_CLASS_NMS || g->nodes[node].op == TFL_OP_SSD_DETECTION ||
       g->nodes[node].op == TFL_OP_LANDMARK_DECODE || g->nodes[node].op == TFL_OP_YOLO_DETECTION)) {
    tfl_fail(why, TFL_ERR_UNSUPPORTED, "node %d (%s): post-processing kept on the CPU (cpu_postproc)", node,
             tfl_op_name(g->nodes[node].op));
    return false;
  }
  return gl_plan_supports(g, node, why) && fits(dc, g, node, why);
}

static bool supports(void *ctx, const tfl_graph *g, int node)
{
  gl_dctx *dc = ctx;
  tfl_diag why;
  tfl_diag_init(&why);
  if (takes(dc, g, node, &why)) return true;
  tfl_logf(dc->diag, TFL_LOG_DEBUG, "GL: %s", why.error);
  return false;
}

bool gl_delegate_why(tfl_delegate *d, const tfl_graph *g, int node, tfl_diag *why)
{
  tfl_diag quiet;
  tfl_diag_init(&quiet);
  if (node < 0 || node >= g->n_nodes) {
    tfl_fail(why ? why : &quiet, TFL_ERR_ARG, "node %d: the graph has %d", node, g->n_nodes);
    return false;
  }
  return takes(d->ctx, g, node, why ? why : &quiet);
}

static void part_free(gl_dctx *dc, gl_part *p)
{
  if (!p) return;
  const gl_funcs *f = &dc->ctx->f;
  if (gl_context_bind(dc->ctx, NULL) == TFL_OK) { /* else the context is gone: nothing to delete */
    for (int i = 0; i < p->n_progs; i++)
      if (p->progs[i]) f->DeleteProgram(p->progs[i]);
    if (p->tex_prog) f->DeleteProgram(p->tex_prog);
    if (p->tex_prog_ext) f->DeleteProgram(p->tex_prog_ext);
    for (int i = 0; p->mask_progs && i < p->plan.n_out; i++)
      if (p->mask_progs[i]) f->DeleteProgram(p->mask_progs[i]);
    for (int i = 0; p->slot_progs && i < p->plan.n_out; i++)
      if (p->slot_progs[i].prog) f->DeleteProgram(p->slot_progs[i].prog);
    if (p->mask_bytes) f->DeleteBuffers(1, &p->mask_bytes);
    if (p->mask_host) f->DeleteBuffers(1, &p->mask_host);
    if (p->queries) f->DeleteQueries(p->plan.n_d + 1, p->queries);
    if (p->arena) f->DeleteBuffers(1, &p->arena);
    if (p->consts) f->DeleteBuffers(1, &p->consts);
    if (p->readback) f->DeleteBuffers(1, &p->readback);
    if (p->dense_in[0]) f->DeleteBuffers(2, p->dense_in);
    while (f->GetError() != GL_NO_ERROR) {
    }
  }
  /* before gl_plan_free, which clears the counts this loop reads */
  if (p->bnd_src)
    for (int i = 0; i < p->plan.n_in + p->plan.n_out; i++) free(p->bnd_src[i]);
  gl_plan_free(&p->plan);
  free(p->progs);
  free(p->queries);
  free(p->times_ms);
  free(p->staging);
  free(p->packed);
  free(p->bnd_src);
  free(p->io_off);
  free(p->io_prog);
  free(p->io_groups);
  free(p->on_gpu);
  free(p->images);
  free(p->mask_progs);
  free(p->slot_progs);
  free(p);
}

/* Fingerprint of everything but the sources: model, options, driver. */
static uint64_t cache_key(const gl_dctx *dc, const tfl_graph *g)
{
  uint64_t h = GL_HASH_INIT;
  if (g->model_bytes) h = gl_hash(h, g->model_bytes, g->model_size);
  int opts[3] = {(int)dc->o.precision, dc->o.texture_input, (int)dc->o.profile};
  h = gl_hash(h, opts, sizeof opts);
  h = gl_hash(h, dc->ctx->renderer, strlen(dc->ctx->renderer));
  h = gl_hash(h, dc->ctx->version, strlen(dc->ctx->version));
  return h;
}

static tfl_status make_buffers(gl_dctx *dc, gl_part *p)
{
  const gl_funcs *f = &dc->ctx->f;
  size_t arena_bytes = p->plan.arena_n * p->vec4_bytes;
  if ((long long)arena_bytes > dc->ctx->max_ssbo_bytes)
    return tfl_fail(p->diag, TFL_ERR_NOMEM, "GL: activations need %zu bytes, over the %lld-byte storage block limit", arena_bytes,
                     dc->ctx->max_ssbo_bytes);
  f->GenBuffers(1, &p->arena);
  f->BindBuffer(GL_SHADER_STORAGE_BUFFER, p->arena);
  f->BufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)arena_bytes, NULL, GL_DYNAMIC_COPY);
  tfl_status st = gl_check(dc->ctx, "allocating the activation buffer", p->diag);
  if (st) return tfl_fail_prefix(p->diag, st, "%zu bytes", arena_bytes);
  if (p->plan.const_bytes) {
    if ((long long)p->plan.const_bytes > dc->ctx->max_ssbo_bytes)
      return tfl_fail(p->diag, TFL_ERR_NOMEM, "GL: constants need %zu bytes, over the %lld-byte storage block limit",
                      p->plan.const_bytes, dc->ctx->max_ssbo_bytes);
    f->GenBuffers(1, &p->consts);
    f->BindBuffer(GL_SHADER_STORAGE_BUFFER, p->consts);
    f->BufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)p->plan.const_bytes, p->plan.consts, GL_STATIC_DRAW);
    if ((st = gl_check(dc->ctx, "uploading the constants", p->diag))) return st;
  }
  free(p->plan.consts);
  p->plan.consts = NULL;
  size_t most = 1;
  for (int i = 0; i < p->plan.n_in; i++)
    if (gl_shape_vec4s(p->plan.in[i].sh) > most) most = gl_shape_vec4s(p->plan.in[i].sh);
  for (int i = 0; i < p->plan.n_out; i++)
    if (gl_shape_vec4s(p->plan.out[i].sh) > most) most = gl_shape_vec4s(p->plan.out[i].sh);
  if (p->readback_bytes) {
    f->GenBuffers(1, &p->readback);
    f->BindBuffer(GL_COPY_WRITE_BUFFER, p->readback);
    f->BufferData(GL_COPY_WRITE_BUFFER, (GLsizeiptr)p->readback_bytes, NULL, GL_STREAM_READ);
    if ((st = gl_check(dc->ctx, "allocating the readback buffer", p->diag))) return st;
  }
  if (p->dense_in_bytes) {
    f->GenBuffers(2, p->dense_in);
    for (int k = 0; k < 2; k++) {
      f->BindBuffer(GL_COPY_WRITE_BUFFER, p->dense_in[k]);
      f->BufferData(GL_COPY_WRITE_BUFFER, (GLsizeiptr)p->dense_in_bytes, NULL, GL_STREAM_DRAW);
    }
    if ((st = gl_check(dc->ctx, "allocating the input buffer", p->diag))) return st;
  }
  p->staging = malloc(most * 4 * sizeof(float));
  p->packed = malloc(most * p->vec4_bytes);
  if (!p->staging || !p->packed) return tfl_fail(p->diag, TFL_ERR_NOMEM, "GL: staging for %zu vec4s", most);
  return TFL_OK;
}

/* Outputs of at most this many values that are 32-bit in the arena come back as floats
 * in fp16 mode too: final results (boxes, scores, landmarks) keep their precision for
 * a few KB more. */
#define SMALL_OUTPUT 16384

/* Whether a boundary tensor's dense values travel as floats (else halves in fp16 mode):
 * wide inputs (their precision is why they are wide), wide outputs that other nodes
 * read (rounding an intermediate moves a segmentation mask by up to 0.03,
 * gl_precision.c; a graph split into many partitions rounds many) and small wide
 * outputs; larger graph outputs as halves, half the bytes to read back. */
static bool dense_float(const gl_plan_io *io, bool in)
{
  return io->wide && (in || io->feeds || gl_shape_vec4s(io->sh) * 4 <= SMALL_OUTPUT);
}

/* Where each boundary tensor goes: float32 ones through gl_boundary's pack/unpack
 * programs (dense regions of dense_in / readback), the rest converted on the CPU
 * (PHWC4 regions). Sources wait in p->bnd_src for build_programs. */
static tfl_status plan_boundary(gl_dctx *dc, gl_part *p)
{
  int n_io = p->plan.n_in + p->plan.n_out;
  bool fp16 = dc->o.precision == GL_PRECISION_FP16;
  size_t esz = fp16 ? 2 : 4;
  p->io_off = calloc((size_t)n_io + 1, sizeof *p->io_off);
  p->io_prog = calloc((size_t)n_io + 1, sizeof *p->io_prog);
  p->io_groups = calloc((size_t)n_io + 1, sizeof *p->io_groups);
  p->bnd_src = calloc((size_t)n_io + 1, sizeof *p->bnd_src);
  if (!p->io_off || !p->io_prog || !p->io_groups || !p->bnd_src) return tfl_fail(p->diag, TFL_ERR_NOMEM, "GL boundary");
  int k = p->plan.n_d;
  for (int i = 0; i < n_io; i++) {
    bool in = i < p->plan.n_in;
    const gl_plan_io *io = in ? &p->plan.in[i] : &p->plan.out[i - p->plan.n_in];
    const tfl_tensor *t = &p->g->tensors[io->tensor];
    p->io_prog[i] = -1;
    if (in && dc->o.texture_input && p->g->n_inputs > 0 && io->tensor == p->g->inputs[0]) continue;
    size_t *top = in ? &p->dense_in_bytes : &p->readback_bytes;
    if (!gl_boundary_ok(t)) {
      p->io_off[i] = in ? SIZE_MAX : *top;
      if (!in) *top += gl_shape_vec4s(io->sh) * p->vec4_bytes * (io->wide ? 2 : 1);
      continue;
    }
    p->io_off[i] = *top;
    size_t e = dense_float(io, in) ? 4 : esz;
    gl_boundary_prog bp = gl_boundary_source(in, io->sh, io->off, *top / e, fp16, io->wide, e == 2);
    if (!bp.src) return tfl_fail(p->diag, TFL_ERR_NOMEM, "GL boundary shader");
    p->bnd_src[i] = bp.src;
    char what[96];
    snprintf(what, sizeof what, "GL: tensor %d's %s shader", io->tensor, in ? "upload" : "read-back");
    tfl_status st = gl_limits_check_shader(&dc->ctx->lim, bp.src, bp.groups, what, p->diag);
    if (!st && gl_limits_needs_split(&dc->ctx->lim, bp.groups))
      st = tfl_fail(p->diag, TFL_ERR_UNSUPPORTED, "%s: %d x %d x %d workgroups, over GL_MAX_COMPUTE_WORK_GROUP_COUNT", what,
                    bp.groups[0], bp.groups[1], bp.groups[2]);
    if (st) return st;
    memcpy(p->io_groups[i], bp.groups, sizeof bp.groups);
    p->io_prog[i] = k++;
    *top += gl_boundary_elems(io->sh) * e;
  }
  return TFL_OK;
}

static tfl_status build_programs(gl_dctx *dc, gl_part *p)
{
  int n = p->plan.n_d;
  for (int i = 0; i < p->plan.n_in + p->plan.n_out; i++) n += p->bnd_src[i] != NULL;
  p->progs = calloc((size_t)n + 1, sizeof *p->progs);
  char **srcs = calloc((size_t)n + 1, sizeof *srcs);
  char **labels = calloc((size_t)n + 1, sizeof *labels);
  char *names = malloc((size_t)(n + 1) * 64);
  if (!p->progs || !srcs || !labels || !names) {
    free(srcs);
    free(labels);
    free(names);
    return tfl_fail(p->diag, TFL_ERR_NOMEM, "GL: %d programs", n);
  }
  for (int i = 0; i < p->plan.n_d; i++) {
    srcs[i] = p->plan.d[i].src;
    labels[i] = names + (size_t)i * 64;
    int nd = p->plan.d[i].node;
    snprintf(labels[i], 64, "node %d (%s)", nd, tfl_op_name(p->g->nodes[nd].op));
  }
  for (int i = 0; i < p->plan.n_in + p->plan.n_out; i++)
    if (p->io_prog[i] >= 0) {
      srcs[p->io_prog[i]] = p->bnd_src[i];
      labels[p->io_prog[i]] = names + (size_t)p->io_prog[i] * 64;
      snprintf(labels[p->io_prog[i]], 64, "the %s of boundary tensor %d", i < p->plan.n_in ? "pack" : "unpack", i);
    }
  double t0 = now_ms();
  gl_cache_result cr;
  tfl_status st = gl_programs_build(dc->ctx, dc->cache_dir, cache_key(dc, p->g), srcs, (const char *const *)labels, n,
                                    p->progs, &cr, p->diag);
  p->n_progs = n;
  dc->stats.compile_ms = now_ms() - t0;
  dc->stats.cache = (int)cr;
  free(srcs);
  free(labels);
  free(names);
  if (st) return st;
  for (int i = 0; i < p->plan.n_d; i++) { /* the sources are no longer needed */
    free(p->plan.d[i].src);
    p->plan.d[i].src = NULL;
  }
  for (int i = 0; i < p->plan.n_in + p->plan.n_out; i++) {
    free(p->bnd_src[i]);
    p->bnd_src[i] = NULL;
  }
  return TFL_OK;
}

static tfl_status compile_texture(gl_dctx *dc, gl_part *p, bool external)
{
  const tfl_tensor *t = &p->g->tensors[p->plan.in[p->tex_in].tensor];
  char *src = gl_texture_source(t, p->plan.in[p->tex_in].off, dc->o.precision == GL_PRECISION_FP16,
                               p->plan.in[p->tex_in].wide, external);
  if (!src) return tfl_fail(p->diag, TFL_ERR_NOMEM, "GL: texture shader");
  tfl_status st = gl_program_compile(dc->ctx, src, external ? "the external-OES texture input" : "the texture input",
                                     external ? &p->tex_prog_ext : &p->tex_prog, p->diag);
  free(src);
  return st;
}

/* Graph input 0 can be bound to a texture when it is an image tensor of this partition. */
static tfl_status prepare_texture(gl_dctx *dc, gl_part *p)
{
  p->tex_in = -1;
  if (p->g->n_inputs < 1) return TFL_OK;
  for (int i = 0; i < p->plan.n_in; i++)
    if (p->plan.in[i].tensor == p->g->inputs[0]) p->tex_in = i;
  if (p->tex_in < 0) return TFL_OK;
  const tfl_tensor *t = &p->g->tensors[p->plan.in[p->tex_in].tensor];
  if (!dc->o.texture_input) { /* a host tensor; a texture may still be bound later */
    tfl_diag quiet;
    tfl_diag_init(&quiet);
    if (gl_texture_check(t, &quiet) != TFL_OK) p->tex_in = -1;
  } else {
    tfl_status st = gl_texture_check(t, p->diag);
    if (st) return st;
  }
  if (p->tex_in < 0) return TFL_OK;
  p->n_slots = t->dims[0];
  if (!(p->images = calloc((size_t)p->n_slots, sizeof *p->images))) return tfl_fail(p->diag, TFL_ERR_NOMEM, "GL: images");
  return dc->o.texture_input ? compile_texture(dc, p, false) : TFL_OK;
}

static tfl_status prepare(void *ctx, tfl_graph *g, const tfl_partition *part, void **state)
{
  gl_dctx *dc = ctx;
  *state = NULL;
  tfl_status st = gl_context_bind(dc->ctx, part->diag);
  if (st) return st;
  gl_part *p = calloc(1, sizeof *p);
  if (!p) return tfl_fail(part->diag, TFL_ERR_NOMEM, "GL partition");
  p->g = g;
  p->diag = part->diag;
  p->tex_in = -1;
  p->mask_made = -1;
  bool fp16 = dc->o.precision == GL_PRECISION_FP16;
  p->vec4_bytes = fp16 ? 8 : 16;
  p->const_fp32 = fp16 && dc->o.tuning.const_fp32;
  device_tuning(dc, p->diag); /* once per delegate: from the cache directory or measured */
  gl_plan_options po = plan_options(dc, NULL);
  if ((st = gl_plan_build(g, part, &po, &p->plan, p->diag)) || (st = plan_boundary(dc, p)) || (st = build_programs(dc, p)) || (st = make_buffers(dc, p)) ||
      (st = prepare_texture(dc, p))) {
    part_free(dc, p);
    return st;
  }
  tfl_logf(p->diag, TFL_LOG_INFO, "GL: %d nodes -> %d dispatches (%d fused, %d inlined, %d aliased, %d fp32 in fp16, %d barriers), arena %zu KiB, constants %zu KiB, cache %s",
          p->plan.n_nodes, p->plan.n_d, p->plan.n_fused, p->plan.n_inlined, p->plan.n_alias, p->plan.n_wide, p->plan.n_barriers, p->plan.arena_n * p->vec4_bytes / 1024,
          p->plan.const_bytes / 1024,
          (const char *[]){"off", "miss", "hit", "corrupt"}[dc->stats.cache]);
  p->next = dc->parts;
  dc->parts = p;
  dc->stats.partitions++;
  dc->stats.dispatches += p->plan.n_d;
  dc->stats.fused += p->plan.n_fused;
  dc->stats.inlined += p->plan.n_inlined;
  dc->stats.se += p->plan.n_se;
  dc->stats.remapped += p->plan.n_remapped;
  dc->stats.paired += p->plan.n_paired;
  dc->stats.dwpw += p->plan.n_dwpw;
  dc->stats.irb += p->plan.n_irb;
  dc->stats.aliased += p->plan.n_alias;
  dc->stats.barriers += p->plan.n_barriers;
  for (int i = 0; i < p->plan.n_d; i++) dc->stats.split += p->plan.d[i].split;
  dc->stats.const_bytes = p->plan.const_bytes;
  *state = p;
  return TFL_OK;
}

/* Whether this invoke reads plan input i from bound textures rather than host memory. */
static bool from_texture(const gl_dctx *dc, const gl_part *p, int i)
{
  return i == p->tex_in && (p->n_images > 0 || dc->o.texture_input);
}

/* Boundary inputs: float32 ones (dense) into dense_in, the rest converted to PHWC4
 * into the arena (bound to GL_SHADER_STORAGE_BUFFER by the caller). */
static tfl_status upload_all(gl_dctx *dc, gl_part *p)
{
  const gl_funcs *f = &dc->ctx->f;
  bool fp16 = p->vec4_bytes == 8;
  for (int i = 0; i < p->plan.n_in; i++) {
    const gl_plan_io *io = &p->plan.in[i];
    const tfl_tensor *t = &p->g->tensors[io->tensor];
    if (from_texture(dc, p, i)) continue;
    if (!t->data) return tfl_fail(p->diag, TFL_ERR_ARG, "GL: input tensor %d has no data", io->tensor);
    bool halves = fp16 && !io->wide; /* wide: 32-bit floats in the fp16 arena */
    if (p->io_prog[i] >= 0) {
      size_t n = tfl_tensor_count(t);
      if (halves) gl_store_floats(t->data, n, true, p->packed);
      f->BindBuffer(GL_COPY_WRITE_BUFFER, p->dense_in[p->dense_cur]);
      f->BufferSubData(GL_COPY_WRITE_BUFFER, (GLintptr)p->io_off[i], (GLsizeiptr)(n * (halves ? 2 : 4)),
                       halves ? p->packed : t->data);
      continue;
    }
    size_t n = gl_shape_vec4s(io->sh);
    gl_to_phwc4(t, t->data, io->sh, p->staging);
    if (halves) gl_store_floats(p->staging, n * 4, true, p->packed);
    f->BufferSubData(GL_SHADER_STORAGE_BUFFER, (GLintptr)(io->off * p->vec4_bytes), (GLsizeiptr)(n * (halves ? 8 : 16)),
                     halves ? p->packed : p->staging);
  }
  return TFL_OK;
}

/* The pack (inputs) or unpack (outputs) dispatches, with `buf` at binding 2. */
static void run_boundary(gl_dctx *dc, gl_part *p, bool inputs, unsigned buf)
{
  const gl_funcs *f = &dc->ctx->f;
  int lo = inputs ? 0 : p->plan.n_in, hi = inputs ? p->plan.n_in : p->plan.n_in + p->plan.n_out;
  bool any = false;
  for (int i = lo; i < hi; i++) {
    if (p->io_prog[i] < 0 || (inputs && from_texture(dc, p, i))) continue;
    if (!inputs && p->on_gpu && p->on_gpu[i - p->plan.n_in]) continue;
    if (!any) f->BindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, buf);
    any = true;
    f->UseProgram(p->progs[p->io_prog[i]]);
    f->DispatchCompute((GLuint)p->io_groups[i][0], (GLuint)p->io_groups[i][1], (GLuint)p->io_groups[i][2]);
  }
  if (any) f->MemoryBarrier(inputs ? GL_SHADER_STORAGE_BARRIER_BIT : GL_BUFFER_UPDATE_BARRIER_BIT);
}

/* All outputs: unpacked (float32) or copied (others) into the readback buffer on the
 * GPU, one map (the wait for the GPU), then contiguous conversions. */
static tfl_status download_all(gl_dctx *dc, gl_part *p)
{
  const gl_funcs *f = &dc->ctx->f;
  if (!p->readback_bytes) return TFL_OK;
  int wanted = p->plan.n_out;
  for (int i = 0; p->on_gpu && i < p->plan.n_out; i++) wanted -= p->on_gpu[i];
  if (!wanted) return TFL_OK; /* nothing for the CPU: no map, no wait for the GPU */
  run_boundary(dc, p, false, p->readback);
  f->BindBuffer(GL_COPY_READ_BUFFER, p->arena);
  f->BindBuffer(GL_COPY_WRITE_BUFFER, p->readback);
  for (int i = 0; i < p->plan.n_out; i++) {
    int k = p->plan.n_in + i;
    if (p->io_prog[k] >= 0 || (p->on_gpu && p->on_gpu[i])) continue;
    size_t bytes = gl_shape_vec4s(p->plan.out[i].sh) * p->vec4_bytes * (p->plan.out[i].wide ? 2 : 1);
    f->CopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, (GLintptr)(p->plan.out[i].off * p->vec4_bytes),
                         (GLintptr)p->io_off[k], (GLsizeiptr)bytes);
  }
  const char *m = f->MapBufferRange(GL_COPY_WRITE_BUFFER, 0, (GLsizeiptr)p->readback_bytes, GL_MAP_READ_BIT);
  if (!m) return gl_check(dc->ctx, "mapping the outputs", p->diag) ? TFL_ERR_BACKEND : tfl_fail(p->diag, TFL_ERR_BACKEND, "GL: glMapBufferRange failed");
  for (int i = 0; i < p->plan.n_out; i++) {
    int k = p->plan.n_in + i;
    const gl_plan_io *io = &p->plan.out[i];
    tfl_tensor *t = &p->g->tensors[io->tensor];
    if (p->on_gpu && p->on_gpu[i]) continue;
    if (p->io_prog[k] >= 0) {
      gl_load_floats(m + p->io_off[k], tfl_tensor_count(t), p->vec4_bytes == 8 && !dense_float(io, false), t->data);
      continue;
    }
    gl_load_floats(m + p->io_off[k], gl_shape_vec4s(io->sh) * 4, p->vec4_bytes == 8 && !io->wide, p->staging);
    gl_from_phwc4(p->staging, io->sh, t, t->data);
  }
  f->UnmapBuffer(GL_COPY_WRITE_BUFFER);
  return TFL_OK;
}

/* The texture program once per bound slot of the batch. */
static void run_texture(gl_dctx *dc, gl_part *p)
{
  const gl_funcs *f = &dc->ctx->f;
  const tfl_tensor *t = &p->g->tensors[p->plan.in[p->tex_in].tensor];
  int slot_vec4s = t->dims[1] * t->dims[2]; /* 3 or 4 channels: one slice */
  for (int k = 0; k < p->n_slots; k++) {
    const tfl_image_desc *x = &p->images[k];
    if (!x->handle) continue;
    f->UseProgram(x->external ? p->tex_prog_ext : p->tex_prog);
    /* chroma planes on units 1 and 2 (I420: U, V; NV12/NV21: UV), the frame on 0 */
    for (int u = 2; u >= 0; u--) {
      unsigned name = (unsigned)(u == 0 ? x->handle : x->planes[u - 1]);
      if (u > 0 && !name) continue;
      f->ActiveTexture(GL_TEXTURE0 + (unsigned)u);
      f->BindTexture(u == 0 && x->external ? GL_TEXTURE_EXTERNAL_OES : GL_TEXTURE_2D, name);
    }
    f->Uniform1i(5, (int)x->layout);
    f->Uniform4f(6, x->yuv[0], x->yuv[1], x->yuv[2], x->yuv[3]);
    f->Uniform2f(7, x->yuv[4], x->yuv[5]);
    f->Uniform4f(0, x->affine[0], x->affine[1], x->affine[3], x->affine[4]);
    f->Uniform4f(4, x->affine[2], x->affine[5], x->pad, 0.0f);
    f->Uniform4f(1, x->mean[0], x->mean[1], x->mean[2], x->mean[2]);
    f->Uniform4f(2, x->std[0], x->std[1], x->std[2], x->std[2]);
    f->Uniform4i(3, x->width, x->height, k * slot_vec4s, 0);
    f->DispatchCompute((GLuint)(t->dims[2] + 7) / 8, (GLuint)(t->dims[1] + 7) / 8, 1);
  }
  for (int u = 2; u >= 0; u--) {
    f->ActiveTexture(GL_TEXTURE0 + (unsigned)u);
    f->BindTexture(GL_TEXTURE_2D, 0);
  }
  if (p->tex_prog_ext) f->BindTexture(GL_TEXTURE_EXTERNAL_OES, 0); /* unit 0, active last */
  f->MemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
}

static tfl_status prepare_profiling(gl_dctx *dc, gl_part *p)
{
  if (p->times_ms) return TFL_OK;
  p->times_ms = calloc((size_t)p->plan.n_d + 1, sizeof(double));
  p->queries = calloc((size_t)p->plan.n_d + 1, sizeof(unsigned));
  if (!p->times_ms || !p->queries) {
    free(p->times_ms);
    free(p->queries);
    p->times_ms = NULL;
    p->queries = NULL;
    return tfl_fail(p->diag, TFL_ERR_NOMEM, "GL profiling");
  }
  dc->ctx->f.GenQueries(p->plan.n_d + 1, p->queries);
  return gl_check(dc->ctx, "creating timer queries", p->diag);
}

/* One planned dispatch; over the workgroup count limit in parts, each told its first
 * invocation (gl_emit.h gid_base). */
static void dispatch(const gl_funcs *f, const gl_plan_dispatch *d, const int max[3])
{
  if (!d->split) {
    f->DispatchCompute((GLuint)d->groups[0], (GLuint)d->groups[1], (GLuint)d->groups[2]);
    return;
  }
  for (int z = 0; z < d->groups[2]; z += max[2])
    for (int y = 0; y < d->groups[1]; y += max[1])
      for (int x = 0; x < d->groups[0]; x += max[0]) {
        f->Uniform4i(0, x * d->wg[0], y * d->wg[1], z * d->wg[2], 0);
        int n[3] = {d->groups[0] - x, d->groups[1] - y, d->groups[2] - z};
        for (int a = 0; a < 3; a++) n[a] = n[a] < max[a] ? n[a] : max[a];
        f->DispatchCompute((GLuint)n[0], (GLuint)n[1], (GLuint)n[2]);
      }
}

static tfl_status invoke(void *ctx, void *state)
{
  gl_dctx *dc = ctx;
  gl_part *p = state;
  const gl_funcs *f = &dc->ctx->f;
  tfl_status st = gl_context_bind(dc->ctx, p->diag);
  if (st) return st;
  while (f->GetError() != GL_NO_ERROR) { /* errors of the caller's own GL work are not ours */
  }
  double t0 = now_ms();
  p->mask_made = -1;
  f->BindBuffer(GL_SHADER_STORAGE_BUFFER, p->arena);
  if ((st = upload_all(dc, p))) return st;
  double t1 = now_ms();
  f->BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, p->arena);
  run_boundary(dc, p, true, p->dense_in[p->dense_cur]);
  p->dense_cur ^= 1;
  if (p->consts) f->BindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, p->consts); /* shaders index it absolutely */
  if (p->tex_in >= 0 && (p->n_images > 0 || dc->o.texture_input)) {
    if (!p->n_images) return tfl_fail(p->diag, TFL_ERR_ARG, "GL: texture_input is set but no texture was bound");
    run_texture(dc, p);
  }
  bool prof = dc->profiling && prepare_profiling(dc, p) == TFL_OK;
  bool stamps = prof && dc->ctx->QueryCounter;
  if (stamps) dc->ctx->QueryCounter(p->queries[0], GL_TIMESTAMP_EXT);
  for (int i = 0; i < p->plan.n_d; i++) {
    const gl_plan_dispatch *d = &p->plan.d[i];
    double d0 = 0;
    if (prof && !stamps) {
      f->Finish();
      d0 = now_ms();
    }
    if (d->barrier) f->MemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    f->UseProgram(p->progs[i]);
    dispatch(f, d, p->plan.wg_count);
    if (stamps) dc->ctx->QueryCounter(p->queries[i + 1], GL_TIMESTAMP_EXT);
    if (prof && !stamps) {
      f->Finish();
      p->times_ms[i] = now_ms() - d0;
    }
  }
  f->MemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
  double t2 = now_ms();
  if ((st = download_all(dc, p))) return st;
  dc->stats.upload_ms = t1 - t0;
  dc->stats.submit_ms = t2 - t1;
  dc->stats.readback_ms = now_ms() - t2;
  if (stamps) {
    GLuint64 prev = 0, t = 0;
    dc->ctx->GetQueryObjectui64v(p->queries[0], GL_QUERY_RESULT, &prev);
    for (int i = 0; i < p->plan.n_d; i++) {
      dc->ctx->GetQueryObjectui64v(p->queries[i + 1], GL_QUERY_RESULT, &t);
      p->times_ms[i] = (double)(t - prev) / 1e6;
      prev = t;
    }
  }
  p->timed = prof;
  return gl_check(dc->ctx, "running the partition", p->diag);
}

static void release(void *ctx, void *state)
{
  gl_dctx *dc = ctx;
  gl_part *p = state;
  if (!p) return;
  for (gl_part **q = &dc->parts; *q; q = &(*q)->next)
    if (*q == p) {
      *q = p->next;
      break;
    }
  dc->stats.partitions--;
  dc->stats.dispatches -= p->plan.n_d;
  dc->stats.fused -= p->plan.n_fused;
  dc->stats.inlined -= p->plan.n_inlined;
  dc->stats.se -= p->plan.n_se;
  dc->stats.remapped -= p->plan.n_remapped;
  dc->stats.paired -= p->plan.n_paired;
  dc->stats.dwpw -= p->plan.n_dwpw;
  dc->stats.irb -= p->plan.n_irb;
  dc->stats.aliased -= p->plan.n_alias;
  dc->stats.barriers -= p->plan.n_barriers;
  part_free(dc, p);
}

static void destroy(tfl_delegate *self)
{
  if (!self) return;
  gl_dctx *dc = (gl_dctx *)self;
  while (dc->parts) release(dc, dc->parts);
  gl_context_free(dc->ctx);
  free(dc->cache_dir);
  free(dc);
}

tfl_delegate *gl_delegate_create(const gl_delegate_options *o)
{
  gl_dctx *dc = calloc(1, sizeof *dc);
  if (!dc) {
    tfl_fail(o ? o->diag : NULL, TFL_ERR_NOMEM, "GL delegate");
    return NULL;
  }
  dc->o = o ? *o : gl_delegate_defaults();
  dc->diag = dc->o.diag;
  if (!dc->o.cache_dir) { /* the user's cache directory */
    dc->cache_dir = gl_cache_default_dir(dc->diag);
  } else if (dc->o.cache_dir[0]) {
    dc->cache_dir = strdup(dc->o.cache_dir);
    if (!dc->cache_dir) {
      tfl_fail(dc->diag, TFL_ERR_NOMEM, "GL delegate");
      free(dc);
      return NULL;
    }
  }
  dc->o.cache_dir = dc->cache_dir;
  if (dc->o.profile < GL_PROFILE_NATIVE || dc->o.profile > GL_PROFILE_ADRENO6XX) {
    tfl_fail(dc->diag, TFL_ERR_ARG, "GL delegate: device profile %d is not one of %s", (int)dc->o.profile,
             gl_device_profile_names());
    free(dc->cache_dir);
    free(dc);
    return NULL;
  }
  if (gl_context_create_for(dc->o.use_current_context, dc->o.egl_platform, dc->o.profile, &dc->ctx, dc->diag) != TFL_OK) {
    free(dc->cache_dir);
    free(dc);
    return NULL;
  }
  dc->base.name = "gl";
  dc->base.ctx = dc;
  dc->base.supports = supports;
  dc->base.prepare = prepare;
  dc->base.invoke = invoke;
  dc->base.release = release;
  dc->base.bind_input = bind_input;
  dc->base.output_bytes = output_bytes;
  dc->base.export_output = export_output;
  dc->base.buffers = &gl_buffer_ops;
  dc->base.set_output_host = set_output_host;
  dc->base.destroy = destroy;
  dc->stats.renderer = dc->ctx->renderer;
  dc->stats.version = dc->ctx->version;
  return &dc->base;
}

/* ---- device tensors (tfl_delegate.h) ---- */

/* Image buffers: the handles are texture names in our context (or one sharing with it). */
static tfl_status buf_import(void *ctx, tfl_buffer *b, const tfl_image_desc *x)
{
  gl_dctx *dc = ctx;
  tfl_diag *diag = b->diag;
  if (x->width < 1 || x->height < 1 || !x->handle || x->handle > UINT32_MAX)
    return tfl_fail(diag, TFL_ERR_ARG, "GL: texture %llu of %dx%d", (unsigned long long)x->handle, x->width, x->height);
  if ((int)x->layout < TFL_IMAGE_RGBA || x->layout > TFL_IMAGE_UYVY)
    return tfl_fail(diag, TFL_ERR_ARG, "GL: image layout %d", (int)x->layout);
  int planes = x->layout == TFL_IMAGE_I420 ? 2 : x->layout == TFL_IMAGE_NV12 || x->layout == TFL_IMAGE_NV21 ? 1 : 0;
  for (int i = 0; i < planes; i++)
    if (!x->planes[i] || x->planes[i] > UINT32_MAX)
      return tfl_fail(diag, TFL_ERR_ARG, "GL: image layout %d with plane %d texture %llu", (int)x->layout, i + 1,
                      (unsigned long long)x->planes[i]);
  if (x->external && x->layout != TFL_IMAGE_RGBA)
    return tfl_fail(diag, TFL_ERR_ARG, "GL: external-OES texture %llu with image layout %d (it is read as RGBA only)",
                    (unsigned long long)x->handle, (int)x->layout);
  /* without the extension the shader cannot name the sampler type at all */
  if (x->external && !dc->ctx->oes_external)
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "GL: external-OES texture %llu: the context (%s, %s) lacks "
                    "GL_OES_EGL_image_external_essl3; use texture-target=2D (e.g. glcolorconvert before)",
                    (unsigned long long)x->handle, dc->ctx->version, dc->ctx->renderer);
  return TFL_OK;
}

static tfl_status bind_input(void *ctx, void *state, int tensor, const tfl_buffer *image)
{
  gl_dctx *dc = ctx;
  gl_part *p = state;
  if (p->tex_in < 0 || p->plan.in[p->tex_in].tensor != tensor)
    return tfl_fail(p->diag, TFL_ERR_UNSUPPORTED, "GL: tensor %d is not an image input ([B,H,W,3|4], float or 8-bit) "
                    "of this partition", tensor);
  if (!image) { /* back to host memory */
    memset(p->images, 0, sizeof *p->images * (size_t)p->n_slots);
    p->n_images = 0;
    return TFL_OK;
  }
  const tfl_image_desc *x = tfl_buffer_image(image);
  if (!x) return tfl_fail(p->diag, TFL_ERR_ARG, "GL: tensor %d bound to a buffer that holds no imported picture", tensor);
  if (x->slot < 0 || x->slot >= p->n_slots)
    return tfl_fail(p->diag, TFL_ERR_ARG, "GL: slot %d of a batch of %d", x->slot, p->n_slots);
  for (int c = 0; c < 3; c++)
    if (!(x->std[c] != 0.0f)) return tfl_fail(p->diag, TFL_ERR_ARG, "GL: std[%d] is 0", c);
  if (x->external ? !p->tex_prog_ext : !p->tex_prog) {
    tfl_status st = gl_context_bind(dc->ctx, p->diag);
    if (st || (st = compile_texture(dc, p, x->external))) return st;
  }
  p->n_images += !p->images[x->slot].handle;
  p->images[x->slot] = *x;
  return TFL_OK;
}

static int plan_output(const gl_part *p, int tensor)
{
  for (int i = 0; i < p->plan.n_out; i++)
    if (p->plan.out[i].tensor == tensor) return i;
  return -1;
}

/* The mask-export program of plan output i and a byte buffer for its slot. */
static tfl_status prepare_mask(gl_dctx *dc, gl_part *p, int i)
{
  const gl_plan_io *io = &p->plan.out[i];
  if (!p->mask_progs && !(p->mask_progs = calloc((size_t)p->plan.n_out, sizeof *p->mask_progs)))
    return tfl_fail(p->diag, TFL_ERR_NOMEM, "GL: mask programs");
  if (!p->mask_progs[i]) {
    gl_shape one = io->sh;
    one.b = 1;
    char *src = gl_mask_source(one, io->off, p->vec4_bytes == 8, io->wide);
    if (!src) return tfl_fail(p->diag, TFL_ERR_NOMEM, "GL: mask shader");
    tfl_status st = gl_program_compile(dc->ctx, src, "the mask export", &p->mask_progs[i], p->diag);
    free(src);
    if (st) return st;
  }
  size_t bytes = (size_t)((io->sh.w + 3) / 4) * 4 * (size_t)io->sh.h;
  if (p->mask_bytes_size < bytes) {
    const gl_funcs *f = &dc->ctx->f;
    if (!p->mask_bytes) f->GenBuffers(1, &p->mask_bytes);
    f->BindBuffer(GL_SHADER_STORAGE_BUFFER, p->mask_bytes);
    f->BufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)bytes, NULL, GL_DYNAMIC_COPY);
    tfl_status st = gl_check(dc->ctx, "allocating the mask buffer", p->diag);
    if (st) return st;
    p->mask_bytes_size = bytes;
  }
  return TFL_OK;
}

/* The mask bytes of plan output i's slot (gl_gen_mask.c) into p->mask_bytes, unless the
 * last export since the invoke made them already (a texture and a host copy of one mask
 * cost one dispatch). */
static void make_mask(gl_dctx *dc, gl_part *p, int i, const tfl_export *e)
{
  const gl_funcs *f = &dc->ctx->f;
  const gl_plan_io *io = &p->plan.out[i];
  bool sigm = e->convert == TFL_CONVERT_SIGMOID_CLASS_U8 && io->sh.c == 1;
  if (p->mask_made == i && p->mask_made_slot == e->slot && p->mask_made_sigm == sigm) return;
  f->UseProgram(p->mask_progs[i]);
  f->BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, p->arena);
  f->BindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, p->mask_bytes);
  f->Uniform1i(0, e->slot * io->sh.s * io->sh.h * io->sh.w * (io->wide ? 2 : 1));
  f->Uniform1i(1, sigm);
  f->DispatchCompute((GLuint)(((io->sh.w + 3) / 4 + 7) / 8), (GLuint)((io->sh.h + 7) / 8), 1);
  f->UseProgram(0);
  p->mask_made = i;
  p->mask_made_slot = e->slot;
  p->mask_made_sigm = sigm;
}

/* The mask bytes (rows padded to 4) into the caller's width x height bytes: copied on the
 * GPU into a read-hinted buffer, then mapped (waits for the GPU). */
static tfl_status mask_to_host(gl_dctx *dc, gl_part *p, const gl_plan_io *io, uint8_t *out)
{
  const gl_funcs *f = &dc->ctx->f;
  size_t row = (size_t)((io->sh.w + 3) / 4) * 4, bytes = row * (size_t)io->sh.h;
  if (p->mask_host_size < bytes) {
    if (!p->mask_host) f->GenBuffers(1, &p->mask_host);
    f->BindBuffer(GL_COPY_WRITE_BUFFER, p->mask_host);
    f->BufferData(GL_COPY_WRITE_BUFFER, (GLsizeiptr)bytes, NULL, GL_STREAM_READ);
    tfl_status st = gl_check(dc->ctx, "allocating the mask readback buffer", p->diag);
    if (st) return st;
    p->mask_host_size = bytes;
  }
  f->MemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  f->BindBuffer(GL_COPY_READ_BUFFER, p->mask_bytes);
  f->BindBuffer(GL_COPY_WRITE_BUFFER, p->mask_host);
  f->CopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, 0, (GLsizeiptr)bytes);
  const uint8_t *m = f->MapBufferRange(GL_COPY_WRITE_BUFFER, 0, (GLsizeiptr)bytes, GL_MAP_READ_BIT);
  if (!m) return gl_check(dc->ctx, "mapping the mask", p->diag) ? TFL_ERR_BACKEND
                                                                 : tfl_fail(p->diag, TFL_ERR_BACKEND, "GL: glMapBufferRange failed");
  for (int y = 0; y < io->sh.h; y++) memcpy(out + (size_t)y * (size_t)io->sh.w, m + (size_t)y * row, (size_t)io->sh.w);
  f->UnmapBuffer(GL_COPY_WRITE_BUFFER);
  f->BindBuffer(GL_COPY_READ_BUFFER, 0);
  f->BindBuffer(GL_COPY_WRITE_BUFFER, 0);
  return TFL_OK;
}

/* The mask bytes (rows padded to 4) copied on the GPU into the caller's buffer `name`;
 * nothing waits (the caller fences and maps it). A buffer too small fails the copy
 * (GL_INVALID_VALUE): the error names the bytes needed. */
static tfl_status mask_to_buffer(gl_dctx *dc, gl_part *p, const gl_plan_io *io, unsigned name, size_t offset)
{
  const gl_funcs *f = &dc->ctx->f;
  size_t bytes = (size_t)((io->sh.w + 3) / 4) * 4 * (size_t)io->sh.h;
  f->MemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  f->BindBuffer(GL_COPY_READ_BUFFER, p->mask_bytes);
  f->BindBuffer(GL_COPY_WRITE_BUFFER, name);
  f->CopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, (GLintptr)offset, (GLsizeiptr)bytes);
  GLenum e = f->GetError();
  f->BindBuffer(GL_COPY_READ_BUFFER, 0);
  f->BindBuffer(GL_COPY_WRITE_BUFFER, 0);
  if (e != GL_NO_ERROR)
    return tfl_fail(p->diag, TFL_ERR_ARG, "GL: copying the mask (%zu bytes) into buffer %u: error 0x%x", bytes, name,
                    (unsigned)e);
  return TFL_OK;
}

/* ---- queued read-back: any output's slot as host bytes (TFL_CONVERT_NONE) ---- */

/* A live node reading `tensor`, -1 if none (such an output must come back to the host). */
static int reader_of(const gl_part *p, int tensor)
{
  for (int n = 0; n < p->g->n_nodes; n++)
    for (int j = 0; !p->g->nodes[n].dead && j < p->g->nodes[n].n_in; j++)
      if (p->g->nodes[n].in[j] == tensor) return n;
  return -1;
}

/* How download_all reads plan output i's values: the queued copy makes the same bits. */
static gl_host_values host_values(const gl_part *p, int i)
{
  const gl_plan_io *io = &p->plan.out[i];
  if (p->vec4_bytes == 16) return GL_HOST_FLOATS;
  if (p->io_prog[p->plan.n_in + i] >= 0) return dense_float(io, false) ? GL_HOST_FLOATS : GL_HOST_PACKED_HALVES;
  return io->wide ? GL_HOST_FLOATS : GL_HOST_STORED_HALVES;
}

/* A rank-1 output [B] (the detectors' counts): a value a slot, channel `slot` of its one
 * row (gl_layout.h), where other outputs' slots are whole rows. */
static bool slot_is_channel(const gl_part *p, const gl_plan_io *io)
{
  const tfl_tensor *t = &p->g->tensors[io->tensor];
  return t->ndim == 1 && io->sh.b == 1 && io->sh.c == t->dims[0];
}

/* Whether plan output i can be queued as host bytes, and one slot's bytes. */
static tfl_status slot_bytes(gl_part *p, int i, int slot, size_t *bytes)
{
  const gl_plan_io *io = &p->plan.out[i];
  const tfl_tensor *t = &p->g->tensors[io->tensor];
  const int slots = slot_is_channel(p, io) ? t->dims[0] : io->sh.b;
  const char *name = t->name ? t->name : "";
  int n = reader_of(p, io->tensor);
  if (n >= 0)
    return tfl_fail(p->diag, TFL_ERR_UNSUPPORTED, "GL: output tensor %d (%s) is read by node %d (%s): it comes back "
                    "with the invoke, it is not queued", io->tensor, name, n, tfl_op_name(p->g->nodes[n].op));
  /* quantized values are rounded on the CPU (in double), which a shader cannot match */
  if (t->type != TFL_TYPE_FLOAT32)
    return tfl_fail(p->diag, TFL_ERR_UNSUPPORTED, "GL: output tensor %d (%s) is %s: only float32 outputs are queued",
                    io->tensor, name, tfl_type_name(t->type));
  if (t->ndim < 1 || t->dims[0] != slots)
    return tfl_fail(p->diag, TFL_ERR_UNSUPPORTED, "GL: output tensor %d (%s) has no batch dimension to take a slot of",
                    io->tensor, name);
  if (slot < 0 || slot >= slots)
    return tfl_fail(p->diag, TFL_ERR_ARG, "GL: slot %d of output tensor %d (%s), a batch of %d", slot, io->tensor, name,
                    slots);
  *bytes = tfl_tensor_count(t) / (size_t)slots * sizeof(float);
  return TFL_OK;
}

static tfl_status prepare_slot_prog(gl_dctx *dc, gl_part *p, int i)
{
  if (!p->slot_progs && !(p->slot_progs = calloc((size_t)p->plan.n_out, sizeof *p->slot_progs)))
    return tfl_fail(p->diag, TFL_ERR_NOMEM, "GL: read-back programs");
  slot_prog *sp = &p->slot_progs[i];
  if (sp->prog) return TFL_OK;
  const gl_plan_io *io = &p->plan.out[i];
  gl_shape one = io->sh;
  one.b = 1;
  if (slot_is_channel(p, io)) one = gl_shape_make(1, 1, 1, 1);
  gl_boundary_prog bp = gl_boundary_slot_source(one, io->off, p->vec4_bytes == 8, io->wide, host_values(p, i));
  if (!bp.src) return tfl_fail(p->diag, TFL_ERR_NOMEM, "GL: read-back shader");
  tfl_status st = gl_program_compile(dc->ctx, bp.src, "the queued read-back", &sp->prog, p->diag);
  free(bp.src);
  memcpy(sp->groups, bp.groups, sizeof sp->groups);
  return st;
}

/* A device buffer of ours: a GL buffer object and the fence after the last work that
 * writes it. */
typedef struct {
  unsigned name;
  GLsync fence;
} gl_buf;

static unsigned buf_name(const tfl_buffer *b)
{
  return b->kind == TFL_BUFFER_DEVICE ? ((const gl_buf *)b->impl)->name : (unsigned)b->image.handle;
}

/* The slot's host values written into device buffer dst from e->offset on the GPU (one
 * dispatch), nothing waited for. */
static tfl_status export_slot(gl_dctx *dc, gl_part *p, int i, const tfl_export *e, tfl_buffer *dst)
{
  const gl_funcs *f = &dc->ctx->f;
  const gl_plan_io *io = &p->plan.out[i];
  size_t bytes = 0;
  tfl_status st = slot_bytes(p, i, e->slot, &bytes);
  if (st) return st;
  if (dst->kind != TFL_BUFFER_DEVICE)
    return tfl_fail(p->diag, TFL_ERR_UNSUPPORTED, "GL: output tensor %d (%s): its values go to a device buffer, not "
                    "%s (a host copy comes with the invoke)", io->tensor,
                    p->g->tensors[io->tensor].name ? p->g->tensors[io->tensor].name : "",
                    dst->kind == TFL_BUFFER_HOST ? "a host buffer" : "an image");
  if (e->offset % 4 || e->offset > dst->size || dst->size - e->offset < bytes)
    return tfl_fail(p->diag, TFL_ERR_ARG, "GL: output tensor %d (%s): its slot needs %zu bytes from byte %zu (a "
                    "multiple of 4) of a device buffer of %zu", io->tensor,
                    p->g->tensors[io->tensor].name ? p->g->tensors[io->tensor].name : "", bytes, e->offset, dst->size);
  if ((st = gl_context_bind(dc->ctx, p->diag)) || (st = prepare_slot_prog(dc, p, i))) return st;
  while (f->GetError() != GL_NO_ERROR) { /* errors of the caller's own GL work are not ours */
  }
  const slot_prog *sp = &p->slot_progs[i];
  f->UseProgram(sp->prog);
  f->BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, p->arena);
  f->BindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, buf_name(dst));
  const bool channel = slot_is_channel(p, io);
  f->Uniform1i(0, channel ? 0 : e->slot * io->sh.s * io->sh.h * io->sh.w * (io->wide ? 2 : 1));
  f->Uniform1i(1, (GLint)(e->offset / 4));
  f->Uniform1i(2, channel ? e->slot : 0);
  f->DispatchCompute((GLuint)sp->groups[0], (GLuint)sp->groups[1], 1);
  f->BindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, 0);
  f->UseProgram(0);
  f->MemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT); /* the caller's map sees the values */
  return gl_check(dc->ctx, "queueing an output's read-back", p->diag);
}

/* Whether plan output i can be made into class bytes (a [B,H,W,C] output, C <= 255). */
static tfl_status class_fits(const gl_part *p, int i, int slot)
{
  const gl_plan_io *io = &p->plan.out[i];
  const tfl_tensor *t = &p->g->tensors[io->tensor];
  if (t->ndim != 4 || io->sh.c > 255)
    return tfl_fail(p->diag, TFL_ERR_UNSUPPORTED, "GL: output tensor %d (%s) as class bytes: it needs [B,H,W,C] with "
                    "C <= 255, not rank %d with %d channels", io->tensor, t->name ? t->name : "", t->ndim, io->sh.c);
  if (slot < 0 || slot >= io->sh.b) return tfl_fail(p->diag, TFL_ERR_ARG, "GL: slot %d of a batch of %d", slot, io->sh.b);
  return TFL_OK;
}

static tfl_status output_bytes(void *ctx, void *state, int tensor, const tfl_export *e, size_t *need)
{
  (void)ctx;
  gl_part *p = state;
  int i = plan_output(p, tensor);
  if (i < 0) return tfl_fail(p->diag, TFL_ERR_ARG, "GL: tensor %d is not an output of this partition", tensor);
  if (!e || !need) return tfl_fail(p->diag, TFL_ERR_ARG, "GL: output tensor %d's bytes asked with no export", tensor);
  if (e->convert == TFL_CONVERT_NONE) return slot_bytes(p, i, e->slot, need);
  tfl_status st = class_fits(p, i, e->slot);
  if (st) return st;
  *need = tfl_class_row_bytes(p->plan.out[i].sh.w) * (size_t)p->plan.out[i].sh.h;
  return TFL_OK;
}

/* An output slot into dst: its host values (a device buffer), or one byte per pixel (a
 * texture GPU to GPU, glTexSubImage2D reading the bytes as a pixel-unpack buffer; a
 * device buffer; host memory, waiting). */
static tfl_status export_output(void *ctx, void *state, int tensor, const tfl_export *e, tfl_buffer *dst)
{
  gl_dctx *dc = ctx;
  gl_part *p = state;
  const gl_funcs *f = &dc->ctx->f;
  int i = plan_output(p, tensor);
  if (i < 0) return tfl_fail(p->diag, TFL_ERR_ARG, "GL: tensor %d is not an output of this partition", tensor);
  if (e->convert != TFL_CONVERT_NONE && e->convert != TFL_CONVERT_CLASS_U8 && e->convert != TFL_CONVERT_SIGMOID_CLASS_U8)
    return tfl_fail(p->diag, TFL_ERR_ARG, "GL: output tensor %d: conversion %d", tensor, (int)e->convert);
  if (e->convert == TFL_CONVERT_NONE) return export_slot(dc, p, i, e, dst);
  const gl_plan_io *io = &p->plan.out[i];
  tfl_status st = class_fits(p, i, e->slot);
  if (st) return st;
  size_t row = tfl_class_row_bytes(io->sh.w), dense = (size_t)io->sh.w * (size_t)io->sh.h;
  const tfl_image_desc *img = tfl_buffer_image(dst);
  if (dst->kind == TFL_BUFFER_HOST && dst->size < dense)
    return tfl_fail(p->diag, TFL_ERR_ARG, "GL: output tensor %d's class bytes (%dx%d) into a host buffer of %zu bytes",
                    tensor, io->sh.w, io->sh.h, dst->size);
  if (dst->kind == TFL_BUFFER_DEVICE && (e->offset % 4 || e->offset > dst->size || dst->size - e->offset < row * (size_t)io->sh.h))
    return tfl_fail(p->diag, TFL_ERR_ARG, "GL: output tensor %d's class bytes need %zu bytes from byte %zu (a multiple "
                    "of 4) of a device buffer of %zu", tensor, row * (size_t)io->sh.h, e->offset, dst->size);
  if (dst->kind == TFL_BUFFER_IMAGE && (!img || img->width != io->sh.w || img->height != io->sh.h))
    return tfl_fail(p->diag, TFL_ERR_ARG, "GL: mask texture is %dx%d, the output %dx%d", img ? img->width : 0,
                    img ? img->height : 0, io->sh.w, io->sh.h);
  if ((st = gl_context_bind(dc->ctx, p->diag)) || (st = prepare_mask(dc, p, i))) return st;
  while (f->GetError() != GL_NO_ERROR) { /* errors of the caller's own GL work are not ours */
  }
  make_mask(dc, p, i, e);
  if (dst->kind == TFL_BUFFER_HOST) {
    if ((st = mask_to_host(dc, p, io, dst->host))) return st;
    return gl_check(dc->ctx, "reading the mask back", p->diag);
  }
  if (dst->kind == TFL_BUFFER_DEVICE) return mask_to_buffer(dc, p, io, buf_name(dst), e->offset);
  f->MemoryBarrier(GL_PIXEL_BUFFER_BARRIER_BIT);
  f->BindBuffer(GL_PIXEL_UNPACK_BUFFER, p->mask_bytes);
  f->PixelStorei(GL_UNPACK_ALIGNMENT, 4);
  f->BindTexture(GL_TEXTURE_2D, buf_name(dst));
  f->TexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, io->sh.w, io->sh.h, GL_RED, GL_UNSIGNED_BYTE, NULL);
  f->BindTexture(GL_TEXTURE_2D, 0);
  f->BindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  return gl_check(dc->ctx, "exporting the mask", p->diag);
}

/* ---- device buffers (tfl_buffer_impl.h) ---- */

static tfl_status buf_reserve(void *ctx, tfl_buffer *b, size_t bytes)
{
  gl_dctx *dc = ctx;
  const gl_funcs *f = &dc->ctx->f;
  tfl_status st = gl_context_bind(dc->ctx, b->diag);
  if (st) return st;
  if (bytes > (size_t)PTRDIFF_MAX) return tfl_fail(b->diag, TFL_ERR_ARG, "GL: a device buffer of %zu bytes", bytes);
  gl_buf *gb = b->impl;
  if (!gb && !(gb = b->impl = calloc(1, sizeof *gb))) return tfl_fail(b->diag, TFL_ERR_NOMEM, "GL: a device buffer");
  if (gb->fence) f->DeleteSync(gb->fence); /* its bytes are gone */
  gb->fence = NULL;
  while (f->GetError() != GL_NO_ERROR) {
  }
  if (!gb->name) f->GenBuffers(1, &gb->name);
  f->BindBuffer(GL_COPY_WRITE_BUFFER, gb->name);
  /* read-hinted: mapped on the host, so it lives in cached host memory */
  f->BufferData(GL_COPY_WRITE_BUFFER, (GLsizeiptr)(bytes ? bytes : 4), NULL, GL_STREAM_READ);
  f->BindBuffer(GL_COPY_WRITE_BUFFER, 0);
  return gl_check(dc->ctx, "allocating a device buffer", b->diag);
}

static void buf_release(void *ctx, tfl_buffer *b)
{
  gl_dctx *dc = ctx;
  gl_buf *gb = b->impl;
  if (!gb) return;
  const gl_funcs *f = &dc->ctx->f;
  if (gl_context_bind(dc->ctx, b->diag) == TFL_OK) {
    if (b->mapped) {
      f->BindBuffer(GL_COPY_READ_BUFFER, gb->name);
      f->UnmapBuffer(GL_COPY_READ_BUFFER);
      f->BindBuffer(GL_COPY_READ_BUFFER, 0);
    }
    if (gb->fence) f->DeleteSync(gb->fence);
    if (gb->name) f->DeleteBuffers(1, &gb->name);
  }
  free(gb);
  b->impl = NULL;
}

static tfl_status buf_copy(void *ctx, tfl_buffer *src, size_t src_off, tfl_buffer *dst, size_t dst_off, size_t bytes)
{
  gl_dctx *dc = ctx;
  const gl_funcs *f = &dc->ctx->f;
  tfl_status st = gl_context_bind(dc->ctx, dst->diag);
  if (st) return st;
  while (f->GetError() != GL_NO_ERROR) {
  }
  f->MemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  f->BindBuffer(GL_COPY_READ_BUFFER, buf_name(src));
  f->BindBuffer(GL_COPY_WRITE_BUFFER, buf_name(dst));
  f->CopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, (GLintptr)src_off, (GLintptr)dst_off, (GLsizeiptr)bytes);
  f->BindBuffer(GL_COPY_READ_BUFFER, 0);
  f->BindBuffer(GL_COPY_WRITE_BUFFER, 0);
  return gl_check(dc->ctx, "copying between device buffers", dst->diag);
}

static tfl_status buf_fence(void *ctx, tfl_buffer *b)
{
  gl_dctx *dc = ctx;
  const gl_funcs *f = &dc->ctx->f;
  gl_buf *gb = b->impl;
  if (b->kind != TFL_BUFFER_DEVICE) return tfl_fail(b->diag, TFL_ERR_ARG, "GL: a fence on an image (device buffers only)");
  tfl_status st = gl_context_bind(dc->ctx, b->diag);
  if (st) return st;
  if (gb->fence) f->DeleteSync(gb->fence);
  gb->fence = f->FenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  /* flushed so that the GPU starts now, not when the next frame's commands come */
  f->Flush();
  return gb->fence ? TFL_OK : tfl_fail(b->diag, TFL_ERR_BACKEND, "GL: no fence for a device buffer");
}

static bool buf_ready(void *ctx, tfl_buffer *b)
{
  gl_dctx *dc = ctx;
  gl_buf *gb = b->impl;
  if (b->kind != TFL_BUFFER_DEVICE || !gb->fence || gl_context_bind(dc->ctx, b->diag) != TFL_OK) return true;
  return dc->ctx->f.ClientWaitSync(gb->fence, 0, 0) != GL_TIMEOUT_EXPIRED;
}

static tfl_status buf_map(void *ctx, tfl_buffer *b, const void **ptr)
{
  gl_dctx *dc = ctx;
  const gl_funcs *f = &dc->ctx->f;
  gl_buf *gb = b->impl;
  tfl_status st = gl_context_bind(dc->ctx, b->diag);
  if (st) return st;
  if (gb->fence) {
    GLenum r;
    /* flush once; then wait in 1 s steps (a timeout is no error: the GPU is busy) */
    for (GLbitfield flags = GL_SYNC_FLUSH_COMMANDS_BIT;; flags = 0)
      if ((r = f->ClientWaitSync(gb->fence, flags, 1000000000)) != GL_TIMEOUT_EXPIRED) break;
    f->DeleteSync(gb->fence);
    gb->fence = NULL;
    if (r == GL_WAIT_FAILED) return tfl_fail(b->diag, TFL_ERR_BACKEND, "GL: waiting for device buffer %u failed", gb->name);
  }
  while (f->GetError() != GL_NO_ERROR) {
  }
  f->BindBuffer(GL_COPY_READ_BUFFER, gb->name);
  *ptr = f->MapBufferRange(GL_COPY_READ_BUFFER, 0, (GLsizeiptr)(b->size ? b->size : 4), GL_MAP_READ_BIT);
  f->BindBuffer(GL_COPY_READ_BUFFER, 0);
  if (*ptr) return TFL_OK;
  return gl_check(dc->ctx, "mapping a device buffer", b->diag) ? TFL_ERR_BACKEND
                                                                : tfl_fail(b->diag, TFL_ERR_BACKEND, "GL: glMapBufferRange failed");
}

static void buf_unmap(void *ctx, tfl_buffer *b)
{
  gl_dctx *dc = ctx;
  const gl_funcs *f = &dc->ctx->f;
  if (gl_context_bind(dc->ctx, b->diag) != TFL_OK) return;
  f->BindBuffer(GL_COPY_READ_BUFFER, ((gl_buf *)b->impl)->name);
  f->UnmapBuffer(GL_COPY_READ_BUFFER);
  f->BindBuffer(GL_COPY_READ_BUFFER, 0);
}

static const tfl_buffer_ops gl_buffer_ops = {
  .reserve = buf_reserve,
  .release = buf_release,
  .import = buf_import,
  .copy = buf_copy,
  .fence = buf_fence,
  .ready = buf_ready,
  .map = buf_map,
  .unmap = buf_unmap,
};

static tfl_status set_output_host(void *ctx, void *state, int tensor, bool host)
{
  gl_part *p = state;
  int i = plan_output(p, tensor);
  if (i < 0) return tfl_fail(p->diag, TFL_ERR_ARG, "GL: tensor %d is not an output of this partition", tensor);
  /* stale host data is only safe when no other node reads the tensor */
  int n = host ? -1 : reader_of(p, tensor);
  if (n >= 0)
    return tfl_fail(p->diag, TFL_ERR_ARG, "GL: output tensor %d is read by node %d (%s): it must be read back", tensor,
                    n, tfl_op_name(p->g->nodes[n].op));
  if (!p->on_gpu && !(p->on_gpu = calloc((size_t)p->plan.n_out, sizeof *p->on_gpu)))
    return tfl_fail(p->diag, TFL_ERR_NOMEM, "GL: output flags");
  p->on_gpu[i] = !host;
  return TFL_OK;
}

void gl_delegate_set_profiling(tfl_delegate *d, bool on)
{
  ((gl_dctx *)d->ctx)->profiling = on;
}

int gl_delegate_get_profile(tfl_delegate *d, gl_dispatch_profile *out, int max)
{
  gl_dctx *dc = d->ctx;
  gl_part *order[64];
  int n_parts = 0, n = 0;
  for (gl_part *p = dc->parts; p && n_parts < 64; p = p->next) order[n_parts++] = p;
  for (int k = n_parts - 1; k >= 0; k--) { /* the list is newest first; partitions run oldest first */
    gl_part *p = order[k];
    if (!p->timed) continue;
    for (int i = 0; i < p->plan.n_d; i++, n++) {
      if (n >= max) continue;
      const gl_plan_dispatch *pd = &p->plan.d[i];
      out[n] = (gl_dispatch_profile){pd->node, tfl_op_name(p->g->nodes[pd->node].op), pd->n_fused, p->times_ms[i], pd->flops};
    }
  }
  return n;
}

tfl_status gl_delegate_finish(tfl_delegate *d)
{
  gl_dctx *dc = d->ctx;
  tfl_status st = gl_context_bind(dc->ctx, dc->diag);
  if (st) return st;
  dc->ctx->f.Finish();
  return gl_check(dc->ctx, "waiting for the GPU", dc->diag);
}

void gl_delegate_get_stats(tfl_delegate *d, gl_delegate_stats *out)
{
  *out = ((gl_dctx *)d->ctx)->stats;
}
