/* tfl_buffer.h - where a tensor's bytes live outside the arena: host memory or a
 * delegate's device object, behind one handle.
 *
 *   setup:     tfl_buffer *b;  tfl_buffer_new(gl, TFL_BUFFER_DEVICE, bytes, diag, &b);
 *              tfl_buffer *img; tfl_buffer_new(gl, TFL_BUFFER_IMAGE, 0, diag, &img);
 *   per frame: tfl_buffer_import(img, &desc);  tfl_interpreter_bind_input(it, 0, img);
 *              tfl_interpreter_invoke(it);
 *              tfl_interpreter_export_output(it, 0, &(tfl_export){ .slot = 0 }, b);
 *              tfl_buffer_fence(b);                      // queued: nothing waits yet
 *   a frame later: tfl_buffer_map(b, &p) ... read p ... tfl_buffer_unmap(b);
 *   teardown:  tfl_buffer_free(b);
 *
 * Buffers are made once (prepare, start) and reused: import re-points an image buffer at
 * this frame's object without allocating. Host buffers belong to no delegate (any
 * delegate exports into them, waiting for its device); device and image buffers belong
 * to the delegate that made them, which alone reads, writes, fences and maps them. The
 * runtime never names a device object: an image's handles are numbers the delegate
 * interprets (the GL delegate: texture names in its context or one sharing with it).
 *
 * Threads: a device buffer's calls run where its delegate's calls do (the GL delegate:
 * its context current). */
#ifndef TFL_BUFFER_H
#define TFL_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tfl_status.h"

struct tfl_delegate;
typedef struct tfl_buffer tfl_buffer;

typedef enum {
  TFL_BUFFER_HOST = 1,   /* bytes in host memory (the runtime's; map is free) */
  TFL_BUFFER_DEVICE,     /* bytes in the delegate's device memory: written by exports and
                            copies on the device, read through fence + map */
  TFL_BUFFER_IMAGE,      /* an external object imported by handle (tfl_buffer_import): a
                            frame bound as an input, or a picture an export writes */
} tfl_buffer_kind;

/* What an export makes of an output slot's values. */
typedef enum {
  TFL_CONVERT_NONE = 0,  /* the slot's host bytes, exactly what that slot of tensor->data
                            holds after an invoke that copies it back (type, dense, row-major) */
  TFL_CONVERT_CLASS_U8,  /* a [B,H,W,C] output as one byte per pixel: the argmax over
                            channels (C > 1) or the value * 255 rounded and clamped (C == 1) */
  TFL_CONVERT_SIGMOID_CLASS_U8, /* the same with a sigmoid first when C == 1 (logits) */
} tfl_output_convert;

/* Byte rows of the U8 conversions: `width` bytes in host buffers; in device buffers and
 * images padded to a multiple of 4 (tfl_class_row_bytes), the unit of device copies. */
size_t tfl_class_row_bytes(int width);

/* How an image's pixels lie in its planes (handle, planes[0], planes[1]). Chroma of 4:2:0
 * layouts is read at (x / 2, y / 2), of 4:2:2 at x / 2: the sample covering the pixel, as
 * the CPU preprocessing reads it. */
typedef enum {
  TFL_IMAGE_RGBA = 0,  /* one RGBA8 or RGB8 plane (RGBA, RGBx, RGB) */
  TFL_IMAGE_BGRA,      /* the same with red and blue swapped (BGRA, BGRx, BGR) */
  TFL_IMAGE_GRAY,      /* one 8-bit plane: luma (GRAY8) */
  TFL_IMAGE_I420,      /* 8-bit Y, U, V (handle, planes[0], planes[1]) */
  TFL_IMAGE_NV12,      /* 8-bit Y, UV pairs at half size (planes[0]) */
  TFL_IMAGE_NV21,      /* 8-bit Y, VU pairs at half size (planes[0]) */
  TFL_IMAGE_YUY2,      /* one two-byte plane of the frame's width: (Y, U) at even x, (Y, V) at odd */
  TFL_IMAGE_UYVY,      /* (U, Y) at even x, (V, Y) at odd */
} tfl_image_layout;

