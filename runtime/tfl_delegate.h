/* tfl_delegate.h - what a delegate implements.
 *
 * The interpreter asks the accelerator delegate (if any) which nodes it supports;
 * runs of consecutive claimed nodes form partitions; every other node goes to the
 * fallback delegate (the CPU delegate, which supports all ops the runtime knows). For each partition
 * the delegate's prepare() is called once (compile: shaders, XNNPACK subgraphs,
 * packed weights); invoke() then runs it with no allocation.
 *
 * Threads: all calls for one interpreter come from one thread at a time. A GL
 * delegate expects its GL context current on that thread. A delegate keeps no
 * global state; give each thread's interpreters their own delegates (or
 * serialize the calls) unless the delegate documents otherwise.
 */
#ifndef TFL_DELEGATE_H
#define TFL_DELEGATE_H

#include "tfl_graph.h"

/* Tensors that live on a device, for the delegates that can keep them there. Graph
 * inputs can be bound to a device object instead of tensor->data, graph outputs can be
 * exported into one and left out of host memory, so frames go GPU to GPU with no CPU
 * copy (e.g. a GStreamer GL texture in, a mask texture out). Between partitions the
 * interpreter still moves data through host memory, and only where the delegates of the
 * producing and the consuming partition differ. */
typedef enum {
  TFL_EXT_GL_IMAGE = 1,      /* input: a frame's GL_TEXTURE_2D(s) (RGBA8, or planes as
                                `layout` says; or one external texture, `external`)
                                sampled into an image tensor
                                ([B,H,W,3|4], float or 8-bit), one slot of the batch */
  TFL_EXT_GL_MASK,           /* output: a segmentation output ([B,H,W,C]) written into an
                                H x W R8 GL texture: the argmax class (C > 1) or the
                                probability * 255 (C == 1), one slot of the batch */
  TFL_EXT_HOST_MASK,         /* output: the same bytes as GL_MASK, made on the device, into
                                host memory `bytes` (width x height, rows of `width`
                                bytes): a few KB read back instead of the H x W x C
                                floats. Waits for the device. */
  TFL_EXT_GL_MASK_BUFFER,    /* output: the same bytes as GL_MASK into the GL buffer object
                                gl_name (in the delegate's context or one sharing with it),
                                rows padded to 4 bytes ((width + 3) / 4 * 4 a row), at
                                least that x height bytes. Only queued on the device, no
                                wait: the caller fences and maps the buffer when it needs
                                the bytes, so the next frame can run meanwhile. */
  /* Queued read-back of any output. A frame's results need not be waited for: after the
   * invoke (with the output left on the device, set_output_host false) its slot is queued
   * into a GL buffer of the caller's, and the caller maps the buffer once its own fence
   * has signalled, a frame later, while other invokes ran. */
  TFL_EXT_GL_OUTPUT_SIZE,    /* output: whether GL_OUTPUT_BUFFER takes this output, and the
                                bytes one slot needs there (into *need). Runs nothing on
                                the device, so it may be asked before the invoke (an output
                                it refuses can then still be read back by that invoke). */
  TFL_EXT_GL_OUTPUT_BUFFER,  /* output: slot `slot` as its host bytes, exactly what that slot
                                of tensor->data holds after an invoke that copies the output
                                back (its type, dense, row-major): made on the device, after
                                whatever unpacking the delegate's layout needs, and written
                                into the GL buffer gl_name from byte `offset` (a multiple of
                                4; `size` bytes from there are the caller's, at least *need).
                                Only queued, no wait: the caller fences and maps the buffer,
                                and the mapped bytes are the tensor's, no conversion. Refused
                                (an error naming the tensor and why): an output read by
                                another node (it is read back anyway), one of a type whose
                                host bytes the device cannot make bit for bit (the CPU's
                                rounding of quantized values), a buffer too small. */
} tfl_ext_kind;

/* GL_IMAGE: how a frame's pixels lie in its textures (what GStreamer's upload makes of
 * each format). Chroma of 4:2:0 layouts is read at (x / 2, y / 2), of 4:2:2 at x / 2: the
 * sample covering the pixel, as the CPU preprocessing reads it. */
typedef enum {
  TFL_GL_RGBA = 0,  /* one RGBA8 or RGB8 texture (RGBA, RGBx, RGB) */
  TFL_GL_BGRA,      /* the same with red and blue swapped (BGRA, BGRx, BGR) */
  TFL_GL_GRAY,      /* one R8 texture: luma (GRAY8) */
  TFL_GL_I420,      /* R8 textures Y, U, V (gl_name, gl_planes[0], gl_planes[1]) */
  TFL_GL_NV12,      /* R8 Y, RG8 UV at half size (gl_planes[0]) */
  TFL_GL_NV21,      /* R8 Y, RG8 VU at half size (gl_planes[0]) */
  TFL_GL_YUY2,      /* one RG8 texture of the frame's width: (Y, U) at even x, (Y, V) at odd */
  TFL_GL_UYVY,      /* (U, Y) at even x, (V, Y) at odd */
} tfl_gl_layout;

