/* tfl_buffer.c - the buffer handle (tfl_buffer.h): host buffers here, device and image
 * buffers through their delegate's tfl_buffer_ops. */
#include "tfl_buffer.h"

#include <stdlib.h>
#include <string.h>

#include "tfl_delegate.h"
#include "tfl_buffer_impl.h"

static const char *kind_name(tfl_buffer_kind k)
{
  switch (k) {
  case TFL_BUFFER_HOST: return "host";
  case TFL_BUFFER_DEVICE: return "device";
  case TFL_BUFFER_IMAGE: return "image";
  }
  return "unknown";
}

size_t tfl_class_row_bytes(int width)
{
  return width > 0 ? ((size_t)width + 3) / 4 * 4 : 0;
}

tfl_status tfl_buffer_new(tfl_delegate *d, tfl_buffer_kind kind, size_t bytes, tfl_diag *diag, tfl_buffer **out)
{
  *out = NULL;
  if (kind != TFL_BUFFER_HOST && kind != TFL_BUFFER_DEVICE && kind != TFL_BUFFER_IMAGE)
    return tfl_fail(diag, TFL_ERR_ARG, "buffer kind %d is not host, device or image", (int)kind);
  if (kind != TFL_BUFFER_HOST && (!d || !d->buffers))
    return tfl_fail(diag, TFL_ERR_UNSUPPORTED, "a %s buffer: the %s delegate makes none", kind_name(kind),
                    d ? d->name : "(no)");
  tfl_buffer *b = calloc(1, sizeof *b);
  if (!b) return tfl_fail(diag, TFL_ERR_NOMEM, "a %s buffer", kind_name(kind));
  b->owner = kind == TFL_BUFFER_HOST ? NULL : d;
  b->kind = kind;
  tfl_diag_init(&b->own);
  b->diag = diag ? diag : &b->own;
  tfl_status st = kind == TFL_BUFFER_IMAGE ? TFL_OK : tfl_buffer_reserve(b, bytes);
  if (st != TFL_OK) {
    tfl_buffer_free(b);
    return st;
  }
  *out = b;
  return TFL_OK;
}

void tfl_buffer_free(tfl_buffer *b)
{
  if (!b) return;
  if (b->owner) b->owner->buffers->release(b->owner->ctx, b);
  free(b->host);
  free(b);
}

tfl_buffer_kind tfl_buffer_get_kind(const tfl_buffer *b)
{
  return b->kind;
}

size_t tfl_buffer_size(const tfl_buffer *b)
{
  return b->size;
}

tfl_delegate *tfl_buffer_owner(const tfl_buffer *b)
{
  return b->owner;
}

tfl_status tfl_buffer_reserve(tfl_buffer *b, size_t bytes)
{
  if (b->kind == TFL_BUFFER_IMAGE) return tfl_fail(b->diag, TFL_ERR_ARG, "an image buffer has no bytes to reserve");
  if (b->mapped) return tfl_fail(b->diag, TFL_ERR_ARG, "reserving %zu bytes of a mapped %s buffer", bytes, kind_name(b->kind));
  /* made even at 0 bytes, so that every later call finds the storage */
  if (bytes <= b->size && (b->kind == TFL_BUFFER_HOST ? b->host != NULL : b->impl != NULL)) return TFL_OK;
  if (b->kind == TFL_BUFFER_HOST) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) return tfl_fail(b->diag, TFL_ERR_NOMEM, "a host buffer of %zu bytes", bytes);
    free(b->host);
    b->host = p;
  } else {
    tfl_status st = b->owner->buffers->reserve(b->owner->ctx, b, bytes);
    if (st != TFL_OK) return st;
  }
  b->size = bytes;
  return TFL_OK;
}

tfl_status tfl_buffer_import(tfl_buffer *b, const tfl_image_desc *desc)
{
  if (b->kind != TFL_BUFFER_IMAGE)
    return tfl_fail(b->diag, TFL_ERR_ARG, "importing a picture into a %s buffer (images only)", kind_name(b->kind));
  if (!desc) return tfl_fail(b->diag, TFL_ERR_ARG, "importing no picture");
  tfl_status st = b->owner->buffers->import(b->owner->ctx, b, desc);
  if (st != TFL_OK) return st;
  b->image = *desc;
  b->imported = true;
  return TFL_OK;
}

const tfl_image_desc *tfl_buffer_image(const tfl_buffer *b)
{
  return b && b->kind == TFL_BUFFER_IMAGE && b->imported ? &b->image : NULL;
}

tfl_status tfl_buffer_copy(tfl_buffer *src, size_t src_off, tfl_buffer *dst, size_t dst_off, size_t bytes)
{
  if (src->kind == TFL_BUFFER_IMAGE || dst->kind == TFL_BUFFER_IMAGE)
    return tfl_fail(dst->diag, TFL_ERR_ARG, "copying bytes from a %s to a %s buffer (images have none)",
                    kind_name(src->kind), kind_name(dst->kind));
  if (src_off > src->size || bytes > src->size - src_off || dst_off > dst->size || bytes > dst->size - dst_off)
    return tfl_fail(dst->diag, TFL_ERR_ARG, "copying %zu bytes from byte %zu of %zu to byte %zu of %zu", bytes, src_off,
                    src->size, dst_off, dst->size);
  if (src->kind == TFL_BUFFER_HOST && dst->kind == TFL_BUFFER_HOST) {
    memmove((char *)dst->host + dst_off, (const char *)src->host + src_off, bytes);
    return TFL_OK;
  }
  if (src->owner != dst->owner || src->kind != dst->kind)
    return tfl_fail(dst->diag, TFL_ERR_UNSUPPORTED, "copying from a %s buffer of the %s delegate to a %s buffer of the "
                    "%s delegate: a device copy stays within one delegate (map the source instead)",
                    kind_name(src->kind), src->owner ? src->owner->name : "host", kind_name(dst->kind),
                    dst->owner ? dst->owner->name : "host");
  if (src->mapped || dst->mapped) return tfl_fail(dst->diag, TFL_ERR_ARG, "copying between buffers while one is mapped");
  return dst->owner->buffers->copy(dst->owner->ctx, src, src_off, dst, dst_off, bytes);
}

tfl_status tfl_buffer_fence(tfl_buffer *b)
{
  return b->owner ? b->owner->buffers->fence(b->owner->ctx, b) : TFL_OK;
}

bool tfl_buffer_ready(tfl_buffer *b)
{
  return b->owner ? b->owner->buffers->ready(b->owner->ctx, b) : true;
}

tfl_status tfl_buffer_map(tfl_buffer *b, const void **ptr)
{
  *ptr = NULL;
  if (b->kind == TFL_BUFFER_IMAGE) return tfl_fail(b->diag, TFL_ERR_ARG, "mapping an image buffer (it has no bytes)");
  if (b->mapped) return tfl_fail(b->diag, TFL_ERR_ARG, "mapping a %s buffer mapped already", kind_name(b->kind));
  if (b->kind == TFL_BUFFER_HOST) {
    *ptr = b->host;
  } else {
    tfl_status st = b->owner->buffers->map(b->owner->ctx, b, ptr);
    if (st != TFL_OK) return st;
  }
  b->mapped = true;
  return TFL_OK;
}

void tfl_buffer_unmap(tfl_buffer *b)
{
  if (!b->mapped) return;
  if (b->owner) b->owner->buffers->unmap(b->owner->ctx, b);
  b->mapped = false;
}

const char *tfl_buffer_last_error(const tfl_buffer *b)
{
  return b->diag->error;
}
