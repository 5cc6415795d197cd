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

#include "tfl_buffer.h"
#include "tfl_graph.h"

/* Tensors that live on a device, for the delegates that can keep them there
 * (tfl_buffer.h). A graph input can be bound to an image buffer instead of tensor->data,
 * a graph output exported into a buffer (host, or the delegate's device buffer or image)
 * and left out of host memory, so frames go device to device with no CPU copy and
 * results come back a frame later through fence + map. Between partitions the
 * interpreter still moves data through host memory, and only where the delegates of the
 * producing and the consuming partition differ. */
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
   * bind_input: graph input `tensor`, read by this partition, comes for the following
   * invokes from image buffer `image` (one of this delegate's, its slot in the batch as
   * its description says; NULL: every slot from tensor->data again).
   * output_bytes: whether output `tensor` can be exported as e says, and the bytes one
   * slot takes in a device buffer (*need); runs nothing on the device, so it may be asked
   * before the invoke (an output it refuses can still come back with that invoke).
   * export_output: after an invoke, slot e->slot of output `tensor` into dst, converted
   * as e says: a host buffer is written now (waits for the device); one of this
   * delegate's device buffers (from e->offset) or images is only queued (the caller
   * fences and maps). Refused with an error naming the tensor and why (an output read by
   * another node, a conversion the device cannot make bit for bit, a buffer too small).
   * set_output_host: whether output `tensor` is copied to tensor->data by invoke (false:
   * it stays on the device, tensor->data goes stale; refused for a tensor another
   * partition reads). */
  tfl_status (*bind_input)(void *ctx, void *state, int tensor, const tfl_buffer *image);
  tfl_status (*output_bytes)(void *ctx, void *state, int tensor, const tfl_export *e, size_t *need);
  tfl_status (*export_output)(void *ctx, void *state, int tensor, const tfl_export *e, tfl_buffer *dst);
  tfl_status (*set_output_host)(void *ctx, void *state, int tensor, bool host);
  /* The buffers this delegate makes (tfl_buffer_impl.h); NULL: host buffers only. */
  const struct tfl_buffer_ops *buffers;
  /* Frees ctx; the interpreter never calls it (the creator owns the delegate). */
  void (*destroy)(struct tfl_delegate *self);
} tfl_delegate;

#endif