typedef struct {
  tfl_ext_kind kind;
  int slot;                  /* which frame of the batch */
  unsigned gl_name;          /* the texture (or, MASK_BUFFER, the buffer), in the delegate's
                                GL context (or one sharing with it); must stay valid until
                                the invoke (IMAGE) or the export (MASK) is done */
  int width, height;         /* the texture's size in pixels */
  /* GL_IMAGE: model-input pixel (x, y) samples texture point
   *   (affine[0] u + affine[1] v + affine[2], affine[3] u + affine[4] v + affine[5]),
   * u = x + 0.5, v = y + 0.5, bilinearly with half-pixel centres, clamped to the edge;
   * points outside the texture give pixel value `pad` (below; letterbox bars: 0, or 114
   * for Ultralytics' grey letterbox). Float inputs get
   * (pixel - mean) / std with pixel in 0..255; 8-bit inputs the rounded pixel. The same
   * math as the CPU preprocessing (preprocess/preprocess.h). */
  float affine[6];
  float mean[3], std[3];
  bool logits;               /* GL_MASK, one channel: a sigmoid first (tfl_decoder_output_is_logits) */
  uint8_t *bytes;            /* HOST_MASK: the caller's width x height bytes, written by
                                export_output */
  size_t offset, size;       /* GL_OUTPUT_BUFFER: where in gl_name, and the bytes from there */
  size_t *need;              /* GL_OUTPUT_SIZE: written by export_output */
  float pad;                 /* GL_IMAGE: the pixel value (0..255) outside the texture; last,
                                so positional initializers of the fields above still read */
  /* GL_IMAGE of a YUV or gray frame (0, TFL_GL_RGBA: one RGBA texture, gl_name) */
  tfl_gl_layout layout;
  unsigned gl_planes[2];     /* the chroma planes' textures (I420: U, V; NV12/NV21: UV) */
  float yuv[6];              /* YUV and gray layouts: preprocess_yuv_coefficients' six */
  bool external;             /* GL_IMAGE: gl_name is a GL_TEXTURE_EXTERNAL_OES texture (an
                                imported EGLImage, e.g. a DMABuf), read as RGBA: layout
                                TFL_GL_RGBA only (the driver converts its format) */
} tfl_ext;

/* A partition as the interpreter hands it over. Arrays are owned by the
 * interpreter and live until release(). Boundary tensors: `inputs` are read from
 * tensor->data (CPU memory) unless the delegate was told otherwise, `outputs` must
 * be written to tensor->data by the end of invoke(). */
typedef struct {
  int n_nodes;
  const int32_t *nodes;      /* node indices in execution order */
  int n_inputs;
  const int32_t *inputs;     /* non-constant tensors read but not produced inside */
  int n_outputs;
  const int32_t *outputs;    /* tensors produced inside and read outside (or graph outputs) */
  tfl_diag *diag;            /* the interpreter's diagnostics: prepare, invoke and release
                                report there (a delegate shared by several interpreters
                                keeps each partition's own); never NULL */
} tfl_partition;

/* A tensor kept alive while a node runs (see tfl_delegate.extra_uses). */
typedef struct {
  int32_t node, tensor;
} tfl_extra_use;

typedef struct tfl_delegate {
  const char *name;          /* "cpu", "gl": used in logs and tools */
  void *ctx;                 /* the delegate's own state, passed back to every call */

  /* Can this delegate run node `node` of `g` (op, version, types, shapes)? */
  bool (*supports)(void *ctx, const tfl_graph *g, int node);
  /* Optional (NULL: none). Called once per partition before the arena is planned: a
   * delegate that fuses nodes touches tensors at other times than their nodes (a fused
   * PAD's input is read when the convolution after it runs; a fused clamp's output is
   * written when the node before it runs). It lists those as (node, tensor) pairs, "the
   * tensor keeps its bytes while this node runs", into uses[0..max) and returns how many
   * there are (more than max: the interpreter asks again with room for all). */
  int (*extra_uses)(void *ctx, const tfl_graph *g, const tfl_partition *part, tfl_extra_use *uses, int max);
  /* Compiles `part`. Activation tensors already have their arena data pointers.
   * On success *state is passed to invoke()/release(). */
  tfl_status (*prepare)(void *ctx, tfl_graph *g, const tfl_partition *part, void **state);
  tfl_status (*invoke)(void *ctx, void *state);
  void (*release)(void *ctx, void *state);
  /* Device tensors (optional: NULL when the delegate keeps everything in host memory).
   * bind_input: graph input `tensor`, read by this partition, comes from ext for the
   * following invokes (ext NULL: from tensor->data again). export_output: after an
   * invoke, writes output `tensor` of this partition into ext now (queued on the device).
   * set_output_host: whether output `tensor` is copied to tensor->data by invoke (false:
   * it stays on the device, tensor->data goes stale; refused for a tensor another
   * partition reads). */
  tfl_status (*bind_input)(void *ctx, void *state, int tensor, const tfl_ext *ext);
  tfl_status (*export_output)(void *ctx, void *state, int tensor, const tfl_ext *ext);
  tfl_status (*set_output_host)(void *ctx, void *state, int tensor, bool host);
  /* Frees ctx; the interpreter never calls it (the creator owns the delegate). */
  void (*destroy)(struct tfl_delegate *self);
} tfl_delegate;

#endif