/* An external picture by handle, and (as an input) how it is sampled into one slot of an
 * image tensor ([B,H,W,3|4], float or 8-bit). The handles are the delegate's to read;
 * they must stay valid until the invoke (input) or the export (output) is done. */
typedef struct {
  int slot;                  /* input: which frame of the batch */
  uint64_t handle;           /* the picture (or its luma plane) */
  int width, height;         /* its size in pixels */
  /* input: model-input pixel (x, y) samples picture point
   *   (affine[0] u + affine[1] v + affine[2], affine[3] u + affine[4] v + affine[5]),
   * u = x + 0.5, v = y + 0.5, bilinearly with half-pixel centres, clamped to the edge;
   * points outside the picture give pixel value `pad` (letterbox bars: 0, or 114 for
   * Ultralytics' grey letterbox). Float inputs get (pixel - mean) / std with pixel in
   * 0..255; 8-bit inputs the rounded pixel. The CPU preprocessing's math
   * (preprocess/preprocess.h). */
  float affine[6];
  float mean[3], std[3];
  float pad;
  tfl_image_layout layout;
  uint64_t planes[2];        /* the chroma planes (I420: U, V; NV12/NV21: the pair) */
  float yuv[6];              /* YUV and gray layouts: preprocess_yuv_coefficients' six */
  bool external;             /* the handle is an object the driver converts to RGBA itself
                                (the GL delegate: a GL_TEXTURE_EXTERNAL_OES texture of an
                                imported DMABuf): layout RGBA only */
} tfl_image_desc;

/* One output slot exported into a buffer (tfl_interpreter_export_output). */
typedef struct {
  int slot;                  /* which frame of the batch */
  tfl_output_convert convert;
  size_t offset;             /* where in the buffer (a multiple of 4); 0 for images */
} tfl_export;

/* A buffer of `kind` made by delegate d (NULL for host buffers): `bytes` (device, host;
 * 0 for images) and nothing written yet. The caller frees it before the delegate. */
tfl_status tfl_buffer_new(struct tfl_delegate *d, tfl_buffer_kind kind, size_t bytes, tfl_diag *diag,
                          tfl_buffer **out);
void tfl_buffer_free(tfl_buffer *b);
tfl_buffer_kind tfl_buffer_get_kind(const tfl_buffer *b);
size_t tfl_buffer_size(const tfl_buffer *b);
/* The delegate that made b, NULL for host buffers. */
struct tfl_delegate *tfl_buffer_owner(const tfl_buffer *b);
/* Device buffers: grown to at least `bytes` (contents lost); host buffers too. Not for a
 * mapped or fenced buffer's bytes in flight: their fence goes first. */
tfl_status tfl_buffer_reserve(tfl_buffer *b, size_t bytes);
/* An image buffer pointed at the picture desc describes (copied; no allocation). */
tfl_status tfl_buffer_import(tfl_buffer *b, const tfl_image_desc *desc);
/* The copy of an image buffer's description (NULL for other kinds). */
const tfl_image_desc *tfl_buffer_image(const tfl_buffer *b);
/* `bytes` from src at src_off to dst at dst_off, queued on the device (both the same
 * delegate's, or host buffers: a plain copy). */
tfl_status tfl_buffer_copy(tfl_buffer *src, size_t src_off, tfl_buffer *dst, size_t dst_off, size_t bytes);
/* Marks the point after the work queued so far that writes b; map waits for it. Flushes,
 * so the device starts now. No-op for host buffers. */
tfl_status tfl_buffer_fence(tfl_buffer *b);
/* Whether b's fence has signalled (true when there is none): a map would not wait. */
bool tfl_buffer_ready(tfl_buffer *b);
/* b's bytes on the host: waits for its fence, then maps. *ptr stays valid until unmap.
 * A device buffer is unmapped before the next export or copy into it; a host buffer's
 * map is its memory and may stay mapped while exports write it. */
tfl_status tfl_buffer_map(tfl_buffer *b, const void **ptr);
void tfl_buffer_unmap(tfl_buffer *b);
/* The last failure of b's calls (its delegate's diag, or b's own). */
const char *tfl_buffer_last_error(const tfl_buffer *b);

#endif
