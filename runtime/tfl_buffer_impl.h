/* tfl_buffer_impl.h - what a delegate that makes buffers sees of them (tfl_buffer.h is
 * what callers see). The runtime keeps the handle, kind, size and an image's description;
 * the delegate keeps its object in `impl` and implements tfl_buffer_ops. */
#ifndef TFL_BUFFER_IMPL_H
#define TFL_BUFFER_IMPL_H

#include "tfl_buffer.h"

struct tfl_buffer {
  struct tfl_delegate *owner;  /* NULL: a host buffer */
  tfl_buffer_kind kind;
  size_t size;                 /* bytes (device, host); 0 for images */
  void *host;                  /* host buffers: the bytes */
  void *impl;                  /* device buffers: the delegate's object (its own struct) */
  tfl_image_desc image;        /* image buffers: the last import */
  bool imported;               /* an import since it was made */
  bool mapped;
  tfl_diag *diag;              /* the creator's, or &own */
  tfl_diag own;
};

/* A delegate's buffer operations (tfl_delegate.buffers). All take the delegate's ctx; b
 * is one of its own device or image buffers. */
typedef struct tfl_buffer_ops {
  /* Device storage of at least `bytes` into b->impl (allocated or grown; b->size is set
   * by the caller on success). */
  tfl_status (*reserve)(void *ctx, tfl_buffer *b, size_t bytes);
  /* Frees b->impl (device) or whatever an image holds; b itself is the runtime's. */
  void (*release)(void *ctx, tfl_buffer *b);
  /* Checks an image description (handles, layout) before the runtime copies it into b. */
  tfl_status (*import)(void *ctx, tfl_buffer *b, const tfl_image_desc *desc);
  /* Device to device, queued; bounds already checked by the runtime. */
  tfl_status (*copy)(void *ctx, tfl_buffer *src, size_t src_off, tfl_buffer *dst, size_t dst_off, size_t bytes);
  tfl_status (*fence)(void *ctx, tfl_buffer *b);
  bool (*ready)(void *ctx, tfl_buffer *b);
  tfl_status (*map)(void *ctx, tfl_buffer *b, const void **ptr);
  void (*unmap)(void *ctx, tfl_buffer *b);
} tfl_buffer_ops;

#endif
