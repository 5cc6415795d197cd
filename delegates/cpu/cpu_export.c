/* cpu_export.c - see cpu_export.h. The class bytes follow the same rule as the GL
 * delegate's mask shader (gl_gen_mask.c): the first channel with the largest value, or
 * the clamped value * 255 rounded half up, after a sigmoid for logits. */
#include "cpu_export.h"

#include <math.h>
#include <string.h>

#include "../../runtime/tfl_buffer_impl.h"

static const char *tname(const tfl_tensor *t)
{
  return t->name ? t->name : "";
}

/* Slot `slot`'s bytes (the tensor's bytes over its batch dimension). */
static tfl_status slot_bytes(const tfl_graph *g, tfl_diag *diag, int tensor, int slot, size_t *bytes)
{
  const tfl_tensor *t = &g->tensors[tensor];
  if (t->ndim < 1 || t->dims[0] < 1)
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "cpu: output tensor %d (%s) has no batch dimension to take a slot of",
                    tensor, tname(t));
  if (slot < 0 || slot >= t->dims[0])
    return tfl_fail(diag, TFL_ERR_ARG, "cpu: slot %d of output tensor %d (%s), a batch of %d", slot, tensor, tname(t),
                    t->dims[0]);
  *bytes = tfl_tensor_count(t) / (size_t)t->dims[0] * tfl_type_size(t->type);
  return TFL_OK;
}

static tfl_status class_fits(const tfl_graph *g, tfl_diag *diag, int tensor, int slot)
{
  const tfl_tensor *t = &g->tensors[tensor];
  if (t->type != TFL_TYPE_FLOAT32 || t->ndim != 4 || t->dims[3] < 1 || t->dims[3] > 255)
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "cpu: output tensor %d (%s) as class bytes: it needs float32 "
                    "[B,H,W,C] with C <= 255", tensor, tname(t));
  if (slot < 0 || slot >= t->dims[0])
    return tfl_fail(diag, TFL_ERR_ARG, "cpu: slot %d of output tensor %d (%s), a batch of %d", slot, tensor, tname(t),
                    t->dims[0]);
  return TFL_OK;
}

tfl_status cpu_output_bytes(const tfl_graph *g, tfl_diag *diag, int tensor, const tfl_export *e, size_t *need)
{
  if (!e || !need) return tfl_fail(diag, TFL_ERR_ARG, "cpu: output tensor %d's bytes asked with no export", tensor);
  if (e->convert == TFL_CONVERT_NONE) return slot_bytes(g, diag, tensor, e->slot, need);
  tfl_status st = class_fits(g, diag, tensor, e->slot);
  if (st) return st;
  const tfl_tensor *t = &g->tensors[tensor];
  *need = (size_t)t->dims[2] * (size_t)t->dims[1]; /* host rows: `width` bytes */
  return TFL_OK;
}

static uint8_t class_byte(const float *px, int c, bool sigm)
{
  if (c == 1) {
    float v = px[0];
    if (sigm) v = 1.0f / (1.0f + expf(-v));
    v = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v; /* NaN stays NaN: the comparison leaves it */
    return (uint8_t)(v == v ? v * 255.0f + 0.5f : 0.0f);
  }
  int best = 0;
  for (int k = 1; k < c; k++)
    if (px[k] > px[best]) best = k;
  return (uint8_t)best;
}

tfl_status cpu_export_output(const tfl_graph *g, tfl_diag *diag, int tensor, const tfl_export *e, tfl_buffer *dst)
{
  const tfl_tensor *t = &g->tensors[tensor];
  if (dst->kind != TFL_BUFFER_HOST)
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "cpu: output tensor %d (%s) exports into host buffers only", tensor,
                    tname(t));
  if (e->convert != TFL_CONVERT_NONE && e->convert != TFL_CONVERT_CLASS_U8 && e->convert != TFL_CONVERT_SIGMOID_CLASS_U8)
    return tfl_fail(diag, TFL_ERR_ARG, "cpu: output tensor %d: conversion %d", tensor, (int)e->convert);
  size_t bytes = 0;
  tfl_status st = cpu_output_bytes(g, diag, tensor, e, &bytes);
  if (st) return st;
  if (e->offset > dst->size || dst->size - e->offset < bytes)
    return tfl_fail(diag, TFL_ERR_ARG, "cpu: output tensor %d (%s): its slot needs %zu bytes from byte %zu of a host "
                    "buffer of %zu", tensor, tname(t), bytes, e->offset, dst->size);
  uint8_t *out = (uint8_t *)dst->host + e->offset;
  if (e->convert == TFL_CONVERT_NONE) {
    memcpy(out, (const uint8_t *)t->data + (size_t)e->slot * bytes, bytes);
    return TFL_OK;
  }
  const int c = t->dims[3];
  const float *v = (const float *)t->data + (size_t)e->slot * bytes * (size_t)c;
  const bool sigm = e->convert == TFL_CONVERT_SIGMOID_CLASS_U8;
  for (size_t i = 0; i < bytes; i++) out[i] = class_byte(v + i * (size_t)c, c, sigm);
  return TFL_OK;
}
