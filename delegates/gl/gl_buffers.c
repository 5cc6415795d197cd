/* gl_buffers.c - the GL delegate's device buffers (runtime/tfl_buffer_impl.h: GL buffer
 * objects with a fence, mapped read-only; images are texture names) and the exports of
 * output slots into them: a slot's host bytes (the queued read-back) or its class bytes
 * (masks into a texture, a device buffer or host memory). Partition state: gl_part.h. */
#include <stdlib.h>
#include <string.h>

#include "gl_boundary.h"
#include "gl_part.h"
#include "gl_program.h"
#include "gl_texture.h"

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

/* The mask bytes (rows padded to 4) into the caller's width x height bytes: copied on the
 * GPU into a device buffer of ours, then mapped (waits for the GPU). */
static tfl_status mask_to_host(gl_dctx *dc, gl_part *p, const gl_plan_io *io, uint8_t *out)
{
  size_t row = (size_t)((io->sh.w + 3) / 4) * 4, bytes = row * (size_t)io->sh.h;
  tfl_status st = p->mask_host ? tfl_buffer_reserve(p->mask_host, bytes)
                               : tfl_buffer_new(&dc->base, TFL_BUFFER_DEVICE, bytes, p->diag, &p->mask_host);
  const uint8_t *m = NULL;
  if (st || (st = mask_to_buffer(dc, p, io, gl_buffer_name(p->mask_host), 0))) return st;
  if ((st = tfl_buffer_map(p->mask_host, (const void **)&m)))
    return tfl_fail_prefix(p->diag, st, "reading the mask back (%zu bytes)", bytes);
  for (int y = 0; y < io->sh.h; y++) memcpy(out + (size_t)y * (size_t)io->sh.w, m + (size_t)y * row, (size_t)io->sh.w);
  tfl_buffer_unmap(p->mask_host);
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

unsigned gl_buffer_name(const tfl_buffer *b)
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
  f->BindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, gl_buffer_name(dst));
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

tfl_status gl_part_output_bytes(void *ctx, void *state, int tensor, const tfl_export *e, size_t *need)
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
tfl_status gl_part_export_output(void *ctx, void *state, int tensor, const tfl_export *e, tfl_buffer *dst)
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
  if (dst->kind == TFL_BUFFER_DEVICE) return mask_to_buffer(dc, p, io, gl_buffer_name(dst), e->offset);
  f->MemoryBarrier(GL_PIXEL_BUFFER_BARRIER_BIT);
  f->BindBuffer(GL_PIXEL_UNPACK_BUFFER, p->mask_bytes);
  f->PixelStorei(GL_UNPACK_ALIGNMENT, 4);
  f->BindTexture(GL_TEXTURE_2D, gl_buffer_name(dst));
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
  f->BindBuffer(GL_COPY_READ_BUFFER, gl_buffer_name(src));
  f->BindBuffer(GL_COPY_WRITE_BUFFER, gl_buffer_name(dst));
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

const tfl_buffer_ops gl_buffer_ops = {
  .reserve = buf_reserve,
  .release = buf_release,
  .import = buf_import,
  .copy = buf_copy,
  .fence = buf_fence,
  .ready = buf_ready,
  .map = buf_map,
  .unmap = buf_unmap,
};

tfl_status gl_part_set_output_host(void *ctx, void *state, int tensor, bool host)
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
